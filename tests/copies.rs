//! A run found again in another text (quoted in a reply, pasted again by
//! someone else) is stored as that text's own run, a copy linked to the
//! earlier one: each submission owns its runs, a comparison counts the
//! copies of one point once, and deleting one copy leaves the others.

use std::process::Command;

use axum::http::StatusCode;
use benchlog::web::state::AppState;
use serde_json::Value;

use crate::http::{get, paste, paste_keeping_cookies, post_form, read, send, with_cookies};
use crate::support::{repo_path, seed_000, test_state, ADMIN_TOKEN, SEED_000};

/// A post of super-smack runs on `scheduler`, one per value, at 10
/// clients; `greeting` makes texts of the same runs differ.
fn post(greeting: &str, scheduler: &str, values: &[f64]) -> String {
    let mut text = format!("{greeting}\n\nkern.sched.name: {scheduler}\n");
    for value in values {
        text.push_str(&format!(
            "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 {value:.2}\n\n"
        ));
    }
    text
}

/// The comparison of select_index by scheduler, with `extra` parameters.
async fn comparison(state: &AppState, extra: &str) -> Value {
    let (status, body) = get(
        state,
        &format!(
            "/compare.json?tool=super-smack&metric=q_per_s&item=select_index&by=scheduler{extra}"
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// Each series' name with its points' run ids (one point each here).
fn series_runs(comparison: &Value) -> Vec<(String, Vec<i64>)> {
    comparison["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|series| {
            let runs = series["points"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|point| point["runs"].as_array().unwrap())
                .map(|run| run["run_id"].as_i64().unwrap())
                .collect();
            (series["name"].as_str().unwrap().to_owned(), runs)
        })
        .collect()
}

fn named(pairs: &[(&str, &[i64])]) -> Vec<(String, Vec<i64>)> {
    pairs
        .iter()
        .map(|(name, runs)| ((*name).to_owned(), runs.to_vec()))
        .collect()
}

/// The run ids a `where=submission:N` comparison shows.
async fn runs_of_submission(state: &AppState, submission: i64) -> Vec<i64> {
    let found = comparison(state, &format!("&where=submission:{submission}")).await;
    let mut runs: Vec<i64> = series_runs(&found)
        .into_iter()
        .flat_map(|(_, runs)| runs)
        .collect();
    runs.sort_unstable();
    runs
}

/// V pastes A's run with their own context: V's copy has V's attributes,
/// V edits it (with V's token; it is run 1 of V's submission), A's edit
/// does not show on it, and A deleting their submission leaves it in
/// every comparison.
#[tokio::test]
async fn a_copy_is_its_uploaders_own_run() {
    let (_dir, _db, state) = test_state();
    let (a, a_cookies) = paste_keeping_cookies(&state, &post("A's run.", "4BSD", &[20000.0])).await;
    let (v, v_cookies) =
        paste_keeping_cookies(&state, &post("The same on V's box.", "ULE", &[20000.0])).await;
    assert_eq!(
        (a.as_str(), v.as_str()),
        ("/submissions/1", "/submissions/2")
    );
    assert_eq!(
        series_runs(&comparison(&state, "").await),
        named(&[("4BSD", &[1]), ("ULE", &[2])]),
        "V's attributes, not A's, place V's copy"
    );
    assert_eq!(runs_of_submission(&state, 2).await, [2]);

    let edit = |submission: &str, cookies: &str, label: &str| {
        with_cookies(
            post_form(
                &format!("{submission}/edit"),
                &[("run", "1"), ("label", label)],
            ),
            cookies,
        )
    };
    let answer = send(&state, edit(&v, &v_cookies, "V's label")).await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER, "V edits V's copy");
    let answer = send(&state, edit(&a, &a_cookies, "A's label")).await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    let labels = |comparison: &Value| -> Vec<String> {
        comparison["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                s["points"][0]["runs"][0]["label"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(
        labels(&comparison(&state, "").await),
        ["A's label", "V's label"]
    );
    let (_, page) = get(&state, &v).await;
    assert!(page.contains("<tr id=\"run-1\""), "{page}");
    assert!(
        page.contains(": quoted from <a href=\"/submissions/1#run-1\">run #1</a>"),
        "the copy links to the run it repeats: {page}"
    );

    let delete = with_cookies(post_form(&format!("{a}/delete"), &[]), &a_cookies);
    assert_eq!(send(&state, delete).await.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        series_runs(&comparison(&state, "").await),
        named(&[("ULE", &[2])])
    );
    assert_eq!(runs_of_submission(&state, 2).await, [2]);
    let (_, page) = get(&state, &v).await;
    assert!(
        !page.contains("quoted from"),
        "nothing left to link to: {page}"
    );
}

/// Copies in one point count once; copies their owners put in different
/// series stay in each; deleting the first of three copies leaves two
/// that still count once.
#[tokio::test]
async fn copies_count_once_within_a_point_and_deleting_the_first_keeps_that() {
    let (_dir, _db, state) = test_state();
    paste(&state, &post("First.", "4BSD", &[20000.0, 20100.0])).await;
    paste(&state, &post("Quoted again.", "4BSD", &[20000.0])).await;
    paste(&state, &post("And again.", "4BSD", &[20000.0])).await;
    paste(&state, &post("Mine, on ULE.", "ULE", &[20000.0])).await;
    let found = comparison(&state, "").await;
    assert_eq!(
        series_runs(&found),
        named(&[("4BSD", &[1, 2]), ("ULE", &[5])])
    );
    assert_eq!(found["series"][0]["points"][0]["n"], 2);
    // Each text's comparison has its own copy.
    assert_eq!(runs_of_submission(&state, 3).await, [4]);
    // Across submissions 2 and 3, their copies count once.
    let both = comparison(&state, "&where=submission:2&where=submission:3").await;
    assert_eq!(series_runs(&both), named(&[("4BSD", &[3])]));

    let (status, body) = read(
        send(
            &state,
            post_form("/submissions/1/delete", &[("token", ADMIN_TOKEN)]),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    let found = comparison(&state, "").await;
    assert_eq!(
        series_runs(&found),
        named(&[("4BSD", &[3]), ("ULE", &[5])]),
        "the two copies left are still one run"
    );
    // And a copy stored after the first is gone still joins them.
    paste(&state, &post("Once more.", "4BSD", &[20000.0])).await;
    let found = comparison(&state, "").await;
    assert_eq!(series_runs(&found), named(&[("4BSD", &[3]), ("ULE", &[5])]));
}

/// V's runs, stored first, equal one run of A's 3-run baseline and A's
/// zero-variance series: none of them eats another. The baseline keeps
/// its 3 runs and its verdict, and each series its runs.
#[tokio::test]
async fn identical_runs_of_different_series_do_not_eat_each_other() {
    let (_dir, _db, state) = test_state();
    paste(&state, &post("V's single run.", "FIFO", &[30000.0])).await;
    paste(&state, &post("V's steady box.", "RR", &[20000.0])).await;
    paste(
        &state,
        &post("A's baseline.", "4BSD", &[30000.0, 30100.0, 30200.0]),
    )
    .await;
    paste(
        &state,
        &post("A's ULE.", "ULE", &[35000.0, 35100.0, 35200.0]),
    )
    .await;
    paste(&state, &post("A's steady box.", "CORE", &[20000.0])).await;
    // The schedulers benchlog does not know are told apart by label.
    let (status, body) = get(
        &state,
        "/compare.json?tool=super-smack&metric=q_per_s&item=select_index&by=label&baseline=kern.sched.name:+4BSD",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let found: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        series_runs(&found),
        named(&[
            ("kern.sched.name: FIFO", &[1]),
            ("kern.sched.name: RR", &[2]),
            ("kern.sched.name: 4BSD", &[3, 4, 5]),
            ("kern.sched.name: ULE", &[6, 7, 8]),
            ("kern.sched.name: CORE", &[9])
        ])
    );
    let ule = &found["series"][3];
    assert_eq!(
        ule["points"][0]["vs_baseline"]["verdict"], "better",
        "the baseline keeps its verdict: {ule}"
    );
}

/// Issue 23's reproduction: a reply holding the 100-thread run of an
/// earlier mail has all 17 of its runs, on the command line and in its
/// comparison.
#[test]
fn every_run_of_a_text_is_in_its_submission() {
    let dir = tempfile::tempdir().unwrap();
    let seed = repo_path(SEED_000);
    let text = seed_000();
    // `sed -n '89,96p' seed000 | sed 's/^>> //'`: the run at 100 threads.
    let first: String = text
        .lines()
        .skip(88)
        .take(8)
        .map(|line| format!("{}\n", line.strip_prefix(">> ").unwrap_or(line)))
        .collect();
    let first_path = dir.path().join("first.txt");
    std::fs::write(&first_path, first).unwrap();
    let db = dir.path().join("q.db");
    let benchlog = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .args(args)
            .env_remove("BENCHLOG_DB")
            .env_remove("BENCHLOG_INGEST_REPORT")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let out = benchlog(&[
        "ingest".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        first_path.as_os_str(),
        seed.as_os_str(),
    ]);
    assert!(out.contains("submission 1 (1 runs"), "{out}");
    assert!(out.contains("submission 2 (17 runs"), "{out}");
    let csv = benchlog(&[
        "export".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        "--csv".as_ref(),
        "--query".as_ref(),
        "tool=super-smack&metric=q_per_s&item=select_index&by=scheduler&by=thread_lib&where=submission:2"
            .as_ref(),
    ]);
    assert!(
        csv.lines()
            .any(|row| row.starts_with("4BSD / libpthread,") && row.contains(",100,18624.6,")),
        "{csv}"
    );
}

/// The same text pasted from a browser (CRLF line ends), with white space
/// after its lines or without its last newline is the submission already
/// stored; the text kept is the first one, verbatim.
#[tokio::test]
async fn a_text_differing_in_line_ends_or_trailing_space_is_one_submission() {
    let (_dir, db, state) = test_state();
    let text = post("Hello.", "4BSD", &[20000.0]);
    assert_eq!(paste(&state, &text).await, "/submissions/1");
    for variant in [
        text.replace('\n', "\r\n"),
        text.replace('\n', "  \n"),
        text.replace('\n', " \t\r\n"),
        format!("{}\n\n\n", text.trim_end()),
        text.trim_end().to_owned(),
    ] {
        assert_eq!(
            paste(&state, &variant).await,
            "/submissions/1?already=1",
            "{variant:?}"
        );
    }
    let changed = text.replace("Hello.", "Hello!");
    assert_eq!(paste(&state, &changed).await, "/submissions/2");
    let conn = benchlog::store::open(&db).unwrap();
    let stored = benchlog::store::get_submission(&conn, 1).unwrap().unwrap();
    assert_eq!(stored.text, text);
}

/// A quote stored before copies were runs (a run_quotes row, no run of
/// the quoting submission) stays as it was: a pin shows the same runs, and
/// the quoting submission's page still names the run it quotes.
#[tokio::test]
async fn a_quote_stored_before_copies_were_runs_keeps_what_a_pin_shows() {
    let (_dir, db, state) = test_state();
    paste(&state, &post("First.", "4BSD", &[20000.0, 20100.0])).await;
    paste(&state, &post("Quoted.", "4BSD", &[20000.0])).await;
    // Submission 2 as the old code stored it: its copy a link instead.
    let conn = benchlog::store::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO run_quotes (submission_id, first_line, last_line, quote_depth, run_id)
         SELECT submission_id, first_line, last_line, quote_depth, copy_key
         FROM runs WHERE copy_key IS NOT NULL;
         DELETE FROM runs WHERE copy_key IS NOT NULL;",
    )
    .unwrap();
    drop(conn);
    // Pinned before any new upload: what the old code showed.
    assert_eq!(
        series_runs(&comparison(&state, "&asof=2").await),
        named(&[("4BSD", &[1, 2])])
    );
    assert!(runs_of_submission(&state, 2).await.is_empty());
    let (_, page) = get(&state, "/submissions/2").await;
    assert!(
        page.contains(": quoted from <a href=\"/submissions/1#run-1\">run #1</a>"),
        "{page}"
    );
    assert!(page.contains("1 run, quoted from submission 1"), "{page}");
    // A new copy of the same run joins the old key; the pin is unchanged.
    paste(&state, &post("Quoted again, later.", "4BSD", &[20000.0])).await;
    assert_eq!(runs_of_submission(&state, 3).await, [4]);
    assert_eq!(
        series_runs(&comparison(&state, "").await),
        named(&[("4BSD", &[1, 2])])
    );
    assert_eq!(
        series_runs(&comparison(&state, "&asof=2").await),
        named(&[("4BSD", &[1, 2])])
    );
}

/// Pasting a text the database already holds, as a browser sends it (CRLF
/// line ends), leads to the stored submission's page with its runs table,
/// each run linked to its lines: not a second submission, nor a page
/// without runs.
#[tokio::test]
async fn pasting_a_stored_text_again_shows_its_runs() {
    let (_dir, _db, state) = test_state();
    assert_eq!(paste(&state, &seed_000()).await, "/submissions/1");
    let from_a_browser = seed_000().replace('\n', "\r\n");
    assert_eq!(
        paste(&state, &from_a_browser).await,
        "/submissions/1?already=1"
    );
    let (status, page) = get(&state, "/submissions/1?already=1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("This text was already stored as submission 1: nothing new was stored."),
        "the page says why no new submission was made"
    );
    let runs_table = page
        .split(r#"<table class="list runs">"#)
        .nth(1)
        .expect("a runs table")
        .split("</table>")
        .next()
        .unwrap();
    assert_eq!(
        runs_table.matches("<tr").count() - 1,
        17,
        "17 runs, a header"
    );
    assert!(
        runs_table.contains("</span>20–25</a>"),
        "run lines are linked: {runs_table}"
    );
}
