//! How `benchlog serve` accepts and holds connections.
//!
//! `axum::serve` holds every connection it accepts for as long as the client
//! keeps it open, and gives hyper no timer, so hyper's header-read timeout
//! never runs: a client opening a thousand silent connections used up the
//! process's file descriptors and nobody else was served. This loop bounds
//! what one client can hold:
//!
//! - a connection must send a whole request head within
//!   [`WebOptions::header_read_timeout`], its first and every following one
//!   (so an idle keep-alive connection is closed after as long too);
//! - at most [`WebOptions::max_connections`] are open in all (by default
//!   what the open files limit, raised to its hard limit at start,
//!   leaves), and at most [`WebOptions::max_connections_per_ip`] from one
//!   client, so one client cannot take them all; when all are taken, a
//!   silent or idle connection of whoever holds the most, else the oldest
//!   silent one, makes room (`slots`), and only when none can is one more
//!   told 503 and closed at once;
//! - on SIGTERM or Ctrl-C, requests under way get
//!   [`WebOptions::shutdown_grace`] to finish, then the rest are dropped.
//!
//! It also answers over-long addresses (414) and headers (431) with a page
//! saying so ([`refuse_oversized_heads`]); hyper's own answers to heads too
//! large for it to parse are empty, so its buffer is kept well above these
//! limits, and the socket replaces those answers with ones saying what was
//! too large (`heads::ExplainedHeads`).
//!
//! This module is the accept loop and what serving one connection takes;
//! a module a job below it: `slots` (the caps, and which connection
//! makes room for another), `refusals` (the log of refusals, rate
//! limited), `stall` (the write timeout), `holding` (an answer's body,
//! handed over in pieces while it holds its request's place) and `heads`
//! (the 414 and 431 pages).

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use super::WebOptions;
use crate::limits::{
    self, HYPER_MAX_HEADERS, MAX_WAITING, READ_BUFFER_BYTES, RECONNECT_GRACE, REFUSAL_LOG_INTERVAL,
};

mod heads;
mod holding;
mod refusals;
mod slots;
mod stall;

pub use heads::refuse_oversized_heads;
use heads::ExplainedHeads;
pub(super) use holding::Holding;
use refusals::RefusalLog;
pub(super) use slots::client_of;
use slots::{Holder, Refusal, RequestUnderWay, Slot, Slots};
use stall::StallGuard;

/// What a connection over the caps is told before it is closed: a browser
/// shows this rather than a reset.
const BUSY_ANSWER: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: text/plain; charset=utf-8\r\n\
retry-after: 5\r\n\
connection: close\r\n\
content-length: 57\r\n\
\r\n\
Too many open connections; please try again in a moment.\n";

/// How often a waiting connection asks for a place again.
const RECONNECT_RETRY: Duration = Duration::from_millis(5);

/// Serves `app` on `addr` with `options`' connection limits until Ctrl-C
/// or SIGTERM.
pub async fn serve(app: Router, addr: SocketAddr, options: &WebOptions) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let local = listener
        .local_addr()
        .context("reading the listening address")?;
    tracing::info!("benchlog is serving http://{local}/");

    let max_connections = connection_cap(options.max_connections);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .max_buf_size(READ_BUFFER_BYTES)
        .max_headers(HYPER_MAX_HEADERS);
    let connections = Connections {
        app,
        http,
        stall_timeout: options.write_stall_timeout,
        slots: Arc::new(Slots::new(max_connections, options.max_connections_per_ip)),
        refusals: Arc::new(Mutex::new(RefusalLog::default())),
        waiting: Arc::new(AtomicUsize::new(0)),
    };
    let graceful = GracefulShutdown::new();
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    let mut log_tick = tokio::time::interval(REFUSAL_LOG_INTERVAL);

    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    wait_after_accept_error(&error).await;
                    continue;
                }
            },
            _ = log_tick.tick() => {
                connections.log(|log, slots| log.flush(slots));
                continue;
            }
            () = &mut shutdown => break,
        };
        connections.admit(stream, peer, &graceful);
    }

    // New connections are refused from here on.
    drop(listener);
    connections.log(|log, slots| log.flush(slots));
    let open = graceful.count();
    let grace = options.shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "connections still busy after {}s of shutdown ({open} were open); closing them",
            grace.as_secs()
        );
    }
    Ok(())
}

/// What admitting and serving a connection needs.
#[derive(Clone)]
struct Connections {
    app: Router,
    http: http1::Builder,
    stall_timeout: Duration,
    slots: Arc<Slots>,
    refusals: Arc<Mutex<RefusalLog>>,
    /// Connections waiting for a place ([`RECONNECT_GRACE`]).
    waiting: Arc<AtomicUsize>,
}

impl Connections {
    fn log(&self, note: impl FnOnce(&mut RefusalLog, &Slots)) {
        let mut log = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
        note(&mut log, &self.slots);
    }

    /// Serves `stream` if the caps give it a place, now or within
    /// [`RECONNECT_GRACE`]; else tells it 503.
    fn admit(&self, stream: TcpStream, peer: SocketAddr, graceful: &GracefulShutdown) {
        match Slots::take(&self.slots, peer.ip()) {
            Ok(admitted) => self.start(stream, peer, admitted, graceful.watcher()),
            Err(refusal)
                if refusal.at_own_cap && self.waiting.load(Ordering::SeqCst) < MAX_WAITING =>
            {
                self.waiting.fetch_add(1, Ordering::SeqCst);
                let (this, watcher) = (self.clone(), graceful.watcher());
                tokio::spawn(async move {
                    let admitted = this.wait_for_place(peer.ip()).await;
                    this.waiting.fetch_sub(1, Ordering::SeqCst);
                    match admitted {
                        Ok(admitted) => this.start(stream, peer, admitted, watcher),
                        Err(refusal) => this.refuse(stream, refusal),
                    }
                });
            }
            Err(refusal) => self.refuse(stream, refusal),
        }
    }

    async fn wait_for_place(&self, ip: IpAddr) -> Result<(Slot, Option<Holder>), Refusal> {
        let deadline = tokio::time::Instant::now() + RECONNECT_GRACE;
        loop {
            tokio::time::sleep(RECONNECT_RETRY).await;
            match Slots::take(&self.slots, ip) {
                Err(_) if tokio::time::Instant::now() < deadline => continue,
                taken => return taken,
            }
        }
    }

    fn refuse(&self, stream: TcpStream, refusal: Refusal) {
        self.log(|log, slots| log.refused(refusal, slots));
        refuse(stream);
    }

    fn start(
        &self,
        stream: TcpStream,
        peer: SocketAddr,
        (slot, closed): (Slot, Option<Holder>),
        watcher: Watcher,
    ) {
        if let Some(closed) = closed {
            self.log(|log, slots| log.closed(closed, slots));
        }
        // Nagle's algorithm would hold small responses back until the
        // client's delayed ACK (about 40 ms each).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("could not set TCP_NODELAY: {error}");
        }
        let held = Arc::clone(&slot.held);
        let app = self.app.clone();
        let service = tower::service_fn(move |mut request: Request<Incoming>| {
            // The peer's address keys the upload rate limit (guard::peer_ip).
            request.extensions_mut().insert(ConnectInfo(peer));
            // Under way until its answer's body is sent or dropped: till
            // then the connection is not idle.
            let under_way = RequestUnderWay::new(&held);
            let app = app.clone();
            async move {
                let response = app.oneshot(request).await?;
                Ok::<_, Infallible>(response.map(|body| Body::new(Holding::new(body, under_way))))
            }
        });
        let io = TokioIo::new(ExplainedHeads::new(StallGuard::new(
            stream,
            self.stall_timeout,
        )));
        let connection = self
            .http
            .serve_connection(io, TowerToHyperService::new(service));
        let connection = watcher.watch(connection);
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => if let Err(error) = ended {
                    tracing::debug!("connection from {peer} ended: {error}");
                },
                () = slot.held.close.notified() => {
                    tracing::debug!("closed a connection from {peer} to make room");
                }
            }
            drop(slot);
        });
    }
}

/// Tells a connection over the caps so, without waiting for it: whatever
/// does not fit the socket buffer at once is dropped.
fn refuse(stream: TcpStream) {
    // Reading what already arrived lets the close be a FIN rather than a
    // reset, which would make the client drop the answer unread.
    let mut request = [0u8; 4096];
    let _ = stream.try_read(&mut request);
    let _ = stream.try_write(BUSY_ANSWER);
}

/// Raises the process's soft limit on open files to its hard limit (the
/// soft one is often 1,024 where the hard one allows far more), and gives
/// the connections to hold at most: `asked`, else what the limit leaves
/// ([`limits::max_connections_for`]).
fn connection_cap(asked: Option<usize>) -> usize {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    let files = match setrlimit(Resource::Nofile, raised) {
        Ok(()) => raised.current,
        Err(error) => {
            tracing::warn!("could not raise the open files limit to its hard limit: {error}");
            limit.current
        }
    };
    let cap = asked.unwrap_or_else(|| limits::max_connections_for(files.unwrap_or(u64::MAX)));
    let files = files.map_or_else(|| "unlimited".to_owned(), |files| files.to_string());
    tracing::info!("holding up to {cap} connections (open files limit {files})");
    cap
}

/// Errors of `accept` are the listener's, not the server's: a connection
/// reset before it was accepted is skipped, and running out of file
/// descriptors waits a little (for connections to close) instead of
/// spinning or giving up.
async fn wait_after_accept_error(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused
    ) {
        return;
    }
    tracing::warn!("accepting a connection: {error}");
    tokio::time::sleep(Duration::from_millis(100)).await;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_answer_says_its_length() {
        let text = String::from_utf8_lossy(BUSY_ANSWER);
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
    }
}
