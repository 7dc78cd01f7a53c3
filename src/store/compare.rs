//! The rows behind a comparison: one metric of one tool across runs, with
//! each run's attributes. Grouping into series happens in `crate::compare`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rusqlite::{Connection, ToSql};

/// Which results a comparison reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricFilter {
    pub tool: String,
    pub metric: String,
    pub test: Option<String>,
    pub item: Option<String>,
    /// The run attributes read with each result, in this order; only these
    /// (a comparison needs the ones it groups and filters by).
    pub attr_keys: Vec<String>,
    /// Pinned to this submission: only runs of submissions up to it, each
    /// label and attribute as it stood then (see
    /// migrations/0009_pinned_links.sql); `None` reads the data as it is.
    pub asof: Option<i64>,
}

/// One result of the chosen metric, with what is needed to group it.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub run_id: i64,
    pub submission_id: i64,
    pub test: Option<String>,
    pub label: Option<String>,
    pub threads: Option<u32>,
    pub author: Option<String>,
    pub first_line: usize,
    pub item: String,
    pub value: f64,
    pub unit: String,
    /// The run's value of each of the filter's `attr_keys`, in their
    /// order; `None` where the run has no such attribute.
    pub attrs: Vec<Option<String>>,
}

/// The results matching `filter`, ordered by run then result: one query,
/// however much data there is.
pub fn metric_rows(conn: &Connection, filter: &MetricFilter) -> rusqlite::Result<Vec<MetricRow>> {
    let (sql, params) = metric_rows_query(filter);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params.as_slice(), |row| {
        Ok(MetricRow {
            run_id: row.get(0)?,
            submission_id: row.get(1)?,
            test: row.get(2)?,
            label: row.get(3)?,
            threads: row.get(4)?,
            author: row.get(5)?,
            first_line: row.get::<_, i64>(6)? as usize,
            item: row.get(7)?,
            value: row.get(8)?,
            unit: row.get(9)?,
            attrs: (0..filter.attr_keys.len())
                .map(|index| row.get(10 + index))
                .collect::<rusqlite::Result<_>>()?,
        })
    })?;
    rows.collect()
}

/// The SQL of [`metric_rows`] and its parameters. An absent test or item is
/// left out of the text rather than written `(? IS NULL OR x.item = ?)`,
/// which SQLite cannot answer from an index: so a given item is a range of
/// `results_tool_metric_item` (the tool is the run's, copied into its
/// results), already in run order. Each attribute is one primary-key
/// lookup in `run_attrs` per row, inside the same statement.
///
/// Pinned (`asof`), the statement also keeps to the submissions up to it
/// and reads each label and attribute through [`pinned_value`].
fn metric_rows_query(filter: &MetricFilter) -> (String, Vec<&dyn ToSql>) {
    let mut params: Vec<&dyn ToSql> = vec![&filter.metric, &filter.tool];
    let asof = filter.asof.as_ref().map(|asof| {
        params.push(asof);
        params.len()
    });
    let label = match asof {
        Some(asof) => pinned_value(asof, "'label'", "''", "r.label"),
        None => "r.label".to_owned(),
    };
    let mut sql = format!(
        "SELECT r.id, r.submission_id, r.test, {label}, r.threads, r.author, r.first_line,
                x.item, x.value, x.unit"
    );
    for key in &filter.attr_keys {
        params.push(key);
        let key = format!("?{}", params.len());
        let current =
            format!("(SELECT a.value FROM run_attrs a WHERE a.run_id = r.id AND a.key = {key})");
        let value = match asof {
            Some(asof) => pinned_value(asof, "'attr'", &key, &current),
            None => current,
        };
        let _ = write!(sql, ",\n{value}");
    }
    sql.push_str(
        "\nFROM results x JOIN runs r ON r.id = x.run_id
         WHERE x.metric = ?1 AND x.tool = ?2",
    );
    if let Some(asof) = asof {
        let _ = write!(sql, " AND r.submission_id <= ?{asof}");
    }
    if let Some(test) = &filter.test {
        params.push(test);
        let _ = write!(sql, " AND r.test = ?{}", params.len());
    }
    if let Some(item) = &filter.item {
        params.push(item);
        let _ = write!(sql, " AND x.item = ?{}", params.len());
    }
    sql.push_str("\nORDER BY x.run_id, x.id");
    (sql, params)
}

/// The SQL of a run's field as it stood at the pin (parameter `?{asof}`):
/// the value before the field's first correction made after the pin, or
/// `current` when none was.
fn pinned_value(asof: usize, field: &str, key: &str, current: &str) -> String {
    let later = format!(
        "FROM run_edit_log l WHERE l.run_id = r.id AND l.field = {field} AND l.key = {key}
           AND l.after_submission > ?{asof}"
    );
    format!(
        "CASE WHEN EXISTS (SELECT 1 {later})
              THEN (SELECT l.old_value {later} ORDER BY l.seq LIMIT 1)
              ELSE {current} END"
    )
}

/// What the comparison form offers: the values present in the database.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Choices {
    /// Tools with at least one run, and how many runs each has.
    pub tools: Vec<(String, i64)>,
    /// For the chosen tool (empty without one):
    pub tests: Vec<String>,
    pub items: Vec<String>,
    pub metrics: Vec<String>,
    pub attr_keys: Vec<String>,
    /// Whether any run of the tool has a thread count (a thread axis).
    pub has_threads: bool,
    /// `key:value` pairs stored for the tool's runs, for `where`
    /// suggestions; at most [`ATTR_VALUE_LIMIT`].
    pub attr_values: Vec<(String, String)>,
}

/// How many attribute values the form suggests at most.
pub const ATTR_VALUE_LIMIT: usize = 500;

/// Whether any run of the tool has a thread count: in runs_tool_threads,
/// the first entry after the tool's NULLs answers.
const TOOL_HAS_THREADS: &str =
    "SELECT EXISTS (SELECT 1 FROM runs WHERE tool = ?1 AND threads IS NOT NULL)";

/// The form's choices, narrowed to `tool` when one is given: five
/// queries. The run counts read one index entry per run; the rest seek
/// through indexes that start with the tool, one step per distinct value,
/// however many results and attributes the tool has.
pub fn choices(conn: &Connection, tool: Option<&str>) -> rusqlite::Result<Choices> {
    let mut choices = Choices::default();
    // The tools one by one from runs_tool, each counted over its range of
    // the index: a third cheaper than GROUP BY over the whole index.
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE tools (tool) AS (
             SELECT min(tool) FROM runs
             UNION ALL
             SELECT (SELECT min(tool) FROM runs WHERE tool > tools.tool)
             FROM tools WHERE tools.tool IS NOT NULL
         )
         SELECT tool, (SELECT count(*) FROM runs r WHERE r.tool = tools.tool)
         FROM tools WHERE tool IS NOT NULL",
    )?;
    choices.tools = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let Some(tool) = tool else {
        return Ok(choices);
    };
    choices.tests = tool_tests(conn, tool)?;
    let mut items = BTreeSet::new();
    let mut metrics = BTreeSet::new();
    for (metric, item) in tool_pairs(conn, "results", ("metric", "item"), tool)? {
        metrics.insert(metric);
        items.insert(item);
    }
    choices.items = items.into_iter().collect();
    choices.metrics = metrics.into_iter().collect();
    let attrs = tool_pairs(conn, "run_attrs", ("key", "value"), tool)?;
    choices.attr_keys = attr_keys_of(&attrs);
    choices.has_threads = conn
        .prepare_cached(TOOL_HAS_THREADS)?
        .query_row([tool], |row| row.get(0))?;
    choices.attr_values = attrs;
    choices.attr_values.truncate(ATTR_VALUE_LIMIT);
    Ok(choices)
}

/// The tests `tool`'s runs were run with, sorted.
pub fn tool_tests(conn: &Connection, tool: &str) -> rusqlite::Result<Vec<String>> {
    tool_values(conn, "runs", "test", tool)
}

/// The attribute keys stored for `tool`'s runs, sorted.
pub fn tool_attr_keys(conn: &Connection, tool: &str) -> rusqlite::Result<Vec<String>> {
    tool_values(conn, "run_attrs", "key", tool)
}

/// The distinct non-NULL values of `column` in `tool`'s rows of `table`,
/// sorted, read from an index on `(tool, column)` by a skip scan: each step
/// seeks the smallest value above the last one, so the cost is a seek per
/// distinct value, where `SELECT DISTINCT` reads every entry of the tool.
/// `table` and `column` are this module's constants.
fn tool_values(
    conn: &Connection,
    table: &str,
    column: &str,
    tool: &str,
) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(&tool_values_query(table, column))?;
    let values = stmt.query_map([tool], |row| row.get(0))?;
    values.collect()
}

/// The SQL of [`tool_values`].
fn tool_values_query(table: &str, column: &str) -> String {
    format!(
        "WITH RECURSIVE found (value) AS (
             SELECT min({column}) FROM {table} WHERE tool = ?1
             UNION ALL
             SELECT (SELECT min({column}) FROM {table} WHERE tool = ?1 AND {column} > found.value)
             FROM found WHERE found.value IS NOT NULL
         )
         SELECT value FROM found WHERE value IS NOT NULL"
    )
}

/// The distinct `(first, second)` values of `tool`'s rows of `table`,
/// sorted, by a skip scan of an index on `(tool, first, second)` as in
/// [`tool_values`]: the first values one by one, then the second values
/// under each. Both columns are NOT NULL.
fn tool_pairs(
    conn: &Connection,
    table: &str,
    (first, second): (&str, &str),
    tool: &str,
) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(&tool_pairs_query(table, first, second))?;
    let pairs = stmt.query_map([tool], |row| Ok((row.get(0)?, row.get(1)?)))?;
    pairs.collect()
}

/// The SQL of [`tool_pairs`].
fn tool_pairs_query(table: &str, first: &str, second: &str) -> String {
    format!(
        "WITH RECURSIVE firsts (value) AS (
             SELECT min({first}) FROM {table} WHERE tool = ?1
             UNION ALL
             SELECT (SELECT min({first}) FROM {table} WHERE tool = ?1 AND {first} > firsts.value)
             FROM firsts WHERE firsts.value IS NOT NULL
         ),
         pairs (head, tail) AS (
             SELECT value, (SELECT min({second}) FROM {table}
                            WHERE tool = ?1 AND {first} = firsts.value)
             FROM firsts WHERE value IS NOT NULL
             UNION ALL
             SELECT head, (SELECT min({second}) FROM {table}
                           WHERE tool = ?1 AND {first} = pairs.head AND {second} > pairs.tail)
             FROM pairs WHERE tail IS NOT NULL
         )
         SELECT head, tail FROM pairs WHERE tail IS NOT NULL ORDER BY head, tail"
    )
}

/// The keys of sorted `(key, value)` pairs, once each.
fn attr_keys_of(pairs: &[(String, String)]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for (key, _) in pairs {
        if keys.last() != Some(key) {
            keys.push(key.clone());
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database whose `rows` were stored before results and attributes
    /// carried their run's tool, migrated since (0007 copies the tools in).
    fn migrated_after(rows: &str) -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        let migrations = crate::store::MIGRATIONS;
        let before = migrations
            .iter()
            .position(|(name, _)| *name == "0007_choice_indexes")
            .unwrap();
        for (_, sql) in &migrations[..before] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", before as i64)
            .unwrap();
        conn.execute_batch(rows).unwrap();
        crate::store::migrate(&mut conn).unwrap();
        conn
    }

    /// Two tools' runs, each with a `q_per_s` of two items, a test, and
    /// some attributes.
    fn database() -> Connection {
        migrated_after(
            "INSERT INTO submissions (id, text, sha256) VALUES (1, 'log', 'sha');
             INSERT INTO runs (id, submission_id, idx, tool, test, label, threads, quote_depth,
                               first_line, last_line)
             VALUES (1, 1, 0, 'super-smack', 'select-key', 'a', 1, 0, 1, 5),
                    (2, 1, 1, 'sysbench', 'oltp', 'b', 2, 0, 6, 9),
                    (3, 1, 2, 'super-smack', 'update-key', NULL, 4, 0, 10, 15),
                    (4, 1, 3, 'super-smack', 'select-key', 'c', NULL, 0, 16, 20);
             INSERT INTO results (run_id, item, metric, value, unit, line)
             VALUES (1, 'select_index', 'q_per_s', 10, 'q/s', 3),
                    (1, 'update_index', 'q_per_s', 11, 'q/s', 4),
                    (1, 'select_index', 'max_time', 5, 'ms', 3),
                    (2, 'select_index', 'q_per_s', 20, 'q/s', 7),
                    (3, 'update_index', 'q_per_s', 31, 'q/s', 13),
                    (3, 'select_index', 'q_per_s', 30, 'q/s', 12),
                    (4, 'select_index', 'q_per_s', 40, 'q/s', 18);
             INSERT INTO run_attrs (run_id, key, value)
             VALUES (1, 'scheduler', 'ULE'), (1, 'timer', 'TSC'), (2, 'scheduler', '4BSD'),
                    (3, 'timer', 'i8254'), (4, 'scheduler', '4BSD');",
        )
    }

    fn filter(test: Option<&str>, item: Option<&str>) -> MetricFilter {
        MetricFilter {
            tool: "super-smack".to_owned(),
            metric: "q_per_s".to_owned(),
            test: test.map(str::to_owned),
            item: item.map(str::to_owned),
            attr_keys: vec!["timer".to_owned(), "scheduler".to_owned()],
            asof: None,
        }
    }

    #[test]
    fn each_filter_combination_reads_its_rows_in_run_order() {
        let conn = database();
        // (test, item, the (run, value) of each row)
        type Case<'a> = (Option<&'a str>, Option<&'a str>, &'a [(i64, f64)]);
        let cases: [Case; 4] = [
            (
                None,
                None,
                &[(1, 10.0), (1, 11.0), (3, 31.0), (3, 30.0), (4, 40.0)],
            ),
            (
                None,
                Some("select_index"),
                &[(1, 10.0), (3, 30.0), (4, 40.0)],
            ),
            (Some("select-key"), None, &[(1, 10.0), (1, 11.0), (4, 40.0)]),
            (Some("select-key"), Some("update_index"), &[(1, 11.0)]),
        ];
        for (index, (test, item, want)) in cases.into_iter().enumerate() {
            let rows = metric_rows(&conn, &filter(test, item)).unwrap();
            let got: Vec<(i64, f64)> = rows.iter().map(|r| (r.run_id, r.value)).collect();
            assert_eq!(got, want, "case {index}");
        }
    }

    #[test]
    fn rows_carry_the_asked_attributes_in_order() {
        let conn = database();
        let rows = metric_rows(&conn, &filter(None, Some("select_index"))).unwrap();
        let attrs: Vec<&[Option<String>]> = rows.iter().map(|r| r.attrs.as_slice()).collect();
        let some = |v: &str| Some(v.to_owned());
        assert_eq!(
            attrs,
            [
                &[some("TSC"), some("ULE")][..],
                &[some("i8254"), None][..],
                &[None, some("4BSD")][..],
            ]
        );
        let first = &rows[0];
        assert_eq!(
            (
                first.label.as_deref(),
                first.threads,
                first.first_line,
                first.unit.as_str()
            ),
            (Some("a"), Some(1), 1, "q/s")
        );
        let without = MetricFilter {
            attr_keys: Vec::new(),
            ..filter(None, None)
        };
        assert!(metric_rows(&conn, &without)
            .unwrap()
            .iter()
            .all(|r| r.attrs.is_empty()));
    }

    #[test]
    fn a_given_item_is_read_from_its_index_in_run_order() {
        let conn = database();
        for (test, asof) in [(None, None), (Some("select-key"), None), (None, Some(1))] {
            let filter = MetricFilter {
                asof,
                ..filter(test, Some("select_index"))
            };
            let (sql, params) = metric_rows_query(&filter);
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = stmt
                .query_map(params.as_slice(), |row| row.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let plan = plan.join("\n");
            assert!(
                plan.contains("results_tool_metric_item (tool=? AND metric=? AND item=?)"),
                "{test:?}: {plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "{test:?}: no sort: {plan}");
            if asof.is_some() {
                // Each label and attribute: a seek among one run's corrections.
                assert!(
                    plan.contains(
                        "SEARCH l USING INDEX run_edit_log_field (run_id=? AND field=? AND key=?)"
                    ),
                    "{plan}"
                );
                assert!(!plan.contains("SCAN l"), "{plan}");
            }
        }
    }

    #[test]
    fn choices_list_the_tools_values_sorted() {
        let conn = database();
        let choices = choices(&conn, Some("super-smack")).unwrap();
        assert_eq!(
            choices.tools,
            [("super-smack".to_owned(), 3), ("sysbench".to_owned(), 1)]
        );
        assert_eq!(choices.tests, ["select-key", "update-key"]);
        assert_eq!(choices.items, ["select_index", "update_index"]);
        assert_eq!(choices.metrics, ["max_time", "q_per_s"]);
        assert_eq!(choices.attr_keys, ["scheduler", "timer"]);
        assert!(choices.has_threads);
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            choices.attr_values,
            [
                pair("scheduler", "4BSD"),
                pair("scheduler", "ULE"),
                pair("timer", "TSC"),
                pair("timer", "i8254")
            ]
        );
        assert_eq!(tool_attr_keys(&conn, "sysbench").unwrap(), ["scheduler"]);
    }

    /// What `choices` must say of `tool`, read the plain way: every row of
    /// the tool, found through its runs (not through the tool copied into
    /// results and attributes).
    fn choices_read_row_by_row(conn: &Connection, tool: &str) -> Choices {
        let strings = |sql: &str| -> Vec<String> {
            let mut stmt = conn.prepare(sql).unwrap();
            let rows = stmt.query_map([tool], |row| row.get(0)).unwrap();
            rows.collect::<rusqlite::Result<_>>().unwrap()
        };
        let mut stmt = conn
            .prepare(
                "SELECT DISTINCT a.key, a.value FROM run_attrs a JOIN runs r ON r.id = a.run_id
                 WHERE r.tool = ?1 ORDER BY a.key, a.value",
            )
            .unwrap();
        let attrs: Vec<(String, String)> = stmt
            .query_map([tool], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        Choices {
            tools: choices(conn, None).unwrap().tools,
            tests: strings(
                "SELECT DISTINCT test FROM runs WHERE tool = ?1 AND test IS NOT NULL ORDER BY test",
            ),
            items: strings(
                "SELECT DISTINCT x.item FROM results x JOIN runs r ON r.id = x.run_id
                 WHERE r.tool = ?1 ORDER BY x.item",
            ),
            metrics: strings(
                "SELECT DISTINCT x.metric FROM results x JOIN runs r ON r.id = x.run_id
                 WHERE r.tool = ?1 ORDER BY x.metric",
            ),
            attr_keys: strings(
                "SELECT DISTINCT a.key FROM run_attrs a JOIN runs r ON r.id = a.run_id
                 WHERE r.tool = ?1 ORDER BY a.key",
            ),
            has_threads: !strings("SELECT 'yes' FROM runs WHERE tool = ?1 AND threads IS NOT NULL")
                .is_empty(),
            attr_values: attrs,
        }
    }

    /// Runs of four tools sharing some values: sysbench has many runs
    /// with a pair or an attribute value that super-smack has once, in its
    /// last run; each tool has values no other has. Part was stored before
    /// the tools were copied into results and attributes, part after, part
    /// edited.
    #[test]
    fn each_tools_choices_are_all_its_own_values_and_only_those() {
        let mut conn = migrated_after(
            "INSERT INTO submissions (id, text, sha256) VALUES (1, 'log', 'sha');
             INSERT INTO runs (id, submission_id, idx, tool, test, label, threads, quote_depth,
                               first_line, last_line)
             VALUES (1, 1, 0, 'super-smack', 'select-key', NULL, NULL, 0, 1, 2),
                    (2, 1, 1, 'sysbench', 'oltp', NULL, 4, 0, 3, 4),
                    (3, 1, 2, 'sysbench', 'oltp', NULL, 8, 0, 5, 6),
                    (4, 1, 3, 'sysbench', NULL, NULL, 16, 0, 7, 8),
                    (5, 1, 4, 'super-smack', 'update-key', NULL, 2, 0, 9, 10),
                    (6, 1, 5, 'bonnie', 'bonnie++', NULL, NULL, 0, 11, 12);
             INSERT INTO results (run_id, item, metric, value, unit, line)
             VALUES (1, 'connect', 'avg_ms', 1, 'ms', 1),
                    (2, 'select_index', 'q_per_s', 2, 'q/s', 3),
                    (2, 'total', 'tps', 3, '1/s', 3),
                    (3, 'select_index', 'q_per_s', 4, 'q/s', 5),
                    (4, 'select_index', 'q_per_s', 5, 'q/s', 7),
                    (4, 'total', 'qps', 6, '1/s', 7),
                    (5, 'select_index', 'q_per_s', 7, 'q/s', 9),
                    (6, 'seq_input_block', 'kb_per_s', 8, 'KB/s', 11);
             INSERT INTO run_attrs (run_id, key, value)
             VALUES (1, 'timer', 'TSC'), (2, 'scheduler', 'ULE'), (3, 'scheduler', 'ULE'),
                    (4, 'scheduler', '4BSD'), (2, 'timer', 'i8254'), (5, 'scheduler', 'ULE'),
                    (6, 'fs', 'ufs');",
        );
        {
            let tx = conn.transaction().unwrap();
            let submission = crate::store::insert_submission(
                &tx,
                &crate::store::NewSubmission {
                    text: "more",
                    sha256: "sha-2",
                    source_name: None,
                    author: None,
                    date: None,
                    subject: None,
                },
            )
            .unwrap();
            for (idx, tool, item, metric, attr) in [
                (0, "bonnie", "seq_output_block", "kb_per_s", ("fs", "zfs")),
                (1, "diskinfo", "seq_outer", "ms", ("fs", "ufs")),
                (2, "sysbench", "total", "events", ("scheduler", "ULE")),
            ] {
                let run = crate::store::insert_run(
                    &tx,
                    submission,
                    &crate::store::NewRun {
                        idx,
                        message_idx: None,
                        tool,
                        test: None,
                        label: None,
                        threads: None,
                        quote_depth: 0,
                        author: None,
                        command: None,
                        lines: [1, 1],
                    },
                )
                .unwrap();
                let result = crate::store::NewResult {
                    item,
                    metric,
                    value: 1.0,
                    unit: "u",
                    line: 1,
                    estimated: false,
                };
                crate::store::insert_result(&tx, run, &result).unwrap();
                crate::store::insert_run_attr(&tx, run, attr.0, attr.1).unwrap();
            }
            // Super-smack's only ULE becomes 4BSD; a sysbench run gains a key.
            let attr = |key: &str| crate::store::RunField::Attr(key.to_owned());
            crate::store::set_run_field(&tx, 5, &attr("scheduler"), Some("4BSD")).unwrap();
            crate::store::set_run_field(&tx, 3, &attr("machine"), Some("box1")).unwrap();
            tx.commit().unwrap();
        }
        let tools = ["super-smack", "sysbench", "bonnie", "diskinfo", "sql-bench"];
        for tool in tools {
            assert_eq!(
                choices(&conn, Some(tool)).unwrap(),
                choices_read_row_by_row(&conn, tool),
                "{tool}"
            );
        }
        // The shared values went to the right tools.
        let smack = choices(&conn, Some("super-smack")).unwrap();
        assert_eq!(smack.metrics, ["avg_ms", "q_per_s"]);
        assert_eq!(smack.items, ["connect", "select_index"]);
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            smack.attr_values,
            [pair("scheduler", "4BSD"), pair("timer", "TSC")]
        );
        assert!(smack.has_threads);
        assert!(!choices(&conn, Some("bonnie")).unwrap().has_threads);
        assert_eq!(
            tool_attr_keys(&conn, "sysbench").unwrap(),
            ["machine", "scheduler", "timer"]
        );
        // A run moved to another tool takes its results and attributes along.
        conn.execute("UPDATE runs SET tool = 'sql-bench' WHERE id = 6", [])
            .unwrap();
        for tool in tools {
            assert_eq!(
                choices(&conn, Some(tool)).unwrap(),
                choices_read_row_by_row(&conn, tool),
                "{tool} after the move"
            );
        }
        assert_eq!(
            choices(&conn, Some("sql-bench")).unwrap().items,
            ["seq_input_block"]
        );
    }

    #[test]
    fn attribute_values_stop_at_the_limit_and_keys_do_not() {
        let mut conn = database();
        let tx = conn.transaction().unwrap();
        // Keys sorting before the fixture's scheduler and timer.
        for i in 0..ATTR_VALUE_LIMIT {
            crate::store::insert_run_attr(&tx, 1, &format!("k{i:04}"), "v").unwrap();
        }
        tx.commit().unwrap();
        let choices = choices(&conn, Some("super-smack")).unwrap();
        assert_eq!(choices.attr_values.len(), ATTR_VALUE_LIMIT);
        assert_eq!(
            choices.attr_values.last().unwrap(),
            &(format!("k{:04}", ATTR_VALUE_LIMIT - 1), "v".to_owned())
        );
        assert_eq!(choices.attr_keys.len(), ATTR_VALUE_LIMIT + 2);
        assert_eq!(choices.attr_keys.last().unwrap(), "timer");
    }

    /// Every read of results, attributes and runs the choices make is a
    /// seek within one tool's entries of an index, never a scan.
    #[test]
    fn choices_seek_within_the_tools_index_entries() {
        let conn = database();
        for (sql, index) in [
            (
                tool_pairs_query("results", "metric", "item"),
                "results_tool_metric_item (tool=?",
            ),
            (
                tool_pairs_query("run_attrs", "key", "value"),
                "run_attrs_tool_key_value (tool=?",
            ),
            (tool_values_query("runs", "test"), "runs_tool_test (tool=?"),
            (
                tool_values_query("run_attrs", "key"),
                "run_attrs_tool_key_value (tool=?",
            ),
            (TOOL_HAS_THREADS.to_owned(), "runs_tool_threads (tool=?"),
        ] {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = stmt
                .query_map(["super-smack"], |row| row.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let reads: Vec<&String> = plan
                .iter()
                .filter(|step| step.contains("SEARCH") || step.contains("SCAN"))
                .filter(|step| {
                    ["results", "run_attrs", "runs"]
                        .iter()
                        .any(|t| step.contains(&format!(" {t} ")))
                })
                .collect();
            assert!(!reads.is_empty(), "{plan:?}");
            for read in reads {
                assert!(read.contains(index), "{sql}\n{read}\n{plan:?}");
            }
        }
    }
}
