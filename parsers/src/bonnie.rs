//! Bonnie and bonnie++ results, as printed and as mailers wrap them.
//!
//! Four shapes are read:
//!
//! * Tim Bray's classic Bonnie table (`Machine    MB K/sec %CPU ...`), one
//!   row per machine, often wrapped onto a second line:
//!
//!   ```text
//!                 -------Sequential Output-------- ---Sequential Input-- --Random--
//!                 -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---
//!   Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU
//!   amd64SMP 5000 110199 72.8 110363 26.0 34922  9.7 77879 69.9 123349 17.3 729.0  2.5
//!   ```
//!
//!   Its offspring print the same table: Bonnie 1.2 glues the number of
//!   volumes to the size (`localh 1*1024`), bonnie64 heads its columns
//!   `GB` and `M/sec` (rates in MB/s, stored in KB/s like the others).
//!
//! * bonnie++'s human tables (1.0x, 1.9x, 2.x, and bon_csv2txt's rendering):
//!   an I/O table and a file-creation table, values with `k`/`m`/`g`
//!   suffixes, `+++++` where a phase ran too fast to measure, blank columns
//!   for phases skipped (`-f`), and from 1.92 on a `Latency` line under each
//!   row.
//! * bonnie++'s CSV lines. The first field tells the format: 1.0x lines
//!   start with the machine name (27 fields); 1.9x and 2.x lines start with
//!   the CSV format version and the bonnie++ version (`1.98,2.00a,host,...`)
//!   and have 46 (1.92-1.95), 48 (1.96, 1.97) or 50 (1.98 on) fields.
//! * a bon_csv2html page copied as text, each run's cells run together
//!   on one line (`AcharyaX  1  4G  605  98 ...`) and its latencies on
//!   the next.
//!
//! A table followed by its CSV line is one run with the CSV's values: the
//! CSV holds the exact numbers (bonnie++ 2.00a even prints wrong file
//! creation rates in its table).
//!
//! Results use Contract 2's names. A phase bonnie++ could not measure
//! (`+++++`, `+++`) or did not run (blank) is absent, never zero. Rates of
//! the throughput phases are in KB/s (`409m` is 409 × 1024), seeks and file
//! operations per second, latencies in microseconds. The attr `size` is
//! the test file size with its unit as bonnie++ prints it (`2G`, `300M`);
//! classic Bonnie prints megabytes under its `MB` column, kept as `5000M`
//! (bonnie64's `GB` as `5G`).

mod cells;
mod csv;
mod glued;
mod table;

use std::collections::BTreeMap;

use crate::number::short_decimal_token;
use crate::reader::{LineBytes, Reader};
use crate::text::Line;
use crate::{Measurement, Run, Tool, Unparsed};

/// The twelve phases of a bonnie++ run, in the order bonnie++ prints them,
/// with the metric their rate is reported in.
pub const PHASES: [(&str, &str); 12] = [
    ("seq_output_char", "kb_per_s"),
    ("seq_output_block", "kb_per_s"),
    ("seq_output_rewrite", "kb_per_s"),
    ("seq_input_char", "kb_per_s"),
    ("seq_input_block", "kb_per_s"),
    ("random_seeks", "per_s"),
    ("seq_create", "per_s"),
    ("seq_stat", "per_s"),
    ("seq_delete", "per_s"),
    ("random_create", "per_s"),
    ("random_stat", "per_s"),
    ("random_delete", "per_s"),
];

/// The attribute a row's name gives unless its table heads the name
/// column with another word (`table::header`'s `NAME_COLUMNS`).
const MACHINE_KEY: &str = "machine";

/// Index of the first file-creation phase in [`PHASES`].
const FILE_PHASES: usize = 6;

/// What one phase measured; `None` where bonnie++ printed nothing usable.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Phase {
    rate: Option<f64>,
    cpu: Option<f64>,
    latency_us: Option<f64>,
    /// 1-based source line of the rate (and CPU) column.
    line: usize,
    /// 1-based source line of the latency.
    latency_line: usize,
}

/// Which program printed the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Classic,
    PlusPlus,
}

/// One bonnie run as read from a table row or a CSV line.
#[derive(Debug, Clone, PartialEq)]
struct Report {
    flavour: Flavour,
    version: Option<String>,
    /// The row's name: the machine's, unless the table's header names
    /// its first column otherwise (`name_key`).
    machine: Option<String>,
    /// The attribute key `machine` is stored under (`machine`, or
    /// `os_version` for a column headed `Kernel`).
    name_key: &'static str,
    size: Option<String>,
    chunk_size: Option<String>,
    concurrency: Option<String>,
    files: Option<String>,
    phases: [Phase; 12],
    /// 1-based first and last source lines.
    lines: [usize; 2],
    depth: usize,
}

impl Report {
    fn new(flavour: Flavour, depth: usize, line: usize) -> Report {
        Report {
            flavour,
            version: None,
            machine: None,
            name_key: MACHINE_KEY,
            size: None,
            chunk_size: None,
            concurrency: None,
            files: None,
            phases: [Phase::default(); 12],
            lines: [line, line],
            depth,
        }
    }

    fn has_results(&self) -> bool {
        self.phases
            .iter()
            .any(|p| p.rate.is_some() || p.cpu.is_some() || p.latency_us.is_some())
    }

    /// Takes the CSV's exact values and names, keeping this report's extent.
    fn take_values_from(&mut self, csv: Report) {
        self.phases = csv.phases;
        self.machine = csv.machine.or(self.machine.take());
        self.version = csv.version.or(self.version.take());
        self.size = csv.size.or(self.size.take());
        self.chunk_size = csv.chunk_size.or(self.chunk_size.take());
        self.concurrency = csv.concurrency.or(self.concurrency.take());
        // bonnie++ 2.00a writes the directory count into the CSV's chunk
        // size column; the table's `2:4096:1024/2` says it right.
        self.files = self.files.take().or(csv.files);
        self.lines = [
            self.lines[0].min(csv.lines[0]),
            self.lines[1].max(csv.lines[1]),
        ];
    }

    fn into_run(self) -> Option<Run> {
        if !self.has_results() {
            return None;
        }
        let mut results = Vec::new();
        for (phase, (item, rate_metric)) in self.phases.iter().zip(PHASES) {
            let mut push = |metric: &str, value: Option<f64>, line: usize| {
                if let Some(value) = value.filter(|v| v.is_finite()) {
                    results.push(Measurement::new(item, metric, value, line));
                }
            };
            push(rate_metric, phase.rate, phase.line);
            push("cpu_pct", phase.cpu, phase.line);
            push("latency_us", phase.latency_us, phase.latency_line);
        }
        let mut attrs = BTreeMap::new();
        let mut set = |key: &str, value: Option<String>| {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                attrs.insert(key.to_string(), value);
            }
        };
        set(self.name_key, self.machine);
        set("size", self.size);
        set("chunk_size", self.chunk_size);
        set("files", self.files);
        set("tool_version", self.version);
        // One process is bonnie++'s default; only a chosen -c is worth keeping.
        set("concurrency", self.concurrency.filter(|c| c != "1"));
        let test = match self.flavour {
            Flavour::Classic => "bonnie",
            Flavour::PlusPlus => "bonnie++",
        };
        Some(Run {
            test: Some(test.to_string()),
            attrs,
            ..Run::new(Tool::Bonnie, self.depth, self.lines, results)
        })
    }
}

/// How the one walk over the lines finds Bonnie's reports.
pub struct BonnieReader;

impl Reader for BonnieReader {
    const TOOL: Tool = Tool::Bonnie;
    // `%CP`, the `P` of `-Per Chr-`, a CSV record's commas, the unit of
    // the size in a row of cells copied from a bon_csv2html page.
    const START_LINE_BYTES: &'static [u8] = b"%P,GM";
    /// Lines below this index belong to a report already read.
    type State = usize;

    fn may_start(lines: &[Line<'_>], i: usize, line_bytes: LineBytes<'_>) -> bool {
        let text = lines[i].text;
        // Each test only where the line may hold the byte it needs.
        (line_bytes.may_hold(b'%') && has_cp_header(text))
            || (line_bytes.may_hold(b'P') && table::is_phase_decoration(text))
            || (line_bytes.may_hold(b',') && csv::may_be_record(text))
            || ((line_bytes.may_hold(b'G') || line_bytes.may_hold(b'M')) && cells::is_row(text))
    }

    /// Reads the Bonnie or bonnie++ report at line `i`. A table or CSV
    /// line that starts but cannot be read becomes an [`Unparsed`] entry.
    fn read_at(
        lines: &[Line<'_>],
        i: usize,
        taken_until: &mut usize,
        runs: &mut Vec<Run>,
        unparsed: &mut Vec<Unparsed>,
    ) -> usize {
        if let Some(pieces) = glued::unglue(lines[i].text) {
            // The line breaks of a whole report were lost: read its lines
            // as cut from the one line, all at that line's number.
            let unglued: Vec<Line<'_>> = pieces
                .iter()
                .map(|text| Line { text, ..lines[i] })
                .collect();
            let mut taken = 0;
            let before = runs.len();
            let mut k = 0;
            while k < unglued.len() {
                k = read_report(&unglued, k, &mut taken, runs, unparsed).max(k + 1);
            }
            if runs.len() > before {
                *taken_until = i + 1;
            }
            return i + 1;
        }
        let near = &lines[i..lines.len().min(i + 4)];
        let broken = near.iter().any(|l| hard_break(l.text).is_some());
        let diff = near.iter().any(|l| is_diff_header(l.text));
        let spaced = double_spaced(lines, i);
        if !broken && !diff && !spaced {
            return read_report(lines, i, taken_until, runs, unparsed);
        }
        // A markdown page ended each line of the report with `\` (a hard
        // line break), a post showed two runs as a diff (` ` before the
        // header, `-` and `+` before the old and the new rows), or a page
        // doubled every line break: read the lines around it without the
        // breaks, the diff's marks or the blank line after each line.
        let from = i.saturating_sub(HARD_BREAK_LOOK_BACK);
        let to = lines.len().min(i + HARD_BREAK_REACH);
        let mut unmarked: Vec<Line<'_>> = Vec::new();
        // The index in `lines` of each line of `unmarked`.
        let mut at: Vec<usize> = Vec::new();
        for k in from..to {
            let l = lines[k];
            let lone_blank = l.is_blank()
                && k > 0
                && !lines[k - 1].is_blank()
                && lines.get(k + 1).is_some_and(|n| !n.is_blank());
            if spaced && lone_blank {
                continue;
            }
            let text = if broken {
                hard_break(l.text).unwrap_or(l.text)
            } else {
                l.text
            };
            let text = if diff {
                diff_mark(text).unwrap_or(text)
            } else {
                text
            };
            unmarked.push(Line { text, ..l });
            at.push(k);
        }
        let local = |k: usize| at.partition_point(|&j| j < k);
        let back = |k: usize| at.get(k).copied().unwrap_or(to);
        let before = local(*taken_until);
        let mut taken = before;
        let end = back(read_report(&unmarked, local(i), &mut taken, runs, unparsed));
        if taken != before {
            *taken_until = (*taken_until).max(back(taken));
        }
        end.max(i + 1)
    }
}

/// Whether the text around line `i` has a blank line after every line,
/// as pages that doubled each line break show it: the lines from two
/// before `i` to five after alternate, text and blank.
fn double_spaced(lines: &[Line<'_>], i: usize) -> bool {
    let Some(from) = i.checked_sub(2) else {
        return false;
    };
    let Some(window) = lines.get(from..from + 8) else {
        return false;
    };
    let blank_at = |k: usize| window[k].is_blank();
    // `i` is text; the lines one, three and five away from it are blank.
    !blank_at(2)
        && blank_at(1)
        && blank_at(3)
        && blank_at(5)
        && blank_at(7)
        && !blank_at(4)
        && !blank_at(6)
}

/// How many lines before a report's first line its reading may look at
/// (the `Version` line above a header, a label line), and how many it may
/// span, where they are read without their markdown line breaks.
const HARD_BREAK_LOOK_BACK: usize = 40;
const HARD_BREAK_REACH: usize = 2000;

/// The text of a line a markdown page ended with a hard line break (a
/// single `\` after the last word), without it; `None` for other lines.
fn hard_break(text: &str) -> Option<&str> {
    let body = text.trim_end().strip_suffix('\\')?;
    (!body.ends_with('\\') && !body.ends_with(' ')).then_some(body)
}

/// A table's `Machine` header line as a diff shows it: one space (the
/// mark of a line both sides share) before the word bonnie prints first.
fn is_diff_header(text: &str) -> bool {
    text.strip_prefix(' ')
        .is_some_and(|rest| rest.starts_with("Machine ") && rest.contains("%CP"))
}

/// The text of a line of a diff without its mark (` `, `-` or `+`).
fn diff_mark(text: &str) -> Option<&str> {
    text.strip_prefix([' ', '-', '+'])
}

/// Reads the report at line `i`, as [`Reader::read_at`] says.
fn read_report(
    lines: &[Line<'_>],
    i: usize,
    taken_until: &mut usize,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) -> usize {
    let text = lines[i].text;
    let found = if starts_table(text) {
        table::read_block(lines, i, *taken_until)
            .map(|found| found.map(|block| (block.reports, block.end)))
            .or_else(|| table::near_miss(lines, i).map(Err))
    } else if csv::may_be_record(text) {
        csv::read_record(lines, i).map(|found| found.map(|(report, end)| (vec![report], end)))
    } else if cells::is_row(text) {
        cells::read_row(lines, i)
    } else {
        None
    };
    match found {
        Some(Ok((reports, end))) => {
            runs.extend(reports.into_iter().filter_map(Report::into_run));
            *taken_until = end;
            end
        }
        Some(Err(miss)) => {
            unparsed.push(miss);
            i + 1
        }
        None => i + 1,
    }
}

/// A table starts at its `K/sec %CP` header or at the phase decoration
/// above it.
fn starts_table(text: &str) -> bool {
    // A `%` is rare in prose; look for the whole header only then.
    (memchr::memchr(b'%', text.as_bytes()).is_some() && has_cp_header(text))
        || table::is_phase_decoration(text)
}

/// The `%CP` of a table's header.
fn has_cp_header(text: &str) -> bool {
    text.contains("%CP")
}

/// A rate or CPU figure as bonnie prints it: `110199`, `72.8`, `3261k`,
/// `409m`, `1.2g`. `+++++` and `+++` (too fast to measure) are `Some(None)`,
/// and so are the figures bonnie++ 1.00 printed for a phase whose time it
/// could not take: `nan`, and a negative number (`-2147483648`, a NaN
/// forced into an int); no rate or CPU share is below zero. `xxxx` is a
/// figure the poster blanked out. Anything else is not a cell.
fn cell(token: &str) -> Option<Option<f64>> {
    let overflowed = token
        .strip_prefix('-')
        .is_some_and(|d| !d.is_empty() && d.len() <= 20 && d.bytes().all(|b| b.is_ascii_digit()));
    let blanked = (3..=5).contains(&token.len()) && token.bytes().all(|b| b == b'x');
    if token == "+++++" || token == "+++" || token == "nan" || overflowed || blanked {
        return Some(None);
    }
    let (digits, scale) = match token.as_bytes().last()? {
        b'k' => (&token[..token.len() - 1], 1.0),
        b'm' => (&token[..token.len() - 1], 1024.0),
        b'g' => (&token[..token.len() - 1], 1024.0 * 1024.0),
        _ => (token, 1.0),
    };
    short_decimal_token(digits)
        .map(|v| Some(v * scale))
        .filter(|v| v.is_some_and(f64::is_finite))
}

/// A latency as bonnie++ prints it (`6356us`, `408ms`, `2s`) in microseconds.
fn latency_us(token: &str) -> Option<f64> {
    let (digits, scale) = if let Some(d) = token.strip_suffix("us") {
        (d, 1.0)
    } else if let Some(d) = token.strip_suffix("ms") {
        (d, 1000.0)
    } else if let Some(d) = token.strip_suffix('s') {
        (d, 1_000_000.0)
    } else {
        return None;
    };
    short_decimal_token(digits)
        .map(|v| v * scale)
        .filter(|v| v.is_finite())
}

/// A test file size as bonnie++ prints it: `2G`, `300M`, `1G:32k`,
/// `64M::8192:5` (bon_csv2txt joins size, chunk, seeks and seekers).
fn is_size(token: &str) -> bool {
    let head = token.split(':').next().unwrap_or_default();
    let digits = head.trim_end_matches(['K', 'M', 'G', 'T']);
    !digits.is_empty()
        && digits.len() < head.len()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b':')
}

/// The size alone, and the chunk size when one is given (`1G:32k`).
fn split_size(token: &str) -> (String, Option<String>) {
    let mut parts = token.split(':');
    let size = parts.next().unwrap_or_default().to_string();
    let chunk = parts.next().filter(|c| !c.is_empty()).map(str::to_string);
    (size, chunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_hard_breaks() {
        let cases = [
            (
                "Machine Size K/sec %CP /sec %CP\\",
                Some("Machine Size K/sec %CP /sec %CP"),
            ),
            ("16 +++++ +++ +++++ +++\\  ", Some("16 +++++ +++ +++++ +++")),
            ("bonnie++ -d /mnt \\", None),
            ("a literal backslash \\\\", None),
            ("no break", None),
        ];
        for (i, (text, want)) in cases.into_iter().enumerate() {
            assert_eq!(hard_break(text), want, "case {i}: {text:?}");
        }
    }

    #[test]
    fn a_report_with_a_blank_line_after_every_line() {
        let report = "\
    Version 1.03e       ------Sequential Output------ --Sequential Input- --Random-
                       -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--
    Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP
    large           48G           297357  27 142545  12           376749  14  1187   3
                       ------Sequential Create------ --------Random Create--------
                       -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--
                 files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP
                    16  1773   5 +++++ +++  1536   3   959   3 +++++ +++  1990   4
    large,48G,,,297357,27,142545,12,,,376749,14,1186.7,3,16,1773,5,+++++,+++,1536,3,959,3,+++++,+++,1990,4
";
        let spaced = format!("Results:\n\n{}\nDone.\n", report.replace('\n', "\n\n"));
        let doc = crate::parse(&spaced);
        assert_eq!(doc.runs.len(), 1, "{doc:?}");
        let run = &doc.runs[0];
        assert_eq!(
            run.attrs.get("tool_version").map(String::as_str),
            Some("1.03e")
        );
        assert_eq!(run.results.len(), 16);
        assert!(run.results.iter().any(|m| m.value == 1186.7));
    }

    #[test]
    fn two_runs_shown_as_a_diff_of_one_table() {
        let input = "\
 Version 1.93c       ------Sequential Output------ --Sequential Input- --Random-
 Concurrency   1     -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--
 Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP
-prod             7G   331  98 27139  10 17554   4  1156  99 65858   7 371.8   5
-Latency               104ms   41538ms     804ms   19824us   46554us     631ms
+prod             7G   335  98 54977  23 27923   7  1075  99 61596   6 342.9   4
+Latency             76755us     331ms     590ms   12104us   24805us     414ms
";
        let doc = crate::parse(input);
        assert_eq!(doc.runs.len(), 2, "{doc:?}");
        for (run, block_kb) in doc.runs.iter().zip([27139.0, 54977.0]) {
            assert_eq!(run.attrs.get("machine").map(String::as_str), Some("prod"));
            assert_eq!(run.results.len(), 18);
            assert!(run.results.iter().any(|m| m.value == block_kb));
        }
    }

    #[test]
    fn a_report_quoted_in_a_markdown_list_item_with_hard_breaks() {
        let input = "- [Bonnie++ test](https://example.org/)\n\n    > Version 1.03e ------Sequential Output------ --Sequential Input- --Random-\\\n    > -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\\\n    > Machine Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP /sec %CP\\\n    > yzh-desktop 31G 106862 68 103016 3 39518 2 110741 66 106129 2 206.5 0\\\n    > 说明：\\\n";
        let doc = crate::parse(input);
        assert_eq!(doc.runs.len(), 1, "{doc:?}");
        let run = &doc.runs[0];
        assert_eq!(
            run.attrs.get("machine").map(String::as_str),
            Some("yzh-desktop")
        );
        assert_eq!(run.results.len(), 12);
        assert_eq!(run.results.last().map(|m| m.value), Some(0.0));
    }

    #[test]
    fn a_table_that_cannot_be_read_is_a_near_miss() {
        let header =
            "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU";
        let row = "2.4.21    100 11052 77.3 21683 15.5 16401  8.8 20347 82.1 32765  6.1 865.6  2.8";
        let decoration =
            "              -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---";
        // A near miss: its line and the start of its why.
        type Miss = (usize, &'static str);
        // (input, near misses, runs)
        let cases: [(String, &[Miss], usize); 5] = [
            // A header whose front bonnie never prints.
            (
                format!("Results:\n2.4.21-rmap MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n{row}\n"),
                &[(2, "looks like a Bonnie table header")],
                0,
            ),
            // A decoration with neither a header nor a row under it.
            (
                format!("Results:\n{decoration}\nmeans per character, then blocks\n"),
                &[(2, "a Bonnie phase decoration")],
                0,
            ),
            // A decoration over its header: the table is read, no miss.
            (format!("{decoration}\n{header}\n{row}\n"), &[], 1),
            // The header alone: the existing near miss, once.
            (
                format!("{decoration}\n{header}\nno rows\n"),
                &[(2, "Bonnie table header without a complete row")],
                0,
            ),
            // Prose naming a column or two is no table.
            (
                "The K/sec %CP column and the /sec %CP one matter.\n".to_string(),
                &[],
                0,
            ),
        ];
        for (i, (input, misses, runs)) in cases.iter().enumerate() {
            let doc = crate::parse(input);
            assert_eq!(doc.runs.len(), *runs, "case {i}: {doc:?}");
            assert_eq!(doc.unparsed.len(), misses.len(), "case {i}: {doc:?}");
            for (miss, (line, why)) in doc.unparsed.iter().zip(misses.iter()) {
                assert_eq!(miss.line, *line, "case {i}");
                assert!(miss.why.starts_with(why), "case {i}: {}", miss.why);
            }
        }
    }

    #[test]
    fn cells() {
        let cases: [(&str, Option<Option<f64>>); 18] = [
            ("110199", Some(Some(110199.0))),
            ("72.8", Some(Some(72.8))),
            ("3261k", Some(Some(3261.0))),
            ("409m", Some(Some(409.0 * 1024.0))),
            ("12.5m", Some(Some(12.5 * 1024.0))),
            ("1.2g", Some(Some(1.2 * 1024.0 * 1024.0))),
            ("+++++", Some(None)),
            ("+++", Some(None)),
            ("1e999", None),
            ("99999999999999999999", Some(Some(1e20))),
            ("1.2.3", None),
            ("-2147483648", Some(None)),
            ("-5", Some(None)),
            ("nan", Some(None)),
            ("-", None),
            ("xxxx", Some(None)),
            ("xxx", Some(None)),
            ("x", None),
        ];
        for (i, (token, want)) in cases.into_iter().enumerate() {
            assert_eq!(cell(token), want, "case {i}: {token:?}");
        }
    }

    #[test]
    fn latencies() {
        let cases = [
            ("6356us", Some(6356.0)),
            ("408ms", Some(408_000.0)),
            ("2s", Some(2_000_000.0)),
            ("12", None),
            ("us", None),
            ("+++++", None),
        ];
        for (i, (token, want)) in cases.into_iter().enumerate() {
            assert_eq!(latency_us(token), want, "case {i}: {token:?}");
        }
    }

    #[test]
    fn sizes() {
        let cases = [
            ("2G", true),
            ("300M", true),
            ("1G:32k", true),
            ("64M::8192:5", true),
            ("5000", false),
            ("G", false),
            ("16", false),
            ("benchbox", false),
        ];
        for (i, (token, want)) in cases.into_iter().enumerate() {
            assert_eq!(is_size(token), want, "case {i}: {token:?}");
        }
        assert_eq!(
            split_size("1G:32k"),
            ("1G".to_string(), Some("32k".to_string()))
        );
        assert_eq!(split_size("64M::8192:5"), ("64M".to_string(), None));
    }
}
