//! Where prose states a label: the rules of [`super::prose`] asked of
//! one line, after a few bytes have ruled most lines out.

use super::{prose, RunsBegun};
use crate::context::outline::{is_markdown_heading, Markup};
use crate::text::Line;

/// The label in prose line `i` states, outside any run (`covered_until`:
/// where the runs begun at its depth end), by the rules of [`prose`].
///
/// Most lines are prose that cannot be a label, and a few bytes tell
/// ([`may_state_label`]): only the others are read in full.
#[inline]
pub(super) fn prose_label_at(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    i: usize,
    runs: &RunsBegun,
    covered_until: Option<usize>,
) -> Option<String> {
    if !may_state_label(lines, i, runs) {
        return None;
    }
    read_prose_label(lines, markup, i, runs, covered_until)
}

/// Whether line `i` (in `lines`, not blank) may state a label, by what
/// every label needs (see [`read_prose_label`]): a lead-in's last byte
/// (`:`, or the last byte of `：`) or a list item's first (`-`, `*`, a
/// digit, or a byte of a character past ASCII such as `•`); else a rule
/// under it at its depth, or a report beginning at most
/// [`CAPTION_GAP`] + 2 lines below it (the farthest a caption's report
/// may be, [`heads_block_of_run`]) with the line right under it, or a
/// blank line above or below it (or another depth above it), as a
/// caption has. A line of prose with no report close under it, as most
/// lines are, is ruled out on a few bytes.
#[inline]
fn may_state_label(lines: &[Line<'_>], i: usize, runs: &RunsBegun) -> bool {
    let Some(line) = lines.get(i) else {
        return false;
    };
    if may_lead_in(line.text) {
        return true;
    }
    let below = lines.get(i + 1);
    if below.is_some_and(|below| below.depth == line.depth && prose::is_rule(below.text)) {
        return true;
    }
    runs.report_may_begin(i + 1, i + 2 + CAPTION_GAP)
        && (i == 0
            || lines[i - 1].depth != line.depth
            || lines[i - 1].is_blank()
            || below.is_some_and(Line::is_blank)
            || runs.report_at(i + 1, line.depth))
}

/// Whether `text` may be a lead-in or a list item, on its last and first
/// bytes not white space: a lead-in's `:` (or the last byte of `：`), a
/// list item's `-`, `*`, digit, or a byte of a character past ASCII such
/// as `•`.
#[inline]
pub(super) fn may_lead_in(text: &str) -> bool {
    let bytes = text.as_bytes();
    // `char::is_whitespace`'s ASCII bytes: what `str::trim` takes off.
    let space = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
    let last = bytes.iter().rev().find(|b| !space(b));
    let first = bytes.iter().find(|b| !space(b));
    matches!(last, Some(b':' | 0x9A))
        || first.is_some_and(|&b| matches!(b, b'-' | b'*' | b'0'..=b'9') || !b.is_ascii())
}

/// [`prose_label_at`] for a line [`may_state_label`] did not rule out.
/// Kept out of line: the few lines read in full should not make the
/// caller's loop over every line carry this function's registers.
#[inline(never)]
fn read_prose_label(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    i: usize,
    runs: &RunsBegun,
    covered_until: Option<usize>,
) -> Option<String> {
    let line = &lines[i];
    // A block's first line, or the line right above its opening, is its
    // caption: a phrase that may be as long as a colon label (`vfat under
    // Linux (formatted using mkfs.vfat)` over a fence).
    // Each caption has a blank line (or a change of depth) right above
    // or below it: a line inside a paragraph, as most are, is none.
    let inside_paragraph = i
        .checked_sub(1)
        .and_then(|p| lines.get(p))
        .is_some_and(|above| !above.is_blank() && above.depth == line.depth)
        && lines.get(i + 1).is_none_or(|below| !below.is_blank());
    let caption = !inside_paragraph
        && (is_block_caption(lines, markup, i, runs)
            || heads_block_of_run(lines, markup, i, runs)
            || captions_report(lines, i, runs));
    let adjacent = runs.report_at(i + 1, line.depth);
    let run_below = adjacent || caption;
    let rule_below = lines
        .get(i + 1)
        .is_some_and(|next| next.depth == line.depth && prose::is_rule(next.text));
    let lead_in =
        matches!(prose::last_char(line.text), Some(':' | '：')) || prose::is_list_item(line.text);
    let below = (lead_in || run_below || rule_below).then_some(prose::Below {
        run: run_below,
        rule: rule_below,
        caption,
        adjacent,
    });
    below
        .filter(|_| {
            let run_ended_above = i.checked_sub(1).is_some_and(|p| covered_until == Some(p));
            !run_ended_above && !continues_sentence(lines, i)
        })
        .filter(|_| !prose::is_command_line(line.text) && !markup.is_inline_code(line))
        .and_then(|below| prose::label_of(line.text, below))
}

/// Most blank lines a block's caption may have around it.
pub(super) const CAPTION_GAP: usize = 2;

/// Whether line `i` is a paragraph of its own, one line at its depth,
/// whose next line of text starts a report (at most [`CAPTION_GAP`] blank
/// lines between): the report's caption, as a mail or page titles a
/// table (`2.4.20 + some-driver`, `Second run (without the patch)` over
/// it), the report quoted or not ([`enter_quote`]). Like a block's
/// caption it may be as long as a colon label, but is a phrase
/// ([`prose::label_of`]).
fn captions_report(lines: &[Line<'_>], i: usize, runs: &RunsBegun) -> bool {
    let depth = lines[i].depth;
    let starts_paragraph = i
        .checked_sub(1)
        .and_then(|p| lines.get(p))
        .is_none_or(|above| above.is_blank() || above.depth != depth);
    starts_paragraph
        && (i + 1..=i + 1 + CAPTION_GAP)
            .find(|&j| lines.get(j).is_none_or(|l| !l.is_blank()))
            .and_then(|next| Some((next, lines.get(next)?.depth)))
            .is_some_and(|(next, below)| below >= depth && runs.report_at(next, below))
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
        && !is_markdown_heading(above.text.trim_start())
        && (prose::leaves_sentence_open(prose::last_char(above.text))
            || hyphenated_at_end(above.text))
}

/// Whether a line ends inside a word broken by a hyphen (`...in read-`).
fn hyphenated_at_end(text: &str) -> bool {
    let mut tail = text.trim_end().chars().rev();
    tail.next() == Some('-') && tail.next().is_some_and(char::is_alphabetic)
}
