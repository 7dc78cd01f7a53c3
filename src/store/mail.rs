//! Mails read from list archives: their ids and threads, the fingerprints
//! that recognise a run quoted again, and the quotes that point at it.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::rows::REPEATED_BY_COPY;

/// The mail row of a submission about to be stored.
#[derive(Debug, Clone, Copy)]
pub struct NewMail<'a> {
    pub submission_id: i64,
    pub raw_sha256: &'a str,
    pub message_id: Option<&'a str>,
    pub in_reply_to: Option<&'a str>,
    /// Space-separated, oldest first.
    pub refs: &'a str,
    pub thread_id: &'a str,
    pub sent_at: Option<i64>,
}

pub fn insert_mail(tx: &Transaction, new: &NewMail) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO mails (submission_id, raw_sha256, message_id, in_reply_to, refs, thread_id,
                            sent_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        new.submission_id,
        new.raw_sha256,
        new.message_id,
        new.in_reply_to,
        new.refs,
        new.thread_id,
        new.sent_at,
    ])?;
    Ok(())
}

/// The submission holding the mail with these raw bytes, if stored.
pub fn find_mail_by_raw_sha256(conn: &Connection, sha256: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT submission_id FROM mails WHERE raw_sha256 = ?1")?
        .query_row([sha256], |row| row.get(0))
        .optional()
}

/// A stored mail found by its message id: enough to attribute quotes to
/// its author and to join its thread.
#[derive(Debug, Clone, PartialEq)]
pub struct MailRef {
    pub submission_id: i64,
    pub author: Option<String>,
    pub thread_id: String,
}

pub fn find_mail_by_message_id(
    conn: &Connection,
    message_id: &str,
) -> rusqlite::Result<Option<MailRef>> {
    conn.prepare_cached(
        "SELECT m.submission_id, s.author, m.thread_id
         FROM mails m JOIN submissions s ON s.id = m.submission_id
         WHERE m.message_id = ?1 ORDER BY m.submission_id LIMIT 1",
    )?
    .query_row([message_id], |row| {
        Ok(MailRef {
            submission_id: row.get(0)?,
            author: row.get(1)?,
            thread_id: row.get(2)?,
        })
    })
    .optional()
}

/// Stores the fingerprints of the runs numbered `first_run_id`,
/// `first_run_id + 1`, … (as [`super::insert_runs`] numbers them), in one
/// statement: a result-heavy submission has dozens of runs.
pub fn insert_run_fingerprints(
    tx: &Transaction,
    first_run_id: i64,
    fingerprints: &[String],
) -> rusqlite::Result<()> {
    // A statement per row: one statement of several rows into a table with
    // an immediate foreign key keeps a statement journal of every page it
    // changes, which was a third of this insert's time (perf).
    let mut insert =
        tx.prepare_cached("INSERT INTO run_fingerprints (run_id, fingerprint) VALUES (?1, ?2)")?;
    for (run_id, fingerprint) in (first_run_id..).zip(fingerprints) {
        insert.execute(params![run_id, fingerprint])?;
    }
    Ok(())
}

/// The copy key (migrations/0012_run_copies.sql) a run with each of these
/// fingerprints takes, in their order (None where no stored run has it),
/// in one statement: that of the first stored run with the fingerprint.
pub fn copy_keys_of_fingerprints(
    conn: &Connection,
    fingerprints: &[String],
) -> rusqlite::Result<Vec<Option<i64>>> {
    // Each answer goes to its place by its key, rather than sorting them.
    let mut found = vec![None; fingerprints.len()];
    let mut select = conn.prepare_cached(
        "SELECT j.key, (SELECT coalesce(r.copy_key, r.id)
                        FROM run_fingerprints f JOIN runs r ON r.id = f.run_id
                        WHERE f.fingerprint = j.value ORDER BY f.run_id LIMIT 1)
         FROM json_each(?1) j",
    )?;
    let mut rows = select.query([json_strings(fingerprints)?])?;
    while let Some(row) = rows.next()? {
        let key: i64 = row.get(0)?;
        if let Some(slot) = usize::try_from(key).ok().and_then(|key| found.get_mut(key)) {
            *slot = row.get(1)?;
        }
    }
    Ok(found)
}

/// Strings as a JSON array, for `json_each`.
pub(super) fn json_strings(strings: &[String]) -> rusqlite::Result<String> {
    serde_json::to_string(strings)
        .map_err(|error| rusqlite::Error::ToSqlConversionFailure(error.into()))
}

/// A run found again in a later submission, with the earlier run it is.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredQuote {
    /// The quoting submission and the lines there.
    pub submission_id: i64,
    pub lines: [usize; 2],
    pub quote_depth: usize,
    /// The quoting submission's own run at those lines, a copy of the
    /// earlier one (migrations/0012_run_copies.sql); `None` for a quote
    /// stored before copies were runs, which the quoting submission does
    /// not count among its runs.
    pub copy_run_id: Option<i64>,
    /// The earlier run: its id, submission and position there (0-based).
    pub run_id: i64,
    pub run_submission_id: i64,
    pub run_idx: usize,
    pub tool: String,
    pub test: Option<String>,
    pub threads: Option<u32>,
    pub author: Option<String>,
}

/// The quotes of the submissions `{quoting}` selects (`q.submission_id`
/// and `c.submission_id` are compared with it), `{lines}` the condition
/// on their lines, in both forms: the links stored before copies were
/// runs (run_quotes), and the copies, each shown as a quote of the
/// earliest run it copies that is still stored (its key's run, or, when
/// that one was deleted, the first other copy). Ordered by submission and
/// line.
fn quotes_query(quoting: &str, lines: [&str; 2], limit: &str) -> String {
    let [old_lines, copy_lines] = lines;
    format!(
        "SELECT q.submission_id AS sid, q.first_line AS first, q.last_line, q.quote_depth,
                NULL AS copy, r.id, r.submission_id, r.idx, r.tool, r.test, r.threads, r.author
         FROM run_quotes q JOIN runs r ON r.id = q.run_id
         WHERE q.submission_id {quoting} {old_lines}
         UNION ALL
         SELECT c.submission_id, c.first_line, c.last_line, c.quote_depth, c.id,
                r.id, r.submission_id, r.idx, r.tool, r.test, r.threads, r.author
         FROM runs c JOIN runs r ON r.id = (
             SELECT min(o.id) FROM runs o WHERE {REPEATED_BY_COPY})
         WHERE c.submission_id {quoting} AND c.copy_key IS NOT NULL {copy_lines}
         ORDER BY sid, first, copy LIMIT {limit}"
    )
}

fn quote_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredQuote> {
    Ok(StoredQuote {
        submission_id: row.get(0)?,
        lines: [
            row.get::<_, i64>(1)? as usize,
            row.get::<_, i64>(2)? as usize,
        ],
        quote_depth: row.get::<_, i64>(3)? as usize,
        copy_run_id: row.get(4)?,
        run_id: row.get(5)?,
        run_submission_id: row.get(6)?,
        run_idx: row.get::<_, i64>(7)? as usize,
        tool: row.get(8)?,
        test: row.get(9)?,
        threads: row.get(10)?,
        author: row.get(11)?,
    })
}

/// The runs a submission quotes, in text order.
pub fn quotes_of_submission(
    conn: &Connection,
    submission_id: i64,
    window: &super::LineWindow,
) -> rusqlite::Result<Vec<StoredQuote>> {
    let [first, last, limit] = window.sql();
    let mut stmt = conn.prepare_cached(&quotes_query(
        "= ?1",
        [
            "AND q.last_line >= ?2 AND q.first_line <= ?3",
            "AND c.last_line >= ?2 AND c.first_line <= ?3",
        ],
        "?4",
    ))?;
    let rows = stmt.query_map(
        rusqlite::params![submission_id, first, last, limit],
        quote_row,
    )?;
    rows.collect()
}

/// The thread a submission's mail belongs to, if it was read from a mail.
pub fn thread_of_submission(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT thread_id FROM mails WHERE submission_id = ?1")?
        .query_row([submission_id], |row| row.get(0))
        .optional()
}

/// The thread named by a message id (any message of it, or the root's id).
pub fn thread_of_message_id(conn: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(
        "SELECT thread_id FROM mails WHERE message_id = ?1
         UNION ALL SELECT thread_id FROM mails WHERE thread_id = ?1 LIMIT 1",
    )?
    .query_row([id], |row| row.get(0))
    .optional()
}

/// One mail of a thread, as the thread page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadMail {
    pub submission_id: i64,
    pub message_id: Option<String>,
    pub in_reply_to: Option<String>,
    pub refs: Vec<String>,
    pub sent_at: Option<i64>,
    pub author: Option<String>,
    pub date: Option<String>,
    pub subject: Option<String>,
}

/// A run of a thread's mail, with its numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRun {
    pub submission_id: i64,
    pub run_id: i64,
    pub idx: usize,
    pub tool: String,
    pub test: Option<String>,
    pub label: Option<String>,
    pub threads: Option<u32>,
    pub author: Option<String>,
    pub quote_depth: usize,
    /// (item, metric, value, unit) in the order printed.
    pub results: Vec<(String, String, f64, String)>,
}

/// A whole thread: its mails in date order, their runs and their quotes.
/// Four queries however long the thread is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Thread {
    pub mails: Vec<ThreadMail>,
    pub runs: Vec<ThreadRun>,
    pub quotes: Vec<StoredQuote>,
}

use crate::limits::MAX_THREAD_RUNS;

/// The submissions of a thread's mails shown (`?1` the thread, `?2` how many).
const SHOWN: &str = "SELECT submission_id FROM mails WHERE thread_id = ?1
    ORDER BY sent_at IS NULL, sent_at, submission_id LIMIT ?2";

/// How many mails a thread has.
pub fn thread_length(conn: &Connection, thread_id: &str) -> rusqlite::Result<usize> {
    conn.prepare_cached("SELECT count(*) FROM mails WHERE thread_id = ?1")?
        .query_row([thread_id], |row| row.get::<_, i64>(0))
        .map(|n| n as usize)
}

/// A thread's first `max_mails` mails in date order, with their runs (at
/// most [`MAX_THREAD_RUNS`]) and quotes: a page of a thread costs the same
/// however long the thread grows.
pub fn thread(conn: &Connection, thread_id: &str, max_mails: usize) -> rusqlite::Result<Thread> {
    let limit = i64::try_from(max_mails).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(
        "SELECT m.submission_id, m.message_id, m.in_reply_to, m.refs, m.sent_at, s.author,
                s.date, s.subject
         FROM mails m JOIN submissions s ON s.id = m.submission_id
         WHERE m.thread_id = ?1 ORDER BY m.sent_at IS NULL, m.sent_at, m.submission_id
         LIMIT ?2",
    )?;
    let mails = stmt
        .query_map(rusqlite::params![thread_id, limit], |row| {
            let refs: String = row.get(3)?;
            Ok(ThreadMail {
                submission_id: row.get(0)?,
                message_id: row.get(1)?,
                in_reply_to: row.get(2)?,
                refs: refs.split_whitespace().map(str::to_owned).collect(),
                sent_at: row.get(4)?,
                author: row.get(5)?,
                date: row.get(6)?,
                subject: row.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;

    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.submission_id, r.id, r.idx, r.tool, r.test, r.label, r.threads, r.author,
                r.quote_depth
         FROM runs r WHERE r.submission_id IN ({SHOWN}) ORDER BY r.submission_id, r.idx
         LIMIT {MAX_THREAD_RUNS}",
    ))?;
    let mut runs = stmt
        .query_map(rusqlite::params![thread_id, limit], |row| {
            Ok(ThreadRun {
                submission_id: row.get(0)?,
                run_id: row.get(1)?,
                idx: row.get::<_, i64>(2)? as usize,
                tool: row.get(3)?,
                test: row.get(4)?,
                label: row.get(5)?,
                threads: row.get(6)?,
                author: row.get(7)?,
                quote_depth: row.get::<_, i64>(8)? as usize,
                results: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let position: std::collections::HashMap<i64, usize> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| (run.run_id, i))
        .collect();

    let ids: Vec<i64> = runs.iter().map(|run| run.run_id).collect();
    for (run_id, result) in super::rows::results_of_runs(conn, &ids)? {
        if let Some(&i) = position.get(&run_id) {
            runs[i]
                .results
                .push((result.item, result.metric, result.value, result.unit));
        }
    }

    let mut stmt = conn.prepare_cached(&quotes_query(
        &format!("IN ({SHOWN})"),
        ["", ""],
        &MAX_THREAD_RUNS.to_string(),
    ))?;
    let quotes = stmt
        .query_map(rusqlite::params![thread_id, limit], quote_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Thread {
        mails,
        runs,
        quotes,
    })
}

/// The mails stored already, asked by an import's reading thread before
/// it decodes a message: its own connection to the database, reading
/// what is committed, opened when first asked (an upload asks nothing).
/// An import of a database with no file (in memory) has none, and every
/// message is read; so is every one after a failed query: the writer
/// tells stored messages from new ones all the same. So is every message
/// of an import into a database that held no mail when it began (a first
/// import): only a message the same import stored earlier could be
/// known, and the writer finds that one by its bytes, at the cost of
/// decoding it, where asking would cost a query for every message.
pub struct KnownMails {
    path: Option<String>,
    conn: Option<Connection>,
}

impl KnownMails {
    /// Asks the database `conn` writes to, when it is a file that holds
    /// mail.
    pub fn of(conn: &Connection) -> KnownMails {
        let holds_mail = conn
            .query_row("SELECT EXISTS (SELECT 1 FROM mails)", [], |row| {
                row.get::<_, bool>(0)
            })
            .unwrap_or(true);
        let path = conn.path().filter(|path| !path.is_empty() && holds_mail);
        KnownMails {
            path: path.map(str::to_owned),
            conn: None,
        }
    }

    /// Whether the mail whose raw bytes hash to `raw_sha256` is stored.
    pub fn holds(&mut self, raw_sha256: &str) -> bool {
        if let Some(path) = self.path.take() {
            self.conn = super::open_existing(std::path::Path::new(&path)).ok();
        }
        let Some(conn) = &self.conn else {
            return false;
        };
        match find_mail_by_raw_sha256(conn, raw_sha256) {
            Ok(found) => found.is_some(),
            Err(_) => {
                self.conn = None;
                false
            }
        }
    }
}
