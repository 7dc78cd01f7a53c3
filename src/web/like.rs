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

use super::ready;
use super::state::AppState;
use super::view::{attribute_links, group_by_item, line_url, thread_url, ItemValues};
use super::{Answer, AppError};
use crate::compare::{self, CompareQuery};
use crate::limits::{LIKE_POINTS_READ, LIKE_RUNS_SHOWN, RUN_SOURCE_LINES};
use crate::limits::{MAX_BY, MAX_WHERE};
use crate::store::{self, LikePoint, LikePoints, RunOf, StoredRun, SubmissionHead};
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
    let page = run_page(read(conn, id)?);
    debug_assert!(page.points_read <= LIKE_POINTS_READ);
    Answer::page(&page)
}

/// What `/runs/{id}` shows, as read.
struct RunRead {
    submission_id: i64,
    run: StoredRun,
    head: Option<SubmissionHead>,
    thread_id: Option<String>,
    /// The run's first lines, at most [`RUN_SOURCE_LINES`].
    lines: Vec<String>,
    /// The runs like it; None when it has no value to compare.
    like: Option<LikeRead>,
}

/// The sums near a run and the runs read back from them.
struct LikeRead {
    /// The run's headline value, which the runs like it were matched on.
    item: String,
    metric: String,
    found: LikePoints,
    /// The runs of the first points' results, in no order.
    runs: Vec<RunOf>,
}

/// Reads run `id`, its submission's head, thread and lines, and the runs
/// like it: the sums' points near it, and the runs of the first
/// [`LIKE_RUNS_SHOWN`] results of the points, ranked ([`rank_points`]).
fn read(conn: &Connection, id: i64) -> Result<RunRead, AppError> {
    let Some(RunOf { submission_id, run }) = store::run_by_id(conn, id)? else {
        return Err(AppError::NotFound(format!(
            "There is no run {id}: it may have been deleted with its submission."
        )));
    };
    let head = store::get_submission_head(conn, submission_id)?;
    let thread_id = store::thread_of_submission(conn, submission_id)?;
    let lines = store::text_window(conn, submission_id, run.lines[0], last_line_shown(&run))?.lines;
    let like = match ready::run_headline(&run) {
        Some(headline) => {
            let (item, metric) = (headline.item.clone(), headline.metric.clone());
            let found =
                store::like_points(conn, id, &run.tool, &metric, &item, run.test.as_deref())?;
            let ranked = rank_points(
                &found.points,
                &config_attrs(&run),
                found.config_id,
                run.threads,
            );
            let runs = store::runs_of_results(conn, &wanted_results(&ranked))?;
            Some(LikeRead {
                item,
                metric,
                found,
                runs,
            })
        }
        None => None,
    };
    Ok(RunRead {
        submission_id,
        run,
        head,
        thread_id,
        lines,
        like,
    })
}

/// The last of a run's lines its page shows: at most
/// [`RUN_SOURCE_LINES`] of them.
fn last_line_shown(run: &StoredRun) -> usize {
    run.lines[1].min(run.lines[0] + RUN_SOURCE_LINES - 1)
}

/// Enough result ids, of the points in their order, for the page and the
/// run's own among them.
fn wanted_results(ranked: &[&LikePoint]) -> Vec<i64> {
    let mut wanted: Vec<i64> = Vec::new();
    for point in ranked {
        for &result in &point.result_ids {
            if wanted.len() > LIKE_RUNS_SHOWN {
                break;
            }
            wanted.push(result);
        }
    }
    wanted
}

/// The runs like this one as the page lists them, and what it says of
/// those it does not.
#[derive(Default)]
struct LikeList {
    runs: Vec<RunOf>,
    /// Runs as alike as the last listed or less, not listed.
    more: usize,
    /// Whether older configurations were left unread.
    cut: bool,
    points_read: usize,
    /// Why nothing is listed, when nothing is.
    none_why: Option<String>,
}

/// The runs like `run` to list, of what was read: in the points' order
/// (most in common, the same thread count, the newest configuration), the
/// newest run first within one, at most [`LIKE_RUNS_SHOWN`], the run
/// itself and runs read twice left out.
fn like_list(run: &StoredRun, like: LikeRead) -> LikeList {
    let LikeRead {
        item,
        metric,
        found,
        mut runs,
    } = like;
    let ranked = rank_points(
        &found.points,
        &config_attrs(run),
        found.config_id,
        run.threads,
    );
    let counted: usize = ranked.iter().map(|p| p.runs).sum();
    runs.retain(|r| r.run.id != run.id);
    let mut seen = HashSet::new();
    runs.retain(|r| seen.insert(r.run.id));
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
    let none_why = if !found.current {
        Some(
            "The sums the comparisons read are being brought up to date; reload in a moment."
                .to_owned(),
        )
    } else if runs.is_empty() {
        let unlike = found.points.len() > ranked.len();
        Some(format!(
            "No other stored run of {} {} has {item} {metric}{}.",
            run.tool,
            run.test.as_deref().unwrap_or(""),
            if unlike {
                " and an attribute in common with this one"
            } else {
                ""
            }
        ))
    } else {
        None
    };
    LikeList {
        more: counted.saturating_sub(runs.len() + own),
        runs,
        cut: found.cut,
        points_read: found.points.len(),
        none_why,
    }
}

/// A run like `run` as its row shows it, with its value of `headline`.
fn like_row(run: &StoredRun, like: &RunOf, headline: Option<(&str, &str)>) -> LikeRow {
    let mine = config_attrs(run);
    let theirs = config_attrs(&like.run);
    let value = headline.and_then(|(item, metric)| {
        like.run
            .results
            .iter()
            .find(|v| v.item == item && v.metric == metric)
    });
    LikeRow {
        id: like.run.id,
        submission_id: like.submission_id,
        number: like.run.idx + 1,
        label: like.run.label.clone().unwrap_or_default(),
        threads: like.run.threads.map(|t| t.to_string()).unwrap_or_default(),
        same_threads: like.run.threads == run.threads,
        common: in_common(&mine, &theirs),
        differs: differences(&mine, &theirs),
        value: value.map(|v| v.value.to_string()).unwrap_or_default(),
        unit: value.map(|v| v.unit.clone()).unwrap_or_default(),
        author: like.run.author.clone().unwrap_or_default(),
    }
}

/// The page of what was read: no database, no HTTP.
fn run_page(read: RunRead) -> RunPage {
    let RunRead {
        submission_id,
        run,
        head,
        thread_id,
        lines,
        like,
    } = read;
    let id = run.id;
    let headline = like.as_ref().map(|l| (l.item.clone(), l.metric.clone()));
    let list = match like {
        Some(like) => like_list(&run, like),
        None => LikeList {
            none_why: Some("This run has no values to compare.".to_owned()),
            ..LikeList::default()
        },
    };
    let headline = headline
        .as_ref()
        .map(|(item, metric)| (item.as_str(), metric.as_str()));
    let query = headline
        .filter(|_| !list.runs.is_empty())
        .map(|(item, metric)| compare_all(&run, &list.runs, item, metric));
    let submission = head
        .as_ref()
        .and_then(|h| h.subject.clone().or_else(|| h.source_name.clone()))
        .unwrap_or_else(|| format!("submission {submission_id}"));
    let test = run.test.clone().unwrap_or_default();
    RunPage {
        title: format!("Run {id}: {} {test}", run.tool),
        submission_id,
        submission,
        submission_url: format!("/submissions/{submission_id}#run-{}", run.idx + 1),
        thread_url: thread_id.map(|t| thread_url(&t)),
        number: run.idx + 1,
        tool: run.tool.clone(),
        test,
        label: run.label.clone().unwrap_or_default(),
        threads: run.threads.map(|t| t.to_string()).unwrap_or_default(),
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
        message: run.message_idx.map(|m| m + 1),
        command: run.command.clone().unwrap_or_default(),
        attrs: attribute_links(&run.attrs),
        values: group_by_item(&run),
        lines_cut: run.lines[1] - last_line_shown(&run),
        lines: lines
            .into_iter()
            .enumerate()
            .map(|(i, text)| {
                let number = run.lines[0] + i;
                (number, text, line_url(submission_id, number))
            })
            .collect(),
        headline: headline
            .map(|(item, metric)| format!("{item} {metric}"))
            .unwrap_or_default(),
        like: list
            .runs
            .iter()
            .map(|r| like_row(&run, r, headline))
            .collect(),
        more: list.more,
        cut: list.cut,
        points_read: list.points_read,
        none_why: list.none_why,
        compare_url: query
            .as_ref()
            .map(|q| format!("/compare?{}", q.to_query_string())),
        compare_by: query.as_ref().map(|q| q.by.clone()).unwrap_or_default(),
        compare_where: query
            .as_ref()
            .map(|q| q.wheres.iter().map(|(k, v)| format!("{k}={v}")).collect())
            .unwrap_or_default(),
    }
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

    fn stored_run(id: i64, threads: Option<u32>, pairs: &[(&str, &str)], value: f64) -> StoredRun {
        StoredRun {
            id,
            idx: 0,
            message_idx: None,
            tool: "sysbench".to_owned(),
            test: Some("oltp".to_owned()),
            label: None,
            threads,
            quote_depth: 0,
            author: None,
            command: None,
            lines: [1, 3],
            attrs: attrs(pairs),
            results: vec![crate::store::StoredResult {
                item: "total".to_owned(),
                metric: "tps".to_owned(),
                value,
                unit: "tps".to_owned(),
                line: 2,
                estimated: false,
            }],
            label_from: Vec::new(),
        }
    }

    fn run_of(submission_id: i64, run: StoredRun) -> RunOf {
        RunOf { submission_id, run }
    }

    /// Run 10 (FreeBSD, ufs) and what the sums hold near it: its own
    /// configuration (with run 11), one sharing the os (runs 12 and
    /// more), one sharing nothing.
    fn read_near(current: bool) -> RunRead {
        let mine = [("os", "FreeBSD"), ("fs", "ufs")];
        let zfs = [("os", "FreeBSD"), ("fs", "zfs")];
        let points = vec![
            LikePoint {
                result_ids: vec![103, 101],
                runs: 2,
                ..point(1, Some(8), &mine)
            },
            LikePoint {
                result_ids: vec![102],
                runs: 3,
                ..point(2, Some(8), &zfs)
            },
            point(3, Some(8), &[("variant", "x")]),
        ];
        RunRead {
            submission_id: 5,
            run: stored_run(10, Some(8), &mine, 100.0),
            head: None,
            thread_id: Some("<a@b>".to_owned()),
            lines: vec!["one".to_owned(), "two".to_owned(), "three".to_owned()],
            like: Some(LikeRead {
                item: "total".to_owned(),
                metric: "tps".to_owned(),
                found: LikePoints {
                    current,
                    config_id: Some(1),
                    points,
                    cut: false,
                },
                runs: vec![
                    run_of(6, stored_run(12, Some(8), &zfs, 120.0)),
                    run_of(5, stored_run(10, Some(8), &mine, 100.0)),
                    run_of(7, stored_run(11, Some(8), &mine, 110.0)),
                    run_of(6, stored_run(12, Some(8), &zfs, 120.0)),
                ],
            }),
        }
    }

    #[test]
    fn the_page_lists_the_runs_like_it_most_alike_first_and_counts_the_rest() {
        let page = run_page(read_near(true));
        assert_eq!(page.title, "Run 10: sysbench oltp");
        assert_eq!(page.submission, "submission 5");
        assert_eq!(page.thread_url.as_deref(), Some("/threads/%3Ca@b%3E"));
        let listed: Vec<(i64, usize)> = page.like.iter().map(|r| (r.id, r.common)).collect();
        // Itself and the run read twice are left out.
        assert_eq!(listed, [(11, 2), (12, 1)]);
        assert_eq!(
            page.like[1].differs,
            [("fs".to_owned(), "ufs".to_owned(), "zfs".to_owned())]
        );
        assert_eq!(
            (page.like[1].value.as_str(), page.like[1].unit.as_str()),
            ("120", "tps")
        );
        // 5 runs in the two points like it, 3 of them listed or itself.
        assert_eq!(page.more, 2);
        assert_eq!(page.points_read, 3);
        assert_eq!(page.none_why, None);
        assert_eq!(page.headline, "total tps");
        assert_eq!(page.compare_by, ["fs"]);
        assert_eq!(page.compare_where, ["os=FreeBSD"]);
        let url = page.compare_url.unwrap();
        assert!(url.starts_with("/compare?tool=sysbench"), "{url}");
        assert_eq!(
            page.lines[2],
            (3, "three".to_owned(), "/submissions/5#L3".to_owned())
        );
        assert_eq!(page.lines_cut, 0);
    }

    #[test]
    fn the_page_says_why_it_lists_nothing() {
        let page = run_page(read_near(false));
        assert!(page.like.len() == 2);
        assert_eq!(
            page.none_why.as_deref(),
            Some("The sums the comparisons read are being brought up to date; reload in a moment.")
        );
        let mut read = read_near(true);
        read.like.as_mut().unwrap().runs.clear();
        let page = run_page(read);
        assert!(page.like.is_empty() && page.compare_url.is_none());
        assert_eq!(
            page.none_why.as_deref(),
            Some("No other stored run of sysbench oltp has total tps and an attribute in common with this one.")
        );
        let mut read = read_near(true);
        read.like = None;
        read.run.lines = [1, 1 + RUN_SOURCE_LINES];
        let page = run_page(read);
        assert_eq!(
            page.none_why.as_deref(),
            Some("This run has no values to compare.")
        );
        assert_eq!(page.lines_cut, 1);
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
