//! Crash safety: `benchlog ingest` killed with SIGKILL at random moments
//! of a bulk import, which stores many files per transaction, leaves a
//! sound database with no partial submission and every file it reported
//! as stored, and importing again gives the same contents as a clean
//! import.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, OpenFlags};

use crate::support::{parsed_counts, smack_log};

/// Logs in the import folder.
const LOGS: u64 = 300;

/// Files per transaction in the killed imports (`--batch`): small enough
/// that an import is many transactions, so kills land between them too.
const BATCH: u64 = 16;

/// For each submission (by the SHA-256 of its text): runs and results.
type Contents = BTreeMap<String, (usize, usize)>;

/// `benchlog ingest --batch BATCH`, its report of stored files written to
/// `out` (each line as it is printed) when given.
fn ingest(db: &Path, folder: &Path, out: Option<&Path>) -> std::process::Child {
    let stdout = match out {
        Some(path) => Stdio::from(std::fs::File::create(path).unwrap()),
        None => Stdio::null(),
    };
    Command::new(env!("CARGO_BIN_EXE_benchlog"))
        .arg("ingest")
        .arg("--batch")
        .arg(BATCH.to_string())
        .arg("--db")
        .arg(db)
        .arg(folder)
        .env("RUST_LOG", "warn")
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Checks the database as a crash left it (opened without migrating or
/// writing): sound, and every submission whole. Returns its contents.
fn check(db: &Path, what: &str) -> Contents {
    if !db.exists() {
        // Killed before it opened the database.
        return Contents::new();
    }
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok", "{what}");
    let has_schema: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'submissions'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    if has_schema == 0 {
        return Contents::new();
    }
    let mut stmt = conn
        .prepare(
            "SELECT s.sha256, s.text,
                    (SELECT count(*) FROM runs r WHERE r.submission_id = s.id),
                    (SELECT count(*) FROM results x JOIN runs r ON r.id = x.run_id
                      WHERE r.submission_id = s.id)
             FROM submissions s",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)? as usize,
                row.get::<_, i64>(3)? as usize,
            ))
        })
        .unwrap();
    let mut contents = Contents::new();
    for row in rows {
        let (sha256, text, runs, results) = row.unwrap();
        assert_eq!(
            (runs, results),
            parsed_counts(&text),
            "{what}: a partial submission ({sha256})"
        );
        contents.insert(sha256, (runs, results));
    }
    contents
}

/// xorshift64*: random enough for kill moments, and repeatable from the
/// printed seed.
struct Moments(u64);

impl Moments {
    fn next_below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
    }
}

fn kill_during_imports(iterations: usize) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("logs");
    std::fs::create_dir(&folder).unwrap();
    for seed in 0..LOGS {
        let text = smack_log(seed + 7_000_000, 1 + (seed % 4) as usize);
        std::fs::write(folder.join(format!("log-{seed:04}.txt")), text).unwrap();
    }

    let clean_db = dir.path().join("clean.db");
    let started = Instant::now();
    let status = ingest(&clean_db, &folder, None).wait().unwrap();
    let full_import = started.elapsed();
    assert!(status.success());
    let clean = check(&clean_db, "the clean import");
    assert_eq!(clean.len() as u64, LOGS);

    let seed = std::env::var("BENCHLOG_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("kill moments from BENCHLOG_KILL_SEED={seed}; a clean import takes {full_import:?}");
    let mut moments = Moments(seed);
    let mut partial_counts = Vec::new();
    let mut reported_counts = Vec::new();
    for iteration in 0..iterations {
        let db = dir.path().join(format!("killed-{iteration}.db"));
        let at = Duration::from_micros(moments.next_below(full_import.as_micros() as u64));
        let out = dir.path().join(format!("killed-{iteration}.out"));
        let mut child = ingest(&db, &folder, Some(&out));
        std::thread::sleep(at);
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let what = format!("iteration {iteration}, killed after {at:?}");
        let partial = check(&db, &what);
        // Every file reported as stored is, whole, under the number given.
        let stored = reported(&out);
        for (file, submission) in &stored {
            let text = std::fs::read_to_string(folder.join(file)).unwrap();
            let sha256 = benchlog::ingest::text_sha256(&text);
            assert!(
                partial.contains_key(&sha256),
                "{what}: {file} was reported stored as submission {submission}, and is not"
            );
        }
        reported_counts.push(stored.len());
        assert!(
            partial
                .iter()
                .all(|(sha, counts)| clean.get(sha) == Some(counts)),
            "{what}"
        );
        partial_counts.push(partial.len());

        // Importing again finishes the job.
        assert!(
            ingest(&db, &folder, None).wait().unwrap().success(),
            "{what}"
        );
        assert_eq!(check(&db, &what), clean, "{what}: the import converges");
    }
    println!("{iterations} kills; submissions stored when killed: {partial_counts:?}; reported: {reported_counts:?}");
    assert!(
        partial_counts.iter().any(|&n| n > 0 && (n as u64) < LOGS),
        "at least one kill landed mid-import: {partial_counts:?}"
    );
}

/// The files an import's output reports stored, with their submission
/// numbers: `…/log-0001.txt: submission 2 (…)`.
fn reported(out: &Path) -> Vec<(String, i64)> {
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let (path, rest) = line.split_once(": submission ")?;
            let file = Path::new(path).file_name()?.to_string_lossy().into_owned();
            let number = rest.split(' ').next()?.parse().ok()?;
            Some((file, number))
        })
        .collect()
}

#[test]
fn sigkill_during_a_bulk_import_leaves_whole_submissions_20_times() {
    kill_during_imports(20);
}
