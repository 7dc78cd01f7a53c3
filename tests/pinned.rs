//! Pinned comparisons (`asof=`): a link made from the compare page keeps
//! its numbers when new submissions arrive, and its labels and attributes
//! when runs are corrected later; the plain link follows new data.

use std::path::Path;

use axum::http::StatusCode;
use benchlog::store::{self, RunField};
use serde_json::Value;

use crate::http::{fetch, get_ok, Answer};
use crate::support::{smack_log, test_state};

const QUERY: &str = "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler";

fn store_text(db: &Path, name: &str, text: &str) -> i64 {
    let mut conn = store::open(db).unwrap();
    benchlog::ingest::ingest_text(&mut conn, Some(name), text).unwrap();
    store::newest_submission_id(&conn).unwrap()
}

/// Sets the scheduler of a run, as the edit form does.
fn set_scheduler(db: &Path, run_id: i64, value: &str) {
    let mut conn = store::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    let field = RunField::Attr("scheduler".to_owned());
    assert!(store::set_run_field(&tx, run_id, &field, Some(value)).unwrap());
    tx.commit().unwrap();
}

/// The query of the page's "link to this chart".
fn share_link(page: &str) -> String {
    let end = page
        .find("\" title=\"pinned to the data as it is now")
        .expect("the page has a link to its chart");
    let start = page[..end].rfind("href=\"/compare?").unwrap() + "href=\"/compare?".len();
    page[start..end].replace("&#38;", "&")
}

/// `(series name, run ids)` of each series of a comparison's JSON.
fn series_runs(json: &Value) -> Vec<(String, Vec<i64>)> {
    json["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|series| {
            let mut ids: Vec<i64> = series["points"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|p| p["runs"].as_array().unwrap())
                .map(|run| run["run_id"].as_i64().unwrap())
                .collect();
            ids.sort();
            (series["name"].as_str().unwrap().to_owned(), ids)
        })
        .collect()
}

#[tokio::test]
async fn a_pinned_link_keeps_its_csv_when_new_data_arrives() {
    let (_dir, db, state) = test_state();
    assert_eq!(store_text(&db, "first", &smack_log(1, 7)), 1);
    let page = get_ok(&state, &format!("/compare?{QUERY}")).await.text();
    let pinned = share_link(&page);
    assert_eq!(pinned, format!("{QUERY}&asof=1"));
    for format in ["png", "svg", "csv", "json", "txt"] {
        assert!(
            page.contains(&format!(
                "/compare.{format}?{}",
                pinned.replace('&', "&#38;")
            )),
            "the {format} link is pinned too"
        );
    }
    let pinned_csv = get_ok(&state, &format!("/compare.csv?{pinned}"))
        .await
        .text();
    let live_csv = get_ok(&state, &format!("/compare.csv?{QUERY}"))
        .await
        .text();
    assert_eq!(pinned_csv, live_csv, "nothing newer yet");

    // Another series of the same thread counts moves every live mean.
    assert_eq!(store_text(&db, "second", &smack_log(2, 7)), 2);
    let live_after = get_ok(&state, &format!("/compare.csv?{QUERY}"))
        .await
        .text();
    assert_ne!(live_after, live_csv, "the plain link follows new data");
    let pinned_after = get_ok(&state, &format!("/compare.csv?{pinned}"))
        .await
        .text();
    assert_eq!(pinned_after.as_bytes(), pinned_csv.as_bytes());
    // Seven points of one run each, and fourteen runs live.
    let n_column = |csv: &str| -> Vec<String> {
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let n = reader
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "n")
            .unwrap();
        reader.records().map(|r| r.unwrap()[n].to_owned()).collect()
    };
    assert_eq!(n_column(&pinned_after), vec!["1"; 7]);
    assert_eq!(n_column(&live_after), vec!["2"; 7]);

    // Every format answers pinned, and says so where it can.
    for format in ["png", "svg", "json", "txt"] {
        let Answer { status, .. } =
            fetch(&state, &format!("/compare.{format}?{pinned}"), None).await;
        assert_eq!(status, StatusCode::OK, "{format}");
    }
    let json = get_ok(&state, &format!("/compare.json?{pinned}"))
        .await
        .json();
    assert_eq!(json["query"], format!("{QUERY}&asof=1"));
    let pinned_page = get_ok(&state, &format!("/compare?{pinned}")).await.text();
    assert!(pinned_page.contains("pinned to the data as of submission 1"));
    assert!(pinned_page.contains(&format!(
        "<a href=\"/compare?{}\">See the live version</a>",
        QUERY.replace('&', "&#38;")
    )));
    // The live page's link now pins to the newer submission.
    let live_page = get_ok(&state, &format!("/compare?{QUERY}")).await.text();
    assert_eq!(share_link(&live_page), format!("{QUERY}&asof=2"));
    assert!(!live_page.contains("pinned to the data as of"));
}

#[tokio::test]
async fn corrections_count_while_their_submission_is_the_newest() {
    let (_dir, db, state) = test_state();
    store_text(&db, "first", &smack_log(1, 3));
    let json = get_ok(&state, &format!("/compare.json?{QUERY}"))
        .await
        .json();
    let runs = &series_runs(&json)[0].1;
    let [a, b, c] = runs[..] else {
        panic!("three runs: {runs:?}")
    };
    assert_eq!(series_runs(&json), [("(none)".to_owned(), vec![a, b, c])]);

    // Corrected while submission 1 is the newest: part of a pin to 1.
    set_scheduler(&db, a, "ULE");
    let pinned = format!("/compare.json?{QUERY}&asof=1");
    let before = vec![
        ("ULE".to_owned(), vec![a]),
        ("(none)".to_owned(), vec![b, c]),
    ];
    assert_eq!(series_runs(&get_ok(&state, &pinned).await.json()), before);

    // Once submission 2 is stored, later corrections are not, whether of a
    // field corrected before (a), or new (b).
    store_text(&db, "second", &smack_log(2, 1));
    set_scheduler(&db, a, "4BSD");
    set_scheduler(&db, b, "4BSD");
    set_scheduler(&db, a, "SCHED_FIFO");
    assert_eq!(series_runs(&get_ok(&state, &pinned).await.json()), before);
    let live = series_runs(
        &get_ok(&state, &format!("/compare.json?{QUERY}"))
            .await
            .json(),
    );
    let live_names: Vec<&str> = live.iter().map(|(name, _)| name.as_str()).collect();
    // In the order of their first runs: a's before b's.
    assert_eq!(live_names, ["SCHED_FIFO", "4BSD", "(none)"]);
    assert_eq!(live[0].1, [a]);
    assert_eq!(live[1].1, [b]);
    // A pin to 2 has them all but the newest run's, which is not there yet.
    let at_two = series_runs(
        &get_ok(&state, &format!("/compare.json?{QUERY}&asof=2"))
            .await
            .json(),
    );
    assert_eq!(at_two, live);

    // Undoing is a correction like any other: the pin keeps what it had.
    {
        let mut conn = store::open(&db).unwrap();
        let tx = conn.transaction().unwrap();
        let field = RunField::Attr("scheduler".to_owned());
        assert!(store::undo_run_edit(&tx, a, &field).unwrap());
        tx.commit().unwrap();
    }
    assert_eq!(series_runs(&get_ok(&state, &pinned).await.json()), before);
    let live = series_runs(
        &get_ok(&state, &format!("/compare.json?{QUERY}"))
            .await
            .json(),
    );
    // a's scheduler undone: its run joins the runs without one, first.
    assert_eq!(live[0].0, "(none)");
    assert_eq!(live[1], ("4BSD".to_owned(), vec![b]));

    // A key of people's own, taken off every run later, still groups the
    // pin that had it; the live query no longer knows it.
    let rack = RunField::Attr("rack".to_owned());
    let set_rack = |value: Option<&str>| {
        let mut conn = store::open(&db).unwrap();
        let tx = conn.transaction().unwrap();
        assert!(store::set_run_field(&tx, c, &rack, value).unwrap());
        tx.commit().unwrap();
    };
    set_rack(Some("r7"));
    let by_rack = "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=rack";
    let pinned_rack = format!("/compare.json?{by_rack}&asof=2");
    // In the order of their first runs.
    let want = vec![
        ("(none)".to_owned(), vec![a, b, 4]),
        ("r7".to_owned(), vec![c]),
    ];
    assert_eq!(
        series_runs(&get_ok(&state, &pinned_rack).await.json()),
        want
    );
    store_text(&db, "third", &smack_log(3, 1));
    set_rack(None);
    assert_eq!(
        series_runs(&get_ok(&state, &pinned_rack).await.json()),
        want
    );
    let Answer { status, body, .. } =
        fetch(&state, &format!("/compare.json?{by_rack}"), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let json: Value = serde_json::from_slice(&body).unwrap();
    let error = json["error"].as_str().unwrap();
    assert!(
        error.starts_with("unknown attribute \"rack\" in by="),
        "{error}"
    );
}

#[tokio::test]
async fn a_deleted_submission_leaves_pinned_links_with_a_notice() {
    let (_dir, db, state) = test_state();
    store_text(&db, "first", &smack_log(1, 2));
    store_text(&db, "second", &smack_log(2, 2));
    let pinned = format!("/compare.json?{QUERY}&asof=2");
    let json = get_ok(&state, &pinned).await.json();
    assert_eq!(json["notices"], serde_json::json!([]));
    store::delete_submission(&mut store::open(&db).unwrap(), 1).unwrap();
    let json = get_ok(&state, &pinned).await.json();
    let runs = series_runs(&json);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1.len(), 2, "only submission 2's runs: {runs:?}");
    assert_eq!(
        json["notices"][0],
        "1 submission numbered up to 2 was deleted after submission 2 was stored: their runs are no longer shown."
    );
    // A pin to a submission not stored yet is refused.
    let Answer { status, body, .. } =
        fetch(&state, &format!("/compare.csv?{QUERY}&asof=3"), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        String::from_utf8(body).unwrap(),
        "asof=3 names no stored submission: the newest is 2; a pinned link names a submission stored when the link was made\n"
    );
}

#[tokio::test]
async fn asof_must_be_a_submission_number_in_every_format() {
    let (_dir, db, state) = test_state();
    store_text(&db, "first", &smack_log(1, 2));
    for format in ["", ".svg", ".png", ".csv", ".json", ".txt"] {
        for bad in ["abc", "0", "-1", "1.5", "99999999999999999999"] {
            let uri = format!("/compare{format}?{QUERY}&asof={bad}");
            let Answer { status, body, .. } = fetch(&state, &uri, None).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
            let body = String::from_utf8(body).unwrap();
            assert!(
                body.contains(&format!("asof={bad} is not a submission number")),
                "{uri}: {body}"
            );
        }
    }
}

/// The correction log's rows of one field of a run.
fn logged(db: &Path, run_id: i64, key: &str) -> i64 {
    store::open(db)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM run_edit_log WHERE run_id = ?1 AND field = 'attr' AND key = ?2",
            rusqlite::params![run_id, key],
            |row| row.get(0),
        )
        .unwrap()
}

/// Sets (or, with None, removes) the scheduler and the label of a run in
/// one transaction, as the edit form does.
fn flip(db: &Path, run_id: i64, scheduler: Option<&str>, label: &str) {
    let mut conn = store::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    let field = RunField::Attr("scheduler".to_owned());
    store::set_run_field(&tx, run_id, &field, scheduler).unwrap();
    store::set_run_field(&tx, run_id, &RunField::Label, Some(label)).unwrap();
    tx.commit().unwrap();
}

#[tokio::test]
async fn many_flips_while_one_submission_is_the_newest_keep_every_pin_and_one_log_row() {
    let (_dir, db, state) = test_state();
    store_text(&db, "first", &smack_log(1, 3));
    let json = get_ok(&state, &format!("/compare.json?{QUERY}"))
        .await
        .json();
    let [a, b, _] = series_runs(&json)[0].1[..] else {
        panic!("three runs")
    };
    let pin = |n: i64| format!("/compare.json?{QUERY}&by=label&asof={n}");
    set_scheduler(&db, a, "ULE");
    let at_one = get_ok(&state, &pin(1)).await.json();
    assert_eq!(logged(&db, a, "scheduler"), 1);

    // Submission 2 is the newest: run a flips many times (set, removed,
    // set again, its label too), run b once; a pin to 2 follows them
    // while 2 is the newest, a pin to 1 never does.
    store_text(&db, "second", &smack_log(2, 1));
    let values = [Some("4BSD"), None, Some("SCHED_FIFO"), Some("ULE")];
    for round in 0..40 {
        flip(&db, a, values[round % 4], &format!("take {round}"));
    }
    flip(&db, a, Some("4BSD"), "final");
    set_scheduler(&db, b, "4BSD");
    {
        let mut conn = store::open(&db).unwrap();
        let tx = conn.transaction().unwrap();
        let field = RunField::Attr("scheduler".to_owned());
        assert!(store::undo_run_edit(&tx, b, &field).unwrap());
        tx.commit().unwrap();
    }
    assert_eq!(get_ok(&state, &pin(1)).await.json(), at_one);
    let at_two = get_ok(&state, &pin(2)).await.json();
    let live = get_ok(&state, &format!("/compare.json?{QUERY}&by=label"))
        .await
        .json();
    assert_eq!(series_runs(&at_two), series_runs(&live));
    assert!(
        series_runs(&at_two)
            .iter()
            .any(|(name, runs)| name == "4BSD / final" && runs == &[a]),
        "{:?}",
        series_runs(&at_two)
    );
    // One row per field and submission number, however many flips.
    assert_eq!(logged(&db, a, "scheduler"), 2);
    assert_eq!(logged(&db, b, "scheduler"), 1);

    // Flips after submission 3 leave both pins as they were, and add one
    // row more per field flipped.
    store_text(&db, "third", &smack_log(3, 1));
    for round in 0..40 {
        flip(&db, a, values[(round + 1) % 4], &format!("later {round}"));
    }
    assert_eq!(get_ok(&state, &pin(1)).await.json(), at_one);
    assert_eq!(get_ok(&state, &pin(2)).await.json(), at_two);
    assert_eq!(logged(&db, a, "scheduler"), 3);
}
