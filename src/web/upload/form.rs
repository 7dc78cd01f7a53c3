//! Reading an upload's form: its parts and its title, multipart or
//! urlencoded, each error a clear 4xx that says what was wrong.

use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;

use super::Part;
use crate::limits::MAX_UPLOAD_PARTS;
use crate::web::bodies::TooSlow;
use crate::web::state::AppState;
use crate::web::AppError;

/// The form's parts and its title, multipart or urlencoded.
pub(super) async fn read_form(
    request: Request,
    state: &AppState,
) -> Result<(Vec<Part>, Option<String>), AppError> {
    let content_type = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("multipart/form-data") {
        read_multipart(request, state).await
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        let body = axum::body::to_bytes(request.into_body(), state.options().max_body_bytes)
            .await
            .map_err(|error| body_error(&error, state))?;
        let (text, title) = form_fields(&body);
        let part = Part {
            file_name: None,
            bytes: text.into(),
        };
        Ok((vec![part], upload_title(&title)?))
    } else {
        Err(AppError::bad_request(
            "Send the upload as a form (multipart/form-data or application/x-www-form-urlencoded) with a text field or file parts.",
        ))
    }
}

/// The `text` and `title` fields of a urlencoded form, as the bytes that
/// were sent: a form posted in Latin-1 (or any 8-bit charset) is then
/// decoded like an uploaded file, instead of having its accented letters
/// replaced.
fn form_fields(body: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let (mut text, mut title) = (Vec::new(), Vec::new());
    for pair in body.split(|&byte| byte == b'&') {
        let (name, value) = match pair.iter().position(|&byte| byte == b'=') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &[][..]),
        };
        match form_decode(name).as_slice() {
            b"text" => text = form_decode(value),
            b"title" => title = form_decode(value),
            _ => {}
        }
    }
    (text, title)
}

/// Undoes a form's encoding: `+` is a space, `%XX` a byte.
fn form_decode(bytes: &[u8]) -> Vec<u8> {
    let spaced: Vec<u8> = bytes
        .iter()
        .map(|&byte| if byte == b'+' { b' ' } else { byte })
        .collect();
    percent_encoding::percent_decode(&spaced).collect()
}

pub(super) fn too_large(state: &AppState) -> AppError {
    AppError::TooLarge(format!(
        "The upload is larger than {} MB; split it or ingest it with `benchlog ingest`.",
        state.options().max_body_bytes / 1024 / 1024
    ))
}

async fn read_multipart(
    request: Request,
    state: &AppState,
) -> Result<(Vec<Part>, Option<String>), AppError> {
    let mut multipart = Multipart::from_request(request, state)
        .await
        .map_err(|rejection| {
            AppError::bad_request(format!(
                "The form could not be read: {}",
                rejection.body_text()
            ))
        })?;
    let mut parts = Vec::new();
    let mut title = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(error) => return Err(multipart_error(error, state)),
        };
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let bytes = field
            .bytes()
            .await
            .map_err(|error| multipart_error(error, state))?;
        if matches!(name.as_str(), "text" | "file") && parts.len() == MAX_UPLOAD_PARTS {
            return Err(AppError::bad_request(format!(
                "The form carries more than {MAX_UPLOAD_PARTS} texts and files; send at most {MAX_UPLOAD_PARTS} at a time."
            )));
        }
        match name.as_str() {
            "text" => parts.push(Part {
                file_name: None,
                bytes,
            }),
            "file" => {
                // Browsers send an empty, nameless part when no file was chosen.
                if bytes.is_empty() && file_name.as_deref().unwrap_or("").is_empty() {
                    continue;
                }
                parts.push(Part {
                    file_name: Some(file_name.unwrap_or_else(|| "upload".to_owned())),
                    bytes,
                });
            }
            "title" => title = upload_title(&bytes)?,
            // Other fields (a submit button's name, say) carry no input.
            _ => {}
        }
    }
    Ok((parts, title))
}

/// The title given with an upload, its white space collapsed (it is one
/// line); `None` when empty. A title longer than
/// [`crate::limits::MAX_TITLE_CHARS`] is refused, not cut.
fn upload_title(bytes: &[u8]) -> Result<Option<String>, AppError> {
    let title = String::from_utf8_lossy(bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let chars = title.chars().count();
    if chars > crate::limits::MAX_TITLE_CHARS {
        return Err(AppError::bad_request(format!(
            "The title is {chars} characters long; give at most {} (the text itself is kept whole).",
            crate::limits::MAX_TITLE_CHARS
        )));
    }
    Ok((!title.is_empty()).then_some(title))
}

fn multipart_error(error: axum::extract::multipart::MultipartError, state: &AppState) -> AppError {
    match error.status() {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(state),
        // What axum cannot place is the body failing to arrive.
        StatusCode::INTERNAL_SERVER_ERROR => body_error(&error, state),
        _ => AppError::bad_request(format!("The form could not be read: {}", error.body_text())),
    }
}

/// A body dropped for coming too slowly ([`MinimumRate`]).
pub(super) fn too_slow(slow: &TooSlow) -> AppError {
    let seconds = slow.window.as_secs_f64();
    AppError::TooSlow(format!(
        "The upload's body arrived too slowly: {} bytes in {seconds:.1} s, and each {seconds:.1} s must bring at least {} KiB (or the rest of it). Nothing was stored; send it again over a faster connection.",
        slow.brought,
        slow.least.div_ceil(1024)
    ))
}

/// A request body that could not be read whole: over the body limit, or
/// ended before all of it arrived (the client sent less than its
/// Content-Length, or went away).
pub(super) fn body_error(error: &(dyn std::error::Error + 'static), state: &AppState) -> AppError {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<http_body_util::LengthLimitError>() {
            return too_large(state);
        }
        if let Some(slow) = error.downcast_ref::<TooSlow>() {
            return too_slow(slow);
        }
        cause = error.source();
    }
    AppError::bad_request(
        "The upload's body ended before all of it arrived (less than its Content-Length was sent): it was cut short; send it again.",
    )
}
