//! `benchlog parse FILE --json` on every fixture prints exactly its golden
//! file: the command users' scripts call gives what the parsers' golden
//! tests check (and differs where they differ: the fixtures of
//! `fixtures/misses.tsv`).

use std::process::Command;

// The walker and the list of fixtures still read wrong that the parsers'
// golden tests use.
use testkit::fixture_files;

#[test]
fn parse_json_of_every_fixture_matches_its_golden_file() {
    let logs = fixture_files::fixture_texts();
    let misses = fixture_files::known_misses();
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
        // A fixture still read wrong must differ as parsers::parse does.
        let missed = misses.contains(&fixture_files::fixture_name(log));
        if (output.stdout != golden) != missed {
            mismatches.push(log.display().to_string());
        }
    }
    assert!(
        mismatches.is_empty(),
        "parse --json differs from the golden file for: {mismatches:#?}"
    );
}
