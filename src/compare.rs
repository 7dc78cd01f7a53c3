//! Contract 3's comparison: the query (`tool`, `test`, `item`, `metric`,
//! `x`, `by`, `where`), checking it, and grouping the stored results into
//! series. Shared by the web pages and `benchlog export`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use parsers::{MetricInfo, Tool};
use serde::Serialize;

use crate::charts::{ChartSeries, LineChart};
use crate::store::{self, MetricFilter, MetricRow};

/// Grouping keys that are not run attributes but fields of the run.
pub const PSEUDO_ATTRS: [&str; 4] = ["label", "author", "submission", "test"];

/// The value shown for a run that lacks a `by` attribute.
pub const NONE: &str = "(none)";

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
}

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
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
            .map_err(|e| QueryError(format!("the query string could not be read: {e}")))?;
        Self::from_pairs(pairs)
    }

    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, QueryError> {
        let mut query = CompareQuery::default();
        for (key, value) in pairs {
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
                "by" => {
                    // A form may send "scheduler, timer" in one box.
                    for key in value.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                        check_attr_key(key)?;
                        if !query.by.iter().any(|k| k == key) {
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
                    query.wheres.push((attr.to_owned(), wanted.trim().to_owned()));
                }
                other => {
                    return fail(format!(
                        "unknown query parameter {other:?}; /compare takes tool, test, item, metric, x, by and where"
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
        serde_urlencoded::to_string(&pairs).unwrap_or_default()
    }

    /// The x axis; only `threads` so far.
    pub fn x_axis(&self) -> &str {
        self.x.as_deref().unwrap_or("threads")
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
                    return fail(format!(
                        "unknown metric {name:?}; metric names are lower snake case, e.g. q_per_s, tps, wallclock_s"
                    ))
                }
            },
        };
        if self.x_axis() != "threads" {
            return fail(format!(
                "x={} is not supported; the x axis can be threads",
                self.x_axis()
            ));
        }
        match (tool, metric) {
            (Some(tool), Some(metric)) => Ok(Some(Resolved { tool, metric })),
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

fn check_attr_key(key: &str) -> Result<(), QueryError> {
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

/// A query checked against benchlog's tools and metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolved {
    pub tool: Tool,
    pub metric: &'static MetricInfo,
}

/// One plotted value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub threads: u32,
    pub value: f64,
    pub item: String,
    pub unit: String,
    pub run_id: i64,
    pub submission_id: i64,
    pub label: Option<String>,
    pub test: Option<String>,
    pub author: Option<String>,
    /// First line of the run in its submission, for links.
    pub line: usize,
}

/// The runs sharing one combination of the `by` values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    /// The `by` attributes' values for this series (plus the item when the
    /// query left it open and several were found).
    pub keys: BTreeMap<String, String>,
    pub points: Vec<Point>,
}

/// A comparison ready to draw or tabulate. Series are sorted by their keys
/// and points by threads then run, so the same data always gives the same
/// chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub tool: String,
    pub metric: String,
    pub unit: String,
    pub metric_title: String,
    pub higher_is_better: bool,
    pub item: Option<String>,
    pub test: Option<String>,
    pub x: String,
    pub by: Vec<String>,
    pub series: Vec<Series>,
    /// Matching runs that have no thread count, so cannot be placed on x.
    pub without_threads: usize,
}

/// Reads and groups the data of a resolved query: a bounded number of
/// queries however much is stored.
pub fn compare(
    conn: &rusqlite::Connection,
    query: &CompareQuery,
    resolved: Resolved,
) -> rusqlite::Result<Comparison> {
    let filter = MetricFilter {
        tool: resolved.tool.name().to_owned(),
        metric: resolved.metric.name.to_owned(),
        test: query.test.clone(),
        item: query.item.clone(),
    };
    let rows = store::metric_rows(conn, &filter)?;
    Ok(group(query, resolved, rows))
}

/// The value of a `by` or `where` key for a row: a run attribute, or one of
/// the [`PSEUDO_ATTRS`].
pub fn key_value(row: &MetricRow, key: &str) -> Option<String> {
    match key {
        "label" => row.label.clone(),
        "author" => row.author.clone(),
        "submission" => Some(row.submission_id.to_string()),
        "test" => row.test.clone(),
        _ => row.attrs.get(key).cloned(),
    }
}

fn matches_wheres(row: &MetricRow, wheres: &[(String, String)]) -> bool {
    // Several values for one key mean "any of them"; different keys must all hold.
    let mut by_key: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (key, value) in wheres {
        by_key.entry(key).or_default().push(value);
    }
    by_key.into_iter().all(|(key, wanted)| {
        let have = key_value(row, key);
        let have = have.as_deref().unwrap_or(NONE);
        wanted.iter().any(|w| w.eq_ignore_ascii_case(have))
    })
}

fn group(query: &CompareQuery, resolved: Resolved, rows: Vec<MetricRow>) -> Comparison {
    let rows: Vec<MetricRow> = rows
        .into_iter()
        .filter(|row| matches_wheres(row, &query.wheres))
        .collect();
    let mut items: Vec<&str> = rows.iter().map(|row| row.item.as_str()).collect();
    items.sort_unstable();
    items.dedup();
    let split_by_item = query.item.is_none() && items.len() > 1;

    let mut keys: Vec<String> = Vec::new();
    if split_by_item {
        keys.push("item".to_owned());
    }
    keys.extend(query.by.iter().cloned());

    let mut series: BTreeMap<Vec<String>, Vec<Point>> = BTreeMap::new();
    let mut without_threads = 0;
    let unit = rows
        .first()
        .map(|row| row.unit.clone())
        .unwrap_or_else(|| resolved.metric.unit.to_owned());
    for row in &rows {
        let Some(threads) = row.threads else {
            without_threads += 1;
            continue;
        };
        let values: Vec<String> = keys
            .iter()
            .map(|key| {
                if key == "item" && split_by_item {
                    row.item.clone()
                } else {
                    key_value(row, key).unwrap_or_else(|| NONE.to_owned())
                }
            })
            .collect();
        series.entry(values).or_default().push(Point {
            threads,
            value: row.value,
            item: row.item.clone(),
            unit: row.unit.clone(),
            run_id: row.run_id,
            submission_id: row.submission_id,
            label: row.label.clone(),
            test: row.test.clone(),
            author: row.author.clone(),
            line: row.first_line,
        });
    }
    let series = series
        .into_iter()
        .map(|(values, mut points)| {
            points.sort_by_key(|p| (p.threads, p.run_id));
            let name = if values.is_empty() {
                "all runs".to_owned()
            } else {
                values.join(" / ")
            };
            Series {
                name,
                keys: keys.iter().cloned().zip(values).collect(),
                points,
            }
        })
        .collect();
    Comparison {
        tool: resolved.tool.name().to_owned(),
        metric: resolved.metric.name.to_owned(),
        unit,
        metric_title: resolved.metric.title.to_owned(),
        higher_is_better: resolved.metric.higher_is_better,
        item: query.item.clone(),
        test: query.test.clone(),
        x: query.x_axis().to_owned(),
        by: query.by.clone(),
        series,
        without_threads,
    }
}

impl Comparison {
    /// The chart of this comparison: metric against threads, a line per series.
    pub fn chart(&self) -> LineChart {
        let mut title = format!("{} {}", self.tool, self.metric);
        if let Some(item) = &self.item {
            let _ = write!(title, " of {item}");
        }
        if let Some(test) = &self.test {
            let _ = write!(title, " ({test})");
        }
        let direction = if self.higher_is_better {
            "higher is better"
        } else {
            "lower is better"
        };
        let mut chart = LineChart::new(
            title,
            "threads (clients)",
            format!("{} ({}), {direction}", self.metric_title, self.unit),
        );
        chart.series = self
            .series
            .iter()
            .map(|series| ChartSeries {
                name: series.name.clone(),
                points: series
                    .points
                    .iter()
                    .map(|p| (f64::from(p.threads), p.value))
                    .collect(),
            })
            .collect();
        chart
    }

    /// The numbers as CSV: one row per point, the series' keys as columns.
    pub fn to_csv(&self) -> Result<Vec<u8>, csv::Error> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let key_columns: Vec<String> = self
            .series
            .first()
            .map(|s| s.keys.keys().cloned().collect())
            .unwrap_or_else(|| self.by.clone());
        let mut header = vec!["series".to_owned()];
        header.extend(key_columns.iter().cloned());
        header.extend(
            [
                "tool",
                "test",
                "item",
                "metric",
                "threads",
                "value",
                "unit",
                "label",
                "author",
                "submission_id",
                "run_id",
            ]
            .map(str::to_owned),
        );
        writer.write_record(&header)?;
        for series in &self.series {
            for point in &series.points {
                let mut record = vec![series.name.clone()];
                record.extend(
                    key_columns
                        .iter()
                        .map(|k| series.keys.get(k).cloned().unwrap_or_default()),
                );
                record.extend([
                    self.tool.clone(),
                    point.test.clone().unwrap_or_default(),
                    point.item.clone(),
                    self.metric.clone(),
                    point.threads.to_string(),
                    point.value.to_string(),
                    point.unit.clone(),
                    point.label.clone().unwrap_or_default(),
                    point.author.clone().unwrap_or_default(),
                    point.submission_id.to_string(),
                    point.run_id.to_string(),
                ]);
                writer.write_record(&record)?;
            }
        }
        writer.into_inner().map_err(|e| e.into_error().into())
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
        let q = query("tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib&where=timer:TSC").unwrap();
        assert_eq!(q.by, ["scheduler", "thread_lib"]);
        assert_eq!(q.wheres, [("timer".to_owned(), "TSC".to_owned())]);
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
    }

    #[test]
    fn explains_mistakes() {
        let cases = [
            ("tool=nope&metric=q_per_s", "unknown tool"),
            ("tool=super-smack&metric=speed", "unknown metric"),
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
    fn empty_fields_are_absent() {
        let q = query("tool=super-smack&test=&metric=&by=").unwrap();
        assert_eq!(q.test, None);
        assert!(q.by.is_empty());
        assert_eq!(q.resolve(), Ok(None));
        assert!(q.resolve_required().unwrap_err().0.contains("metric="));
    }
}
