//! The one pass over an input's lines: each line, its mark, its markup
//! undone, and what the input shows as a whole ([`Signs`]); a large
//! input's two halves on two threads.

use std::borrow::Cow;

use super::{ends_with_br, undo_line_markup, Signs, MARKUP_BYTES};
use crate::text::marks::MarkedBytes;
use crate::text::prefix::PROMPT_BYTES;
use crate::text::Line;

/// Bytes from which [`super::Source::marked`] reads an input's two halves on two
/// threads ([`read_halves`]): below it (a mail, a page) a thread costs
/// more than it saves. About the 100,000 lines from which [`crate::parse`]
/// splits the rest of its work.
pub(super) const PARALLEL_BYTES: usize = 4_000_000;

/// What the one pass over a stretch of lines gives: each line, its mark,
/// the lines rewritten and the lazy quotes' lines (by 0-based index in
/// the input), and the [`Signs`] seen.
pub(super) struct Marked<'a> {
    pub(super) lines: Vec<Line<'a>>,
    pub(super) marks: Vec<u32>,
    pub(super) rewritten: Vec<(usize, String)>,
    pub(super) lazy_quotes: Vec<usize>,
    pub(super) signs: Signs<'a>,
    /// Each line as the input has it, `\r` and all.
    pub(super) raw: Vec<&'a str>,
}

impl<'a> Marked<'a> {
    /// Reads the lines of `input`, the first of them being the input's
    /// line of 0-based index `first`, with `signs` as the lines above
    /// left them.
    pub(super) fn read(
        input: &'a str,
        first: usize,
        bits: &MarkedBytes,
        mut signs: Signs<'a>,
    ) -> Marked<'a> {
        let markup = bits.mask(MARKUP_BYTES);
        let equals = bits.mask(b"=");
        let prompt = bits.mask(&PROMPT_BYTES);
        let lines_guess = input.len() / 40;
        let mut marks = Vec::with_capacity(lines_guess);
        let mut lines = Vec::with_capacity(lines_guess);
        let mut raws = Vec::with_capacity(lines_guess);
        let mut rewritten = Vec::new();
        let mut lazy_quotes = Vec::new();
        // Each `\n` ends a line; a last line without one ends the input.
        let unterminated = (!input.is_empty() && !input.ends_with('\n')).then_some(input.len());
        let ends = memchr::memchr_iter(b'\n', input.as_bytes()).chain(unterminated);
        let mut start = 0;
        for (index, end) in ends.enumerate() {
            let index = first + index;
            // Both ends are at `\n` or the input's end: char boundaries.
            let raw = input.get(start..end).unwrap_or_default();
            raws.push(raw);
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            start = end + 1;
            let mark = bits.mark_of(raw.as_bytes());
            signs.see(index, raw, mark & equals != 0);
            let line = crate::text::line_of(index, raw, mark & prompt != 0);
            if mark & markup != 0 {
                let holds = |byte: u8| mark & bits.mask(&[byte]) != 0;
                undo_line_markup(index, Cow::Borrowed(raw), &holds, &mut rewritten);
                if line.depth > 0 && ends_with_br(raw) {
                    lazy_quotes.push(index);
                }
            }
            lines.push(line);
            marks.push(mark);
        }
        Marked {
            lines,
            marks,
            rewritten,
            lazy_quotes,
            signs,
            raw: raws,
        }
    }

    /// The lines of `self` and then of `rest`, whose indices are moved on
    /// by `offset` (the lines of `self`, for `rest` read from index 0).
    pub(super) fn append(mut self, rest: Marked<'a>, offset: usize) -> Marked<'a> {
        self.lines.extend(rest.lines.into_iter().map(|line| Line {
            number: line.number + offset,
            ..line
        }));
        self.marks.extend(rest.marks);
        self.raw.extend(rest.raw);
        let rewritten = rest.rewritten.into_iter();
        self.rewritten
            .extend(rewritten.map(|(index, text)| (index + offset, text)));
        self.lazy_quotes
            .extend(rest.lazy_quotes.iter().map(|index| index + offset));
        let signs = &mut self.signs;
        let equals = rest.signs.equals.into_iter();
        signs
            .equals
            .extend(equals.map(|(index, line)| (index + offset, line)));
        signs.declared |= rest.signs.declared;
        signs
            .paragraph_gaps
            .extend(rest.signs.paragraph_gaps.iter().map(|index| index + offset));
        signs.before = rest.signs.before;
        signs.previous = rest.signs.previous;
        signs.past_headers = rest.signs.past_headers;
        self
    }
}

/// Reads `input`'s two halves, split after the line end nearest its
/// middle, on two threads and joins what each found: the lines are read
/// one at a time and [`Signs`] needs of the lines above only the last two
/// and whether the header block has ended. The second half is read as
/// past the headers; should the first half be all headers (no mail's
/// are that long), it is read again after the first with the signs the
/// first left. Without a second thread, or a line end to split at, one
/// thread reads it all.
pub(super) fn read_halves<'a>(input: &'a str, bits: &MarkedBytes) -> Marked<'a> {
    let split = memchr::memchr(
        b'\n',
        input.as_bytes().get(input.len() / 2..).unwrap_or_default(),
    )
    .map(|at| input.len() / 2 + at + 1)
    .filter(|&split| split < input.len());
    let Some((head, tail)) =
        split.and_then(|split| Some((input.get(..split)?, input.get(split..)?)))
    else {
        return Marked::read(input, 0, bits, Signs::default());
    };
    // The head ends with `\n`: its last two lines, as `Marked::read` reads them.
    let mut above = head[..head.len() - 1]
        .rsplitn(3, '\n')
        .map(|raw| raw.strip_suffix('\r').unwrap_or(raw));
    let previous = above.next();
    let before = above.next();
    let past = Signs {
        past_headers: true,
        previous,
        before,
        ..Signs::default()
    };
    let (first, second) = std::thread::scope(|scope| {
        let spawned =
            std::thread::Builder::new().spawn_scoped(scope, || Marked::read(tail, 0, bits, past));
        let first = Marked::read(head, 0, bits, Signs::default());
        let second = spawned.ok().map(|thread| {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (first, second)
    });
    match second {
        Some(second) if first.signs.past_headers => {
            let offset = first.lines.len();
            first.append(second, offset)
        }
        _ => {
            let second = Marked::read(tail, first.lines.len(), bits, first.signs.continued());
            first.append(second, 0)
        }
    }
}
