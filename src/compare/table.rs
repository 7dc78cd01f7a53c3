//! The comparison as plain text for a mail: at most [`WIDTH`] columns,
//! one block per series.

use super::{Comparison, Point, XAxis};
use crate::charts::format_value;

/// Mail clients wrap longer lines (and quote them with "> ").
pub const WIDTH: usize = 72;

/// The comparison as text: a header saying what was compared, then each
/// series with its points (mean, min, max, n, difference to the
/// baseline, efficiency) and its peak.
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
        scope.push(format!("baseline {baseline}"));
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
    let first_width = if threads { 7 } else { 18 };
    for series in &comparison.series {
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
            header.push_str(&format!(" {:>13}", "vs baseline"));
        }
        if with_efficiency {
            header.push_str(&format!(" {:>5}", "eff."));
        }
        lines.push(header);
        for point in &series.points {
            lines.push(row(point, first_width, with_baseline, with_efficiency));
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
            Some(vs) => vs.describe(),
            None => "-".to_owned(),
        };
        line.push_str(&format!(" {difference:>13}"));
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
}
