//! The rows behind a comparison: one metric of one tool across runs, with
//! each run's attributes. Grouping into series happens in `crate::compare`.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{params, Connection};

/// Which results a comparison reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricFilter {
    pub tool: String,
    pub metric: String,
    pub test: Option<String>,
    pub item: Option<String>,
}

/// One result of the chosen metric, with what is needed to group it.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub run_id: i64,
    pub submission_id: i64,
    pub source_name: Option<String>,
    pub test: Option<String>,
    pub label: Option<String>,
    pub threads: Option<u32>,
    pub author: Option<String>,
    pub first_line: usize,
    pub item: String,
    pub value: f64,
    pub unit: String,
    pub attrs: BTreeMap<String, String>,
}

/// The results matching `filter`, ordered by run then result: two queries,
/// however much data there is.
pub fn metric_rows(conn: &Connection, filter: &MetricFilter) -> rusqlite::Result<Vec<MetricRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, r.submission_id, s.source_name, r.test, r.label, r.threads, r.author,
                r.first_line, x.item, x.value, x.unit
         FROM results x
         JOIN runs r ON r.id = x.run_id
         JOIN submissions s ON s.id = r.submission_id
         WHERE r.tool = ?1 AND x.metric = ?2
           AND (?3 IS NULL OR r.test = ?3)
           AND (?4 IS NULL OR x.item = ?4)
         ORDER BY r.id, x.id",
    )?;
    let params = params![filter.tool, filter.metric, filter.test, filter.item];
    let mut rows: Vec<MetricRow> = stmt
        .query_map(params, |row| {
            Ok(MetricRow {
                run_id: row.get(0)?,
                submission_id: row.get(1)?,
                source_name: row.get(2)?,
                test: row.get(3)?,
                label: row.get(4)?,
                threads: row.get(5)?,
                author: row.get(6)?,
                first_line: row.get::<_, i64>(7)? as usize,
                item: row.get(8)?,
                value: row.get(9)?,
                unit: row.get(10)?,
                attrs: BTreeMap::new(),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;

    let mut attrs: HashMap<i64, BTreeMap<String, String>> = HashMap::new();
    let mut stmt = conn.prepare_cached(
        "SELECT a.run_id, a.key, a.value FROM run_attrs a
         WHERE a.run_id IN (SELECT r.id FROM runs r JOIN results x ON x.run_id = r.id
                            WHERE r.tool = ?1 AND x.metric = ?2
                              AND (?3 IS NULL OR r.test = ?3)
                              AND (?4 IS NULL OR x.item = ?4))",
    )?;
    let mut found = stmt.query(params)?;
    while let Some(row) = found.next()? {
        attrs
            .entry(row.get(0)?)
            .or_default()
            .insert(row.get(1)?, row.get(2)?);
    }
    for row in &mut rows {
        if let Some(run_attrs) = attrs.get(&row.run_id) {
            row.attrs.clone_from(run_attrs);
        }
    }
    Ok(rows)
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
pub const ATTR_VALUE_LIMIT: i64 = 500;

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
    let strings = |sql: &str| -> rusqlite::Result<Vec<String>> {
        let mut stmt = conn.prepare_cached(sql)?;
        let rows = stmt.query_map([tool], |row| row.get(0))?;
        rows.collect()
    };
    choices.tests = strings(
        "SELECT DISTINCT test FROM runs WHERE tool = ?1 AND test IS NOT NULL ORDER BY test",
    )?;
    choices.items = strings(
        "SELECT DISTINCT x.item FROM results x JOIN runs r ON r.id = x.run_id
         WHERE r.tool = ?1 ORDER BY x.item",
    )?;
    choices.metrics = strings(
        "SELECT DISTINCT x.metric FROM results x JOIN runs r ON r.id = x.run_id
         WHERE r.tool = ?1 ORDER BY x.metric",
    )?;
    choices.attr_keys = strings(
        "SELECT DISTINCT a.key FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE r.tool = ?1 ORDER BY a.key",
    )?;
    choices.has_threads = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM runs WHERE tool = ?1 AND threads IS NOT NULL)",
        )?
        .query_row([tool], |row| row.get(0))?;
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT a.key, a.value FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE r.tool = ?1 ORDER BY a.key, a.value LIMIT ?2",
    )?;
    choices.attr_values = stmt
        .query_map(rusqlite::params![tool, ATTR_VALUE_LIMIT], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(choices)
}

/// The attribute keys stored for `tool`'s runs, sorted.
pub fn tool_attr_keys(conn: &Connection, tool: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT a.key FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE r.tool = ?1 ORDER BY a.key",
    )?;
    let keys = stmt.query_map([tool], |row| row.get(0))?;
    keys.collect()
}
