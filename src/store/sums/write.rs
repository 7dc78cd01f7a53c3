//! Writing the sums' cells: each cell's row of `point_sums`, as
//! [`super::Additions`] writes it.

use rusqlite::params;

use super::{join_ids, stored_moments, test_key, threads_key, Addition, CellKey, Stored};

impl Addition {
    /// The cell as stored when no row had its key.
    pub(super) fn stored(&self) -> Stored {
        let mut first_results = self.first_results.clone();
        first_results.sort_unstable();
        Stored {
            moments: self.moments,
            rows: self.rows,
            first_result: self.first_result,
            first_results,
        }
    }
}

/// Runs `stmt` (an insert or update of `point_sums` taking the key's
/// seven columns, then the cell's eight) for `cell` at `place`; says
/// whether it changed a row.
pub(super) fn store_cell(
    stmt: &mut rusqlite::Statement,
    place: &[&dyn rusqlite::ToSql],
    cell: &Stored,
) -> rusqlite::Result<bool> {
    let (mean, m2, min, max) = stored_moments(&cell.moments);
    let values = params![
        cell.moments.n as i64,
        cell.rows,
        mean,
        m2,
        min,
        max,
        cell.first_result,
        join_ids(&cell.first_results)
    ];
    for (at, value) in place.iter().chain(values).enumerate() {
        stmt.raw_bind_parameter(at + 1, value)?;
    }
    Ok(stmt.raw_execute()? == 1)
}

impl CellKey {
    /// The cell's key in `point_sums`, in the order of its columns, for
    /// a cell of `tool`: sorted as SQLite sorts the key (text by bytes).
    pub(super) fn stored_key<'a>(
        &'a self,
        tool: &'a str,
    ) -> (&'a str, &'a str, &'a str, i64, &'a str, i64, &'a str) {
        let c = &self.combination;
        (
            tool,
            &self.metric,
            &self.item,
            c.config_id,
            test_key(&c.test),
            threads_key(c.threads),
            &self.unit,
        )
    }
}
