//! The review page: messages, runs, near misses, the marked text, and the
//! forms that correct labels and attributes without losing what the parser
//! found.

use benchlog::store;
use benchlog::web::state::AppState;
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

/// `request` as if sent from `ip` (the server puts the peer's address in
/// every request's extensions).
fn from(
    ip: &str,
    mut request: axum::http::Request<axum::body::Body>,
) -> axum::http::Request<axum::body::Body> {
    let addr: std::net::SocketAddr = format!("{ip}:40000").parse().unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(addr));
    request
}

/// What a refused request must leave as it was: the rows an edit may
/// touch, the correction log, the data generation, and the bytes of the
/// database file and its log.
fn written_state(db: &std::path::Path) -> (Vec<String>, i64, i64, u64) {
    let conn = store::open(db).unwrap();
    let log: i64 = conn
        .query_row("SELECT count(*) FROM run_edit_log", [], |row| row.get(0))
        .unwrap();
    let bytes = ["", "-wal"]
        .iter()
        .map(|suffix| {
            let mut path = db.as_os_str().to_owned();
            path.push(suffix);
            std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
        })
        .sum();
    (
        editable_state(&conn),
        log,
        store::generation(&conn).unwrap(),
        bytes,
    )
}

/// (status, Retry-After, body) of a refused request.
async fn refused(
    state: &AppState,
    request: axum::http::Request<axum::body::Body>,
) -> (u16, Option<u64>, String) {
    let response = send(state, request).await;
    let retry = response
        .headers()
        .get(axum::http::header::RETRY_AFTER)
        .map(|value| value.to_str().unwrap().parse().unwrap());
    let (status, body) = read(response).await;
    (status.as_u16(), retry, body)
}

#[tokio::test]
async fn edits_are_limited_per_client_and_per_submission_and_refused_ones_write_nothing() {
    let (_dir, db, state) = crate::support::test_state_with(benchlog::web::WebOptions {
        admin_token: Some(crate::support::ADMIN_TOKEN.to_owned()),
        edits_per_minute: 3,
        ..benchlog::web::WebOptions::default()
    });
    paste(&state, &seed_000()).await;
    paste(&state, "super-smack -d mysql select-key.smack 4 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 4 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 80000 0 0 1234.50\n").await;
    let label = |id: i64, value: &str| {
        edit_form(
            &format!("/submissions/{id}/edit"),
            &[("run", "1"), ("label", value)],
        )
    };
    // Client A edits submission 1 twice, B once: submission 1 has had its
    // three, though B has one left.
    for (ip, value) in [
        ("192.0.2.1", "a1"),
        ("192.0.2.1", "a2"),
        ("192.0.2.2", "b1"),
    ] {
        let response = send(&state, from(ip, label(1, value))).await;
        assert_eq!(
            see_other(&response),
            "/submissions/1?saved=1#run-1",
            "{ip} {value}"
        );
    }
    let before = written_state(&db);
    let (status, retry, body) = refused(&state, from("192.0.2.2", label(1, "b2"))).await;
    assert_eq!(status, 429, "{body}");
    assert!((1..=20).contains(&retry.unwrap()), "{retry:?}");
    assert!(
        body.contains("Submission 1 was changed too often"),
        "{body}"
    );
    assert!(body.contains("3 edits a minute"), "{body}");
    assert!(body.contains("Nothing was changed"), "{body}");
    assert_eq!(written_state(&db), before, "a refused edit writes nothing");

    // B may still edit another submission; then A has one left and B none.
    let response = send(&state, from("192.0.2.2", label(2, "b3"))).await;
    assert_eq!(see_other(&response), "/submissions/2?saved=1#run-1");
    let response = send(&state, from("192.0.2.1", label(2, "a3"))).await;
    assert_eq!(see_other(&response), "/submissions/2?saved=1#run-1");
    let before = written_state(&db);
    let undo = edit_form("/submissions/2/undo", &[("run", "1"), ("field", "label")]);
    for (ip, request) in [("192.0.2.1", label(2, "a4")), ("192.0.2.2", undo)] {
        let (status, retry, body) = refused(&state, from(ip, request)).await;
        assert_eq!(status, 429, "{body}");
        assert!(retry.is_some());
        assert!(body.contains("Too many edits from your address"), "{body}");
    }
    // A stranger's requests (no token) are refused before they count
    // against the submission, and the client limit holds them too.
    let stranger = |value: &str| {
        from(
            "192.0.2.3",
            crate::http::post_form("/submissions/2/edit", &[("run", "1"), ("label", value)]),
        )
    };
    for n in 0..3 {
        let (status, _, _) = refused(&state, stranger(&format!("s{n}"))).await;
        assert_eq!(status, 403);
    }
    let (status, _, _) = refused(&state, stranger("s3")).await;
    assert_eq!(status, 429);
    assert_eq!(written_state(&db), before);
}

#[tokio::test]
async fn the_fields_edits_change_a_minute_are_limited_and_charged_before_writing() {
    let (_dir, db, state) = crate::support::test_state_with(benchlog::web::WebOptions {
        admin_token: Some(crate::support::ADMIN_TOKEN.to_owned()),
        edit_changes_per_minute: 20,
        ..benchlog::web::WebOptions::default()
    });
    paste(&state, &seed_000()).await;
    let all = |key: &str| {
        edit_form(
            "/submissions/1/edit",
            &[("all", "1"), ("new_key", key), ("new_value", "x")],
        )
    };
    // 17 runs: one such edit fits in 20 a minute, a second does not.
    assert_eq!(
        see_other(&send(&state, all("rack")).await),
        "/submissions/1?saved=17#review"
    );
    let before = written_state(&db);
    let (status, retry, body) = refused(&state, all("room")).await;
    assert_eq!(status, 429, "{body}");
    assert!(retry.unwrap() >= 1);
    assert!(body.contains("would change 17 fields"), "{body}");
    assert!(body.contains("20 a minute"), "{body}");
    // More than the limit at all: told to edit fewer runs.
    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[
                ("all", "1"),
                ("label", "x"),
                ("new_key", "room"),
                ("new_value", "x"),
            ],
        ),
    )
    .await;
    let (status, body) = read(response).await;
    assert_eq!(status, 429, "{body}");
    assert!(
        body.contains("would change 34 fields; at most 20 may be changed a minute"),
        "{body}"
    );
    assert_eq!(written_state(&db), before);
    // One run's field still fits.
    let response = send(
        &state,
        edit_form("/submissions/1/edit", &[("run", "1"), ("label", "x")]),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=1#run-1");
}

#[tokio::test]
async fn an_edit_past_the_attribute_limit_is_refused_before_it_writes() {
    let (_dir, db, state) = test_state();
    paste(&state, &crate::support::smack_log(7, 150)).await;
    // Each run has one attribute the parser found; the form sets 63 more
    // (and a 64th when `extra` names it).
    let form = |values: &str, extra: Option<&str>| {
        let mut pairs = vec![("all".to_owned(), "1".to_owned())];
        for n in 0..63 {
            pairs.push((format!("attr.k{n}"), format!("{values} {n}")));
        }
        if let Some(key) = extra {
            pairs.push(("new_key".to_owned(), key.to_owned()));
            pairs.push(("new_value".to_owned(), "x".to_owned()));
        }
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        edit_form("/submissions/1/edit", &pairs)
    };
    let (status, body) = read(send(&state, form("first", None)).await).await;
    assert_eq!(status, 303, "{body}");
    // 63 changed and one more, on every run: 9,600 changes, refused. Its
    // check reads a few statements; it does not write them all and undo.
    let before = written_state(&db);
    let statements = state.statements_run();
    let (status, body) = read(send(&state, form("second", Some("k63"))).await).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("at most 64 attributes; this edit would give run 1 65"),
        "{body}"
    );
    let run = state.statements_run() - statements;
    assert!(run < 20, "{run} statements for a refused edit");
    assert_eq!(written_state(&db), before, "a refused edit writes nothing");
    // Replacing one of the 64 is not adding one.
    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[
                ("run", "2"),
                ("attr.k0", ""),
                ("new_key", "k63"),
                ("new_value", "x"),
            ],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=2#run-2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_undos_and_deletes_wait_for_another_writer_instead_of_failing() {
    let (_dir, db, state) = test_state();
    paste(&state, &seed_000()).await;
    paste(&state, &crate::support::smack_log(2, 2)).await;
    let requests = [
        (
            "edit",
            edit_form("/submissions/1/edit", &[("run", "1"), ("label", "waited")]),
            "/submissions/1?saved=1#run-1",
        ),
        (
            "undo",
            edit_form("/submissions/1/undo", &[("run", "1"), ("field", "label")]),
            "/submissions/1?undone=1#run-1",
        ),
        (
            "delete",
            edit_form("/submissions/2/delete", &[]),
            "/submissions",
        ),
    ];
    for (what, request, location) in requests {
        // Another writer (an upload, an ingest) holds the write lock for a
        // while, on a connection of its own.
        let (locked, is_locked) = std::sync::mpsc::channel();
        let holder = std::thread::spawn({
            let db = db.clone();
            move || {
                let conn = store::open(&db).unwrap();
                conn.execute_batch(
                    "BEGIN IMMEDIATE; UPDATE data_generation SET generation = generation + 1",
                )
                .unwrap();
                locked.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
                conn.execute_batch("COMMIT").unwrap();
            }
        });
        is_locked.recv().unwrap();
        let started = std::time::Instant::now();
        let response = send(&state, request).await;
        let waited = started.elapsed();
        let status = response.status();
        if status != 303 {
            let (_, body) = read(response).await;
            panic!("{what}: {status} after {waited:?}: {body}");
        }
        assert_eq!(see_other(&response), location, "{what}");
        assert!(
            waited >= std::time::Duration::from_millis(150),
            "{what} waited for the lock: {waited:?}"
        );
        holder.join().unwrap();
    }
    let conn = store::open(&db).unwrap();
    assert!(store::edits_of_submission(&conn, 1).unwrap().is_empty());
    assert_eq!(crate::support::counts(&db).submissions, 1);
}

/// `runs` sysbench one-line summaries, each under its `== boxN ==`
/// heading: a run each, each in a configuration of its own.
fn box_series(runs: usize) -> String {
    let mut text = String::from("Results of the box series.\n\n");
    for n in 0..runs {
        let threads = [1, 4, 8, 16, 32, 64][n % 6];
        text.push_str(&format!(
            "== box{n} ==\n{threads} threads, time spent: 60s, queries executed: {}, qps: {}.5, 1 thread qps: {}, tps: {}\n\n",
            100_000 + n,
            1000 + n,
            (1000 + n) / threads,
            50 + n
        ));
    }
    text
}

/// An `all=1` edit setting `attrs` attributes of `chars` characters on
/// every run of submission 1.
fn wide_edit(attrs: usize, chars: usize) -> axum::http::Request<axum::body::Body> {
    let mut pairs = vec![("all".to_owned(), "1".to_owned())];
    for n in 0..attrs {
        let letter = char::from(b'a' + (n % 26) as u8);
        pairs.push((format!("attr.key{n}"), letter.to_string().repeat(chars)));
    }
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    edit_form("/submissions/1/edit", &pairs)
}

/// (configurations stored, configurations some run is in).
fn configurations(db: &std::path::Path) -> (i64, i64) {
    let conn = store::open(db).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |row| row.get::<_, i64>(0)).unwrap();
    (
        count("SELECT count(*) FROM configs"),
        count("SELECT count(DISTINCT config_id) FROM run_configs"),
    )
}

#[tokio::test]
async fn an_edit_costs_one_configuration_a_run_and_what_it_writes_is_bounded() {
    let (_dir, db, state) = test_state();
    paste(&state, &box_series(300)).await;
    let runs = crate::support::counts(&db).runs;
    assert_eq!(runs, 300);
    assert_eq!(configurations(&db), (300, 300));

    // The attack: 60 attributes of 200 characters on 300 runs, 3.6 MB of
    // values (which grew the database and its log by 600 MB): 18,000
    // changes, refused whole, saying why, before anything is written.
    let before = written_state(&db);
    let (status, body) = read(send(&state, wide_edit(60, 200)).await).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains(
            "would change 60 fields of 300 runs at once; one edit may change at most 10000"
        ),
        "{body}"
    );
    assert_eq!(written_state(&db), before, "a refused edit writes nothing");
    // Half as many changes, 1.8 MB of values: within the changes, past
    // what one edit may write.
    let (status, body) = read(send(&state, wide_edit(30, 200)).await).await;
    assert_eq!(status, 413, "{body}");
    assert!(
        body.contains("would write 2418000 bytes (300 runs, 8060 bytes each"),
        "{body}"
    );
    assert!(body.contains("at most 1 MiB"), "{body}");
    assert!(body.contains("Nothing was changed"), "{body}");
    assert_eq!(written_state(&db), before, "a refused edit writes nothing");

    // The largest edit of that shape allowed, 12 attributes of 200
    // characters (720 KB of values): one new configuration a run, none
    // left unused, and the database and its log grow by less than 25 MB.
    let (.., bytes_before) = written_state(&db);
    let (status, body) = read(send(&state, wide_edit(12, 200)).await).await;
    assert_eq!(status, 303, "{body}");
    let (.., bytes_after) = written_state(&db);
    let grown = bytes_after.saturating_sub(bytes_before);
    assert!(
        grown < 25_000_000,
        "a 965 KB edit grew the database and its log by {grown} bytes"
    );
    let conn = store::open(&db).unwrap();
    let set: i64 = conn
        .query_row(
            "SELECT count(*) FROM run_attrs WHERE key LIKE 'key%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(set, 300 * 12);
    drop(conn);
    assert_eq!(
        configurations(&db),
        (300, 300),
        "each run moved to one new configuration; the old ones are gone"
    );

    // Undoing one field and deleting the submission leave none unused
    // either.
    let response = send(
        &state,
        edit_form(
            "/submissions/1/undo",
            &[("run", "1"), ("field", "attr"), ("key", "key0")],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?undone=1#run-1");
    assert_eq!(configurations(&db), (300, 300));
    let response = send(&state, edit_form("/submissions/1/delete", &[])).await;
    assert_eq!(see_other(&response), "/submissions");
    assert_eq!(configurations(&db), (0, 0));
}

#[tokio::test]
async fn the_bytes_every_clients_edits_write_an_hour_are_bounded_together() {
    let (_dir, db, state) = crate::support::test_state_with(benchlog::web::WebOptions {
        admin_token: Some(crate::support::ADMIN_TOKEN.to_owned()),
        edit_bytes_per_hour: 3000,
        ..benchlog::web::WebOptions::default()
    });
    paste(&state, &seed_000()).await;
    let all = |value: &str| {
        edit_form(
            "/submissions/1/edit",
            &[("all", "1"), ("new_key", "rack"), ("new_value", value)],
        )
    };
    // 17 runs x (4 + 10 + 64) bytes: 1326 of the hour's 3000, from one
    // address.
    let response = send(&state, from("192.0.2.1", all("0123456789"))).await;
    assert_eq!(see_other(&response), "/submissions/1?saved=17#review");
    // 17 x (4 + 50 + 64): 2006 more would pass 3000, from whichever
    // address.
    let before = written_state(&db);
    let (status, retry, body) = refused(&state, from("198.51.100.7", all(&"x".repeat(50)))).await;
    assert_eq!(status, 503, "{body}");
    assert!((1..=3600).contains(&retry.unwrap()), "{retry:?}");
    assert!(
        body.contains("3000 bytes an hour, from every client together"),
        "{body}"
    );
    assert!(body.contains("Nothing was changed"), "{body}");
    assert_eq!(written_state(&db), before, "a refused edit writes nothing");
    // A smaller one (1241) still fits.
    let response = send(&state, from("203.0.113.9", all("short"))).await;
    assert_eq!(see_other(&response), "/submissions/1?saved=17#review");
}
