//! A table's run of data rows: each row with its `Latency` line, and the
//! gaps (blank lines, label lines, a replier's words) the rows go on after.

use crate::text::Line;

use super::header::is_phase_decoration;
use super::row::{place, read_row, tokens};
use super::{Row, RowKind};
use crate::bonnie::latency_us;

/// Rows one table may hold (bon_csv2txt prints one per CSV line).
const MAX_ROWS: usize = 64;

/// Reads rows (each with its `Latency` line) until a line is not one; also
/// the index past the last row read. The table goes on after a gap real
/// posts leave in it: blank lines between the header and its rows or
/// between groups of rows, a label line naming the nameless rows under it
/// (classic Bonnie), and in a quoted table the replier's own words.
pub(super) fn read_rows(
    lines: &[Line<'_>],
    from: usize,
    depth: usize,
    kind: RowKind,
) -> (Vec<Row>, usize) {
    let mut rows: Vec<Row> = Vec::new();
    let mut i = from;
    let mut end = from;
    let mut label: Option<String> = None;
    while rows.len() < MAX_ROWS {
        let Some((mut row, next)) = read_row(lines, i, kind) else {
            match gap_before_more_rows(lines, i, depth, kind, !rows.is_empty()) {
                Some((resume, new_label)) => {
                    label = new_label.or(label);
                    i = resume;
                    continue;
                }
                None => break,
            }
        };
        i = next;
        if let Some((latencies, line)) = lines.get(i).and_then(|l| latency_line(l)) {
            if lines[i].depth == depth {
                for (slot, value) in row.latencies.iter_mut().zip(latencies) {
                    *slot = value.map(|v| (v, line));
                }
                row.last_line = line;
                i += 1;
            }
        }
        if row.name.is_none() && row.size.is_none() && is_continuation(&row, kind) {
            // A continuation row repeats the run of the row above it.
            if let Some(above) = rows.last() {
                row.name = above.name.clone();
                row.size = above.size.clone();
            }
        }
        if row.name.is_none() {
            row.name = label.clone();
        }
        rows.push(row);
        end = i;
    }
    (rows, end)
}

/// A bonnie++ row that came without a name or a size: `-x N`'s second and
/// later runs, printed under the first.
fn is_continuation(row: &Row, kind: RowKind) -> bool {
    matches!(kind, RowKind::Io { classic: false, .. }) && row.files.is_none()
}

/// Blank lines a table's rows may go on after.
const MAX_BLANK_GAP: usize = 2;

/// Lines of a reply that may cut a quoted table in two.
const MAX_REPLY_GAP: usize = 40;

/// Words a label line above nameless classic rows may have.
const MAX_LABEL_WORDS: usize = 8;

/// Where the table goes on when `lines[at]` is not a row: the index of its
/// next row, and the label that names the rows from there on.
fn gap_before_more_rows(
    lines: &[Line<'_>],
    at: usize,
    depth: usize,
    kind: RowKind,
    has_rows: bool,
) -> Option<(usize, Option<String>)> {
    let line = lines.get(at)?;
    let is_row_at = |j: usize| {
        lines.get(j).is_some_and(|l| l.depth == depth) && read_row(lines, j, kind).is_some()
    };
    // Blank lines (` `, `>`) under the header or between groups of rows.
    if line.is_blank() {
        let mut j = at;
        while j < at + MAX_BLANK_GAP && lines.get(j).is_some_and(|l| l.is_blank()) {
            j += 1;
        }
        if is_row_at(j) {
            return Some((j, None));
        }
    }
    // `pblade 1 (reiserfs defaults)` over rows that have no name.
    if line.depth == depth && matches!(kind, RowKind::Io { classic: true, .. }) {
        let words = line.text.split_whitespace().count();
        let nameless_row_next = read_row(lines, at + 1, kind)
            .is_some_and(|(row, _)| row.name.is_none() && lines[at + 1].depth == depth);
        if (1..=MAX_LABEL_WORDS).contains(&words) && nameless_row_next && !line.text.contains("%CP")
        {
            return Some((at + 1, Some(line.text.trim().to_string())));
        }
    }
    // A quoted table the replier cut with his own words: its rows go on
    // at the same depth after them.
    if depth > 0 && has_rows {
        let mut replied = false;
        let mut j = at;
        while j < at + MAX_REPLY_GAP {
            let l = lines.get(j)?;
            if l.depth == depth && !l.is_blank() {
                break;
            }
            if l.text.contains("%CP") || is_phase_decoration(l.text) {
                return None;
            }
            replied |= l.depth < depth && !l.is_blank();
            j += 1;
        }
        if replied && is_row_at(j) {
            return Some((j, None));
        }
    }
    None
}

/// A `Latency` line: up to six latencies in ` %9s` columns.
fn latency_line(line: &Line<'_>) -> Option<([Option<f64>; 6], usize)> {
    let words = tokens(line.text);
    let (head, figures) = words.split_first()?;
    if head.text != "Latency" || figures.is_empty() || figures.len() > 6 {
        return None;
    }
    let values: Vec<f64> = figures
        .iter()
        .map(|t| latency_us(t.text))
        .collect::<Option<_>>()?;
    let ends: Vec<usize> = (0..6).map(|k| head.start + 27 + 10 * k).collect();
    let placed = place(figures, &ends, line.text)?;
    let mut found = [None; 6];
    let mut values = values.into_iter();
    for (slot, token) in found.iter_mut().zip(placed) {
        if token.is_some() {
            *slot = values.next();
        }
    }
    Some((found, line.number))
}
