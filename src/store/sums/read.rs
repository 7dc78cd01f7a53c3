//! Reading the sums for a comparison: its cells, each split copy's
//! result a cell of its own, and the runs a point links.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::rc::Rc;

use rusqlite::{params, Connection};

use super::{moments_of, parse_ids};
use crate::moments::Moments;
use crate::store::compare::{Attr, Configuration, Configurations, MetricFilter, Place, SplitCopy};

/// One cell of a comparison: the statistics of one configuration's
/// results at one item, test and thread count.
#[derive(Debug, Clone)]
pub struct Cell {
    pub item: Rc<str>,
    pub unit: Rc<str>,
    pub test: Option<Rc<str>>,
    pub threads: Option<u32>,
    /// The configuration's attributes, sorted by key (provenance aside).
    pub config: Configuration,
    /// Of the counted results (a run found again counts once).
    pub moments: Moments,
    /// Every result, copies included.
    pub rows: usize,
    /// The smallest result id: cells in this order meet the items in the
    /// order the tool printed them.
    pub first_result: i64,
    /// The ids of the first [`super::FIRST_RESULTS`] counted results.
    pub first_results: Vec<i64>,
    /// A result of a split copy, a cell of its own (see `Counting` in the module above).
    pub copy: Option<SplitCopy>,
}

/// The cells of a comparison's metric, in the order of their first
/// result, each split copy's result a cell of its own; `None` when the
/// sums cannot stand for its results: they do not hold every run yet (a
/// writer outside `store::Writer`), or the comparison is pinned.
pub fn point_cells(
    conn: &Connection,
    filter: &MetricFilter,
) -> rusqlite::Result<Option<Vec<Cell>>> {
    if filter.asof.is_some() {
        return Ok(None);
    }
    if !super::is_current(conn)? {
        return Ok(None);
    }
    // Each cell's configuration with it (a look-up by id): there are as
    // many configurations as posts that name no machine, so one
    // statement each would grow with them.
    let mut sql = "SELECT p.item, p.unit, p.test, p.threads, p.config_id, p.n, p.rows, p.mean,
                          p.m2, p.min, p.max, p.first_result, p.first_results, c.attrs
                   FROM point_sums p JOIN configs c ON c.id = p.config_id
                   WHERE p.tool = ?1 AND p.metric = ?2"
        .to_owned();
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&filter.tool, &filter.metric];
    if let Some(item) = &filter.item {
        params.push(item);
        sql.push_str(&format!(" AND p.item = ?{}", params.len()));
    }
    if let Some(test) = &filter.test {
        params.push(test);
        sql.push_str(&format!(" AND p.test = ?{}", params.len()));
    }
    let mut configs = ToolConfigs::default();
    let mut texts: HashMap<String, Rc<str>> = HashMap::new();
    let mut shared = |text: String| -> Rc<str> {
        texts
            .entry(text)
            .or_insert_with_key(|text| Rc::from(text.as_str()))
            .clone()
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params.as_slice())?;
    let mut cells = Vec::new();
    while let Some(row) = rows.next()? {
        let moments = moments_of(row, 5)?;
        if !moments.is_finite() {
            return Ok(None);
        }
        cells.push(Cell {
            item: shared(row.get(0)?),
            unit: shared(row.get(1)?),
            test: Some(row.get::<_, String>(2)?)
                .filter(|test| !test.is_empty())
                .map(&mut shared),
            threads: u32::try_from(row.get::<_, i64>(3)?).ok(),
            config: configs.get_or_read(row.get(4)?, || row.get(13))?,
            moments,
            rows: row.get::<_, i64>(6)? as usize,
            first_result: row.get(11)?,
            first_results: parse_ids(&row.get::<_, String>(12)?),
            copy: None,
        });
    }
    drop(rows);
    cells.extend(split_copies(conn, filter, &mut configs, &mut shared)?);
    cells.sort_by_key(|cell| cell.first_result);
    Ok(Some(cells))
}

/// The results of the tool's split copies that the comparison reads, each
/// a cell with where the earlier runs of its key are.
fn split_copies(
    conn: &Connection,
    filter: &MetricFilter,
    configs: &mut ToolConfigs,
    shared: &mut impl FnMut(String) -> Rc<str>,
) -> rusqlite::Result<Vec<Cell>> {
    let mut sql = "SELECT rc.run_id, r.copy_key, x.id, x.item, x.unit, x.value, r.test, r.threads,
                          rc.config_id
                   FROM run_configs rc JOIN runs r ON r.id = rc.run_id
                   JOIN results x ON x.run_id = rc.run_id
                   WHERE rc.tool = ?1 AND rc.split = 1 AND x.metric = ?2"
        .to_owned();
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&filter.tool, &filter.metric];
    if let Some(item) = &filter.item {
        params.push(item);
        sql.push_str(&format!(" AND x.item = ?{}", params.len()));
    }
    if let Some(test) = &filter.test {
        params.push(test);
        sql.push_str(&format!(" AND r.test = ?{}", params.len()));
    }
    sql.push_str(" ORDER BY x.id");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params.as_slice())?;
    let mut earlier_of: HashMap<i64, Vec<Place>> = HashMap::new();
    let mut cells = Vec::new();
    while let Some(row) = rows.next()? {
        let run_id: i64 = row.get(0)?;
        let key: i64 = row.get(1)?;
        if let Entry::Vacant(entry) = earlier_of.entry(run_id) {
            entry.insert(earlier_places(conn, configs, shared, key, run_id)?);
        }
        let value: f64 = row.get(5)?;
        let result_id: i64 = row.get(2)?;
        cells.push(Cell {
            item: shared(row.get(3)?),
            unit: shared(row.get(4)?),
            test: row.get::<_, Option<String>>(6)?.map(&mut *shared),
            threads: row.get(7)?,
            config: configs.get(conn, row.get(8)?)?,
            moments: Moments::of([value]),
            rows: 1,
            first_result: result_id,
            first_results: vec![result_id],
            copy: Some(SplitCopy {
                key,
                run_id,
                earlier: earlier_of[&run_id].clone(),
            }),
        });
    }
    Ok(cells)
}

/// Where the runs of copy key `key` stored before run `run_id` are, of
/// those in the sums.
fn earlier_places(
    conn: &Connection,
    configs: &mut ToolConfigs,
    shared: &mut impl FnMut(String) -> Rc<str>,
    key: i64,
    run_id: i64,
) -> rusqlite::Result<Vec<Place>> {
    let mut stmt = conn.prepare_cached(
        "SELECT rc.config_id, e.test, e.threads FROM runs e JOIN run_configs rc ON rc.run_id = e.id
         WHERE (e.id = ?1 OR e.copy_key = ?1) AND e.id < ?2 AND rc.split = 0",
    )?;
    let found: Vec<(i64, Option<String>, Option<u32>)> = stmt
        .query_map(params![key, run_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    found
        .into_iter()
        .map(|(config, test, threads)| {
            Ok(Place {
                config: configs.get(conn, config)?,
                test: test.map(&mut *shared),
                threads,
            })
        })
        .collect()
}

/// Each configuration read once, shared by its cells.
#[derive(Default)]
struct ToolConfigs {
    by_id: HashMap<i64, Configuration>,
    shared: Configurations,
}

impl ToolConfigs {
    fn get(&mut self, conn: &Connection, id: i64) -> rusqlite::Result<Configuration> {
        self.get_or_read(id, || {
            conn.prepare_cached("SELECT attrs FROM configs WHERE id = ?1")?
                .query_row([id], |row| row.get(0))
        })
    }

    /// Configuration `id`, its `attrs` text read by `text` the first time.
    fn get_or_read(
        &mut self,
        id: i64,
        text: impl FnOnce() -> rusqlite::Result<String>,
    ) -> rusqlite::Result<Configuration> {
        if let Some(config) = self.by_id.get(&id) {
            return Ok(Rc::clone(config));
        }
        let text = text()?;
        let pairs: Vec<(String, String)> = serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })?;
        let attrs: Vec<Attr> = pairs
            .into_iter()
            .map(|(key, value)| (Rc::from(key.as_str()), Rc::from(value.as_str())))
            .collect();
        let config = self.shared.get(attrs);
        self.by_id.insert(id, Rc::clone(&config));
        Ok(config)
    }
}

/// A result a table cell links, with its run.
#[derive(Debug, Clone)]
pub struct LinkedResult {
    pub result_id: i64,
    pub run_id: i64,
    pub submission_id: i64,
    pub first_line: usize,
    pub value: f64,
    pub label: Option<String>,
    pub author: Option<String>,
    pub test: Option<String>,
}

/// The results with these ids and their runs' fields, in no order; ids
/// no longer stored are left out. One statement however many: a page
/// links a few per point.
pub fn linked_results(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Vec<LinkedResult>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(ids).expect("integers serialize");
    let mut stmt = conn.prepare_cached(
        "SELECT x.id, x.run_id, r.submission_id, r.first_line, x.value, r.label, r.author, r.test
         FROM json_each(?1) AS wanted
         JOIN results x ON x.id = wanted.value
         JOIN runs r ON r.id = x.run_id",
    )?;
    let rows = stmt.query_map([list], |row| {
        Ok(LinkedResult {
            result_id: row.get(0)?,
            run_id: row.get(1)?,
            submission_id: row.get(2)?,
            first_line: row.get::<_, i64>(3)? as usize,
            value: row.get(4)?,
            label: row.get(5)?,
            author: row.get(6)?,
            test: row.get(7)?,
        })
    })?;
    rows.collect()
}
