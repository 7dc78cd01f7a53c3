//! The database failing on the server's side while serving: deleted,
//! replaced, read-only or full. Uploads get a 503 saying what is wrong and
//! that nothing was stored, /healthz says 503 with the reason, and both
//! recover when the condition goes away.

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::http::StatusCode;
use benchlog::store;
use benchlog::web::{AppState, WebOptions};
use rusqlite::{Connection, OpenFlags};

use crate::http::{get, post_form, read, send};
use crate::support::{repo_path, seed_000, smack_log, test_state, test_state_with};

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
    drop(state);

    // Served from the start read-only, as when the file came so.
    let state = AppState::open(&db, &repo_path("static")).unwrap();
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
