//! The statistics of every comparison point per configuration
//! (migrations/0013_point_sums.sql), kept up to date in the writing
//! transaction: writers add their new runs before they commit
//! ([`add_new_runs`]), an edit or a deletion rebuilds the few points its
//! runs were and are in ([`refresh_runs`], [`delete_submission`]), and a
//! comparison reads a row per configuration ([`point_cells`]) instead of a
//! row per result.
//!
//! A *combination* is a configuration (a run's attributes, provenance
//! aside), a test and a thread count: a run's results are all in the
//! cells of its combination, one per metric, item and unit.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::moments::Moments;
use parsers::contract::PROVENANCE;

mod read;
mod write;

use write::store_cell;

pub use read::{linked_results, point_cells, Cell, LinkedResult};

/// The counted results of a cell whose ids it keeps: the runs a table
/// cell links (`limits::RUN_LINKS`).
pub const FIRST_RESULTS: usize = crate::limits::RUN_LINKS;

/// Runs added to the sums per step: what one step holds in memory is
/// bounded however many runs a migration or a large import brings.
const RUNS_PER_STEP: i64 = 20_000;

/// A configuration, a test and a thread count.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Combination {
    config_id: i64,
    test: Option<String>,
    threads: Option<i64>,
}

/// One cell: a metric, item and unit of a combination.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CellKey {
    combination: Combination,
    metric: String,
    item: String,
    unit: String,
}

/// What a step adds to one cell.
#[derive(Debug)]
struct Addition {
    tool: String,
    moments: Moments,
    rows: i64,
    first_result: i64,
    first_results: Vec<i64>,
}

impl Addition {
    fn new(tool: &str) -> Self {
        Addition {
            tool: tool.to_owned(),
            moments: Moments::default(),
            rows: 0,
            first_result: i64::MAX,
            first_results: Vec::new(),
        }
    }

    /// A result of a run that counts, or of a repeat of one; results come
    /// in id order.
    fn add(&mut self, result_id: i64, value: f64, counting: Counting) {
        self.rows += 1;
        self.first_result = self.first_result.min(result_id);
        if counting == Counting::Counted {
            self.moments.push(value);
            if self.first_results.len() < FIRST_RESULTS {
                self.first_results.push(result_id);
            }
        }
    }
}

/// The cells a step adds to, in the order first met.
#[derive(Default)]
struct Additions {
    cells: HashMap<CellKey, Addition>,
}

impl Additions {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        tool: &str,
        combination: &Combination,
        metric: &str,
        item: &str,
        unit: &str,
        result_id: i64,
        value: f64,
        counting: Counting,
    ) {
        // A split copy is a cell of its own at each comparison.
        if counting == Counting::Split {
            return;
        }
        let key = CellKey {
            combination: combination.clone(),
            metric: metric.to_owned(),
            item: item.to_owned(),
            unit: unit.to_owned(),
        };
        self.cells
            .entry(key)
            .or_insert_with(|| Addition::new(tool))
            .add(result_id, value, counting);
    }

    /// Merges every cell into its stored row, or stores it, in the order
    /// of `point_sums`' key, so that each row lands beside the last. A
    /// cell of a configuration stored in this step (`fresh`) has no row
    /// yet: it is stored without a look-up first (and merged after one
    /// should the row be there all the same).
    fn write(self, tx: &Connection, fresh: &HashSet<i64>) -> rusqlite::Result<()> {
        let mut find = tx.prepare_cached(
            "SELECT n, rows, mean, m2, min, max, first_result, first_results FROM point_sums
             WHERE tool = ?1 AND metric = ?2 AND item = ?3 AND config_id = ?4
               AND test = ?5 AND threads = ?6 AND unit = ?7",
        )?;
        let mut update = tx.prepare_cached(
            "UPDATE point_sums SET n = ?8, rows = ?9, mean = ?10, m2 = ?11, min = ?12, max = ?13,
                    first_result = ?14, first_results = ?15
             WHERE tool = ?1 AND metric = ?2 AND item = ?3 AND config_id = ?4
               AND test = ?5 AND threads = ?6 AND unit = ?7",
        )?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO point_sums (tool, metric, item, config_id, test, threads, unit,
                                     n, rows, mean, m2, min, max, first_result, first_results)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
             ON CONFLICT DO NOTHING",
        )?;
        let mut cells: Vec<(CellKey, Addition)> = self.cells.into_iter().collect();
        cells.sort_unstable_by(|(a, x), (b, y)| a.stored_key(&x.tool).cmp(&b.stored_key(&y.tool)));
        for (key, addition) in cells {
            let c = &key.combination;
            let (test, threads) = (test_key(&c.test), threads_key(c.threads));
            let place = params![
                addition.tool,
                key.metric,
                key.item,
                c.config_id,
                test,
                threads,
                key.unit
            ];
            if fresh.contains(&c.config_id) && store_cell(&mut insert, place, &addition.stored())? {
                continue;
            }
            let stored = find
                .query_row(place, |row| {
                    Ok(Stored {
                        moments: moments_of(row, 0)?,
                        rows: row.get(1)?,
                        first_result: row.get(6)?,
                        first_results: parse_ids(&row.get::<_, String>(7)?),
                    })
                })
                .optional()?;
            match stored {
                Some(mut cell) => {
                    cell.moments.merge(&addition.moments);
                    cell.rows += addition.rows;
                    cell.first_result = cell.first_result.min(addition.first_result);
                    cell.first_results.extend(addition.first_results);
                    cell.first_results.sort_unstable();
                    cell.first_results.truncate(FIRST_RESULTS);
                    store_cell(&mut update, place, &cell)?;
                }
                None => {
                    store_cell(&mut insert, place, &addition.stored())?;
                }
            }
        }
        Ok(())
    }
}

/// A cell as stored.
struct Stored {
    moments: Moments,
    rows: i64,
    first_result: i64,
    first_results: Vec<i64>,
}

/// A test as the sums' key keeps it: '' for none (a key holds no NULL).
fn test_key(test: &Option<String>) -> &str {
    test.as_deref().unwrap_or("")
}

/// A thread count as the sums' key keeps it: -1 for none.
fn threads_key(threads: Option<i64>) -> i64 {
    threads.unwrap_or(-1)
}

/// The columns of moments as stored: a cell of copies only (n = 0) keeps
/// zeros rather than infinities.
fn stored_moments(m: &Moments) -> (f64, f64, f64, f64) {
    if m.n == 0 {
        (0.0, 0.0, 0.0, 0.0)
    } else {
        (m.mean, m.m2, m.min, m.max)
    }
}

/// The moments in columns `first..first + 6` (n, rows, mean, m2, min,
/// max; rows skipped).
fn moments_of(row: &rusqlite::Row, first: usize) -> rusqlite::Result<Moments> {
    let n = row.get::<_, i64>(first)? as usize;
    if n == 0 {
        return Ok(Moments::default());
    }
    Ok(Moments {
        n,
        mean: row.get(first + 2)?,
        m2: row.get(first + 3)?,
        min: row.get(first + 4)?,
        max: row.get(first + 5)?,
    })
}

fn join_ids(ids: &[i64]) -> String {
    let texts: Vec<String> = ids.iter().map(i64::to_string).collect();
    texts.join(",")
}

pub(super) fn parse_ids(text: &str) -> Vec<i64> {
    text.split(',').filter_map(|id| id.parse().ok()).collect()
}

/// The id of each configuration met, looked up or stored once per step.
#[derive(Default)]
struct ConfigIds {
    known: HashMap<(String, String), i64>,
    /// Those stored since [`ConfigIds::take_fresh`] last took them: no
    /// cell of the sums has them yet.
    fresh: HashSet<i64>,
}

impl ConfigIds {
    fn id(&mut self, tx: &Connection, tool: &str, attrs: String) -> rusqlite::Result<i64> {
        let key = (tool.to_owned(), attrs);
        if let Some(&id) = self.known.get(&key) {
            return Ok(id);
        }
        let stored = tx
            .prepare_cached(
                "INSERT INTO configs (tool, attrs) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            )?
            .execute(params![key.0, key.1])?;
        let id = if stored == 1 {
            let id = tx.last_insert_rowid();
            self.fresh.insert(id);
            id
        } else {
            tx.prepare_cached("SELECT id FROM configs WHERE tool = ?1 AND attrs = ?2")?
                .query_row(params![key.0, key.1], |row| row.get(0))?
        };
        self.known.insert(key, id);
        Ok(id)
    }

    /// The configurations stored since the last call.
    fn take_fresh(&mut self) -> HashSet<i64> {
        std::mem::take(&mut self.fresh)
    }
}

/// A run's attributes, provenance aside, as `configs.attrs` keeps them:
/// pairs sorted by key, with the post's where they do not state the
/// setup ([`super::tie_to_post`]).
fn attrs_text(attrs: &[(String, String)], post: i64) -> String {
    let mut kept: Vec<(&str, Cow<str>)> = attrs
        .iter()
        .filter(|(key, _)| !PROVENANCE.contains(&key.as_str()))
        .map(|(key, value)| (key.as_str(), Cow::Borrowed(value.as_str())))
        .collect();
    super::tie_to_post(
        &mut kept,
        |(key, _)| key,
        post,
        |key, value| (key, Cow::Owned(value)),
    );
    serde_json::to_string(&kept).expect("pairs of strings serialise")
}

/// A run as the sums see it.
struct RunPlace {
    id: i64,
    tool: String,
    test: Option<String>,
    threads: Option<i64>,
    copy_key: Option<i64>,
    /// The post its configuration is tied to when it states no setup
    /// ([`super::RUN_POST_SQL`]).
    post: i64,
}

/// How a run's results count in a point (`run_configs`, 0013).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counting {
    /// In the sums of its combination.
    Counted,
    /// A copy of an earlier run of the same combination: in the same
    /// points, counted once there (in the sums' `rows` only).
    Repeat,
    /// A copy whose earlier runs of its key are all in other
    /// combinations: a point holding one of them counts it once, one
    /// holding none counts it, so it is not in the sums but read on its
    /// own ([`point_cells`]).
    Split,
}

impl Counting {
    fn of(counted: bool, split: bool) -> Self {
        match (counted, split) {
            (_, true) => Counting::Split,
            (true, false) => Counting::Counted,
            (false, false) => Counting::Repeat,
        }
    }
}

/// How a run counts, given its configuration.
fn copy_flags(tx: &Connection, run: &RunPlace, config_id: i64) -> rusqlite::Result<Counting> {
    let Some(key) = run.copy_key else {
        return Ok(Counting::Counted);
    };
    let mut stmt = tx.prepare_cached(
        "SELECT rc.config_id, e.test, e.threads FROM runs e JOIN run_configs rc ON rc.run_id = e.id
         WHERE (e.id = ?1 OR e.copy_key = ?1) AND e.id < ?2",
    )?;
    let mut rows = stmt.query(params![key, run.id])?;
    let mut earlier = false;
    while let Some(row) = rows.next()? {
        earlier = true;
        let (config, test, threads): (i64, Option<String>, Option<i64>) =
            (row.get(0)?, row.get(1)?, row.get(2)?);
        if config == config_id && test == run.test && threads == run.threads {
            return Ok(Counting::Repeat);
        }
    }
    Ok(if earlier {
        Counting::Split
    } else {
        Counting::Counted
    })
}

/// Places runs in `run_configs` (again, for runs already there) and
/// returns each one's combination and how it counts, in id order.
fn place_runs(
    tx: &Connection,
    configs: &mut ConfigIds,
    runs: &[RunPlace],
    attrs: &mut HashMap<i64, Vec<(String, String)>>,
) -> rusqlite::Result<Vec<(Combination, Counting)>> {
    let mut placed = Vec::with_capacity(runs.len());
    for run in runs {
        let run_attrs = attrs.remove(&run.id).unwrap_or_default();
        let config_id = configs.id(tx, &run.tool, attrs_text(&run_attrs, run.post))?;
        let counting = copy_flags(tx, run, config_id)?;
        let (counted, split) = (counting == Counting::Counted, counting == Counting::Split);
        tx.prepare_cached(
            "INSERT INTO run_configs (run_id, tool, config_id, counted, split)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (run_id) DO UPDATE SET config_id = excluded.config_id,
                 counted = excluded.counted, split = excluded.split",
        )?
        .execute(params![run.id, run.tool, config_id, counted, split])?;
        placed.push((
            Combination {
                config_id,
                test: run.test.clone(),
                threads: run.threads,
            },
            counting,
        ));
    }
    Ok(placed)
}

/// Adds every run stored since the last call to the sums: what each
/// writer does once, before it commits. Runs are read in steps of
/// [`RUNS_PER_STEP`].
pub(in crate::store) fn add_new_runs(tx: &Connection) -> rusqlite::Result<()> {
    let mut through: i64 =
        tx.query_row("SELECT through FROM sums_through WHERE id = 1", [], |row| {
            row.get(0)
        })?;
    let newest: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM runs", [], |row| {
        row.get(0)
    })?;
    let mut configs = ConfigIds::default();
    while through < newest {
        let upto = newest.min(through.saturating_add(RUNS_PER_STEP));
        add_runs_between(tx, &mut configs, through, upto)?;
        through = upto;
    }
    tx.prepare_cached("UPDATE sums_through SET through = max(through, ?1) WHERE id = 1")?
        .execute([newest])?;
    Ok(())
}

/// Adds the runs with ids in `(after, upto]`.
fn add_runs_between(
    tx: &Connection,
    configs: &mut ConfigIds,
    after: i64,
    upto: i64,
) -> rusqlite::Result<()> {
    let runs: Vec<RunPlace> = tx
        .prepare_cached(&format!(
            "SELECT r.id, r.tool, r.test, r.threads, r.copy_key, {} FROM runs r
             WHERE r.id > ?1 AND r.id <= ?2 ORDER BY r.id",
            super::RUN_POST_SQL
        ))?
        .query_map(params![after, upto], |row| {
            Ok(RunPlace {
                id: row.get(0)?,
                tool: row.get(1)?,
                test: row.get(2)?,
                threads: row.get(3)?,
                copy_key: row.get(4)?,
                post: row.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if runs.is_empty() {
        return Ok(());
    }
    let mut attrs = attrs_between(tx, after, upto)?;
    let placed = place_runs(tx, configs, &runs, &mut attrs)?;
    let fresh = configs.take_fresh();
    let mut per_tool: HashMap<&str, i64> = HashMap::new();
    for run in &runs {
        *per_tool.entry(&run.tool).or_default() += 1;
    }
    add_tool_runs(tx, per_tool)?;
    let places: HashMap<i64, (usize, Counting)> = runs
        .iter()
        .zip(&placed)
        .enumerate()
        .map(|(index, (run, (_, counting)))| (run.id, (index, *counting)))
        .collect();
    let mut additions = Additions::default();
    let mut stmt = tx.prepare_cached(
        "SELECT id, run_id, metric, item, unit, value FROM results
         WHERE run_id > ?1 AND run_id <= ?2 ORDER BY run_id, id",
    )?;
    let mut rows = stmt.query(params![after, upto])?;
    while let Some(row) = rows.next()? {
        let run_id: i64 = row.get(1)?;
        let Some(&(index, counting)) = places.get(&run_id) else {
            continue;
        };
        additions.add(
            &runs[index].tool,
            &placed[index].0,
            row.get_ref(2)?.as_str()?,
            row.get_ref(3)?.as_str()?,
            row.get_ref(4)?.as_str()?,
            row.get(0)?,
            row.get(5)?,
            counting,
        );
    }
    additions.write(tx, &fresh)
}

/// Adds to each tool's count of runs (a negative number takes away; a
/// tool left with none is no longer listed).
fn add_tool_runs<'a>(
    tx: &Connection,
    per_tool: impl IntoIterator<Item = (&'a str, i64)>,
) -> rusqlite::Result<()> {
    let mut add = tx.prepare_cached(
        "INSERT INTO tool_runs (tool, runs) VALUES (?1, ?2)
         ON CONFLICT (tool) DO UPDATE SET runs = runs + excluded.runs",
    )?;
    for (tool, runs) in per_tool {
        add.execute(params![tool, runs])?;
    }
    tx.prepare_cached("DELETE FROM tool_runs WHERE runs <= 0")?
        .execute([])?;
    Ok(())
}

/// Each tool and its count of runs, when the sums hold every run; `None`
/// before (a writer outside `store::Writer`).
pub fn tool_runs(conn: &Connection) -> rusqlite::Result<Option<Vec<(String, i64)>>> {
    if !is_current(conn)? {
        return Ok(None);
    }
    let mut stmt = conn.prepare_cached("SELECT tool, runs FROM tool_runs ORDER BY tool")?;
    let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect::<rusqlite::Result<_>>().map(Some)
}

/// Whether the sums hold every stored run.
pub(super) fn is_current(conn: &Connection) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT (SELECT through FROM sums_through WHERE id = 1)
                >= (SELECT coalesce(max(id), 0) FROM runs)",
    )?
    .query_row([], |row| row.get(0))
}

/// The attributes of the runs with ids in `(after, upto]`, each run's
/// sorted by key.
fn attrs_between(
    tx: &Connection,
    after: i64,
    upto: i64,
) -> rusqlite::Result<HashMap<i64, Vec<(String, String)>>> {
    let mut stmt = tx.prepare_cached(
        "SELECT run_id, key, value FROM run_attrs WHERE run_id > ?1 AND run_id <= ?2
         ORDER BY run_id, key",
    )?;
    let mut rows = stmt.query(params![after, upto])?;
    let mut attrs: HashMap<i64, Vec<(String, String)>> = HashMap::new();
    while let Some(row) = rows.next()? {
        attrs
            .entry(row.get(0)?)
            .or_default()
            .push((row.get(1)?, row.get(2)?));
    }
    Ok(attrs)
}

/// The runs sharing a copy key with any of `run_ids` (they included),
/// in id order.
fn with_their_copies(tx: &Connection, run_ids: &[i64]) -> rusqlite::Result<Vec<i64>> {
    let mut all: HashSet<i64> = run_ids.iter().copied().collect();
    let mut key_of = tx.prepare_cached("SELECT coalesce(copy_key, id) FROM runs WHERE id = ?1")?;
    let mut copies = tx.prepare_cached("SELECT id FROM runs WHERE id = ?1 OR copy_key = ?1")?;
    for &run_id in run_ids {
        let Some(key) = key_of
            .query_row([run_id], |row| row.get::<_, i64>(0))
            .optional()?
        else {
            continue;
        };
        for id in copies.query_map([key], |row| row.get::<_, i64>(0))? {
            all.insert(id?);
        }
    }
    let mut all: Vec<i64> = all.into_iter().collect();
    all.sort_unstable();
    Ok(all)
}

/// The combinations the runs are in now, as `run_configs` places them.
fn combinations_of(tx: &Connection, run_ids: &[i64]) -> rusqlite::Result<HashSet<Combination>> {
    let mut stmt = tx.prepare_cached(
        "SELECT rc.config_id, r.test, r.threads FROM run_configs rc JOIN runs r ON r.id = rc.run_id
         WHERE rc.run_id = ?1",
    )?;
    let mut found = HashSet::new();
    for &run_id in run_ids {
        if let Some(combination) = stmt
            .query_row([run_id], |row| {
                Ok(Combination {
                    config_id: row.get(0)?,
                    test: row.get(1)?,
                    threads: row.get(2)?,
                })
            })
            .optional()?
        {
            found.insert(combination);
        }
    }
    Ok(found)
}

/// Stores the cells of `combinations` again from their runs' results.
fn rebuild(tx: &Connection, combinations: HashSet<Combination>) -> rusqlite::Result<()> {
    let mut additions = Additions::default();
    for c in combinations {
        tx.prepare_cached(
            "DELETE FROM point_sums WHERE config_id = ?1 AND test = ?2 AND threads = ?3",
        )?
        .execute(params![
            c.config_id,
            test_key(&c.test),
            threads_key(c.threads)
        ])?;
        let mut stmt = tx.prepare_cached(
            "SELECT x.id, r.tool, x.metric, x.item, x.unit, x.value, rc.counted, rc.split
             FROM run_configs rc JOIN runs r ON r.id = rc.run_id JOIN results x ON x.run_id = r.id
             WHERE rc.config_id = ?1 AND r.test IS ?2 AND r.threads IS ?3 ORDER BY x.id",
        )?;
        let mut rows = stmt.query(params![c.config_id, c.test, c.threads])?;
        while let Some(row) = rows.next()? {
            additions.add(
                row.get_ref(1)?.as_str()?,
                &c,
                row.get_ref(2)?.as_str()?,
                row.get_ref(3)?.as_str()?,
                row.get_ref(4)?.as_str()?,
                row.get(0)?,
                row.get(5)?,
                Counting::of(row.get(6)?, row.get(7)?),
            );
        }
    }
    additions.write(tx, &HashSet::new())
}

/// Places the runs again after a change of their attributes (an edit, its
/// undo) and rebuilds every cell they were or are in, with those of their
/// copies (whose counting may change with them). Runs not yet in the sums
/// are left to [`add_new_runs`].
pub fn refresh_runs(tx: &Transaction, run_ids: &[i64]) -> rusqlite::Result<()> {
    let through: i64 =
        tx.query_row("SELECT through FROM sums_through WHERE id = 1", [], |row| {
            row.get(0)
        })?;
    let placed: Vec<i64> = run_ids
        .iter()
        .copied()
        .filter(|&id| id <= through)
        .collect();
    if placed.is_empty() {
        return Ok(());
    }
    let related = with_their_copies(tx, &placed)?;
    let mut combinations = combinations_of(tx, &related)?;
    let left: BTreeSet<i64> = combinations.iter().map(|c| c.config_id).collect();
    place_again(tx, &related)?;
    combinations.extend(combinations_of(tx, &related)?);
    rebuild(tx, combinations)?;
    drop_unused_configs(tx, &left)
}

/// Deletes those of `config_ids` that no run is in any more (after runs
/// moved out of them, or were deleted): a configuration is its whole set
/// of attributes, up to [`crate::limits::MAX_ATTRS_PER_RUN`] values of
/// [`crate::limits::MAX_VALUE_CHARS`], so the ones every edit leaves
/// behind would otherwise pile up. Their cells went with their last run
/// ([`rebuild`]); one indexed look-up each (`run_configs_config`).
fn drop_unused_configs(tx: &Connection, config_ids: &BTreeSet<i64>) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "DELETE FROM configs WHERE id = ?1
           AND NOT EXISTS (SELECT 1 FROM run_configs WHERE config_id = ?1)",
    )?;
    for id in config_ids {
        stmt.execute([id])?;
    }
    Ok(())
}

/// Reads the runs' attributes and places them again, in id order.
fn place_again(tx: &Connection, run_ids: &[i64]) -> rusqlite::Result<()> {
    let mut runs = Vec::with_capacity(run_ids.len());
    let mut attrs = HashMap::new();
    let mut run_stmt = tx.prepare_cached(&format!(
        "SELECT r.tool, r.test, r.threads, r.copy_key, {} FROM runs r WHERE r.id = ?1",
        super::RUN_POST_SQL
    ))?;
    let mut attr_stmt =
        tx.prepare_cached("SELECT key, value FROM run_attrs WHERE run_id = ?1 ORDER BY key")?;
    for &id in run_ids {
        let Some(run) = run_stmt
            .query_row([id], |row| {
                Ok(RunPlace {
                    id,
                    tool: row.get(0)?,
                    test: row.get(1)?,
                    threads: row.get(2)?,
                    copy_key: row.get(3)?,
                    post: row.get(4)?,
                })
            })
            .optional()?
        else {
            continue;
        };
        let pairs = attr_stmt
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
        attrs.insert(id, pairs);
        runs.push(run);
    }
    place_runs(tx, &mut ConfigIds::default(), &runs, &mut attrs)?;
    Ok(())
}

/// Deletes a submission (its runs, results and the rest go with it) and
/// rebuilds the cells its runs were in, with those of their copies in
/// other submissions, in one transaction. It is begun IMMEDIATE: the
/// write lock is taken before anything is read, so a deletion waits for
/// another writer (tests/review.rs) rather than failing as a transaction
/// that read first would. Returns false when there was none.
pub fn delete_submission(conn: &mut Connection, submission_id: i64) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let deleted = delete_in(&tx, submission_id)?;
    if deleted {
        tx.commit()?;
    }
    Ok(deleted)
}

fn delete_in(tx: &Transaction, submission_id: i64) -> rusqlite::Result<bool> {
    let runs: Vec<i64> = tx
        .prepare_cached("SELECT id FROM runs WHERE submission_id = ?1 ORDER BY id")?
        .query_map([submission_id], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let related = with_their_copies(tx, &runs)?;
    let combinations = combinations_of(tx, &related)?;
    let left: BTreeSet<i64> = combinations.iter().map(|c| c.config_id).collect();
    let per_tool: Vec<(String, i64)> = tx
        .prepare_cached(
            "SELECT r.tool, -count(*) FROM runs r JOIN run_configs rc ON rc.run_id = r.id
             WHERE r.submission_id = ?1 GROUP BY r.tool",
        )?
        .query_map([submission_id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let deleted = tx
        .prepare_cached("DELETE FROM submissions WHERE id = ?1")?
        .execute([submission_id])?;
    if deleted == 0 {
        return Ok(false);
    }
    let survivors: Vec<i64> = related
        .into_iter()
        .filter(|id| runs.binary_search(id).is_err())
        .collect();
    place_again(tx, &survivors)?;
    // A quoted copy of a deleted run may move to a configuration of its
    // own post (store::RUN_POST_SQL): its new cells are built too.
    let mut combinations = combinations;
    combinations.extend(combinations_of(tx, &survivors)?);
    rebuild(tx, combinations)?;
    drop_unused_configs(tx, &left)?;
    add_tool_runs(
        tx,
        per_tool.iter().map(|(tool, runs)| (tool.as_str(), *runs)),
    )?;
    Ok(true)
}
