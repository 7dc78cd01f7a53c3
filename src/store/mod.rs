//! The results database: opening and migrating it, and plain synchronous
//! functions over `&Connection` / `&Transaction`. The schema lives only in
//! `migrations/`; this module knows rows, not the parsers' types (that
//! bridge is `crate::ingest`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

mod archived;
mod backup;
mod browse;
mod checkpoint;
mod compare;
mod edits;
mod export;
mod health;
mod like;
mod mail;
mod marks;
mod replication;
mod rows;
mod submissions;
mod sums;
mod tokens;
mod writer;

pub use archived::{
    archived_text, holds_findings, insert_archived_text, mark_wanted, restore_text, wanted_texts,
    ArchivedText, WantedText,
};
pub use backup::backup;
pub use browse::{
    attr_keys, fts_query, messages_in_lines, messages_of_submission, ready_groups, search_runs,
    search_submissions, submission_count, submissions_by_ids, tool_counts, RunGroup, RunListing,
    RunPage, RunSearch, RunsFrom, StoredMessage, SubmissionSearch, ToolCount,
};
pub use checkpoint::{with_bulk_write, Checkpointer};
pub use compare::{
    choices, metric_rows, submission_dates, tool_attr_keys, tool_tests, CellSummary, Choices,
    Configuration, Configurations, MetricFilter, MetricRow, Place, SplitCopy,
};
pub use edits::{
    attr_counts_after, corrected_attr_keys, edits_in_lines, edits_of_submission, has_run_edit,
    run_places, set_run_field, set_run_fields, undo_run_edit, AttrCounts, Correction, RunEdit,
    RunField, RunPlace,
};
pub use export::{export_rows, ExportFilter, ExportRow};
pub use health::{ping, ping_read, DatabaseFile, PingError, Unavailable};
pub use like::{like_points, run_by_id, runs_of_results, LikePoint, LikePoints, RunOf};
pub use mail::{
    copy_keys_of_fingerprints, find_mail_by_message_id, find_mail_by_raw_sha256, insert_mail,
    insert_run_fingerprints, quotes_of_submission, thread, thread_length, thread_of_message_id,
    thread_of_submission, KnownMails, MailRef, NewMail, StoredQuote, Thread, ThreadMail, ThreadRun,
};
pub use marks::{
    archive_mark, set_archive_mark, set_url_mark, url_mark, url_marks, ArchiveMark, UrlMark,
};
pub use replication::{
    beat, forget_pages, last_beat, leave_checkpoints_to_litestream, open_replica,
    read_in_rollback_mode, Checkpoints, Heartbeat,
};
pub use rows::{
    describe_runs, StoredLabelSource, StoredResult, StoredRun, Submission, SubmissionHead,
    SubmissionSummary,
};
// Not the stage of the runs' attributes: only a finished write stores it
// (see `writer`).
pub use submissions::{
    deleted_since, find_submission_by_sha256, get_submission, get_submission_head,
    holds_submissions, insert_message, insert_result, insert_results, insert_run, insert_run_attr,
    insert_run_attrs, insert_runs, insert_submission, insert_unparsed, label_blocks_in_lines,
    list_submissions, newest_submission_id, runs_in_lines, runs_of_submission, runs_per_message,
    submission_counts, text_window, unparsed_in_lines, unparsed_of_submission, LabelBlock,
    LineWindow, NewAttr, NewLabelSource, NewMessage, NewResult, NewRun, NewSubmission,
    StoredUnparsed, SubmissionCounts, TextWindow,
};
pub use sums::{delete_submission, linked_results, point_cells, Cell, LinkedResult, FIRST_RESULTS};
pub use tokens::{edit_token_of, insert_edit_token, max_submission_id};
pub use writer::{Finished, Writer};

/// Adds to a configuration's pairs (sorted by key) the pair that ties it
/// to its post, `(POST_KEY, post)`, where
/// [`parsers::contract::configuration_post`] says its attributes do not
/// state its setup. `post` is the run's submission, or for a quoted copy
/// (a reply quoting a report stored before) its original's: see
/// [`RUN_POST_SQL`].
pub(crate) fn tie_to_post<T>(
    pairs: &mut Vec<T>,
    key_of: impl Fn(&T) -> &str,
    post: i64,
    pair: impl FnOnce(&'static str, String) -> T,
) {
    use parsers::contract::{configuration_post, POST_KEY};
    if let Some(post) = configuration_post(pairs.iter().map(&key_of), post) {
        let at = pairs.partition_point(|p| key_of(p) < POST_KEY);
        pairs.insert(at, pair(POST_KEY, post.to_string()));
    }
}

/// The post of a run as [`tie_to_post`] takes it, as SQL over a row of
/// `runs` named `r`: its own submission; for a copy quoted in a reply,
/// the submission of the run it quotes while that is stored (the reply
/// repeats that post's run, and so stays in its configuration). A copy
/// not quoted is its poster's own run. Two look-ups by id, for copies
/// only.
pub(crate) const RUN_POST_SQL: &str = "CASE WHEN r.copy_key IS NULL THEN r.submission_id \
     ELSE (SELECT CASE WHEN c.quote_depth = 0 THEN c.submission_id \
           ELSE coalesce((SELECT o.submission_id FROM runs o WHERE o.id = c.copy_key), \
                         c.submission_id) END \
           FROM runs c WHERE c.id = r.id) END";

/// The migrations, in order. Entry `i` moves a database from
/// `user_version = i` to `i + 1`. Never edit one that has landed; add a new one.
const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../../migrations/0001_init.sql")),
    (
        "0002_edits_and_search",
        include_str!("../../migrations/0002_edits_and_search.sql"),
    ),
    (
        "0003_mail_threads",
        include_str!("../../migrations/0003_mail_threads.sql"),
    ),
    (
        "0004_edit_tokens",
        include_str!("../../migrations/0004_edit_tokens.sql"),
    ),
    (
        "0005_data_generation",
        include_str!("../../migrations/0005_data_generation.sql"),
    ),
    (
        "0006_browse_indexes",
        include_str!("../../migrations/0006_browse_indexes.sql"),
    ),
    (
        "0007_choice_indexes",
        include_str!("../../migrations/0007_choice_indexes.sql"),
    ),
    (
        "0008_no_reused_ids",
        include_str!("../../migrations/0008_no_reused_ids.sql"),
    ),
    (
        "0009_pinned_links",
        include_str!("../../migrations/0009_pinned_links.sql"),
    ),
    (
        "0010_bulk_ingest_triggers",
        include_str!("../../migrations/0010_bulk_ingest_triggers.sql"),
    ),
    (
        "0011_compare_covering_indexes",
        include_str!("../../migrations/0011_compare_covering_indexes.sql"),
    ),
    (
        "0012_run_copies",
        include_str!("../../migrations/0012_run_copies.sql"),
    ),
    (
        "0013_point_sums",
        include_str!("../../migrations/0013_point_sums.sql"),
    ),
    (
        "0014_archive_marks",
        include_str!("../../migrations/0014_archive_marks.sql"),
    ),
    (
        "0015_archived_texts",
        include_str!("../../migrations/0015_archived_texts.sql"),
    ),
    (
        "0016_url_marks",
        include_str!("../../migrations/0016_url_marks.sql"),
    ),
    (
        "0017_unused_configs",
        include_str!("../../migrations/0017_unused_configs.sql"),
    ),
    (
        "0018_run_label_sources",
        include_str!("../../migrations/0018_run_label_sources.sql"),
    ),
    (
        "0019_configuration_posts",
        include_str!("../../migrations/0019_configuration_posts.sql"),
    ),
    (
        "0020_heartbeat",
        include_str!("../../migrations/0020_heartbeat.sql"),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error("the database is at schema version {found}, newer than this benchlog knows ({known}); use a newer benchlog")]
    TooNew { found: i64, known: i64 },
    #[error("no database at {}", path.display())]
    Missing { path: PathBuf },
    #[error("starting a database thread: {0}")]
    Thread(std::io::Error),
    #[error("the replica's database is at schema version {found}, and this benchlog reads version {known}: run the same benchlog as the primary, and let its first start migrate the primary")]
    ReplicaSchema { found: i64, known: i64 },
    #[error("migration {name} failed: {source}")]
    Migration {
        name: &'static str,
        source: rusqlite::Error,
    },
}

/// Opens (creating if needed) the database at `path` and brings its schema
/// up to date.
pub fn open(path: &Path) -> Result<Connection, StoreError> {
    let mut conn = Connection::open(path)?;
    configure(&conn)?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// Like [`open`], but fails (SQLITE_CANTOPEN) where there is no database
/// file: for more connections to a database already open, which must not
/// make a new, empty one when the file was deleted.
pub fn open_existing(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::default() - OpenFlags::SQLITE_OPEN_CREATE;
    let mut conn = Connection::open_with_flags(path, flags)?;
    configure(&conn)?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// [`StoreError::Missing`] unless there is a file at `path`: what opens
/// only a database already there checks first, so that a mistyped path
/// is refused, never made into an empty database.
pub(crate) fn must_exist(path: &Path) -> Result<(), StoreError> {
    if path.is_file() {
        Ok(())
    } else {
        Err(StoreError::Missing {
            path: path.to_owned(),
        })
    }
}

/// Like [`open`] for a database that must already be there (what a
/// command only reads): a path with no file is [`StoreError::Missing`],
/// never a new, empty database.
pub fn open_existing_file(path: &Path) -> Result<Connection, StoreError> {
    must_exist(path)?;
    open_existing(path)
}

/// Caps the database at `pages` pages for this connection (never below
/// its size now): writes that would grow it further fail as on a full
/// disk.
pub fn cap_pages(conn: &Connection, pages: u64) -> rusqlite::Result<()> {
    conn.pragma_update(None, "max_page_count", pages as i64)
}

/// Opens the database at `path` as it is: never creates one (a mistyped
/// path is refused, not made into an empty database) and never migrates
/// (a copy taken before an upgrade keeps the schema it had).
pub fn open_as_is(path: &Path) -> Result<Connection, StoreError> {
    must_exist(path)?;
    // Without SQLITE_OPEN_CREATE, in case the file goes in the meantime.
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

use crate::limits::{BUSY_TIMEOUT, STATEMENT_CACHE};

/// Settings every connection needs. WAL lets the dashboard read while an
/// ingest writes; the busy timeout makes concurrent writers wait instead of
/// failing at once.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Switching a new file to WAL needs an exclusive lock, and SQLite can
    // answer SQLITE_BUSY here without calling the busy handler (when two
    // processes create the same file at once, one of them did): wait for
    // the other as the busy timeout would have.
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        // journal_mode answers with the mode now in force, hence the _and_check.
        match conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
        {
            Ok(_) => break,
            Err(error) if is_busy(&error) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(error) => return Err(error),
        }
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Where Litestream replicates, it alone checkpoints.
    let pages = Checkpoints::of(conn)?.autocheckpoint(crate::limits::CHECKPOINT_PAGES);
    conn.pragma_update(None, "wal_autocheckpoint", pages)?;
    // Storing a submission uses more distinct statements than rusqlite
    // keeps by default (16): past that each is compiled again every time.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    set_temp_store(conn, TempStore::Memory)
}

/// Where a connection keeps its temporary tables, sorts and statement
/// journals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TempStore {
    /// In memory: the pages' sorts and the stage of a small write.
    Memory,
    /// In a temporary file, past a little memory: a bulk write's stage and
    /// statement journals, which grow with what it writes.
    File,
}

/// Switches where `conn` keeps temporary things. SQLite drops every
/// temporary table when this changes, so the stage of
/// [`submissions`] is made again (empty: only a finished or rolled-back
/// write switches).
pub(crate) fn set_temp_store(conn: &Connection, store: TempStore) -> rusqlite::Result<()> {
    let mode = match store {
        TempStore::Memory => "MEMORY",
        TempStore::File => "FILE",
    };
    conn.pragma_update(None, "temp_store", mode)?;
    conn.execute_batch(submissions::CREATE_STAGED_RUN_ATTRS)
}

fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The schema version this build of benchlog writes.
pub fn schema_version_known() -> i64 {
    MIGRATIONS.len() as i64
}

/// The schema version recorded in the database (`PRAGMA user_version`).
pub fn schema_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Applies every migration the database has not seen yet, with their bumps
/// of `user_version`, in one transaction: a failed migration leaves the
/// database as it was.
///
/// Reading the version and migrating are two steps, and two processes
/// opening a new file at once would both migrate (the second failing, or
/// worse, recording a version its tables do not match). So the migrations
/// run under the write lock, which a second process waits for (busy
/// timeout), and the version is read again once the lock is held.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let known = schema_version_known();
    let check = |found: i64| {
        if found > known {
            Err(StoreError::TooNew { found, known })
        } else {
            Ok(found)
        }
    };
    // The common case, an up-to-date database, takes no write lock.
    if check(schema_version(conn)?)? == known {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = check(schema_version(&tx)?)?;
    for (version, (name, sql)) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tx.execute_batch(sql)
            .and_then(|()| tx.pragma_update(None, "user_version", version as i64 + 1))
            .map_err(|source| StoreError::Migration { name, source })?;
    }
    // The runs stored before the sums were kept (0013), or since they
    // were cleared to be rebuilt (0019), are added to them.
    sums::add_new_runs(&tx).map_err(|source| StoreError::Migration {
        name: "0013_point_sums",
        source,
    })?;
    tx.commit()?;
    Ok(())
}

/// The data generation: it changes with every committed change to what
/// the pages show (triggers keep it, whoever writes), and only then. Read
/// inside a transaction, it names the data that transaction sees.
pub fn generation(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT generation FROM data_generation WHERE id = 1")?
        .query_row([], |row| row.get(0))
}

/// Runs `read` on one snapshot of the data, and hands it the generation
/// that snapshot names ([`generation`]): whatever commits meanwhile,
/// `read` sees the data the generation stands for. The snapshot is a
/// read transaction, ended (rolled back: it wrote nothing) when `read`
/// returns.
pub fn read_snapshot<T, E: From<rusqlite::Error>>(
    conn: &mut Connection,
    read: impl FnOnce(i64, &Connection) -> Result<T, E>,
) -> Result<T, E> {
    let snapshot = conn.transaction()?;
    let generation = generation(&snapshot)?;
    read(generation, &snapshot)
}

/// Row counts of every table, for tests and the command line's summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub submissions: i64,
    pub messages: i64,
    pub runs: i64,
    pub run_attrs: i64,
    pub results: i64,
    pub unparsed: i64,
}

pub fn counts(conn: &Connection) -> rusqlite::Result<Counts> {
    conn.query_row(
        "SELECT (SELECT count(*) FROM submissions), (SELECT count(*) FROM messages),
                (SELECT count(*) FROM runs), (SELECT count(*) FROM run_attrs),
                (SELECT count(*) FROM results), (SELECT count(*) FROM unparsed)",
        [],
        |row| {
            Ok(Counts {
                submissions: row.get(0)?,
                messages: row.get(1)?,
                runs: row.get(2)?,
                run_attrs: row.get(3)?,
                results: row.get(4)?,
                unparsed: row.get(5)?,
            })
        },
    )
}
