//! Embeds the files a copied or installed binary needs and a checkout
//! keeps beside the sources: the stylesheets (`static/`) and the demo's
//! example logs (below `fixtures/`, by the `example-logs` crate). Each table
//! lists its files by path below its folder, in name order, hidden
//! entries left out; `src/embedded.rs` includes them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let mut code = String::new();
    table(&mut code, "STATIC", &root.join("static"), |_| true);
    let fixtures = root.join("fixtures");
    table(&mut code, "EXAMPLE_LOGS", &fixtures, |path| {
        path.strip_prefix(&fixtures)
            .is_ok_and(example_logs::is_example_log)
    });
    std::fs::write(out.join("embedded.rs"), code).expect("OUT_DIR is writable");
    // A folder named here is scanned for changes to any file below it.
    println!("cargo::rerun-if-changed=static");
    println!("cargo::rerun-if-changed=fixtures");
}

/// Writes `pub static NAME: &[(&str, &[u8])]`: every file below `folder`
/// that `wanted` takes, by its path below `folder` ('/'-separated).
fn table(code: &mut String, name: &str, folder: &Path, wanted: impl Fn(&Path) -> bool) {
    let mut files = Vec::new();
    walk(folder, &mut files);
    files.retain(|path| wanted(path));
    writeln!(code, "pub static {name}: &[(&str, &[u8])] = &[").unwrap();
    for path in files {
        let below = path.strip_prefix(folder).expect("walked below the folder");
        let below: Vec<String> = below
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        writeln!(
            code,
            "    ({:?}, include_bytes!({:?})),",
            below.join("/"),
            path.display().to_string()
        )
        .unwrap();
    }
    writeln!(code, "];").unwrap();
}

/// The files below `folder`, recursively, each folder's entries in name
/// order; hidden entries are left out.
fn walk(folder: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with('.'))
        })
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}
