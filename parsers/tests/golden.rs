//! Every fixture under `fixtures/<tool>/<case>.txt` parses to exactly its
//! `<case>.expected.json`. Run with `BLESS=1` to rewrite the golden files
//! after a deliberate change (`BLESS=sysbench` rewrites only the cases whose
//! path contains `sysbench`), then read the diff before committing.

mod fixture_files;

#[test]
fn fixtures_match_their_golden_json() {
    let bless = std::env::var("BLESS").ok();
    let mut failures = Vec::new();
    let cases = fixture_files::fixture_texts();
    assert!(!cases.is_empty(), "no fixtures found");
    for case in &cases {
        let input = std::fs::read_to_string(case).expect("fixture is UTF-8");
        let got = serde_json::to_string_pretty(&parsers::parse(&input))
            .expect("Document serialises")
            + "\n";
        let golden = case.with_extension("expected.json");
        if let Some(filter) = &bless {
            if filter == "1" || case.to_string_lossy().contains(filter.as_str()) {
                std::fs::write(&golden, &got).expect("write golden file");
            }
            continue;
        }
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("{} has no golden file; run with BLESS=1", case.display()));
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
    assert!(
        failures.is_empty(),
        "golden mismatches:\n{}",
        failures.join("\n")
    );
}
