//! Shared helpers: fresh databases and the fixtures.

use std::path::{Path, PathBuf};

use benchlog::web::{AppState, WebOptions};
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

/// The admin token of [`test_state`]'s server.
pub const ADMIN_TOKEN: &str = "test-admin-token-0123456789";

/// App state over a fresh database, as `serve` would build it, with
/// [`ADMIN_TOKEN`] as its admin token.
pub fn test_state() -> (TempDir, PathBuf, AppState) {
    test_state_with(WebOptions {
        admin_token: Some(ADMIN_TOKEN.to_owned()),
        ..WebOptions::default()
    })
}

/// App state over a fresh database with these options.
pub fn test_state_with(options: WebOptions) -> (TempDir, PathBuf, AppState) {
    benchlog::charts::register_fonts();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.db");
    let state = AppState::open_with(&path, &repo_path("static"), options).unwrap();
    (dir, path, state)
}
