//! Reads for browsing: submissions searched and filtered, the runs table,
//! counts per tool, a submission's messages, and the groups of runs that
//! make a ready comparison. Every function runs a fixed number of
//! statements, however much is stored.

use std::collections::{BTreeMap, HashMap};

use parsers::contract::{PseudoField, NONE};
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, Connection};

use super::rows::{fill_run_details, run_from_row, summary_from_row, RUN_COLUMNS, SUMMARY_COLUMNS};
use super::{StoredRun, SubmissionSummary};

/// How many runs and submissions a tool has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCount {
    pub tool: String,
    pub runs: i64,
    pub submissions: i64,
}

/// Runs and submissions per tool: read from the index on (tool,
/// submission_id) alone.
pub fn tool_counts(conn: &Connection) -> rusqlite::Result<Vec<ToolCount>> {
    let mut stmt = conn.prepare_cached(
        "SELECT tool, count(*), count(DISTINCT submission_id) FROM runs
         GROUP BY tool ORDER BY tool",
    )?;
    let rows = stmt.query_map([], |row| {
        Ok(ToolCount {
            tool: row.get(0)?,
            runs: row.get(1)?,
            submissions: row.get(2)?,
        })
    })?;
    rows.collect()
}

/// The number of stored submissions.
pub fn submission_count(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT count(*) FROM submissions", [], |row| row.get(0))
}

/// Which submissions `/submissions` lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubmissionSearch {
    /// Words to find in the source name, author, subject or text.
    pub q: Option<String>,
    /// Only submissions with a run of this tool.
    pub tool: Option<String>,
    pub limit: usize,
    pub offset: usize,
}

/// The full-text query for what a person typed: each word a phrase of its
/// letters and digits (the way the index splits text), the last token of
/// each a prefix, all required. None when nothing searchable was typed.
/// Quoting every token keeps FTS5's own syntax (AND, NEAR, `*`, `:`) out of
/// reach, so no input can make the query fail.
pub fn fts_query(typed: &str) -> Option<String> {
    let phrases: Vec<String> = typed
        .split_whitespace()
        .filter_map(|word| {
            let tokens: Vec<&str> = word
                .split(|c: char| !c.is_alphanumeric())
                .filter(|t| !t.is_empty())
                .collect();
            (!tokens.is_empty()).then(|| format!("\"{}\"*", tokens.join(" ")))
        })
        .collect();
    (!phrases.is_empty()).then(|| phrases.join(" "))
}

/// Submissions matching `search`, newest first: one query.
pub fn search_submissions(
    conn: &Connection,
    search: &SubmissionSearch,
) -> rusqlite::Result<Vec<SubmissionSummary>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SUMMARY_COLUMNS}
         FROM submissions s
         WHERE (?1 IS NULL OR s.id IN
                   (SELECT rowid FROM submissions_fts WHERE submissions_fts MATCH ?1))
           AND (?2 IS NULL OR EXISTS
                   (SELECT 1 FROM runs r WHERE r.submission_id = s.id AND r.tool = ?2))
         ORDER BY s.id DESC LIMIT ?3 OFFSET ?4"
    ))?;
    let q = search.q.as_deref().and_then(fts_query);
    let rows = stmt.query_map(
        params![q, search.tool, search.limit as i64, search.offset as i64],
        summary_from_row,
    )?;
    rows.collect()
}

/// A mail found in a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    pub idx: usize,
    pub author: Option<String>,
    pub email: Option<String>,
    pub date: Option<String>,
    pub subject: Option<String>,
    /// None for messages stored before quote depths were kept.
    pub quote_depth: Option<usize>,
    pub lines: [usize; 2],
}

pub fn messages_of_submission(
    conn: &Connection,
    submission_id: i64,
) -> rusqlite::Result<Vec<StoredMessage>> {
    messages_in_lines(conn, submission_id, &super::LineWindow::ALL)
}

/// The messages that touch the window's lines, at most `window.limit`.
pub fn messages_in_lines(
    conn: &Connection,
    submission_id: i64,
    window: &super::LineWindow,
) -> rusqlite::Result<Vec<StoredMessage>> {
    let [first, last, limit] = window.sql();
    let mut stmt = conn.prepare_cached(
        "SELECT idx, author, email, date, subject, quote_depth, first_line, last_line
         FROM messages WHERE submission_id = ?1 AND last_line >= ?2 AND first_line <= ?3
         ORDER BY idx LIMIT ?4",
    )?;
    let rows = stmt.query_map(
        rusqlite::params![submission_id, first, last, limit],
        |row| {
            Ok(StoredMessage {
                idx: row.get::<_, i64>(0)? as usize,
                author: row.get(1)?,
                email: row.get(2)?,
                date: row.get(3)?,
                subject: row.get(4)?,
                quote_depth: row.get::<_, Option<i64>>(5)?.map(|d| d as usize),
                lines: [
                    row.get::<_, i64>(6)? as usize,
                    row.get::<_, i64>(7)? as usize,
                ],
            })
        },
    )?;
    rows.collect()
}

/// Which runs the runs table shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunSearch {
    pub tool: Option<String>,
    pub test: Option<String>,
    /// `(attribute, value)`: several values of one attribute mean any of
    /// them, different attributes must all hold (as on /compare). Besides
    /// run attributes, `label`, `author`, `test` and `submission` work; the
    /// value `(none)` matches runs without the attribute.
    pub wheres: Vec<(String, String)>,
    /// Runs per page.
    pub limit: usize,
    pub from: RunsFrom,
}

/// Where a page of the runs table starts. Pages are anchored at a run
/// (`Before`, `After`) so that reading one costs the same however deep it
/// is, and stays put while new runs arrive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RunsFrom {
    /// The newest matching runs.
    #[default]
    Newest,
    /// The newest after skipping this many, for `page=N` links made before
    /// pages were anchored at runs: every run skipped is read.
    Skip(usize),
    /// The newest runs older than this run id: the next page.
    Before(i64),
    /// The oldest runs newer than this run id, still listed newest first:
    /// the previous page.
    After(i64),
}

/// A page of the runs table.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPage {
    /// Newest first.
    pub runs: Vec<RunListing>,
    /// Whether matching runs newer than the page's exist (a previous page).
    pub newer: bool,
    /// Whether matching runs older than the page's exist (a next page).
    pub older: bool,
}

/// A run with the submission it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct RunListing {
    pub submission_id: i64,
    pub subject: Option<String>,
    pub source_name: Option<String>,
    pub run: StoredRun,
}

/// The column of `runs r` a filter on `key` reads, for the keys that are
/// not run attributes.
fn run_column(key: &str) -> Option<&'static str> {
    PseudoField::from_name(key).map(|field| match field {
        PseudoField::Label => "r.label",
        PseudoField::Author => "r.author",
        PseudoField::Test => "r.test",
        PseudoField::Submission => "CAST(r.submission_id AS TEXT)",
    })
}

/// The SQL condition of one attribute's wanted values, and its parameters.
fn where_condition(key: &str, wanted: &[&str], params: &mut Vec<Value>) -> String {
    let none = wanted.iter().any(|w| w.eq_ignore_ascii_case(NONE));
    let values: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| !w.eq_ignore_ascii_case(NONE))
        .collect();
    let marks = vec!["?"; values.len()].join(", ");
    let mut alternatives = Vec::new();
    match run_column(key) {
        Some(column) => {
            if !values.is_empty() {
                alternatives.push(format!("{column} COLLATE NOCASE IN ({marks})"));
                params.extend(values.iter().map(|v| Value::Text((*v).to_owned())));
            }
            if none {
                alternatives.push(format!("{column} IS NULL"));
            }
        }
        None => {
            if !values.is_empty() {
                alternatives.push(format!(
                    "EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_id = r.id AND a.key = ? \
                     AND a.value COLLATE NOCASE IN ({marks}))"
                ));
                params.push(Value::Text(key.to_owned()));
                params.extend(values.iter().map(|v| Value::Text((*v).to_owned())));
            }
            if none {
                alternatives.push(
                    "NOT EXISTS (SELECT 1 FROM run_attrs a WHERE a.run_id = r.id AND a.key = ?)"
                        .to_owned(),
                );
                params.push(Value::Text(key.to_owned()));
            }
        }
    }
    format!("({})", alternatives.join(" OR "))
}

/// Where a search reads its runs from, newest first, and what it checks
/// of each.
struct RunSource {
    /// The tables after FROM: `runs r`, perhaps joined to what drives it.
    tables: &'static str,
    /// The column holding the run id, in the order the reading goes.
    id: &'static str,
    conditions: Vec<String>,
    values: Vec<Value>,
}

impl RunSource {
    /// Reads runs in id order from the index on tool (and test) when a
    /// tool is given: then at most that tool's runs are read, and which of
    /// the tool and an attribute value is rarer is not known. Without a
    /// tool, and with an attribute wanted with a single value, from the
    /// index on attribute values (`run_attrs_key_value_nocase`), so that a
    /// rare value costs as little as a common one instead of a read of
    /// every run. Only the filters given are written out, so SQLite sees
    /// which indexes apply.
    fn of(search: &RunSearch) -> RunSource {
        let mut source = RunSource {
            tables: "runs r",
            id: "r.id",
            conditions: Vec::new(),
            values: Vec::new(),
        };
        if let Some(tool) = &search.tool {
            source.condition("r.tool = ?", [tool.as_str()]);
        }
        if let Some(test) = &search.test {
            source.condition("r.test = ?", [test.as_str()]);
        }
        let mut by_key: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (key, value) in &search.wheres {
            by_key.entry(key).or_default().push(value);
        }
        let driver = by_key
            .iter()
            .filter(|_| search.tool.is_none())
            .find_map(|(key, wanted)| match wanted[..] {
                [value] if run_column(key).is_none() && !value.eq_ignore_ascii_case(NONE) => {
                    Some((*key, value))
                }
                _ => None,
            });
        if let Some((key, value)) = driver {
            source.tables = "run_attrs d JOIN runs r ON r.id = d.run_id";
            source.id = "d.run_id";
            source.condition("d.key = ? AND d.value = ? COLLATE NOCASE", [key, value]);
        }
        for (key, wanted) in &by_key {
            if driver.is_some_and(|(driving, _)| driving == *key) {
                continue;
            }
            let condition = where_condition(key, wanted, &mut source.values);
            source.conditions.push(condition);
        }
        source
    }

    fn condition<'a>(&mut self, sql: &str, values: impl IntoIterator<Item = &'a str>) {
        self.conditions.push(sql.to_owned());
        self.values
            .extend(values.into_iter().map(|v| Value::Text(v.to_owned())));
    }

    /// Runs with ids `comparison` (`<` or `>`) `id` only.
    fn beyond(&mut self, comparison: &str, id: i64) {
        self.conditions.push(format!("{} {comparison} ?", self.id));
        self.values.push(Value::Integer(id));
    }

    fn where_clause(&self) -> String {
        if self.conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", self.conditions.join(" AND "))
        }
    }
}

/// A page of the runs matching `search`, newest first, with attributes,
/// results and label sources: four queries, and a fifth on an anchored
/// page to learn whether there is a page on its other side.
///
/// Runs are read newest first (see `RunSource::of`) and each is checked
/// against the other filters, so a page reads about as many runs as it
/// shows over the share of those read that match, and stops.
pub fn search_runs(conn: &Connection, search: &RunSearch) -> rusqlite::Result<RunPage> {
    let mut source = RunSource::of(search);
    let mut offset = 0;
    match search.from {
        RunsFrom::Newest => {}
        RunsFrom::Skip(skip) => offset = skip,
        RunsFrom::Before(id) => source.beyond("<", id),
        RunsFrom::After(id) => source.beyond(">", id),
    }
    // The previous page is the runs just newer than its anchor: the oldest
    // of those, read upwards.
    let upwards = matches!(search.from, RunsFrom::After(_));
    let sql = format!(
        "SELECT {RUN_COLUMNS}, r.submission_id, s.subject, s.source_name
         FROM {} JOIN submissions s ON s.id = r.submission_id
         {}
         ORDER BY {} {} LIMIT ? OFFSET ?",
        source.tables,
        source.where_clause(),
        source.id,
        if upwards { "ASC" } else { "DESC" },
    );
    source.values.push(Value::Integer(search.limit as i64 + 1));
    source.values.push(Value::Integer(offset as i64));

    let mut stmt = conn.prepare(&sql)?;
    let mut listings: Vec<RunListing> = stmt
        .query_map(params_from_iter(source.values), |row| {
            Ok(RunListing {
                submission_id: row.get(12)?,
                subject: row.get(13)?,
                source_name: row.get(14)?,
                run: run_from_row(row)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let more = listings.len() > search.limit;
    listings.truncate(search.limit);
    if upwards {
        listings.reverse();
    }
    let (newer, older) = match search.from {
        RunsFrom::Newest => (false, more),
        RunsFrom::Skip(skip) => (skip > 0, more),
        RunsFrom::Before(id) => {
            let newest_shown = listings.first().map_or(id.saturating_sub(1), |l| l.run.id);
            (any_run_beyond(conn, search, ">", newest_shown)?, more)
        }
        RunsFrom::After(id) => {
            let oldest_shown = listings.last().map_or(id.saturating_add(1), |l| l.run.id);
            (more, any_run_beyond(conn, search, "<", oldest_shown)?)
        }
    };

    let mut runs: Vec<&mut StoredRun> = listings.iter_mut().map(|l| &mut l.run).collect();
    fill_run_details(conn, &mut runs)?;
    Ok(RunPage {
        runs: listings,
        newer,
        older,
    })
}

/// Whether a run matching `search` has an id `comparison` (`<` or `>`)
/// `id`: one query, which stops at the first such run.
fn any_run_beyond(
    conn: &Connection,
    search: &RunSearch,
    comparison: &str,
    id: i64,
) -> rusqlite::Result<bool> {
    let mut source = RunSource::of(search);
    source.beyond(comparison, id);
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM {} {})",
        source.tables,
        source.where_clause()
    );
    conn.query_row(&sql, params_from_iter(source.values), |row| row.get(0))
}

/// Every attribute name in use, for the runs table's filter form. The
/// names are read by skipping through the index on (key, value) from one
/// name to the next, so this costs a lookup per name, not a read of every
/// attribute stored.
pub fn attr_keys(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE keys (key) AS (
             SELECT min(key) FROM run_attrs
             UNION ALL
             SELECT (SELECT min(key) FROM run_attrs WHERE key > keys.key)
             FROM keys WHERE keys.key IS NOT NULL
         )
         SELECT key FROM keys WHERE key IS NOT NULL",
    )?;
    let rows = stmt.query_map([], |row| row.get(0))?;
    rows.collect()
}

/// One group of runs a ready comparison draws: a submission's runs of one
/// tool and test.
#[derive(Debug, Clone, PartialEq)]
pub struct RunGroup {
    pub submission_id: i64,
    pub subject: Option<String>,
    pub source_name: Option<String>,
    pub tool: String,
    pub test: Option<String>,
    /// The group's runs (with attributes and results), in text order.
    pub runs: Vec<StoredRun>,
    /// Each run's copy key (its `copy_key`, else its id: one number for
    /// every copy of a run), sorted: a group made only of copies of
    /// another's runs shows nothing new.
    pub run_keys: Vec<i64>,
}

impl RunGroup {
    /// Whether every run of this group is a copy of one of `other`'s.
    pub fn repeats(&self, other: &RunGroup) -> bool {
        self.run_keys
            .iter()
            .all(|key| other.run_keys.binary_search(key).is_ok())
    }
}

/// The newest `limit` groups (a submission's runs of one tool and test)
/// whose runs are in several configurations (label and attributes): the
/// comparisons the data holds. Only the
/// newest submissions are looked at, those holding the newest `scan_runs`
/// runs (and all the runs of the oldest of them), because telling a
/// group's configurations apart reads every run's attributes. Five
/// queries.
pub fn ready_groups(
    conn: &Connection,
    limit: usize,
    scan_runs: usize,
) -> rusqlite::Result<Vec<RunGroup>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.submission_id, r.tool, r.test, s.subject, s.source_name
         FROM runs r JOIN submissions s ON s.id = r.submission_id
         WHERE r.submission_id >= coalesce(
               (SELECT submission_id FROM runs ORDER BY submission_id DESC LIMIT 1 OFFSET ?2),
               0)
         GROUP BY r.submission_id, r.tool, r.test
         HAVING count(DISTINCT coalesce(r.label, '') || char(31) ||
                  coalesce((SELECT group_concat(a.key || '=' || a.value, char(30) ORDER BY a.key)
                            FROM run_attrs a WHERE a.run_id = r.id), '')) > 1
         ORDER BY r.submission_id DESC, r.tool, r.test
         LIMIT ?1",
    )?;
    let mut groups: Vec<RunGroup> = stmt
        .query_map([limit as i64, scan_runs.saturating_sub(1) as i64], |row| {
            Ok(RunGroup {
                submission_id: row.get(0)?,
                tool: row.get(1)?,
                test: row.get(2)?,
                subject: row.get(3)?,
                source_name: row.get(4)?,
                runs: Vec::new(),
                run_keys: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if groups.is_empty() {
        return Ok(groups);
    }

    let mut submissions: Vec<i64> = groups.iter().map(|g| g.submission_id).collect();
    submissions.dedup();
    let marks = vec!["?"; submissions.len()].join(", ");
    let mut stmt = conn.prepare(&format!(
        "SELECT {RUN_COLUMNS}, r.submission_id, coalesce(r.copy_key, r.id)
         FROM runs r WHERE r.submission_id IN ({marks})
         ORDER BY r.submission_id, r.idx"
    ))?;
    let mut found: Vec<(i64, StoredRun, i64)> = stmt
        .query_map(params_from_iter(&submissions), |row| {
            Ok((row.get(12)?, run_from_row(row)?, row.get(13)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    {
        let mut runs: Vec<&mut StoredRun> = found.iter_mut().map(|(_, run, _)| run).collect();
        fill_run_details(conn, &mut runs)?;
    }
    let index: HashMap<(i64, String, Option<String>), usize> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| ((g.submission_id, g.tool.clone(), g.test.clone()), i))
        .collect();
    for (submission_id, run, key) in found {
        if let Some(&i) = index.get(&(submission_id, run.tool.clone(), run.test.clone())) {
            groups[i].runs.push(run);
            groups[i].run_keys.push(key);
        }
    }
    for group in &mut groups {
        group.run_keys.sort_unstable();
    }
    Ok(groups)
}

/// The submissions with these ids, in the order given: one query.
pub fn submissions_by_ids(
    conn: &Connection,
    ids: &[i64],
) -> rusqlite::Result<Vec<SubmissionSummary>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks = vec!["?"; ids.len()].join(", ");
    let mut stmt = conn.prepare(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM submissions s WHERE s.id IN ({marks})"
    ))?;
    let found: HashMap<i64, SubmissionSummary> = stmt
        .query_map(params_from_iter(ids), summary_from_row)?
        .map(|summary| summary.map(|s| (s.head.id, s)))
        .collect::<rusqlite::Result<_>>()?;
    Ok(ids.iter().filter_map(|id| found.get(id).cloned()).collect())
}
