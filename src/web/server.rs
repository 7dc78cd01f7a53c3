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
//! - at most [`WebOptions::max_connections`] are open in all, and at most
//!   [`WebOptions::max_connections_per_ip`] from one client, so one client
//!   cannot take them all; one more is told 503 and closed at once;
//! - on SIGTERM or Ctrl-C, requests under way get
//!   [`WebOptions::shutdown_grace`] to finish, then the rest are dropped.
//!
//! It also answers over-long addresses (414) and headers (431) with a page
//! saying so ([`refuse_oversized_heads`]): hyper's own answers to those are
//! empty, so its buffer is kept well above these limits.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Sleep;
use tower::ServiceExt;

use super::{AppError, WebOptions};
use crate::limits::{
    ANSWER_CHUNK_BYTES, HYPER_MAX_HEADERS, MAX_HEADER_BYTES, MAX_HEADER_COUNT, MAX_URI_BYTES,
    MAX_WAITING, READ_BUFFER_BYTES, RECONNECT_GRACE, REFUSAL_LOG_INTERVAL,
};

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

    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .max_buf_size(READ_BUFFER_BYTES)
        .max_headers(HYPER_MAX_HEADERS);
    let connections = Connections {
        app,
        http,
        stall_timeout: options.write_stall_timeout,
        slots: Arc::new(Slots::new(
            options.max_connections,
            options.max_connections_per_ip,
        )),
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

    async fn wait_for_place(&self, ip: IpAddr) -> Result<(Slot, Option<IpAddr>), Refusal> {
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
        (slot, closed): (Slot, Option<IpAddr>),
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
        let io = TokioIo::new(StallGuard::new(stream, self.stall_timeout));
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

/// The refusals and closings since the last line logged about them.
#[derive(Default)]
struct RefusalLog {
    last_logged: Option<Instant>,
    refused: u64,
    closed: u64,
    /// The client named in the line: the last one refused or closed.
    client: Option<IpAddr>,
}

impl RefusalLog {
    fn refused(&mut self, refusal: Refusal, slots: &Slots) {
        self.refused += 1;
        self.client = Some(refusal.client);
        self.log_if_due(slots);
    }

    fn closed(&mut self, client: IpAddr, slots: &Slots) {
        self.closed += 1;
        self.client = Some(client);
        self.log_if_due(slots);
    }

    fn log_if_due(&mut self, slots: &Slots) {
        if self
            .last_logged
            .is_none_or(|at| at.elapsed() >= REFUSAL_LOG_INTERVAL)
        {
            self.flush(slots);
        }
    }

    /// Logs what happened since the last line, if anything did.
    fn flush(&mut self, slots: &Slots) {
        if self.refused == 0 && self.closed == 0 {
            return;
        }
        let (total, heaviest) = slots.census();
        let since = self.last_logged.map_or(String::new(), |at| {
            format!(" in the last {} s", at.elapsed().as_secs())
        });
        let client = self
            .client
            .map_or(String::new(), |c| format!(" (last {c})"));
        let heaviest = heaviest.map_or(String::new(), |(c, n)| {
            format!("; {c} holds the most ({n})")
        });
        tracing::warn!(
            "too many connections{since}: refused {}, closed {} to make room{client}; {total} of {} open{heaviest}",
            self.refused,
            self.closed,
            slots.max_total,
        );
        self.refused = 0;
        self.closed = 0;
        self.last_logged = Some(Instant::now());
    }
}

/// The open connections, in all and per client.
struct Slots {
    max_total: usize,
    max_per_client: usize,
    open: Mutex<OpenConnections>,
}

#[derive(Default)]
struct OpenConnections {
    total: usize,
    /// Numbers connections in the order they were opened.
    next_id: u64,
    /// Each client's connections, oldest first.
    per_client: HashMap<IpAddr, BTreeMap<u64, Arc<Held>>>,
}

/// What the accept loop shares with one connection's task.
#[derive(Default)]
struct Held {
    /// Requests whose answers are not yet sent: 0 when idle.
    under_way: AtomicUsize,
    /// Whether it has answered a request: a client reconnecting at its
    /// cap may have closed such an idle one already.
    answered: AtomicBool,
    /// Told to close to make room for another connection.
    close: Notify,
}

/// Which connection of a client may be closed for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Victim {
    /// Only one idle after answering a request (its client's own cap).
    AnsweredIdle,
    /// One idle, else the oldest (the total cap, for another client).
    IdleOrOldest,
}

/// One open connection; dropping it frees its place.
struct Slot {
    slots: Arc<Slots>,
    client: IpAddr,
    id: u64,
    held: Arc<Held>,
}

/// A connection not taken, and whose.
#[derive(Debug, PartialEq)]
struct Refusal {
    client: IpAddr,
    /// The client holds as many as it may, all busy (else: all places are
    /// taken, and no client holds more than two more than this one).
    at_own_cap: bool,
}

impl Slots {
    fn new(max_total: usize, max_per_client: usize) -> Self {
        Slots {
            max_total,
            max_per_client,
            open: Mutex::new(OpenConnections::default()),
        }
    }

    /// A place for one more connection from `ip`, and the client whose
    /// connection was closed to make room, if one was.
    ///
    /// A client at its own cap gets its oldest connection that has
    /// answered and is idle closed (one it may have closed itself
    /// already, whose end the server has not seen yet: a client
    /// reconnecting fast was refused otherwise), and is refused when it
    /// has none (a new connection that has not sent its request yet is
    /// not given up for another of the same client). When
    /// every place is taken, the client holding the most loses its oldest
    /// idle connection, or its oldest when none is idle, if it holds at
    /// least two more than this one: so a few addresses never lock
    /// everyone else out, and a new client always gets in unless everyone
    /// holds as few as it does.
    fn take(slots: &Arc<Slots>, ip: IpAddr) -> Result<(Slot, Option<IpAddr>), Refusal> {
        let client = client_of(ip);
        let mut open = slots.open.lock().unwrap_or_else(|e| e.into_inner());
        let from_client = open.per_client.get(&client).map_or(0, BTreeMap::len);
        let mut closed = None;
        if from_client >= slots.max_per_client {
            if !open.close_oldest(client, Victim::AnsweredIdle) {
                return Err(Refusal {
                    client,
                    at_own_cap: true,
                });
            }
            closed = Some(client);
        } else if open.total >= slots.max_total {
            let heaviest = open
                .heaviest()
                .filter(|(_, count)| *count > from_client + 1);
            let Some((heaviest, _)) = heaviest else {
                return Err(Refusal {
                    client,
                    at_own_cap: false,
                });
            };
            open.close_oldest(heaviest, Victim::IdleOrOldest);
            closed = Some(heaviest);
        }
        let id = open.next_id;
        open.next_id += 1;
        open.total += 1;
        let held = Arc::new(Held::default());
        open.per_client
            .entry(client)
            .or_default()
            .insert(id, Arc::clone(&held));
        let slot = Slot {
            slots: Arc::clone(slots),
            client,
            id,
            held,
        };
        Ok((slot, closed))
    }

    /// How many are open, and the client holding the most with its count.
    fn census(&self) -> (usize, Option<(IpAddr, usize)>) {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        (open.total, open.heaviest())
    }
}

impl OpenConnections {
    fn heaviest(&self) -> Option<(IpAddr, usize)> {
        self.per_client
            .iter()
            .map(|(client, held)| (*client, held.len()))
            .max_by_key(|(_, count)| *count)
    }

    /// Tells `client`'s oldest connection of the kind `victim` says to
    /// close, and frees its place at once: whether there was one.
    fn close_oldest(&mut self, client: IpAddr, victim: Victim) -> bool {
        let Some(held) = self.per_client.get_mut(&client) else {
            return false;
        };
        let idle = held
            .iter()
            .find(|(_, conn)| {
                conn.under_way.load(Ordering::SeqCst) == 0
                    && (victim == Victim::IdleOrOldest || conn.answered.load(Ordering::SeqCst))
            })
            .map(|(id, _)| *id);
        let oldest = held.keys().next().copied();
        let Some(id) = idle.or(oldest.filter(|_| victim == Victim::IdleOrOldest)) else {
            return false;
        };
        if let Some(conn) = held.remove(&id) {
            // Kept if the task is not waiting yet: it closes when it does.
            conn.close.notify_one();
            self.total -= 1;
        }
        if held.is_empty() {
            self.per_client.remove(&client);
        }
        true
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        // A connection closed to make room was taken off already.
        let Some(held) = open.per_client.get_mut(&self.client) else {
            return;
        };
        if held.remove(&self.id).is_none() {
            return;
        }
        if held.is_empty() {
            open.per_client.remove(&self.client);
        }
        open.total -= 1;
    }
}

/// One request of a connection, from its head read until its answer's
/// body is sent (or dropped).
struct RequestUnderWay(Arc<Held>);

impl RequestUnderWay {
    fn new(held: &Arc<Held>) -> Self {
        held.under_way.fetch_add(1, Ordering::SeqCst);
        RequestUnderWay(Arc::clone(held))
    }
}

impl Drop for RequestUnderWay {
    fn drop(&mut self) {
        self.0.answered.store(true, Ordering::SeqCst);
        self.0.under_way.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A body that holds `held` until it is all handed to hyper (in pieces of
/// [`ANSWER_CHUNK_BYTES`]), or dropped: what marks a request under way,
/// and a large answer's share of a budget.
pub(super) struct Holding<H> {
    body: Body,
    /// Of the last data taken from `body`, what is still to give.
    rest: Bytes,
    _held: H,
}

impl<H> Holding<H> {
    pub(super) fn new(body: Body, held: H) -> Self {
        Holding {
            body,
            rest: Bytes::new(),
            _held: held,
        }
    }
}

impl<H: Unpin> hyper::body::Body for Holding<H> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if this.rest.is_empty() {
            match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.rest = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return other,
            }
        }
        let piece = this.rest.split_to(this.rest.len().min(ANSWER_CHUNK_BYTES));
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let mut hint = self.body.size_hint();
        let rest = self.rest.len() as u64;
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + rest);
        }
        hint.set_lower(hint.lower() + rest);
        hint
    }
}

/// The accepted socket, whose writes fail once the client has read
/// nothing for the stall timeout: hyper then drops the connection, its
/// place and the answer it was sending.
struct StallGuard<S> {
    inner: S,
    timeout: Duration,
    /// Armed while a write waits for the client.
    timer: Pin<Box<Sleep>>,
    armed: bool,
}

impl<S> StallGuard<S> {
    fn new(inner: S, timeout: Duration) -> Self {
        StallGuard {
            inner,
            timeout,
            timer: Box::pin(tokio::time::sleep(timeout)),
            armed: false,
        }
    }

    /// `polled`, a write's progress: still pending past the timeout, an
    /// error.
    fn bounded<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.armed = false;
            return polled;
        }
        if !self.armed {
            self.armed = true;
            let deadline = tokio::time::Instant::now() + self.timeout;
            self.timer.as_mut().reset(deadline);
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client read nothing of its answer for {} s",
                    self.timeout.as_secs()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for StallGuard<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for StallGuard<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.bounded(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.bounded(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.bounded(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.bounded(cx, polled)
    }
}

/// Who a connection or request counts against, for every per-client
/// limit (connections here, uploads and submissions through
/// [`super::guard::peer_ip`]): its IPv4 address, or the /64 network of an
/// IPv6 one, since one IPv6 client usually holds a whole /64 and could
/// otherwise take each place or token from another address.
pub(super) fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
    }
}

/// Answers a request whose address or headers are larger than
/// [`MAX_URI_BYTES`], [`MAX_HEADER_BYTES`] or [`MAX_HEADER_COUNT`] with 414
/// or 431 and a message, before anything reads them.
pub async fn refuse_oversized_heads(request: Request, next: Next) -> Response {
    let uri = request.uri();
    let uri_bytes = uri.scheme_str().map_or(0, str::len)
        + uri.authority().map_or(0, |a| a.as_str().len())
        + uri.path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_bytes > MAX_URI_BYTES {
        return AppError::UriTooLong(format!(
            "The address is too long: {uri_bytes} bytes, and this site takes at most {} KiB ({MAX_URI_BYTES} bytes). Shorten it (fewer `by` or `where` terms in a comparison).",
            MAX_URI_BYTES / 1024
        ))
        .into_response();
    }
    let header_count = request.headers().len();
    if header_count > MAX_HEADER_COUNT {
        return AppError::HeadersTooLarge(format!(
            "The request has too many headers: {header_count}, and this site takes at most {MAX_HEADER_COUNT}."
        ))
        .into_response();
    }
    // As sent: "name: value\r\n".
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return AppError::HeadersTooLarge(format!(
            "The request's headers are too large: {header_bytes} bytes, and this site takes at most {} KiB ({MAX_HEADER_BYTES} bytes). Clearing this site's cookies usually helps.",
            MAX_HEADER_BYTES / 1024
        ))
        .into_response();
    }
    next.run(request).await
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

    fn busy(slot: &Slot) -> RequestUnderWay {
        RequestUnderWay::new(&slot.held)
    }

    fn closing(slot: &Slot) -> bool {
        // A stored notification completes at once.
        futures_now(slot.held.close.notified())
    }

    fn futures_now(future: impl Future<Output = ()>) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        future.as_mut().poll(&mut cx).is_ready()
    }

    #[test]
    fn a_client_at_its_cap_loses_its_oldest_answered_idle_connection_or_is_refused() {
        let slots = Arc::new(Slots::new(10, 2));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let (a1, _) = Slots::take(&slots, a).unwrap();
        let (a2, _) = Slots::take(&slots, a).unwrap();
        // Idle, but neither has answered yet: not given up for another.
        assert!(Slots::take(&slots, a).is_err(), "a third before any answer");
        drop((busy(&a1), busy(&a2)));
        let _under_way = (busy(&a1), busy(&a2));
        assert_eq!(
            Slots::take(&slots, a).err(),
            Some(Refusal {
                client: a,
                at_own_cap: true
            }),
            "a third while both are busy"
        );
        drop(_under_way);
        let (_a3, closed) = Slots::take(&slots, a).unwrap();
        assert_eq!(closed, Some(a));
        assert!(closing(&a1) && !closing(&a2), "the oldest idle one goes");
        assert_eq!(slots.census(), (2, Some((a, 2))));
        drop(a1);
        assert_eq!(slots.census().0, 2, "its place was freed once only");
    }

    #[test]
    fn when_full_the_client_holding_most_makes_room_for_a_new_one() {
        let slots = Arc::new(Slots::new(5, 5));
        let heavy: IpAddr = "192.0.2.1".parse().unwrap();
        let light: IpAddr = "192.0.2.2".parse().unwrap();
        let new: IpAddr = "192.0.2.3".parse().unwrap();
        let h: Vec<Slot> = (0..4)
            .map(|_| Slots::take(&slots, heavy).unwrap().0)
            .collect();
        let (l1, _) = Slots::take(&slots, light).unwrap();
        let _under_way = (busy(&h[0]), busy(&h[2]), busy(&h[3]), busy(&l1));
        let (n1, closed) = Slots::take(&slots, new).unwrap();
        assert_eq!(closed, Some(heavy));
        assert!(closing(&h[1]) && !closing(&h[0]), "its oldest idle one");
        // All of the heavy client's are busy now: its oldest goes.
        let (_n2, closed) = Slots::take(&slots, new).unwrap();
        assert_eq!(closed, Some(heavy));
        assert!(closing(&h[0]));
        // Holding 2 each, and 1: no one holds two more than another.
        let _busy = busy(&n1);
        for client in [new, light] {
            let at_own_cap = false;
            let refused = Some(Refusal { client, at_own_cap });
            assert_eq!(Slots::take(&slots, client).err(), refused);
        }
        assert_eq!(slots.census().0, 5);
        drop(h);
        assert_eq!(slots.census().0, 3, "only those still counted free a place");
    }

    #[test]
    fn an_ipv6_client_is_its_64_network() {
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let other: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_of(one), client_of(other));
        assert_ne!(client_of(one), client_of(elsewhere));
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(client_of(mapped), "192.0.2.1".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn the_rate_limits_count_an_ipv6_client_as_the_caps_do() {
        use super::super::guard::{peer_ip, RateLimiter};
        let request = |ip: &str| {
            let mut request = Request::new(Body::empty());
            let addr = SocketAddr::new(ip.parse().unwrap(), 4000);
            request.extensions_mut().insert(ConnectInfo(addr));
            request
        };
        let limiter = RateLimiter::per_minute(1);
        assert!(limiter.check(peer_ip(&request("2001:db8:1:2::1"))).is_ok());
        assert!(
            limiter
                .check(peer_ip(&request("2001:db8:1:2::abcd")))
                .is_err(),
            "another address of the same /64 shares its bucket"
        );
        assert!(limiter.check(peer_ip(&request("2001:db8:1:3::1"))).is_ok());
    }

    #[test]
    fn the_busy_answer_says_its_length() {
        let text = String::from_utf8_lossy(BUSY_ANSWER);
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
    }
}
