//! Writing many submissions at once, and copying the write-ahead log back
//! into the database (a checkpoint) off the writer's way.
//!
//! SQLite checkpoints in the connection that commits, as soon as the log
//! holds [`CHECKPOINT_PAGES`] pages: the commit that ends a transaction of
//! many submissions (tens of thousands of pages) would also copy them all
//! into the database file and sync it before it returns. That is time a
//! 16 MB upload's answer waited for, and time the writer of `benchlog
//! ingest` stopped between batches. Bulk writers commit without it
//! ([`with_bulk_write`]) and hand it to a [`Checkpointer`]: a thread with
//! a connection of its own, which copies the pages while the writer goes
//! on. Its checkpoints are PASSIVE: they wait for no reader or writer, and
//! whatever a reader still needs stays in the log for the next one.
//! Where Litestream replicates the database, neither checkpoints: it
//! does ([`super::replication`]).

use std::cell::Cell;
use std::os::raw::c_int;
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::thread::JoinHandle;

use rusqlite::hooks::Wal;
use rusqlite::Connection;

use super::{set_temp_store, Checkpoints, StoreError, TempStore};

use crate::limits::CHECKPOINT_PAGES;

use crate::limits::BULK_CACHE_KIB;

thread_local! {
    /// Pages in the log after the last commit on this thread by a
    /// connection inside [`with_bulk_write`].
    static LOG_PAGES: Cell<c_int> = const { Cell::new(0) };
}

fn note_log_pages(_: &Wal, pages: c_int) -> rusqlite::Result<()> {
    LOG_PAGES.with(|log| log.set(pages));
    Ok(())
}

/// Runs `write` (transactions of many submissions) with a page cache of
/// [`BULK_CACHE_KIB`] and no checkpoint at commit, then gives the
/// connection its cache and its checkpoints at commit back as they were,
/// and has SQLite free the memory the cache held. Such a transaction
/// writes more pages than the default cache (2 MB) holds: past it, SQLite
/// writes dirty pages out early and reads them back. After each commit, `write`
/// calls [`Checkpointer::after_commit`] on the same thread.
pub fn with_bulk_write<T, E: From<rusqlite::Error>>(
    conn: &mut Connection,
    write: impl FnOnce(&mut Connection) -> Result<T, E>,
) -> Result<T, E> {
    let before: i64 = conn.pragma_query_value(None, "cache_size", |row| row.get(0))?;
    // As the connection was opened: none where Litestream checkpoints.
    let autocheckpoint: i64 =
        conn.pragma_query_value(None, "wal_autocheckpoint", |row| row.get(0))?;
    conn.pragma_update(None, "cache_size", BULK_CACHE_KIB)?;
    set_temp_store(conn, TempStore::File)?;
    // The hook takes the place of SQLite's own, which checkpoints.
    conn.wal_hook(Some(note_log_pages));
    let written = write(conn);
    conn.pragma_update(None, "wal_autocheckpoint", autocheckpoint)?;
    conn.pragma_update(None, "cache_size", before)?;
    set_temp_store(conn, TempStore::Memory)?;
    // What the write's cache grew to is given back now, not kept by the
    // connection while it waits in the pool.
    conn.release_memory()?;
    written
}

/// A thread that checkpoints the database when asked, with a connection
/// of its own. Dropping it lets a checkpoint under way finish.
pub struct Checkpointer {
    wake: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread, for the database at `path` (already open, so
    /// migrated).
    pub fn start(path: &Path) -> Result<Self, StoreError> {
        let conn = super::open_existing(path)?;
        // One request waiting is enough: it checkpoints everything
        // committed by the time it runs.
        let (wake, requests) = sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("checkpoint".to_owned())
            .spawn(move || {
                while requests.recv().is_ok() {
                    // Litestream checkpoints a database it replicates.
                    if let Ok(Checkpoints::Litestream) = Checkpoints::of(&conn) {
                        continue;
                    }
                    let done = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
                        Ok((row.get::<_, i64>(1)?, row.get::<_, i64>(2)?))
                    });
                    match done {
                        Ok((log, copied)) => tracing::debug!(log, copied, "checkpoint"),
                        Err(error) => tracing::warn!("checkpointing the database: {error}"),
                    }
                }
            })
            .map_err(StoreError::Thread)?;
        Ok(Checkpointer {
            wake: Some(wake),
            thread: Some(thread),
        })
    }

    /// Asks for a checkpoint if the commit just made on this thread, by a
    /// connection inside [`with_bulk_write`], left the log at
    /// [`CHECKPOINT_PAGES`] pages or more. Returns at once.
    pub fn after_commit(&self) {
        if LOG_PAGES.with(|log| log.replace(0)) < CHECKPOINT_PAGES {
            return;
        }
        if let Some(wake) = &self.wake {
            match wake.try_send(()) {
                Ok(()) | Err(TrySendError::Full(())) => {}
                Err(TrySendError::Disconnected(())) => {
                    tracing::warn!("the checkpoint thread has stopped")
                }
            }
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.wake = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_pages(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().len() / 4096
    }

    /// A bulk write's commit leaves its pages in the log; the checkpointer,
    /// asked after it, copies them into the database file; and the
    /// connection checkpoints at commit again afterwards.
    #[test]
    fn bulk_commits_are_checkpointed_by_the_checkpointer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bulk.db");
        let mut conn = super::super::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE filler (page BLOB)")
            .unwrap();
        let before = file_pages(&path);
        let checkpointer = Checkpointer::start(&path).unwrap();
        let rows = 2 * CHECKPOINT_PAGES;
        with_bulk_write(&mut conn, |conn| {
            let tx = conn.transaction()?;
            tx.execute(
                "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
                 INSERT INTO filler SELECT zeroblob(4000) FROM n",
                [rows],
            )?;
            tx.commit()?;
            // SQLite would have copied them at commit.
            assert!(
                file_pages(&path) < before + 100,
                "{} pages in the file after the commit, {before} before",
                file_pages(&path)
            );
            checkpointer.after_commit();
            Ok::<_, rusqlite::Error>(())
        })
        .unwrap();
        // Dropping it lets the checkpoint asked for finish.
        drop(checkpointer);
        assert!(
            file_pages(&path) >= before + rows as u64,
            "{} pages in the file after the checkpoint, {before} before",
            file_pages(&path)
        );
        let pages: i64 = conn
            .pragma_query_value(None, "wal_autocheckpoint", |row| row.get(0))
            .unwrap();
        assert_eq!(pages, i64::from(CHECKPOINT_PAGES));
    }

    /// A bulk write keeps its temporary tables and journals in a file, and
    /// gives the connection its in-memory temp store back after, with the
    /// stage made again (SQLite drops temporary tables on the switch);
    /// also when the write fails.
    #[test]
    fn bulk_writes_keep_temporary_things_in_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = super::super::open(&dir.path().join("temp.db")).unwrap();
        let temp_store = |conn: &Connection| -> i64 {
            conn.pragma_query_value(None, "temp_store", |row| row.get(0))
                .unwrap()
        };
        let staged = |conn: &Connection| -> i64 {
            conn.query_row("SELECT count(*) FROM temp.staged_run_attrs", [], |row| {
                row.get(0)
            })
            .unwrap()
        };
        // 1 is FILE, 2 MEMORY.
        assert_eq!(temp_store(&conn), 2);
        for fails in [false, true] {
            let written = with_bulk_write(&mut conn, |conn| {
                assert_eq!(temp_store(conn), 1, "in the write");
                assert_eq!(staged(conn), 0, "the stage is there, empty");
                if fails {
                    conn.execute_batch("SELECT * FROM no_such_table")?;
                }
                Ok::<_, rusqlite::Error>(())
            });
            assert_eq!(written.is_err(), fails);
            assert_eq!(temp_store(&conn), 2, "after the write (failing: {fails})");
            assert_eq!(staged(&conn), 0, "the stage is there again");
        }
    }

    /// A commit of a few pages asks for no checkpoint.
    #[test]
    fn small_commits_ask_for_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small.db");
        let mut conn = super::super::open(&path).unwrap();
        with_bulk_write(&mut conn, |conn| {
            conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")?;
            Ok::<_, rusqlite::Error>(())
        })
        .unwrap();
        assert!(LOG_PAGES.with(Cell::get) < CHECKPOINT_PAGES);
        assert!(LOG_PAGES.with(Cell::get) > 0, "the hook saw the commit");
    }
}
