//! The web layer's one error type. Status codes are decided in one place
//! ([`AppError::status`]); a user's mistake gets a message saying what to
//! change, an internal error is logged and shown as a plain page.

use askama::Template;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};

use crate::charts::ChartError;
use crate::compare::{CompareError, QueryError};
use crate::intake::InputError;
use crate::store;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request can be fixed by the user; the message says how.
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    UriTooLong(String),
    #[error("{0}")]
    HeadersTooLarge(String),
    /// The request came too slowly (an upload's body under the least
    /// rate); the message says what was too slow.
    #[error("{0}")]
    TooSlow(String),
    /// A `Range` that starts past the end of an answer of `len` bytes
    /// ([`super::cache`]'s rule for ranges).
    #[error("The range asked for starts past the end of this answer, which is {len} bytes long (bytes 0 to {last}): ask for bytes within it, or leave Range out for all of it.", last = len.saturating_sub(1))]
    RangeNotSatisfiable { len: u64 },
    /// Changing something needs a token the request did not carry, or the
    /// request came from another site.
    #[error("{0}")]
    Forbidden(String),
    /// Too many requests from one client; it may try again after
    /// `retry_after` seconds.
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    /// The server is doing as much of this as it may at once; the client
    /// may try again after `retry_after` seconds.
    #[error("{message}")]
    Busy { message: String, retry_after: u64 },
    /// The database cannot be used on the server's side (read-only, disk
    /// full, file deleted): nothing a request can fix, and nothing stored.
    #[error("The server cannot store anything right now: {problem}. Nothing was stored (sending it again later stores nothing twice); please try again later.")]
    Unavailable {
        problem: store::Unavailable,
        /// What failed, for the log.
        detail: String,
    },
    #[error(transparent)]
    Internal(anyhow::Error),
}

impl AppError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        AppError::BadRequest(message.into())
    }

    pub fn unavailable(problem: store::Unavailable) -> Self {
        AppError::Unavailable {
            problem,
            detail: problem.to_string(),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UriTooLong(_) => StatusCode::URI_TOO_LONG,
            AppError::HeadersTooLarge(_) => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            AppError::TooSlow(_) => StatusCode::REQUEST_TIMEOUT,
            AppError::RangeNotSatisfiable { .. } => StatusCode::RANGE_NOT_SATISFIABLE,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable { .. } | AppError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the answer says: the error's own message, except for an
    /// internal error, which is logged and not shown.
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(error) => {
                tracing::error!("internal error: {error:#}");
                "Something went wrong on our side. It has been logged; please try again later."
                    .to_owned()
            }
            AppError::Unavailable { detail, .. } => {
                tracing::error!("database unavailable: {detail}");
                self.to_string()
            }
            other => other.to_string(),
        }
    }
}

/// Any error of the work behind a request: a server-side database failure
/// anywhere in its causes makes it [`AppError::Unavailable`], and another
/// writer holding the write lock past the busy timeout [`AppError::Busy`]:
/// nothing was stored, and sending it again shortly may well work.
impl From<anyhow::Error> for AppError {
    fn from(error: anyhow::Error) -> Self {
        if let Some(problem) = store::Unavailable::in_chain(error.chain()) {
            return AppError::Unavailable {
                problem,
                detail: format!("{error:#}"),
            };
        }
        let busy = error.chain().any(|cause| {
            cause
                .downcast_ref::<rusqlite::Error>()
                .and_then(rusqlite::Error::sqlite_error_code)
                .is_some_and(|code| {
                    matches!(
                        code,
                        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                    )
                })
        });
        if busy {
            tracing::warn!("database busy: {error:#}");
            return AppError::Busy {
                message: format!(
                    "The database was busy with other changes for longer than {} s. Nothing was stored; please send it again in a few seconds.",
                    crate::limits::BUSY_TIMEOUT.as_secs()
                ),
                retry_after: BUSY_RETRY_AFTER_SECS,
            };
        }
        AppError::Internal(error)
    }
}

/// The `Retry-After` of an answer to a request that found the database
/// busy: about one write lock's longest hold.
const BUSY_RETRY_AFTER_SECS: u64 = 5;

impl From<rusqlite::Error> for AppError {
    fn from(error: rusqlite::Error) -> Self {
        anyhow::Error::new(error).context("database").into()
    }
}

impl From<QueryError> for AppError {
    fn from(error: QueryError) -> Self {
        AppError::BadRequest(error.0)
    }
}

impl From<CompareError> for AppError {
    fn from(error: CompareError) -> Self {
        match error {
            CompareError::Query(query) => query.into(),
            CompareError::Database(db) => db.into(),
        }
    }
}

impl From<InputError> for AppError {
    fn from(error: InputError) -> Self {
        match error {
            InputError::TooLarge => AppError::TooLarge(error.to_string()),
            other => AppError::BadRequest(other.to_string()),
        }
    }
}

impl From<ChartError> for AppError {
    fn from(error: ChartError) -> Self {
        AppError::Internal(error.into())
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    title: &'a str,
    status: u16,
    message: &'a str,
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = self.public_message();
        let mut response = error_page(status, &message);
        if let AppError::TooManyRequests { retry_after, .. } | AppError::Busy { retry_after, .. } =
            &self
        {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
        }
        if let AppError::RangeNotSatisfiable { len } = &self {
            if let Ok(range) = HeaderValue::from_str(&format!("bytes */{len}")) {
                response.headers_mut().insert(header::CONTENT_RANGE, range);
            }
        }
        response.extensions_mut().insert(ErrorMessage(message));
        response
    }
}

fn error_page(status: StatusCode, message: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("Error");
    let page = ErrorPage {
        title,
        status: status.as_u16(),
        message,
    };
    match page.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(_) => (status, message.to_owned()).into_response(),
    }
}

/// The message of an error response made from an [`AppError`], kept so
/// that [`error_pages`] can give it as JSON instead.
#[derive(Debug, Clone)]
struct ErrorMessage(String);

/// Every error answer says what was wrong, as a page, or as JSON
/// (`{"error": ..., "status": ...}`) on the `.json` routes: the ones made
/// by handlers, and the bare ones of the layers and the router (413 from
/// the body limit, 408 from the timeout, 405, a missing static file).
pub async fn error_pages(request: Request, next: Next) -> Response {
    let json = request.uri().path().ends_with(".json");
    let response = next.run(request).await;
    let status = response.status();
    if !status.is_client_error() && !status.is_server_error() {
        return response;
    }
    let message = match response.extensions().get::<ErrorMessage>() {
        Some(_) if !json => return response,
        Some(ErrorMessage(message)) => message.clone(),
        // A handler's own answer in the form it was asked for (the compare
        // page's CSV and images say what was wrong as text).
        None if !is_bare(&response) => return response,
        None => bare_status_message(status),
    };
    let (mut parts, _) = response.into_parts();
    let fresh = if json {
        let body = serde_json::json!({ "error": message, "status": status.as_u16() });
        (status, axum::Json(body)).into_response()
    } else {
        error_page(status, &message)
    };
    let (fresh_parts, body) = fresh.into_parts();
    for name in [
        header::CONTENT_TYPE,
        header::CONTENT_LENGTH,
        header::CONTENT_ENCODING,
    ] {
        parts.headers.remove(&name);
        if let Some(value) = fresh_parts.headers.get(&name) {
            parts.headers.insert(name, value.clone());
        }
    }
    Response::from_parts(parts, body)
}

/// An answer of the layers or of axum itself: empty, or one of the
/// statuses only they give (their bodies are terse technical text).
fn is_bare(response: &Response) -> bool {
    use axum::body::HttpBody;
    response.body().size_hint().exact() == Some(0)
        || matches!(
            response.status(),
            StatusCode::PAYLOAD_TOO_LARGE
                | StatusCode::REQUEST_TIMEOUT
                | StatusCode::METHOD_NOT_ALLOWED
                | StatusCode::UNSUPPORTED_MEDIA_TYPE
                | StatusCode::UNPROCESSABLE_ENTITY
        )
}

fn bare_status_message(status: StatusCode) -> String {
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => "The request is too large. Split the upload into smaller files, or store large archives with `benchlog ingest`.".to_owned(),
        StatusCode::REQUEST_TIMEOUT => "The request took too long (a very slow connection or a very large upload); please try again, or store large inputs with `benchlog ingest`.".to_owned(),
        StatusCode::METHOD_NOT_ALLOWED => "This address does not take this kind of request (forms are sent with POST, pages read with GET).".to_owned(),
        StatusCode::NOT_FOUND => "There is no page or file at this address.".to_owned(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "The request's content type is not one this address reads; send a form.".to_owned(),
        status if status.is_server_error() => "Something went wrong on our side; please try again later.".to_owned(),
        status => format!("The request could not be handled ({status})."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: std::ffi::c_int) -> anyhow::Error {
        anyhow::Error::new(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            Some("database is locked".to_owned()),
        ))
        .context("storing the upload")
    }

    #[test]
    fn a_busy_database_is_503_with_retry_after_never_500() {
        for code in [rusqlite::ffi::SQLITE_BUSY, rusqlite::ffi::SQLITE_LOCKED] {
            let error = AppError::from(sqlite(code));
            assert_eq!(error.status(), StatusCode::SERVICE_UNAVAILABLE, "{code}");
            let response = error.into_response();
            assert_eq!(
                response.headers()[header::RETRY_AFTER],
                BUSY_RETRY_AFTER_SECS.to_string()
            );
        }
        let message = AppError::from(sqlite(rusqlite::ffi::SQLITE_BUSY)).public_message();
        assert!(message.contains("Nothing was stored"), "{message}");
        // Anything else stays an internal error.
        let other = AppError::from(sqlite(rusqlite::ffi::SQLITE_MISMATCH));
        assert_eq!(other.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
