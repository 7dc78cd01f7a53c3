//! The dashboard: one router per page area, merged in [`app`], which both
//! [`serve`] and the tests call.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::middleware;
use axum::Router;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::limits;

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
mod replica;
mod review;
mod rights;
mod runs;
mod server;
pub mod state;
mod static_files;
mod submissions;
mod threads;
mod upload;
mod view;

pub use cache::Answer;
pub use error::AppError;
pub use guard::{RateLimiter, CONTENT_SECURITY_POLICY};
use state::AppState;
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
    /// What the server is to Litestream ([`replica`]).
    pub role: Role,
}

/// What a server is to Litestream (docs/replicas.md).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Role {
    /// The only server of its database, which nothing replicates.
    #[default]
    Alone,
    /// The primary of a database Litestream replicates: it leaves the
    /// checkpoints to Litestream and writes its heartbeat.
    Primary,
    /// A read replica of the primary at this address (no `/` at its
    /// end): its database is a copy Litestream keeps current, read-only.
    Replica { primary_url: String },
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
            role: Role::Alone,
        }
    }
}

/// The whole application: every page area's router, static files and the
/// layers that apply to all of them.
pub fn app(state: AppState) -> Router {
    let static_files = static_files::service(state.inner.options.static_dir.as_deref());
    let options = state.inner.options.clone();
    let budget = middleware::from_fn_with_state(state.clone(), budget::hold_large_answers);
    let state_for_replica = state.clone();
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
        .layer(middleware::from_fn_with_state(
            state_for_replica,
            replica::refuse_writes,
        ))
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
