//! Interval lines, `[ 10s ] thds: 8 tps: ...`, of every generation.

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1, multispace0, multispace1, space0, space1};
use nom::combinator::{opt, recognize};
use nom::multi::many1;
use nom::sequence::{delimited, preceded};
use nom::Parser;

use crate::number::pointed_decimal;
use crate::sysbench::Res;

use super::fields::percentile_metric;
use super::{error, label, Field, Item};

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
pub(in crate::sysbench) fn is_interval_line(input: &str) -> bool {
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
    /// A part read that gives no result: a percentile Contract 2 has no
    /// name for, or a key it does not know.
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
        // sysbench-tpcc's own interval line prints `err/s 1.00`, no colon.
        (tag("err/s"), space1, pointed_decimal)
            .map(|(_, _, value)| IntervalPart::Value(Cow::Borrowed("err_per_s"), value)),
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
        // Rates however they are spelt: an interval line has no totals.
        ("err/s" | "errors", _) => "err_per_s",
        ("reconn/s" | "reconnects", _) => "reconn_per_s",
        _ => return IntervalPart::Dropped,
    };
    IntervalPart::Value(Cow::Borrowed(metric), value)
}
