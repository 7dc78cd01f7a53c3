//! `/compare` (Contract 3): a form, the chart and its numbers; and the same
//! query as `/compare.svg`, `.png`, `.csv`, `.json` and `.txt`.
//!
//! Each answer is made once per data generation and then served from
//! memory; it carries an ETag over its bytes, so a shared chart asked for
//! again by the same client costs a 304.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rusqlite::Connection;

use super::state::AppState;
use super::{Answer, AppError};
use crate::charts::{self, format_value};
use crate::compare::{self, CompareQuery, Comparison, Confidence, Resolved, VsBaseline, XAxis};
use crate::limits::RUN_LINKS;
use crate::store::{self, Choices};
use parsers::contract::PSEUDO_FIELD_NAMES;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/compare", get(page))
        .route("/compare.svg", get(|s, q, h| export(Format::Svg, s, q, h)))
        .route("/compare.png", get(|s, q, h| export(Format::Png, s, q, h)))
        .route("/compare.csv", get(|s, q, h| export(Format::Csv, s, q, h)))
        .route(
            "/compare.json",
            get(|s, q, h| export(Format::Json, s, q, h)),
        )
        .route("/compare.txt", get(|s, q, h| export(Format::Text, s, q, h)))
}

/// New uploads change the data behind a query: caches may keep an answer
/// a minute, then ask again (and get a 304 while the ETag holds).
const CACHE: &str = "public, max-age=60";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Svg,
    Png,
    Csv,
    Json,
    Text,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Text => "txt",
        }
    }

    /// How much of each point's runs the format shows: the charts only
    /// the statistics, the rest every run.
    fn detail(self) -> compare::Detail {
        match self {
            Format::Svg | Format::Png => compare::Detail::Summary,
            Format::Csv | Format::Json | Format::Text => compare::Detail::EveryRun,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Svg => "image/svg+xml",
            Format::Png => "image/png",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Json => "application/json",
            Format::Text => "text/plain; charset=utf-8",
        }
    }

    /// Renders the comparison in this format.
    fn render(self, comparison: &Comparison, origin: Option<&str>) -> Result<Vec<u8>, AppError> {
        Ok(match self {
            Format::Svg => charts::render_svg(&comparison.chart())?.into_bytes(),
            Format::Png => charts::render_png(&comparison.chart())?,
            Format::Csv => comparison
                .to_csv()
                .map_err(|e| AppError::Internal(anyhow::Error::new(e).context("writing CSV")))?,
            Format::Json => serde_json::to_vec_pretty(comparison)
                .map_err(|e| AppError::Internal(anyhow::Error::new(e).context("writing JSON")))?,
            Format::Text => comparison.to_text(origin).into_bytes(),
        })
    }

    /// A mistake in the query, said in this format: JSON for JSON, plain
    /// text for the rest (an image cannot say it).
    fn error(self, error: AppError) -> Response {
        let status = error.status();
        let message = error.public_message();
        match self {
            Format::Json => (
                status,
                [(CONTENT_TYPE, "application/json")],
                serde_json::json!({ "error": message }).to_string(),
            )
                .into_response(),
            _ => (
                status,
                [(CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!("{message}\n"),
            )
                .into_response(),
        }
    }
}

fn parse_query(raw: Option<String>) -> Result<CompareQuery, AppError> {
    Ok(CompareQuery::from_query_string(
        raw.as_deref().unwrap_or(""),
    )?)
}

/// `/compare.{svg,png,csv,json,txt}`: tool and metric are required.
async fn export(
    format: Format,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let answer = async {
        let query = parse_query(raw)?;
        let resolved = query.resolve_required()?;
        // The text's link names the host it was asked of: kept per host.
        let origin = (format == Format::Text)
            .then(|| super::view::request_origin(&headers))
            .flatten();
        let what = format!(
            "{}/compare.{}?{}",
            origin.as_deref().unwrap_or(""),
            format.name(),
            query.to_query_string()
        );
        state
            .answer(what, move |conn| {
                let comparison = compare::compare(conn, &query, resolved, format.detail())?;
                // Drawing stays here, off the async workers.
                Ok(Answer::new(
                    format.content_type(),
                    format.render(&comparison, origin.as_deref())?,
                ))
            })
            .await
    };
    match answer.await {
        Ok(answer) => answer.respond(&headers, Some(CACHE)),
        Err(error) => format.error(error),
    }
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
    xs: Vec<Choice>,
    by: Vec<Choice>,
    wheres: Vec<String>,
    where_suggestions: Vec<String>,
    baselines: Vec<Choice>,
    confidences: Vec<Choice>,
    /// `y=`: the values as measured, or as % of the baseline.
    ys: Vec<Choice>,
    /// `scale=`: a linear or a logarithmic value axis.
    scales: Vec<Choice>,
}

struct ResultView {
    svg: String,
    /// The query of the links beside the chart: pinned (`asof=`) to the
    /// newest submission, so that a link shared now keeps its numbers.
    query_string: String,
    /// The submission this page is pinned to, when it is.
    pinned: Option<i64>,
    /// The same query without `asof`: the chart following new data.
    live_query: String,
    /// This page's own query, for the rest of its table.
    page_query: String,
    series: Vec<SeriesView>,
    /// "Threads", "Item" or the attribute along x: the first column.
    x_title: String,
    with_baseline: bool,
    /// "95%": the level of the intervals and verdicts.
    confidence: String,
    with_efficiency: bool,
    without_threads: usize,
    notices: Vec<String>,
    unit: String,
    direction: &'static str,
    /// Where points mix configurations: the link that splits them.
    split: Option<SplitView>,
    /// What the series were run with: a row per attribute, each series'
    /// value in the series' order, the differing ones first.
    attributes: Vec<AttributeView>,
    /// On bars, the table as sql-bench's `compare-results` prints it: an
    /// item a row, a series a column (in [`ResultView::series`]' order).
    /// The long form (a row per point, with its runs) follows it folded.
    matrix: Option<MatrixView>,
}

struct MatrixView {
    rows: Vec<MatrixRowView>,
}

struct MatrixRowView {
    item: String,
    /// A cell per series; `None` where the series has no point for the
    /// item (an empty cell).
    cells: Vec<Option<MatrixCellView>>,
}

/// A point in the matrix: its mean and count, the difference to the
/// baseline with its verdict, and whether it mixes configurations.
struct MatrixCellView {
    mean: String,
    n: usize,
    vs_baseline: Option<DifferenceView>,
    /// As [`RowView::mixed`].
    mixed: String,
}

impl MatrixView {
    fn of(matrix: &compare::Matrix, unit: &str) -> Self {
        MatrixView {
            rows: matrix
                .rows
                .iter()
                .map(|row| MatrixRowView {
                    item: row.item.to_owned(),
                    cells: row
                        .cells
                        .iter()
                        .map(|cell| {
                            cell.map(|p| MatrixCellView {
                                mean: format_value(p.mean),
                                n: p.n,
                                vs_baseline: p
                                    .vs_baseline
                                    .as_ref()
                                    .map(|vs| DifferenceView::of(vs, unit)),
                                mixed: mixed_words(p),
                            })
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// `3 runs of 3 configurations (patches, timer differ)` for a mixed
/// point; empty for repeats.
fn mixed_words(point: &compare::Point) -> String {
    if point.mixed.is_empty() {
        String::new()
    } else {
        compare::runs_of_configurations(point)
    }
}

struct AttributeView {
    key: String,
    differs: bool,
    values: Vec<String>,
}

/// The offer to split the series by what differs inside their points.
struct SplitView {
    /// How many points mix configurations.
    points: usize,
    /// The attributes that differ inside them, `timer, patches`.
    keys: String,
    /// The query string with those added to `by`.
    link: String,
}

struct SeriesView {
    name: String,
    /// `s0` … `s7`: the palette colour, from the stylesheet (no inline styles).
    colour_class: String,
    is_baseline: bool,
    peak: Option<String>,
    rows: Vec<RowView>,
    /// The page of the series' newest run linked, which lists the runs
    /// most like it across all submissions and compares them all.
    like_url: Option<String>,
}

struct RowView {
    x: String,
    mean: String,
    min: String,
    max: String,
    n: usize,
    vs_baseline: Option<DifferenceView>,
    efficiency: String,
    /// The first [`RUN_LINKS`] runs, by run id.
    runs: Vec<RunLink>,
    /// How many runs of the point are not linked (the JSON lists them all).
    more_runs: usize,
    /// `3 runs of 3 configurations (patches, timer differ)`; empty for
    /// repeats.
    mixed: String,
}

/// A point's difference to the baseline, as the table shows it.
struct DifferenceView {
    /// `-0.6% ± 40.2%`, or the plain `-0.6%` without an interval.
    percent: String,
    /// `-123.4 ± 2345.6 q/s`.
    absolute: String,
    /// `better`, `no difference at 95%`, `too few runs`.
    verdict: String,
    /// The verdict's CSS class: better, worse, no_difference, too_few_runs.
    class: &'static str,
    /// How the interval was computed, or why there is none.
    explanation: String,
}

impl DifferenceView {
    fn of(vs: &VsBaseline, unit: &str) -> Self {
        let percent = vs.percent_text();
        let absolute = match &vs.interval {
            Some(interval) => format!(
                "{} ± {} {unit}",
                signed(vs.difference),
                format_value(interval.half_width)
            ),
            None => format!("{} {unit}", signed(vs.difference)),
        };
        DifferenceView {
            percent,
            absolute,
            verdict: vs.verdict_words(),
            class: vs.verdict.name(),
            explanation: vs.explanation(),
        }
    }
}

/// A difference with its sign: `+1234.5`, `-0.62`.
fn signed(value: f64) -> String {
    let text = format_value(value);
    if value > 0.0 {
        format!("+{text}")
    } else {
        text
    }
}

struct RunLink {
    value: String,
    link: String,
    title: String,
}

async fn page(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let query = parse_query(raw)?;
    let resolved = query.resolve()?;
    let what = format!("/compare?{}", query.to_query_string());
    let answer = state
        .answer(what, move |conn| render_page(conn, &query, resolved))
        .await?;
    Ok(answer.respond(&headers, Some(CACHE)))
}

/// The page for `query`: the form with the stored choices and, once tool
/// and metric are chosen, the chart and its table.
fn render_page(
    conn: &Connection,
    query: &CompareQuery,
    resolved: Option<Resolved>,
) -> Result<Answer, AppError> {
    let tool = resolved.map(|r| r.tool.name().to_owned()).or_else(|| {
        query
            .tool
            .clone()
            .filter(|name| parsers::Tool::from_name(name).is_some())
    });
    let choices = store::choices(conn, tool.as_deref())?;
    let comparison = match resolved {
        Some(resolved) => Some(compare::compare(
            conn,
            query,
            resolved,
            compare::Detail::Summary,
        )?),
        None => None,
    };
    // Links made from the live page pin the data as it is now.
    let pinned_query = match query.asof {
        Some(_) => query.clone(),
        None => CompareQuery {
            asof: Some(store::newest_submission_id(conn)?).filter(|&id| id > 0),
            ..query.clone()
        },
    };
    let live_query = CompareQuery {
        asof: None,
        ..query.clone()
    };
    let hint = match (&query.tool, &query.metric) {
        (None, _) => Some("Choose a tool and a metric to draw a chart.".to_owned()),
        (Some(_), None) => Some("Choose a metric to draw a chart.".to_owned()),
        _ => None,
    };
    let title = match &comparison {
        Some(c) => format!("Compare {} {}", c.tool, c.metric),
        None => "Compare".to_owned(),
    };
    let form = form_view(query, &choices, comparison.as_ref());
    let result = match comparison {
        Some(comparison) => {
            let svg = charts::render_svg(&comparison.chart())?;
            Some(result_view(
                comparison,
                svg,
                query.asof,
                &pinned_query,
                &live_query,
            ))
        }
        None => None,
    };
    let page = ComparePage {
        title,
        form,
        hint,
        result,
    };
    Answer::page(&page)
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

/// The form as the query fills it, with the stored choices: no database.
fn form_view(query: &CompareQuery, choices: &Choices, comparison: Option<&Comparison>) -> FormView {
    let series_names: Vec<String> = comparison
        .map(|c| c.series.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let mut wheres: Vec<String> = query
        .wheres
        .iter()
        .map(|(k, v)| format!("{k}:{v}"))
        .collect();
    wheres.push(String::new());
    FormView {
        tools: tool_choices(query, choices),
        tests: choice_list(&choices.tests, query.test.as_deref(), Some("any test")),
        items: choice_list(&choices.items, query.item.as_deref(), Some("any item")),
        metrics: choice_list(&choices.metrics, query.metric.as_deref(), Some("choose…")),
        xs: x_choices(query, choices),
        by: by_choices(query, choices),
        wheres,
        where_suggestions: choices
            .attr_values
            .iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect(),
        baselines: choice_list(&series_names, query.baseline.as_deref(), Some("none")),
        confidences: Confidence::ALL
            .iter()
            .map(|level| Choice {
                value: level.name().to_owned(),
                label: level.to_string(),
                selected: *level == query.conf,
            })
            .collect(),
        ys: two_choices(
            ("absolute", "as measured"),
            ("relative", "% of the baseline (needs one)"),
            query.relative,
        ),
        scales: two_choices(
            ("linear", "linear"),
            ("log", "logarithmic"),
            query.log_scale,
        ),
    }
}

/// Every tool, each the stored data has with its count of runs.
fn tool_choices(query: &CompareQuery, choices: &Choices) -> Vec<Choice> {
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
    tool_choices
}

/// The keys `by` may name: those chosen first, in the order the query
/// gives them (a browser sends checked boxes in page order, so Draw sends
/// back the series it drew, named and ordered as they were), then the
/// others by name.
fn by_choices(query: &CompareQuery, choices: &Choices) -> Vec<Choice> {
    let mut others: Vec<String> = choices.attr_keys.clone();
    others.extend(PSEUDO_FIELD_NAMES.iter().map(|k| k.to_string()));
    others.retain(|key| !query.by.contains(key));
    others.sort();
    others.dedup();
    let mut by_keys: Vec<String> = Vec::with_capacity(query.by.len() + others.len());
    for key in &query.by {
        if !by_keys.contains(key) {
            by_keys.push(key.clone());
        }
    }
    by_keys.extend(others);
    by_keys
        .into_iter()
        .map(|key| Choice {
            selected: query.by.contains(&key),
            label: key.clone(),
            value: key,
        })
        .collect()
}

/// What x may run along: threads only where the tool's runs have them,
/// bars always, and the attributes the tool's runs have that x may run
/// across (and the one asked for).
fn x_choices(query: &CompareQuery, choices: &Choices) -> Vec<Choice> {
    let mut xs = vec![Choice {
        value: String::new(),
        label: "automatic".to_owned(),
        selected: query.x.is_none(),
    }];
    if choices.has_threads || query.x.as_deref() == Some("threads") {
        xs.push(Choice {
            value: "threads".to_owned(),
            label: "threads (lines)".to_owned(),
            selected: query.x.as_deref() == Some("threads"),
        });
    }
    xs.push(Choice {
        value: "none".to_owned(),
        label: "none (bars per item)".to_owned(),
        selected: query.x.as_deref() == Some("none"),
    });
    let tool = query.tool.as_deref().and_then(parsers::Tool::from_name);
    xs.extend(
        compare::x_attribute_keys(tool)
            .into_iter()
            .filter(|key| {
                choices.attr_keys.iter().any(|k| k == key) || query.x.as_deref() == Some(key)
            })
            .map(|key| Choice {
                value: key.to_owned(),
                label: format!("{key} (lines across its values)"),
                selected: query.x.as_deref() == Some(key),
            }),
    );
    xs
}

/// A choice of two, the second selected when `second` holds.
fn two_choices(first: (&str, &str), other: (&str, &str), second: bool) -> Vec<Choice> {
    [(first, !second), (other, second)]
        .into_iter()
        .map(|((value, label), selected)| Choice {
            value: value.to_owned(),
            label: label.to_owned(),
            selected,
        })
        .collect()
}

/// The link that adds to `by` every attribute differing inside some
/// point, in order of interest; `None` when every point is repeats. The
/// baseline is left out: its name changes with the series.
fn split_view(comparison: &Comparison, query: &CompareQuery) -> Option<SplitView> {
    let mixed: Vec<&compare::Point> = comparison
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|p| !p.mixed.is_empty())
        .collect();
    if mixed.is_empty() {
        return None;
    }
    let mut keys: Vec<&str> = mixed
        .iter()
        .flat_map(|p| p.mixed.iter().map(String::as_str))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    keys.sort_by(|a, b| compare::interest(a).cmp(&compare::interest(b)));
    let mut by = comparison.by.clone();
    by.extend(keys.iter().map(|k| (*k).to_owned()));
    let split = CompareQuery {
        by,
        baseline: None,
        // Drawn relative to a baseline the split no longer names.
        relative: false,
        ..query.clone()
    };
    Some(SplitView {
        points: mixed.len(),
        keys: keys.join(", "),
        link: split.to_query_string(),
    })
}

fn result_view(
    comparison: Comparison,
    svg: String,
    asof: Option<i64>,
    pinned_query: &CompareQuery,
    live_query: &CompareQuery,
) -> ResultView {
    let x_title = match comparison.x {
        XAxis::Threads => "Threads".to_owned(),
        XAxis::None => "Item".to_owned(),
        XAxis::Attribute(key) => key.to_owned(),
    };
    let unit = comparison.unit.clone();
    let series = comparison
        .series
        .iter()
        .enumerate()
        .map(|(index, series)| series_view(&comparison, index, series))
        .collect();
    let split = split_view(&comparison, pinned_query);
    // In the series' order, as the chart's legend and colours.
    let matrix = compare::Matrix::of(&comparison, false).map(|m| MatrixView::of(&m, &unit));
    let attributes = comparison
        .attributes
        .iter()
        .map(|row| AttributeView {
            key: row.key.clone(),
            differs: row.differs,
            values: comparison
                .series
                .iter()
                .map(|s| row.values.get(&s.name).cloned().unwrap_or_default())
                .collect(),
        })
        .collect();
    ResultView {
        matrix,
        split,
        attributes,
        svg,
        query_string: pinned_query.to_query_string(),
        pinned: asof,
        live_query: live_query.to_query_string(),
        page_query: comparison.query.clone(),
        series,
        x_title,
        with_baseline: comparison.baseline.is_some(),
        confidence: comparison.confidence.to_string(),
        with_efficiency: comparison
            .series
            .iter()
            .flat_map(|s| &s.points)
            .any(|p| p.efficiency.is_some()),
        without_threads: comparison.without_threads,
        direction: comparison.direction(),
        notices: comparison.notices,
        unit: comparison.unit,
    }
}

/// A series' rows in the table, each point with its runs' links.
fn series_view(comparison: &Comparison, index: usize, series: &compare::Series) -> SeriesView {
    let unit = &comparison.unit;
    SeriesView {
        name: series.name.clone(),
        colour_class: format!("s{}", index % charts::PALETTE.len()),
        is_baseline: series.is_baseline,
        peak: series.peak.as_ref().map(|peak| {
            let word = if comparison.higher_is_better {
                "peak"
            } else {
                "best"
            };
            let at = peak
                .threads
                .map(|t| format!(" at {t} threads"))
                .unwrap_or_default();
            format!("{word} {} {unit}{at}", format_value(peak.mean))
        }),
        rows: series.points.iter().map(|p| row_view(p, unit)).collect(),
        like_url: series
            .points
            .iter()
            .flat_map(|p| &p.runs)
            .map(|run| run.run_id)
            .max()
            .map(|id| format!("/runs/{id}#like")),
    }
}

/// A point's row: its statistics, difference to the baseline and runs.
fn row_view(p: &compare::Point, unit: &str) -> RowView {
    RowView {
        x: p.x_text(),
        mean: format_value(p.mean),
        min: format_value(p.min),
        max: format_value(p.max),
        n: p.n,
        vs_baseline: p
            .vs_baseline
            .as_ref()
            .map(|vs| DifferenceView::of(vs, unit)),
        efficiency: p.efficiency.map(|e| format!("{e:.2}")).unwrap_or_default(),
        runs: p
            .runs
            .iter()
            .take(RUN_LINKS)
            .map(|run| RunLink {
                value: run.value.to_string(),
                link: format!("/submissions/{}#L{}", run.submission_id, run.line),
                title: [
                    run.label.as_deref(),
                    run.author.as_deref(),
                    run.test.as_deref(),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" · "),
            })
            .collect(),
        more_runs: p.n.saturating_sub(p.runs.len().min(RUN_LINKS)),
        mixed: mixed_words(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(list: &[Choice]) -> Vec<&str> {
        list.iter().map(|c| c.value.as_str()).collect()
    }

    fn selected(list: &[Choice]) -> Vec<&str> {
        list.iter()
            .filter(|c| c.selected)
            .map(|c| c.value.as_str())
            .collect()
    }

    #[test]
    fn the_form_shows_the_query_with_the_stored_choices() {
        let choices = Choices {
            tools: vec![("sysbench".to_owned(), 12)],
            metrics: vec!["tps".to_owned()],
            attr_keys: vec!["scheduler".to_owned(), "os".to_owned()],
            ..Choices::default()
        };
        let query = CompareQuery {
            tool: Some("sysbench".to_owned()),
            metric: Some("qps".to_owned()),
            by: vec![
                "scheduler".to_owned(),
                "os".to_owned(),
                "scheduler".to_owned(),
            ],
            x: Some("threads".to_owned()),
            wheres: vec![("os".to_owned(), "FreeBSD".to_owned())],
            ..CompareQuery::default()
        };
        let form = form_view(&query, &choices, None);
        let sysbench = form.tools.iter().find(|c| c.value == "sysbench").unwrap();
        assert_eq!(sysbench.label, "sysbench (12 runs)");
        assert_eq!(selected(&form.tools), ["sysbench"]);
        assert_eq!(form.tools[0].label, "choose…");
        // A metric the data no longer has is kept, chosen.
        assert_eq!(values(&form.metrics), ["", "tps", "qps"]);
        assert_eq!(selected(&form.metrics), ["qps"]);
        // The keys chosen first, in the query's order, once each; the
        // others by name.
        let by = values(&form.by);
        assert_eq!(by[..2], ["scheduler", "os"]);
        assert_eq!(selected(&form.by), ["scheduler", "os"]);
        let mut rest = by[2..].to_vec();
        rest.sort();
        assert_eq!(rest, by[2..]);
        // Threads asked for is offered though no run has them.
        assert_eq!(values(&form.xs)[..3], ["", "threads", "none"]);
        assert_eq!(selected(&form.xs), ["threads"]);
        assert_eq!(form.wheres, ["os:FreeBSD", ""]);
        assert_eq!(values(&form.baselines), [""]);
        assert_eq!(selected(&form.ys), ["absolute"]);
        assert_eq!(selected(&form.scales), ["linear"]);
    }

    #[test]
    fn threads_are_offered_only_where_runs_have_them() {
        let query = CompareQuery::default();
        let none = x_choices(&query, &Choices::default());
        assert_eq!(values(&none)[..2], ["", "none"]);
        let with = x_choices(
            &query,
            &Choices {
                has_threads: true,
                ..Choices::default()
            },
        );
        assert_eq!(values(&with)[..3], ["", "threads", "none"]);
        assert_eq!(selected(&with), [""]);
    }
}
