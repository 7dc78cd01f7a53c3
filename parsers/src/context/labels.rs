//! Section labels: banners such as `== ULE + libthr + TSC ==`, markdown
//! headings and labels in prose ([`prose`]), the attributes a label names,
//! and which label is in force on a line.
//!
//! # The rule: labels from structure
//!
//! **The nearest heading above a report, at the report's own quote depth,
//! names it.** Line by line:
//!
//! 1. *Headings and their levels.* A heading is a markdown `##` to
//!    `######` line (levels 2-6); a single `#` (level 1) only standing
//!    alone between blank lines and naming no command, as `#` is also a
//!    root prompt and a shell comment; an AsciiDoc title `== test.86`,
//!    `=== myisam` (its count of `=`) alone between blank lines; an HTML
//!    `<h1>`-`<h6>` line (its digit). Below every level sit a mail's
//!    banner closed by its marks (`== ULE + libthr + TSC ==`,
//!    `** update test **`) and a line bold as a whole (`**Laptop**`,
//!    `__Laptop__`, `<b>`, `<strong>`, a `:` after it allowed). Marks
//!    that undoing markup took off the line are read from the input as
//!    written ([`Markup`]).
//! 2. *Scope.* A heading applies from its line down, at its depth, to
//!    every report under it — several reports share it — until the next
//!    heading of its level or above: a heading further up stops applying
//!    there, and a deeper heading under it takes its place only until
//!    then. A quoted block ending ends the headings inside it.
//! 3. *Repeated headings.* Where the same heading text names sections
//!    under several others (`### CPU` under each machine's `##`), the
//!    heading above it is put in front, joined by ` / `
//!    (`AMD 7900 台式机 / CPU`); a heading met once keeps its own text.
//! 4. *Nearer than a heading: labels in prose*, by the rules of
//!    [`prose`]: a colon lead-in (`host:`, `- MSI Ghost:`), an underlined
//!    line, a lone phrase or list item (`* Developer 1`) right above a
//!    report, and the first line of a `<pre>` block or code fence with a
//!    report starting after it (its caption). Such a label names the run
//!    it attaches to and those right after it — within the block, for a
//!    caption — then the heading in force applies again.
//! 5. A report takes the label in force where its first value is printed
//!    (a heading between its command and its output names it); a label's
//!    own lines and a tool's own headers are never labels, nor is the
//!    mysql client's `*** 1. row ***`.
//! 6. *A run read from far above its report* (a script's `sysbench ...
//!    run` line, an install step's `sysbench --version`, a list item
//!    naming the command): its report begins at the last command line or
//!    block opening before its first value ([`report_start`]), and the
//!    lines above that inside the run are read for labels as prose is:
//!    the lead-in, list item or caption nearest the report names it.
//!    A list item is a lead-in (`- graviton2` over a fenced report), and
//!    the line right above a block whose report starts at its top is its
//!    caption too.

use std::collections::BTreeMap;

use super::prose;
use super::spelling::classify;
use crate::text::{trim_start, Line, LogicalLine};
use crate::Run;

/// A section label line (or lines) such as `== 4BSD + libthr + TSC ==`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SectionLabel {
    /// The text between the marks, its spaces collapsed.
    label: String,
    /// The quote depth of its lines.
    depth: usize,
    /// Index of the label's last line.
    end: usize,
    /// Its level: 1 to 6 for markdown headings (`#` to `######`),
    /// [`BANNER_LEVEL`] for banners and bold lines, which nest under any
    /// heading.
    level: u8,
}

/// The level of a `== banner ==` or `**bold**` line: below every markdown
/// heading, so a bold `**Laptop**` under `## Results` is named by both.
const BANNER_LEVEL: u8 = 7;

/// What joins the headings in force into one label, outermost first
/// (`MacBook Pro 2019 13 英寸 / CPU`).
const PATH_JOIN: &str = " / ";

/// The lines as the input wrote them, for the marks that undoing markup
/// took off (`**Laptop**`, `<h2>Laptop</h2>`, `<pre>`, a code fence) and
/// that say a line is a heading or opens a block. Kept only for an input
/// that holds such a mark: a mail seldom does, and then costs nothing.
#[derive(Debug, Default)]
pub(super) struct Markup<'a> {
    raw: Vec<&'a str>,
}

/// The marks that make [`Markup`] keep the input's lines.
const MARKUP_SIGNS: &[&str] = &[
    "**", "__", "```", "~~~", "<pre", "<PRE", "<b>", "<B>", "<strong", "<STRONG", "<h", "<H",
];

impl<'a> Markup<'a> {
    /// The input's own lines, if it holds any of [`MARKUP_SIGNS`].
    pub(super) fn new(input: &'a str) -> Markup<'a> {
        let raw = if MARKUP_SIGNS.iter().any(|sign| input.contains(sign)) {
            input.split('\n').collect()
        } else {
            Vec::new()
        };
        Markup { raw }
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
        let raw = self.raw(line)?;
        let raw = raw.strip_suffix(':').unwrap_or(raw).trim_end();
        let lower = raw.get(..raw.len().min(8))?.to_ascii_lowercase();
        if let Some(digit) = lower.strip_prefix("<h").and_then(|r| r.bytes().next()) {
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

    /// Whether the input's `line` opens a preformatted block: `<pre>` or a
    /// code fence, which undoing markup left blank.
    fn opens_block(&self, line: &Line<'_>) -> bool {
        self.block_mark(line, &["<pre", "```", "~~~"])
    }

    /// Whether the input's `line` opens or closes a preformatted block.
    fn bounds_block(&self, line: &Line<'_>) -> bool {
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

/// The attributes a label names, in Contract 2's keys and spellings.
/// `ULE + libthr + TSC + context_time.patch` gives scheduler ULE,
/// thread_lib libthr, timer TSC, patches context_time.patch. Parts that fit
/// no key are kept, joined, as `variant`.
pub(super) fn label_attrs(label: &str) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    let mut patches = Vec::new();
    let mut variant = Vec::new();
    for part in label_parts(label) {
        if let Some((key, value)) = classify(part) {
            attrs
                .entry(key.to_string())
                .or_insert_with(|| value.to_string());
            continue;
        }
        if is_patch(part) {
            patches.push(part);
            continue;
        }
        // "ULE libthr": several known words in one part.
        let words: Vec<&str> = part.split_whitespace().collect();
        let known: Vec<Option<(&str, &str)>> = words.iter().map(|w| classify(w)).collect();
        if words.len() > 1 && known.iter().any(Option::is_some) {
            let mut rest = Vec::new();
            for (word, found) in words.iter().zip(known) {
                match found {
                    Some((key, value)) => {
                        attrs
                            .entry(key.to_string())
                            .or_insert_with(|| value.to_string());
                    }
                    None if is_patch(word) => patches.push(word),
                    None => rest.push(*word),
                }
            }
            if !rest.is_empty() {
                variant.push(rest.join(" "));
            }
        } else {
            variant.push(part.to_string());
        }
    }
    if !patches.is_empty() {
        attrs.insert("patches".to_string(), patches.join(","));
    }
    if !variant.is_empty() {
        attrs.insert("variant".to_string(), variant.join(" + "));
    }
    attrs
}

/// A label's parts: split at `+`, `,` and `;`, but a doubled `++` belongs
/// to its word (`bonnie++`, `g++`).
fn label_parts(label: &str) -> impl Iterator<Item = &str> {
    let bytes = label.as_bytes();
    let mut cuts = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        let doubled_plus = b == b'+'
            && (i.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&b'+')
                || bytes.get(i + 1) == Some(&b'+'));
        if matches!(b, b'+' | b',' | b';') && !doubled_plus {
            cuts.push(i);
        }
    }
    let mut start = 0;
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    for cut in cuts.into_iter().chain(std::iter::once(label.len())) {
        parts.push(label[start..cut].trim());
        start = cut + 1;
    }
    parts.into_iter().filter(|p| !p.is_empty())
}

/// A patch file named in a label: `context_time.patch`, `fix.diff`.
fn is_patch(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    [".patch", ".diff"].iter().any(|ext| lower.ends_with(ext)) && !word.contains(' ')
}

/// Where the runs lie, as 0-based line indexes, ordered by first line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    depth: usize,
    /// Where its report begins for the labels around it ([`report_start`]).
    report: usize,
}

/// The runs met so far on a walk down the lines: the rest of them in line
/// order, and how far down the ones begun reach at each depth.
struct RunsBegun {
    spans: Vec<Span>,
    /// Index into `spans` of the first run not begun yet.
    next: usize,
    /// covered[d]: the last line of the runs at depth d begun so far.
    covered: Vec<Option<usize>>,
    /// reports[d]: where the report of the last run begun at depth d
    /// begins.
    reports: Vec<Option<usize>>,
}

impl RunsBegun {
    /// The runs' spans, none begun, each report starting on its first line.
    #[cfg(test)]
    fn new(runs: &[Run]) -> RunsBegun {
        RunsBegun::with_reports(&[], &Markup::default(), runs)
    }

    /// The runs' spans, none begun, with where each one's report begins
    /// in `lines` ([`report_start`]).
    fn with_reports(lines: &[Line<'_>], markup: &Markup<'_>, runs: &[Run]) -> RunsBegun {
        let mut spans: Vec<Span> = runs
            .iter()
            .map(|run| {
                let start = line_index(lines, run.lines[0]);
                Span {
                    start,
                    end: line_index(lines, run.lines[1]),
                    depth: run.quote_depth,
                    report: report_start(lines, markup, run).max(start),
                }
            })
            .collect();
        spans.sort_unstable_by_key(|s| (s.start, s.depth));
        RunsBegun {
            spans,
            next: 0,
            covered: Vec::new(),
            reports: Vec::new(),
        }
    }

    /// Begins the runs that start on or above line `i`.
    fn begin_to(&mut self, i: usize) {
        while let Some(span) = self.spans.get(self.next).filter(|s| s.start <= i) {
            if self.covered.len() <= span.depth {
                self.covered.resize(span.depth + 1, None);
            }
            let end = &mut self.covered[span.depth];
            *end = Some(end.map_or(span.end, |e| e.max(span.end)));
            if self.reports.len() <= span.depth {
                self.reports.resize(span.depth + 1, None);
            }
            let report = &mut self.reports[span.depth];
            *report = Some(report.map_or(span.report, |r| r.max(span.report)));
            self.next += 1;
        }
    }

    /// Whether line `i` lies in a run begun at `depth` above the line its
    /// report begins on (the script or install step it was read from).
    fn before_report(&self, i: usize, depth: usize) -> bool {
        self.reports
            .get(depth)
            .copied()
            .flatten()
            .is_some_and(|report| i < report)
    }

    /// Whether the report of a run at `depth` begins on line `i`: the first
    /// line of a run not begun yet, or the report start of one begun
    /// above it.
    fn report_at(&self, i: usize, depth: usize) -> bool {
        self.starts_at(i, depth) || self.reports.get(depth).copied().flatten() == Some(i)
    }

    /// The last line of the runs begun at `depth`, if any.
    fn covered_until(&self, depth: usize) -> Option<usize> {
        self.covered.get(depth).copied().flatten()
    }

    /// Whether a run not begun yet starts on line `i` at `depth`.
    fn starts_at(&self, i: usize, depth: usize) -> bool {
        self.spans.get(self.next).is_some_and(|s| s.start == i)
            && self.spans[self.next..]
                .iter()
                .take_while(|s| s.start == i)
                .any(|s| s.depth == depth)
    }
}

/// The index in `lines` of the 1-based input line `number`: the line
/// holding it, where undoing quoted-printable soft breaks joined several
/// input lines into one (no line at all: the number less one, as for the
/// runs of a unit test).
pub(super) fn line_index(lines: &[Line<'_>], number: usize) -> usize {
    if lines.is_empty() {
        return number.saturating_sub(1);
    }
    lines
        .partition_point(|line| line.number <= number)
        .saturating_sub(1)
}

/// Where a run's report begins, for the labels around it: the last command
/// line (`[root@db ~]# bash sysbench.sh -r`) or block opening (`<pre>`, a
/// code fence) between its first line and its first value, else its first
/// line. A run read from a command far above its report (a line of a
/// script, an install step's `sysbench --version`, a list item naming the
/// command) holds the author's lead-in or caption for the report
/// (`压力测试:`, `- graviton2`, `<pre>NUC-i7`) between the two: a label
/// there names the run ([`follow_prose`]).
fn report_start(lines: &[Line<'_>], markup: &Markup<'_>, run: &Run) -> usize {
    let start = line_index(lines, run.lines[0]);
    let first_value = run
        .results
        .iter()
        .map(|r| line_index(lines, r.line))
        .min()
        .unwrap_or(start)
        .min(lines.len());
    (start + 1..first_value)
        .rev()
        .find(|&j| {
            let line = &lines[j];
            line.depth == run.quote_depth
                && if line.is_blank() {
                    markup.opens_block(line)
                } else {
                    prose::is_command_line(line.text)
                }
        })
        .unwrap_or(start)
}

/// A label in prose and whether a run has taken it yet.
#[derive(Debug, Clone, Copy)]
struct ProseLabel {
    label: u32,
    depth: usize,
    attached: bool,
}

/// For each line `asked` names (0-based indices, sorted, each once), the
/// label in force at its depth: the prose label attached to the run the
/// line belongs to, else the section banner or heading in force. One pass
/// over the lines; each line costs a look at its first and last bytes
/// unless it has a label's shape. Only the lines asked about keep their
/// answer: a table for every line was 8 bytes a line of fresh memory for
/// the few lines runs ask about.
pub(super) fn active_labels(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    runs: &[Run],
    asked: &[usize],
) -> ActiveLabels {
    let mut runs = RunsBegun::with_reports(lines, markup, runs);
    let mut found = ActiveLabels {
        labels: Vec::new(),
        label_lines: Vec::new(),
        answers: Vec::with_capacity(asked.len()),
    };
    // in_force[d]: the headings in force at depth d, outermost first, as
    // (level, index into `labels` of the path they make down to it).
    let mut in_force: Vec<Vec<(u8, u32)>> = Vec::new();
    // Each heading met, with the one it is under (see qualify_repeated).
    let mut headings: Vec<(u32, Option<u32>)> = Vec::new();
    let mut prose: Option<ProseLabel> = None;
    let mut asked = asked.iter().copied().peekable();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        runs.begin_to(i);
        if !line.is_blank() {
            // Leaving a quoted block ends the labels inside it.
            in_force.truncate(line.depth + 1);
        }
        if in_force.len() <= line.depth {
            in_force.resize(line.depth + 1, Vec::new());
        }
        if let Some(label) = banner_at(lines, i, markup) {
            let stack = &mut in_force[line.depth];
            // A heading closes the ones of its level and below it.
            while stack.last().is_some_and(|&(level, _)| level >= label.level) {
                stack.pop();
            }
            // An empty heading (`####`, a title naming nothing) only ends
            // the ones it closes: the heading above it is in force again.
            if !label.label.is_empty() {
                let index = u32::try_from(found.labels.len()).unwrap_or(u32::MAX);
                headings.push((index, stack.last().map(|&(_, outer)| outer)));
                stack.push((label.level, index));
                found.labels.push(label.label);
                found.label_lines.push(i);
            }
            prose = None;
            // The label's own lines are under no label.
            while let Some(at) = asked.next_if(|&at| at <= label.end) {
                found.answers.push((at, None));
            }
            i = label.end + 1;
            continue;
        }
        let inside_run = runs.covered_until(line.depth).is_some_and(|end| i <= end);
        if line.is_blank() && !inside_run && markup.bounds_block(line) {
            // A block's caption names the runs in that block only: the
            // block ending between runs ends it.
            prose = prose.filter(|p| !(p.attached && p.depth == line.depth));
        }
        if !line.is_blank() {
            let known = found.labels.len();
            prose = follow_prose(lines, markup, i, &runs, prose, &mut found);
            if found.labels.len() > known {
                // A label in prose sits under the heading in force, as a
                // deeper heading would: the same caption under several
                // headings is told apart by them (qualify_repeated).
                let outer = in_force[line.depth].last().map(|&(_, outer)| outer);
                headings.push((u32::try_from(known).unwrap_or(u32::MAX), outer));
            }
        }
        let attached = prose.filter(|p| p.attached && p.depth == line.depth);
        let in_force_here = in_force[line.depth].last().map(|&(_, index)| index);
        let label = attached.map(|p| p.label).or(in_force_here);
        while let Some(at) = asked.next_if(|&at| at <= i) {
            found.answers.push((at, label));
        }
        i += 1;
    }
    qualify_repeated(&mut found.labels, &headings);
    found
}

/// Puts the heading above in front of a heading whose text names several
/// sections of the post (`## MacBook Pro 2019 13 英寸`, `### CPU`, ...,
/// `## AMD 7900 台式机`, `### CPU`): the nearest heading names a report,
/// but only the one above tells those apart (`AMD 7900 台式机 / CPU`). A
/// heading met once keeps its own text (`Disk Information`, not the page
/// title above it). `headings`: (index into `labels`, index of the
/// heading above), in the order met, so an outer heading is qualified
/// before the ones under it.
fn qualify_repeated(labels: &mut [String], headings: &[(u32, Option<u32>)]) {
    let mut met: BTreeMap<&str, usize> = BTreeMap::new();
    for &(index, _) in headings {
        if let Some(text) = labels.get(index as usize) {
            *met.entry(text.as_str()).or_default() += 1;
        }
    }
    let repeated: Vec<bool> = headings
        .iter()
        .map(|&(index, _)| {
            labels.get(index as usize).is_some_and(|text| {
                !text.is_empty() && met.get(text.as_str()).is_some_and(|&n| n > 1)
            })
        })
        .collect();
    for (&(index, outer), repeated) in headings.iter().zip(repeated) {
        let Some(outer) = outer.filter(|_| repeated) else {
            continue;
        };
        if let Some(outer) = labels.get(outer as usize).cloned() {
            if let Some(label) = labels.get_mut(index as usize) {
                *label = format!("{outer}{PATH_JOIN}{label}");
            }
        }
    }
}

/// The section banner or heading starting on line `i`, if one does; most
/// lines are ruled out by their first visible byte.
fn banner_at(lines: &[Line<'_>], i: usize, markup: &Markup<'_>) -> Option<SectionLabel> {
    let line = lines.get(i)?;
    if crate::text::is_page_furniture(line.text) {
        return None;
    }
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

/// The prose label after line `i`, which is not blank and no banner: the
/// label it starts (added to `found`), the one a run inside it takes,
/// the one waiting under a heading, or none.
fn follow_prose(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    i: usize,
    runs: &RunsBegun,
    prose: Option<ProseLabel>,
    found: &mut ActiveLabels,
) -> Option<ProseLabel> {
    let line = &lines[i];
    if prose.is_some_and(|p| !p.attached && p.depth != line.depth && continues_command(lines, i)) {
        // `> --threads=4 \`: a shell's prompt for the rest of a command,
        // read as a quote, keeps the label waiting for the report.
        return prose;
    }
    let mut prose = prose.filter(|p| p.depth == line.depth);
    let covered_until = runs.covered_until(line.depth);
    if covered_until.is_some_and(|end| i <= end) {
        if runs.before_report(i, line.depth) {
            // Above the report of a run read from far above it: a lead-in
            // here waits for the report; other lines leave the label as
            // it is.
            if let Some(label) = prose_label_at(lines, markup, i, runs, None) {
                return Some(new_prose(found, label, i, line.depth));
            }
            return prose;
        }
        if let Some(p) = &mut prose {
            p.attached = true;
        }
        return prose;
    }
    if let Some(label) = prose_label_at(lines, markup, i, runs, covered_until) {
        return Some(new_prose(found, label, i, line.depth));
    }
    match prose {
        // Under a heading it keeps the label waiting; between runs it
        // parts them.
        Some(p) if prose::is_rule(line.text) => Some(p).filter(|p| !p.attached),
        Some(p) if prose::is_tool_progress(line.text) => Some(p).filter(|p| !p.attached),
        Some(_) if !prose::is_command_line(line.text) => None,
        other => other,
    }
}

/// Adds the prose `label` found on line `i` to `found`: a label waiting
/// for its run.
fn new_prose(found: &mut ActiveLabels, label: String, i: usize, depth: usize) -> ProseLabel {
    let index = u32::try_from(found.labels.len()).unwrap_or(u32::MAX);
    found.labels.push(label);
    found.label_lines.push(i);
    ProseLabel {
        label: index,
        depth,
        attached: false,
    }
}

/// Whether line `i` goes on with a command the line above it continued
/// with a trailing `\`.
fn continues_command(lines: &[Line<'_>], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|p| lines.get(p))
        .is_some_and(|above| above.text.trim_end().ends_with('\\'))
}

/// The label in prose line `i` states, outside any run (`covered_until`:
/// where the runs begun at its depth end), by the rules of [`prose`].
fn prose_label_at(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    i: usize,
    runs: &RunsBegun,
    covered_until: Option<usize>,
) -> Option<String> {
    let line = &lines[i];
    // Most lines are prose that cannot be a label: their last byte, and
    // the first bytes of the line below, tell.
    // A block's first line, or the line right above its opening, is its
    // caption: a phrase that may be as long as a colon label (`vfat under
    // Linux (formatted using mkfs.vfat)` over a fence).
    let caption = is_block_caption(lines, markup, i, runs)
        || heads_block_of_run(lines, markup, i, runs)
        || captions_report(lines, i, runs);
    let run_below = runs.report_at(i + 1, line.depth) || caption;
    let rule_below = lines
        .get(i + 1)
        .is_some_and(|next| next.depth == line.depth && prose::is_rule(next.text));
    let lead_in =
        matches!(prose::last_char(line.text), Some(':' | '：')) || prose::is_list_item(line.text);
    let below = (lead_in || run_below || rule_below).then_some(prose::Below {
        run: run_below,
        rule: rule_below,
        caption,
    });
    below
        .filter(|_| {
            let run_ended_above = i.checked_sub(1).is_some_and(|p| covered_until == Some(p));
            !run_ended_above && !continues_sentence(lines, i)
        })
        .filter(|_| !prose::is_command_line(line.text))
        .and_then(|below| prose::label_of(line.text, below))
}

/// Most blank lines a block's caption may have around it.
const CAPTION_GAP: usize = 2;

/// Whether line `i` is a paragraph of its own, one line at its depth,
/// whose next line of text starts a report (at most [`CAPTION_GAP`] blank
/// lines between): the report's caption, as a mail or page titles a
/// table (`2.4.20 + some-driver`, `Second run (without the patch)` over
/// it). Like a block's caption it may be as long as a colon label, but
/// is a phrase ([`prose::label_of`]).
fn captions_report(lines: &[Line<'_>], i: usize, runs: &RunsBegun) -> bool {
    let depth = lines[i].depth;
    let starts_paragraph = i
        .checked_sub(1)
        .and_then(|p| lines.get(p))
        .is_none_or(|above| above.is_blank() || above.depth != depth);
    starts_paragraph
        && (i + 1..=i + 1 + CAPTION_GAP)
            .find(|&j| lines.get(j).is_none_or(|l| !l.is_blank()))
            .is_some_and(|next| runs.report_at(next, depth))
}

/// Whether line `i` is the caption of a preformatted block: the first line
/// of text after `<pre>` or a code fence opening, with a run starting on
/// the next line of text (blank lines allowed either side, as in
/// `<pre>\nNUC-i7\n\n$ sysbench --test=cpu run`). A page that shows one
/// machine per block names it so, as a mail would put a lone phrase right
/// above the report.
fn is_block_caption(lines: &[Line<'_>], markup: &Markup<'_>, i: usize, runs: &RunsBegun) -> bool {
    if markup.raw.is_empty() {
        return false;
    }
    let depth = lines[i].depth;
    let at_depth_not_blank = |j: &usize| lines.get(*j).is_some_and(|l| !l.is_blank());
    // Undoing markup left the opening `<pre>` or fence a blank line: the
    // nearest line the input marked so, with only blank lines between.
    let first_after_open = (i.saturating_sub(CAPTION_GAP + 1)..i)
        .rev()
        .take_while(|&j| lines[j].is_blank())
        .any(|j| lines[j].depth == depth && markup.opens_block(&lines[j]));
    if !first_after_open {
        return false;
    }
    (i + 1..=i + 1 + CAPTION_GAP)
        .find(at_depth_not_blank)
        .is_some_and(|next| {
            (i + 1..next).all(|j| lines[j].is_blank()) && runs.report_at(next, depth)
        })
}

/// Whether line `i` stands right above a preformatted block (`<pre>`, a
/// code fence) whose first line of text starts a run: the caption of the
/// block, as `- graviton2` over a fenced report.
fn heads_block_of_run(lines: &[Line<'_>], markup: &Markup<'_>, i: usize, runs: &RunsBegun) -> bool {
    let depth = lines[i].depth;
    let Some(open) = lines.get(i + 1) else {
        return false;
    };
    if !(open.is_blank() && open.depth == depth && markup.opens_block(open)) {
        return false;
    }
    runs.report_at(i + 1, depth)
        || (i + 2..=i + 2 + CAPTION_GAP)
            .find(|&j| lines.get(j).is_some_and(|l| !l.is_blank()))
            .is_some_and(|next| runs.report_at(next, depth))
}

/// Whether line `i` goes on with a sentence the line above it left open
/// (rule 3 of [`prose`]); a run ending right above is checked by the caller.
fn continues_sentence(lines: &[Line<'_>], i: usize) -> bool {
    let (Some(above), Some(line)) = (i.checked_sub(1).and_then(|p| lines.get(p)), lines.get(i))
    else {
        return false;
    };
    above.depth == line.depth
        && markdown_heading(above.text.trim_start()).is_none()
        && (prose::leaves_sentence_open(prose::last_char(above.text))
            || hyphenated_at_end(above.text))
}

/// Whether a line ends inside a word broken by a hyphen (`...in read-`).
fn hyphenated_at_end(text: &str) -> bool {
    let mut tail = text.trim_end().chars().rev();
    tail.next() == Some('-') && tail.next().is_some_and(char::is_alphabetic)
}

/// The section label in force on the lines asked about, without a copy
/// per line.
pub(super) struct ActiveLabels {
    labels: Vec<String>,
    /// The line (0-based) each of `labels` starts on.
    label_lines: Vec<usize>,
    /// (0-based line, index into `labels`), sorted by line.
    answers: Vec<(usize, Option<u32>)>,
}

impl ActiveLabels {
    /// The label of line `index`, if it was asked about and has one.
    #[cfg(test)]
    fn at(&self, index: usize) -> Option<&str> {
        self.with_line(index).map(|(label, _)| label)
    }

    /// The label of line `index`, if it was asked about and has one, with
    /// the line the label starts on.
    pub(super) fn with_line(&self, index: usize) -> Option<(&str, usize)> {
        let at = self
            .answers
            .binary_search_by_key(&index, |&(line, _)| line)
            .ok()?;
        let label = self.answers.get(at)?.1? as usize;
        // A title that names nothing ends the sections above it only.
        if self.labels.get(label).is_none_or(String::is_empty) {
            return None;
        }
        Some((
            self.labels.get(label)?.as_str(),
            *self.label_lines.get(label)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text;

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn labels_name_attributes() {
        let cases = [
            (
                "4BSD + libpthread + ACPI-Fast",
                attrs(&[
                    ("scheduler", "4BSD"),
                    ("thread_lib", "libpthread"),
                    ("timer", "ACPI-fast"),
                ]),
            ),
            (
                "ULE + libthr + TSC",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("thread_lib", "libthr"),
                    ("timer", "TSC"),
                ]),
            ),
            (
                "ULE + libthr + TSC + context_time.patch + cpu_acct_1.patch + cpu_acct_2.patch",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("thread_lib", "libthr"),
                    ("timer", "TSC"),
                    (
                        "patches",
                        "context_time.patch,cpu_acct_1.patch,cpu_acct_2.patch",
                    ),
                ]),
            ),
            (
                "SCHED_ULE libthr.so.2",
                attrs(&[("scheduler", "ULE"), ("thread_lib", "libthr")]),
            ),
            ("update test", attrs(&[("variant", "update test")])),
            (
                "4 * dualcore opteron",
                attrs(&[("variant", "4 * dualcore opteron")]),
            ),
            (
                "For indication, here is a bonnie++ run as ext4 formatted",
                attrs(&[
                    ("fs", "ext4"),
                    (
                        "variant",
                        "For indication + here is a bonnie++ run as formatted",
                    ),
                ]),
            ),
            (
                "Results with 2.4.32 + libata latest",
                attrs(&[("variant", "Results with 2.4.32 + libata latest")]),
            ),
            (
                "ule jemalloc ZFS big box",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("malloc", "jemalloc"),
                    ("fs", "ZFS"),
                    ("variant", "big box"),
                ]),
            ),
        ];
        for (i, (label, want)) in cases.into_iter().enumerate() {
            assert_eq!(label_attrs(label), want, "case {i}: {label:?}");
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
    fn labels_apply_at_their_depth_until_the_quote_ends() {
        let input = "== A ==\nrun1\n> run2\n> == B ==\n> run3\nrun4\n> run5\n== C ==\nrun6\n";
        let lines = text::lines(input);
        let every_line: Vec<usize> = (0..lines.len()).collect();
        let labels = active_labels(&lines, &Markup::default(), &[], &every_line);
        let want = [
            None,
            Some("A"),
            None,
            None,
            Some("B"),
            Some("A"),
            None,
            None,
            Some("C"),
        ];
        for (i, want) in want.into_iter().enumerate() {
            assert_eq!(labels.at(i), want, "line {}", i + 1);
        }
    }

    #[test]
    fn runs_begun_cover_their_lines_at_their_depth() {
        let run = |lines: [usize; 2], depth: usize| {
            Run::new(crate::Tool::Sysbench, depth, lines, Vec::new())
        };
        // 1-based lines: 0-based spans 2..=4 at depth 0, 3..=3 and 6..=8 at 1.
        let mut runs = RunsBegun::new(&[run([7, 9], 1), run([3, 5], 0), run([4, 4], 1)]);
        assert!(runs.starts_at(2, 0) && !runs.starts_at(2, 1) && !runs.starts_at(3, 1));
        runs.begin_to(1);
        assert_eq!((runs.covered_until(0), runs.covered_until(1)), (None, None));
        runs.begin_to(3);
        assert_eq!(runs.covered_until(0), Some(4));
        assert_eq!(runs.covered_until(1), Some(3));
        // A run begun is no longer one starting.
        assert!(!runs.starts_at(2, 0) && runs.starts_at(6, 1));
        runs.begin_to(6);
        assert_eq!(runs.covered_until(1), Some(8));
        assert_eq!(runs.covered_until(2), None);
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

    #[test]
    fn a_prose_label_waits_for_its_run_and_stays_on_it() {
        // 0: label, 1: run, 2: rule, 3: run, 4: prose ends it.
        let lines = text::lines(
            "Before this change:
run
-----
run
And then it was slow
",
        );
        let runs = RunsBegun::new(&[]);
        let mut found = ActiveLabels {
            labels: Vec::new(),
            label_lines: Vec::new(),
            answers: Vec::new(),
        };
        let waiting = follow_prose(&lines, &Markup::default(), 0, &runs, None, &mut found).unwrap();
        assert_eq!((waiting.label, waiting.attached), (0, false));
        assert_eq!(
            (found.labels.as_slice(), found.label_lines.as_slice()),
            (
                ["Before this change".to_string()].as_slice(),
                [0].as_slice()
            )
        );
        // A rule keeps a waiting label and parts an attached one from the
        // runs after it.
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            2,
            &runs,
            Some(waiting),
            &mut found
        )
        .is_some());
        let attached = ProseLabel {
            attached: true,
            ..waiting
        };
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            2,
            &runs,
            Some(attached),
            &mut found
        )
        .is_none());
        // Prose ends it; so does a line at another depth.
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            4,
            &runs,
            Some(waiting),
            &mut found
        )
        .is_none());
        let deeper = ProseLabel {
            depth: 1,
            ..waiting
        };
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            3,
            &runs,
            Some(deeper),
            &mut found
        )
        .is_none());
        assert_eq!(found.labels.len(), 1);
    }
}
