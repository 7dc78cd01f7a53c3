//! One-line summaries: `64 threads, time spent: 60s, ...`, each a run.

use nom::bytes::complete::tag_no_case;
use nom::character::complete::{char, digit1, multispace0, multispace1};
use nom::combinator::opt;
use nom::Parser;

use crate::number::pointed_decimal;
use crate::text::Line;
use crate::{Measurement, Run, Tool, Unparsed};

use super::report::{end_of_value, label};
use super::{Res, SUMMARY_MARK};

/// A one-line summary: `64 threads, time spent: 60s, queries executed:
/// 11500723, qps: 191678, 1 thread qps: 2994, tps: 13691`.
#[derive(Debug, Clone, PartialEq)]
pub struct OneLineSummary {
    pub threads: u32,
    pub time_spent_s: f64,
    pub queries: f64,
    pub qps: f64,
    pub qps_per_thread: f64,
    pub tps: f64,
}

pub fn one_line_summary(input: &str) -> Res<'_, OneLineSummary> {
    let (rest, (threads, _, time_spent_s, _, queries, _, qps, _, qps_per_thread, _, tps)) = (
        digit1.map_res(str::parse::<u32>),
        (multispace1, label("threads, time spent:"), multispace0),
        (pointed_decimal, opt(char('s'))).map(|(n, _)| n),
        (
            char(','),
            multispace1,
            label("queries executed:"),
            multispace0,
        ),
        pointed_decimal,
        (char(','), multispace1, tag_no_case("qps:"), multispace0),
        pointed_decimal,
        (char(','), multispace1, label("1 thread qps:"), multispace0),
        pointed_decimal,
        (char(','), multispace1, tag_no_case("tps:"), multispace0),
        pointed_decimal,
    )
        .parse(input)?;
    end_of_value(rest)?;
    Ok((
        rest,
        OneLineSummary {
            threads,
            time_spent_s,
            queries,
            qps,
            qps_per_thread,
            tps,
        },
    ))
}

/// Reads the one-line summaries from line `start` on (consecutive lines
/// holding them), each a run labelled by the underlined heading before it.
/// Returns the index of the first line after them.
pub(super) fn summaries(
    lines: &[Line<'_>],
    start: usize,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) -> usize {
    let mut label: Option<String> = heading_line_above(lines, start);
    let mut i = start;
    while i < lines.len() && lines[i].text.contains(SUMMARY_MARK) {
        let line = &lines[i];
        let text = line.text;
        let mut search_from = 0;
        while let Some(found) = text.get(search_from..).and_then(|t| t.find(SUMMARY_MARK)) {
            let mark = search_from + found;
            let Some(start_at) = count_start(text, mark) else {
                search_from = mark + SUMMARY_MARK.len();
                continue;
            };
            let before = text.get(search_from..start_at).unwrap_or_default();
            if let Some(heading) = underlined_heading(before) {
                label = Some(heading);
            }
            match one_line_summary(text.get(start_at..).unwrap_or_default()) {
                Ok((rest, summary)) => {
                    runs.push(summary_run(&summary, label.clone(), line));
                    search_from = text.len() - rest.len();
                }
                Err(_) => {
                    unparsed.push(Unparsed {
                        line: line.number,
                        text: text.get(start_at..).unwrap_or_default().chars().take(200).collect(),
                        why: "looks like a sysbench one-line summary but is incomplete: expected `N threads, time spent: Ns, queries executed: N, qps: X, 1 thread qps: X, tps: X`".to_string(),
                    });
                    search_from = mark + SUMMARY_MARK.len();
                }
            }
        }
        i += 1;
    }
    i.max(start + 1)
}

/// Where the thread count before `threads, time spent:` starts.
fn count_start(text: &str, mark: usize) -> Option<usize> {
    let before = text.get(..mark)?.trim_end();
    let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then(|| before.len() - digits)
}

/// `... benchmarks: Original -------- ` -> `Original`: a heading underlined
/// with dashes, the underline as long as the heading. Without a matching
/// length, the words back to the last sentence end.
fn underlined_heading(before: &str) -> Option<String> {
    let trimmed = before.trim_end();
    let dashes = trimmed.len() - trimmed.trim_end_matches('-').len();
    if dashes < 3 {
        return None;
    }
    let text = trimmed.get(..trimmed.len() - dashes)?.trim_end();
    let by_length = text
        .len()
        .checked_sub(dashes)
        .filter(|&at| {
            at == 0
                || text
                    .get(..at)
                    .is_some_and(|b| b.ends_with(char::is_whitespace))
        })
        .and_then(|at| text.get(at..));
    let heading = by_length.unwrap_or_else(|| {
        let cut = [": ", ". ", "! ", "? "]
            .iter()
            .filter_map(|end| text.rfind(end).map(|at| at + end.len()))
            .max()
            .unwrap_or(0);
        text.get(cut..).unwrap_or_default()
    });
    let heading = heading.split_whitespace().collect::<Vec<_>>().join(" ");
    (!heading.is_empty() && heading.len() <= 80).then_some(heading)
}

/// A heading on the line above a summary line: `Original` over `--------`.
fn heading_line_above(lines: &[Line<'_>], start: usize) -> Option<String> {
    let underline = lines.get(start.checked_sub(1)?)?;
    let text = underline.text.trim();
    if text.len() < 3 || !text.bytes().all(|b| b == b'-') {
        return None;
    }
    let heading = lines.get(start.checked_sub(2)?)?.text.trim();
    (!heading.is_empty() && heading.len() <= 80).then(|| heading.to_string())
}

/// A line of a shell loop over thread counts that greps sysbench's
/// `transactions:` line and prints the count before it: `1: transactions:
/// 4073 (407.23 per sec.)`, as LKML's scheduler benchmarks list them under
/// `#threads`, or without the colon (`16 transactions: 89778 (1496.01 per
/// sec.)` under `Threads`). Gives the count, the transactions and their
/// rate.
pub(super) fn thread_count_line(text: &str) -> Option<(u32, f64, f64)> {
    let parsed: Res<'_, _> = (
        multispace0,
        digit1.map_res(str::parse::<u32>),
        (
            opt(char(':')),
            multispace1,
            tag_no_case("transactions:"),
            multispace0,
        ),
        pointed_decimal,
        (multispace0, char('('), multispace0),
        pointed_decimal,
        (multispace1, tag_no_case("per sec.)"), multispace0),
    )
        .parse(text);
    let (rest, (_, threads, _, transactions, _, tps, _)) = parsed.ok()?;
    (rest.is_empty() && threads > 0).then_some((threads, transactions, tps))
}

/// Reads the thread-count lines from line `start` on ([`thread_count_line`],
/// consecutive at one depth), each a run with its thread count, labelled
/// by the line ending in a colon above them (`v2.6.23 +
/// sys_time-speedup.patch:`), past a `#threads` heading. Returns the index
/// of the first line after them.
pub(super) fn thread_count_lines(lines: &[Line<'_>], start: usize, runs: &mut Vec<Run>) -> usize {
    let depth = lines[start].depth;
    let label = lines[..start]
        .iter()
        .rev()
        .take_while(|line| line.depth == depth)
        .map(|line| line.text.trim())
        .find(|text| !text.is_empty() && !text.starts_with('#'))
        .and_then(|text| text.strip_suffix(':'))
        .map(str::trim)
        .filter(|text| !text.is_empty() && text.len() <= 80)
        .map(str::to_owned);
    let mut i = start;
    while let Some(line) = lines.get(i).filter(|line| line.depth == depth) {
        let Some((threads, transactions, tps)) = thread_count_line(line.text) else {
            break;
        };
        let n = line.number;
        let results = vec![
            Measurement::new("total", "transactions", transactions, n),
            Measurement::new("total", "tps", tps, n),
        ];
        runs.push(Run {
            label: label.clone(),
            threads: Some(threads),
            ..Run::new(Tool::Sysbench, depth, [n, n], results)
        });
        i += 1;
    }
    i.max(start + 1)
}

fn summary_run(summary: &OneLineSummary, label: Option<String>, line: &Line<'_>) -> Run {
    let n = line.number;
    let results = vec![
        Measurement::new("total", "qps", summary.qps, n),
        Measurement::new("total", "qps_per_thread", summary.qps_per_thread, n),
        Measurement::new("total", "tps", summary.tps, n),
        Measurement::new("total", "queries", summary.queries, n),
        Measurement::new("total", "total_time_s", summary.time_spent_s, n),
    ];
    Run {
        label,
        threads: Some(summary.threads),
        ..Run::new(Tool::Sysbench, line.depth, [n, n], results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_count_lines_are_runs_labelled_by_the_line_above() {
        let input = "v2.6.23:\n#threads\n1: transactions: 4073 (407.23 per sec.)\n2: transactions: 8530 (852.81 per sec.)\nv2.6.23 + sys_time-speedup.patch:\n1: transactions: 4281 (428.09 per sec.)\n";
        let lines = crate::text::lines(input);
        let mut runs = Vec::new();
        assert_eq!(thread_count_lines(&lines, 2, &mut runs), 4);
        assert_eq!(thread_count_lines(&lines, 5, &mut runs), 6);
        type Seen<'a> = (Option<&'a str>, Option<u32>, Option<f64>, Option<f64>);
        let got: Vec<Seen> = runs
            .iter()
            .map(|run| {
                (
                    run.label.as_deref(),
                    run.threads,
                    run.value("total", "transactions"),
                    run.value("total", "tps"),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (Some("v2.6.23"), Some(1), Some(4073.0), Some(407.23)),
                (Some("v2.6.23"), Some(2), Some(8530.0), Some(852.81)),
                (
                    Some("v2.6.23 + sys_time-speedup.patch"),
                    Some(1),
                    Some(4281.0),
                    Some(428.09)
                ),
            ]
        );
        assert_eq!(runs[1].lines, [4, 4]);
        assert_eq!(
            thread_count_line("16 transactions:                        89778  (1496.01 per sec.)"),
            Some((16, 89778.0, 1496.01))
        );
        assert_eq!(
            thread_count_line("0: transactions: 1 (1.00 per sec.)"),
            None
        );
        assert_eq!(
            thread_count_line("1: transactions: 4073 (407.23 per sec.) and more"),
            None
        );
        assert_eq!(
            thread_count_line("    transactions: 4073 (407.23 per sec.)"),
            None
        );
    }

    #[test]
    fn underlined_headings() {
        let cases = [
            (
                "And it gives over 5 000 TPS in my benchmarks: Original -------- ",
                Some("Original"),
            ),
            (" slow LOCK_open -------------- ", Some("slow LOCK_open")),
            (
                " slow LOCK_open + THR_LOCK::mutex -------------------------------- ",
                Some("slow LOCK_open + THR_LOCK::mutex"),
            ),
            ("Results. patched --- ", Some("patched")),
            (", ", None),
        ];
        for (i, (before, want)) in cases.into_iter().enumerate() {
            assert_eq!(underlined_heading(before).as_deref(), want, "case {i}");
        }
    }
}
