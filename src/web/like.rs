//! `/runs/{id}`: one run on a page of its own (its values with their
//! units, its attributes, the lines it was read from, the submission and
//! thread it came from), and the runs across all submissions most like
//! it: the same tool, test and item; the most attributes in common; the
//! same thread count first; then the newest. Each says what differs, and
//! one link compares them all.
//!
//! The runs like it come from the sums (`store::like_points`): a bounded
//! range of one index, ranked here, and at most [`LIKE_RUNS_SHOWN`] runs
//! read back by their result ids: twelve statements, whatever is stored
//! (tests/scale.rs counts them).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use askama::Template;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use rusqlite::Connection;

use super::submissions::{group_by_item, line_url, ItemValues};
use super::{ready, runs, Answer, AppError, AppState};
use crate::compare::{self, CompareQuery};
use crate::limits::{LIKE_POINTS_READ, LIKE_RUNS_SHOWN, RUN_SOURCE_LINES};
use crate::limits::{MAX_BY, MAX_WHERE};
use crate::store::{self, LikePoint, RunOf, StoredRun};
use parsers::contract::PROVENANCE;

pub fn router() -> Router<AppState> {
    Router::new().route("/runs/{id}", get(show))
}

#[derive(Template)]
#[template(path = "runs/show.html")]
struct RunPage {
    title: String,
    submission_id: i64,
    submission: String,
    /// The run's anchor on its submission's page.
    submission_url: String,
    thread_url: Option<String>,
    number: usize,
    tool: String,
    test: String,
    label: String,
    threads: String,
    author: String,
    quote_depth: usize,
    message: Option<usize>,
    command: String,
    attrs: Vec<(String, String, String)>,
    values: Vec<ItemValues>,
    /// The lines the run was read from, each with its address.
    lines: Vec<(usize, String, String)>,
    /// Lines of the run's span not shown.
    lines_cut: usize,
    /// What the runs like it were matched on: "item metric".
    headline: String,
    like: Vec<LikeRow>,
    /// Runs as alike as the last listed or less, not listed.
    more: usize,
    /// Whether older configurations were left unread.
    cut: bool,
    points_read: usize,
    /// Why nothing is listed, when nothing is.
    none_why: Option<String>,
    compare_url: Option<String>,
    compare_by: Vec<String>,
    compare_where: Vec<String>,
}

/// One run like this one, as listed.
struct LikeRow {
    id: i64,
    submission_id: i64,
    number: usize,
    label: String,
    threads: String,
    same_threads: bool,
    common: usize,
    /// `key: this run's value → that run's value` ("" for none).
    differs: Vec<(String, String, String)>,
    value: String,
    unit: String,
    author: String,
}

impl RunPage {
    fn line_at(&self, line: &usize) -> String {
        line_url(self.submission_id, *line)
    }
}

/// A run's attributes that say how it was run: provenance aside, as its
/// configuration in the sums holds them.
fn config_attrs(run: &StoredRun) -> BTreeMap<String, String> {
    run.attrs
        .iter()
        .filter(|(key, _)| !PROVENANCE.contains(&key.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// How many attributes two configurations share, key and value.
fn in_common(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> usize {
    a.iter().filter(|(k, v)| b.get(*k) == Some(v)).count()
}

/// The attributes whose values differ between `mine` and `theirs`, and
/// those only one has: `(key, mine, theirs)`, "" for none, by key.
fn differences(
    mine: &BTreeMap<String, String>,
    theirs: &BTreeMap<String, String>,
) -> Vec<(String, String, String)> {
    let keys: BTreeSet<&String> = mine.keys().chain(theirs.keys()).collect();
    keys.into_iter()
        .filter(|key| mine.get(*key) != theirs.get(*key))
        .map(|key| {
            (
                key.clone(),
                mine.get(key).cloned().unwrap_or_default(),
                theirs.get(key).cloned().unwrap_or_default(),
            )
        })
        .collect()
}

/// The points in the order their runs are listed: most attributes in
/// common with `mine`, then the same thread count, then the newest
/// configuration. A point of another configuration with nothing in
/// common is not like it: runs that state nothing alike (other posts'
/// runs that name no machine, most often) are left out.
fn rank_points<'a>(
    points: &'a [LikePoint],
    mine: &BTreeMap<String, String>,
    my_config: Option<i64>,
    threads: Option<u32>,
) -> Vec<&'a LikePoint> {
    // Each configuration's count once, not once per comparison.
    let mut common: HashMap<i64, usize> = HashMap::new();
    for p in points {
        common
            .entry(p.config_id)
            .or_insert_with(|| in_common(mine, &p.attrs));
    }
    let mut ranked: Vec<&LikePoint> = points
        .iter()
        .filter(|p| common[&p.config_id] > 0 || Some(p.config_id) == my_config)
        .collect();
    ranked.sort_by_key(|p| {
        (
            Reverse(common[&p.config_id]),
            Reverse(p.threads == threads),
            Reverse(p.config_id),
            // One configuration's thread counts: the newest results first.
            Reverse(p.result_ids.last().copied()),
        )
    });
    ranked
}

/// The comparison of this run and the runs listed: `by` the attributes
/// that differ among them (the most interesting first, at most
/// [`MAX_BY`]), `where` those they share (at most [`MAX_WHERE`]).
fn compare_all(run: &StoredRun, like: &[RunOf], item: &str, metric: &str) -> CompareQuery {
    let all: Vec<BTreeMap<String, String>> = std::iter::once(run)
        .chain(like.iter().map(|l| &l.run))
        .map(config_attrs)
        .collect();
    let keys: BTreeSet<&String> = all.iter().flat_map(|a| a.keys()).collect();
    let mut by = Vec::new();
    let mut wheres = Vec::new();
    for key in keys {
        let first = all[0].get(key);
        if first.is_some() && all.iter().all(|a| a.get(key) == first) {
            wheres.push((key.clone(), first.cloned().unwrap_or_default()));
        } else {
            by.push(key.clone());
        }
    }
    by.sort_by(|a, b| compare::interest(a).cmp(&compare::interest(b)));
    by.truncate(MAX_BY);
    wheres.sort_by(|a, b| compare::interest(&a.0).cmp(&compare::interest(&b.0)));
    wheres.truncate(MAX_WHERE);
    let any_threads = std::iter::once(run)
        .chain(like.iter().map(|l| &l.run))
        .any(|r| r.threads.is_some());
    CompareQuery {
        tool: Some(run.tool.clone()),
        test: run.test.clone(),
        item: Some(item.to_owned()),
        metric: Some(metric.to_owned()),
        x: any_threads.then(|| "threads".to_owned()),
        by,
        wheres,
        ..CompareQuery::default()
    }
}

async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let id: i64 = match id.parse() {
        Ok(id) if id > 0 => id,
        _ => {
            return Err(AppError::bad_request(format!(
                "{id:?} is not a run number; /runs lists the runs, each with a link to its page."
            )))
        }
    };
    let answer = state
        .answer(format!("/runs/{id}"), move |conn| render(conn, id))
        .await?;
    Ok(answer.respond(&headers, None))
}

fn render(conn: &Connection, id: i64) -> Result<Answer, AppError> {
    let Some(RunOf { submission_id, run }) = store::run_by_id(conn, id)? else {
        return Err(AppError::NotFound(format!(
            "There is no run {id}: it may have been deleted with its submission."
        )));
    };
    let head = store::get_submission_head(conn, submission_id)?;
    let thread_url =
        store::thread_of_submission(conn, submission_id)?.map(|t| super::threads::thread_url(&t));
    let last = run.lines[1].min(run.lines[0] + RUN_SOURCE_LINES - 1);
    let text = store::text_window(conn, submission_id, run.lines[0], last)?;
    let lines_cut = run.lines[1] - last;
    let lines = text
        .lines
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let number = run.lines[0] + i;
            (number, text, line_url(submission_id, number))
        })
        .collect();

    let mine = config_attrs(&run);
    let headline = ready::run_headline(&run).map(|r| (r.item.clone(), r.metric.clone()));
    let mut like: Vec<RunOf> = Vec::new();
    let mut more = 0;
    let mut cut = false;
    let mut points_read = 0;
    let mut none_why = None;
    if let Some((item, metric)) = &headline {
        let found = store::like_points(conn, id, &run.tool, metric, item, run.test.as_deref())?;
        if !found.current {
            none_why = Some(
                "The sums the comparisons read are being brought up to date; reload in a moment."
                    .to_owned(),
            );
        }
        cut = found.cut;
        points_read = found.points.len();
        let ranked = rank_points(&found.points, &mine, found.config_id, run.threads);
        // Enough result ids for the page and this run's own among them.
        let mut wanted: Vec<i64> = Vec::new();
        for point in &ranked {
            for &result in &point.result_ids {
                if wanted.len() > LIKE_RUNS_SHOWN {
                    break;
                }
                wanted.push(result);
            }
        }
        let counted: usize = ranked.iter().map(|p| p.runs).sum();
        let mut runs = store::runs_of_results(conn, &wanted)?;
        runs.retain(|r| r.run.id != id);
        let mut seen = HashSet::new();
        runs.retain(|r| seen.insert(r.run.id));
        // In the points' order (most in common, the same thread count,
        // the newest configuration), the newest run first within one.
        let point_of = |r: &RunOf| {
            let attrs = config_attrs(&r.run);
            ranked
                .iter()
                .position(|p| p.threads == r.run.threads && *p.attrs == attrs)
                .unwrap_or(usize::MAX)
        };
        runs.sort_by_cached_key(|r| (point_of(r), Reverse(r.run.id)));
        runs.truncate(LIKE_RUNS_SHOWN);
        // This run is counted in its own point unless it is a copy.
        let own = usize::from(found.config_id.is_some());
        more = counted.saturating_sub(runs.len() + own);
        like = runs;
        if like.is_empty() && none_why.is_none() {
            let unlike = found.points.len() > ranked.len();
            none_why = Some(format!(
                "No other stored run of {} {} has {item} {metric}{}.",
                run.tool,
                run.test.as_deref().unwrap_or(""),
                if unlike {
                    " and an attribute in common with this one"
                } else {
                    ""
                }
            ));
        }
    } else {
        none_why = Some("This run has no values to compare.".to_owned());
    }
    let query = headline
        .as_ref()
        .filter(|_| !like.is_empty())
        .map(|(item, metric)| compare_all(&run, &like, item, metric));
    let rows = like
        .iter()
        .map(|r| {
            let theirs = config_attrs(&r.run);
            let value = headline.as_ref().and_then(|(item, metric)| {
                r.run
                    .results
                    .iter()
                    .find(|v| &v.item == item && &v.metric == metric)
            });
            LikeRow {
                id: r.run.id,
                submission_id: r.submission_id,
                number: r.run.idx + 1,
                label: r.run.label.clone().unwrap_or_default(),
                threads: r.run.threads.map(|t| t.to_string()).unwrap_or_default(),
                same_threads: r.run.threads == run.threads,
                common: in_common(&mine, &theirs),
                differs: differences(&mine, &theirs),
                value: value.map(|v| v.value.to_string()).unwrap_or_default(),
                unit: value.map(|v| v.unit.clone()).unwrap_or_default(),
                author: r.run.author.clone().unwrap_or_default(),
            }
        })
        .collect();
    let submission = head
        .as_ref()
        .and_then(|h| h.subject.clone().or_else(|| h.source_name.clone()))
        .unwrap_or_else(|| format!("submission {submission_id}"));
    let test = run.test.clone().unwrap_or_default();
    let page = RunPage {
        title: format!("Run {id}: {} {test}", run.tool),
        submission_id,
        submission,
        submission_url: format!("/submissions/{submission_id}#run-{}", run.idx + 1),
        thread_url,
        number: run.idx + 1,
        tool: run.tool.clone(),
        test,
        label: run.label.clone().unwrap_or_default(),
        threads: run.threads.map(|t| t.to_string()).unwrap_or_default(),
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
        message: run.message_idx.map(|m| m + 1),
        command: run.command.clone().unwrap_or_default(),
        attrs: runs::attribute_links(&run.attrs),
        values: group_by_item(&run),
        lines,
        lines_cut,
        headline: headline
            .as_ref()
            .map(|(item, metric)| format!("{item} {metric}"))
            .unwrap_or_default(),
        like: rows,
        more,
        cut,
        points_read,
        none_why,
        compare_url: query
            .as_ref()
            .map(|q| format!("/compare?{}", q.to_query_string())),
        compare_by: query.as_ref().map(|q| q.by.clone()).unwrap_or_default(),
        compare_where: query
            .as_ref()
            .map(|q| q.wheres.iter().map(|(k, v)| format!("{k}={v}")).collect())
            .unwrap_or_default(),
    };
    debug_assert!(points_read <= LIKE_POINTS_READ);
    Answer::page(&page)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn point(config_id: i64, threads: Option<u32>, pairs: &[(&str, &str)]) -> LikePoint {
        LikePoint {
            config_id,
            attrs: std::rc::Rc::new(attrs(pairs)),
            threads,
            runs: 1,
            result_ids: vec![config_id],
        }
    }

    #[test]
    fn points_rank_by_attributes_in_common_then_threads_then_newest() {
        let mine = attrs(&[("os", "FreeBSD"), ("scheduler", "ULE"), ("fs", "ufs")]);
        let points = [
            point(
                1,
                Some(8),
                &[("os", "FreeBSD"), ("scheduler", "ULE"), ("fs", "zfs")],
            ),
            point(
                2,
                Some(4),
                &[("os", "FreeBSD"), ("scheduler", "ULE"), ("fs", "ufs")],
            ),
            point(3, Some(8), &[("os", "FreeBSD")]),
            point(4, Some(8), &[("os", "FreeBSD"), ("scheduler", "ULE")]),
            point(
                5,
                Some(4),
                &[("os", "FreeBSD"), ("scheduler", "4BSD"), ("fs", "zfs")],
            ),
            point(6, Some(8), &[("variant", "base")]),
        ];
        let order: Vec<i64> = rank_points(&points, &mine, Some(2), Some(8))
            .iter()
            .map(|p| p.config_id)
            .collect();
        // 2 shares three; 4 and 1 two each, 4 newer; 3 and 5 one each,
        // 3 at the same thread count; 6 shares nothing and is left out.
        assert_eq!(order, [2, 4, 1, 3, 5]);
        // Its own configuration is listed even when it states nothing.
        let order: Vec<i64> = rank_points(&points, &attrs(&[]), Some(6), Some(8))
            .iter()
            .map(|p| p.config_id)
            .collect();
        assert_eq!(order, [6]);
    }

    #[test]
    fn differences_name_both_values_and_those_only_one_has() {
        let mine = attrs(&[("os", "FreeBSD"), ("scheduler", "ULE")]);
        let theirs = attrs(&[("os", "FreeBSD"), ("scheduler", "4BSD"), ("fs", "zfs")]);
        assert_eq!(
            differences(&mine, &theirs),
            [
                ("fs".to_owned(), String::new(), "zfs".to_owned()),
                ("scheduler".to_owned(), "ULE".to_owned(), "4BSD".to_owned()),
            ]
        );
    }
}
