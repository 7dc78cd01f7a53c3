//! Numbers as the tools print them, read in one place. The tools do not all
//! print numbers alike, so each spelling one accepts has a reader of its own
//! here, named for what it accepts; a tool picks the one that fits it.

use nom::bytes::complete::take_while1;
use nom::character::complete::{char, digit0, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};

/// The longest plain decimal diskinfo and bonnie++ read: a longer run of
/// digits in their output is not one of their measurements.
const MAX_SHORT_DECIMAL_CHARS: usize = 24;

/// `18624.60`, `5`, `0.5` (and `5.`): digits with at most one point,
/// starting with a digit, finite. super-smack's numbers.
pub(crate) fn decimal(input: &str) -> IResult<&str, f64> {
    decimal_of_at_most(input, usize::MAX)
}

/// A [`decimal`] of at most [`MAX_SHORT_DECIMAL_CHARS`] characters:
/// diskinfo's numbers.
pub(crate) fn short_decimal(input: &str) -> IResult<&str, f64> {
    decimal_of_at_most(input, MAX_SHORT_DECIMAL_CHARS)
}

/// A whole token that is a [`short_decimal`]: bonnie++'s cells.
pub(crate) fn short_decimal_token(text: &str) -> Option<f64> {
    match short_decimal(text) {
        Ok(("", value)) => Some(value),
        _ => None,
    }
}

fn decimal_of_at_most(input: &str, max_chars: usize) -> IResult<&str, f64> {
    let (rest, text) = take_while1(|c: char| c.is_ascii_digit() || c == '.').parse(input)?;
    // The text is ASCII digits and points: its bytes are counted, not its
    // characters (a pattern search cost more than most numbers take).
    let points = text.bytes().filter(|&b| b == b'.').count();
    let well_formed = text.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && points <= 1
        && text.len() <= max_chars;
    if !well_formed {
        return Err(not_a_number(input));
    }
    let value = if points == 0 {
        whole_number(text)
    } else {
        text.parse::<f64>().ok()
    };
    match value {
        Some(value) if value.is_finite() => Ok((rest, value)),
        _ => Err(not_a_number(input)),
    }
}

/// Digits as a number, exactly as `str::parse::<f64>` reads them: a
/// whole number of at most 15 digits is below 2^53, so it and its `f64`
/// are the same number, summed here without the float parser's set-up.
/// Longer ones go to the parser.
fn whole_number(digits: &str) -> Option<f64> {
    if digits.len() > 15 {
        return digits.parse::<f64>().ok();
    }
    let whole = digits.bytes().try_fold(0u64, |sum, b| {
        b.is_ascii_digit().then(|| sum * 10 + u64::from(b - b'0'))
    })?;
    // Below 10^15 < 2^53: every such integer is an f64 as it is.
    Some(whole as f64)
}

/// Digits with at most one decimal point followed by more digits: `2806.10`,
/// `5`. A trailing point is left unread, for sysbench, whose values end
/// at punctuation.
pub(crate) fn pointed_decimal_text(input: &str) -> IResult<&str, &str> {
    recognize((digit1, opt((char('.'), digit1)))).parse(input)
}

/// A [`pointed_decimal_text`] as a finite number: sysbench's numbers.
pub(crate) fn pointed_decimal(input: &str) -> IResult<&str, f64> {
    let (rest, text) = pointed_decimal_text(input)?;
    let value = shifted_decimal(text, 0).ok_or_else(|| not_a_number(input))?;
    Ok((rest, value))
}

/// Parses a decimal as printed, moving its point `shift` places right
/// first, so `3837.9526` seconds become exactly `3837952.6` ms rather than
/// a product with rounding noise. Values too large to be finite are refused.
pub(crate) fn shifted_decimal(text: &str, shift: usize) -> Option<f64> {
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

/// A number as Perl prints it: `7.09`, `26`, `0.0123`, `-1`, `1.5e+06`.
/// sql-bench's numbers, the only ones with a sign or an exponent.
pub(crate) fn perl_number(input: &str) -> IResult<&str, f64> {
    let (rest, text) = recognize((
        opt(char('-')),
        digit1,
        opt((char('.'), digit0)),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(input)?;
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok((rest, value)),
        _ => Err(not_a_number(input)),
    }
}

fn not_a_number(input: &str) -> nom::Err<nom::error::Error<&str>> {
    nom::Err::Error(nom::error::Error::new(input, nom::error::ErrorKind::Float))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_read_as_the_float_parser_reads_them() {
        for digits in [
            "0",
            "007",
            "5",
            "110199",
            "999999999999999",
            "1000000000000000",
            "99999999999999999999",
        ] {
            assert_eq!(whole_number(digits), digits.parse::<f64>().ok(), "{digits}");
        }
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
            assert_eq!(shifted_decimal(text, shift), want, "case {i}");
        }
        let huge = "9".repeat(400);
        assert_eq!(shifted_decimal(&huge, 0), None);
        assert_eq!(shifted_decimal("99999999999999999999", 0), Some(1e20));
    }

    #[test]
    fn each_reader_takes_its_tools_spelling() {
        type Reader = fn(&str) -> IResult<&str, f64>;
        type Read<'a> = Option<(&'a str, f64)>;
        let long = "1".repeat(25);
        let cases: [(Reader, &str, Read<'_>); 12] = [
            (decimal, "18624.60 q/s", Some((" q/s", 18624.6))),
            (decimal, "5.", Some(("", 5.0))),
            (decimal, "1.2.3", None),
            (decimal, ".5", None),
            (decimal, &long, Some(("", 1.111_111_111_111_111_1e24))),
            (short_decimal, &long, None),
            (short_decimal, "102400 bytes", Some((" bytes", 102400.0))),
            (pointed_decimal, "5.", Some((".", 5.0))),
            (pointed_decimal, "2806.10)", Some((")", 2806.1))),
            (
                perl_number,
                "1.5e+06 wallclock",
                Some((" wallclock", 1.5e6)),
            ),
            (perl_number, "-1", Some(("", -1.0))),
            (decimal, "-1", None),
        ];
        for (i, (reader, input, want)) in cases.into_iter().enumerate() {
            assert_eq!(reader(input).ok(), want, "case {i}");
        }
        assert_eq!(short_decimal_token("409"), Some(409.0));
        assert_eq!(short_decimal_token("409m"), None);
    }
}
