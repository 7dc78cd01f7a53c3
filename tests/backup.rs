//! `benchlog backup`: a consistent copy taken while another connection
//! keeps writing, and while the server serves.

use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use benchlog::store;

use crate::support::{fresh_db, parsed_counts, smack_log};

fn backup(db: &std::path::Path, dest: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .arg("backup")
        .arg("--db")
        .arg(db)
        .arg(dest)
        .output()
        .unwrap()
}

/// Every submission of the copy is whole; returns how many there are.
fn check_copy(path: &std::path::Path) -> usize {
    // Open the copy read-only as it is: no migration, no WAL files.
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let journal: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(journal, "delete", "the copy is one self-contained file");
    let mut stmt = conn
        .prepare(
            "SELECT s.text,
                    (SELECT count(*) FROM runs r WHERE r.submission_id = s.id),
                    (SELECT count(*) FROM results x JOIN runs r ON r.id = x.run_id
                      WHERE r.submission_id = s.id)
             FROM submissions s",
        )
        .unwrap();
    let rows: Vec<(String, i64, i64)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (text, runs, results) in &rows {
        assert_eq!((*runs as usize, *results as usize), parsed_counts(text));
    }
    rows.len()
}

#[test]
fn a_backup_taken_while_a_writer_is_busy_is_consistent() {
    let (dir, db, mut conn) = fresh_db();
    for seed in 0..50 {
        benchlog::ingest::ingest_text(&mut conn, None, &smack_log(seed, 2)).unwrap();
    }
    drop(conn);

    // A writer storing submission after submission meanwhile.
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU64::new(0));
    let writer = {
        let (db, stop, written) = (db.clone(), stop.clone(), written.clone());
        std::thread::spawn(move || {
            let mut conn = store::open(&db).unwrap();
            let mut seed = 1000;
            while !stop.load(Ordering::Relaxed) {
                benchlog::ingest::ingest_text(&mut conn, None, &smack_log(seed, 3)).unwrap();
                written.fetch_add(1, Ordering::Relaxed);
                seed += 1;
            }
        })
    };
    while written.load(Ordering::Relaxed) < 5 {
        std::thread::yield_now();
    }
    let mut sizes = Vec::new();
    for n in 0..3 {
        let before = 50 + written.load(Ordering::Relaxed) as usize;
        let dest = dir.path().join(format!("copy-{n}.db"));
        let output = backup(&db, &dest);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let after = 50 + written.load(Ordering::Relaxed) as usize;
        let stored = check_copy(&dest);
        // A snapshot from some moment during the backup.
        assert!(
            (before..=after + 1).contains(&stored),
            "{before} <= {stored} <= {after}"
        );
        assert!(!dir.path().join(format!("copy-{n}.db.partial")).exists());
        sizes.push(stored);
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    println!("backups while writing held {sizes:?} submissions");

    // A backup never overwrites a file.
    let dest = dir.path().join("copy-0.db");
    let output = backup(&db, &dest);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("already exists"));
    assert_eq!(check_copy(&dest), sizes[0]);
}

#[test]
fn a_backup_of_a_served_database_opens_as_benchlog_database() {
    let server = crate::load::start_server(&[]);
    let dest = server.db.with_file_name("served-copy.db");
    let output = backup(&server.db, &dest);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(check_copy(&dest), 0);
    let conn = store::open(&dest).unwrap();
    assert_eq!(
        store::schema_version(&conn).unwrap(),
        store::schema_version_known()
    );
}

#[test]
fn a_backup_of_a_mistyped_database_is_refused_and_creates_nothing() {
    let (dir, db, conn) = fresh_db();
    drop(conn);
    let mistyped = db.with_file_name("tset.db");
    let dest = dir.path().join("copy.db");
    let output = backup(&mistyped, &dest);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("no database at {}", mistyped.display())),
        "{stderr}"
    );
    for path in [&mistyped, &dest] {
        assert!(!path.exists(), "{} was created", path.display());
    }
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with("test.db"))
        .collect();
    left.sort();
    assert_eq!(left, Vec::<String>::new(), "files left behind");
}
