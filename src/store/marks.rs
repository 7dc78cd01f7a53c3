//! How far each public-inbox archive has been read
//! (`migrations/0014_archive_marks.sql`).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

/// The last commit of one epoch of an archive whose message is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveMark {
    /// The archive's canonical path.
    pub archive: String,
    pub epoch: u32,
    /// The commit's id, in hex.
    pub commit_id: String,
    /// How many of the epoch's commits are read, this one included.
    pub commits: u64,
}

/// The mark of `archive`'s `epoch`, if it was ever read.
pub fn archive_mark(
    conn: &Connection,
    archive: &str,
    epoch: u32,
) -> rusqlite::Result<Option<ArchiveMark>> {
    conn.prepare_cached(
        "SELECT commit_id, commits FROM archive_marks WHERE archive = ?1 AND epoch = ?2",
    )?
    .query_row(params![archive, epoch], |row| {
        Ok(ArchiveMark {
            archive: archive.to_owned(),
            epoch,
            commit_id: row.get(0)?,
            commits: row.get::<_, i64>(1)? as u64,
        })
    })
    .optional()
}

/// Records `mark` in the transaction that stores its commit's message.
pub fn set_archive_mark(tx: &Transaction, mark: &ArchiveMark) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO archive_marks (archive, epoch, commit_id, commits) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (archive, epoch) DO UPDATE SET commit_id = excluded.commit_id,
                                                    commits = excluded.commits",
    )?
    .execute(params![
        mark.archive,
        mark.epoch,
        mark.commit_id,
        mark.commits as i64
    ])?;
    Ok(())
}
