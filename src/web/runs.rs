//! `/runs`: every stored run in a table, newest first, filtered by tool,
//! test and any attribute (`where=attr:value`, several), and paged. Each
//! run links to its submission and to the lines it was read from.
//!
//! Pages link each other by run: the next page is `before=<the last run
//! shown>`, the previous one `after=<the first run shown>`, so a page
//! costs the same however deep it is and nothing shifts under a reader
//! while runs are added. `page=N` rides along as the number shown; on its
//! own (older links) it still skips to the Nth page.

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use rusqlite::Connection;

use super::query::{page_number, query_pairs, tool_name};
use super::state::AppState;
use super::view::attribute_links;
use super::{ready, Answer, AppError};
use crate::compare;
use crate::limits::RUNS_PER_PAGE;
use crate::store::{self, RunListing, RunSearch, RunsFrom};

pub fn router() -> Router<AppState> {
    Router::new().route("/runs", get(index))
}

#[derive(Template)]
#[template(path = "runs/index.html")]
struct RunsPage {
    title: String,
    tool: String,
    test: String,
    tools: Vec<String>,
    tests: Vec<String>,
    attr_keys: Vec<String>,
    /// The filters given, and one empty box for another.
    wheres: Vec<String>,
    rows: Vec<RunRow>,
    /// The page's number, when the link to it said.
    page: Option<usize>,
    prev_url: Option<String>,
    next_url: Option<String>,
}

struct RunRow {
    /// The run's id, for its own page.
    id: i64,
    submission_id: i64,
    submission: String,
    number: usize,
    tool: String,
    test: String,
    label: String,
    threads: String,
    /// Each with the address of the runs sharing it.
    attrs: Vec<(String, String, String)>,
    author: String,
    quote_depth: usize,
    first_line: usize,
    last_line: usize,
    headline_item: String,
    headline_metric: String,
    headline_value: String,
    headline_unit: String,
    headline_line: usize,
}

/// An attribute name in a filter, by /compare's rule (so that a filter
/// copied between the two pages is accepted by both), in this page's
/// sentence form.
fn check_filter_key(key: &str) -> Result<(), AppError> {
    compare::check_attr_key(key).map_err(|_| {
        AppError::bad_request(format!(
            "{key:?} is not an attribute name; names are lower snake case, like scheduler or thread_lib."
        ))
    })
}

/// A run id in `before=` or `after=`, checked.
fn run_anchor(key: &str, value: &str) -> Result<i64, AppError> {
    match value.parse::<i64>() {
        Ok(id) if id >= 0 => Ok(id),
        _ => Err(AppError::bad_request(format!(
            "{key}={value} is not a run number; the pager's links give one."
        ))),
    }
}

/// The search a query string asks for, and the number of the page it
/// names (none for a link anchored at a run that does not say).
fn parse_search(raw: Option<&str>) -> Result<(RunSearch, Option<usize>), AppError> {
    let mut search = RunSearch {
        limit: RUNS_PER_PAGE,
        ..RunSearch::default()
    };
    let mut page = None;
    let mut anchor = None;
    for (key, value) in query_pairs(raw)? {
        let value = value.trim();
        match key.as_str() {
            _ if value.is_empty() => {}
            "tool" => search.tool = Some(tool_name(value)?),
            "test" => search.test = Some(value.to_owned()),
            "page" => page = Some(page_number("page", value)?),
            "before" | "after" => {
                let id = run_anchor(&key, value)?;
                let from = if key == "before" {
                    RunsFrom::Before(id)
                } else {
                    RunsFrom::After(id)
                };
                if anchor.replace(from).is_some() {
                    return Err(AppError::bad_request(
                        "a page starts at one run: give before= or after=, once.",
                    ));
                }
            }
            "where" => {
                let Some((attr, wanted)) = value.split_once(':') else {
                    return Err(AppError::bad_request(format!(
                        "where={value} needs the form where=<attribute>:<value>, e.g. where=scheduler:ULE."
                    )));
                };
                let attr = attr.trim();
                check_filter_key(attr)?;
                compare::check_where_count(search.wheres.len() + 1)?;
                search
                    .wheres
                    .push((attr.to_owned(), wanted.trim().to_owned()));
            }
            other => {
                return Err(AppError::bad_request(format!(
                    "unknown query parameter {other:?}; /runs takes tool, test, where, page, before and after."
                )))
            }
        }
    }
    match anchor {
        Some(from) => search.from = from,
        None => {
            let number = page.unwrap_or(1);
            if number > 1 {
                search.from = RunsFrom::Skip((number - 1) * RUNS_PER_PAGE);
            }
            page = Some(number);
        }
    }
    Ok((search, page))
}

/// The address of a page of `search`'s runs: anchored at a run
/// (`("before", id)` or `("after", id)`) or not, and numbered or not.
fn url(search: &RunSearch, anchor: Option<(&str, i64)>, page: Option<usize>) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    if let Some(tool) = &search.tool {
        pairs.push(("tool", tool.clone()));
    }
    if let Some(test) = &search.test {
        pairs.push(("test", test.clone()));
    }
    for (attr, value) in &search.wheres {
        pairs.push(("where", format!("{attr}:{value}")));
    }
    if let Some((key, id)) = anchor {
        pairs.push((key, id.to_string()));
    }
    if let Some(page) = page.filter(|&page| page > 1) {
        pairs.push(("page", page.to_string()));
    }
    let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
    if query.is_empty() {
        "/runs".to_owned()
    } else {
        format!("/runs?{query}")
    }
}

/// Two to six queries, whatever is stored.
async fn index(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let (search, page) = parse_search(raw.as_deref())?;
    // The parsed request, so that spellings of one query share an answer.
    let what = format!("/runs {search:?} {page:?}");
    let answer = state
        .answer(what, move |conn| render(conn, &search, page))
        .await?;
    Ok(answer.respond(&headers, None))
}

fn render(conn: &Connection, search: &RunSearch, page: Option<usize>) -> Result<Answer, AppError> {
    let tests = match &search.tool {
        Some(tool) => store::tool_tests(conn, tool)?,
        None => Vec::new(),
    };
    let found = store::search_runs(conn, search)?;
    let attr_keys = store::attr_keys(conn)?;
    // Nothing newer: whatever the link said, this is the first page.
    let page = if found.newer { page } else { Some(1) };
    let listings = &found.runs;
    // The runs the neighbouring pages start from; on an empty page, the
    // run it was anchored at.
    let newest_shown = listings.first().map(|l| l.run.id).or(match search.from {
        RunsFrom::Before(id) => Some(id - 1),
        _ => None,
    });
    let oldest_shown = listings.last().map(|l| l.run.id).or(match search.from {
        RunsFrom::After(id) => Some(id.saturating_add(1)),
        _ => None,
    });
    let next_url = found.older.then(|| {
        url(
            search,
            oldest_shown.map(|id| ("before", id)),
            page.map(|p| p + 1),
        )
    });
    let prev_url = found.newer.then(|| match (page, newest_shown) {
        (Some(p), _) if p <= 2 => url(search, None, None),
        (_, Some(id)) => url(search, Some(("after", id)), page.map(|p| p - 1)),
        // An old `page=N` link past the last page.
        (_, None) => url(search, None, page.map(|p| p - 1)),
    });
    let mut wheres: Vec<String> = search
        .wheres
        .iter()
        .map(|(k, v)| format!("{k}:{v}"))
        .collect();
    wheres.push(String::new());
    let mut title = match &search.tool {
        Some(tool) => format!("{tool} runs"),
        None => "Runs".to_owned(),
    };
    if let Some(test) = &search.test {
        title.push_str(&format!(" of {test}"));
    }
    if !search.wheres.is_empty() {
        let filters: Vec<String> = search
            .wheres
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        title.push_str(&format!(" where {}", filters.join(", ")));
    }
    let page = RunsPage {
        title,
        tool: search.tool.clone().unwrap_or_default(),
        test: search.test.clone().unwrap_or_default(),
        tools: parsers::Tool::ALL
            .iter()
            .map(|t| t.name().to_owned())
            .collect(),
        tests,
        attr_keys,
        wheres,
        rows: listings.iter().map(run_row).collect(),
        page: page.filter(|&p| p > 1 || next_url.is_some()),
        prev_url,
        next_url,
    };
    Answer::page(&page)
}

fn run_row(listing: &RunListing) -> RunRow {
    let run = &listing.run;
    let headline = ready::run_headline(run);
    RunRow {
        id: run.id,
        submission_id: listing.submission_id,
        submission: listing
            .subject
            .clone()
            .or_else(|| listing.source_name.clone())
            .unwrap_or_else(|| format!("submission {}", listing.submission_id)),
        number: run.idx + 1,
        tool: run.tool.clone(),
        test: run.test.clone().unwrap_or_default(),
        label: run.label.clone().unwrap_or_default(),
        threads: run.threads.map(|t| t.to_string()).unwrap_or_default(),
        attrs: attribute_links(&run.attrs),
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
        first_line: run.lines[0],
        last_line: run.lines[1],
        headline_item: headline.map(|r| r.item.clone()).unwrap_or_default(),
        headline_metric: headline.map(|r| r.metric.clone()).unwrap_or_default(),
        headline_value: headline.map(|r| r.value.to_string()).unwrap_or_default(),
        headline_unit: headline.map(|r| r.unit.clone()).unwrap_or_default(),
        headline_line: headline.map_or(run.lines[0], |r| r.line),
    }
}
