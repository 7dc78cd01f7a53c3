//! What one upload may cost is bounded (parts, submissions per upload and
//! per client a minute), an upload is stored whole or not at all (nothing
//! when its client stops waiting), a report pasted again is a copy, and
//! a form posted in Latin-1 keeps its letters.

use std::time::Duration;

use axum::http::{header, StatusCode};
use benchlog::store;
use benchlog::web::WebOptions;

use crate::http::{get_request, multipart, paste, raw_post, read, see_other, send};
use crate::support::{counts, seed_000, smack_log, test_state, test_state_with};

/// An mbox of `messages` short mails, each with its own text.
fn mbox(messages: usize) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..messages {
        out.push_str(&format!(
            "From a{i} at b.org  Mon Jan  1 10:00:00 2007\nFrom: A{i} <a{i}@b.org>\nSubject: note {i}\nMessage-ID: <m{i}@b.org>\n\nA note, number {i}.\n\n"
        ));
    }
    out.into_bytes()
}

#[tokio::test]
async fn an_upload_carries_at_most_20_inputs() {
    let (_dir, db, state) = test_state();
    let texts: Vec<String> = (0..21).map(|i| smack_log(i, 1)).collect();
    let parts: Vec<(&str, Option<&str>, &[u8])> = texts
        .iter()
        .map(|text| ("text", None, text.as_bytes()))
        .collect();
    let (status, body) = read(send(&state, multipart(&parts)).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("more than 20 texts and files"), "{body}");
    assert_eq!(counts(&db).submissions, 0);

    let (status, _) = read(send(&state, multipart(&parts[..20])).await).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(counts(&db).submissions, 20);
}

#[tokio::test]
async fn an_archive_of_more_than_1000_messages_is_refused_whole() {
    let (_dir, db, state) = test_state();
    let archive = mbox(1_001);
    let (status, body) = read(
        send(
            &state,
            multipart(&[("file", Some("2007-January.txt"), &archive)]),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert!(body.contains("more than 1000 submissions"), "{body}");
    assert_eq!(counts(&db).submissions, 0);
}

#[tokio::test]
async fn many_submissions_get_a_short_page_listing_them_with_the_token() {
    let (_dir, db, state) = test_state();
    let archive = mbox(150);
    let response = send(
        &state,
        multipart(&[("file", Some("2007-January.txt"), &archive)]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().get(header::LOCATION).is_none());
    let cookie_bytes: usize = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|value| value.len())
        .sum();
    assert!(cookie_bytes < 1_000, "the headers stay short");
    let (_, page) = read(response).await;
    assert!(page.contains("150 submissions stored"), "{page}");
    assert!(page.contains(r#"href="/submissions/150""#));
    assert!(page.contains("Your edit token"), "the token is handed over");
    assert_eq!(counts(&db).submissions, 150);
}

#[tokio::test]
async fn submissions_a_minute_are_limited_per_client() {
    let (_dir, db, state) = test_state_with(WebOptions {
        submissions_per_minute: 100,
        ..WebOptions::default()
    });
    let first = mbox(60);
    let (status, _) =
        read(send(&state, multipart(&[("file", Some("a.mbox"), &first)])).await).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let second: Vec<u8> = String::from_utf8(mbox(120))
        .unwrap()
        .replace("@b.org", "@c.org")
        .into_bytes();
    let response = send(&state, multipart(&[("file", Some("b.mbox"), &second[..])])).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(response.headers().get(header::RETRY_AFTER).is_some());
    let (_, body) = read(response).await;
    assert!(body.contains("100 a minute"), "{body}");
    assert_eq!(
        counts(&db).submissions,
        60,
        "nothing of the second is stored"
    );
}

#[tokio::test]
async fn an_upload_whose_client_stopped_waiting_stores_nothing() {
    let (_dir, db, state) = test_state_with(WebOptions {
        request_timeout: Duration::from_millis(300),
        ..WebOptions::default()
    });
    // Another writer holds the write lock, so the upload's storing waits
    // past the request's timeout.
    let blocker = std::thread::spawn({
        let db = db.clone();
        move || {
            let mut conn = store::open(&db).unwrap();
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            std::thread::sleep(Duration::from_millis(1_500));
            tx.commit().unwrap();
        }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let response = send(
        &state,
        crate::http::post_form("/upload", &[("text", &seed_000())]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::REQUEST_TIMEOUT);
    blocker.join().unwrap();
    // The storing went on after the 408; give it time to finish.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(
        counts(&db).submissions,
        0,
        "no submission is stored whose token nobody received"
    );
    // And the same upload, waited for, is stored.
    assert_eq!(paste(&state, &seed_000()).await, "/submissions/1");
}

#[tokio::test]
async fn a_report_pasted_again_with_trivial_changes_is_a_copy() {
    let (_dir, db, state) = test_state();
    let seed = seed_000();
    paste(&state, &seed).await;
    let before = counts(&db);
    let again = format!("Hi all,\r\n\r\n{}\r\n", seed.replace('\n', "\r\n"));
    let location = paste(&state, &again).await;
    assert_eq!(
        location, "/submissions/2",
        "another text: its own submission"
    );
    // Each run is stored again as the new submission's own, a copy
    // linked to the first: its results too.
    let after = counts(&db);
    assert_eq!(after.runs, 2 * before.runs, "each submission owns its runs");
    assert_eq!(after.results, 2 * before.results);
    let (_, page) = read(send(&state, get_request(&location)).await).await;
    assert!(
        page.contains("quoted from <a href="),
        "the copies link to the runs: {page}"
    );
    let conn = store::open(&db).unwrap();
    let unlinked: i64 = conn
        .query_row(
            "SELECT count(*) FROM runs c JOIN runs o ON o.submission_id = 1 AND o.idx = c.idx
             WHERE c.submission_id = 2 AND c.copy_key IS NOT o.id",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(unlinked, 0, "every copy has the key of the run it repeats");
    let quotes: i64 = conn
        .query_row("SELECT count(*) FROM run_quotes", [], |row| row.get(0))
        .unwrap();
    assert_eq!(quotes, 0, "copies are runs, not links");
}

#[tokio::test]
async fn a_form_posted_in_latin_1_keeps_its_letters() {
    let (_dir, db, state) = test_state();
    // "Résultats: café" in ISO-8859-1, percent-encoded as such a form sends it.
    let body = "text=R%E9sultats%3A+caf%E9%0Aselect_index+done";
    let request = raw_post("/upload", "application/x-www-form-urlencoded", body);
    let response = send(&state, request).await;
    let location = see_other(&response);
    assert_eq!(location, "/submissions/1");
    let conn = store::open(&db).unwrap();
    let text: String = conn
        .query_row("SELECT text FROM submissions WHERE id = 1", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(text, "Résultats: café\nselect_index done");
}
