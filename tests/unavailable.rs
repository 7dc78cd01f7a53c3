//! The database failing on the server's side while serving: deleted,
//! replaced, read-only or full. Uploads get a 503 saying what is wrong and
//! that nothing was stored, /healthz says 503 with the reason, and both
//! recover when the condition goes away.

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::http::StatusCode;
use benchlog::store;
use benchlog::web::state::AppState;
use benchlog::web::WebOptions;
use rusqlite::{Connection, OpenFlags};

use crate::http::{get, post_form, read, send};
use crate::support::{seed_000, smack_log, test_state, test_state_with};

async fn upload(state: &AppState, text: &str) -> (StatusCode, String) {
    read(send(state, post_form("/upload", &[("text", text)])).await).await
}

/// The counts, read without creating or changing the file.
fn counts(db: &Path) -> store::Counts {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    store::counts(&conn).unwrap()
}

fn assert_refused(what: &str, (status, body): (StatusCode, String), problem: &str) {
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{what}: {body}");
    assert!(
        body.contains(problem),
        "{what} should say {problem:?}: {body}"
    );
    assert!(body.contains("Nothing was stored"), "{what}: {body}");
}

fn remove_database(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut path = db.as_os_str().to_owned();
        path.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(path));
    }
}

#[tokio::test]
async fn a_deleted_or_replaced_database_file_is_refused_not_written_to() {
    let (_dir, db, state) = test_state();
    upload(&state, &smack_log(1, 2)).await;
    assert_eq!(get(&state, "/healthz").await.0, StatusCode::OK);

    remove_database(&db);
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("deleted or moved away"), "{body}");
    assert_eq!(body.lines().count(), 1, "one line: {body}");
    assert_refused("an upload", upload(&state, &seed_000()).await, "deleted");
    // Neither made a new, empty database in its place.
    assert!(!db.exists(), "a new database file was made");

    // Another database put at the path is not the one the server holds.
    drop(store::open(&db).unwrap());
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("replaced"), "{body}");
    assert_refused("an upload", upload(&state, &seed_000()).await, "replaced");
    assert_eq!(
        counts(&db),
        store::Counts::default(),
        "nothing stored in it"
    );
}

#[tokio::test]
async fn a_full_disk_refuses_the_upload_and_stores_nothing() {
    // Capped at the size the empty database has: any submission is more.
    let (_dir, db, state) = test_state_with(WebOptions {
        max_database_pages: Some(1),
        ..WebOptions::default()
    });
    assert_refused(
        "an upload",
        upload(&state, &seed_000()).await,
        "the disk is full",
    );
    assert_eq!(counts(&db), store::Counts::default());
    // The pages read still answer.
    assert_eq!(get(&state, "/runs").await.0, StatusCode::OK);
}

/// A file made read-only for this process and back: by its mode, or, for
/// root (whom modes do not stop), by the immutable attribute.
struct ReadOnly(PathBuf);

impl ReadOnly {
    /// None where this process cannot make a file read-only to itself.
    fn make(path: &Path) -> Option<ReadOnly> {
        let uid = Command::new("id").arg("-u").output().ok()?;
        let root = String::from_utf8_lossy(&uid.stdout).trim() == "0";
        let made = if root {
            Command::new("chattr")
                .arg("+i")
                .arg(path)
                .status()
                .is_ok_and(|s| s.success())
        } else {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o444)).is_ok()
        };
        made.then(|| ReadOnly(path.to_owned()))
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o644));
    }
}

#[tokio::test]
async fn a_read_only_database_gets_503_until_it_is_writable_again() {
    benchlog::charts::register_fonts();
    let (_dir, db, state) = test_state();
    upload(&state, &smack_log(2, 2)).await;
    let before = counts(&db);
    let Some(read_only) = ReadOnly::make(&db) else {
        eprintln!("skipped: this process cannot make a file read-only to itself");
        return;
    };
    // While serving: the connections kept may still write to the file
    // they opened, but /healthz tells.
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body, "unavailable: the database is read-only\n");
    assert_refused(
        "an upload through a connection kept from before",
        upload(&state, &seed_000()).await,
        "the database is read-only",
    );
    assert_eq!(counts(&db), before);
    drop(state);

    // Served from the start read-only, as when the file came so.
    let state = AppState::open(&db).unwrap();
    assert_eq!(
        get(&state, "/healthz").await.0,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_refused(
        "an upload",
        upload(&state, &seed_000()).await,
        "the database is read-only",
    );
    assert_eq!(counts(&db), before);
    assert_eq!(
        get(&state, "/runs").await.0,
        StatusCode::OK,
        "reading works"
    );

    drop(read_only);
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = upload(&state, &seed_000()).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    assert!(counts(&db).runs > before.runs);
}

/// The `sqlite3` command-line shell, a client in a process of its own as
/// an administrator's or a cron job's would be.
const SQLITE3: &str = "sqlite3";

/// Submissions as another process reads them, opening the file read-write
/// as the shell does and closing it again.
fn submissions_seen_by_another_process(shell: &str, db: &Path) -> String {
    let out = Command::new(shell)
        .arg(db)
        .arg("SELECT count(*) FROM submissions")
        .output()
        .unwrap_or_else(|e| panic!("running {shell}: {e} (apt-get install sqlite3)"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Closing any descriptor of a file drops all the process's POSIX locks
/// on it: a health check that opened the database file itself let the
/// next client to close take the server's log for abandoned, checkpoint
/// it and delete it while the server wrote on into it.
#[tokio::test]
#[ignore = "needs the sqlite3 shell (apt-get install sqlite3); .ci/run runs it"]
async fn a_health_check_leaves_the_servers_locks_to_another_sqlite_client() {
    let shell = SQLITE3;
    let (_dir, db, state) = test_state();
    upload(&state, &smack_log(1, 2)).await;
    assert_eq!(get(&state, "/healthz").await.0, StatusCode::OK);
    assert_eq!(submissions_seen_by_another_process(shell, &db), "1");
    assert!(
        beside(&db, "-wal").exists(),
        "the other client deleted the log the server is writing"
    );
    let (status, body) = upload(&state, &smack_log(2, 2)).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    assert_eq!(get(&state, "/healthz").await.0, StatusCode::OK);
    assert_eq!(
        submissions_seen_by_another_process(shell, &db),
        "2",
        "the acknowledged upload is in the file others read"
    );
}

/// A database put together elsewhere, closed, with no log of its own:
/// what a restored backup is.
fn replacement_with_seed_000(dir: &Path) -> (PathBuf, store::Counts) {
    let path = dir.join("restored.db");
    let mut conn = store::open(&path).unwrap();
    let text = seed_000();
    benchlog::ingest::ingest_document(&mut conn, None, &text, &parsers::parse(&text)).unwrap();
    let counts = store::counts(&conn).unwrap();
    drop(conn);
    assert!(!beside(&path, "-wal").exists());
    (path, counts)
}

/// After `mv restored.db web.db` under a running server, the server's
/// log was left beside the new file (SQLite does not checkpoint a moved
/// file on close) and the next server applied it to the restored file.
#[tokio::test]
async fn a_file_replaced_while_serving_is_refused_and_survives_the_restart() {
    let (dir, db, state) = test_state();
    upload(&state, &smack_log(1, 3)).await;
    let (restored, restored_counts) = replacement_with_seed_000(dir.path());
    std::fs::rename(&restored, &db).unwrap();

    for page in ["/", "/runs", "/compare?tool=super-smack"] {
        let (status, body) = get(&state, page).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{page}: {body}");
        assert!(body.contains("replaced"), "{page}: {body}");
    }
    assert_refused(
        "an upload",
        upload(&state, &smack_log(2, 2)).await,
        "replaced",
    );
    assert!(
        !beside(&db, "-wal").exists() && !beside(&db, "-shm").exists(),
        "the old file's log is still beside the new one"
    );
    drop(state);

    let state = AppState::open(&db).unwrap();
    assert_eq!(counts(&db), restored_counts, "the restored file as it was");
    let (status, body) = upload(&state, &smack_log(3, 2)).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    let after = counts(&db);
    assert_eq!(after.submissions, restored_counts.submissions + 1);
    assert_eq!(after.runs, restored_counts.runs + 2);
}

/// The disk below the free space kept (here: more than any disk has)
/// shows on `/healthz` and refuses uploads before a write fails half-way.
#[tokio::test]
async fn a_disk_nearly_full_is_reported_and_refuses_uploads() {
    let (_dir, db, state) = test_state_with(WebOptions {
        min_free_disk_bytes: u64::MAX,
        ..WebOptions::default()
    });
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body, "unavailable: the disk is full\n");
    assert_refused(
        "an upload",
        upload(&state, &seed_000()).await,
        "the disk is full",
    );
    assert_eq!(counts(&db), store::Counts::default());
}

#[tokio::test]
async fn a_database_at_its_page_cap_is_reported_full() {
    let (_dir, _db, state) = test_state_with(WebOptions {
        max_database_pages: Some(1),
        ..WebOptions::default()
    });
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body, "unavailable: the disk is full\n");
}

/// Damage in pages no request reads (here the root of the results table)
/// is found by the check the server runs when it starts; then `/healthz`
/// says so and uploads are refused rather than put beside it.
#[tokio::test]
async fn a_damaged_file_is_reported_and_refuses_uploads() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("damaged.db");
    let (restored, _) = replacement_with_seed_000(dir.path());
    std::fs::rename(&restored, &db).unwrap();
    {
        use std::io::{Seek, SeekFrom, Write};
        let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let root: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'results'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let page_size: i64 = conn
            .query_row("PRAGMA page_size", [], |row| row.get(0))
            .unwrap();
        drop(conn);
        let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        file.seek(SeekFrom::Start(((root - 1) * page_size) as u64))
            .unwrap();
        file.write_all(&vec![0x5a; page_size as usize]).unwrap();
    }
    let submissions = |db: &Path| -> i64 {
        Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .query_row("SELECT count(*) FROM submissions", [], |row| row.get(0))
            .unwrap()
    };
    let before = submissions(&db);

    let state = AppState::open(&db).unwrap();
    state.verify_in_background().join().unwrap();
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("damaged"), "{body}");
    assert_refused(
        "an upload",
        upload(&state, &smack_log(4, 2)).await,
        "damaged",
    );
    assert_eq!(submissions(&db), before);
}

#[tokio::test]
async fn edits_and_undos_of_a_database_made_read_only_get_503_and_change_nothing() {
    let (_dir, db, state) = test_state();
    upload(&state, &seed_000()).await;
    let sent = |path: &'static str, pairs: &'static [(&'static str, &'static str)]| {
        let state = state.clone();
        async move { read(send(&state, crate::http::edit_form(path, pairs)).await).await }
    };
    // One edit first, so there is something to undo.
    let label_x: &[(&str, &str)] = &[("run", "1"), ("label", "x")];
    assert_eq!(
        sent("/submissions/1/edit", label_x).await.0,
        StatusCode::SEE_OTHER
    );
    let labels = || {
        let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut stmt = conn
            .prepare("SELECT coalesce(label, '') FROM runs ORDER BY id")
            .unwrap();
        let labels: Vec<String> = stmt
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        labels
    };
    let before = labels();
    let Some(_read_only) = ReadOnly::make(&db) else {
        eprintln!("skipped: this process cannot make a file read-only to itself");
        return;
    };
    // The connections kept from before could still write to the file
    // they opened: the edit and the undo are refused before they would.
    for (what, path, pairs) in [
        (
            "an edit",
            "/submissions/1/edit",
            &[("run", "1"), ("label", "y")][..],
        ),
        (
            "an undo",
            "/submissions/1/undo",
            &[("run", "1"), ("field", "label")][..],
        ),
    ] {
        assert_refused(what, sent(path, pairs).await, "the database is read-only");
    }
    assert_eq!(labels(), before);
}

/// Bytes free for this process on the disk holding `dir`.
fn free_bytes(dir: &Path) -> u64 {
    let fs = rustix::fs::statvfs(dir).unwrap();
    fs.f_bavail * fs.f_frsize
}

/// `len` bytes no compressor can shrink (xorshift), different for every
/// `seed`: an answer whose gzip copy is as large as itself.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Answers kept on disk (comparisons over 8 MiB) asked for until no more
/// fit leave the uploads room above `--min-free-disk-mb`: the disk then
/// taking 30 MiB more, a paste is stored and `/healthz` answers 200; and
/// when the disk goes below the floor, the kept files are dropped before
/// anyone is told it is full.
#[tokio::test]
async fn answers_kept_on_disk_leave_room_for_uploads() {
    const MIB: u64 = 1 << 20;
    let headroom = benchlog::limits::DISK_CACHE_HEADROOM_BYTES;
    // The uploads' floor 60 MiB under the cache's own, both below what is
    // free now; on a memory file system where there is one, which nothing
    // else writes to, so that its free space moves only with this test.
    let margin = headroom + 60 * MIB;
    let dir = tempfile::tempdir_in("/dev/shm")
        .ok()
        .filter(|dir| free_bytes(dir.path()) > margin + 512 * MIB)
        .unwrap_or_else(|| tempfile::tempdir().unwrap());
    benchlog::charts::register_fonts();
    let db = dir.path().join("web.db");
    let min_free = free_bytes(dir.path()) - margin;
    let state = AppState::open_with(
        &db,
        WebOptions {
            min_free_disk_bytes: min_free,
            ..WebOptions::default()
        },
    )
    .unwrap();
    let above_floor = || free_bytes(dir.path()) as i64 - min_free as i64;

    // Twelve distinct answers of 9 MiB, each in two files of as much:
    // more than the room there is.
    let each = benchlog::limits::DISK_ANSWER_BYTES + MIB;
    for n in 0..12 {
        let body = noise(each as usize, n);
        state
            .answer(format!("/compare.json?n={n}"), move |_| {
                Ok(benchlog::web::Answer::new("application/json", body))
            })
            .await
            .unwrap();
    }
    let kept_room = above_floor();
    assert!(
        kept_room >= headroom as i64,
        "the answers kept left {} MiB above the uploads' floor",
        kept_room >> 20
    );
    assert!(
        kept_room < margin as i64,
        "no answer was kept on disk: nothing was tested"
    );

    // The database and its log grow by 30 MiB meanwhile; a paste comes.
    let filler = dir.path().join("other");
    std::fs::write(&filler, vec![1; 30 * MIB as usize]).unwrap();
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = upload(&state, &seed_000()).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    assert_eq!(counts(&db).submissions, 1);

    // Something else fills the disk to under the floor: the kept answers
    // go before anyone is told the disk is full.
    let short = above_floor() + 8 * MIB as i64;
    std::fs::write(dir.path().join("more"), vec![1; short as usize]).unwrap();
    assert!(above_floor() < 0);
    let (status, body) = get(&state, "/healthz").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(above_floor() > 0);
    let (status, body) = upload(&state, &smack_log(1, 2)).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    assert_eq!(counts(&db).submissions, 2);
}
