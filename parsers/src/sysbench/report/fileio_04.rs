//! sysbench 0.4's fileio and memory layouts: `Operations performed:`,
//! `Read ... Written ... Total transferred` and `Requests/sec executed`.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{char, multispace0, multispace1};
use nom::sequence::preceded;
use nom::Parser;

use crate::number::{pointed_decimal, pointed_decimal_text, shifted_decimal};
use crate::sysbench::Res;

use super::fields::rate_in_parens;
use super::{error, label, total, Field};

/// 0.4 fileio: `Operations performed:  6004 Read, 4003 Write, 12803 Other =
/// 22810 Total` (0.5 on: `0 reads, 0 writes, 0 Other = 0 Total`); 0.4 memory: `Operations performed: 10485760 (1022031.23
/// ops/sec)`.
pub(super) fn fileio_04_operations(input: &str) -> Res<'_, Vec<Field<'_>>> {
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
pub(super) fn fileio_04_transferred(input: &str) -> Res<'_, Vec<Field<'_>>> {
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
pub(super) fn fileio_04_requests(input: &str) -> Res<'_, Field<'_>> {
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
