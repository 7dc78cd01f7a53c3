//! Edit rights: the hash of each uploaded submission's edit token, and
//! deleting a submission.

use rusqlite::{params, Connection, OptionalExtension};

/// Records the SHA-256 (hex) of a submission's edit token, unless it has
/// one already. Returns whether it was recorded.
pub fn insert_edit_token(
    conn: &Connection,
    submission_id: i64,
    token_sha256: &str,
) -> rusqlite::Result<bool> {
    let inserted = conn
        .prepare_cached(
            "INSERT INTO edit_tokens (submission_id, token_sha256) VALUES (?1, ?2)
             ON CONFLICT (submission_id) DO NOTHING",
        )?
        .execute(params![submission_id, token_sha256])?;
    Ok(inserted == 1)
}

/// The highest submission number in use (0 when there is none).
pub fn max_submission_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT coalesce(max(id), 0) FROM submissions", [], |row| {
        row.get(0)
    })
}

/// Whether the submission exists (outer None: it does not) and the hash of
/// its edit token (inner None: it has none; only the admin may change it).
pub fn edit_token_of(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Option<Option<String>>> {
    conn.prepare_cached(
        "SELECT t.token_sha256 FROM submissions s
         LEFT JOIN edit_tokens t ON t.submission_id = s.id WHERE s.id = ?1",
    )?
    .query_row([submission_id], |row| row.get(0))
    .optional()
}
