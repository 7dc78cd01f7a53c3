//! What protects every page: security headers (a Content-Security-Policy
//! that allows no inline script or style), refusal of cross-site form
//! posts, and the rate limits of uploads and edits.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::header::{self, HeaderValue};
use axum::http::{request::Parts, Extensions, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppError;
use crate::limits::MAX_BUCKETS;

/// Only the site's own files: no inline script, no inline style (so no
/// `style=` attributes either), images from the site or `data:` URLs, and
/// no framing by other sites.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Adds the security headers to every response, and `Cache-Control:
/// no-store` to those that set a cookie: the answers that carry an edit
/// token or set one (an upload's, the page showing the token once, an
/// unlock) are one person's, and no cache, shared or the browser's, may
/// keep them for someone else or for later.
pub async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    if headers.contains_key(header::SET_COOKIE) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
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

/// A token bucket per client: `per_window` requests at once, refilled
/// with as many each window (a minute, unless made with
/// [`RateLimiter::keyed_per_window`]). Clients are told apart by IP address; requests
/// with no known peer (tests calling the router directly) share a bucket.
/// Other keys (`K`) make buckets of other things, a submission's say.
pub struct RateLimiter<K = Option<IpAddr>> {
    /// What a bucket holds, and is refilled with each `window`.
    pub(super) per_window: u32,
    window: Duration,
    buckets: Mutex<HashMap<K, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    /// Buckets per client; 0: no limit.
    pub fn per_minute(per_minute: u32) -> Self {
        RateLimiter::keyed_per_minute(per_minute)
    }
}

impl<K: Hash + Eq + Clone> RateLimiter<K> {
    /// Buckets per key; 0: no limit.
    pub fn keyed_per_minute(per_minute: u32) -> Self {
        RateLimiter::keyed_per_window(per_minute, Duration::from_secs(60))
    }

    /// Buckets per key holding `amount`, refilled with as much each
    /// `window`; 0: no limit.
    pub fn keyed_per_window(amount: u32, window: Duration) -> Self {
        RateLimiter {
            per_window: amount,
            window,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from the key's (the client's) bucket, or says
    /// how long until one is there.
    pub fn check(&self, key: K) -> Result<(), Duration> {
        self.check_cost(key, 1)
    }

    /// Takes `cost` from the key's (the client's) bucket, or says how long
    /// until that much is there (forever, as `Duration::MAX`, when `cost`
    /// is more than the bucket holds).
    pub fn check_cost(&self, key: K, cost: u32) -> Result<(), Duration> {
        self.check_cost_of_each([key], cost)
    }

    /// Takes `cost` from the bucket of each of `keys` (a client's and a
    /// submission's, say) when every one holds that much, else from none,
    /// saying how long until they all do ([`RateLimiter::check_cost`]).
    pub fn check_cost_of_each<const N: usize>(
        &self,
        keys: [K; N],
        cost: u32,
    ) -> Result<(), Duration> {
        if self.per_window == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_window);
        let per_second = capacity / self.window.as_secs_f64().max(1.0);
        let cost = f64::from(cost);
        if cost > capacity {
            return Err(Duration::MAX);
        }
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|_, bucket| {
                bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * per_second < capacity
            });
        }
        let mut short: f64 = 0.0;
        for key in &keys {
            let bucket = buckets.entry(key.clone()).or_insert(Bucket {
                tokens: capacity,
                at: now,
            });
            let refilled = now.duration_since(bucket.at).as_secs_f64() * per_second;
            bucket.tokens = (bucket.tokens + refilled).min(capacity);
            bucket.at = now;
            short = short.max(cost - bucket.tokens);
        }
        if short > 0.0 {
            return Err(Duration::from_secs_f64(short / per_second));
        }
        for key in &keys {
            if let Some(bucket) = buckets.get_mut(key) {
                bucket.tokens -= cost;
            }
        }
        Ok(())
    }
}

/// The client, when the server knows it: its address as the connection
/// caps count it ([`super::server::client_of`]), so that every per-client
/// limit tells clients apart by the one rule.
pub fn peer_ip(request: &Request) -> Option<IpAddr> {
    peer_in(request.extensions())
}

fn peer_in(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| super::server::client_of(addr.ip()))
}

/// [`peer_ip`] for a handler that reads its request through other
/// extractors.
pub struct PeerIp(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for PeerIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(PeerIp(peer_in(&parts.extensions)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_is_taken_from_every_bucket_or_from_none() {
        let limiter: RateLimiter<i64> = RateLimiter::keyed_per_minute(3);
        assert!(limiter.check_cost_of_each([1, 2], 2).is_ok());
        // Bucket 1 holds one: nothing is taken from bucket 3 either.
        let wait = limiter.check_cost_of_each([1, 3], 2).unwrap_err();
        assert!(wait > Duration::from_secs(10) && wait <= Duration::from_secs(20));
        assert!(limiter.check_cost(3, 3).is_ok());
        assert!(limiter.check_cost(1, 1).is_ok());
        assert_eq!(limiter.check_cost(4, 4), Err(Duration::MAX));
    }
}
