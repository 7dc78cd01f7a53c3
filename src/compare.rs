//! Contract 3's comparison: the query (`tool`, `test`, `item`, `metric`,
//! `x`, `by`, `where`, `baseline`), checking it, and grouping the stored
//! results into series of points (mean, min, max and count of the repeats
//! of one configuration), with the difference to a baseline series, the
//! peak and the scaling efficiency. Shared by the web pages and
//! `benchlog export`, so that every form of one query gives the same data.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use parsers::{MetricInfo, Tool};
use serde::Serialize;

use crate::charts::{Chart, ChartSeries};
use crate::csv_cell;
use crate::store::{self, MetricFilter, MetricRow};

mod table;

pub use parsers::contract::{is_interim_item, ATTRIBUTE_KEYS, NONE, PSEUDO_FIELD_NAMES};

/// The query string of `/compare`, as the user wrote it (empty fields are
/// absent). Keys repeat for `by` and `where`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CompareQuery {
    pub tool: Option<String>,
    pub test: Option<String>,
    pub item: Option<String>,
    pub metric: Option<String>,
    pub x: Option<String>,
    pub by: Vec<String>,
    #[serde(rename = "where")]
    pub wheres: Vec<(String, String)>,
    /// The name of the series the others are compared with.
    pub baseline: Option<String>,
}

/// The most `by` attributes a comparison groups by. Each is one more
/// column and lookup per result row in one SQL statement, whose size
/// SQLite bounds (2,100 of them made a 500), and multiplies the series
/// past what a chart can show.
pub const MAX_BY: usize = 8;

/// The most `where=` filters a comparison or the runs table takes. Each
/// is a condition or a lookup in one SQL statement, whose size SQLite
/// bounds (a thousand made a 500).
pub const MAX_WHERE: usize = 16;

/// The most `key=value` pairs a query string may hold, empty ones
/// included: room for every field, the `by` and `where` limits and a
/// form's empty boxes.
pub const MAX_QUERY_PAIRS: usize = 64;

/// The longest query string read, in bytes (before decoding).
pub const MAX_QUERY_BYTES: usize = 32 * 1024;

/// A mistake in the query: the message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QueryError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, QueryError> {
    Err(QueryError(message.into()))
}

impl CompareQuery {
    /// Reads a raw query string (`tool=super-smack&by=scheduler&by=timer`).
    pub fn from_query_string(query: &str) -> Result<Self, QueryError> {
        Self::from_pairs(query_pairs(query)?)
    }

    /// Reads the query's pairs, as a query string or `benchlog export`'s
    /// options give them, within [`MAX_QUERY_PAIRS`], [`MAX_BY`] and
    /// [`MAX_WHERE`].
    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, QueryError> {
        let mut query = CompareQuery::default();
        for (count, (key, value)) in pairs.into_iter().enumerate() {
            check_pair_count(count + 1)?;
            let value = value.trim().to_owned();
            if value.is_empty() {
                continue;
            }
            match key.as_str() {
                "tool" => query.tool = Some(value),
                "test" => query.test = Some(value),
                "item" => query.item = Some(value),
                "metric" => query.metric = Some(value),
                "x" => query.x = Some(value),
                "baseline" => query.baseline = Some(value),
                "by" => {
                    // A form may send "scheduler, timer" in one box.
                    for key in value.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                        check_attr_key(key)?;
                        if !query.by.iter().any(|k| k == key) {
                            if query.by.len() == MAX_BY {
                                return Err(too_many_by());
                            }
                            query.by.push(key.to_owned());
                        }
                    }
                }
                "where" => {
                    let Some((attr, wanted)) = value.split_once(':') else {
                        return fail(format!(
                            "where={value} needs the form where=<attribute>:<value>, e.g. where=scheduler:ULE"
                        ));
                    };
                    let attr = attr.trim();
                    check_attr_key(attr)?;
                    check_where_count(query.wheres.len() + 1)?;
                    query.wheres.push((attr.to_owned(), wanted.trim().to_owned()));
                }
                other => {
                    return fail(format!(
                        "unknown query parameter {other:?}; /compare takes tool, test, item, metric, x, by, where and baseline"
                    ))
                }
            }
        }
        Ok(query)
    }

    /// The canonical query string, for links that must keep showing the
    /// same chart.
    pub fn to_query_string(&self) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (key, value) in [
            ("tool", &self.tool),
            ("test", &self.test),
            ("item", &self.item),
            ("metric", &self.metric),
            ("x", &self.x),
        ] {
            if let Some(value) = value {
                pairs.push((key, value.clone()));
            }
        }
        for key in &self.by {
            pairs.push(("by", key.clone()));
        }
        for (attr, value) in &self.wheres {
            pairs.push(("where", format!("{attr}:{value}")));
        }
        if let Some(baseline) = &self.baseline {
            pairs.push(("baseline", baseline.clone()));
        }
        serde_urlencoded::to_string(&pairs).unwrap_or_default()
    }

    /// The x axis asked for; `None` leaves the choice to the data
    /// (threads where the runs have thread counts).
    pub fn x_axis(&self) -> Result<Option<XAxis>, QueryError> {
        match self.x.as_deref() {
            None => Ok(None),
            Some("threads") => Ok(Some(XAxis::Threads)),
            Some("none") => Ok(Some(XAxis::None)),
            Some(other) => fail(format!(
                "x={other} is not supported; the x axis can be threads, or none for bars per item"
            )),
        }
    }

    /// Checks the query against what benchlog knows and returns what is
    /// needed to read the data. `Ok(None)` when tool or metric is still to
    /// be chosen (the form page then just shows the form).
    pub fn resolve(&self) -> Result<Option<Resolved>, QueryError> {
        let tool = match &self.tool {
            None => None,
            Some(name) => match Tool::from_name(name) {
                Some(tool) => Some(tool),
                None => {
                    let known: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
                    return fail(format!(
                        "unknown tool {name:?}; choose one of {}",
                        known.join(", ")
                    ));
                }
            },
        };
        let metric = match &self.metric {
            None => None,
            Some(name) => match parsers::metric_info(name) {
                Some(info) => Some(info),
                None => {
                    let accepted = match tool {
                        Some(tool) => {
                            format!("{tool} reports {}", contract_metrics(tool).join(", "))
                        }
                        None => "e.g. q_per_s, tps, wallclock_s, kb_per_s, ms".to_owned(),
                    };
                    return fail(format!("unknown metric {name:?}; {accepted}"));
                }
            },
        };
        let x = self.x_axis()?;
        match (tool, metric) {
            (Some(tool), Some(metric)) => Ok(Some(Resolved { tool, metric, x })),
            _ => Ok(None),
        }
    }

    /// Like [`resolve`](Self::resolve), but tool and metric are required
    /// (for the CSV, JSON and image forms).
    pub fn resolve_required(&self) -> Result<Resolved, QueryError> {
        match self.resolve()? {
            Some(resolved) => Ok(resolved),
            None if self.tool.is_none() => fail("tool= is required, e.g. tool=super-smack"),
            None => fail("metric= is required, e.g. metric=q_per_s"),
        }
    }
}

/// The pairs of a raw query string, refused when it is longer than
/// [`MAX_QUERY_BYTES`] or holds more than [`MAX_QUERY_PAIRS`]: every page
/// reading a query string reads it here.
pub fn query_pairs(query: &str) -> Result<Vec<(String, String)>, QueryError> {
    if query.len() > MAX_QUERY_BYTES {
        return fail(format!(
            "the query string is {} bytes long; at most {MAX_QUERY_BYTES} are read: ask for fewer things at once",
            query.len()
        ));
    }
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
        .map_err(|e| QueryError(format!("the query string could not be read: {e}")))?;
    if pairs.len() > MAX_QUERY_PAIRS {
        // Name the parameter repeated too often, if one is.
        let count = |name: &str| pairs.iter().filter(|(key, _)| key == name).count();
        check_where_count(count("where"))?;
        if count("by") > MAX_BY {
            return Err(too_many_by());
        }
        check_pair_count(pairs.len())?;
    }
    Ok(pairs)
}

fn too_many_by() -> QueryError {
    QueryError(format!(
        "too many by= attributes: a comparison groups by at most {MAX_BY}; leave some out, or filter with where= instead"
    ))
}

fn check_pair_count(count: usize) -> Result<(), QueryError> {
    if count > MAX_QUERY_PAIRS {
        return fail(format!(
            "the query has too many parameters; at most {MAX_QUERY_PAIRS} are read: ask for fewer things at once"
        ));
    }
    Ok(())
}

/// Refuses a `count`th `where=` filter beyond [`MAX_WHERE`].
pub fn check_where_count(count: usize) -> Result<(), QueryError> {
    if count > MAX_WHERE {
        return fail(format!(
            "too many where= filters: at most {MAX_WHERE} are taken (each value of an attribute is one); drop some"
        ));
    }
    Ok(())
}

pub fn check_attr_key(key: &str) -> Result<(), QueryError> {
    let ok = !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        fail(format!(
            "{key:?} is not an attribute name; names are lower snake case, like scheduler or thread_lib"
        ))
    }
}

/// The metrics of Contract 2 for each tool, for messages that say what is
/// accepted.
pub fn contract_metrics(tool: Tool) -> &'static [&'static str] {
    match tool {
        Tool::SuperSmack => &[
            "q_per_s",
            "num_queries",
            "max_time",
            "min_time",
            "max_ms",
            "min_ms",
            "avg_ms",
        ],
        Tool::Sysbench => &[
            "tps",
            "qps",
            "qps_per_thread",
            "transactions",
            "queries",
            "events_per_s",
            "latency_avg_ms",
            "latency_p95_ms",
            "latency_max_ms",
            "rw_requests_per_s",
            "reads_per_s",
            "writes_per_s",
            "read_mib_per_s",
            "written_mib_per_s",
            "ops_per_s",
            "mib_per_s",
        ],
        Tool::SqlBench => &[
            "wallclock_s",
            "usr_s",
            "sys_s",
            "cusr_s",
            "csys_s",
            "cpu_s",
            "tests",
        ],
        Tool::Bonnie => &["kb_per_s", "per_s", "cpu_pct", "latency_us"],
        Tool::Diskinfo => &["ms", "kb_per_s", "iops"],
    }
}

/// What goes along the x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum XAxis {
    /// A line chart against the thread (client) count.
    Threads,
    /// Grouped bars, one group per item.
    None,
}

impl XAxis {
    pub fn name(self) -> &'static str {
        match self {
            XAxis::Threads => "threads",
            XAxis::None => "none",
        }
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

/// One stored value inside a point, to trace it back to its run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunValue {
    pub run_id: i64,
    pub submission_id: i64,
    /// First line of the run in its submission, for links.
    pub line: usize,
    pub value: f64,
    pub label: Option<String>,
    pub author: Option<String>,
    pub test: Option<String>,
}

/// The difference of a point to the baseline's point at the same x.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VsBaseline {
    /// (mean − baseline mean) / baseline mean × 100.
    pub percent: f64,
    /// "better", "worse" or "same", by the metric's direction.
    pub verdict: &'static str,
}

/// One x of a series: the mean of the runs there, their spread and count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The thread count (x=threads); `None` on bars.
    pub threads: Option<u32>,
    /// The item (on bars, the category).
    pub item: String,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
    pub vs_baseline: Option<VsBaseline>,
    /// value(n) / (n × value(1)), where the series has a 1-thread point
    /// and the metric is a rate.
    pub efficiency: Option<f64>,
    pub runs: Vec<RunValue>,
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
    /// The bar groups (items), in order; empty on a line chart.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    /// Matching results that have no thread count, so cannot be placed on
    /// a thread axis.
    pub without_threads: usize,
    /// Things the reader should know (a baseline that names no series).
    pub notices: Vec<String>,
}

/// Reads and groups the data of a resolved query: one query however much
/// is stored, and one more for a `by` or `where` key that benchlog does not
/// know of itself. Attribute keys are checked against the ones stored for
/// the tool (and Contract 2's).
pub fn compare(
    conn: &rusqlite::Connection,
    query: &CompareQuery,
    resolved: Resolved,
) -> Result<Comparison, CompareError> {
    // Only a key outside the run's fields and Contract 2 can be unknown.
    if query_keys(query).any(|(_, key)| !is_field(key) && !ATTRIBUTE_KEYS.contains(&key)) {
        let stored_keys = store::tool_attr_keys(conn, resolved.tool.name())?;
        check_keys(query, resolved.tool, &stored_keys)?;
    }
    let mut attr_keys: Vec<String> = Vec::new();
    for (_, key) in query_keys(query) {
        if !is_field(key) && !attr_keys.iter().any(|k| k == key) {
            attr_keys.push(key.to_owned());
        }
    }
    let filter = MetricFilter {
        tool: resolved.tool.name().to_owned(),
        metric: resolved.metric.name.to_owned(),
        test: query.test.clone(),
        item: query.item.clone(),
        attr_keys,
    };
    let rows = store::metric_rows(conn, &filter)?;
    Ok(group(query, resolved, &filter.attr_keys, rows))
}

/// The keys a query groups or filters by, with the parameter naming each.
fn query_keys(query: &CompareQuery) -> impl Iterator<Item = (&'static str, &str)> {
    query
        .by
        .iter()
        .map(|k| ("by", k.as_str()))
        .chain(query.wheres.iter().map(|(k, _)| ("where", k.as_str())))
}

/// Whether `key` names a field of the result or its run rather than a run
/// attribute.
fn is_field(key: &str) -> bool {
    key == "item" || PSEUDO_FIELD_NAMES.contains(&key)
}

fn check_keys(query: &CompareQuery, tool: Tool, stored: &[String]) -> Result<(), QueryError> {
    let known = |key: &str| {
        is_field(key) || ATTRIBUTE_KEYS.contains(&key) || stored.iter().any(|k| k == key)
    };
    for (parameter, key) in query_keys(query) {
        if !known(key) {
            let mut accepted: Vec<&str> = stored.iter().map(String::as_str).collect();
            accepted.extend(PSEUDO_FIELD_NAMES);
            return fail(format!(
                "unknown attribute {key:?} in {parameter}=; {tool} runs can be grouped and filtered by {}",
                accepted.join(", ")
            ));
        }
    }
    Ok(())
}

/// Where the value of a `by` or `where` key is found in a row: a field of
/// the run (the [`PSEUDO_FIELD_NAMES`]), the item, or one of the attributes read
/// with the rows.
#[derive(Debug, Clone, Copy)]
enum KeyField {
    Label,
    Author,
    Submission,
    Test,
    Item,
    /// The index in the rows' `attrs`.
    Attr(usize),
    /// An attribute that was not read: no row has it.
    Unread,
}

impl KeyField {
    fn of(key: &str, attr_keys: &[String]) -> Self {
        match key {
            "label" => KeyField::Label,
            "author" => KeyField::Author,
            "submission" => KeyField::Submission,
            "test" => KeyField::Test,
            "item" => KeyField::Item,
            _ => match attr_keys.iter().position(|k| k == key) {
                Some(index) => KeyField::Attr(index),
                None => KeyField::Unread,
            },
        }
    }

    /// The row's value, borrowed where the row holds it as text.
    fn value(self, row: &MetricRow) -> Option<Cow<'_, str>> {
        let text = match self {
            KeyField::Label => row.label.as_deref(),
            KeyField::Author => row.author.as_deref(),
            KeyField::Submission => return Some(Cow::Owned(row.submission_id.to_string())),
            KeyField::Test => row.test.as_deref(),
            KeyField::Item => Some(row.item.as_str()),
            KeyField::Attr(index) => row.attrs.get(index).and_then(Option::as_deref),
            KeyField::Unread => None,
        };
        text.map(Cow::Borrowed)
    }
}

/// The `where` filters by key, each with the values that key may have.
fn where_groups(wheres: &[(String, String)]) -> BTreeMap<&str, Vec<&str>> {
    let mut by_key: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (key, value) in wheres {
        by_key.entry(key).or_default().push(value);
    }
    by_key
}

/// Whether a run's value of one key (`None` when it has none) is one of
/// the `wanted`.
fn is_wanted(have: Option<&str>, wanted: &[&str]) -> bool {
    let have = have.unwrap_or(NONE);
    wanted.iter().any(|w| w.eq_ignore_ascii_case(have))
}

/// Whether a row passes the `where` filters: several values for one key
/// mean "any of them"; different keys must all hold. A run without the
/// attribute has the value `(none)`.
pub fn matches_wheres(
    value_of: impl Fn(&str) -> Option<String>,
    wheres: &[(String, String)],
) -> bool {
    where_groups(wheres)
        .into_iter()
        .all(|(key, wanted)| is_wanted(value_of(key).as_deref(), &wanted))
}

/// Orders names as people count: `2.2.16` before `2.4.0`, `8` before
/// `16`, case aside; `(none)` last.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    match (a == NONE, b == NONE) {
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let (mut left, mut right) = (a, b);
    loop {
        match (left.chars().next(), right.chars().next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(l), Some(r)) if l.is_ascii_digit() && r.is_ascii_digit() => {
                let l_len = left
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(left.len());
                let r_len = right
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(right.len());
                let l_digits = left[..l_len].trim_start_matches('0');
                let r_digits = right[..r_len].trim_start_matches('0');
                let order = l_digits
                    .len()
                    .cmp(&r_digits.len())
                    .then_with(|| l_digits.cmp(r_digits));
                if order != Ordering::Equal {
                    return order;
                }
                left = &left[l_len..];
                right = &right[r_len..];
            }
            (Some(l), Some(r)) => {
                let order = l.to_lowercase().cmp(r.to_lowercase());
                if order != Ordering::Equal {
                    return order;
                }
                left = &left[l.len_utf8()..];
                right = &right[r.len_utf8()..];
            }
        }
    }
}

/// Where a scaling efficiency means something: rates (per second, IOPS).
fn is_rate(metric: &MetricInfo) -> bool {
    metric.is_throughput()
}

/// Means are rounded far below what any tool prints, so that the same
/// repeats give the same digits in every form (no 29261.640000000003).
fn tidy(value: f64) -> f64 {
    if value.is_finite() && value.abs() < 1e12 {
        (value * 1e6).round() / 1e6
    } else {
        value
    }
}

/// sysbench's interim report lines (`t=10s`) are items of their own; a
/// query that leaves the item open means the final reports.
fn is_interim(item: &str) -> bool {
    is_interim_item(item)
}

fn group(
    query: &CompareQuery,
    resolved: Resolved,
    attr_keys: &[String],
    mut rows: Vec<MetricRow>,
) -> Comparison {
    let mut notices = Vec::new();
    let wheres: Vec<(KeyField, Vec<&str>)> = where_groups(&query.wheres)
        .into_iter()
        .map(|(key, wanted)| (KeyField::of(key, attr_keys), wanted))
        .collect();
    let mut interim = 0;
    rows.retain(|row| {
        let wanted = wheres
            .iter()
            .all(|(field, wanted)| is_wanted(field.value(row).as_deref(), wanted));
        if !wanted {
            return false;
        }
        let keep = query.item.is_some() || !is_interim(&row.item);
        interim += usize::from(!keep);
        keep
    });
    if interim > 0 {
        notices.push(format!(
            "{interim} interim report values (items t=…) are left out; choose such an item to see them."
        ));
    }
    let x = resolved
        .x
        .unwrap_or(if rows.iter().any(|r| r.threads.is_some()) {
            XAxis::Threads
        } else {
            XAxis::None
        });

    // Items in the order the tool printed them (storage order).
    let mut categories: Vec<&str> = Vec::new();
    let mut category_index: HashMap<&str, usize> = HashMap::new();
    let row_categories: Vec<usize> = rows
        .iter()
        .map(|row| {
            *category_index.entry(&row.item).or_insert_with(|| {
                categories.push(&row.item);
                categories.len() - 1
            })
        })
        .collect();
    let mut key_columns: Vec<String> = Vec::new();
    if x == XAxis::Threads && query.item.is_none() && categories.len() > 1 {
        key_columns.push("item".to_owned());
    }
    for key in &query.by {
        if !key_columns.contains(key) {
            key_columns.push(key.clone());
        }
    }
    let key_fields: Vec<KeyField> = key_columns
        .iter()
        .map(|key| KeyField::of(key, attr_keys))
        .collect();

    // Series, then points within each: (threads, category index), each
    // with the indices of its rows. Values are borrowed from the rows
    // until the series are known.
    type PointKey = (Option<u32>, usize);
    type SeriesRows<Value> = (Vec<Value>, BTreeMap<PointKey, Vec<usize>>);
    let mut index_of: HashMap<Vec<Cow<str>>, usize> = HashMap::new();
    let mut grouped: Vec<SeriesRows<Cow<str>>> = Vec::new();
    let mut values: Vec<Cow<str>> = Vec::with_capacity(key_fields.len());
    let mut without_threads = 0;
    for (index, row) in rows.iter().enumerate() {
        let threads = match x {
            XAxis::Threads => match row.threads {
                Some(threads) => Some(threads),
                None => {
                    without_threads += 1;
                    continue;
                }
            },
            XAxis::None => None,
        };
        values.clear();
        values.extend(
            key_fields
                .iter()
                .map(|field| field.value(row).unwrap_or(Cow::Borrowed(NONE))),
        );
        let series = match index_of.get(values.as_slice()) {
            Some(&series) => series,
            None => {
                index_of.insert(values.clone(), grouped.len());
                grouped.push((values.clone(), BTreeMap::new()));
                grouped.len() - 1
            }
        };
        grouped[series]
            .1
            .entry((threads, row_categories[index]))
            .or_default()
            .push(index);
    }
    grouped.sort_by(|(a, _), (b, _)| {
        a.iter()
            .zip(b)
            .map(|(a, b)| natural_cmp(a, b))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    let grouped: Vec<SeriesRows<String>> = grouped
        .into_iter()
        .map(|(values, points)| (values.into_iter().map(Cow::into_owned).collect(), points))
        .collect();
    let categories: Vec<String> = categories.into_iter().map(str::to_owned).collect();

    let mut series: Vec<Series> = grouped
        .into_iter()
        .map(|(values, points)| {
            let points = points
                .into_iter()
                .map(|((threads, category), indices)| {
                    point(threads, &categories[category], &mut rows, indices)
                })
                .collect();
            let name = if values.is_empty() {
                "all runs".to_owned()
            } else {
                values.join(" / ")
            };
            Series {
                name,
                keys: key_columns.iter().cloned().zip(values).collect(),
                points,
                peak: None,
                is_baseline: false,
            }
        })
        .collect();

    let baseline = query.baseline.as_ref().and_then(|wanted| {
        let found = series
            .iter()
            .position(|s| s.name == *wanted)
            .or_else(|| series.iter().position(|s| s.name.eq_ignore_ascii_case(wanted)));
        if found.is_none() {
            let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
            notices.push(format!(
                "The baseline {wanted:?} is not one of this comparison's series ({}); no differences are shown.",
                if names.is_empty() { "none".to_owned() } else { names.join(", ") }
            ));
        }
        found
    });
    if let Some(base) = baseline {
        series[base].is_baseline = true;
        let reference: HashMap<(Option<u32>, String), f64> = series[base]
            .points
            .iter()
            .map(|p| ((p.threads, p.item.clone()), p.mean))
            .collect();
        for (index, s) in series.iter_mut().enumerate() {
            if index == base {
                continue;
            }
            for p in &mut s.points {
                let Some(&base_mean) = reference.get(&(p.threads, p.item.clone())) else {
                    continue;
                };
                if base_mean == 0.0 {
                    continue;
                }
                let percent = (p.mean - base_mean) / base_mean.abs() * 100.0;
                let verdict = if percent.abs() < 0.05 {
                    "same"
                } else if (percent > 0.0) == resolved.metric.higher_is_better {
                    "better"
                } else {
                    "worse"
                };
                p.vs_baseline = Some(VsBaseline {
                    percent: (percent * 100.0).round() / 100.0,
                    verdict,
                });
            }
        }
    }
    if x == XAxis::Threads {
        for s in &mut series {
            let single = s
                .points
                .iter()
                .find(|p| p.threads == Some(1))
                .map(|p| p.mean);
            if let Some(single) = single.filter(|q1| *q1 > 0.0 && is_rate(resolved.metric)) {
                for p in &mut s.points {
                    let threads = f64::from(p.threads.unwrap_or(1));
                    p.efficiency = Some((p.mean / (threads * single) * 1000.0).round() / 1000.0);
                }
            }
            let best = s.points.iter().reduce(|best, p| {
                let better = if resolved.metric.higher_is_better {
                    p.mean > best.mean
                } else {
                    p.mean < best.mean
                };
                if better {
                    p
                } else {
                    best
                }
            });
            s.peak = best.map(|p| Peak {
                mean: p.mean,
                threads: p.threads,
            });
        }
    }

    let unit = rows
        .first()
        .map(|row| row.unit.clone())
        .unwrap_or_else(|| resolved.metric.unit.to_owned());
    Comparison {
        query: query.to_query_string(),
        tool: resolved.tool.name().to_owned(),
        metric: resolved.metric.name.to_owned(),
        unit,
        metric_title: resolved.metric.title.to_owned(),
        higher_is_better: resolved.metric.higher_is_better,
        item: query.item.clone(),
        test: query.test.clone(),
        x,
        by: query.by.clone(),
        key_columns,
        wheres: query
            .wheres
            .iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect(),
        baseline: baseline.map(|index| series[index].name.clone()),
        categories: if x == XAxis::None {
            categories
        } else {
            Vec::new()
        },
        series,
        without_threads,
        notices,
    }
}

/// The point of the rows at `indices`, which it takes the runs' texts
/// from (each row belongs to one point).
fn point(
    threads: Option<u32>,
    item: &str,
    rows: &mut [MetricRow],
    mut indices: Vec<usize>,
) -> Point {
    indices.sort_by_key(|&index| rows[index].run_id);
    let values: Vec<f64> = indices.iter().map(|&index| rows[index].value).collect();
    let n = values.len();
    Point {
        threads,
        item: item.to_owned(),
        mean: tidy(values.iter().sum::<f64>() / n as f64),
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        n,
        vs_baseline: None,
        efficiency: None,
        runs: indices
            .into_iter()
            .map(|index| {
                let row = &mut rows[index];
                RunValue {
                    run_id: row.run_id,
                    submission_id: row.submission_id,
                    line: row.first_line,
                    value: row.value,
                    label: row.label.take(),
                    author: row.author.take(),
                    test: row.test.take(),
                }
            })
            .collect(),
    }
}

impl Comparison {
    /// The headline: tool, what is measured, of which item and test.
    pub fn title(&self) -> String {
        let mut title = format!("{} {}", self.tool, self.metric_title);
        if let Some(item) = &self.item {
            title.push_str(&format!(", {item}"));
        }
        if let Some(test) = &self.test {
            title.push_str(&format!(" ({test})"));
        }
        title
    }

    /// The value axis' title: what, in which unit, and which way is better.
    pub fn value_title(&self) -> String {
        let direction = if self.higher_is_better {
            "higher is better"
        } else {
            "lower is better"
        };
        format!("{} ({}), {direction}", self.metric_title, self.unit)
    }

    fn x_title(&self) -> &'static str {
        match self.x {
            XAxis::Threads => parsers::Tool::from_name(&self.tool)
                .map_or("threads", parsers::Tool::concurrency_title),
            XAxis::None => "item",
        }
    }

    /// Series names as the legend shows them.
    fn legend_name(series: &Series) -> String {
        if series.is_baseline {
            format!("{} (baseline)", series.name)
        } else {
            series.name.clone()
        }
    }

    /// The chart: lines against threads, or bars per item. Every run's
    /// value goes in, so the chart's mean, whisker and count are the
    /// table's.
    pub fn chart(&self) -> Chart {
        let mut chart = match self.x {
            XAxis::Threads => Chart::new(self.title(), self.x_title(), self.value_title()),
            XAxis::None => Chart::bars(
                self.title(),
                self.x_title(),
                self.value_title(),
                self.categories.clone(),
            ),
        };
        chart.series = self
            .series
            .iter()
            .map(|series| ChartSeries {
                name: Self::legend_name(series),
                points: series
                    .points
                    .iter()
                    .flat_map(|p| {
                        let x = match p.threads {
                            Some(threads) => f64::from(threads),
                            None => self
                                .categories
                                .iter()
                                .position(|c| *c == p.item)
                                .unwrap_or(0) as f64,
                        };
                        p.runs.iter().map(move |run| (x, run.value))
                    })
                    .collect(),
            })
            .collect();
        chart
    }

    /// The numbers as CSV (RFC 4180): one row per point, every series key
    /// a column, then mean, min, max and n.
    pub fn to_csv(&self) -> Result<Vec<u8>, csv::Error> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let fixed: Vec<&str> = ["tool", "test", "item", "metric", "threads"]
            .into_iter()
            .filter(|c| !self.key_columns.iter().any(|k| k == c))
            .collect();
        let mut header = vec!["series".to_owned()];
        header.extend(self.key_columns.iter().cloned());
        header.extend(fixed.iter().map(|c| c.to_string()));
        header.extend(
            [
                "mean",
                "min",
                "max",
                "n",
                "unit",
                "vs_baseline_pct",
                "verdict",
                "efficiency",
                "run_ids",
            ]
            .map(str::to_owned),
        );
        csv_cell::write_record(&mut writer, &header)?;
        for series in &self.series {
            for point in &series.points {
                let mut record = vec![series.name.clone()];
                record.extend(
                    self.key_columns
                        .iter()
                        .map(|k| series.keys.get(k).cloned().unwrap_or_default()),
                );
                for column in &fixed {
                    record.push(match *column {
                        "tool" => self.tool.clone(),
                        "test" => point.tests().join(";"),
                        "item" => point.item.clone(),
                        "metric" => self.metric.clone(),
                        _ => point.threads.map(|t| t.to_string()).unwrap_or_default(),
                    });
                }
                let baseline = point.vs_baseline.as_ref();
                record.extend([
                    point.mean.to_string(),
                    point.min.to_string(),
                    point.max.to_string(),
                    point.n.to_string(),
                    self.unit.clone(),
                    baseline.map(|b| b.percent.to_string()).unwrap_or_default(),
                    baseline.map(|b| b.verdict.to_owned()).unwrap_or_default(),
                    point.efficiency.map(|e| e.to_string()).unwrap_or_default(),
                    point
                        .runs
                        .iter()
                        .map(|r| r.run_id.to_string())
                        .collect::<Vec<_>>()
                        .join(";"),
                ]);
                csv_cell::write_record(&mut writer, &record)?;
            }
        }
        writer.into_inner().map_err(|e| e.into_error().into())
    }

    /// The comparison as plain text of at most 72 columns, for a mail.
    pub fn to_text(&self) -> String {
        table::to_text(self)
    }
}

impl Point {
    /// The distinct tests of the runs behind this point.
    pub fn tests(&self) -> Vec<String> {
        let mut tests: Vec<String> = self.runs.iter().filter_map(|r| r.test.clone()).collect();
        tests.sort();
        tests.dedup();
        tests
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> Result<CompareQuery, QueryError> {
        CompareQuery::from_query_string(text)
    }

    #[test]
    fn reads_repeated_keys_and_round_trips() {
        let q = query("tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib&where=timer:TSC&baseline=ULE+%2F+libthr").unwrap();
        assert_eq!(q.by, ["scheduler", "thread_lib"]);
        assert_eq!(q.wheres, [("timer".to_owned(), "TSC".to_owned())]);
        assert_eq!(q.baseline.as_deref(), Some("ULE / libthr"));
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
    }

    #[test]
    fn explains_mistakes() {
        let cases = [
            ("tool=nope&metric=q_per_s", "unknown tool"),
            (
                "tool=super-smack&metric=speed",
                "super-smack reports q_per_s",
            ),
            ("tool=super-smack&metric=q_per_s&x=time", "x axis"),
            ("where=scheduler", "where=<attribute>:<value>"),
            ("by=Bad-Key", "not an attribute name"),
            ("colour=red", "unknown query parameter"),
        ];
        for (index, (text, want)) in cases.into_iter().enumerate() {
            let error = query(text).and_then(|q| q.resolve_required().map(|_| q));
            let message = error.expect_err(text).0;
            assert!(message.contains(want), "case {index}: {message}");
        }
    }

    #[test]
    fn unknown_attributes_name_the_known_ones() {
        let q = query("tool=sql-bench&metric=wallclock_s&by=kernel_flavour").unwrap();
        let message = check_keys(&q, Tool::SqlBench, &["os_version".to_owned()])
            .unwrap_err()
            .0;
        assert!(message.contains("os_version, label"), "{message}");
        let q =
            query("tool=sql-bench&metric=wallclock_s&by=os_version&by=label&where=scheduler:ULE")
                .unwrap();
        assert!(check_keys(&q, Tool::SqlBench, &["os_version".to_owned()]).is_ok());
    }

    #[test]
    fn empty_fields_are_absent() {
        let q = query("tool=super-smack&test=&metric=&by=").unwrap();
        assert_eq!(q.test, None);
        assert!(q.by.is_empty());
        assert_eq!(q.resolve(), Ok(None));
        assert!(q.resolve_required().unwrap_err().0.contains("metric="));
    }

    #[test]
    fn natural_order() {
        let mut names = vec!["(none)", "2.4.0", "16", "2.2.16-22smp", "8", "ULE", "4BSD"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            ["2.2.16-22smp", "2.4.0", "4BSD", "8", "16", "ULE", "(none)"]
        );
    }
}
