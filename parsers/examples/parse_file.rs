//! Parses one file and prints how many runs it holds: the whole of
//! `parsers::parse` and nothing else, for timing against other commands.
//! With `--json`, prints the whole document instead, to compare two builds
//! of the parser on the same input.
//!
//! `cargo run --release -p parsers --example parse_file -- [--json] FILE`

fn main() -> std::io::Result<()> {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let (json, path) = match args.as_slice() {
        [flag, path] if flag == "--json" => (true, path),
        [path] => (false, path),
        _ => {
            eprintln!("usage: parse_file [--json] FILE");
            std::process::exit(2);
        }
    };
    let text = std::fs::read_to_string(path)?;
    let document = parsers::parse(&text);
    if json {
        serde_json::to_writer(std::io::stdout().lock(), &document)?;
        println!();
    } else {
        println!("{}", document.runs.len());
    }
    Ok(())
}
