//! The fixtures the parsers' test binaries read: every `*.txt` under
//! `fixtures/`, in path order.

use std::path::{Path, PathBuf};

pub fn fixture_texts() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures folder") {
            let path = entry.expect("fixture entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "txt") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The real negative posts under `fixtures/negative/`: texts that name a
/// tool, its command line or its options but hold no result.
#[allow(dead_code)] // each test binary uses only some of these helpers
pub fn negative_texts() -> Vec<PathBuf> {
    let negative = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/negative");
    fixture_texts()
        .into_iter()
        .filter(|path| path.starts_with(&negative))
        .collect()
}
