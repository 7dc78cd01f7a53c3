//! One run by its id, and the runs most like it: what `/runs/{id}` reads.
//!
//! The runs like a run are found from the sums of migration 0013, not by
//! reading runs: `point_sums` holds one row per configuration (the run
//! attributes, provenance aside), test, thread count and item, with the
//! ids of its first counted results. The rows of the run's tool, headline
//! metric, item and test are one range of that table's key; the newest
//! [`LIKE_POINTS_READ`] of them are read and ranked in memory, and the
//! runs of the best are read by their result ids. So the page costs the
//! same few statements, each reading a bounded number of rows, however
//! many runs are stored.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use rusqlite::{params, Connection, OptionalExtension};

use super::rows::{fill_run_details, run_from_row_at, RUN_COLUMNS};
use super::StoredRun;
use crate::limits::LIKE_POINTS_READ;

/// A stored run with the submission it was found in.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOf {
    pub submission_id: i64,
    pub run: StoredRun,
}

/// The run `id` with its attributes, results and label sources: four
/// queries.
pub fn run_by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<RunOf>> {
    let found = conn
        .prepare_cached(&format!(
            "SELECT r.submission_id, {RUN_COLUMNS} FROM runs r WHERE r.id = ?1"
        ))?
        .query_row([id], |row| {
            Ok(RunOf {
                submission_id: row.get(0)?,
                run: run_from_row_at(row, 1)?,
            })
        })
        .optional()?;
    let Some(mut found) = found else {
        return Ok(None);
    };
    fill_run_details(conn, &mut [&mut found.run])?;
    Ok(Some(found))
}

/// One configuration's results at one thread count, of the tool, metric,
/// item and test asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct LikePoint {
    pub config_id: i64,
    /// The configuration's attributes (provenance and the post it is tied
    /// to aside), shared by its points.
    pub attrs: Rc<BTreeMap<String, String>>,
    pub threads: Option<u32>,
    /// Its runs, a run found again counted once.
    pub runs: usize,
    /// The ids of its first counted results (`store::FIRST_RESULTS`).
    pub result_ids: Vec<i64>,
}

/// What the sums hold near a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LikePoints {
    /// False when the sums do not hold every run yet (a writer outside
    /// `store::Writer`): nothing is listed then.
    pub current: bool,
    /// The run's own configuration, when the sums hold it.
    pub config_id: Option<i64>,
    /// The newest [`LIKE_POINTS_READ`] points, newest configuration first.
    pub points: Vec<LikePoint>,
    /// Whether there were more than were read.
    pub cut: bool,
}

/// The points of `tool`, `metric`, `item` and `test`, newest configuration
/// first, at most [`LIKE_POINTS_READ`]: three queries (whether the sums
/// are current, the run's configuration, the points with their
/// configurations), each a range of an index.
pub fn like_points(
    conn: &Connection,
    run_id: i64,
    tool: &str,
    metric: &str,
    item: &str,
    test: Option<&str>,
) -> rusqlite::Result<LikePoints> {
    if !super::sums::is_current(conn)? {
        return Ok(LikePoints::default());
    }
    let config_id: Option<i64> = conn
        .prepare_cached("SELECT config_id FROM run_configs WHERE run_id = ?1")?
        .query_row([run_id], |row| row.get(0))
        .optional()?;
    let limit = i64::try_from(LIKE_POINTS_READ).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(
        "SELECT p.config_id, c.attrs, p.threads, p.n, p.first_results
         FROM point_sums p JOIN configs c ON c.id = p.config_id
         WHERE p.tool = ?1 AND p.metric = ?2 AND p.item = ?3 AND p.test = ?4
         ORDER BY p.config_id DESC LIMIT ?5",
    )?;
    let mut rows = stmt.query(params![tool, metric, item, test.unwrap_or(""), limit + 1])?;
    let mut points = Vec::new();
    // A configuration's points are next to each other: its attributes
    // are read once.
    let mut configs: HashMap<i64, Rc<BTreeMap<String, String>>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let config_id: i64 = row.get(0)?;
        let attrs = match configs.get(&config_id) {
            Some(attrs) => Rc::clone(attrs),
            None => {
                let text: String = row.get(1)?;
                let pairs: Vec<(String, String)> = serde_json::from_str(&text).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        1,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })?;
                // The post a configuration is tied to is where it came
                // from, not how it was run.
                let attrs = Rc::new(
                    pairs
                        .into_iter()
                        .filter(|(key, _)| key != parsers::contract::POST_KEY)
                        .collect(),
                );
                configs.insert(config_id, Rc::clone(&attrs));
                attrs
            }
        };
        let threads: i64 = row.get(2)?;
        points.push(LikePoint {
            config_id,
            attrs,
            threads: u32::try_from(threads).ok(),
            runs: row.get::<_, i64>(3)?.max(0) as usize,
            result_ids: super::sums::parse_ids(&row.get::<_, String>(4)?),
        });
    }
    let cut = points.len() > LIKE_POINTS_READ;
    points.truncate(LIKE_POINTS_READ);
    Ok(LikePoints {
        current: true,
        config_id,
        points,
        cut,
    })
}

/// The runs holding these results, with their attributes, results and
/// label sources, in no particular order: four queries for up to
/// `IDS_PER_QUERY` results.
pub fn runs_of_results(conn: &Connection, result_ids: &[i64]) -> rusqlite::Result<Vec<RunOf>> {
    if result_ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(result_ids).unwrap_or_else(|_| "[]".to_owned());
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.submission_id, {RUN_COLUMNS} FROM runs r
         WHERE r.id IN (SELECT run_id FROM results
                        WHERE id IN (SELECT value FROM json_each(?1)))"
    ))?;
    let mut found: Vec<RunOf> = stmt
        .query_map([ids], |row| {
            Ok(RunOf {
                submission_id: row.get(0)?,
                run: run_from_row_at(row, 1)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut runs: Vec<&mut StoredRun> = found.iter_mut().map(|f| &mut f.run).collect();
    fill_run_details(conn, &mut runs)?;
    Ok(found)
}
