//! The dashboard through its router, with no socket: `app(state).oneshot`.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use benchlog::store;
use benchlog::web::state::AppState;

use crate::http::{
    get_routes, get_typed, multipart, post_form, raw_post, read, requests_route, see_other, send,
};
use crate::support::{counts, seed_000, smack_log, test_state};

const COMPARE_QUERY: &str =
    "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib";

/// The upload form with `text` pasted.
fn form(text: &str) -> Request<Body> {
    post_form("/upload", &[("text", text)])
}

async fn upload_seed(state: &AppState) -> String {
    see_other(&send(state, form(&seed_000())).await)
}

/// A mail archive of one message, for a thread to show.
fn one_mail() -> String {
    format!(
        "From someone@example.org  Wed Apr  5 12:41:02 2006\n\
         From: Steven Hartland <killing@example.org>\n\
         Date: Wed, 5 Apr 2006 13:41:02 +0100\n\
         Subject: select-key again\n\
         Message-ID: <every-page@example.org>\n\
         \n\
         {}\n",
        smack_log(1, 2)
    )
}

/// Every GET route of the router is asked here (a new one fails until it
/// is), first of an empty database, then with data.
#[tokio::test]
async fn every_page_answers() {
    let (_dir, _db, state) = test_state();
    // An empty database first: nothing may fail for lack of data.
    for uri in ["/", "/compare", "/compare?tool=super-smack", "/healthz"] {
        let (status, _, body) = get_typed(&state, uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {body}");
    }
    let submission = upload_seed(&state).await;
    let mail = see_other(
        &send(
            &state,
            multipart(&[("file", Some("2006-April.txt"), one_mail().as_bytes())]),
        )
        .await,
    );
    let mail_id: String = mail["/submissions/".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let thread = format!("/threads/{mail_id}");
    let pages = [
        ("/", "text/html"),
        ("/submissions", "text/html"),
        (submission.as_str(), "text/html"),
        ("/runs", "text/html"),
        ("/runs/1", "text/html"),
        (thread.as_str(), "text/html"),
        ("/compare", "text/html"),
        (&format!("/compare?{COMPARE_QUERY}"), "text/html"),
        (&format!("/compare.svg?{COMPARE_QUERY}"), "image/svg+xml"),
        (&format!("/compare.png?{COMPARE_QUERY}"), "image/png"),
        (&format!("/compare.csv?{COMPARE_QUERY}"), "text/csv"),
        (
            &format!("/compare.json?{COMPARE_QUERY}"),
            "application/json",
        ),
        (&format!("/compare.txt?{COMPARE_QUERY}"), "text/plain"),
        ("/healthz", "text/plain"),
        ("/static/style.css", "text/css"),
    ];
    for (uri, content_type) in &pages {
        let (status, got_type, body) = get_typed(&state, uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {body}");
        assert!(got_type.starts_with(content_type), "{uri}: {got_type}");
    }
    let routes = get_routes(&state, &mail_id).await;
    assert!(routes.len() >= 12, "GET routes read: {routes:?}");
    for route in routes {
        assert!(
            pages.iter().any(|(uri, _)| requests_route(uri, &route)),
            "GET {route} is routed but not asked here: add it to the pages"
        );
    }
}

#[tokio::test]
async fn the_home_page_lists_submissions_and_has_the_upload_form() {
    let (_dir, _db, state) = test_state();
    let (_, _, empty) = get_typed(&state, "/").await;
    assert!(empty.contains(r#"action="/upload""#));
    assert!(empty.contains(r#"name="text""#) && empty.contains(r#"name="file""#));
    upload_seed(&state).await;
    let (_, _, body) = get_typed(&state, "/").await;
    assert!(
        body.contains("mysql performance on 4 * dualcore opteron"),
        "{body}"
    );
    assert!(body.contains(r#"href="/submissions/1""#));
}

#[tokio::test]
async fn bad_uploads_are_refused_and_store_nothing() {
    let (_dir, db, state) = test_state();
    let cases: Vec<(&str, Request<Body>, &str)> = vec![
        ("empty text", form(""), "Nothing to store"),
        ("white space", form(" \n\t \n"), "Nothing to store"),
        ("no parts", multipart(&[]), "Nothing to store"),
        (
            "empty file part",
            multipart(&[("text", None, b""), ("file", Some(""), b"")]),
            "Nothing to store",
        ),
        (
            "binary file",
            multipart(&[(
                "file",
                Some("mysqld.core"),
                b"\x7fELF\x02\x01\x01\x00\x00\x00",
            )]),
            "looks binary",
        ),
        (
            "binary next to good text",
            multipart(&[
                ("text", None, seed_000().as_bytes()),
                ("file", Some("a.bin"), b"\x00\x01\x02"),
            ]),
            "a.bin",
        ),
        (
            "not a form",
            raw_post("/upload", "application/json", "{}"),
            "as a form",
        ),
    ];
    for (index, (name, request, message)) in cases.into_iter().enumerate() {
        let (status, body) = read(send(&state, request).await).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "case {index} ({name}): {body}"
        );
        assert!(body.contains(message), "case {index} ({name}): {body}");
    }
    assert_eq!(counts(&db), store::Counts::default());
}

#[tokio::test]
async fn an_upload_larger_than_the_limit_is_refused() {
    let (_dir, db, state) = test_state();
    let big = vec![b'a'; benchlog::limits::MAX_BODY_BYTES + 1024];
    let response = send(&state, multipart(&[("file", Some("big.txt"), &big)])).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(counts(&db).submissions, 0);
}

#[tokio::test]
async fn uploading_seed_000_shows_its_runs() {
    let (_dir, db, state) = test_state();
    let location = upload_seed(&state).await;
    assert_eq!(location, "/submissions/1");
    // The same text again goes to the same submission, saying so.
    assert_eq!(upload_seed(&state).await, format!("{location}?already=1"));
    assert_eq!(counts(&db).submissions, 1);

    let (status, _, page) = get_typed(&state, &location).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Runs found (17)"), "{page}");
    for needle in [
        "ULE + libthr + TSC",
        "28581.18",
        "Steven Hartland",
        r#"id="run-17""#,
        // The raw text is there with line anchors, and recognised lines link to their run.
        r#"id="L130""#,
        r##"href="#run-11""##,
        "/compare?tool=super-smack",
    ] {
        assert!(page.contains(needle), "missing {needle:?}");
    }
    // Each run's compare link is a ready chart of this submission.
    let start = page.find(r#"href="/compare?"#).unwrap() + r#"href=""#.len();
    let link = page[start..start + page[start..].find('"').unwrap()].replace("&#38;", "&");
    let link = link.replace("&amp;", "&");
    assert!(link.contains("where=submission%3A1"), "{link}");
    let (status, _, chart) = get_typed(&state, &link).await;
    assert_eq!(status, StatusCode::OK, "{link}: {chart}");
    assert!(
        chart.contains("<svg") && chart.contains("22061.88"),
        "{link}"
    );

    let (status, _, _) = get_typed(&state, "/submissions/999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = get_typed(&state, "/submissions/abc").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn uploading_files_by_multipart() {
    let (_dir, db, state) = test_state();
    let seed = seed_000();
    let other = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.99\n";
    let response = send(
        &state,
        multipart(&[
            ("text", None, b""),
            ("file", Some("seed-000.txt"), seed.as_bytes()),
            ("file", Some("short.txt"), other.as_bytes()),
        ]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    // The first one's review, which lists the others.
    assert_eq!(see_other(&response), "/submissions/1?uploaded=1,2");
    let counts = counts(&db);
    assert_eq!(counts.submissions, 2);
    assert_eq!(counts.runs, 18);
    let (_, _, home) = get_typed(&state, "/").await;
    assert!(
        home.contains("short.txt"),
        "the file name is the source name"
    );
}

#[tokio::test]
async fn compare_draws_one_series_per_attribute_combination() {
    let (_dir, _db, state) = test_state();
    upload_seed(&state).await;

    let (status, _, json) = get_typed(&state, &format!("/compare.json?{COMPARE_QUERY}")).await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let series = json["series"].as_array().unwrap();
    let names: Vec<&str> = series.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(series.len(), 6, "series: {names:?}");
    assert!(names.contains(&"ULE / libthr"), "{names:?}");
    assert_eq!(json["unit"], "q/s");

    let (_, _, svg) = get_typed(&state, &format!("/compare.svg?{COMPARE_QUERY}")).await;
    assert!(svg.starts_with("<svg"));
    for name in &names {
        assert!(svg.contains(name), "the legend names {name:?}");
    }
    assert!(
        svg.contains("queries per second (q/s)"),
        "the y axis says what and in which unit"
    );

    let (_, _, csv) = get_typed(&state, &format!("/compare.csv?{COMPARE_QUERY}")).await;
    assert!(csv.starts_with("series,scheduler,thread_lib,"), "{csv}");
    assert!(csv.contains(",18624.6,"), "{csv}");
    assert!(csv.contains(",28581.18,"), "{csv}");

    let (_, _, page) = get_typed(&state, &format!("/compare?{COMPARE_QUERY}")).await;
    assert!(page.contains("<svg"), "the chart is inline");
    assert!(page.contains("18624.6"), "the numbers are in a table");
    // The template escapes `&` in attributes (as `&#38;`); a browser reads it back.
    let unescaped = page.replace("&#38;", "&").replace("&amp;", "&");
    for link in [
        "/compare.csv?",
        "/compare.svg?",
        "/compare.png?",
        "/compare.json?",
    ] {
        assert!(
            unescaped.contains(&format!("{link}{COMPARE_QUERY}")),
            "missing link {link}"
        );
    }
}

#[tokio::test]
async fn compare_filters_with_where_and_is_stable() {
    let (_dir, _db, state) = test_state();
    upload_seed(&state).await;
    let query = format!("{COMPARE_QUERY}&where=scheduler:ULE");
    let (_, _, csv) = get_typed(&state, &format!("/compare.csv?{query}")).await;
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|row| row.starts_with("ULE / libthr,")),
        "{csv}"
    );
    assert!(csv.contains(",28581.18,"));
    assert!(!csv.contains(",18624.6,"));
    // A shared link shows the same chart for the same data.
    let (_, _, first) = get_typed(&state, &format!("/compare.svg?{query}")).await;
    let (_, _, second) = get_typed(&state, &format!("/compare.svg?{query}")).await;
    assert_eq!(first, second);
}

#[tokio::test]
async fn compare_explains_bad_queries() {
    let (_dir, _db, state) = test_state();
    let cases = [
        ("/compare?tool=nosuchtool&metric=q_per_s", "unknown tool"),
        (
            "/compare.csv?tool=super-smack&metric=speed",
            "unknown metric",
        ),
        ("/compare.svg?tool=super-smack", "metric= is required"),
        ("/compare.json?metric=q_per_s", "tool= is required"),
        (
            "/compare?tool=super-smack&metric=q_per_s&where=ULE",
            "needs the form where=",
        ),
        ("/compare?tool=super-smack&metric=q_per_s&x=time", "x axis"),
        (
            "/compare?tool=super-smack&colour=red",
            "unknown query parameter",
        ),
    ];
    for (index, (uri, message)) in cases.into_iter().enumerate() {
        let (status, _, body) = get_typed(&state, uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "case {index} {uri}");
        assert!(body.contains(message), "case {index} {uri}: {body}");
    }
}

#[tokio::test]
async fn healthz_answers_while_the_database_does() {
    let (_dir, _db, state) = test_state();
    let (status, _, body) = get_typed(&state, "/healthz").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok\n"));
}
