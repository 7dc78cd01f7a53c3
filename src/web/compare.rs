//! `/compare` (Contract 3): a form, the chart and its numbers; and the same
//! query as `/compare.svg`, `.png`, `.csv` and `.json`.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{RawQuery, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::{AppError, AppState};
use crate::charts;
use crate::compare::{self, CompareQuery, Comparison, PSEUDO_ATTRS};
use crate::store::{self, Choices};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/compare", get(page))
        .route("/compare.svg", get(svg))
        .route("/compare.png", get(png))
        .route("/compare.csv", get(csv))
        .route("/compare.json", get(json))
}

fn parse_query(raw: Option<String>) -> Result<CompareQuery, AppError> {
    Ok(CompareQuery::from_query_string(
        raw.as_deref().unwrap_or(""),
    )?)
}

/// Reads the data of a query whose tool and metric are given.
async fn load(state: &AppState, query: CompareQuery) -> Result<Comparison, AppError> {
    let resolved = query.resolve_required()?;
    state
        .with_conn(move |conn| Ok(compare::compare(conn, &query, resolved)?))
        .await
}

fn typed(content_type: &'static str, body: impl IntoResponse) -> Response {
    (
        [
            (CONTENT_TYPE, content_type),
            // The same query over the same data draws the same chart, but
            // new uploads change the data: let caches hold it briefly.
            (CACHE_CONTROL, "public, max-age=60"),
        ],
        body,
    )
        .into_response()
}

async fn svg(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let query = parse_query(raw)?;
    let resolved = query.resolve_required()?;
    let svg = state
        .with_conn(move |conn| {
            let comparison = compare::compare(conn, &query, resolved)?;
            Ok(charts::render_svg(&comparison.chart())?)
        })
        .await?;
    Ok(typed("image/svg+xml", svg))
}

async fn png(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let query = parse_query(raw)?;
    let resolved = query.resolve_required()?;
    let png = state
        .with_conn(move |conn| {
            let comparison = compare::compare(conn, &query, resolved)?;
            Ok(charts::render_png(&comparison.chart())?)
        })
        .await?;
    Ok(typed("image/png", png))
}

async fn csv(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Result<Response, AppError> {
    let comparison = load(&state, parse_query(raw)?).await?;
    let bytes = comparison
        .to_csv()
        .map_err(|e| AppError::Internal(anyhow::Error::new(e).context("writing CSV")))?;
    Ok(typed("text/csv; charset=utf-8", bytes))
}

async fn json(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, AppError> {
    let comparison = load(&state, parse_query(raw)?).await?;
    let body = serde_json::to_string_pretty(&comparison)
        .map_err(|e| AppError::Internal(anyhow::Error::new(e).context("writing JSON")))?;
    Ok(typed("application/json", body))
}

#[derive(Template, WebTemplate)]
#[template(path = "compare/index.html")]
struct ComparePage {
    title: String,
    form: FormView,
    hint: Option<String>,
    result: Option<ResultView>,
}

struct Choice {
    value: String,
    label: String,
    selected: bool,
}

struct FormView {
    tools: Vec<Choice>,
    tests: Vec<Choice>,
    items: Vec<Choice>,
    metrics: Vec<Choice>,
    by: Vec<Choice>,
    wheres: Vec<String>,
}

struct ResultView {
    svg: String,
    query_string: String,
    series: Vec<SeriesView>,
    without_threads: usize,
    unit: String,
    metric: String,
}

struct SeriesView {
    name: String,
    colour: String,
    rows: Vec<RowView>,
}

struct RowView {
    threads: u32,
    value: String,
    item: String,
    label: String,
    author: String,
    link: String,
}

async fn page(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<ComparePage, AppError> {
    let query = parse_query(raw)?;
    let resolved = query.resolve()?;
    let tool = resolved.map(|r| r.tool.name().to_owned()).or_else(|| {
        query
            .tool
            .clone()
            .filter(|name| parsers::Tool::from_name(name).is_some())
    });
    let for_closure = query.clone();
    let (choices, comparison) = state
        .with_conn(move |conn| {
            let choices = store::choices(conn, tool.as_deref())?;
            let comparison = match resolved {
                Some(resolved) => {
                    let comparison = compare::compare(conn, &for_closure, resolved)?;
                    let svg = charts::render_svg(&comparison.chart())?;
                    Some((comparison, svg))
                }
                None => None,
            };
            Ok((choices, comparison))
        })
        .await?;

    let hint = match (&query.tool, &query.metric) {
        (None, _) => Some("Choose a tool and a metric to draw a chart.".to_owned()),
        (Some(_), None) => Some("Choose a metric to draw a chart.".to_owned()),
        _ => None,
    };
    let title = match &comparison {
        Some((c, _)) => format!("Compare {} {}", c.tool, c.metric),
        None => "Compare".to_owned(),
    };
    let result = comparison.map(|(comparison, svg)| result_view(&query, comparison, svg));
    Ok(ComparePage {
        title,
        form: form_view(&query, &choices),
        hint,
        result,
    })
}

fn choice_list(values: &[String], chosen: Option<&str>, any: Option<&str>) -> Vec<Choice> {
    let mut list = Vec::new();
    if let Some(any) = any {
        list.push(Choice {
            value: String::new(),
            label: any.to_owned(),
            selected: chosen.is_none(),
        });
    }
    list.extend(values.iter().map(|value| Choice {
        value: value.clone(),
        label: value.clone(),
        selected: chosen == Some(value.as_str()),
    }));
    // Keep a chosen value the data no longer has, so the form shows the query.
    if let Some(chosen) = chosen {
        if !values.iter().any(|v| v == chosen) {
            list.push(Choice {
                value: chosen.to_owned(),
                label: chosen.to_owned(),
                selected: true,
            });
        }
    }
    list
}

fn form_view(query: &CompareQuery, choices: &Choices) -> FormView {
    let tools: Vec<String> = parsers::Tool::ALL
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    let mut tool_choices = choice_list(&tools, query.tool.as_deref(), Some("choose…"));
    for choice in &mut tool_choices {
        if let Some((_, runs)) = choices.tools.iter().find(|(name, _)| *name == choice.value) {
            choice.label = format!("{} ({runs} runs)", choice.value);
        }
    }
    let mut by_keys: Vec<String> = choices.attr_keys.clone();
    by_keys.extend(PSEUDO_ATTRS.iter().map(|k| k.to_string()));
    by_keys.extend(query.by.iter().cloned());
    by_keys.sort();
    by_keys.dedup();
    let mut wheres: Vec<String> = query
        .wheres
        .iter()
        .map(|(k, v)| format!("{k}:{v}"))
        .collect();
    wheres.push(String::new());
    FormView {
        tools: tool_choices,
        tests: choice_list(&choices.tests, query.test.as_deref(), Some("any test")),
        items: choice_list(&choices.items, query.item.as_deref(), Some("any item")),
        metrics: choice_list(&choices.metrics, query.metric.as_deref(), Some("choose…")),
        by: by_keys
            .into_iter()
            .map(|key| Choice {
                selected: query.by.contains(&key),
                label: key.clone(),
                value: key,
            })
            .collect(),
        wheres,
    }
}

fn result_view(query: &CompareQuery, comparison: Comparison, svg: String) -> ResultView {
    let series = comparison
        .series
        .iter()
        .enumerate()
        .map(|(index, series)| SeriesView {
            name: series.name.clone(),
            colour: charts::series_colour(index),
            rows: series
                .points
                .iter()
                .map(|p| RowView {
                    threads: p.threads,
                    value: p.value.to_string(),
                    item: p.item.clone(),
                    label: p.label.clone().unwrap_or_default(),
                    author: p.author.clone().unwrap_or_default(),
                    link: format!("/submissions/{}#L{}", p.submission_id, p.line),
                })
                .collect(),
        })
        .collect();
    ResultView {
        svg,
        query_string: query.to_query_string(),
        series,
        without_threads: comparison.without_threads,
        unit: comparison.unit,
        metric: comparison.metric,
    }
}
