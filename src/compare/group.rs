//! Grouping the stored results of a comparison: the `where` filters,
//! series in natural order of their keys, points along x, the peak and
//! the scaling efficiency. Its parts: `point`, a point's statistics
//! (mean, min, max, n) from its rows; `baseline`, the differences to a
//! baseline; `attributes`, what the series were run with.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use parsers::contract::{PseudoField, POST_KEY};
use parsers::MetricInfo;

use super::version_cmp;
use super::{is_interim_item, CompareQuery, Comparison, Peak, Resolved, Series, XAxis, NONE};
use crate::limits::MAX_X_VALUES;
use crate::store::MetricRow;

mod attributes;
mod baseline;
mod point;

use attributes::{attribute_rows, series_attributes};
use baseline::{compare_with_baseline, find_baseline};
use point::{configurations, point};

/// Where the value of a `by` or `where` key is found in a row: a field of
/// the run, the item, or one of the attributes read with the rows.
#[derive(Debug, Clone, Copy)]
enum KeyField {
    Run(PseudoField),
    Item,
    /// The thread count: a series key only where runs across an
    /// attribute have several (`split_threads`).
    Threads,
    /// The index in the rows' `attrs`.
    Attr(usize),
    /// An attribute that was not read: no row has it.
    Unread,
}

impl KeyField {
    fn of(key: &str, attr_keys: &[String]) -> Self {
        if let Some(field) = PseudoField::from_name(key) {
            return KeyField::Run(field);
        }
        if key == "item" {
            return KeyField::Item;
        }
        match attr_keys.iter().position(|k| k == key) {
            Some(index) => KeyField::Attr(index),
            None => KeyField::Unread,
        }
    }

    /// The row's value of an attribute read with the rows; `None` for
    /// the other fields.
    fn attr(self, row: &MetricRow) -> Option<&str> {
        match self {
            KeyField::Attr(index) => row.attrs.get(index).and_then(Option::as_deref),
            _ => None,
        }
    }

    /// The row's value, borrowed where the row holds it as text.
    fn value(self, row: &MetricRow) -> Option<Cow<'_, str>> {
        let text = match self {
            KeyField::Run(PseudoField::Label) => row.label.as_deref(),
            KeyField::Run(PseudoField::Author) => row.author.as_deref(),
            KeyField::Run(PseudoField::Submission) => {
                return Some(Cow::Owned(row.submission_id.to_string()))
            }
            KeyField::Run(PseudoField::Test) => row.test.as_deref(),
            KeyField::Item => Some(&*row.item),
            KeyField::Threads => return row.threads.map(|t| Cow::Owned(t.to_string())),
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

/// Where a row sits along x: its thread count (x=threads), or the rank
/// of its value of the x attribute (`x=os_version`) with its thread
/// count; neither on bars.
type XPlace = (Option<u32>, Option<usize>);

/// Series, then points within each: (place along x, category index),
/// each with the indices of its rows.
type PointKey = (XPlace, usize);
type SeriesRows<Value> = (Vec<Value>, BTreeMap<PointKey, Vec<usize>>);

/// Filters and groups the rows of a resolved query into its comparison:
/// the rows its `where` and item keep, the attributes it splits by, the
/// items in print order, the series and their points, and the baseline's
/// differences, each a step below.
pub(super) fn comparison(
    query: &CompareQuery,
    resolved: Resolved,
    attr_keys: &[String],
    mut rows: Vec<MetricRow>,
) -> Comparison {
    let mut notices = Vec::new();
    keep_wanted_rows(query, attr_keys, &mut rows, &mut notices);
    let x = x_axis(resolved, &rows);
    let (attr_keys, by) = series_keys(query, attr_keys, x.attribute(), &mut rows);
    let attr_keys: &[String] = &attr_keys;
    let (categories, row_categories) = categories_of(&rows);
    let item_column = x != XAxis::None && query.item.is_none() && categories.len() > 1;
    let (key_columns, key_fields) =
        key_columns(item_column, &by, split_threads(x, &rows), attr_keys);
    let along = x
        .attribute()
        .map(|key| AlongX::of(&rows, key, KeyField::of(key, attr_keys)));
    let place = |row: &MetricRow| x_place(x, along.as_ref(), row);
    let (grouped, not_placed) = group_rows(&rows, place, &key_fields, &row_categories);
    let categories: Vec<String> = categories.into_iter().map(str::to_owned).collect();
    let x_values = along.as_ref().map_or(&[][..], |a| &a.values[..]);
    let (mut series, series_attrs) = build_series(
        grouped,
        &rows,
        &key_columns,
        (&categories, x_values),
        x.attribute(),
    );
    if let Some(along) = &along {
        along.notices(&mut notices);
    }

    let baseline = query
        .baseline
        .as_ref()
        .and_then(|wanted| find_baseline(&series, wanted, &mut notices));
    if let Some(base) = baseline {
        compare_with_baseline(&mut series, base, resolved.metric, query.conf);
    }
    if x == XAxis::Threads {
        for s in &mut series {
            add_scaling(s, resolved.metric);
        }
    }

    let attributes = attribute_rows(&series, series_attrs);
    let unit = rows
        .first()
        .map(|row| row.unit.to_string())
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
        by,
        key_columns,
        wheres: query
            .wheres
            .iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect(),
        baseline: baseline.map(|index| series[index].name.clone()),
        confidence: query.conf,
        categories: if x == XAxis::None {
            categories
        } else {
            Vec::new()
        },
        series,
        without_threads: if x == XAxis::Threads { not_placed } else { 0 },
        x_values: along.as_ref().map(|a| a.values.clone()).unwrap_or_default(),
        without_x: along.as_ref().map_or(0, |a| a.without),
        notices,
        attributes,
    }
}

/// What goes along x: the query's choice, else one made from the data:
/// the thread count where some row has one, else bars.
fn x_axis(resolved: Resolved, rows: &[MetricRow]) -> XAxis {
    resolved.x.unwrap_or_else(|| {
        if rows.iter().any(|r| r.threads.is_some()) {
            XAxis::Threads
        } else {
            XAxis::None
        }
    })
}

/// The series' key columns, each once, and where each is read in a row:
/// the item where a line chart leaves it open and several are found
/// (`item_column`), the `by` keys, then the thread count where series
/// across an attribute are split by it (`split_by_threads`, see
/// [`split_threads`]) and `by` does not name it already.
fn key_columns(
    item_column: bool,
    by: &[String],
    split_by_threads: bool,
    attr_keys: &[String],
) -> (Vec<String>, Vec<KeyField>) {
    let mut columns: Vec<String> = Vec::new();
    if item_column {
        columns.push("item".to_owned());
    }
    for key in by {
        if !columns.contains(key) {
            columns.push(key.clone());
        }
    }
    let threads_column = split_by_threads && !columns.iter().any(|k| k == "threads");
    if threads_column {
        columns.push("threads".to_owned());
    }
    let fields = columns
        .iter()
        .map(|key| match key.as_str() {
            "threads" if threads_column => KeyField::Threads,
            _ => KeyField::of(key, attr_keys),
        })
        .collect();
    (columns, fields)
}

/// Where a row sits along `x` ([`XPlace`]); `None` where it has no
/// place: no thread count on a thread axis, a value not ranked along an
/// attribute. Along an attribute the thread count stays, so that a
/// baseline point is one of the same count ([`split_threads`]).
fn x_place(x: XAxis, along: Option<&AlongX>, row: &MetricRow) -> Option<XPlace> {
    match (x, along) {
        (XAxis::Threads, _) => Some((Some(row.threads?), None)),
        (XAxis::Attribute(_), Some(along)) => Some((row.threads, Some(along.rank(row)?))),
        _ => Some((None, None)),
    }
}

/// Whether the series across an attribute are split by thread count too:
/// where the runs have several, so that a point never averages runs of
/// 1 and 64 clients as if they were repeats.
fn split_threads(x: XAxis, rows: &[MetricRow]) -> bool {
    let Some(first) = rows.first() else {
        return false;
    };
    x.attribute().is_some() && rows.iter().any(|row| row.threads != first.threads)
}

/// The values of the attribute along x (`x=os_version`): those the rows
/// have, in version order ([`version_cmp`]), the first
/// [`MAX_X_VALUES`] kept; and the results left off the axis.
struct AlongX<'r> {
    key: &'static str,
    field: KeyField,
    values: Vec<String>,
    rank: HashMap<&'r str, usize>,
    /// Results whose runs do not have the attribute.
    without: usize,
    /// Results at values past [`MAX_X_VALUES`], and how many values.
    beyond: (usize, usize),
}

impl<'r> AlongX<'r> {
    /// The values of `key` (read as `field`) among `rows`: one look at
    /// each row, one sort of the distinct values.
    fn of(rows: &'r [MetricRow], key: &'static str, field: KeyField) -> Self {
        let mut weights: HashMap<&'r str, usize> = HashMap::new();
        let mut without = 0;
        for row in rows {
            match field.attr(row) {
                Some(value) => *weights.entry(value).or_default() += row.weight(),
                None => without += row.weight(),
            }
        }
        let mut distinct: Vec<&'r str> = weights.keys().copied().collect();
        distinct.sort_by(|a, b| version_cmp(a, b));
        let past = distinct.split_off(distinct.len().min(MAX_X_VALUES));
        AlongX {
            key,
            field,
            values: distinct.iter().map(|v| (*v).to_owned()).collect(),
            rank: distinct.iter().enumerate().map(|(i, v)| (*v, i)).collect(),
            without,
            beyond: (past.iter().map(|v| weights[v]).sum(), past.len()),
        }
    }

    /// The rank of the row's value; `None` off the axis.
    fn rank(&self, row: &MetricRow) -> Option<usize> {
        self.rank.get(self.field.attr(row)?).copied()
    }

    /// What the axis leaves out, said: never a made-up place.
    fn notices(&self, notices: &mut Vec<String>) {
        let key = self.key;
        if self.without > 0 {
            notices.push(format!(
                "Results without {key}: {}. Their runs do not say it, so they have no place along x and are not drawn; add it to the runs, or choose another x.",
                self.without
            ));
        }
        let (results, values) = self.beyond;
        if values > 0 {
            notices.push(format!(
                "{key} has {} values here; the first {MAX_X_VALUES} in version order are drawn, and {results} results at the other {values} are left out: narrow the comparison with where=.",
                MAX_X_VALUES + values
            ));
        }
    }
}

/// Keeps the rows the query's `where` wants and, when it leaves the item
/// open, the final reports only (a notice counts the interim values left
/// out).
fn keep_wanted_rows(
    query: &CompareQuery,
    attr_keys: &[String],
    rows: &mut Vec<MetricRow>,
    notices: &mut Vec<String>,
) {
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
        // A query that leaves the item open means the final reports.
        let keep = query.item.is_some() || !is_interim_item(&row.item);
        if !keep {
            interim += row.weight();
        }
        keep
    });
    if interim > 0 {
        notices.push(format!(
            "{interim} interim report values (items t=…) are left out; choose such an item to see them."
        ));
    }
}

/// The attributes the series split by: the query's `by`, or without one
/// every attribute that tells the runs apart, read from their
/// configuration and added to each row's values (with the keys read so
/// extended).
fn series_keys<'k>(
    query: &CompareQuery,
    attr_keys: &'k [String],
    x_key: Option<&str>,
    rows: &mut [MetricRow],
) -> (Cow<'k, [String]>, Vec<String>) {
    let mut attr_keys: Cow<[String]> = Cow::Borrowed(attr_keys);
    if !query.by.is_empty() {
        return (attr_keys, query.by.clone());
    }
    let all: Vec<usize> = (0..rows.len()).collect();
    let (_, mut telling) = configurations(rows, &all);
    // Runs of several posts that name no machine stay together, their
    // points mixed "from N posts": what tells them apart is where they
    // came from, which `by=submission` splits in one click. The attribute
    // along x tells the points apart, not the series.
    telling.retain(|key| key != POST_KEY && Some(key.as_str()) != x_key);
    telling.sort_by(|a, b| super::interest(a).cmp(&super::interest(b)));
    let first_new = attr_keys.len();
    let new: Vec<String> = telling
        .iter()
        .filter(|k| !attr_keys.contains(k))
        .cloned()
        .collect();
    attr_keys.to_mut().extend(new);
    let added = &attr_keys[first_new..];
    for row in rows.iter_mut() {
        for key in added {
            let value = row
                .config
                .binary_search_by(|(k, _)| (**k).cmp(key.as_str()))
                .ok()
                .map(|index| Rc::clone(&row.config[index].1));
            row.attrs.push(value);
        }
    }
    (attr_keys, telling)
}

/// The items in the order the tool printed them (storage order), and the
/// index of each row's. Rows come in run order, and a run's results one
/// after the other, so the row before has the same item most often
/// (always when one is chosen), which spares hashing it again.
fn categories_of(rows: &[MetricRow]) -> (Vec<&str>, Vec<usize>) {
    let mut categories: Vec<&str> = Vec::new();
    let mut category_index: HashMap<&str, usize> = HashMap::new();
    let mut row_categories: Vec<usize> = Vec::with_capacity(rows.len());
    for row in rows {
        let category = match row_categories.last() {
            Some(&last) if categories[last] == &*row.item => last,
            _ => *category_index.entry(&row.item).or_insert_with(|| {
                categories.push(&row.item);
                categories.len() - 1
            }),
        };
        row_categories.push(category);
    }
    (categories, row_categories)
}

/// The rows' indices by series (their values of `key_fields`, in the
/// order their first rows come: the order a post printed its runs, and
/// older posts first, as the rows are in run order or, read from the
/// sums, in the order of their first results) and point (their `place` along x); and how many results have
/// no place (no thread count on a thread axis, no value of the x
/// attribute). Values are borrowed from the rows until the series are
/// known.
fn group_rows(
    rows: &[MetricRow],
    place: impl Fn(&MetricRow) -> Option<XPlace>,
    key_fields: &[KeyField],
    row_categories: &[usize],
) -> (Vec<SeriesRows<String>>, usize) {
    let mut index_of: HashMap<Vec<Cow<str>>, usize> = HashMap::new();
    let mut grouped: Vec<SeriesRows<Cow<str>>> = Vec::new();
    let mut values: Vec<Cow<str>> = Vec::with_capacity(key_fields.len());
    // The series of the row before: runs in order often share their
    // values (those of one submission), and comparing them is cheaper
    // than hashing them.
    let mut last_series: Option<usize> = None;
    let mut not_placed = 0;
    for (index, row) in rows.iter().enumerate() {
        let Some(at) = place(row) else {
            not_placed += row.weight();
            continue;
        };
        values.clear();
        values.extend(
            key_fields
                .iter()
                .map(|field| field.value(row).unwrap_or(Cow::Borrowed(NONE))),
        );
        let series = match last_series.filter(|&last| grouped[last].0 == values) {
            Some(last) => last,
            None => match index_of.get(values.as_slice()) {
                Some(&series) => series,
                None => {
                    index_of.insert(values.clone(), grouped.len());
                    grouped.push((values.clone(), BTreeMap::new()));
                    grouped.len() - 1
                }
            },
        };
        last_series = Some(series);
        grouped[series]
            .1
            .entry((at, row_categories[index]))
            .or_default()
            .push(index);
    }
    let grouped = grouped
        .into_iter()
        .map(|(values, points)| (values.into_iter().map(Cow::into_owned).collect(), points))
        .collect();
    (grouped, not_placed)
}

/// The series with their points' statistics, and each series' attribute
/// values (for the table of what they were run with).
/// `(categories, x_values)` are the items and the values along x by rank;
/// the attribute along x (`x_key`) is left out of the series' attributes,
/// where it is every value of the axis.
fn build_series(
    grouped: Vec<SeriesRows<String>>,
    rows: &[MetricRow],
    key_columns: &[String],
    (categories, x_values): (&[String], &[String]),
    x_key: Option<&str>,
) -> (Vec<Series>, Vec<BTreeMap<String, String>>) {
    let mut series_attrs: Vec<BTreeMap<String, String>> = Vec::with_capacity(grouped.len());
    let series = grouped
        .into_iter()
        .map(|(values, points)| {
            let mut attrs = series_attributes(rows, points.values().flatten());
            if let Some(key) = x_key {
                attrs.remove(key);
            }
            series_attrs.push(attrs);
            let points = points
                .into_iter()
                .map(|(((threads, x_rank), category), indices)| {
                    let mut point = point(threads, &categories[category], rows, indices);
                    point.x = x_rank.and_then(|rank| x_values.get(rank).cloned());
                    point
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
    (series, series_attrs)
}

/// A series against threads: its peak, and the scaling efficiency of
/// each point where it has a 1-thread point.
fn add_scaling(series: &mut Series, metric: &MetricInfo) {
    let single = series
        .points
        .iter()
        .find(|p| p.threads == Some(1))
        .map(|p| p.mean);
    // Efficiency is counted for throughputs only: the rates where more is
    // better.
    let counts = metric.is_throughput();
    if let Some(single) = single.filter(|q1| *q1 > 0.0 && counts) {
        for p in &mut series.points {
            let threads = f64::from(p.threads.unwrap_or(1));
            p.efficiency = Some((p.mean / (threads * single) * 1000.0).round() / 1000.0);
        }
    }
    let best = series.points.iter().reduce(|best, p| {
        let better = if metric.higher_is_better {
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
    series.peak = best.map(|p| Peak {
        mean: p.mean,
        threads: p.threads,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

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
