//! The review page: messages, runs, near misses, the marked text, and the
//! forms that correct labels and attributes without losing what the parser
//! found.

use benchlog::store;
use benchlog::web::AppState;
use rusqlite::Connection;

use crate::http::{
    edit_form, fixture, get, get_with_cookies, paste, paste_keeping_cookies, read, see_other, send,
};
use crate::support::{seed_000, test_state};

const COMPARE: &str = "/compare.json?tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib&where=submission:1";

async fn series_names(state: &AppState) -> Vec<String> {
    let (status, json) = get(state, COMPARE).await;
    assert_eq!(status, 200, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    json["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Everything an edit may touch, to show that a refused one touched nothing.
fn editable_state(conn: &Connection) -> Vec<String> {
    let mut out = Vec::new();
    for sql in [
        "SELECT run_id || ' ' || key || '=' || value FROM run_attrs ORDER BY run_id, key",
        "SELECT id || ' ' || coalesce(label, '-') FROM runs ORDER BY id",
        "SELECT run_id || field || key || coalesce(parsed_value, '-') FROM run_edits ORDER BY 1",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let rows = stmt.query_map([], |row| row.get::<_, String>(0)).unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

#[tokio::test]
async fn the_review_page_shows_messages_runs_and_the_marked_text() {
    let (_dir, _db, state) = test_state();
    // The uploader's browser, which holds the edit token and sees the forms.
    let (location, cookies) = paste_keeping_cookies(&state, &seed_000()).await;
    let (status, page) = get_with_cookies(&state, &location, &cookies).await;
    assert_eq!(status, 200);
    for needle in [
        // Messages with their quote depth.
        "Messages (4)",
        r#"id="message-4""#,
        "Sven Petai",
        // Every run, with its quote depth and lines, linking to the text ...
        "Runs found (17)",
        r##"<a href="#L130"><span class="narrow-only">lines </span>130–134</a>"##,
        // ... and every recognised line linking back to its run.
        r##"<a class="tag" href="#run-11">run 11</a>"##,
        // The run's message.
        r##"href="#message-3""##,
        // A form per run, and one for all runs.
        r#"id="edit-run-17""#,
        r#"name="attr.scheduler" value="ULE""#,
        r#"<input type="hidden" name="all" value="1">"#,
    ] {
        assert!(page.contains(needle), "missing {needle:?}");
    }
    let row = &page[page.find(r#"id="message-4""#).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(
        row.contains(r#"<td class="num">3</td>"#),
        "message 4 is quoted three deep: {row}"
    );
}

#[tokio::test]
async fn near_misses_are_shown_with_their_line_and_why() {
    let (_dir, _db, state) = test_state();
    let text = fixture("fixtures/bonnie/truncated-table-is-a-near-miss.txt");
    let location = paste(&state, &text).await;
    let (_, page) = get(&state, &location).await;
    assert!(page.contains("Runs found (0)"));
    assert!(page.contains("Near misses (1)"), "{page}");
    assert!(page.contains(r##"<li id="miss-1"><a href="#L5">line 5</a>"##));
    assert!(page.contains("bonnie++ table header without a readable row"));
    // The line itself is marked and links to its explanation.
    assert!(page.contains(r#"<div class="line miss" id="L5">"#));
    assert!(page.contains(r##"<a class="tag" href="#miss-1">near miss</a>"##));
}

#[tokio::test]
async fn an_edited_attribute_regroups_compare_and_can_be_undone() {
    let (_dir, db, state) = test_state();
    paste(&state, &seed_000()).await;
    let before = series_names(&state).await;
    assert!(before.contains(&"ULE / libthr".to_owned()), "{before:?}");

    // Run 11 is "ULE + libthr + TSC" at 100 clients; say it ran SCHED_CORE.
    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[
                ("run", "11"),
                ("label", "CORE + libthr + TSC"),
                ("attr.scheduler", "CORE"),
                ("attr.arch", ""),
                ("new_key", "kernel"),
                ("new_value", "6.1-PRERELEASE #3"),
            ],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=4#run-11");
    let after = series_names(&state).await;
    assert!(after.contains(&"CORE / libthr".to_owned()), "{after:?}");
    assert!(
        after.contains(&"ULE / libthr".to_owned()),
        "run 12 is still ULE"
    );

    // The page shows the value in force and what the parser found.
    let (_, page) = get(&state, "/submissions/1?saved=4").await;
    assert!(page.contains("Saved 4 changes."));
    assert!(
        page.contains(r#"<mark title="edited; the parser found: ULE">scheduler=CORE</mark>"#),
        "{page}"
    );
    assert!(page.contains(
        r#"<mark title="edited; the parser found: ULE + libthr + TSC">CORE + libthr + TSC</mark>"#
    ));
    assert!(
        page.contains("<s>arch=i386</s>"),
        "a removed attribute stays visible"
    );
    assert!(page.contains(
        r#"<mark title="edited; the parser found: nothing">kernel=6.1-PRERELEASE #3</mark>"#
    ));
    let conn = store::open(&db).unwrap();
    let edits = store::edits_of_submission(&conn, 1).unwrap();
    assert_eq!(edits.len(), 4, "{edits:?}");

    // Saving the same values again changes nothing.
    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[("run", "11"), ("attr.scheduler", "CORE")],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=0#run-11");

    // Undo puts the parser's value back, and the comparison with it.
    let undo = |field: &'static str, key: &'static str| {
        edit_form(
            "/submissions/1/undo",
            &[("run", "11"), ("field", field), ("key", key)],
        )
    };
    for (field, key) in [
        ("attr", "scheduler"),
        ("label", ""),
        ("attr", "arch"),
        ("attr", "kernel"),
    ] {
        let response = send(&state, undo(field, key)).await;
        assert_eq!(see_other(&response), "/submissions/1?undone=1#run-11");
    }
    assert_eq!(series_names(&state).await, before);
    assert!(store::edits_of_submission(&conn, 1).unwrap().is_empty());
    let (status, body) = read(send(&state, undo("attr", "scheduler")).await).await;
    assert_eq!(status, 400);
    assert!(body.contains("nothing to undo"), "{body}");
}

#[tokio::test]
async fn one_form_sets_an_attribute_on_every_run_of_a_message() {
    let (_dir, db, state) = test_state();
    paste(&state, &seed_000()).await;
    // Message 3 (Steven Hartland's) holds runs 5 to 17.
    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[
                ("message", "3"),
                ("label", ""),
                ("new_key", "os_version"),
                ("new_value", "6.1-STABLE"),
            ],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=13#review");
    let (_, runs) = get(&state, "/runs?where=os_version:6.1-STABLE").await;
    assert_eq!(
        runs.matches(r#"href="/submissions/1#run-"#).count(),
        13,
        "{runs}"
    );
    // An empty label box on a form for several runs keeps their labels.
    let conn = store::open(&db).unwrap();
    let labelled: i64 = conn
        .query_row(
            "SELECT count(*) FROM runs WHERE label IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(labelled, 13);

    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[
                ("all", "1"),
                ("new_key", "machine"),
                ("new_value", "4x dual-core Opteron"),
            ],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=17#review");
}

#[tokio::test]
async fn bad_edits_are_refused_and_change_nothing() {
    let (_dir, db, state) = test_state();
    paste(&state, &seed_000()).await;
    let conn = store::open(&db).unwrap();
    let before = editable_state(&conn);
    let long_key = "k".repeat(41);
    let long_value = "v".repeat(201);
    let key_field = format!("attr.{long_key}");
    // (what, form, what the answer says)
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        ("no target", vec![("attr.scheduler", "ULE")], "which runs"),
        (
            "no such run",
            vec![("run", "99"), ("attr.scheduler", "x")],
            "no run 99",
        ),
        ("run not a number", vec![("run", "one")], "not a run number"),
        (
            "run and all",
            vec![("run", "1"), ("all", "1")],
            "more than one",
        ),
        (
            "message without runs",
            vec![("message", "4"), ("new_key", "os"), ("new_value", "x")],
            "has no runs",
        ),
        (
            "capitals in a key",
            vec![("run", "1"), ("new_key", "Scheduler"), ("new_value", "x")],
            "lower snake case",
        ),
        (
            "key too long",
            vec![("run", "1"), (key_field.as_str(), "x")],
            "at most 40",
        ),
        (
            "key starts with a digit",
            vec![("run", "1"), ("new_key", "2nd"), ("new_value", "x")],
            "lower snake case",
        ),
        (
            "label as a key",
            vec![("run", "1"), ("new_key", "label"), ("new_value", "x")],
            "field of every run",
        ),
        (
            "value too long",
            vec![("run", "1"), ("attr.scheduler", long_value.as_str())],
            "longer than 200",
        ),
        (
            "control character",
            vec![("run", "1"), ("attr.scheduler", "UL\u{7}E")],
            "control characters",
        ),
        (
            "line break in a label",
            vec![("run", "1"), ("label", "a\nb")],
            "control characters",
        ),
        (
            "key without value",
            vec![("run", "1"), ("new_key", "timer")],
            "Give a value",
        ),
        (
            "value without key",
            vec![("run", "1"), ("new_value", "TSC")],
            "without an attribute name",
        ),
        // A good change next to a bad one: neither is stored.
        (
            "good and bad",
            vec![
                ("run", "1"),
                ("label", "fine"),
                ("new_key", "Bad Key"),
                ("new_value", "x"),
            ],
            "lower snake case",
        ),
    ];
    for (index, (name, pairs, message)) in cases.into_iter().enumerate() {
        let (status, body) =
            read(send(&state, edit_form("/submissions/1/edit", &pairs)).await).await;
        assert_eq!(status, 400, "case {index} ({name}): {body}");
        assert!(body.contains(message), "case {index} ({name}): {body}");
    }
    let (status, _) = read(
        send(
            &state,
            edit_form("/submissions/9/edit", &[("run", "1"), ("label", "x")]),
        )
        .await,
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(editable_state(&conn), before);
}

#[tokio::test]
async fn each_marked_line_links_to_the_run_it_belongs_to() {
    let (_dir, _db, state) = test_state();
    // Two bonnie rows under one shared header: lines 4-6 are both runs'
    // header, line 7 is the first run's row, line 8 the second's.
    let location = paste(
        &state,
        &fixture("fixtures/bonnie/bonnie-classic-two-machines.txt"),
    )
    .await;
    let (_, page) = get(&state, &location).await;
    let line = |n: usize| {
        let start = page.find(&format!(r#"id="L{n}""#)).unwrap();
        page[start..start + page[start..].find("</div>").unwrap()].to_owned()
    };
    assert!(
        line(5).contains(r##"href="#run-1">run 1</a><a class="tag" href="#run-2">run 2</a>"##),
        "{}",
        line(5)
    );
    assert!(
        line(7).contains(r##"href="#run-1""##) && !line(7).contains("run-2"),
        "{}",
        line(7)
    );
    assert!(
        line(8).contains(r##"href="#run-2""##) && !line(8).contains("run-1"),
        "{}",
        line(8)
    );
    assert!(
        !line(10).contains("class=\"tag\""),
        "prose is not marked: {}",
        line(10)
    );
}
