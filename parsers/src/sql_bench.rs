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

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{char, digit1, multispace0, multispace1};
use nom::combinator::opt;
use nom::multi::many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::number::perl_number;
use crate::reader::{LineBytes, Reader};
use crate::text::{self, Line, LogicalLine};
use crate::{Measurement, Run, Tool, Unparsed};

mod summary;
mod test_log;

use summary::{
    headless_table_start, is_entry_start, is_table_header, looks_like_continuation,
    read_headless_table, read_summary,
};
use test_log::{is_total_line_start, read_test_log, time_prefix};

/// A wrapped `Total time` line or table row spans at most this many lines.
const MAX_WRAPPED_LINES: usize = 4;
/// How far around a report a `RUN-*` file name may be mentioned.
const RUN_FILE_DISTANCE: usize = 3;
/// How far into a line a lead-in of prose before a record may reach.
const MAX_LEAD_IN: usize = 80;
/// How many `: ` of a line's lead-in are tried as its end.
const MAX_LEAD_IN_COLONS: usize = 3;

/// Benchmark's `timestr()`: wall-clock and CPU seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Times {
    pub wallclock: f64,
    pub usr: Option<f64>,
    pub sys: Option<f64>,
    pub cusr: Option<f64>,
    pub csys: Option<f64>,
    /// `None` when the line printed `0.00 CPU` over non-zero parts: the
    /// Benchmark.pm of Perl 5.005 and before put its iteration count (0)
    /// where the total belongs, so the figure was never measured.
    pub cpu: Option<f64>,
}

impl Times {
    fn metrics(&self) -> impl Iterator<Item = (&'static str, f64)> {
        [
            ("wallclock_s", Some(self.wallclock)),
            ("usr_s", self.usr),
            ("sys_s", self.sys),
            ("cusr_s", self.cusr),
            ("csys_s", self.csys),
            ("cpu_s", self.cpu),
        ]
        .into_iter()
        .filter_map(|(metric, value)| value.map(|v| (metric, v)))
    }
}

/// How the one walk over the lines finds sql-bench's reports.
pub struct SqlBenchReader;

impl Reader for SqlBenchReader {
    const TOOL: Tool = Tool::SqlBench;
    // The colon of the summary's heads and entries, the `(` of a test
    // log's times, `Testing server '`, `Benchmark DBD suite`, the `c` of
    // `seconds usr sys cpu tests`, and the `T` of a headless table's
    // `TOTALS` row.
    const START_LINE_BYTES: &'static [u8] = b":('DcT";
    /// Each report is read on its own.
    type State = ();

    fn may_start(lines: &[Line<'_>], i: usize, line_bytes: LineBytes<'_>) -> bool {
        anchor(lines[i].text, line_bytes).is_some() || headless_table_start(lines, i).is_some()
    }

    /// Reads the sql-bench report at line `i`; a report that starts but
    /// breaks off becomes an [`Unparsed`] entry.
    fn read_at(
        lines: &[Line<'_>],
        i: usize,
        _: &mut (),
        runs: &mut Vec<Run>,
        unparsed: &mut Vec<Unparsed>,
    ) -> usize {
        let outcome = match anchor(lines[i].text, LineBytes::unknown()) {
            // A table cut to its rows is read from its first row, once its
            // TOTALS row is met.
            None => match headless_table_start(lines, i) {
                Some(first) => read_headless_table(lines, first),
                None => return i + 1,
            },
            Some(Anchor::Summary) => read_summary(lines, i),
            Some(Anchor::TestLog) => read_test_log(lines, i),
        };
        match outcome {
            Outcome::Run(run, next) => {
                runs.push(*run);
                next
            }
            Outcome::Broken(miss, next) => {
                unparsed.push(miss);
                next
            }
            Outcome::NotAReport => i + 1,
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
/// `line_bytes` says which bytes the line may hold.
fn anchor(text: &str, line_bytes: LineBytes<'_>) -> Option<Anchor> {
    let blanks = text
        .bytes()
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count();
    let t = &text[blanks..];
    anchor_at(t, line_bytes).or_else(|| {
        // A record after a list item's mark or a lead-in of prose.
        let led = line_bytes.may_hold(b':') || t.starts_with(|c: char| LIST_MARKS.contains(c));
        let rest = if led { record_text(t) } else { t };
        (rest.len() < t.len())
            .then(|| anchor_at(rest, line_bytes))
            .flatten()
    })
}

/// [`anchor`] of a line from its first visible character.
fn anchor_at(t: &str, line_bytes: LineBytes<'_>) -> Option<Anchor> {
    match t.as_bytes().first()? {
        b'B' if t.starts_with("Benchmark DBD suit") => Some(Anchor::Summary),
        b'D' if t.starts_with("Date of test:") => Some(Anchor::Summary),
        b'R' if t.starts_with("Running tests on:") => Some(Anchor::Summary),
        b'T' if t.starts_with("Totals per operation:") => Some(Anchor::Summary),
        b'T' if t.starts_with("Testing server '") => Some(Anchor::TestLog),
        // A test log's time lines start with one of time_prefix's two
        // heads; most lines starting with `T` or `E` are prose.
        b'T' | b'E'
            if (t.starts_with("Time") || t.starts_with("Estimated")) && time_prefix(t).is_ok() =>
        {
            Some(Anchor::TestLog)
        }
        b'O' | b's' if is_table_header(t) => Some(Anchor::Summary),
        // An entry's name ends with a colon.
        _ if line_bytes.may_hold(b':') && is_entry_start(t) => Some(Anchor::Summary),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Small parsers

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
    let (input, value) = perl_number(input)?;
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
    let (input, wallclock) = perl_number(input)?;
    let (input, _) = (
        multispace1,
        opt((tag("wallclock"), multispace1)),
        tag("secs"),
    )
        .parse(input)?;
    let (input, _) = (multispace0, char('('), multispace0).parse(input)?;
    if let Ok((input, _)) = unlabelled_cpu_times(input) {
        let times = Times {
            wallclock,
            ..Times::default()
        };
        return Ok((input, times));
    }
    let (input, first) = cpu_part(input)?;
    let (input, more) = many0(preceded(
        (multispace1, opt((char('+'), multispace1))),
        cpu_part,
    ))
    .parse(input)?;
    let (input, _) = (multispace0, char('='), multispace0).parse(input)?;
    let (input, cpu) = perl_number(input)?;
    // sql-bench 2.0b (1999) printed `= 0.00 CPU secs)`.
    let (input, _) = (
        multispace1,
        alt((tag("CPU"), tag("cpu"))),
        opt((multispace1, tag("secs"))),
        multispace0,
        char(')'),
    )
        .parse(input)?;
    let mut times = Times {
        wallclock,
        cpu: Some(cpu),
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
    if cpu == 0.0 && cpu_parts_add_up_to_something([times.usr, times.sys, times.cusr, times.csys]) {
        times.cpu = None;
    }
    Ok((input, times))
}

/// `249.00 463.00 713.00)`: the CPU times without their names, as
/// sql-bench 2.0 (1998) printed an estimated total. Which is which is not
/// said, so only the wall-clock time beside them is kept.
fn unlabelled_cpu_times(input: &str) -> IResult<&str, ()> {
    let (input, _) = (
        perl_number,
        many0(preceded(multispace1, perl_number)),
        multispace0,
        char(')'),
    )
        .parse(input)?;
    Ok((input, ()))
}

/// Whether CPU parts printed with two decimals add up to a time: a total
/// of `0.00` beside them is then Benchmark.pm's missing figure, not a
/// measurement (see [`Times::cpu`]).
pub(crate) fn cpu_parts_add_up_to_something(parts: [Option<f64>; 4]) -> bool {
    parts.iter().flatten().sum::<f64>() >= 0.005
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

struct Problem {
    line: usize,
    text: String,
    why: String,
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

/// The first characters a markdown list item's mark may have.
const LIST_MARKS: &str = "-*+0123456789";

/// Whether a record starts here: a test log's `Time for NAME (N):` or
/// `Total time:` line, or a summary's `NAME: Total time:` line.
fn starts_record(t: &str) -> bool {
    ((t.starts_with("Time") || t.starts_with("Estimated")) && time_prefix(t).is_ok())
        || is_total_line_start(t)
        || is_entry_start(t)
}

/// `- `, `* `, `+ `, `1. `, `2) `: a markdown list item's mark, and the
/// text after it.
fn after_list_mark(t: &str) -> Option<&str> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if digits > 0 {
        t[digits..].strip_prefix(['.', ')'])?
    } else {
        t.strip_prefix(['-', '*', '+'])?
    };
    rest.starts_with([' ', '\t']).then(|| rest.trim_start())
}

/// Where a record ([`starts_record`]) starts in `text` (a line, or a
/// wrapped record's lines joined), when more comes before it on its
/// first line: a markdown list item's mark (`- ATIS: Total time: ...`)
/// or a lead-in of prose that ends in a colon (`My results: ATIS: Total
/// time: ...`, `test-insert gave: Time for insert (1000): ...`). Without
/// such a record, `text` from its first visible character.
fn record_text(text: &str) -> &str {
    let t = text::trim_start(text);
    if starts_record(t) {
        return t;
    }
    if let Some(rest) = after_list_mark(t).filter(|rest| starts_record(rest)) {
        return rest;
    }
    // Every line with a `:` comes here: each `: ` of its first line is
    // found in one memchr pass, with no string searcher built per line.
    let bytes = t.as_bytes();
    memchr::memchr2_iter(b':', b'\n', bytes)
        .take_while(|&at| bytes[at] == b':')
        .filter(|&at| bytes.get(at + 1) == Some(&b' '))
        .take(MAX_LEAD_IN_COLONS)
        .take_while(|&at| at <= MAX_LEAD_IN)
        .map(|at| text::trim_start(&t[at + 2..]))
        .find(|rest| starts_record(rest))
        .unwrap_or(t)
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
        if (line.depth != depth && !rewrapped) || line.is_blank() || starts_another(record_text(t))
        {
            break;
        }
        end += 1;
    }
    end
}

/// A report's first few non-blank lines, to show with a near miss.
fn first_lines(lines: &[Line<'_>]) -> String {
    lines
        .iter()
        .filter(|l| !l.is_blank())
        .take(3)
        .map(|l| l.text.trim())
        .collect::<Vec<_>>()
        .join("\n")
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

fn collapse_spaces(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `Running tests on: Linux 2.4.0-64GB-SMP i686` is uname's system,
/// release and machine: os, os_version, arch.
pub fn machine_attrs(value: &str) -> Vec<(&'static str, String)> {
    let words: Vec<&str> = value.split_whitespace().collect();
    // Windows's `ver`: `Windows NT Version 4.0`, `Windows 98 [Version
    // 4.10.1998]`: the system, then its version; no machine.
    let is_version = |w: &&str| w.trim_start_matches('[').eq_ignore_ascii_case("version");
    if let Some(at) = words.iter().position(is_version).filter(|&at| at > 0) {
        let mut attrs = vec![("os", words[..at].join(" "))];
        if let Some(version) = words
            .get(at + 1)
            .map(|v| v.trim_matches(|c| c == '[' || c == ']'))
            .filter(|v| !v.is_empty())
        {
            attrs.push(("os_version", version.to_string()));
        }
        return attrs;
    }
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
    let trim = |w: &str| {
        w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
            .to_string()
    };
    // A server that names no product prints its version alone
    // (FrontBase: `Server version: 2.1`): the version is no server name.
    let named = !first.starts_with(|c: char| c.is_ascii_digit());
    let rest: Vec<&str> = if named {
        words.collect()
    } else {
        std::iter::once(first).chain(words).collect()
    };
    let versions: Vec<String> = rest
        .iter()
        .filter_map(|w| version_word(w))
        .map(trim)
        .filter(|w| !w.is_empty())
        .collect();
    let mariadb = rest
        .iter()
        .any(|w| w.to_ascii_lowercase().starts_with("mariadb"));
    let server = if mariadb {
        "MariaDB".to_string()
    } else if named {
        trim(first)
    } else {
        String::new()
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

/// A word of a server's version string that is a version number: `7.1.1`,
/// and SOLID's `v.02.30.0026` or a `v8.1` without its `v`.
fn version_word(word: &str) -> Option<&str> {
    let digits = word
        .strip_prefix("v.")
        .or_else(|| word.strip_prefix('v'))
        .unwrap_or(word);
    digits
        .starts_with(|c: char| c.is_ascii_digit())
        .then_some(digits)
}

fn measurement(item: &str, metric: &str, value: f64, line: usize, estimated: bool) -> Measurement {
    Measurement {
        estimated,
        ..Measurement::new(item, metric, value, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of::<SqlBenchReader>(input)
    }

    #[test]
    fn timestr_formats() {
        type Want = Option<(f64, Option<f64>, Option<f64>, Option<f64>, Option<f64>)>;
        let cases: [(&str, Want); 15] = [
            // sql-bench 2.0's estimated total: CPU times without names.
            (
                "11695 secs ( 249.00 463.00 713.00)",
                Some((11695.0, None, None, None, None)),
            ),
            ("11695 secs ( 249.00 463.00 713.00", None),
            (
                "26 wallclock secs ( 4.84 usr 2.25 sys + 0.00 cusr 0.00 csys = 7.09 CPU)",
                Some((26.0, Some(4.84), Some(2.25), Some(0.0), Some(7.09))),
            ),
            (
                "2773 wallclock secs (682.10 usr 184.31 sys +  0.00 cusr  0.00 csys = 866.41 CPU)",
                Some((2773.0, Some(682.10), Some(184.31), Some(0.0), Some(866.41))),
            ),
            (
                "75 secs ( 5.52 usr 18.40 sys = 23.92 cpu)",
                Some((75.0, Some(5.52), Some(18.40), None, Some(23.92))),
            ),
            (
                "143 wallclock secs ( 0.10 usr 0.03 sys + 0.00 cusr 0.00\ncsys = 0.13 CPU)",
                Some((143.0, Some(0.10), Some(0.03), Some(0.0), Some(0.13))),
            ),
            (
                "0.0213 wallclock secs ( 0.01 usr +  0.00 sys =  0.01 CPU)",
                Some((0.0213, Some(0.01), Some(0.0), None, Some(0.01))),
            ),
            (
                "1.5e+06 wallclock secs ( 1.00 usr 2.00 sys = 3.00 CPU)",
                Some((1.5e6, Some(1.0), Some(2.0), None, Some(3.0))),
            ),
            // sql-bench 2.0b, 1999: `CPU secs)`, and Benchmark.pm's
            // iteration count (0) where the total belongs.
            (
                "64 wallclock secs (12.66 usr  5.60 sys +  0.00 cusr  0.00 csys =  0.00 CPU secs)",
                Some((64.0, Some(12.66), Some(5.60), Some(0.0), None)),
            ),
            (
                "69 wallclock secs (23.89 usr  9.98 sys +  0.00 cusr  0.00 csys =  0.00 CPU)",
                Some((69.0, Some(23.89), Some(9.98), Some(0.0), None)),
            ),
            // Nothing measured at all: 0.00 is then a true total.
            (
                "0 wallclock secs ( 0.00 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.00 CPU)",
                Some((0.0, Some(0.0), Some(0.0), Some(0.0), Some(0.0))),
            ),
            (
                "64 wallclock secs (12.66 usr 5.60 sys = 0.00 CPU seconds)",
                None,
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
            (
                "SOLID Server - v.02.30.0026 (Linux ix86)",
                vec![("db_server", "SOLID"), ("db_version", "02.30.0026")],
            ),
            ("2.1", vec![("db_version", "2.1")]),
            (
                "mSQL server version 2.0.10",
                vec![("db_server", "mSQL"), ("db_version", "2.0.10")],
            ),
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
            (
                "Windows NT Version 4.0  ",
                vec![("os", "Windows NT"), ("os_version", "4.0")],
            ),
            (
                "Windows 98 [Version 4.10.1998]",
                vec![("os", "Windows 98"), ("os_version", "4.10.1998")],
            ),
        ];
        for (i, (value, want)) in machines.into_iter().enumerate() {
            let got = machine_attrs(value);
            let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (*k, v.as_str())).collect();
            assert_eq!(got, want, "case {i}: {value:?}");
        }
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
                "Time for insert (1000): 1 wallclock secs ( 0.05 usr  0.02 sys +  0.00 cusr  0.00 csys =  0.07 CPU)\n\nMore text.\n",
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
}
