//! Ready comparisons: links to `/compare` that show a submission's runs of
//! one tool, test and item against each other, split by the attributes
//! that tell those runs apart. Pure: runs in, queries (and chart series)
//! out; the submission page and the home page share it.

use std::collections::BTreeSet;

use crate::charts::LineChart;
use crate::compare::interest;
use crate::compare::{self, CompareQuery, Resolved, Verdict, XAxis};
use crate::limits::{MAX_HEADLINE_SERIES, MAX_ITEMS_PER_TEST};
use crate::store::{StoredResult, StoredRun};
use parsers::contract::PROVENANCE;
use parsers::contract::{is_interim_item, PseudoField};

/// One ready comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadyComparison {
    pub submission_id: i64,
    pub tool: String,
    pub test: Option<String>,
    /// The item compared; `None`: every item, as bars (`x=none`).
    pub item: Option<String>,
    pub metric: String,
    pub by: Vec<String>,
    pub query: CompareQuery,
    /// `/compare?...`
    pub url: String,
    pub runs: usize,
    /// How many points differ from the baseline beyond noise (better or
    /// worse, as ministat would say): the home page shows those with the
    /// most first.
    pub proven: usize,
    /// Against a baseline where no point has the runs an interval needs
    /// (one run a side, as seed 004's two kernels): the differences are
    /// shown, and no verdict.
    pub one_run_a_side: bool,
}

impl ReadyComparison {
    /// What is compared, in words: `select-key: select_index q_per_s`.
    pub fn what(&self) -> String {
        format!(
            "{}: {} {}",
            self.test.as_deref().unwrap_or(&self.tool),
            self.item.as_deref().unwrap_or("every item"),
            self.metric
        )
    }
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
/// else the first printed; never a count (`TOTALS tests`, queries run),
/// which grows with a run's length and so ranks no setup.
fn headline_metric<'a>(results: impl Iterator<Item = &'a StoredResult> + Clone) -> Option<&'a str> {
    let info = |r: &&StoredResult| parsers::metric_info(&r.metric);
    let measure = |r: &&StoredResult| info(r).is_none_or(|info| !info.is_count());
    let rate = |r: &&StoredResult| info(r).is_some_and(|info| info.is_throughput());
    let better = |r: &&StoredResult| info(r).is_some_and(|info| info.higher_is_better);
    let results = results.filter(measure);
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

/// The verdicts that count as a difference shown.
fn is_proven(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::Better | Verdict::Worse)
}

/// The ready comparison of `group` (a submission's runs of one tool and
/// test) for `item` (`None`: every item, as bars), or `None` when it would
/// hold fewer than two runs, or its series share no point. Against the
/// series of the first run the text printed that names its configuration
/// (the author's reference: "Original", the stock kernel) when that gives
/// any point an interval, or when every point has one run a side (the
/// differences shown without verdicts, and said so); without a baseline
/// where the points mix configurations.
fn ready(
    submission_id: i64,
    all: &[StoredRun],
    group: &[&StoredRun],
    by: &[String],
    item: Option<&str>,
) -> Option<ReadyComparison> {
    let first = group.first()?;
    let of_item = |r: &&StoredResult| item.is_none_or(|item| r.item == item);
    let with_item: Vec<&StoredRun> = group
        .iter()
        .copied()
        .filter(|run| run.results.iter().any(|r| of_item(&r)))
        .collect();
    if with_item.len() < 2 {
        return None;
    }
    let metric = headline_metric(group.iter().flat_map(|run| &run.results).filter(of_item))?;
    let with_threads = with_item.iter().any(|run| run.threads.is_some());
    let mut query = CompareQuery {
        tool: Some(first.tool.clone()),
        test: first.test.clone(),
        item: item.map(str::to_owned),
        metric: Some(metric.to_owned()),
        x: match item {
            None => Some(XAxis::None.name().to_owned()),
            Some(_) => with_threads.then(|| XAxis::Threads.name().to_owned()),
        },
        by: by.to_vec(),
        wheres: vec![("submission".to_owned(), submission_id.to_string())],
        baseline: None,
        ..CompareQuery::default()
    };
    let resolved = query.resolve().ok().flatten()?;
    // Items from a second to thousands (sql-bench's tests) are drawn in
    // panels, each on its own axis, by the chart itself.
    let plain = compare::compare_runs(&query, resolved, submission_id, all);
    if plain.series.len() > 1 && !shares_a_point(&plain) {
        // A 10-client bar of one setup beside a 100-client bar of
        // another compares nothing.
        return None;
    }
    let mut proven = 0;
    let mut one_run_a_side = false;
    if plain.series.len() > 1 {
        // Series come in the order of their first runs: the first that
        // names its configuration (not `(none)` for every key).
        let reference = plain.series.iter().find(|series| {
            series
                .keys
                .values()
                .any(|value| value != parsers::contract::NONE)
        });
        if let Some(reference) = reference {
            let against = CompareQuery {
                baseline: Some(reference.name.clone()),
                ..query.clone()
            };
            let compared = compare::compare_runs(&against, resolved, submission_id, all);
            let verdicts: Vec<Verdict> = compared
                .series
                .iter()
                .flat_map(|s| &s.points)
                .filter_map(|p| Some(p.vs_baseline.as_ref()?.verdict))
                .collect();
            let judged = verdicts
                .iter()
                .any(|&v| is_proven(v) || v == Verdict::NoDifference);
            if judged {
                proven = verdicts.iter().filter(|&&v| is_proven(v)).count();
                query = against;
            } else if verdicts.contains(&Verdict::TooFewRuns) {
                // Single runs: the differences still show, marked so.
                one_run_a_side = true;
                query = against;
            }
        }
    }
    Some(ReadyComparison {
        submission_id,
        tool: first.tool.clone(),
        test: first.test.clone(),
        item: item.map(str::to_owned),
        metric: metric.to_owned(),
        by: by.to_vec(),
        url: format!("/compare?{}", query.to_query_string()),
        query,
        runs: with_item.len(),
        proven,
        one_run_a_side,
    })
}

/// Whether two series of `comparison` have a point at the same x and item.
fn shares_a_point(comparison: &compare::Comparison) -> bool {
    let mut seen: std::collections::HashMap<(Option<u32>, Option<&str>, &str), usize> =
        std::collections::HashMap::new();
    for (index, series) in comparison.series.iter().enumerate() {
        for point in &series.points {
            let key = (point.threads, point.x.as_deref(), point.item.as_str());
            match seen.insert(key, index) {
                Some(other) if other != index => return true,
                _ => {}
            }
        }
    }
    false
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

/// Whether a group's items read best side by side, as bars of every item
/// (sql-bench's tests, bonnie's columns): several items and no thread
/// counts to draw them against.
fn every_item_first(group: &[&StoredRun], items: &[String]) -> bool {
    items.len() > 1 && group.iter().all(|run| run.threads.is_none())
}

/// Every comparison of a submission's runs: per tool and test, the bars
/// of every item where they have no thread counts, then one per item.
pub fn submission_comparisons(submission_id: i64, runs: &[StoredRun]) -> Vec<ReadyComparison> {
    let mut out = Vec::new();
    for group in groups(runs) {
        let by = distinguishing_keys(&group);
        let items = items_of(&group);
        if every_item_first(&group, &items) {
            out.extend(ready(submission_id, runs, &group, &by, None));
        }
        for item in items.iter().take(MAX_ITEMS_PER_TEST) {
            out.extend(ready(submission_id, runs, &group, &by, Some(item)));
        }
    }
    out
}

/// The one comparison that stands for a group of runs (a submission's runs
/// of one tool and test): the bars of every item where they have no
/// thread counts, else its first item other than `connect`; split by
/// every attribute that tells its runs apart, so that each series is one
/// configuration and no point averages different setups; `None` when
/// that makes more than [`MAX_HEADLINE_SERIES`] series, or it would hold
/// a single run.
pub fn headline_comparison(submission_id: i64, runs: &[StoredRun]) -> Option<ReadyComparison> {
    let group: Vec<&StoredRun> = runs.iter().collect();
    let items = items_of(&group);
    let item = if every_item_first(&group, &items) {
        None
    } else {
        Some(
            items
                .iter()
                .find(|item| !parsers::contract::is_connect_item(item))
                .or_else(|| items.first())?,
        )
    };
    let with_item: Vec<&StoredRun> = group
        .iter()
        .copied()
        .filter(|run| item.is_none_or(|item| run.results.iter().any(|r| &r.item == item)))
        .collect();
    let by = distinguishing_keys(&with_item);
    let keys: Vec<&str> = by.iter().map(String::as_str).collect();
    if configurations(&with_item, &keys) > MAX_HEADLINE_SERIES {
        return None;
    }
    ready(submission_id, runs, &group, &by, item.map(String::as_str))
}

/// The small chart of a ready comparison, grouped by `/compare`'s own
/// code so that it shows the series of the chart it links to, in the same
/// order and colours.
pub fn small_chart(comparison: &ReadyComparison, runs: &[StoredRun]) -> LineChart {
    let title = match &comparison.test {
        Some(test) => format!(
            "{test}: {}",
            comparison.item.as_deref().unwrap_or("every item")
        ),
        None => format!(
            "{}: {}",
            comparison.tool,
            comparison.item.as_deref().unwrap_or("every item")
        ),
    };
    let mut chart = match comparison.query.resolve() {
        Ok(Some(resolved)) => {
            // A small chart is drawn against threads unless it is the bars
            // of every item.
            let resolved = Resolved {
                x: Some(resolved.x.unwrap_or(XAxis::Threads)),
                ..resolved
            };
            // Its marks, verdicts, note and scale are the linked chart's.
            compare::compare_runs(&comparison.query, resolved, comparison.submission_id, runs)
                .chart()
        }
        _ => {
            let unit = parsers::metric_info(&comparison.metric)
                .map(|info| format!("{} ({})", info.title, info.unit))
                .unwrap_or_else(|| comparison.metric.clone());
            LineChart::new(String::new(), "threads", unit)
        }
    };
    chart.title = title;
    chart.width = 560;
    // Tall enough for the legend to name every series (each a
    // configuration, whose name may wrap to three lines): a thumbnail
    // that says "+ 5 more" cannot be matched with the chart it links to.
    chart.height = 300.max(80 + 60 * chart.series.len() as u32);
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
