//! sysbench output of every generation people post, read as a stream of
//! `label: value` fields:
//!
//! ```text
//! sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)
//! Number of threads: 4
//! [ 1s ] thds: 4 tps: 758.17 qps: 15191.27 (r/w/o: 10640.27/3032.68/1518.33) lat (ms,95%): 6.32 err/s: 0.00 reconn/s: 0.00
//! SQL statistics:
//!     queries performed:
//!         read:                            196672
//!     transactions:                        14048  (2806.10 per sec.)
//! General statistics:
//!     total time:                          5.0041s
//! Latency (ms):
//!          95th percentile:                        2.81
//! ```
//!
//! 0.4's `OLTP test statistics:` / `Test execution summary:`, 0.5's
//! `General statistics:` with `response time:`, 1.0's `SQL statistics:` and
//! `Latency (ms):`, the cpu, memory, threads, mutex and fileio modes, the
//! `--report-interval` lines of each generation (items `t=10s`) and a
//! `--histogram` block all go through the same field reader. Any run of
//! spaces and line breaks separates two fields, so a report wrapped by a
//! mailer or one that lost its line breaks reads the same as the original.
//!
//! The run's header (banner, `Number of threads:`, command line, 0.4's
//! `Doing ... test` mode line, a `=> 8 THREADS` marker of a shell loop) is
//! looked for above the report, back to where the previous report ended.
//!
//! One-line summaries such as `64 threads, time spent: 60s, queries
//! executed: 11500723, qps: 191678, 1 thread qps: 2994, tps: 13691` are runs
//! too, labelled by the underlined heading before them.

use std::collections::BTreeMap;

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_while, take_while1};
use nom::character::complete::{char, digit1, multispace0, multispace1, space0};
use nom::combinator::{opt, recognize};
use nom::multi::many1;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};

use crate::text::{Line, LogicalLine};
use crate::{metric_info, Measurement, Run, Tool, Unparsed};

/// A report longer than this many lines is not one report (600 interval
/// lines and a histogram still fit).
const MAX_REPORT_LINES: usize = 2000;
/// Lines joined for a first reading of a report.
const SHORT_BLOCK_LINES: usize = 64;
/// How far above a report its header (banner, threads, command) may be.
const MAX_HEADER_LINES: usize = 60;
/// Text that starts a report, found with a plain substring search.
const ANCHORS: [&str; 8] = [
    "OLTP test statistics:",
    "SQL statistics:",
    "General statistics:",
    "Test execution summary:",
    "CPU speed:",
    "File operations:",
    "Total operations:",
    "Operations performed:",
];
const HISTOGRAM_START: &str = "Latency histogram (values are in milliseconds)";
const SUMMARY_MARK: &str = "threads, time spent:";

type Res<'a, T> = IResult<&'a str, T>;

/// Which item a number belongs to: the final report or one interval line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Total,
    /// `[ 10s ]`: the seconds as printed.
    Interval(String),
}

impl Item {
    fn name(&self) -> String {
        match self {
            Item::Total => "total".to_string(),
            Item::Interval(seconds) => format!("t={seconds}s"),
        }
    }
}

/// One number of a report, with the rest of the text from where it was
/// printed (to find its line).
#[derive(Debug, Clone, PartialEq)]
pub struct Field<'a> {
    pub item: Item,
    pub metric: String,
    pub value: f64,
    at: &'a str,
}

/// The report sections sysbench prints headings for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// 0.4 and 0.5 `OLTP test statistics:`, 1.0 `SQL statistics:`.
    Sql,
    QueriesPerformed,
    /// 0.5 and 1.0 `General statistics:`, 0.4 `Test execution summary:`.
    General,
    /// `Latency (ms):`, 0.5 `response time:`, 0.4 `per-request statistics:`.
    Latency,
    Fairness,
    CpuSpeed,
    FileOperations,
    Throughput,
    Histogram,
}

impl Section {
    fn heading(self) -> &'static str {
        match self {
            Section::Sql => "SQL statistics:",
            Section::QueriesPerformed => "queries performed:",
            Section::General => "General statistics:",
            Section::Latency => "Latency (ms):",
            Section::Fairness => "Threads fairness:",
            Section::CpuSpeed => "CPU speed:",
            Section::FileOperations => "File operations:",
            Section::Throughput => "Throughput:",
            Section::Histogram => "Latency histogram",
        }
    }

    /// What a section must hold to be complete.
    fn expected(self) -> &'static str {
        match self {
            Section::Sql => "`transactions: N (X per sec.)`",
            Section::QueriesPerformed => "`read: N`, `write: N`, `other: N`, `total: N`",
            Section::General => "`total time: Xs` and `total number of events: N`",
            Section::Latency => "`min:`, `avg:` and `max:` latencies",
            Section::Fairness => "`events (avg/stddev): A/S`",
            Section::CpuSpeed => "`events per second: X`",
            Section::FileOperations => "`reads/s:`, `writes/s:`, `fsyncs/s:`",
            Section::Throughput => "`read, MiB/s: X` and `written, MiB/s: X`",
            Section::Histogram => "histogram rows `VALUE |*** COUNT`",
        }
    }

    /// Metrics without which the section is a broken paste.
    fn required(self) -> &'static [&'static str] {
        match self {
            Section::Sql => &["transactions"],
            Section::General => &["total_time_s", "events"],
            Section::Latency => &["latency_min_ms", "latency_avg_ms", "latency_max_ms"],
            Section::CpuSpeed => &["events_per_s"],
            Section::FileOperations => &["reads_per_s", "writes_per_s"],
            Section::Throughput => &["read_mib_per_s", "written_mib_per_s"],
            _ => &[],
        }
    }
}

/// One piece of a report stream.
#[derive(Debug, Clone, PartialEq)]
enum Element<'a> {
    Heading(Section),
    Fields(Vec<Field<'a>>),
    /// An interval line: its numbers and the threads it names.
    Interval(Vec<Field<'a>>, Option<u32>),
    /// Read and deliberately not kept (fairness, histogram rows).
    Skipped,
}

/// A report as read: its numbers, the sections it printed, what it says
/// about the test and threads, and why it is incomplete if it is.
#[derive(Debug, Clone, PartialEq)]
pub struct SysbenchReport<'a> {
    pub fields: Vec<Field<'a>>,
    pub sections: Vec<Section>,
    /// The mode the report's own sections imply (`cpu`, `memory`, `fileio`).
    pub implied_test: Option<&'static str>,
    pub interval_threads: Option<u32>,
}

/// Finds every sysbench report and one-line summary in the lines; reports
/// that start but break off become [`Unparsed`] entries.
pub fn find_runs(lines: &[Line<'_>], runs: &mut Vec<Run>, unparsed: &mut Vec<Unparsed>) {
    // Headers above this index belong to earlier runs.
    let mut taken_until = 0;
    let mut i = 0;
    while i < lines.len() {
        let text = lines[i].text;
        let offset = match start_in(text) {
            None => {
                i += 1;
                continue;
            }
            Some(Start::Summaries) => {
                i = summaries(lines, i, runs, unparsed);
                taken_until = i;
                continue;
            }
            Some(Start::Report(offset)) => offset,
        };
        let block = report_block(lines, i, offset);
        let (rest, elements) = report_elements(block.text.get(offset..).unwrap_or_default());
        let consumed = block.text.len() - rest.len();
        let used = block.text.get(..consumed).unwrap_or_default().trim_end();
        let last_line = block
            .line_at(used.len().saturating_sub(1))
            .max(lines[i].number);
        match assemble(elements, rest) {
            Ok(report) => {
                let glued = text.get(..offset).unwrap_or_default();
                let header = read_header(lines, taken_until, i, glued);
                runs.push(to_run(
                    &report,
                    &block,
                    header,
                    lines[i].depth,
                    i,
                    last_line,
                ));
            }
            // A heading word inside a sentence is not a report.
            Err(_) if !text.get(..offset).unwrap_or_default().trim().is_empty() => {}
            Err(why) => unparsed.push(Unparsed {
                line: lines[i].number,
                text: block.text.lines().take(4).collect::<Vec<_>>().join("\n"),
                why,
            }),
        }
        i = last_line.max(i + 1);
        taken_until = i;
    }
}

/// Joins the lines a report may span. Most reports end within a few dozen
/// lines, so a short block is tried first and the long one (600 interval
/// lines, a histogram) joined only when the report runs to its end.
fn report_block(lines: &[Line<'_>], start: usize, offset: usize) -> LogicalLine {
    let full_end = block_end(lines, start);
    let short_end = full_end.min(start + SHORT_BLOCK_LINES);
    let short = LogicalLine::join(&lines[start..short_end], "\n");
    if short_end == full_end {
        return short;
    }
    let (rest, _) = report_elements(short.text.get(offset..).unwrap_or_default());
    if rest.trim().is_empty() {
        LogicalLine::join(&lines[start..full_end], "\n")
    } else {
        short
    }
}

/// What starts at a line: a report (at a byte offset) or one-line summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Report(usize),
    Summaries,
}

/// The cheap test every line goes through: a first-byte check for interval
/// and histogram lines, then the text before each colon against the anchors.
fn start_in(text: &str) -> Option<Start> {
    let trimmed = text.trim_start();
    match trimmed.as_bytes().first() {
        Some(b'[') if interval_line(trimmed).is_ok() => {
            return Some(Start::Report(text.len() - trimmed.len()))
        }
        // A histogram starts a report: the header above it is the run's.
        Some(b'L') if trimmed.starts_with(HISTOGRAM_START) => {
            return Some(Start::Report(text.len() - trimmed.len()));
        }
        _ => {}
    }
    for (colon, _) in text.match_indices(':') {
        let head = text.get(..=colon)?;
        if head.ends_with(SUMMARY_MARK) {
            return Some(Start::Summaries);
        }
        if let Some(anchor) = ANCHORS.iter().find(|a| head.ends_with(*a)) {
            return Some(Start::Report(head.len() - anchor.len()));
        }
    }
    None
}

/// The block a report may span: lines at the report's quote depth (blank
/// lines of any depth in between), up to [`MAX_REPORT_LINES`].
fn block_end(lines: &[Line<'_>], start: usize) -> usize {
    let depth = lines[start].depth;
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_REPORT_LINES {
        let line = &lines[end];
        if line.depth != depth && !line.is_blank() {
            break;
        }
        end += 1;
    }
    end
}

/// Reads report elements until the text stops looking like a report, a
/// section repeats (the next report), or an interval line follows the
/// final report.
fn report_elements(mut input: &str) -> (&str, Vec<Element<'_>>) {
    let mut elements = Vec::new();
    let mut seen: Vec<Section> = Vec::new();
    loop {
        let Ok((rest, element)) = preceded(multispace0, element).parse(input) else {
            break;
        };
        match &element {
            Element::Heading(section) if seen.contains(section) => break,
            Element::Heading(section) => seen.push(*section),
            Element::Interval(..) if seen.iter().any(|s| *s != Section::Histogram) => break,
            _ => {}
        }
        elements.push(element);
        input = rest;
    }
    (input, elements)
}

/// Checks the elements make a whole report and gathers them.
fn assemble<'a>(elements: Vec<Element<'a>>, rest: &'a str) -> Result<SysbenchReport<'a>, String> {
    let mut report = SysbenchReport {
        fields: Vec::new(),
        sections: Vec::new(),
        implied_test: None,
        interval_threads: None,
    };
    // The heading still waiting for its first number.
    let mut empty: Option<Section> = None;
    for element in elements {
        match element {
            Element::Heading(section) => {
                if let Some(open) = empty {
                    if !(open == Section::Sql && section == Section::QueriesPerformed) {
                        return Err(empty_section(open, section.heading()));
                    }
                }
                empty = Some(section);
                report.sections.push(section);
                report.implied_test = report.implied_test.or(match section {
                    Section::CpuSpeed => Some("cpu"),
                    Section::FileOperations | Section::Throughput => Some("fileio"),
                    _ => None,
                });
            }
            Element::Fields(fields) => {
                empty = None;
                for field in fields {
                    report.implied_test = report.implied_test.or(implied_by(&field.metric));
                    let duplicate = report
                        .fields
                        .iter()
                        .any(|f| f.item == field.item && f.metric == field.metric);
                    if !duplicate {
                        report.fields.push(field);
                    }
                }
            }
            Element::Interval(fields, threads) => {
                empty = None;
                report.interval_threads = report.interval_threads.or(threads);
                report.fields.extend(fields);
            }
            Element::Skipped => empty = None,
        }
    }
    if let Some(label) = known_label_at(rest.trim_start()) {
        return Err(format!(
            "sysbench report breaks off at `{}`: expected {}",
            label.0, label.1
        ));
    }
    if let Some(open) = empty {
        return Err(empty_section(open, "the end of the paste"));
    }
    for section in &report.sections {
        let missing = section.required().iter().find(|m| {
            !report
                .fields
                .iter()
                .any(|f| f.item == Item::Total && f.metric == **m)
        });
        if let Some(missing) = missing {
            return Err(format!(
                "sysbench `{}` section without `{missing}`: expected {}",
                section.heading(),
                section.expected()
            ));
        }
    }
    if report.fields.is_empty() {
        return Err("sysbench report without any number".to_string());
    }
    Ok(report)
}

fn empty_section(section: Section, next: &str) -> String {
    format!(
        "sysbench `{}` followed by {next}: expected {}",
        section.heading(),
        section.expected()
    )
}

fn implied_by(metric: &str) -> Option<&'static str> {
    match metric {
        "operations" | "ops_per_s" => Some("memory"),
        "reads" | "writes" | "total_ops" | "read_mib" | "written_mib" | "requests_per_s" => {
            Some("fileio")
        }
        _ => None,
    }
}

/// One element of a report, fields separated by any whitespace.
fn element(input: &str) -> Res<'_, Element<'_>> {
    alt((
        heading.map(Element::Heading),
        histogram_row.map(|_| Element::Skipped),
        skipped_field.map(|_| Element::Skipped),
        interval_line.map(|(fields, threads)| Element::Interval(fields, threads)),
        percentile_field.map(|f| Element::Fields(vec![f])),
        count_rate_field.map(Element::Fields),
        single_field.map(|f| Element::Fields(vec![f])),
        memory_transferred.map(Element::Fields),
        fileio_04_operations.map(Element::Fields),
        fileio_04_transferred.map(Element::Fields),
        fileio_04_requests.map(|f| Element::Fields(vec![f])),
    ))
    .parse(input)
}

/// Words of a label, any whitespace between them: `total number of events:`.
fn label<'a>(
    words: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    move |input: &'a str| {
        let mut rest = input;
        for (n, word) in words.split(' ').enumerate() {
            if n > 0 {
                (rest, _) = multispace1.parse(rest)?;
            }
            (rest, _) = tag(word).parse(rest)?;
        }
        Ok((
            rest,
            input.get(..input.len() - rest.len()).unwrap_or_default(),
        ))
    }
}

fn heading(input: &str) -> Res<'_, Section> {
    alt((
        alt((label("OLTP test statistics:"), label("SQL statistics:"))).map(|_| Section::Sql),
        label("queries performed:").map(|_| Section::QueriesPerformed),
        alt((
            label("General statistics:"),
            label("Test execution summary:"),
        ))
        .map(|_| Section::General),
        alt((
            label("Latency (ms):"),
            label("response time:"),
            label("per-request statistics:"),
        ))
        .map(|_| Section::Latency),
        label("Threads fairness:").map(|_| Section::Fairness),
        label("CPU speed:").map(|_| Section::CpuSpeed),
        label("File operations:").map(|_| Section::FileOperations),
        label("Throughput:").map(|_| Section::Throughput),
        (
            label(HISTOGRAM_START),
            multispace1,
            label("value"),
            multispace1,
            take_while1(|c| c == '-'),
            multispace1,
            label("distribution"),
            multispace1,
            take_while1(|c| c == '-'),
            multispace1,
            label("count"),
        )
            .map(|_| Section::Histogram),
    ))
    .parse(input)
}

/// `0.012 |*****                 1745`
fn histogram_row(input: &str) -> Res<'_, ()> {
    let (rest, _) = (
        decimal_text,
        space0,
        char('|'),
        take_while(|c| c == '*'),
        space0,
        digit1,
    )
        .parse(input)?;
    Ok((rest, ()))
}

/// Thread fairness and the 0.4 cpu test's prime limit: read, not kept.
fn skipped_field(input: &str) -> Res<'_, ()> {
    let (rest, _) = (
        alt((
            label("events (avg/stddev):"),
            label("execution time (avg/stddev):"),
            label("Maximum prime number checked in CPU test:"),
        )),
        multispace0,
        take_while1(|c: char| !c.is_whitespace()),
    )
        .parse(input)?;
    Ok((rest, ()))
}

/// How a field's value is printed and converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// A plain number.
    Plain,
    /// A time in seconds, `5.0041s` (the `s` may be missing).
    Seconds,
    /// A time in seconds (0.4's `total time taken by event execution`),
    /// stored in milliseconds.
    SecondsAsMs,
    /// A latency: bare under 1.0's `Latency (ms):`, `1.70ms` in 0.4.12 and
    /// 0.5, and `0.0123s` in earlier 0.4 releases. Stored in milliseconds.
    Latency,
}

/// `label: value` fields of one number: (label, value kind, metric).
const SINGLE_FIELDS: [(&str, Value, &str); 17] = [
    ("read, MiB/s:", Value::Plain, "read_mib_per_s"),
    ("written, MiB/s:", Value::Plain, "written_mib_per_s"),
    ("read:", Value::Plain, "read_queries"),
    ("write:", Value::Plain, "write_queries"),
    ("other:", Value::Plain, "other_queries"),
    (
        "total time taken by event execution:",
        Value::SecondsAsMs,
        "latency_sum_ms",
    ),
    ("total number of events:", Value::Plain, "events"),
    ("total time:", Value::Seconds, "total_time_s"),
    ("total:", Value::Plain, "queries"),
    ("min:", Value::Latency, "latency_min_ms"),
    ("avg:", Value::Latency, "latency_avg_ms"),
    ("max:", Value::Latency, "latency_max_ms"),
    ("sum:", Value::Latency, "latency_sum_ms"),
    ("events per second:", Value::Plain, "events_per_s"),
    ("reads/s:", Value::Plain, "reads_per_s"),
    ("writes/s:", Value::Plain, "writes_per_s"),
    ("fsyncs/s:", Value::Plain, "fsyncs_per_s"),
];

/// `label: N (X per sec.)`: (label, count metric, rate metric). Rates
/// Contract 2 has no name for (errors per second) are read and dropped.
const COUNT_RATE_FIELDS: [(&str, &str, Option<&str>); 8] = [
    (
        "read/write requests:",
        "rw_requests",
        Some("rw_requests_per_s"),
    ),
    ("other operations:", "other_ops", None),
    ("transactions:", "transactions", Some("tps")),
    ("queries:", "queries", Some("qps")),
    ("ignored errors:", "ignored_errors", None),
    ("reconnects:", "reconnects", None),
    ("deadlocks:", "deadlocks", None),
    ("Total operations:", "operations", Some("ops_per_s")),
];

fn single_field(input: &str) -> Res<'_, Field<'_>> {
    for (name, kind, metric) in SINGLE_FIELDS {
        let Ok((rest, _)) = label(name).parse(input) else {
            continue;
        };
        let (rest, value) = preceded(multispace0, valued(kind)).parse(rest)?;
        return Ok((rest, total(metric, value, input)));
    }
    Err(error(input))
}

fn valued<'a>(
    kind: Value,
) -> impl Parser<&'a str, Output = f64, Error = nom::error::Error<&'a str>> {
    move |input: &'a str| {
        let (rest, text) = decimal_text(input)?;
        let (rest, suffix) = opt(alt((tag("ms"), tag("s")))).parse(rest)?;
        end_of_value(rest)?;
        let value = match (kind, suffix) {
            (Value::Plain, None) | (Value::Seconds, None | Some("s")) => to_f64(text, 0),
            (Value::SecondsAsMs, None | Some("s")) | (Value::Latency, Some("s")) => to_f64(text, 3),
            (Value::Latency, None | Some("ms")) => to_f64(text, 0),
            _ => None,
        };
        value.map(|v| (rest, v)).ok_or_else(|| error(input))
    }
}

fn count_rate_field(input: &str) -> Res<'_, Vec<Field<'_>>> {
    for (name, count_metric, rate_metric) in COUNT_RATE_FIELDS {
        let Ok((rest, _)) = label(name).parse(input) else {
            continue;
        };
        let (rest, count) = preceded(multispace0, number).parse(rest)?;
        let (rest, rate) = preceded(multispace0, rate_in_parens).parse(rest)?;
        let mut fields = vec![total(count_metric, count, input)];
        if let Some(rate_metric) = rate_metric {
            fields.push(total(rate_metric, rate, input));
        }
        return Ok((rest, fields));
    }
    Err(error(input))
}

/// `(2806.10 per sec.)`, `(4899827.59 per second)`, `(1022031.23 ops/sec)`
fn rate_in_parens(input: &str) -> Res<'_, f64> {
    delimited(
        (char('('), space0),
        number,
        (
            multispace1,
            alt((label("per sec."), label("per second"), tag("ops/sec"))),
            char(')'),
        ),
    )
    .parse(input)
}

/// `95th percentile: 2.81` (1.0), `approx.  95 percentile: 4.01ms` (0.4, 0.5).
fn percentile_field(input: &str) -> Res<'_, Field<'_>> {
    let (rest, rank) = alt((
        (digit1, alt((tag("th"), tag("st"), tag("nd"), tag("rd")))).map(|(n, _)| n),
        preceded((tag("approx."), multispace1), digit1),
    ))
    .parse(input)?;
    let (rest, _) = (multispace1, tag("percentile:"), multispace0).parse(rest)?;
    let (rest, value) = valued(Value::Latency).parse(rest)?;
    let metric = percentile_metric(rank).ok_or_else(|| error(input))?;
    Ok((
        rest,
        Field {
            item: Item::Total,
            metric,
            value,
            at: input,
        },
    ))
}

fn percentile_metric(rank: &str) -> Option<String> {
    let rank: u32 = rank.parse().ok()?;
    (1..=100)
        .contains(&rank)
        .then(|| format!("latency_p{rank}_ms"))
}

/// 1.0 `23931.01 MiB transferred (4784.99 MiB/sec)`; 0.4 `10240.00 MB
/// transferred (998.08 MB/sec)`. 0.4's MB are sysbench's 1024 * 1024 bytes,
/// so both are MiB.
fn memory_transferred(input: &str) -> Res<'_, Vec<Field<'_>>> {
    let (rest, (amount, _, _, _, _, rate, _, _)) = (
        number,
        multispace1,
        alt((tag("MiB"), tag("MB"))),
        multispace1,
        (tag("transferred"), multispace1, char('(')),
        number,
        space0,
        (alt((tag("MiB/sec"), tag("MB/sec"))), char(')')),
    )
        .parse(input)?;
    Ok((
        rest,
        vec![
            total("transferred_mib", amount, input),
            total("mib_per_s", rate, input),
        ],
    ))
}

/// 0.4 fileio: `Operations performed:  6004 Read, 4003 Write, 12803 Other =
/// 22810 Total`; 0.4 memory: `Operations performed: 10485760 (1022031.23
/// ops/sec)`.
fn fileio_04_operations(input: &str) -> Res<'_, Vec<Field<'_>>> {
    let (rest, _) = (label("Operations performed:"), multispace0).parse(input)?;
    if let Ok((rest, (reads, _, writes, _, other, _, all, _))) = (
        number,
        (multispace1, tag("Read,"), multispace1),
        number,
        (multispace1, tag("Write,"), multispace1),
        number,
        (
            multispace1,
            tag("Other"),
            multispace1,
            char('='),
            multispace1,
        ),
        number,
        (multispace1, tag("Total")),
    )
        .parse(rest)
    {
        let fields = vec![
            total("reads", reads, input),
            total("writes", writes, input),
            total("other_ops", other, input),
            total("total_ops", all, input),
        ];
        return Ok((rest, fields));
    }
    let (rest, (operations, rate)) = (number, preceded(multispace1, rate_in_parens)).parse(rest)?;
    Ok((
        rest,
        vec![
            total("operations", operations, input),
            total("ops_per_s", rate, input),
        ],
    ))
}

/// `Read 93.812Mb  Written 62.547Mb  Total transferred 156.36Mb  (540.66Mb/sec)`
fn fileio_04_transferred(input: &str) -> Res<'_, Vec<Field<'_>>> {
    let (rest, (_, read, _, written, _, transferred, _, rate, _)) = (
        (tag("Read"), multispace1),
        size_mib,
        (multispace1, tag("Written"), multispace1),
        size_mib,
        (multispace1, label("Total transferred"), multispace1),
        size_mib,
        (multispace1, char('(')),
        size_mib,
        (tag("/sec)")),
    )
        .parse(input)?;
    Ok((
        rest,
        vec![
            total("read_mib", read, input),
            total("written_mib", written, input),
            total("transferred_mib", transferred, input),
            total("mib_per_s", rate, input),
        ],
    ))
}

/// 0.4's sizes, `0b`, `93.812Mb`, `1.2Gb`, in sysbench's binary units,
/// as MiB. Scaling by powers of two is exact in floating point.
fn size_mib(input: &str) -> Res<'_, f64> {
    let (rest, (text, unit)) = (
        decimal_text,
        alt((tag("Tb"), tag("Gb"), tag("Mb"), tag("Kb"), tag("b"))),
    )
        .parse(input)?;
    let value = to_f64(text, 0).ok_or_else(|| error(input))?;
    let scale = match unit {
        "Tb" => 1_048_576.0,
        "Gb" => 1024.0,
        "Mb" => 1.0,
        "Kb" => 1.0 / 1024.0,
        _ => 1.0 / 1_048_576.0,
    };
    Ok((rest, value * scale))
}

/// `2665.62 Requests/sec executed`
fn fileio_04_requests(input: &str) -> Res<'_, Field<'_>> {
    let (rest, (value, _)) = (
        number,
        (
            multispace1,
            tag("Requests/sec"),
            multispace1,
            tag("executed"),
        ),
    )
        .parse(input)?;
    Ok((rest, total("requests_per_s", value, input)))
}

/// An interval line of any generation, as item `t=Ns`:
///
/// - 1.0: `[ 10s ] thds: 8 tps: 1.0 qps: 2.0 (r/w/o: 1.0/0.5/0.5) lat (ms,95%): 6.32 err/s: 0.00 reconn/s: 0.00`
/// - 1.0 cpu: `[ 1s ] thds: 2 eps: 2025.43 lat (ms,95%): 8.28`
/// - 1.0 fileio: `[ 1s ] reads: 0.00 MiB/s writes: 6.24 MiB/s fsyncs: 411.12/s latency (ms,95%): 4.028`
/// - 0.5: `[  10s] threads: 4, tps: 1810.86, reads/s: 25355.94, writes/s: 7244.24 response time: 2.40ms (99%)`
/// - early 1.0: `[   1s] threads: 32, tps: 269.73, reads: 3982.01, writes: 809.19, response time: 178.79ms (95%), errors: 0.00, reconnects:  0.00`
fn interval_line(input: &str) -> Res<'_, (Vec<Field<'_>>, Option<u32>)> {
    let (rest, seconds) = delimited(
        (char('['), space0),
        recognize((digit1, opt((char('.'), digit1)))),
        (char('s'), space0, char(']')),
    )
    .parse(input)?;
    let item = Item::Interval(seconds.to_string());
    let (rest, parts) = many1(preceded(
        multispace1,
        (interval_part, opt(char(','))).map(|(part, _)| part),
    ))
    .parse(rest)?;
    let mut fields = Vec::new();
    let mut threads = None;
    for part in parts {
        match part {
            IntervalPart::Threads(n) => threads = Some(n),
            IntervalPart::Value(metric, value) => fields.push(Field {
                item: item.clone(),
                metric,
                value,
                at: input,
            }),
            IntervalPart::Pair(first, second) => {
                fields.push(Field {
                    item: item.clone(),
                    metric: "reads_per_s".to_string(),
                    value: first,
                    at: input,
                });
                fields.push(Field {
                    item: item.clone(),
                    metric: "writes_per_s".to_string(),
                    value: second,
                    at: input,
                });
            }
            IntervalPart::Dropped => {}
        }
    }
    if fields.is_empty() {
        return Err(error(input));
    }
    Ok((rest, (fields, threads)))
}

#[derive(Debug, Clone, PartialEq)]
enum IntervalPart {
    Threads(u32),
    Value(String, f64),
    /// `(r/w/o: R/W/O)`: reads and writes per second (others have no name).
    Pair(f64, f64),
    /// Error and reconnect rates: read, no Contract 2 name.
    Dropped,
}

fn interval_part(input: &str) -> Res<'_, IntervalPart> {
    alt((
        // `(r/w/o: 10640.27/3032.68/1518.33)`
        delimited(
            (tag("(r/w/o:"), space0),
            (number, char('/'), number, char('/'), number),
            char(')'),
        )
        .map(|(r, _, w, _, _)| IntervalPart::Pair(r, w)),
        // `lat (ms,95%): 6.32`, `latency (ms,95%): 4.028`
        (
            alt((tag("latency"), tag("lat"))),
            multispace0,
            tag("(ms,"),
            digit1,
            tag("%):"),
            multispace0,
            number,
        )
            .map(|(_, _, _, rank, _, _, value)| percentile_part(rank, value)),
        // `response time: 2.40ms (99%)`
        (
            label("response time:"),
            multispace0,
            number,
            tag("ms"),
            multispace0,
            char('('),
            digit1,
            tag("%)"),
        )
            .map(|(_, _, value, _, _, _, rank, _)| percentile_part(rank, value)),
        (
            take_while1(|c: char| c.is_ascii_alphanumeric() || c == '/'),
            char(':'),
            multispace0,
            number,
            opt(preceded(multispace0, alt((tag("MiB/s"), tag("/s"))))),
        )
            .map(|(key, _, _, value, unit)| keyed_part(key, value, unit)),
    ))
    .parse(input)
}

fn percentile_part(rank: &str, value: f64) -> IntervalPart {
    percentile_metric(rank).map_or(IntervalPart::Dropped, |metric| {
        IntervalPart::Value(metric, value)
    })
}

fn keyed_part(key: &str, value: f64, unit: Option<&str>) -> IntervalPart {
    let metric = match (key, unit) {
        ("thds" | "threads", None) if value.fract() == 0.0 && value <= f64::from(u32::MAX) => {
            return IntervalPart::Threads(value as u32);
        }
        ("tps", _) => "tps",
        ("qps", _) => "qps",
        ("eps", _) => "events_per_s",
        ("reads", Some("MiB/s")) => "read_mib_per_s",
        ("writes", Some("MiB/s")) => "written_mib_per_s",
        ("reads/s" | "reads", _) => "reads_per_s",
        ("writes/s" | "writes", _) => "writes_per_s",
        ("fsyncs", _) => "fsyncs_per_s",
        _ => return IntervalPart::Dropped,
    };
    IntervalPart::Value(metric.to_string(), value)
}

/// Labels whose value is missing or broken where a report stops, with what
/// was expected after them.
fn known_label_at(text: &str) -> Option<(&'static str, &'static str)> {
    const KNOWN: [(&str, &str); 12] = [
        ("transactions:", "`transactions: N (X per sec.)`"),
        ("queries:", "`queries: N (X per sec.)`"),
        (
            "read/write requests:",
            "`read/write requests: N (X per sec.)`",
        ),
        ("deadlocks:", "`deadlocks: N (X per sec.)`"),
        ("total time:", "`total time: Xs`"),
        ("total number of events:", "`total number of events: N`"),
        ("events per second:", "`events per second: X`"),
        ("Total operations:", "`Total operations: N (X per second)`"),
        (
            "Operations performed:",
            "`Operations performed: N Read, N Write, N Other = N Total`",
        ),
        ("min:", "`min: X`"),
        ("avg:", "`avg: X`"),
        ("max:", "`max: X`"),
    ];
    KNOWN.into_iter().find(|(name, _)| text.starts_with(name))
}

/// Digits with at most one decimal point: `2806.10`, `5`.
fn decimal_text(input: &str) -> Res<'_, &str> {
    recognize((digit1, opt((char('.'), digit1)))).parse(input)
}

/// A plain number, not followed by more of a word (`12abc` is no number).
fn number(input: &str) -> Res<'_, f64> {
    let (rest, text) = decimal_text(input)?;
    let value = to_f64(text, 0).ok_or_else(|| error(input))?;
    Ok((rest, value))
}

/// A value ends at whitespace, the end of the text, or punctuation.
fn end_of_value(rest: &str) -> Result<(), nom::Err<nom::error::Error<&str>>> {
    match rest.chars().next() {
        Some(c) if c.is_alphanumeric() || c == '.' => Err(error(rest)),
        _ => Ok(()),
    }
}

/// Parses a decimal as printed, moving its point `shift` places right
/// first, so `3837.9526` seconds become exactly `3837952.6` ms rather than
/// a product with rounding noise. Values too large to be finite are refused.
fn to_f64(text: &str, shift: usize) -> Option<f64> {
    let value = if shift == 0 {
        text.parse::<f64>().ok()?
    } else {
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let mut digits = String::with_capacity(text.len() + shift + 1);
        digits.push_str(int);
        let moved = frac.get(..shift.min(frac.len())).unwrap_or_default();
        digits.push_str(moved);
        digits.extend(std::iter::repeat_n('0', shift - moved.len()));
        let rest = frac.get(moved.len()..).unwrap_or_default();
        if !rest.is_empty() {
            digits.push('.');
            digits.push_str(rest);
        }
        digits.parse::<f64>().ok()?
    };
    value.is_finite().then_some(value)
}

fn total<'a>(metric: &str, value: f64, at: &'a str) -> Field<'a> {
    Field {
        item: Item::Total,
        metric: metric.to_string(),
        value,
        at,
    }
}

fn error(input: &str) -> nom::Err<nom::error::Error<&str>> {
    nom::Err::Error(nom::error::Error::new(input, nom::error::ErrorKind::Verify))
}

/// What the lines above a report say about its run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunHeader {
    pub version: Option<String>,
    pub threads: Option<u32>,
    pub command_threads: Option<u32>,
    pub marker_threads: Option<u32>,
    pub test: Option<String>,
    pub mode_test: Option<&'static str>,
    pub command: Option<String>,
    /// Index of the header's first line, if any was found.
    pub first: Option<usize>,
}

/// Reads the header of the report starting at `report_start`: the lines
/// above it back to `taken_until` (same quote depth) and the text glued in
/// front of it on its own line.
fn read_header(
    lines: &[Line<'_>],
    taken_until: usize,
    report_start: usize,
    glued: &str,
) -> RunHeader {
    let depth = lines[report_start].depth;
    let lowest = report_start
        .saturating_sub(MAX_HEADER_LINES)
        .max(taken_until);
    let mut header = RunHeader::default();
    let mut window: Vec<(usize, &str)> = Vec::new();
    for j in (lowest..report_start).rev() {
        let line = &lines[j];
        if line.depth != depth && !line.is_blank() {
            break;
        }
        window.push((j, line.text));
    }
    window.reverse();
    if !glued.trim().is_empty() {
        window.push((report_start, glued));
    }
    for (n, &(j, text)) in window.iter().enumerate() {
        let mut found = false;
        if let Some(version) = banner_version(text) {
            header.version = Some(version);
            found = true;
        }
        if let Some(threads) = after_label(text, "Number of threads:") {
            header.threads = Some(threads);
            found = true;
        }
        if let Some(threads) = thread_marker(text) {
            header.marker_threads = Some(threads);
            found = true;
        }
        if let Some(mode) = mode_line(text) {
            header.mode_test = Some(mode);
        }
        if let Some(command) = command_at(&window[n..]) {
            header.command_threads = command.threads.or(header.command_threads);
            header.test = command.test.or(header.test.take());
            header.command = Some(command.text);
            found = true;
        }
        if found && header.first.is_none() {
            header.first = Some(j);
        }
    }
    header
}

/// `sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)`, `sysbench 0.4.12:
/// multi-threaded system evaluation benchmark`, `sysbench v0.4.8: ...`.
fn banner_version(text: &str) -> Option<String> {
    let at = text.find("sysbench ")?;
    let rest = text.get(at + "sysbench ".len()..)?;
    let word = rest.split_whitespace().next()?;
    let version = word.trim_start_matches('v').trim_end_matches(':');
    let plausible = version.starts_with(|c: char| c.is_ascii_digit())
        && version.contains('.')
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    let banner =
        rest.contains("LuaJIT") || rest.contains("evaluation benchmark") || word.ends_with(':');
    (plausible && banner).then(|| version.to_string())
}

/// `Number of threads: 8` and the like: the number after a label.
fn after_label(text: &str, name: &str) -> Option<u32> {
    let at = text.find(name)?;
    let rest = text.get(at + name.len()..)?.trim_start();
    let digits: &str = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// `=> 8 THREADS`, as a shell loop around sysbench prints it.
fn thread_marker(text: &str) -> Option<u32> {
    let rest = text.trim().strip_prefix("=>")?.trim_start();
    let (digits, word) = rest.split_once(char::is_whitespace)?;
    let word = word.trim();
    (word.eq_ignore_ascii_case("threads") || word.eq_ignore_ascii_case("thread"))
        .then(|| digits.parse().ok())
        .flatten()
}

/// 0.4's and 1.0's mode lines before a report name its test.
fn mode_line(text: &str) -> Option<&'static str> {
    const MODES: [(&str, &str); 12] = [
        ("Doing OLTP test", "oltp"),
        ("Doing CPU performance benchmark", "cpu"),
        ("Prime numbers limit:", "cpu"),
        ("Doing memory operations speed test", "memory"),
        ("Running memory speed test", "memory"),
        ("Doing thread subsystem performance test", "threads"),
        ("Doing mutex performance test", "mutex"),
        ("Extra file open flags", "fileio"),
        ("Doing random r/w test", "fileio"),
        ("Doing random read test", "fileio"),
        ("Doing random write test", "fileio"),
        ("Doing sequential", "fileio"),
    ];
    let text = text.trim_start();
    MODES
        .into_iter()
        .find(|(start, _)| text.starts_with(start))
        .map(|(_, test)| test)
}

/// A sysbench command line and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysbenchCommand {
    pub test: Option<String>,
    pub threads: Option<u32>,
    pub text: String,
}

/// The command starting at the first of `window`'s lines, continued over
/// the next lines when it ends with `\` or they start with `--`.
fn command_at(window: &[(usize, &str)]) -> Option<SysbenchCommand> {
    let (_, first) = window.first()?;
    if !first.contains("sysbench") {
        return None;
    }
    let mut text = first.trim().trim_end_matches('\\').trim_end().to_string();
    let mut continued = first.trim_end().ends_with('\\');
    for (_, next) in &window[1..] {
        let next_trimmed = next.trim();
        if !(continued || next_trimmed.starts_with("--")) || next_trimmed.is_empty() {
            break;
        }
        continued = next_trimmed.ends_with('\\');
        text.push(' ');
        text.push_str(next_trimmed.trim_end_matches('\\').trim_end());
    }
    parse_command(&text)
}

/// Reads a command line: `sysbench oltp_read_only --threads=8 run`, `sysbench
/// --test=oltp --num-threads=16 run`, `sysbench --test=tests/db/oltp.lua ...`.
/// Text without a `sysbench` word followed by an option is no command.
pub fn parse_command(text: &str) -> Option<SysbenchCommand> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let from = words
        .iter()
        .position(|w| basename(w) == "sysbench" || basename(w).starts_with("sysbench-"))?;
    let args = &words[from + 1..];
    if !args.iter().any(|w| w.starts_with("--")) {
        return None;
    }
    let mut command = SysbenchCommand {
        test: None,
        threads: None,
        text: words[from..].join(" "),
    };
    for arg in args {
        if let Some(n) = arg
            .strip_prefix("--threads=")
            .or_else(|| arg.strip_prefix("--num-threads="))
        {
            command.threads = n.parse().ok().or(command.threads);
        } else if let Some(test) = arg.strip_prefix("--test=") {
            command.test = test_name(test).or(command.test);
        } else if !arg.starts_with('-') && command.test.is_none() {
            command.test = test_name(arg).filter(|t| known_test(t));
        }
    }
    Some(command)
}

/// `tests/db/oltp.lua` -> `oltp`, `oltp_read_only` -> `oltp_read_only`.
fn test_name(word: &str) -> Option<String> {
    let name = basename(word).trim_end_matches(".lua");
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| name.to_string())
}

fn known_test(name: &str) -> bool {
    matches!(
        name,
        "cpu" | "memory" | "threads" | "mutex" | "fileio" | "oltp"
    ) || ["oltp_", "select_random_", "bulk_insert"]
        .iter()
        .any(|p| name.starts_with(p))
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn to_run(
    report: &SysbenchReport<'_>,
    block: &LogicalLine,
    header: RunHeader,
    depth: usize,
    report_start: usize,
    last_line: usize,
) -> Run {
    let results = report
        .fields
        .iter()
        .map(|f| measurement(&f.item.name(), &f.metric, f.value, block.line_of_rest(f.at)))
        .collect();
    let mut attrs = BTreeMap::new();
    if let Some(version) = &header.version {
        attrs.insert("tool_version".to_string(), version.clone());
    }
    // The count sysbench printed is what ran; a command or a loop's marker
    // says what was asked for.
    let threads = header
        .threads
        .or(header.command_threads)
        .or(header.marker_threads)
        .or(report.interval_threads);
    let test = header
        .test
        .or(header.mode_test.map(str::to_string))
        .or(report.implied_test.map(str::to_string));
    let first = header.first.unwrap_or(report_start).min(report_start);
    Run {
        tool: Tool::Sysbench,
        test,
        label: None,
        threads,
        attrs,
        quote_depth: depth,
        author: None,
        message: None,
        command: header.command,
        lines: [first + 1, last_line],
        results,
    }
}

fn measurement(item: &str, metric: &str, value: f64, line: usize) -> Measurement {
    let unit = metric_info(metric).map_or("ms", |m| m.unit);
    Measurement {
        item: item.to_string(),
        metric: metric.to_string(),
        value,
        unit: unit.to_string(),
        line,
        estimated: false,
    }
}

/// A one-line summary: `64 threads, time spent: 60s, queries executed:
/// 11500723, qps: 191678, 1 thread qps: 2994, tps: 13691`.
#[derive(Debug, Clone, PartialEq)]
pub struct OneLineSummary {
    pub threads: u32,
    pub time_spent_s: f64,
    pub queries: f64,
    pub qps: f64,
    pub qps_per_thread: f64,
    pub tps: f64,
}

pub fn one_line_summary(input: &str) -> Res<'_, OneLineSummary> {
    let (rest, (threads, _, time_spent_s, _, queries, _, qps, _, qps_per_thread, _, tps)) = (
        digit1.map_res(str::parse::<u32>),
        (multispace1, label("threads, time spent:"), multispace0),
        (number, opt(char('s'))).map(|(n, _)| n),
        (
            char(','),
            multispace1,
            label("queries executed:"),
            multispace0,
        ),
        number,
        (char(','), multispace1, tag_no_case("qps:"), multispace0),
        number,
        (char(','), multispace1, label("1 thread qps:"), multispace0),
        number,
        (char(','), multispace1, tag_no_case("tps:"), multispace0),
        number,
    )
        .parse(input)?;
    end_of_value(rest)?;
    Ok((
        rest,
        OneLineSummary {
            threads,
            time_spent_s,
            queries,
            qps,
            qps_per_thread,
            tps,
        },
    ))
}

/// Reads the one-line summaries from line `start` on (consecutive lines
/// holding them), each a run labelled by the underlined heading before it.
/// Returns the index of the first line after them.
fn summaries(
    lines: &[Line<'_>],
    start: usize,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) -> usize {
    let mut label: Option<String> = heading_line_above(lines, start);
    let mut i = start;
    while i < lines.len() && lines[i].text.contains(SUMMARY_MARK) {
        let line = &lines[i];
        let text = line.text;
        let mut search_from = 0;
        while let Some(found) = text.get(search_from..).and_then(|t| t.find(SUMMARY_MARK)) {
            let mark = search_from + found;
            let Some(start_at) = count_start(text, mark) else {
                search_from = mark + SUMMARY_MARK.len();
                continue;
            };
            let before = text.get(search_from..start_at).unwrap_or_default();
            if let Some(heading) = underlined_heading(before) {
                label = Some(heading);
            }
            match one_line_summary(text.get(start_at..).unwrap_or_default()) {
                Ok((rest, summary)) => {
                    runs.push(summary_run(&summary, label.clone(), line));
                    search_from = text.len() - rest.len();
                }
                Err(_) => {
                    unparsed.push(Unparsed {
                        line: line.number,
                        text: text.get(start_at..).unwrap_or_default().chars().take(200).collect(),
                        why: "looks like a sysbench one-line summary but is incomplete: expected `N threads, time spent: Ns, queries executed: N, qps: X, 1 thread qps: X, tps: X`".to_string(),
                    });
                    search_from = mark + SUMMARY_MARK.len();
                }
            }
        }
        i += 1;
    }
    i.max(start + 1)
}

/// Where the thread count before `threads, time spent:` starts.
fn count_start(text: &str, mark: usize) -> Option<usize> {
    let before = text.get(..mark)?.trim_end();
    let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then(|| before.len() - digits)
}

/// `... benchmarks: Original -------- ` -> `Original`: a heading underlined
/// with dashes, the underline as long as the heading. Without a matching
/// length, the words back to the last sentence end.
fn underlined_heading(before: &str) -> Option<String> {
    let trimmed = before.trim_end();
    let dashes = trimmed.len() - trimmed.trim_end_matches('-').len();
    if dashes < 3 {
        return None;
    }
    let text = trimmed.get(..trimmed.len() - dashes)?.trim_end();
    let by_length = text
        .len()
        .checked_sub(dashes)
        .filter(|&at| {
            at == 0
                || text
                    .get(..at)
                    .is_some_and(|b| b.ends_with(char::is_whitespace))
        })
        .and_then(|at| text.get(at..));
    let heading = by_length.unwrap_or_else(|| {
        let cut = [": ", ". ", "! ", "? "]
            .iter()
            .filter_map(|end| text.rfind(end).map(|at| at + end.len()))
            .max()
            .unwrap_or(0);
        text.get(cut..).unwrap_or_default()
    });
    let heading = heading.split_whitespace().collect::<Vec<_>>().join(" ");
    (!heading.is_empty() && heading.len() <= 80).then_some(heading)
}

/// A heading on the line above a summary line: `Original` over `--------`.
fn heading_line_above(lines: &[Line<'_>], start: usize) -> Option<String> {
    let underline = lines.get(start.checked_sub(1)?)?;
    let text = underline.text.trim();
    if text.len() < 3 || !text.bytes().all(|b| b == b'-') {
        return None;
    }
    let heading = lines.get(start.checked_sub(2)?)?.text.trim();
    (!heading.is_empty() && heading.len() <= 80).then(|| heading.to_string())
}

fn summary_run(summary: &OneLineSummary, label: Option<String>, line: &Line<'_>) -> Run {
    let n = line.number;
    let results = vec![
        measurement("total", "qps", summary.qps, n),
        measurement("total", "qps_per_thread", summary.qps_per_thread, n),
        measurement("total", "tps", summary.tps, n),
        measurement("total", "queries", summary.queries, n),
        measurement("total", "total_time_s", summary.time_spent_s, n),
    ];
    Run {
        tool: Tool::Sysbench,
        test: None,
        label,
        threads: Some(summary.threads),
        attrs: BTreeMap::new(),
        quote_depth: line.depth,
        author: None,
        message: None,
        command: None,
        lines: [n, n],
        results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of(find_runs, input)
    }

    #[test]
    fn single_fields_and_their_units() {
        let cases: [(&str, &str, f64); 12] = [
            (
                "total time:                          5.0041s",
                "total_time_s",
                5.0041,
            ),
            (
                "total number of events:              14048",
                "events",
                14048.0,
            ),
            (
                "min:                                    0.38",
                "latency_min_ms",
                0.38,
            ),
            // 0.4.12 and 0.5 print milliseconds with their unit.
            (
                "avg:                                  3.69ms",
                "latency_avg_ms",
                3.69,
            ),
            // Earlier 0.4 releases print seconds: stored as milliseconds.
            (
                "max:                            0.0123s",
                "latency_max_ms",
                12.3,
            ),
            // 0.4.12 prints this sum in seconds without a unit, 0.5 with `s`.
            (
                "total time taken by event execution: 3837.9526",
                "latency_sum_ms",
                3837952.6,
            ),
            (
                "total time taken by event execution: 2406.5299s",
                "latency_sum_ms",
                2406529.9,
            ),
            (
                "sum:                                19981.60",
                "latency_sum_ms",
                19981.6,
            ),
            ("events per second:  2258.08", "events_per_s", 2258.08),
            (
                "read, MiB/s:                  66.91",
                "read_mib_per_s",
                66.91,
            ),
            ("total:   224768", "queries", 224768.0),
            (
                "fsyncs/s:                     9184.77",
                "fsyncs_per_s",
                9184.77,
            ),
        ];
        for (i, (input, metric, value)) in cases.into_iter().enumerate() {
            let (rest, field) = single_field(input).unwrap_or_else(|e| panic!("case {i}: {e:?}"));
            assert_eq!(
                (field.metric.as_str(), field.value),
                (metric, value),
                "case {i}"
            );
            assert!(rest.is_empty(), "case {i}: left {rest:?}");
        }
    }

    #[test]
    fn fields_that_are_not_fields() {
        let cases = [
            "total time: 5.0041ms",
            "min: 12abc",
            "total: 1e999",
            "avg: .5",
            "events per second:",
            "read: many",
        ];
        for (i, input) in cases.into_iter().enumerate() {
            assert!(single_field(input).is_err(), "case {i}: {input:?}");
        }
    }

    #[test]
    fn counts_with_rates() {
        let cases: [(&str, &[(&str, f64)]); 6] = [
            (
                "transactions:                        14048  (2806.10 per sec.)",
                &[("transactions", 14048.0), ("tps", 2806.10)],
            ),
            (
                "queries:                             224768 (44897.68 per sec.)",
                &[("queries", 224768.0), ("qps", 44897.68)],
            ),
            (
                "ignored errors:                      4      (0.80 per sec.)",
                &[("ignored_errors", 4.0)],
            ),
            (
                "read/write requests:                 1039077 (17317.01 per sec.)",
                &[("rw_requests", 1039077.0), ("rw_requests_per_s", 17317.01)],
            ),
            (
                "deadlocks:                           0      (0.00 per sec.)",
                &[("deadlocks", 0.0)],
            ),
            (
                "Total operations: 24505355 (4899827.59 per second)",
                &[("operations", 24505355.0), ("ops_per_s", 4899827.59)],
            ),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let (_, fields) = count_rate_field(input).unwrap_or_else(|e| panic!("case {i}: {e:?}"));
            let got: Vec<(&str, f64)> = fields
                .iter()
                .map(|f| (f.metric.as_str(), f.value))
                .collect();
            assert_eq!(got, want, "case {i}");
        }
        assert!(count_rate_field("transactions:\n    queries: 5 (1.00 per sec.)").is_err());
    }

    #[test]
    fn percentiles_name_their_rank() {
        let cases = [
            (
                "95th percentile:                        2.81",
                Some(("latency_p95_ms", 2.81)),
            ),
            (
                "99th percentile:                       16.71",
                Some(("latency_p99_ms", 16.71)),
            ),
            (
                "approx.  95 percentile:               4.01ms",
                Some(("latency_p95_ms", 4.01)),
            ),
            (
                "approx.  99 percentile:              11.22ms",
                Some(("latency_p99_ms", 11.22)),
            ),
            (
                "approx.  95 percentile:         0.0480s",
                Some(("latency_p95_ms", 48.0)),
            ),
            ("101th percentile: 5.0", None),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let got = percentile_field(input)
                .ok()
                .map(|(_, f)| (f.metric, f.value));
            assert_eq!(
                got.as_ref().map(|(m, v)| (m.as_str(), *v)),
                want,
                "case {i}"
            );
        }
    }

    #[test]
    fn interval_lines_of_every_generation() {
        type Want = (&'static str, Option<u32>, &'static [(&'static str, f64)]);
        let cases: [(&str, Want); 5] = [
            (
                "[ 10s ] thds: 8 tps: 758.17 qps: 15191.27 (r/w/o: 10640.27/3032.68/1518.33) lat (ms,95%): 6.32 err/s: 0.00 reconn/s: 0.00",
                ("t=10s", Some(8), &[("tps", 758.17), ("qps", 15191.27), ("reads_per_s", 10640.27), ("writes_per_s", 3032.68), ("latency_p95_ms", 6.32)]),
            ),
            ("[ 1s ] thds: 2 eps: 2025.43 lat (ms,95%): 8.28", ("t=1s", Some(2), &[("events_per_s", 2025.43), ("latency_p95_ms", 8.28)])),
            (
                "[ 2s ] reads: 0.00 MiB/s writes: 23.37 MiB/s fsyncs: 1924.66/s latency (ms,95%): 3.075",
                ("t=2s", None, &[("read_mib_per_s", 0.0), ("written_mib_per_s", 23.37), ("fsyncs_per_s", 1924.66), ("latency_p95_ms", 3.075)]),
            ),
            (
                "[  10s] threads: 4, tps: 1810.86, reads/s: 25355.94, writes/s: 7244.24 response time: 2.40ms (99%)",
                ("t=10s", Some(4), &[("tps", 1810.86), ("reads_per_s", 25355.94), ("writes_per_s", 7244.24), ("latency_p99_ms", 2.40)]),
            ),
            (
                "[   1s] threads: 32, tps: 269.73, reads: 3982.01, writes: 809.19, response time: 178.79ms (95%), errors: 0.00, reconnects:  0.00",
                ("t=1s", Some(32), &[("tps", 269.73), ("reads_per_s", 3982.01), ("writes_per_s", 809.19), ("latency_p95_ms", 178.79)]),
            ),
        ];
        for (i, (input, (item, threads, want))) in cases.into_iter().enumerate() {
            let (rest, (fields, got_threads)) =
                interval_line(input).unwrap_or_else(|e| panic!("case {i}: {e:?}"));
            assert!(rest.is_empty(), "case {i}: left {rest:?}");
            assert_eq!(got_threads, threads, "case {i}");
            assert!(fields.iter().all(|f| f.item.name() == item), "case {i}");
            let got: Vec<(&str, f64)> = fields
                .iter()
                .map(|f| (f.metric.as_str(), f.value))
                .collect();
            assert_eq!(got, want, "case {i}");
        }
        assert!(interval_line("[ 10s ]").is_err());
        assert!(interval_line("[1] see the footnote: it says so").is_err());
    }

    #[test]
    fn fileio_and_memory_04_lines() {
        let (_, fields) = fileio_04_operations(
            "Operations performed:  6004 Read, 4003 Write, 12803 Other = 22810 Total",
        )
        .unwrap();
        let got: Vec<(&str, f64)> = fields
            .iter()
            .map(|f| (f.metric.as_str(), f.value))
            .collect();
        assert_eq!(
            got,
            [
                ("reads", 6004.0),
                ("writes", 4003.0),
                ("other_ops", 12803.0),
                ("total_ops", 22810.0)
            ]
        );
        let (_, fields) =
            fileio_04_operations("Operations performed: 10485760 (1022031.23 ops/sec)").unwrap();
        assert_eq!(fields[1].metric, "ops_per_s");
        assert_eq!(fields[1].value, 1022031.23);
        let (_, fields) = fileio_04_transferred(
            "Read 0b  Written 312.5Mb  Total transferred 1.5Gb  (94.865Mb/sec)",
        )
        .unwrap();
        let got: Vec<f64> = fields.iter().map(|f| f.value).collect();
        assert_eq!(got, [0.0, 312.5, 1536.0, 94.865]);
        let (_, fields) = memory_transferred("10240.00 MB transferred (998.08 MB/sec)").unwrap();
        assert_eq!((fields[0].value, fields[1].value), (10240.0, 998.08));
        assert_eq!(
            fileio_04_requests("2665.62 Requests/sec executed")
                .unwrap()
                .1
                .value,
            2665.62
        );
    }

    #[test]
    fn decimals_shift_exactly() {
        let cases = [
            ("3837.9526", 3, Some(3837952.6)),
            ("0.0123", 3, Some(12.3)),
            ("5", 3, Some(5000.0)),
            ("0.5", 3, Some(500.0)),
            ("12.25", 0, Some(12.25)),
        ];
        for (i, (text, shift, want)) in cases.into_iter().enumerate() {
            assert_eq!(to_f64(text, shift), want, "case {i}");
        }
        let huge = "9".repeat(400);
        assert_eq!(to_f64(&huge, 0), None);
        assert_eq!(to_f64("99999999999999999999", 0), Some(1e20));
    }

    #[test]
    fn command_lines() {
        let cases = [
            (
                "$ sysbench oltp_read_only --threads=8 --time=60 run",
                Some("oltp_read_only"),
                Some(8),
            ),
            (
                "sysbench --test=oltp --num-threads=16 --max-time=60 run",
                Some("oltp"),
                Some(16),
            ),
            (
                "./sysbench --test=tests/db/oltp.lua --num-threads=8 run",
                Some("oltp"),
                Some(8),
            ),
            (
                "sysbench /usr/share/sysbench/oltp_point_select.lua --threads=4 run",
                Some("oltp_point_select"),
                Some(4),
            ),
            (
                "I ran sysbench with --threads=8 and it was fine",
                None,
                Some(8),
            ),
        ];
        for (i, (text, test, threads)) in cases.into_iter().enumerate() {
            let command = parse_command(text).unwrap_or_else(|| panic!("case {i}"));
            assert_eq!(
                (command.test.as_deref(), command.threads),
                (test, threads),
                "case {i}"
            );
        }
        assert_eq!(
            parse_command("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)"),
            None
        );
        assert_eq!(parse_command("we used sysbench and super-smack"), None);
    }

    #[test]
    fn banners_markers_and_modes() {
        assert_eq!(
            banner_version("sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)").as_deref(),
            Some("1.0.20")
        );
        assert_eq!(
            banner_version("sysbench 0.4.12:  multi-threaded system evaluation benchmark")
                .as_deref(),
            Some("0.4.12")
        );
        assert_eq!(
            banner_version("sysbench v0.4.8:  multi-threaded system evaluation benchmark")
                .as_deref(),
            Some("0.4.8")
        );
        assert_eq!(banner_version("sysbench 3 times and got nothing"), None);
        assert_eq!(thread_marker("=> 8 THREADS"), Some(8));
        assert_eq!(thread_marker("        echo \"=> ${i} THREADS\""), None);
        assert_eq!(mode_line("Doing OLTP test."), Some("oltp"));
        assert_eq!(mode_line("Doing mutex performance test"), Some("mutex"));
    }

    #[test]
    fn underlined_headings() {
        let cases = [
            (
                "And it gives over 5 000 TPS in my benchmarks: Original -------- ",
                Some("Original"),
            ),
            (" slow LOCK_open -------------- ", Some("slow LOCK_open")),
            (
                " slow LOCK_open + THR_LOCK::mutex -------------------------------- ",
                Some("slow LOCK_open + THR_LOCK::mutex"),
            ),
            ("Results. patched --- ", Some("patched")),
            (", ", None),
        ];
        for (i, (before, want)) in cases.into_iter().enumerate() {
            assert_eq!(underlined_heading(before).as_deref(), want, "case {i}");
        }
    }

    #[test]
    fn marker_gives_threads_when_nothing_else_does() {
        let (runs, unparsed) = runs_of(
            "=> 12 THREADS\nOLTP test statistics:\n    queries performed:\n        read: 140\n        write: 0\n        other: 20\n        total: 160\n    transactions: 10 (1.00 per sec.)\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs[0].threads, Some(12));
        assert_eq!(runs[0].lines, [1, 8]);
        assert_eq!(runs[0].value("total", "tps"), Some(1.0));
    }

    #[test]
    fn a_report_that_lost_its_line_breaks() {
        let (runs, unparsed) = runs_of(
            "Here it is: sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2) Number of threads: 8 SQL statistics: queries performed: read: 140 write: 40 other: 20 total: 200 transactions: 10 (5.00 per sec.) queries: 200 (100.00 per sec.) ignored errors: 0 (0.00 per sec.) reconnects: 0 (0.00 per sec.) General statistics: total time: 2.0001s total number of events: 10 Latency (ms): min: 1.00 avg: 2.00 max: 3.00 95th percentile: 2.50 sum: 20.00 Threads fairness: events (avg/stddev): 1.2500/0.43 execution time (avg/stddev): 0.0025/0.00 and that's all.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.threads, Some(8));
        assert_eq!(
            run.attrs.get("tool_version").map(String::as_str),
            Some("1.0.20")
        );
        assert_eq!(run.value("total", "qps"), Some(100.0));
        assert_eq!(run.value("total", "latency_p95_ms"), Some(2.5));
        assert_eq!(run.value("total", "latency_sum_ms"), Some(20.0));
        assert_eq!(
            run.results.len(),
            16,
            "queries is read once though printed twice"
        );
    }

    #[test]
    fn truncated_reports_are_near_misses() {
        let cases = [
            ("SQL statistics:\n", "followed by the end"),
            ("SQL statistics:\n    queries performed:\n        read: 5\n    transactions:\n", "breaks off at `transactions:`"),
            ("General statistics:\n    total time:                          5.0041s\n", "without `events`"),
            ("Test execution summary:\n    total time: 60.0033s\n    total number of events: 10\n    per-request statistics:\n         min: 1.70ms\n", "without `latency_avg_ms`"),
            ("CPU speed:\nGeneral statistics:\n    total time: 1.0s\n    total number of events: 10\n", "`CPU speed:` followed by General statistics:"),
        ];
        crate::test_support::assert_one_near_miss_each(find_runs, &cases);
    }

    #[test]
    fn prose_is_not_a_report() {
        let cases = [
            "The General statistics: section is what I look at first.",
            "See [1] for the rest: it is long.",
            "We had 64 threads, time spent: a lot.",
            "Our File operations: reads and writes, mostly.",
        ];
        for (i, input) in cases.into_iter().enumerate() {
            let (runs, unparsed) = runs_of(input);
            assert!(runs.is_empty(), "case {i}");
            assert!(
                unparsed.iter().all(|u| !u.why.contains("report")),
                "case {i}: {unparsed:?}"
            );
        }
    }
}
