//! The schema and the store's round trip.

use std::collections::BTreeMap;

use benchlog::store::{self, StoreError};
use parsers::{Document, LabelKind, LabelSource, Measurement, Message, Run, Tool, Unparsed};

use crate::support::fresh_db;

#[test]
fn migrations_apply_to_an_empty_database() {
    let (_dir, path, conn) = fresh_db();
    assert_eq!(
        store::schema_version(&conn).unwrap(),
        store::schema_version_known()
    );
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // FTS5 keeps its index in shadow tables of its own.
    tables.retain(|t| !t.starts_with("sqlite_") && !t.starts_with("submissions_fts_"));
    assert_eq!(
        tables,
        [
            "archive_marks",
            "archived_texts",
            "configs",
            "data_generation",
            "deleted_submissions",
            "edit_tokens",
            "fts_indexed",
            "heartbeat",
            "id_high_water",
            "mails",
            "messages",
            "point_sums",
            "results",
            "run_attrs",
            "run_configs",
            "run_edit_log",
            "run_edits",
            "run_fingerprints",
            "run_label_sources",
            "run_quotes",
            "runs",
            "submissions",
            "submissions_fts",
            "sums_through",
            "tool_runs",
            "unparsed",
            "url_marks",
        ]
    );
    let journal: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    let foreign_keys: i64 = conn
        .pragma_query_value(None, "foreign_keys", |r| r.get(0))
        .unwrap();
    assert_eq!(foreign_keys, 1);
    drop(conn);
    // Opening again migrates nothing and keeps the version.
    let again = store::open(&path).unwrap();
    assert_eq!(
        store::schema_version(&again).unwrap(),
        store::schema_version_known()
    );
}

#[test]
fn a_newer_database_is_refused() {
    let (_dir, path, conn) = fresh_db();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    match store::open(&path) {
        Err(StoreError::TooNew { found: 99, .. }) => {}
        other => panic!("expected TooNew, got {:?}", other.map(|_| ())),
    }
}

/// A Document built by hand, so the store is tested apart from the parsers.
pub fn hand_made_document() -> Document {
    let measurement = |item: &str, metric: &str, value: f64, unit: &str, line: usize| Measurement {
        item: item.into(),
        metric: metric.into(),
        value,
        unit: unit.into(),
        line,
        estimated: false,
    };
    let run = |threads: u32, label: &str, scheduler: &str, q_per_s: f64, first: usize| Run {
        tool: Tool::SuperSmack,
        test: Some("select-key".into()),
        label: Some(label.into()),
        // A banner right above the report.
        label_from: vec![LabelSource {
            kind: LabelKind::Banner,
            lines: [first - 1, first - 1],
        }],
        threads: Some(threads),
        attrs: BTreeMap::from([
            ("scheduler".to_owned(), scheduler.to_owned()),
            ("thread_lib".to_owned(), "libthr".to_owned()),
        ]),
        quote_depth: 2,
        author: Some("Steven Hartland".into()),
        message: Some(0),
        command: Some(format!(
            "super-smack -d mysql select-key.smack {threads} 10000"
        )),
        lines: [first, first + 4],
        results: vec![
            measurement("connect", "avg_ms", 23.0, "ms", first + 2),
            measurement("select_index", "q_per_s", q_per_s, "q/s", first + 4),
        ],
    };
    Document {
        messages: vec![Message {
            author: Some("Steven Hartland".into()),
            email: Some("steven@example.org".into()),
            date: Some("Thu Apr 20 09:46:56 UTC 2006".into()),
            subject: Some("mysql performance".into()),
            message_id: None,
            in_reply_to: None,
            lines: [1, 20],
            ..Message::default()
        }],
        runs: vec![
            run(100, "ULE + libthr", "ULE", 28581.18, 2),
            run(10, "4BSD + libthr", "4BSD", 26841.07, 8),
        ],
        unparsed: vec![Unparsed {
            line: 15,
            text: "select_index 2000000 8 0".into(),
            why: "a result row without its report header".into(),
        }],
    }
}

#[test]
fn a_submission_round_trips() {
    let (_dir, _path, mut conn) = fresh_db();
    let text = "hand made\n".repeat(20);
    let document = hand_made_document();
    let stored =
        benchlog::ingest::ingest_document(&mut conn, Some("hand.txt"), &text, &document).unwrap();
    assert!(stored.created);
    assert_eq!(stored.runs, 2);

    let submission = store::get_submission(&conn, stored.submission_id)
        .unwrap()
        .unwrap();
    assert_eq!(submission.text, text);
    assert_eq!(submission.sha256, benchlog::ingest::sha256_hex(&text));
    assert_eq!(submission.head.source_name.as_deref(), Some("hand.txt"));
    assert_eq!(submission.head.author.as_deref(), Some("Steven Hartland"));
    assert_eq!(
        submission.head.subject.as_deref(),
        Some("mysql performance")
    );
    assert_eq!(
        submission.head.date.as_deref(),
        Some("Thu Apr 20 09:46:56 UTC 2006")
    );

    let runs = store::runs_of_submission(&conn, stored.submission_id).unwrap();
    assert_eq!(runs.len(), 2);
    for (run, want) in runs.iter().zip(&document.runs) {
        assert_eq!(run.tool, want.tool.name());
        assert_eq!(run.test, want.test);
        assert_eq!(run.label, want.label);
        assert_eq!(run.threads, want.threads);
        assert_eq!(run.quote_depth, want.quote_depth);
        assert_eq!(run.author, want.author);
        assert_eq!(run.command, want.command);
        assert_eq!(run.lines, want.lines);
        assert_eq!(run.message_idx, want.message);
        assert_eq!(run.attrs, want.attrs);
        let sources: Vec<(&str, [usize; 2])> = run
            .label_from
            .iter()
            .map(|source| (source.kind.as_str(), source.lines))
            .collect();
        let wanted: Vec<(&str, [usize; 2])> = want
            .label_from
            .iter()
            .map(|source| (source.kind.name(), source.lines))
            .collect();
        assert_eq!(sources, wanted);
        let results: Vec<(String, String, f64, String, usize)> = run
            .results
            .iter()
            .map(|r| {
                (
                    r.item.clone(),
                    r.metric.clone(),
                    r.value,
                    r.unit.clone(),
                    r.line,
                )
            })
            .collect();
        let wanted: Vec<(String, String, f64, String, usize)> = want
            .results
            .iter()
            .map(|r| {
                (
                    r.item.clone(),
                    r.metric.clone(),
                    r.value,
                    r.unit.clone(),
                    r.line,
                )
            })
            .collect();
        assert_eq!(results, wanted);
    }
    let unparsed = store::unparsed_of_submission(&conn, stored.submission_id).unwrap();
    assert_eq!(unparsed.len(), 1);
    assert_eq!(unparsed[0].line, 15);
    assert_eq!(unparsed[0].why, "a result row without its report header");

    let listed = store::list_submissions(&conn, 10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].runs, 2);
    assert_eq!(listed[0].tools, ["super-smack"]);
}

/// The data generation moves on with every kind of change a page could
/// show (a new submission, an edit, its undo, a deletion), whichever
/// connection makes it, and stays put while the data is only read.
#[test]
fn the_generation_moves_with_every_change_and_only_then() {
    let (_dir, path, mut conn) = fresh_db();
    let reader = store::open(&path).unwrap();
    let mut last = store::generation(&reader).unwrap();
    let moved = |what: &str, last: &mut i64| {
        let now = store::generation(&reader).unwrap();
        assert!(now > *last, "{what}: generation {now} after {last}");
        *last = now;
    };

    let stored =
        benchlog::ingest::ingest_text(&mut conn, None, &crate::support::smack_log(1, 3)).unwrap();
    moved("a new submission", &mut last);

    store::tool_counts(&conn).unwrap();
    store::list_submissions(&conn, 10).unwrap();
    assert_eq!(
        store::generation(&reader).unwrap(),
        last,
        "reads change nothing"
    );

    let run_id: i64 = conn
        .query_row("SELECT min(id) FROM runs", [], |row| row.get(0))
        .unwrap();
    for (what, value) in [("an edit", Some("ULE")), ("its undo", None)] {
        let tx = conn.transaction().unwrap();
        let field = store::RunField::Attr("scheduler".to_owned());
        assert!(store::set_run_field(&tx, run_id, &field, value).unwrap());
        tx.commit().unwrap();
        moved(what, &mut last);
    }

    assert!(store::delete_submission(&mut conn, stored.submission_id).unwrap());
    moved("a deletion", &mut last);
}

/// Results and attributes carry their run's tool (the compare form reads
/// a tool's values from it): the store's writers fill it, for stored runs
/// and for an attribute an edit adds.
#[test]
fn every_result_and_attribute_carries_its_runs_tool() {
    let (_dir, _path, mut conn) = fresh_db();
    benchlog::ingest::ingest_text(&mut conn, None, &crate::support::smack_log(3, 2)).unwrap();
    crate::support::ingest_fixture(
        &mut conn,
        "fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt",
    );
    let run_id: i64 = conn
        .query_row("SELECT min(id) FROM runs", [], |row| row.get(0))
        .unwrap();
    let tx = conn.transaction().unwrap();
    let field = store::RunField::Attr("timer".to_owned());
    assert!(store::set_run_field(&tx, run_id, &field, Some("TSC")).unwrap());
    tx.commit().unwrap();
    let (rows, untagged): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM results) + (SELECT count(*) FROM run_attrs),
                    (SELECT count(*) FROM results x JOIN runs r ON r.id = x.run_id
                      WHERE x.tool IS NOT r.tool)
                  + (SELECT count(*) FROM run_attrs a JOIN runs r ON r.id = a.run_id
                      WHERE a.tool IS NOT r.tool)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert!(rows > 20, "{rows} rows");
    assert_eq!(untagged, 0);
    let choices = store::choices(&conn, Some("super-smack")).unwrap();
    assert!(
        choices.attr_keys.contains(&"timer".to_owned()),
        "{choices:?}"
    );
}

/// Starts `processes` real benchlog processes that all open the same new
/// database at once (an ingest of an empty folder: open, migrate, read),
/// and checks that every one succeeded and that the schema came out whole.
fn open_new_database_from_many_processes(processes: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.db");
    let empty = dir.path().join("nothing");
    std::fs::create_dir_all(&empty).unwrap();
    let children: Vec<_> = (0..processes)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_benchlog"))
                .args(["ingest", "--db"])
                .arg(&path)
                .arg(&empty)
                .env_remove("BENCHLOG_DB")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "a concurrent open failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let conn = store::open(&path).unwrap();
    assert_eq!(
        store::schema_version(&conn).unwrap(),
        store::schema_version_known()
    );
    let generation_tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'data_generation'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(generation_tables, 1);
    assert_eq!(store::generation(&conn).unwrap(), 0);
}

#[test]
fn processes_creating_the_same_database_at_once_all_succeed() {
    for _ in 0..20 {
        open_new_database_from_many_processes(8);
    }
}

#[test]
#[ignore = "stress: several hundred processes; run with --ignored stress_"]
fn stress_processes_creating_the_same_database_at_once_all_succeed_many_times() {
    for _ in 0..200 {
        open_new_database_from_many_processes(8);
    }
}

#[test]
fn the_id_high_water_mark_starts_at_the_ids_already_given() {
    let (_dir, path, mut conn) = fresh_db();
    for seed in 0..3 {
        benchlog::ingest::ingest_text(&mut conn, None, &crate::support::smack_log(seed, 2))
            .unwrap();
    }
    // Back to the schema before 0008, holding those rows (0012's column
    // too: a column cannot be added twice).
    conn.execute_batch(
        "DROP INDEX runs_copy_key;
         DROP INDEX runs_tool_id_fields;
         ALTER TABLE runs DROP COLUMN copy_key;
         DROP TRIGGER submissions_delete_high_water;
         DROP TRIGGER runs_delete_high_water;
         DROP TABLE id_high_water;
         PRAGMA user_version = 7;",
    )
    .unwrap();
    drop(conn);
    let conn = store::open(&path).unwrap();
    let marks: Vec<(String, i64)> = conn
        .prepare("SELECT tbl, id FROM id_high_water ORDER BY tbl")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        marks,
        [("runs".to_owned(), 6), ("submissions".to_owned(), 3)]
    );
}
