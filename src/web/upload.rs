//! `POST /upload`: pasted text (`text`) or one or more files (`file`:
//! `.txt`, `.log`, `.gz`, ...), as multipart or urlencoded form. Everything
//! is checked before anything is stored; then each input becomes a
//! submission (or finds the one already holding the same text) and the
//! answer redirects to the first one's review, which lists the others when
//! there were several (`?uploaded=ID,ID,...`).

use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::header::{CONTENT_TYPE, SET_COOKIE};
use axum::http::StatusCode;
use axum::response::{AppendHeaders, IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::{Form, Router};
use serde::Deserialize;

use super::{guard, rights, AppError, AppState};
use crate::archive;
use crate::ingest::InputError;
use crate::store;

pub fn router() -> Router<AppState> {
    Router::new().route("/upload", post(upload))
}

#[derive(Debug, Deserialize)]
struct UploadForm {
    #[serde(default)]
    text: String,
}

/// One input of the form, before decoding.
struct Part {
    /// The file's name, or None for the pasted text.
    file_name: Option<String>,
    bytes: Vec<u8>,
}

async fn upload(State(state): State<AppState>, request: Request) -> Result<Response, AppError> {
    if let Err(wait) = state.inner.upload_limiter.check(guard::peer_ip(&request)) {
        let retry_after = wait.as_secs().max(1);
        return Err(AppError::TooManyRequests {
            message: format!(
                "Too many uploads from your address in a short time ({} a minute are allowed); please wait {retry_after} s and send it again.",
                state.options().uploads_per_minute
            ),
            retry_after,
        });
    }
    let content_type = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let parts = if content_type.starts_with("multipart/form-data") {
        read_multipart(request, &state).await?
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        let Form(form) = Form::<UploadForm>::from_request(request, &state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    too_large(&state)
                } else {
                    AppError::bad_request(format!(
                        "The form could not be read: {}",
                        rejection.body_text()
                    ))
                }
            })?;
        vec![Part {
            file_name: None,
            bytes: form.text.into_bytes(),
        }]
    } else {
        return Err(AppError::bad_request(
            "Send the upload as a form (multipart/form-data or application/x-www-form-urlencoded) with a text field or file parts.",
        ));
    };

    let mut texts = Vec::new();
    for part in parts {
        let what = match &part.file_name {
            Some(name) => format!("The file {name:?}"),
            None => "The pasted text".to_owned(),
        };
        // A .gz that is not gzip would otherwise be stored as text.
        let gz_name = part
            .file_name
            .as_deref()
            .is_some_and(|name| name.to_ascii_lowercase().ends_with(".gz"));
        if gz_name && !part.bytes.starts_with(&[0x1f, 0x8b]) {
            return Err(AppError::bad_request(format!(
                "{what} is named .gz but is not gzip-compressed; upload it as it is (renamed to .txt) or compress it with gzip."
            )));
        }
        // Mail archives (mbox, .eml) become one submission per message.
        match archive::prepare_input(part.file_name.as_deref(), &part.bytes) {
            Ok(input) => texts.push((part.file_name.unwrap_or_else(|| "paste".to_owned()), input)),
            // An empty text box next to a chosen file is not a mistake.
            Err(InputError::Empty) => {}
            Err(error @ InputError::TooLarge) => return Err(error.into()),
            Err(error) => return Err(AppError::bad_request(format!("{what}: {error}."))),
        }
    }
    if texts.is_empty() {
        return Err(AppError::bad_request(
            "Nothing to store: paste some benchmark output into the text box or choose a file.",
        ));
    }

    state.check_database_file()?;
    let (ids, cookies) = state
        .with_conn(move |conn| {
            let mut ids: Vec<i64> = Vec::new();
            // The uploader's right to change what this upload adds (see
            // `rights`): submissions numbered above the newest one now.
            let token = rights::new_token()?;
            let token_hash = rights::token_hash(&token);
            let newest_before = store::max_submission_id(conn)?;
            let mut first_new = None;
            for (name, input) in &texts {
                for stored in archive::store_input(conn, name, input)? {
                    if stored > newest_before
                        && store::insert_edit_token(conn, stored, &token_hash)?
                    {
                        first_new.get_or_insert(stored);
                    }
                    if !ids.contains(&stored) {
                        ids.push(stored);
                    }
                }
            }
            let cookies = first_new
                .map(|first| rights::new_upload_cookies(first, &token).to_vec())
                .unwrap_or_default();
            Ok((ids, cookies))
        })
        .await?;
    let redirect = match ids.as_slice() {
        [] => return Err(AppError::bad_request("Nothing to store.")),
        [only] => Redirect::to(&format!("/submissions/{only}")),
        [first, ..] => {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            Redirect::to(&format!("/submissions/{first}?uploaded={}", list.join(",")))
        }
    };
    let cookies = cookies.into_iter().map(|cookie| (SET_COOKIE, cookie));
    Ok((AppendHeaders(cookies), redirect).into_response())
}

fn too_large(state: &AppState) -> AppError {
    AppError::TooLarge(format!(
        "The upload is larger than {} MB; split it or ingest it with `benchlog ingest`.",
        state.options().max_body_bytes / 1024 / 1024
    ))
}

async fn read_multipart(request: Request, state: &AppState) -> Result<Vec<Part>, AppError> {
    let mut multipart = Multipart::from_request(request, state)
        .await
        .map_err(|rejection| {
            AppError::bad_request(format!(
                "The form could not be read: {}",
                rejection.body_text()
            ))
        })?;
    let mut parts = Vec::new();
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
        match name.as_str() {
            "text" => parts.push(Part {
                file_name: None,
                bytes: bytes.to_vec(),
            }),
            "file" => {
                // Browsers send an empty, nameless part when no file was chosen.
                if bytes.is_empty() && file_name.as_deref().unwrap_or("").is_empty() {
                    continue;
                }
                parts.push(Part {
                    file_name: Some(file_name.unwrap_or_else(|| "upload".to_owned())),
                    bytes: bytes.to_vec(),
                });
            }
            // Other fields (a submit button's name, say) carry no input.
            _ => {}
        }
    }
    Ok(parts)
}

fn multipart_error(error: axum::extract::multipart::MultipartError, state: &AppState) -> AppError {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large(state)
    } else {
        AppError::bad_request(format!("The form could not be read: {}", error.body_text()))
    }
}
