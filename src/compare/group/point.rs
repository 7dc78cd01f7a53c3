//! A point's statistics from the rows grouped at it: its mean, spread
//! and count, copies of one run counted once, and how many
//! configurations its runs are.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use parsers::contract::{POST_KEY, PROVENANCE};

use crate::compare::{stats, Point, RunValue};
use crate::moments::Moments;
use crate::store::{MetricRow, Place, FIRST_RESULTS};

/// Means are rounded far below what any tool prints, so that the same
/// repeats give the same digits in every form (no 29261.640000000003).
fn tidy(value: f64) -> f64 {
    if value.is_finite() && value.abs() < 1e12 {
        (value * 1e6).round() / 1e6
    } else {
        value
    }
}

/// The point of the rows at `indices`. Copies of one run (rows with the
/// same copy key: the same report in several texts) count once, as the
/// earliest stored of them; only within the point, so copies that their
/// owners put in different series stay in each.
pub(super) fn point(
    threads: Option<u32>,
    item: &str,
    rows: &[MetricRow],
    mut indices: Vec<usize>,
) -> Point {
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
        mean: tidy(stats::mean(&values)),
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
pub(super) fn configurations(rows: &[MetricRow], indices: &[usize]) -> (usize, Vec<String>) {
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
