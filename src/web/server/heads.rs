//! Over-long addresses and headers, answered with a page saying so.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::limits::{MAX_HEADER_BYTES, MAX_HEADER_COUNT, MAX_URI_BYTES};
use crate::web::AppError;

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
