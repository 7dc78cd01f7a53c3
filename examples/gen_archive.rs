//! Writes the ingest benchmark's generated list archive (about 56 MB of
//! mbox) to the path given, for `scripts/bench-ingest.sh`.
//!
//! `cargo run --release --example gen_archive -- target/bench-ingest/archive.mbox`

use testkit::archive as generated;

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: gen_archive OUT.mbox");
        std::process::exit(2);
    };
    let bytes = generated::archive();
    std::fs::write(&path, &bytes)?;
    println!("{}: {} bytes", path.to_string_lossy(), bytes.len());
    Ok(())
}
