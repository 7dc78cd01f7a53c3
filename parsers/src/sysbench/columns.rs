//! Side-by-side reports: two or more runs printed as the columns of one
//! report, under a header line that names them.
//!
//! ```text
//!                                 Without zcache        With zcache
//! OLTP test statistics:
//!     queries performed:
//!         read:                  2238446                   2402372(+7%)
//!     transactions:               159889(22.20 per sec.)    171598(23.83
//! per sec.) (+7%)
//! ```
//!
//! Rows a mailer wrapped are joined again (a line without a label of its
//! own continues the row above while that row still lacks a value), each
//! row's values are cut into cells (a count keeps its `(X per sec.)`, a
//! note such as `(+7%)` glued to a value is dropped), and cell N of every
//! row becomes a line of column N's report, which the ordinary field
//! reader then reads. Each column is its own run, labelled by its header.

use crate::text::{Line, LogicalLine};

/// The most runs one header may name.
const MAX_COLUMNS: usize = 8;
/// A column label longer than this is a sentence, not a label.
const MAX_LABEL_LEN: usize = 40;
/// How many lines above a report its column header may sit (a blank
/// line or an underline between them is fine).
const HEADER_SEARCH: usize = 3;
/// Rows of one side-by-side report, at most.
const MAX_ROWS: usize = 200;

/// The header line naming the columns: its index and the labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ColumnHeader {
    pub index: usize,
    pub labels: Vec<String>,
}

/// The columns of one side-by-side report, each as the text of a report
/// of its own whose lines map back to where each value was printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Columns {
    pub reports: Vec<LogicalLine>,
    /// 1-based number of the report's last line.
    pub last_line: usize,
    /// Index of the line after the report.
    pub end: usize,
}

/// The column header above the report heading at `start`, if the nearest
/// non-blank line above it (back to `taken_until`) names two or more
/// columns: words separated by a tab or two spaces or more, no colon.
pub(super) fn header_above(
    lines: &[Line<'_>],
    taken_until: usize,
    start: usize,
) -> Option<ColumnHeader> {
    let depth = lines[start].depth;
    let lowest = start.saturating_sub(HEADER_SEARCH).max(taken_until);
    for j in (lowest..start).rev() {
        let line = &lines[j];
        if line.is_blank() || is_underline(line.text) {
            continue;
        }
        if line.depth != depth {
            return None;
        }
        return column_labels(line.text).map(|labels| ColumnHeader { index: j, labels });
    }
    None
}

fn is_underline(text: &str) -> bool {
    let trimmed = text.trim();
    trimmed.len() >= 3 && trimmed.bytes().all(|b| b == b'=' || b == b'-')
}

/// `Without zcache        With zcache` -> [`Without zcache`, `With zcache`].
fn column_labels(text: &str) -> Option<Vec<String>> {
    if text.contains(':') {
        return None;
    }
    let labels: Vec<String> = split_on_gaps(text.trim())
        .into_iter()
        .map(|label| label.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let plausible = (2..=MAX_COLUMNS).contains(&labels.len())
        && labels
            .iter()
            .all(|l| l.len() <= MAX_LABEL_LEN && l.chars().any(char::is_alphanumeric));
    plausible.then_some(labels)
}

/// Cuts text where a tab or a run of two or more spaces separates words.
fn split_on_gaps(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut gap: Option<usize> = None;
    for (at, c) in text.char_indices() {
        match (c.is_whitespace(), gap) {
            (true, None) => gap = Some(at),
            (true, Some(_)) | (false, None) => {}
            (false, Some(from)) => {
                let wide = at - from >= 2 || text[from..at].contains('\t');
                if wide {
                    parts.push(&text[start..from]);
                    start = at;
                }
                gap = None;
            }
        }
    }
    parts.push(text[start..].trim_end());
    parts.retain(|p| !p.is_empty());
    parts
}

/// One value of a row: the number as printed, its `(X per sec.)` if it
/// has one, and the line it was printed on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cell {
    value: String,
    rate: Option<String>,
    line: usize,
}

/// A logical row: a label and the text after it, over one or more lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    label: String,
    values: String,
    /// (byte offset in `values`, 1-based line) where each line's part starts.
    starts: Vec<(usize, usize)>,
}

impl Row {
    fn line_at(&self, offset: usize) -> usize {
        let i = self.starts.partition_point(|&(start, _)| start <= offset);
        self.starts[i.saturating_sub(1)].1
    }

    fn cells(&self) -> Option<Vec<Cell>> {
        cells(&self.values, |at| self.line_at(at))
    }

    fn continue_with(&mut self, text: &str, line: usize) {
        self.values.push(' ');
        self.starts.push((self.values.len(), line));
        self.values.push_str(text.trim());
    }
}

/// Reads the report starting at line `start` as `columns` side-by-side
/// runs. Fails when its rows do not hold one value per column.
pub(super) fn read(lines: &[Line<'_>], start: usize, columns: usize) -> Result<Columns, String> {
    let depth = lines[start].depth;
    let mut rows: Vec<(Row, Vec<Cell>)> = Vec::new();
    let mut current: Option<Row> = None;
    let mut blanks = 0;
    for line in lines.iter().skip(start).take(MAX_ROWS) {
        if line.is_blank() {
            blanks += 1;
            if blanks >= 2 {
                break;
            }
            continue;
        }
        if line.depth != depth {
            break;
        }
        match (row_start(line.text), current.as_mut()) {
            (Some((label, values)), _) => {
                if let Some(done) = current.take() {
                    if !take_row(done, columns, &mut rows) {
                        break;
                    }
                }
                blanks = 0;
                current = Some(Row {
                    label: label.to_string(),
                    values: values.trim().to_string(),
                    starts: vec![(0, line.number)],
                });
            }
            // A wrapped row goes on while it still lacks values and no
            // blank line came between.
            (None, Some(row))
                if blanks == 0 && row.cells().is_none_or(|cells| cells.len() < columns) =>
            {
                row.continue_with(line.text, line.number);
            }
            (None, _) => break,
        }
    }
    if let Some(row) = current {
        take_row(row, columns, &mut rows);
    }
    let last_line = rows
        .iter()
        .filter_map(|(row, _)| row.starts.last().map(|&(_, line)| line))
        .max()
        .unwrap_or(lines[start].number);
    // Blank lines and a row that ended the report are not part of it.
    let end = lines[start..]
        .iter()
        .position(|l| l.number > last_line)
        .map_or(lines.len(), |at| start + at);
    let with_values = rows.iter().filter(|(_, cells)| !cells.is_empty()).count();
    if with_values == 0 {
        return Err(format!(
            "side-by-side sysbench report without a row of {columns} values: expected one value per column header"
        ));
    }
    Ok(Columns {
        reports: (0..columns)
            .map(|c| column_report(&rows, c, depth))
            .collect(),
        last_line,
        end: end.max(start + 1),
    })
}

/// Keeps a finished row if it has no values (a heading) or one per
/// column; says whether it was kept.
fn take_row(row: Row, columns: usize, rows: &mut Vec<(Row, Vec<Cell>)>) -> bool {
    match row.cells() {
        Some(cells) if cells.is_empty() || cells.len() == columns => {
            rows.push((row, cells));
            true
        }
        _ => false,
    }
}

/// `    transactions:   8880(2.47 per sec.)  11924(3.31 per sec.)` ->
/// (`transactions:`, the rest). A row's label ends at the first colon
/// followed by a space or the end of the line and holds a letter
/// (`95th percentile:` starts with digits); a value never does.
fn row_start(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_start();
    let colon = trimmed.char_indices().find_map(|(at, c)| {
        let after = trimmed.get(at + 1..)?;
        (c == ':' && (after.is_empty() || after.starts_with(char::is_whitespace))).then_some(at)
    })?;
    let label = trimmed.get(..=colon)?;
    let worded = label
        .split_whitespace()
        .next()
        .is_some_and(|word| word.chars().any(char::is_alphabetic) && !word.contains('('));
    worded
        .then(|| Some((label, trimmed.get(colon + 1..)?)))
        .flatten()
}

/// Cuts a row's values into cells: a number (with its unit, `94.25ms`,
/// `7201.0705s`, `9993.0625/28.05`), then optionally its `(X per sec.)`;
/// a parenthesised note with a `%` is dropped. `None` for anything else.
fn cells(values: &str, line_at: impl Fn(usize) -> usize) -> Option<Vec<Cell>> {
    let mut cells: Vec<Cell> = Vec::new();
    let mut rest = values;
    loop {
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            return Some(cells);
        }
        let at = values.len() - trimmed.len();
        if let Some(inner) = trimmed.strip_prefix('(') {
            let close = inner.find(')')?;
            let content = inner.get(..close)?;
            rest = inner.get(close + 1..)?;
            if content.contains("per sec") {
                let last = cells.last_mut().filter(|c| c.rate.is_none())?;
                last.rate = Some(content.split_whitespace().collect::<Vec<_>>().join(" "));
            } else if !content.contains('%') {
                return None;
            }
            continue;
        }
        let len = trimmed
            .find(|c: char| c.is_whitespace() || c == '(')
            .unwrap_or(trimmed.len());
        let token = trimmed.get(..len)?;
        if !token.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        cells.push(Cell {
            value: token.to_string(),
            rate: None,
            line: line_at(at),
        });
        rest = trimmed.get(len..)?;
    }
}

/// Column `column`'s report: every heading row, and each value row with
/// that column's cell, one line each, at the line the cell was printed on.
fn column_report(rows: &[(Row, Vec<Cell>)], column: usize, depth: usize) -> LogicalLine {
    let texts: Vec<(usize, String)> = rows
        .iter()
        .map(|(row, cells)| match cells.get(column) {
            Some(cell) => {
                let rate = cell
                    .rate
                    .as_ref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                (cell.line, format!("{} {}{rate}", row.label, cell.value))
            }
            None => (row.starts[0].1, row.label.clone()),
        })
        .collect();
    let lines: Vec<Line<'_>> = texts
        .iter()
        .map(|(number, text)| Line {
            number: *number,
            depth,
            text,
        })
        .collect();
    LogicalLine::join(&lines, "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text;

    #[test]
    fn headers_name_two_or_more_columns() {
        let cases: [(&str, Option<&[&str]>); 7] = [
            (
                "                                Without zcache        With zcache",
                Some(&["Without zcache", "With zcache"]),
            ),
            (
                "                                Without zcache\t        With zcache",
                Some(&["Without zcache", "With zcache"]),
            ),
            (
                "   base    patched   patched+v2",
                Some(&["base", "patched", "patched+v2"]),
            ),
            ("v6.1  v6.2", Some(&["v6.1", "v6.2"])),
            ("Here are the results with the patch applied.", None),
            ("Results:    see below", None),
            (
                "sysbench --test=oltp  --num-threads=16",
                Some(&["sysbench --test=oltp", "--num-threads=16"]),
            ),
        ];
        for (i, (text, want)) in cases.into_iter().enumerate() {
            let got = column_labels(text);
            let got: Option<Vec<&str>> =
                got.as_ref().map(|v| v.iter().map(String::as_str).collect());
            assert_eq!(got.as_deref(), want, "case {i}");
        }
    }

    #[test]
    fn cells_keep_rates_and_drop_notes() {
        type Want<'a> = &'a [(&'a str, Option<&'a str>)];
        let cases: [(&str, Option<Want<'_>>); 7] = [
            (
                "2238446                   2402372(+7%)",
                Some(&[("2238446", None), ("2402372", None)]),
            ),
            (
                "159889(22.20 per sec.)    171598(23.83 per sec.) (+7%)",
                Some(&[
                    ("159889", Some("22.20 per sec.")),
                    ("171598", Some("23.83 per sec.")),
                ]),
            ),
            (
                "168720(46.86 per sec.)  226556(62.91 per sec.)(+34%)",
                Some(&[
                    ("168720", Some("46.86 per sec.")),
                    ("226556", Some("62.91 per sec.")),
                ]),
            ),
            (
                "94.25ms                  57.80ms (+38%)",
                Some(&[("94.25ms", None), ("57.80ms", None)]),
            ),
            (
                "9993.0625/28.05          10724.87500/30.32",
                Some(&[("9993.0625/28.05", None), ("10724.87500/30.32", None)]),
            ),
            ("", Some(&[])),
            ("see the graph (attached)", None),
        ];
        for (i, (values, want)) in cases.into_iter().enumerate() {
            let got = cells(values, |_| 1);
            let got: Option<Vec<(&str, Option<&str>)>> = got.as_ref().map(|cs| {
                cs.iter()
                    .map(|c| (c.value.as_str(), c.rate.as_deref()))
                    .collect()
            });
            assert_eq!(got.as_deref(), want, "case {i}");
        }
    }

    #[test]
    fn wrapped_rows_are_joined_and_each_column_is_a_report() {
        let input = "OLTP test statistics:\n    transactions:               159889(22.20 per sec.)    171598(23.83\nper sec.) (+7%)\n    read/write requests:       3037891(421.87 per sec.)\n3260362(452.70 per sec.)(+7%)\n    total time taken by event execution:\n                                115204.6708              115219.8235\n\nBy comparing /proc/vmstat, there is around 14G saved\n";
        let lines = text::lines(input);
        let table = read(&lines, 0, 2).unwrap();
        assert_eq!(table.last_line, 7);
        assert_eq!(
            table.end, 7,
            "the blank line and prose are not the report's"
        );
        assert_eq!(
            table.reports[0].text,
            "OLTP test statistics:\ntransactions: 159889 (22.20 per sec.)\nread/write requests: 3037891 (421.87 per sec.)\ntotal time taken by event execution: 115204.6708"
        );
        assert_eq!(
            table.reports[1].text,
            "OLTP test statistics:\ntransactions: 171598 (23.83 per sec.)\nread/write requests: 3260362 (452.70 per sec.)\ntotal time taken by event execution: 115219.8235"
        );
        // The second column's wrapped value lives on the line it was printed on.
        let second = &table.reports[1];
        let at = second.text.find("3260362").unwrap();
        assert_eq!(second.line_at(at), 5);
        let at = second.text.find("115219").unwrap();
        assert_eq!(second.line_at(at), 7);
    }

    #[test]
    fn rows_of_a_10_report_side_by_side() {
        let input = "Latency (ms):\n         min:                                    0.38      0.41\n         95th percentile:                        2.81      3.02 (+7%)\n         sum:                                19981.60  20110.20\n";
        let lines = text::lines(input);
        let table = read(&lines, 0, 2).unwrap();
        assert_eq!(table.last_line, 4);
        assert_eq!(
            table.reports[1].text,
            "Latency (ms):\nmin: 0.41\n95th percentile: 3.02\nsum: 20110.20"
        );
        assert_eq!(row_start("per sec.) (+7%)"), None);
        assert_eq!(row_start("3260362(452.70 per sec.)(+7%)"), None);
        assert_eq!(row_start("(452.70 per sec.): x"), None);
    }

    #[test]
    fn a_single_column_report_is_not_side_by_side() {
        let input = "OLTP test statistics:\n    queries performed:\n        read:                            140\n    transactions:                        10     (1.00 per sec.)\n";
        let lines = text::lines(input);
        assert!(read(&lines, 0, 2).is_err());
    }
}
