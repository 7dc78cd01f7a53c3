//! Titles glued to the text before them. A post whose line breaks were
//! lost in part (a machine translation, a bad paste) runs each value
//! into the title that followed it on the next line:
//!
//! ```text
//!     events per second:   507.37General statistics:
//!     total number of events:              5080Latency (ms):
//! Initializing random number generator from current timePrime numbers limit: 10000Initializing worker threads...Threads started!CPU speed:
//! ```
//!
//! A title sysbench prints at the start of a line ([`titles`]) starting
//! right after a byte that is no space is where a line break was: the
//! line is read as pieces broken there, each on the line's own source
//! number. A title that starts with a capital breaks after any byte but a
//! space (`timePrime`, `...Threads`); one in lower case only after a
//! digit (`1000.7764response time:`), as a word before it could be its
//! own. The pieces are slices of the line: nothing is allocated, and a
//! line with no capital or lower-case title byte after a non-space byte
//! is passed whole after one look at its bytes.

use super::header::{MODES, OPTION_LINES};
use super::report::{PROGRESS_LINES, SECTION_TITLES};
use super::HISTOGRAM_START;
use std::sync::LazyLock;

/// Every title a lost line break may glue to the text before it: the
/// report's section headings, the histogram's, the options block's lines,
/// the mode lines and the progress messages, each from its own list.
fn titles() -> impl Iterator<Item = &'static str> {
    SECTION_TITLES
        .iter()
        .map(|&(title, _)| title)
        .chain([HISTOGRAM_START])
        .chain(OPTION_LINES)
        .chain(MODES.iter().map(|&(start, _)| start))
        .chain(PROGRESS_LINES)
}

/// The bytes a title starts with, to pass over every other byte with one
/// look.
const FIRST_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < SECTION_TITLES.len() {
        table[SECTION_TITLES[i].0.as_bytes()[0] as usize] = true;
        i += 1;
    }
    table[HISTOGRAM_START.as_bytes()[0] as usize] = true;
    let mut i = 0;
    while i < OPTION_LINES.len() {
        table[OPTION_LINES[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    let mut i = 0;
    while i < MODES.len() {
        table[MODES[i].0.as_bytes()[0] as usize] = true;
        i += 1;
    }
    let mut i = 0;
    while i < PROGRESS_LINES.len() {
        table[PROGRESS_LINES[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    table
};

/// A title's first byte in capitals ([`FIRST_BYTES`]): glued after any
/// byte but a space ([`GLUES_AFTER`]).
const CAPITAL_START: u8 = 1;
/// A title's first byte in lower case: glued only after a digit.
const LOWER_START: u8 = 2;

/// What kind of title start each byte is: [`CAPITAL_START`],
/// [`LOWER_START`] or none (0).
const START_KIND: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if FIRST_BYTES[b] && byte.is_ascii_uppercase() {
            table[b] = CAPITAL_START;
        } else if FIRST_BYTES[b] && byte.is_ascii_lowercase() {
            table[b] = LOWER_START;
        }
        b += 1;
    }
    table
};

/// The kinds of title start ([`START_KIND`]) each byte may be glued to:
/// a capital one after any byte but a space, a lower-case one after a
/// digit too.
const GLUES_AFTER: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_digit() {
            table[b] = CAPITAL_START | LOWER_START;
        } else if !byte.is_ascii_whitespace() {
            table[b] = CAPITAL_START;
        }
        b += 1;
    }
    table
};

/// The titles by their first byte, built once: a byte where a title may
/// be glued is compared with the few titles that start with it.
static BY_FIRST_BYTE: LazyLock<[Vec<&'static str>; 256]> = LazyLock::new(|| {
    let mut by_byte: [Vec<&'static str>; 256] = std::array::from_fn(|_| Vec::new());
    for title in titles() {
        by_byte[usize::from(title.as_bytes()[0])].push(title);
    }
    by_byte
});

/// Where the first title glued to the text before it starts in `text`,
/// if one does. Only a byte that starts a title ([`START_KIND`], rare in
/// a report's lines) has the byte before it looked at.
fn next_glued(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 1;
    while let Some(offset) = bytes
        .get(from..)?
        .iter()
        .position(|&b| START_KIND[usize::from(b)] != 0)
    {
        let at = from + offset;
        let byte = usize::from(bytes[at]);
        let glued = START_KIND[byte] & GLUES_AFTER[usize::from(bytes[at - 1])] != 0
            && BY_FIRST_BYTE[byte]
                .iter()
                .any(|title| bytes[at..].starts_with(title.as_bytes()));
        if glued {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The pieces of `text` with a line break put back before every glued
/// title: `text` whole (one piece, even if empty) when it has none.
pub(super) fn pieces(text: &str) -> Pieces<'_> {
    Pieces { rest: Some(text) }
}

/// The iterator [`pieces`] returns.
pub(super) struct Pieces<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest.take()?;
        match next_glued(rest) {
            Some(at) => {
                self.rest = rest.get(at..);
                rest.get(..at)
            }
            None => Some(rest),
        }
    }
}

/// Writes `text` with a line break before every glued title.
pub(super) fn write_broken(text: &str, out: &mut String) {
    for (n, piece) in pieces(text).enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glued_titles_break_their_line() {
        let cases: [(&str, &[&str]); 8] = [
            (
                "    events per second:   507.37General statistics:",
                &["    events per second:   507.37", "General statistics:"],
            ),
            (
                "         sum:                                19962.08Threads fairness:",
                &["         sum:                                19962.08", "Threads fairness:"],
            ),
            (
                "Initializing random number generator from current timePrime numbers limit: 10000Initializing worker threads...Threads started!CPU speed:",
                &[
                    "Initializing random number generator from current time",
                    "Prime numbers limit: 10000",
                    "Initializing worker threads...",
                    "Threads started!",
                    "CPU speed:",
                ],
            ),
            (
                "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)Running the test with following options:",
                &["sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)", "Running the test with following options:"],
            ),
            (
                "    total time taken by event execution: 1000.7764response time:",
                &["    total time taken by event execution: 1000.7764", "response time:"],
            ),
            // A title at the start, or after a space, is no glue.
            ("General statistics:", &["General statistics:"]),
            ("see the General statistics: below", &["see the General statistics: below"]),
            // A lower-case title after a word may be the word's own.
            ("avgresponse time: 5ms", &["avgresponse time: 5ms"]),
        ];
        for (i, (text, want)) in cases.into_iter().enumerate() {
            let got: Vec<&str> = pieces(text).collect();
            assert_eq!(got, want, "case {i}");
        }
        assert_eq!(pieces("").collect::<Vec<_>>(), [""]);
        let mut out = String::new();
        write_broken("total number of events: 5080Latency (ms):", &mut out);
        assert_eq!(out, "total number of events: 5080\nLatency (ms):");
    }
}
