//! `/submissions`: the stored submissions, newest first, searched and
//! filtered; and `/submissions/{id}`, the review of one: its messages, the
//! runs found (with the forms that correct them, see `review`), ready
//! comparisons, the near misses and the text with every recognised line
//! marked and linked to its run.
//!
//! The review page is read ([`show::read`], one struct of rows), made into
//! the page without the database ([`page::review_page`], its lines by
//! [`lines::line_views`]), and rendered from `submissions/show.html`.

mod lines;
mod page;
mod show;

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{RawQuery, State};
use axum::routing::get;
use axum::Router;

use super::query::{page_number, query_pairs, tool_name};
use super::state::AppState;
use super::AppError;
use crate::limits::SUBMISSIONS_PER_PAGE;
use crate::store::{self, SubmissionSearch, SubmissionSummary};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions", get(index))
        .route("/submissions/{id}", get(show::show))
}

#[derive(Template, WebTemplate)]
#[template(path = "submissions/index.html")]
struct IndexPage {
    title: String,
    q: String,
    tool: String,
    tools: Vec<String>,
    submissions: Vec<SubmissionSummary>,
    page: usize,
    prev_url: Option<String>,
    next_url: Option<String>,
    total: i64,
}

async fn index(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<IndexPage, AppError> {
    let mut search = SubmissionSearch {
        limit: SUBMISSIONS_PER_PAGE + 1,
        ..SubmissionSearch::default()
    };
    let mut page = 1;
    for (key, value) in query_pairs(raw.as_deref())? {
        match key.as_str() {
            "q" => search.q = Some(value.trim().to_owned()).filter(|q| !q.is_empty()),
            "tool" if value.trim().is_empty() => search.tool = None,
            "tool" => search.tool = Some(tool_name(&value)?),
            "page" => page = page_number("page", &value)?,
            other => {
                return Err(AppError::bad_request(format!(
                    "unknown query parameter {other:?}; /submissions takes q, tool and page."
                )))
            }
        }
    }
    search.offset = (page - 1) * SUBMISSIONS_PER_PAGE;
    let for_closure = search.clone();
    let (mut submissions, total) = state
        .with_conn(move |conn| {
            Ok((
                store::search_submissions(conn, &for_closure)?,
                store::submission_count(conn)?,
            ))
        })
        .await?;
    let more = submissions.len() > SUBMISSIONS_PER_PAGE;
    submissions.truncate(SUBMISSIONS_PER_PAGE);
    let url = |page: usize| {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if let Some(q) = &search.q {
            pairs.push(("q", q.clone()));
        }
        if let Some(tool) = &search.tool {
            pairs.push(("tool", tool.clone()));
        }
        if page > 1 {
            pairs.push(("page", page.to_string()));
        }
        let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
        if query.is_empty() {
            "/submissions".to_owned()
        } else {
            format!("/submissions?{query}")
        }
    };
    let title = match (&search.q, &search.tool) {
        (Some(q), _) => format!("Submissions matching “{q}”"),
        (None, Some(tool)) => format!("Submissions with {tool} runs"),
        (None, None) => "Submissions".to_owned(),
    };
    Ok(IndexPage {
        title,
        q: search.q.clone().unwrap_or_default(),
        tool: search.tool.clone().unwrap_or_default(),
        tools: parsers::Tool::ALL
            .iter()
            .map(|t| t.name().to_owned())
            .collect(),
        submissions,
        page,
        prev_url: (page > 1).then(|| url(page - 1)),
        next_url: more.then(|| url(page + 1)),
        total,
    })
}
