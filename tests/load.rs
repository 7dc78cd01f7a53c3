//! The real server under load over HTTP on 127.0.0.1: 8 uploaders and 32
//! readers at once. No request may fail, and every upload must be found
//! afterwards. The normal suite runs it for 3 s; `cargo test --release --
//! --ignored stress_load_for_20_seconds` runs the full 20 s.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{header, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use crate::support::{parsed_counts, smack_log};

/// A `benchlog serve` on a free port, killed when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
    pub db: std::path::PathBuf,
    /// What it logged so far, line by line.
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills it with SIGKILL, at once.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Its exit status, if it exits within `within`.
    pub fn exit_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary on 127.0.0.1:0 and reads the address it listens on
/// from its log.
pub fn start_server(extra: &[&str]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("load.db");
    let mut command = Command::new(env!("CARGO_BIN_EXE_benchlog"));
    command.arg("serve").arg("--db").arg(&db).args(extra);
    start(command, dir, db)
}

/// Starts `command` (a `benchlog serve` or `demo`, given no `--listen`)
/// on 127.0.0.1:0 and reads the address it listens on from its log; `dir`
/// holds its database `db`.
pub fn start(mut command: Command, dir: tempfile::TempDir, db: std::path::PathBuf) -> Server {
    let mut child = command
        .args(["--listen", "127.0.0.1:0"])
        .env("NO_COLOR", "1")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (found, address) = std::sync::mpsc::channel();
    let log = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&log);
    std::thread::spawn(move || {
        let mut found = Some(found);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            kept.lock().unwrap().push(line.clone());
            if let Some(at) = line.find("serving http://") {
                let rest = &line[at + "serving http://".len()..];
                let addr = rest.split('/').next().unwrap_or("").to_owned();
                if let Some(found) = found.take() {
                    let _ = found.send(addr);
                }
            }
            // Keep reading so that the server never blocks on a full pipe.
        }
    });
    let addr = address
        .recv_timeout(Duration::from_secs(60))
        .expect("the server says where it listens")
        .parse()
        .unwrap();
    Server {
        child,
        addr,
        _dir: dir,
        db,
        log,
    }
}

pub type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

pub fn client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

/// Status, Location and body of one request.
pub async fn fetch(
    client: &HttpClient,
    request: Request<Full<Bytes>>,
) -> Result<(StatusCode, Option<String>, String), String> {
    let response = client.request(request).await.map_err(|e| e.to_string())?;
    let status = response.status();
    let location = response
        .headers()
        .get(header::LOCATION)
        .map(|l| l.to_str().unwrap().to_owned());
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok((
        status,
        location,
        String::from_utf8_lossy(&body).into_owned(),
    ))
}

pub fn get(addr: SocketAddr, path: &str) -> Request<Full<Bytes>> {
    Request::get(format!("http://{addr}{path}"))
        .body(Full::new(Bytes::new()))
        .unwrap()
}

pub fn upload(addr: SocketAddr, text: &str) -> Request<Full<Bytes>> {
    let body = serde_urlencoded::to_string([("text", text)]).unwrap();
    Request::post(format!("http://{addr}/upload"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

#[derive(Debug, Default)]
struct Tally {
    uploads: AtomicU64,
    reads: AtomicU64,
    errors: AtomicU64,
}

async fn run_load(seconds: u64) {
    let server = start_server(&["--uploads-per-minute", "0"]);
    let addr = server.addr;
    let client = client();
    let (status, _, _) = fetch(&client, upload(addr, &smack_log(0, 3)))
        .await
        .unwrap();
    assert_eq!(status, StatusCode::SEE_OTHER);

    let tally = Arc::new(Tally::default());
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut uploaders = Vec::new();
    for uploader in 0..8u64 {
        let (client, tally) = (client.clone(), tally.clone());
        uploaders.push(tokio::spawn(async move {
            let mut stored = Vec::new();
            let mut n = 0u64;
            while Instant::now() < deadline {
                n += 1;
                let seed = 1_000_000 * (uploader + 1) + n;
                let text = smack_log(seed, 1 + (n % 3) as usize);
                match fetch(&client, upload(addr, &text)).await {
                    Ok((StatusCode::SEE_OTHER, Some(location), _)) => {
                        tally.uploads.fetch_add(1, Ordering::Relaxed);
                        stored.push((location, seed, text));
                    }
                    other => {
                        tally.errors.fetch_add(1, Ordering::Relaxed);
                        eprintln!("upload {seed}: {other:?}");
                    }
                }
            }
            stored
        }));
    }
    let paths = [
        "/",
        "/submissions",
        "/submissions/1",
        "/runs",
        "/runs?tool=super-smack",
        "/compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads",
        "/compare.svg?tool=super-smack&item=select_index&metric=q_per_s&x=threads",
        "/compare.json?tool=super-smack&item=select_index&metric=q_per_s",
        "/submissions?q=lab",
        "/static/style.css",
        "/healthz",
    ];
    let mut readers = Vec::new();
    for reader in 0..32usize {
        let (client, tally) = (client.clone(), tally.clone());
        readers.push(tokio::spawn(async move {
            let mut n = reader;
            while Instant::now() < deadline {
                let path = paths[n % paths.len()];
                n += 1;
                match fetch(&client, get(addr, path)).await {
                    Ok((StatusCode::OK, _, _)) => {
                        tally.reads.fetch_add(1, Ordering::Relaxed);
                    }
                    other => {
                        tally.errors.fetch_add(1, Ordering::Relaxed);
                        eprintln!("GET {path}: {other:?}");
                    }
                }
            }
        }));
    }
    let mut stored = Vec::new();
    for uploader in uploaders {
        stored.extend(uploader.await.unwrap());
    }
    for reader in readers {
        reader.await.unwrap();
    }
    let (uploads, reads, errors) = (
        tally.uploads.load(Ordering::Relaxed),
        tally.reads.load(Ordering::Relaxed),
        tally.errors.load(Ordering::Relaxed),
    );

    // Every upload is there, with all its runs.
    let mut found = 0;
    for (location, seed, text) in &stored {
        let (status, _, page) = fetch(&client, get(addr, location)).await.unwrap();
        assert_eq!(status, StatusCode::OK, "{location}");
        let (runs, _) = parsed_counts(text);
        assert!(
            page.contains(&format!("test series {seed},"))
                && page.contains(&format!("Runs found ({runs})")),
            "{location} holds upload {seed}"
        );
        found += 1;
    }
    let conn = benchlog::store::open(&server.db).unwrap();
    // What lets 8 writers and 32 readers share the file: WAL, and writers
    // that wait for each other instead of failing.
    let journal: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    let busy: i64 = conn
        .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
        .unwrap();
    assert_eq!((journal.as_str(), busy), ("wal", 10_000));
    let submissions = benchlog::store::counts(&conn).unwrap().submissions;
    println!(
        "load for {seconds} s: {uploads} uploads, {reads} reads, {errors} errors; {found} of {} uploads found; {submissions} submissions stored",
        stored.len()
    );
    assert_eq!(errors, 0, "no request failed");
    assert!(uploads > 0 && reads > 0);
    assert_eq!(found, stored.len());
    assert_eq!(submissions as usize, stored.len() + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn load_for_3_seconds() {
    run_load(3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "stress: 20 s of load; run with --ignored stress_"]
async fn stress_load_for_20_seconds() {
    run_load(20).await;
}

/// `/healthz` and a page already made for the current data are answered
/// while page builds hold every database place: they take the light lane,
/// not the queue of `with_conn` (before, both waited for a place; 32
/// viewers of a large submission made them take over a second).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_kept_pages_do_not_wait_behind_page_builds() {
    use crate::http::get;
    let (_dir, path, state) = crate::support::test_state();
    let mut conn = benchlog::store::open(&path).unwrap();
    benchlog::ingest::ingest_text(&mut conn, None, &smack_log(1, 4)).unwrap();
    let kept = "/compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads";
    let (status, first) = get(&state, kept).await;
    assert_eq!(status, StatusCode::OK, "{first}");

    // Builds that hold every place (and more wait) until released.
    let mut release = Vec::new();
    let mut builds = Vec::new();
    for _ in 0..8 {
        let (done, wait) = std::sync::mpsc::channel::<()>();
        release.push(done);
        let state = state.clone();
        builds.push(tokio::spawn(async move {
            state
                .with_conn(move |_| {
                    let _ = wait.recv();
                    Ok(())
                })
                .await
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;

    let within = Duration::from_secs(2);
    let health = tokio::time::timeout(within, get(&state, "/healthz")).await;
    assert_eq!(
        health.expect("/healthz waited behind the builds"),
        (StatusCode::OK, "ok\n".to_owned())
    );
    let again = tokio::time::timeout(within, get(&state, kept)).await;
    let (status, again) = again.expect("the kept page waited behind the builds");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again, first);

    drop(release);
    for build in builds {
        build.await.unwrap().unwrap();
    }
}
