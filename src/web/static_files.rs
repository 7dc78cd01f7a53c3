//! `/static`: the stylesheets built into the binary
//! ([`crate::embedded::STATIC`]), each with its type and a tag a browser
//! revalidates with; or, with `--static-dir`, the files of that folder.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use axum::body::Bytes;
use axum::extract::Path as UrlPath;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::services::ServeDir;

use super::cache::Answer;
use crate::embedded;

/// Asked again after each upgrade rather than kept for a while: the URLs
/// carry no version, and a 304 costs little.
const CACHE: &str = "no-cache";

/// The service nested at `/static`.
pub fn service(folder: Option<&Path>) -> Router {
    match folder {
        Some(folder) => Router::new().fallback_service(ServeDir::new(folder)),
        None => Router::new().route("/{*path}", get(built_in)),
    }
}

async fn built_in(UrlPath(path): UrlPath<String>, headers: HeaderMap) -> Response {
    match answers().get(path.as_str()) {
        Some(answer) => answer.respond(&headers, Some(CACHE)),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Every built-in file as an answer, made on first use.
fn answers() -> &'static HashMap<&'static str, Answer> {
    static ANSWERS: OnceLock<HashMap<&'static str, Answer>> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        embedded::STATIC
            .iter()
            .map(|&(name, bytes)| {
                let content_type = mime_guess::from_path(name)
                    .first_raw()
                    .unwrap_or("application/octet-stream");
                (name, Answer::new(content_type, Bytes::from_static(bytes)))
            })
            .collect()
    })
}
