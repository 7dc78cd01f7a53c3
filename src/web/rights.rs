//! Who may change a submission. Everyone reads; changing labels or
//! attributes, undoing a change or deleting a submission needs the
//! submission's edit token or the server's admin token.
//!
//! An upload makes one random 128-bit token for the submissions it creates
//! (one per file, or per message of a mail archive). The database keeps
//! only its SHA-256, per submission. The uploader's browser gets it in a
//! cookie (`benchlog_edit_{first id}`, Path=/submissions, HttpOnly,
//! SameSite=Lax), and the page the upload redirects to shows it once (a
//! flash cookie, `benchlog_new_token`, tells that page to, and the page
//! clears it), so that it can be kept and entered elsewhere
//! (`POST /submissions/{id}/unlock`; a run's "edit" link, `edit=N`, asks
//! for it there and comes back to the run's form). Scripts send it as the
//! form field `token`. Tokens are compared by their hashes, in constant
//! time.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{AppendHeaders, IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::Router;
use rusqlite::Connection;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::state::AppState;
use super::{AppError, WebOptions};
use crate::limits::{MAX_FORM_BYTES, MAX_TOKEN_COOKIES};
use crate::store;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions/{id}/unlock", post(unlock))
        .route("/submissions/{id}/delete", post(delete))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_FORM_BYTES))
}

/// A year: how long a browser keeps a submission's edit token.
const TOKEN_COOKIE_SECONDS: u32 = 365 * 24 * 3600;

/// A fresh edit token: 128 random bits, as 32 hex digits.
pub fn new_token() -> Result<String, AppError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("no randomness for an edit token: {error}"))?;
    Ok(hex::encode(bytes))
}

fn sha256(token: &str) -> [u8; 32] {
    Sha256::digest(token.trim().as_bytes()).into()
}

/// Hex SHA-256 of a token, as stored.
pub fn token_hash(token: &str) -> String {
    hex::encode(sha256(token))
}

const EDIT_COOKIE_PREFIX: &str = "benchlog_edit_";
const FRESH_COOKIE: &str = "benchlog_new_token";

fn cookie_header(name: &str, value: &str, max_age: u32) -> HeaderValue {
    // Only ours and checked values get here: a valid header value.
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/submissions; Max-Age={max_age}; HttpOnly; SameSite=Lax"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("benchlog_invalid=1"))
}

/// The cookies an upload sets for the submissions it created (the first
/// being `first_id`): their token, and the note that the page should show
/// it once.
pub fn new_upload_cookies(first_id: i64, token: &str) -> [HeaderValue; 2] {
    [
        cookie_header(
            &format!("{EDIT_COOKIE_PREFIX}{first_id}"),
            token,
            TOKEN_COOKIE_SECONDS,
        ),
        cookie_header(FRESH_COOKIE, "1", 600),
    ]
}

/// The request's cookies, as (name, value).
fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (&str, &str)> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .map(|(name, value)| (name, value.trim()))
}

/// The edit tokens the request's cookies hold.
fn held_tokens(headers: &HeaderMap) -> Vec<String> {
    cookies(headers)
        .filter(|(name, _)| name.starts_with(EDIT_COOKIE_PREFIX))
        .map(|(_, value)| value.to_owned())
        .take(MAX_TOKEN_COOKIES)
        .collect()
}

/// Whether `presented` is the submission's token (whose hash is `stored`)
/// or the admin token.
fn grants(options: &WebOptions, stored: Option<&str>, presented: &str) -> bool {
    if presented.trim().is_empty() {
        return false;
    }
    let presented = sha256(presented);
    let own = stored
        .and_then(|stored| hex::decode(stored).ok())
        .is_some_and(|stored| bool::from(stored.as_slice().ct_eq(&presented)));
    let admin = options
        .admin_token
        .as_deref()
        .is_some_and(|admin| bool::from(sha256(admin).ct_eq(&presented)));
    own | admin
}

/// What the viewer of a submission page may do, and the token to show
/// them once.
pub struct ViewerRights {
    pub can_edit: bool,
    /// The token, on the first view after the upload that made it.
    pub fresh_token: Option<String>,
}

/// Reads the viewer's rights to submission `id` from their cookies (one
/// query).
pub fn viewer_rights(
    conn: &Connection,
    options: &WebOptions,
    id: i64,
    headers: &HeaderMap,
) -> Result<ViewerRights, AppError> {
    let stored = store::edit_token_of(conn, id)?.flatten();
    let granting = held_tokens(headers)
        .into_iter()
        .find(|token| grants(options, stored.as_deref(), token));
    let fresh = cookies(headers).any(|(name, _)| name == FRESH_COOKIE);
    Ok(ViewerRights {
        can_edit: granting.is_some(),
        // The admin token is never shown back.
        fresh_token: granting
            .filter(|token| fresh && stored.as_deref() == Some(&token_hash(token)[..])),
    })
}

/// The header that clears the "show the token once" cookie.
pub fn clear_fresh_cookie() -> HeaderValue {
    cookie_header(FRESH_COOKIE, "", 0)
}

/// Succeeds when the request may change submission `id`: its form's
/// `token` field or its cookie holds the submission's edit token or the
/// admin token. 404 when there is no such submission, 403 otherwise.
pub async fn require_edit_rights(
    state: &AppState,
    id: i64,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Result<(), AppError> {
    let mut presented: Vec<String> = form
        .iter()
        .filter(|(name, _)| name == "token")
        .map(|(_, value)| value.clone())
        .collect();
    presented.extend(held_tokens(headers));
    let options = state.options().clone();
    state
        .with_conn(move |conn| {
            let Some(stored) = store::edit_token_of(conn, id)? else {
                return Err(AppError::NotFound(format!("There is no submission {id}.")));
            };
            if presented
                .iter()
                .any(|token| grants(&options, stored.as_deref(), token))
            {
                return Ok(());
            }
            Err(AppError::Forbidden(if presented.is_empty() {
                format!("Changing submission {id} needs its edit token (given when it was uploaded) or the admin token; enter it on the submission's page. Everyone else can read it.")
            } else {
                format!("That is not the edit token of submission {id}, nor the admin token; nothing was changed.")
            }))
        })
        .await
}

fn submission_id(id: &str) -> Result<i64, AppError> {
    id.parse()
        .map_err(|_| AppError::bad_request(format!("{id:?} is not a submission number.")))
}

fn form_pairs(body: &[u8]) -> Result<Vec<(String, String)>, AppError> {
    serde_urlencoded::from_bytes(body)
        .map_err(|e| AppError::bad_request(format!("The form could not be read: {e}.")))
}

/// `POST /submissions/{id}/unlock` with `token`: checks the token and
/// lets this browser keep it, so that the page's forms work.
async fn unlock(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, AppError> {
    let id = submission_id(&id)?;
    let form = form_pairs(&body)?;
    let Some(token) = form
        .iter()
        .find(|(name, _)| name == "token")
        .map(|(_, value)| value.trim().to_owned())
        .filter(|token| !token.is_empty())
    else {
        return Err(AppError::bad_request(
            "Enter the edit token given when the submission was uploaded (or the admin token).",
        ));
    };
    // Only the token typed into the form counts here, not an old cookie.
    let only_typed = HeaderMap::new();
    require_edit_rights(&state, id, &only_typed, &form).await?;
    if !token.bytes().all(|b| b.is_ascii_graphic() && b != b';') {
        return Err(AppError::bad_request(
            "A token is one word of letters, digits and punctuation (no ;).",
        ));
    }
    let cookie = cookie_header(
        &format!("{EDIT_COOKIE_PREFIX}s{id}"),
        &token,
        TOKEN_COOKIE_SECONDS,
    );
    // Unlocked from a run's "edit" link: back to that run's form, open.
    let number = |name: &str| -> Result<Option<usize>, AppError> {
        form.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| {
                value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    AppError::bad_request(format!("{name}={value} is not a number (1 or more)."))
                })
            })
            .transpose()
    };
    let back = match number("run")? {
        Some(run) => {
            let part = number("part")?.unwrap_or(1);
            super::view::edit_url(id, part, number("runs")?, run, false)
        }
        None => format!("/submissions/{id}#review"),
    };
    Ok((AppendHeaders([(SET_COOKIE, cookie)]), Redirect::to(&back)).into_response())
}

/// `POST /submissions/{id}/delete`: removes the submission and everything
/// read from it.
async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, AppError> {
    let id = submission_id(&id)?;
    let form = form_pairs(&body)?;
    require_edit_rights(&state, id, &headers, &form).await?;
    state
        .with_conn(move |conn| {
            if store::delete_submission(conn, id)? {
                Ok(())
            } else {
                Err(AppError::NotFound(format!("There is no submission {id}.")))
            }
        })
        .await?;
    Ok(Redirect::to("/submissions").into_response())
}
