//! The one way submissions are written: begin (IMMEDIATE) → stage →
//! finish → commit → checkpoint, kept by the types instead of by each
//! caller's hand.
//!
//! Storing a submission stages its runs' attributes in a temporary table
//! (see [`super::submissions`]): they reach `run_attrs`, and the new
//! submissions the full-text index, only when the writes are finished.
//! A [`Writer`] has no `commit`: only [`Writer::finish`] leads to one, so
//! staged rows cannot be committed unwritten, nor left in the temporary
//! table for the next writer on the same pooled connection. Dropping a
//! writer (or a [`Finished`] one) rolls everything back, the stage too.
//!
//! ```compile_fail,E0599
//! # fn no_commit(conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
//! let writer = benchlog::store::Writer::begin(conn, None)?;
//! writer.commit() // there is none: `finish` first
//! # }
//! ```

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::submissions::{finish_writes, write_staged_attrs};
use super::Checkpointer;

/// A write transaction, begun IMMEDIATE: the write lock is taken at once,
/// so two writers of the same text cannot both pass an "already stored?"
/// check. Stage rows through [`Writer::tx`]; then [`Writer::finish`].
pub struct Writer<'c> {
    tx: Transaction<'c>,
    checkpointer: Option<&'c Checkpointer>,
}

impl<'c> Writer<'c> {
    /// Begins the transaction. After its commit, `checkpointer` (when
    /// given) is asked for a checkpoint ([`Checkpointer::after_commit`]).
    pub fn begin(
        conn: &'c mut Connection,
        checkpointer: Option<&'c Checkpointer>,
    ) -> rusqlite::Result<Self> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        Ok(Writer { tx, checkpointer })
    }

    /// The transaction, for the functions that store rows in it.
    pub fn tx(&self) -> &Transaction<'c> {
        &self.tx
    }

    /// Runs `store` under a savepoint: kept when it succeeds, undone when
    /// it fails, with the attributes it staged written inside the
    /// savepoint (so that one at fault fails here, not at the finish).
    /// The outer error is the database failing to keep or undo it.
    pub fn in_savepoint<T>(
        &self,
        store: impl FnOnce(&Transaction) -> anyhow::Result<T>,
    ) -> anyhow::Result<anyhow::Result<T>> {
        use anyhow::Context;
        self.tx
            .execute_batch("SAVEPOINT item")
            .context("starting a savepoint")?;
        let outcome = store(&self.tx).and_then(|stored| {
            write_staged_attrs(&self.tx).context("storing the runs' attributes")?;
            Ok(stored)
        });
        let end = if outcome.is_ok() {
            "RELEASE item"
        } else {
            "ROLLBACK TO item; RELEASE item"
        };
        self.tx.execute_batch(end).context("ending a savepoint")?;
        Ok(outcome)
    }

    /// Writes the attributes staged so far, in one statement, and empties
    /// the stage: a batch of many texts learns here whether one of them is
    /// at fault. A failure leaves the transaction as it was before.
    pub fn write_staged_attrs(&self) -> rusqlite::Result<()> {
        write_staged_attrs(&self.tx)
    }

    /// Finishes the writes: stores the staged attributes and indexes the
    /// new submissions. What is left is to commit, or to drop (roll back).
    pub fn finish(self) -> rusqlite::Result<Finished<'c>> {
        finish_writes(&self.tx)?;
        Ok(Finished(self))
    }
}

/// A [`Writer`] whose writes are finished: it may commit.
pub struct Finished<'c>(Writer<'c>);

impl Finished<'_> {
    /// Commits, then asks the writer's checkpointer for a checkpoint.
    pub fn commit(self) -> rusqlite::Result<()> {
        let Writer { tx, checkpointer } = self.0;
        tx.commit()?;
        if let Some(checkpointer) = checkpointer {
            checkpointer.after_commit();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::submissions::stage_run_attrs;

    fn count(conn: &Connection, table: &str) -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
    }

    /// Stores a submission with one run and stages an attribute of it.
    fn stage_one(writer: &Writer) {
        writer
            .tx()
            .execute_batch(
                "INSERT INTO submissions (id, text, sha256) VALUES (1, 'log', 'sha');
                 INSERT INTO runs (id, submission_id, idx, tool, quote_depth, first_line, last_line)
                 VALUES (1, 1, 0, 'sysbench', 0, 1, 2);",
            )
            .unwrap();
        stage_run_attrs(writer.tx(), &[(1, "sysbench", "kernel", "7.0")]).unwrap();
    }

    /// A writer cannot commit without finishing (it has no `commit`: see
    /// the module's compile_fail example); one dropped before, finished
    /// or not, leaves neither rows nor a stage for the next writer.
    #[test]
    fn a_dropped_writer_leaves_nothing_staged_for_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::store::open(&dir.path().join("db.sqlite")).unwrap();
        let writer = Writer::begin(&mut conn, None).unwrap();
        stage_one(&writer);
        assert_eq!(count(writer.tx(), "temp.staged_run_attrs"), 1);
        drop(writer);
        assert_eq!(count(&conn, "temp.staged_run_attrs"), 0);
        assert_eq!(count(&conn, "submissions"), 0);

        let writer = Writer::begin(&mut conn, None).unwrap();
        stage_one(&writer);
        let finished = writer.finish().unwrap();
        drop(finished);
        assert_eq!(count(&conn, "temp.staged_run_attrs"), 0);
        assert_eq!(count(&conn, "run_attrs"), 0);

        let writer = Writer::begin(&mut conn, None).unwrap();
        stage_one(&writer);
        writer.finish().unwrap().commit().unwrap();
        assert_eq!(count(&conn, "temp.staged_run_attrs"), 0);
        assert_eq!(count(&conn, "run_attrs"), 1);
    }
}
