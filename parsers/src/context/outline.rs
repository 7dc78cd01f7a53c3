//! The post's outline: the headings a text is divided by, read once
//! for every input before labels are given, whatever its markup — mail
//! banners (`== ULE + libthr + TSC ==`, `** update test **`, a title
//! framed by `==` rules), markdown (ATX headings with or without their
//! space, setext underlines), reStructuredText and AsciiDoc titles, HTML
//! `<h1>`-`<h6>` and lines bold as a whole (`**Laptop**`, `<b>`,
//! `<strong>`, BBCode `[b]` once undone) — each with its level, its
//! quote depth and its source lines, and [`Markup`]: the input's own
//! lines, for the marks that undoing markup took off (a `<pre>` or code
//! fence opening a block).
//!
//! The blocks that name a run by standing next to it — captions, list
//! items, lead-ins — depend on where the reports are, and are read by
//! [`labels`](super::labels) and [`prose`] once the tool readers have
//! found them; the rule that picks one label for a run over the outline
//! is written out in [`labels`](super::labels).

use super::prose;
use crate::text::{trim_start, Line, LogicalLine};
use crate::LabelKind;

/// Headings met on a walk down the lines, in line order: a heading's own
/// lines hold no other.
pub(super) struct Outline {
    /// (index of its first line, heading).
    headings: Vec<(usize, SectionLabel)>,
}

impl Outline {
    /// Reads the headings of `lines` once.
    pub(super) fn read(lines: &[Line<'_>], markup: &Markup<'_>) -> Outline {
        let mut headings = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            match banner_at(lines, i, markup) {
                Some(heading) => {
                    let start = i;
                    i = heading.end + 1;
                    headings.push((start, heading));
                }
                None => i += 1,
            }
        }
        Outline { headings }
    }

    /// The headings with the index of their first line, in line order.
    pub(super) fn headings(&self) -> &[(usize, SectionLabel)] {
        &self.headings
    }
}

/// A section label line (or lines) such as `== 4BSD + libthr + TSC ==`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SectionLabel {
    /// The text between the marks, its spaces collapsed.
    pub(super) label: String,
    /// The quote depth of its lines.
    pub(super) depth: usize,
    /// Index of the label's last line.
    pub(super) end: usize,
    /// Its level: 1 to 6 for markdown headings (`#` to `######`),
    /// [`BANNER_LEVEL`] for banners and bold lines, which nest under any
    /// heading.
    pub(super) level: u8,
}

impl SectionLabel {
    /// What kind of block it is, as a run's label source says.
    pub(super) fn kind(&self) -> LabelKind {
        if self.level >= BANNER_LEVEL {
            LabelKind::Banner
        } else {
            LabelKind::Heading
        }
    }
}

/// The level of a `== banner ==` or `**bold**` line: below every markdown
/// heading, so a bold `**Laptop**` under `## Results` is named by both.
const BANNER_LEVEL: u8 = 7;

/// The lines as the input wrote them, for the marks that undoing markup
/// took off (`**Laptop**`, `<h2>Laptop</h2>`, `<pre>`, a code fence) and
/// that say a line is a heading or opens a block. Kept only for an input
/// that holds such a mark: a mail seldom does, and then costs nothing.
#[derive(Debug, Default)]
pub(super) struct Markup<'a> {
    pub(super) raw: Vec<&'a str>,
}

/// The marks that make [`Markup`] keep the input's lines.
const MARKUP_SIGNS: &[&str] = &[
    "**", "__", "```", "~~~", "<pre", "<PRE", "<b>", "<B>", "<strong", "<STRONG", "<h", "<H",
];

/// Whether `input` holds any of [`MARKUP_SIGNS`]: one look for the signs'
/// first bytes over the text (most mails hold none), not a search for
/// each sign.
fn holds_markup_sign(input: &[u8]) -> bool {
    let sign_at = |at: usize| {
        MARKUP_SIGNS
            .iter()
            .any(|sign| input[at..].starts_with(sign.as_bytes()))
    };
    memchr::memchr3_iter(b'*', b'_', b'<', input).any(sign_at)
        || memchr::memchr2_iter(b'`', b'~', input).any(sign_at)
}

impl<'a> Markup<'a> {
    /// The input's own lines `raw` (`input.split('\n')`, as
    /// [`crate::text::Source::raw_lines`] gives them), if it holds any of
    /// [`MARKUP_SIGNS`].
    pub(super) fn from_raw(input: &'a str, raw: Vec<&'a str>) -> Markup<'a> {
        if holds_markup_sign(input.as_bytes()) {
            Markup { raw }
        } else {
            Markup { raw: Vec::new() }
        }
    }

    /// The input's own text of `line`, quote marks and outer white space
    /// off.
    fn raw(&self, line: &Line<'_>) -> Option<&'a str> {
        let raw = self.raw.get(line.number.checked_sub(1)?)?;
        Some(raw.trim_start_matches(['>', ' ', '\t']).trim_end())
    }

    /// The level of a line the input marked as a heading whole: `<h2>` to
    /// `<h6>` by their digit, a bold line (`**Laptop**`, `__Laptop__`,
    /// `<b>Laptop</b>`, `<strong>…</strong>`, a `:` after it allowed) at
    /// [`BANNER_LEVEL`].
    fn heading_level(&self, line: &Line<'_>) -> Option<u8> {
        // Every mark below starts with one of these: the first byte rules
        // out most lines, before the line is trimmed at its end.
        let raw = self
            .raw
            .get(line.number.checked_sub(1)?)?
            .trim_start_matches(['>', ' ', '\t']);
        if !matches!(raw.as_bytes().first(), Some(b'<' | b'*' | b'_')) {
            return None;
        }
        // As [`Markup::raw`] gives it.
        let raw = raw.trim_end();
        let raw = raw.strip_suffix(':').unwrap_or(raw).trim_end();
        // The first bytes, read in any case without a copy (this runs on
        // every line of an input that holds markup).
        let head = raw.get(..raw.len().min(8))?.as_bytes();
        let html_heading = head.get(..2).is_some_and(|h| h.eq_ignore_ascii_case(b"<h"));
        if let Some(&digit) = head.get(2).filter(|_| html_heading) {
            let level = digit.checked_sub(b'0').filter(|l| (1..=6).contains(l))?;
            let close = format!("</h{level}>");
            let closed = raw.len() >= close.len()
                && raw[raw.len() - close.len()..].eq_ignore_ascii_case(&close);
            return closed.then_some(level);
        }
        let wrapped = |open: &str, close: &str| {
            raw.len() > open.len() + close.len()
                && raw
                    .get(..open.len())
                    .is_some_and(|o| o.eq_ignore_ascii_case(open))
                && raw
                    .get(raw.len() - close.len()..)
                    .is_some_and(|c| c.eq_ignore_ascii_case(close))
                && !raw[open.len()..raw.len() - close.len()].contains(open)
        };
        let bold = wrapped("**", "**")
            || wrapped("__", "__")
            || wrapped("<b>", "</b>")
            || wrapped("<strong>", "</strong>");
        bold.then_some(BANNER_LEVEL)
    }

    /// Whether the input wrote `line` as code of its own, in backticks
    /// (`` `brew install sysbench` ``): a command shown, not a caption.
    pub(super) fn is_inline_code(&self, line: &Line<'_>) -> bool {
        self.raw(line).is_some_and(|raw| {
            raw.len() > 2 && raw.starts_with('`') && raw.ends_with('`') && !raw.starts_with("```")
        })
    }

    /// Whether the input's `line` opens a preformatted block: `<pre>` or a
    /// code fence, which undoing markup left blank.
    pub(super) fn opens_block(&self, line: &Line<'_>) -> bool {
        self.block_mark(line, &["<pre", "```", "~~~"])
    }

    /// Whether the input's `line` opens or closes a preformatted block.
    pub(super) fn bounds_block(&self, line: &Line<'_>) -> bool {
        self.block_mark(line, &["<pre", "</pre", "```", "~~~"])
    }

    /// Whether the input's `line` starts with one of `marks` (in any case).
    fn block_mark(&self, line: &Line<'_>, marks: &[&str]) -> bool {
        if self.raw.is_empty() {
            return false;
        }
        self.raw(line).is_some_and(|raw| {
            marks.iter().any(|mark| {
                raw.get(..mark.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(mark))
            })
        })
    }
}

/// How many lines a wrapped section label may span.
const MAX_LABEL_LINES: usize = 3;
const MAX_LABEL_LEN: usize = 200;

/// Reads a section label starting at `lines[start]`: text between `==`
/// (or `**`) marks, wrapped over up to three lines at the same depth.
fn section_label(lines: &[Line<'_>], start: usize) -> Option<SectionLabel> {
    let first = lines.get(start)?;
    let open = first.text.trim_start();
    let lone = || {
        let blank_or_none = |i: Option<usize>| {
            i.and_then(|i| lines.get(i))
                .is_none_or(|l| l.is_blank() || l.depth != first.depth)
        };
        blank_or_none(start.checked_sub(1)) && blank_or_none(Some(start + 1))
    };
    // `####` alone: an empty heading, which names nothing but ends the
    // sections of its level and below (`#` alone is a prompt).
    let marks = open.trim_end();
    if (2..=6).contains(&marks.len()) && marks.bytes().all(|b| b == b'#') && lone() {
        return Some(SectionLabel {
            label: String::new(),
            depth: first.depth,
            end: start,
            level: u8::try_from(marks.len()).unwrap_or(BANNER_LEVEL),
        });
    }
    // Indented four columns or more, a `#` line is a code block's root
    // prompt (rst's `.. code:: screen`, markdown's indented code), never
    // a heading: CommonMark allows a heading three spaces at most.
    let indented = indent_columns(first.text) >= CODE_INDENT;
    if let Some(heading) = markdown_heading(open).filter(|_| !indented) {
        let MarkdownHeading {
            level,
            label,
            tight,
        } = heading;
        // A single `#` is also a root prompt or a shell comment, and a
        // heading written without its space (`##Second run`, `#local`)
        // may be a preprocessor line or a comment: either is a heading
        // only standing alone between blank lines, naming no command
        // (`# CPU`, not `# sysbench --test=cpu run`).
        let heading = (level > 1 && !tight) || (lone() && !prose::is_command_line(&label));
        // A post's byline (`### Post by jsowoc on 2008-12-17`, as forum
        // and list archives set each message apart) names the poster, not
        // a run: it ends the sections of its level and names nothing.
        let label = if is_byline(&label) {
            String::new()
        } else {
            label
        };
        return heading.then_some(SectionLabel {
            label,
            depth: first.depth,
            end: start,
            level,
        });
    }
    let mark = ["==", "**"].into_iter().find(|m| open.starts_with(m))?;
    if let Some(framed) = framed_title(lines, start) {
        return Some(framed);
    }
    let mut end = start;
    while !closes(lines[end].text, mark) {
        end += 1;
        let next = lines.get(end);
        let open_ended = next.is_none_or(|next| {
            end - start >= MAX_LABEL_LINES || next.depth != first.depth || next.is_blank()
        });
        if open_ended {
            return (mark == "==")
                .then(|| asciidoc_title(lines, start))
                .flatten();
        }
    }
    let joined = LogicalLine::join(&lines[start..=end], " ");
    let marks: &[char] = if mark == "==" { &['='] } else { &['*'] };
    let inner = joined
        .text
        .trim()
        .trim_end_matches(':')
        .trim_matches(marks)
        .trim();
    let valid = !inner.is_empty()
        && inner.len() <= MAX_LABEL_LEN
        && !inner.contains(marks[0])
        && inner.chars().any(char::is_alphanumeric)
        && !is_row_separator(inner);
    valid.then(|| SectionLabel {
        label: inner.split_whitespace().collect::<Vec<_>>().join(" "),
        depth: first.depth,
        end,
        level: BANNER_LEVEL,
    })
}

/// The mysql client's separator of rows printed vertically (`\G`):
/// `*************************** 1. row ***************************` is
/// the client's line, no banner.
fn is_row_separator(inner: &str) -> bool {
    inner
        .strip_suffix("row")
        .and_then(|n| n.trim_end().strip_suffix('.'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// How a heading that is a post's byline starts, as archives of forums
/// and lists title each message (`Post by NAME on DATE`, `Re: subject`).
const BYLINE_STARTS: &[&str] = &[
    "post by ",
    "posted by ",
    "reply by ",
    "comment by ",
    "answer by ",
    "re: ",
];

/// Whether a heading's text is a post's byline ([`BYLINE_STARTS`]).
fn is_byline(label: &str) -> bool {
    let head = label.get(..12).unwrap_or(label).to_ascii_lowercase();
    BYLINE_STARTS.iter().any(|start| head.starts_with(start))
}

/// Columns of indentation a line must have to be code, not a heading.
const CODE_INDENT: usize = 4;

/// The columns of white space `text` starts with, a tab to the next stop
/// of four.
fn indent_columns(text: &str) -> usize {
    let mut columns = 0;
    for b in text.bytes() {
        match b {
            b' ' => columns += 1,
            b'\t' => columns += CODE_INDENT - columns % CODE_INDENT,
            _ => break,
        }
    }
    columns
}

/// A title framed by two rules of `=` at the same depth, `==` over and
/// under it, as a mail sets a case apart (`==` / `Without 6a3afb6ac6
/// (\"jbd2: ...\")` / `==`).
fn framed_title(lines: &[Line<'_>], start: usize) -> Option<SectionLabel> {
    let first = lines.get(start)?;
    let rule = |l: &Line<'_>| {
        let t = l.text.trim();
        l.depth == first.depth && t.len() >= 2 && t.bytes().all(|b| b == b'=')
    };
    let (title, under) = (lines.get(start + 1)?, lines.get(start + 2)?);
    let text = title.text.trim();
    let valid = rule(first)
        && rule(under)
        && title.depth == first.depth
        && !text.is_empty()
        && text.len() <= MAX_LABEL_LEN
        && !text.starts_with('=')
        // `TEST NAME      [ RESULT ] TIME (ms)` between rules heads a table.
        && !text.contains("   ")
        && text.chars().any(char::is_alphanumeric);
    valid.then(|| SectionLabel {
        label: text.split_whitespace().collect::<Vec<_>>().join(" "),
        depth: first.depth,
        end: start + 2,
        level: BANNER_LEVEL,
    })
}

/// A markdown heading of level 1 to 6 and what it says.
struct MarkdownHeading {
    level: u8,
    label: String,
    /// Written without the space after its marks (`##Second run`,
    /// `#local`), as many write markdown by hand: a heading only where
    /// it stands alone ([`section_label`]).
    tight: bool,
}

/// Words that follow a `#` in C and in shell scripts: `#include`,
/// `#!/bin/sh` are no headings written without their space.
const HASH_DIRECTIVES: &[&str] = &[
    "include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "pragma",
    "error", "warning", "line", "import",
];

/// A markdown heading of level 1 to 6 (`## Resource Overload w/ Atropos`)
/// and its level, as write-ups on the web title the runs under them. A
/// single `#` is also a root shell prompt (`# sysbench ... run`), and a
/// heading without its space (`##Second run`) a comment or directive:
/// the caller decides ([`section_label`]).
fn markdown_heading(text: &str) -> Option<MarkdownHeading> {
    let hashes = text.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let after = &text[hashes..];
    let tight = !after.starts_with([' ', '\t']);
    if tight {
        let word: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_lowercase();
        let directive = HASH_DIRECTIVES.contains(&word.as_str());
        if directive || !after.starts_with(char::is_alphabetic) {
            return None;
        }
    }
    // A colon after a heading (`### sysbench samples:`) is no part of it.
    let inner = after
        .trim()
        .trim_end_matches('#')
        .trim()
        .trim_end_matches([':', '：'])
        .trim_end();
    let valid = !inner.is_empty()
        && inner.len() <= MAX_LABEL_LEN
        && inner.chars().any(char::is_alphanumeric);
    let level = u8::try_from(hashes).ok()?;
    valid.then(|| MarkdownHeading {
        level,
        label: inner.split_whitespace().collect::<Vec<_>>().join(" "),
        tight,
    })
}

/// Whether `text` has a markdown heading's shape (`## CPU`), wherever
/// it stands.
pub(super) fn is_markdown_heading(text: &str) -> bool {
    markdown_heading(text).is_some()
}

/// An AsciiDoc section title (`== test.86`, `=== myisam`: two to six
/// `=`, a space, no closing marks) standing alone between blank lines, its
/// level the number of `=`. A mail's banner is closed (`== ULE ==`); one
/// left open is a title only so alone, not `==> log <==` or a wrapped
/// banner's first line.
fn asciidoc_title(lines: &[Line<'_>], start: usize) -> Option<SectionLabel> {
    let first = lines.get(start)?;
    let open = first.text.trim();
    let marks = open.bytes().take_while(|&b| b == b'=').count();
    let inner = open[marks..].strip_prefix(' ')?.trim();
    let alone = |i: Option<usize>| {
        i.and_then(|i| lines.get(i))
            .is_none_or(|l| l.is_blank() || l.depth != first.depth)
    };
    let valid = (2..=6).contains(&marks)
        && !inner.is_empty()
        && inner.len() <= MAX_LABEL_LEN
        && !inner.contains('=')
        && inner.chars().next().is_some_and(char::is_alphanumeric)
        && alone(start.checked_sub(1))
        && alone(Some(start + 1))
        && !prose::is_command_line(inner);
    valid.then(|| SectionLabel {
        label: inner.split_whitespace().collect::<Vec<_>>().join(" "),
        depth: first.depth,
        end: start,
        level: u8::try_from(marks).unwrap_or(BANNER_LEVEL),
    })
}

/// Whether `text` ends a label opened with `mark` (`== ... ==`).
fn closes(text: &str, mark: &str) -> bool {
    let text = text.trim_end().trim_end_matches(':');
    text.ends_with(mark) && text.trim().len() > mark.len()
}

/// The section banner or heading starting on line `i`, if one does; most
/// lines are ruled out by their first visible byte. A book's running head
/// or foot ([`is_page_furniture`](crate::text::is_page_furniture)) is
/// none, checked only on a line that has a heading's shape.
fn banner_at(lines: &[Line<'_>], i: usize, markup: &Markup<'_>) -> Option<SectionLabel> {
    heading_shape_at(lines, i, markup).filter(|_| !crate::text::is_page_furniture(lines[i].text))
}

/// [`banner_at`] without the page furniture test.
fn heading_shape_at(lines: &[Line<'_>], i: usize, markup: &Markup<'_>) -> Option<SectionLabel> {
    let line = lines.get(i)?;
    let opens_label = matches!(
        trim_start(line.text).as_bytes().first(),
        Some(b'=' | b'*' | b'#')
    );
    if opens_label {
        if let Some(label) = section_label(lines, i) {
            return Some(label);
        }
    }
    if let Some(label) = setext_heading(lines, i) {
        return Some(label);
    }
    if let Some(label) = underlined_title(lines, i) {
        return Some(label);
    }
    marked_heading(line, i, markup)
}

/// The characters that underline a reStructuredText section title below
/// its top levels, by level (sphinx and the FreeBSD Handbook's rst
/// export: `~` for a section's subsections, `^` below). A title over
/// `=====` or `-----` is how a mail draws a heading too, and reads as a
/// label in prose ([`prose`]) right above its report only: a mail's
/// `Observations` over dashes names no run further down.
const UNDERLINES: [u8; 2] = [b'~', b'^'];

/// Level of a title over the first of [`UNDERLINES`]: under `==` and `--`
/// titles, as in the documents that use them.
const FIRST_UNDERLINE_LEVEL: usize = 3;

/// A title underlined on the next line as long as the title or longer
/// (`19.3.3. Creating a Mirror` over `~~~~~~~~~~~~~~~~~~~~~~~~~`),
/// standing after a blank line: a reStructuredText section title, a
/// heading whose scope runs down to the next of its level.
fn underlined_title(lines: &[Line<'_>], i: usize) -> Option<SectionLabel> {
    let under = lines.get(i + 1)?;
    let mark = *trim_start(under.text).as_bytes().first()?;
    let rank = UNDERLINES.iter().position(|&m| m == mark)?;
    let line = &lines[i];
    let title = line.text.trim();
    let rule = under.text.trim();
    let after_blank = i
        .checked_sub(1)
        .and_then(|above| lines.get(above))
        .is_none_or(|above| above.is_blank() || above.depth != line.depth);
    let valid = under.depth == line.depth
        && after_blank
        && indent_columns(line.text) < CODE_INDENT
        && rule.len() >= 3
        && rule.bytes().all(|b| b == mark)
        && rule.len() >= title.chars().count()
        && title.len() <= prose::MAX_LINE
        && title.chars().any(char::is_alphanumeric)
        && !title.starts_with(char::from(mark))
        && !prose::is_command_line(title);
    valid.then(|| SectionLabel {
        label: title.split_whitespace().collect::<Vec<_>>().join(" "),
        depth: line.depth,
        end: i + 1,
        level: u8::try_from(rank + FIRST_UNDERLINE_LEVEL).unwrap_or(BANNER_LEVEL),
    })
}

/// A line underlined by a rule (`CPU BENCHMARKS` over `-----`, a title
/// over `=====`), standing after a blank line: a heading of level 1 (`=`)
/// or 2 (`-`), as markdown reads it, when its text has a label's shape.
fn setext_heading(lines: &[Line<'_>], i: usize) -> Option<SectionLabel> {
    let line = lines.get(i)?;
    let under = lines.get(i + 1)?;
    let mark = *trim_start(under.text).as_bytes().first()?;
    if !matches!(mark, b'-' | b'=') || under.depth != line.depth || !prose::is_rule(under.text) {
        return None;
    }
    let starts_block = |p: Option<usize>| {
        p.and_then(|p| lines.get(p))
            .is_none_or(|above| above.is_blank() || above.depth != line.depth)
    };
    // `------` / `Bonnie` / `------`: a title drawn over and under.
    let overlined = i
        .checked_sub(1)
        .and_then(|p| lines.get(p))
        .is_some_and(|above| above.depth == line.depth && above.text.trim() == under.text.trim())
        && starts_block(i.checked_sub(2));
    let standalone = starts_block(i.checked_sub(1)) || overlined;
    // A command, or a table's header laid out in columns (`TEST NAME
    // [ RESULT ] TIME (ms)` between rules), is no title; a tool's name
    // alone (`Bonnie`) may be.
    let text = line.text.trim();
    let command = prose::is_command_line(text) && text.split_whitespace().nth(1).is_some();
    if !standalone || line.is_blank() || prose::is_rule(text) || command || text.contains("   ") {
        return None;
    }
    let below = prose::Below {
        rule: true,
        ..prose::Below::default()
    };
    // A title that names nothing (`Bonnie`, `Results`) still ends the
    // section above it; it names no run.
    let label = prose::label_of(line.text, below).or_else(|| {
        let text = line.text.trim();
        (text.len() <= prose::MAX_LONE_LEN
            && text.split_whitespace().count() <= prose::MAX_LONE_WORDS
            && text.chars().all(|c| c.is_alphanumeric() || c == ' '))
        .then(String::new)
    })?;
    Some(SectionLabel {
        label,
        depth: line.depth,
        end: i + 1,
        level: if mark == b'=' { 1 } else { 2 },
    })
}

/// A heading the input marked and undoing markup took the marks off:
/// `<h3>MSI Ghost</h3>`, `**Laptop**`, `<b>Developer 1</b>`, its text as
/// it reads now.
fn marked_heading(line: &Line<'_>, i: usize, markup: &Markup<'_>) -> Option<SectionLabel> {
    if markup.raw.is_empty() || line.is_blank() {
        return None;
    }
    let level = markup.heading_level(line)?;
    let text = line.text.trim();
    let text = text.strip_suffix(':').unwrap_or(text).trim();
    // Undoing markup leaves heading tags (`<h3>…</h3>`) in place.
    let text = match (text.find('>'), text.rfind("</")) {
        (Some(open), Some(close)) if text.starts_with('<') && open < close => {
            text[open + 1..close].trim()
        }
        _ => text,
    };
    let valid = text.len() <= MAX_LABEL_LEN
        && text.chars().any(char::is_alphanumeric)
        && !prose::is_command_line(text);
    valid.then(|| SectionLabel {
        label: text.split_whitespace().collect::<Vec<_>>().join(" "),
        depth: line.depth,
        end: i,
        level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text;

    #[test]
    fn a_markup_sign_is_found_wherever_it_stands_and_only_then() {
        let naive = |input: &str| MARKUP_SIGNS.iter().any(|sign| input.contains(sign));
        let mut inputs = vec![
            String::new(),
            "plain mail, a_b c*d <me@example.org> ~ ` end".to_owned(),
            "select_key 12.3\n<p>para</p>\n~~ almost".to_owned(),
        ];
        for sign in MARKUP_SIGNS {
            inputs.push((*sign).to_owned());
            inputs.push(format!("some text, then {sign} at the end"));
            inputs.push(format!("{}{sign}", "_<*~`".repeat(50)));
        }
        for input in &inputs {
            assert_eq!(
                holds_markup_sign(input.as_bytes()),
                naive(input),
                "{input:?}"
            );
        }
    }

    #[test]
    fn section_labels_single_wrapped_and_not() {
        let input = "== ULE + libthr + TSC ==\n== ULE + libthr +\ncpu_acct_2.patch ==\n** update test **\n== 4 * dualcore opteron ==:\n==\n== a\nb\nc\nd ==\n=== ===\n";
        let lines = text::lines(input);
        let got: Vec<Option<String>> = (0..lines.len())
            .map(|i| section_label(&lines, i).map(|l| l.label))
            .collect();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(got[0], some("ULE + libthr + TSC"));
        assert_eq!(got[1], some("ULE + libthr + cpu_acct_2.patch"));
        assert_eq!(section_label(&lines, 1).unwrap().end, 2);
        assert_eq!(got[3], some("update test"));
        assert_eq!(got[4], some("4 * dualcore opteron"));
        assert_eq!(got[5], None, "bare ==");
        assert_eq!(got[6], None, "label not closed within three lines");
        assert_eq!(got[10], None, "no text inside");
    }

    #[test]
    fn markdown_headings_of_level_two_to_six_are_labels() {
        let cases = [
            (
                "## Resource Overload w/ Atropos",
                Some("Resource Overload w/ Atropos"),
            ),
            ("### CPU 성능 측정 ###", Some("CPU 성능 측정")),
            ("###### deep", Some("deep")),
            ("# sysbench cpu run", None),
            ("####### seven", None),
            ("##Second run", Some("Second run")),
            ("#local", Some("local")),
            ("#include <stdio.h>", None),
            ("#!/bin/sh", None),
            ("##2", None),
            ("## ##", None),
        ];
        for (i, (text, want)) in cases.iter().enumerate() {
            let lines = text::lines(text);
            let got = section_label(&lines, 0).map(|l| l.label);
            assert_eq!(got.as_deref(), *want, "case {i}");
        }
        // Without its space a heading stands alone: in a paragraph it is a
        // comment or a directive.
        let lines = text::lines("make it so\n##not a heading\nthen run");
        assert_eq!(section_label(&lines, 1), None);
    }

    #[test]
    fn banners_start_with_their_marks() {
        let lines = text::lines(
            "== A ==
  ** B **
## C
D ==
",
        );
        let got: Vec<Option<String>> = (0..5)
            .map(|i| banner_at(&lines, i, &Markup::default()).map(|l| l.label))
            .collect();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(got, [some("A"), some("B"), some("C"), None, None]);
    }
}
