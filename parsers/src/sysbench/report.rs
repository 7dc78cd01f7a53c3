//! The final report: its headings and `label: value` fields, read as one stream.

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1, multispace0, multispace1, space0};
use nom::combinator::{opt, recognize};
use nom::multi::many1;
use nom::sequence::{delimited, preceded};
use nom::Parser;

use crate::number::{pointed_decimal, pointed_decimal_text, shifted_decimal};

use super::{Res, HISTOGRAM_START};

/// Which item a number belongs to: the final report or one interval line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'a> {
    Total,
    /// `[ 10s ]`: the seconds as printed, borrowed from the line (each of
    /// the line's values has the item: a copy of it was an allocation each).
    Interval(&'a str),
}

impl Item<'_> {
    /// The item's Contract 2 name: `total`, `t=10s`. Borrowed for the
    /// total, and an interval's built without the formatting machinery:
    /// every value of a report asks, and [`crate::Measurement::new`]
    /// copies it anyway.
    pub(super) fn name(&self) -> Cow<'static, str> {
        match self {
            Item::Total => Cow::Borrowed("total"),
            Item::Interval(seconds) => {
                let mut name = String::with_capacity(seconds.len() + 3);
                name.push_str("t=");
                name.push_str(seconds);
                name.push('s');
                Cow::Owned(name)
            }
        }
    }
}

/// One number of a report, with the rest of the text from where it was
/// printed (to find its line).
#[derive(Debug, Clone, PartialEq)]
pub struct Field<'a> {
    pub item: Item<'a>,
    /// Borrowed for the fixed names, owned for a percentile's: a report's
    /// every value has one, and the fixed ones cost no allocation.
    pub metric: Cow<'static, str>,
    pub value: f64,
    pub(super) at: &'a str,
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
            Section::Throughput => {
                "`read, MiB/s: X` and `written, MiB/s: X`, or `events/s (eps): X`"
            }
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
            // Either of two shapes: checked by `throughput_is_whole`.
            _ => &[],
        }
    }
}

/// One piece of a report stream.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Element<'a> {
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
    /// Numbers that are sysbench's unsigned counters wrapped around, never
    /// measurements: each becomes a near miss, not a result.
    pub overflowed: Vec<Field<'a>>,
}
/// Reads report elements until the text stops looking like a report, a
/// section repeats (the next report), or an interval line follows the
/// final report.
pub(super) fn report_elements(mut input: &str) -> (&str, Vec<Element<'_>>) {
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
pub(super) fn assemble<'a>(
    elements: Vec<Element<'a>>,
    rest: &'a str,
) -> Result<SysbenchReport<'a>, String> {
    let mut report = SysbenchReport {
        fields: Vec::new(),
        sections: Vec::new(),
        implied_test: None,
        interval_threads: None,
        overflowed: Vec::new(),
    };
    // The heading still waiting for its first number.
    let mut empty: Option<Section> = None;
    let mut current: Option<Section> = None;
    // What the `Throughput:` section itself printed (its eps may repeat
    // `CPU speed:`'s and so not be kept as a field).
    let mut throughput_printed: Vec<Cow<'static, str>> = Vec::new();
    for element in elements {
        match element {
            Element::Heading(section) => {
                if let Some(open) = empty {
                    if !(open == Section::Sql && section == Section::QueriesPerformed) {
                        return Err(empty_section(open, section.heading()));
                    }
                }
                empty = Some(section);
                current = Some(section);
                report.sections.push(section);
                // `Throughput:` alone says nothing: 1.1 prints it for every
                // test, fileio's MiB/s fields imply fileio themselves.
                report.implied_test = report.implied_test.or(match section {
                    Section::CpuSpeed => Some("cpu"),
                    Section::FileOperations => Some("fileio"),
                    _ => None,
                });
            }
            Element::Fields(fields) => {
                empty = None;
                for field in fields {
                    if current == Some(Section::Throughput) {
                        throughput_printed.push(field.metric.clone());
                    }
                    if wrapped_around(field.value) {
                        report.overflowed.push(field);
                        continue;
                    }
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
                // A wrapped counter means the line's interval snapshot was
                // torn (sysbench issue #14): none of its numbers is kept.
                if fields.iter().any(|f| wrapped_around(f.value)) {
                    report.overflowed.extend(fields.into_iter().take(1));
                    continue;
                }
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
    // A paste cut inside `Threads fairness:` lost nothing benchlog keeps.
    if let Some(open) = empty.filter(|&open| open != Section::Fairness) {
        return Err(empty_section(open, "the end of the paste"));
    }
    // A wrapped value was printed: its field is there, just not usable.
    let printed = |metric: &str| {
        report
            .fields
            .iter()
            .chain(&report.overflowed)
            .any(|f| f.item == Item::Total && f.metric == metric)
    };
    for section in &report.sections {
        let missing = section.required().iter().find(|m| !printed(m));
        if let Some(missing) = missing {
            return Err(format!(
                "sysbench `{}` section without `{missing}`: expected {}",
                section.heading(),
                section.expected()
            ));
        }
    }
    let in_throughput = |metric: &str| throughput_printed.iter().any(|m| m == metric);
    let throughput_is_whole = in_throughput("events_per_s")
        || (in_throughput("read_mib_per_s") && in_throughput("written_mib_per_s"));
    if report.sections.contains(&Section::Throughput) && !throughput_is_whole {
        return Err(format!(
            "sysbench `Throughput:` section without its numbers: expected {}",
            Section::Throughput.expected()
        ));
    }
    if report.fields.is_empty() {
        if let Some(field) = report.overflowed.first() {
            return Err(overflow_reason(field));
        }
        return Err("sysbench report without any number".to_string());
    }
    Ok(report)
}

/// sysbench keeps counters and times as unsigned 64-bit integers; a
/// subtraction that goes below zero prints as 2^64 = 18446744073709551616
/// scaled by a power of ten (`18446744073709.55ms` from nanoseconds, tps of
/// `18446842801212211200.00`). No real count or time reaches 10^13, so a
/// value that large with 2^64's leading digits is a wrapped counter.
fn wrapped_around(value: f64) -> bool {
    if !(value >= 1e13 && value.is_finite()) {
        return false;
    }
    let leading = value / 10f64.powi(value.log10().floor() as i32);
    (1.8446..1.8448).contains(&leading)
}

/// Why a wrapped value is not stored, with what was expected instead.
pub(super) fn overflow_reason(field: &Field<'_>) -> String {
    match &field.item {
        Item::Total => format!(
            "sysbench `{}` is an unsigned counter wrapped around (near 2^64), not a measurement: expected a plausible value; the run keeps its other numbers",
            field.metric
        ),
        Item::Interval(seconds) => format!(
            "sysbench interval line `[ {seconds}s ]` holds a counter wrapped around (`{}` near 2^64), not a measurement: expected the interval's real rates; none of its numbers is kept",
            field.metric
        ),
    }
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
        "reads" | "writes" | "total_ops" | "read_mib" | "written_mib" | "requests_per_s"
        | "read_mib_per_s" | "written_mib_per_s" => Some("fileio"),
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
        annotation.map(|_| Element::Skipped),
    ))
    .parse(input)
}

/// A note the poster wrote after a value on its line, `114.02   (초당 ...)`:
/// read and dropped so that the report goes on. It is tried last, so any
/// parenthesised part sysbench prints itself is read as such first.
fn annotation(input: &str) -> Res<'_, ()> {
    let (rest, _) = (
        char('('),
        take_while1(|c: char| c != ')' && c != '(' && c != '\n'),
        char(')'),
    )
        .parse(input)?;
    end_of_value(rest)?;
    Ok((rest, ()))
}

/// Words of a label, any whitespace between them: `total number of events:`.
pub(super) fn label<'a>(
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
        pointed_decimal_text,
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
const SINGLE_FIELDS: [(&str, Value, &str); 19] = [
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
    // 1.1's `Throughput:` block, printed for every test.
    ("events/s (eps):", Value::Plain, "events_per_s"),
    ("time elapsed:", Value::Seconds, "total_time_s"),
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
        let (rest, text) = pointed_decimal_text(input)?;
        let (rest, suffix) = opt(alt((tag("ms"), tag("s")))).parse(rest)?;
        end_of_value(rest)?;
        let value = match (kind, suffix) {
            (Value::Plain, None) | (Value::Seconds, None | Some("s")) => shifted_decimal(text, 0),
            (Value::SecondsAsMs, None | Some("s")) | (Value::Latency, Some("s")) => {
                shifted_decimal(text, 3)
            }
            (Value::Latency, None | Some("ms")) => shifted_decimal(text, 0),
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
        let (rest, count) = preceded(multispace0, pointed_decimal).parse(rest)?;
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
        pointed_decimal,
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
            metric: Cow::Owned(metric),
            value,
            at: input,
        },
    ))
}

/// `95th` is `latency_p95_ms`. Builds that print several percentiles write
/// the 99.9th as `999th`, the usual `p999` shorthand, kept as printed.
fn percentile_metric(rank: &str) -> Option<String> {
    let number: u32 = rank.parse().ok()?;
    let nines = rank.len() >= 3 && rank.bytes().all(|b| b == b'9');
    ((1..=100).contains(&number) || nines).then(|| format!("latency_p{rank}_ms"))
}

/// 1.0 `23931.01 MiB transferred (4784.99 MiB/sec)`; 0.4 `10240.00 MB
/// transferred (998.08 MB/sec)`. 0.4's MB are sysbench's 1024 * 1024 bytes,
/// so both are MiB.
fn memory_transferred(input: &str) -> Res<'_, Vec<Field<'_>>> {
    let (rest, (amount, _, _, _, _, rate, _, _)) = (
        pointed_decimal,
        multispace1,
        alt((tag("MiB"), tag("MB"))),
        multispace1,
        (tag("transferred"), multispace1, char('(')),
        pointed_decimal,
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
/// 22810 Total` (0.5 on: `0 reads, 0 writes, 0 Other = 0 Total`); 0.4 memory: `Operations performed: 10485760 (1022031.23
/// ops/sec)`.
fn fileio_04_operations(input: &str) -> Res<'_, Vec<Field<'_>>> {
    let (rest, _) = (label("Operations performed:"), multispace0).parse(input)?;
    if let Ok((rest, (reads, _, writes, _, other, _, all, _))) = (
        pointed_decimal,
        // 0.4 capitalises, 0.5 and later do not: `0 reads, 0 writes, 0 Other`.
        (multispace1, alt((tag("Read,"), tag("reads,"))), multispace1),
        pointed_decimal,
        (
            multispace1,
            alt((tag("Write,"), tag("writes,"))),
            multispace1,
        ),
        pointed_decimal,
        (
            multispace1,
            tag("Other"),
            multispace1,
            char('='),
            multispace1,
        ),
        pointed_decimal,
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
    let (rest, (operations, rate)) =
        (pointed_decimal, preceded(multispace1, rate_in_parens)).parse(rest)?;
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
        pointed_decimal_text,
        alt((tag("Tb"), tag("Gb"), tag("Mb"), tag("Kb"), tag("b"))),
    )
        .parse(input)?;
    let value = shifted_decimal(text, 0).ok_or_else(|| error(input))?;
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
        pointed_decimal,
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
pub(super) fn interval_line(input: &str) -> Res<'_, (Vec<Field<'_>>, Option<u32>)> {
    let (rest, seconds) = interval_head(input)?;
    let item = Item::Interval(seconds);
    let (rest, parts) = many1(next_interval_part).parse(rest)?;
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
                    metric: Cow::Borrowed("reads_per_s"),
                    value: first,
                    at: input,
                });
                fields.push(Field {
                    item: item.clone(),
                    metric: Cow::Borrowed("writes_per_s"),
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

/// Whether [`interval_line`] reads `input`, with no more of the line read
/// than it takes to know: a report's first interval line is tested for
/// this line by line, and the report reads it in full again. The parts
/// are read up to the first one that is a value, which settles it.
pub(super) fn is_interval_line(input: &str) -> bool {
    let Ok((mut rest, _)) = interval_head(input) else {
        return false;
    };
    // As `many1` in `interval_line`: the parts run until one fails, and
    // a line needs a value among them.
    while let Ok((after, part)) = next_interval_part(rest) {
        if matches!(part, IntervalPart::Value(..) | IntervalPart::Pair(..)) {
            return true;
        }
        rest = after;
    }
    false
}

/// `[ 10s ]`, `[  10s]`: the seconds as printed.
fn interval_head(input: &str) -> Res<'_, &str> {
    delimited(
        (char('['), space0),
        recognize((digit1, opt((char('.'), digit1)))),
        (char('s'), space0, char(']')),
    )
    .parse(input)
}

/// One part of an interval line after the space before it, and its comma.
fn next_interval_part(input: &str) -> Res<'_, IntervalPart> {
    preceded(
        multispace1,
        (interval_part, opt(char(','))).map(|(part, _)| part),
    )
    .parse(input)
}

#[derive(Debug, Clone, PartialEq)]
enum IntervalPart {
    Threads(u32),
    Value(Cow<'static, str>, f64),
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
            (
                pointed_decimal,
                char('/'),
                pointed_decimal,
                char('/'),
                pointed_decimal,
            ),
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
            pointed_decimal,
        )
            .map(|(_, _, _, rank, _, _, value)| percentile_part(rank, value)),
        // `response time: 2.40ms (99%)`
        (
            label("response time:"),
            multispace0,
            pointed_decimal,
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
            pointed_decimal,
            opt(preceded(multispace0, alt((tag("MiB/s"), tag("/s"))))),
        )
            .map(|(key, _, _, value, unit)| keyed_part(key, value, unit)),
    ))
    .parse(input)
}

fn percentile_part(rank: &str, value: f64) -> IntervalPart {
    percentile_metric(rank).map_or(IntervalPart::Dropped, |metric| {
        IntervalPart::Value(Cow::Owned(metric), value)
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
    IntervalPart::Value(Cow::Borrowed(metric), value)
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

/// A value ends at whitespace, the end of the text, or punctuation.
pub(super) fn end_of_value(rest: &str) -> Result<(), nom::Err<nom::error::Error<&str>>> {
    match rest.chars().next() {
        Some(c) if c.is_alphanumeric() || c == '.' => Err(error(rest)),
        _ => Ok(()),
    }
}

fn total<'a>(metric: &'static str, value: f64, at: &'a str) -> Field<'a> {
    Field {
        item: Item::Total,
        metric: Cow::Borrowed(metric),
        value,
        at,
    }
}

pub(super) fn error(input: &str) -> nom::Err<nom::error::Error<&str>> {
    nom::Err::Error(nom::error::Error::new(input, nom::error::ErrorKind::Verify))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!((&*field.metric, field.value), (metric, value), "case {i}");
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
            let got: Vec<(&str, f64)> = fields.iter().map(|f| (&*f.metric, f.value)).collect();
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
            assert_eq!(got.as_ref().map(|(m, v)| (&**m, *v)), want, "case {i}");
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
            let got: Vec<(&str, f64)> = fields.iter().map(|f| (&*f.metric, f.value)).collect();
            assert_eq!(got, want, "case {i}");
        }
        assert!(interval_line("[ 10s ]").is_err());
        assert!(interval_line("[1] see the footnote: it says so").is_err());
        assert!(!is_interval_line("[ 10s ]"));
        assert!(!is_interval_line("[ 1s ] thds: 2"));
        assert!(is_interval_line("[ 1s ] thds: 2 eps: 2025.43"));
    }

    #[test]
    fn fileio_and_memory_04_lines() {
        let (_, fields) = fileio_04_operations(
            "Operations performed:  6004 Read, 4003 Write, 12803 Other = 22810 Total",
        )
        .unwrap();
        let got: Vec<(&str, f64)> = fields.iter().map(|f| (&*f.metric, f.value)).collect();
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
}
