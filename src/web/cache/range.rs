//! Which bytes of an answer kept on disk a request asks for: its `Range`
//! and `If-Range` (RFC 9110 §14.2, §13.1.5), for a body of known length.
//!
//! The rule:
//! - One range of bytes (`bytes=first-last`, `bytes=first-`,
//!   `bytes=-suffix`) is sent as 206, from the body as made, whatever the
//!   request's Accept-Encoding: the offsets are those of the JSON or CSV
//!   itself, never of the gzip copy, which is only ever sent whole.
//! - A range that starts past the end (or a suffix of 0 bytes) is 416,
//!   with `Content-Range: bytes */LENGTH`.
//! - Anything else in `Range` (another unit, several ranges, which would
//!   need a multipart answer, a malformed one) is ignored: the whole
//!   answer, 200, as RFC 9110 lets a server do.
//! - `If-Range` must name the answer's tag in its strong form, the one a
//!   206 carries (`"…"`, the body's bytes exactly); a weak tag never
//!   matches (strong comparison), nor does a date (answers have no
//!   Last-Modified): then the whole answer, 200.

use axum::http::header::{IF_RANGE, RANGE};
use axum::http::HeaderMap;

/// The part of a body of `len` bytes a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// The whole body, 200.
    Whole,
    /// Bytes `start..end` (end excluded) of the body as made, 206.
    Bytes { start: u64, end: u64 },
    /// A range the body cannot satisfy, 416.
    Unsatisfiable,
}

/// The part of a body of `len` bytes, whose tag in its strong form is
/// `strong_tag`, that `request` asks for (the module's rule).
pub(super) fn asked(request: &HeaderMap, strong_tag: &str, len: u64) -> Part {
    let mut ranges = request.get_all(RANGE).iter();
    let (Some(range), None) = (ranges.next(), ranges.next()) else {
        return Part::Whole;
    };
    if let Some(if_range) = request.get(IF_RANGE) {
        let names_it = if_range
            .to_str()
            .is_ok_and(|value| value.trim() == strong_tag && !strong_tag.starts_with("W/"));
        if !names_it {
            return Part::Whole;
        }
    }
    range
        .to_str()
        .map_or(Part::Whole, |range| part_of(range, len))
}

/// What one `Range` value asks of a body of `len` bytes.
fn part_of(range: &str, len: u64) -> Part {
    let Some((unit, spec)) = range.split_once('=') else {
        return Part::Whole;
    };
    if !unit.trim().eq_ignore_ascii_case("bytes") || spec.contains(',') {
        return Part::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Part::Whole;
    };
    let number = |digits: &str| {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // More digits than a u64 holds: past any end.
        Some(digits.parse::<u64>().unwrap_or(u64::MAX))
    };
    match (first, last) {
        ("", suffix) => match number(suffix) {
            None => Part::Whole,
            Some(0) => Part::Unsatisfiable,
            Some(_) if len == 0 => Part::Unsatisfiable,
            Some(suffix) => Part::Bytes {
                start: len.saturating_sub(suffix),
                end: len,
            },
        },
        (first, last) => {
            let Some(start) = number(first) else {
                return Part::Whole;
            };
            let end = match last {
                "" => len,
                last => match number(last) {
                    Some(last) if last >= start => last.saturating_add(1).min(len),
                    _ => return Part::Whole,
                },
            };
            if start >= len {
                Part::Unsatisfiable
            } else {
                Part::Bytes { start, end }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn ranges_are_read_as_rfc_9110_says() {
        let whole = Part::Whole;
        let none = Part::Unsatisfiable;
        let bytes = |start, end| Part::Bytes { start, end };
        let cases = [
            ("bytes=0-99", bytes(0, 100)),
            ("bytes=100-", bytes(100, 1000)),
            ("bytes=990-2000", bytes(990, 1000)),
            ("bytes=-10", bytes(990, 1000)),
            ("bytes=-5000", bytes(0, 1000)),
            ("BYTES=5-5", bytes(5, 6)),
            ("bytes=999-999", bytes(999, 1000)),
            ("bytes=1000-", none),
            ("bytes=1000-1001", none),
            ("bytes=99999999999999999999999-", none),
            ("bytes=-0", none),
            ("bytes=5-4", whole),
            ("bytes=0-1,5-9", whole),
            ("items=0-9", whole),
            ("bytes=+5-9", whole),
            ("bytes=a-9", whole),
            ("bytes=-", whole),
            ("bytes 0-9", whole),
        ];
        for (i, (range, part)) in cases.into_iter().enumerate() {
            assert_eq!(part_of(range, 1000), part, "case {i}: {range}");
        }
    }

    #[test]
    fn if_range_takes_only_the_strong_tag() {
        let strong = "\"abc\"";
        let ask = |if_range: Option<&str>| {
            let mut request = HeaderMap::new();
            request.insert(RANGE, HeaderValue::from_static("bytes=0-9"));
            if let Some(value) = if_range {
                request.insert(IF_RANGE, HeaderValue::from_str(value).unwrap());
            }
            asked(&request, strong, 1000)
        };
        let first_ten = Part::Bytes { start: 0, end: 10 };
        assert_eq!(ask(None), first_ten);
        assert_eq!(ask(Some("\"abc\"")), first_ten);
        assert_eq!(ask(Some("W/\"abc\"")), Part::Whole, "weak never matches");
        assert_eq!(ask(Some("\"abd\"")), Part::Whole);
        assert_eq!(ask(Some("Sat, 06 Dec 2025 09:00:00 GMT")), Part::Whole);
        assert_eq!(asked(&HeaderMap::new(), strong, 1000), Part::Whole);
    }
}
