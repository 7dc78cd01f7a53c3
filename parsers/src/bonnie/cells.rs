//! A bon_csv2html table copied from a browser as text: each run's cells
//! run together on one line, in the order of bon_csv2html's columns (the
//! name, for 1.9x the concurrency, the size, six rate and CPU pairs, the
//! file count and six more pairs), and 1.9x's latencies on the next line
//! after the name and a `Latency` cell before each group of six:
//!
//! ```text
//! AcharyaX  1  4G  605  98  84920  23 ... 16  9475  40  +++++  +++ ...
//!
//! AcharyaX  Latency  21843us  6385ms ...  Latency  24609us  66us ...
//! ```
//!
//! Only a row with every cell is read: a copy drops the blank cells of a
//! phase that did not run, and the figures left cannot be placed.

use super::{cell, is_size, latency_us, split_size, Flavour, Report, FILE_PHASES};
use crate::text::Line;
use crate::Unparsed;

/// Cells of a row after the name (and concurrency): the size, twelve
/// figures, the file count, twelve figures.
const ROW_CELLS: usize = 26;

/// How many blank lines may stand between a row and its latency row.
const MAX_BLANKS_BEFORE_LATENCY: usize = 2;

/// Whether `text` is a data row of such a table.
pub(super) fn is_row(text: &str) -> bool {
    parse_row(text, 0, 0).is_some()
}

/// The run of the row at `lines[at]`, with the latencies of the row after
/// it when there is one, and the index past what was used.
pub(super) fn read_row(
    lines: &[Line<'_>],
    at: usize,
) -> Option<Result<(Vec<Report>, usize), Unparsed>> {
    let line = &lines[at];
    let mut report = parse_row(line.text, line.depth, line.number)?;
    let mut end = at + 1;
    let next = (at + 1..lines.len().min(at + 2 + MAX_BLANKS_BEFORE_LATENCY))
        .find(|&k| !lines[k].is_blank());
    if let Some(k) = next {
        let name = report.machine.as_deref().unwrap_or_default();
        if let Some(latencies) = latency_row(lines[k].text, name) {
            for (phase, latency) in report.phases.iter_mut().zip(latencies) {
                phase.latency_us = latency;
                phase.latency_line = lines[k].number;
            }
            report.lines[1] = lines[k].number;
            end = k + 1;
        }
    }
    Some(Ok((vec![report], end)))
}

/// A row's run: `NAME [CONCURRENCY] SIZE` and the figures, each a cell
/// bonnie++ could print (`+++++` stays unmeasured).
fn parse_row(text: &str, depth: usize, line: usize) -> Option<Report> {
    // Every line with a `G` or `M` comes here: its first two words rule
    // out nearly all (a name with a letter, then the size or the
    // concurrency) before the line is split whole.
    let mut head = text.split_whitespace();
    let (Some(name), Some(second)) = (head.next(), head.next()) else {
        return None;
    };
    if !name.chars().any(char::is_alphabetic)
        || !(is_size(second) || second.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let words: Vec<&str> = text.split_whitespace().take(ROW_CELLS + 3).collect();
    let (name, concurrency, rest) = match words.as_slice() {
        [name, rest @ ..] if rest.len() == ROW_CELLS => (*name, None, rest),
        [name, concurrency, rest @ ..]
            if rest.len() == ROW_CELLS && concurrency.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (*name, Some(*concurrency), rest)
        }
        _ => return None,
    };
    let (size, io, files, file_ops) = (rest[0], &rest[1..13], rest[13], &rest[14..26]);
    let plausible = cell(name).is_none()
        && name.chars().any(char::is_alphabetic)
        && is_size(size)
        && files.starts_with(|c: char| c.is_ascii_digit())
        && io.iter().chain(file_ops).all(|c| cell(c).is_some());
    if !plausible {
        return None;
    }
    let mut report = Report::new(Flavour::PlusPlus, depth, line);
    report.machine = Some(name.to_string());
    let (size, chunk) = split_size(size);
    report.size = Some(size);
    report.chunk_size = chunk;
    report.concurrency = concurrency.map(str::to_string);
    report.files = Some(files.to_string());
    for (first, pairs) in [(0, io), (FILE_PHASES, file_ops)] {
        for (k, pair) in pairs.chunks(2).enumerate() {
            let phase = &mut report.phases[first + k];
            phase.rate = cell(pair[0]).flatten();
            phase.cpu = cell(pair[1]).flatten();
            phase.line = line;
        }
    }
    report.has_results().then_some(report)
}

/// The twelve latencies of `NAME Latency l1 .. l6 Latency l7 .. l12` (or
/// of its first half alone), `None` where a cell is blank or not one.
fn latency_row(text: &str, name: &str) -> Option<[Option<f64>; 12]> {
    let mut words = text.split_whitespace();
    if words.next()? != name {
        return None;
    }
    let mut latencies = [None; 12];
    let mut k = 0;
    for word in words.take(16) {
        if word == "Latency" {
            if k % 6 != 0 {
                return None;
            }
            continue;
        }
        *latencies.get_mut(k)? = Some(latency_us(word)?);
        k += 1;
    }
    (k == 6 || k == 12).then_some(latencies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &str) -> Vec<Line<'_>> {
        input
            .lines()
            .enumerate()
            .map(|(i, text)| Line {
                number: i + 1,
                depth: 0,
                text,
            })
            .collect()
    }

    #[test]
    fn a_row_and_its_latencies_copied_from_a_page() {
        let input = "\
AcharyaX  1  4G  605  98  84920  23  46401  14  904  98  110006  22  315.3  4  16  9475  40  +++++  +++  8974  34  6654  29  +++++  +++  3542  14

AcharyaX  Latency  21843us  6385ms  221ms  32083us  21271us  160ms  Latency  24609us  66us  10936us  226ms  61us  339ms
";
        let lines = lines(input);
        assert!(is_row(lines[0].text));
        let Some(Ok((reports, end))) = read_row(&lines, 0) else {
            panic!("not read");
        };
        assert_eq!(end, 3);
        let report = &reports[0];
        assert_eq!(report.machine.as_deref(), Some("AcharyaX"));
        assert_eq!(report.size.as_deref(), Some("4G"));
        assert_eq!(report.files.as_deref(), Some("16"));
        assert_eq!(report.phases[1].rate, Some(84920.0));
        assert_eq!(report.phases[7].rate, None);
        assert_eq!(report.phases[1].latency_us, Some(6_385_000.0));
        assert_eq!(report.phases[11].latency_us, Some(339_000.0));
        assert_eq!(report.lines, [1, 3]);
    }

    #[test]
    fn other_lines_are_no_rows() {
        for text in [
            "AcharyaX  1  4G  605  98",
            "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP",
            "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27",
            "a b c d e f g h i j k l m n o p q r s t u v w x y z and more words of prose",
        ] {
            assert!(!is_row(text), "{text:?}");
        }
    }
}
