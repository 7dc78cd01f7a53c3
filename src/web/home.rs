//! `/`: what the database holds (runs and submissions per tool), the
//! upload form, the comparisons the data holds, each with a small chart,
//! and the newest submissions.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use rusqlite::Connection;

use super::state::AppState;
use super::{ready, Answer, AppError};
use crate::charts;
use crate::limits::{READY, READY_CANDIDATES, READY_SCAN_RUNS, RECENT};
use crate::store::{self, SubmissionSummary, ToolCount};

pub fn router() -> Router<AppState> {
    Router::new().route("/", get(home))
}

#[derive(Template, WebTemplate)]
#[template(path = "home/index.html")]
struct HomePage {
    title: &'static str,
    counts: Vec<ToolCount>,
    total_runs: i64,
    total_submissions: i64,
    recent: Vec<SubmissionSummary>,
    ready: Vec<ReadyView>,
    max_upload_mb: usize,
    max_title_chars: usize,
    /// On a read replica, the primary's address, where submissions go
    /// instead of this server's form.
    primary_url: Option<String>,
}

struct ReadyView {
    url: String,
    submission_id: i64,
    submission: String,
    what: String,
    by: String,
    runs: usize,
    proven: usize,
    one_run_a_side: bool,
    svg: String,
}

/// Made once per data generation: seven queries, at most 24 groups of
/// runs weighed and six small charts drawn, whatever is stored.
async fn home(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, AppError> {
    let primary_url = state.primary_url().map(str::to_owned);
    let answer = state
        .answer("/".to_owned(), move |conn| render(conn, primary_url))
        .await?;
    Ok(answer.respond(&headers, None))
}

fn render(conn: &Connection, primary_url: Option<String>) -> Result<Answer, AppError> {
    let groups = store::ready_groups(conn, READY_CANDIDATES, READY_SCAN_RUNS)?;
    // A reply quoting a whole report would draw its chart again: the
    // first post of those runs keeps it (the groups come newest first, and
    // both lists hold at most READY_CANDIDATES).
    let shown: Vec<&store::RunGroup> = groups
        .iter()
        .enumerate()
        .filter(|&(i, group)| !groups[i + 1..].iter().any(|older| group.repeats(older)))
        .map(|(_, group)| group)
        .collect();
    let mut candidates: Vec<_> = shown
        .into_iter()
        .filter_map(|group| {
            ready::headline_comparison(group.submission_id, &group.runs).map(|c| (group, c))
        })
        .collect();
    // Newest first among equals: the groups come newest first.
    candidates.sort_by_key(|(_, comparison)| std::cmp::Reverse(comparison.proven));
    let mut ready = Vec::new();
    for (group, comparison) in candidates.into_iter().take(READY) {
        let svg = charts::render_svg(&ready::small_chart(&comparison, &group.runs))?;
        ready.push(ReadyView {
            url: comparison.url.clone(),
            submission_id: group.submission_id,
            submission: group
                .subject
                .clone()
                .or_else(|| group.source_name.clone())
                .unwrap_or_else(|| format!("submission {}", group.submission_id)),
            what: comparison.what(),
            by: if comparison.by.is_empty() {
                "all runs".to_owned()
            } else {
                format!("by {}", comparison.by.join(", "))
            },
            proven: comparison.proven,
            one_run_a_side: comparison.one_run_a_side,
            runs: comparison.runs,
            svg,
        });
    }
    let counts = store::tool_counts(conn)?;
    let total_submissions = store::submission_count(conn)?;
    let recent = store::list_submissions(conn, RECENT)?;
    let page = HomePage {
        title: "benchlog",
        total_runs: counts.iter().map(|c| c.runs).sum(),
        counts,
        total_submissions,
        recent,
        ready,
        max_upload_mb: crate::limits::MAX_BODY_BYTES / 1024 / 1024,
        max_title_chars: crate::limits::MAX_TITLE_CHARS,
        primary_url,
    };
    Answer::page(&page)
}
