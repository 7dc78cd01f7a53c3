//! The run-all-tests summary (also its `RUN-*` file): header, test lines,
//! status lines and the per-operation table.

use std::collections::BTreeMap;

use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, multispace0, multispace1, space0, space1};
use nom::combinator::opt;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::number::perl_number;
use crate::text::{self, Line, LogicalLine};
use crate::{Run, Tool};

use super::{
    broken, collapse_spaces, count, cpu_parts_add_up_to_something, first_lines, index_of,
    line_at_end, machine_attrs, measurement, server_attrs, timestr, total_time_tag, wrapped_window,
    Outcome, Problem, Times, RUN_FILE_DISTANCE,
};

/// A summary (header, test lines, per-operation table) is at most this long.
const MAX_SUMMARY_LINES: usize = 600;
/// Blank lines in a row that end a summary.
const MAX_BLANK_RUN: usize = 3;

/// One test's line of a summary: `insert: Total time: 1119 wallclock secs (...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryEntry<'a> {
    /// The test script's name without `test-`: `ATIS`, `alter-table`.
    pub test: &'a str,
    pub estimated: bool,
    pub times: Times,
}

/// One row of the per-operation table.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationRow<'a> {
    pub operation: &'a str,
    pub seconds: f64,
    pub usr: f64,
    pub sys: f64,
    pub cpu: f64,
    pub tests: u64,
    /// Which of seconds, usr, sys, cpu, tests carry sql-bench's `+`.
    pub estimated: [bool; 5],
}

/// A test script's name as run-all-tests prints it: `ATIS`, `big-tables`.
fn test_name(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_').parse(input)
}

/// `insert: Total time: 1119 wallclock secs (...)`, wrapped anywhere.
pub fn summary_entry(input: &str) -> IResult<&str, SummaryEntry<'_>> {
    let (input, test) = test_name(input)?;
    let (input, _) = (char(':'), multispace1).parse(input)?;
    let (input, estimated) = total_time_tag(input)?;
    let (input, times) = preceded(multispace0, timestr).parse(input)?;
    Ok((
        input,
        SummaryEntry {
            test,
            estimated,
            times,
        },
    ))
}

/// Does a summary's `NAME: Total time:` line start here? (No nom: every
/// line with a colon goes through this.)
pub(super) fn is_entry_start(t: &str) -> bool {
    entry_rest(t).is_some_and(|rest| {
        rest.starts_with("Total time:")
            || rest.starts_with("Estimated total time:")
            || rest.starts_with("total time:")
    })
}

/// `create: Failed (output/...)`, `transactions: Test skipped because ...`.
fn is_entry_without_times(t: &str) -> bool {
    entry_rest(t).is_some_and(|rest| rest.starts_with("Failed") || rest.starts_with("Test skipped"))
}

/// The text after `NAME:` when the line starts with a test name and a colon.
/// Byte by byte: most lines of prose stop at their first space.
fn entry_rest(t: &str) -> Option<&str> {
    // The name is read within the first 41 bytes, so that a rule of
    // underscores costs no more; most prose stops at its first space. (A
    // byte search for the colon first cost a call per line, more than this.)
    let head = t.as_bytes().get(..=40).unwrap_or(t.as_bytes());
    let is_name = |b: &&u8| b.is_ascii_alphanumeric() || **b == b'-' || **b == b'_';
    let name_len = head.iter().take_while(is_name).count();
    if name_len == 0 || head.get(name_len) != Some(&b':') {
        return None;
    }
    Some(text::trim_start(t.get(name_len + 1..)?))
}

/// The summary's status lines between the test lines and the table.
fn is_status_line(t: &str) -> bool {
    (t.starts_with("All ") && t.contains("executed successfully"))
        || (t.starts_with("Of ") && t.contains("didn't work"))
        || t.starts_with("Tests with estimated time")
        || t.starts_with("Tests with didn't return")
}

/// `------`, `======`: the lines people draw around tables.
fn is_separator(t: &str) -> bool {
    t.len() >= 3 && t.bytes().all(|b| b == b'-' || b == b'=')
}

/// `Operation seconds usr sys cpu tests`, or without `Operation`.
fn table_header(input: &str) -> IResult<&str, ()> {
    let (input, _) = (
        opt((tag("Operation"), space1)),
        tag("seconds"),
        (space1, tag("usr")),
        (space1, tag("sys")),
        (space1, tag("cpu")),
        (space1, tag("tests")),
        space0,
    )
        .parse(input)?;
    Ok((input, ()))
}

pub(super) fn is_table_header(t: &str) -> bool {
    let t = text::trim_start(t);
    // Cheap first: the anchor asks this of every line starting with `O`
    // or `s` (`set-variable = ...`), and the parser and the trimming of
    // the line's end cost more than the two heads' comparison.
    (t.starts_with("Operation") || t.starts_with("seconds"))
        && matches!(table_header(t.trim_end()), Ok(("", ())))
}

/// An operation's name: `select_range`, `connect+select_simple`, `TOTALS`.
fn operation_name(input: &str) -> IResult<&str, &str> {
    let (rest, name) = take_while1(|c: char| !c.is_whitespace()).parse(input)?;
    if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        Ok((rest, name))
    } else {
        Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Alpha,
        )))
    }
}

/// sql-bench's marks after a value or a row: `+` estimated, `?` wrong
/// result, `*` a different test count.
fn marks(input: &str) -> IResult<&str, &str> {
    take_while(|c: char| c == '+' || c == '?' || c == '*').parse(input)
}

/// A table cell: `8.00`, `8.00+`; true when marked estimated.
fn marked_number(input: &str) -> IResult<&str, (f64, bool)> {
    let (input, value) = perl_number(input)?;
    let (input, mark) = marks(input)?;
    Ok((input, (value, mark.contains('+'))))
}

/// `select_range  8.00+  3.05  0.55  3.60  410 +`: name, seconds, usr, sys,
/// cpu, tests, then the row's marks. Any whitespace separates the cells, so
/// a row wrapped before its `tests` column reads the same.
pub fn operation_row(input: &str) -> IResult<&str, OperationRow<'_>> {
    let (input, operation) = operation_name(input)?;
    let (input, (seconds, e0)) = preceded(multispace1, marked_number).parse(input)?;
    let (input, (usr, e1)) = preceded(multispace1, marked_number).parse(input)?;
    let (input, (sys, e2)) = preceded(multispace1, marked_number).parse(input)?;
    let (input, (cpu, e3)) = preceded(multispace1, marked_number).parse(input)?;
    let (input, tests) = preceded(multispace1, count).parse(input)?;
    let (input, glued) = marks(input)?;
    // The row's own marks follow on its line; they say the whole row was
    // estimated.
    let (input, trailing) = opt(preceded(
        space1,
        take_while1(|c: char| c == '+' || c == '?' || c == '*'),
    ))
    .parse(input)?;
    if input.starts_with(|c: char| !c.is_whitespace()) {
        return Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Eof,
        )));
    }
    let row_estimated = glued.contains('+') || trailing.is_some_and(|m| m.contains('+'));
    let estimated = [e0, e1, e2, e3, row_estimated].map(|e| e || row_estimated);
    Ok((
        input,
        OperationRow {
            operation,
            seconds,
            usr,
            sys,
            cpu,
            tests,
            estimated,
        },
    ))
}

/// Does the line start like a table row (a name, then a perl_number)?
fn looks_like_row(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let name_ok = words
        .next()
        .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'));
    name_ok
        && words
            .next()
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
}

/// A line that continues a wrapped `Total time` line: `7.09 CPU)`, `csys = 0.13 CPU)`.
pub(super) fn looks_like_continuation(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_digit() || c == '(' || c == '=' || c == '+')
        || [
            "usr",
            "sys",
            "cusr",
            "csys",
            "CPU",
            "cpu",
            "wallclock",
            "secs",
        ]
        .iter()
        .any(|w| t.starts_with(w))
}

/// The header fields of a summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderKey {
    Suite,
    Date,
    Machine,
    Arguments,
    Comments,
    Limits,
    Server,
    Optimization,
    Hardware,
}

/// `Date of test:        2001-04-13  3:48:03` -> (Date, `2001-04-13  3:48:03`).
fn header_field(t: &str) -> Option<(HeaderKey, &str)> {
    const KEYS: [(&str, HeaderKey); 9] = [
        ("Benchmark DBD suit", HeaderKey::Suite),
        ("Date of test", HeaderKey::Date),
        ("Running tests on", HeaderKey::Machine),
        ("Arguments", HeaderKey::Arguments),
        ("Comments", HeaderKey::Comments),
        ("Limits from", HeaderKey::Limits),
        ("Server version", HeaderKey::Server),
        ("Optimization", HeaderKey::Optimization),
        ("Hardware", HeaderKey::Hardware),
    ];
    let (prefix, key) = KEYS.iter().find(|(prefix, _)| t.starts_with(prefix))?;
    let rest = &t[prefix.len()..];
    // `Benchmark DBD suite:` and sql-bench 2.0's `Benchmark DBD suit:`.
    let rest = if *key == HeaderKey::Suite {
        rest.strip_prefix('e').unwrap_or(rest)
    } else {
        rest
    };
    let value = rest.strip_prefix(':')?;
    Some((*key, value.trim()))
}

struct Entry {
    test: String,
    estimated: bool,
    times: Times,
    line: usize,
}

struct Row {
    operation: String,
    values: [f64; 5],
    estimated: [bool; 5],
    line: usize,
}

/// Reads the summary that may start at `lines[start]`: header, test lines,
/// status lines and the per-operation table, each part optional.
pub(super) fn read_summary(lines: &[Line<'_>], start: usize) -> Outcome {
    let mut reader = SummaryReader::new(lines, start);
    while reader.read_line() == Step::Next {}
    reader.finish()
}

/// Reads a per-operation table pasted without its header, from its first
/// row at `lines[start]` (see [`headless_table_start`]).
pub(super) fn read_headless_table(lines: &[Line<'_>], start: usize) -> Outcome {
    let mut reader = SummaryReader::new(lines, start);
    reader.headless = true;
    while reader.read_line() == Step::Next {}
    reader.finish()
}

/// The first row of a per-operation table pasted without its `Operation
/// seconds usr sys cpu tests` header (and the summary above it), when
/// `lines[i]` is its `TOTALS` row: the whole rows right above it at its
/// depth. `None` when `lines[i]` is no TOTALS row, no other row is above
/// it, or a header heads the rows (the summary reads its own table).
pub(super) fn headless_table_start(lines: &[Line<'_>], i: usize) -> Option<usize> {
    // Every line that may start a sql-bench report comes here: most are
    // ruled out before any trimming from the end.
    if !crate::text::trim_start(lines[i].text).starts_with("TOTALS") {
        return None;
    }
    let t = lines[i].text.trim();
    if !is_whole_row(t) {
        return None;
    }
    let depth = lines[i].depth;
    let mut first = i;
    while first > 0 && i - first < MAX_SUMMARY_LINES {
        let above = &lines[first - 1];
        let a = above.text.trim();
        if above.depth != depth || a.starts_with("TOTALS") || !is_whole_row(a) {
            break;
        }
        first -= 1;
    }
    let headed = first > 0 && {
        let a = lines[first - 1].text.trim();
        is_table_header(a) || a.starts_with("Totals per operation:")
    };
    (first < i && !headed).then_some(first)
}

/// A whole per-operation row on one line: `alter_table_add 18.00 0.02 0.00 0.02 100`.
fn is_whole_row(t: &str) -> bool {
    looks_like_row(t) && operation_row(t).is_ok_and(|(rest, _)| rest.trim().is_empty())
}

/// Whether the summary goes on after the line just read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Next,
    Stop,
}

/// A summary being read line by line: what it has gathered so far and
/// where it stands.
struct SummaryReader<'l, 'a> {
    lines: &'l [Line<'a>],
    start: usize,
    depth: usize,
    /// The line to read next.
    next: usize,
    /// The last line that belongs to the summary.
    last_used: usize,
    header: Vec<(HeaderKey, String)>,
    entries: Vec<Entry>,
    rows: Vec<Row>,
    table_intro: Option<usize>,
    table_header: Option<usize>,
    totals: bool,
    /// The first part that could not be read; the summary is then a near miss.
    problem: Option<Problem>,
    blank_run: usize,
    /// A long header value (Comments, Arguments) may be wrapped once or twice.
    continuable_header: bool,
    continuations: usize,
    /// The table's rows start the summary: its header was not pasted.
    headless: bool,
}

impl<'l, 'a> SummaryReader<'l, 'a> {
    fn new(lines: &'l [Line<'a>], start: usize) -> Self {
        SummaryReader {
            lines,
            start,
            depth: lines[start].depth,
            next: start,
            last_used: start,
            header: Vec::new(),
            entries: Vec::new(),
            rows: Vec::new(),
            table_intro: None,
            table_header: None,
            totals: false,
            problem: None,
            blank_run: 0,
            continuable_header: false,
            continuations: 0,
            headless: false,
        }
    }

    /// Reads `lines[next]` into the part of the summary it belongs to.
    fn read_line(&mut self) -> Step {
        let lines = self.lines;
        let j = self.next;
        if j >= lines.len() || j - self.start >= MAX_SUMMARY_LINES || lines[j].depth != self.depth {
            return Step::Stop;
        }
        let t = lines[j].text.trim();
        if t.is_empty() {
            return self.blank_line();
        }
        self.blank_run = 0;
        let continues_header = std::mem::take(&mut self.continuable_header);
        let in_table = self.table_header.is_some() || self.table_intro.is_some();
        if let Some((key, value)) = header_field(t) {
            return self.header_line(key, value, in_table);
        }
        let record = super::record_text(t);
        if is_entry_start(record) && !in_table {
            self.entry_line(record);
            return Step::Next;
        }
        if (is_entry_without_times(t) && !in_table) || is_status_line(t) {
            self.use_line();
            return Step::Next;
        }
        if t.starts_with("Totals per operation:") && self.table_header.is_none() {
            self.table_intro = Some(j);
            self.use_line();
            return Step::Next;
        }
        if is_separator(t) {
            self.next += 1;
            return Step::Next;
        }
        if is_table_header(t) && self.table_header.is_none() {
            self.table_header = Some(j);
            self.use_line();
            return Step::Next;
        }
        if self.table_header.is_some() || self.headless {
            return self.table_row(t);
        }
        if self.problem.is_some() && looks_like_continuation(t) {
            self.next += 1;
            return Step::Next;
        }
        if continues_header && self.continuations < 2 {
            self.header_continuation(t);
            return Step::Next;
        }
        Step::Stop
    }

    /// The current line is part of the summary.
    fn use_line(&mut self) {
        self.last_used = self.next;
        self.next += 1;
    }

    /// The summary ends at the last used line of a record that took
    /// several lines.
    fn use_lines_to(&mut self, last: usize) {
        self.last_used = last;
        self.next = last + 1;
    }

    fn blank_line(&mut self) -> Step {
        self.blank_run += 1;
        self.continuable_header = false;
        if self.blank_run >= MAX_BLANK_RUN {
            return Step::Stop;
        }
        self.next += 1;
        Step::Next
    }

    fn header_line(&mut self, key: HeaderKey, value: &str, in_table: bool) -> Step {
        // A second header, or a header after results, starts the next summary.
        if !self.entries.is_empty() || in_table || self.header.iter().any(|(k, _)| *k == key) {
            return Step::Stop;
        }
        self.header.push((key, value.to_string()));
        self.continuable_header = matches!(
            key,
            HeaderKey::Arguments
                | HeaderKey::Comments
                | HeaderKey::Hardware
                | HeaderKey::Optimization
        );
        self.continuations = 0;
        self.use_line();
        Step::Next
    }

    fn header_continuation(&mut self, t: &str) {
        if let Some((_, value)) = self.header.last_mut() {
            value.push(' ');
            value.push_str(t);
        }
        self.continuations += 1;
        self.continuable_header = true;
        self.use_line();
    }

    /// A test's `NAME: Total time: ...` line, wrapped over up to a few lines.
    fn entry_line(&mut self, t: &str) {
        let (lines, j) = (self.lines, self.next);
        let end = wrapped_window(lines, j, |t| is_entry_start(t) || header_field(t).is_some());
        let block = LogicalLine::join(&lines[j..end], "\n");
        match summary_entry(super::record_text(&block.text)) {
            Ok((rest, entry)) => {
                self.entries.push(Entry {
                    test: entry.test.to_string(),
                    estimated: entry.estimated,
                    times: entry.times,
                    line: lines[j].number,
                });
                self.use_lines_to(index_of(lines, j, line_at_end(&block, rest)));
            }
            Err(_) => {
                self.problem.get_or_insert(Problem {
                    line: lines[j].number,
                    text: block.text.clone(),
                    why: format!(
                        "sql-bench `{}: Total time:` line without a complete `N wallclock secs ( U usr S sys + CU cusr CS csys = C CPU)` part (truncated or mangled paste?)",
                        t.split(':').next().unwrap_or_default()
                    ),
                });
                self.use_line();
            }
        }
    }

    /// A row of the per-operation table; the TOTALS row ends the summary.
    fn table_row(&mut self, t: &str) -> Step {
        // `<snip>`: the poster cut rows out; the table goes on after it.
        if text::is_elision(t) {
            self.next += 1;
            return Step::Next;
        }
        if !looks_like_row(t) {
            return Step::Stop;
        }
        let (lines, j) = (self.lines, self.next);
        let end = wrapped_window(lines, j, |t| looks_like_row(t) || is_separator(t));
        let block = LogicalLine::join(&lines[j..end], "\n");
        match operation_row(&block.text) {
            Ok((rest, row)) => {
                let is_totals = row.operation == "TOTALS";
                self.rows.push(Row {
                    operation: row.operation.to_string(),
                    values: [row.seconds, row.usr, row.sys, row.cpu, row.tests as f64],
                    estimated: row.estimated,
                    line: lines[j].number,
                });
                self.use_lines_to(index_of(lines, j, line_at_end(&block, rest)));
                if is_totals {
                    self.totals = true;
                    return Step::Stop;
                }
            }
            Err(_) => {
                self.problem.get_or_insert(Problem {
                    line: lines[j].number,
                    text: t.to_string(),
                    why: "sql-bench per-operation row without its five columns: expected `NAME seconds usr sys cpu tests`".to_string(),
                });
                self.use_line();
            }
        }
        Step::Next
    }

    /// What was read: a run, a near miss with why, or nothing.
    fn finish(mut self) -> Outcome {
        let next = self.next.max(self.last_used + 1);
        if let Some(problem) = self.problem.take() {
            return broken(problem, next);
        }
        if let Some(why) = self.why_incomplete() {
            let problem = Problem {
                line: self.lines[self.start].number,
                text: first_lines(&self.lines[self.start..=self.last_used]),
                why,
            };
            return broken(problem, next);
        }
        if self.entries.is_empty() && self.rows.is_empty() {
            return Outcome::NotAReport;
        }
        Outcome::Run(Box::new(self.into_run()), next)
    }

    /// Why a summary that has started is cut short, if it is.
    fn why_incomplete(&self) -> Option<String> {
        if (self.table_header.is_some() || self.table_intro.is_some()) && !self.totals {
            return Some(match (self.table_header, self.rows.last()) {
                (None, _) => "sql-bench `Totals per operation:` without its `Operation seconds usr sys cpu tests` table (truncated paste?)".to_string(),
                (Some(_), None) => "sql-bench per-operation table header without any rows (truncated paste?)".to_string(),
                (Some(_), Some(row)) => format!(
                    "sql-bench per-operation table breaks off after `{}` (line {}) before its TOTALS row (truncated paste?)",
                    row.operation, row.line
                ),
            });
        }
        // A whole header with nothing after it is a summary cut short; a
        // lone `Running tests on:` line is only context.
        let header_only = self.entries.is_empty()
            && self.rows.is_empty()
            && self.header.iter().any(|(k, _)| *k == HeaderKey::Suite)
            && self.header.len() >= 2;
        header_only.then(|| "sql-bench run-all-tests header without any `NAME: Total time:` line or per-operation table (truncated paste?)".to_string())
    }

    fn into_run(self) -> Run {
        let mut results = Vec::with_capacity(self.entries.len() * 6 + self.rows.len() * 5);
        for entry in &self.entries {
            let item = format!("test-{}", entry.test);
            for (metric, value) in entry.times.metrics() {
                results.push(measurement(
                    &item,
                    metric,
                    value,
                    entry.line,
                    entry.estimated,
                ));
            }
        }
        for row in &self.rows {
            let metrics = ["wallclock_s", "usr_s", "sys_s", "cpu_s", "tests"];
            // The cpu column copies each test's `= C CPU`: 0.00 beside
            // non-zero usr and sys is Benchmark.pm's missing total.
            let [_, usr, sys, cpu, _] = row.values;
            let cpu_unmeasured =
                cpu == 0.0 && cpu_parts_add_up_to_something([Some(usr), Some(sys), None, None]);
            for ((metric, value), estimated) in
                metrics.into_iter().zip(row.values).zip(row.estimated)
            {
                if metric == "cpu_s" && cpu_unmeasured {
                    continue;
                }
                results.push(measurement(
                    &row.operation,
                    metric,
                    value,
                    row.line,
                    estimated,
                ));
            }
        }
        let mut attrs = BTreeMap::new();
        for (key, value) in &self.header {
            header_attrs(*key, value, &mut attrs);
        }
        if let Some(file) = run_file_near(self.lines, self.start, self.last_used) {
            attrs.insert("run_file".to_string(), file);
        }
        let lines = [
            self.lines[self.start].number,
            self.lines[self.last_used].number,
        ];
        Run {
            test: Some("run-all-tests".to_string()),
            attrs,
            ..Run::new(Tool::SqlBench, self.depth, lines, results)
        }
    }
}

/// Attributes from one header field.
fn header_attrs(key: HeaderKey, value: &str, attrs: &mut BTreeMap<String, String>) {
    let value = collapse_spaces(value);
    if value.is_empty() {
        return;
    }
    let mut set = |k: &str, v: String| {
        attrs.insert(k.to_string(), v);
    };
    match key {
        HeaderKey::Suite => set("tool_version", value),
        HeaderKey::Date => set("date", value),
        HeaderKey::Machine => {
            for (k, v) in machine_attrs(&value) {
                set(k, v);
            }
        }
        HeaderKey::Arguments => set("arguments", value),
        HeaderKey::Comments => set("comments", value),
        HeaderKey::Limits => set("limits_from", value),
        HeaderKey::Server => {
            for (k, v) in server_attrs(&value) {
                set(k, v);
            }
        }
        // run-all-tests prints `None` when no --optimization was given.
        HeaderKey::Optimization if value != "None" => set("optimization", value),
        HeaderKey::Optimization => {}
        HeaderKey::Hardware => set("hardware", value),
    }
}

/// The `RUN-mysql-Linux_2.4.0_i686` file a summary was read from, when the
/// text names it just before or after the summary.
fn run_file_near(lines: &[Line<'_>], first: usize, last: usize) -> Option<String> {
    let before = first.saturating_sub(RUN_FILE_DISTANCE)..first;
    let after = (last + 1)..(last + 1 + RUN_FILE_DISTANCE).min(lines.len());
    before.chain(after).find_map(|i| {
        let text = lines[i].text;
        if !text.contains("RUN-") {
            return None;
        }
        text.split_whitespace().find_map(|word| {
            let word = word.trim_matches(|c: char| {
                matches!(c, '"' | '\'' | ':' | ',' | '<' | '>' | '(' | ')' | '`')
            });
            let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
            (name.starts_with("RUN-") && name.len() > 4).then(|| name.to_string())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql_bench::SqlBenchReader;
    use crate::Unparsed;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of::<SqlBenchReader>(input)
    }

    #[test]
    fn a_table_pasted_without_its_header() {
        let (runs, unparsed) = runs_of(
            "The table, cut to its rows:\n\
             alter_table_add                       18.00    0.02    0.00    0.02     100\n\
             connect                                2.00    1.02    0.51    1.53    2000\n\
             TOTALS                              2865.00  310.26   79.94  390.20 2974250 ++\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!(runs[0].lines, [2, 4]);
        assert_eq!(runs[0].value("connect", "tests"), Some(2000.0));
        assert_eq!(runs[0].value("TOTALS", "cpu_s"), Some(390.2));
        // Rows without a TOTALS row, or a lone TOTALS line, are no table.
        for input in [
            "alter_table_add 18.00 0.02 0.00 0.02 100\nconnect 2.00 1.02 0.51 1.53 2000\n",
            "TOTALS 2865.00 310.26 79.94 390.20 2974250\n",
        ] {
            let (runs, unparsed) = runs_of(input);
            assert!(runs.is_empty() && unparsed.is_empty(), "{input:?}");
        }
    }

    #[test]
    fn entries_after_list_marks_and_lead_ins() {
        let (runs, unparsed) = runs_of(
            "My results: ATIS: Total time: 26 wallclock secs ( 4.84 usr 2.25 sys + 0.00 cusr 0.00 csys = 7.09 CPU)\n\
             - alter-table: Total time: 143 wallclock secs ( 0.10 usr 0.03 sys + 0.00 cusr 0.00 csys = 0.13 CPU)\n\
             * insert: Estimated total time: 199360 wallclock secs (879.85 usr 202.59 sys +  0.00 cusr  0.00 csys = 1082.45 CPU)\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!(runs[0].value("test-ATIS", "cpu_s"), Some(7.09));
        assert_eq!(runs[0].value("test-alter-table", "cpu_s"), Some(0.13));
        assert_eq!(runs[0].value("test-insert", "cpu_s"), Some(1082.45));
        assert_eq!(runs[0].lines, [1, 3]);
    }

    #[test]
    fn operation_rows() {
        type Want = Option<(&'static str, f64, u64, [bool; 5])>;
        let cases: [(&str, Want); 8] = [
            (
                "alter_table_add                       49.00    0.26    0.06    0.32     992 ",
                Some(("alter_table_add", 49.0, 992, [false; 5])),
            ),
            (
                "count_on_key                        1850.00   15.78    1.99   17.77   50100 +",
                Some(("count_on_key", 1850.0, 50100, [true; 5])),
            ),
            (
                "select_range                            8.00+   3.05    0.55    3.60     410",
                Some(("select_range", 8.0, 410, [true, false, false, false, false])),
            ),
            (
                "connect+select_simple 11.00 4.60 2.54 7.14 10000",
                Some(("connect+select_simple", 11.0, 10000, [false; 5])),
            ),
            (
                "count_distinct_group_on_key_parts    191.00    1.32    0.34    1.66\n1000",
                Some(("count_distinct_group_on_key_parts", 191.0, 1000, [false; 5])),
            ),
            (
                "TOTALS 2124.00 315.43 106.74 422.17 1875011",
                Some(("TOTALS", 2124.0, 1875011, [false; 5])),
            ),
            ("select_range 8.00 3.05 0.55", None),
            (
                "select_range 8.00 3.05 0.55 3.60 99999999999999999999999",
                None,
            ),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let got = operation_row(input)
                .ok()
                .map(|(_, r)| (r.operation, r.seconds, r.tests, r.estimated));
            assert_eq!(got, want, "case {i}: {input:?}");
        }
    }

    #[test]
    fn benchmark_pm_zero_cpu_is_left_out_and_true_zeros_kept() {
        // sql-bench/Results/RUN-mysql-NT_4.0 (2000): Benchmark.pm printed
        // its iteration count, 0, where the CPU total belongs.
        let (runs, unparsed) = runs_of(
            "Benchmark DBD suite: 2.9\r\nRunning tests on:    Windows NT Version 4.0  \r\n\r\n\
             ATIS: Total time: 69 wallclock secs (23.89 usr  9.98 sys +  0.00 cusr  0.00 csys =  0.00 CPU)\r\n\r\n\
             Totals per operation:\r\nOperation             seconds     usr     sys     cpu   tests\r\n\
             alter_table_add                     1242.00    0.42    0.17    0.00     992 \r\n\
             drop_table                             0.00    0.00    0.00    0.00      28 \r\n\
             TOTALS                              12412.00 1008.17  519.72    0.00 1845595 \r\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.value("test-ATIS", "usr_s"), Some(23.89));
        assert_eq!(run.value("test-ATIS", "cpu_s"), None);
        assert_eq!(run.value("alter_table_add", "cpu_s"), None);
        assert_eq!(run.value("alter_table_add", "sys_s"), Some(0.17));
        assert_eq!(run.value("drop_table", "cpu_s"), Some(0.0));
        assert_eq!(run.value("TOTALS", "cpu_s"), None);
        assert_eq!(run.value("TOTALS", "tests"), Some(1845595.0));
        let attrs: Vec<(&str, &str)> = ["os", "os_version"]
            .iter()
            .filter_map(|k| run.attrs.get(*k).map(|v| (*k, v.as_str())))
            .collect();
        assert_eq!(attrs, [("os", "Windows NT"), ("os_version", "4.0")]);
    }

    #[test]
    fn sql_bench_2_0b_cpu_secs_and_integer_seconds() {
        // sql-bench/Results/RUN-mysql-3.21-Linux_2.2.1_i686 (1999).
        let (runs, unparsed) = runs_of(
            "Benchmark DBD suite: 2.0b\n\
             select: Estimated total time: 1794 wallclock secs (79.34 usr 14.54 sys +  0.00 cusr  0.00 csys =  0.00 CPU secs)\n\
             \nTotals per operation:\nOperation             seconds     usr     sys     cpu   tests\n\
             count_on_key              640   27.18    3.47    0.00   50100 +\n\
             TOTALS                   5009  538.76  178.94    0.00 1411318 ++\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.value("test-select", "wallclock_s"), Some(1794.0));
        assert_eq!(run.value("test-select", "cpu_s"), None);
        assert_eq!(run.value("count_on_key", "wallclock_s"), Some(640.0));
        assert_eq!(run.value("TOTALS", "wallclock_s"), Some(5009.0));
        let select = run
            .results
            .iter()
            .find(|r| r.item == "test-select")
            .unwrap();
        assert!(select.estimated);
    }

    #[test]
    fn summary_with_wrapped_entries_and_totals() {
        let (runs, unparsed) = runs_of(
            "Benchmark DBD suite: 2.11a\nDate of test: 2001-01-24 8:58:30\nRunning tests on: Linux 2.4.0 i686\n\
             Arguments:\nComments:\nLimits from: mysql,mysql,pg,solid\nServer version: MySQL 3.23.32 log\n\
             ATIS: Total time: 26 wallclock secs ( 4.84 usr 2.25 sys + 0.00 cusr 0.00 csys =\n7.09 CPU)\n\
             alter-table: Total time: 143 wallclock secs ( 0.10 usr 0.03 sys + 0.00 cusr 0.00\ncsys = 0.13 CPU)\n\
             big-tables: Total time: 24 wallclock secs ( 5.66 usr 4.44 sys + 0.00 cusr 0.00 csys\n= 10.10 CPU)\n\
             ----------\nseconds usr sys cpu tests\nTOTALS 2124.00 315.43 106.74 422.17 1875011\n----------\nThat's all.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.lines, [1, 16]);
        assert_eq!(run.value("test-alter-table", "cpu_s"), Some(0.13));
        assert_eq!(run.value("test-big-tables", "cpu_s"), Some(10.10));
        assert_eq!(run.value("TOTALS", "tests"), Some(1875011.0));
        assert_eq!(
            run.attrs.get("limits_from").map(String::as_str),
            Some("mysql,mysql,pg,solid")
        );
        assert!(!run.attrs.contains_key("arguments"));
        let big = run
            .results
            .iter()
            .find(|r| r.item == "test-big-tables")
            .unwrap();
        assert_eq!(big.line, 12);
    }
}
