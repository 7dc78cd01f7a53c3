//! Ready comparisons: links to `/compare` that show a submission's runs of
//! one tool, test and item against each other, split by the attributes
//! that tell those runs apart. Pure: runs in, queries (and chart series)
//! out; the submission page and the home page share it.

use std::collections::BTreeSet;

use crate::charts::LineChart;
use crate::compare::{self, CompareQuery, Resolved, XAxis};
use crate::compare::{interest, PROVENANCE};
use crate::store::{StoredResult, StoredRun};
use parsers::contract::{is_interim_item, PseudoField};

/// One ready comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadyComparison {
    pub submission_id: i64,
    pub tool: String,
    pub test: Option<String>,
    pub item: String,
    pub metric: String,
    pub by: Vec<String>,
    pub query: CompareQuery,
    /// `/compare?...`
    pub url: String,
    pub runs: usize,
}

/// The value of a `by` key for a run, as `/compare` reads it.
fn key_value<'a>(run: &'a StoredRun, key: &str) -> Option<&'a str> {
    match PseudoField::from_name(key) {
        Some(PseudoField::Label) => run.label.as_deref(),
        Some(PseudoField::Author) => run.author.as_deref(),
        Some(PseudoField::Test) => run.test.as_deref(),
        // The runs told apart here are all one submission's.
        Some(PseudoField::Submission) => None,
        None => run.attrs.get(key).map(String::as_str),
    }
}

fn configurations(runs: &[&StoredRun], keys: &[&str]) -> usize {
    runs.iter()
        .map(|run| keys.iter().map(|k| key_value(run, k)).collect::<Vec<_>>())
        .collect::<BTreeSet<_>>()
        .len()
}

/// The attributes to split `runs` by: those whose values differ among
/// them, less any that the others already imply (os when os_version
/// differs too, say), in order of interest. `label` when no attribute
/// differs but labels do; nothing when the runs are all alike.
pub fn distinguishing_keys(runs: &[&StoredRun]) -> Vec<String> {
    let all_keys: BTreeSet<&str> = runs
        .iter()
        .flat_map(|run| run.attrs.keys().map(String::as_str))
        // Runs differing only in where they came from are repeats.
        .filter(|key| !PROVENANCE.contains(key))
        .collect();
    let mut keys: Vec<&str> = all_keys
        .into_iter()
        .filter(|key| {
            let first = runs.first().and_then(|run| key_value(run, key));
            runs.iter().any(|run| key_value(run, key) != first)
        })
        .collect();
    keys.sort_by_key(|key| interest(key));
    if keys.is_empty() {
        return if configurations(runs, &["label"]) > 1 {
            vec!["label".to_owned()]
        } else {
            Vec::new()
        };
    }
    let wanted = configurations(runs, &keys);
    for key in keys.clone().iter().rev() {
        let fewer: Vec<&str> = keys.iter().copied().filter(|k| k != key).collect();
        if !fewer.is_empty() && configurations(runs, &fewer) == wanted {
            keys = fewer;
        }
    }
    keys.into_iter().map(str::to_owned).collect()
}

/// The metric that stands for an item: a rate where there is one
/// (q_per_s rather than num_queries), else any higher-is-better number,
/// else the first printed.
fn headline_metric<'a>(results: impl Iterator<Item = &'a StoredResult> + Clone) -> Option<&'a str> {
    let info = |r: &&StoredResult| parsers::metric_info(&r.metric);
    let rate = |r: &&StoredResult| info(r).is_some_and(|info| info.is_throughput());
    let better = |r: &&StoredResult| info(r).is_some_and(|info| info.higher_is_better);
    results
        .clone()
        .find(rate)
        .or_else(|| results.clone().find(better))
        .or_else(|| results.clone().next())
        .map(|r| r.metric.as_str())
}

/// Items worth a comparison of their own, in the order printed: sysbench's
/// interim `t=10s` lines only when there is nothing else.
fn items_of(runs: &[&StoredRun]) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for result in runs.iter().flat_map(|run| &run.results) {
        if !items.contains(&result.item) {
            items.push(result.item.clone());
        }
    }
    if items.iter().any(|item| !is_interim_item(item)) {
        items.retain(|item| !is_interim_item(item));
    }
    items
}

fn ready(
    submission_id: i64,
    runs: &[&StoredRun],
    by: &[String],
    item: &str,
) -> Option<ReadyComparison> {
    let first = runs.first()?;
    let metric = headline_metric(
        runs.iter()
            .flat_map(|run| &run.results)
            .filter(|r| r.item == item),
    )?;
    let with_threads = runs.iter().any(|run| run.threads.is_some());
    let query = CompareQuery {
        tool: Some(first.tool.clone()),
        test: first.test.clone(),
        item: Some(item.to_owned()),
        metric: Some(metric.to_owned()),
        x: with_threads.then(|| "threads".to_owned()),
        by: by.to_vec(),
        wheres: vec![("submission".to_owned(), submission_id.to_string())],
        baseline: None,
        ..CompareQuery::default()
    };
    Some(ReadyComparison {
        submission_id,
        tool: first.tool.clone(),
        test: first.test.clone(),
        item: item.to_owned(),
        metric: metric.to_owned(),
        by: by.to_vec(),
        url: format!("/compare?{}", query.to_query_string()),
        query,
        runs: runs
            .iter()
            .filter(|run| run.results.iter().any(|r| r.item == item))
            .count(),
    })
}

/// Runs grouped by tool and test, in the order they first appear.
fn groups(runs: &[StoredRun]) -> Vec<Vec<&StoredRun>> {
    let mut groups: Vec<Vec<&StoredRun>> = Vec::new();
    for run in runs {
        match groups
            .iter_mut()
            .find(|g| g[0].tool == run.tool && g[0].test == run.test)
        {
            Some(group) => group.push(run),
            None => groups.push(vec![run]),
        }
    }
    groups
}

/// Most items a test gets links for; sql-bench prints dozens.
const MAX_ITEMS_PER_TEST: usize = 12;

/// Every comparison of a submission's runs: one per tool, test and item.
pub fn submission_comparisons(submission_id: i64, runs: &[StoredRun]) -> Vec<ReadyComparison> {
    let mut out = Vec::new();
    for group in groups(runs) {
        let by = distinguishing_keys(&group);
        for item in items_of(&group).iter().take(MAX_ITEMS_PER_TEST) {
            out.extend(ready(submission_id, &group, &by, item));
        }
    }
    out
}

/// The most series a small chart on the home page shows: as many as
/// there are distinct colours; more no longer read at a glance.
pub const MAX_HEADLINE_SERIES: usize = 12;

/// The one comparison that stands for a group of runs (a submission's runs
/// of one tool and test): its first item other than `connect`, split by
/// every attribute that tells its runs apart, so that each series is one
/// configuration and no point averages different setups; `None` when
/// that makes more than [`MAX_HEADLINE_SERIES`] series.
pub fn headline_comparison(submission_id: i64, runs: &[StoredRun]) -> Option<ReadyComparison> {
    let group: Vec<&StoredRun> = runs.iter().collect();
    let items = items_of(&group);
    let item = items
        .iter()
        .find(|item| !parsers::contract::is_connect_item(item))
        .or_else(|| items.first())?;
    let with_item: Vec<&StoredRun> = group
        .iter()
        .copied()
        .filter(|run| run.results.iter().any(|r| &r.item == item))
        .collect();
    let by = distinguishing_keys(&with_item);
    let keys: Vec<&str> = by.iter().map(String::as_str).collect();
    if configurations(&with_item, &keys) > MAX_HEADLINE_SERIES {
        return None;
    }
    ready(submission_id, &group, &by, item)
}

/// The small chart of a ready comparison, grouped by `/compare`'s own
/// code so that it shows the series of the chart it links to, in the same
/// order and colours.
pub fn small_chart(comparison: &ReadyComparison, runs: &[StoredRun]) -> LineChart {
    let unit = parsers::metric_info(&comparison.metric)
        .map(|info| format!("{} ({})", info.title, info.unit))
        .unwrap_or_else(|| comparison.metric.clone());
    let title = match &comparison.test {
        Some(test) => format!("{test}: {}", comparison.item),
        None => format!("{}: {}", comparison.tool, comparison.item),
    };
    let mut chart = LineChart::new(title, "threads", unit);
    chart.width = 560;
    chart.height = 300;
    if let Ok(Some(resolved)) = comparison.query.resolve() {
        // A small chart is always drawn against threads.
        let resolved = Resolved {
            x: Some(XAxis::Threads),
            ..resolved
        };
        let drawn =
            compare::compare_runs(&comparison.query, resolved, comparison.submission_id, runs)
                .chart();
        // Bars where each series has a single thread count, as on /compare.
        if drawn.categories.is_some() {
            chart.x_title = drawn.x_title;
            chart.categories = drawn.categories;
        }
        chart.series = drawn.series;
    }
    // Tall enough for the legend to name every series (each a
    // configuration, whose name may wrap to three lines): a thumbnail
    // that says "+ 5 more" cannot be matched with the chart it links to.
    chart.height = chart.height.max(80 + 60 * chart.series.len() as u32);
    chart
}

/// The number that stands for a run: its first item other than `connect`,
/// by that item's headline metric.
pub fn run_headline(run: &StoredRun) -> Option<&StoredResult> {
    let group = [run];
    let items = items_of(&group);
    let item = items
        .iter()
        .find(|item| !parsers::contract::is_connect_item(item))
        .or_else(|| items.first())?;
    let of_item = run.results.iter().filter(|r| &r.item == item);
    let metric = headline_metric(of_item.clone())?;
    of_item.clone().find(|r| r.metric == metric)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(item: &str, metric: &str, unit: &str) -> StoredResult {
        StoredResult {
            item: item.to_owned(),
            metric: metric.to_owned(),
            value: 1.0,
            unit: unit.to_owned(),
            line: 1,
            estimated: false,
        }
    }

    #[test]
    fn iops_is_a_rate_here_as_on_the_compare_page() {
        // diskinfo's async random reads: operations counted, then IOPS.
        let results = [
            result("async_random_reads", "operations", "ops"),
            result("async_random_reads", "iops", "IOPS"),
        ];
        assert_eq!(headline_metric(results.iter()), Some("iops"));
        let results = [
            result("select_index", "num_queries", "queries"),
            result("select_index", "q_per_s", "q/s"),
        ];
        assert_eq!(headline_metric(results.iter()), Some("q_per_s"));
    }
}
