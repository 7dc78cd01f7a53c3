//! Real posts that mention a tool — a command line, an install step, an
//! option list, "I ran bonnie++" — but print no result give no run. The
//! goldens under `fixtures/negative/` say so too; this test keeps a
//! re-blessed golden from quietly accepting a run there.

use testkit::fixture_files;

#[test]
fn every_negative_fixture_gives_no_run() {
    let cases = fixture_files::negative_texts();
    assert!(cases.len() >= 10, "only {} negative fixtures", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case).expect("fixture is UTF-8");
        let doc = parsers::parse(&text);
        for run in &doc.runs {
            failures.push(format!(
                "{}: a {:?} run at lines {:?}",
                case.display(),
                run.tool,
                run.lines
            ));
        }
        let golden = std::fs::read_to_string(case.with_extension("expected.json"))
            .unwrap_or_else(|_| panic!("{} has no golden file", case.display()));
        let golden: serde_json::Value = serde_json::from_str(&golden).expect("golden is JSON");
        if golden["runs"] != serde_json::json!([]) {
            failures.push(format!("{}: its golden holds runs", case.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn whole_mails_among_the_negatives_are_read_as_mails() {
    // The list messages keep their headers: each is at least one message
    // with an author, so a run found in them would carry one.
    for case in fixture_files::negative_texts() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("real-lkml-")
            || name.starts_with("real-linux-mips-")
            || name.starts_with("real-linux-fsdevel-"))
        {
            continue;
        }
        let doc = parsers::parse(&std::fs::read_to_string(&case).unwrap());
        assert!(!doc.messages.is_empty(), "{name}");
        assert!(doc.messages[0].author.is_some(), "{name}");
    }
}
