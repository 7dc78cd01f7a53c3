//! How far each public-inbox archive has been read
//! (`migrations/0014_archive_marks.sql`), and what a web server said of
//! each month archive read by its address (`0016_url_marks.sql`).

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

/// What a web server said of a month archive `benchlog ingest URL` read
/// (`migrations/0016_url_marks.sql`): asked again with it, the server
/// answers 304 when the month has not changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlMark {
    /// The month's address, as fetched.
    pub url: String,
    /// The response's `Last-Modified`, as sent.
    pub last_modified: Option<String>,
    /// The response's `ETag`, as sent.
    pub etag: Option<String>,
}

/// The mark of `url`, if a month was ever read from it.
pub fn url_mark(conn: &Connection, url: &str) -> rusqlite::Result<Option<UrlMark>> {
    conn.prepare_cached("SELECT last_modified, etag FROM url_marks WHERE url = ?1")?
        .query_row(params![url], |row| {
            Ok(UrlMark {
                url: url.to_owned(),
                last_modified: row.get(0)?,
                etag: row.get(1)?,
            })
        })
        .optional()
}

/// The marks of `urls`, in their order, read in one statement (an index
/// links up to `limits::MAX_INDEX_MONTHS` months).
pub fn url_marks(conn: &Connection, urls: &[String]) -> rusqlite::Result<Vec<Option<UrlMark>>> {
    let mut found = vec![None; urls.len()];
    let mut select = conn.prepare_cached(
        "SELECT j.key, m.url, m.last_modified, m.etag
         FROM json_each(?1) j JOIN url_marks m ON m.url = j.value",
    )?;
    let mut rows = select.query([super::mail::json_strings(urls)?])?;
    while let Some(row) = rows.next()? {
        let key: i64 = row.get(0)?;
        if let Some(slot) = usize::try_from(key).ok().and_then(|key| found.get_mut(key)) {
            *slot = Some(UrlMark {
                url: row.get(1)?,
                last_modified: row.get(2)?,
                etag: row.get(3)?,
            });
        }
    }
    Ok(found)
}

/// Records `mark` in the transaction that stores its month's last message.
pub fn set_url_mark(tx: &Transaction, mark: &UrlMark) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO url_marks (url, last_modified, etag) VALUES (?1, ?2, ?3)
         ON CONFLICT (url) DO UPDATE SET last_modified = excluded.last_modified,
                                         etag = excluded.etag",
    )?
    .execute(params![mark.url, mark.last_modified, mark.etag])?;
    Ok(())
}
