//! `/submissions`: the stored submissions, newest first, searched and
//! filtered; and `/submissions/{id}`, the review of one: its messages, the
//! runs found (with the forms that correct them, see `review`), ready
//! comparisons, the near misses and the text with every recognised line
//! marked and linked to its run.

use std::collections::HashMap;

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, RawQuery, State};
use axum::http::header::SET_COOKIE;
use axum::http::HeaderMap;
use axum::response::{AppendHeaders, IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::ready::{self, ReadyComparison};
use super::rights::{self, ViewerRights};
use super::{AppError, AppState};
use crate::store::{
    self, RunEdit, RunField, StoredMessage, StoredRun, StoredUnparsed, Submission,
    SubmissionSearch, SubmissionSummary,
};

/// Submissions per page of the list.
const PAGE_SIZE: usize = 50;

/// Most submissions one upload's notice lists.
const MAX_UPLOADED_SHOWN: usize = 100;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions", get(index))
        .route("/submissions/{id}", get(show))
}

/// The query string's pairs, or a message saying it could not be read.
pub(super) fn query_pairs(raw: Option<&str>) -> Result<Vec<(String, String)>, AppError> {
    Ok(crate::compare::query_pairs(raw.unwrap_or(""))?)
}

/// `page=N` (1-based), checked.
pub(super) fn page_number(value: &str) -> Result<usize, AppError> {
    match value.trim().parse::<usize>() {
        Ok(page) if (1..=100_000).contains(&page) => Ok(page),
        _ => Err(AppError::bad_request(format!(
            "page={value} is not a page number; pages count from 1."
        ))),
    }
}

/// A tool name from a query, checked against the tools benchlog reads.
pub(super) fn tool_name(value: &str) -> Result<String, AppError> {
    match parsers::Tool::from_name(value.trim()) {
        Some(tool) => Ok(tool.name().to_owned()),
        None => {
            let known: Vec<&str> = parsers::Tool::ALL.iter().map(|t| t.name()).collect();
            Err(AppError::bad_request(format!(
                "unknown tool {value:?}; choose one of {}.",
                known.join(", ")
            )))
        }
    }
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
        limit: PAGE_SIZE + 1,
        ..SubmissionSearch::default()
    };
    let mut page = 1;
    for (key, value) in query_pairs(raw.as_deref())? {
        match key.as_str() {
            "q" => search.q = Some(value.trim().to_owned()).filter(|q| !q.is_empty()),
            "tool" if value.trim().is_empty() => search.tool = None,
            "tool" => search.tool = Some(tool_name(&value)?),
            "page" => page = page_number(&value)?,
            other => {
                return Err(AppError::bad_request(format!(
                    "unknown query parameter {other:?}; /submissions takes q, tool and page."
                )))
            }
        }
    }
    search.offset = (page - 1) * PAGE_SIZE;
    let for_closure = search.clone();
    let (mut submissions, total) = state
        .with_conn(move |conn| {
            Ok((
                store::search_submissions(conn, &for_closure)?,
                store::submission_count(conn)?,
            ))
        })
        .await?;
    let more = submissions.len() > PAGE_SIZE;
    submissions.truncate(PAGE_SIZE);
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

#[derive(Template, WebTemplate)]
#[template(path = "submissions/show.html")]
struct SubmissionPage {
    title: String,
    submission: Submission,
    messages: Vec<MessageView>,
    runs: Vec<RunView>,
    lines: Vec<LineView>,
    unparsed: Vec<StoredUnparsed>,
    comparisons: Vec<ReadyComparison>,
    /// The "all runs of a message" forms: messages holding runs.
    scopes: Vec<ScopeView>,
    /// Other submissions of the same upload, when it had several inputs.
    uploaded: Vec<SubmissionSummary>,
    /// A notice after an edit.
    notice: Option<String>,
    /// Attribute names the "add" boxes suggest.
    known_attrs: &'static [&'static str],
    /// The mail this submission was read from: its thread and quotes.
    mail: super::threads::SubmissionMail,
    /// Whether the viewer may change it, and the edit token to show once.
    rights: ViewerRights,
}

struct MessageView {
    number: usize,
    author: String,
    email: String,
    date: String,
    subject: String,
    quote_depth: String,
    first_line: usize,
    last_line: usize,
    runs: usize,
}

struct ScopeView {
    /// messages.idx
    idx: usize,
    title: String,
    runs: usize,
}

struct RunView {
    /// 1-based, as shown and as in the anchor `run-N`.
    number: usize,
    tool: String,
    test: String,
    label: String,
    /// What the parser had found, when the label was edited ("" for none).
    parsed_label: Option<String>,
    threads: String,
    author: String,
    quote_depth: usize,
    message: Option<usize>,
    first_line: usize,
    last_line: usize,
    attrs: Vec<AttrView>,
    edited: bool,
    /// Values grouped by item, in the order printed.
    values: Vec<ItemValues>,
    compare_url: Option<String>,
}

struct AttrView {
    key: String,
    /// In force; empty when an edit removed it.
    value: String,
    /// What the parser had found, when edited ("" for nothing).
    parsed: Option<String>,
}

struct ItemValues {
    item: String,
    values: Vec<ValueView>,
}

struct ValueView {
    metric: String,
    value: String,
    unit: String,
    line: usize,
    estimated: bool,
}

struct LineView {
    number: usize,
    text: String,
    /// "value" (a number was read here), "run" (inside a run), "miss" (a
    /// near miss) or "".
    class: &'static str,
    /// The runs this line belongs to (1-based).
    runs: Vec<usize>,
    /// The near miss at this line (1-based, as in `miss-N`), if any.
    miss: Option<usize>,
}

/// What the review page's query string may carry (after an upload or an
/// edit).
#[derive(Default)]
struct ShowParams {
    saved: Option<usize>,
    undone: bool,
    uploaded: Vec<i64>,
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
            "uploaded" => {
                for id in value.split(',').filter(|id| !id.is_empty()) {
                    let id = id.parse().map_err(|_| {
                        AppError::bad_request(format!(
                            "uploaded={value} is not a list of submission numbers."
                        ))
                    })?;
                    if !params.uploaded.contains(&id) && params.uploaded.len() < MAX_UPLOADED_SHOWN
                    {
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

/// Loads everything the review page shows: six queries (seven after a
/// multi-file upload), however many runs there are.
async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let id: i64 = id
        .parse()
        .map_err(|_| AppError::bad_request(format!("{id:?} is not a submission number.")))?;
    let params = show_params(raw.as_deref())?;
    let uploaded_ids = params.uploaded.clone();
    let options = state.options().clone();
    let (submission, messages, runs, unparsed, edits, uploaded, mail, rights) = state
        .with_conn(move |conn| {
            let Some(submission) = store::get_submission(conn, id)? else {
                return Err(AppError::NotFound(format!("There is no submission {id}.")));
            };
            let rights = rights::viewer_rights(conn, &options, id, &headers)?;
            let uploaded = if uploaded_ids.len() > 1 {
                store::submissions_by_ids(conn, &uploaded_ids)?
            } else {
                Vec::new()
            };
            Ok((
                submission,
                store::messages_of_submission(conn, id)?,
                store::runs_of_submission(conn, id)?,
                store::unparsed_of_submission(conn, id)?,
                store::edits_of_submission(conn, id)?,
                uploaded,
                super::threads::submission_mail(conn, id)?,
                rights,
            ))
        })
        .await?;

    let lines = line_views(&submission.text, &runs, &unparsed);
    let title = submission
        .subject
        .clone()
        .or_else(|| submission.source_name.clone())
        .unwrap_or_else(|| format!("Submission {}", submission.id));
    let comparisons = ready::submission_comparisons(submission.id, &runs);
    let mut edits_by_run: HashMap<i64, Vec<&RunEdit>> = HashMap::new();
    for edit in &edits {
        edits_by_run.entry(edit.run_id).or_default().push(edit);
    }
    let run_views: Vec<RunView> = runs
        .iter()
        .map(|run| {
            let edits = edits_by_run.get(&run.id).map(Vec::as_slice).unwrap_or(&[]);
            run_view(run, edits, &comparisons)
        })
        .collect();
    let messages = message_views(&messages, &runs);
    let scopes = messages
        .iter()
        .filter(|m| m.runs > 0)
        .map(|m| ScopeView {
            idx: m.number - 1,
            title: format!(
                "message {}{}{}",
                m.number,
                if m.author.is_empty() { "" } else { " by " },
                m.author
            ),
            runs: m.runs,
        })
        .collect();
    let notice = match (params.saved, params.undone) {
        (_, true) => Some("Undone: the value the parser found is back.".to_owned()),
        (Some(0), _) => Some("Nothing changed: the values were already so.".to_owned()),
        (Some(1), _) => Some("Saved 1 change.".to_owned()),
        (Some(n), _) => Some(format!("Saved {n} changes.")),
        (None, false) => None,
    };
    // The token is shown once: the flash cookie goes with this page.
    let clear = rights
        .fresh_token
        .is_some()
        .then(|| (SET_COOKIE, rights::clear_fresh_cookie()));
    let page = SubmissionPage {
        title,
        submission,
        messages,
        runs: run_views,
        lines,
        unparsed,
        comparisons,
        scopes,
        uploaded,
        notice,
        known_attrs: &crate::compare::CONTRACT_ATTRS,
        mail,
        rights,
    };
    Ok((AppendHeaders(clear), page).into_response())
}

fn message_views(messages: &[StoredMessage], runs: &[StoredRun]) -> Vec<MessageView> {
    messages
        .iter()
        .map(|m| MessageView {
            number: m.idx + 1,
            author: m.author.clone().unwrap_or_default(),
            email: m.email.clone().unwrap_or_default(),
            date: m.date.clone().unwrap_or_default(),
            subject: m.subject.clone().unwrap_or_default(),
            quote_depth: m.quote_depth.map(|d| d.to_string()).unwrap_or_default(),
            first_line: m.lines[0],
            last_line: m.lines[1],
            runs: runs
                .iter()
                .filter(|run| run.message_idx == Some(m.idx))
                .count(),
        })
        .collect()
}

fn run_view(run: &StoredRun, edits: &[&RunEdit], comparisons: &[ReadyComparison]) -> RunView {
    let parsed_label = edits
        .iter()
        .find(|e| e.field == RunField::Label)
        .map(|e| e.parsed_value.clone().unwrap_or_default());
    let mut attrs: Vec<AttrView> = run
        .attrs
        .iter()
        .map(|(key, value)| AttrView {
            key: key.clone(),
            value: value.clone(),
            parsed: edits
                .iter()
                .find(|e| e.field == RunField::Attr(key.clone()))
                .map(|e| e.parsed_value.clone().unwrap_or_default()),
        })
        .collect();
    // Attributes an edit removed: still shown, with what the parser found.
    for edit in edits {
        if let RunField::Attr(key) = &edit.field {
            if !run.attrs.contains_key(key) {
                attrs.push(AttrView {
                    key: key.clone(),
                    value: String::new(),
                    parsed: Some(edit.parsed_value.clone().unwrap_or_default()),
                });
            }
        }
    }
    // The run's link is its test's comparison of the first item it printed
    // (other than connect, when there is more).
    let item = run
        .results
        .iter()
        .find(|r| r.item != "connect")
        .or_else(|| run.results.first())
        .map(|r| r.item.as_str());
    let compare_url = comparisons
        .iter()
        .find(|c| c.tool == run.tool && c.test == run.test && Some(c.item.as_str()) == item)
        .map(|c| c.url.clone());
    RunView {
        number: run.idx + 1,
        tool: run.tool.clone(),
        test: run.test.clone().unwrap_or_default(),
        label: run.label.clone().unwrap_or_default(),
        parsed_label,
        threads: run.threads.map(|t| t.to_string()).unwrap_or_default(),
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
        message: run.message_idx.map(|m| m + 1),
        first_line: run.lines[0],
        last_line: run.lines[1],
        edited: !edits.is_empty(),
        attrs,
        values: group_by_item(run),
        compare_url,
    }
}

fn group_by_item(run: &StoredRun) -> Vec<ItemValues> {
    let mut groups: Vec<ItemValues> = Vec::new();
    for r in &run.results {
        let value = ValueView {
            metric: r.metric.clone(),
            value: r.value.to_string(),
            unit: r.unit.clone(),
            line: r.line,
            estimated: r.estimated,
        };
        match groups.iter_mut().find(|g| g.item == r.item) {
            Some(group) => group.values.push(value),
            None => groups.push(ItemValues {
                item: r.item.clone(),
                values: vec![value],
            }),
        }
    }
    groups
}

fn line_views(text: &str, runs: &[StoredRun], unparsed: &[StoredUnparsed]) -> Vec<LineView> {
    let mut lines: Vec<LineView> = text
        .lines()
        .enumerate()
        .map(|(index, text)| LineView {
            number: index + 1,
            text: text.to_owned(),
            class: "",
            runs: Vec::new(),
            miss: None,
        })
        .collect();
    for (index, miss) in unparsed.iter().enumerate() {
        if let Some(line) = lines.get_mut(miss.line.wrapping_sub(1)) {
            line.class = "miss";
            line.miss.get_or_insert(index + 1);
        }
    }
    // A line a value was read from belongs to that run alone; the other
    // lines of a run's span (a table header, say) may be shared by several.
    let mut value_of: Vec<Option<usize>> = vec![None; lines.len()];
    for (index, run) in runs.iter().enumerate() {
        for result in &run.results {
            if let Some(slot) = value_of.get_mut(result.line.wrapping_sub(1)) {
                slot.get_or_insert(index + 1);
            }
        }
    }
    for (index, run) in runs.iter().enumerate() {
        for number in run.lines[0]..=run.lines[1] {
            let Some(line) = lines.get_mut(number.wrapping_sub(1)) else {
                continue;
            };
            if value_of[number - 1].is_some() {
                continue;
            }
            line.runs.push(index + 1);
            if line.class.is_empty() {
                line.class = "run";
            }
        }
    }
    for (line, run) in lines.iter_mut().zip(value_of) {
        if let Some(run) = run {
            line.class = "value";
            line.runs = vec![run];
        }
    }
    lines
}
