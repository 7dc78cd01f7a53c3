//! `benchlog parse FILE --json` on every fixture prints exactly its golden
//! file: the command users' scripts call gives what the parsers' golden
//! tests check.

use std::path::PathBuf;
use std::process::Command;

use crate::support::repo_path;

fn fixture_logs() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![repo_path("fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
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

#[test]
fn parse_json_of_every_fixture_matches_its_golden_file() {
    let logs = fixture_logs();
    assert!(logs.len() >= 30, "only {} fixtures found", logs.len());
    let mut mismatches = Vec::new();
    for log in &logs {
        let output = Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .args(["parse", log.to_str().unwrap(), "--json"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}: {}",
            log.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let golden = std::fs::read(log.with_extension("expected.json")).unwrap();
        if output.stdout != golden {
            mismatches.push(log.display().to_string());
        }
    }
    assert!(
        mismatches.is_empty(),
        "parse --json differs from the golden file for: {mismatches:#?}"
    );
}
