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
use axum::response::{AppendHeaders, Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rusqlite::Connection;

use super::query::{page_number, query_pairs, tool_name};
use super::ready::{self, ReadyComparison};
use super::rights::{self, ViewerRights};
use super::WebOptions;
use super::{AppError, AppState};
use crate::limits::{
    LABEL_TAGS_PER_BLOCK, MAX_UPLOADED_SHOWN, PART_LINES, PART_ROWS, PART_RUN_BYTES,
    PART_TEXT_BYTES, SHOWN_LINE_CHARS, SMALL_PAGE_BYTES, SUBMISSIONS_PER_PAGE,
};
use crate::store::{
    self, LabelBlock, LineWindow, RunEdit, RunField, StoredMessage, StoredRun, StoredUnparsed,
    SubmissionCounts, SubmissionHead, SubmissionSearch, SubmissionSummary,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions", get(index))
        .route("/submissions/{id}", get(show))
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

#[derive(Template)]
#[template(path = "submissions/show.html")]
struct SubmissionPage {
    title: String,
    submission: SubmissionHead,
    counts: SubmissionCounts,
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
    /// Which part of a long text this page shows.
    part: Part,
    /// When the part's runs are more than one page lists: the number of
    /// the first run listed (None: the part's first), and of the first
    /// one left for the next page.
    runs_from: Option<usize>,
    more_runs: Option<usize>,
    /// The runs touching the part's lines, on this page or not.
    part_runs: usize,
    /// The run whose edit form the page opens (`edit=N`), 1-based.
    editing: Option<usize>,
    /// Where the archive keeps the text of a message stored with its
    /// header block only.
    archived: Option<store::ArchivedText>,
}

/// A long submission is shown a part at a time: [`PART_LINES`] lines of
/// its text, with the runs, messages and near misses that touch them.
#[derive(Debug, Clone, Copy)]
struct Part {
    /// 1-based.
    number: usize,
    count: usize,
    first_line: usize,
    last_line: usize,
}

impl Part {
    fn of(number: usize, total_lines: usize) -> Part {
        let first_line = (number - 1) * PART_LINES + 1;
        Part {
            number,
            count: total_lines.div_ceil(PART_LINES).max(1),
            first_line,
            last_line: (first_line + PART_LINES - 1).min(total_lines.max(first_line)),
        }
    }

    fn window(self) -> LineWindow {
        LineWindow {
            first: self.first_line,
            last: self.first_line + PART_LINES - 1,
            limit: PART_ROWS,
        }
    }

    fn of_line(line: usize) -> usize {
        line.saturating_sub(1) / PART_LINES + 1
    }
}

/// The address of line `line` of submission `id`'s text, on the part of
/// its page that shows it.
pub(super) fn line_url(id: i64, line: usize) -> String {
    match Part::of_line(line) {
        1 => format!("/submissions/{id}#L{line}"),
        part => format!("/submissions/{id}?part={part}#L{line}"),
    }
}

/// The address that opens run `run`'s edit form on submission `id`'s
/// page, on the part (and the page of its runs, `runs`) that lists it:
/// `edit=N` opens it, and the anchor is the form itself, or, for a
/// viewer without the edit token, the form that asks for it
/// (`locked`). Unlocking with `run=N` (and the part) comes back here.
pub(super) fn edit_url(
    id: i64,
    part: usize,
    runs: Option<usize>,
    run: usize,
    locked: bool,
) -> String {
    let mut url = format!("/submissions/{id}?");
    if part > 1 {
        url.push_str(&format!("part={part}&"));
    }
    if let Some(from) = runs {
        url.push_str(&format!("runs={from}&"));
    }
    let anchor = if locked {
        "review".to_owned()
    } else {
        format!("edit-run-{run}")
    };
    url.push_str(&format!("edit={run}#{anchor}"));
    url
}

impl SubmissionPage {
    /// The row's "edit" link of run `number`: its form opened, or the
    /// form asking for the edit token.
    fn edit_link(&self, number: impl std::borrow::Borrow<usize>) -> String {
        edit_url(
            self.submission.id,
            self.part.number,
            self.runs_from,
            *number.borrow(),
            !self.rights.can_edit,
        )
    }

    /// Whether run `number`'s edit form is open: edited, or asked for.
    fn opens(&self, number: impl std::borrow::Borrow<usize>, edited: &bool) -> bool {
        *edited || self.editing == Some(*number.borrow())
    }

    /// The link to line `line` of the text: an anchor on this page, or on
    /// the part that shows it.
    fn at(&self, line: impl std::borrow::Borrow<usize>) -> String {
        let line = *line.borrow();
        let part = Part::of_line(line);
        if part == self.part.number {
            format!("#L{line}")
        } else {
            format!("{}#L{line}", self.part_url(part))
        }
    }

    /// The page listing the rest of this part's runs, if some are left.
    fn more_runs_url(&self) -> Option<String> {
        let part = self.part_url(self.part.number);
        let join = if part.contains('?') { '&' } else { '?' };
        self.more_runs
            .map(|number| format!("{part}{join}runs={number}#runs"))
    }

    /// The link to a run a block of this part's text labelled: its row
    /// on this page when it touches this part's lines, else on the part
    /// showing its first line.
    fn run_at(&self, tag: &LabelTag) -> String {
        let window = self.part.window();
        if tag.lines[1] >= window.first && tag.lines[0] <= window.last {
            format!("#run-{}", tag.number)
        } else {
            let part = self.part_url(Part::of_line(tag.lines[0]));
            format!("{part}#run-{}", tag.number)
        }
    }

    fn part_url(&self, part: impl std::borrow::Borrow<usize>) -> String {
        let part = *part.borrow();
        if part == 1 {
            format!("/submissions/{}", self.submission.id)
        } else {
            format!("/submissions/{}?part={part}", self.submission.id)
        }
    }
}

/// What a run's row and forms take besides its values and attributes.
const RUN_BYTES: usize = 2_048;

/// What one value takes in a run's row, besides its text.
const VALUE_BYTES: usize = 96;

/// What one attribute takes, besides its key and value, each written
/// three times (the row, the form's box and its name).
const ATTR_BYTES: usize = 96;

/// What one block a label came from takes in a run's row (its kind, lines
/// and link).
const LABEL_SOURCE_BYTES: usize = 96;

/// Roughly the HTML `run` takes on the page: what [`PART_RUN_BYTES`]
/// counts.
fn run_weight(run: &StoredRun) -> usize {
    let attrs: usize = run
        .attrs
        .iter()
        .map(|(key, value)| 3 * (key.len() + value.len()) + ATTR_BYTES)
        .sum();
    let values: usize = run
        .results
        .iter()
        .map(|r| r.item.len() + r.metric.len() + r.unit.len() + VALUE_BYTES)
        .sum();
    RUN_BYTES
        + attrs
        + values
        + run.label.as_ref().map_or(0, |l| 3 * l.len())
        + run.label_from.len() * LABEL_SOURCE_BYTES
}

/// The runs of a part one page lists: from run number `from` (1-based) on,
/// at least one, while they fit [`PART_RUN_BYTES`]; and the number of the
/// first one left over.
fn runs_of_page(runs: &[StoredRun], from: usize) -> (std::ops::Range<usize>, Option<usize>) {
    let start = runs
        .iter()
        .position(|run| run.idx + 1 >= from)
        .unwrap_or(runs.len());
    let mut spent = 0;
    let mut end = start;
    while end < runs.len() {
        spent += run_weight(&runs[end]);
        if spent > PART_RUN_BYTES && end > start {
            break;
        }
        end += 1;
    }
    (start..end, runs.get(end).map(|run| run.idx + 1))
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
    /// The run's id, for its own page.
    id: i64,
    /// 1-based, as shown and as in the anchor `run-N`.
    number: usize,
    tool: String,
    test: String,
    label: String,
    /// What the parser had found, when the label was edited ("" for none).
    parsed_label: Option<String>,
    /// Where the parser's label came from, outermost first.
    label_from: Vec<LabelSourceView>,
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

/// A block of the text a run's label came from, as its row says it:
/// "heading, lines 20–21".
struct LabelSourceView {
    kind: String,
    first_line: usize,
    last_line: usize,
}

struct AttrView {
    key: String,
    /// In force; empty when an edit removed it.
    value: String,
    /// What the parser had found, when edited ("" for nothing).
    parsed: Option<String>,
}

pub(super) struct ItemValues {
    pub(super) item: String,
    pub(super) values: Vec<ValueView>,
}

pub(super) struct ValueView {
    pub(super) metric: String,
    pub(super) value: String,
    pub(super) unit: String,
    pub(super) line: usize,
    pub(super) estimated: bool,
}

struct LineView {
    number: usize,
    text: String,
    /// Characters of the line not shown.
    cut: usize,
    /// "value" (a number was read here), "run" (inside a run), "miss" (a
    /// near miss) or "".
    class: &'static str,
    /// The runs this line belongs to (1-based).
    runs: Vec<usize>,
    /// The near miss at this line (1-based, as in `miss-N`), if any.
    miss: Option<usize>,
    /// Whether a run's label came from this line (a heading, caption,
    /// list item, ...).
    label_source: bool,
    /// The runs whose labels the block starting here (or, for a block
    /// begun on an earlier part, continuing here) gave, at most
    /// [`LABEL_TAGS_PER_BLOCK`] a block.
    labels: Vec<LabelTag>,
    /// How many more runs' labels it gave.
    more_labels: usize,
}

/// A run a line gave the label of.
struct LabelTag {
    /// 1-based, as in `run-N`.
    number: usize,
    /// The run's first and last line, to link it on the part that lists it.
    lines: [usize; 2],
}

/// What the review page's query string may carry (after an upload or an
/// edit, or to show another part of a long text).
#[derive(Default)]
struct ShowParams {
    saved: Option<usize>,
    undone: bool,
    /// The upload that led here stored nothing new: its text was stored
    /// already, as this submission.
    already: bool,
    uploaded: Vec<i64>,
    part: Option<usize>,
    /// The first run listed, of those of the part.
    runs: Option<usize>,
    /// The run whose edit form to open (1-based).
    edit: Option<usize>,
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
    let options = state.options().clone();
    let page = state
        .with_conn(move |conn| review_page(conn, &options, id, &params, &headers))
        .await?;
    let fresh_token = page.rights.fresh_token.is_some();
    let small = page_weight(&page) <= SMALL_PAGE_BYTES;
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

/// Roughly how much text rendering `page` writes: its lines and values.
fn page_weight(page: &SubmissionPage) -> usize {
    let lines: usize = page.lines.iter().map(|line| line.text.len() + 64).sum();
    let values: usize = page
        .runs
        .iter()
        .flat_map(|run| &run.values)
        .map(|item| item.values.len() * 96)
        .sum();
    lines + values + page.unparsed.iter().map(|u| u.text.len()).sum::<usize>()
}

/// Reads and builds the review page: a bounded number of queries, each
/// reading at most [`PART_ROWS`] rows, however large the submission.
fn review_page(
    conn: &Connection,
    options: &WebOptions,
    id: i64,
    params: &ShowParams,
    headers: &HeaderMap,
) -> Result<SubmissionPage, AppError> {
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
    let counts = store::submission_counts(conn, id)?;
    let messages = store::messages_in_lines(conn, id, &window)?;
    let runs = store::runs_in_lines(conn, id, &window)?;
    let label_blocks = store::label_blocks_in_lines(conn, id, &window, LABEL_TAGS_PER_BLOCK)?;
    let unparsed = store::unparsed_in_lines(conn, id, &window)?;
    let edits = store::edits_in_lines(conn, id, &window)?;
    let runs_per_message = store::runs_per_message(conn, id)?;
    let mail = super::threads::submission_mail(conn, id, &window)?;
    let archived = store::archived_text(conn, id)?;

    let lines = line_views(text.lines, first_line, &runs, &unparsed, &label_blocks);
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
    let (listed, more_runs) = runs_of_page(&runs, params.runs.unwrap_or(1));
    let run_views: Vec<RunView> = runs[listed]
        .iter()
        .map(|run| {
            let edits = edits_by_run.get(&run.id).map(Vec::as_slice).unwrap_or(&[]);
            run_view(run, edits, &comparisons)
        })
        .collect();
    let messages = message_views(&messages, &runs_per_message);
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
        _ if params.already => Some(format!(
            "This text was already stored as submission {}: nothing new was stored.",
            submission.id
        )),
        (_, true) => Some("Undone: the value the parser found is back.".to_owned()),
        (Some(0), _) => Some("Nothing changed: the values were already so.".to_owned()),
        (Some(1), _) => Some("Saved 1 change.".to_owned()),
        (Some(n), _) => Some(format!("Saved {n} changes.")),
        (None, false) => None,
    };
    Ok(SubmissionPage {
        title,
        submission,
        counts,
        messages,
        runs: run_views,
        lines,
        unparsed,
        comparisons,
        scopes,
        uploaded,
        notice,
        known_attrs: &parsers::contract::ATTRIBUTE_KEYS,
        mail,
        rights,
        part,
        runs_from: params.runs,
        more_runs,
        archived,
        part_runs: runs.len(),
        editing: params.edit,
    })
}

fn message_views(
    messages: &[StoredMessage],
    runs_per_message: &HashMap<usize, usize>,
) -> Vec<MessageView> {
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
            runs: runs_per_message.get(&m.idx).copied().unwrap_or(0),
        })
        .collect()
}

/// A run and its edits as shown: linear in its attributes and edits (a
/// lookup per attribute, not a search).
fn run_view(run: &StoredRun, edits: &[&RunEdit], comparisons: &[ReadyComparison]) -> RunView {
    let mut parsed_label = None;
    let mut parsed_attrs: HashMap<&str, Option<String>> = HashMap::new();
    for edit in edits {
        match &edit.field {
            RunField::Label => parsed_label = Some(edit.parsed_value.clone().unwrap_or_default()),
            RunField::Attr(key) => {
                parsed_attrs.insert(key, edit.parsed_value.clone());
            }
        }
    }
    let mut attrs: Vec<AttrView> = run
        .attrs
        .iter()
        .map(|(key, value)| AttrView {
            key: key.clone(),
            value: value.clone(),
            parsed: parsed_attrs
                .get(key.as_str())
                .map(|parsed| parsed.clone().unwrap_or_default()),
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
        .find(|r| !parsers::contract::is_connect_item(&r.item))
        .or_else(|| run.results.first())
        .map(|r| r.item.as_str());
    let compare_url = comparisons
        .iter()
        .find(|c| c.tool == run.tool && c.test == run.test && c.item.as_deref() == item)
        .map(|c| c.url.clone());
    RunView {
        id: run.id,
        number: run.idx + 1,
        tool: run.tool.clone(),
        test: run.test.clone().unwrap_or_default(),
        label: run.label.clone().unwrap_or_default(),
        parsed_label,
        label_from: run
            .label_from
            .iter()
            .map(|source| LabelSourceView {
                kind: source.kind.clone(),
                first_line: source.lines[0],
                last_line: source.lines[1],
            })
            .collect(),
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

/// A run's values grouped by item, items in the order first printed.
pub(super) fn group_by_item(run: &StoredRun) -> Vec<ItemValues> {
    let mut groups: Vec<ItemValues> = Vec::new();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for r in &run.results {
        let value = ValueView {
            metric: r.metric.clone(),
            value: r.value.to_string(),
            unit: r.unit.clone(),
            line: r.line,
            estimated: r.estimated,
        };
        let index = *group_of.entry(&r.item).or_insert_with(|| {
            groups.push(ItemValues {
                item: r.item.clone(),
                values: Vec::new(),
            });
            groups.len() - 1
        });
        groups[index].values.push(value);
    }
    groups
}

/// How much of `text` a page shows: at most [`SHOWN_LINE_CHARS`]
/// characters, and at most `budget` bytes of HTML; the byte length of
/// that prefix and the HTML bytes it takes.
fn shown_prefix(text: &str, budget: usize) -> (usize, usize) {
    let mut weight = 0;
    for (count, (at, c)) in text.char_indices().enumerate() {
        // As askama escapes it.
        let escaped = match c {
            '<' | '>' => 4,
            '&' | '"' | '\'' => 5,
            c => c.len_utf8(),
        };
        if count == SHOWN_LINE_CHARS || weight + escaped > budget {
            return (at, weight);
        }
        weight += escaped;
    }
    (text.len(), weight)
}

/// The lines shown (`first` is the number of the first), marked with the
/// runs and near misses read from them and the blocks runs' labels came
/// from.
fn line_views(
    shown: Vec<String>,
    first: usize,
    runs: &[StoredRun],
    unparsed: &[StoredUnparsed],
    label_blocks: &[LabelBlock],
) -> Vec<LineView> {
    let mut text_left = PART_TEXT_BYTES;
    let mut lines: Vec<LineView> = shown
        .into_iter()
        .enumerate()
        .map(|(index, mut text)| {
            let (end, weight) = shown_prefix(&text, text_left);
            text_left -= weight;
            let cut = text[end..].chars().count();
            text.truncate(end);
            LineView {
                number: first + index,
                text,
                cut,
                class: "",
                runs: Vec::new(),
                miss: None,
                label_source: false,
                labels: Vec::new(),
                more_labels: 0,
            }
        })
        .collect();
    let slot = |number: usize| number.checked_sub(first);
    for (index, miss) in unparsed.iter().enumerate() {
        if let Some(line) = slot(miss.line).and_then(|at| lines.get_mut(at)) {
            line.class = "miss";
            line.miss.get_or_insert(index + 1);
        }
    }
    // A line a value was read from belongs to that run alone; the other
    // lines of a run's span (a table header, say) may be shared by several.
    let mut value_of: Vec<Option<usize>> = vec![None; lines.len()];
    for run in runs {
        for result in &run.results {
            if let Some(at) = slot(result.line).and_then(|at| value_of.get_mut(at)) {
                at.get_or_insert(run.idx + 1);
            }
        }
    }
    for run in runs {
        let from = run.lines[0].max(first);
        let to = run.lines[1].min(first + lines.len().saturating_sub(1));
        for number in from..=to {
            let Some(at) = slot(number) else { continue };
            let Some(line) = lines.get_mut(at) else {
                continue;
            };
            if value_of[at].is_some() {
                continue;
            }
            line.runs.push(run.idx + 1);
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
    mark_label_sources(&mut lines, first, label_blocks);
    lines
}

/// Marks the lines of each block that runs' labels came from, and tags
/// the first of them shown with those runs: once a block (the store
/// gives each block once, with its first runs), however many runs it
/// named.
fn mark_label_sources(lines: &mut [LineView], first: usize, label_blocks: &[LabelBlock]) {
    let shown = first..first + lines.len();
    for block in label_blocks {
        if shown.is_empty() || block.lines[1] < shown.start || block.lines[0] >= shown.end {
            continue;
        }
        // Indexes of the block's lines shown.
        let from = block.lines[0].max(shown.start) - first;
        let to = block.lines[1].min(shown.end - 1) - first;
        for line in &mut lines[from..=to] {
            line.label_source = true;
        }
        let tagged = &mut lines[from];
        for &(idx, run_lines) in &block.runs {
            // Two blocks starting on one line may name the same run.
            if !tagged.labels.iter().any(|tag| tag.number == idx + 1) {
                tagged.labels.push(LabelTag {
                    number: idx + 1,
                    lines: run_lines,
                });
            }
        }
        tagged.more_labels += block.named.saturating_sub(block.runs.len());
    }
}
