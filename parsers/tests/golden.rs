//! Every fixture under `fixtures/<tool>/<case>.txt` parses to exactly its
//! `<case>.expected.json`. Run with `BLESS=1` to rewrite the golden files
//! after a deliberate change (`BLESS=sysbench` rewrites only the cases whose
//! path contains `sysbench`), then read the diff before committing.
//!
//! A fixture listed in `fixtures/misses.tsv` holds in its golden what the
//! text says, written by hand, not what the parsers read today: it must
//! still differ (when it no longer does, take it off the list), is never
//! blessed, and counts against the share of fixtures read, printed per tool.

use testkit::fixture_files;

use std::collections::BTreeMap;

#[test]
fn fixtures_match_their_golden_json() {
    let bless = std::env::var("BLESS").ok();
    let mut failures = Vec::new();
    let cases = fixture_files::fixture_texts();
    assert!(!cases.is_empty(), "no fixtures found");
    let misses = fixture_files::known_misses();
    // Per tool folder: (fixtures, fixtures read as their golden).
    let mut read: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for case in &cases {
        let name = fixture_files::fixture_name(case);
        let missed = misses.contains(&name);
        let input = std::fs::read_to_string(case).expect("fixture is UTF-8");
        let got = serde_json::to_string_pretty(&parsers::parse(&input))
            .expect("Document serialises")
            + "\n";
        let golden = case.with_extension("expected.json");
        if let Some(filter) = &bless {
            if !missed && (filter == "1" || case.to_string_lossy().contains(filter.as_str())) {
                std::fs::write(&golden, &got).expect("write golden file");
            }
            continue;
        }
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("{} has no golden file; run with BLESS=1", case.display()));
        let tool = name.split('/').next().unwrap_or_default().to_string();
        let counts = read.entry(tool).or_default();
        counts.0 += 1;
        counts.1 += usize::from(got == want);
        if missed {
            if got == want {
                failures.push(format!(
                    "{name} is read as its golden now: take it off fixtures/misses.tsv"
                ));
            }
            continue;
        }
        if got != want {
            let first_difference = got
                .lines()
                .zip(want.lines())
                .enumerate()
                .find(|(_, (g, w))| g != w)
                .map(|(i, (g, w))| format!("line {}:\n  got:  {g}\n  want: {w}", i + 1))
                .unwrap_or_else(|| "lengths differ".to_string());
            failures.push(format!("{}: {first_difference}", case.display()));
        }
    }
    for (tool, (all, right)) in &read {
        println!("{tool}: {right} of {all} fixtures read as their golden");
    }
    assert!(
        failures.is_empty(),
        "golden mismatches:\n{}",
        failures.join("\n")
    );
}
