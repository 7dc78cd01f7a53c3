//! One data row's column layout: the name and size in front, then the
//! figures placed into bonnie++'s fixed columns by where they end.

use crate::text::Line;

use super::{Row, RowKind};
use crate::bonnie::{cell, is_size};

/// A whitespace-separated word and the columns it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token<'a> {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: &'a str,
}

pub(super) fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut found = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c == ' ' || c == '\t', start) {
            (true, Some(s)) => {
                found.push(Token {
                    start: s,
                    end: i,
                    text: &text[s..i],
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        found.push(Token {
            start: s,
            end: text.len(),
            text: &text[s..],
        });
    }
    found
}

/// A size as a bare number (`5000` under `MB`, `1` under `GB`).
fn is_bare_size(token: &str) -> bool {
    !token.is_empty() && token.len() <= 9 && token.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn is_files_spec(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_digit())
        && token.split([':', '/']).all(|part| {
            part.is_empty()
                || part.bytes().all(|b| b.is_ascii_digit())
                || ["link", "symlink"].contains(&part)
                || (part.ends_with(['k', 'm'])
                    && part[..part.len() - 1].bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Bonnie 1.2 prints the number of volumes glued to the size: `1* 256`,
/// `1*1024`. The rest after `N*`.
fn after_volumes(token: &str) -> Option<&str> {
    let (volumes, rest) = token.split_once('*')?;
    (!volumes.is_empty() && volumes.bytes().all(|b| b.is_ascii_digit())).then_some(rest)
}

/// A classic row's name and size: `amd64SMP 5000`, a nameless `1024`
/// (the `-m` label left out), Bonnie 1.2's `localh 1* 256` and `1*1024`,
/// bonnie64's gigabytes (`EBS-1GB 1`; `0` when under one, no size then).
/// A name too long for Bonnie's column may have words of its own
/// (`2.4.19 + rmap14  500 ...`): the size is then the first bare number
/// after which no more than a row's twelve figures are left.
/// Returns how many words they take.
fn classic_lead(text: &str, words: &[Token<'_>], unit: char, row: &mut Row) -> Option<usize> {
    let first = words.first()?;
    let (k, amount) = if is_bare_size(first.text) || after_volumes(first.text).is_some() {
        classic_size(words, 0)?
    } else {
        if cell(first.text).is_some() {
            return None;
        }
        let (n, found) = (1..=MAX_NAME_WORDS)
            .filter_map(|n| Some((n, classic_size(words, n)?)))
            .find(|(_, (k, _))| words.len() - k <= FIGURES)?;
        row.name = Some(text[first.start..words[n - 1].end].to_string());
        found
    };
    row.size = Some(format!("{amount}{unit}")).filter(|_| amount.bytes().any(|b| b != b'0'));
    Some(k)
}

/// The classic size at `words[k]` (`5000`, `1* 256`, `1*1024`): the index
/// past it and the amount.
fn classic_size<'a>(words: &[Token<'a>], k: usize) -> Option<(usize, &'a str)> {
    let word = words.get(k)?.text;
    let (past, amount) = if is_bare_size(word) {
        (k + 1, word)
    } else {
        match after_volumes(word)? {
            "" => (k + 2, words.get(k + 1)?.text),
            glued => (k + 1, glued),
        }
    };
    is_bare_size(amount).then_some((past, amount))
}

/// Figures in a full row: a (rate, CPU) pair for each of six phases.
const FIGURES: usize = 12;

/// The width bonnie++ prints a row's name and size in.
const NAME_SIZE_WIDTH: usize = 19;

/// Words a bonnie++ machine name may have (`compiled in`, `Raid0 (8 disk)`).
pub(super) const MAX_NAME_WORDS: usize = 4;

/// Where a size glued to the end of a name starts: `disk)15744M` (bonnie++
/// gives name and size 19 columns; a longer name runs into the size).
pub(super) fn glued_size_at(token: &str) -> Option<usize> {
    let head = token.split(':').next().unwrap_or_default();
    let digits = head.trim_end_matches(['K', 'M', 'G', 'T']);
    if digits.len() == head.len() {
        return None;
    }
    let at = digits.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    (at > 0 && at < digits.len() && is_size(&token[at..])).then_some(at)
}

/// A bonnie++ row's name and size: `NPTL 100M`, a nameless `4G`, names
/// with spaces (`compiled in  15872M`) or glued to the size (`Raid0 (8
/// disk)15744M`), bon_csv2txt 1.00's `Unknown 512` under an `MB` header.
/// Returns how many words they take.
fn plus_lead(
    text: &str,
    words: &[Token<'_>],
    bare_size: Option<char>,
    row: &mut Row,
) -> Option<usize> {
    if let ([name, size, ..], Some(unit)) = (words, bare_size) {
        if is_bare_size(size.text) && cell(name.text).is_none() {
            row.name = Some(name.text.to_string());
            row.size = Some(format!("{}{unit}", size.text));
            return Some(2);
        }
    }
    let size_at = |word: &Token<'_>| {
        if is_size(word.text) {
            Some(0)
        } else {
            glued_size_at(word.text)
        }
    };
    // A name word that looks like a figure (`Seagate 7200.11`) is still
    // the name's when a size ends within the name and size field after it.
    let indent = text.len() - text.trim_start().len();
    let size_in_field = words
        .iter()
        .take(MAX_NAME_WORDS + 1)
        .any(|w| w.end <= indent + NAME_SIZE_WIDTH && size_at(w).is_some());
    for (k, word) in words.iter().enumerate().take(MAX_NAME_WORDS + 1) {
        let at = size_at(word);
        // The figures start right after the size; `v4.128M 1G` is a name
        // that looks like a glued size, then the size.
        let figures_next = words.get(k + 1).is_none_or(|w| cell(w.text).is_some());
        if let Some(at) = at.filter(|_| figures_next) {
            let name = text[words[0].start..word.start + at].trim_end();
            if name == "Latency" {
                return None;
            }
            row.name = Some(name.to_string()).filter(|n| !n.is_empty());
            row.size = Some(word.text[at..].to_string());
            return Some(k + 1);
        }
        if cell(word.text).is_some() && !size_in_field {
            break;
        }
    }
    // A continuation row of `-x N`: all twelve figures and no name or size
    // (the row above gives them).
    let continuation = words.len() == 12 && words.iter().all(|w| cell(w.text).is_some());
    continuation.then_some(0)
}

/// One row at `lines[i]`, re-joined with its wrapped tail if a mailer
/// broke it; also the index of the line after it.
pub(super) fn read_row(lines: &[Line<'_>], i: usize, kind: RowKind) -> Option<(Row, usize)> {
    let line = lines.get(i)?;
    let words = tokens(line.text);
    let mut row = Row {
        first_line: line.number,
        last_line: line.number,
        mb_per_s: matches!(kind, RowKind::Io { units, .. } if units.mb_per_s),
        ..Row::default()
    };
    // The name (and size) in front of the figures.
    let lead = match kind {
        RowKind::Io {
            classic: true,
            units,
        } => classic_lead(line.text, &words, units.bare_size.unwrap_or('M'), &mut row)?,
        RowKind::Io {
            classic: false,
            units,
        } => plus_lead(line.text, &words, units.bare_size, &mut row)?,
        RowKind::Files => match words.as_slice() {
            [spec, ..] if is_files_spec(spec.text) => {
                row.files = Some(spec.text.to_string());
                1
            }
            [name, spec, ..]
                if is_files_spec(spec.text)
                    && cell(name.text).is_none()
                    && name.text != "Latency" =>
            {
                row.name = Some(name.text.to_string());
                row.files = Some(spec.text.to_string());
                2
            }
            _ => return None,
        },
    };
    let figures = &words[lead..];
    if figures.is_empty() || figures.len() > 12 || !figures.iter().all(|t| cell(t.text).is_some()) {
        return None;
    }
    // A row a mailer wrapped: its tail is on the next line.
    let mut tail: Vec<Token<'_>> = Vec::new();
    let mut next = i + 1;
    if figures.len() < 12 {
        if let Some(more) = lines.get(i + 1).filter(|l| l.depth == line.depth) {
            let more_words = tokens(more.text);
            let fits = !more_words.is_empty()
                && figures.len() + more_words.len() <= 12
                && more_words.iter().all(|t| cell(t.text).is_some());
            if fits {
                tail = more_words;
                next = i + 2;
                row.last_line = more.number;
            }
        }
    }
    if matches!(kind, RowKind::Io { classic: true, .. }) && figures.len() + tail.len() != 12 {
        return None;
    }
    let head_slots = 12 - tail.len();
    let lead_end = lead.checked_sub(1).map_or(0, |last| words[last].end);
    // bonnie++ pads name and size to 19 columns: a lead that ends short of
    // them (a size alone, `64G:4k::65536`) with blanks past the field's
    // end still ends there.
    let indent = line.text.len() - line.text.trim_start().len();
    let padded = indent + NAME_SIZE_WIDTH;
    let base = if lead > 0 && lead_end < padded && figures[0].start > padded {
        padded
    } else {
        lead_end
    };
    let ends: Vec<usize> = (0..head_slots)
        .map(|j| base + (j / 2) * 10 + if j % 2 == 0 { 6 } else { 10 })
        .collect();
    let placed = place(figures, &ends, line.text)?;
    for (slot, token) in row.cells.iter_mut().zip(placed) {
        *slot = token.map(|t| (t.text.to_string(), line.number));
    }
    for (slot, token) in row.cells[head_slots..].iter_mut().zip(&tail) {
        *slot = Some((token.text.to_string(), row.last_line));
    }
    Some((row, next))
}

/// Places tokens into columns that end at `ends`. A full set goes in
/// order; a partial one by the nearest column end, following any shift a
/// too-wide value caused. Without the original spacing a partial row is
/// ambiguous.
pub(super) fn place<'a, 'b>(
    tokens: &'b [Token<'a>],
    ends: &[usize],
    text: &str,
) -> Option<Vec<Option<&'b Token<'a>>>> {
    let mut placed = vec![None; ends.len()];
    if tokens.len() > ends.len() {
        return None;
    }
    if tokens.len() == ends.len() {
        for (slot, token) in placed.iter_mut().zip(tokens) {
            *slot = Some(token);
        }
        return Some(placed);
    }
    if !text.contains("  ") || text.contains('\t') {
        return None;
    }
    let mut next = 0;
    let mut shift: isize = 0;
    for (k, token) in tokens.iter().enumerate() {
        let end = token.end as isize - shift;
        // Leave room for the tokens still to come.
        let last = ends.len() - (tokens.len() - k);
        if next > last {
            return None;
        }
        let slot = (next..=last).min_by_key(|&j| (ends[j] as isize - end).abs())?;
        placed[slot] = Some(token);
        shift = token.end as isize - ends[slot] as isize;
        next = slot + 1;
    }
    Some(placed)
}
