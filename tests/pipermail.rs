//! `benchlog ingest URL`: a mailman 2.1 archive served over real HTTP on
//! 127.0.0.1 (tower-http's ServeDir, which sends Last-Modified and
//! answers If-Modified-Since with 304), from the real archive kept in
//! fixtures/pipermail/divunal-author (fixtures/SOURCES.md): its index
//! page, the twenty months it links, and a page that is not an archive.
//! What an index brings equals what the same month files bring from disk;
//! the requests are one at a time, named benchlog, and conditional on a
//! re-run.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use benchlog::archive::{self, FileOutcome, ImportSummary};
use benchlog::pipermail;
use rusqlite::Connection;

use crate::support::{fresh_db, repo_path};

const ARCHIVE: &str = "fixtures/pipermail/divunal-author";

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    user_agent: String,
    if_modified_since: Option<String>,
    status: u16,
}

#[derive(Default)]
struct Log {
    seen: Mutex<Vec<Seen>>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    /// Requests answered 503 below `/busy-once/`.
    busy: AtomicUsize,
}

/// A web server on 127.0.0.1 serving `root` (a folder below it answers
/// with its index.html), logging every request; it stops with the test
/// process.
struct Server {
    base: String,
    log: Arc<Log>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let log = Arc::new(Log::default());
        let app = axum::Router::new()
            .fallback_service(tower_http::services::ServeDir::new(root))
            .layer(axum::middleware::from_fn_with_state(log.clone(), record));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        Server {
            base: format!("http://{addr}"),
            log,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.log.seen.lock().unwrap().clone()
    }

    fn forget(&self) {
        self.log.seen.lock().unwrap().clear();
    }
}

async fn record(State(log): State<Arc<Log>>, request: Request, next: Next) -> Response {
    let now = log.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    log.most_in_flight.fetch_max(now, Ordering::SeqCst);
    let user_agent = header(&request, "user-agent").unwrap_or_default();
    let if_modified_since = header(&request, "if-modified-since");
    let path = request.uri().path().to_owned();
    // A busy server: below /busy-once/ the first request is asked to come
    // back in a second, below /busy-always/ every one, and below
    // /busy-long/ every one in an hour.
    let retry_after = if path.starts_with("/busy-once/")
        && log.busy.fetch_add(1, Ordering::SeqCst) == 0
        || path.starts_with("/busy-always/")
    {
        Some("1")
    } else if path.starts_with("/busy-long/") {
        Some("3600")
    } else {
        None
    };
    let response = match retry_after {
        Some(wait) => Response::builder()
            .status(503)
            .header("retry-after", wait)
            .body(axum::body::Body::from("busy"))
            .unwrap(),
        None => next.run(request).await,
    };
    log.seen.lock().unwrap().push(Seen {
        path,
        user_agent,
        if_modified_since,
        status: response.status().as_u16(),
    });
    log.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers()
        .get(name)
        .map(|value| value.to_str().unwrap().to_owned())
}

/// A copy of the fixture archive, below `list/` of a served folder.
fn served_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list");
    std::fs::create_dir_all(list.join("2012-May")).unwrap();
    for entry in walk(&repo_path(ARCHIVE)) {
        let below = entry.strip_prefix(repo_path(ARCHIVE)).unwrap();
        std::fs::copy(&entry, list.join(below)).unwrap();
    }
    (dir, list)
}

fn walk(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The month files of the fixture archive, as its index links them.
fn month_files() -> Vec<PathBuf> {
    walk(&repo_path(ARCHIVE))
        .into_iter()
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.ends_with(".txt") || name.ends_with(".txt.gz")
        })
        .collect()
}

struct Imported {
    summary: ImportSummary,
    read: pipermail::UrlRead,
}

fn import_url(conn: &mut Connection, address: &str) -> anyhow::Result<Imported> {
    let mut summary = ImportSummary::default();
    let read = pipermail::import_url(
        conn,
        address,
        archive::BATCH_ITEMS,
        &mut summary,
        |_, _| {},
        |_| {},
    )?;
    Ok(Imported { summary, read })
}

/// Every stored message by Message-ID, with its thread's root and text.
fn messages(conn: &Connection) -> BTreeSet<(String, String, String)> {
    let mut statement = conn
        .prepare(
            "SELECT m.message_id, m.thread_id, s.text
             FROM mails m JOIN submissions s ON s.id = m.submission_id",
        )
        .unwrap();
    statement
        .query_map([], |row| {
            Ok((
                row.get::<_, Option<String>>(0)?.unwrap_or_default(),
                row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                row.get(2)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn count(conn: &Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
        row.get(0)
    })
    .unwrap()
}

#[test]
fn an_index_page_brings_every_month_it_links_as_the_files_would() {
    let (_served, _list) = served_copy();
    let server = Server::start(_served.path());
    let (_dir, _, mut conn) = fresh_db();
    let imported = import_url(&mut conn, &format!("{}/list/", server.base)).unwrap();
    assert!(imported.read.index);
    assert_eq!(imported.read.months.len(), 20);
    assert!(
        imported.summary.failures.is_empty(),
        "{:?}",
        imported.summary.failures
    );
    for (month, outcome) in &imported.read.months {
        assert!(
            matches!(outcome, Ok(FileOutcome::Mail { messages }) if *messages > 0),
            "{month}: {outcome:?}"
        );
    }

    // The same months from disk, in the order they were fetched, make
    // the same messages.
    let (_dir2, _, mut from_disk) = fresh_db();
    let files: Vec<PathBuf> = server
        .seen()
        .iter()
        .skip(1)
        .map(|request| {
            let name = request.path.trim_start_matches("/list/");
            repo_path(ARCHIVE).join(name)
        })
        .collect();
    assert_eq!(
        files.iter().collect::<BTreeSet<_>>(),
        month_files().iter().collect::<BTreeSet<_>>()
    );
    let mut disk_summary = ImportSummary::default();
    archive::import_files(
        &mut from_disk,
        &files,
        archive::BATCH_ITEMS,
        &mut disk_summary,
        |_, outcome| assert!(outcome.is_ok()),
        |_| {},
    )
    .unwrap();
    // The archive holds most of its 1999 messages three times over (mailman
    // archived them again), each stored once: 266 read, 115 stored.
    assert_eq!(disk_summary.messages_read, 266, "{disk_summary:?}");
    assert_eq!(disk_summary.messages_added, 115, "{disk_summary:?}");
    assert_eq!(imported.summary.messages_read, disk_summary.messages_read);
    assert_eq!(imported.summary.messages_added, disk_summary.messages_added);
    assert_eq!(messages(&conn), messages(&from_disk));

    // One request at a time, each naming benchlog: the index, then each
    // month once, oldest first; the listinfo link to another host and the
    // month's HTML pages are not followed.
    let seen = server.seen();
    assert_eq!(server.log.most_in_flight.load(Ordering::SeqCst), 1);
    assert!(seen
        .iter()
        .all(|request| request.user_agent == pipermail::USER_AGENT));
    assert!(pipermail::USER_AGENT.starts_with("benchlog/"));
    let paths: Vec<&str> = seen.iter().map(|request| request.path.as_str()).collect();
    assert_eq!(paths.len(), 21, "{paths:?}");
    assert_eq!(paths[0], "/list/");
    assert_eq!(paths[1], "/list/1999-June.txt.gz");
    assert_eq!(paths[2], "/list/1999-July.txt.gz");
    assert_eq!(paths[20], "/list/2017-March.txt");
    assert!(seen.iter().all(|request| request.status == 200));
    assert!(seen
        .iter()
        .all(|request| request.if_modified_since.is_none()));
    assert_eq!(count(&conn, "url_marks"), 20);
}

#[test]
fn a_rerun_asks_if_modified_since_and_reads_only_what_changed() {
    let (served, list) = served_copy();
    let server = Server::start(served.path());
    let (_dir, _, mut conn) = fresh_db();
    let index = format!("{}/list/index.html", server.base);
    let first = import_url(&mut conn, &index).unwrap();
    let stored = count(&conn, "submissions");
    assert_eq!(stored as usize, first.summary.messages_added);
    let sent: Vec<Seen> = server.seen();
    server.forget();

    let again = import_url(&mut conn, &index).unwrap();
    assert_eq!(count(&conn, "submissions"), stored);
    assert_eq!(again.summary.messages_read, 0);
    assert!(again
        .read
        .months
        .iter()
        .all(|(_, outcome)| matches!(outcome, Ok(FileOutcome::Unchanged))));
    assert_eq!(
        again.read.lines(&index),
        [format!(
            "{index}: index page of 20 months: 0 read, 20 unchanged since the last import (HTTP 304), 0 failed"
        )]
    );
    // Each month is asked with the Last-Modified it was sent with.
    let seen = server.seen();
    assert_eq!(seen.len(), 21);
    assert_eq!(seen[0].if_modified_since, None, "the index is read again");
    for (request, earlier) in seen.iter().zip(&sent).skip(1) {
        assert_eq!(request.path, earlier.path);
        assert_eq!(request.status, 304, "{}", request.path);
        assert!(request.if_modified_since.is_some(), "{}", request.path);
    }
    server.forget();

    // A month the archive rewrote (a new message) is read again; its
    // messages already stored are known, the new one is added.
    let month = list.join("2017-March.txt");
    let mut text = std::fs::read_to_string(&month).unwrap();
    text.push_str(
        "From glyph at twistedmatrix.com  Sun Mar 26 10:00:00 2017\n\
         From: glyph at twistedmatrix.com (Glyph Lefkowitz)\n\
         Date: Sun, 26 Mar 2017 10:00:00 -0700\n\
         Subject: [Divunal-author] a third test\n\
         Message-ID: <third-test@twistedmatrix.com>\n\n\
         still here\n\n",
    );
    std::fs::write(&month, text).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&month)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let third = import_url(&mut conn, &index).unwrap();
    assert_eq!(count(&conn, "submissions"), stored + 1);
    assert_eq!(third.summary.messages_added, 1);
    assert_eq!(third.summary.messages_already_stored, 3);
    let read: Vec<String> = server
        .seen()
        .into_iter()
        .filter(|request| request.status == 200)
        .map(|request| request.path)
        .collect();
    assert_eq!(read, ["/list/index.html", "/list/2017-March.txt"]);
}

#[test]
fn a_month_by_its_address_stores_its_runs() {
    // The seed threads (real posts) as a list's month would be served.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("perf")).unwrap();
    std::fs::copy(
        repo_path("fixtures/mbox/seed-threads.mbox.gz"),
        dir.path().join("perf/2006-April.txt.gz"),
    )
    .unwrap();
    let server = Server::start(dir.path());
    let (_db, _, mut conn) = fresh_db();
    let address = format!("{}/perf/2006-April.txt.gz", server.base);
    let imported = import_url(&mut conn, &address).unwrap();
    assert!(!imported.read.index);

    let (_db2, _, mut from_disk) = fresh_db();
    let mut summary = ImportSummary::default();
    archive::import_file(
        &mut from_disk,
        &repo_path("fixtures/mbox/seed-threads.mbox.gz"),
        &mut summary,
        |_| {},
    )
    .unwrap();
    assert!(summary.runs_added > 10, "{summary:?}");
    assert_eq!(imported.summary.runs_added, summary.runs_added);
    assert_eq!(imported.summary.messages_added, summary.messages_added);
    assert_eq!(count(&conn, "results"), count(&from_disk, "results"));
    assert_eq!(messages(&conn), messages(&from_disk));

    // Asked again: 304, nothing read.
    let again = import_url(&mut conn, &address).unwrap();
    assert!(matches!(
        again.read.months[..],
        [(_, Ok(FileOutcome::Unchanged))]
    ));
    assert_eq!(
        again.read.lines(&address),
        [format!(
            "{address}: unchanged since the last import (HTTP 304), not read"
        )]
    );
}

#[test]
fn a_missing_page_and_a_page_that_is_no_archive_are_clear_errors() {
    let (served, list) = served_copy();
    let server = Server::start(served.path());
    let (_dir, _, mut conn) = fresh_db();

    let missing = format!("{}/list/2006-April.txt.gz", server.base);
    let error = format!("{:#}", import_url(&mut conn, &missing).err().unwrap());
    assert!(error.contains("HTTP 404"), "{error}");
    assert!(error.contains(&missing), "{error}");

    let thread = format!("{}/list/2012-May/thread.html", server.base);
    let error = format!("{:#}", import_url(&mut conn, &thread).err().unwrap());
    assert!(error.contains("is not a mailing-list archive"), "{error}");
    let error = format!("{:#}", import_url(&mut conn, "http://[::1").err().unwrap());
    assert!(error.contains("not a web address"), "{error}");
    assert_eq!(count(&conn, "submissions"), 0);
    assert_eq!(count(&conn, "url_marks"), 0);

    // A month the index links that the server lost fails alone, with
    // why, and so does a link that is no month (not stored as a text);
    // the others are stored, and asked for again next time.
    std::fs::remove_file(list.join("1999-August.txt.gz")).unwrap();
    let page = std::fs::read_to_string(list.join("index.html")).unwrap();
    let page = page.replace("</BODY>", "<a href=\"notes.txt\">notes</a></BODY>");
    std::fs::write(list.join("index.html"), page).unwrap();
    std::fs::copy(repo_path(crate::support::SEED_000), list.join("notes.txt")).unwrap();
    let index = format!("{}/list/", server.base);
    let imported = import_url(&mut conn, &index).unwrap();
    let failed: Vec<(&str, &str)> = imported
        .summary
        .failures
        .iter()
        .map(|failure| (failure.source_name.as_str(), failure.why.as_str()))
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert_eq!(
        failed[0].0,
        format!("{}/list/1999-August.txt.gz", server.base)
    );
    assert!(failed[0].1.contains("HTTP 404"), "{failed:?}");
    assert_eq!(failed[1].0, format!("{}/list/notes.txt", server.base));
    assert!(
        failed[1].1.contains("is not a mailing-list archive"),
        "{failed:?}"
    );
    assert_eq!(imported.read.months.len(), 21);
    assert_eq!(count(&conn, "url_marks"), 19);
    assert_eq!(count(&conn, "runs"), 0);
    assert_eq!(
        count(&conn, "submissions") as usize,
        imported.summary.messages_added
    );
}

#[test]
fn a_busy_server_is_waited_for_once_as_it_asks() {
    let dir = tempfile::tempdir().unwrap();
    let month = repo_path(ARCHIVE).join("2003-May.txt.gz");
    for folder in ["busy-once", "busy-always", "busy-long"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::copy(&month, dir.path().join(folder).join("2003-May.txt.gz")).unwrap();
    }
    let server = Server::start(dir.path());
    let (_db, _, mut conn) = fresh_db();

    let once = format!("{}/busy-once/2003-May.txt.gz", server.base);
    let imported = import_url(&mut conn, &once).unwrap();
    assert!(imported.summary.messages_added > 0);
    let statuses: Vec<u16> = server.seen().iter().map(|request| request.status).collect();
    assert_eq!(statuses, [503, 200]);
    server.forget();

    let always = format!("{}/busy-always/2003-May.txt.gz", server.base);
    let error = format!("{:#}", import_url(&mut conn, &always).err().unwrap());
    assert!(error.contains("still busy"), "{error}");
    assert_eq!(server.seen().len(), 2, "asked once more, not again");
    server.forget();

    let long = format!("{}/busy-long/2003-May.txt.gz", server.base);
    let error = format!("{:#}", import_url(&mut conn, &long).err().unwrap());
    assert!(error.contains("HTTP 503 Service Unavailable"), "{error}");
    assert_eq!(server.seen().len(), 1, "an hour is not waited for");
}

#[test]
fn the_command_line_takes_an_address_and_says_what_it_read() {
    let (served, _list) = served_copy();
    let server = Server::start(served.path());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    let run = |address: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .args(["ingest", "--db"])
            .arg(&db)
            .arg(address)
            .output()
            .unwrap()
    };
    let month = format!("{}/list/2003-May.txt.gz", server.base);
    let output = run(&month);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains(&format!("{month}: ")) && stdout.contains("mail messages"),
        "{stdout}"
    );
    let output = run(&month);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("unchanged since the last import (HTTP 304), not read"),
        "{stdout}"
    );

    let output = run(&format!("{}/list/nothing-here.txt.gz", server.base));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("HTTP 404 Not Found"), "{stderr}");
}
