//! Shared helpers: fresh databases and the fixtures.

use std::path::{Path, PathBuf};

use benchlog::web::AppState;
use rusqlite::Connection;
use tempfile::TempDir;

pub const SEED_000: &str = "fixtures/super-smack/seed-000-freebsd-mysql-smp.txt";

pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The text of seed 000, the main example mail.
pub fn seed_000() -> String {
    std::fs::read_to_string(repo_path(SEED_000)).expect("fixture seed 000 is readable")
}

/// A fresh database in its own temporary folder (kept alive by the TempDir).
pub fn fresh_db() -> (TempDir, PathBuf, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.db");
    let conn = benchlog::store::open(&path).unwrap();
    (dir, path, conn)
}

/// App state over a fresh database, as `serve` would build it.
pub fn test_state() -> (TempDir, PathBuf, AppState) {
    benchlog::charts::register_fonts();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.db");
    let state = AppState::open(&path, &repo_path("static")).unwrap();
    (dir, path, state)
}
