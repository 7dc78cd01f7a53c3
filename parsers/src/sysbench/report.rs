//! The final report: its headings and `label: value` fields, read as one stream.

mod assemble;
mod fields;
mod fileio_04;
mod interval;

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{multispace0, multispace1};
use nom::sequence::preceded;
use nom::Parser;

use super::Res;

pub(super) use assemble::{assemble, overflow_reason};
use fields::{
    annotation, count_rate_field, heading, histogram_row, iops_field, memory_transferred,
    percentile_field, single_field, skipped_field,
};
use fileio_04::{fileio_04_operations, fileio_04_requests, fileio_04_transferred};
use interval::interval_line;
pub(super) use interval::is_interval_line;

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
    /// `Latency (ms):`, 0.5 `response time:`, 0.4 `per-request statistics:`,
    /// and `Latency statistics:` of 1.0's development builds.
    Latency,
    Fairness,
    CpuSpeed,
    FileOperations,
    Throughput,
    Histogram,
}

/// Every section heading sysbench prints, each with its section, the
/// name a message gives the section first: what [`heading`](fields::heading)
/// reads, and titles a lost line break may glue to the value before them
/// ([`super::glued`]). The histogram's heading, which spans lines, is
/// read on its own.
pub(super) const SECTION_TITLES: [(&str, Section); 13] = [
    ("SQL statistics:", Section::Sql),
    ("OLTP test statistics:", Section::Sql),
    ("queries performed:", Section::QueriesPerformed),
    ("General statistics:", Section::General),
    ("Test execution summary:", Section::General),
    ("Latency (ms):", Section::Latency),
    ("response time:", Section::Latency),
    ("per-request statistics:", Section::Latency),
    // 1.0's development builds of 2016, between 0.5 and 1.0.
    ("Latency statistics:", Section::Latency),
    ("Threads fairness:", Section::Fairness),
    ("CPU speed:", Section::CpuSpeed),
    ("File operations:", Section::FileOperations),
    ("Throughput:", Section::Throughput),
];

impl Section {
    fn heading(self) -> &'static str {
        SECTION_TITLES
            .iter()
            .find(|(_, section)| *section == self)
            .map_or("Latency histogram", |(title, _)| title)
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
    /// A rule under a heading: the heading still waits for its numbers.
    Rule,
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
        // A shell comment the poster put after a value on its line
        // (`133.81  # 解析：...`) is read and dropped; a `#` line of its
        // own is no part of the report.
        if let Some(rest) = trailing_comment(input) {
            input = rest;
            continue;
        }
        let Ok((rest, element)) = preceded(multispace0, element).parse(input) else {
            break;
        };
        match &element {
            Element::Heading(section) if seen.contains(section) => break,
            Element::Heading(section) => seen.push(*section),
            Element::Interval(..) if seen.iter().any(|s| *s != Section::Histogram) => break,
            Element::Rule if !matches!(elements.last(), Some(Element::Heading(_))) => break,
            _ => {}
        }
        elements.push(element);
        input = rest;
    }
    (input, elements)
}

/// What follows a `#` comment on the current line (spaces or tabs, then
/// `# ` and any text), if the input holds one before its next line.
fn trailing_comment(input: &str) -> Option<&str> {
    let blank = input.len() - input.trim_start_matches([' ', '\t']).len();
    let rest = input.get(blank..)?;
    if blank == 0 || !rest.starts_with("# ") {
        return None;
    }
    Some(rest.find('\n').map_or("", |end| &rest[end..]))
}

/// One element of a report, fields separated by any whitespace.
fn element(input: &str) -> Res<'_, Element<'_>> {
    alt((
        heading.map(Element::Heading),
        passing_line.map(|_| Element::Skipped),
        rule_line.map(|_| Element::Rule),
        histogram_row.map(|_| Element::Skipped),
        skipped_field.map(|_| Element::Skipped),
        interval_line.map(|(fields, threads)| Element::Interval(fields, threads)),
        iops_field.map(Element::Fields),
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

/// sysbench's progress messages, printed between the interval lines and
/// the final report.
pub(super) const PROGRESS_LINES: [&str; 3] = [
    "Time limit exceeded, exiting...",
    "Done.",
    "Threads started!",
];

/// A whole line a report runs on past: the poster's elision (`...`,
/// `[snip]`) between interval lines or sections, sysbench's `DEBUG:` log
/// lines (`--debug`, `--verbosity=5`: per-query and per-thread statistics
/// whose `min:`/`avg:`/`max:` would otherwise read as the report's own or
/// end it), its progress messages and `(last message repeated N times)`.
fn passing_line(input: &str) -> Res<'_, ()> {
    let end = line_end(input);
    let line = input.get(..end).unwrap_or_default().trim_end();
    let passes = line.starts_with("DEBUG:")
        || crate::text::is_elision(line)
        || crate::text::is_page_furniture(line)
        || PROGRESS_LINES.contains(&line)
        || (line.starts_with("(last message repeated ") && line.ends_with(" times)"));
    if line.is_empty() || !passes {
        return Err(error(input));
    }
    Ok((input.get(end..).unwrap_or_default(), ()))
}

/// A rule (`--`, `-----`, `=====`) as markup left it under a heading;
/// anywhere else it ends the report (`-- ` starts a mail's signature).
fn rule_line(input: &str) -> Res<'_, ()> {
    // Tried on every element: its first byte rules out nearly all.
    if !matches!(input.as_bytes().first(), Some(b'-' | b'=')) {
        return Err(error(input));
    }
    let end = line_end(input);
    let line = input.get(..end).unwrap_or_default().trim_end();
    let rule =
        line.len() >= 2 && (line.bytes().all(|b| b == b'-') || line.bytes().all(|b| b == b'='));
    if !rule {
        return Err(error(input));
    }
    Ok((input.get(end..).unwrap_or_default(), ()))
}

/// Where the first line of `input` ends: its `\n`, or the end of the
/// input (memchr's search, several times faster than `str::find` on the
/// lines every element is tried on).
fn line_end(input: &str) -> usize {
    memchr::memchr(b'\n', input.as_bytes()).unwrap_or(input.len())
}

/// Words of a label, any whitespace between them: `total number of events:`.
pub(super) fn label<'a>(
    words: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    move |input: &'a str| {
        // Tried in turn on every element: the first byte fails most
        // tries, before the words are split (the error `tag` gives).
        if words
            .as_bytes()
            .first()
            .is_some_and(|&b| input.as_bytes().first() != Some(&b))
        {
            return Err(nom::Err::Error(nom::error::Error::new(
                input,
                nom::error::ErrorKind::Tag,
            )));
        }
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
    fn fileio_iops_lines_of_1_1() {
        let cases: [(&str, &[(&str, f64)]); 3] = [
            (
                "read:  IOPS=0.00 0.00 MiB/s (0.00 MB/s)",
                &[("reads_per_s", 0.0), ("read_mib_per_s", 0.0)],
            ),
            (
                "write: IOPS=31961.19 499.39 MiB/s (523.65 MB/s)",
                &[("writes_per_s", 31961.19), ("written_mib_per_s", 499.39)],
            ),
            ("fsync: IOPS=327500.24", &[("fsyncs_per_s", 327500.24)]),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let (_, fields) = iops_field(input).unwrap_or_else(|e| panic!("case {i}: {e:?}"));
            let got: Vec<(&str, f64)> = fields.iter().map(|f| (&*f.metric, f.value)).collect();
            assert_eq!(got, want, "case {i}");
        }
        // Queries performed keep their own `read:` field.
        assert!(iops_field("read: 140").is_err());
        assert!(iops_field("write: IOPS=1.00 2.00").is_err());
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
            (
                "approx.  95th percentile:           376.49ms",
                Some(("latency_p95_ms", 376.49)),
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
        let cases: [(&str, Want); 6] = [
            (
                "[ 10s ] thds: 8 tps: 758.17 qps: 15191.27 (r/w/o: 10640.27/3032.68/1518.33) lat (ms,95%): 6.32 err/s: 0.00 reconn/s: 0.00",
                ("t=10s", Some(8), &[("tps", 758.17), ("qps", 15191.27), ("reads_per_s", 10640.27), ("writes_per_s", 3032.68), ("latency_p95_ms", 6.32), ("err_per_s", 0.0), ("reconn_per_s", 0.0)]),
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
                ("t=1s", Some(32), &[("tps", 269.73), ("reads_per_s", 3982.01), ("writes_per_s", 809.19), ("latency_p95_ms", 178.79), ("err_per_s", 0.0), ("reconn_per_s", 0.0)]),
            ),
            // sysbench-tpcc's own line: `err/s` with no colon.
            (
                "[ 5s ] thds: 4 tps: 12.80 qps: 401.20 (r/w/o: 180.60/192.60/28.00) lat (ms,95%): 1352.03 err/s 0.40 reconn/s: 0.00",
                ("t=5s", Some(4), &[("tps", 12.80), ("qps", 401.20), ("reads_per_s", 180.60), ("writes_per_s", 192.60), ("latency_p95_ms", 1352.03), ("err_per_s", 0.40), ("reconn_per_s", 0.0)]),
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
