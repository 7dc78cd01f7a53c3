//! Parses one file and prints how many runs it holds: the whole of
//! `parsers::parse` and nothing else, for timing against other commands.
//!
//! `cargo run --release -p parsers --example parse_file -- target/corpus.txt`

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: parse_file FILE");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path)?;
    let document = parsers::parse(&text);
    println!("{}", document.runs.len());
    Ok(())
}
