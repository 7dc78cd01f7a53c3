//! Undoing what carried a tool's output into the post: quoted-printable
//! from a raw pasted message (soft line breaks that cut a table row in two,
//! `=3D`, `=20`), and the remnants of web pages (HTML entities and tags,
//! markdown emphasis, code fences and backticks, BBCode). These change the
//! text, so [`Source`] keeps a rewritten copy of each line it changes, and
//! only of those; every line keeps its source line number, and a line a
//! soft break joined to the one before it is left out of the lines. An
//! HTML table's cells are blocks of lines of their own
//! ([`split_table_cells`]): one source line may then give several lines,
//! all with its number, so a reader counts lines by their place among
//! the lines, never by their numbers.

use std::borrow::Cow;

use super::marks::MarkedBytes;
use super::prefix::PROMPT_BYTES;
use super::Line;

mod pass;
use pass::{read_halves, Marked, PARALLEL_BYTES};
mod quoted_printable;

use quoted_printable::{
    is_encoding_header, is_soft_break, looks_quoted_printable, undo_quoted_printable,
};

/// An input with quoted-printable and markup undone, ready to be read as
/// [`Line`]s numbered as in the input. The input is split once; the few
/// lines that need more work are found on the way by their marks: which of
/// the bytes markup, quoted-printable and prompts start with (and those
/// the caller asks about: [`Source::marked`]) each line holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Source<'a> {
    /// Every source line, read as [`super::lines`] reads it.
    lines: Vec<Line<'a>>,
    /// Which of the marked bytes each source line holds.
    marks: Vec<u32>,
    /// The bytes the marks tell of, each with its bit.
    marked_bytes: MarkedBytes,
    /// (0-based index of a source line, its rewritten text), in order.
    rewritten: Vec<(usize, String)>,
    /// 0-based indices of quoted lines that end with `<br>`: a markdown
    /// block quote, whose unmarked lines after them still belong to it.
    lazy_quotes: Vec<usize>,
    /// 1-based source lines whose text now belongs to another line (a
    /// soft break joined them to the line before), or that a converted
    /// page added (paragraph gaps); sorted.
    left_out: Vec<usize>,
    /// The input's own lines, as `input.split('\n')` gives them, found in
    /// the same pass ([`Source::raw_lines`]).
    raw: Vec<&'a str>,
}

/// The bytes markup starts with: `[b]`, `<br>`, `**`, backticks, `&amp;`,
/// a no-break space's lead byte, markdown's `\*`.
const MARKUP_BYTES: &[u8] = b"[<*`&\xC2\\";

impl<'a> Source<'a> {
    /// Reads `input`; the lines it leaves alone are borrowed as they are.
    #[cfg(test)]
    pub fn new(input: &'a str) -> Source<'a> {
        Source::marked(input, &[])
    }

    /// Reads `input` as [`Source::new`] does, and notes which of `wanted`
    /// (at most 32 bytes with markup's, `=` and a prompt's) each line holds, for
    /// [`Source::marked_lines`].
    pub fn marked(input: &'a str, wanted: &[u8]) -> Source<'a> {
        Source::marked_with(input, wanted, PARALLEL_BYTES)
    }

    /// [`Source::marked`], its input's two halves read on two threads
    /// from `parallel_from` bytes on ([`read_halves`]).
    fn marked_with(input: &'a str, wanted: &[u8], parallel_from: usize) -> Source<'a> {
        let bits = MarkedBytes::new(&[MARKUP_BYTES, b"=", &PROMPT_BYTES, wanted]);
        let Marked {
            lines,
            marks,
            mut rewritten,
            lazy_quotes,
            signs,
            mut raw,
        } = if input.len() >= parallel_from {
            read_halves(input, &bits)
        } else {
            Marked::read(input, 0, &bits, Signs::default())
        };
        let mut left_out = Vec::new();
        if looks_quoted_printable(&signs.equals, signs.declared) {
            // Only the lines holding a `=` (and those a soft break joins)
            // change; their markup is undone again on the decoded text.
            let mut decoded = Vec::new();
            undo_quoted_printable(&signs.equals, &bits, &mut decoded, &mut left_out);
            let touched: Vec<usize> = signs.equals.iter().map(|&(index, _)| index).collect();
            rewritten.retain(|(index, _)| touched.binary_search(index).is_err());
            rewritten.extend(decoded);
            rewritten.sort_by_key(|&(index, _)| index);
        }
        if signs.paragraph_gaps.len() >= MIN_PARAGRAPH_GAPS {
            left_out.extend(signs.paragraph_gaps);
        }
        left_out.sort_unstable();
        left_out.dedup();
        // `split('\n')` ends with the text after the last `\n`, empty
        // where the input ends with one.
        if input.is_empty() || input.ends_with('\n') {
            raw.push("");
        }
        Source {
            lines,
            marks,
            marked_bytes: bits,
            rewritten,
            lazy_quotes,
            left_out,
            raw,
        }
    }

    /// The input's own lines, as `input.split('\n')` gives them (a `\r`
    /// kept), found by the pass that read the lines: handed over once.
    pub fn raw_lines(&mut self) -> Vec<&'a str> {
        std::mem::take(&mut self.raw)
    }

    /// The lines, numbered as in the input, with quote depth, stamps and
    /// prompts read as [`super::lines`] reads them. They are handed over
    /// once: a second call gives none.
    #[cfg(test)]
    pub fn lines(&mut self) -> Vec<Line<'_>> {
        self.marked_lines().0
    }

    /// The lines as [`Source::lines`] gives them, each with its mark: the
    /// bits ([`Source::marked_bytes`]) of the bytes asked for that the line may
    /// hold. A mark may name a byte the line's text lacks (a quote marker
    /// or a stamp taken off), never the reverse.
    pub fn marked_lines(&mut self) -> (Vec<Line<'_>>, Vec<u32>) {
        let mut lines: Vec<Line<'_>> = std::mem::take(&mut self.lines);
        let mut marks = std::mem::take(&mut self.marks);
        // The lines after the first of a rewritten text that holds
        // several (a table's cells), by source index, in order.
        let mut more: Vec<(usize, &str)> = Vec::new();
        for (index, text) in &self.rewritten {
            if let Some(line) = lines.get_mut(*index) {
                let text = match text.split_once('\n') {
                    Some((first, rest)) => {
                        more.push((*index, rest));
                        first
                    }
                    None => text.as_str(),
                };
                let (depth, text) = super::split_quote(text);
                line.depth = depth;
                line.text = super::prefix::strip_line_prefix(text);
                if let Some(mark) = marks.get_mut(*index) {
                    *mark = self.marked_bytes.mark_of(line.text.as_bytes());
                }
            }
        }
        // Markdown's lazy continuation: `>SQL statistics:<br>` and the
        // unmarked lines under it, up to a blank line, are one quote.
        let mut covered = 0;
        for &index in &self.lazy_quotes {
            let depth = lines[index].depth;
            let mut j = (index + 1).max(covered);
            while j < lines.len() && lines[j].depth == 0 && !lines[j].is_blank() {
                lines[j].depth = depth;
                j += 1;
            }
            covered = j;
        }
        if !self.left_out.is_empty() {
            // Both are in line order: each line left out is found by a
            // binary search from the one before, and the lines between
            // two move as one block, not one by one.
            let len = lines.len().min(marks.len());
            let (mut kept, mut from) = (0, 0);
            for &number in &self.left_out {
                let at = from + lines[from..len].partition_point(|line| line.number < number);
                if lines.get(at).is_none_or(|line| line.number != number) || at >= len {
                    continue;
                }
                lines.copy_within(from..at, kept);
                marks.copy_within(from..at, kept);
                kept += at - from;
                from = at + 1;
            }
            lines.copy_within(from..len, kept);
            marks.copy_within(from..len, kept);
            kept += len - from;
            lines.truncate(kept);
            marks.truncate(kept);
        }
        if !more.is_empty() {
            (lines, marks) = self.with_cell_lines(lines, marks, &more);
        }
        (lines, marks)
    }

    /// `lines` with the further lines of each source line in `more`
    /// (by source line number, in order) after it: numbered as it, at
    /// its quote depth.
    fn with_cell_lines<'s>(
        &self,
        lines: Vec<Line<'s>>,
        marks: Vec<u32>,
        more: &[(usize, &'s str)],
    ) -> (Vec<Line<'s>>, Vec<u32>) {
        let extra: usize = more
            .iter()
            .map(|(_, rest)| rest.matches('\n').count() + 1)
            .sum();
        let len = lines.len().min(marks.len());
        let mut all = Vec::with_capacity(len + extra);
        let mut all_marks = Vec::with_capacity(len + extra);
        // Both are in line order: each line with more is found by a
        // binary search from the one before, and the lines between two
        // are copied as one block, not pushed one by one.
        let mut from = 0;
        // The source line the last pieces went after, with its index.
        let mut last: Option<(usize, Line<'s>)> = None;
        for &(index, rest) in more {
            // Source line numbers are 1-based indices plus one.
            let line = match last {
                Some((after, line)) if after == index => line,
                _ => {
                    let at =
                        from + lines[from..len].partition_point(|line| line.number < index + 1);
                    let Some(&line) = lines[..len].get(at).filter(|line| line.number == index + 1)
                    else {
                        continue;
                    };
                    all.extend_from_slice(&lines[from..=at]);
                    all_marks.extend_from_slice(&marks[from..=at]);
                    from = at + 1;
                    last = Some((index, line));
                    line
                }
            };
            for piece in rest.split('\n') {
                let text = super::prefix::strip_line_prefix(piece);
                all_marks.push(self.marked_bytes.mark_of(text.as_bytes()));
                all.push(Line { text, ..line });
            }
        }
        all.extend_from_slice(&lines[from..len]);
        all_marks.extend_from_slice(&marks[from..len]);
        (all, all_marks)
    }

    /// The bytes the lines' marks tell of, each with its bit.
    pub fn marked_bytes(&self) -> &MarkedBytes {
        &self.marked_bytes
    }
}

/// `…<br>`, `…<br/>`, `…<BR />` at the end of a line.
fn ends_with_br(raw: &str) -> bool {
    let Some(t) = raw.trim_end().strip_suffix('>') else {
        return false;
    };
    let t = t.trim_end_matches(['/', ' ']).as_bytes();
    t.len() >= 3 && t[t.len() - 3..].eq_ignore_ascii_case(b"<br")
}

/// A markdown page converted from a blog makes every line a paragraph of
/// its own: `line  ` (a hard break), an empty line, the next `line  `. The
/// empty lines are no blank lines of the post, and they would cut a
/// tool's header from its rows; a blank line of the post is still there
/// (as a line of spaces). Only where the page shows the pattern again and
/// again, so a mail's own empty lines stay.
const MIN_PARAGRAPH_GAPS: usize = 4;

/// What the one pass over the lines notices for the whole input.
#[derive(Default)]
struct Signs<'a> {
    /// The lines quoted-printable could have touched, with their 0-based
    /// index: those holding a `=`, and each line after a soft break.
    equals: Vec<(usize, &'a str)>,
    /// A header names quoted-printable.
    declared: bool,
    /// 1-based numbers of the empty lines between two hard-broken lines.
    paragraph_gaps: Vec<usize>,
    before: Option<&'a str>,
    previous: Option<&'a str>,
    /// Past the input's own header block, if it opens with one.
    past_headers: bool,
}

impl<'a> Signs<'a> {
    /// The signs a stretch of lines read on after these starts with: the
    /// last two lines and whether the headers have ended.
    fn continued(&self) -> Signs<'a> {
        Signs {
            before: self.before,
            previous: self.previous,
            past_headers: self.past_headers,
            ..Signs::default()
        }
    }

    /// `has_equals`: the line holds a `=` (its mark says so).
    fn see(&mut self, index: usize, line: &'a str, has_equals: bool) {
        let b = line.as_bytes();
        // Headers are never quoted-printable: a DKIM signature's base64
        // (`bh=D1Ux...`, `...QY=` at a line's end) and RFC 2047 words
        // (`N=FCtzel`) in the block at the top would pass for escapes and
        // soft breaks, and decoding would join header lines.
        if !self.past_headers {
            let in_headers = if index == 0 {
                line.starts_with("From ") || is_header_field(line)
            } else {
                line.starts_with([' ', '\t']) || is_header_field(line)
            };
            self.past_headers = !in_headers;
        }
        let after_soft_break = self.previous.is_some_and(is_soft_break);
        if self.past_headers && (after_soft_break || has_equals) {
            self.equals.push((index, line));
        }
        self.declared |= matches!(b.first(), Some(b'C' | b'c')) && is_encoding_header(line);
        let hard_break = |line: &str| line.ends_with("  ");
        if self.previous == Some("") && self.before.is_some_and(hard_break) && hard_break(line) {
            // `index` is the line after the gap: the gap's 1-based number.
            self.paragraph_gaps.push(index);
        }
        self.before = self.previous;
        self.previous = Some(line);
    }
}

/// `Name: value`, a mail header field.
fn is_header_field(line: &str) -> bool {
    line.split_once(':').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.len() <= 76
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    })
}

/// A code fence reads as a blank line; a line with markup is kept rewritten, as is
/// one that quoted-printable changed.
/// `holds` says whether the line holds a byte of [`MARKUP_BYTES`].
fn undo_line_markup(
    index: usize,
    line: Cow<'_, str>,
    holds: &dyn Fn(u8) -> bool,
    rewritten: &mut Vec<(usize, String)>,
) {
    // A fence holds backticks: the mark says whether to look (most lines
    // with markup are `<…>` and `[…]`, and the fence test trims each one).
    if holds(b'`') && is_code_fence(&line) {
        // A fence ends the block before it and starts the next: it reads
        // as a blank line at its quote depth, not as no line.
        let markers = line.find("```").unwrap_or(0);
        rewritten.push((index, line[..markers].to_string()));
    } else if let Some(clean) = undo_markup(&line, holds) {
        rewritten.push((index, clean));
    } else if let Cow::Owned(changed) = line {
        rewritten.push((index, changed));
    }
}

/// ```` ``` ```` and ```` ```text ```` on a line of their own.
fn is_code_fence(line: &str) -> bool {
    let t = line.trim_start();
    let t = t.trim_start_matches(['>', ' ']);
    t.starts_with("```") && !t[3..].contains('`')
}

/// The line with markup taken off, or None when it has none.
/// `holds` says whether the line holds a byte of [`MARKUP_BYTES`].
fn undo_markup(line: &str, holds: &dyn Fn(u8) -> bool) -> Option<String> {
    // Each kind is looked for only when its first byte is there: the
    // line's mark says, or a byte search does.
    let has = holds;
    let mut text = Cow::Borrowed(line);
    if has(b'<') {
        if let Some(t) = split_table_cells(&text) {
            text = Cow::Owned(t);
        }
    }
    if has(b'[') {
        if let Some(t) = strip_tags(&text, b'[', b']', &BBCODE) {
            text = Cow::Owned(t);
        }
    }
    if has(b'<') {
        if let Some(t) = strip_tags(&text, b'<', b'>', &HTML) {
            text = Cow::Owned(t);
        }
    }
    if has(b'*') {
        if let Some(t) = strip_bold(&text) {
            text = Cow::Owned(t);
        }
    }
    if has(b'`') {
        if let Some(t) = strip_pairs(&text, "`") {
            text = Cow::Owned(t);
        }
    }
    if has(b'&') {
        if let Some(t) = decode_entities(&text) {
            text = Cow::Owned(t);
        }
    }
    if has(b'\\') {
        if let Some(t) = unescape_markdown(&text) {
            text = Cow::Owned(t);
        }
    }
    if has(0xC2) && text.contains('\u{a0}') {
        text = Cow::Owned(text.replace('\u{a0}', " "));
    }
    match text {
        Cow::Owned(t) => Some(t),
        Cow::Borrowed(_) => None,
    }
}

/// BBCode tags a forum post wraps output in; `[quote=Name]` and
/// `[color=red]` take a value.
const BBCODE: [&str; 10] = [
    "b", "i", "u", "code", "quote", "pre", "tt", "color", "size", "font",
];

/// HTML tags a copied page leaves around output; `<br>` ends a line.
const HTML: [&str; 11] = [
    "br", "pre", "code", "tt", "b", "i", "strong", "em", "p", "span", "div",
];

/// The tags of an HTML table's structure. A post (a blog, a page saved
/// as HTML) puts whole reports in a table's cells, often two side by
/// side; each cell is a block of lines of its own.
const TABLE_TAGS: [&str; 8] = [
    "table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption",
];

/// A line of an HTML table as the blocks of lines its cells are: a table
/// tag ([`TABLE_TAGS`], opening or closing) ends one block and starts the
/// next (a blank line between them), and a `<br>` inside a cell ends a
/// line (one at a cell's end ends nothing: the cell does). The lines are
/// joined with `\n`; [`Source::marked_lines`] gives each its own
/// [`Line`], all numbered as the source line. `None` when the line holds
/// no table tag.
fn split_table_cells(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut out: Option<String> = None;
    // `line[..kept]` is handled; text since then is the current cell's.
    let mut kept = 0;
    let mut from = 0;
    // A table tag came after the last text: the next text starts a block.
    let mut new_block = false;
    while let Some(at) = memchr::memchr(b'<', bytes.get(from..).unwrap_or_default()) {
        let at = from + at;
        let tail = line.get(at + 1..).unwrap_or_default();
        let Some(width) = tag_width(tail, b'>', &TABLE_TAGS) else {
            from = at + 1;
            continue;
        };
        let out = out.get_or_insert_with(|| String::with_capacity(line.len() + 8));
        push_cell_text(out, line.get(kept..at).unwrap_or_default(), new_block);
        new_block = true;
        kept = at + 1 + width;
        from = kept;
    }
    let mut out = out?;
    let rest = line.get(kept..).unwrap_or_default();
    push_cell_text(&mut out, rest, new_block);
    // A tag after the line's last text ends its block there: what the
    // next line holds (prose after `</table>`) is no part of the cell.
    if rest.trim().is_empty() && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// Appends a piece of a cell's text, each `<br>` in it a line break
/// (none for one that ends the piece); a piece of spaces adds nothing.
/// A piece that starts a block goes after a blank line (the first line
/// of `out` is blank when it starts the text).
fn push_cell_text(out: &mut String, piece: &str, new_block: bool) {
    if piece.trim().is_empty() {
        return;
    }
    if new_block {
        out.push_str(if out.is_empty() { "\n" } else { "\n\n" });
    }
    let mut rest = piece;
    while let Some((before, after)) = split_at_br(rest) {
        out.push_str(before);
        if !after.trim().is_empty() {
            out.push('\n');
        }
        rest = after;
    }
    out.push_str(rest);
}

/// The text before and after the first `<br>` (`<br/>`, `<BR />`).
fn split_at_br(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'<', bytes).find_map(|at| {
        let tail = text.get(at + 1..)?;
        let width = tag_width(tail, b'>', &["br"])?;
        Some((text.get(..at)?, text.get(at + 1 + width..)?))
    })
}

/// Removes `open name close`, `open /name close` and `open name=... close`
/// (and `<name attr="..">`, `<br />`) for the names given, any case.
/// `open` and `close` are ASCII: bytes are searched, not characters.
fn strip_tags(line: &str, open: u8, close: u8, names: &[&str]) -> Option<String> {
    // Most lines with a `[` are sysbench's `[ 10s]`: nothing is built
    // until a known tag turns up.
    let mut out: Option<String> = None;
    // `line[..kept]` is handled (copied, or a tag left out); the next
    // opening byte is searched for from `from`.
    let (mut kept, mut from) = (0, 0);
    while let Some(at) = memchr::memchr(open, line.as_bytes().get(from..).unwrap_or_default()) {
        // An ASCII byte is a whole character: both cuts are boundaries.
        let at = from + at;
        let tail = line.get(at + 1..).unwrap_or_default();
        match tag_width(tail, close, names) {
            Some(width) => {
                let out = out.get_or_insert_with(|| String::with_capacity(line.len()));
                out.push_str(line.get(kept..at).unwrap_or_default());
                kept = at + 1 + width;
                from = kept;
            }
            None => from = at + 1,
        }
    }
    let mut out = out?;
    out.push_str(line.get(kept..).unwrap_or_default());
    Some(out)
}

/// The width of a tag's body and its closing character, after the
/// opening one.
fn tag_width(tail: &str, close: u8, names: &[&str]) -> Option<usize> {
    // Cheap first: a name starting right after the opening byte must
    // start with a known name's initial. Most brackets in mail hold no
    // tag (`<WDC WD800JD-00LSA0 06.01D06>` in a dmesg line).
    let initial = |first: u8| {
        names.iter().any(|n| {
            n.as_bytes()
                .first()
                .is_some_and(|i| i.eq_ignore_ascii_case(&first))
        })
    };
    if tail
        .as_bytes()
        .first()
        .is_some_and(|&first| first.is_ascii_alphanumeric() && !initial(first))
    {
        return None;
    }
    let end = memchr::memchr(close, tail.get(..tail.len().min(80))?.as_bytes())?;
    let body = tail.get(..end)?.trim_end_matches('/').trim();
    let body = body.strip_prefix('/').unwrap_or(body);
    let name_end = body
        .bytes()
        .position(|b| b == b'=' || b == b' ')
        .unwrap_or(body.len());
    let name = body.get(..name_end)?;
    let known = names.iter().any(|n| n.eq_ignore_ascii_case(name));
    known.then_some(end + 1)
}

/// Markdown's `**bold**`: the opening `**` is followed by a letter, the
/// closing one preceded by one. A mail's own `** update test **` is a
/// section label the context reader knows, and stays.
fn strip_bold(line: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut rest = line;
    while let Some(open) = find_double_star(rest) {
        let inner = &rest[open + 2..];
        let close = find_double_star(inner);
        let valid = close.is_some_and(|c| {
            c > 0
                && !inner.starts_with(char::is_whitespace)
                && !inner[..c].ends_with(char::is_whitespace)
        });
        let Some(c) = close.filter(|_| valid) else {
            if let Some(out) = out.as_mut() {
                out.push_str(&rest[..open + 2]);
            }
            rest = inner;
            continue;
        };
        let out = out.get_or_insert_with(|| String::with_capacity(line.len()));
        out.push_str(&rest[..open]);
        out.push_str(&inner[..c]);
        rest = &inner[c + 2..];
    }
    let mut out = out?;
    out.push_str(rest);
    Some(out)
}

/// Where `text.find("**")` finds, by byte: a `str` search builds a
/// two-way searcher each time, and a rule of stars is looked at once per
/// pair of them.
fn find_double_star(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'*', bytes).find(|&at| bytes.get(at + 1) == Some(&b'*'))
}

/// Takes off pairs of `mark` (`**bold**`, `` `code` ``) when the line holds
/// an even number of them.
fn strip_pairs(line: &str, mark: &str) -> Option<String> {
    let count = line.matches(mark).count();
    if count == 0 || !count.is_multiple_of(2) {
        return None;
    }
    Some(line.replace(mark, ""))
}

/// Markdown's backslash escapes of the brackets and marks a page had to
/// keep literal (`\\[ 10s \\]`, `\\(r/w/o: …\\)`, `\\*`): the backslash goes.
/// Other backslashes (`C:\\Temp`, `\\n`) stay.
fn unescape_markdown(line: &str) -> Option<String> {
    const ESCAPED: &[u8] = b"[]()*_#|!`{}<>+-.";
    let b = line.as_bytes();
    if !b
        .windows(2)
        .any(|w| w[0] == b'\\' && ESCAPED.contains(&w[1]))
    {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii() && ESCAPED.contains(&(*n as u8)))
        {
            continue;
        }
        out.push(c);
    }
    Some(out)
}

/// `&nbsp;` (a space, so columns stay apart), `&lt;`, `&gt;`, `&amp;`,
/// `&quot;`, `&#39;`, `&#x3e;`.
fn decode_entities(line: &str) -> Option<String> {
    if !line.contains('&') {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut changed = false;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let decoded = tail
            .get(..tail.len().min(10))
            .and_then(|head| head.find(';'))
            .and_then(|semi| entity(&tail[..semi]).map(|c| (c, semi)));
        match decoded {
            Some((c, semi)) => {
                out.push(c);
                rest = &tail[semi + 1..];
                changed = true;
            }
            None => {
                out.push('&');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

fn entity(name: &str) -> Option<char> {
    Some(match name {
        "nbsp" => ' ',
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        "apos" => '\'',
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            let c = char::from_u32(code)?;
            // A control character from an entity would only confuse the
            // line structure.
            if c.is_control() && c != '\t' {
                return None;
            }
            c
        }
    })
}

#[cfg(test)]
mod tests {
    use super::quoted_printable::decode_qp_escapes;
    use super::*;

    /// Reading an input's two halves on two threads gives the lines,
    /// marks and rewritten lines one thread gives: every fixture one
    /// after the other (mail headers, quoted-printable, markup), and
    /// inputs split inside a header block or with a line or two.
    #[test]
    fn two_halves_read_as_one() {
        let fixtures: Vec<String> = testkit::fixture_files::fixture_texts()
            .iter()
            .map(|path| std::fs::read_to_string(path).unwrap())
            .collect();
        let all = fixtures.join("\n");
        let headers = "From a@b Mon Jan 1 2007\nSubject: x\nX-A: =3D\n".repeat(20) + "a =3D b\n";
        let cases = [
            all.as_str(),
            headers.as_str(),
            "",
            "one line",
            "one\n",
            "one\r\ntwo\r\n",
            "a  \n\nb  \n",
        ];
        for input in cases {
            let one = Source::marked_with(input, b"#:", usize::MAX);
            let two = Source::marked_with(input, b"#:", 0);
            assert_eq!(one, two, "{:?}", &input[..input.len().min(40)]);
        }
    }

    #[test]
    fn brackets_whose_first_byte_starts_no_name_are_no_tags() {
        for tail in ["WDC WD800JD-00LSA0>", "1>", "x>", "bx>"] {
            assert_eq!(tag_width(tail, b'>', &HTML), None, "{tail:?}");
        }
        for tail in ["b>", " b>", "/b>", "BR/>", "br />", "span class=x>"] {
            assert_eq!(tag_width(tail, b'>', &HTML), Some(tail.len()), "{tail:?}");
        }
    }

    /// Text before a tag is kept when a bracket that is no tag comes
    /// first: `strip_tags` once dropped it (`ad0: <WDC …> <1> < b>x</b>`
    /// read `1> x`).
    #[test]
    fn brackets_that_are_no_tags_keep_the_text_around_them() {
        let cases = [
            (
                "ad0: <WDC WD800JD> <1> < b>x</b>",
                Some("ad0: <WDC WD800JD> <1> x"),
            ),
            ("<1> <b>x</b> y", Some("<1> x y")),
            ("a <b>b</b> <c> d<br>", Some("a b <c> d")),
            ("<WDC WD800JD-00LSA0 06.01D06> at ata0", None),
            ("[ 10s] threads: 4", None),
            ("", None),
        ];
        for (i, (line, stripped)) in cases.iter().enumerate() {
            let open = if line.starts_with('[') { b'[' } else { b'<' };
            let close = if open == b'[' { b']' } else { b'>' };
            let names: &[&str] = if open == b'[' { &BBCODE } else { &HTML };
            assert_eq!(
                strip_tags(line, open, close, names).as_deref(),
                *stripped,
                "case {i}"
            );
        }
    }

    #[test]
    fn double_stars_are_found_where_a_str_search_finds_them() {
        for text in ["", "*", "a*b*c", "**", "a*b**c**", "***", "x * ** y", "é**"] {
            assert_eq!(find_double_star(text), text.find("**"), "{text:?}");
        }
    }

    #[test]
    fn escapes_are_decoded_from_the_left() {
        let cases = [
            ("a=3Db", Some("a=b")),
            ("==3D", Some("==")),
            ("=3=3D", Some("=3=")),
            ("=3D=3D", Some("==")),
            ("=C3=A9t=C3=A9", Some("\u{e9}t\u{e9}")),
            ("caf=E9", Some("caf\u{e9}")),
            ("key_buffer=128M", None),
            ("key_buffer=384M thread_cache=40", None),
            ("--percentile=99", None),
            ("it=E2=80=99s", Some("it\u{2019}s")),
            ("=80 alone", None),
            ("x=3D=12", Some("x==12")),
            ("x=", None),
            ("=4", None),
            ("=G1 and =1", None),
            ("", None),
        ];
        for (line, want) in cases {
            assert_eq!(decode_qp_escapes(line).as_deref(), want, "{line:?}");
        }
    }

    /// (text, line number) of each line a source gives.
    fn read(input: &str) -> Vec<(String, usize)> {
        Source::new(input)
            .lines()
            .iter()
            .map(|l| (l.text.to_string(), l.number))
            .collect()
    }

    /// A DKIM signature's base64 in the header block (`bh=D1Ux...`, a
    /// `...Q==` padding at a line's end) is no quoted-printable: the lines
    /// after it stay as they are (linux-btrfs, 2023).
    #[test]
    fn header_base64_is_no_quoted_printable() {
        let input = "DKIM-Signature: v=1; a=rsa-sha256; d=kernel.org;\n\tbh=D1Uxhk0w4/cCslbCebBR=;\n\tb=E9cbV0fxosufujff=\n\t00/rZAckznxAPIFlQ==\nFrom:   a@b.c\nSubject: s\n\nBefore this change:\n\n  x=1\n";
        let lines = read(input);
        assert_eq!(lines[4], ("From:   a@b.c".to_string(), 5));
        assert_eq!(lines[7], ("Before this change:".to_string(), 8));
        assert_eq!(lines.len(), 10);
    }

    #[test]
    fn quoted_printable() {
        let cases: [(&str, &[(&str, usize)]); 7] = [
            (
                // Quoted-printable, and a setting whose `=12` and `=38` no
                // encoder writes: the settings stay as they were.
                "Content-Transfer-Encoding: quoted-printable\n\nx=3D1\nkey_buffer=128M table_size=384M\n",
                &[
                    ("Content-Transfer-Encoding: quoted-printable", 1),
                    ("", 2),
                    ("x=1", 3),
                    ("key_buffer=128M table_size=384M", 4),
                ],
            ),
            (
                // A table row cut by a soft break, with `=3D` and `=20`.
                "a=3D1 b=3D2\nselect_index     10000   0       0       28=\n581.18\nend=20\n",
                &[("a=1 b=2", 1), ("select_index     10000   0       0       28581.18", 2), ("end ", 4)],
            ),
            (
                // Ordinary text ending in `=` is left alone.
                "key_buffer =\n64M\nx=1\n",
                &[("key_buffer =", 1), ("64M", 2), ("x=1", 3)],
            ),
            (
                // One escape is not enough to tell.
                "a =3D b\nc =\nd\n",
                &[("a =3D b", 1), ("c =", 2), ("d", 3)],
            ),
            (
                // The header says so.
                "Content-Transfer-Encoding: quoted-printable\n\nx=3D1\n",
                &[("Content-Transfer-Encoding: quoted-printable", 1), ("", 2), ("x=1", 3)],
            ),
            (
                // Soft breaks at the encoder's width (76) cut two rows.
                "> Time for select_range (410:1230000):   1211 wallclock secs (196.50 usr  4=\n0.80 sys +  0.00 cusr  0.00 csys = 237.30 CPU)\n> Time for min_max_on_key (70000):   15 wallclock secs ( 7.99 usr  1.46 sys=\n +  0.00 cusr  0.00 csys =  9.45 CPU)\n",
                &[
                    ("Time for select_range (410:1230000):   1211 wallclock secs (196.50 usr  40.80 sys +  0.00 cusr  0.00 csys = 237.30 CPU)", 1),
                    ("Time for min_max_on_key (70000):   15 wallclock secs ( 7.99 usr  1.46 sys +  0.00 cusr  0.00 csys =  9.45 CPU)", 3),
                ],
            ),
            (
                // Latin-1 bytes are kept as Latin-1.
                "Fran=E7ois =3D me=\n too\n",
                &[("François = me too", 1)],
            ),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let want: Vec<(String, usize)> =
                want.iter().map(|&(t, n)| (t.to_string(), n)).collect();
            assert_eq!(read(input), want, "case {i}: {input:?}");
        }
    }

    #[test]
    fn markdown_lazy_block_quotes() {
        // A homework page's sysbench report: `>` only on its first line.
        let page = ">SQL statistics:<br>\n    queries performed:<br>\n        read:  10416<br>\n\nafter\n> plain quote\nnot lazy\n";
        let got: Vec<(usize, usize)> = Source::new(page)
            .lines()
            .iter()
            .map(|l| (l.number, l.depth))
            .collect();
        assert_eq!(
            got,
            [(1, 1), (2, 1), (3, 1), (4, 0), (5, 0), (6, 1), (7, 0)]
        );
        for (raw, yes) in [
            ("a<br>", true),
            ("a <BR />", true),
            ("a<br/>  ", true),
            ("a<b>", false),
            ("br>", false),
        ] {
            assert_eq!(ends_with_br(raw), yes, "{raw:?}");
        }
    }

    #[test]
    fn markdown_backslash_escapes() {
        let cases = [
            (
                // A TiDB homework page's blockquoted sysbench interval.
                "\\[ 10s \\] thds: 8 tps: 73.05 qps: 73.05 \\(r/w/o: 73.05/0.00/0.00\\) lat \\(ms,95%\\): 248.83",
                "[ 10s ] thds: 8 tps: 73.05 qps: 73.05 (r/w/o: 73.05/0.00/0.00) lat (ms,95%): 248.83",
            ),
            ("C:\\Temp\\n", "C:\\Temp\\n"),
            ("a \\*b\\* c", "a *b* c"),
        ];
        for (i, (raw, want)) in cases.into_iter().enumerate() {
            assert_eq!(read(raw), vec![(want.to_string(), 1)], "case {i}: {raw:?}");
        }
    }

    #[test]
    fn web_page_markup() {
        let cases = [
            (
                "select_index&nbsp;&nbsp;10000&nbsp;0",
                "select_index  10000 0",
            ),
            ("&gt; Query_type num_queries", "Query_type num_queries"),
            (
                "a &lt; b &amp;&amp; c &#62; d &#x3e; e",
                "a < b && c > d > e",
            ),
            ("Full stroke: 250 iter<br>", "Full stroke: 250 iter"),
            ("<pre>Operation seconds</pre><br />", "Operation seconds"),
            ("**ULE + libthr**", "ULE + libthr"),
            ("** update test **", "** update test **"),
            ("**bold** and **more**", "bold and more"),
            ("a ** b", "a ** b"),
            (
                "run `super-smack -d mysql x.smack 10 100` here",
                "run super-smack -d mysql x.smack 10 100 here",
            ),
            (
                "[code]Query_type num_queries[/code]",
                "Query_type num_queries",
            ),
            ("[b]ULE[/b] [quote=Bob]x[/quote]", "ULE x"),
            (
                "[ 10s] threads: 8, tps: 1.00",
                "[ 10s] threads: 8, tps: 1.00",
            ),
            ("5 * 3 = 15", "5 * 3 = 15"),
            ("R&D &unknown; &#0; &", "R&D &unknown; &#0; &"),
            ("a\u{a0}b", "a b"),
            ("if (a<b) x", "if (a<b) x"),
            ("one ` backtick", "one ` backtick"),
        ];
        for (i, (raw, want)) in cases.into_iter().enumerate() {
            let got = read(raw);
            assert_eq!(got, vec![(want.to_string(), 1)], "case {i}: {raw:?}");
        }
    }

    #[test]
    fn code_fences_read_as_blank_lines_and_numbers_kept() {
        let got = read("text\n```\nQuery_type\n```text\n> ```\nend\n");
        assert_eq!(
            got,
            [
                ("text", 1),
                ("", 2),
                ("Query_type", 3),
                ("", 4),
                ("", 5),
                ("end", 6)
            ]
            .map(|(t, n)| (t.to_string(), n))
        );
    }

    #[test]
    fn markdown_paragraph_gaps_are_left_out() {
        let page = "/dev/ada0  \n\n\t512\t# sectorsize  \n\n\t0\t# stripesize  \n\n  \n\nSeek times:  \n\n\tFull stroke:  \n\nend\n";
        let numbers: Vec<usize> = Source::new(page).lines().iter().map(|l| l.number).collect();
        assert_eq!(numbers, [1, 3, 5, 7, 9, 11, 12, 13]);
        // Too few to be the page's habit: a mail's empty lines stay.
        let mail = "a  \n\nb  \n";
        assert_eq!(Source::new(mail).lines().len(), 3);
    }

    /// Each cell of an HTML table is a block of its own, a cell's `<br>`
    /// a line break, every line numbered as the source line it came from.
    #[test]
    fn table_cells_are_blocks_of_lines() {
        let page = "<table><tr><td>a: 1<br>b: 2<br></td><td>c: 3</td></tr>\n\
                    <tr><td>\n\
                    d:&nbsp;4<br>\n\
                    </td><td>e<br/>f</td></tr></table>\n\
                    after <b>x</b>\n";
        let got = read(page);
        let want: Vec<(String, usize)> = [
            ("", 1),
            ("a: 1", 1),
            ("b: 2", 1),
            ("", 1),
            ("c: 3", 1),
            ("", 1),
            ("", 2),
            ("d: 4", 3),
            ("", 4),
            ("e", 4),
            ("f", 4),
            ("", 4),
            ("after x", 5),
        ]
        .iter()
        .map(|&(t, n)| (t.to_string(), n))
        .collect();
        assert_eq!(got, want);
        // A line without a table tag keeps its `<br>` as before.
        assert_eq!(split_table_cells("x<br>y"), None);
        assert_eq!(
            split_table_cells("  <tr><td>a</td></tr>").as_deref(),
            Some("\na\n")
        );
        assert_eq!(split_table_cells("</td>").as_deref(), Some(""));
    }

    #[test]
    fn plain_text_is_borrowed() {
        let input = "Query_type num_queries\n[ 10s] tps: 1\n";
        assert!(Source::new(input).rewritten.is_empty());
        assert!(Source::new("").lines().is_empty());
    }
}
