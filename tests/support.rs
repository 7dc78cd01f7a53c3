//! Shared helpers: fresh databases and the fixtures.

use std::path::{Path, PathBuf};

use benchlog::import::{self, pipermail, public_inbox, FileOutcome, ImportSummary};
use benchlog::intake::{MailFailure, PreparedMail};
use benchlog::web::state::AppState;
use benchlog::web::WebOptions;
use rusqlite::Connection;
use tempfile::TempDir;

pub const SEED_000: &str = "fixtures/super-smack/seed-000-freebsd-mysql-smp.txt";

pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The sql-bench fixtures the charts and tables of many kernels are
/// tested on: RUN files and logs of a dozen kernels and servers. Named
/// rather than read from the folder, so that fixtures added later (logs of
/// a hundred operations, more servers) do not change what those tests
/// draw.
pub const SQL_BENCH_KERNELS: &[&str] = &[
    "fixtures/sql-bench/quoted-wrapped-72-columns-summary.txt",
    "fixtures/sql-bench/real-arstercz-zh-proxysql-test-insert-repeated-operations.txt",
    "fixtures/sql-bench/real-results-insert-mysql-3.21-test-log-repeated-ranges-cpu-secs.txt",
    "fixtures/sql-bench/real-results-insert-mysql-4.0-test-log-repeated-select-in.txt",
    "fixtures/sql-bench/real-results-run-mysql-3.21-cpu-secs-integer-seconds.txt",
    "fixtures/sql-bench/real-results-run-mysql-nt4-crlf-benchmark-pm-zero-cpu.txt",
    "fixtures/sql-bench/real-results-run-mysql-odbc-win98-version-in-brackets.txt",
    "fixtures/sql-bench/real-results-run-pg-2000-estimated-marks-unknown-version.txt",
    "fixtures/sql-bench/real-results-select-pg-test-log-estimated-time-limit.txt",
    "fixtures/sql-bench/run-all-tests-5.0-unwrapped-failed-and-skipped.txt",
    "fixtures/sql-bench/run-file-pg-estimated-plus-marks.txt",
    "fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt",
    "fixtures/sql-bench/sql-bench-2.0-secs-and-cpu.txt",
    "fixtures/sql-bench/test-alter-table-log-named-by-first-message.txt",
    "fixtures/sql-bench/test-insert-log-time-for-lines.txt",
    "fixtures/sql-bench/total-time-line-missing-cpu-part.txt",
    "fixtures/sql-bench/truncated-per-operation-table.txt",
];

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
    let state = AppState::open_with(&path, options).unwrap();
    (dir, path, state)
}

/// A small log of `runs` super-smack runs, different for every `seed`:
/// what the load and crash tests store in bulk.
pub fn smack_log(seed: u64, runs: usize) -> String {
    let mut text = format!("Results of test series {seed}, as run on the lab machine.\n\n");
    for run in 0..runs {
        let clients = [1, 4, 10, 16, 30, 50, 100][(seed as usize + run) % 7];
        let qps = 1000.0 + (seed % 9973) as f64 * 1.37 + run as f64 * 11.5;
        text.push_str(&format!(
            "super-smack -d mysql select-key.smack {clients} 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from {clients} clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index {} 0 0 {qps:.2}\n\n",
            clients * 20000
        ));
    }
    text.push_str("-- \nsent from the lab\n");
    text
}

/// Counts of runs and results the parser finds in `text`.
pub fn parsed_counts(text: &str) -> (usize, usize) {
    let document = parsers::parse(text);
    let results = document.runs.iter().map(|run| run.results.len()).sum();
    (document.runs.len(), results)
}

/// Row counts of the database at `db`.
pub fn counts(db: &Path) -> benchlog::store::Counts {
    benchlog::store::counts(&benchlog::store::open(db).unwrap()).unwrap()
}

/// `bytes` gzipped, as an uploaded `.gz` holds them.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Imports the file at `path` as `benchlog ingest` imports a file of at
/// most `limit` bytes (through the one import): what became of it, its
/// counts added to `summary`.
pub fn import_file_within(
    conn: &mut Connection,
    path: &Path,
    limit: u64,
    summary: &mut ImportSummary,
) -> anyhow::Result<FileOutcome> {
    let mut files = import::Files::within(vec![path.to_path_buf()], limit);
    let imported = import::import(conn, &mut [&mut files], Default::default(), &mut ())?;
    summary.add(imported.summary);
    match imported.files.into_iter().next() {
        Some(done) => done.outcome.map_err(|why| anyhow::anyhow!(why)),
        None => anyhow::bail!("{} was not read", path.display()),
    }
}

/// [`import_file_within`] at the limit `benchlog ingest` reads a file to.
pub fn import_file(
    conn: &mut Connection,
    path: &Path,
    summary: &mut ImportSummary,
) -> anyhow::Result<FileOutcome> {
    import_file_within(conn, path, benchlog::limits::MAX_ARCHIVE_BYTES, summary)
}

/// Imports prepared messages (or why they could not be) as one input,
/// their counts added to `summary`.
pub fn import_mails(
    conn: &mut Connection,
    mails: Vec<Result<PreparedMail, MailFailure>>,
    summary: &mut ImportSummary,
) -> anyhow::Result<()> {
    let mut inputs = import::Inputs::mails(mails);
    let imported = import::import(conn, &mut [&mut inputs], Default::default(), &mut ())?;
    summary.add(imported.summary);
    Ok(())
}

/// Imports the public-inbox archive `inbox` from its marks, `batch_items`
/// a transaction, as `benchlog ingest` does; its counts added to
/// `summary`.
pub fn import_inbox(
    conn: &mut Connection,
    inbox: &public_inbox::Inbox,
    batch_items: usize,
    keep: public_inbox::KeepTexts,
    summary: &mut ImportSummary,
) -> anyhow::Result<public_inbox::InboxRead> {
    let start = public_inbox::Start::Mark;
    let mut epochs = public_inbox::Epochs::new(conn, inbox, start, keep, batch_items)?;
    let options = import::Options::in_batches(batch_items);
    let imported = import::import(conn, &mut [&mut epochs], options, &mut ())?;
    summary.add(imported.summary);
    epochs.finish()
}

/// Imports the archive at `address` within `limits`, as `benchlog ingest`
/// does; its counts added to `summary`.
pub fn import_url(
    conn: &mut Connection,
    address: &str,
    limits: pipermail::FetchLimits,
    summary: &mut ImportSummary,
) -> anyhow::Result<pipermail::UrlRead> {
    let mut months = pipermail::Months::fetch(conn, address, limits)?;
    let imported = import::import(conn, &mut [&mut months], Default::default(), &mut ())?;
    let read = months.read_of(&imported, 0);
    summary.add(imported.summary);
    Ok(read)
}

/// Imports one input read already, named `name`, as an upload's part is
/// imported: the submissions it is (new or stored already), in order.
pub fn import_input(conn: &mut Connection, name: &str, input: benchlog::intake::Input) -> Vec<i64> {
    /// Keeps the submissions as they are stored.
    struct Ids(Vec<i64>);
    impl import::Observer for Ids {
        fn stored(&mut self, _: &rusqlite::Transaction, id: i64) -> anyhow::Result<()> {
            self.0.push(id);
            Ok(())
        }
    }
    let mut inputs = import::Inputs::default();
    inputs.push(name.to_owned(), input, import::Title::Named);
    let mut ids = Ids(Vec::new());
    let options = import::Options {
        commit: import::Commit::AllOrNothing,
        checkpointer: None,
    };
    import::import(conn, &mut [&mut inputs], options, &mut ids).unwrap();
    ids.0
}

/// Stores the fixture at `relative` as one text, named by its file name.
pub fn ingest_fixture(conn: &mut Connection, relative: &str) -> benchlog::ingest::Ingested {
    let path = repo_path(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    benchlog::ingest::ingest_text(conn, Some(&name), &text).unwrap()
}
