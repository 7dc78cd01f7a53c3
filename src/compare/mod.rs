//! Contract 3's comparison: the query (`tool`, `test`, `item`, `metric`,
//! `x`, `by`, `where`, `baseline`, `conf`), checking it, and grouping the
//! stored results into series of points (mean, min, max and count of the
//! repeats of one configuration), with the difference to a baseline series
//! and whether it is more than noise (`stats`), the peak and the scaling
//! efficiency. Shared by the web pages, their
//! thumbnails and `benchlog export`, so that every form of one query gives
//! the same data.
//!
//! `query` reads and checks the query, `group` turns rows into series and
//! their statistics, `stats` judges differences to the baseline, `output`
//! and `table` give the chart, CSV and text.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use parsers::contract::{
    is_interim_item, ATTRIBUTES_BY_INTEREST, ATTRIBUTE_KEYS, NONE, PROVENANCE, PSEUDO_FIELD_NAMES,
};
use parsers::{MetricInfo, Tool};
use serde::Serialize;

use crate::moments::Moments;
use crate::store::{self, MetricFilter, MetricRow, StoredRun};

mod group;
mod order;
mod output;
mod query;
mod stats;
mod table;

pub use group::{matches_wheres, natural_cmp};
pub use order::version_cmp;
pub use query::{
    check_asof, check_attr_key, check_where_count, query_pairs, x_attribute_keys, CompareQuery,
    QueryError,
};

pub use table::{runs_of_configurations, Matrix, MatrixRow};

pub use stats::{format_df, Confidence, Interval, Method, Sample, Verdict, VsBaseline, MIN_RUNS};

use query::{check_keys, is_field, query_keys};

/// What goes along the x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XAxis {
    /// A line chart against the thread (client) count.
    Threads,
    /// Grouped bars, one group per item.
    None,
    /// A line chart across the values of a run attribute (`os_version`),
    /// in version order ([`version_cmp`]); one of
    /// [`x_attribute_keys`].
    Attribute(&'static str),
}

impl XAxis {
    /// Its name in URLs and the JSON's `x`: `threads`, `none`, or the
    /// attribute's key.
    pub fn name(self) -> &'static str {
        match self {
            XAxis::Threads => "threads",
            XAxis::None => "none",
            XAxis::Attribute(key) => key,
        }
    }

    /// The attribute along x, if it is one.
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            XAxis::Attribute(key) => Some(key),
            XAxis::Threads | XAxis::None => None,
        }
    }
}

impl Serialize for XAxis {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(self.name())
    }
}

/// A query checked against benchlog's tools and metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolved {
    pub tool: Tool,
    pub metric: &'static MetricInfo,
    /// `None`: chosen from the data.
    pub x: Option<XAxis>,
}

/// Why a comparison could not be made: the query (the user's to fix) or
/// the database.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("reading the results: {0}")]
    Database(#[from] rusqlite::Error),
}

/// Rank of an attribute in [`ATTRIBUTES_BY_INTEREST`], for the order
/// of the keys a comparison is split by; attributes people added
/// themselves rank just after `variant`.
pub fn interest(key: &str) -> (usize, &str) {
    match ATTRIBUTES_BY_INTEREST.iter().position(|k| *k == key) {
        Some(rank) => (rank * 2, key),
        None => (8 * 2 + 1, key),
    }
}

/// One stored value inside a point, to trace it back to its run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunValue {
    pub run_id: i64,
    pub submission_id: i64,
    /// First line of the run in its submission, for links.
    pub line: usize,
    pub value: f64,
    /// Shared with the rows read (and every other run of the same text):
    /// a copy each was three allocations per run.
    #[serde(serialize_with = "shared_text")]
    pub label: Option<Rc<str>>,
    #[serde(serialize_with = "shared_text")]
    pub author: Option<Rc<str>>,
    #[serde(serialize_with = "shared_text")]
    pub test: Option<Rc<str>>,
}

/// A shared text as serde writes a `String` (its `Rc` impl needs the `rc`
/// feature).
fn shared_text<S: serde::Serializer>(text: &Option<Rc<str>>, out: S) -> Result<S::Ok, S::Error> {
    text.as_deref().serialize(out)
}

/// One x of a series: the mean of the runs there, their spread and count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The thread count (x=threads); `None` on bars.
    pub threads: Option<u32>,
    /// The value of the x attribute (`x=os_version`: `6.1-RELEASE`);
    /// absent on other axes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
    /// The item (on bars, the category).
    pub item: String,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
    /// How many distinct configurations the runs are (attributes apart
    /// from [`PROVENANCE`]); 1 for repeats.
    pub configurations: usize,
    /// The attribute keys whose values differ among the runs, sorted;
    /// empty for repeats. A mixed point gets no interval or verdict.
    pub mixed: Vec<String>,
    pub vs_baseline: Option<VsBaseline>,
    /// value(n) / (n × value(1)), where the series has a 1-thread point
    /// and the metric is a rate.
    pub efficiency: Option<f64>,
    /// The point's runs: every one, or where the point was read from the
    /// sums of its configurations (`moments` is then set), the first
    /// [`crate::store::FIRST_RESULTS`] by run.
    pub runs: Vec<RunValue>,
    /// The moments of the point's values where it was read from the sums
    /// of its configurations; `None` where `runs` holds every value.
    #[serde(skip)]
    pub moments: Option<Moments>,
    /// The ids of the results whose runs `runs` is to hold, until it is
    /// read (`store::linked_results`).
    #[serde(skip)]
    pub linked: Vec<i64>,
}

/// The best point of a series against threads (highest, or lowest where
/// lower is better).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Peak {
    pub mean: f64,
    pub threads: Option<u32>,
}

/// The runs sharing one combination of the `by` values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    /// The `by` attributes' values for this series (plus the item when the
    /// query left it open on a line chart and several were found).
    pub keys: BTreeMap<String, String>,
    pub points: Vec<Point>,
    pub peak: Option<Peak>,
    pub is_baseline: bool,
}

/// A comparison ready to draw or tabulate. Series are in natural order of
/// their keys, points by threads or in the order the tool prints its
/// items, so the same data always gives the same chart and colours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The canonical query string: the permalink's.
    pub query: String,
    pub tool: String,
    pub metric: String,
    pub unit: String,
    pub metric_title: String,
    pub higher_is_better: bool,
    pub item: Option<String>,
    pub test: Option<String>,
    pub x: XAxis,
    pub by: Vec<String>,
    /// The series' key names, in column order.
    pub key_columns: Vec<String>,
    #[serde(rename = "where")]
    pub wheres: Vec<String>,
    /// The baseline series' name, when the query named one that exists.
    pub baseline: Option<String>,
    /// The confidence level of the differences' intervals and verdicts.
    pub confidence: Confidence,
    /// The bar groups (items), in order; empty on a line chart.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    /// Matching results that have no thread count, so cannot be placed on
    /// a thread axis.
    pub without_threads: usize,
    /// With `x=<attribute>`: the attribute's values drawn, in version
    /// order (at most [`crate::limits::MAX_X_VALUES`]); empty otherwise.
    pub x_values: Vec<String>,
    /// With `x=<attribute>`: matching results whose runs do not have the
    /// attribute, so have no place along x (a notice names them too).
    pub without_x: usize,
    /// Things the reader should know (a baseline that names no series).
    pub notices: Vec<String>,
    /// What the series' runs were run with: one row per attribute key
    /// some series has (provenance aside), those that differ first.
    pub attributes: Vec<AttributeRow>,
}

/// One attribute across the series of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributeRow {
    pub key: String,
    /// Whether the series' values are not all the same.
    pub differs: bool,
    /// Each series' value: `(none)` where its runs lack it, the distinct
    /// values joined by `, ` where its runs differ.
    pub values: BTreeMap<String, String>,
}

/// How much of each point's runs a comparison holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every run of every point, with its value: what the CSV, JSON and
    /// text list (the text's median needs them all).
    EveryRun,
    /// The statistics, and the first [`store::FIRST_RESULTS`] runs of
    /// each point: what the page and the charts show. Read from the sums
    /// of the configurations (`store::sums`) where they can stand for
    /// the results, so that its cost grows with the configurations, not
    /// with the results stored.
    Summary,
}

/// Reads and groups the data of a resolved query: one query however much
/// is stored, and one more for a `by` or `where` key that benchlog does not
/// know of itself. Attribute keys are checked against the ones stored for
/// the tool (and Contract 2's).
pub fn compare(
    conn: &rusqlite::Connection,
    query: &CompareQuery,
    resolved: Resolved,
    detail: Detail,
) -> Result<Comparison, CompareError> {
    // Only a key outside the run's fields and Contract 2 can be unknown.
    if query_keys(query).any(|(_, key)| !is_field(key) && !ATTRIBUTE_KEYS.contains(&key)) {
        let mut stored_keys = store::tool_attr_keys(conn, resolved.tool.name())?;
        if query.asof.is_some() {
            // A key the pinned data had, since corrected away.
            stored_keys.extend(store::corrected_attr_keys(conn, resolved.tool.name())?);
        }
        check_keys(query, resolved.tool, &stored_keys)?;
    }
    if let Some(asof) = query.asof {
        check_asof(asof, store::newest_submission_id(conn)?)?;
    }
    let filter = metric_filter(query, resolved);
    let cells = match detail {
        Detail::Summary if sums_can_split(query) => store::point_cells(conn, &filter)?,
        _ => None,
    };
    let mut comparison = match cells {
        Some(cells) => {
            let rows = cell_rows(cells, &filter.attr_keys);
            let mut comparison = group::comparison(query, resolved, &filter.attr_keys, rows);
            link_runs(conn, &mut comparison)?;
            comparison
        }
        None => {
            let mut rows = store::metric_rows(conn, &filter)?;
            if resolved.x == Some(XAxis::Attribute(query::DATE)) {
                days_of_runs(conn, &filter.attr_keys, &mut rows)?;
            }
            group::comparison(query, resolved, &filter.attr_keys, rows)
        }
    };
    if let Some(asof) = query.asof {
        let deleted = store::deleted_since(conn, asof)?;
        if deleted > 0 {
            let (noun, verb) = if deleted == 1 {
                ("submission", "was")
            } else {
                ("submissions", "were")
            };
            comparison.notices.push(format!(
                "{deleted} {noun} numbered up to {asof} {verb} deleted after submission {asof} was stored: their runs are no longer shown."
            ));
        }
    }
    Ok(comparison)
}

/// Whether sums of configurations can be grouped as the query asks: not
/// where it splits or filters by what tells runs of one configuration
/// apart (their label, author, submission, or a provenance attribute),
/// nor when pinned (the sums are of the data as it is), nor along a
/// provenance attribute (`x=date`: the sums' configurations leave it out).
fn sums_can_split(query: &CompareQuery) -> bool {
    use parsers::contract::PseudoField;
    query.asof.is_none()
        && !query.x.as_deref().is_some_and(|x| PROVENANCE.contains(&x))
        && query_keys(query).all(|(_, key)| {
            !PROVENANCE.contains(&key)
                && !matches!(
                    PseudoField::from_name(key),
                    Some(PseudoField::Label | PseudoField::Author | PseudoField::Submission)
                )
        })
}

/// `x=date` ([`query::DATE`]): each row's `date` becomes the day of the
/// run's own date, else of its submission's (one statement for all of
/// them); `None` where neither reads as a date.
fn days_of_runs(
    conn: &rusqlite::Connection,
    attr_keys: &[String],
    rows: &mut [MetricRow],
) -> rusqlite::Result<()> {
    let Some(index) = attr_keys.iter().position(|key| key == query::DATE) else {
        return Ok(());
    };
    let mut ids: Vec<i64> = rows
        .iter()
        .filter(|row| row.attrs[index].is_none())
        .map(|row| row.submission_id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let posted: HashMap<i64, Rc<str>> = store::submission_dates(conn, &ids)?
        .into_iter()
        .filter_map(|(id, date)| Some((id, Rc::from(order::day_of(&date)?))))
        .collect();
    // Runs share their dates' text: a day once per distinct date.
    let mut days: HashMap<Rc<str>, Option<Rc<str>>> = HashMap::new();
    for row in rows.iter_mut() {
        row.attrs[index] = match row.attrs[index].take() {
            Some(own) => days
                .entry(own)
                .or_insert_with_key(|own| order::day_of(own).map(Rc::from))
                .clone(),
            None => posted.get(&row.submission_id).cloned(),
        };
    }
    Ok(())
}

/// A row per configuration's cell, standing for its results: no run of
/// its own, its mean as value, a copy key of its own (cells never count
/// as copies of each other).
fn cell_rows(cells: Vec<store::Cell>, attr_keys: &[String]) -> Vec<MetricRow> {
    cells
        .into_iter()
        .enumerate()
        .map(|(index, cell)| {
            let attrs = attr_keys
                .iter()
                .map(|key| {
                    cell.config
                        .binary_search_by(|(k, _)| (**k).cmp(key.as_str()))
                        .ok()
                        .map(|at| Rc::clone(&cell.config[at].1))
                })
                .collect();
            MetricRow {
                run_id: cell.first_result,
                copy_key: -1 - index as i64,
                submission_id: 0,
                test: cell.test,
                label: None,
                threads: cell.threads,
                author: None,
                first_line: 0,
                item: cell.item,
                value: cell.moments.mean,
                unit: cell.unit,
                attrs,
                config: cell.config,
                cell: Some(Rc::new(store::CellSummary {
                    moments: cell.moments,
                    rows: cell.rows,
                    first_results: cell.first_results,
                    copy: cell.copy,
                })),
            }
        })
        .collect()
}

/// Reads the runs each point of sums links (a few per point), all in one
/// statement, each point's in the order it links them.
fn link_runs(conn: &rusqlite::Connection, comparison: &mut Comparison) -> rusqlite::Result<()> {
    let points = || comparison.series.iter().flat_map(|s| &s.points);
    let ids: Vec<i64> = points()
        .flat_map(|point| point.linked.iter().copied())
        .collect();
    let found: HashMap<i64, store::LinkedResult> = store::linked_results(conn, &ids)?
        .into_iter()
        .map(|result| (result.result_id, result))
        .collect();
    for point in comparison.series.iter_mut().flat_map(|s| &mut s.points) {
        point.runs = std::mem::take(&mut point.linked)
            .into_iter()
            .filter_map(|id| found.get(&id))
            .map(|found| RunValue {
                run_id: found.run_id,
                submission_id: found.submission_id,
                line: found.first_line,
                value: found.value,
                label: found.label.as_deref().map(Rc::from),
                author: found.author.as_deref().map(Rc::from),
                test: found.test.as_deref().map(Rc::from),
            })
            .collect();
    }
    Ok(())
}

/// The comparison of runs already read (one submission's, say), grouped
/// exactly as [`compare`] groups the stored ones: a chart drawn from it
/// shows the series of `/compare` in the same order and colours.
pub fn compare_runs(
    query: &CompareQuery,
    resolved: Resolved,
    submission_id: i64,
    runs: &[StoredRun],
) -> Comparison {
    let filter = metric_filter(query, resolved);
    let mut runs: Vec<&StoredRun> = runs
        .iter()
        .filter(|run| run.tool == filter.tool)
        .filter(|run| filter.test.is_none() || run.test == filter.test)
        .collect();
    // The order of the database's rows.
    runs.sort_by_key(|run| run.id);
    let mut configurations = store::Configurations::default();
    let filter = &filter;
    let rows = runs
        .into_iter()
        .flat_map(|run| {
            // Sorted by key, as the store reads them.
            let config = configurations.get(
                run.attrs
                    .iter()
                    .map(|(key, value)| (Rc::from(key.as_str()), Rc::from(value.as_str())))
                    .collect(),
            );
            run.results
                .iter()
                .filter(|result| result.metric == filter.metric)
                .filter(|result| filter.item.as_ref().is_none_or(|item| result.item == *item))
                .map(move |result| MetricRow {
                    config: Rc::clone(&config),
                    run_id: run.id,
                    // One submission's runs are never copies of each other.
                    copy_key: run.id,
                    submission_id,
                    test: run.test.as_deref().map(Rc::from),
                    label: run.label.as_deref().map(Rc::from),
                    threads: run.threads,
                    author: run.author.as_deref().map(Rc::from),
                    first_line: run.lines[0],
                    item: Rc::from(result.item.as_str()),
                    value: result.value,
                    unit: Rc::from(result.unit.as_str()),
                    attrs: filter
                        .attr_keys
                        .iter()
                        .map(|key| run.attrs.get(key).map(|value| Rc::from(value.as_str())))
                        .collect(),
                    cell: None,
                })
        })
        .collect();
    group::comparison(query, resolved, &filter.attr_keys, rows)
}

/// What to read for a query: its tool, metric, test and item, and the
/// attributes its `by` and `where` name, each once.
fn metric_filter(query: &CompareQuery, resolved: Resolved) -> MetricFilter {
    let mut attr_keys: Vec<String> = Vec::new();
    let x_key = resolved.x.and_then(XAxis::attribute);
    for key in query_keys(query).map(|(_, key)| key).chain(x_key) {
        if !is_field(key) && !attr_keys.iter().any(|k| k == key) {
            attr_keys.push(key.to_owned());
        }
    }
    MetricFilter {
        tool: resolved.tool.name().to_owned(),
        metric: resolved.metric.name.to_owned(),
        test: query.test.clone(),
        item: query.item.clone(),
        attr_keys,
        asof: query.asof,
    }
}

impl Point {
    /// Where the point sits along x, as the tables print it: its thread
    /// count, its value of the x attribute, or its item.
    pub fn x_text(&self) -> String {
        match (&self.x, self.threads) {
            (Some(value), _) => value.clone(),
            (None, Some(threads)) => threads.to_string(),
            (None, None) => self.item.clone(),
        }
    }

    /// The values of the point's runs, in run order.
    pub fn values(&self) -> Vec<f64> {
        self.runs.iter().map(|run| run.value).collect()
    }

    /// The distinct tests of the runs behind this point.
    pub fn tests(&self) -> Vec<String> {
        let mut tests: Vec<String> = self
            .runs
            .iter()
            .filter_map(|r| r.test.as_deref().map(str::to_owned))
            .collect();
        tests.sort();
        tests.dedup();
        tests
    }
}
