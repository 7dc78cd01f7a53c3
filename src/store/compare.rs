//! The rows behind a comparison: one metric of one tool across runs, with
//! each run's attributes. Grouping into series happens in `crate::compare`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::rc::Rc;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row, Rows, ToSql};

use crate::moments::Moments;

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
/// Its texts are shared: thousands of rows hold a few distinct ones (the
/// same test, author, attribute values, item and unit again and again).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub run_id: i64,
    /// What the run has in common with its copies: the runs of one point
    /// with the same key are one run stored from several texts, counted
    /// once (migrations/0012_run_copies.sql). A run that repeats no other
    /// has its own id.
    pub copy_key: i64,
    pub submission_id: i64,
    pub test: Option<Rc<str>>,
    pub label: Option<Rc<str>>,
    pub threads: Option<u32>,
    pub author: Option<Rc<str>>,
    pub first_line: usize,
    pub item: Rc<str>,
    pub value: f64,
    pub unit: Rc<str>,
    /// The run's value of each of the filter's `attr_keys`, in their
    /// order; `None` where the run has no such attribute.
    pub attrs: Vec<Option<Rc<str>>>,
    /// Every attribute of the run, sorted by key (pinned: as they stood
    /// then). Runs with the same attributes share one, so a comparison
    /// tells configurations apart by pointer, without comparing them.
    pub config: Configuration,
    /// Where the row stands for the results of one configuration, read
    /// from their sums (`store::sums`): their statistics. `value` is then
    /// their mean, and the row has no run of its own.
    pub cell: Option<Rc<CellSummary>>,
}

impl MetricRow {
    /// How many stored results the row stands for (copies included).
    pub fn weight(&self) -> usize {
        self.cell.as_ref().map_or(1, |cell| cell.rows)
    }
}

/// The results of one configuration at one point of a comparison, as
/// their sums hold them.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSummary {
    /// Of the counted results (a run found again counts once).
    pub moments: Moments,
    /// Every result, copies included.
    pub rows: usize,
    /// The ids of its first counted results, ascending.
    pub first_results: Vec<i64>,
    /// Set for a result of a copy not in the sums (`store::sums`): it
    /// counts in a point that holds no earlier run of its key.
    pub copy: Option<SplitCopy>,
}

/// A result of a run found again in a configuration, test or thread
/// count that none of the earlier runs of its copy key is in.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitCopy {
    /// The copy key its copies share.
    pub key: i64,
    pub run_id: i64,
    /// Where the earlier runs of its key are (those in the sums).
    pub earlier: Vec<Place>,
}

/// A combination of the sums: a configuration, a test, a thread count.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub config: Configuration,
    pub test: Option<Rc<str>>,
    pub threads: Option<u32>,
}

/// One attribute of a run: key and value.
pub type Attr = (Rc<str>, Rc<str>);

/// A run's attributes sorted by key.
pub type Configuration = Rc<[Attr]>;

/// Each distinct configuration once, shared by every run that has it.
#[derive(Default)]
pub struct Configurations {
    seen: HashSet<Configuration>,
}

impl Configurations {
    /// The shared copy of `attrs` (sorted by key).
    pub fn get(&mut self, attrs: Vec<Attr>) -> Configuration {
        if let Some(shared) = self.seen.get(attrs.as_slice()) {
            return Rc::clone(shared);
        }
        let shared: Configuration = Rc::from(attrs);
        self.seen.insert(Rc::clone(&shared));
        shared
    }
}

/// The texts of one column, each distinct one kept once and shared by
/// every row holding it. Rows read in index order often repeat the text
/// of the row before, which is then taken without a look in the set.
#[derive(Default)]
struct Texts {
    seen: HashSet<Rc<str>>,
    last: Option<Rc<str>>,
}

impl Texts {
    /// The shared copy of `text`, which becomes the last one.
    fn get(&mut self, text: &str) -> Rc<str> {
        let shared = match self.seen.get(text) {
            Some(shared) => Rc::clone(shared),
            None => {
                let shared: Rc<str> = Rc::from(text);
                self.seen.insert(Rc::clone(&shared));
                shared
            }
        };
        self.last = Some(Rc::clone(&shared));
        shared
    }

    /// Column `index` of `row`, a text or NULL.
    fn column(&mut self, row: &Row, index: usize) -> rusqlite::Result<Option<Rc<str>>> {
        let value = row.get_ref(index)?;
        // The same bytes as the row before's: valid UTF-8 already, and
        // not checked again (4% of the instructions of the scale
        // comparison's page went to checking every text of its rows).
        if let (ValueRef::Text(bytes), Some(last)) = (value, &self.last) {
            if last.as_bytes() == bytes {
                return Ok(Some(Rc::clone(last)));
            }
        }
        Ok(value.as_str_or_null()?.map(|text| self.get(text)))
    }

    /// Column `index` of `row`, a text that is never NULL.
    fn text(&mut self, row: &Row, index: usize) -> rusqlite::Result<Rc<str>> {
        match self.column(row, index)? {
            Some(text) => Ok(text),
            // Fails as reading NULL as a text does.
            None => row.get::<_, String>(index).map(Rc::from),
        }
    }
}

/// The fields of a run that a comparison shows and groups by.
struct RunFields {
    submission_id: i64,
    test: Option<Rc<str>>,
    label: Option<Rc<str>>,
    threads: Option<u32>,
    author: Option<Rc<str>>,
    first_line: usize,
    copy_key: Option<i64>,
    /// The post its configuration is tied to when it states no setup.
    post: i64,
}

/// Rows of one statement in run id order (its first column), read as far
/// as the run asked for: the statements of a comparison are walked side
/// by side, the way one merges sorted lists, so that joining them costs a
/// step per row rather than a search.
struct InRunOrder<'stmt, T, F> {
    rows: Rows<'stmt>,
    read: F,
    current: Option<(i64, T)>,
    finished: bool,
}

impl<'stmt, T, F: FnMut(&Row<'_>) -> rusqlite::Result<T>> InRunOrder<'stmt, T, F> {
    fn new(rows: Rows<'stmt>, read: F) -> Self {
        InRunOrder {
            rows,
            read,
            current: None,
            finished: false,
        }
    }

    /// The row of run `run_id`, if there is one. Each run asked for must
    /// come at or after the one asked for before.
    fn find(&mut self, run_id: i64) -> rusqlite::Result<Option<&T>> {
        loop {
            match &self.current {
                Some((id, _)) if *id >= run_id => break,
                None if self.finished => break,
                _ => {}
            }
            match self.rows.next()? {
                Some(row) => self.current = Some((row.get(0)?, (self.read)(row)?)),
                None => {
                    self.current = None;
                    self.finished = true;
                }
            }
        }
        Ok(self
            .current
            .as_ref()
            .filter(|(id, _)| *id == run_id)
            .map(|(_, found)| found))
    }
}

/// The results matching `filter`, ordered by run then result, however
/// much data there is: one query for the results, one for the tool's
/// runs, one per attribute key (and, pinned, one for the corrections since
/// the pin), each a range of an index that holds every column it reads
/// and gives them in run order (migrations/0011_compare_covering_indexes.sql),
/// joined here as they are read. Looking each run and attribute up in its
/// table from the result reads a page per row, and every page is read
/// again after each change.
pub fn metric_rows(conn: &Connection, filter: &MetricFilter) -> rusqlite::Result<Vec<MetricRow>> {
    let corrections = match filter.asof {
        Some(asof) => corrections_after(conn, asof)?,
        None => HashMap::new(),
    };
    let (sql, params) = runs_query(filter);
    let mut runs_stmt = conn.prepare_cached(&sql)?;
    let (mut tests, mut labels, mut authors) = <(Texts, Texts, Texts)>::default();
    let mut runs = InRunOrder::new(runs_stmt.query(params.as_slice())?, |row| {
        Ok(RunFields {
            submission_id: row.get(1)?,
            test: tests.column(row, 2)?,
            label: labels.column(row, 3)?,
            threads: row.get(4)?,
            author: authors.column(row, 5)?,
            first_line: row.get::<_, i64>(6)? as usize,
            copy_key: row.get(7)?,
            post: row.get(8)?,
        })
    });
    // The same statement once per key, each walked on its own (the cache
    // prepares another while one is in use).
    let mut attr_stmts = filter
        .attr_keys
        .iter()
        .map(|_| conn.prepare_cached(TOOL_ATTR_VALUES))
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut attrs = Vec::with_capacity(attr_stmts.len());
    for (stmt, key) in attr_stmts.iter_mut().zip(&filter.attr_keys) {
        let mut values = Texts::default();
        let rows = stmt.query([&filter.tool, key])?;
        attrs.push(InRunOrder::new(rows, move |row| values.column(row, 1)));
    }
    let mut every_attr = tool_attrs(conn, &filter.tool)?;
    let mut configurations = Configurations::default();
    let mut last_config: Option<(i64, Configuration)> = None;
    let (sql, params) = results_query(filter);
    let mut results_stmt = conn.prepare_cached(&sql)?;
    let mut results = results_stmt.query(params.as_slice())?;
    let (mut items, mut units) = (Texts::default(), Texts::default());
    // A chosen item is every row's (the statement asks for it): not read
    // from each row again.
    let chosen_item: Option<Rc<str>> = filter.item.as_deref().map(Rc::from);
    let mut rows = Vec::new();
    while let Some(result) = results.next()? {
        let run_id: i64 = result.get(0)?;
        // A run of another test, or stored after the pin.
        let Some(run) = runs.find(run_id)? else {
            continue;
        };
        // A run's results come one after the other: its configuration
        // is built once.
        let config = match &last_config {
            Some((id, config)) if *id == run_id => Rc::clone(config),
            _ => {
                let mut attrs = every_attr.remove(&run_id).unwrap_or_default();
                if let Some(corrections) = corrections.get(&run_id) {
                    undo_attr_corrections(&mut attrs, corrections);
                }
                super::tie_to_post(
                    &mut attrs,
                    |(key, _)| key,
                    run.post,
                    |key, value| (Rc::from(key), Rc::from(value)),
                );
                let config = configurations.get(attrs);
                last_config = Some((run_id, Rc::clone(&config)));
                config
            }
        };
        let mut row = MetricRow {
            config,
            run_id,
            copy_key: run.copy_key.unwrap_or(run_id),
            submission_id: run.submission_id,
            test: run.test.clone(),
            label: run.label.clone(),
            threads: run.threads,
            author: run.author.clone(),
            first_line: run.first_line,
            item: match &chosen_item {
                Some(item) => Rc::clone(item),
                None => items.text(result, 1)?,
            },
            value: result.get(2)?,
            unit: units.text(result, 3)?,
            attrs: Vec::with_capacity(attrs.len()),
            cell: None,
        };
        for values in &mut attrs {
            row.attrs.push(values.find(run_id)?.cloned().flatten());
        }
        if let Some(corrections) = corrections.get(&run_id) {
            undo_corrections(&mut row, corrections, &filter.attr_keys);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Every attribute of the tool's runs, in key order, from
/// `run_attrs_tool_key_run`.
const TOOL_ATTRS: &str =
    "SELECT run_id, key, value FROM run_attrs WHERE tool = ?1 ORDER BY key, run_id";

/// Each of `tool`'s runs' attributes, sorted by key (the order they are
/// read in): one statement however many keys there are.
fn tool_attrs(conn: &Connection, tool: &str) -> rusqlite::Result<HashMap<i64, Vec<Attr>>> {
    let mut stmt = conn.prepare_cached(TOOL_ATTRS)?;
    let mut rows = stmt.query([tool])?;
    let (mut keys, mut values) = (Texts::default(), Texts::default());
    let mut attrs: HashMap<i64, Vec<Attr>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let run_id: i64 = row.get(0)?;
        let pair = (keys.text(row, 1)?, values.text(row, 2)?);
        attrs.entry(run_id).or_default().push(pair);
    }
    Ok(attrs)
}

/// Puts a run's attributes back as they stood at the pin, keeping them
/// sorted by key.
fn undo_attr_corrections(attrs: &mut Vec<Attr>, corrections: &[Correction]) {
    for correction in corrections.iter().filter(|c| c.field != "label") {
        let at = attrs.binary_search_by(|(key, _)| (**key).cmp(correction.key.as_str()));
        match (at, &correction.old_value) {
            (Ok(index), Some(old)) => attrs[index].1 = Rc::clone(old),
            (Ok(index), None) => {
                attrs.remove(index);
            }
            (Err(index), Some(old)) => {
                attrs.insert(index, (Rc::from(correction.key.as_str()), Rc::clone(old)))
            }
            (Err(_), None) => {}
        }
    }
}

/// The SQL of the results [`metric_rows`] reads, and its parameters. An
/// absent item is left out of the text rather than written `(? IS NULL OR
/// item = ?)`, which SQLite cannot answer from an index: so a given item
/// is a range of `results_tool_metric_item_value` already in run order.
fn results_query(filter: &MetricFilter) -> (String, Vec<&dyn ToSql>) {
    let mut params: Vec<&dyn ToSql> = vec![&filter.tool, &filter.metric];
    let mut sql =
        "SELECT run_id, item, value, unit FROM results WHERE tool = ?1 AND metric = ?2".to_owned();
    if let Some(item) = &filter.item {
        params.push(item);
        let _ = write!(sql, " AND item = ?{}", params.len());
    }
    sql.push_str(" ORDER BY run_id, id");
    (sql, params)
}

/// The SQL of the runs [`metric_rows`] reads, and its parameters: the
/// tool's (of the filter's test, up to its pin) in id order, from
/// `runs_tool_id_fields`.
fn runs_query(filter: &MetricFilter) -> (String, Vec<&dyn ToSql>) {
    let mut params: Vec<&dyn ToSql> = vec![&filter.tool];
    let mut sql = format!(
        "SELECT r.id, r.submission_id, r.test, r.label, r.threads, r.author, r.first_line,
                r.copy_key, {}
         FROM runs r WHERE r.tool = ?1",
        super::RUN_POST_SQL
    );
    // The unary + keeps SQLite from reading the runs up to the pin from
    // runs_tool_submission instead, out of id order and without the fields.
    if let Some(asof) = &filter.asof {
        params.push(asof);
        let _ = write!(sql, " AND +r.submission_id <= ?{}", params.len());
    }
    if let Some(test) = &filter.test {
        params.push(test);
        let _ = write!(sql, " AND r.test = ?{}", params.len());
    }
    sql.push_str(" ORDER BY r.id");
    (sql, params)
}

/// The Date header of each of the submissions `ids` that has one (its
/// first mail's), in one statement however many.
pub fn submission_dates(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Vec<(i64, String)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(ids).expect("integers serialize");
    let mut stmt = conn.prepare_cached(
        "SELECT s.id, s.date FROM json_each(?1) AS wanted
         JOIN submissions s ON s.id = wanted.value
         WHERE s.date IS NOT NULL",
    )?;
    let rows = stmt.query_map([list], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect()
}

/// What the tool's runs have as attribute `?2`, in run id order, from
/// `run_attrs_tool_key_run`.
const TOOL_ATTR_VALUES: &str =
    "SELECT run_id, value FROM run_attrs WHERE tool = ?1 AND key = ?2 ORDER BY run_id";

/// The corrections made after submission `?1` was the newest, with their
/// order, from `run_edit_log_after`: those of every tool, which are few,
/// rather than a look among each run's. Sorted by the caller: asked to
/// sort, SQLite would rather read the whole log in its order.
const CORRECTIONS_AFTER: &str =
    "SELECT seq, run_id, field, key, old_value FROM run_edit_log WHERE after_submission > ?1";

/// A field's value before its first correction after a pin.
struct Correction {
    /// `label`, or `attr` with the attribute's `key` (0009).
    field: String,
    key: String,
    old_value: Option<Rc<str>>,
}

/// Each run's fields corrected after the pin `asof`, with the value each
/// had before its first correction then (the rule is in
/// migrations/0009_pinned_links.sql).
fn corrections_after(
    conn: &Connection,
    asof: i64,
) -> rusqlite::Result<HashMap<i64, Vec<Correction>>> {
    let mut stmt = conn.prepare_cached(CORRECTIONS_AFTER)?;
    let mut logged = stmt
        .query_map([asof], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                Correction {
                    field: row.get(2)?,
                    key: row.get(3)?,
                    old_value: row.get::<_, Option<String>>(4)?.map(Rc::from),
                },
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    logged.sort_by_key(|(seq, _, _)| *seq);
    let mut corrections: HashMap<i64, Vec<Correction>> = HashMap::new();
    for (_, run_id, correction) in logged {
        let fields = corrections.entry(run_id).or_default();
        let first = !fields
            .iter()
            .any(|c| c.field == correction.field && c.key == correction.key);
        if first {
            fields.push(correction);
        }
    }
    Ok(corrections)
}

/// Puts the row's label and attributes back as they stood at the pin:
/// the value before each field's first correction after it.
fn undo_corrections(row: &mut MetricRow, corrections: &[Correction], attr_keys: &[String]) {
    for correction in corrections {
        if correction.field == "label" {
            row.label = correction.old_value.clone();
        } else if let Some(index) = attr_keys.iter().position(|k| *k == correction.key) {
            row.attrs[index] = correction.old_value.clone();
        }
    }
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

use crate::limits::ATTR_VALUE_LIMIT;

/// Whether any run of the tool has a thread count: in runs_tool_threads,
/// the first entry after the tool's NULLs answers.
const TOOL_HAS_THREADS: &str =
    "SELECT EXISTS (SELECT 1 FROM runs WHERE tool = ?1 AND threads IS NOT NULL)";

/// The form's choices, narrowed to `tool` when one is given: five
/// queries. The run counts read one index entry per run; the rest seek
/// through indexes that start with the tool, one step per distinct value,
/// however many results and attributes the tool has.
pub fn choices(conn: &Connection, tool: Option<&str>) -> rusqlite::Result<Choices> {
    let mut choices = Choices {
        tools: match super::sums::tool_runs(conn)? {
            Some(counted) => counted,
            None => counted_tools(conn)?,
        },
        ..Choices::default()
    };
    if let Some(tool) = tool {
        tool_choices(conn, tool, &mut choices)?;
    }
    Ok(choices)
}

/// Every tool with its count of runs, counted from the index of runs:
/// where the sums do not hold every run yet.
fn counted_tools(conn: &Connection) -> rusqlite::Result<Vec<(String, i64)>> {
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
    let tools = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    tools.collect()
}

/// The rest of [`choices`] for one tool.
fn tool_choices(conn: &Connection, tool: &str, choices: &mut Choices) -> rusqlite::Result<()> {
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
    Ok(())
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
        let attrs: Vec<Vec<Option<&str>>> = rows
            .iter()
            .map(|r| r.attrs.iter().map(Option::as_deref).collect())
            .collect();
        assert_eq!(
            attrs,
            [
                [Some("TSC"), Some("ULE")],
                [Some("i8254"), None],
                [None, Some("4BSD")],
            ]
        );
        let first = &rows[0];
        assert_eq!(
            (
                first.label.as_deref(),
                first.threads,
                first.first_line,
                &*first.unit
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

    /// The steps of the plan of `sql` with `params`.
    fn plan_of(conn: &Connection, sql: &str, params: &[&dyn ToSql]) -> Vec<String> {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        stmt.query_map(params, |row| row.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// Every read of a comparison is one range of an index holding all
    /// the columns it reads: no row of a table is looked up, nothing is
    /// sorted when the item is given.
    #[test]
    fn a_comparison_reads_ranges_of_covering_indexes_only() {
        let conn = database();
        for (test, item, asof) in [
            (None, Some("select_index"), None),
            (Some("select-key"), Some("select_index"), None),
            (None, Some("select_index"), Some(1)),
            (None, None, None),
        ] {
            let filter = MetricFilter {
                asof,
                ..filter(test, item)
            };
            let (sql, params) = results_query(&filter);
            let plan = plan_of(&conn, &sql, &params).join("\n");
            let range = match item {
                Some(_) => "(tool=? AND metric=? AND item=?)",
                None => "(tool=? AND metric=?)",
            };
            assert!(
                plan.contains(&format!(
                    "SEARCH results USING COVERING INDEX results_tool_metric_item_value {range}"
                )),
                "{plan}"
            );
            assert_eq!(plan.contains("TEMP B-TREE"), item.is_none(), "{plan}");

            let (sql, params) = runs_query(&filter);
            let plan = plan_of(&conn, &sql, &params).join("\n");
            // The post of a quoted copy's original: look-ups by id, for
            // copies only.
            assert_eq!(
                plan,
                "SEARCH r USING COVERING INDEX runs_tool_id_fields (tool=?)\n\
                 CORRELATED SCALAR SUBQUERY 2\n\
                 SEARCH c USING INTEGER PRIMARY KEY (rowid=?)\n\
                 CORRELATED SCALAR SUBQUERY 1\n\
                 SEARCH o USING INTEGER PRIMARY KEY (rowid=?)",
                "{test:?} {asof:?}"
            );
        }
        let plan = plan_of(&conn, TOOL_ATTR_VALUES, &[&"super-smack", &"scheduler"]);
        assert_eq!(
            plan,
            ["SEARCH run_attrs USING COVERING INDEX run_attrs_tool_key_run (tool=? AND key=?)"]
        );
        let plan = plan_of(&conn, TOOL_ATTRS, &[&"super-smack"]);
        assert_eq!(
            plan,
            ["SEARCH run_attrs USING COVERING INDEX run_attrs_tool_key_run (tool=?)"]
        );
        let plan = plan_of(&conn, CORRECTIONS_AFTER, &[&1]);
        assert_eq!(
            plan,
            ["SEARCH run_edit_log USING INDEX run_edit_log_after (after_submission>?)"]
        );
    }

    /// Pinned, each label and attribute is the value before its first
    /// correction after the pin, whatever came after; runs of later
    /// submissions are left out.
    #[test]
    fn pinned_rows_undo_the_corrections_made_after_the_pin() {
        let mut conn = database();
        let tx = conn.transaction().unwrap();
        let attr = |key: &str| crate::store::RunField::Attr(key.to_owned());
        // Made while submission 1 was the newest: in a pin to 1.
        crate::store::set_run_field(&tx, 1, &crate::store::RunField::Label, Some("a1")).unwrap();
        tx.commit().unwrap();
        conn.execute_batch(
            "INSERT INTO submissions (id, text, sha256) VALUES (2, 'later', 'sha-2');
             INSERT INTO runs (id, submission_id, idx, tool, test, label, threads, quote_depth,
                               first_line, last_line)
             VALUES (5, 2, 0, 'super-smack', 'select-key', 'e', 8, 0, 1, 5);
             INSERT INTO results (run_id, tool, item, metric, value, unit, line)
             VALUES (5, 'super-smack', 'select_index', 'q_per_s', 50, 'q/s', 3);",
        )
        .unwrap();
        let tx = conn.transaction().unwrap();
        // After the pin: a label changed twice, an attribute changed,
        // one added, one removed.
        crate::store::set_run_field(&tx, 1, &crate::store::RunField::Label, Some("a2")).unwrap();
        crate::store::set_run_field(&tx, 1, &crate::store::RunField::Label, Some("a3")).unwrap();
        crate::store::set_run_field(&tx, 1, &attr("scheduler"), Some("4BSD")).unwrap();
        crate::store::set_run_field(&tx, 3, &attr("scheduler"), Some("ULE")).unwrap();
        crate::store::set_run_field(&tx, 4, &attr("scheduler"), None).unwrap();
        tx.commit().unwrap();

        let summary = |asof: Option<i64>| -> Vec<(i64, Option<String>, Vec<Option<String>>)> {
            let filter = MetricFilter {
                asof,
                ..filter(None, Some("select_index"))
            };
            metric_rows(&conn, &filter)
                .unwrap()
                .into_iter()
                .map(|row| {
                    let text = |value: Option<Rc<str>>| value.as_deref().map(str::to_owned);
                    let attrs = row.attrs.into_iter().map(text).collect();
                    (row.run_id, text(row.label), attrs)
                })
                .collect()
        };
        let some = |v: &str| Some(v.to_owned());
        assert_eq!(
            summary(Some(1)),
            [
                (1, some("a1"), vec![some("TSC"), some("ULE")]),
                (3, None, vec![some("i8254"), None]),
                (4, some("c"), vec![None, some("4BSD")]),
            ]
        );
        // The whole configuration is the pin's too, with the post it is
        // tied to (its runs name no machine).
        let config = |asof: Option<i64>, run: i64| -> Vec<(String, String)> {
            let filter = MetricFilter {
                asof,
                ..filter(None, Some("select_index"))
            };
            let rows = metric_rows(&conn, &filter).unwrap();
            let row = rows.iter().find(|row| row.run_id == run).unwrap();
            row.config
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        let post = pair("submission", "1");
        assert_eq!(
            config(Some(1), 1),
            [pair("scheduler", "ULE"), post.clone(), pair("timer", "TSC")]
        );
        assert_eq!(config(Some(1), 3), [post.clone(), pair("timer", "i8254")]);
        assert_eq!(
            config(Some(1), 4),
            [pair("scheduler", "4BSD"), post.clone()]
        );
        assert_eq!(
            config(None, 3),
            [
                pair("scheduler", "ULE"),
                post.clone(),
                pair("timer", "i8254")
            ]
        );
        assert_eq!(config(None, 4), [post]);
        assert_eq!(
            summary(None),
            [
                (1, some("a3"), vec![some("TSC"), some("4BSD")]),
                (3, None, vec![some("i8254"), some("ULE")]),
                (4, some("c"), vec![None, None]),
                (5, some("e"), vec![None, None]),
            ]
        );
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
                crate::store::NewSubmission {
                    text: "more".into(),
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
                        copy_key: None,
                        label_from: &[],
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
        // The keys are seeked in either index of the tool's attributes,
        // both (tool, key, ...); the values only in the one with them next.
        let attr_indexes: &[&str] = &[
            "run_attrs_tool_key_value (tool=?",
            "run_attrs_tool_key_run (tool=? AND key>?)",
            "run_attrs_tool_key_run (tool=?)",
        ];
        for (sql, indexes) in [
            (
                tool_pairs_query("results", "metric", "item"),
                &["results_tool_metric_item_value (tool=?"][..],
            ),
            (tool_pairs_query("run_attrs", "key", "value"), attr_indexes),
            (
                tool_values_query("runs", "test"),
                &["runs_tool_test (tool=?"],
            ),
            (tool_values_query("run_attrs", "key"), attr_indexes),
            (TOOL_HAS_THREADS.to_owned(), &["runs_tool_threads (tool=?"]),
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
                assert!(
                    indexes.iter().any(|index| read.contains(index)),
                    "{sql}\n{read}\n{plan:?}"
                );
            }
        }
    }
}
