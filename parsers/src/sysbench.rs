//! sysbench output of every generation people post, read as a stream of
//! `label: value` fields:
//!
//! ```text
//! sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)
//! Number of threads: 4
//! [ 1s ] thds: 4 tps: 758.17 qps: 15191.27 (r/w/o: 10640.27/3032.68/1518.33) lat (ms,95%): 6.32 err/s: 0.00 reconn/s: 0.00
//! SQL statistics:
//!     queries performed:
//!         read:                            196672
//!     transactions:                        14048  (2806.10 per sec.)
//! General statistics:
//!     total time:                          5.0041s
//! Latency (ms):
//!          95th percentile:                        2.81
//! ```
//!
//! 0.4's `OLTP test statistics:` / `Test execution summary:`, 0.5's
//! `General statistics:` with `response time:`, 1.0's `SQL statistics:` and
//! `Latency (ms):`, the cpu, memory, threads, mutex and fileio modes, the
//! `--report-interval` lines of each generation (items `t=10s`) and a
//! `--histogram` block all go through the same field reader. Any run of
//! spaces and line breaks separates two fields, so a report wrapped by a
//! mailer or one that lost its line breaks reads the same as the original.
//!
//! 1.1's `Throughput:` block (`events/s (eps):`, `time elapsed:`) reads
//! too, even pasted alone. A value near 2^64 is one of sysbench's unsigned
//! counters wrapped around, never a measurement: it is left out and reported
//! as a near miss (an interval line holding one is dropped whole).
//!
//! The run's header (banner, `Number of threads:`, command line, 0.4's
//! `Doing ... test` mode line, a `=> 8 THREADS` marker of a shell loop) is
//! looked for above the report, back to where the previous report ended;
//! a command quoted above a plain report (with at most a caption and
//! elisions between) is its header too.
//!
//! A report printed as side-by-side columns under a header that names
//! them (`Without zcache   With zcache`) gives one run per column,
//! labelled by its header (`columns.rs`).
//!
//! One-line summaries such as `64 threads, time spent: 60s, queries
//! executed: 11500723, qps: 191678, 1 thread qps: 2994, tps: 13691` are runs
//! too, labelled by the underlined heading before them.

use std::collections::BTreeMap;

use nom::IResult;

use crate::reader::{LineBytes, Reader};
use crate::text::{self, Line, LogicalLine};
use crate::{Measurement, Run, Tool, Unparsed};

mod columns;
mod glued;
mod header;
pub(crate) mod workload;

pub(crate) use header::prepare_or_cleanup_output;
mod report;
mod summary;

use header::{read_header, RunHeader};
use report::{assemble, is_interval_line, overflow_reason, report_elements, Item, SysbenchReport};
use summary::{summaries, thread_count_line, thread_count_lines};

/// A report longer than this many lines is not one report (600 interval
/// lines and a histogram still fit).
const MAX_REPORT_LINES: usize = 2000;
/// Lines joined for a first reading of a report.
const SHORT_BLOCK_LINES: usize = 64;
/// Lines one field may span: its label, and its value in the next cell
/// of an HTML table (a blank line between the cells).
const FIELD_LINES: usize = 3;
/// Text that starts a report, found with a plain substring search.
const ANCHORS: [&str; 13] = [
    "OLTP test statistics:",
    "SQL statistics:",
    BODY_ANCHORS[0],
    BODY_ANCHORS[1],
    BODY_ANCHORS[2],
    BODY_ANCHORS[3],
    "General statistics:",
    "Test execution summary:",
    "CPU speed:",
    "File operations:",
    "Total operations:",
    "Operations performed:",
    // 1.1 prints it for every test, and a poster may paste only it and
    // the latencies.
    THROUGHPUT,
];
const THROUGHPUT: &str = "Throughput:";
/// Lines inside a report that start one when the lines above them are cut
/// off or mangled (a paste that starts mid-report, a heading a markdown
/// renderer broke in two). Words common enough in prose, so they start a
/// report only alone on their line and only if a report's body follows
/// ([`is_body`]); otherwise they are nothing, not a near miss.
const BODY_ANCHORS: [&str; 4] = [
    "queries performed:",
    "Latency (ms):",
    "per-request statistics:",
    "total time:",
];
/// Fields a report's tail may start at once a poster cut its head: a
/// sysbench command (or banner), a `...` line, then the report from
/// `transactions:` or `total number of events:` on. They start a report
/// only there ([`header::opens_a_run_above`]), and the command's threads
/// and test are the run's.
const TAIL_ANCHORS: [&str; 2] = ["transactions:", "total number of events:"];
const HISTOGRAM_START: &str = "Latency histogram (values are in milliseconds)";
const SUMMARY_MARK: &str = "threads, time spent:";

type Res<'a, T> = IResult<&'a str, T>;

/// The bytes right before the colon of [`ANCHORS`] and [`SUMMARY_MARK`]:
/// [`start_in`] compares the anchors only at a colon after one of them.
const BEFORE_COLON: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i <= ANCHORS.len() + TAIL_ANCHORS.len() {
        let anchor = if i < ANCHORS.len() {
            ANCHORS[i].as_bytes()
        } else if i < ANCHORS.len() + TAIL_ANCHORS.len() {
            TAIL_ANCHORS[i - ANCHORS.len()].as_bytes()
        } else {
            SUMMARY_MARK.as_bytes()
        };
        // Every anchor ends with a colon after at least one byte.
        table[anchor[anchor.len() - 2] as usize] = true;
        i += 1;
    }
    table
};

/// How the one walk over the lines finds sysbench's reports.
pub struct SysbenchReader;

impl Reader for SysbenchReader {
    const TOOL: Tool = Tool::Sysbench;
    // An interval line's `[`, the histogram heading's `(`, the colon that
    // ends every other anchor.
    const START_LINE_BYTES: &'static [u8] = b"[(:";
    /// Headers above this index belong to earlier runs.
    type State = usize;

    fn may_start(lines: &[Line<'_>], i: usize, line_bytes: LineBytes<'_>) -> bool {
        start_in(lines[i].text, line_bytes).is_some()
    }

    /// Reads the sysbench report or one-line summaries at line `i`; a
    /// report that starts but breaks off becomes an [`Unparsed`] entry.
    fn read_at(
        lines: &[Line<'_>],
        i: usize,
        taken_until: &mut usize,
        runs: &mut Vec<Run>,
        unparsed: &mut Vec<Unparsed>,
    ) -> usize {
        let text = lines[i].text;
        let offset = match start_in(text, LineBytes::unknown()) {
            None => return i + 1,
            Some(Start::Summaries) => {
                *taken_until = summaries(lines, i, runs, unparsed);
                return *taken_until;
            }
            Some(Start::ThreadCounts) => {
                *taken_until = thread_count_lines(lines, i, runs);
                return *taken_until;
            }
            Some(Start::Report(offset)) => offset,
        };
        let alone = text.get(..offset).is_some_and(|t| t.trim().is_empty());
        let at_body = text
            .get(offset..)
            .is_some_and(|t| BODY_ANCHORS.iter().any(|a| t.starts_with(a)));
        if at_body && !alone {
            return i + 1;
        }
        let at_tail = text
            .get(offset..)
            .is_some_and(|t| TAIL_ANCHORS.iter().any(|a| t.starts_with(a)));
        if at_tail && !tail_after_cut(lines, *taken_until, i) {
            return i + 1;
        }
        if let Some(end) = alone
            .then(|| side_by_side(lines, *taken_until, i, runs, unparsed))
            .flatten()
        {
            *taken_until = end;
            return end;
        }
        let block = report_block(lines, i, offset);
        let (rest, elements) = report_elements(block.text.get(offset..).unwrap_or_default());
        // `Throughput:` is a common word in other tools' output and in
        // prose: alone, without a sysbench field after it, it is not a
        // report, broken or whole.
        let lone_throughput = elements.len() <= 1
            && block
                .text
                .get(offset..)
                .is_some_and(|t| t.starts_with(THROUGHPUT));
        let consumed = block.text.len() - rest.len();
        let used = block.text.get(..consumed).unwrap_or_default().trim_end();
        // The last line the report used, by its place among `lines`
        // (several lines may share a source line number: table cells).
        let last = i + block.position_at(used.len().saturating_sub(1));
        let last_line = lines[last].number.max(lines[i].number);
        let elided = (0..i)
            .rev()
            .map(|j| &lines[j])
            .find(|l| !l.is_blank())
            .is_some_and(|l| l.depth == lines[i].depth && crate::text::is_elision(l.text.trim()));
        match assemble(elements, rest, (elided && alone) || at_tail) {
            // Interval lines alone are a run's progress, not its result:
            // a run needs a final report (they are its items when one
            // follows them). They leave the header above them to the
            // report below: a tutorial shows the command, then some
            // interval lines, then, after a paragraph, the final report.
            Ok(report) if !report.fields.iter().any(|f| f.item == Item::Total) => {
                return last.max(i) + 1;
            }
            Ok(report) if at_body && !at_tail && !is_body(&report) => {}
            Ok(report) => {
                let glued = text.get(..offset).unwrap_or_default();
                let header = read_header(lines, *taken_until, i, glued);
                report_overflows(&report, &block, unparsed);
                let own_header = header.first.is_some();
                let first = header.first.unwrap_or(i).min(i);
                let span = [lines[first].number, last_line];
                let run = to_run(&report, &block, header, lines[i].depth, span);
                push_or_continue(runs, run, own_header);
            }
            // A heading word inside a sentence is not a report.
            Err(_) if !text.get(..offset).unwrap_or_default().trim().is_empty() => {}
            Err(_) if lone_throughput || at_body => {}
            Err(why) => unparsed.push(Unparsed {
                line: lines[i].number,
                text: block.text.lines().take(4).collect::<Vec<_>>().join("\n"),
                why,
            }),
        }
        *taken_until = last.max(i) + 1;
        *taken_until
    }
}

/// Adds `run` to `runs`, or, when it has no header of its own
/// (`own_header`) and [`continues`] the run before it, adds its lines,
/// test, threads and results to that run.
fn push_or_continue(runs: &mut Vec<Run>, run: Run, own_header: bool) {
    match runs.last_mut() {
        Some(previous) if !own_header && continues(previous, &run) => {
            previous.lines[1] = run.lines[1];
            previous.test = previous.test.take().or(run.test);
            previous.threads = previous.threads.or(run.threads);
            previous.results.extend(run.results);
        }
        _ => runs.push(run),
    }
}

/// Lines of prose that may sit between two sections of one report.
const MAX_SECTION_GAP: usize = 16;

/// Whether `run`, read with no header of its own, is more sections of the
/// report before it: a tutorial shows a report a section at a time, each
/// in its own code block with its explanation under it (`CPU speed:`,
/// then `General statistics:`, then `Latency (ms):`). It is when it
/// starts a few lines after `previous` ends, at its quote depth, and
/// prints none of its numbers again (a second report would).
fn continues(previous: &Run, run: &Run) -> bool {
    let near =
        run.lines[0] > previous.lines[1] && run.lines[0] - previous.lines[1] <= MAX_SECTION_GAP;
    let repeats = run.results.iter().any(|m| {
        previous
            .results
            .iter()
            .any(|p| p.item == m.item && p.metric == m.metric)
    });
    near && run.quote_depth == previous.quote_depth && previous.label == run.label && !repeats
}

/// Whether the report tail at line `i` (a [`TAIL_ANCHORS`] field alone
/// on its line) sits under a poster's cut: an elision line at its quote
/// depth right above it, and right above that the command or banner that
/// opened the run.
fn tail_after_cut(lines: &[Line<'_>], taken_until: usize, i: usize) -> bool {
    let Some(cut) = (taken_until..i).rev().find(|&j| !lines[j].is_blank()) else {
        return false;
    };
    lines[cut].depth == lines[i].depth
        && text::is_elision(lines[cut].text)
        && header::opens_a_run_above(lines, taken_until, cut)
}

/// Whether a report that started at one of [`BODY_ANCHORS`] holds a
/// report's body: a count of events or transactions with one more
/// number, or sysbench's latency block whole (`min:`, `avg:`, `max:` and
/// a percentile or `sum:`; three bare `min`/`avg`/`max` lines under a
/// `Latency (ms):` heading are common to many tools).
fn is_body(report: &SysbenchReport<'_>) -> bool {
    let totals = || report.fields.iter().filter(|f| f.item == Item::Total);
    let has = |metric: &str| totals().any(|f| f.metric == metric);
    let count = totals().count();
    (count >= 2 && (has("events") || has("transactions"))) || (count >= 4 && has("latency_avg_ms"))
}

/// Reads the report heading at line `start` as a side-by-side report if
/// a header naming its columns sits above it and its rows hold one value
/// per column: one run per column, labelled by its header. Returns the
/// index of the line after it, or `None` to read the report as usual.
fn side_by_side(
    lines: &[Line<'_>],
    taken_until: usize,
    start: usize,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) -> Option<usize> {
    let header = columns::header_above(lines, taken_until, start)?;
    let table = columns::read(lines, start, header.labels.len()).ok()?;
    let run_header = read_header(lines, taken_until, header.index, "");
    for (label, block) in header.labels.into_iter().zip(&table.reports) {
        let (rest, elements) = report_elements(&block.text);
        match assemble(elements, rest, false) {
            Ok(report) => {
                report_overflows(&report, block, unparsed);
                let first = run_header.first.unwrap_or(header.index).min(header.index);
                let mut run = to_run(
                    &report,
                    block,
                    run_header.clone(),
                    lines[start].depth,
                    [lines[first].number, table.last_line],
                );
                run.label = Some(label);
                runs.push(run);
            }
            Err(why) => unparsed.push(Unparsed {
                line: lines[start].number,
                text: block.text.lines().take(4).collect::<Vec<_>>().join("\n"),
                why: format!("column `{label}`: {why}"),
            }),
        }
    }
    Some(table.end)
}

/// Each wrapped counter of a report is a near miss of its own.
fn report_overflows(
    report: &SysbenchReport<'_>,
    block: &LogicalLine,
    unparsed: &mut Vec<Unparsed>,
) {
    for field in &report.overflowed {
        unparsed.push(Unparsed {
            line: block.line_of_rest(field.at),
            text: field.at.lines().next().unwrap_or_default().to_string(),
            why: overflow_reason(field),
        });
    }
}

/// Joins the lines a report may span. Most reports end within a few dozen
/// lines, so a short block is tried first and the long one (600 interval
/// lines, a histogram) joined only when the report runs to its end.
fn report_block(lines: &[Line<'_>], start: usize, offset: usize) -> LogicalLine {
    let full_end = block_end(lines, start);
    let short_end = full_end.min(start + SHORT_BLOCK_LINES);
    // Titles glued to the value before them are broken off ([`glued`]);
    // on the first line only after the report's start, which stays at
    // `offset`.
    let join = |end: usize| {
        LogicalLine::join_with(&lines[start..end], "\n", |n, text, out| {
            let at = if n == 0 { offset.min(text.len()) } else { 0 };
            match (text.get(..at), text.get(at..)) {
                (Some(head), Some(tail)) => {
                    out.push_str(head);
                    glued::write_broken(tail, out);
                }
                _ => out.push_str(text),
            }
        })
    };
    let short = join(short_end);
    if short_end == full_end {
        return short;
    }
    let (rest, _) = report_elements(short.text.get(offset..).unwrap_or_default());
    // A reading that stopped at the short block's last lines may have
    // stopped only because a field's value was cut off with it.
    let stopped_at = short.position_at(short.text.len() - rest.trim_start().len());
    if rest.trim().is_empty() || stopped_at + FIELD_LINES >= short_end - start {
        join(full_end)
    } else {
        short
    }
}

/// What starts at a line: a report (at a byte offset) or one-line summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Report(usize),
    Summaries,
    /// `1: transactions: 4073 (407.23 per sec.)` ([`thread_count_line`]).
    ThreadCounts,
}

/// The cheap test every line goes through: a first-byte check for interval
/// and histogram lines, then the text before each colon against the anchors.
/// `line_bytes` says which bytes the line may hold.
fn start_in(text: &str, line_bytes: LineBytes<'_>) -> Option<Start> {
    let trimmed = text::trim_start(text);
    match trimmed.as_bytes().first() {
        Some(b'[') if is_interval_line(trimmed) => {
            return Some(Start::Report(text.len() - trimmed.len()))
        }
        // A histogram starts a report: the header above it is the run's.
        Some(b'L') if trimmed.starts_with(HISTOGRAM_START) => {
            return Some(Start::Report(text.len() - trimmed.len()));
        }
        _ => {}
    }
    if !line_bytes.may_hold(b':') {
        return None;
    }
    let bytes = text.as_bytes();
    for colon in memchr::memchr_iter(b':', bytes) {
        // Most colons of prose follow a byte no anchor ends with.
        let before = colon.checked_sub(1).and_then(|i| bytes.get(i));
        if !before.is_some_and(|&b| BEFORE_COLON[usize::from(b)]) {
            continue;
        }
        let head = text.get(..=colon)?;
        if head.ends_with(SUMMARY_MARK) {
            return Some(Start::Summaries);
        }
        // (`s` before the colon is in BEFORE_COLON: `SQL statistics:`.)
        if head.ends_with(" transactions:") && thread_count_line(text).is_some() {
            return Some(Start::ThreadCounts);
        }
        if let Some(anchor) = ANCHORS.iter().find(|a| head.ends_with(*a)) {
            return Some(Start::Report(head.len() - anchor.len()));
        }
        // A tail's first field is alone on its line (indented as sysbench
        // prints it); the cut above it is checked where it is read.
        if let Some(anchor) = TAIL_ANCHORS.iter().find(|a| head.ends_with(*a)) {
            let offset = head.len() - anchor.len();
            if text.get(..offset).is_some_and(|t| t.trim().is_empty()) {
                return Some(Start::Report(offset));
            }
        }
    }
    None
}

/// The block a report may span: lines at the report's quote depth (blank
/// lines of any depth in between), up to [`MAX_REPORT_LINES`].
fn block_end(lines: &[Line<'_>], start: usize) -> usize {
    let depth = lines[start].depth;
    let mut end = start + 1;
    while end < lines.len() && end - start < MAX_REPORT_LINES {
        let line = &lines[end];
        if line.depth != depth && !line.is_blank() {
            break;
        }
        end += 1;
    }
    end
}

fn to_run(
    report: &SysbenchReport<'_>,
    block: &LogicalLine,
    header: RunHeader,
    depth: usize,
    lines: [usize; 2],
) -> Run {
    let results = report
        .fields
        .iter()
        .map(|f| Measurement::new(&f.item.name(), &f.metric, f.value, block.line_of_rest(f.at)))
        .collect();
    let mut attrs = BTreeMap::new();
    if let Some(version) = &header.version {
        attrs.insert("tool_version".to_string(), version.clone());
    }
    // The count sysbench printed is what ran; a command or a loop's marker
    // says what was asked for.
    let threads = header
        .threads
        .or(header.command_threads)
        .or(header.marker_threads)
        .or(report.interval_threads);
    let test = header
        .test
        .or(header.mode_test.map(str::to_string))
        .or(report.implied_test.map(str::to_string));
    // A test's own options only: `block size:` above a fileio report is
    // not memory's.
    let own_prefix = match test.as_deref() {
        Some("fileio") => Some("file_"),
        Some("cpu") => Some("cpu_"),
        Some("memory") => Some("memory_"),
        _ => None,
    };
    for (key, value) in header.workload {
        if own_prefix.is_some_and(|prefix| key.starts_with(prefix)) {
            attrs.insert(key.to_string(), value);
        }
    }
    Run {
        test,
        threads,
        attrs,
        command: header.command,
        ..Run::new(Tool::Sysbench, depth, lines, results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of::<SysbenchReader>(input)
    }

    #[test]
    fn marker_gives_threads_when_nothing_else_does() {
        let (runs, unparsed) = runs_of(
            "=> 12 THREADS\nOLTP test statistics:\n    queries performed:\n        read: 140\n        write: 0\n        other: 20\n        total: 160\n    transactions: 10 (1.00 per sec.)\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs[0].threads, Some(12));
        assert_eq!(runs[0].lines, [1, 8]);
        assert_eq!(runs[0].value("total", "tps"), Some(1.0));
    }

    #[test]
    fn interval_lines_alone_leave_the_command_to_the_report_below() {
        // A tutorial: the command, a few interval lines, a paragraph, then
        // the final report.
        let (runs, unparsed) = runs_of(
            "sysbench oltp_read_only --threads=16 --time=300 --report-interval=1 run

             Here is what it prints every second:

             [ 299s ] thds: 16 tps: 178.02 qps: 2115.22 (r/w/o: 1762.18/0.00/353.04) lat (ms,95%): 155.80 err/s: 0.00 reconn/s: 0.00
             [ 300s ] thds: 16 tps: 217.82 qps: 2640.92 (r/w/o: 2202.27/0.00/438.65) lat (ms,95%): 125.52 err/s: 0.00 reconn/s: 0.00

             And the final report:

             SQL statistics:
    transactions:                        61466  (204.84 per sec.)
    queries:                             737592 (2458.08 per sec.)
             General statistics:
    total time:                          300.0679s
    total number of events:              61466
",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.threads, Some(16));
        assert_eq!(run.test.as_deref(), Some("oltp_read_only"));
        assert_eq!(run.lines, [1, 15]);
        assert_eq!(run.value("total", "tps"), Some(204.84));
        // The interval lines are not the report's: prose stands between.
        assert_eq!(run.value("t=300s", "tps"), None);
    }

    #[test]
    fn latency_statistics_of_a_1_0_development_build() {
        let (runs, unparsed) = runs_of(
            "sysbench 1.0 (using bundled LuaJIT 2.1.0-beta2)

             OLTP test statistics:
    transactions:                        457    (44.97 per sec.)

             General statistics:
    total time:                          10.1917s
    total number of events:              457

             Latency statistics:
         min:                                 22.82ms
         avg:                                175.72ms
                      max:                                563.77ms
         approx.  95th percentile:           376.49ms

             Threads fairness:
    events (avg/stddev):           57.1250/2.93
",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.value("total", "latency_min_ms"), Some(22.82));
        assert_eq!(run.value("total", "latency_avg_ms"), Some(175.72));
        assert_eq!(run.value("total", "latency_max_ms"), Some(563.77));
        assert_eq!(run.value("total", "latency_p95_ms"), Some(376.49));
        assert_eq!(run.lines, [1, 17]);
    }

    #[test]
    fn a_report_that_lost_its_line_breaks() {
        let (runs, unparsed) = runs_of(
            "Here it is: sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2) Number of threads: 8 SQL statistics: queries performed: read: 140 write: 40 other: 20 total: 200 transactions: 10 (5.00 per sec.) queries: 200 (100.00 per sec.) ignored errors: 0 (0.00 per sec.) reconnects: 0 (0.00 per sec.) General statistics: total time: 2.0001s total number of events: 10 Latency (ms): min: 1.00 avg: 2.00 max: 3.00 95th percentile: 2.50 sum: 20.00 Threads fairness: events (avg/stddev): 1.2500/0.43 execution time (avg/stddev): 0.0025/0.00 and that's all.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.threads, Some(8));
        assert_eq!(
            run.attrs.get("tool_version").map(String::as_str),
            Some("1.0.20")
        );
        assert_eq!(run.value("total", "qps"), Some(100.0));
        assert_eq!(run.value("total", "latency_p95_ms"), Some(2.5));
        assert_eq!(run.value("total", "latency_sum_ms"), Some(20.0));
        assert_eq!(
            run.results.len(),
            16,
            "queries is read once though printed twice"
        );
    }

    #[test]
    fn values_glued_to_the_next_title_keep_their_lines() {
        // A post whose line breaks were lost in part: each value runs
        // into the title of the line that followed it.
        let (runs, unparsed) = runs_of(
            "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)Running the test with following options:\nNumber of threads: 2\nInitializing random number generator from current timePrime numbers limit: 10000Initializing worker threads...Threads started!CPU speed:\n    events per second: 16194.69General statistics:\n    total time:                          10.0001s\n    total number of events:              161958Latency (ms):\n         min:                                    0.12\n         avg:                                    0.12\n         max:                                    1.46\n         95th percentile:                        0.13\n         sum:                                19968.36Threads fairness:\n    events (avg/stddev):           80979.0000/11.00\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!((run.threads, run.test.as_deref()), (Some(2), Some("cpu")));
        assert_eq!(run.lines, [1, 12]);
        assert_eq!(
            run.attrs.get("cpu_max_prime").map(String::as_str),
            Some("10000")
        );
        let got: Vec<(&str, f64, usize)> = run
            .results
            .iter()
            .map(|m| (m.metric.as_str(), m.value, m.line))
            .collect();
        assert_eq!(
            got,
            [
                ("events_per_s", 16194.69, 4),
                ("total_time_s", 10.0001, 5),
                ("events", 161958.0, 6),
                ("latency_min_ms", 0.12, 7),
                ("latency_avg_ms", 0.12, 8),
                ("latency_max_ms", 1.46, 9),
                ("latency_p95_ms", 0.13, 10),
                ("latency_sum_ms", 19968.36, 11),
            ]
        );
    }

    #[test]
    fn a_quoted_command_gives_its_threads_to_the_plain_report_below() {
        let report = "SQL statistics:\n    transactions:                        10     (5.00 per sec.)\n    queries:                             200    (100.00 per sec.)\nGeneral statistics:\n    total time:                          2.0001s\n    total number of events:              10\n";
        // (text above the report, threads, test, first line)
        let cases: [(&str, Option<u32>, Option<&str>, usize); 7] = [
            // A markdown quote of the command, a caption, the report.
            (
                " \t* command\n> sysbench --test=oltp --num-threads=5 --max-time=200 prepare/run\n\n\n   * result\n    \n",
                Some(5),
                Some("oltp"),
                2,
            ),
            // A quoted options block cut with `...`, then a caption.
            (
                "> Running the test with following options:\n> Number of threads: 8\n> ...\n\nResult:\n\n",
                Some(8),
                None,
                2,
            ),
            // An elision at the report's depth too.
            (
                "> sysbench cpu --threads=4 run\n[...]\nHere is what I got:\n",
                Some(4),
                Some("cpu"),
                1,
            ),
            // Two lines of prose between: the quote is another's words.
            (
                "> sysbench cpu --threads=4 run\n\nI ran it on my own machine.\nThis is what it printed:\n",
                None,
                None,
                5,
            ),
            // A long sentence is no caption.
            (
                "> sysbench cpu --threads=4 run\n\nI ran the same thing on the other box after the upgrade and here it is:\n",
                None,
                None,
                4,
            ),
            // The quoted command only prepares.
            (
                "> sysbench oltp_read_write --threads=4 prepare\n\nResult:\n",
                None,
                None,
                4,
            ),
            // A quoted report (another run) stands between.
            (
                "> sysbench cpu --threads=4 run\n> General statistics:\n>     total time: 1.0001s\n>     total number of events: 10\n\nMine:\n",
                None,
                None,
                7,
            ),
        ];
        for (i, (above, threads, test, first)) in cases.into_iter().enumerate() {
            let input = format!("{above}{report}");
            let (runs, unparsed) = runs_of(&input);
            assert!(unparsed.is_empty(), "case {i}: {unparsed:?}");
            let run = runs.last().unwrap_or_else(|| panic!("case {i}: no run"));
            assert_eq!(run.quote_depth, 0, "case {i}");
            assert_eq!(
                (run.threads, run.test.as_deref(), run.lines[0]),
                (threads, test, first),
                "case {i}"
            );
            assert_eq!(run.value("total", "tps"), Some(5.0), "case {i}");
        }
    }

    #[test]
    fn a_quoted_command_far_above_the_report_is_not_its_header() {
        let input = format!(
            "> sysbench cpu --threads=4 run\n{}Result:\nGeneral statistics:\n    total time: 1.0001s\n    total number of events: 10\n",
            "\n".repeat(45)
        );
        let (runs, _) = runs_of(&input);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].threads, None);
    }

    #[test]
    fn truncated_reports_are_near_misses() {
        let cases = [
            ("SQL statistics:\n", "followed by the end"),
            ("SQL statistics:\n    queries performed:\n        read: 5\n    transactions:\n", "breaks off at `transactions:`"),
            ("General statistics:\n    total time:                          5.0041s\n", "without `events`"),
            ("Test execution summary:\n    total time: 60.0033s\n    total number of events: 10\n    per-request statistics:\n         min: 1.70ms\n", "without `latency_avg_ms`"),
            ("CPU speed:\nGeneral statistics:\n    total time: 1.0s\n    total number of events: 10\n", "`CPU speed:` followed by General statistics:"),
        ];
        crate::test_support::assert_one_near_miss_each::<SysbenchReader>(&cases);
    }

    #[test]
    fn a_paste_cut_inside_threads_fairness_keeps_its_run() {
        let (runs, unparsed) = runs_of(
            "General statistics:\n    total time: 0.7268s\n    total number of events: 10000\n    response time:\n         min: 0.00ms\n         avg: 0.18ms\n         max: 1.98ms\n\nThreads fairness:\n    events (avg/stddev):\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].value("total", "latency_max_ms"), Some(1.98));
        assert_eq!(runs[0].lines, [1, 9]);
    }

    /// (label, threads, tps, latency_min_ms, lines)
    type ColumnRun<'a> = (
        Option<&'a str>,
        Option<u32>,
        Option<f64>,
        Option<f64>,
        [usize; 2],
    );

    #[test]
    fn side_by_side_columns_are_runs_labelled_by_their_header() {
        let (runs, unparsed) = runs_of(
            "sysbench --test=oltp --num-threads=16 run\n\n                 base        patched\nOLTP test statistics:\n    transactions:   8880(2.47 per sec.)    11924(3.31 per sec.) (+34%)\nTest execution summary:\n    total time:     3600.8528s     3601.3977s\n    total number of events:  8880   11924\n    per-request statistics:\n         min:   57.68ms     49.52ms (+14%)\n         avg:   6487.65ms   4831.68ms\n         max:   169640.52ms   124282.16ms\n\nThat is all.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let got: Vec<ColumnRun<'_>> = runs
            .iter()
            .map(|r| {
                (
                    r.label.as_deref(),
                    r.threads,
                    r.value("total", "tps"),
                    r.value("total", "latency_min_ms"),
                    r.lines,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (Some("base"), Some(16), Some(2.47), Some(57.68), [1, 12]),
                (Some("patched"), Some(16), Some(3.31), Some(49.52), [1, 12]),
            ]
        );
        assert!(runs.iter().all(|r| r.test.as_deref() == Some("oltp")));
        let avg = runs[1]
            .results
            .iter()
            .find(|m| m.metric == "latency_avg_ms")
            .unwrap();
        assert_eq!((avg.value, avg.line), (4831.68, 11));
    }

    #[test]
    fn a_wrapped_counter_in_a_column_is_a_near_miss() {
        let (runs, unparsed) = runs_of(
            "              before      after\nGeneral statistics:\n    total time:    10.0012s   10.0010s\n    total number of events:   100   18446744073709551615\nLatency (ms):\n         min:   1.00   18446744073709.55\n         avg:   2.00   2.10\n         max:   3.00   3.30\n",
        );
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1].label.as_deref(), Some("after"));
        assert_eq!(runs[1].value("total", "events"), None);
        assert_eq!(runs[1].value("total", "latency_min_ms"), None);
        assert_eq!(runs[1].value("total", "latency_avg_ms"), Some(2.10));
        assert!(runs
            .iter()
            .all(|r| r.results.iter().all(|m| m.value < 1e13)));
        let lines: Vec<usize> = unparsed.iter().map(|u| u.line).collect();
        assert_eq!(lines, [4, 6]);
        assert!(unparsed.iter().all(|u| u.why.contains("wrapped around")));
    }

    #[test]
    fn a_report_tail_under_a_cut_takes_the_command_above_it() {
        // (input, threads, test, [(metric, value, line)], lines)
        type Want<'a> = (u32, &'a str, &'a [(&'a str, f64, usize)], [usize; 2]);
        let cases: [(&str, Want<'_>); 3] = [
            (
                "$ sysbench --test=oltp --num-threads=16 run\n[...]\n    transactions:                        743    (70.45 per sec.)\n    queries:                             14877  (1410.65 per sec.)\n\nGeneral statistics:\n    total time:                          10.5430s\n    total number of events:              743\n",
                (16, "oltp", &[("transactions", 743.0, 3), ("tps", 70.45, 3), ("queries", 14877.0, 4), ("qps", 1410.65, 4), ("total_time_s", 10.543, 7), ("events", 743.0, 8)], [1, 8]),
            ),
            (
                "sudo perf record -e sched:sched_wakeup_new -- \\\n        sysbench threads --threads=4 run\n...\n    total number of events:              61582\n...\nsudo perf script\n",
                (4, "threads", &[("events", 61582.0, 4)], [2, 5]),
            ),
            (
                "sysbench oltp_read_only \\\n  --threads=8 \\\n  run\n<snip>\n    total number of events:              1093\n",
                (8, "oltp_read_only", &[("events", 1093.0, 5)], [1, 5]),
            ),
        ];
        for (i, (input, (threads, test, values, lines))) in cases.into_iter().enumerate() {
            let (runs, unparsed) = runs_of(input);
            assert!(unparsed.is_empty(), "case {i}: {unparsed:?}");
            assert_eq!(runs.len(), 1, "case {i}");
            let run = &runs[0];
            assert_eq!(
                (run.threads, run.test.as_deref(), run.lines),
                (Some(threads), Some(test), lines),
                "case {i}"
            );
            let got: Vec<(&str, f64, usize)> = run
                .results
                .iter()
                .map(|m| (m.metric.as_str(), m.value, m.line))
                .collect();
            assert_eq!(got, values, "case {i}");
        }
    }

    #[test]
    fn a_tail_field_without_a_cut_under_a_command_is_nothing() {
        let cases = [
            // No cut: a field alone is no report.
            "$ sysbench cpu run\n    total number of events:              61582\n",
            // A cut, but no command or banner above it.
            "We saw this:\n...\n    total number of events:              61582\n",
            // The command above the cut only prepares.
            "sysbench oltp_read_write --threads=8 prepare\n...\n    transactions: 743 (70.45 per sec.)\n",
        ];
        for (i, input) in cases.into_iter().enumerate() {
            let (runs, unparsed) = runs_of(input);
            assert!(runs.is_empty(), "case {i}: {runs:?}");
            assert!(unparsed.is_empty(), "case {i}: {unparsed:?}");
        }
    }

    #[test]
    fn prose_is_not_a_report() {
        let cases = [
            "The General statistics: section is what I look at first.",
            "See [1] for the rest: it is long.",
            "We had 64 threads, time spent: a lot.",
            "Our File operations: reads and writes, mostly.",
        ];
        for (i, input) in cases.into_iter().enumerate() {
            let (runs, unparsed) = runs_of(input);
            assert!(runs.is_empty(), "case {i}");
            assert!(
                unparsed.iter().all(|u| !u.why.contains("report")),
                "case {i}: {unparsed:?}"
            );
        }
    }
}
