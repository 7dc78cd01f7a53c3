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
    // It shows the token: no cache may keep it.
    assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
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

/// An mbox of `messages` mails, each with its own super-smack report.
fn report_mbox(messages: usize) -> Vec<u8> {
    report_mbox_of(messages, 2)
}

/// An mbox of `messages` mails, each with a super-smack report of `runs` runs.
fn report_mbox_of(messages: usize, runs: usize) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..messages {
        out.push_str(&format!(
            "From a{i} at b.org  Mon Jan  1 10:00:00 2007\nFrom: A{i} <a{i}@b.org>\nSubject: run {i}\nMessage-ID: <r{i}@b.org>\n\n{}\n",
            smack_log(i as u64, runs)
        ));
    }
    out.into_bytes()
}

#[test]
fn an_upload_abandoned_at_any_stage_stores_nothing() {
    use benchlog::web::{store_upload, UploadStage};
    let mbox = report_mbox(5);
    // Storing takes the inputs: each try reads them again.
    let texts = || {
        let input = benchlog::intake::prepare_input(Some("a.mbox"), &mbox, 1_000).unwrap();
        vec![("a.mbox".to_owned(), input)]
    };
    let every_stage: Vec<UploadStage> = (0..=5)
        .map(|stored| UploadStage::Storing { stored })
        .chain([UploadStage::Committing])
        .collect();
    for (at, &leaves) in every_stage.iter().enumerate() {
        let (_dir, db, mut conn) = crate::support::fresh_db();
        let asked = std::cell::RefCell::new(Vec::new());
        let stored = store_upload(&mut conn, texts(), None, None, &|stage| {
            asked.borrow_mut().push(stage);
            stage == leaves
        });
        assert!(stored.is_err(), "abandoned at {leaves:?}");
        assert_eq!(
            asked.into_inner(),
            every_stage[..=at],
            "it stops as soon as it is abandoned"
        );
        let counts = counts(&db);
        assert_eq!(
            (counts.submissions, counts.runs),
            (0, 0),
            "abandoned at {leaves:?}: nothing is stored"
        );
        let tokens: i64 = conn
            .query_row("SELECT count(*) FROM edit_tokens", [], |row| row.get(0))
            .unwrap();
        assert_eq!(tokens, 0, "abandoned at {leaves:?}");
    }
    // Never abandoned: asked at every stage, and all of it is stored.
    let (_dir, db, mut conn) = crate::support::fresh_db();
    let asked = std::cell::RefCell::new(Vec::new());
    let (ids, token) = store_upload(&mut conn, texts(), None, None, &|stage| {
        asked.borrow_mut().push(stage);
        false
    })
    .unwrap();
    assert_eq!(asked.into_inner(), every_stage);
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    assert!(token.is_some());
    assert_eq!(counts(&db).submissions, 5);
}

/// Posts `file` as a multipart upload to the real server at `server` on a
/// connection of its own, and reads the answer's status.
async fn post_file_over_http(server: std::net::SocketAddr, name: &str, file: &[u8]) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let boundary = "benchlog-test-boundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let head = format!(
        "POST /upload HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(server).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no answer: {answer:?}"))
}

/// An mbox of 1,000 reports with 800 words of prose each (7 MB): in a
/// debug build it is read in about 1.5 s, stored in 1.2 s, and its writes
/// are finished (mostly the full-text index) in 1.7 s more.
fn prose_mbox() -> Vec<u8> {
    let mut out = String::new();
    for i in 0..1_000 {
        let prose: String = (0..800).map(|w| format!("w{i}x{w} ")).collect();
        out.push_str(&format!(
            "From a{i} at b.org  Mon Jan  1 10:00:00 2007\nFrom: A{i} <a{i}@b.org>\nSubject: run {i}\nMessage-ID: <r{i}@b.org>\n\n{}\n{prose}\n\n",
            smack_log(i as u64, 1)
        ));
    }
    out.into_bytes()
}

/// The real server with a three-second request timeout, and a large mbox
/// whose storing starts 1.8 s after it was sent, when another writer lets
/// the write lock go: the timeout comes while it is stored or, mostly,
/// while its writes are finished (the single check made before
/// finish_writes let it be committed then: 1,001 submissions in 3 of 3
/// runs). The client gets 408, and nothing of the upload is kept.
#[tokio::test]
async fn over_http_an_upload_answered_408_stores_nothing() {
    let server = crate::load::start_server(&["--request-timeout-secs", "3"]);
    let blocker = std::thread::spawn({
        let db = server.db.clone();
        move || {
            let mut conn = store::open(&db).unwrap();
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            std::thread::sleep(Duration::from_millis(1_800));
            tx.commit().unwrap();
        }
    });
    let status = post_file_over_http(server.addr, "big.mbox", &prose_mbox()).await;
    blocker.join().unwrap();
    // An abandoned upload still storing holds the write lock: this one
    // waits for it to end before it stores.
    let small = smack_log(7_777, 1);
    let small_status = post_file_over_http(server.addr, "small.txt", small.as_bytes()).await;
    assert_eq!(small_status, 303);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stored = counts(&server.db).submissions;
    // The timeout falls before the commit (408, nothing kept) or, on a
    // machine slow enough that the commit began first, during it: then
    // the upload waits for it and is answered with its token (200, the
    // page listing its 1,000 submissions). Never a 408 for what was kept,
    // as under CI's load once: 408 with 1,001 submissions stored.
    match status {
        408 => assert_eq!(stored, 1, "only the upload that was answered is stored"),
        200 => assert_eq!(stored, 1_001, "the answered upload is stored whole"),
        other => panic!("the large upload got {other}"),
    }
}

/// Sends `head` and `body` to the real server at `server` and closes the
/// sending side, then reads the whole answer.
async fn send_and_close(server: std::net::SocketAddr, head: &str, body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    stream.shutdown().await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_said_to_have_ended_early() {
    let server = crate::load::start_server(&[]);
    let form = "text=super-smack";
    let multipart = "--b\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nsuper-smack";
    for (content_type, body) in [
        ("application/x-www-form-urlencoded", form),
        ("multipart/form-data; boundary=b", multipart),
    ] {
        let head = format!(
            "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len() + 1_000
        );
        let answer = send_and_close(server.addr, &head, body.as_bytes()).await;
        assert!(
            answer.starts_with("HTTP/1.1 400 "),
            "{content_type}: {answer}"
        );
        assert!(
            answer.contains("ended before all of it arrived"),
            "{content_type}: {answer}"
        );
        assert!(!answer.contains("larger than"), "{content_type}: {answer}");
    }
    assert_eq!(counts(&server.db).submissions, 0);
}

/// [`benchlog::limits::UPLOADS_AT_WORK`] (one) upload reads, parses and
/// stores at a time: while one waits for the write lock (held here by
/// another connection), a second, which would be refused as soon as it is
/// read, is not even read. It is answered once the first is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_upload_waits_while_one_is_at_work() {
    assert_eq!(benchlog::limits::UPLOADS_AT_WORK, 1);
    let (_dir, db, state) = test_state();
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let upload = |part: (&'static str, Option<&'static str>, Vec<u8>)| {
        let state = state.clone();
        tokio::spawn(async move {
            let (name, file_name, bytes) = part;
            read(send(&state, multipart(&[(name, file_name, &bytes)])).await).await
        })
    };
    let first = upload(("text", None, smack_log(1, 2).into_bytes()));
    // Time for the first to be read and to reach the lock.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = upload(("file", Some("core.bin"), b"a\0b\n".to_vec()));
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(!first.is_finished(), "the first upload waits for the lock");
    assert!(
        !second.is_finished(),
        "the second upload was read while the first was at work: {:?}",
        second.await
    );

    lock.execute_batch("ROLLBACK").unwrap();
    let (status, body) = first.await.unwrap();
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    let (status, body) = second.await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("binary"), "{body}");
    assert_eq!(counts(&db).submissions, 1);
}
