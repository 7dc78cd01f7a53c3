//! The final report's own lines: section headings, `label: value`
//! fields and those that print a count with its rate, percentiles,
//! memory's transfer line, and what is read to be skipped.

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1, multispace0, multispace1, space0};
use nom::combinator::opt;
use nom::sequence::{delimited, preceded};
use nom::Parser;

use crate::number::{pointed_decimal, pointed_decimal_text, shifted_decimal};
use crate::sysbench::{Res, HISTOGRAM_START};

use super::{end_of_value, error, label, total, Field, Item, Section, SECTION_TITLES};

/// A note the poster wrote after a value on its line, `114.02   (초당 ...)`,
/// or glued to it in full-width parentheses, `32.22（1027.76顺序读写）`:
/// read and dropped so that the report goes on. It is tried last, so any
/// parenthesised part sysbench prints itself is read as such first.
pub(super) fn annotation(input: &str) -> Res<'_, ()> {
    let paren = |c: char| matches!(c, '(' | ')' | '（' | '）' | '\n');
    let (rest, _) = (
        alt((char('('), char('（'))),
        take_while1(|c: char| !paren(c)),
        alt((char(')'), char('）'))),
    )
        .parse(input)?;
    end_of_value(rest)?;
    Ok((rest, ()))
}

/// A section's heading: one of [`SECTION_TITLES`], or the histogram's.
pub(super) fn heading(input: &str) -> Res<'_, Section> {
    for (title, section) in SECTION_TITLES {
        if let Ok((rest, _)) = label(title).parse(input) {
            return Ok((rest, section));
        }
    }
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
        .map(|_| Section::Histogram)
        .parse(input)
}

/// `0.012 |*****                 1745`
pub(super) fn histogram_row(input: &str) -> Res<'_, ()> {
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
pub(super) fn skipped_field(input: &str) -> Res<'_, ()> {
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

pub(super) fn single_field(input: &str) -> Res<'_, Field<'_>> {
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

/// sysbench 1.1's fileio `Throughput:` lines: `read:  IOPS=0.00 0.00
/// MiB/s (0.00 MB/s)`, `write: IOPS=31961.19 499.39 MiB/s (523.65 MB/s)`,
/// `fsync: IOPS=327500.24`. The MB/s in parentheses repeats the MiB/s.
pub(super) fn iops_field(input: &str) -> Res<'_, Vec<Field<'_>>> {
    const OPERATIONS: [(&str, &str, Option<&str>); 3] = [
        ("read:", "reads_per_s", Some("read_mib_per_s")),
        ("write:", "writes_per_s", Some("written_mib_per_s")),
        ("fsync:", "fsyncs_per_s", None),
    ];
    for (name, iops_metric, mib_metric) in OPERATIONS {
        let Ok((rest, _)) = label(name).parse(input) else {
            continue;
        };
        let (rest, iops) = preceded((space0, tag("IOPS=")), pointed_decimal).parse(rest)?;
        let mut fields = vec![total(iops_metric, iops, input)];
        let Some(mib_metric) = mib_metric else {
            end_of_value(rest)?;
            return Ok((rest, fields));
        };
        let (rest, mib) = preceded(space0, pointed_decimal).parse(rest)?;
        let (rest, _) = (
            space0,
            tag("MiB/s"),
            opt((space0, char('('), pointed_decimal, space0, tag("MB/s)"))),
        )
            .parse(rest)?;
        fields.push(total(mib_metric, mib, input));
        return Ok((rest, fields));
    }
    Err(error(input))
}

pub(super) fn count_rate_field(input: &str) -> Res<'_, Vec<Field<'_>>> {
    for (name, count_metric, rate_metric) in COUNT_RATE_FIELDS {
        let Ok((rest, _)) = label(name).parse(input) else {
            continue;
        };
        let (rest, count) = preceded(multispace0, pointed_decimal).parse(rest)?;
        let Ok((rest, rate)) = preceded(multispace0, rate_in_parens).parse(rest) else {
            // `ignored errors:   0` with no rate after it (a doc's sample,
            // a hand-edited report): the count alone, if nothing else
            // follows on its line.
            end_of_value(rest)?;
            let line_rest = rest.split('\n').next().unwrap_or_default();
            if !line_rest.trim().is_empty() {
                return Err(error(input));
            }
            return Ok((rest, vec![total(count_metric, count, input)]));
        };
        let mut fields = vec![total(count_metric, count, input)];
        if let Some(rate_metric) = rate_metric {
            fields.push(total(rate_metric, rate, input));
        }
        return Ok((rest, fields));
    }
    Err(error(input))
}

/// `(2806.10 per sec.)`, `(4899827.59 per second)`, `(1022031.23 ops/sec)`
pub(super) fn rate_in_parens(input: &str) -> Res<'_, f64> {
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

/// `95th percentile: 2.81` (1.0), `approx.  95 percentile: 4.01ms` (0.4,
/// 0.5), `approx.  95th percentile: 376.49ms` (1.0's development builds).
pub(super) fn percentile_field(input: &str) -> Res<'_, Field<'_>> {
    let ordinal = || alt((tag("th"), tag("st"), tag("nd"), tag("rd")));
    let (rest, rank) = alt((
        (digit1, ordinal()).map(|(n, _)| n),
        preceded((tag("approx."), multispace1), (digit1, opt(ordinal()))).map(|(n, _)| n),
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
pub(super) fn percentile_metric(rank: &str) -> Option<String> {
    let number: u32 = rank.parse().ok()?;
    let nines = rank.len() >= 3 && rank.bytes().all(|b| b == b'9');
    ((1..=100).contains(&number) || nines).then(|| format!("latency_p{rank}_ms"))
}

/// 1.0 `23931.01 MiB transferred (4784.99 MiB/sec)`; 0.4 `10240.00 MB
/// transferred (998.08 MB/sec)`. 0.4's MB are sysbench's 1024 * 1024 bytes,
/// so both are MiB.
pub(super) fn memory_transferred(input: &str) -> Res<'_, Vec<Field<'_>>> {
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
