//! Bars as a matrix: an item a row, a series a column, as sql-bench's
//! compare-results prints them; the page's table and the mail text's.

use super::*;

use crate::limits::MAX_MATRIX_CELLS;

/// A bar comparison as sql-bench's `compare-results` prints it: a row per
/// item (in the comparison's category order), a column per series, each
/// cell the series' point for the item, if it has one.
#[derive(Debug)]
pub struct Matrix<'a> {
    /// The series, one per column.
    pub columns: Vec<&'a Series>,
    pub rows: Vec<MatrixRow<'a>>,
}

/// One item across the series.
#[derive(Debug)]
pub struct MatrixRow<'a> {
    pub item: &'a str,
    /// In the order of [`Matrix::columns`]; `None` where that series has
    /// no point for the item.
    pub cells: Vec<Option<&'a Point>>,
}

impl<'a> Matrix<'a> {
    /// The matrix of a bar comparison (`x=none`), the series in their
    /// order or, with `baseline_first`, the baseline's column first (as
    /// `compare-results` puts its `--server` first); `None` on a line
    /// chart, without series, or past [`MAX_MATRIX_CELLS`].
    pub fn of(comparison: &'a Comparison, baseline_first: bool) -> Option<Self> {
        if comparison.x != XAxis::None || comparison.series.is_empty() {
            return None;
        }
        let cells = comparison.categories.len() * comparison.series.len();
        if cells > MAX_MATRIX_CELLS {
            return None;
        }
        let mut columns: Vec<&Series> = comparison.series.iter().collect();
        if baseline_first {
            // A stable sort: the others keep their order.
            columns.sort_by_key(|s| !s.is_baseline);
        }
        let row_of: std::collections::HashMap<&str, usize> = comparison
            .categories
            .iter()
            .enumerate()
            .map(|(index, item)| (item.as_str(), index))
            .collect();
        let mut rows: Vec<MatrixRow> = comparison
            .categories
            .iter()
            .map(|item| MatrixRow {
                item,
                cells: vec![None; columns.len()],
            })
            .collect();
        for (column, series) in columns.iter().enumerate() {
            for point in &series.points {
                if let Some(&row) = row_of.get(point.item.as_str()) {
                    rows[row].cells[column] = Some(point);
                }
            }
        }
        Some(Matrix { columns, rows })
    }
}

/// The widest item name a matrix row prints whole; longer ones end in
/// an ellipsis (the ministat blocks below name them in full).
pub(super) const MATRIX_ITEM_WIDTH: usize = 22;

/// The narrowest a series' header may clip its name to, where its numbers
/// are narrower still: the numbered list above the table names it whole,
/// and at 10 a baseline and two columns of `1949 (+1007%)?` fit a mail
/// beside sql-bench's longest item names.
pub(super) const MATRIX_HEAD_WIDTH: usize = 10;

/// How one column of the text matrix is laid out: the mean and the
/// percent aligned on their own, so that the parentheses line up.
pub(super) struct MatrixColumn {
    pub(super) mean_width: usize,
    /// 0 where no cell of the column has a difference (the baseline's).
    pub(super) percent_width: usize,
    /// Whether some cell has a verdict's mark (else no room is kept).
    pub(super) marked: bool,
    pub(super) width: usize,
}

impl MatrixColumn {
    pub(super) fn of(matrix: &Matrix, column: usize, number: usize) -> Self {
        let points = || matrix.rows.iter().filter_map(|row| row.cells[column]);
        let mean_width = points()
            .map(|p| format_value(p.mean).chars().count())
            .max()
            .unwrap_or(0);
        let percent_width = points()
            .filter_map(|p| p.vs_baseline.as_ref())
            .map(|vs| short_percent(vs).chars().count())
            .max()
            .unwrap_or(0);
        let marked = points().any(|p| verdict_mark(p) != ' ');
        let percent = if percent_width > 0 {
            percent_width + 3
        } else {
            0
        };
        let content = mean_width + percent + usize::from(marked);
        let name = matrix.columns[column].name.chars().count();
        let width = content
            .max(name.min(MATRIX_HEAD_WIDTH))
            .max(number.to_string().len());
        MatrixColumn {
            mean_width,
            percent_width,
            marked,
            width,
        }
    }

    /// `  143 (-18.8%)?`: the mean, the difference to the baseline and
    /// the verdict's mark, or blanks where the series has no point.
    pub(super) fn cell(&self, point: Option<&Point>) -> String {
        let Some(point) = point else {
            return " ".repeat(self.width);
        };
        let mut text = format!(
            "{:>width$}",
            format_value(point.mean),
            width = self.mean_width
        );
        if self.percent_width > 0 {
            match &point.vs_baseline {
                Some(vs) => text.push_str(&format!(
                    " ({:>width$})",
                    short_percent(vs),
                    width = self.percent_width
                )),
                None => text.push_str(&" ".repeat(self.percent_width + 3)),
            }
        }
        if self.marked {
            text.push(verdict_mark(point));
        }
        format!("{text:>width$}", width = self.width)
    }
}

/// The difference in the matrix's cells: `-18.8%`, or `+1007%` from a
/// hundred on, where a tenth says nothing and the column would widen.
pub(super) fn short_percent(vs: &VsBaseline) -> String {
    if vs.percent.abs() >= 100.0 {
        format!("{:+.0}%", vs.percent)
    } else {
        format!("{:+.1}%", vs.percent)
    }
}

/// The one character after a cell, as `compare-results` marks its
/// estimated (`+`) and wrong (`?`) values: `*` a proven difference, `?`
/// too few runs, `~` runs of several configurations (a letter would read
/// as a unit: `26m`), blank otherwise.
pub(super) fn verdict_mark(point: &Point) -> char {
    if !point.mixed.is_empty() {
        return MIXED_MARK;
    }
    match point.vs_baseline.as_ref().map(|vs| vs.verdict) {
        Some(Verdict::Better | Verdict::Worse) => '*',
        Some(Verdict::TooFewRuns) => '?',
        Some(Verdict::Mixed) => MIXED_MARK,
        Some(Verdict::NoDifference) | None => ' ',
    }
}

/// How many runs each mean of the matrix is of, which its cells leave
/// out to stay narrow: `Each mean is of 1 run.`, or where they differ,
/// the range per column: `Runs per mean, by column: 1: 3; 2: 2-3.`
pub(super) fn runs_per_mean(matrix: &Matrix) -> String {
    let ranges: Vec<Option<(usize, usize)>> = (0..matrix.columns.len())
        .map(|column| {
            matrix.rows.iter().filter_map(|row| row.cells[column]).fold(
                None,
                |range, p| match range {
                    None => Some((p.n, p.n)),
                    Some((low, high)) => Some((low.min(p.n), high.max(p.n))),
                },
            )
        })
        .collect();
    let mut all = ranges.iter().flatten();
    if let Some(&(n, _)) = all.clone().next() {
        if all.all(|&(low, high)| low == n && high == n) {
            let runs = if n == 1 { "run" } else { "runs" };
            return format!("Each mean is of {n} {runs}.");
        }
    }
    let per_column: Vec<String> = ranges
        .iter()
        .enumerate()
        .filter_map(|(column, range)| {
            let (low, high) = (*range)?;
            let n = if low == high {
                low.to_string()
            } else {
                format!("{low}-{high}")
            };
            Some(format!("{}: {n}", column + 1))
        })
        .collect();
    format!("Runs per mean, by column: {}.", per_column.join("; "))
}

/// The mark of a mixed point's cell.
pub(super) const MIXED_MARK: char = '~';

/// The matrix as `compare-results` prints it: the series numbered and
/// named in full, then a table of an item a row and a series a column
/// (the baseline first), headed by the numbers and the names clipped to
/// the column. Where the columns do not fit [`WIDTH`], the table comes in
/// blocks, each with as many as fit and, with a baseline, the baseline's
/// column again first, so that each block reads on its own.
pub(super) fn matrix_lines(comparison: &Comparison, matrix: &Matrix, lines: &mut Vec<String>) {
    series_heads(matrix, lines);
    let columns: Vec<MatrixColumn> = (0..matrix.columns.len())
        .map(|column| MatrixColumn::of(matrix, column, column + 1))
        .collect();
    let item_width = matrix
        .rows
        .iter()
        .map(|row| row.item.chars().count())
        .max()
        .unwrap_or(0)
        .clamp("item".len(), MATRIX_ITEM_WIDTH);
    let with_baseline = matrix.columns[0].is_baseline;
    let blocks = column_blocks(&columns, item_width, with_baseline);
    if blocks.len() > 1 {
        let again = if with_baseline {
            ", each beginning with the baseline"
        } else {
            ""
        };
        lines.push(String::new());
        lines.extend(wrap(
            &format!(
                "The {} series do not fit {WIDTH} columns side by side: they follow in {} blocks{again}.",
                columns.len(),
                blocks.len()
            ),
            WIDTH,
        ));
    }
    for block in &blocks {
        block_lines(matrix, &columns, block, item_width, lines);
    }
    matrix_legend(comparison, matrix, lines);
    mixed_notes(matrix, lines);
}

/// The series, numbered as their columns, each name in full.
pub(super) fn series_heads(matrix: &Matrix, lines: &mut Vec<String>) {
    lines.push(String::new());
    for (index, series) in matrix.columns.iter().enumerate() {
        let mut head = series.name.clone();
        if series.is_baseline {
            head.push_str(" (baseline)");
        }
        // The number in front of the first line, the rest indented under
        // the name (wrap would drop the leading blanks).
        for (line_index, line) in wrap(&head, WIDTH - 3).into_iter().enumerate() {
            let number = if line_index == 0 {
                (index + 1).to_string()
            } else {
                String::new()
            };
            lines.push(format!("{number:>2} {line}"));
        }
    }
}

/// The columns in blocks that fit [`WIDTH`] beside the items, each
/// beginning with the baseline's where there is one.
pub(super) fn column_blocks(
    columns: &[MatrixColumn],
    item_width: usize,
    with_baseline: bool,
) -> Vec<Vec<usize>> {
    let fixed: &[usize] = if with_baseline { &[0] } else { &[] };
    let fixed_width: usize = fixed.iter().map(|&c| columns[c].width + 3).sum();
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let mut width = 0;
    for (column, layout) in columns.iter().enumerate().skip(fixed.len()) {
        let needed = layout.width + 3;
        match blocks.last_mut() {
            Some(block) if width + needed <= WIDTH => block.push(column),
            _ => {
                let mut block = fixed.to_vec();
                block.push(column);
                blocks.push(block);
                width = item_width + 2 + fixed_width;
            }
        }
        width += needed;
    }
    if blocks.is_empty() {
        // The baseline alone.
        blocks.push(fixed.to_vec());
    }
    blocks
}

/// One block of columns: its rules, the column numbers and names, and a
/// row per item that has a point in it.
pub(super) fn block_lines(
    matrix: &Matrix,
    columns: &[MatrixColumn],
    block: &[usize],
    item_width: usize,
    lines: &mut Vec<String>,
) {
    // As long as the rows, as compare-results draws it.
    let rule_width = item_width + 2 + block.iter().map(|&c| columns[c].width + 3).sum::<usize>();
    lines.push(String::new());
    lines.push("=".repeat(rule_width));
    let mut numbers = format!("{:<item_width$} |", "item");
    let mut names = format!("{:<item_width$} |", "");
    for &column in block {
        let width = columns[column].width;
        numbers.push_str(&format!(" {:>width$} |", column + 1));
        names.push_str(&format!(
            " {:>width$} |",
            clip(&matrix.columns[column].name, width)
        ));
    }
    lines.push(numbers);
    lines.push(names);
    lines.push("-".repeat(rule_width));
    // A row with no point in the block's columns says nothing there.
    let in_block = |row: &&MatrixRow| block.iter().any(|&c| row.cells[c].is_some());
    for row in matrix.rows.iter().filter(in_block) {
        let mut line = format!("{:<item_width$} |", clip(row.item, item_width));
        for &column in block {
            line.push_str(&format!(" {} |", columns[column].cell(row.cells[column])));
        }
        lines.push(line);
    }
    lines.push("=".repeat(rule_width));
}

/// What the means and marks say, and how many runs each mean is of.
pub(super) fn matrix_legend(comparison: &Comparison, matrix: &Matrix, lines: &mut Vec<String>) {
    let with_baseline = matrix.columns[0].is_baseline;
    let direction = if comparison.higher_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    let mut legend = format!("Means in {} ({direction}).", comparison.unit);
    if with_baseline {
        legend.push_str(&format!(
            " In parentheses the difference to the baseline (column 1) in %; after it * a difference proven at {} confidence, ? too few runs for an interval, {MIXED_MARK} runs of several configurations (no verdict); no mark: no difference proven.",
            comparison.confidence
        ));
    } else if matrix
        .rows
        .iter()
        .flat_map(|row| row.cells.iter().flatten())
        .any(|p| !p.mixed.is_empty())
    {
        legend.push_str(&format!(
            " {MIXED_MARK}: runs of several configurations, not repeats."
        ));
    }
    legend.push(' ');
    legend.push_str(&runs_per_mean(matrix));
    lines.extend(wrap(&legend, WIDTH));
}

/// The runs of several setups behind a mean, once per series and
/// description, with the items it holds for.
pub(super) fn mixed_notes(matrix: &Matrix, lines: &mut Vec<String>) {
    // n counts runs, not repeats, where they are several setups: said
    // once per series and description, with the items it holds for.
    for (column, series) in matrix.columns.iter().enumerate() {
        let mut notes: Vec<(String, Vec<&str>)> = Vec::new();
        for row in &matrix.rows {
            let Some(point) = row.cells[column].filter(|p| !p.mixed.is_empty()) else {
                continue;
            };
            let note = runs_of_configurations(point);
            match notes.iter_mut().find(|(text, _)| *text == note) {
                Some((_, items)) => items.push(row.item),
                None => notes.push((note, vec![row.item])),
            }
        }
        for (note, items) in notes {
            let at = if items.len() == series.points.len() && items.len() > 1 {
                "each item".to_owned()
            } else {
                items.join(", ")
            };
            for line in wrap(&format!("{}: {note} at {at}", series.name), WIDTH - 2) {
                lines.push(format!("  {line}"));
            }
        }
    }
}
