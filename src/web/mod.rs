//! The dashboard: one router per page area, merged in [`app`], which both
//! [`serve`] and the tests call.

use std::cell::Cell;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::middleware;
use axum::Router;
use rusqlite::Connection;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::limits::{self, BUSY_CONNECTIONS, IDLE_CONNECTIONS, PAGE_CACHE_KIB};
use crate::store;

mod bodies;
mod budget;
mod cache;
mod compare;
mod error;
mod guard;
mod health;
mod home;
mod light;
mod like;
mod query;
mod ready;
mod review;
mod rights;
mod runs;
mod server;
mod static_files;
mod submissions;
mod threads;
mod upload;

pub use cache::Answer;
pub use error::AppError;
pub use guard::{RateLimiter, CONTENT_SECURITY_POLICY};
pub use upload::{store_upload, UploadStage};

/// The limits and rights the server runs with (`benchlog serve` options).
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// Larger request bodies are answered with 413.
    pub max_body_bytes: usize,
    /// Uploads per minute and client (after a burst of as many); 0: no limit.
    pub uploads_per_minute: u32,
    /// Submissions stored per minute and client (after a burst of as
    /// many); 0: no limit.
    pub submissions_per_minute: u32,
    /// Edits and undos per minute, per client and per submission (after a
    /// burst of as many); 0: no limit.
    pub edits_per_minute: u32,
    /// Fields (runs times fields) edits may change per minute, per client
    /// and per submission (after a burst of as many); 0: no limit.
    pub edit_changes_per_minute: u32,
    /// Bytes of names and values the edits of all clients together may
    /// write per hour (after a burst of as many); 0: no limit.
    pub edit_bytes_per_hour: u64,
    /// Longer requests are answered with 408.
    pub request_timeout: Duration,
    /// An upload's body must bring [`limits::MIN_BODY_BYTES_PER_WINDOW`]
    /// (or its rest) in each window this long, else it gets 408
    /// ([`bodies::MinimumRate`]). Not an option of `benchlog serve`: tests
    /// shorten it.
    pub body_rate_window: Duration,
    /// May change or delete any submission.
    pub admin_token: Option<String>,
    /// The most pages the database may grow to (SQLite's
    /// `max_page_count`, never below its size at start); writes beyond
    /// are refused as on a full disk. None: the disk is the limit.
    pub max_database_pages: Option<u64>,
    /// A connection that has not sent a whole request head this long after
    /// opening (or after its last answer) is closed.
    pub header_read_timeout: Duration,
    /// A connection whose client reads nothing of its answer for this long
    /// is closed.
    pub write_stall_timeout: Duration,
    /// Connections open at once, in all; more are told 503 and closed.
    /// None: what the open files limit leaves
    /// ([`limits::max_connections_for`]).
    pub max_connections: Option<usize>,
    /// Connections open at once from one client (IPv4 address, IPv6 /64).
    pub max_connections_per_ip: usize,
    /// How long requests under way may finish after SIGTERM or Ctrl-C.
    pub shutdown_grace: Duration,
    /// Below this many bytes free on the database's disk, uploads are
    /// refused and `/healthz` says the disk is full.
    pub min_free_disk_bytes: u64,
    /// Serve /static from this folder; None: the files built into the
    /// binary ([`crate::embedded::STATIC`]).
    pub static_dir: Option<PathBuf>,
}

/// The defaults of the `benchlog serve` options, which take theirs from
/// the same constants.
impl Default for WebOptions {
    fn default() -> Self {
        WebOptions {
            max_body_bytes: limits::MAX_BODY_BYTES,
            uploads_per_minute: limits::UPLOADS_PER_MINUTE,
            submissions_per_minute: limits::SUBMISSIONS_PER_MINUTE,
            edits_per_minute: limits::EDITS_PER_MINUTE,
            edit_changes_per_minute: limits::EDIT_CHANGES_PER_MINUTE,
            edit_bytes_per_hour: limits::EDIT_BYTES_PER_HOUR,
            request_timeout: limits::REQUEST_TIMEOUT,
            body_rate_window: limits::BODY_RATE_WINDOW,
            admin_token: None,
            max_database_pages: None,
            header_read_timeout: limits::HEADER_READ_TIMEOUT,
            write_stall_timeout: limits::WRITE_STALL_TIMEOUT,
            max_connections: None,
            max_connections_per_ip: limits::MAX_CONNECTIONS_PER_IP,
            shutdown_grace: limits::SHUTDOWN_GRACE,
            min_free_disk_bytes: limits::MIN_FREE_DISK_BYTES,
            static_dir: None,
        }
    }
}

/// What every handler shares: where the database is and a few open
/// connections to it.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    db_path: PathBuf,
    /// The file opened, to notice it deleted or replaced while serving.
    db_file: store::DatabaseFile,
    /// Connections not in use, the one to take next last: those whose
    /// page cache is valid above those a commit has emptied (see
    /// [`AppState::with_conn`]).
    idle: Mutex<Vec<Connection>>,
    /// Writes made through [`AppState::with_conn`] so far: a connection
    /// that began its work before the latest one kept no valid page cache.
    writes: AtomicU64,
    options: WebOptions,
    upload_limiter: guard::RateLimiter,
    /// Submissions stored, per client: an archive counts each message.
    submission_limiter: guard::RateLimiter,
    edit_limits: review::EditLimits,
    /// KiB of request bodies being read or held by uploads, in all and
    /// per client ([`bodies`]).
    upload_bodies: bodies::BodyBudget,
    /// Edit tokens of uploads committed after their client left, for
    /// its next try ([`upload::Unreceived`]).
    unreceived: upload::Unreceived,
    /// Uploads at work: unpacking, decoding, parsing and storing
    /// ([`crate::limits::UPLOADS_AT_WORK`]).
    upload_work: tokio::sync::Semaphore,
    /// SQL statements run for requests so far (see [`AppState::statements_run`]).
    statements: AtomicU64,
    /// At most [`BUSY_CONNECTIONS`] pieces of database work at once: more
    /// would only queue for the CPU while each holds its own connection,
    /// page cache and half-built page (RSS grew to 900 MB with 32 at once).
    busy: tokio::sync::Semaphore,
    /// Answers made at the current data generation, served again.
    answers: cache::AnswerCache,
    /// `/healthz` and answers found in `answers`, on threads of their own.
    light: light::LightLane,
    /// What large answers being sent hold.
    answer_budget: Arc<budget::AnswerBudget>,
    /// What large answers sent from files, the budget being full, hold
    /// on disk.
    spilled_budget: Arc<budget::AnswerBudget>,
    /// Copies what uploads wrote into the database file after they are
    /// answered (see store::checkpoint).
    checkpointer: store::Checkpointer,
    /// Set once SQLite reported the file damaged: from then on uploads
    /// are refused and `/healthz` says so, until the server is restarted
    /// on a repaired file.
    corrupt: AtomicBool,
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
    static STATEMENTS: Cell<u64> = const { Cell::new(0) };
}

fn count_statement(event: rusqlite::trace::TraceEvent<'_>) {
    if let rusqlite::trace::TraceEvent::Stmt(..) = event {
        STATEMENTS.with(|n| n.set(n.get() + 1));
    }
}

/// Opens a connection for the dashboard, counting the statements it runs.
/// Only the first may create the database: a later one finding no file
/// fails instead of serving a new, empty database.
fn open_counted(
    db_path: &Path,
    options: &WebOptions,
    create: bool,
) -> Result<Connection, store::StoreError> {
    let conn = if create {
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
        let conn = open_counted(db_path, &options, true)?;
        let checkpointer = store::Checkpointer::start(db_path)?;
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
                corrupt: AtomicBool::new(false),
            }),
        })
    }

    pub fn options(&self) -> &WebOptions {
        &self.inner.options
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
    async fn with_light_conn<T, F>(&self, work: F) -> Result<T, AppError>
    where
        F: FnOnce(&mut Connection) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let (result, run) = self.inner.light.run(work).await?;
        self.inner.statements.fetch_add(run, Ordering::Relaxed);
        result
    }

    /// What large answers being sent hold ([`budget`]).
    fn answer_budget(&self) -> &Arc<budget::AnswerBudget> {
        &self.inner.answer_budget
    }

    /// What large answers sent from files hold on disk ([`budget`]).
    fn spilled_budget(&self) -> &Arc<budget::AnswerBudget> {
        &self.inner.spilled_budget
    }

    /// The database file, whose disk's free space is watched.
    fn db_file(&self) -> &store::DatabaseFile {
        &self.inner.db_file
    }

    /// The folder of the database, where unnamed files go (a temporary
    /// folder may be memory).
    fn db_dir(&self) -> &Path {
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
            let snapshot = conn.transaction()?;
            let key = (store::generation(&snapshot)?, what);
            state.inner.answers.get_or_make(&key, || make(&snapshot))
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
        file.check_writable()?;
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
        self.with_light_conn(move |conn| {
            let pinged = store::ping(conn);
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
                Ok(verdict) if verdict == "ok" => tracing::debug!("the database file is sound"),
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
        // once the file is writable again.
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
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

/// The whole application: every page area's router, static files and the
/// layers that apply to all of them.
/// `http://host[:port]` of the request, from its Host header, for links
/// that leave the page (the text view's, pasted into a mail); `None`
/// when the header is missing or is no host name or address.
pub(crate) fn request_origin(headers: &axum::http::HeaderMap) -> Option<String> {
    let host = headers.get(axum::http::header::HOST)?.to_str().ok()?;
    let plain = !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    plain.then(|| format!("http://{host}"))
}

pub fn app(state: AppState) -> Router {
    let static_files = static_files::service(state.inner.options.static_dir.as_deref());
    let options = state.inner.options.clone();
    let budget = middleware::from_fn_with_state(state.clone(), budget::hold_large_answers);
    // Every page but /upload, which keeps its own timeout (see upload.rs).
    let timeout =
        TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, options.request_timeout);
    Router::new()
        .merge(pages(state.clone()))
        .merge(health::router())
        .nest_service("/static", static_files)
        .fallback(not_found)
        .layer(timeout)
        .merge(upload::router().route_layer(middleware::from_fn_with_state(
            state.clone(),
            refuse_a_file_taken_away,
        )))
        .with_state(state)
        // Inside the compression, which hides an answer's length.
        .layer(budget)
        .layer(DefaultBodyLimit::disable())
        .layer(RequestBodyLimitLayer::new(options.max_body_bytes))
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn(guard::refuse_cross_site_posts))
        .layer(middleware::from_fn(server::refuse_oversized_heads))
        // Outside the limits above, so that their bare answers (413, 408,
        // 405, a static file's 404) get a page saying what was wrong.
        .layer(middleware::from_fn(error::error_pages))
        .layer(middleware::map_response(guard::security_headers))
        .layer(TraceLayer::new_for_http())
}

/// Every page area's routes, none of which is served from a database
/// file taken away (see [`refuse_a_file_taken_away`]).
fn pages(state: AppState) -> Router<AppState> {
    Router::new()
        .merge(home::router())
        .merge(submissions::router())
        .merge(review::router())
        .merge(rights::router())
        .merge(runs::router())
        .merge(like::router())
        .merge(threads::router())
        .merge(compare::router())
        .route_layer(middleware::from_fn_with_state(
            state,
            refuse_a_file_taken_away,
        ))
}

/// Answers 503 once the database file was deleted or replaced (a restored
/// copy moved over it) while serving: the pages would show data that is
/// no longer at the path, and links shared from them would show other
/// data after the restart. One `stat` per request; `/healthz` says why.
async fn refuse_a_file_taken_away(
    State(state): State<AppState>,
    request: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let file = &state.inner.db_file;
    match file.check() {
        Ok(()) => next.run(request).await,
        Err(problem) => {
            file.remove_stale_log();
            AppError::unavailable(problem).into_response()
        }
    }
}

async fn not_found() -> AppError {
    AppError::NotFound("There is no page at this address.".into())
}

/// Serves [`app`] on `addr` until Ctrl-C or SIGTERM, with the connection
/// limits of the state's [`WebOptions`].
pub async fn serve(state: AppState, addr: SocketAddr) -> anyhow::Result<()> {
    let options = state.options().clone();
    server::serve(app(state), addr, &options).await
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
