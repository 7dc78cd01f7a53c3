//! `POST /upload`: pasted text (`text`) or one or more files (`file`:
//! `.txt`, `.log`, `.gz`, ...), as multipart or urlencoded form. Everything
//! is checked before anything is stored; then each input becomes a
//! submission (or finds the one already holding the same text) and the
//! answer redirects to the first one's review, which lists the others when
//! there were several (`?uploaded=ID,ID,...`).

use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::Redirect;
use axum::routing::post;
use axum::{Form, Router};
use serde::Deserialize;

use super::{AppError, AppState};
use crate::archive;
use crate::ingest::InputError;

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

async fn upload(State(state): State<AppState>, request: Request) -> Result<Redirect, AppError> {
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
            .map_err(|rejection| AppError::bad_request(rejection.body_text()))?;
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

    let ids = state
        .with_conn(move |conn| {
            let mut ids: Vec<i64> = Vec::new();
            for (name, input) in &texts {
                for stored in archive::store_input(conn, name, input)? {
                    if !ids.contains(&stored) {
                        ids.push(stored);
                    }
                }
            }
            Ok(ids)
        })
        .await?;
    match ids.as_slice() {
        [] => Err(AppError::bad_request("Nothing to store.")),
        [only] => Ok(Redirect::to(&format!("/submissions/{only}"))),
        [first, ..] => {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            Ok(Redirect::to(&format!(
                "/submissions/{first}?uploaded={}",
                list.join(",")
            )))
        }
    }
}

async fn read_multipart(request: Request, state: &AppState) -> Result<Vec<Part>, AppError> {
    let mut multipart = Multipart::from_request(request, state)
        .await
        .map_err(|rejection| AppError::bad_request(rejection.body_text()))?;
    let mut parts = Vec::new();
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(error) => return Err(multipart_error(error)),
        };
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let bytes = field.bytes().await.map_err(multipart_error)?;
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

fn multipart_error(error: axum::extract::multipart::MultipartError) -> AppError {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        AppError::TooLarge(format!(
            "The upload is larger than {} MB; split it or ingest it with `benchlog ingest`.",
            super::MAX_BODY_BYTES / 1024 / 1024
        ))
    } else {
        AppError::bad_request(format!("The form could not be read: {}", error.body_text()))
    }
}
