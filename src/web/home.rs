//! `/`: the stored submissions, newest first, and the upload form.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;
use axum::routing::get;
use axum::Router;

use super::{AppError, AppState};
use crate::store::{self, SubmissionSummary};

/// The list is capped; older submissions stay reachable by id.
const LIST_LIMIT: usize = 500;

pub fn router() -> Router<AppState> {
    Router::new().route("/", get(home))
}

#[derive(Template, WebTemplate)]
#[template(path = "home/index.html")]
struct HomePage {
    title: &'static str,
    submissions: Vec<SubmissionSummary>,
    tools: Vec<(String, i64)>,
    max_upload_mb: usize,
}

async fn home(State(state): State<AppState>) -> Result<HomePage, AppError> {
    let (submissions, choices) = state
        .with_conn(|conn| {
            Ok((
                store::list_submissions(conn, LIST_LIMIT)?,
                store::choices(conn, None)?,
            ))
        })
        .await?;
    Ok(HomePage {
        title: "benchlog",
        submissions,
        tools: choices.tools,
        max_upload_mb: super::MAX_BODY_BYTES / 1024 / 1024,
    })
}
