//! The web layer's one error type. Status codes are decided in one place
//! ([`AppError::status`]); a user's mistake gets a message saying what to
//! change, an internal error is logged and shown as a plain page.

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::charts::ChartError;
use crate::compare::{CompareError, QueryError};
use crate::ingest::InputError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request can be fixed by the user; the message says how.
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    TooLarge(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        AppError::BadRequest(message.into())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(error: rusqlite::Error) -> Self {
        AppError::Internal(anyhow::Error::new(error).context("database"))
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
        let message = match &self {
            AppError::Internal(error) => {
                tracing::error!("internal error: {error:#}");
                "Something went wrong on our side. It has been logged; please try again later."
                    .to_owned()
            }
            other => other.to_string(),
        };
        let title = status.canonical_reason().unwrap_or("Error");
        let page = ErrorPage {
            title,
            status: status.as_u16(),
            message: &message,
        };
        match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => (status, message).into_response(),
        }
    }
}
