//! Grouping the stored results of a comparison: the `where` filters,
//! series in natural order of their keys, points with their statistics
//! (mean, min, max, n), the differences to a baseline, the peak and the
//! scaling efficiency.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use parsers::contract::{PseudoField, POST_KEY, PROVENANCE};
use parsers::MetricInfo;

use super::stats::Side;
use super::version_cmp;
use super::{
    is_interim_item, AttributeRow, CompareQuery, Comparison, Confidence, Peak, Point, Resolved,
    RunValue, Series, VsBaseline, XAxis, NONE,
};
use crate::limits::MAX_X_VALUES;
use crate::moments::Moments;
use crate::store::{MetricRow, Place, FIRST_RESULTS};

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

    /// The row's value, borrowed where the row holds it as text.
    /// The row's value of an attribute read with the rows; `None` for
    /// the other fields.
    fn attr(self, row: &MetricRow) -> Option<&str> {
        match self {
            KeyField::Attr(index) => row.attrs.get(index).and_then(Option::as_deref),
            _ => None,
        }
    }

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

/// Means are rounded far below what any tool prints, so that the same
/// repeats give the same digits in every form (no 29261.640000000003).
fn tidy(value: f64) -> f64 {
    if value.is_finite() && value.abs() < 1e12 {
        (value * 1e6).round() / 1e6
    } else {
        value
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
    let x = resolved
        .x
        .unwrap_or(if rows.iter().any(|r| r.threads.is_some()) {
            XAxis::Threads
        } else {
            XAxis::None
        });
    let (attr_keys, by) = series_keys(query, attr_keys, x.attribute(), &mut rows);
    let attr_keys: &[String] = &attr_keys;
    let (categories, row_categories) = categories_of(&rows);
    let mut key_columns: Vec<String> = Vec::new();
    if x != XAxis::None && query.item.is_none() && categories.len() > 1 {
        key_columns.push("item".to_owned());
    }
    for key in &by {
        if !key_columns.contains(key) {
            key_columns.push(key.clone());
        }
    }
    let threads_column = split_threads(x, &rows) && !key_columns.iter().any(|k| k == "threads");
    if threads_column {
        key_columns.push("threads".to_owned());
    }
    let key_fields: Vec<KeyField> = key_columns
        .iter()
        .map(|key| match key.as_str() {
            "threads" if threads_column => KeyField::Threads,
            _ => KeyField::of(key, attr_keys),
        })
        .collect();
    let along = x
        .attribute()
        .map(|key| AlongX::of(&rows, key, KeyField::of(key, attr_keys)));
    let place = |row: &MetricRow| -> Option<XPlace> {
        match (x, &along) {
            (XAxis::Threads, _) => Some((Some(row.threads?), None)),
            // The thread count stays: a baseline point is one of the
            // same count (`split_threads`).
            (XAxis::Attribute(_), Some(along)) => Some((row.threads, Some(along.rank(row)?))),
            _ => Some((None, None)),
        }
    };
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
/// `names` are the categories (items) and the values along x by rank;
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

/// A series' value of each attribute its runs have (provenance aside):
/// the one value, or the distinct ones joined by `, `, and `(none)` in
/// the list where some runs lack it. Looks at each distinct
/// configuration once.
fn series_attributes<'a>(
    rows: &[MetricRow],
    indices: impl Iterator<Item = &'a usize>,
) -> BTreeMap<String, String> {
    let mut seen: HashSet<*const ()> = HashSet::new();
    let configs: Vec<&[(Rc<str>, Rc<str>)]> = indices
        .map(|&index| &rows[index].config)
        .filter(|config| seen.insert(Rc::as_ptr(config) as *const ()))
        .map(|config| &config[..])
        .collect();
    let mut values: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for config in &configs {
        for (key, value) in config.iter() {
            if !PROVENANCE.contains(&&**key) {
                values.entry(key).or_default().insert(value);
            }
        }
    }
    values
        .into_iter()
        .map(|(key, mut found)| {
            let all = configs
                .iter()
                .all(|c| c.binary_search_by(|(k, _)| (**k).cmp(key)).is_ok());
            if !all {
                found.insert(NONE);
            }
            let mut found: Vec<&str> = found.into_iter().collect();
            found.sort_by(|a, b| natural_cmp(a, b));
            (key.to_owned(), found.join(", "))
        })
        .collect()
}

/// The attributes table: every key some series has, with each series'
/// value (`(none)` where it has none), those that differ first, then in
/// order of interest.
fn attribute_rows(series: &[Series], attrs: Vec<BTreeMap<String, String>>) -> Vec<AttributeRow> {
    let keys: BTreeSet<&str> = attrs
        .iter()
        .flat_map(|a| a.keys())
        .map(String::as_str)
        .collect();
    let mut rows: Vec<AttributeRow> = keys
        .into_iter()
        .map(|key| {
            let values: BTreeMap<String, String> = series
                .iter()
                .zip(&attrs)
                .map(|(s, a)| {
                    (
                        s.name.clone(),
                        a.get(key).map_or(NONE, String::as_str).to_owned(),
                    )
                })
                .collect();
            let mut distinct = values.values();
            let first = distinct.next();
            AttributeRow {
                key: key.to_owned(),
                differs: distinct.any(|v| Some(v) != first),
                values,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.differs
            .cmp(&a.differs)
            .then_with(|| super::interest(&a.key).cmp(&super::interest(&b.key)))
    });
    rows
}

/// The series the query names as baseline: its exact name, else the same
/// name in other case, else the same values in another order (a link
/// whose `by` lists the same keys in another order names its series so);
/// a notice when there is none.
fn find_baseline(series: &[Series], wanted: &str, notices: &mut Vec<String>) -> Option<usize> {
    let parts = |name: &str| -> Vec<String> {
        let mut parts: Vec<String> = name.split(" / ").map(str::to_lowercase).collect();
        parts.sort_unstable();
        parts
    };
    let found = series
        .iter()
        .position(|s| s.name == *wanted)
        .or_else(|| {
            series
                .iter()
                .position(|s| s.name.eq_ignore_ascii_case(wanted))
        })
        .or_else(|| {
            let wanted = parts(wanted);
            series.iter().position(|s| parts(&s.name) == wanted)
        });
    if found.is_none() {
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        notices.push(format!(
            "The baseline {wanted:?} is not one of this comparison's series ({}); no differences are shown.",
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        ));
    }
    found
}

/// Marks series `base` as the baseline and gives every other point the
/// difference to the baseline's point at the same x, with its interval
/// and verdict at `confidence`.
fn compare_with_baseline(
    series: &mut [Series],
    base: usize,
    metric: &MetricInfo,
    confidence: Confidence,
) {
    series[base].is_baseline = true;
    // A point's values, or their moments where it was read from sums.
    type Values = (Vec<f64>, Option<Moments>);
    fn side(values: &Values) -> Side<'_> {
        match values {
            (_, Some(moments)) => Side::Moments(*moments),
            (values, None) => Side::Values(values),
        }
    }
    let values_of = |p: &Point| -> Values {
        match p.moments {
            Some(moments) => (Vec::new(), Some(moments)),
            None => (p.values(), None),
        }
    };
    // A point's place: threads, value along x, item.
    type At = (Option<u32>, Option<String>, String);
    let reference: HashMap<At, (Values, bool)> = series[base]
        .points
        .iter()
        .map(|p| {
            (
                (p.threads, p.x.clone(), p.item.clone()),
                (values_of(p), !p.mixed.is_empty()),
            )
        })
        .collect();
    for (index, s) in series.iter_mut().enumerate() {
        if index == base {
            continue;
        }
        for p in &mut s.points {
            let Some((base_values, base_mixed)) =
                reference.get(&(p.threads, p.x.clone(), p.item.clone()))
            else {
                continue;
            };
            let values = values_of(p);
            if *base_mixed || !p.mixed.is_empty() {
                p.vs_baseline =
                    VsBaseline::mixed_sides(side(base_values), side(&values), confidence)
                        .map(VsBaseline::tidy);
                continue;
            }
            p.vs_baseline = VsBaseline::compare_sides(
                side(base_values),
                side(&values),
                confidence,
                metric.higher_is_better,
            )
            .map(VsBaseline::tidy);
        }
    }
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

/// The point of the rows at `indices`. Copies of one run (rows with the
/// same copy key: the same report in several texts) count once, as the
/// earliest stored of them; only within the point, so copies that their
/// owners put in different series stay in each.
fn point(threads: Option<u32>, item: &str, rows: &[MetricRow], mut indices: Vec<usize>) -> Point {
    indices.sort_by_key(|&index| rows[index].run_id);
    if rows[indices[0]].cell.is_some() {
        return point_of_cells(threads, item, rows, &indices);
    }
    // A copy is seldom in the same point as the run it copies: a map only
    // when there is more than one row. A run's own rows all stay.
    if indices.len() > 1 {
        let mut kept: HashMap<i64, i64> = HashMap::with_capacity(indices.len());
        indices.retain(|&index| {
            let row = &rows[index];
            *kept.entry(row.copy_key).or_insert(row.run_id) == row.run_id
        });
    }
    let values: Vec<f64> = indices.iter().map(|&index| rows[index].value).collect();
    let n = values.len();
    let (configurations, mixed) = configurations(rows, &indices);
    Point {
        threads,
        x: None,
        item: item.to_owned(),
        mean: tidy(super::stats::mean(&values)),
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        n,
        configurations,
        mixed,
        vs_baseline: None,
        efficiency: None,
        moments: None,
        linked: Vec::new(),
        runs: indices
            .into_iter()
            .map(|index| {
                let row = &rows[index];
                RunValue {
                    run_id: row.run_id,
                    submission_id: row.submission_id,
                    line: row.first_line,
                    value: row.value,
                    label: row.label.clone(),
                    author: row.author.clone(),
                    test: row.test.clone(),
                }
            })
            .collect(),
    }
}

/// The point of rows that stand for configurations (read from their
/// sums): their moments merged, and the first results to link. A split
/// copy's result counts where no earlier run of its key is in the point,
/// as [`point`] counts copies; a cell holding only repeats of one counts
/// nothing. `indices` are in run order.
fn point_of_cells(
    threads: Option<u32>,
    item: &str,
    rows: &[MetricRow],
    indices: &[usize],
) -> Point {
    let cell = |index: usize| rows[index].cell.as_deref().expect("a row of sums");
    let counted: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&index| cell(index).copy.is_none() && cell(index).moments.n > 0)
        .collect();
    let holds = |place: &Place| {
        counted.iter().any(|&index| {
            let row = &rows[index];
            row.config == place.config && row.test == place.test && row.threads == place.threads
        })
    };
    let mut first_of_key: HashMap<i64, i64> = HashMap::new();
    let copies: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&index| {
            let Some(copy) = &cell(index).copy else {
                return false;
            };
            let first = *first_of_key.entry(copy.key).or_insert(copy.run_id);
            first == copy.run_id && !copy.earlier.iter().any(holds)
        })
        .collect();
    let mut kept = counted;
    kept.extend(copies);
    let mut moments = Moments::default();
    let mut linked: Vec<i64> = Vec::new();
    for &index in &kept {
        moments.merge(&cell(index).moments);
        linked.extend(&cell(index).first_results);
    }
    linked.sort_unstable();
    linked.truncate(FIRST_RESULTS);
    kept.sort_by_key(|&index| rows[index].run_id);
    let (configurations, mixed) = configurations(rows, &kept);
    Point {
        threads,
        x: None,
        item: item.to_owned(),
        mean: tidy(moments.mean),
        min: moments.min,
        max: moments.max,
        n: moments.n,
        configurations,
        mixed,
        vs_baseline: None,
        efficiency: None,
        runs: Vec::new(),
        moments: Some(moments),
        linked,
    }
}

/// How many configurations the runs at `indices` are, and the sorted
/// keys whose values differ among them. Runs with the same attributes
/// share one configuration (`MetricRow::config`), so the runs are looked
/// at once each, and only the few distinct configurations are compared.
fn configurations(rows: &[MetricRow], indices: &[usize]) -> (usize, Vec<String>) {
    let mut seen: HashSet<*const ()> = HashSet::new();
    let distinct: Vec<&[(Rc<str>, Rc<str>)]> = indices
        .iter()
        .map(|&index| &rows[index].config)
        .filter(|config| seen.insert(Rc::as_ptr(config) as *const ()))
        .map(|config| &config[..])
        .collect();
    if distinct.len() < 2 {
        return (distinct.len().max(1), Vec::new());
    }
    // Provenance aside: runs differing only in their date are repeats.
    // The post a configuration is tied to (`store::tie_to_post`) is no
    // provenance: runs of two posts that state no setup are not repeats.
    let mut configs: Vec<Vec<(&str, &str)>> = distinct
        .iter()
        .map(|config| {
            config
                .iter()
                .filter(|(key, _)| **key == *POST_KEY || !PROVENANCE.contains(&&**key))
                .map(|(key, value)| (&**key, &**value))
                .collect()
        })
        .collect();
    configs.sort_unstable();
    configs.dedup();
    if configs.len() < 2 {
        return (1, Vec::new());
    }
    let keys: BTreeSet<&str> = configs.iter().flatten().map(|(key, _)| *key).collect();
    fn value_of<'a>(config: &[(&'a str, &'a str)], key: &str) -> Option<&'a str> {
        config
            .binary_search_by(|(k, _)| (*k).cmp(key))
            .ok()
            .map(|index| config[index].1)
    }
    let mixed = keys
        .into_iter()
        .filter(|key| {
            let first = value_of(&configs[0], key);
            configs[1..].iter().any(|c| value_of(c, key) != first)
        })
        .map(str::to_owned)
        .collect();
    (configs.len(), mixed)
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
