//! Submissions and everything read from them: writing one (inside the
//! caller's transaction) and reading it back for the pages.

use std::borrow::Cow;

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::rows::{
    fill_run_details, head_from_row, run_from_row, submission_from_row, summary_from_row,
    HEAD_COLUMNS, REPEATED_BY_COPY, RUN_COLUMNS, SUMMARY_COLUMNS,
};
use super::{StoredRun, Submission, SubmissionHead, SubmissionSummary};
use crate::limits::MAX_LABEL_SOURCES;

/// A submission about to be stored.
#[derive(Debug, Clone)]
pub struct NewSubmission<'a> {
    /// Owned when the caller needs it no more: [`insert_submission`] then
    /// lets it go as soon as SQLite has its copy.
    pub text: Cow<'a, str>,
    pub sha256: &'a str,
    pub source_name: Option<&'a str>,
    pub author: Option<&'a str>,
    pub date: Option<&'a str>,
    pub subject: Option<&'a str>,
}

#[derive(Debug, Clone, Copy)]
pub struct NewMessage<'a> {
    pub idx: usize,
    pub author: Option<&'a str>,
    pub email: Option<&'a str>,
    pub date: Option<&'a str>,
    pub subject: Option<&'a str>,
    pub message_id: Option<&'a str>,
    pub in_reply_to: Option<&'a str>,
    pub quote_depth: usize,
    pub lines: [usize; 2],
}

#[derive(Debug, Clone, Copy)]
pub struct NewRun<'a> {
    pub idx: usize,
    pub message_idx: Option<usize>,
    pub tool: &'a str,
    pub test: Option<&'a str>,
    pub label: Option<&'a str>,
    pub threads: Option<u32>,
    pub quote_depth: usize,
    pub author: Option<&'a str>,
    pub command: Option<&'a str>,
    pub lines: [usize; 2],
    /// The copy key of the earlier run this one repeats, `None` for a run
    /// found for the first time (migrations/0012_run_copies.sql).
    pub copy_key: Option<i64>,
    /// Where its label came from, outermost first; only the last
    /// [`MAX_LABEL_SOURCES`] are stored (migrations/0018_run_label_sources.sql).
    pub label_from: &'a [NewLabelSource<'a>],
}

/// A block of the post's outline a run's label came from.
#[derive(Debug, Clone, Copy)]
pub struct NewLabelSource<'a> {
    /// `heading`, `banner`, `list item`, `lead-in` or `caption`.
    pub kind: &'a str,
    /// 1-based first and last line of the submission's text.
    pub lines: [usize; 2],
}

#[derive(Debug, Clone, Copy)]
pub struct NewResult<'a> {
    pub item: &'a str,
    pub metric: &'a str,
    pub value: f64,
    pub unit: &'a str,
    pub line: usize,
    pub estimated: bool,
}

/// Whether any submission is stored.
pub fn holds_submissions(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT EXISTS (SELECT 1 FROM submissions)", [], |row| {
        row.get(0)
    })
}

/// The id of the submission whose text has this SHA-256, if stored.
pub fn find_submission_by_sha256(conn: &Connection, sha256: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT id FROM submissions WHERE sha256 = ?1")?
        .query_row([sha256], |row| row.get(0))
        .optional()
}

/// The tables whose ids appear in links.
#[derive(Clone, Copy)]
enum LinkedTable {
    Submissions,
    Runs,
}

/// The id for a new row: above every id the table holds and every one it
/// has held (see migrations/0008_no_reused_ids.sql), so that a link to a
/// deleted row never comes to show another.
fn fresh_id(tx: &Transaction, table: LinkedTable) -> rusqlite::Result<i64> {
    let sql = match table {
        LinkedTable::Submissions => {
            "SELECT max(h.id, coalesce((SELECT max(id) FROM submissions), 0)) + 1
             FROM id_high_water h WHERE h.tbl = 'submissions'"
        }
        LinkedTable::Runs => {
            "SELECT max(h.id, coalesce((SELECT max(id) FROM runs), 0)) + 1
             FROM id_high_water h WHERE h.tbl = 'runs'"
        }
    };
    tx.prepare_cached(sql)?.query_row([], |row| row.get(0))
}

/// The newest submission id given out, deleted ones included (0 when
/// none was): what a link made now pins a comparison to (`asof=`).
pub fn newest_submission_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT max(h.id, coalesce((SELECT max(id) FROM submissions), 0))
         FROM id_high_water h WHERE h.tbl = 'submissions'",
    )?
    .query_row([], |row| row.get(0))
}

/// How many submissions up to `asof` were deleted once `asof` had been
/// stored: runs that a link pinned to `asof` no longer shows.
pub fn deleted_since(conn: &Connection, asof: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT count(*) FROM deleted_submissions WHERE id <= ?1 AND after_submission >= ?1",
    )?
    .query_row([asof], |row| row.get(0))
}

/// Stores a submission's text and head. It is searchable once
/// [`Writer::finish`](super::Writer::finish) has run, before the transaction commits.
pub fn insert_submission(tx: &Transaction, new: NewSubmission) -> rusqlite::Result<i64> {
    let id = fresh_id(tx, LinkedTable::Submissions)?;
    // Cached: compiling it, with the trigger it fires, cost 2% of an import.
    let mut insert = tx.prepare_cached(
        "INSERT INTO submissions (id, text, sha256, source_name, author, date, subject)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    insert.raw_bind_parameter(1, id)?;
    // Bound by value: an owned text is dropped here, once SQLite has its
    // copy, instead of being held while SQLite builds the row from that
    // copy and writes it (a 63 MB text was held three times at once).
    insert.raw_bind_parameter(2, new.text)?;
    insert.raw_bind_parameter(3, new.sha256)?;
    insert.raw_bind_parameter(4, new.source_name)?;
    insert.raw_bind_parameter(5, new.author)?;
    insert.raw_bind_parameter(6, new.date)?;
    insert.raw_bind_parameter(7, new.subject)?;
    insert.raw_execute()?;
    Ok(id)
}

/// What every writer of submissions does once, after its last
/// [`store_document`](crate::ingest::store_document) and before it commits:
/// writes the staged attributes (`write_staged_attrs`) and adds the new
/// submissions to the full-text index ([`index_new_submissions`]).
/// [`Writer::finish`](super::Writer::finish) calls it, the only caller:
/// a writer outside `store` cannot commit staged rows unwritten.
pub(super) fn finish_writes(tx: &Transaction) -> rusqlite::Result<()> {
    write_staged_attrs(tx)?;
    index_new_submissions(tx)?;
    super::sums::add_new_runs(tx)
}

/// Adds every submission stored since the last call to the full-text
/// index, in one statement: what each writer does once, before it commits
/// (see migrations/0010_bulk_ingest_triggers.sql for why not per row).
pub(super) fn index_new_submissions(tx: &Transaction) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO submissions_fts (rowid, source_name, author, subject, text)
         SELECT id, source_name, author, subject, text FROM submissions
         WHERE id > (SELECT through FROM fts_indexed) ORDER BY id",
    )?
    .execute([])?;
    tx.prepare_cached(
        "UPDATE fts_indexed
         SET through = max(through, (SELECT coalesce(max(id), 0) FROM submissions))",
    )?
    .execute([])?;
    Ok(())
}

pub fn insert_message(
    tx: &Transaction,
    submission_id: i64,
    new: &NewMessage,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO messages (submission_id, idx, author, email, date, subject, message_id,
                               in_reply_to, first_line, last_line, quote_depth)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        submission_id,
        new.idx as i64,
        new.author,
        new.email,
        new.date,
        new.subject,
        new.message_id,
        new.in_reply_to,
        new.lines[0] as i64,
        new.lines[1] as i64,
        new.quote_depth as i64,
    ])?;
    Ok(())
}

/// Stores one run and returns its id; see [`insert_runs`].
pub fn insert_run(tx: &Transaction, submission_id: i64, new: &NewRun) -> rusqlite::Result<i64> {
    insert_runs(tx, submission_id, std::slice::from_ref(new))
}

/// Stores a submission's runs, numbered in order from one fresh id up,
/// with where their labels came from, and returns the first id (the one
/// the next run would have when there are none).
pub fn insert_runs(tx: &Transaction, submission_id: i64, runs: &[NewRun]) -> rusqlite::Result<i64> {
    let first = fresh_id(tx, LinkedTable::Runs)?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO runs (id, submission_id, idx, message_idx, tool, test, label, threads,
                           quote_depth, author, command, first_line, last_line, copy_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    let mut insert_source = tx.prepare_cached(
        "INSERT INTO run_label_sources (run_id, pos, submission_id, kind, first_line, last_line)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (id, new) in (first..).zip(runs) {
        insert.execute(params![
            id,
            submission_id,
            new.idx as i64,
            new.message_idx.map(|i| i as i64),
            new.tool,
            new.test,
            new.label,
            new.threads,
            new.quote_depth as i64,
            new.author,
            new.command,
            new.lines[0] as i64,
            new.lines[1] as i64,
            new.copy_key,
        ])?;
        let kept = new.label_from.len().saturating_sub(MAX_LABEL_SOURCES);
        for (pos, source) in new.label_from[kept..].iter().enumerate() {
            insert_source.execute(params![
                id,
                pos as i64,
                submission_id,
                source.kind,
                source.lines[0] as i64,
                source.lines[1] as i64,
            ])?;
        }
    }
    Ok(first)
}

/// Stores an attribute of a run, with the run's tool copied in, so that
/// indexes can put it first (see migrations/0007_choice_indexes.sql).
pub fn insert_run_attr(
    tx: &Transaction,
    run_id: i64,
    key: &str,
    value: &str,
) -> rusqlite::Result<()> {
    let tool = tool_of_run(tx, run_id)?;
    tx.prepare_cached("INSERT INTO run_attrs (run_id, tool, key, value) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![run_id, tool, key, value])?;
    Ok(())
}

/// Stores a result of a run, with the run's tool copied in as for
/// [`insert_run_attr`].
pub fn insert_result(tx: &Transaction, run_id: i64, new: &NewResult) -> rusqlite::Result<()> {
    let tool = tool_of_run(tx, run_id)?;
    insert_results(tx, run_id, &tool, std::slice::from_ref(new))
}

fn tool_of_run(tx: &Transaction, run_id: i64) -> rusqlite::Result<String> {
    tx.prepare_cached("SELECT tool FROM runs WHERE id = ?1")?
        .query_row([run_id], |row| row.get(0))
}

/// An attribute about to be stored: its run, the run's tool, its key and
/// its value.
pub type NewAttr<'a> = (i64, &'a str, &'a str, &'a str);

/// The temporary table [`stage_run_attrs`] fills: created with each
/// connection (`store::open`), so that no statement is compiled again for
/// a change of schema in the middle of a transaction. Kept in the order
/// [`write_staged_attrs`] reads it in, so that reading needs no sort (the
/// sort took 25% of the write; keeping the stage in order costs less).
pub(super) const CREATE_STAGED_RUN_ATTRS: &str =
    "CREATE TEMP TABLE IF NOT EXISTS staged_run_attrs (
         run_id INTEGER, tool TEXT, key TEXT, value TEXT,
         PRIMARY KEY (tool, key, value, run_id)
     ) WITHOUT ROWID";

/// Stores attributes of new runs: staged (`stage_run_attrs`), they
/// reach `run_attrs` when the writes finish
/// ([`Writer::finish`](super::Writer::finish)); until then no query sees
/// them.
pub fn insert_run_attrs(tx: &Transaction, attrs: &[NewAttr]) -> rusqlite::Result<()> {
    stage_run_attrs(tx, attrs)
}

/// Stages attributes of new runs, to be stored in `run_attrs` by
/// [`write_staged_attrs`] (which [`finish_writes`] calls) before the
/// transaction commits; until then no query sees them.
///
/// Why: `run_attrs` has a primary key and four indexes, three of them led
/// by text. One statement that inserts a whole batch's attributes in the
/// order of those indexes (tool, key, value) keeps its cursors where the
/// last row went, while a statement per row seeks each index from its
/// root: a result-heavy import took 3.17 s with a statement per row and
/// 2.89 s staged (medians of five, scripts/bench-ingest.sh's folder;
/// docs/performance.md). A multi-row VALUES list, or rows read from one
/// JSON array by `json_each`, measured slower still.
pub(super) fn stage_run_attrs(tx: &Transaction, attrs: &[NewAttr]) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO temp.staged_run_attrs (run_id, tool, key, value) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (run_id, tool, key, value) in attrs {
        insert.execute(params![run_id, tool, key, value])?;
    }
    Ok(())
}

/// Stores the attributes [`stage_run_attrs`] staged in this transaction, in
/// one statement, and empties the stage. A failure (the same key twice for
/// a run) leaves the transaction as it was before the call.
pub(super) fn write_staged_attrs(tx: &Transaction) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO run_attrs (run_id, tool, key, value)
         SELECT run_id, tool, key, value FROM temp.staged_run_attrs ORDER BY tool, key, value, run_id",
    )?
    .execute([])?;
    tx.prepare_cached("DELETE FROM temp.staged_run_attrs")?
        .execute([])?;
    Ok(())
}

/// Stores the results of a run whose tool is `tool`, a statement per row
/// (staged like the attributes, they measured slower: their largest index
/// is filled in no order either way).
pub fn insert_results(
    tx: &Transaction,
    run_id: i64,
    tool: &str,
    results: &[NewResult],
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO results (run_id, tool, item, metric, value, unit, line, estimated)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for new in results {
        insert.execute(params![
            run_id,
            tool,
            new.item,
            new.metric,
            new.value,
            new.unit,
            new.line as i64,
            new.estimated,
        ])?;
    }
    Ok(())
}

pub fn insert_unparsed(
    tx: &Transaction,
    submission_id: i64,
    line: usize,
    text: &str,
    why: &str,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO unparsed (submission_id, line, text, why) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![submission_id, line as i64, text, why])?;
    Ok(())
}

/// Submissions, newest first, at most `limit`.
pub fn list_submissions(
    conn: &Connection,
    limit: usize,
) -> rusqlite::Result<Vec<SubmissionSummary>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM submissions s ORDER BY s.id DESC LIMIT ?1"
    ))?;
    let rows = stmt.query_map([limit as i64], summary_from_row)?;
    rows.collect()
}

pub fn get_submission(conn: &Connection, id: i64) -> rusqlite::Result<Option<Submission>> {
    conn.query_row(
        &format!("SELECT {HEAD_COLUMNS}, s.text, s.sha256 FROM submissions s WHERE s.id = ?1"),
        [id],
        submission_from_row,
    )
    .optional()
}

/// Every run of a submission in text order, with attrs, results and label
/// sources: four queries, three more for each further 10,000 runs (see
/// `rows::fill_run_details`).
pub fn runs_of_submission(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Vec<StoredRun>> {
    runs_in_lines(conn, submission_id, &LineWindow::ALL)
}

/// A part of a submission's text, in 1-based lines, and at most how many
/// rows of each kind to read for it: what keeps a page of a huge
/// submission as small as a page of a short one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineWindow {
    pub first: usize,
    pub last: usize,
    pub limit: usize,
}

impl LineWindow {
    /// The whole text, every row.
    pub const ALL: LineWindow = LineWindow {
        first: 1,
        last: i64::MAX as usize,
        limit: i64::MAX as usize,
    };

    pub(super) fn sql(self) -> [i64; 3] {
        [self.first, self.last, self.limit].map(|n| i64::try_from(n).unwrap_or(i64::MAX))
    }
}

/// The runs of a submission that touch the window's lines, in text order,
/// at most `window.limit`, with their attrs, results and label sources:
/// four queries.
pub fn runs_in_lines(
    conn: &Connection,
    submission_id: i64,
    window: &LineWindow,
) -> rusqlite::Result<Vec<StoredRun>> {
    let [first, last, limit] = window.sql();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS}
         FROM runs r WHERE r.submission_id = ?1 AND r.last_line >= ?2 AND r.first_line <= ?3
         ORDER BY r.idx LIMIT ?4"
    ))?;
    let mut runs: Vec<StoredRun> = stmt
        .query_map(params![submission_id, first, last, limit], run_from_row)?
        .collect::<rusqlite::Result<_>>()?;
    fill_run_details(conn, &mut runs.iter_mut().collect::<Vec<_>>())?;
    Ok(runs)
}

/// A block of a submission's text (a heading, banner, list item, lead-in
/// or caption) that runs' labels came from, and those runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelBlock {
    /// `heading`, `banner`, `list item`, `lead-in` or `caption`.
    pub kind: String,
    /// 1-based first and last line of the text.
    pub lines: [usize; 2],
    /// The first runs it names, in text order: each one's `idx` and
    /// first and last line (it may be on another part of a long text).
    pub runs: Vec<(usize, [usize; 2])>,
    /// How many runs it names in all.
    pub named: usize,
}

/// The blocks touching the window's lines that runs' labels came from
/// (migrations/0018_run_label_sources.sql), in text order, each with the
/// first `runs_per_block` runs it names and their count; at most
/// `window.limit` rows of runs in all. One query, whose rows are the
/// window's blocks times their runs, however many runs a block names.
pub fn label_blocks_in_lines(
    conn: &Connection,
    submission_id: i64,
    window: &LineWindow,
    runs_per_block: usize,
) -> rusqlite::Result<Vec<LabelBlock>> {
    let [first, last, limit] = window.sql();
    let mut stmt = conn.prepare_cached(
        "SELECT first_line, last_line, kind, idx, run_first, run_last, named FROM
             (SELECT first_line, last_line, kind, idx, run_first, run_last,
                     row_number() OVER (PARTITION BY first_line, last_line, kind
                                        ORDER BY idx) AS nth,
                     count(*) OVER (PARTITION BY first_line, last_line, kind) AS named
              FROM (SELECT s.first_line, s.last_line, s.kind, r.idx,
                           r.first_line AS run_first, r.last_line AS run_last
                    FROM run_label_sources s JOIN runs r ON r.id = s.run_id
                    WHERE s.submission_id = ?1 AND s.first_line <= ?3 AND s.last_line >= ?2
                    GROUP BY s.first_line, s.last_line, s.kind, r.id))
         WHERE nth <= ?5
         ORDER BY first_line, last_line, kind, idx
         LIMIT ?4",
    )?;
    let per_block = i64::try_from(runs_per_block).unwrap_or(i64::MAX);
    let mut rows = stmt.query(params![submission_id, first, last, limit, per_block])?;
    let mut blocks: Vec<LabelBlock> = Vec::new();
    while let Some(row) = rows.next()? {
        let lines = [
            row.get::<_, i64>(0)? as usize,
            row.get::<_, i64>(1)? as usize,
        ];
        let kind: String = row.get(2)?;
        let run = (
            row.get::<_, i64>(3)? as usize,
            [
                row.get::<_, i64>(4)? as usize,
                row.get::<_, i64>(5)? as usize,
            ],
        );
        match blocks.last_mut() {
            Some(block) if block.lines == lines && block.kind == kind => block.runs.push(run),
            _ => blocks.push(LabelBlock {
                kind,
                lines,
                runs: vec![run],
                named: row.get::<_, i64>(6)? as usize,
            }),
        }
    }
    Ok(blocks)
}

/// How many runs, messages and near misses a submission has, and how
/// many runs each of its messages holds (by `messages.idx`): one query
/// each, however large it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubmissionCounts {
    pub runs: usize,
    pub messages: usize,
    pub unparsed: usize,
    /// Runs stored earlier that this submission quotes, linked before
    /// copies were runs (not in `runs`).
    pub quoted_runs: usize,
    /// Of `runs`, the copies of runs stored earlier.
    pub copies: usize,
    /// The submissions those (quoted or copied) were stored with, oldest
    /// first, at most one more than [`crate::limits::QUOTED_FROM_SHOWN`].
    pub quoted_from: Vec<i64>,
}

impl SubmissionCounts {
    /// The runs in words, as lists show them ([`super::describe_runs`]),
    /// copies counted as quoted.
    pub fn runs_text(&self) -> String {
        super::describe_runs(
            (self.runs - self.copies) as i64,
            (self.quoted_runs + self.copies) as i64,
            &self.quoted_from,
        )
    }
}

pub fn submission_counts(conn: &Connection, id: i64) -> rusqlite::Result<SubmissionCounts> {
    conn.prepare_cached(&format!(
        "SELECT (SELECT count(*) FROM runs WHERE submission_id = ?1),
                (SELECT count(*) FROM messages WHERE submission_id = ?1),
                (SELECT count(*) FROM unparsed WHERE submission_id = ?1),
                (SELECT count(DISTINCT run_id) FROM run_quotes WHERE submission_id = ?1),
                (SELECT group_concat(sid, ' ') FROM
                    (SELECT sid FROM
                        (SELECT r.submission_id AS sid FROM run_quotes q
                         JOIN runs r ON r.id = q.run_id WHERE q.submission_id = ?1
                         UNION SELECT (SELECT o.submission_id FROM runs o
                                       WHERE {REPEATED_BY_COPY} ORDER BY o.id LIMIT 1)
                         FROM runs c WHERE c.submission_id = ?1 AND c.copy_key IS NOT NULL)
                     WHERE sid IS NOT NULL ORDER BY sid LIMIT ?2)),
                (SELECT count(*) FROM runs c WHERE c.submission_id = ?1
                    AND c.copy_key IS NOT NULL
                    AND EXISTS (SELECT 1 FROM runs o WHERE {REPEATED_BY_COPY}))",
    ))?
    .query_row(
        params![id, crate::limits::QUOTED_FROM_SHOWN as i64 + 1],
        |row| {
            Ok(SubmissionCounts {
                runs: row.get::<_, i64>(0)? as usize,
                messages: row.get::<_, i64>(1)? as usize,
                unparsed: row.get::<_, i64>(2)? as usize,
                quoted_runs: row.get::<_, i64>(3)? as usize,
                quoted_from: row
                    .get::<_, Option<String>>(4)?
                    .map(|ids| ids.split(' ').filter_map(|id| id.parse().ok()).collect())
                    .unwrap_or_default(),
                copies: row.get::<_, i64>(5)? as usize,
            })
        },
    )
}

/// Runs per message of a submission (`messages.idx` to count).
pub fn runs_per_message(
    conn: &Connection,
    id: i64,
) -> rusqlite::Result<std::collections::HashMap<usize, usize>> {
    let mut stmt = conn.prepare_cached(
        "SELECT message_idx, count(*) FROM runs
         WHERE submission_id = ?1 AND message_idx IS NOT NULL GROUP BY message_idx",
    )?;
    let rows = stmt.query_map([id], |row| {
        Ok((
            row.get::<_, i64>(0)? as usize,
            row.get::<_, i64>(1)? as usize,
        ))
    })?;
    rows.collect()
}

pub fn get_submission_head(conn: &Connection, id: i64) -> rusqlite::Result<Option<SubmissionHead>> {
    conn.prepare_cached(&format!(
        "SELECT {HEAD_COLUMNS} FROM submissions s WHERE s.id = ?1"
    ))?
    .query_row([id], head_from_row)
    .optional()
}

/// Some lines of a submission's text and how many it has in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextWindow {
    /// The lines from the window's first on (as `str::lines` splits them).
    pub lines: Vec<String>,
    pub total_lines: usize,
}

/// Reads lines `first..=last` (1-based) of a submission's text, streaming
/// it from the database in pieces, so that the memory a page of a 64 MB
/// text takes is that of its lines, not of the whole text.
pub fn text_window(
    conn: &Connection,
    id: i64,
    first: usize,
    last: usize,
) -> rusqlite::Result<TextWindow> {
    use std::io::Read;
    let mut blob = conn.blob_open(rusqlite::MAIN_DB, "submissions", "text", id, true)?;
    let mut window = TextWindow::default();
    let mut chunk = vec![0; 256 * 1024];
    // The line being read; kept only inside the window.
    let mut current: Vec<u8> = Vec::new();
    let mut line = 1;
    let mut ended_with_newline = true;
    loop {
        let read = blob
            .read(&mut chunk)
            .map_err(|error| rusqlite::Error::ToSqlConversionFailure(Box::new(error)))?;
        if read == 0 {
            break;
        }
        let mut rest = &chunk[..read];
        ended_with_newline = rest.last() == Some(&b'\n');
        while !rest.is_empty() {
            let end = memchr_newline(rest);
            let inside = (first..=last).contains(&line);
            match end {
                Some(at) => {
                    if inside {
                        current.extend_from_slice(&rest[..at]);
                        window.lines.push(line_text(&current));
                        current.clear();
                    }
                    line += 1;
                    rest = &rest[at + 1..];
                }
                None => {
                    if inside {
                        current.extend_from_slice(rest);
                    }
                    rest = &[];
                }
            }
        }
    }
    if !ended_with_newline {
        if (first..=last).contains(&line) {
            window.lines.push(line_text(&current));
        }
        window.total_lines = line;
    } else {
        window.total_lines = line - 1;
    }
    Ok(window)
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// A line as `str::lines` gives it: without its `\r\n` or `\n`.
fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredUnparsed {
    pub line: usize,
    pub text: String,
    pub why: String,
}

pub fn unparsed_of_submission(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Vec<StoredUnparsed>> {
    unparsed_in_lines(conn, submission_id, &LineWindow::ALL)
}

/// The near misses at the window's lines, at most `window.limit`.
pub fn unparsed_in_lines(
    conn: &Connection,
    submission_id: i64,
    window: &LineWindow,
) -> rusqlite::Result<Vec<StoredUnparsed>> {
    let [first, last, limit] = window.sql();
    let mut stmt = conn.prepare_cached(
        "SELECT line, text, why FROM unparsed
         WHERE submission_id = ?1 AND line BETWEEN ?2 AND ?3 ORDER BY line, id LIMIT ?4",
    )?;
    let rows = stmt.query_map(params![submission_id, first, last, limit], |row| {
        Ok(StoredUnparsed {
            line: row.get::<_, i64>(0)? as usize,
            text: row.get(1)?,
            why: row.get(2)?,
        })
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs_of(conn: &Connection) -> Vec<(i64, String, String, String)> {
        conn.prepare("SELECT run_id, tool, key, value FROM run_attrs ORDER BY run_id, key")
            .unwrap()
            .query_map([], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn staged(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM temp.staged_run_attrs", [], |row| {
            row.get(0)
        })
        .unwrap()
    }

    /// A database with two runs of a submission, opened as every
    /// connection is (with the stage).
    fn two_runs() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::store::open(&dir.path().join("stage.db")).unwrap();
        conn.execute_batch(
            "INSERT INTO submissions (id, text, sha256) VALUES (1, 'log', 'sha');
             INSERT INTO runs (id, submission_id, idx, tool, quote_depth, first_line, last_line)
             VALUES (1, 1, 0, 'sysbench', 0, 1, 2), (2, 1, 1, 'super-smack', 0, 3, 4);",
        )
        .unwrap();
        (dir, conn)
    }

    /// Staged attributes are stored by `finish_writes`, whatever order
    /// they came in, and the stage is empty after it.
    #[test]
    fn staged_attributes_are_stored_when_the_writes_finish() {
        let (_dir, mut conn) = two_runs();
        let tx = conn.transaction().unwrap();
        stage_run_attrs(
            &tx,
            &[
                (2, "super-smack", "kernel", "6.1"),
                (1, "sysbench", "scheduler", "ULE"),
                (1, "sysbench", "kernel", "7.0"),
            ],
        )
        .unwrap();
        assert_eq!(attrs_of(&tx), []);
        assert_eq!(staged(&tx), 3);
        finish_writes(&tx).unwrap();
        tx.commit().unwrap();
        let row = |run: i64, tool: &str, key: &str, value: &str| {
            (run, tool.to_owned(), key.to_owned(), value.to_owned())
        };
        assert_eq!(
            attrs_of(&conn),
            [
                row(1, "sysbench", "kernel", "7.0"),
                row(1, "sysbench", "scheduler", "ULE"),
                row(2, "super-smack", "kernel", "6.1"),
            ]
        );
        assert_eq!(staged(&conn), 0);
    }

    /// A transaction rolled back takes what it staged with it: the batch
    /// stored again item by item stages each attribute once.
    #[test]
    fn a_rolled_back_transaction_leaves_nothing_staged() {
        let (_dir, mut conn) = two_runs();
        let tx = conn.transaction().unwrap();
        stage_run_attrs(&tx, &[(1, "sysbench", "kernel", "7.0")]).unwrap();
        drop(tx);
        assert_eq!(staged(&conn), 0);
        let tx = conn.transaction().unwrap();
        tx.execute_batch("SAVEPOINT item").unwrap();
        stage_run_attrs(&tx, &[(2, "super-smack", "kernel", "6.1")]).unwrap();
        tx.execute_batch("ROLLBACK TO item; RELEASE item").unwrap();
        finish_writes(&tx).unwrap();
        tx.commit().unwrap();
        assert_eq!(attrs_of(&conn), []);
    }

    /// When the staged rows cannot be stored (a run's key twice), nothing
    /// of them is, and the transaction is as it was: the caller can roll
    /// back and store item by item.
    #[test]
    fn a_failed_write_of_the_stage_stores_none_of_it() {
        let (_dir, mut conn) = two_runs();
        let tx = conn.transaction().unwrap();
        insert_run_attr(&tx, 2, "kernel", "6.1").unwrap();
        stage_run_attrs(
            &tx,
            &[
                (1, "sysbench", "kernel", "7.0"),
                (1, "sysbench", "kernel", "7.1"),
            ],
        )
        .unwrap();
        let error = write_staged_attrs(&tx).unwrap_err();
        assert!(error.to_string().contains("UNIQUE"), "{error}");
        assert_eq!(attrs_of(&tx).len(), 1, "{:?}", attrs_of(&tx));
        tx.commit().unwrap();
        assert_eq!(attrs_of(&conn).len(), 1);
    }
}
