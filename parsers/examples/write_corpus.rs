//! Writes the parse benchmark's corpus to a file, so that a command that is
//! not Rust (grep) can be timed on the very same bytes.
//!
//! `cargo run --release -p parsers --example write_corpus -- target/corpus.txt`

use testkit::corpus;

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: write_corpus FILE");
        std::process::exit(2);
    };
    let text = corpus::corpus();
    std::fs::write(&path, &text)?;
    println!("{} bytes", text.len());
    Ok(())
}
