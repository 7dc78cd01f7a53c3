//! People's corrections of a run's label and attributes.
//!
//! The value in force is written where every reader already looks
//! (`runs.label`, `run_attrs`), so comparisons group by it with no change to
//! their queries. The first time a field is edited, what the parser had
//! found is kept in `run_edits`; an edit back to that value, or an undo,
//! removes the row again. A field is "edited" exactly while it has a row.

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

/// Which field of a run an edit touches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunField {
    Label,
    Attr(String),
}

impl RunField {
    /// Its name on the forms: `label`, or the attribute's key.
    pub fn name(&self) -> &str {
        match self {
            RunField::Label => "label",
            RunField::Attr(key) => key,
        }
    }

    /// The `(field, key)` columns of `run_edits`.
    fn columns(&self) -> (&'static str, &str) {
        match self {
            RunField::Label => ("label", ""),
            RunField::Attr(key) => ("attr", key),
        }
    }
}

/// An edited field of a run and what the parser had found there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEdit {
    pub run_id: i64,
    pub field: RunField,
    /// None when the parser found nothing there (the edit added it).
    pub parsed_value: Option<String>,
    pub edited_at: String,
}

/// Every edit of the runs of a submission: one query.
pub fn edits_of_submission(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Vec<RunEdit>> {
    edits_in_lines(conn, submission_id, &super::LineWindow::ALL)
}

/// The edits of the runs [`super::runs_in_lines`] reads for the window.
pub fn edits_in_lines(
    conn: &Connection,
    submission_id: i64,
    window: &super::LineWindow,
) -> rusqlite::Result<Vec<RunEdit>> {
    let [first, last, limit] = window.sql();
    let mut stmt = conn.prepare_cached(
        "SELECT e.run_id, e.field, e.key, e.parsed_value, e.edited_at
         FROM run_edits e JOIN runs r ON r.id = e.run_id
         WHERE e.run_id IN (SELECT id FROM runs WHERE submission_id = ?1
                AND last_line >= ?2 AND first_line <= ?3 ORDER BY idx LIMIT ?4)
         ORDER BY r.idx, e.field DESC, e.key",
    )?;
    let rows = stmt.query_map(params![submission_id, first, last, limit], |row| {
        let field: String = row.get(1)?;
        let key: String = row.get(2)?;
        Ok(RunEdit {
            run_id: row.get(0)?,
            field: if field == "label" {
                RunField::Label
            } else {
                RunField::Attr(key)
            },
            parsed_value: row.get(3)?,
            edited_at: row.get(4)?,
        })
    })?;
    rows.collect()
}

/// The value in force of a field (`runs.label` or `run_attrs`).
fn current_value(
    tx: &Transaction,
    run_id: i64,
    field: &RunField,
) -> rusqlite::Result<Option<String>> {
    match field {
        RunField::Label => tx
            .prepare_cached("SELECT label FROM runs WHERE id = ?1")?
            .query_row([run_id], |row| row.get(0))
            .optional()
            .map(Option::flatten),
        RunField::Attr(key) => tx
            .prepare_cached("SELECT value FROM run_attrs WHERE run_id = ?1 AND key = ?2")?
            .query_row(params![run_id, key], |row| row.get(0))
            .optional(),
    }
}

/// Writes the value in force of a field, and logs the change with the
/// newest submission id, so that a comparison pinned to an earlier
/// submission keeps the value it had (migrations/0009_pinned_links.sql).
///
/// A pin reads only the `old_value` of a field's first logged change
/// stamped above it, and stamps only grow: of the changes stamped with
/// one submission id, no pin reads any but the first. So a change stamped
/// like the field's newest log entry replaces that entry's new value
/// instead of adding one, and the log keeps at most one entry per field
/// and submission id, however often the field flips in between.
fn write_value(
    tx: &Transaction,
    run_id: i64,
    field: &RunField,
    old: Option<&str>,
    value: Option<&str>,
) -> rusqlite::Result<()> {
    let (column, key) = field.columns();
    let newest = super::newest_submission_id(tx)?;
    let latest: Option<(i64, i64)> = tx
        .prepare_cached(
            "SELECT seq, after_submission FROM run_edit_log
             WHERE run_id = ?1 AND field = ?2 AND key = ?3 ORDER BY seq DESC LIMIT 1",
        )?
        .query_row(params![run_id, column, key], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    match latest {
        Some((seq, stamp)) if stamp == newest => {
            tx.prepare_cached(
                "UPDATE run_edit_log SET new_value = ?2,
                        edited_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                 WHERE seq = ?1",
            )?
            .execute(params![seq, value])?;
        }
        _ => {
            tx.prepare_cached(
                "INSERT INTO run_edit_log
                     (run_id, field, key, old_value, new_value, after_submission)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![run_id, column, key, old, value, newest])?;
        }
    }
    match (field, value) {
        (RunField::Label, value) => {
            tx.prepare_cached("UPDATE runs SET label = ?2 WHERE id = ?1")?
                .execute(params![run_id, value])?;
        }
        (RunField::Attr(key), Some(value)) => {
            tx.prepare_cached(
                "INSERT INTO run_attrs (run_id, tool, key, value)
                 VALUES (?1, (SELECT tool FROM runs WHERE id = ?1), ?2, ?3)
                 ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![run_id, key, value])?;
        }
        (RunField::Attr(key), None) => {
            tx.prepare_cached("DELETE FROM run_attrs WHERE run_id = ?1 AND key = ?2")?
                .execute(params![run_id, key])?;
        }
    }
    Ok(())
}

/// Sets a field of a run (None removes an attribute or clears the label),
/// keeping the parser's original. Returns whether anything changed.
pub fn set_run_field(
    tx: &Transaction,
    run_id: i64,
    field: &RunField,
    value: Option<&str>,
) -> rusqlite::Result<bool> {
    let fields = [(field.clone(), value.map(str::to_owned))];
    Ok(set_run_fields(tx, &[run_id], &fields)? > 0)
}

/// Sets every one of `fields` on every one of `run_ids` ([`set_run_field`]
/// for each) and moves each run whose attributes changed to its new
/// configuration once, at the end: a run gets one new configuration per
/// edit, not one per attribute (each of which held the whole growing set
/// of attributes), and a configuration shared by the runs is rebuilt
/// once, not once per run. Returns how many fields changed.
pub fn set_run_fields(
    tx: &Transaction,
    run_ids: &[i64],
    fields: &[(RunField, Option<String>)],
) -> rusqlite::Result<usize> {
    let mut changed = 0;
    let mut moved = Vec::new();
    for &run_id in run_ids {
        let mut attrs_changed = false;
        for (field, value) in fields {
            let this = write_field(tx, run_id, field, value.as_deref())?;
            changed += usize::from(this);
            attrs_changed |= this && matches!(field, RunField::Attr(_));
        }
        if attrs_changed {
            moved.push(run_id);
        }
    }
    // An attribute moves a run to another configuration: its points' sums
    // follow (a label is in none).
    super::sums::refresh_runs(tx, &moved)?;
    Ok(changed)
}

/// Sets a field without placing the run in its new configuration, which
/// [`set_run_fields`] does once for all the fields it sets.
fn write_field(
    tx: &Transaction,
    run_id: i64,
    field: &RunField,
    value: Option<&str>,
) -> rusqlite::Result<bool> {
    let current = current_value(tx, run_id, field)?;
    if current.as_deref() == value {
        return Ok(false);
    }
    let (column, key) = field.columns();
    // Only the first edit records the original: later ones keep it.
    tx.prepare_cached(
        "INSERT INTO run_edits (run_id, field, key, parsed_value) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (run_id, field, key) DO UPDATE
         SET edited_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
    )?
    .execute(params![run_id, column, key, current])?;
    write_value(tx, run_id, field, current.as_deref(), value)?;
    // Edited back to what the parser found: no longer an edit.
    tx.prepare_cached(
        "DELETE FROM run_edits WHERE run_id = ?1 AND field = ?2 AND key = ?3
           AND parsed_value IS ?4",
    )?
    .execute(params![run_id, column, key, value])?;
    Ok(true)
}

/// Whether a field of a run is edited (has what the parser found kept).
pub fn has_run_edit(conn: &Connection, run_id: i64, field: &RunField) -> rusqlite::Result<bool> {
    let (column, key) = field.columns();
    conn.prepare_cached("SELECT 1 FROM run_edits WHERE run_id = ?1 AND field = ?2 AND key = ?3")?
        .exists(params![run_id, column, key])
}

/// Puts back what the parser found in an edited field. Returns false when
/// the field was not edited.
pub fn undo_run_edit(tx: &Transaction, run_id: i64, field: &RunField) -> rusqlite::Result<bool> {
    let (column, key) = field.columns();
    let parsed: Option<Option<String>> = tx
        .prepare_cached(
            "SELECT parsed_value FROM run_edits WHERE run_id = ?1 AND field = ?2 AND key = ?3",
        )?
        .query_row(params![run_id, column, key], |row| row.get(0))
        .optional()?;
    let Some(parsed) = parsed else {
        return Ok(false);
    };
    let current = current_value(tx, run_id, field)?;
    write_value(tx, run_id, field, current.as_deref(), parsed.as_deref())?;
    tx.prepare_cached("DELETE FROM run_edits WHERE run_id = ?1 AND field = ?2 AND key = ?3")?
        .execute(params![run_id, column, key])?;
    if matches!(field, RunField::Attr(_)) {
        super::sums::refresh_runs(tx, &[run_id])?;
    }
    Ok(true)
}

/// The attribute keys corrections of `tool`'s runs ever set or removed:
/// a pinned comparison may group by a key that later corrections took off
/// every run. Reads the correction log, which only people's edits grow.
pub fn corrected_attr_keys(conn: &Connection, tool: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT l.key FROM run_edit_log l JOIN runs r ON r.id = l.run_id
         WHERE l.field = 'attr' AND r.tool = ?1 ORDER BY l.key",
    )?;
    let keys = stmt.query_map([tool], |row| row.get(0))?;
    keys.collect()
}

/// A correction of a submission's runs (an edit or an undo), the one way
/// people's corrections are written: begun IMMEDIATE, so that it holds
/// the write lock from the start (a transaction that read first could
/// not wait for another writer's: SQLite answers "database is locked" at
/// once, since the snapshot it read may be gone); then what the caller
/// checks is read through it; then one write, which commits. Dropped
/// before that write (a check refused it), it rolls back, having written
/// nothing.
pub struct Correction<'c> {
    tx: Transaction<'c>,
}

impl<'c> Correction<'c> {
    /// Takes the write lock.
    pub fn begin(conn: &'c mut Connection) -> rusqlite::Result<Self> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        Ok(Correction { tx })
    }

    /// [`run_places`], under the lock.
    pub fn run_places(&self, submission_id: i64) -> rusqlite::Result<Option<Vec<RunPlace>>> {
        run_places(&self.tx, submission_id)
    }

    /// [`attr_counts_after`], under the lock.
    pub fn attr_counts_after(
        &self,
        submission_id: i64,
        changes: &[(String, Option<String>)],
    ) -> rusqlite::Result<AttrCounts> {
        attr_counts_after(&self.tx, submission_id, changes)
    }

    /// [`has_run_edit`], under the lock.
    pub fn has_run_edit(&self, run_id: i64, field: &RunField) -> rusqlite::Result<bool> {
        has_run_edit(&self.tx, run_id, field)
    }

    /// [`set_run_fields`], then commits. Returns how many fields changed.
    pub fn set_run_fields(
        self,
        run_ids: &[i64],
        fields: &[(RunField, Option<String>)],
    ) -> rusqlite::Result<usize> {
        let changed = set_run_fields(&self.tx, run_ids, fields)?;
        self.tx.commit()?;
        Ok(changed)
    }

    /// [`undo_run_edit`], then commits. Returns false when the field was
    /// not edited.
    pub fn undo_run_edit(self, run_id: i64, field: &RunField) -> rusqlite::Result<bool> {
        let undone = undo_run_edit(&self.tx, run_id, field)?;
        self.tx.commit()?;
        Ok(undone)
    }
}

/// Where a run sits in its submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPlace {
    pub id: i64,
    /// 0-based position in the text.
    pub idx: usize,
    pub message_idx: Option<usize>,
}

/// Every run of a submission, in text order; None when there is no such
/// submission.
pub fn run_places(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Option<Vec<RunPlace>>> {
    let exists: Option<i64> = conn
        .query_row(
            "SELECT id FROM submissions WHERE id = ?1",
            [submission_id],
            |row| row.get(0),
        )
        .optional()?;
    if exists.is_none() {
        return Ok(None);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT id, idx, message_idx FROM runs WHERE submission_id = ?1 ORDER BY idx",
    )?;
    let rows = stmt.query_map([submission_id], |row| {
        Ok(RunPlace {
            id: row.get(0)?,
            idx: row.get::<_, i64>(1)? as usize,
            message_idx: row.get::<_, Option<i64>>(2)?.map(|m| m as usize),
        })
    })?;
    rows.collect::<rusqlite::Result<_>>().map(Some)
}

/// How many attributes the runs of a submission have, and would have
/// after an edit ([`attr_counts_after`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrCounts {
    /// Runs with attributes now: (now, after).
    runs: std::collections::HashMap<i64, (usize, usize)>,
    /// What a run with none now would have after.
    none_after: usize,
}

impl AttrCounts {
    /// (now, after) of run `run_id`.
    pub fn of(&self, run_id: i64) -> (usize, usize) {
        self.runs
            .get(&run_id)
            .copied()
            .unwrap_or((0, self.none_after))
    }
}

/// How many attributes each run of a submission has now, and would have
/// once `changes` were set in order (None removes one; a key given twice
/// ends as its last), read in one statement and without writing.
pub fn attr_counts_after(
    conn: &Connection,
    submission_id: i64,
    changes: &[(String, Option<String>)],
) -> rusqlite::Result<AttrCounts> {
    let mut last = std::collections::BTreeMap::new();
    for (key, value) in changes {
        last.insert(key.as_str(), value.is_some());
    }
    let set: Vec<&str> = last
        .iter()
        .filter(|(_, set)| **set)
        .map(|(k, _)| *k)
        .collect();
    let removed: Vec<&str> = last
        .iter()
        .filter(|(_, set)| !**set)
        .map(|(k, _)| *k)
        .collect();
    let list = |from: usize, n: usize| {
        (from..from + n)
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let sql = format!(
        "SELECT a.run_id, count(*), sum(a.key IN ({})), sum(a.key IN ({}))
         FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE r.submission_id = ?1 GROUP BY a.run_id",
        list(2, set.len()),
        list(2 + set.len(), removed.len())
    );
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&submission_id];
    params.extend(set.iter().map(|key| key as &dyn rusqlite::ToSql));
    params.extend(removed.iter().map(|key| key as &dyn rusqlite::ToSql));
    let mut stmt = conn.prepare(&sql)?;
    let counts = stmt.query_map(params.as_slice(), |row| {
        let [now, set_present, removed_present] =
            [1, 2, 3].map(|i| row.get::<_, i64>(i).map(|n| n as usize));
        let now = now?;
        Ok((
            row.get(0)?,
            (now, now + set.len() - set_present? - removed_present?),
        ))
    })?;
    Ok(AttrCounts {
        runs: counts.collect::<rusqlite::Result<_>>()?,
        none_after: set.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(conn: &Connection) -> Option<String> {
        conn.query_row("SELECT label FROM runs WHERE id = 1", [], |row| row.get(0))
            .unwrap()
    }

    /// A correction dropped after its checks writes nothing and lets the
    /// next writer in; its write commits.
    #[test]
    fn a_correction_commits_only_its_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut conn = crate::store::open(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO submissions (id, text, sha256) VALUES (1, 'log', 'sha');
             INSERT INTO runs (id, submission_id, idx, tool, quote_depth, first_line, last_line, label)
             VALUES (1, 1, 0, 'sysbench', 0, 1, 2, 'parsed');",
        )
        .unwrap();
        let fields = [(RunField::Label, Some("edited".to_owned()))];

        let refused = Correction::begin(&mut conn).unwrap();
        let places = refused.run_places(1).unwrap().unwrap();
        assert_eq!(places.iter().map(|p| p.id).collect::<Vec<_>>(), [1]);
        assert_eq!(refused.run_places(2).unwrap(), None);
        drop(refused);
        assert_eq!(label(&conn).as_deref(), Some("parsed"));

        let changed = Correction::begin(&mut conn)
            .unwrap()
            .set_run_fields(&[1], &fields)
            .unwrap();
        assert_eq!(changed, 1);
        // Another connection sees it: committed.
        let other = crate::store::open_existing(&path).unwrap();
        assert_eq!(label(&other).as_deref(), Some("edited"));
        let correction = Correction::begin(&mut conn).unwrap();
        assert!(correction.has_run_edit(1, &RunField::Label).unwrap());
        assert!(correction.undo_run_edit(1, &RunField::Label).unwrap());
        assert_eq!(label(&other).as_deref(), Some("parsed"));
    }
}
