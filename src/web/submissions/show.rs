//! `/submissions/{id}`: its query, the one read of what the page shows,
//! and the rendering, off the async workers when the page is large.

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::header::SET_COOKIE;
use axum::http::HeaderMap;
use axum::response::{AppendHeaders, Html, IntoResponse, Response};
use rusqlite::Connection;

use super::super::query::{page_number, query_pairs};
use super::super::rights;
use super::super::state::AppState;
use super::super::{AppError, WebOptions};
use super::page::{review_page, Part, ReviewRead};
use crate::limits::{LABEL_TAGS_PER_BLOCK, MAX_UPLOADED_SHOWN, PART_LINES, SMALL_PAGE_BYTES};
use crate::store;

/// What the review page's query string may carry (after an upload or an
/// edit, or to show another part of a long text).
#[derive(Default)]
pub(super) struct ShowParams {
    pub(super) saved: Option<usize>,
    pub(super) undone: bool,
    /// The upload that led here stored nothing new: its text was stored
    /// already, as this submission.
    pub(super) already: bool,
    pub(super) uploaded: Vec<i64>,
    pub(super) part: Option<usize>,
    /// The first run listed, of those of the part.
    pub(super) runs: Option<usize>,
    /// The run whose edit form to open (1-based).
    pub(super) edit: Option<usize>,
}

fn show_params(raw: Option<&str>) -> Result<ShowParams, AppError> {
    let mut params = ShowParams::default();
    for (key, value) in query_pairs(raw)? {
        match key.as_str() {
            "saved" => {
                params.saved = Some(value.parse().map_err(|_| {
                    AppError::bad_request(format!("saved={value} is not a number."))
                })?)
            }
            "undone" => params.undone = true,
            "already" => params.already = true,
            "part" => params.part = Some(page_number("part", &value)?),
            "runs" => {
                params.runs = Some(value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    AppError::bad_request(format!("runs={value} is not a run number (1 or more)."))
                })?)
            }
            "edit" => {
                params.edit = Some(value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    AppError::bad_request(format!("edit={value} is not a run number (1 or more)."))
                })?)
            }
            "uploaded" => {
                for id in value.split(',').filter(|id| !id.is_empty()) {
                    let id = id.parse().map_err(|_| {
                        AppError::bad_request(format!(
                            "uploaded={value} is not a list of submission numbers."
                        ))
                    })?;
                    if params.uploaded.len() >= MAX_UPLOADED_SHOWN {
                        break;
                    }
                    if !params.uploaded.contains(&id) {
                        params.uploaded.push(id);
                    }
                }
            }
            other => {
                return Err(AppError::bad_request(format!(
                    "unknown query parameter {other:?} for a submission page."
                )))
            }
        }
    }
    Ok(params)
}
/// The review page. Its queries read only the part of the text shown and
/// the rows that touch it, so a page costs the same bounded work (and
/// memory) for a 64 MB text as for a mail; the page is built and
/// rendered on a blocking thread, never on the async workers.
pub(super) async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let id: i64 = id
        .parse()
        .map_err(|_| AppError::bad_request(format!("{id:?} is not a submission number.")))?;
    let params = show_params(raw.as_deref())?;
    let options = state.options().clone();
    let page = state
        .with_conn(move |conn| {
            Ok(review_page(
                read(conn, &options, id, &params, &headers)?,
                &params,
            ))
        })
        .await?;
    let fresh_token = page.shows_fresh_token();
    let small = page.weight() <= SMALL_PAGE_BYTES;
    // Most pages are a mail's worth and render in well under a
    // millisecond, here; a part of a long text (up to 2,000 lines of up to
    // 2,000 characters) renders on a blocking thread, off the async
    // workers, without holding a database place while it does.
    let render = move || {
        page.render().map_err(|e| {
            AppError::Internal(anyhow::Error::new(e).context("rendering a submission page"))
        })
    };
    let html = if small {
        render()?
    } else {
        tokio::task::spawn_blocking(render)
            .await
            .map_err(|e| AppError::Internal(anyhow::Error::new(e).context("rendering a page")))??
    };
    // The token is shown once: the flash cookie goes with this page.
    let clear = fresh_token.then(|| (SET_COOKIE, rights::clear_fresh_cookie()));
    Ok((AppendHeaders(clear), Html(html)).into_response())
}

/// Reads what the review page shows: a bounded number of queries, each
/// reading at most [`crate::limits::PART_ROWS`] rows, however large the
/// submission.
pub(super) fn read(
    conn: &Connection,
    options: &WebOptions,
    id: i64,
    params: &ShowParams,
    headers: &HeaderMap,
) -> Result<ReviewRead, AppError> {
    let Some(submission) = store::get_submission_head(conn, id)? else {
        return Err(AppError::NotFound(format!("There is no submission {id}.")));
    };
    let rights = rights::viewer_rights(conn, options, id, headers)?;
    let uploaded = if params.uploaded.len() > 1 {
        store::submissions_by_ids(conn, &params.uploaded)?
    } else {
        Vec::new()
    };
    let wanted = params.part.unwrap_or(1);
    let first_line = (wanted - 1).saturating_mul(PART_LINES).saturating_add(1);
    let text = store::text_window(conn, id, first_line, first_line + PART_LINES - 1)?;
    let part = Part::of(wanted, text.total_lines);
    if wanted > part.count {
        return Err(AppError::NotFound(format!(
            "Submission {id} has {} part{} of {PART_LINES} lines; there is no part {wanted}.",
            part.count,
            if part.count == 1 { "" } else { "s" }
        )));
    }
    let window = part.window();
    Ok(ReviewRead {
        counts: store::submission_counts(conn, id)?,
        messages: store::messages_in_lines(conn, id, &window)?,
        runs: store::runs_in_lines(conn, id, &window)?,
        label_blocks: store::label_blocks_in_lines(conn, id, &window, LABEL_TAGS_PER_BLOCK)?,
        unparsed: store::unparsed_in_lines(conn, id, &window)?,
        edits: store::edits_in_lines(conn, id, &window)?,
        runs_per_message: store::runs_per_message(conn, id)?,
        thread_id: store::thread_of_submission(conn, id)?,
        quotes: store::quotes_of_submission(conn, id, &window)?,
        archived: store::archived_text(conn, id)?,
        submission,
        rights,
        uploaded,
        lines: text.lines,
        part,
    })
}
