//! super-smack fixtures, one per quirk, checked value by value.

use parsers::{parse, Document, Run};

fn fixture(name: &str) -> Document {
    let path = format!(
        "{}/../fixtures/super-smack/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{path}")))
}

fn summary(run: &Run) -> (Option<&str>, Option<u32>, [usize; 2], Option<f64>) {
    let q = run
        .results
        .iter()
        .rev()
        .find(|r| r.metric == "q_per_s")
        .map(|r| r.value);
    (run.test.as_deref(), run.threads, run.lines, q)
}

#[test]
fn raw_tabs_and_the_postgresql_driver() {
    let doc = fixture("raw-tabs-postgresql-driver-two-smack-files");
    let got: Vec<_> = doc.runs.iter().map(summary).collect();
    assert_eq!(
        got,
        [
            (Some("select-key"), Some(50), [1, 5], Some(4187.33)),
            (Some("update-select"), Some(50), [6, 11], Some(1190.21)),
        ]
    );
    assert!(doc
        .runs
        .iter()
        .all(|r| r.attrs.get("db_server").map(String::as_str) == Some("PostgreSQL")));
    assert_eq!(
        doc.runs[1].value("update_index", "num_queries"),
        Some(50000.0)
    );
    assert_eq!(doc.runs[0].value("connect", "max_ms"), Some(184.0));
}

#[test]
fn a_report_inside_a_sentence() {
    let doc = fixture("lost-line-breaks-report-in-a-sentence");
    let got: Vec<_> = doc.runs.iter().map(summary).collect();
    assert_eq!(
        got,
        [(Some("select-key"), Some(30), [1, 1], Some(24310.77))]
    );
    assert!(doc.unparsed.is_empty());
}

#[test]
fn a_quoted_shell_loop_takes_threads_from_each_connect_line() {
    let doc = fixture("quoted-shell-loop-threads-from-connect-line");
    let got: Vec<_> = doc.runs.iter().map(summary).collect();
    assert_eq!(
        got,
        [
            (Some("select-key"), Some(1), [4, 8], Some(9120.11)),
            (Some("select-key"), Some(4), [9, 12], Some(21544.87)),
            (Some("select-key"), Some(16), [13, 16], Some(20874.02)),
        ]
    );
    for run in &doc.runs {
        assert_eq!(run.quote_depth, 2);
        assert_eq!(run.author.as_deref(), Some("Sven Petai"));
        assert_eq!(run.label.as_deref(), Some("SCHED_ULE libthr.so.2"));
        assert_eq!(run.attrs.get("scheduler").map(String::as_str), Some("ULE"));
        assert_eq!(
            run.attrs.get("thread_lib").map(String::as_str),
            Some("libthr")
        );
    }
}

#[test]
fn rfc822_headers_labels_and_machine_line() {
    let doc = fixture("rfc822-headers-and-section-labels");
    let top = &doc.messages[0];
    assert_eq!(top.author.as_deref(), Some("Steven Hartland"));
    assert_eq!(
        top.message_id.as_deref(),
        Some("<00c701c658a6$2b6f3b10$b3db87d4@multiplay.co.uk>")
    );
    assert_eq!(
        top.in_reply_to.as_deref(),
        Some("<200604041742.05391.hadara@bsd.ee>")
    );
    let labels: Vec<_> = doc.runs.iter().map(|r| r.label.as_deref()).collect();
    assert_eq!(
        labels,
        [
            Some("4BSD + libpthread + ACPI-Fast"),
            Some("ULE + libthr + TSC")
        ]
    );
    let ule = &doc.runs[1];
    assert_eq!(ule.value("select_index", "q_per_s"), Some(28581.18));
    assert_eq!(
        ule.attrs.get("os_version").map(String::as_str),
        Some("6.1-PRERELEASE")
    );
    assert_eq!(ule.author.as_deref(), Some("Steven Hartland"));
}

#[test]
fn the_same_run_quoted_again_is_counted_once() {
    let doc = fixture("same-run-quoted-twice-is-one-run");
    let got: Vec<_> = doc.runs.iter().map(|r| (r.quote_depth, r.lines)).collect();
    assert_eq!(got, [(0, [3, 7])]);
}

#[test]
fn truncated_reports_are_near_misses_not_half_runs() {
    let doc = fixture("truncated-reports-are-near-misses");
    let got: Vec<_> = doc.runs.iter().map(summary).collect();
    assert_eq!(
        got,
        [(Some("select-key"), Some(100), [2, 6], Some(18624.60))]
    );
    let misses: Vec<(usize, bool)> = doc
        .unparsed
        .iter()
        .map(|u| (u.line, u.why.contains("super-smack")))
        .collect();
    assert_eq!(misses, [(9, true), (15, true)]);
}
