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

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use super::{AppError, WebOptions};

/// The longest request target (path and query) answered; longer ones get
/// 414. The longest comparison link the pages make is far below this.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The most header bytes (names, values and their separators) a request
/// may carry; more get 431. Browsers send a few KiB, most of it cookies.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// The most header fields a request may carry; more get 431. hyper's own
/// default limit, which it would answer with an empty 431.
pub const MAX_HEADER_COUNT: usize = 100;

/// What hyper parses before [`refuse_oversized_heads`] sees the request:
/// twice [`MAX_HEADER_COUNT`], so that a request a little over it is told
/// why.
const HYPER_MAX_HEADERS: usize = 2 * MAX_HEADER_COUNT;

/// hyper's read buffer per connection, the most of a request head it holds
/// while parsing. Heads larger than this get hyper's own empty 431, so it
/// is kept well above [`MAX_URI_BYTES`] + [`MAX_HEADER_BYTES`] for nearly
/// every oversized request to reach [`refuse_oversized_heads`]; and it
/// bounds what silent clients can make the server hold (128 KiB times
/// [`WebOptions::max_connections`]: 64 MiB by default).
pub const READ_BUFFER_BYTES: usize = 128 * 1024;

const _: () = assert!(READ_BUFFER_BYTES >= 2 * (MAX_URI_BYTES + MAX_HEADER_BYTES));

/// What a connection over the caps is told before it is closed: a browser
/// shows this rather than a reset.
const BUSY_ANSWER: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: text/plain; charset=utf-8\r\n\
retry-after: 5\r\n\
connection: close\r\n\
content-length: 57\r\n\
\r\n\
Too many open connections; please try again in a moment.\n";

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
    let slots = Arc::new(Slots::new(
        options.max_connections,
        options.max_connections_per_ip,
    ));
    let graceful = GracefulShutdown::new();
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);

    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    wait_after_accept_error(&error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = Slots::take(&slots, peer.ip()) else {
            tracing::debug!("refused a connection from {peer}: too many open");
            refuse(stream);
            continue;
        };
        // Nagle's algorithm would hold small responses back until the
        // client's delayed ACK (about 40 ms each).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("could not set TCP_NODELAY: {error}");
        }
        // The peer's address keys the upload rate limit (guard::peer_ip).
        let service = app
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            });
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!("connection from {peer} ended: {error}");
            }
            drop(slot);
        });
    }

    // New connections are refused from here on.
    drop(listener);
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

/// The open connections, in all and per client.
struct Slots {
    max_total: usize,
    max_per_client: usize,
    open: Mutex<OpenConnections>,
}

#[derive(Default)]
struct OpenConnections {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// One open connection; dropping it frees its place.
struct Slot {
    slots: Arc<Slots>,
    client: IpAddr,
}

impl Slots {
    fn new(max_total: usize, max_per_client: usize) -> Self {
        Slots {
            max_total,
            max_per_client,
            open: Mutex::new(OpenConnections::default()),
        }
    }

    /// A place for one more connection from `ip`, if both caps allow it.
    fn take(slots: &Arc<Slots>, ip: IpAddr) -> Option<Slot> {
        let client = client_of(ip);
        let mut open = slots.open.lock().unwrap_or_else(|e| e.into_inner());
        let from_client = open.per_client.get(&client).copied().unwrap_or(0);
        if open.total >= slots.max_total || from_client >= slots.max_per_client {
            return None;
        }
        open.total += 1;
        open.per_client.insert(client, from_client + 1);
        Some(Slot {
            slots: Arc::clone(slots),
            client,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        open.total -= 1;
        if let Some(count) = open.per_client.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                open.per_client.remove(&self.client);
            }
        }
    }
}

/// Who a connection counts against: its IPv4 address, or the /64 network
/// of an IPv6 one, since one IPv6 client usually holds a whole /64 and
/// could otherwise open each connection from another address.
fn client_of(ip: IpAddr) -> IpAddr {
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

    #[test]
    fn the_caps_hold_per_client_and_in_all_and_free_on_drop() {
        let slots = Arc::new(Slots::new(3, 2));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let a1 = Slots::take(&slots, a).unwrap();
        let _a2 = Slots::take(&slots, a).unwrap();
        assert!(Slots::take(&slots, a).is_none(), "a third from one client");
        let _b1 = Slots::take(&slots, b).unwrap();
        assert!(Slots::take(&slots, b).is_none(), "a fourth in all");
        drop(a1);
        assert!(Slots::take(&slots, a).is_some(), "a place freed");
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
    fn the_busy_answer_says_its_length() {
        let text = String::from_utf8_lossy(BUSY_ANSWER);
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
    }
}
