//! `benchlog ingest URL`: a mailman 2.1 archive served over real HTTP on
//! 127.0.0.1 (tower-http's ServeDir, which sends Last-Modified and
//! answers If-Modified-Since with 304), from the real archive kept in
//! fixtures/pipermail/divunal-author (fixtures/SOURCES.md): its index
//! page, the twenty months it links, and a page that is not an archive.
//! What an index brings equals what the same month files bring from disk;
//! the requests are one at a time, named benchlog, and conditional on a
//! re-run. A hand-written server ([`Rogue`]) misbehaves where ServeDir
//! cannot: pages that never end, drip, or redirect elsewhere.

use std::collections::BTreeSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use benchlog::import::pipermail;
use benchlog::import::{self, FileOutcome, ImportSummary};
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
        Server::start_on(root, "127.0.0.1")
    }

    /// The same on another loopback address (`127.0.0.2`: another host).
    fn start_on(root: &Path, ip: &str) -> Server {
        let log = Arc::new(Log::default());
        let app = axum::Router::new()
            .fallback_service(tower_http::services::ServeDir::new(root))
            .layer(axum::middleware::from_fn_with_state(log.clone(), record));
        let listener = std::net::TcpListener::bind((ip, 0)).unwrap();
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
    let limits = pipermail::FetchLimits::default();
    let read = crate::support::import_url(conn, address, limits, &mut summary)?;
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
    let mut sources = import::Files::new(files);
    let read = import::import(
        &mut from_disk,
        &mut [&mut sources],
        Default::default(),
        &mut (),
    )
    .unwrap();
    assert!(read.files.iter().all(|done| done.outcome.is_ok()));
    disk_summary.add(read.summary);
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
    crate::support::import_file(
        &mut from_disk,
        &repo_path("fixtures/mbox/seed-threads.mbox.gz"),
        &mut summary,
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

/// A hand-written HTTP/1.1 server on 127.0.0.1, for what ServeDir does
/// not do: each connection on its own thread, its request's path handed
/// to `answer` with a [`Reply`] to write to; every answer closes its
/// connection. It counts the bytes its answers got into the socket.
struct Rogue {
    base: String,
    sent: Arc<AtomicU64>,
    open: Arc<AtomicUsize>,
}

/// Where a [`Rogue`]'s answer goes: the connection, and the count of
/// bytes written.
struct Reply {
    stream: TcpStream,
    sent: Arc<AtomicU64>,
}

impl Reply {
    /// Writes `bytes`; false once the client has gone.
    fn write(&mut self, bytes: &[u8]) -> bool {
        let written = self.stream.write_all(bytes).is_ok();
        if written {
            self.sent.fetch_add(bytes.len() as u64, Ordering::SeqCst);
        }
        written
    }

    fn head(&mut self, status: &str, fields: &str) -> bool {
        self.write(format!("HTTP/1.1 {status}\r\n{fields}Connection: close\r\n\r\n").as_bytes())
    }

    /// A whole page, with its Content-Length.
    fn page(&mut self, body: &[u8]) {
        if self.head("200 OK", &format!("Content-Length: {}\r\n", body.len())) {
            self.write(body);
        }
    }

    /// `start`, then `filler` again and again: for ever (no
    /// Content-Length: the page ends when the connection does), or up to
    /// the `length` it says.
    fn endless(&mut self, length: Option<u64>, start: &[u8], filler: &[u8]) {
        let fields = length.map_or(String::new(), |n| format!("Content-Length: {n}\r\n"));
        if !self.head("200 OK", &fields) || !self.write(start) {
            return;
        }
        let chunk = filler.repeat(64 * 1024 / filler.len());
        let mut left = length.map_or(u64::MAX, |n| n - start.len() as u64);
        while left > 0 {
            let piece = &chunk[..chunk.len().min(usize::try_from(left).unwrap_or(usize::MAX))];
            if !self.write(piece) {
                return;
            }
            left -= piece.len() as u64;
        }
    }

    /// `start`, then one byte every `every`, for ever.
    fn drip(&mut self, start: &[u8], every: Duration) {
        if !self.head("200 OK", "") || !self.write(start) {
            return;
        }
        loop {
            std::thread::sleep(every);
            if !self.write(b"x") {
                return;
            }
        }
    }

    fn missing(&mut self) {
        self.head("404 Not Found", "Content-Length: 0\r\n");
    }

    fn redirect(&mut self, location: &str) {
        self.head(
            "302 Found",
            &format!("Location: {location}\r\nContent-Length: 0\r\n"),
        );
    }
}

impl Rogue {
    fn start(answer: impl Fn(&str, &mut Reply) + Send + Sync + 'static) -> Rogue {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let sent = Arc::new(AtomicU64::new(0));
        let open = Arc::new(AtomicUsize::new(0));
        let answer = Arc::new(answer);
        let (counted, opened) = (sent.clone(), open.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (answer, sent, open) = (answer.clone(), counted.clone(), opened.clone());
                open.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap_or(0);
                    let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                    // The rest of the head.
                    loop {
                        let mut field = String::new();
                        if reader.read_line(&mut field).unwrap_or(0) == 0 || field == "\r\n" {
                            break;
                        }
                    }
                    answer(&path, &mut Reply { stream, sent });
                    open.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Rogue { base, sent, open }
    }

    /// The bytes written, once every answer has ended (the client gone).
    fn sent_when_done(&self) -> u64 {
        let until = Instant::now() + Duration::from_secs(20);
        while self.open.load(Ordering::SeqCst) > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(self.open.load(Ordering::SeqCst), 0, "an answer still runs");
        self.sent.load(Ordering::SeqCst)
    }
}

/// The start of an mbox month: what tells a month from an index.
const MONTH_START: &[u8] = b"From perf at example.org  Mon Apr  3 10:00:00 2006\n\
From: perf at example.org (Perf)\n\
Date: Mon, 3 Apr 2006 10:00:00 +0000\n\
Subject: [perf] results\n\
Message-ID: <endless@example.org>\n\n";

const MIB: u64 = 1024 * 1024;

/// What the sockets between the two ends hold besides what the client
/// read (loopback buffers grow to a few MiB each way).
const IN_THE_SOCKETS: u64 = 24 * MIB;

/// (source, why) of the one failure an import reported.
fn the_one_failure(summary: &ImportSummary) -> Vec<(&str, &str)> {
    let failed: Vec<(&str, &str)> = summary
        .failures
        .iter()
        .map(|failure| (failure.source_name.as_str(), failure.why.as_str()))
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    failed
}

fn import_within(
    address: &str,
    limits: pipermail::FetchLimits,
) -> (anyhow::Result<pipermail::UrlRead>, ImportSummary) {
    let (_dir, _, mut conn) = fresh_db();
    let mut summary = ImportSummary::default();
    let read = crate::support::import_url(&mut conn, address, limits, &mut summary);
    (read, summary)
}

/// An index page or a month that never ends, or whose Content-Length
/// says 200 MB, was read to the month's limit (256 MiB, in memory)
/// before any limit applied: it is read no further than its own.
#[test]
fn an_endless_page_is_read_no_further_than_its_limit() {
    const PROSE: &[u8] = b"<p>no month links here, only words</p>\n";
    let rogue = Rogue::start(|path, reply| match path {
        "/big/" => reply.endless(Some(200 * MIB), b"<html><body>", PROSE),
        "/endless/" => reply.endless(None, b"<html><body>", PROSE),
        "/list/" => reply.page(b"<a href=\"notes.txt\">notes</a>"),
        "/list/notes.txt" => reply.endless(None, b"<html><body>", PROSE),
        "/month/2006-April.txt" => reply.endless(None, MONTH_START, b"more of the report\n"),
        _ => reply.missing(),
    });
    let limits = pipermail::FetchLimits::default();
    let index_bytes = limits.index_bytes;
    for page in ["/big/", "/endless/"] {
        let address = format!("{}{page}", rogue.base);
        let before = rogue.sent.load(Ordering::SeqCst);
        let error = format!("{:#}", import_within(&address, limits).0.err().unwrap());
        assert!(
            error.contains(&address)
                && error.contains("larger than 4 MiB, the most benchlog reads from one index page"),
            "{error}"
        );
        let sent = rogue.sent_when_done() - before;
        assert!(
            sent < index_bytes + IN_THE_SOCKETS,
            "{page}: {sent} bytes sent for an index of at most {index_bytes}"
        );
    }

    // An index's link that is no month is not read to a month's size.
    let before = rogue.sent.load(Ordering::SeqCst);
    let (read, summary) = import_within(&format!("{}/list/", rogue.base), limits);
    assert_eq!(read.unwrap().months.len(), 1);
    assert_eq!(summary.failures.len(), 1, "{:?}", summary.failures);
    assert!(
        summary.failures[0]
            .why
            .contains("is not a mailing-list archive"),
        "{:?}",
        summary.failures
    );
    let sent = rogue.sent_when_done() - before;
    assert!(sent < index_bytes + IN_THE_SOCKETS, "{sent} bytes sent");

    // A month is read to its limit, and no further.
    let month_bytes = 32 * MIB;
    let limits = pipermail::FetchLimits {
        month_bytes,
        ..limits
    };
    let address = format!("{}/month/2006-April.txt", rogue.base);
    let before = rogue.sent.load(Ordering::SeqCst);
    let error = format!("{:#}", import_within(&address, limits).0.err().unwrap());
    assert!(
        error.contains(&address) && error.contains("larger than 32 MiB"),
        "{error}"
    );
    let sent = rogue.sent_when_done() - before;
    assert!(
        (month_bytes..month_bytes + IN_THE_SOCKETS).contains(&sent),
        "{sent} bytes sent"
    );
}

/// A page that sends a byte a little more often than the read timeout
/// held an import for ever: each page has its whole time, and a month
/// over it fails alone, with why.
#[test]
fn a_page_that_drips_fails_once_its_time_is_up() {
    let month = std::fs::read(repo_path(ARCHIVE).join("2003-May.txt.gz")).unwrap();
    let rogue = Rogue::start(move |path, reply| match path {
        "/list/" => {
            reply.page(b"<a href=\"2003-May.txt.gz\">a</a> <a href=\"2003-June.txt\">b</a>")
        }
        "/list/2003-May.txt.gz" => reply.page(&month),
        "/list/2003-June.txt" => reply.drip(MONTH_START, Duration::from_millis(50)),
        _ => reply.drip(b"<html><body>", Duration::from_millis(50)),
    });
    let limits = pipermail::FetchLimits {
        transfer_time: Duration::from_secs(1),
        ..pipermail::FetchLimits::default()
    };
    let within = |address: String| {
        let (sender, receiver) = std::sync::mpsc::channel();
        let started = Instant::now();
        std::thread::spawn(move || {
            let (read, summary) = import_within(&address, limits);
            let read = read.map_err(|error| format!("{error:#}"));
            sender.send((read.map(|read| read.index), summary)).unwrap();
        });
        let done = receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the import ends");
        (done, started.elapsed())
    };

    for page in ["/slow-index/", "/list/2003-June.txt"] {
        let address = format!("{}{page}", rogue.base);
        let ((read, _), took) = within(address.clone());
        let error = read.err().unwrap();
        assert!(
            error.contains(&address) && error.contains("took longer than 1 s to arrive"),
            "{error}"
        );
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    let ((read, summary), took) = within(format!("{}/list/", rogue.base));
    assert!(read.unwrap(), "an index");
    assert!(summary.messages_added > 0, "{summary:?}");
    let failed = the_one_failure(&summary);
    assert_eq!(failed[0].0, format!("{}/list/2003-June.txt", rogue.base));
    assert!(failed[0].1.contains("took longer than 1 s"), "{failed:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    // And the dripping answers were left, not waited on.
    rogue.sent_when_done();
}

/// An index's links to another host or port are not followed; a month's
/// redirect there was: it is refused, naming where it went, before
/// anything is asked of the other server. A redirect on the same host is
/// followed.
#[test]
fn a_redirect_off_the_archives_host_is_refused_and_named() {
    let (served, _list) = served_copy();
    let other_port = Server::start(served.path());
    let other_host = Server::start_on(served.path(), "127.0.0.2");
    let month = std::fs::read(repo_path(ARCHIVE).join("2003-May.txt.gz")).unwrap();
    let (port_base, host_base) = (other_port.base.clone(), other_host.base.clone());
    let rogue = Rogue::start(move |path, reply| match path {
        "/list/" => reply
            .page(b"<a href=\"2003-May.txt.gz\">a</a> <a href=\"/moved/2004-May.txt.gz\">b</a>"),
        "/list/2003-May.txt.gz" => reply.redirect(&format!("{port_base}/list/2003-May.txt.gz")),
        "/list/2004-May.txt.gz" => reply.redirect(&format!("{host_base}/list/2004-May.txt.gz")),
        "/moved/2004-May.txt.gz" => reply.redirect("/here/2004-May.txt.gz"),
        "/here/2004-May.txt.gz" => reply.page(&month),
        _ => reply.missing(),
    });
    let limits = pipermail::FetchLimits::default();
    for (path, to) in [
        ("/list/2003-May.txt.gz", &other_port.base),
        ("/list/2004-May.txt.gz", &other_host.base),
    ] {
        let address = format!("{}{path}", rogue.base);
        let error = format!("{:#}", import_within(&address, limits).0.err().unwrap());
        let went = format!("{to}{path}");
        assert!(
            error.contains(&format!(
                "{address}: the server redirects to {went}, off the archive's host"
            )),
            "{error}"
        );
    }

    let (read, summary) = import_within(&format!("{}/moved/2004-May.txt.gz", rogue.base), limits);
    assert!(!read.unwrap().index);
    assert!(summary.messages_added > 0, "{summary:?}");

    let (read, summary) = import_within(&format!("{}/list/", rogue.base), limits);
    assert_eq!(read.unwrap().months.len(), 2);
    assert!(summary.messages_added > 0, "{summary:?}");
    let failed = the_one_failure(&summary);
    assert_eq!(failed[0].0, format!("{}/list/2003-May.txt.gz", rogue.base));
    assert!(failed[0].1.contains(&other_port.base), "{failed:?}");
    assert!(other_port.seen().is_empty(), "{:?}", other_port.seen());
    assert!(other_host.seen().is_empty(), "{:?}", other_host.seen());
}

/// An address whose host is not ASCII is asked for by its ASCII form
/// (IDNA, lower-cased first). `url`'s Unicode tables come from the
/// `idna_adapter` that Cargo.toml pins; its stub release would refuse
/// such an address instead.
#[test]
fn an_address_with_a_non_ascii_host_is_asked_for_by_its_ascii_form() {
    let url = reqwest::Url::parse("http://bücher.example/pipermail/perf/").unwrap();
    assert_eq!(url.host_str(), Some("xn--bcher-kva.example"));
    let upper = reqwest::Url::parse("http://BÜCHER.example/").unwrap();
    assert_eq!(upper.host_str(), Some("xn--bcher-kva.example"));
}
