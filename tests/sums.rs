//! The statistics kept per configuration (store::sums) give every figure
//! a comparison of the stored results gives: on every example log, and
//! after edits, undos, copies and deletions.

use benchlog::compare::{self, CompareQuery, Comparison, Detail};
use benchlog::store::{self, RunField, FIRST_RESULTS};
use rusqlite::Connection;
use serde_json::Value;

use crate::support::{fresh_db, repo_path, SEED_000};

/// Whether two JSON values are equal, numbers to 1e-9 of their size (the
/// sums add up in another order than the values).
fn same(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            // A difference of equal means is 0 from one and 1e-17 from
            // the other.
            if (x - y).abs() <= 1e-9 * x.abs().max(y.abs()) || (x - y).abs() < 1e-12 {
                Ok(())
            } else {
                Err(format!("{path}: {x} != {y}"))
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .try_for_each(|(i, (x, y))| same(x, y, &format!("{path}[{i}]"))),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            x.iter().try_for_each(|(k, v)| {
                let other = y.get(k).ok_or_else(|| format!("{path}.{k}: missing"))?;
                same(v, other, &format!("{path}.{k}"))
            })
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} != {b}")),
    }
}

/// The comparison from the sums and from every result: the same but for
/// the runs listed, which the sums give the first of.
fn both(conn: &Connection, query: &CompareQuery) -> (Comparison, Comparison) {
    let resolved = query.resolve_required().unwrap();
    let mut summary = compare::compare(conn, query, resolved, Detail::Summary).unwrap();
    let mut every = compare::compare(conn, query, resolved, Detail::EveryRun).unwrap();
    for point in every.series.iter_mut().flat_map(|s| &mut s.points) {
        assert!(point.moments.is_none());
        point.runs.truncate(FIRST_RESULTS);
    }
    // Where the summary fell back to the results, it has them all too.
    for point in summary.series.iter_mut().flat_map(|s| &mut s.points) {
        point.runs.truncate(FIRST_RESULTS);
    }
    (summary, every)
}

/// Asserts the two agree, and that the summary was read from sums (each
/// of its points has moments) unless the tool cannot be.
fn assert_same(conn: &Connection, query: &CompareQuery, from_sums: bool) {
    let (summary, every) = both(conn, query);
    let mut points = summary.series.iter().flat_map(|s| &s.points).peekable();
    if points.peek().is_some() {
        let used = points.all(|p| p.moments.is_some());
        assert_eq!(
            used,
            from_sums,
            "{}: read from sums",
            query.to_query_string()
        );
    }
    let (a, b) = (
        serde_json::to_value(&summary).unwrap(),
        serde_json::to_value(&every).unwrap(),
    );
    if let Err(difference) = same(&a, &b, "") {
        panic!("{}: {difference}", query.to_query_string());
    }
}

fn strings(conn: &Connection, sql: &str) -> Vec<(String, String)> {
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The queries a reader would ask of each tool and metric stored: split
/// by each attribute, without a split (every attribute that tells the
/// runs apart), on bars, by test, with each series that has repeats as
/// baseline; and those the sums cannot answer.
fn queries(conn: &Connection) -> Vec<(String, bool)> {
    let metrics = strings(
        conn,
        "SELECT DISTINCT tool, metric FROM results ORDER BY 1, 2",
    );
    let attrs = strings(
        conn,
        "SELECT DISTINCT tool, key FROM run_attrs ORDER BY 1, 2",
    );
    // Copies found again in another configuration are among them, read
    // as cells of their own.
    let split: i64 = conn
        .query_row(
            "SELECT count(*) FROM run_configs WHERE split = 1",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert!(split > 0);
    let mut queries = Vec::new();
    for (tool, metric) in metrics {
        let sums = true;
        let base = format!("tool={tool}&metric={metric}");
        queries.push((base.clone(), sums));
        queries.push((format!("{base}&x=none"), sums));
        queries.push((format!("{base}&by=test"), sums));
        queries.push((format!("{base}&by=label"), false));
        queries.push((format!("{base}&by=submission&where=test:(none)"), false));
        // Split by each attribute: on the tool's first metrics.
        let first =
            parsers::Tool::from_name(&tool).unwrap().metrics()[..3].contains(&metric.as_str());
        for (_, key) in attrs.iter().filter(|(t, _)| *t == tool && first) {
            let from_sums = sums && !parsers::contract::PROVENANCE.contains(&key.as_str());
            queries.push((format!("{base}&by={key}"), from_sums));
        }
    }
    queries
}

/// With each series that has a point of repeats as baseline.
fn with_baselines(conn: &Connection, query: &CompareQuery) -> Vec<CompareQuery> {
    let resolved = query.resolve_required().unwrap();
    let plain = compare::compare(conn, query, resolved, Detail::Summary).unwrap();
    plain
        .series
        .iter()
        .filter(|s| s.points.iter().any(|p| p.n >= compare::MIN_RUNS))
        .take(2)
        .map(|s| CompareQuery {
            baseline: Some(s.name.clone()),
            ..query.clone()
        })
        .collect()
}

#[test]
fn sums_give_every_figure_of_every_example_logs_comparisons() {
    let (_dir, _path, mut conn) = fresh_db();
    crate::verdicts::ingest_all_fixtures(&mut conn);
    let queries = queries(&conn);
    let mut from_sums = 0;
    for (text, sums) in &queries {
        let query = CompareQuery::from_query_string(text).unwrap();
        assert_same(&conn, &query, *sums);
        // Baselines on the plain splits (each a series of repeats).
        if !text.contains("&x=none") {
            for query in with_baselines(&conn, &query) {
                assert_same(&conn, &query, *sums);
                from_sums += usize::from(*sums);
            }
        }
        from_sums += usize::from(*sums);
    }
    // Most of them are read from sums (not every tool falling back).
    assert!(from_sums > 200, "{from_sums} of {}", queries.len());
}

/// Every comparison of seed 000's tool, by the attributes it has and
/// without a split, from sums and from the results.
fn check_seed_comparisons(conn: &Connection) {
    for by in [
        "",
        "&by=scheduler",
        "&by=scheduler&by=thread_lib",
        "&by=timer",
    ] {
        let text = format!("tool=super-smack&item=select_index&metric=q_per_s&x=threads{by}");
        let query = CompareQuery::from_query_string(&text).unwrap();
        assert_same(conn, &query, true);
        for query in with_baselines(conn, &query) {
            assert_same(conn, &query, true);
        }
    }
}

/// The form's count of each tool's runs is the count of its stored runs.
fn check_tool_counts(conn: &Connection) {
    let mut stmt = conn
        .prepare("SELECT tool, count(*) FROM runs GROUP BY tool ORDER BY tool")
        .unwrap();
    let counted: Vec<(String, i64)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(store::choices(conn, None).unwrap().tools, counted);
}

fn run_ids(conn: &Connection, submission: i64) -> Vec<i64> {
    let mut stmt = conn
        .prepare("SELECT id FROM runs WHERE submission_id = ?1 ORDER BY id")
        .unwrap();
    stmt.query_map([submission], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn sums_follow_edits_undos_copies_and_deletions() {
    let (_dir, _path, mut conn) = fresh_db();
    let seed = std::fs::read_to_string(repo_path(SEED_000)).unwrap();
    let first = benchlog::ingest::ingest_text(&mut conn, None, &seed).unwrap();
    check_seed_comparisons(&conn);

    // A reply quoting the whole post: its runs are copies, counted once.
    let quoted: String = seed.lines().map(|line| format!("> {line}\n")).collect();
    let reply = format!("Subject: Re: the numbers\n\nSame here:\n\n{quoted}");
    let copy = benchlog::ingest::ingest_text(&mut conn, None, &reply).unwrap();
    assert!(!run_ids(&conn, copy.submission_id).is_empty());
    check_seed_comparisons(&conn);
    check_tool_counts(&conn);

    // An edit moves a run to another configuration, and back.
    let runs = run_ids(&conn, first.submission_id);
    let field = RunField::Attr("scheduler".to_owned());
    for (run, value) in [
        (runs[0], Some("ULE")),
        (runs[1], Some("4BSD")),
        (runs[2], None),
    ] {
        let tx = conn.transaction().unwrap();
        store::set_run_field(&tx, run, &field, value).unwrap();
        tx.commit().unwrap();
        check_seed_comparisons(&conn);
    }
    let tx = conn.transaction().unwrap();
    assert!(store::undo_run_edit(&tx, runs[1], &field).unwrap());
    tx.commit().unwrap();
    check_seed_comparisons(&conn);

    // The first post goes: its copies count in its place.
    assert!(store::delete_submission(&mut conn, first.submission_id).unwrap());
    check_seed_comparisons(&conn);
    check_tool_counts(&conn);
    let stored: i64 = conn
        .query_row("SELECT count(*) FROM point_sums", [], |row| row.get(0))
        .unwrap();
    assert!(stored > 0);

    // And the last one: nothing is left in the sums.
    assert!(store::delete_submission(&mut conn, copy.submission_id).unwrap());
    let left: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM point_sums) + (SELECT count(*) FROM run_configs)
                    + (SELECT count(*) FROM tool_runs)",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}

/// A database whose runs were written without the sums (an older
/// benchlog) is compared from its results until they are added, which
/// opening it with this one does.
#[test]
fn runs_written_around_the_sums_are_compared_from_their_results() {
    let (_dir, path, mut conn) = fresh_db();
    let seed = std::fs::read_to_string(repo_path(SEED_000)).unwrap();
    benchlog::ingest::ingest_text(&mut conn, None, &seed).unwrap();
    conn.execute_batch(
        "UPDATE sums_through SET through = 0; DELETE FROM point_sums; DELETE FROM run_configs;",
    )
    .unwrap();
    let query = CompareQuery::from_query_string(
        "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler",
    )
    .unwrap();
    assert_same(&conn, &query, false);
    conn.execute_batch("PRAGMA user_version = 12").unwrap();
    drop(conn);
    let conn = store::open(&path).unwrap();
    assert_same(&conn, &query, true);
}
