//! MySQL's sql-bench, in the three shapes people post it.
//!
//! The run-all-tests summary (also the `output/RUN-*` file it writes):
//!
//! ```text
//! Benchmark DBD suite: 2.11a
//! Date of test:        2001-01-24  8:58:30
//! Running tests on:    Linux 2.4.0 i686
//! Server version:      MySQL 3.23.32 log
//!
//! ATIS: Total time: 26 wallclock secs ( 4.84 usr  2.25 sys +  0.00 cusr  0.00 csys =  7.09 CPU)
//! insert: Estimated total time: 199360 wallclock secs (879.85 usr 202.59 sys +  0.00 cusr  0.00 csys = 1082.45 CPU)
//!
//! Totals per operation:
//! Operation             seconds     usr     sys     cpu   tests
//! alter_table_add                       49.00    0.26    0.06    0.32     992
//! count_on_key                        1850.00   15.78    1.99   17.77   50100 +
//! TOTALS                              224650.00 1060.42  234.52 1294.94 2551551 ++
//! ```
//!
//! and one test's own log (`output/insert-mysql-...`):
//!
//! ```text
//! Testing server 'MySQL 3.23.37' at 2001-04-13  1:16:40
//! Time for insert (300000): 122 wallclock secs (20.64 usr 11.54 sys +  0.00 cusr  0.00 csys = 32.18 CPU)
//! Estimated time for min_max_on_key (70000): 3714 wallclock secs (...)
//! Total time: 2773 wallclock secs (682.10 usr 184.31 sys +  0.00 cusr  0.00 csys = 866.41 CPU)
//! ```
//!
//! Times are Perl Benchmark's `timestr()`: `N wallclock secs ( U usr S
//! sys + CU cusr CS csys = C CPU)`, `N secs ( U usr S sys = C cpu)` in
//! sql-bench 2.0, a `%g` wallclock with `--hires`. Mailers wrap these lines anywhere
//! and cut the per-operation rows before their `tests` column, so every
//! line that may be wrapped is read from a window of lines in which any
//! whitespace, line breaks included, separates two fields.

use std::collections::BTreeMap;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{
    char, digit0, digit1, multispace0, multispace1, one_of, space0, space1,
};
use nom::combinator::{opt, recognize};
use nom::multi::many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::text::{Line, LogicalLine};
use crate::{metric_info, Measurement, Run, Tool, Unparsed};

/// A summary (header, test lines, per-operation table) is at most this long.
const MAX_SUMMARY_LINES: usize = 600;
/// A single test's log is at most this long.
const MAX_LOG_LINES: usize = 1000;
/// Lines without a `Time for` line that a test log may hold in a row
/// (its own progress messages, `Note: Query took longer ...`, blanks).
const MAX_LOG_GAP: usize = 16;
/// A wrapped `Total time` line or table row spans at most this many lines.
const MAX_WRAPPED_LINES: usize = 4;
/// Blank lines in a row that end a summary.
const MAX_BLANK_RUN: usize = 3;
/// How far around a report a `RUN-*` file name may be mentioned.
const RUN_FILE_DISTANCE: usize = 3;

/// Benchmark's `timestr()`: wall-clock and CPU seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Times {
    pub wallclock: f64,
    pub usr: Option<f64>,
    pub sys: Option<f64>,
    pub cusr: Option<f64>,
    pub csys: Option<f64>,
    pub cpu: f64,
}

impl Times {
    fn add(&mut self, other: &Times) {
        fn sum(a: Option<f64>, b: Option<f64>) -> Option<f64> {
            match (a, b) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
            }
        }
        self.wallclock += other.wallclock;
        self.usr = sum(self.usr, other.usr);
        self.sys = sum(self.sys, other.sys);
        self.cusr = sum(self.cusr, other.cusr);
        self.csys = sum(self.csys, other.csys);
        self.cpu += other.cpu;
    }

    fn metrics(&self) -> impl Iterator<Item = (&'static str, f64)> {
        [
            ("wallclock_s", Some(self.wallclock)),
            ("usr_s", self.usr),
            ("sys_s", self.sys),
            ("cusr_s", self.cusr),
            ("csys_s", self.csys),
            ("cpu_s", Some(self.cpu)),
        ]
        .into_iter()
        .filter_map(|(metric, value)| value.map(|v| (metric, v)))
    }
}

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

/// The start of a test log's `Time for NAME (N): ` line.
#[derive(Debug, Clone, PartialEq)]
pub struct TimePrefix<'a> {
    pub estimated: bool,
    pub operation: &'a str,
    /// The first number in the parentheses: how many tests were run.
    pub tests: u64,
}

/// Finds every sql-bench report in the lines; reports that start but break
/// off become [`Unparsed`] entries.
pub fn find_runs(lines: &[Line<'_>], runs: &mut Vec<Run>, unparsed: &mut Vec<Unparsed>) {
    let mut i = 0;
    while i < lines.len() {
        let outcome = match anchor(lines[i].text) {
            None => {
                i += 1;
                continue;
            }
            Some(Anchor::Summary) => read_summary(lines, i),
            Some(Anchor::TestLog) => read_test_log(lines, i),
        };
        match outcome {
            Outcome::Run(run, next) => {
                runs.push(*run);
                i = next.max(i + 1);
            }
            Outcome::Broken(miss, next) => {
                unparsed.push(miss);
                i = next.max(i + 1);
            }
            Outcome::NotAReport => i += 1,
        }
    }
}

enum Anchor {
    Summary,
    TestLog,
}

enum Outcome {
    /// The run and the index of the first line after it.
    Run(Box<Run>, usize),
    /// Report-shaped text that could not be read, and where to go on.
    Broken(Unparsed, usize),
    NotAReport,
}

/// The cheap test every line goes through: can a report start here?
fn anchor(text: &str) -> Option<Anchor> {
    let blanks = text
        .bytes()
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count();
    let t = &text[blanks..];
    match t.as_bytes().first()? {
        b'B' if t.starts_with("Benchmark DBD suit") => Some(Anchor::Summary),
        b'D' if t.starts_with("Date of test:") => Some(Anchor::Summary),
        b'R' if t.starts_with("Running tests on:") => Some(Anchor::Summary),
        b'T' if t.starts_with("Totals per operation:") => Some(Anchor::Summary),
        b'T' if t.starts_with("Testing server '") => Some(Anchor::TestLog),
        b'T' | b'E' if time_prefix(t).is_ok() => Some(Anchor::TestLog),
        b'O' | b's' if is_table_header(t) => Some(Anchor::Summary),
        _ if is_entry_start(t) => Some(Anchor::Summary),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Small parsers

/// A number as Perl prints it: `7.09`, `26`, `0.0123`, `1.5e+06`.
fn number(input: &str) -> IResult<&str, f64> {
    let (rest, text) = recognize((
        opt(char('-')),
        digit1,
        opt((char('.'), digit0)),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(input)?;
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok((rest, value)),
        _ => Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Float,
        ))),
    }
}

fn count(input: &str) -> IResult<&str, u64> {
    let (rest, digits) = digit1(input)?;
    match digits.parse::<u64>() {
        Ok(value) => Ok((rest, value)),
        Err(_) => Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Digit,
        ))),
    }
}

#[derive(Clone, Copy)]
enum CpuPart {
    Usr,
    Sys,
    Cusr,
    Csys,
}

/// `4.84 usr`, `0.00 csys`.
fn cpu_part(input: &str) -> IResult<&str, (CpuPart, f64)> {
    let (input, value) = number(input)?;
    let (input, _) = multispace1(input)?;
    let (input, part) = alt((
        tag("cusr").map(|_| CpuPart::Cusr),
        tag("csys").map(|_| CpuPart::Csys),
        tag("usr").map(|_| CpuPart::Usr),
        tag("sys").map(|_| CpuPart::Sys),
    ))
    .parse(input)?;
    Ok((input, (part, value)))
}

/// Benchmark's `timestr()`: `26 wallclock secs ( 4.84 usr 2.25 sys + 0.00
/// cusr 0.00 csys = 7.09 CPU)`, `75 secs ( 5.52 usr 18.40 sys = 23.92 cpu)`.
pub fn timestr(input: &str) -> IResult<&str, Times> {
    let (input, wallclock) = number(input)?;
    let (input, _) = (
        multispace1,
        opt((tag("wallclock"), multispace1)),
        tag("secs"),
    )
        .parse(input)?;
    let (input, _) = (multispace0, char('('), multispace0).parse(input)?;
    let (input, first) = cpu_part(input)?;
    let (input, more) = many0(preceded(
        (multispace1, opt((char('+'), multispace1))),
        cpu_part,
    ))
    .parse(input)?;
    let (input, _) = (multispace0, char('='), multispace0).parse(input)?;
    let (input, cpu) = number(input)?;
    let (input, _) = (
        multispace1,
        alt((tag("CPU"), tag("cpu"))),
        multispace0,
        char(')'),
    )
        .parse(input)?;
    let mut times = Times {
        wallclock,
        cpu,
        ..Times::default()
    };
    for (part, value) in std::iter::once(first).chain(more) {
        let slot = match part {
            CpuPart::Usr => &mut times.usr,
            CpuPart::Sys => &mut times.sys,
            CpuPart::Cusr => &mut times.cusr,
            CpuPart::Csys => &mut times.csys,
        };
        *slot = Some(value);
    }
    Ok((input, times))
}

/// A test script's name as run-all-tests prints it: `ATIS`, `big-tables`.
fn test_name(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_').parse(input)
}

/// `Total time:` or `Estimated total time:`; true when estimated.
fn total_time_tag(input: &str) -> IResult<&str, bool> {
    alt((
        (
            tag("Estimated"),
            multispace1,
            alt((tag("total"), tag("Total"))),
        )
            .map(|_| true),
        alt((tag("Total"), tag("total"))).map(|_| false),
    ))
    .parse(input)
    .and_then(|(input, estimated)| {
        let (input, _) = (multispace1, tag("time:")).parse(input)?;
        Ok((input, estimated))
    })
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
fn is_entry_start(t: &str) -> bool {
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
    let name_len = t
        .bytes()
        .take(41)
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
        .count();
    if name_len == 0 || name_len > 40 || t.as_bytes().get(name_len) != Some(&b':') {
        return None;
    }
    Some(t[name_len + 1..].trim_start())
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

fn is_table_header(t: &str) -> bool {
    matches!(table_header(t.trim()), Ok(("", ())))
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
    let (input, value) = number(input)?;
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

/// Does the line start like a table row (a name, then a number)?
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
fn looks_like_continuation(t: &str) -> bool {
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

/// `Time for insert (300000): `, `Time to select_many_fields(1000): `,
/// `Estimated time for count_on_key (50000): `, `Time for select_big (70:17207) `.
pub fn time_prefix(input: &str) -> IResult<&str, TimePrefix<'_>> {
    let (input, estimated) = alt((
        (tag("Estimated"), space1, tag("time")).map(|_| true),
        tag("Time").map(|_| false),
    ))
    .parse(input)?;
    let (input, _) = (space1, alt((tag("for"), tag("to"))), space1).parse(input)?;
    let (input, operation) =
        take_while1(|c: char| !c.is_whitespace() && c != ':' && c != '(').parse(input)?;
    let (input, _) = (space0, char('(')).parse(input)?;
    let (input, tests) = count(input)?;
    let (input, _) = (many0((char(':'), digit0)), char(')')).parse(input)?;
    // What run-all-tests skips with `[^:]*:`; the colon itself is missing
    // in some tests' lines.
    let (input, _) =
        take_while(|c: char| c != ':' && c != '\n' && !c.is_ascii_digit()).parse(input)?;
    let (input, _) = opt(char(':')).parse(input)?;
    Ok((
        input,
        TimePrefix {
            estimated,
            operation,
            tests,
        },
    ))
}

/// `Time for insert (300000): 122 wallclock secs (...)`, wrapped anywhere.
fn time_line(input: &str) -> IResult<&str, (TimePrefix<'_>, Times)> {
    let (input, prefix) = time_prefix(input)?;
    let (input, times) = preceded(multispace0, timestr).parse(input)?;
    Ok((input, (prefix, times)))
}

/// A single test's final `Total time: ...` (or `Estimated total time: ...`).
fn total_line(input: &str) -> IResult<&str, (bool, Times)> {
    let (input, estimated) = total_time_tag(input)?;
    let (input, times) = preceded(multispace0, timestr).parse(input)?;
    Ok((input, (estimated, times)))
}

fn is_total_line_start(t: &str) -> bool {
    (t.starts_with("Total time:") || t.starts_with("Estimated total time:"))
        && total_time_tag(t).is_ok()
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

// ---------------------------------------------------------------------------
// The run-all-tests summary and the RUN- file

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

struct Problem {
    line: usize,
    text: String,
    why: String,
}

/// Reads the summary that may start at `lines[start]`: header, test lines,
/// status lines and the per-operation table, each part optional.
fn read_summary(lines: &[Line<'_>], start: usize) -> Outcome {
    let depth = lines[start].depth;
    let mut header: Vec<(HeaderKey, String)> = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut table_intro: Option<usize> = None;
    let mut table_header: Option<usize> = None;
    let mut totals = false;
    let mut problem: Option<Problem> = None;
    let mut last_used = start;
    let mut blank_run = 0;
    // A long header value (Comments, Arguments) may be wrapped once or twice.
    let mut continuable_header = false;
    let mut continuations = 0;
    let mut j = start;
    while j < lines.len() && j - start < MAX_SUMMARY_LINES {
        let line = &lines[j];
        if line.depth != depth {
            break;
        }
        let t = line.text.trim();
        if t.is_empty() {
            blank_run += 1;
            continuable_header = false;
            if blank_run >= MAX_BLANK_RUN {
                break;
            }
            j += 1;
            continue;
        }
        blank_run = 0;
        let continues_header = std::mem::take(&mut continuable_header);
        let in_table = table_header.is_some() || table_intro.is_some();
        if let Some((key, value)) = header_field(t) {
            // A second header, or a header after results, starts the next summary.
            if !entries.is_empty() || in_table || header.iter().any(|(k, _)| *k == key) {
                break;
            }
            header.push((key, value.to_string()));
            continuable_header = matches!(
                key,
                HeaderKey::Arguments
                    | HeaderKey::Comments
                    | HeaderKey::Hardware
                    | HeaderKey::Optimization
            );
            continuations = 0;
            last_used = j;
            j += 1;
            continue;
        }
        if is_entry_start(t) && !in_table {
            let end = wrapped_window(lines, j, |t| is_entry_start(t) || header_field(t).is_some());
            let block = LogicalLine::join(&lines[j..end], "\n");
            match summary_entry(&block.text) {
                Ok((rest, entry)) => {
                    let last = index_of(lines, j, line_at_end(&block, rest));
                    entries.push(Entry {
                        test: entry.test.to_string(),
                        estimated: entry.estimated,
                        times: entry.times,
                        line: line.number,
                    });
                    last_used = last;
                    j = last + 1;
                }
                Err(_) => {
                    problem.get_or_insert(Problem {
                        line: line.number,
                        text: block.text.clone(),
                        why: format!(
                            "sql-bench `{}: Total time:` line without a complete `N wallclock secs ( U usr S sys + CU cusr CS csys = C CPU)` part (truncated or mangled paste?)",
                            t.split(':').next().unwrap_or_default()
                        ),
                    });
                    last_used = j;
                    j += 1;
                }
            }
            continue;
        }
        if (is_entry_without_times(t) && !in_table) || is_status_line(t) {
            last_used = j;
            j += 1;
            continue;
        }
        if t.starts_with("Totals per operation:") && table_header.is_none() {
            table_intro = Some(j);
            last_used = j;
            j += 1;
            continue;
        }
        if is_separator(t) {
            j += 1;
            continue;
        }
        if is_table_header(t) && table_header.is_none() {
            table_header = Some(j);
            last_used = j;
            j += 1;
            continue;
        }
        if table_header.is_some() {
            if !looks_like_row(t) {
                break;
            }
            let end = wrapped_window(lines, j, |t| looks_like_row(t) || is_separator(t));
            let block = LogicalLine::join(&lines[j..end], "\n");
            match operation_row(&block.text) {
                Ok((rest, row)) => {
                    let last = index_of(lines, j, line_at_end(&block, rest));
                    let is_totals = row.operation == "TOTALS";
                    rows.push(Row {
                        operation: row.operation.to_string(),
                        values: [row.seconds, row.usr, row.sys, row.cpu, row.tests as f64],
                        estimated: row.estimated,
                        line: line.number,
                    });
                    last_used = last;
                    j = last + 1;
                    if is_totals {
                        totals = true;
                        break;
                    }
                }
                Err(_) => {
                    problem.get_or_insert(Problem {
                        line: line.number,
                        text: t.to_string(),
                        why: "sql-bench per-operation row without its five columns: expected `NAME seconds usr sys cpu tests`".to_string(),
                    });
                    last_used = j;
                    j += 1;
                }
            }
            continue;
        }
        if problem.is_some() && looks_like_continuation(t) {
            j += 1;
            continue;
        }
        if continues_header && continuations < 2 {
            if let Some((_, value)) = header.last_mut() {
                value.push(' ');
                value.push_str(t);
            }
            continuations += 1;
            continuable_header = true;
            last_used = j;
            j += 1;
            continue;
        }
        break;
    }
    let next = j.max(last_used + 1);
    let first_lines = || {
        lines[start..=last_used]
            .iter()
            .filter(|l| !l.is_blank())
            .take(3)
            .map(|l| l.text.trim())
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Some(problem) = problem {
        return broken(problem, next);
    }
    if (table_header.is_some() || table_intro.is_some()) && !totals {
        let why = match (table_header, rows.last()) {
            (None, _) => "sql-bench `Totals per operation:` without its `Operation seconds usr sys cpu tests` table (truncated paste?)".to_string(),
            (Some(_), None) => "sql-bench per-operation table header without any rows (truncated paste?)".to_string(),
            (Some(_), Some(row)) => format!(
                "sql-bench per-operation table breaks off after `{}` (line {}) before its TOTALS row (truncated paste?)",
                row.operation, row.line
            ),
        };
        return broken(
            Problem {
                line: lines[start].number,
                text: first_lines(),
                why,
            },
            next,
        );
    }
    if entries.is_empty() && rows.is_empty() {
        // A whole header with nothing after it is a summary cut short; a
        // lone `Running tests on:` line is only context.
        if header.iter().any(|(k, _)| *k == HeaderKey::Suite) && header.len() >= 2 {
            let why = "sql-bench run-all-tests header without any `NAME: Total time:` line or per-operation table (truncated paste?)".to_string();
            return broken(
                Problem {
                    line: lines[start].number,
                    text: first_lines(),
                    why,
                },
                next,
            );
        }
        return Outcome::NotAReport;
    }
    let mut results = Vec::with_capacity(entries.len() * 6 + rows.len() * 5);
    for entry in &entries {
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
    for row in &rows {
        let metrics = ["wallclock_s", "usr_s", "sys_s", "cpu_s", "tests"];
        for ((metric, value), estimated) in metrics.into_iter().zip(row.values).zip(row.estimated) {
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
    for (key, value) in &header {
        header_attrs(*key, value, &mut attrs);
    }
    if let Some(file) = run_file_near(lines, start, last_used) {
        attrs.insert("run_file".to_string(), file);
    }
    let run = Run {
        tool: Tool::SqlBench,
        test: Some("run-all-tests".to_string()),
        label: None,
        threads: None,
        attrs,
        quote_depth: depth,
        author: None,
        message: None,
        command: None,
        lines: [lines[start].number, lines[last_used].number],
        results,
    };
    Outcome::Run(Box::new(run), next)
}

fn broken(problem: Problem, next: usize) -> Outcome {
    Outcome::Broken(
        Unparsed {
            line: problem.line,
            text: problem.text,
            why: problem.why,
        },
        next,
    )
}

/// The lines a wrapped line may use: from `start` to before a blank line,
/// a change of depth, or a line that `starts_another` says begins the next
/// record. A replier's mailer that re-wraps a quoted line leaves the rest
/// without its `>`: a less quoted line that reads like the rest of a time
/// (`7.09 CPU)`) still belongs to it.
fn wrapped_window(
    lines: &[Line<'_>],
    start: usize,
    starts_another: impl Fn(&str) -> bool,
) -> usize {
    let depth = lines[start].depth;
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_WRAPPED_LINES {
        let line = &lines[end];
        let t = line.text.trim();
        let rewrapped = line.depth < depth && looks_like_continuation(t);
        if (line.depth != depth && !rewrapped) || line.is_blank() || starts_another(t) {
            break;
        }
        end += 1;
    }
    end
}

/// The source line of the last byte a parser used (`rest` is what it left).
fn line_at_end(block: &LogicalLine, rest: &str) -> usize {
    let used = block.text.len().saturating_sub(rest.len());
    block.line_at(used.saturating_sub(1))
}

/// The index in `lines` of source line `number`, counted from `lines[from]`.
fn index_of(lines: &[Line<'_>], from: usize, number: usize) -> usize {
    let index = from + number.saturating_sub(lines[from].number);
    index.clamp(from, lines.len() - 1)
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

fn collapse_spaces(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `Running tests on: Linux 2.4.0-64GB-SMP i686` is uname's system,
/// release and machine: os, os_version, arch.
pub fn machine_attrs(value: &str) -> Vec<(&'static str, String)> {
    let words: Vec<&str> = value.split_whitespace().collect();
    match words.as_slice() {
        [] => Vec::new(),
        [os] => vec![("os", os.to_string())],
        [os, version] => vec![("os", os.to_string()), ("os_version", version.to_string())],
        [os @ .., version, arch] => vec![
            ("os", os.join(" ")),
            ("os_version", version.to_string()),
            ("arch", arch.to_string()),
        ],
    }
}

/// `MySQL 3.23.32 log` (server-cfg prints `MySQL ` and VERSION() with its
/// dashes made spaces): db_server MySQL, db_version 3.23.32. `MySQL 5.5.5
/// 10.1.22 MariaDB log` is MariaDB 10.1.22; `PostgreSQL version 7.1.1` is
/// PostgreSQL 7.1.1.
pub fn server_attrs(value: &str) -> Vec<(&'static str, String)> {
    let mut words = value.split_whitespace();
    let Some(first) = words.next() else {
        return Vec::new();
    };
    let rest: Vec<&str> = words.collect();
    let trim = |w: &str| {
        w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
            .to_string()
    };
    let versions: Vec<String> = rest
        .iter()
        .filter(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .map(|w| trim(w))
        .filter(|w| !w.is_empty())
        .collect();
    let mariadb = rest
        .iter()
        .any(|w| w.to_ascii_lowercase().starts_with("mariadb"));
    let server = if mariadb {
        "MariaDB".to_string()
    } else {
        trim(first)
    };
    // MariaDB 10 reports itself as `5.5.5-10.1.22-MariaDB` to old clients.
    let version = match versions.as_slice() {
        [compat, real, ..] if mariadb && compat == "5.5.5" => Some(real.clone()),
        [version, ..] => Some(version.clone()),
        [] => None,
    };
    let mut attrs = Vec::new();
    if !server.is_empty() {
        attrs.push(("db_server", server));
    }
    if let Some(version) = version {
        attrs.push(("db_version", version));
    }
    attrs
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

// ---------------------------------------------------------------------------
// A single test's log

struct Operation {
    name: String,
    times: Times,
    tests: u64,
    estimated: bool,
    line: usize,
}

/// Reads the test log that may start at `lines[start]`: `Testing server
/// '...' at DATE`, the test's own messages, `Time for/to NAME (N): ...`
/// lines and the final `Total time: ...`.
fn read_test_log(lines: &[Line<'_>], start: usize) -> Outcome {
    let depth = lines[start].depth;
    let server = testing_server(lines[start].text.trim());
    let mut operations: Vec<Operation> = Vec::new();
    let mut total: Option<(bool, Times, usize)> = None;
    let mut problem: Option<Problem> = None;
    let mut last_used = start;
    let mut gap = 0;
    let mut j = if server.is_some() { start + 1 } else { start };
    while j < lines.len() && j - start < MAX_LOG_LINES {
        let line = &lines[j];
        if line.depth != depth {
            break;
        }
        let t = line.text.trim();
        if t.starts_with("Testing server '") || t.starts_with("Benchmark DBD suit") {
            break;
        }
        let is_total = is_total_line_start(t);
        let is_time = !is_total && time_prefix(t).is_ok();
        if !is_total && !is_time {
            gap += 1;
            if gap > MAX_LOG_GAP {
                break;
            }
            j += 1;
            continue;
        }
        gap = 0;
        let end = wrapped_window(lines, j, |t| {
            is_total_line_start(t) || time_prefix(t).is_ok()
        });
        let block = LogicalLine::join(&lines[j..end], "\n");
        if is_total {
            match total_line(&block.text) {
                Ok((rest, (estimated, times))) => {
                    last_used = index_of(lines, j, line_at_end(&block, rest));
                    total = Some((estimated, times, line.number));
                }
                Err(_) => {
                    problem.get_or_insert(Problem {
                        line: line.number,
                        text: block.text.clone(),
                        why: "sql-bench `Total time:` line without a complete `N wallclock secs ( U usr S sys + CU cusr CS csys = C CPU)` part (truncated or mangled paste?)".to_string(),
                    });
                    last_used = j;
                }
            }
            break;
        }
        match time_line(&block.text) {
            Ok((rest, (prefix, times))) => {
                let last = index_of(lines, j, line_at_end(&block, rest));
                add_operation(&mut operations, &prefix, &times, line.number);
                last_used = last;
                j = last + 1;
            }
            Err(_) => {
                problem.get_or_insert(Problem {
                    line: line.number,
                    text: block.text.clone(),
                    why: "sql-bench `Time for NAME (N):` line without a complete `N wallclock secs ( U usr S sys + CU cusr CS csys = C CPU)` part (truncated or mangled paste?)".to_string(),
                });
                last_used = j;
                j += 1;
            }
        }
    }
    let next = (last_used + 1).max(if total.is_some() { 0 } else { j });
    if let Some(problem) = problem {
        return broken(problem, next);
    }
    let Some((total_estimated, total_times, total_line_number)) = total else {
        let why = match (operations.is_empty(), server.is_some()) {
            (true, true) => "sql-bench test log (`Testing server ...`) without any `Time for` line or `Total time:` (truncated paste or failed test?)".to_string(),
            (true, false) => return Outcome::NotAReport,
            (false, _) => format!(
                "sql-bench test log breaks off after {} `Time for` line(s) before its `Total time:` line (truncated paste?)",
                operations.len()
            ),
        };
        let text = lines[start..=last_used.max(start)]
            .iter()
            .filter(|l| !l.is_blank())
            .take(3)
            .map(|l| l.text.trim())
            .collect::<Vec<_>>()
            .join("\n");
        return broken(
            Problem {
                line: lines[start].number,
                text,
                why,
            },
            next,
        );
    };
    let mut results = Vec::with_capacity(operations.len() * 7 + 6);
    for op in &operations {
        for (metric, value) in op.times.metrics() {
            results.push(measurement(&op.name, metric, value, op.line, op.estimated));
        }
        results.push(measurement(
            &op.name,
            "tests",
            op.tests as f64,
            op.line,
            op.estimated,
        ));
    }
    for (metric, value) in total_times.metrics() {
        results.push(measurement(
            "TOTALS",
            metric,
            value,
            total_line_number,
            total_estimated,
        ));
    }
    let mut attrs = BTreeMap::new();
    if let Some((version, date)) = server {
        for (k, v) in server_attrs(&version) {
            attrs.insert(k.to_string(), v);
        }
        let date = collapse_spaces(&date);
        if !date.is_empty() {
            attrs.insert("date".to_string(), date);
        }
    }
    let run = Run {
        tool: Tool::SqlBench,
        test: test_of_log(lines, start, last_used),
        label: None,
        threads: None,
        attrs,
        quote_depth: depth,
        author: None,
        message: None,
        command: None,
        lines: [lines[start].number, lines[last_used].number],
        results,
    };
    Outcome::Run(Box::new(run), next)
}

/// run-all-tests adds up the times of an operation a test runs twice
/// (test-insert's `select_range_prefix`); so does benchlog.
fn add_operation(
    operations: &mut Vec<Operation>,
    prefix: &TimePrefix<'_>,
    times: &Times,
    line: usize,
) {
    if let Some(op) = operations.iter_mut().find(|op| op.name == prefix.operation) {
        op.times.add(times);
        op.tests = op.tests.saturating_add(prefix.tests);
        op.estimated |= prefix.estimated;
        return;
    }
    operations.push(Operation {
        name: prefix.operation.to_string(),
        times: *times,
        tests: prefix.tests,
        estimated: prefix.estimated,
        line,
    });
}

/// `Testing server 'MySQL 3.23.37' at 2001-04-13  1:16:40` -> (version, date).
fn testing_server(t: &str) -> Option<(String, String)> {
    let rest = t.strip_prefix("Testing server '")?;
    let close = rest.rfind('\'')?;
    let version = rest[..close].to_string();
    let date = rest[close + 1..]
        .trim_start()
        .strip_prefix("at")
        .unwrap_or_default();
    Some((version, date.trim().to_string()))
}

/// Which test script printed a log: a `test-NAME` command just above it,
/// or the script's own first message.
fn test_of_log(lines: &[Line<'_>], start: usize, last: usize) -> Option<String> {
    let above = lines[start.saturating_sub(RUN_FILE_DISTANCE)..start]
        .iter()
        .rev();
    for line in above {
        let named = line.text.split_whitespace().find_map(|word| {
            let name = word.rsplit('/').next().unwrap_or(word);
            let name = name.strip_suffix(".sh").unwrap_or(name);
            let script = name.strip_prefix("test-")?;
            let valid = !script.is_empty()
                && script
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            valid.then(|| name.to_string())
        });
        if named.is_some() {
            return named;
        }
    }
    const FIRST_MESSAGES: [(&str, &str); 8] = [
        ("ATIS table test", "test-ATIS"),
        ("Testing of ALTER TABLE", "test-alter-table"),
        ("Testing of some unusual tables", "test-big-tables"),
        (
            "Testing the speed of connecting to the server",
            "test-connect",
        ),
        ("Testing the speed of creating and dro", "test-create"),
        ("Testing the speed of inserting data", "test-insert"),
        ("Testing the speed of selecting on keys", "test-select"),
        ("Wisconsin benchmark test", "test-wisconsin"),
    ];
    lines[start..=last].iter().take(6).find_map(|line| {
        let t = line.text.trim();
        FIRST_MESSAGES
            .iter()
            .find(|(message, _)| t.starts_with(message))
            .map(|(_, test)| test.to_string())
    })
}

fn measurement(item: &str, metric: &str, value: f64, line: usize, estimated: bool) -> Measurement {
    Measurement {
        item: item.to_string(),
        metric: metric.to_string(),
        value,
        unit: metric_info(metric).map_or("s", |m| m.unit).to_string(),
        line,
        estimated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of(find_runs, input)
    }

    #[test]
    fn timestr_formats() {
        type Want = Option<(f64, Option<f64>, Option<f64>, Option<f64>, f64)>;
        let cases: [(&str, Want); 9] = [
            (
                "26 wallclock secs ( 4.84 usr 2.25 sys + 0.00 cusr 0.00 csys = 7.09 CPU)",
                Some((26.0, Some(4.84), Some(2.25), Some(0.0), 7.09)),
            ),
            (
                "2773 wallclock secs (682.10 usr 184.31 sys +  0.00 cusr  0.00 csys = 866.41 CPU)",
                Some((2773.0, Some(682.10), Some(184.31), Some(0.0), 866.41)),
            ),
            (
                "75 secs ( 5.52 usr 18.40 sys = 23.92 cpu)",
                Some((75.0, Some(5.52), Some(18.40), None, 23.92)),
            ),
            (
                "143 wallclock secs ( 0.10 usr 0.03 sys + 0.00 cusr 0.00\ncsys = 0.13 CPU)",
                Some((143.0, Some(0.10), Some(0.03), Some(0.0), 0.13)),
            ),
            (
                "0.0213 wallclock secs ( 0.01 usr +  0.00 sys =  0.01 CPU)",
                Some((0.0213, Some(0.01), Some(0.0), None, 0.01)),
            ),
            (
                "1.5e+06 wallclock secs ( 1.00 usr 2.00 sys = 3.00 CPU)",
                Some((1.5e6, Some(1.0), Some(2.0), None, 3.0)),
            ),
            (
                "26 wallclock secs ( 4.84 usr 2.25 sys + 0.00 cusr 0.00 csys =",
                None,
            ),
            ("1e999 wallclock secs ( 1.00 usr 2.00 sys = 3.00 CPU)", None),
            ("26 minutes (more or less)", None),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let got = timestr(input)
                .ok()
                .map(|(_, t)| (t.wallclock, t.usr, t.sys, t.cusr, t.cpu));
            assert_eq!(got, want, "case {i}: {input:?}");
        }
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
    fn time_prefixes() {
        type Want = Option<(bool, &'static str, u64)>;
        let cases: [(&str, Want); 8] = [
            (
                "Time for insert (300000): 122",
                Some((false, "insert", 300000)),
            ),
            (
                "Time to select_many_fields(1000):  9",
                Some((false, "select_many_fields", 1000)),
            ),
            (
                "Time for select_big (70:17207):  1",
                Some((false, "select_big", 70)),
            ),
            (
                "Estimated time for count_on_key (50000): 1734",
                Some((true, "count_on_key", 50000)),
            ),
            (
                "Time for insert (1000) 1 wallclock",
                Some((false, "insert", 1000)),
            ),
            (
                "Time for insert_commit  (10000): 3",
                Some((false, "insert_commit", 10000)),
            ),
            ("Time for drop table(2):  0 wallclock", None),
            ("Time for a change (really): yes", None),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let got = time_prefix(input)
                .ok()
                .map(|(_, p)| (p.estimated, p.operation, p.tests));
            assert_eq!(got, want, "case {i}: {input:?}");
        }
    }

    #[test]
    fn server_and_machine_attrs() {
        let servers = [
            (
                "MySQL 3.23.32 log",
                vec![("db_server", "MySQL"), ("db_version", "3.23.32")],
            ),
            (
                "MySQL 5.0.77/",
                vec![("db_server", "MySQL"), ("db_version", "5.0.77")],
            ),
            (
                "MySQL 5.2.6 MariaDB mariadb101/",
                vec![("db_server", "MariaDB"), ("db_version", "5.2.6")],
            ),
            (
                "MySQL 5.5.5 10.1.22 MariaDB log",
                vec![("db_server", "MariaDB"), ("db_version", "10.1.22")],
            ),
            (
                "PostgreSQL version 7.1.1",
                vec![("db_server", "PostgreSQL"), ("db_version", "7.1.1")],
            ),
            ("PostgreSQL version ???", vec![("db_server", "PostgreSQL")]),
        ];
        for (i, (value, want)) in servers.into_iter().enumerate() {
            let got = server_attrs(value);
            let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (*k, v.as_str())).collect();
            assert_eq!(got, want, "case {i}: {value:?}");
        }
        let machines = [
            (
                "Linux 2.4.0 i686",
                vec![("os", "Linux"), ("os_version", "2.4.0"), ("arch", "i686")],
            ),
            (
                "Linux 2.2.16-22smp i686",
                vec![
                    ("os", "Linux"),
                    ("os_version", "2.2.16-22smp"),
                    ("arch", "i686"),
                ],
            ),
            (
                "Windows NT 5.1 x86",
                vec![("os", "Windows NT"), ("os_version", "5.1"), ("arch", "x86")],
            ),
            (
                "FreeBSD 4.2-RELEASE",
                vec![("os", "FreeBSD"), ("os_version", "4.2-RELEASE")],
            ),
        ];
        for (i, (value, want)) in machines.into_iter().enumerate() {
            let got = machine_attrs(value);
            let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (*k, v.as_str())).collect();
            assert_eq!(got, want, "case {i}: {value:?}");
        }
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

    #[test]
    fn near_misses() {
        let cases = [
            ("ATIS: Total time: 26 wallclock secs ( 4.84 usr 2.25 sys\n\nMore text.\n", 1, "complete"),
            (
                "Benchmark DBD suite: 2.15\nDate of test: 2011-05-25 2:22:27\n\nOperation seconds usr sys cpu tests\nalter_table_add 2.00 0.01 0.00 0.01 100\n",
                1,
                "TOTALS",
            ),
            ("Benchmark DBD suite: 2.15\nDate of test: 2011-05-25 2:22:27\nRunning tests on: Linux 2.6 x86_64\n", 1, "header without"),
            ("Operation seconds usr sys cpu tests\nalter_table_add 2.00 0.01 0.00\n", 2, "five columns"),
            (
                "Testing server 'MySQL 3.23.37' at 2001-04-13  1:04:11\n\nTime for insert (1000): 1 wallclock secs ( 0.05 usr  0.02 sys +  0.00 cusr  0.00 csys =  0.07 CPU)\n",
                1,
                "breaks off",
            ),
            (
                "Time for insert (1000): 1 wallclock secs ( 0.05 usr  0.02 sys +  0.00 cusr  0.00 csys =  0.07 CPU)\nTotal time: 471 wallclock secs\n",
                2,
                "Total time",
            ),
        ];
        for (i, (input, line, why)) in cases.into_iter().enumerate() {
            let (runs, unparsed) = runs_of(input);
            assert!(runs.is_empty(), "case {i}: {runs:?}");
            assert_eq!(unparsed.len(), 1, "case {i}: {unparsed:?}");
            assert_eq!(unparsed[0].line, line, "case {i}");
            assert!(
                unparsed[0].why.contains(why),
                "case {i}: {}",
                unparsed[0].why
            );
        }
    }

    #[test]
    fn quoted_line_rewrapped_without_its_marker() {
        let (runs, unparsed) = runs_of(
            "> ATIS: Total time: 26 wallclock secs ( 4.84 usr 2.25 sys + 0.00 cusr 0.00 csys =\n\
             7.09 CPU)\n\
             > alter-table: Total time: 143 wallclock secs ( 0.10 usr 0.03 sys + 0.00 cusr\n\
             0.00 csys = 0.13 CPU)\n\
             > seconds usr sys cpu tests\n\
             > TOTALS 169.00 4.94 2.28 7.22 1234\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].quote_depth, 1);
        assert_eq!(runs[0].value("test-ATIS", "cpu_s"), Some(7.09));
        assert_eq!(runs[0].value("test-alter-table", "cpu_s"), Some(0.13));
        assert_eq!(runs[0].value("TOTALS", "tests"), Some(1234.0));
        assert_eq!(runs[0].lines, [1, 6]);
    }

    #[test]
    fn prose_is_not_a_report() {
        let (runs, unparsed) = runs_of(
            "Running tests on: my laptop\nServer version: 5.0.77 Source distribution\n\
             Time for a change: I ran the benchmark.\nTotal time: about an hour\n\
             Note: seconds usr sys are what matter\nTOTALS were fine.\n",
        );
        assert!(runs.is_empty(), "{runs:?}");
        assert!(unparsed.is_empty(), "{unparsed:?}");
    }

    #[test]
    fn test_log_sums_repeated_operations() {
        let (runs, unparsed) = runs_of(
            "$ perl test-insert --server=mysql\n\
             Testing server 'MySQL 4.0.20 standard log' at 2004-06-01 10:00:00\n\
             Time for select_range_prefix (5010:42084): 13 wallclock secs ( 2.65 usr  0.50 sys +  0.00 cusr  0.00 csys =  3.15 CPU)\n\
             Note: Query took longer then time-limit: 600\n\
             Estimated time for select_range_prefix (20000:43500): 10 wallclock secs ( 3.84 usr  0.60 sys +  0.00 cusr  0.00 csys =  4.44 CPU)\n\
             Total time: 23 wallclock secs ( 6.49 usr  1.10 sys +  0.00 cusr  0.00 csys =  7.59 CPU)\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.test.as_deref(), Some("test-insert"));
        assert_eq!(run.value("select_range_prefix", "wallclock_s"), Some(23.0));
        assert_eq!(run.value("select_range_prefix", "tests"), Some(25010.0));
        assert!(run
            .results
            .iter()
            .filter(|r| r.item == "select_range_prefix")
            .all(|r| r.estimated));
        assert_eq!(run.value("TOTALS", "cpu_s"), Some(7.59));
        assert_eq!(
            run.attrs.get("db_version").map(String::as_str),
            Some("4.0.20")
        );
        assert_eq!(run.lines, [2, 6]);
    }
}
