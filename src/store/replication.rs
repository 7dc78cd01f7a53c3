//! A database that Litestream replicates, and the read replicas it keeps
//! current (docs/replicas.md).
//!
//! On the primary, Litestream copies the write-ahead log's frames to its
//! replica before they are checkpointed into the database file, and it
//! checkpoints itself once they are copied. A checkpoint of ours racing
//! one of its own can restart the log under it, which costs it a new
//! snapshot of the whole database. So where Litestream replicates, it
//! alone checkpoints: SQLite's checkpoint at commit is off on every
//! connection and [`super::Checkpointer`] does nothing
//! ([`Checkpoints::Litestream`]). That is the case when the process was
//! told so (`--replicated`, [`leave_checkpoints_to_litestream`]) or when
//! the database holds the tables Litestream adds to the databases it
//! replicates.
//!
//! A replica is a copy `litestream restore -f` keeps current: opened
//! read-only, never migrated ([`open_replica`]). The primary's
//! [`beat`] every second tells it how far behind it is ([`last_beat`]).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::{
    must_exist, schema_version, schema_version_known, set_temp_store, StoreError, TempStore,
};
use crate::limits::{BUSY_TIMEOUT, STATEMENT_CACHE};

/// Who checkpoints a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoints {
    /// SQLite at commit, and [`super::Checkpointer`] after bulk writes.
    Ours,
    /// Litestream, which replicates it: never this process.
    Litestream,
}

/// Set once by `--replicated`: this process's databases are replicated.
static REPLICATED: AtomicBool = AtomicBool::new(false);

/// Leaves every checkpoint of the databases this process opens to
/// Litestream, from the next connection opened.
pub fn leave_checkpoints_to_litestream() {
    REPLICATED.store(true, Ordering::SeqCst);
}

/// The table Litestream adds to a database it replicates.
const LITESTREAM_TABLE: &str = "_litestream_seq";

impl Checkpoints {
    /// Who checkpoints the database `conn` is open on.
    pub fn of(conn: &Connection) -> rusqlite::Result<Checkpoints> {
        if REPLICATED.load(Ordering::SeqCst) {
            return Ok(Checkpoints::Litestream);
        }
        let replicated: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)",
            [LITESTREAM_TABLE],
            |row| row.get(0),
        )?;
        Ok(match replicated {
            true => Checkpoints::Litestream,
            false => Checkpoints::Ours,
        })
    }

    /// SQLite's `wal_autocheckpoint` for a connection: `pages` when the
    /// checkpoints are ours, 0 (none) when they are Litestream's.
    pub(crate) fn autocheckpoint(self, pages: i32) -> i32 {
        match self {
            Checkpoints::Ours => pages,
            Checkpoints::Litestream => 0,
        }
    }
}

/// Opens a read replica's database: a file that must be there, read-only
/// (Litestream writes it), not migrated, and at the schema version this
/// benchlog reads.
pub fn open_replica(path: &Path) -> Result<Connection, StoreError> {
    must_exist(path)?;
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    set_temp_store(&conn, TempStore::Memory)?;
    let (found, known) = (schema_version(&conn)?, schema_version_known());
    if found != known {
        return Err(StoreError::ReplicaSchema { found, known });
    }
    Ok(conn)
}

/// Makes the next read of `conn` (a replica's) read its pages from the
/// file: Litestream writes the pages a change brings straight into the
/// file, and tells SQLite only when the change holds the first page, so a
/// page kept from before may be stale. The pages come back from the
/// system's cache, a copy each.
pub fn forget_pages(conn: &Connection) {
    if let Err(error) = conn.release_memory() {
        tracing::warn!("emptying a replica's page cache: {error}");
    }
}

/// Makes the replica's file `path` one SQLite reads in rollback mode, as
/// Litestream leaves it after its first change to the first page: a
/// restored copy is in WAL mode, whose readers each hold a lock for as
/// long as they are open, and Litestream then waits for ever to write.
/// Only the journal mode in the file's header changes.
pub fn read_in_rollback_mode(path: &Path) -> Result<(), StoreError> {
    must_exist(path)?;
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String =
        conn.pragma_update_and_check(None, "journal_mode", "DELETE", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("delete") {
        tracing::warn!("the replica {} stays in {mode} mode", path.display());
    }
    Ok(())
}

/// Records that the primary is alive now.
pub fn beat(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO heartbeat (id, at_ms) VALUES (1, ?1)
         ON CONFLICT (id) DO UPDATE SET at_ms = excluded.at_ms",
    )?
    .execute([now_ms()])?;
    Ok(())
}

/// Milliseconds since the primary's last [`beat`] that this copy holds
/// (by this machine's clock), if it ever beat.
pub fn last_beat(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let at: Option<i64> = conn
        .prepare_cached("SELECT at_ms FROM heartbeat WHERE id = 1")?
        .query_row([], |row| row.get(0))
        .optional()?;
    Ok(at.map(|at| now_ms() - at))
}

/// A thread that [`beat`]s every `every` on a connection of its own, for
/// a primary that Litestream replicates; it stops when dropped.
pub struct Heartbeat {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts beating into the database at `path` (already open, so
    /// migrated).
    pub fn start(path: &Path, every: std::time::Duration) -> Result<Self, StoreError> {
        let conn = super::open_existing(path)?;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("heartbeat".to_owned())
            .spawn(move || loop {
                if let Err(error) = beat(&conn) {
                    tracing::warn!("writing the heartbeat: {error}");
                }
                match stopped.recv_timeout(every) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
                    Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                }
            })
            .map_err(StoreError::Thread)?;
        Ok(Heartbeat {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_litestream_replicates_is_checkpointed_by_it_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("primary.db");
        let conn = super::super::open(&path).unwrap();
        assert_eq!(Checkpoints::of(&conn).unwrap(), Checkpoints::Ours);
        let pages = |conn: &Connection| -> i64 {
            conn.pragma_query_value(None, "wal_autocheckpoint", |row| row.get(0))
                .unwrap()
        };
        assert!(pages(&conn) > 0);
        // What Litestream adds when it starts replicating.
        conn.execute_batch("CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)")
            .unwrap();
        assert_eq!(Checkpoints::of(&conn).unwrap(), Checkpoints::Litestream);
        let mut again = super::super::open_existing(&path).unwrap();
        assert_eq!(pages(&again), 0, "no checkpoint at commit");
        super::super::with_bulk_write(&mut again, |conn| {
            conn.execute_batch("CREATE TABLE bulk (x); INSERT INTO bulk VALUES (1);")
        })
        .unwrap();
        assert_eq!(pages(&again), 0, "none after a bulk write either");
    }

    #[test]
    fn a_replica_reads_the_primarys_beat_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("copy.db");
        let primary = super::super::open(&path).unwrap();
        let replica = open_replica(&path).unwrap();
        assert_eq!(last_beat(&replica).unwrap(), None);
        beat(&primary).unwrap();
        let since = last_beat(&replica).unwrap().expect("a beat");
        assert!((0..5_000).contains(&since), "{since} ms");
        let refused = replica.execute("DELETE FROM heartbeat", []);
        assert!(refused.is_err(), "a replica's connection is read-only");

        primary.pragma_update(None, "user_version", 1).unwrap();
        match open_replica(&path) {
            Err(StoreError::ReplicaSchema { found: 1, known }) => {
                assert_eq!(known, schema_version_known())
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
        assert!(matches!(
            open_replica(&dir.path().join("none.db")),
            Err(StoreError::Missing { .. })
        ));
    }
}
