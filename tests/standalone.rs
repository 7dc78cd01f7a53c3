//! A binary that stands alone: copied out of the checkout and run from
//! elsewhere, it serves its stylesheet and its demo's example logs from
//! what was built into it; `--static-dir` still overrides the former.

use std::path::Path;
use std::process::Command;

use axum::http::{header, HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};

use crate::load::{client, start, HttpClient};
use crate::support::repo_path;

async fn get(
    client: &HttpClient,
    url: String,
    if_none_match: Option<&str>,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = Request::get(url);
    if let Some(tag) = if_none_match {
        request = request.header(header::IF_NONE_MATCH, tag);
    }
    let response = client
        .request(request.body(Full::default()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, headers, body.to_vec())
}

/// A `benchlog` command run from a copy of the binary in `dir`, in a
/// working directory of its own, with no folder options from the
/// environment.
fn copied_binary(dir: &Path) -> Command {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("benchlog");
    // A hard link is a copy at another path that takes no room; across
    // file systems, a copy.
    let built = env!("CARGO_BIN_EXE_benchlog");
    if std::fs::hard_link(built, &copy).is_err() {
        std::fs::copy(built, &copy).unwrap();
    }
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut command = Command::new(copy);
    command
        .current_dir(elsewhere)
        .env_remove("BENCHLOG_STATIC_DIR")
        .env_remove("BENCHLOG_FIXTURES")
        .env_remove("BENCHLOG_DB");
    command
}

#[tokio::test]
async fn a_copied_binary_serves_its_stylesheet_and_example_logs_from_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut command = copied_binary(dir.path());
    command.arg("demo").arg("--data-dir").arg(&data);
    let server = start(command, dir, data.join("benchlog-demo.db"));
    let client = client();
    let base = format!("http://{}", server.addr);

    let (status, headers, css) = get(&client, format!("{base}/static/style.css"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "text/css");
    assert_eq!(css, std::fs::read(repo_path("static/style.css")).unwrap());
    let tag = headers[header::ETAG].to_str().unwrap().to_owned();
    let (status, _, body) = get(&client, format!("{base}/static/style.css"), Some(&tag)).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    let (status, _, _) = get(&client, format!("{base}/static/missing.css"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Every example log of the checkout was loaded, from the binary.
    let fixtures = repo_path("fixtures");
    let logs = benchlog::intake::collect_input_files(std::slice::from_ref(&fixtures))
        .unwrap()
        .into_iter()
        .filter(|path| {
            path.strip_prefix(&fixtures)
                .is_ok_and(example_logs::is_example_log)
        })
        .count();
    let said = format!("holds {logs} example logs");
    let log = server.log.lock().unwrap().join("\n");
    assert!(
        log.contains(&said) && log.contains("from the binary"),
        "{log}"
    );
    // Its log goes to a pipe here, as to a file: no colour codes in it.
    assert!(!log.contains('\u{1b}'), "{log:?}");
    let counts = |conn: &rusqlite::Connection| -> (i64, i64) {
        conn.query_row(
            "SELECT (SELECT count(*) FROM submissions), (SELECT count(*) FROM runs)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap()
    };
    let built_in = counts(&benchlog::store::open(&server.db).unwrap());
    let (_dir, _path, mut conn) = crate::support::fresh_db();
    let fixtures = repo_path("fixtures");
    benchlog::demo::load_examples(&mut conn, Some(&fixtures)).unwrap();
    assert_eq!(built_in, counts(&conn), "(submissions, runs)");
    assert!(built_in.1 > 700, "{built_in:?}");
}

#[tokio::test]
async fn static_dir_overrides_the_built_in_stylesheet() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("static");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("style.css"), "body { color: red }\n").unwrap();
    let db = dir.path().join("serve.db");
    let mut command = copied_binary(dir.path());
    command
        .arg("serve")
        .arg("--db")
        .arg(&db)
        .arg("--static-dir")
        .arg(&folder);
    let server = start(command, dir, db);
    let url = format!("http://{}/static/style.css", server.addr);
    let (status, _, css) = get(&client(), url, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(css, b"body { color: red }\n");
}
