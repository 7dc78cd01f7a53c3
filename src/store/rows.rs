//! What a stored submission, run and result read back as, the columns each
//! is read from, and the one loader of runs' attributes and results. The
//! other store modules write their own WHERE and ORDER BY around these
//! columns, so a row is read the same way by every page.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{params_from_iter, Connection, Row};

/// The columns [`head_from_row`] reads, of `submissions s`.
pub(super) const HEAD_COLUMNS: &str =
    "s.id, s.source_name, s.author, s.date, s.subject, s.created_at";

/// The condition on `runs o` that makes it an earlier run the copy `runs
/// c` repeats (migrations/0012_run_copies.sql): the run whose id is the
/// copy's key, or another copy of it stored before. The earliest of them
/// is the one a page names; a copy with none left (all deleted) is then
/// an ordinary run.
macro_rules! repeated_by_copy {
    () => {
        "(o.id = c.copy_key OR o.copy_key = c.copy_key) AND o.id < c.id"
    };
}
pub(super) const REPEATED_BY_COPY: &str = repeated_by_copy!();

/// The columns [`summary_from_row`] reads, of `submissions s`: its head,
/// how many runs it has, the runs it quotes (stored earlier, with the
/// submissions they were stored with, the first [`QUOTED_FROM_SHOWN`]),
/// the tools of both, and how many of its runs are copies of earlier ones.
pub(super) const SUMMARY_COLUMNS: &str = concat!(
    "s.id, s.source_name, s.author, s.date, s.subject, s.created_at,
     (SELECT count(*) FROM runs r WHERE r.submission_id = s.id),
     (SELECT group_concat(tool, ' ') FROM
         (SELECT tool FROM runs r WHERE r.submission_id = s.id
          UNION SELECT r.tool FROM run_quotes q JOIN runs r ON r.id = q.run_id
                WHERE q.submission_id = s.id
          ORDER BY tool)),
     (SELECT count(DISTINCT q.run_id) FROM run_quotes q WHERE q.submission_id = s.id),
     (SELECT group_concat(sid, ' ') FROM
         (SELECT sid FROM
             (SELECT r.submission_id AS sid FROM run_quotes q JOIN runs r ON r.id = q.run_id
              WHERE q.submission_id = s.id
              UNION SELECT (SELECT o.submission_id FROM runs o WHERE ",
    repeated_by_copy!(),
    " ORDER BY o.id LIMIT 1)
              FROM runs c WHERE c.submission_id = s.id AND c.copy_key IS NOT NULL)
          WHERE sid IS NOT NULL ORDER BY sid LIMIT 4)),
     (SELECT count(*) FROM runs c WHERE c.submission_id = s.id AND c.copy_key IS NOT NULL
         AND EXISTS (SELECT 1 FROM runs o WHERE ",
    repeated_by_copy!(),
    "))"
);

use crate::limits::QUOTED_FROM_SHOWN;

/// The columns [`run_from_row`] reads, of `runs r`.
pub(super) const RUN_COLUMNS: &str = "r.id, r.idx, r.message_idx, r.tool, r.test, r.label,
     r.threads, r.quote_depth, r.author, r.command, r.first_line, r.last_line";

/// A stored submission without its text (see [`super::text_window`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SubmissionHead {
    pub id: i64,
    pub source_name: Option<String>,
    pub author: Option<String>,
    pub date: Option<String>,
    pub subject: Option<String>,
    pub created_at: String,
}

/// A stored submission with its verbatim text.
#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    pub head: SubmissionHead,
    pub text: String,
    pub sha256: String,
}

/// One line of the home page's list.
#[derive(Debug, Clone, PartialEq)]
pub struct SubmissionSummary {
    pub head: SubmissionHead,
    pub runs: i64,
    /// The tools of its runs and of the runs it quotes.
    pub tools: Vec<String>,
    /// Runs stored earlier that this submission quotes, linked before
    /// copies were runs (not in `runs`).
    pub quoted_runs: i64,
    /// Of `runs`, the copies of runs stored earlier.
    pub copies: i64,
    /// The submissions those runs (quoted or copied) were stored with,
    /// oldest first; one more than [`QUOTED_FROM_SHOWN`] at most, to tell
    /// that there are more.
    pub quoted_from: Vec<i64>,
}

impl SubmissionSummary {
    /// The runs as lists show them: see [`describe_runs`]; copies are
    /// counted as quoted.
    pub fn runs_text(&self) -> String {
        describe_runs(
            self.runs - self.copies,
            self.quoted_runs + self.copies,
            &self.quoted_from,
        )
    }

    /// Whether some of its runs were stored earlier too.
    pub fn quotes(&self) -> bool {
        self.quoted_runs + self.copies > 0
    }
}

/// A submission's runs in words: "17"; for a message whose runs were all
/// stored earlier (quoted copies), "17 runs, quoted from submission 4"
/// rather than 0; "3, and 17 quoted from submission 4" for both.
/// `quoted_from` is sorted; past [`QUOTED_FROM_SHOWN`] it says "and more".
pub fn describe_runs(runs: i64, quoted_runs: i64, quoted_from: &[i64]) -> String {
    let from = match quoted_from {
        [] => "earlier submissions".to_owned(),
        [one] => format!("submission {one}"),
        many => {
            let shown: Vec<String> = many
                .iter()
                .take(QUOTED_FROM_SHOWN)
                .map(i64::to_string)
                .collect();
            let more = if many.len() > QUOTED_FROM_SHOWN {
                " and more"
            } else {
                ""
            };
            format!("submissions {}{more}", shown.join(", "))
        }
    };
    match (runs, quoted_runs) {
        (runs, 0) => runs.to_string(),
        (0, 1) => format!("1 run, quoted from {from}"),
        (0, quoted) => format!("{quoted} runs, quoted from {from}"),
        (runs, quoted) => format!("{runs}, and {quoted} quoted from {from}"),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredResult {
    pub item: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub line: usize,
    pub estimated: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    pub id: i64,
    pub idx: usize,
    pub message_idx: Option<usize>,
    pub tool: String,
    pub test: Option<String>,
    pub label: Option<String>,
    pub threads: Option<u32>,
    pub quote_depth: usize,
    pub author: Option<String>,
    pub command: Option<String>,
    pub lines: [usize; 2],
    pub attrs: BTreeMap<String, String>,
    pub results: Vec<StoredResult>,
    /// Where the parser's label came from, outermost first; empty when
    /// nothing in the post's outline named the run, or for a run stored
    /// before this was kept (migrations/0018_run_label_sources.sql).
    pub label_from: Vec<StoredLabelSource>,
}

/// A block of the post's outline a run's label came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLabelSource {
    /// `heading`, `banner`, `list item`, `lead-in` or `caption`
    /// (`parsers::LabelKind::name`).
    pub kind: String,
    /// 1-based first and last line of the submission's text.
    pub lines: [usize; 2],
}

/// A submission's head from [`HEAD_COLUMNS`], the first columns of the row.
pub(super) fn head_from_row(row: &Row) -> rusqlite::Result<SubmissionHead> {
    Ok(SubmissionHead {
        id: row.get(0)?,
        source_name: row.get(1)?,
        author: row.get(2)?,
        date: row.get(3)?,
        subject: row.get(4)?,
        created_at: row.get(5)?,
    })
}

/// A submission from [`HEAD_COLUMNS`] followed by `s.text, s.sha256`.
pub(super) fn submission_from_row(row: &Row) -> rusqlite::Result<Submission> {
    Ok(Submission {
        head: head_from_row(row)?,
        text: row.get(6)?,
        sha256: row.get(7)?,
    })
}

/// A submission's summary from [`SUMMARY_COLUMNS`].
pub(super) fn summary_from_row(row: &Row) -> rusqlite::Result<SubmissionSummary> {
    let tools: Option<String> = row.get(7)?;
    Ok(SubmissionSummary {
        head: head_from_row(row)?,
        runs: row.get(6)?,
        tools: tools
            .map(|t| t.split(' ').map(str::to_owned).collect())
            .unwrap_or_default(),
        quoted_runs: row.get(8)?,
        quoted_from: row
            .get::<_, Option<String>>(9)?
            .map(|ids| ids.split(' ').filter_map(|id| id.parse().ok()).collect())
            .unwrap_or_default(),
        copies: row.get(10)?,
    })
}

/// A run from [`RUN_COLUMNS`], the first columns of the row, without its
/// attributes, results and label sources (see [`fill_run_details`]).
pub(super) fn run_from_row(row: &Row) -> rusqlite::Result<StoredRun> {
    run_from_row_at(row, 0)
}

/// A run from [`RUN_COLUMNS`] starting at column `at` (after columns of
/// the query's own, such as the run's submission).
pub(super) fn run_from_row_at(row: &Row, at: usize) -> rusqlite::Result<StoredRun> {
    Ok(StoredRun {
        id: row.get(at)?,
        idx: row.get::<_, i64>(at + 1)? as usize,
        message_idx: row.get::<_, Option<i64>>(at + 2)?.map(|i| i as usize),
        tool: row.get(at + 3)?,
        test: row.get(at + 4)?,
        label: row.get(at + 5)?,
        threads: row.get(at + 6)?,
        quote_depth: row.get::<_, i64>(at + 7)? as usize,
        author: row.get(at + 8)?,
        command: row.get(at + 9)?,
        lines: [
            row.get::<_, i64>(at + 10)? as usize,
            row.get::<_, i64>(at + 11)? as usize,
        ],
        attrs: BTreeMap::new(),
        results: Vec::new(),
        label_from: Vec::new(),
    })
}

use crate::limits::IDS_PER_QUERY;

/// Loads the attributes, results and label sources of the given runs:
/// three queries per [`IDS_PER_QUERY`] runs.
pub(super) fn fill_run_details(
    conn: &Connection,
    runs: &mut [&mut StoredRun],
) -> rusqlite::Result<()> {
    let position: HashMap<i64, usize> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| (run.id, i))
        .collect();
    let ids: Vec<i64> = runs.iter().map(|run| run.id).collect();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let mut stmt = conn.prepare(&format!(
            "SELECT run_id, key, value FROM run_attrs WHERE run_id IN ({marks})"
        ))?;
        let mut rows = stmt.query(params_from_iter(chunk))?;
        while let Some(row) = rows.next()? {
            if let Some(&i) = position.get(&row.get::<_, i64>(0)?) {
                runs[i].attrs.insert(row.get(1)?, row.get(2)?);
            }
        }
    }
    for (run_id, result) in results_of_runs(conn, &ids)? {
        if let Some(&i) = position.get(&run_id) {
            runs[i].results.push(result);
        }
    }
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let mut stmt = conn.prepare(&format!(
            "SELECT run_id, kind, first_line, last_line FROM run_label_sources
             WHERE run_id IN ({marks}) ORDER BY run_id, pos"
        ))?;
        let mut rows = stmt.query(params_from_iter(chunk))?;
        while let Some(row) = rows.next()? {
            if let Some(&i) = position.get(&row.get::<_, i64>(0)?) {
                runs[i].label_from.push(StoredLabelSource {
                    kind: row.get(1)?,
                    lines: [
                        row.get::<_, i64>(2)? as usize,
                        row.get::<_, i64>(3)? as usize,
                    ],
                });
            }
        }
    }
    Ok(())
}

/// The results of the given runs as `(run id, result)`, in the order
/// they were stored (each run's in the order printed): one query per
/// [`IDS_PER_QUERY`] runs.
pub(super) fn results_of_runs(
    conn: &Connection,
    ids: &[i64],
) -> rusqlite::Result<Vec<(i64, StoredResult)>> {
    let mut found = Vec::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let mut stmt = conn.prepare(&format!(
            "SELECT run_id, item, metric, value, unit, line, estimated FROM results
             WHERE run_id IN ({marks}) ORDER BY id"
        ))?;
        let rows = stmt.query_map(params_from_iter(chunk), |row| {
            Ok((
                row.get(0)?,
                StoredResult {
                    item: row.get(1)?,
                    metric: row.get(2)?,
                    value: row.get(3)?,
                    unit: row.get(4)?,
                    line: row.get::<_, i64>(5)? as usize,
                    estimated: row.get(6)?,
                },
            ))
        })?;
        for row in rows {
            found.push(row?);
        }
    }
    Ok(found)
}
