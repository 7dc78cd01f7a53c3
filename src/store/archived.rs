//! Messages whose text a public-inbox archive keeps, not the database
//! (`migrations/0015_archived_texts.sql`): where each one's text is, and
//! which of them a message with runs made thread context, to be brought
//! back.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

/// Where an archive keeps a message's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedText {
    /// The archive's canonical path (as its marks are recorded).
    pub archive: String,
    /// Its `git/N.git` epoch (0 for v1).
    pub epoch: u32,
    /// The blob holding the raw message, in hex.
    pub blob: String,
    /// Bytes of text the database does not hold.
    pub text_bytes: u64,
}

/// A message to be brought back from its archive, and the SHA-256 its
/// raw bytes had when it was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WantedText {
    pub submission_id: i64,
    pub epoch: u32,
    pub blob: String,
    pub raw_sha256: String,
}

/// Records that submission `submission_id` holds only its header block,
/// the rest being in `at`.
pub fn insert_archived_text(
    tx: &Transaction,
    submission_id: i64,
    at: &ArchivedText,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO archived_texts (submission_id, archive, epoch, blob, text_bytes)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        submission_id,
        at.archive,
        at.epoch,
        at.blob,
        at.text_bytes as i64
    ])?;
    Ok(())
}

/// Where the archive keeps the text of submission `submission_id`, if the
/// database holds only its headers.
pub fn archived_text(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Option<ArchivedText>> {
    conn.prepare_cached(
        "SELECT archive, epoch, blob, text_bytes FROM archived_texts WHERE submission_id = ?1",
    )?
    .query_row([submission_id], |row| {
        Ok(ArchivedText {
            archive: row.get(0)?,
            epoch: row.get(1)?,
            blob: row.get(2)?,
            text_bytes: row.get::<_, i64>(3)? as u64,
        })
    })
    .optional()
}

/// Whether submission `submission_id` holds a run or a near miss: a
/// message answering it is its thread context, kept in full.
pub fn holds_findings(conn: &Connection, submission_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM runs WHERE submission_id = ?1)
             OR EXISTS (SELECT 1 FROM unparsed WHERE submission_id = ?1)",
    )?
    .query_row([submission_id], |row| row.get(0))
}

/// Marks submission `submission_id`, if its text is in an archive, as
/// thread context whose text is to be brought back.
pub fn mark_wanted(tx: &Transaction, submission_id: i64) -> rusqlite::Result<()> {
    tx.prepare_cached("UPDATE archived_texts SET wanted = 1 WHERE submission_id = ?1")?
        .execute([submission_id])?;
    Ok(())
}

/// Up to `most` of `archive`'s messages marked wanted, lowest submission
/// first, after `after`.
pub fn wanted_texts(
    conn: &Connection,
    archive: &str,
    after: i64,
    most: usize,
) -> rusqlite::Result<Vec<WantedText>> {
    conn.prepare_cached(
        "SELECT a.submission_id, a.epoch, a.blob, m.raw_sha256
         FROM archived_texts a JOIN mails m ON m.submission_id = a.submission_id
         WHERE a.archive = ?1 AND a.wanted = 1 AND a.submission_id > ?2
         ORDER BY a.submission_id LIMIT ?3",
    )?
    .query_map(params![archive, after, most as i64], |row| {
        Ok(WantedText {
            submission_id: row.get(0)?,
            epoch: row.get(1)?,
            blob: row.get(2)?,
            raw_sha256: row.get(3)?,
        })
    })?
    .collect()
}

/// Puts `text` back as submission `submission_id`'s text, its messages
/// to be stored again by the caller, and forgets where the archive keeps
/// it.
pub fn restore_text(tx: &Transaction, submission_id: i64, text: &str) -> rusqlite::Result<()> {
    tx.prepare_cached("UPDATE submissions SET text = ?2 WHERE id = ?1")?
        .execute(params![submission_id, text])?;
    tx.prepare_cached("DELETE FROM messages WHERE submission_id = ?1")?
        .execute([submission_id])?;
    tx.prepare_cached("DELETE FROM archived_texts WHERE submission_id = ?1")?
        .execute([submission_id])?;
    Ok(())
}
