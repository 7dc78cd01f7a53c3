//! `/runs`: every stored run in a table, newest first, filtered by tool,
//! test and any attribute (`where=attr:value`, several), and paged. Each
//! run links to its submission and to the lines it was read from.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{RawQuery, State};
use axum::routing::get;
use axum::Router;

use super::submissions::{page_number, query_pairs, tool_name};
use super::{ready, AppError, AppState};
use crate::store::{self, RunListing, RunSearch};

/// Runs per page.
const PAGE_SIZE: usize = 100;

pub fn router() -> Router<AppState> {
    Router::new().route("/runs", get(index))
}

#[derive(Template, WebTemplate)]
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
    page: usize,
    prev_url: Option<String>,
    next_url: Option<String>,
}

struct RunRow {
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

/// An attribute name in a filter: lower snake case, as on /compare.
fn check_filter_key(key: &str) -> Result<(), AppError> {
    let ok = !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(AppError::bad_request(format!(
            "{key:?} is not an attribute name; names are lower snake case, like scheduler or thread_lib."
        )))
    }
}

fn parse_search(raw: Option<&str>) -> Result<(RunSearch, usize), AppError> {
    let mut search = RunSearch {
        limit: PAGE_SIZE + 1,
        ..RunSearch::default()
    };
    let mut page = 1;
    for (key, value) in query_pairs(raw)? {
        let value = value.trim();
        match key.as_str() {
            _ if value.is_empty() => {}
            "tool" => search.tool = Some(tool_name(value)?),
            "test" => search.test = Some(value.to_owned()),
            "page" => page = page_number(value)?,
            "where" => {
                let Some((attr, wanted)) = value.split_once(':') else {
                    return Err(AppError::bad_request(format!(
                        "where={value} needs the form where=<attribute>:<value>, e.g. where=scheduler:ULE."
                    )));
                };
                let attr = attr.trim();
                check_filter_key(attr)?;
                search
                    .wheres
                    .push((attr.to_owned(), wanted.trim().to_owned()));
            }
            other => {
                return Err(AppError::bad_request(format!(
                    "unknown query parameter {other:?}; /runs takes tool, test, where and page."
                )))
            }
        }
    }
    search.offset = (page - 1) * PAGE_SIZE;
    Ok((search, page))
}

fn url(search: &RunSearch, page: usize) -> String {
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
    if page > 1 {
        pairs.push(("page", page.to_string()));
    }
    let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
    if query.is_empty() {
        "/runs".to_owned()
    } else {
        format!("/runs?{query}")
    }
}

/// Five to nine queries, whatever is stored.
async fn index(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<RunsPage, AppError> {
    let (search, page) = parse_search(raw.as_deref())?;
    let for_closure = search.clone();
    let (mut listings, choices, attr_keys) = state
        .with_conn(move |conn| {
            Ok((
                store::search_runs(conn, &for_closure)?,
                store::choices(conn, for_closure.tool.as_deref())?,
                store::attr_keys(conn)?,
            ))
        })
        .await?;
    let more = listings.len() > PAGE_SIZE;
    listings.truncate(PAGE_SIZE);
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
    Ok(RunsPage {
        title,
        tool: search.tool.clone().unwrap_or_default(),
        test: search.test.clone().unwrap_or_default(),
        tools: parsers::Tool::ALL
            .iter()
            .map(|t| t.name().to_owned())
            .collect(),
        tests: choices.tests,
        attr_keys,
        wheres,
        rows: listings.iter().map(run_row).collect(),
        page,
        prev_url: (page > 1).then(|| url(&search, page - 1)),
        next_url: more.then(|| url(&search, page + 1)),
    })
}

fn run_row(listing: &RunListing) -> RunRow {
    let run = &listing.run;
    let headline = ready::run_headline(run);
    RunRow {
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
        attrs: run
            .attrs
            .iter()
            .map(|(k, v)| {
                let filter = serde_urlencoded::to_string([("where", format!("{k}:{v}"))])
                    .unwrap_or_default();
                (k.clone(), v.clone(), format!("/runs?{filter}"))
            })
            .collect(),
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
