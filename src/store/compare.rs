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
/// `results_metric_item`, already in run order. Each attribute is one
/// primary-key lookup in `run_attrs` per row, inside the same statement.
fn metric_rows_query(filter: &MetricFilter) -> (String, Vec<&dyn ToSql>) {
    let mut params: Vec<&dyn ToSql> = vec![&filter.metric, &filter.tool];
    let mut sql = String::from(
        "SELECT r.id, r.submission_id, r.test, r.label, r.threads, r.author, r.first_line,
                x.item, x.value, x.unit",
    );
    for key in &filter.attr_keys {
        params.push(key);
        let _ = write!(
            sql,
            ",\n(SELECT a.value FROM run_attrs a WHERE a.run_id = r.id AND a.key = ?{})",
            params.len()
        );
    }
    sql.push_str(
        "\nFROM results x JOIN runs r ON r.id = x.run_id
         WHERE x.metric = ?1 AND r.tool = ?2",
    );
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

/// The form's choices, narrowed to `tool` when one is given.
pub fn choices(conn: &Connection, tool: Option<&str>) -> rusqlite::Result<Choices> {
    let mut choices = Choices::default();
    let mut stmt =
        conn.prepare_cached("SELECT tool, count(*) FROM runs GROUP BY tool ORDER BY tool")?;
    choices.tools = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let Some(tool) = tool else {
        return Ok(choices);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT test FROM runs WHERE tool = ?1 AND test IS NOT NULL ORDER BY test",
    )?;
    choices.tests = stmt
        .query_map([tool], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    // One pass over the tool's results gives both lists, and one over its
    // attributes gives keys and values. DISTINCT without ORDER BY keeps
    // only the distinct rows as it reads (with it, SQLite sorts every row
    // read); the few that remain are sorted here.
    let mut items = BTreeSet::new();
    let mut metrics = BTreeSet::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT DISTINCT x.metric, x.item FROM results x JOIN runs r ON r.id = x.run_id
             WHERE r.tool = ?1",
        )?;
        let mut rows = stmt.query([tool])?;
        while let Some(row) = rows.next()? {
            metrics.insert(row.get::<_, String>(0)?);
            items.insert(row.get::<_, String>(1)?);
        }
    }
    choices.items = items.into_iter().collect();
    choices.metrics = metrics.into_iter().collect();
    let attrs = tool_attrs(conn, tool)?;
    choices.attr_keys = attr_keys_of(&attrs);
    choices.has_threads = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM runs WHERE tool = ?1 AND threads IS NOT NULL)",
        )?
        .query_row([tool], |row| row.get(0))?;
    choices.attr_values = attrs;
    choices.attr_values.truncate(ATTR_VALUE_LIMIT);
    Ok(choices)
}

/// The attribute keys stored for `tool`'s runs, sorted.
pub fn tool_attr_keys(conn: &Connection, tool: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT a.key FROM run_attrs a JOIN runs r ON r.id = a.run_id WHERE r.tool = ?1",
    )?;
    let keys = stmt.query_map([tool], |row| row.get(0))?;
    let mut keys = keys.collect::<rusqlite::Result<Vec<String>>>()?;
    keys.sort();
    Ok(keys)
}

/// Every distinct `(key, value)` stored for `tool`'s runs, sorted.
fn tool_attrs(conn: &Connection, tool: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT a.key, a.value FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE r.tool = ?1",
    )?;
    let pairs = stmt.query_map([tool], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let mut pairs = pairs.collect::<rusqlite::Result<Vec<(String, String)>>>()?;
    pairs.sort();
    Ok(pairs)
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

    /// Two tools' runs, each with a `q_per_s` of two items, a test, and
    /// some attributes.
    fn database() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::migrate(&mut conn).unwrap();
        conn.execute_batch(
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
        .unwrap();
        conn
    }

    fn filter(test: Option<&str>, item: Option<&str>) -> MetricFilter {
        MetricFilter {
            tool: "super-smack".to_owned(),
            metric: "q_per_s".to_owned(),
            test: test.map(str::to_owned),
            item: item.map(str::to_owned),
            attr_keys: vec!["timer".to_owned(), "scheduler".to_owned()],
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
        for test in [None, Some("select-key")] {
            let filter = filter(test, Some("select_index"));
            let (sql, params) = metric_rows_query(&filter);
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = stmt
                .query_map(params.as_slice(), |row| row.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let plan = plan.join("\n");
            assert!(
                plan.contains("results_metric_item (metric=? AND item=?)"),
                "{test:?}: {plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "{test:?}: no sort: {plan}");
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
}
