//! super-smack's Query Barrel Report, as printed and as mailers wrap it:
//!
//! ```text
//! super-smack -d mysql select-key.smack 100 10000
//! Query Barrel Report for client smacker1
//! connect: max=46ms min=6ms avg= 25ms from 100 clients
//! Query_type      num_queries     max_time        min_time        q_per_s
//! select_index    2000000 8       0       18624.60
//! ```
//!
//! The header may be glued to the end of the `connect:` line or split over
//! two lines, and the command may be wrapped after its client count: the
//! report is read as one logical line in which any run of spaces and line
//! breaks separates two fields.

use std::collections::BTreeMap;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1, multispace0, multispace1, space0};
use nom::combinator::{eof, map_res, opt, peek};
use nom::multi::many1;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::number::decimal;
use crate::reader::{LineBytes, Reader};
use crate::text::{Line, LogicalLine};
use crate::{Measurement, Run, Tool, Unparsed};

const REPORT_START: &str = "Query Barrel Report for client";
const HEADER: [&str; 5] = [
    "Query_type",
    "num_queries",
    "max_time",
    "min_time",
    "q_per_s",
];
/// A report longer than this many lines is not one report.
const MAX_REPORT_LINES: usize = 64;
/// How far above a report its command line may start (it may be wrapped).
const MAX_COMMAND_LINES: usize = 4;
/// Blank lines in a row that may part two pieces of one shredded report
/// ([`shredded_block`]): a converter that gives each piece a code block of
/// its own leaves the closing and the opening fence between them.
const MAX_SHRED_GAP: usize = 2;

/// The `connect:` line: times in milliseconds and the client count.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectStats {
    pub max_ms: f64,
    pub min_ms: f64,
    pub avg_ms: f64,
    pub clients: u32,
}

/// One row of the report: a query type and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRow<'a> {
    pub query_type: &'a str,
    pub num_queries: u64,
    pub max_time: f64,
    pub min_time: f64,
    pub q_per_s: f64,
    /// The rest of the report text from this row on, to find its line.
    at: &'a str,
}

/// A whole Query Barrel Report.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryBarrelReport<'a> {
    pub client: &'a str,
    pub connect: Option<(ConnectStats, &'a str)>,
    pub rows: Vec<QueryRow<'a>>,
}

/// What a `super-smack` command line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuperSmackCommand {
    /// The smack file's name without `.smack`: `select-key`.
    pub test: Option<String>,
    pub clients: Option<u32>,
    pub rounds: Option<u64>,
    pub driver: Option<String>,
}

/// How the one walk over the lines finds super-smack's reports.
pub struct SuperSmackReader;

/// What super-smack's reader carries from one report to the next.
#[derive(Default)]
pub struct SmackState {
    /// Reports and commands above this index belong to earlier runs.
    taken_until: usize,
    /// The command of a shell loop whose reports follow one another.
    loop_reports: Option<(SuperSmackCommand, String, usize)>,
}

impl Reader for SuperSmackReader {
    const TOOL: Tool = Tool::SuperSmack;
    // `Q` starts both `Query Barrel Report` and `Query_type`.
    const START_LINE_BYTES: &'static [u8] = b"Q";
    type State = SmackState;

    /// A report starts on its `Query Barrel Report` line, or on a header
    /// whose first line was cut off; a line set in bold is read without its
    /// marks, as [`SuperSmackReader::read_at`] reads it.
    fn may_start(lines: &[Line<'_>], i: usize, _: LineBytes<'_>) -> bool {
        let text = unmarked(lines[i].text);
        // `Q` starts both; prose seldom holds one.
        memchr::memchr(b'Q', text.as_bytes()).is_some()
            && (report_start_finder().find(text.as_bytes()).is_some()
                || text.trim_start().starts_with("Query_type")
                || is_report_start_piece(text))
    }

    /// Reads the Query Barrel Report at line `i`. A report that starts but
    /// cannot be read becomes an [`Unparsed`] entry saying what was missing.
    fn read_at(
        lines: &[Line<'_>],
        i: usize,
        state: &mut SmackState,
        runs: &mut Vec<Run>,
        unparsed: &mut Vec<Unparsed>,
    ) -> usize {
        // A blog converted to Markdown bolds each line of a report: `**...**`.
        // Each line is read without its marks when it is read, so the input's
        // lines are never copied and indices stay those of the input.
        let lines = Unbolded(lines);
        let text = lines.get(i).text;
        // A mail that lost its line breaks glues the report to the command.
        let offset = match report_start_finder().find(text.as_bytes()) {
            Some(at) => at,
            None if text.trim_start().starts_with("Query_type")
                && !previous_is_report_start(lines, i) =>
            {
                0
            }
            None if is_report_start_piece(text) => 0,
            None => return i + 1,
        };
        let piece = is_report_start_piece(text);
        let end = report_end(lines, i);
        let mut block = LogicalLine::join(&lines.range(i..end), "\n");
        if block.text.contains('|') {
            block.text = without_table_rules(&block.text);
        }
        let mut read = read_report(&block, offset);
        if read.is_err() {
            let shredded = shredded_block(lines, i);
            if read_report(&shredded, offset).is_ok() {
                block = shredded;
                read = read_report(&block, offset);
            } else if piece {
                // A word that a shredded heading might start with, and
                // no report after it.
                return i + 1;
            }
        }
        match read {
            Ok((report, consumed)) => {
                let last_line = block.line_at(consumed.saturating_sub(1));
                let mut command = command_before(lines, i, offset, state.taken_until);
                if command.is_none() {
                    command = loop_command(&state.loop_reports, lines, i, state.taken_until);
                }
                // `for i in 1 4 16; do super-smack ... $i 10000; done` prints
                // one report per pass under one command line.
                state.loop_reports = command
                    .as_ref()
                    .filter(|(c, _, _)| c.test.is_some() && c.clients.is_none())
                    .cloned();
                runs.push(to_run(
                    &report,
                    &block,
                    command,
                    lines.get(i).depth,
                    i,
                    last_line,
                ));
                state.taken_until = last_line;
                last_line
            }
            Err(why) => {
                unparsed.push(Unparsed {
                    line: lines.get(i).number,
                    text: block.text.lines().take(4).collect::<Vec<_>>().join("\n"),
                    why: why.to_string(),
                });
                state.taken_until = i + 1;
                i + 1
            }
        }
    }
}

/// The input's lines as super-smack reads them: a line wholly set in
/// Markdown bold reads as its inner text.
#[derive(Clone, Copy)]
struct Unbolded<'s, 'a>(&'s [Line<'a>]);

impl<'a> Unbolded<'_, 'a> {
    fn get(&self, i: usize) -> Line<'a> {
        let mut line = self.0[i];
        line.text = unmarked(line.text);
        line
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    /// The lines of a report or command: a few, so copied.
    fn range(&self, range: std::ops::Range<usize>) -> Vec<Line<'a>> {
        range.map(|i| self.get(i)).collect()
    }
}

/// A line as a report's line reads: without the Markdown bold around it
/// or the list item's mark before it (`- select_index 1000 16 2 497.42`,
/// `* **Query_type ...**`).
fn unmarked(text: &str) -> &str {
    let text = list_item_text(text).unwrap_or(text);
    bold_text(text).unwrap_or(text)
}

/// A report set in a Markdown table (`| select_index | 20000 | 0 | 0 |
/// 4360.61 |`): its cell rules and its `|---|---|` line as blanks, so its
/// cells read as fields. Byte for byte the same length, so every byte
/// keeps its line.
fn without_table_rules(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            let is_rule = line.contains('-')
                && line
                    .bytes()
                    .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'));
            if is_rule {
                " ".repeat(line.len())
            } else {
                line.replace('|', " ")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of a Markdown list item after its `- `, `* ` or `+ `, or
/// of a Markdown table row after its first `|`.
fn list_item_text(text: &str) -> Option<&str> {
    // Asked of every line: the mark's byte first, before any trimming.
    let t = text.trim_start();
    if !t.starts_with(['-', '*', '+', '|']) {
        return None;
    }
    let rest = t.get(1..)?;
    let inner = rest.trim_start();
    let spaced = rest.starts_with([' ', '\t']) || t.starts_with('|');
    (spaced && !inner.is_empty()).then_some(inner)
}

/// The text inside a line wholly set in Markdown bold: `**select_index 1000 16 2 497.42**`.
fn bold_text(text: &str) -> Option<&str> {
    // Asked of every line: the opening `**` first, before any trimming.
    let inner = text.strip_prefix("**")?.trim_end().strip_suffix("**")?;
    (!inner.is_empty() && !inner.contains("**")).then_some(inner)
}

fn report_start_finder() -> &'static memchr::memmem::Finder<'static> {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(REPORT_START));
    &FINDER
}

/// The loop's command for a report that follows the previous report of the
/// loop directly (nothing but blank lines between them).
fn loop_command(
    loop_reports: &Option<(SuperSmackCommand, String, usize)>,
    lines: Unbolded<'_, '_>,
    report_start: usize,
    taken_until: usize,
) -> Option<(SuperSmackCommand, String, usize)> {
    let (command, text, _) = loop_reports.as_ref()?;
    if taken_until > report_start || report_start > lines.len() {
        return None;
    }
    (taken_until..report_start)
        .all(|j| lines.get(j).is_blank())
        .then(|| (command.clone(), text.clone(), report_start))
}

/// A line that holds only the first words of [`REPORT_START`]
/// (`Query`, `Query Barrel`): the start of a shredded report's heading
/// ([`shredded_block`]).
fn is_report_start_piece(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("Query") && t.len() < REPORT_START.len() && REPORT_START.starts_with(t)
}

/// The report at `start` shredded into pieces: a blog's converter set
/// each line, or each half of one, in a code block of its own, so one or
/// two blank lines part the pieces (`Query`, ` Barrel Report`, `for`,
/// `client`, ` smacker1`, `connect:`, ` max=2204ms ...`). Its pieces up to
/// [`MAX_SHRED_GAP`] blank lines apart, at its quote depth and up to
/// [`MAX_REPORT_LINES`], joined as lines; the report reads across the
/// line breaks, so it reads only if they make one report.
fn shredded_block(lines: Unbolded<'_, '_>, start: usize) -> LogicalLine {
    let depth = lines.get(start).depth;
    let mut pieces = vec![lines.get(start)];
    let mut blanks = 0;
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_REPORT_LINES {
        let line = lines.get(end);
        if line.is_blank() {
            blanks += 1;
            if blanks > MAX_SHRED_GAP {
                break;
            }
            end += 1;
            continue;
        }
        let text = line.text.trim_start();
        if line.depth != depth || text.starts_with(REPORT_START) || mentions_super_smack(text) {
            break;
        }
        blanks = 0;
        pieces.push(line);
        end += 1;
    }
    LogicalLine::join(&pieces, "\n")
}

fn previous_is_report_start(lines: Unbolded<'_, '_>, i: usize) -> bool {
    (i.saturating_sub(3)..i)
        .rev()
        .any(|j| lines.get(j).text.trim_start().starts_with(REPORT_START))
}

/// The report ends at a blank line, a change of quote depth, or where the
/// next command or report starts.
fn report_end(lines: Unbolded<'_, '_>, start: usize) -> usize {
    let depth = lines.get(start).depth;
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_REPORT_LINES {
        let line = lines.get(end);
        let text = line.text.trim_start();
        if line.depth != depth
            || line.is_blank()
            || text.starts_with(REPORT_START)
            || mentions_super_smack(text)
        {
            break;
        }
        end += 1;
    }
    end
}

fn mentions_super_smack(text: &str) -> bool {
    text.split_whitespace()
        .any(|word| basename(word).starts_with("super-smack"))
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Reads a report; on success also says how many bytes of the block it used.
/// `offset` is where the report starts in the block's first line.
fn read_report(
    block: &LogicalLine,
    offset: usize,
) -> Result<(QueryBarrelReport<'_>, usize), &'static str> {
    let text = block.text.get(offset..).unwrap_or_default();
    match query_barrel_report(text) {
        Ok((rest, report)) => Ok((report, block.text.len() - rest.len())),
        Err(_) => Err(diagnose(text)),
    }
}

/// Why a report that started could not be read.
fn diagnose(text: &str) -> &'static str {
    let header_at = text.find(HEADER[0]);
    match header_at {
        None => "super-smack Query Barrel Report without its `Query_type num_queries max_time min_time q_per_s` header (truncated paste?)",
        Some(at) if query_header(&text[at..]).is_err() => {
            "super-smack report header is incomplete: expected `Query_type num_queries max_time min_time q_per_s`"
        }
        Some(_) => "super-smack report has no complete query row: expected `QUERY_TYPE NUM_QUERIES MAX_TIME MIN_TIME Q_PER_S`",
    }
}

/// `Query Barrel Report for client NAME`, the `connect:` line, the header and
/// one or more rows, fields separated by any whitespace.
pub fn query_barrel_report(input: &str) -> IResult<&str, QueryBarrelReport<'_>> {
    let (input, client) = opt(preceded(
        (multispace0, report_start, space0),
        opt(preceded(multispace0, word)),
    ))
    .parse(input)?;
    let (input, connect) = opt(preceded(multispace0, connect_stats)).parse(input)?;
    let (input, _) = preceded(multispace0, query_header).parse(input)?;
    let (input, rows) = many1(preceded(multispace1, query_row)).parse(input)?;
    let report = QueryBarrelReport {
        client: client.flatten().unwrap_or(""),
        connect,
        rows,
    };
    Ok((input, report))
}

/// [`REPORT_START`], its words parted by any whitespace: a line break
/// may fall between any two.
fn report_start(input: &str) -> IResult<&str, ()> {
    let mut words = REPORT_START.split(' ');
    let first = words.next().unwrap_or_default();
    let (mut input, _) = tag(first).parse(input)?;
    for word in words {
        (input, _) = preceded(multispace1, tag(word)).parse(input)?;
    }
    Ok((input, ()))
}

/// `connect: max=46ms min=6ms avg= 25ms from 100 clients`
fn connect_stats(input: &str) -> IResult<&str, (ConnectStats, &str)> {
    let at = input;
    let (input, (_, max_ms, min_ms, avg_ms, _, _, clients, _, _)) = (
        tag("connect:"),
        millis("max"),
        millis("min"),
        millis("avg"),
        multispace1,
        tag("from"),
        preceded(multispace1, unsigned::<u32>),
        multispace1,
        alt((tag("clients"), tag("client"))),
    )
        .parse(input)?;
    let stats = ConnectStats {
        max_ms,
        min_ms,
        avg_ms,
        clients,
    };
    Ok((input, (stats, at)))
}

/// ` max=46ms`, ` avg= 25ms`, and ` min=-1ms`: super-smack starts its
/// minimum at -1 and prints it unchanged when no connect was timed (a run
/// with one client), so a sign is read here and the value left out later.
fn millis<'a>(
    name: &'static str,
) -> impl Parser<&'a str, Output = f64, Error = nom::error::Error<&'a str>> {
    preceded(
        (multispace1, tag(name), char('='), space0),
        (opt(char('-')), decimal, tag("ms"))
            .map(|(sign, value, _)| if sign.is_some() { -value } else { value }),
    )
}

/// `Query_type num_queries max_time min_time q_per_s`, also split over lines.
fn query_header(input: &str) -> IResult<&str, ()> {
    let (input, _) = (
        tag(HEADER[0]),
        preceded(multispace1, tag(HEADER[1])),
        preceded(multispace1, tag(HEADER[2])),
        preceded(multispace1, tag(HEADER[3])),
        preceded(multispace1, tag(HEADER[4])),
    )
        .parse(input)?;
    Ok((input, ()))
}

/// `select_index 2000000 8 0 18624.60`
fn query_row(input: &str) -> IResult<&str, QueryRow<'_>> {
    let at = input;
    let (input, (query_type, num_queries, max_time, min_time, q_per_s)) = (
        word,
        preceded(multispace1, unsigned::<u64>),
        preceded(multispace1, decimal),
        preceded(multispace1, decimal),
        preceded(multispace1, decimal),
    )
        .parse(input)?;
    // A row ends with its last number: `18624.60x` is not a row.
    let (input, _) = peek(alt((multispace1, eof))).parse(input)?;
    let row = QueryRow {
        query_type,
        num_queries,
        max_time,
        min_time,
        q_per_s,
        at,
    };
    Ok((input, row))
}

/// A query type or client name: `select_index`, `smacker1`.
fn word(input: &str) -> IResult<&str, &str> {
    let (rest, found) =
        take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-').parse(input)?;
    if found.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Alpha,
        )));
    }
    Ok((rest, found))
}

fn unsigned<T: std::str::FromStr>(input: &str) -> IResult<&str, T> {
    map_res(digit1, str::parse::<T>).parse(input)
}

/// The command in front of a report glued to it on one line, or else above it.
fn command_before(
    lines: Unbolded<'_, '_>,
    report_start: usize,
    offset: usize,
    taken_until: usize,
) -> Option<(SuperSmackCommand, String, usize)> {
    let start = lines.get(report_start);
    let glued = start.text.get(..offset).unwrap_or_default();
    if mentions_super_smack(glued) {
        let found = Line {
            text: glued,
            ..start
        };
        return command_in(&[found], report_start);
    }
    find_command(lines, report_start, taken_until)
}

/// Looks above a report for the command that started it: `super-smack [-d
/// DRIVER] [PATH/]NAME.smack CLIENTS ROUNDS`, possibly wrapped.
fn find_command(
    lines: Unbolded<'_, '_>,
    report_start: usize,
    taken_until: usize,
) -> Option<(SuperSmackCommand, String, usize)> {
    let depth = lines.get(report_start).depth;
    let lowest = report_start
        .saturating_sub(MAX_COMMAND_LINES)
        .max(taken_until);
    let mut start = None;
    for j in (lowest..report_start).rev() {
        let line = lines.get(j);
        if line.depth != depth {
            break;
        }
        if mentions_super_smack(line.text) {
            start = Some(j);
            break;
        }
    }
    let start = start?;
    command_in(&lines.range(start..report_start), start)
}

/// Reads the command from the lines that hold it (blank ones skipped).
fn command_in(lines: &[Line<'_>], start: usize) -> Option<(SuperSmackCommand, String, usize)> {
    let window: Vec<Line<'_>> = lines
        .iter()
        .filter(|line| !line.is_blank())
        .copied()
        .collect();
    let joined = LogicalLine::join(&window, " ");
    let from = joined
        .text
        .split_whitespace()
        .position(|word| basename(word).starts_with("super-smack"))?;
    let words: Vec<&str> = joined.text.split_whitespace().skip(from).collect();
    let command = parse_command(&words);
    command.test.as_ref()?;
    Some((command, words.join(" "), start))
}

/// Reads the words of a command line, the first being `super-smack`.
pub fn parse_command(words: &[&str]) -> SuperSmackCommand {
    let mut command = SuperSmackCommand {
        test: None,
        clients: None,
        rounds: None,
        driver: None,
    };
    let mut rest = words.iter().skip(1);
    while let Some(&word) = rest.next() {
        if word == "-d" {
            command.driver = rest.next().map(|d| d.to_string());
        } else if let Some(driver) = word.strip_prefix("-d").filter(|d| !d.is_empty()) {
            command.driver = Some(driver.to_string());
        } else if word == "-D" {
            rest.next();
        } else if let Some(stem) = basename(word).strip_suffix(".smack") {
            command.test = Some(stem.to_string());
            command.clients = rest.next().and_then(|n| n.parse().ok());
            command.rounds = command
                .clients
                .and_then(|_| rest.next())
                .and_then(|n| n.parse().ok());
            break;
        }
    }
    command
}

fn to_run(
    report: &QueryBarrelReport<'_>,
    block: &LogicalLine,
    command: Option<(SuperSmackCommand, String, usize)>,
    depth: usize,
    report_start: usize,
    last_line: usize,
) -> Run {
    let mut results = Vec::with_capacity(report.rows.len() * 4 + 3);
    let mut threads = None;
    if let Some((connect, at)) = &report.connect {
        let line = block.line_of_rest(at);
        for (metric, value) in [
            ("max_ms", connect.max_ms),
            ("min_ms", connect.min_ms),
            ("avg_ms", connect.avg_ms),
        ] {
            // A negative time is the sentinel of a figure never measured:
            // absent, never stored (Contract 2).
            if value >= 0.0 {
                results.push(Measurement::new("connect", metric, value, line));
            }
        }
        threads = Some(connect.clients);
    }
    for row in &report.rows {
        let line = block.line_of_rest(row.at);
        results.push(Measurement::new(
            row.query_type,
            "num_queries",
            row.num_queries as f64,
            line,
        ));
        results.push(Measurement::new(
            row.query_type,
            "max_time",
            row.max_time,
            line,
        ));
        results.push(Measurement::new(
            row.query_type,
            "min_time",
            row.min_time,
            line,
        ));
        results.push(Measurement::new(
            row.query_type,
            "q_per_s",
            row.q_per_s,
            line,
        ));
    }
    let mut attrs = BTreeMap::new();
    let (test, first_index, command_text) = match command {
        Some((command, text, start)) => {
            // The command's count is what was asked for; the report's
            // `from N clients` is what connected. They agree in practice.
            threads = command.clients.or(threads);
            if let Some(driver) = command.driver {
                attrs.insert("db_server".to_string(), db_server_of_driver(&driver));
            }
            (command.test, start, Some(text))
        }
        None => (None, report_start, None),
    };
    Run {
        test,
        threads,
        attrs,
        command: command_text,
        ..Run::new(
            Tool::SuperSmack,
            depth,
            [first_index + 1, last_line],
            results,
        )
    }
}

/// super-smack's `-d` names a client driver; the attr names the server.
fn db_server_of_driver(driver: &str) -> String {
    match driver.to_ascii_lowercase().as_str() {
        "mysql" => "MySQL".to_string(),
        "pg" | "pgsql" | "postgres" | "postgresql" => "PostgreSQL".to_string(),
        _ => driver.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of::<SuperSmackReader>(input)
    }

    #[test]
    fn plain_report_with_tabs() {
        let (runs, unparsed) = runs_of(
            "$ super-smack -d mysql /usr/share/smacks/select-key.smack 30 10000\n\
             Query Barrel Report for client smacker1\n\
             connect: max=4ms  min=1ms avg= 2ms from 30 clients\n\
             Query_type\tnum_queries\tmax_time\tmin_time\tq_per_s\n\
             select_index\t600000\t0\t0\t22061.88\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.test.as_deref(), Some("select-key"));
        assert_eq!(run.threads, Some(30));
        assert_eq!(run.lines, [1, 5]);
        assert_eq!(run.value("select_index", "q_per_s"), Some(22061.88));
        assert_eq!(run.value("select_index", "num_queries"), Some(600000.0));
        assert_eq!(run.value("connect", "avg_ms"), Some(2.0));
        assert_eq!(
            run.attrs.get("db_server").map(String::as_str),
            Some("MySQL")
        );
        let q = run.results.iter().find(|r| r.metric == "q_per_s").unwrap();
        assert_eq!((q.line, q.unit.as_str()), (5, "q/s"));
    }

    #[test]
    fn header_glued_to_connect_and_split_over_two_lines() {
        let (runs, _) = runs_of(
            ">> super-smack -d mysql select-key.smack 10 100000\n\
             >> Query Barrel Report for client smacker1\n\
             >> connect: max=5ms min=0ms avg= 1ms from 10 clients Query_type\n\
             >> num_queries max_time min_time q_per_s\n\
             >> select_index 2000000 0 0 23983.87\n\
             >>\n",
        );
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].quote_depth, 2);
        assert_eq!(runs[0].threads, Some(10));
        assert_eq!(runs[0].lines, [1, 5]);
        assert_eq!(runs[0].value("select_index", "q_per_s"), Some(23983.87));
        let connect = runs[0]
            .results
            .iter()
            .find(|r| r.item == "connect")
            .unwrap();
        assert_eq!(connect.line, 3);
    }

    #[test]
    fn command_wrapped_after_clients_and_two_query_types() {
        let (runs, _) = runs_of(
            "# super-smack -d mysql /usr/local/share/super-smack/update-select.smack 10\n\
             100000\n\
             Query Barrel Report for client smacker\n\
             connect: max=3ms min=0ms avg= 0ms from 10 clients\n\
             Query_type num_queries max_time min_time q_per_s\n\
             select_index 1000000 1 0 6468.70\n\
             update_index 1000000 0 0 6468.70\n\
             That is all.\n",
        );
        let run = &runs[0];
        assert_eq!(run.test.as_deref(), Some("update-select"));
        assert_eq!(run.threads, Some(10));
        assert_eq!(run.lines, [1, 7]);
        assert_eq!(run.value("update_index", "q_per_s"), Some(6468.70));
        let update = run
            .results
            .iter()
            .find(|r| r.item == "update_index")
            .unwrap();
        assert_eq!(update.line, 7);
        assert!(run.command.as_deref().unwrap().ends_with("10 100000"));
    }

    #[test]
    fn minus_one_minimum_is_left_out_and_the_run_kept() {
        // One client: super-smack prints its unset minimum, -1.
        let (runs, unparsed) = runs_of(
            "Query Barrel Report for client smacker1\nconnect: max=0ms min=-1ms avg= 0ms from 1 clients\n\
             Query_type num_queries max_time min_time q_per_s\nselect_index 20000 0 0 7142.86\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.threads, Some(1));
        assert_eq!(run.value("connect", "min_ms"), None);
        assert_eq!(run.value("connect", "max_ms"), Some(0.0));
        assert_eq!(run.value("connect", "avg_ms"), Some(0.0));
        assert_eq!(run.value("select_index", "q_per_s"), Some(7142.86));
        assert_eq!(run.results.len(), 6);
    }

    #[test]
    fn threads_from_connect_line_without_command() {
        let (runs, _) = runs_of(
            "Query Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 25 clients\n\
             Query_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 100.5\n",
        );
        assert_eq!(runs[0].threads, Some(25));
        assert_eq!(runs[0].test, None);
    }

    #[test]
    fn rows_in_prose_are_not_runs() {
        let (runs, unparsed) = runs_of(
            "Adding these jumps from a baseline:\nselect_index 2000000 8 0 18624.60\nto:\nselect_index 2000000 5 0 29942.10\n",
        );
        assert!(runs.is_empty());
        assert!(unparsed.is_empty());
    }

    #[test]
    fn truncated_reports_are_near_misses() {
        let cases = [
            ("Query Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\n", "header"),
            (
                "Query Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time\n",
                "incomplete",
            ),
            (
                "Query Barrel Report for client smacker1\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0\n",
                "query row",
            ),
        ];
        crate::test_support::assert_one_near_miss_each::<SuperSmackReader>(&cases);
    }

    #[test]
    fn a_mail_that_lost_its_line_breaks() {
        let (runs, unparsed) = runs_of(
            "Results: super-smack -d mysql select-key.smack 50 1000 Query Barrel Report for client smacker1 connect: max=9ms min=0ms avg= 3ms from 50 clients Query_type num_queries max_time min_time q_per_s select_index 100000 2 0 41234.50 and that was it.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].threads, Some(50));
        assert_eq!(runs[0].test.as_deref(), Some("select-key"));
        assert_eq!(runs[0].value("select_index", "q_per_s"), Some(41234.50));
        assert_eq!(runs[0].lines, [1, 1]);
    }

    #[test]
    fn reports_of_a_shell_loop_share_its_command() {
        let (runs, _) = runs_of(
            "for i in 1 4; do super-smack -d mysql select-key.smack $i 100; done\n\
             Query Barrel Report for client smacker1\n\
             connect: max=0ms min=0ms avg= 0ms from 1 clients\n\
             Query_type num_queries max_time min_time q_per_s\n\
             select_index 200 0 0 9120.11\n\
             Query Barrel Report for client smacker1\n\
             connect: max=1ms min=0ms avg= 0ms from 4 clients\n\
             Query_type num_queries max_time min_time q_per_s\n\
             select_index 800 0 0 21544.87\n\
             \n\
             Later, by hand:\n\
             Query Barrel Report for client smacker1\n\
             connect: max=1ms min=0ms avg= 0ms from 8 clients\n\
             Query_type num_queries max_time min_time q_per_s\n\
             select_index 800 0 0 1.5\n",
        );
        let got: Vec<(Option<&str>, Option<u32>, [usize; 2])> = runs
            .iter()
            .map(|r| (r.test.as_deref(), r.threads, r.lines))
            .collect();
        assert_eq!(
            got,
            [
                (Some("select-key"), Some(1), [1, 5]),
                (Some("select-key"), Some(4), [6, 9]),
                (None, Some(8), [12, 15])
            ]
        );
    }

    #[test]
    fn a_report_in_markdown_list_items() {
        let (runs, unparsed) = runs_of(
            "- Query Barrel Report for client smacker1\n\
             - connect: max=62ms  min=0ms avg= 16ms from 10 clients\n\
             - Query_type      num_queries     max_time        min_time        q_per_s\n\
             - select_index    20000   0       0       4360.61\n\
             * **update_index    20000   1       0       2360.61**\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].threads, Some(10));
        assert_eq!(runs[0].value("select_index", "q_per_s"), Some(4360.61));
        assert_eq!(runs[0].value("update_index", "q_per_s"), Some(2360.61));
        assert_eq!(runs[0].lines, [1, 5]);
        // A list of prose is no report.
        let (runs, unparsed) = runs_of("- Query the server\n- select_index is fast\n");
        assert!(runs.is_empty() && unparsed.is_empty());
    }

    #[test]
    fn a_report_in_a_markdown_table() {
        let (runs, unparsed) = runs_of(
            "| Query_type | num_queries | max_time | min_time | q_per_s |\n\
             |---|---|---|---|---|\n\
             | select_index | 20000 | 0 | 0 | 4360.61 |\n\
             | update_index | 20000 | 1 | 0 | 2360.61 |\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].value("select_index", "num_queries"), Some(20000.0));
        assert_eq!(runs[0].value("update_index", "max_time"), Some(1.0));
        assert_eq!(runs[0].lines, [1, 4]);
        let line_of = |item: &str| {
            runs[0]
                .results
                .iter()
                .find(|m| m.item == item)
                .map(|m| m.line)
        };
        assert_eq!(line_of("update_index"), Some(4));
    }

    #[test]
    fn a_report_shredded_into_code_blocks() {
        // Each piece of a line in a fenced block of its own; the fences
        // leave two blank lines between the pieces.
        let (runs, unparsed) = runs_of(
            "#\n ./super-smack -d mysql select-key.smack 20 1000\n\n\n\
             Query\n Barrel Report\n\n\nfor\n\n\nclient\n smacker1\n\n\n\
             connect:\n max=2204ms  min=1ms avg= 221ms from 20 clients\n\n\n\
             Query_type     \n num_queries     max_time        min_time        q_per_s\n\n\n\
             select_index   \n 40000   0       0       5017.26\n\n\n\
             Options:\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.threads, Some(20));
        assert_eq!(run.test.as_deref(), Some("select-key"));
        assert_eq!(run.lines, [2, 25]);
        assert_eq!(run.value("connect", "max_ms"), Some(2204.0));
        assert_eq!(run.value("connect", "min_ms"), Some(1.0));
        assert_eq!(run.value("connect", "avg_ms"), Some(221.0));
        assert_eq!(run.value("select_index", "num_queries"), Some(40000.0));
        assert_eq!(run.value("select_index", "q_per_s"), Some(5017.26));
        assert_eq!(run.results.len(), 7);
    }

    #[test]
    fn a_heading_word_alone_is_no_report() {
        for input in [
            "Query\n\nThe query cache was off.\n",
            "Query Barrel\n\n\nReport for client smacker1\n\n\nno table followed\n",
        ] {
            let (runs, unparsed) = runs_of(input);
            assert!(runs.is_empty(), "{input:?}");
            assert!(unparsed.is_empty(), "{input:?}: {unparsed:?}");
        }
    }

    #[test]
    fn a_report_set_in_markdown_bold_line_by_line() {
        // A Chinese blog post (hidba.org, 2011, as copied to CSDN in 2014)
        // converted to Markdown: every line of the report is bold.
        let (runs, unparsed) = runs_of(
            "我们只需要依葫芦画瓢，修改其中的配置就行了；\n\
             **$./super-smack -d mysql -D /home/mysql/xuancan/super-smack/super-data /home/mysql/xuancan/super-smack-1.3/smacks/my.smack 10 15**\n\
             **Query Barrel Report for client smacker**\n\
             **connect: max=3ms  min=0ms avg= 0ms from 10 clients**\n\
             **Query_type      num_queries     max_time        min_time        q_per_s**\n\
             **select_akey   1000    16      2       497.42**\n\
             **select_by_id    10000   0       0       4974.16**\n\
             **select_userid_aid     5000    0       0       2487.08**\n\
             **update_by_id    1500    4       0       746.12**\n\
             上面的my.smack配置文件中我配置了\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.test.as_deref(), Some("my"));
        assert_eq!(run.threads, Some(10));
        assert_eq!(run.lines, [2, 9]);
        assert_eq!(run.value("select_akey", "max_time"), Some(16.0));
        assert_eq!(run.value("select_akey", "min_time"), Some(2.0));
        assert_eq!(run.value("update_by_id", "q_per_s"), Some(746.12));
        assert_eq!(run.value("connect", "max_ms"), Some(3.0));
        assert!(run.command.as_deref().unwrap().ends_with("my.smack 10 15"));
        // Bold words inside prose are not report lines.
        let (runs, _) = runs_of("**Query_type** is the first column.\n");
        assert!(runs.is_empty());
    }

    #[test]
    fn command_words() {
        let words = ["super-smack", "-dpg", "x/y/select-key.smack", "100"];
        let command = parse_command(&words);
        assert_eq!(command.test.as_deref(), Some("select-key"));
        assert_eq!(command.clients, Some(100));
        assert_eq!(command.rounds, None);
        assert_eq!(command.driver.as_deref(), Some("pg"));
    }
}
