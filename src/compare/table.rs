//! The comparison as plain text for a mail: at most [`WIDTH`] columns,
//! one block per series on a line chart, an item × series [`Matrix`] as
//! sql-bench's `compare-results` prints it on bars, then, with a
//! baseline, a ministat-style block for each point compared with it.

use super::{Comparison, Point, Sample, Series, Verdict, VsBaseline, XAxis, MIN_RUNS};
use crate::charts::format_value;

/// Mail clients wrap longer lines (and quote them with "> ").
pub const WIDTH: usize = 72;

/// The comparison as text: a header saying what was compared, then each
/// series with its points (mean, min, max, n, difference to the
/// baseline, efficiency) and its peak, or on bars the matrix of the
/// items' means and differences, then the differences to the baseline as
/// ministat prints them.
pub fn to_text(comparison: &Comparison) -> String {
    let mut lines: Vec<String> = Vec::new();
    lines.push(comparison.title());
    lines.push(comparison.value_title());
    let mut scope = Vec::new();
    if !comparison.by.is_empty() {
        scope.push(format!("by {}", comparison.by.join(", ")));
    }
    if !comparison.wheres.is_empty() {
        scope.push(format!("where {}", comparison.wheres.join(", ")));
    }
    if let Some(baseline) = &comparison.baseline {
        scope.push(format!(
            "baseline {baseline} ({} confidence)",
            comparison.confidence
        ));
    }
    if !scope.is_empty() {
        lines.extend(wrap(&scope.join("; "), WIDTH));
    }
    for notice in &comparison.notices {
        lines.extend(wrap(notice, WIDTH));
    }
    if comparison.series.is_empty() {
        lines.push(String::new());
        lines.push("No stored run matches this choice.".to_owned());
    }

    let threads = comparison.x == XAxis::Threads;
    let with_efficiency = comparison
        .series
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| p.efficiency.is_some());
    let with_baseline = comparison.baseline.is_some();
    let first_title = if threads { "threads" } else { "item" };
    // Item names give up two characters to the difference column.
    let first_width = match (threads, with_baseline) {
        (true, _) => 7,
        (false, true) => 16,
        (false, false) => 18,
    };
    let matrix = Matrix::of(comparison, true);
    if let Some(matrix) = &matrix {
        matrix_lines(comparison, matrix, &mut lines);
    } else if comparison.x == XAxis::None && !comparison.series.is_empty() {
        lines.push(String::new());
        lines.extend(wrap(
            &format!(
                "{} items by {} series are too many for one table: each series follows with its own.",
                comparison.categories.len(),
                comparison.series.len()
            ),
            WIDTH,
        ));
    }
    // The long form: a block per series, where there is no matrix.
    for series in comparison.series.iter().filter(|_| matrix.is_none()) {
        lines.push(String::new());
        let mut head = series.name.clone();
        if series.is_baseline {
            head.push_str(" (baseline)");
        }
        lines.extend(wrap(&head, WIDTH));
        let mut header = format!(
            "  {:<first_width$} {:>10} {:>10} {:>10} {:>3}",
            first_title, "mean", "min", "max", "n"
        );
        if with_baseline {
            header.push_str(&format!(" {:>BASELINE_WIDTH$}", "vs baseline"));
        }
        if with_efficiency {
            header.push_str(&format!(" {:>5}", "eff."));
        }
        lines.push(header);
        for point in &series.points {
            lines.push(row(point, first_width, with_baseline, with_efficiency));
        }
        // n counts runs, not repeats, where they are several setups.
        for point in series.points.iter().filter(|p| !p.mixed.is_empty()) {
            let at = match point.threads {
                Some(threads) => format!("{threads} threads"),
                None => point.item.clone(),
            };
            lines.extend(wrap(
                &format!("  {at}: {}", runs_of_configurations(point)),
                WIDTH,
            ));
        }
        if let Some(peak) = &series.peak {
            let at = peak
                .threads
                .map(|t| format!(" at {t} threads"))
                .unwrap_or_default();
            let word = if comparison.higher_is_better {
                "peak"
            } else {
                "best (lowest)"
            };
            lines.push(format!(
                "  {word} {} {}{at}",
                format_value(peak.mean),
                comparison.unit
            ));
        }
    }
    if with_efficiency {
        lines.push(String::new());
        lines.push("eff.: scaling efficiency, value(n) / (n x value(1))".to_owned());
    }
    if with_baseline {
        differences(comparison, &mut lines);
    }
    if comparison.without_threads > 0 {
        lines.push(String::new());
        lines.extend(wrap(
            &format!(
                "{} matching results have no thread count and are not shown.",
                comparison.without_threads
            ),
            WIDTH,
        ));
    }
    lines.push(String::new());
    lines.extend(wrap(&format!("/compare?{}", comparison.query), WIDTH));
    let mut text = String::new();
    for line in lines {
        text.push_str(&clip(line.trim_end(), WIDTH));
        text.push('\n');
    }
    text
}

fn row(point: &Point, first_width: usize, with_baseline: bool, with_efficiency: bool) -> String {
    let first = match point.threads {
        Some(threads) => threads.to_string(),
        None => clip(&point.item, first_width),
    };
    let first = if point.threads.is_some() {
        format!("{first:>first_width$}")
    } else {
        format!("{first:<first_width$}")
    };
    let mut line = format!(
        "  {first} {:>10} {:>10} {:>10} {:>3}",
        clip(&format_value(point.mean), 10),
        clip(&format_value(point.min), 10),
        clip(&format_value(point.max), 10),
        point.n
    );
    if with_baseline {
        let difference = match &point.vs_baseline {
            Some(vs) => format!("{:+.1}% {}", vs.percent, short_verdict(vs.verdict)),
            None => "-".to_owned(),
        };
        line.push_str(&format!(" {difference:>BASELINE_WIDTH$}"));
    }
    if with_efficiency {
        let efficiency = point
            .efficiency
            .map(|e| format!("{e:.2}"))
            .unwrap_or_else(|| "-".to_owned());
        line.push_str(&format!(" {efficiency:>5}"));
    }
    line
}

/// The "vs baseline" column: `-12.3% no diff.`.
const BASELINE_WIDTH: usize = 16;

/// The verdict in a word or two, for the series tables' column (the
/// blocks below them say it in full).
fn short_verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::NoDifference => "no diff.",
        Verdict::TooFewRuns => "few runs",
        Verdict::Mixed => "mixed",
    }
}

pub use crate::limits::MAX_MATRIX_CELLS;

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
const MATRIX_ITEM_WIDTH: usize = 22;

/// The narrowest a series' header may clip its name to, where its numbers
/// are narrower still: the numbered list above the table names it whole,
/// and at 10 a baseline and two columns of `1949 (+1007%)?` fit a mail
/// beside sql-bench's longest item names.
const MATRIX_HEAD_WIDTH: usize = 10;

/// How one column of the text matrix is laid out: the mean and the
/// percent aligned on their own, so that the parentheses line up.
struct MatrixColumn {
    mean_width: usize,
    /// 0 where no cell of the column has a difference (the baseline's).
    percent_width: usize,
    /// Whether some cell has a verdict's mark (else no room is kept).
    marked: bool,
    width: usize,
}

impl MatrixColumn {
    fn of(matrix: &Matrix, column: usize, number: usize) -> Self {
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
    fn cell(&self, point: Option<&Point>) -> String {
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
fn short_percent(vs: &VsBaseline) -> String {
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
fn verdict_mark(point: &Point) -> char {
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
fn runs_per_mean(matrix: &Matrix) -> String {
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
const MIXED_MARK: char = '~';

/// The matrix as `compare-results` prints it: the series numbered and
/// named in full, then a table of an item a row and a series a column
/// (the baseline first), headed by the numbers and the names clipped to
/// the column. Where the columns do not fit [`WIDTH`], the table comes in
/// blocks, each with as many as fit and, with a baseline, the baseline's
/// column again first, so that each block reads on its own.
fn matrix_lines(comparison: &Comparison, matrix: &Matrix, lines: &mut Vec<String>) {
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
        // As long as the rows, as compare-results draws it.
        let rule_width =
            item_width + 2 + block.iter().map(|&c| columns[c].width + 3).sum::<usize>();
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

/// A ministat-style block for each point compared with the baseline: the
/// two sets' N, min, max, median, mean and standard deviation, then the
/// difference with its interval, or why there is none.
fn differences(comparison: &Comparison, lines: &mut Vec<String>) {
    let Some(base) = comparison.series.iter().find(|s| s.is_baseline) else {
        return;
    };
    let compared: Vec<(&Series, &Point, &VsBaseline)> = comparison
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(move |p| (s, p)))
        .filter_map(|(s, p)| p.vs_baseline.as_ref().map(|vs| (s, p, vs)))
        .collect();
    if compared.is_empty() {
        return;
    }
    lines.push(String::new());
    lines.extend(wrap(
        &format!(
            "Differences to the baseline {} at {} confidence, as ministat computes them (Student's t, pooled s); where an F-test at the same level finds the variances differ, Welch's t beside it, which can withdraw a verdict but never make one. {MIN_RUNS} runs a side are needed.",
            base.name, comparison.confidence
        ),
        WIDTH,
    ));
    for (series, point, vs) in compared {
        let Some(base_point) = base
            .points
            .iter()
            .find(|b| b.threads == point.threads && b.item == point.item)
        else {
            continue;
        };
        lines.push(String::new());
        let at = match point.threads {
            Some(threads) => format!("{threads} threads"),
            None => point.item.clone(),
        };
        lines.extend(wrap(&format!("{}, {at}", series.name), WIDTH));
        lines.extend(wrap(&format!("x {} (baseline)", base.name), WIDTH));
        lines.extend(wrap(&format!("+ {}", series.name), WIDTH));
        lines.push(format!(
            "    N {:>11} {:>11} {:>11} {:>11} {:>11}",
            "Min", "Max", "Median", "Avg", "Stddev"
        ));
        lines.push(vitals('x', base_point));
        lines.push(vitals('+', point));
        let confidence = comparison.confidence.percent();
        match &vs.interval {
            None if vs.verdict == Verdict::Mixed => {
                // The mixed one of the two, the point itself first.
                let mixed = if point.mixed.is_empty() {
                    base_point
                } else {
                    point
                };
                lines.extend(wrap(
                    &format!(
                        "Mixed: {}; runs of different configurations are not repeats, and no interval is computed. The means differ by {} ({}%).",
                        runs_of_configurations(mixed),
                        g(vs.difference, 6),
                        g(vs.percent, 6)
                    ),
                    WIDTH,
                ));
            }
            None => {
                lines.extend(wrap(
                    &format!(
                        "Too few runs: n = {} and {}, and {MIN_RUNS} a side are needed for an interval. The means differ by {} ({}%).",
                        vs.baseline_n,
                        vs.n,
                        g(vs.difference, 6),
                        g(vs.percent, 6)
                    ),
                    WIDTH,
                ));
            }
            Some(interval) => {
                // ministat's heading, from Student's interval.
                if vs.verdict.is_proven() || vs.withdrawn {
                    lines.push(format!("Difference at {confidence:.1}% confidence"));
                } else {
                    lines.push(format!(
                        "No difference proven at {confidence:.1}% confidence"
                    ));
                }
                lines.push(format!(
                    "        {} +/- {}",
                    g(vs.difference, 6),
                    g(interval.half_width, 6)
                ));
                lines.push(format!(
                    "        {}% +/- {}%",
                    g(vs.percent, 6),
                    g(interval.percent_half_width, 6)
                ));
                let how = format!("(Student's t, pooled s = {})", g(interval.s, 6));
                for line in wrap(&how, WIDTH - 8) {
                    lines.push(format!("        {line}"));
                }
                if let (true, Some(welch)) = (vs.variances_differ, &vs.welch) {
                    let mut caution = format!(
                        "The variances differ (F = {}): Welch's t, df = {}, s.e. = {}, gives +/- {} ({}%).",
                        g(vs.variance_ratio.unwrap_or(f64::NAN), 4),
                        super::format_df(welch.df),
                        g(welch.s, 6),
                        g(welch.half_width, 6),
                        g(welch.percent_half_width, 6)
                    );
                    if vs.withdrawn {
                        caution.push_str(" It holds zero: the verdict is withdrawn.");
                    }
                    for line in wrap(&caution, WIDTH - 8) {
                        lines.push(format!("        {line}"));
                    }
                }
                let direction = if comparison.higher_is_better {
                    "higher is better"
                } else {
                    "lower is better"
                };
                lines.push(format!("Verdict: {} ({direction})", vs.verdict_words()));
            }
        }
    }
}

/// What a point gathers, in words: `3 runs of 3 configurations (timer,
/// patches differ)`, or `3 runs` for repeats.
pub fn runs_of_configurations(point: &Point) -> String {
    let runs = if point.n == 1 { "run" } else { "runs" };
    if point.mixed.is_empty() {
        return format!("{} {runs}", point.n);
    }
    let verb = if point.mixed.len() == 1 {
        "differs"
    } else {
        "differ"
    };
    format!(
        "{} {runs} of {} configurations ({} {verb})",
        point.n,
        point.configurations,
        point.mixed.join(", ")
    )
}

/// One line of ministat's table: N, min, max, median, mean and standard
/// deviation of a point's runs (`%11.8g`, so that 72 columns hold it).
fn vitals(symbol: char, point: &Point) -> String {
    let mut values = point.values();
    values.sort_by(f64::total_cmp);
    // ministat's median: the upper middle value of an even count.
    let median = values[values.len() / 2];
    let sample = Sample::of(&values);
    let deviation = if sample.n > 1 {
        g(sample.std_dev(), 8)
    } else {
        "-".to_owned()
    };
    format!(
        "{symbol} {:>3} {:>11} {:>11} {:>11} {:>11} {:>11}",
        sample.n,
        g(point.min, 8),
        g(point.max, 8),
        g(median, 8),
        g(sample.mean, 8),
        deviation
    )
}

/// `value` as C's `%.{precision}g` prints it (what ministat prints):
/// `precision` significant digits, trailing zeros dropped, an exponent
/// for very large or small values.
fn g(value: f64, precision: usize) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    let precision = precision.max(1);
    let scientific = format!("{value:.*e}", precision - 1);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let mantissa = trim_zeros(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        trim_zeros(&format!("{value:.decimals$}")).to_owned()
    }
}

fn trim_zeros(number: &str) -> &str {
    if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    }
}

/// At most `width` characters, the last one an ellipsis when cut.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(width - 1).collect();
        cut.push('…');
        cut
    }
}

/// Breaks text at spaces (or anywhere, for a long word such as a URL)
/// into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let needed =
            current.chars().count() + usize::from(!current.is_empty()) + word.chars().count();
        if needed > width && !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
        while current.chars().count() > width {
            let head: String = current.chars().take(width).collect();
            let rest: String = current.chars().skip(width).collect();
            lines.push(head);
            current = rest;
        }
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_to_the_width() {
        let long = format!("by scheduler, thread_lib; where {}", "x".repeat(100));
        for line in wrap(&long, 20) {
            assert!(line.chars().count() <= 20, "{line}");
        }
        assert_eq!(wrap("a b", 72), ["a b"]);
        assert_eq!(clip("abcdef", 4), "abc…");
    }

    /// ministat prints the upper middle value of an even count as the
    /// median (`ministat` on 1, 2, 3, 10: Median 3), not the mean of the
    /// two middle ones.
    #[test]
    fn the_median_is_ministats() {
        let values = [10.0, 1.0, 3.0, 2.0];
        let point = Point {
            threads: Some(1),
            item: "select_index".to_owned(),
            mean: 4.0,
            min: 1.0,
            max: 10.0,
            n: values.len(),
            configurations: 1,
            mixed: Vec::new(),
            vs_baseline: None,
            efficiency: None,
            runs: values
                .iter()
                .enumerate()
                .map(|(index, &value)| super::super::RunValue {
                    run_id: index as i64,
                    submission_id: 1,
                    line: 1,
                    value,
                    label: None,
                    author: None,
                    test: None,
                })
                .collect(),
        };
        assert_eq!(
            vitals('x', &point),
            "x   4           1          10           3           4   4.0824829"
        );
    }

    /// A bar comparison of `series` series, each with one point of its
    /// own item: as sparse as a matrix gets.
    fn sparse_bars(series: usize) -> Comparison {
        let point = |item: String| Point {
            threads: None,
            item,
            mean: 1.0,
            min: 1.0,
            max: 1.0,
            n: 1,
            configurations: 1,
            mixed: Vec::new(),
            vs_baseline: None,
            efficiency: None,
            runs: Vec::new(),
        };
        Comparison {
            query: "tool=sql-bench&metric=wallclock_s&by=label&x=none".to_owned(),
            tool: "sql-bench".to_owned(),
            metric: "wallclock_s".to_owned(),
            unit: "s".to_owned(),
            metric_title: "wall-clock time".to_owned(),
            higher_is_better: false,
            item: None,
            test: None,
            x: XAxis::None,
            by: vec!["label".to_owned()],
            key_columns: vec!["label".to_owned()],
            wheres: Vec::new(),
            baseline: None,
            confidence: super::super::Confidence::P95,
            categories: (0..series).map(|i| format!("item {i}")).collect(),
            series: (0..series)
                .map(|i| Series {
                    name: format!("series {i}"),
                    keys: Default::default(),
                    points: vec![point(format!("item {i}"))],
                    peak: None,
                    is_baseline: false,
                })
                .collect(),
            without_threads: 0,
            notices: Vec::new(),
            attributes: Vec::new(),
        }
    }

    /// Items × series grows as their product while the points stay few:
    /// past the bound the text keeps a block per series.
    #[test]
    fn a_matrix_is_bounded_by_its_cells() {
        let small = sparse_bars(44);
        let matrix = Matrix::of(&small, true).unwrap();
        assert_eq!(matrix.rows.len(), 44);
        assert_eq!(matrix.rows[3].cells.iter().flatten().count(), 1);
        assert_eq!(matrix.rows[3].cells[3].unwrap().item, "item 3");
        let large = sparse_bars(45);
        const { assert!(44 * 44 <= MAX_MATRIX_CELLS && 45 * 45 > MAX_MATRIX_CELLS) };
        assert!(Matrix::of(&large, true).is_none());
        let text = to_text(&large);
        assert!(
            text.contains("45 items by 45 series are too many for one table"),
            "{text}"
        );
        assert!(text.contains("\nseries 44\n  item "), "{text}");
    }

    /// The cells leave n out; the legend says it, per column where the
    /// columns differ.
    #[test]
    fn the_legend_says_how_many_runs_each_mean_is_of() {
        let mut bars = sparse_bars(3);
        let matrix = Matrix::of(&bars, false).unwrap();
        assert_eq!(runs_per_mean(&matrix), "Each mean is of 1 run.");
        bars.series[1].points[0].n = 3;
        let mut second = bars.series[1].points[0].clone();
        second.item = "item 2".to_owned();
        second.n = 2;
        bars.series[1].points.push(second);
        let matrix = Matrix::of(&bars, false).unwrap();
        assert_eq!(
            runs_per_mean(&matrix),
            "Runs per mean, by column: 1: 1; 2: 2-3; 3: 1."
        );
    }

    #[test]
    fn numbers_print_as_cs_g() {
        // What printf("%g") gives for each.
        let cases = [
            (31254.7123, 6, "31254.7"),
            (8034.44, 6, "8034.44"),
            (16.7600001, 6, "16.76"),
            (-0.000123456, 6, "-0.000123456"),
            (0.0000123456, 6, "1.23456e-05"),
            (1234567.0, 6, "1.23457e+06"),
            (100.0, 6, "100"),
            (-6153.15, 6, "-6153.15"),
            (28581.18, 8, "28581.18"),
            (999999.5, 6, "1e+06"),
            (0.0, 6, "0"),
        ];
        for (index, (value, precision, want)) in cases.into_iter().enumerate() {
            assert_eq!(g(value, precision), want, "case {index}");
        }
    }
}
