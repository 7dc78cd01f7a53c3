//! The comparison as plain text for a mail: at most [`WIDTH`] columns,
//! one block per series on a line chart, an item × series [`Matrix`] as
//! sql-bench's `compare-results` prints it on bars, then, with a
//! baseline, a ministat-style block for each point compared with it.

use super::{Comparison, Point, Sample, Series, Verdict, VsBaseline, XAxis, MIN_RUNS};
use crate::charts::{format_value, NO_FIGURE};
use parsers::contract::POST_KEY;

mod matrix;

use matrix::matrix_lines;
pub use matrix::{Matrix, MatrixRow};

/// Mail clients wrap longer lines (and quote them with "> ").
pub const WIDTH: usize = 72;

/// The comparison as text: a header saying what was compared, then each
/// series with its points (mean, min, max, n, difference to the
/// baseline, efficiency) and its peak, or on bars the matrix of the
/// items' means and differences, then the differences to the baseline as
/// ministat prints them.
///
/// Its last line is the comparison's link, absolute where `origin`
/// (`http://host:port`) is known.
pub fn to_text(comparison: &Comparison, origin: Option<&str>) -> String {
    let mut lines = heading(comparison);
    let threads = comparison.x == XAxis::Threads;
    let with_efficiency = comparison
        .series
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| p.efficiency.is_some());
    let with_baseline = comparison.baseline.is_some();
    let first_title = match comparison.x {
        XAxis::Threads => "threads",
        XAxis::None => "item",
        XAxis::Attribute(key) => key,
    };
    // Item names and values along x give up two characters to the
    // difference column.
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
    if matrix.is_none() {
        let layout = LongForm {
            first_title,
            first_width,
            with_baseline,
            with_efficiency,
        };
        for series in &comparison.series {
            series_block(comparison, series, &layout, &mut lines);
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
    let mut text = String::new();
    for line in lines {
        text.push_str(&clip(line.trim_end(), WIDTH));
        text.push('\n');
    }
    // The link on a line of its own, whole however long: a link cut in
    // two opens nothing, and mail clients link a URL that stands alone.
    text.push('\n');
    text.push_str(&format!(
        "{}/compare?{}\n",
        origin.unwrap_or(""),
        comparison.query
    ));
    text
}

/// The title, the value axis, what the comparison is by, where and
/// against, its notices, and that nothing matched when nothing did.
fn heading(comparison: &Comparison) -> Vec<String> {
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

    lines
}

/// The columns of the long form's rows.
struct LongForm {
    first_title: &'static str,
    first_width: usize,
    with_baseline: bool,
    with_efficiency: bool,
}

/// A series in the long form: a row per point, what a mixed point
/// gathers, and its peak.
fn series_block(
    comparison: &Comparison,
    series: &Series,
    layout: &LongForm,
    lines: &mut Vec<String>,
) {
    let LongForm {
        first_title,
        first_width,
        with_baseline,
        with_efficiency,
    } = *layout;
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
        let at = at_words(point);
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

/// Where a point is, in words: `16 threads`, `6.1-RELEASE`, or its item.
fn at_words(point: &Point) -> String {
    match (&point.x, point.threads) {
        (None, Some(threads)) => format!("{threads} threads"),
        _ => point.x_text(),
    }
}

fn row(point: &Point, first_width: usize, with_baseline: bool, with_efficiency: bool) -> String {
    let first = clip(&point.x_text(), first_width);
    // Thread counts to the right, names and values along x to the left.
    let first = if point.threads.is_some() && point.x.is_none() {
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
    // A series has one point per x.
    type At<'p> = (Option<u32>, Option<&'p str>, &'p str);
    let base_points: std::collections::HashMap<At, &Point> = base
        .points
        .iter()
        .map(|b| ((b.threads, b.x.as_deref(), b.item.as_str()), b))
        .collect();
    for (series, point, vs) in compared {
        let Some(base_point) = base_points
            .get(&(point.threads, point.x.as_deref(), point.item.as_str()))
            .copied()
        else {
            continue;
        };
        let pair = Pair {
            series,
            point,
            base,
            base_point,
        };
        difference_block(comparison, &pair, vs, lines);
    }
}

/// A point compared with the baseline's point at its x.
struct Pair<'a> {
    series: &'a Series,
    point: &'a Point,
    base: &'a Series,
    base_point: &'a Point,
}

/// One point against the baseline, as ministat prints it: the two sets'
/// vitals, then the interval, or why there is none.
fn difference_block(
    comparison: &Comparison,
    pair: &Pair,
    vs: &VsBaseline,
    lines: &mut Vec<String>,
) {
    let Pair {
        series,
        point,
        base,
        base_point,
    } = *pair;
    lines.push(String::new());
    let at = at_words(point);
    lines.extend(wrap(&format!("{}, {at}", series.name), WIDTH));
    lines.extend(wrap(&format!("x {} (baseline)", base.name), WIDTH));
    lines.extend(wrap(&format!("+ {}", series.name), WIDTH));
    lines.push(format!(
        "    N {:>11} {:>11} {:>11} {:>11} {:>11}",
        "Min", "Max", "Median", "Avg", "Stddev"
    ));
    lines.push(vitals('x', base_point));
    lines.push(vitals('+', point));
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
        Some(interval) => interval_lines(comparison, vs, interval, lines),
    }
}

/// ministat's heading, from Student's interval, the difference with its
/// half-width (absolute and in %), Welch's caution where the variances
/// differ, and the verdict.
fn interval_lines(
    comparison: &Comparison,
    vs: &VsBaseline,
    interval: &super::Interval,
    lines: &mut Vec<String>,
) {
    let confidence = comparison.confidence.percent();
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

/// What a point gathers, in words: `3 runs of 3 configurations (timer,
/// patches differ)`, or `3 runs` for repeats.
pub fn runs_of_configurations(point: &Point) -> String {
    let runs = if point.n == 1 { "run" } else { "runs" };
    if point.mixed.is_empty() {
        return format!("{} {runs}", point.n);
    }
    if point.mixed == [POST_KEY] {
        return format!(
            "{} {runs} from {} posts that name no machine",
            point.n, point.configurations
        );
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
        g(super::stats::std_dev(&values), 8)
    } else {
        NO_FIGURE.to_owned()
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
        return NO_FIGURE.to_owned();
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
    use super::matrix::*;
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
            x: None,
            item: "select_index".to_owned(),
            mean: 4.0,
            min: 1.0,
            max: 10.0,
            n: values.len(),
            configurations: 1,
            mixed: Vec::new(),
            vs_baseline: None,
            efficiency: None,
            moments: None,
            linked: Vec::new(),
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
            x: None,
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
            moments: None,
            linked: Vec::new(),
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
            x_values: Vec::new(),
            without_x: 0,
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
        const {
            assert!(
                44 * 44 <= crate::limits::MAX_MATRIX_CELLS
                    && 45 * 45 > crate::limits::MAX_MATRIX_CELLS
            )
        };
        assert!(Matrix::of(&large, true).is_none());
        let text = to_text(&large, None);
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
            // Not a figure: as the page prints it (the CSV leaves the
            // cell empty, JSON says null).
            (f64::INFINITY, 6, "-"),
            (f64::NAN, 8, "-"),
        ];
        for (index, (value, precision, want)) in cases.into_iter().enumerate() {
            assert_eq!(g(value, precision), want, "case {index}");
        }
    }
}
