//! Whether the database can still be used, and what SQLite's errors mean
//! for it: the server-side failures (a read-only or deleted file, a full
//! disk) that no request can fix, told apart from everything else.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, MAIN_DB};

use super::{StoreError, BUSY_TIMEOUT};

/// Why the database cannot be used right now, on the server's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error("the database is read-only")]
    ReadOnly,
    #[error("the disk is full")]
    DiskFull,
    #[error("the database file cannot be opened")]
    CannotOpen,
    #[error("reading or writing the database file failed")]
    Io,
    /// Writes would go to a file no longer reachable by its name, and be
    /// lost with it.
    #[error("the database file was deleted or moved away since the server opened it")]
    Gone,
    #[error("the database file was replaced by another one since the server opened it (restart the server to serve the new one)")]
    Replaced,
    /// SQLite found pages that make no sense: whatever is written now
    /// may be lost with them.
    #[error("the database file is damaged (restore it from a backup)")]
    Corrupt,
}

/// SQLite's extended code for a write to a database file that was renamed
/// or deleted since it was opened (SQLITE_READONLY_DBMOVED).
const READONLY_DBMOVED: std::ffi::c_int = 1032;

impl Unavailable {
    /// The server-side failure a SQLite error reports, if it is one.
    pub fn of_sqlite(error: &rusqlite::Error) -> Option<Self> {
        let rusqlite::Error::SqliteFailure(failure, _) = error else {
            return None;
        };
        match failure.code {
            ErrorCode::ReadOnly if failure.extended_code == READONLY_DBMOVED => {
                Some(Unavailable::Gone)
            }
            ErrorCode::ReadOnly | ErrorCode::PermissionDenied => Some(Unavailable::ReadOnly),
            ErrorCode::DiskFull => Some(Unavailable::DiskFull),
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Some(Unavailable::Corrupt),
            ErrorCode::CannotOpen => Some(Unavailable::CannotOpen),
            ErrorCode::SystemIoFailure => Some(Unavailable::Io),
            _ => None,
        }
    }

    /// The server-side failure behind an error, found anywhere in its
    /// chain of causes (uploads wrap SQLite's errors in context).
    pub fn in_chain<'a>(
        mut chain: impl Iterator<Item = &'a (dyn std::error::Error + 'static)>,
    ) -> Option<Self> {
        chain.find_map(|cause| {
            if let Some(found) = cause.downcast_ref::<Unavailable>() {
                return Some(*found);
            }
            if let Some(sqlite) = cause.downcast_ref::<rusqlite::Error>() {
                return Self::of_sqlite(sqlite);
            }
            // Its SQLite error is transparent: not a cause of its own.
            match cause.downcast_ref::<StoreError>()? {
                StoreError::Sqlite(sqlite) | StoreError::Migration { source: sqlite, .. } => {
                    Self::of_sqlite(sqlite)
                }
                StoreError::Missing { .. } => Some(Unavailable::Gone),
                StoreError::TooNew { .. }
                | StoreError::ReplicaSchema { .. }
                | StoreError::Thread(_) => None,
            }
        })
    }
}

/// The database file as it was when the server opened it, to tell later
/// whether its path still leads to it. SQLite keeps using the file it
/// opened even after it was deleted or replaced, so everything written
/// then would be lost.
///
/// Nothing here opens the file: closing any descriptor of a file drops
/// every POSIX lock the process holds on it, SQLite's included, and
/// another process would then take the server's write-ahead log for an
/// abandoned one and delete it while the server still writes into it.
/// Only `stat`, `access` and `statvfs` are used.
#[derive(Debug, Clone)]
pub struct DatabaseFile {
    path: PathBuf,
    identity: Option<FileIdentity>,
    /// The write-ahead log and its index beside the file when opened:
    /// they belong to the file opened, and to no file put at its path
    /// later.
    log: [(PathBuf, Option<FileIdentity>); 2],
}

/// The files SQLite keeps beside a database in WAL mode.
const LOG_SUFFIXES: [&str; 2] = ["-wal", "-shm"];

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn identity_at(path: &Path) -> Option<FileIdentity> {
    std::fs::metadata(path).ok().and_then(|m| identity(&m))
}

/// Device and inode: what stays the same for one file however it is
/// renamed, and differs for a new file at the same path.
type FileIdentity = (u64, u64);

#[cfg(unix)]
fn identity(metadata: &std::fs::Metadata) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    Some((metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<FileIdentity> {
    None
}

impl DatabaseFile {
    /// The file now at `path`, with its log (call it right after opening
    /// the database in WAL mode, while a connection keeps the log open).
    pub fn of(path: &Path) -> Self {
        DatabaseFile {
            path: path.to_owned(),
            identity: identity_at(path),
            log: LOG_SUFFIXES.map(|suffix| {
                let log = with_suffix(path, suffix);
                let found = identity_at(&log);
                (log, found)
            }),
        }
    }

    /// Removes the write-ahead log and its index of the file opened when
    /// that file is no longer at its path (deleted, or replaced by a
    /// restored copy) and they still are: SQLite does not checkpoint a
    /// moved file on close and leaves them there, and the next process to
    /// open the path would apply this file's log to the other file,
    /// showing the old data and destroying the new. Files that are not
    /// the ones seen at opening (a log that came with the new file) are
    /// left alone. What was in them belonged to the file taken away.
    pub fn remove_stale_log(&self) {
        if self.check().is_ok() {
            return;
        }
        for (log, opened) in &self.log {
            if opened.is_some() && identity_at(log) == *opened {
                match std::fs::remove_file(log) {
                    Ok(()) => tracing::warn!(
                        "removed {}: it belongs to the database file taken away from {}",
                        log.display(),
                        self.path.display()
                    ),
                    Err(error) => tracing::error!("removing {}: {error}", log.display()),
                }
            }
        }
    }

    /// Whether `path` is the database file or one SQLite keeps beside it
    /// (its log, its log's index, its rollback journal), however it is
    /// named: reading it as an input would open it outside SQLite, and
    /// closing it would drop the process's locks (see [`DatabaseFile`]).
    pub fn holds(&self, path: &Path) -> bool {
        let Some(wanted) = identity_at(path) else {
            return false;
        };
        self.identity == Some(wanted)
            || LOG_SUFFIXES
                .iter()
                .chain(&["-journal"])
                .any(|suffix| identity_at(&with_suffix(&self.path, suffix)) == Some(wanted))
    }

    /// Whether the path still leads to the file opened: one `stat`.
    pub fn check(&self) -> Result<(), Unavailable> {
        match std::fs::metadata(&self.path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(Unavailable::Gone),
            Err(_) => Err(Unavailable::CannotOpen),
            Ok(metadata) => match (self.identity, identity(&metadata)) {
                (Some(opened), Some(now)) if opened != now => Err(Unavailable::Replaced),
                _ => Ok(()),
            },
        }
    }

    /// Whether the file may be written now, as a new connection would
    /// find it: connections opened before it was made read-only could
    /// still write, so their success says nothing. Asked with `access`,
    /// never by opening the file (see [`DatabaseFile`]); `access` sees a
    /// mode, an immutable file and a read-only mount alike.
    pub fn check_writable(&self) -> Result<(), Unavailable> {
        use rustix::io::Errno;
        match rustix::fs::access(&self.path, rustix::fs::Access::WRITE_OK) {
            Ok(()) => Ok(()),
            Err(Errno::NOENT) => Err(Unavailable::Gone),
            Err(Errno::ACCESS | Errno::PERM | Errno::ROFS | Errno::TXTBSY) => {
                Err(Unavailable::ReadOnly)
            }
            Err(_) => Err(Unavailable::CannotOpen),
        }
    }

    /// Whether the file's file system has at least `min_free` bytes
    /// left for this process (`statvfs`): below that a write may fail
    /// half-way, and what watches the server should be told before.
    pub fn check_free_space(&self, min_free: u64) -> Result<(), Unavailable> {
        match rustix::fs::statvfs(&self.path) {
            Ok(fs) if fs.f_bavail.saturating_mul(fs.f_frsize) < min_free => {
                Err(Unavailable::DiskFull)
            }
            Ok(_) => Ok(()),
            Err(rustix::io::Errno::NOENT) => Err(Unavailable::Gone),
            Err(_) => Err(Unavailable::Io),
        }
    }
}

/// Why [`ping`] failed: a known server-side failure, or another error.
#[derive(Debug, thiserror::Error)]
pub enum PingError {
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    #[error("the database does not answer: {0}")]
    Failed(String),
}

impl From<rusqlite::Error> for PingError {
    fn from(error: rusqlite::Error) -> Self {
        match Unavailable::of_sqlite(&error) {
            Some(unavailable) => PingError::Unavailable(unavailable),
            None => PingError::Failed(error.to_string()),
        }
    }
}

impl From<StoreError> for PingError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Sqlite(sqlite) => sqlite.into(),
            other => PingError::Failed(other.to_string()),
        }
    }
}

/// Answers while the database can be read and written: the schema and
/// the data generation read, the page cap (`max_page_count`) not reached,
/// and a write transaction begun and rolled back, which fails on a
/// read-only database without writing anything. Another writer holding
/// the lock is no failure: it shows that the database takes writes.
pub fn ping(conn: &Connection) -> Result<(), PingError> {
    ping_read(conn)?;
    if conn.is_readonly(MAIN_DB)? {
        return Err(Unavailable::ReadOnly.into());
    }
    let pages = |pragma: &str| conn.pragma_query_value(None, pragma, |row| row.get::<_, i64>(0));
    if pages("freelist_count")? == 0 && pages("page_count")? >= pages("max_page_count")? {
        return Err(Unavailable::DiskFull.into());
    }
    conn.busy_timeout(Duration::ZERO)?;
    let probe = conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK");
    if !conn.is_autocommit() {
        conn.execute_batch("ROLLBACK")?;
    }
    conn.busy_timeout(BUSY_TIMEOUT)?;
    match probe {
        Err(error) if error.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => Ok(()),
        other => Ok(other?),
    }
}

/// What [`ping`] checks of a database only read (a replica's): its
/// schema and its data can be read.
pub fn ping_read(conn: &Connection) -> Result<(), PingError> {
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
        row.get::<_, i64>(0)
    })?;
    super::generation(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite_error(code: std::ffi::c_int) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    #[test]
    fn the_failure_is_found_however_it_is_wrapped() {
        let cases: [(anyhow::Error, Option<Unavailable>); 5] = [
            (
                anyhow::Error::new(sqlite_error(rusqlite::ffi::SQLITE_FULL))
                    .context("storing the submission"),
                Some(Unavailable::DiskFull),
            ),
            // StoreError's SQLite error is transparent: no cause of its own.
            (
                anyhow::Error::new(StoreError::Sqlite(sqlite_error(
                    rusqlite::ffi::SQLITE_CANTOPEN,
                )))
                .context("opening web.db"),
                Some(Unavailable::CannotOpen),
            ),
            (
                anyhow::Error::new(sqlite_error(READONLY_DBMOVED)),
                Some(Unavailable::Gone),
            ),
            (
                anyhow::Error::new(sqlite_error(rusqlite::ffi::SQLITE_READONLY)),
                Some(Unavailable::ReadOnly),
            ),
            (
                anyhow::Error::new(sqlite_error(rusqlite::ffi::SQLITE_CONSTRAINT))
                    .context("storing run 1"),
                None,
            ),
        ];
        for (index, (error, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                Unavailable::in_chain(error.chain()),
                want,
                "case {index}: {error:#}"
            );
        }
    }
}
