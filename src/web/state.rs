//! What every handler shares ([`AppState`]): where the database is, the
//! pooled connections to it and how work reaches them ([`AppState::with_conn`],
//! the light lane, the answers kept), the limits of uploads and edits, and
//! whether the file is still usable.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use rusqlite::Connection;

use super::{bodies, budget, cache, guard, light, review, upload};
use super::{Answer, AppError, Role, WebOptions};
use crate::limits::{self, BUSY_CONNECTIONS, IDLE_CONNECTIONS, PAGE_CACHE_KIB};
use crate::store;

/// What every handler shares: where the database is and a few open
/// connections to it.
#[derive(Clone)]
pub struct AppState {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) db_path: PathBuf,
    /// The file opened, to notice it deleted or replaced while serving.
    pub(super) db_file: store::DatabaseFile,
    /// Connections not in use, the one to take next last: those whose
    /// page cache is valid above those a commit has emptied (see
    /// [`AppState::with_conn`]).
    pub(super) idle: Mutex<Vec<Connection>>,
    /// Writes made through [`AppState::with_conn`] so far: a connection
    /// that began its work before the latest one kept no valid page cache.
    pub(super) writes: AtomicU64,
    pub(super) options: WebOptions,
    pub(super) upload_limiter: guard::RateLimiter,
    /// Submissions stored, per client: an archive counts each message.
    pub(super) submission_limiter: guard::RateLimiter,
    pub(super) edit_limits: review::EditLimits,
    /// KiB of request bodies being read or held by uploads, in all and
    /// per client ([`bodies`]).
    pub(super) upload_bodies: bodies::BodyBudget,
    /// Edit tokens of uploads committed after their client left, for
    /// its next try ([`upload::Unreceived`]).
    pub(super) unreceived: upload::Unreceived,
    /// Uploads at work: unpacking, decoding, parsing and storing
    /// ([`crate::limits::UPLOADS_AT_WORK`]).
    pub(super) upload_work: tokio::sync::Semaphore,
    /// SQL statements run for requests so far (see [`AppState::statements_run`]).
    pub(super) statements: AtomicU64,
    /// At most [`BUSY_CONNECTIONS`] pieces of database work at once: more
    /// would only queue for the CPU while each holds its own connection,
    /// page cache and half-built page (RSS grew to 900 MB with 32 at once).
    pub(super) busy: tokio::sync::Semaphore,
    /// Answers made at the current data generation, served again.
    pub(super) answers: cache::AnswerCache,
    /// `/healthz` and answers found in `answers`, on threads of their own.
    pub(super) light: light::LightLane,
    /// What large answers being sent hold.
    pub(super) answer_budget: Arc<budget::AnswerBudget>,
    /// What large answers sent from files, the budget being full, hold
    /// on disk.
    pub(super) spilled_budget: Arc<budget::AnswerBudget>,
    /// Copies what uploads wrote into the database file after they are
    /// answered (see store::checkpoint).
    /// None on a replica, whose copy Litestream writes.
    pub(super) checkpointer: Option<store::Checkpointer>,
    /// A replicated primary's ([`super::Role::Primary`]).
    pub(super) _heartbeat: Option<store::Heartbeat>,
    /// Set once SQLite reported the file damaged: from then on uploads
    /// are refused and `/healthz` says so, until the server is restarted
    /// on a repaired file.
    pub(super) corrupt: AtomicBool,
}

impl Drop for Inner {
    /// A file taken away while serving leaves its log behind (SQLite does
    /// not checkpoint a moved file): removed here, as the server stops,
    /// so that it is never applied to the file now at the path.
    fn drop(&mut self) {
        self.db_file.remove_stale_log();
    }
}

thread_local! {
    /// Statements started on this thread's connections; `with_conn` turns
    /// the difference around one piece of work into the state's count.
    pub(super) static STATEMENTS: Cell<u64> = const { Cell::new(0) };
}

fn count_statement(event: rusqlite::trace::TraceEvent<'_>) {
    if let rusqlite::trace::TraceEvent::Stmt(..) = event {
        STATEMENTS.with(|n| n.set(n.get() + 1));
    }
}

/// Opens a connection for the dashboard, counting the statements it runs.
/// Only the first may create the database: a later one finding no file
/// fails instead of serving a new, empty database.
pub(super) fn open_counted(
    db_path: &Path,
    options: &WebOptions,
    create: bool,
) -> Result<Connection, store::StoreError> {
    let conn = if let Role::Replica { .. } = options.role {
        store::open_replica(db_path)?
    } else if create {
        store::open(db_path)?
    } else {
        store::open_existing(db_path)?
    };
    if let Some(pages) = options.max_database_pages {
        store::cap_pages(&conn, pages)?;
    }
    // Negative: KiB rather than pages.
    conn.pragma_update(None, "cache_size", -PAGE_CACHE_KIB)?;
    conn.trace_v2(
        rusqlite::trace::TraceEventCodes::SQLITE_TRACE_STMT,
        Some(count_statement),
    );
    Ok(conn)
}

impl AppState {
    /// Opens (creating and migrating) the database and keeps the connection.
    pub fn open(db_path: &Path) -> Result<Self, store::StoreError> {
        Self::open_with(db_path, WebOptions::default())
    }

    /// [`AppState::open`] with limits and rights other than the defaults.
    pub fn open_with(db_path: &Path, options: WebOptions) -> Result<Self, store::StoreError> {
        if let Role::Replica { .. } = options.role {
            store::read_in_rollback_mode(db_path)?;
        }
        let conn = open_counted(db_path, &options, true)?;
        let checkpointer = match options.role {
            Role::Replica { .. } => None,
            Role::Alone | Role::Primary => Some(store::Checkpointer::start(db_path)?),
        };
        let heartbeat = match options.role {
            Role::Primary => Some(store::Heartbeat::start(db_path, limits::HEARTBEAT_EVERY)?),
            Role::Alone | Role::Replica { .. } => None,
        };
        let light = light::LightLane::start(db_path, &options)?;
        let answers = cache::AnswerCache::new(db_path, options.min_free_disk_bytes);
        Ok(AppState {
            inner: Arc::new(Inner {
                db_path: db_path.to_owned(),
                db_file: store::DatabaseFile::of(db_path),
                idle: Mutex::new(vec![conn]),
                upload_limiter: guard::RateLimiter::per_minute(options.uploads_per_minute),
                submission_limiter: guard::RateLimiter::per_minute(options.submissions_per_minute),
                edit_limits: review::EditLimits::new(&options),
                upload_bodies: bodies::BodyBudget::new(
                    limits::BODY_BUDGET_KIB,
                    limits::CLIENT_BODY_KIB,
                ),
                upload_work: tokio::sync::Semaphore::new(crate::limits::UPLOADS_AT_WORK),
                unreceived: upload::Unreceived::default(),
                options,
                statements: AtomicU64::new(0),
                writes: AtomicU64::new(0),
                busy: tokio::sync::Semaphore::new(BUSY_CONNECTIONS),
                answers,
                light,
                answer_budget: Arc::new(budget::AnswerBudget::new(
                    limits::ANSWER_BUDGET_BYTES,
                    limits::CLIENT_ANSWER_BYTES,
                )),
                spilled_budget: Arc::new(budget::AnswerBudget::new(
                    limits::SPILLED_ANSWER_BYTES,
                    limits::SPILLED_ANSWER_BYTES / 4,
                )),
                checkpointer,
                _heartbeat: heartbeat,
                corrupt: AtomicBool::new(false),
            }),
        })
    }

    pub fn options(&self) -> &WebOptions {
        &self.inner.options
    }

    fn is_replica(&self) -> bool {
        self.primary_url().is_some()
    }

    /// On a read replica, the primary's address.
    pub(super) fn primary_url(&self) -> Option<&str> {
        match &self.inner.options.role {
            Role::Replica { primary_url } => Some(primary_url),
            Role::Alone | Role::Primary => None,
        }
    }

    /// On a replica, what `/healthz` says of it beside "ok"
    /// ([`super::replica::health_lines`]); None elsewhere.
    pub async fn replica_health(&self) -> Option<String> {
        let primary_url = self.primary_url()?;
        let behind = self
            .with_light_conn(|conn| Ok(store::last_beat(conn).ok().flatten()))
            .await
            .ok()
            .flatten();
        Some(super::replica::health_lines(primary_url, behind))
    }

    /// How many SQL statements the requests served so far have run (each
    /// trigger body counts too): what keeps the statements per page
    /// bounded whatever the data size, and what a test checks.
    pub fn statements_run(&self) -> u64 {
        self.inner.statements.load(Ordering::Relaxed)
    }

    /// Runs `work` with a database connection on the blocking thread pool,
    /// so SQLite (and whatever else `work` does, like drawing a chart)
    /// never stalls the async workers.
    ///
    /// A commit empties the page cache of every other connection (SQLite
    /// notices the database changed when one next reads) and leaves the
    /// committing one's valid. So the connection given back is the next
    /// one taken only while its cache is still valid: when it wrote, and
    /// no other write came in between, or when no write came since its
    /// work began; else it goes under the others. The first page read
    /// after a change then gets the connection that made it, and reads
    /// only what changed.
    pub async fn with_conn<T, F>(&self, work: F) -> Result<T, AppError>
    where
        F: FnOnce(&mut Connection) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let state = self.clone();
        let _permit = self
            .inner
            .busy
            .acquire()
            .await
            .context("the database queue is closed")?;
        tokio::task::spawn_blocking(move || {
            let mut conn = state.take_connection()?;
            if state.is_replica() {
                store::forget_pages(&conn);
            }
            let writes = state.inner.writes.load(Ordering::SeqCst);
            let changes = conn.total_changes();
            let before = STATEMENTS.with(Cell::get);
            let result = work(&mut conn);
            let run = STATEMENTS.with(Cell::get) - before;
            state.inner.statements.fetch_add(run, Ordering::Relaxed);
            // Rows changed, committed or not: a write rolled back only
            // costs the others their place.
            let cache_valid = if conn.total_changes() != changes {
                state.inner.writes.fetch_add(1, Ordering::SeqCst) == writes
            } else {
                state.inner.writes.load(Ordering::SeqCst) == writes
            };
            state.give_back(conn, cache_valid);
            match &result {
                Err(AppError::Unavailable {
                    problem: store::Unavailable::Corrupt,
                    ..
                }) => state.inner.corrupt.store(true, Ordering::SeqCst),
                // A write (an edit, say) found the disk full: the answers
                // kept on disk go, so that the next one finds room.
                Err(AppError::Unavailable {
                    problem: store::Unavailable::DiskFull,
                    ..
                }) => {
                    state.inner.answers.make_room_on_disk();
                }
                _ => {}
            }
            result
        })
        .await
        .context("a database task failed")?
    }

    /// Runs `work`, a statement or two, on the light lane
    /// ([`light::LightLane`]): never queued behind the database work of
    /// [`AppState::with_conn`].
    pub(super) async fn with_light_conn<T, F>(&self, work: F) -> Result<T, AppError>
    where
        F: FnOnce(&mut Connection) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let (result, run) = self.inner.light.run(work).await?;
        self.inner.statements.fetch_add(run, Ordering::Relaxed);
        result
    }

    /// What large answers being sent hold ([`budget`]).
    pub(super) fn answer_budget(&self) -> &Arc<budget::AnswerBudget> {
        &self.inner.answer_budget
    }

    /// What large answers sent from files hold on disk ([`budget`]).
    pub(super) fn spilled_budget(&self) -> &Arc<budget::AnswerBudget> {
        &self.inner.spilled_budget
    }

    /// The database file, whose disk's free space is watched.
    pub(super) fn db_file(&self) -> &store::DatabaseFile {
        &self.inner.db_file
    }

    /// The folder of the database, where unnamed files go (a temporary
    /// folder may be memory).
    pub(super) fn db_dir(&self) -> &Path {
        match self.inner.db_path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        }
    }

    /// The answer for `what` (a page and its canonical query) at the
    /// data's current generation: from memory when it was made since the
    /// last change to the data, else made by `make` and kept. `make` reads
    /// the same snapshot of the data that the generation names.
    ///
    /// Whether it is kept is asked on the light lane (one statement), so
    /// a kept answer never waits behind page builds.
    pub async fn answer<F>(&self, what: String, make: F) -> Result<Arc<Answer>, AppError>
    where
        F: FnOnce(&Connection) -> Result<Answer, AppError> + Send + 'static,
    {
        let state = self.clone();
        let asked = what.clone();
        let kept = self
            .with_light_conn(move |conn| {
                let key = (store::generation(conn)?, asked);
                Ok(state.inner.answers.get(&key))
            })
            .await?;
        if let Some(answer) = kept {
            return Ok(answer);
        }
        let state = self.clone();
        self.with_conn(move |conn| {
            store::read_snapshot(conn, |generation, snapshot| {
                let key = (generation, what);
                state.inner.answers.get_or_make(&key, || make(snapshot))
            })
        })
        .await
    }

    /// Whether the database may be written now: the file is the one
    /// opened (SQLite would go on writing to a deleted or replaced file,
    /// and the data would be lost with it), a new connection could write
    /// to it (a kept one keeps the write access it had when opened, to a
    /// file made read-only since, say), its disk has room (the answers
    /// kept on disk dropped first if it has not), and it was not found
    /// damaged. A `stat`, an `access` and a `statvfs`, before every
    /// write; none opens the file.
    pub fn check_database_file(&self) -> Result<(), AppError> {
        self.database_usable().map_err(AppError::unavailable)
    }

    fn database_usable(&self) -> Result<(), store::Unavailable> {
        let file = &self.inner.db_file;
        if let Err(problem) = file.check() {
            file.remove_stale_log();
            return Err(problem);
        }
        if self.inner.corrupt.load(Ordering::SeqCst) {
            return Err(store::Unavailable::Corrupt);
        }
        if !self.is_replica() {
            file.check_writable()?;
        }
        let min_free = self.inner.options.min_free_disk_bytes;
        match file.check_free_space(min_free) {
            // The answers kept on disk go before anyone is told it is full.
            Err(store::Unavailable::DiskFull) if self.inner.answers.make_room_on_disk() => {
                file.check_free_space(min_free)
            }
            checked => checked,
        }
    }

    /// Whether the database can be used, for `/healthz`: what
    /// [`AppState::check_database_file`] checks, and a connection can
    /// read and take the write lock.
    pub async fn check_database(&self) -> Result<(), store::PingError> {
        self.database_usable()?;
        let state = self.clone();
        let replica = self.is_replica();
        self.with_light_conn(move |conn| {
            let pinged = match replica {
                true => store::ping_read(conn),
                false => store::ping(conn),
            };
            if let Err(store::PingError::Unavailable(store::Unavailable::Corrupt)) = pinged {
                state.inner.corrupt.store(true, Ordering::SeqCst);
            }
            Ok(pinged)
        })
        .await
        .unwrap_or_else(|error| Err(store::PingError::Failed(error.to_string())))
    }

    /// Reads the whole file once on a thread of its own (SQLite's
    /// `quick_check`) and marks the database damaged if it is, so that
    /// `/healthz` tells and uploads are refused: damage in pages no
    /// request reads would otherwise go unnoticed while new data is put
    /// beside it. Returns the thread, for tests to wait on.
    pub fn verify_in_background(&self) -> std::thread::JoinHandle<()> {
        let state = self.clone();
        std::thread::spawn(move || {
            let checked = store::open_as_is(&state.inner.db_path).and_then(|conn| {
                Ok(conn.query_row("PRAGMA quick_check(1)", [], |row| row.get::<_, String>(0))?)
            });
            match checked {
                Ok(verdict) if verdict == "ok" => tracing::info!("the database file is sound"),
                Ok(verdict) => {
                    tracing::error!("the database file is damaged: {verdict}");
                    state.inner.corrupt.store(true, Ordering::SeqCst);
                }
                Err(error) => {
                    if let store::StoreError::Sqlite(sqlite) = &error {
                        if store::Unavailable::of_sqlite(sqlite)
                            == Some(store::Unavailable::Corrupt)
                        {
                            state.inner.corrupt.store(true, Ordering::SeqCst);
                        }
                    }
                    tracing::error!("checking the database file: {error}");
                }
            }
        })
    }

    fn open_connection(&self) -> Result<Connection, store::StoreError> {
        open_counted(&self.inner.db_path, &self.inner.options, false)
    }

    fn take_connection(&self) -> Result<Connection, AppError> {
        let idle = self.inner.idle.lock().map(|mut idle| idle.pop());
        match idle {
            Ok(Some(conn)) => Ok(conn),
            _ => Ok(self
                .open_connection()
                .with_context(|| format!("opening {}", self.inner.db_path.display()))?),
        }
    }

    /// Keeps `conn` for reuse: next in line when its page cache is
    /// valid, last when not (see [`AppState::with_conn`]).
    fn give_back(&self, conn: Connection, cache_valid: bool) {
        // One opened while the file was read-only stays so: open anew
        // once the file is writable again. A replica's are read-only.
        if !self.is_replica() && conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            return;
        }
        if let Ok(mut idle) = self.inner.idle.lock() {
            if idle.len() < IDLE_CONNECTIONS {
                if cache_valid {
                    idle.push(conn);
                } else {
                    idle.insert(0, conn);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection told apart by its page cache setting.
    fn cache_kib(conn: &Connection) -> i64 {
        conn.pragma_query_value(None, "cache_size", |row| row.get::<_, i64>(0))
            .unwrap()
    }

    #[test]
    fn connections_with_a_valid_page_cache_are_taken_first() {
        let dir = tempfile::tempdir().unwrap();
        let state = AppState::open(&dir.path().join("pool.db")).unwrap();
        let (stale, valid) = (
            state.take_connection().unwrap(),
            state.take_connection().unwrap(),
        );
        assert_eq!(cache_kib(&valid), -PAGE_CACHE_KIB);
        valid.pragma_update(None, "cache_size", -1).unwrap();
        // Given back last, the one whose cache a write emptied still
        // comes after the one whose cache is valid.
        state.give_back(valid, true);
        state.give_back(stale, false);
        let next = state.take_connection().unwrap();
        assert_eq!(cache_kib(&next), -1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_read_ending_after_a_write_leaves_the_writer_next() {
        let dir = tempfile::tempdir().unwrap();
        let state = AppState::open(&dir.path().join("pool.db")).unwrap();
        let (first, second) = (
            state.take_connection().unwrap(),
            state.take_connection().unwrap(),
        );
        state.give_back(first, true);
        state.give_back(second, true);
        let writes = state.clone();
        state
            .with_conn(move |_reader| {
                // A change made on the other connection while this read
                // is under way, and finished before it.
                let handle = tokio::runtime::Handle::current();
                handle.block_on(writes.with_conn(|writer| {
                    writer.pragma_update(None, "cache_size", -1)?;
                    writer.execute("UPDATE data_generation SET generation = generation + 1", [])?;
                    Ok(())
                }))
            })
            .await
            .unwrap();
        let next = state.take_connection().unwrap();
        assert_eq!(cache_kib(&next), -1, "the writer is taken next");
    }
}
