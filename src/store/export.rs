//! Every result with its run's fields and attributes, for `benchlog export`.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{params, Connection};

/// Narrows an export; every field left `None` means "all".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportFilter {
    pub tool: Option<String>,
    pub test: Option<String>,
    pub item: Option<String>,
    pub metric: Option<String>,
}

/// One result and the run it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportRow {
    pub submission_id: i64,
    pub source_name: Option<String>,
    pub run_id: i64,
    /// For a copy (a run found again in a later text, quoted in a reply
    /// or pasted again), the id of the earliest stored run it repeats:
    /// its `copy_key` (migrations/0012_run_copies.sql). That run may have
    /// been deleted since. `None` for an original.
    pub copy_of: Option<i64>,
    pub tool: String,
    pub test: Option<String>,
    pub label: Option<String>,
    pub threads: Option<u32>,
    pub quote_depth: usize,
    pub author: Option<String>,
    pub command: Option<String>,
    pub first_line: usize,
    pub last_line: usize,
    pub item: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub line: usize,
    pub estimated: bool,
    pub attrs: BTreeMap<String, String>,
}

/// The results matching `filter` in storage order (submission, run, result).
pub fn export_rows(conn: &Connection, filter: &ExportFilter) -> rusqlite::Result<Vec<ExportRow>> {
    let mut attrs: HashMap<i64, BTreeMap<String, String>> = HashMap::new();
    let mut stmt = conn.prepare_cached(
        "SELECT a.run_id, a.key, a.value FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE (?1 IS NULL OR r.tool = ?1) AND (?2 IS NULL OR r.test = ?2)",
    )?;
    let mut rows = stmt.query(params![filter.tool, filter.test])?;
    while let Some(row) = rows.next()? {
        attrs
            .entry(row.get(0)?)
            .or_default()
            .insert(row.get(1)?, row.get(2)?);
    }

    let mut stmt = conn.prepare_cached(
        "SELECT s.id, s.source_name, r.id, r.tool, r.test, r.label, r.threads, r.quote_depth,
                r.author, r.command, r.first_line, r.last_line,
                x.item, x.metric, x.value, x.unit, x.line, x.estimated, r.copy_key
         FROM results x
         JOIN runs r ON r.id = x.run_id
         JOIN submissions s ON s.id = r.submission_id
         WHERE (?1 IS NULL OR r.tool = ?1) AND (?2 IS NULL OR r.test = ?2)
           AND (?3 IS NULL OR x.item = ?3) AND (?4 IS NULL OR x.metric = ?4)
         ORDER BY s.id, r.idx, x.id",
    )?;
    let rows = stmt.query_map(
        params![filter.tool, filter.test, filter.item, filter.metric],
        |row| {
            let run_id: i64 = row.get(2)?;
            Ok(ExportRow {
                submission_id: row.get(0)?,
                source_name: row.get(1)?,
                run_id,
                copy_of: row.get(18)?,
                tool: row.get(3)?,
                test: row.get(4)?,
                label: row.get(5)?,
                threads: row.get(6)?,
                quote_depth: row.get::<_, i64>(7)? as usize,
                author: row.get(8)?,
                command: row.get(9)?,
                first_line: row.get::<_, i64>(10)? as usize,
                last_line: row.get::<_, i64>(11)? as usize,
                item: row.get(12)?,
                metric: row.get(13)?,
                value: row.get(14)?,
                unit: row.get(15)?,
                line: row.get::<_, i64>(16)? as usize,
                estimated: row.get(17)?,
                attrs: attrs.get(&run_id).cloned().unwrap_or_default(),
            })
        },
    )?;
    rows.collect()
}
