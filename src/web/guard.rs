//! What protects every page: security headers (a Content-Security-Policy
//! that allows no inline script or style), refusal of cross-site form
//! posts, and the per-client rate limit of uploads.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request};
use axum::http::header::{self, HeaderValue};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppError;

/// Only the site's own files: no inline script, no inline style (so no
/// `style=` attributes either), images from the site or `data:` URLs, and
/// no framing by other sites.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Adds the security headers to every response.
pub async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Refuses a form posted to benchlog from another site (a page elsewhere
/// that makes the visitor's browser send it). Browsers say where a request
/// comes from in `Sec-Fetch-Site`, older ones at least in `Origin`;
/// clients that send neither (scripts, `curl`) are not browsers carrying
/// someone's cookies, and pass.
pub async fn refuse_cross_site_posts(request: Request, next: Next) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if safe || !is_cross_site(request.headers()) {
        return next.run(request).await;
    }
    AppError::Forbidden(
        "This form was sent from another site. benchlog only takes changes made on its own pages: open the page here and send the form again."
            .into(),
    )
    .into_response()
}

fn is_cross_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        // "none": typed in the address bar or a bookmark.
        return !matches!(site.as_bytes(), b"same-origin" | b"none");
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let host = headers.get(header::HOST).map(HeaderValue::as_bytes);
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.split_once("://"))
        .map(|(_, host)| host.as_bytes());
    // "null" (a sandboxed or local document) has no host and never matches.
    origin_host.is_none() || origin_host != host
}

/// A token bucket per client: `per_minute` requests at once, refilled at
/// `per_minute` a minute. Clients are told apart by IP address; requests
/// with no known peer (tests calling the router directly) share a bucket.
pub struct RateLimiter {
    pub(super) per_minute: u32,
    buckets: Mutex<HashMap<Option<IpAddr>, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Buckets kept before full ones are forgotten (a full bucket is the same
/// as none).
const MAX_BUCKETS: usize = 10_000;

impl RateLimiter {
    pub fn per_minute(per_minute: u32) -> Self {
        RateLimiter {
            per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the client's bucket, or says how long until
    /// one is there.
    pub fn check(&self, peer: Option<IpAddr>) -> Result<(), Duration> {
        self.check_cost(peer, 1)
    }

    /// Takes `cost` from the client's bucket, or says how long until that
    /// much is there (forever, as `Duration::MAX`, when `cost` is more than
    /// the bucket holds).
    pub fn check_cost(&self, peer: Option<IpAddr>, cost: u32) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let per_second = capacity / 60.0;
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|_, bucket| {
                bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * per_second < capacity
            });
        }
        let bucket = buckets.entry(peer).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        let refilled = now.duration_since(bucket.at).as_secs_f64() * per_second;
        bucket.tokens = (bucket.tokens + refilled).min(capacity);
        bucket.at = now;
        let cost = f64::from(cost);
        if cost > capacity {
            Err(Duration::MAX)
        } else if bucket.tokens >= cost {
            bucket.tokens -= cost;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((cost - bucket.tokens) / per_second))
        }
    }
}

/// The client, when the server knows it: its address as the connection
/// caps count it ([`super::server::client_of`]), so that every per-client
/// limit tells clients apart by the one rule.
pub fn peer_ip(request: &Request) -> Option<IpAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| super::server::client_of(addr.ip()))
}
