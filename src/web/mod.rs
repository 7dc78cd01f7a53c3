//! The dashboard: one router per page area, merged in [`app`], which both
//! [`serve`] and the tests call.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::serve::ListenerExt;
use axum::Router;
use rusqlite::Connection;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::services::ServeDir;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::store;

mod compare;
mod error;
mod health;
mod home;
mod ready;
mod review;
mod runs;
mod submissions;
mod threads;
mod upload;

pub use error::AppError;

/// The largest request body accepted (uploads). axum's own 2 MB default is
/// switched off so that this is the one limit.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Idle connections kept for reuse; more are opened under load and closed
/// after.
const IDLE_CONNECTIONS: usize = 8;

/// What every handler shares: where the database is and a few open
/// connections to it.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    db_path: PathBuf,
    static_dir: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl AppState {
    /// Opens (creating and migrating) the database and keeps the connection.
    pub fn open(db_path: &Path, static_dir: &Path) -> Result<Self, store::StoreError> {
        let conn = store::open(db_path)?;
        Ok(AppState {
            inner: Arc::new(Inner {
                db_path: db_path.to_owned(),
                static_dir: static_dir.to_owned(),
                idle: Mutex::new(vec![conn]),
            }),
        })
    }

    /// Runs `work` with a database connection on the blocking thread pool,
    /// so SQLite (and whatever else `work` does, like drawing a chart)
    /// never stalls the async workers.
    pub async fn with_conn<T, F>(&self, work: F) -> Result<T, AppError>
    where
        F: FnOnce(&mut Connection) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let state = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = state.take_connection()?;
            let result = work(&mut conn);
            state.give_back(conn);
            result
        })
        .await
        .context("a database task failed")?
    }

    fn take_connection(&self) -> Result<Connection, AppError> {
        let idle = self.inner.idle.lock().map(|mut idle| idle.pop());
        match idle {
            Ok(Some(conn)) => Ok(conn),
            _ => store::open(&self.inner.db_path)
                .with_context(|| format!("opening {}", self.inner.db_path.display()))
                .map_err(AppError::Internal),
        }
    }

    fn give_back(&self, conn: Connection) {
        if let Ok(mut idle) = self.inner.idle.lock() {
            if idle.len() < IDLE_CONNECTIONS {
                idle.push(conn);
            }
        }
    }
}

/// The whole application: every page area's router, static files and the
/// layers that apply to all of them.
pub fn app(state: AppState) -> Router {
    let static_files = ServeDir::new(&state.inner.static_dir);
    Router::new()
        .merge(home::router())
        .merge(upload::router())
        .merge(submissions::router())
        .merge(review::router())
        .merge(runs::router())
        .merge(threads::router())
        .merge(compare::router())
        .merge(health::router())
        .nest_service("/static", static_files)
        .fallback(not_found)
        .with_state(state)
        .layer(DefaultBodyLimit::disable())
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(CompressionLayer::new())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            Duration::from_secs(60),
        ))
        .layer(TraceLayer::new_for_http())
}

async fn not_found() -> AppError {
    AppError::NotFound("There is no page at this address.".into())
}

/// Serves [`app`] on `addr` until Ctrl-C or SIGTERM.
pub async fn serve(state: AppState, addr: SocketAddr) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let local = listener
        .local_addr()
        .context("reading the listening address")?;
    // axum leaves Nagle's algorithm on; small responses would then wait for
    // a delayed ACK (about 40 ms each).
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!("could not set TCP_NODELAY: {error}");
        }
    });
    tracing::info!("benchlog is serving http://{local}/");
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .context("serving")
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
