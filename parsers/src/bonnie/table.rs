//! Bonnie's and bonnie++'s human tables.
//!
//! bonnie++ prints fixed columns: the name and size fill 19 characters,
//! then each phase is a ` %5s %3s` pair (rate, CPU) and each latency a
//! ` %9s`. A phase that did not run (`-f` skips the per-character ones)
//! leaves its columns blank, so when a row has fewer figures than columns
//! the figures are placed by where they end. A value wider than its column
//! pushes the rest of the row right; the placement follows that shift.
//!
//! Posts bend the tables: a machine name with spaces or run into the size
//! (`Raid0 (8 disk)15744M`), rows with no name or under a label line of
//! their own, the header line cut away (rows right under the `-Per Chr-`
//! decoration), blank lines between header and rows or between groups, a
//! quoted table cut by the replier's words, the name column headed with
//! what the rows vary (`Kernel     MB K/sec %CPU`: the names are then
//! that attribute), a name too long for its column written over the
//! decoration or with spaces of its own. Each is read here.

mod header;
mod row;
mod rows;

use crate::text::Line;
use crate::Unparsed;

use super::{cell, csv, split_size, Flavour, Phase, Report, FILE_PHASES, MACHINE_KEY};
pub(super) use header::is_phase_decoration;
use header::{
    decoration_above, header_kind, headerless_kind, name_before_dashes, skip_header_rest,
    Decoration,
};
use rows::read_rows;

/// The reports of one table (an I/O table, its file-creation table and the
/// CSV lines printed after them) and the index past its last line.
#[derive(Debug)]
pub(super) struct Block {
    pub reports: Vec<Report>,
    pub end: usize,
}

/// How an I/O table prints its sizes and rates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Units {
    /// The size column holds bare numbers in this unit: `MB` (classic
    /// Bonnie, bonnie++ 1.00's bon_csv2txt) or bonnie64's `GB`.
    bare_size: Option<char>,
    /// Rates in MB/s (bonnie64's `M/sec`), not KB/s.
    mb_per_s: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderKind {
    Io {
        classic: bool,
        units: Units,
        /// The attribute key the row names give (`machine`; `os_version`
        /// under a `Kernel` column).
        names: &'static str,
    },
    Files,
}

/// Reads the table whose header is `lines[header]`: a line holding `%CP`,
/// or a phase decoration with rows right under it. `None` when the line
/// is neither.
pub(super) fn read_block(
    lines: &[Line<'_>],
    header: usize,
    taken_until: usize,
) -> Option<Result<Block, Unparsed>> {
    let kind = header_kind(lines[header].text).or_else(|| headerless_kind(lines, header))?;
    let mut decoration = decoration_above(lines, header, taken_until);
    if let ["Concurrency", n, ..] = lines[header].text.split_whitespace().collect::<Vec<_>>()[..] {
        decoration.concurrency = Some(n.to_string());
    }
    let from = skip_header_rest(lines, header + 1);
    let read = match kind {
        HeaderKind::Io {
            classic,
            units,
            names,
        } => io_reports(
            lines,
            from,
            &decoration,
            RowKind::Io { classic, units },
            names,
        ),
        HeaderKind::Files => file_reports(lines, from, &decoration),
    };
    let (mut reports, next) = match read {
        Ok(read) => read,
        Err(why) => {
            return Some(Err(Unparsed {
                line: lines[header].number,
                text: lines[header].text.trim().to_string(),
                why: why.to_string(),
            }))
        }
    };
    let end = merge_following_csv(lines, next, &mut reports);
    Some(Ok(Block { reports, end }))
}

/// Rate and CPU column pairs (`K/sec %CPU`, `/sec %CP`) a line needs to be
/// taken for a bonnie header the reader could not read: bonnie prints
/// six, a mailer's wrap leaves five or fewer on the first line.
const MIN_HEADER_PAIRS: usize = 4;

/// Lines under a phase decoration its header may be on.
const HEADER_REACH: usize = 2;

/// The near miss of a block at `lines[at]` that [`read_block`] could not
/// read, so that a table the reader does not know is at least reported:
/// a header line with bonnie's rate and CPU columns whose front is not
/// bonnie's (`2.4.19-rmap MB K/sec %CPU ...`), or a phase decoration with
/// neither a header nor a row under it. `None` for other lines, and for
/// a decoration whose header is below it (that header tells).
pub(super) fn near_miss(lines: &[Line<'_>], at: usize) -> Option<Unparsed> {
    let line = &lines[at];
    let why = if header_pairs(line.text) >= MIN_HEADER_PAIRS {
        "looks like a Bonnie table header (rate and `%CP` columns), but its front is none bonnie prints: `Machine Size`, one word and `MB` or `Size`, or `files`"
    } else if is_phase_decoration(line.text) {
        let header_below = lines
            .iter()
            .skip(at + 1)
            .take(HEADER_REACH)
            .take_while(|l| l.depth == line.depth)
            .any(|l| l.text.contains("%CP"));
        if header_below {
            return None;
        }
        "a Bonnie phase decoration (`-Per Chr- ... --Seeks--`) with neither a `Machine Size K/sec %CP` header nor a readable row under it"
    } else {
        return None;
    };
    Some(Unparsed {
        line: line.number,
        text: line.text.trim().to_string(),
        why: why.to_string(),
    })
}

/// How many rate columns followed by a CPU column a line holds.
fn header_pairs(text: &str) -> usize {
    let mut words = text.split_whitespace().peekable();
    let mut pairs = 0;
    while let Some(word) = words.next() {
        let rate = matches!(word, "K/sec" | "M/sec" | "/sec");
        if rate && words.peek().is_some_and(|w| w.starts_with("%CP")) {
            pairs += 1;
        }
    }
    pairs
}

/// The reports of an I/O table's rows from `lines[from]` on, with those of
/// the file-creation table bonnie++ prints after it, and the index past
/// them; why not when the header has no row. The rows' names give the
/// attribute `names`.
fn io_reports(
    lines: &[Line<'_>],
    from: usize,
    decoration: &Decoration,
    kind: RowKind,
    names: &'static str,
) -> Result<(Vec<Report>, usize), &'static str> {
    let classic = matches!(kind, RowKind::Io { classic: true, .. });
    // The decoration stops at the first line not at the header's depth.
    let depth = lines[decoration.start].depth;
    let (rows, mut next) = read_rows(lines, from, depth, kind);
    if rows.is_empty() {
        return Err(if classic {
            "Bonnie table header without a complete row: expected `MACHINE MB` and 12 figures"
        } else {
            "bonnie++ table header without a readable row: expected `MACHINE SIZE` and up to 12 figures"
        });
    }
    let flavour = if classic {
        Flavour::Classic
    } else {
        Flavour::PlusPlus
    };
    let mut reports = Vec::new();
    for row in rows {
        let mut report = Report::new(flavour, depth, lines[decoration.start].number);
        report.version = decoration.version.clone();
        report.concurrency = decoration.concurrency.clone();
        report.name_key = names;
        // A name too long for the row's column, written over the
        // decoration's blank front instead, names the rows that have none.
        report.machine = decoration.machine.clone();
        row.fill(&mut report, 0);
        reports.push(report);
    }
    if classic {
        return Ok((reports, next));
    }
    if let Some(FileTable {
        rows: file_rows,
        after,
        name,
    }) = file_table_after(lines, next)
    {
        if file_rows.len() == reports.len() {
            for (report, row) in reports.iter_mut().zip(file_rows) {
                row.fill(report, FILE_PHASES);
                // bonnie++ 1.9x cuts the name to fit the size in the I/O
                // row and to 19 columns over the file phases: the longer
                // is nearer the whole name.
                let longer = |row_name: &String| {
                    name.as_ref()
                        .filter(|n| n.len() > row_name.len() && n.starts_with(row_name.as_str()))
                };
                let machine = report.name_key == MACHINE_KEY;
                if let Some(longer) = report.machine.as_ref().filter(|_| machine).and_then(longer) {
                    report.machine = Some(longer.clone());
                }
            }
        } else {
            for row in file_rows {
                let mut report = Report::new(Flavour::PlusPlus, depth, row.first_line);
                report.version = decoration.version.clone();
                row.fill(&mut report, FILE_PHASES);
                reports.push(report);
            }
        }
        next = after;
    }
    Ok((reports, next))
}

/// The reports of a file-creation table's rows from `lines[from]` on, and
/// the index past them; why not when the header has no row.
fn file_reports(
    lines: &[Line<'_>],
    from: usize,
    decoration: &Decoration,
) -> Result<(Vec<Report>, usize), &'static str> {
    let depth = lines[decoration.start].depth;
    let (rows, next) = read_rows(lines, from, depth, RowKind::Files);
    if rows.is_empty() {
        return Err("bonnie++ file-creation header without a readable row: expected `FILES` and up to 12 figures");
    }
    let mut reports = Vec::new();
    for row in rows {
        let mut report = Report::new(Flavour::PlusPlus, depth, lines[decoration.start].number);
        report.version = decoration.version.clone();
        report.machine = decoration.machine.clone();
        row.fill(&mut report, FILE_PHASES);
        reports.push(report);
    }
    Ok((reports, next))
}

/// The file-creation table bonnie++ prints right after its I/O table, and
/// the machine name bonnie++ 1.9x prints in its decoration (words and
/// all: `Seagate 7200.11 -Create-- --Read--- ...`).
fn file_table_after(lines: &[Line<'_>], from: usize) -> Option<FileTable> {
    let depth = lines.get(from)?.depth;
    let mut i = from;
    if lines.get(i).is_some_and(|l| l.is_blank()) {
        i += 1;
    }
    let mut name = None;
    for _ in 0..=4 {
        let line = lines.get(i)?;
        if line.depth != depth || line.is_blank() {
            return None;
        }
        if line.text.contains("%CP") {
            if header_kind(line.text) != Some(HeaderKind::Files) {
                return None;
            }
            let from = skip_header_rest(lines, i + 1);
            let (rows, after) = read_rows(lines, from, depth, RowKind::Files);
            return (!rows.is_empty()).then_some(FileTable { rows, after, name });
        }
        let mut words = line.text.split_whitespace();
        let (first, second) = (words.next(), words.next());
        if first == Some("Version") || second.is_none() {
            i += 1;
            continue;
        }
        match name_before_dashes(line.text) {
            Some("") => {}
            Some(named) => name = Some(named.to_string()),
            None => return None,
        }
        i += 1;
    }
    None
}

/// A file-creation table read after an I/O table.
struct FileTable {
    rows: Vec<Row>,
    /// The index past its last row.
    after: usize,
    /// The machine name in its decoration.
    name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowKind {
    Io { classic: bool, units: Units },
    Files,
}

/// One row of figures: six (rate, CPU) pairs and six latencies, each with
/// the source line it was read from.
#[derive(Debug, Default)]
struct Row {
    name: Option<String>,
    size: Option<String>,
    files: Option<String>,
    cells: [Option<(String, usize)>; 12],
    latencies: [Option<(f64, usize)>; 6],
    first_line: usize,
    last_line: usize,
    /// Rates printed in MB/s (bonnie64), turned into KB/s.
    mb_per_s: bool,
}

impl Row {
    /// Puts the row's figures into the report's phases from `first` on.
    fn fill(self, report: &mut Report, first: usize) {
        let mut cells = self.cells.into_iter();
        for k in 0..6 {
            let phase: &mut Phase = &mut report.phases[first + k];
            let rate = cells.next().flatten();
            let cpu = cells.next().flatten();
            // bon_csv2txt turns `+++++` into `0k`; its `+++` CPU still says
            // the phase was not measured.
            let measured = cpu.as_ref().is_none_or(|(c, _)| c != "+++");
            if let Some((text, line)) = &rate {
                let scale = if self.mb_per_s && first + k < 5 {
                    1024.0
                } else {
                    1.0
                };
                phase.rate = cell(text).flatten().filter(|_| measured).map(|v| v * scale);
                phase.line = *line;
            }
            if let Some((text, line)) = &cpu {
                phase.cpu = cell(text).flatten();
                phase.line = *line;
            }
            if let Some((value, line)) = self.latencies[k] {
                phase.latency_us = Some(value);
                phase.latency_line = line;
            }
        }
        if first == 0 {
            report.machine = self.name.or(report.machine.take());
            if let Some(size) = self.size {
                let (size, chunk) = split_size(&size);
                report.size = Some(size);
                report.chunk_size = chunk.filter(|c| c.ends_with(['k', 'm']));
            }
        } else {
            report.files = self.files;
            if report.machine.is_none() {
                report.machine = self.name;
            }
        }
        report.lines[1] = report.lines[1].max(self.last_line);
    }
}

/// bonnie++ prints its CSV line right after the tables: that line is the
/// same run, with exact values. Returns the index past what was used.
fn merge_following_csv(lines: &[Line<'_>], from: usize, reports: &mut [Report]) -> usize {
    let Some(depth) = reports.first().map(|r| r.depth) else {
        return from;
    };
    let mut i = from;
    let mut found = Vec::new();
    let mut end = from;
    let mut gap = 0;
    while let Some(line) = lines.get(i) {
        let text = line.text.trim();
        if line.depth != depth {
            break;
        }
        if line.is_blank()
            || text.starts_with("format_version,")
            || text.starts_with("name,file_size,")
        {
            gap += 1;
            if gap > 2 {
                break;
            }
            i += 1;
            continue;
        }
        if !csv::may_be_record(text) {
            break;
        }
        match csv::read_record(lines, i) {
            Some(Ok((report, after))) => {
                found.push(report);
                i = after;
                end = after;
                gap = 0;
            }
            _ => break,
        }
    }
    let same = found.len() == reports.len()
        && reports
            .iter()
            .zip(&found)
            .all(|(table, csv)| compatible_names(table, csv));
    if !same {
        return from;
    }
    for (report, csv) in reports.iter_mut().zip(found) {
        report.take_values_from(csv);
    }
    end
}

/// bon_csv2txt and bonnie++ cut long names in their tables.
fn compatible_names(table: &Report, csv: &Report) -> bool {
    match (&table.machine, &csv.machine) {
        (Some(t), Some(c)) => c.starts_with(t.as_str()) || t.starts_with(c.as_str()),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::row::{glued_size_at, is_files_spec};
    use super::*;
    use crate::text;

    fn block(input: &str) -> Block {
        let lines = text::lines(input);
        let header = lines
            .iter()
            .position(|l| l.text.contains("%CP"))
            .expect("a header");
        read_block(&lines, header, 0)
            .expect("a table")
            .expect("readable")
    }

    #[test]
    fn classic_rows_wrapped_under_a_wrapped_header() {
        let b = block(
            "-------Sequential Output-------- ---Sequential Input--\n--Random--\n-Per Char- --Block--- -Rewrite-- -Per Char- --Block---\n--Seeks---\nMachine MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU /sec %CPU\namd64SMP 5000 110199 72.8 110363 26.0 34922 9.7 77879 69.9 123349\n17.3 729.0 2.5\nBSD\n",
        );
        assert_eq!(b.reports.len(), 1);
        let r = &b.reports[0];
        assert_eq!(r.flavour, Flavour::Classic);
        assert_eq!(r.lines, [1, 7]);
        assert_eq!(r.size.as_deref(), Some("5000M"));
        assert_eq!(r.phases[0].rate, Some(110199.0));
        assert_eq!(r.phases[4].cpu, Some(17.3));
        assert_eq!(r.phases[4].line, 7);
        assert_eq!(r.phases[5].rate, Some(729.0));
        assert_eq!(b.end, 7);
    }

    #[test]
    fn fast_mode_leaves_blank_columns() {
        let b = block(
            "Version 2.00a       ------Sequential Output------ --Sequential Input- --Random-\n                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nName:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\nbenchbox        64M           +++++ +++ 5173  99           294404  25  2840  19\nLatency                        2645us    4071us              4060us    7372us\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.version.as_deref(), Some("2.00a"));
        assert_eq!(r.phases[0], Phase::default(), "per-char output did not run");
        assert_eq!(r.phases[1].rate, None);
        assert_eq!(r.phases[2].rate, Some(5173.0));
        assert_eq!(r.phases[3].rate, None);
        assert_eq!(r.phases[4].rate, Some(294404.0));
        assert_eq!(r.phases[5].cpu, Some(19.0));
        assert_eq!(r.phases[0].latency_us, None);
        assert_eq!(r.phases[1].latency_us, Some(2645.0));
        assert_eq!(r.phases[3].latency_us, None);
        assert_eq!(r.phases[4].latency_us, Some(4060.0));
    }

    #[test]
    fn a_size_alone_ends_at_the_name_and_size_field() {
        // bonnie++ 2.00 run without a machine name: the row's lead is
        // `SIZE:CHUNK::SEEKS` and the figures still start past column 19
        // (linux-xfs, June 2024).
        let b = block(
            "Version  2.00       ------Sequential Output------ --Sequential Input- --Random-\n                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nName:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n64G:4k::65536                 15.8m  19 60.5m  26            218m  31 279.1  13\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.phases[0], Phase::default(), "per-char output did not run");
        assert_eq!(r.phases[1].rate, Some(16179.2));
        assert_eq!(r.phases[1].cpu, Some(19.0));
        assert_eq!(r.phases[2].rate, Some(61952.0));
        assert_eq!(r.phases[3].rate, None);
        assert_eq!(r.phases[4].rate, Some(223232.0));
        assert_eq!(r.phases[5].rate, Some(279.1));
    }

    #[test]
    fn wide_values_push_the_row_right() {
        let b = block(
            "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nmeghan         512M           118985  30  5173  99           294404  25 +++++ +++\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.phases[0].rate, None);
        assert_eq!(r.phases[1].rate, Some(118985.0));
        assert_eq!(r.phases[2].rate, Some(5173.0));
        assert_eq!(r.phases[3].rate, None);
        assert_eq!(r.phases[4].rate, Some(294404.0));
        assert_eq!(r.phases[5].rate, None);
    }

    #[test]
    fn header_without_the_word_machine() {
        // LKML, April 2003: the names stay, the header word is blanked.
        let b = block(
            "               Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n2.4.20           1G           36236  18 13423   7           29948  11 210.1   0\n2.4.20-nas1      1G           35998  18 12076   7           19056   9 206.7   0\n",
        );
        assert_eq!(b.reports.len(), 2);
        let r = &b.reports[1];
        assert_eq!(r.machine.as_deref(), Some("2.4.20-nas1"));
        assert_eq!(r.size.as_deref(), Some("1G"));
        assert_eq!(r.phases[0], Phase::default(), "-f skips per-char output");
        assert_eq!(r.phases[1].rate, Some(35998.0));
        assert_eq!(r.phases[2].cpu, Some(7.0));
        assert_eq!(r.phases[3].rate, None);
        assert_eq!(r.phases[4].rate, Some(19056.0));
        assert_eq!(r.phases[5].rate, Some(206.7));
    }

    #[test]
    fn table_without_a_machine_column() {
        // linux-pci, September 2019: rows start with the size.
        let b = block(
            "Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP /sec %CP\n  4G 93865  99 312837  96 194487  23 102808  97 415501 21 +++++ +++\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.machine, None);
        assert_eq!(r.size.as_deref(), Some("4G"));
        assert_eq!(r.phases[1].rate, Some(312837.0));
        assert_eq!(r.phases[4].cpu, Some(21.0));
        assert_eq!(r.phases[5].rate, None, "+++++ is absent");
        assert_eq!(r.phases[5].cpu, None);
    }

    #[test]
    fn bon_csv2txt_1_00_megabyte_sizes_and_unmeasured_seeks() {
        // linux-mm, August 2000: a size in MB and a seek phase without a
        // time (`nan`, CPU `-2147483648` wrapped onto the next line).
        let b = block(
            "Machine        MB K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n   Unknown     512  6236 87 11975  18 4242   8  5217  66  9623  10   nan \n   -2147483648\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.flavour, Flavour::PlusPlus);
        assert_eq!(r.machine.as_deref(), Some("Unknown"));
        assert_eq!(r.size.as_deref(), Some("512M"));
        assert_eq!(r.phases[0].rate, Some(6236.0));
        assert_eq!(r.phases[2].rate, Some(4242.0));
        assert_eq!(r.phases[4].cpu, Some(10.0));
        assert_eq!(r.phases[5].rate, None);
        assert_eq!(r.phases[5].cpu, None);
        assert_eq!(r.lines[1], 3);
    }

    #[test]
    fn header_lines_that_are_not_bonnie() {
        let lines = text::lines("Load average and %CPU for each\n");
        assert!(read_block(&lines, 0, 0).is_none());
        let lines = text::lines("Machine        Size K/sec %CP K/sec %CP\nand then nothing\n");
        let miss = read_block(&lines, 0, 0).unwrap().unwrap_err();
        assert!(miss.why.contains("bonnie++"), "{}", miss.why);
    }

    #[test]
    fn files_specs() {
        let cases = [
            ("16", true),
            ("16:100000:16/64", true),
            ("2:4096:1024/2", true),
            ("2:4096:1024:2", true),
            ("16:link", true),
            ("host", false),
            ("16x", false),
        ];
        for (i, (token, want)) in cases.into_iter().enumerate() {
            assert_eq!(is_files_spec(token), want, "case {i}: {token:?}");
        }
    }

    /// A row's machine, size, putc rate and seeks rate.
    type RowKey<'a> = (Option<&'a str>, Option<&'a str>, Option<f64>, Option<f64>);

    fn rows_of(b: &Block) -> Vec<RowKey<'_>> {
        b.reports
            .iter()
            .map(|r| {
                (
                    r.machine.as_deref(),
                    r.size.as_deref(),
                    r.phases[0].rate,
                    r.phases[5].rate,
                )
            })
            .collect()
    }

    #[test]
    fn machine_names_with_spaces_or_glued_to_the_size() {
        // LKML, March and August 2005: bonnie++ gives name and size 19
        // columns; a longer name runs into the size.
        let b = block(
            "Machine         Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\ncompiled in  15872M 38366 71  65602  22 18348   4 53276 84  57947   7 905.4   2\nRaid0 (8 disk)15744M 54406  96 247419 90 100752 25 60266  98 226651 29 830.2   1\n/dev/sdc      15744M 53861  95 102270 35 25718   6 37273  60 76275   8 377.0   0\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (
                    Some("compiled in"),
                    Some("15872M"),
                    Some(38366.0),
                    Some(905.4)
                ),
                (
                    Some("Raid0 (8 disk)"),
                    Some("15744M"),
                    Some(54406.0),
                    Some(830.2)
                ),
                (Some("/dev/sdc"), Some("15744M"), Some(53861.0), Some(377.0)),
            ]
        );
        assert_eq!(b.reports[1].phases[4].rate, Some(226651.0));
        assert_eq!(b.reports[1].phases[5].cpu, Some(1.0));
    }

    #[test]
    fn continuation_rows_of_x_runs_take_the_name_and_size_above() {
        // A 2006 LKML reply (Andreas Dilger), quoting bonnie++ 1.03 `-x 3`.
        let b = block(
            "Version  1.03 ------Sequential Output------ --Sequential Input-  --Random-\n\
             \x20              -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n\
             Machine   Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n\
             2.6.16.19  16G 59223  91 264155 45 111459 36  57313 99 317944 63  1478   7\n\
             \x20              58814  92 276803 47 110418 36  57105 99 317534 65  1525   5\n\
             \x20              58299  92 274523 48 110290 36  56723 99 318839 65  1502   4\n",
        );
        let rows = rows_of(&b);
        let name = Some("2.6.16.19");
        let size = Some("16G");
        assert_eq!(
            rows,
            [
                (name, size, Some(59223.0), Some(1478.0)),
                (name, size, Some(58814.0), Some(1525.0)),
                (name, size, Some(58299.0), Some(1502.0)),
            ]
        );
    }

    #[test]
    fn glued_sizes() {
        let cases = [
            ("disk)15744M", Some(5)),
            ("verylongname1G", Some(12)),
            ("15744M", None),
            ("v4.128M", Some(3)),
            ("host", None),
            ("12345", None),
            ("G", None),
        ];
        for (i, (token, want)) in cases.into_iter().enumerate() {
            assert_eq!(glued_size_at(token), want, "case {i}: {token:?}");
        }
        // A name that looks like a glued size stays a name when the size
        // follows it (LKML, October 2003).
        let b = block(
            "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nv4.128M          1G 19903  89 37911  20 15392  11 13624  58 41807  12 131.0   0\n",
        );
        assert_eq!(
            rows_of(&b),
            [(Some("v4.128M"), Some("1G"), Some(19903.0), Some(131.0))]
        );
    }

    #[test]
    fn rows_without_a_header_line() {
        // LKML, November 2003: the `Machine Size K/sec %CP` line is cut
        // away; the rows follow the phase decoration.
        let input = "Version  1.03       ------Sequential Output------ --Sequential Input- --Random-\n                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nNPTL          100M  7735  99 127068  98 63048  84  7890  98 +++++ +++ +++++ +++\nLinuxThreads  100M 11000  99 127928  97 59075  84 11290  98 +++++ +++ +++++ +++\n";
        let lines = text::lines(input);
        let b = read_block(&lines, 1, 0)
            .expect("a table")
            .expect("readable");
        assert_eq!(
            rows_of(&b),
            [
                (Some("NPTL"), Some("100M"), Some(7735.0), None),
                (Some("LinuxThreads"), Some("100M"), Some(11000.0), None),
            ]
        );
        assert_eq!(b.reports[0].version.as_deref(), Some("1.03"));
        assert_eq!(b.reports[0].lines, [1, 3]);
        assert_eq!(b.reports[1].phases[4].rate, None, "+++++ is absent");
        assert_eq!(b.end, 4);
        // The decoration over a real header is not a header itself.
        let with_header = text::lines("                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nMachine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nNPTL           100M 13070 100 +++++ +++ 14141   4 13099 100 +++++ +++ +++++ +++\n");
        assert!(read_block(&with_header, 0, 0).is_none());
        // Nor is a decoration followed by prose.
        let prose = text::lines(
            "   -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nmeans per character\n",
        );
        assert!(read_block(&prose, 0, 0).is_none());
    }

    #[test]
    fn blank_lines_under_the_header_and_between_groups_of_rows() {
        // linux-mm, July 2000: a blank line under the header and a line
        // holding one space between the groups; `100.0` pushes a row right.
        let b = block(
            " Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU            \n\nTEST5     256  3618 99.2  11135 16.0  5981 10.8  3005 88.8 18268 17.8 185.4  2.9\nTEST5     256  3652 100.0 11066 15.6  6014 10.6  2999 89.1 18276 17.4 185.5  2.8\n \nTEST4     256  3630 99.5   9915 14.7  6013 11.3  2894 86.0 18502 19.1 181.4  3.1\n \n \n-----------------------------------\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (Some("TEST5"), Some("256M"), Some(3618.0), Some(185.4)),
                (Some("TEST5"), Some("256M"), Some(3652.0), Some(185.5)),
                (Some("TEST4"), Some("256M"), Some(3630.0), Some(181.4)),
            ]
        );
        assert_eq!(b.reports[1].phases[0].cpu, Some(100.0));
        assert_eq!(b.reports[1].phases[1].rate, Some(11066.0));
        assert_eq!(b.end, 6, "the table ends at its last row");
        // Quoted, the blank line is a `>` alone.
        let b = block(
            ">  Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n> \n> TEST5     256  3618 99.2  11135 16.0  5981 10.8  3005 88.8 18268 17.8 185.4  2.9\n",
        );
        assert_eq!(b.reports.len(), 1);
        assert_eq!(b.reports[0].depth, 1);
    }

    #[test]
    fn classic_rows_without_a_name() {
        // LKML, September 2001, and linux-mm, July 1998: no `-m` label, the
        // row starts with the size; a `^^^^^` line under it ends the table.
        let b = block(
            "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n          100  3023 99.5  4343 99.1  6342 26.3  7819 98.4 17860 64.0 156.4  3.6\n                                                          ^^^^^      ^^^^^\n",
        );
        assert_eq!(
            rows_of(&b),
            [(None, Some("100M"), Some(3023.0), Some(156.4))]
        );
        assert_eq!(b.reports[0].phases[4].rate, Some(17860.0));
        assert_eq!(b.end, 2);
    }

    #[test]
    fn label_lines_name_the_nameless_rows_under_them() {
        // LKML, July 2001: a label over each group, rows indented with a TAB
        // or with spaces, one wrapped before its last CPU share, `100.` cut.
        let b = block(
            "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\npblade 1 (reiserfs defaults)\n         1000 13048 98.9 21609 27.4  6599 10.7 11066 72.3 16483  8.4 1011.2  5.3 \n\t 1000 12771 96.7 21058 25.9  5536  9.0 10430 67.5 17347  8.4 1065.2  6.7 \npblade 2 (ext2 defaults)\n         1000 14373 99.9 14940  8.8  7494 11.1 10093 65.3 22213  9.3 1028.3 \n6.4      \n\t 1000 14361 100. 17089 10.4  7768 11.5  9924 64.1 24154  9.8 1112.9  7.2\n\n\nI suugest we move this to reiserfs-list\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (
                    Some("pblade 1 (reiserfs defaults)"),
                    Some("1000M"),
                    Some(13048.0),
                    Some(1011.2)
                ),
                (
                    Some("pblade 1 (reiserfs defaults)"),
                    Some("1000M"),
                    Some(12771.0),
                    Some(1065.2)
                ),
                (
                    Some("pblade 2 (ext2 defaults)"),
                    Some("1000M"),
                    Some(14373.0),
                    Some(1028.3)
                ),
                (
                    Some("pblade 2 (ext2 defaults)"),
                    Some("1000M"),
                    Some(14361.0),
                    Some(1112.9)
                ),
            ]
        );
        let wrapped = &b.reports[2];
        assert_eq!(wrapped.phases[5].cpu, Some(6.4));
        assert_eq!(wrapped.phases[5].line, 7);
        assert_eq!(wrapped.lines[1], 7);
        assert_eq!(b.reports[3].phases[0].cpu, Some(100.0));
        assert_eq!(b.end, 8);
        // A label needs nameless rows under it: prose after a named row
        // ends the table.
        let b = block(
            "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\namd64SMP 5000 110199 72.8 110363 26.0 34922  9.7 77879 69.9 123349 17.3 729.0  2.5\nBSD\namd64UP  5000 111557 68.6 114372 20.9 25162  4.8 98951 88.1 124080 14.7 720.7  1.9\n",
        );
        assert_eq!(b.reports.len(), 1);
    }

    #[test]
    fn classic_header_without_the_machine_column_and_masked_figures() {
        // LKML, June and April 2001: the header starts at `MB`, shifted left
        // with the machine column cut away; a poster blanked the figures he
        // did not want to show with `xxxx`.
        let b = block(
            "    -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---\n MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n500  9609 36.0 10569 14.3  3322  6.4  9509 47.6 10597 13.8 101.7  1.4\n",
        );
        assert_eq!(
            rows_of(&b),
            [(None, Some("500M"), Some(9609.0), Some(101.7))]
        );
        assert_eq!(b.reports[0].flavour, Flavour::Classic);
        assert_eq!(b.reports[0].lines, [1, 3]);
        let b = block(
            "           MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n          400  xxxx xxxx 11138  1.7  5880  3.2  xxxx xxxx 13519  1.7  xxxx xxxx\n\t\t\t ^^^^^\t\t   ^^^\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.size.as_deref(), Some("400M"));
        assert_eq!(
            r.phases[0],
            Phase {
                line: 2,
                ..Phase::default()
            }
        );
        assert_eq!(r.phases[1].rate, Some(11138.0));
        assert_eq!(r.phases[2].cpu, Some(3.2));
        assert_eq!(r.phases[3].rate, None);
        assert_eq!(r.phases[4].rate, Some(13519.0));
        assert_eq!(r.phases[5].rate, None);
        assert_eq!(b.end, 2);
    }

    #[test]
    fn bonnie_1_2_prints_volumes_before_the_size() {
        // LKML, July 2002 and December 2001: `localh 1* 256`, `localh
        // 1*1024`, and a nameless `1*1024` whose seeks CPU share wrapped.
        let b = block(
            "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU   /sec %CPU\nlocalh 1* 256 21846 98.0 58316 14.0 11099  3.1 14346 64.6 18026  2.0  939.3  1.4\nlocalh 1*1024 20760 97.8 31044  7.6 11462  3.2 15006 69.2 15993  1.6  159.4  0.5\n       1*1024  9854 100.0 109124 51.0 65537 52.2  9821 99.9 167240 97.6 1504.4\n6.4\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (Some("localh"), Some("256M"), Some(21846.0), Some(939.3)),
                (Some("localh"), Some("1024M"), Some(20760.0), Some(159.4)),
                (None, Some("1024M"), Some(9854.0), Some(1504.4)),
            ]
        );
        assert_eq!(b.reports[2].phases[5].cpu, Some(6.4));
        assert_eq!(b.reports[0].flavour, Flavour::Classic);
    }

    #[test]
    fn a_quoted_table_cut_by_the_reply_goes_on_after_it() {
        // LKML, August 2005: the replier answers between quoted rows.
        let b = block(
            "> Machine         Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n> Raid0 (8 disk)15744M 54406  96 247419 90 100752 25 60266  98 226651 29 830.2   1\n\nyou're obviously saturating something already with 2 disks.\n\n> Raid5 (8 disk)15744M 55881  98 153735 51 61680  24 56229  95 207348 44 741.2   1\n\nthe block-read shows that even with 3 disks\n\n> Why do I only get 247 MB/s for writting\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (
                    Some("Raid0 (8 disk)"),
                    Some("15744M"),
                    Some(54406.0),
                    Some(830.2)
                ),
                (
                    Some("Raid5 (8 disk)"),
                    Some("15744M"),
                    Some(55881.0),
                    Some(741.2)
                ),
            ]
        );
        assert_eq!(b.reports[1].lines, [1, 6]);
        assert_eq!(b.end, 6);
        // Unquoted, the same gap ends the table.
        let b = block(
            "Machine         Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nRaid0 (8 disk)15744M 54406  96 247419 90 100752 25 60266  98 226651 29 830.2   1\n\nyou're obviously saturating something\n\nRaid5 (8 disk)15744M 55881  98 153735 51 61680  24 56229  95 207348 44 741.2   1\n",
        );
        assert_eq!(b.reports.len(), 1);
        // A reply holding a table of its own is no gap.
        let b = block(
            "> Machine         Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n> Raid0 (8 disk)15744M 54406  96 247419 90 100752 25 60266  98 226651 29 830.2   1\n\nMachine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nmine          15744M 54406  96 247419 90 100752 25 60266  98 226651 29 830.2   1\n\n> Raid5 (8 disk)15744M 55881  98 153735 51 61680  24 56229  95 207348 44 741.2   1\n",
        );
        assert_eq!(b.reports.len(), 1);
    }

    #[test]
    fn bonnie64_prints_gigabytes_and_mb_per_s() {
        // An EC2 capture, June 2009: sizes under `GB`, rates under `M/sec`
        // in MB/s (here turned into KB/s), seeks still per second.
        let b = block(
            "Machine    GB M/sec %CPU M/sec %CPU M/sec %CPU M/sec %CPU M/sec %CPU  /sec %CPU\nEBS-5GB     5  20.8 41.5  48.2  7.0  24.3  2.0  21.7 22.0  51.6  0.8   301  0.0\n",
        );
        let r = &b.reports[0];
        assert_eq!(r.flavour, Flavour::Classic);
        assert_eq!(r.size.as_deref(), Some("5G"));
        assert_eq!(r.phases[0].rate, Some(20.8 * 1024.0));
        assert_eq!(r.phases[0].cpu, Some(41.5));
        assert_eq!(r.phases[4].rate, Some(51.6 * 1024.0));
        assert_eq!(r.phases[5].rate, Some(301.0));
        assert_eq!(r.phases[5].cpu, Some(0.0));
        // Under one gigabyte bonnie64 prints `0`: no size then.
        let b = block(
            "Machine    GB M/sec %CPU M/sec %CPU M/sec %CPU M/sec %CPU M/sec %CPU  /sec %CPU\nEBS-0.1G    0  21.6 42.0 178.6 42.9  41.3 11.6  24.1 42.7 285.7 40.0 15384 38.5\n",
        );
        assert_eq!(b.reports[0].size, None);
        assert_eq!(b.reports[0].machine.as_deref(), Some("EBS-0.1G"));
    }

    #[test]
    fn the_first_header_word_names_the_rows() {
        // LKML, July 2003: one machine under three kernels, the column
        // headed `Kernel`; other posts head it with what they varied.
        let cases = [
            ("Kernel     MB", "os_version", "2.4.21"),
            ("Machine    MB", "machine", "2.4.21"),
            ("Host       MB", "machine", "2.4.21"),
            ("FS         MB", "fs", "2.4.21"),
            ("Config     MB", "variant", "2.4.21"),
        ];
        for (i, (head, key, name)) in cases.into_iter().enumerate() {
            let b = block(&format!(
                "              -------Sequential Output-------- ---Sequential Input-- --Random--\n              -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---\n{head} K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n2.4.21    100 11052 77.3 21683 15.5 16401  8.8 20347 82.1 32765  6.1 865.6  2.8\n"
            ));
            assert_eq!(b.reports.len(), 1, "case {i}");
            let r = &b.reports[0];
            assert_eq!(r.name_key, key, "case {i}");
            assert_eq!(r.machine.as_deref(), Some(name), "case {i}");
            assert_eq!(r.flavour, Flavour::Classic, "case {i}");
            assert_eq!(r.lines, [1, 4], "case {i}");
            assert_eq!(r.phases[5].rate, Some(865.6), "case {i}");
        }
        // Not a name column: a number, or no size column after the word.
        for (i, head) in ["2.4.21 MB K/sec %CPU", "Kernel Size MB/sec %CPU Eff"]
            .into_iter()
            .enumerate()
        {
            assert_eq!(header::header_kind(head), None, "case {i}");
        }
    }

    #[test]
    fn classic_names_too_long_for_their_column() {
        // Bonnie prints the `-m` label in eight columns; a longer one
        // written over the decoration's blank front names the rows under
        // it, and one with spaces keeps them all before the size.
        let b = block(
            "2.4.19-rmap14 -------Sequential Output-------- ---Sequential Input-- --Random--\n              -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---\nMachine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n          500 11052 77.3 21683 15.5 16401  8.8 20347 82.1 32765  6.1 865.6  2.8\nother     500 12402 86.5 22453 14.9 16165  5.8 20270 82.1 34754  6.4 1398.8  3.8\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (
                    Some("2.4.19-rmap14"),
                    Some("500M"),
                    Some(11052.0),
                    Some(865.6)
                ),
                (Some("other"), Some("500M"), Some(12402.0), Some(1398.8)),
            ]
        );
        let b = block(
            "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n2.4.19 + rmap14  500 11052 77.3 21683 15.5 16401  8.8 20347 82.1 32765  6.1 865.6  2.8\npblade 1 1000 13048 98.9 21609 27.4  6599 10.7 11066 72.3 16483  8.4 1011.2  5.3\nlong-name-of-a-box-wrapped\n          500 12402 86.5 22453 14.9 16165  5.8 20270 82.1 34754  6.4 1398.8  3.8\n",
        );
        assert_eq!(
            rows_of(&b),
            [
                (
                    Some("2.4.19 + rmap14"),
                    Some("500M"),
                    Some(11052.0),
                    Some(865.6)
                ),
                (Some("pblade 1"), Some("1000M"), Some(13048.0), Some(1011.2)),
                (
                    Some("long-name-of-a-box-wrapped"),
                    Some("500M"),
                    Some(12402.0),
                    Some(1398.8)
                ),
            ]
        );
        assert_eq!(b.reports[1].phases[0].cpu, Some(98.9));
        assert_eq!(b.reports[2].lines, [1, 5]);
    }

    #[test]
    fn a_machine_name_with_spaces_over_the_file_phases_is_one_run() {
        // bonnie++ 1.96 run with `-m "Seagate 7200.11"`: the I/O row cuts
        // the name to fit the size (`%s` into 19 columns), the file
        // phases' decoration prints it `%-19.19s`, spaces and all.
        let b = block(
            "Version  1.96       ------Sequential Output------ --Sequential Input- --Random-\nConcurrency   1     -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nMachine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nSeagate 7200.11  4G   525  98 22043   2 19977   2  1813  99 151905   8  2126  10\nLatency             15784us    5523ms    2241ms    7829us   12639us    3669us\nVersion  1.96       ------Sequential Create------ --------Random Create--------\nSeagate 7200.11 USB -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n              files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n                 16  2586  57 +++++ +++  3886  55  3200  70 +++++ +++  3696  53\nLatency              2726us    5095us    4832us    2743us     307us    2468us\n",
        );
        assert_eq!(b.reports.len(), 1);
        let r = &b.reports[0];
        assert_eq!(r.machine.as_deref(), Some("Seagate 7200.11 USB"));
        assert_eq!(r.size.as_deref(), Some("4G"));
        assert_eq!(r.files.as_deref(), Some("16"));
        assert_eq!(r.lines, [1, 10]);
        assert_eq!(r.phases[0].rate, Some(525.0));
        assert_eq!(r.phases[5].cpu, Some(10.0));
        assert_eq!(r.phases[6].rate, Some(2586.0));
        assert_eq!(r.phases[6].line, 9);
        assert_eq!(r.phases[7].rate, None, "+++++ is absent");
        assert_eq!(r.phases[11].latency_us, Some(2468.0));
        assert_eq!(b.end, 10);
        // A name longer than the row's, not the row's cut: the row's stays.
        let b = block(
            "Version  1.96       ------Sequential Output------ --Sequential Input- --Random-\nConcurrency   1     -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\nMachine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\nalpha            4G   525  98 22043   2 19977   2  1813  99 151905   8  2126  10\nVersion  1.96       ------Sequential Create------ --------Random Create--------\nbeta gamma          -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n              files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n                 16  2586  57 +++++ +++  3886  55  3200  70 +++++ +++  3696  53\n",
        );
        assert_eq!(b.reports.len(), 1);
        assert_eq!(b.reports[0].machine.as_deref(), Some("alpha"));
        assert_eq!(b.reports[0].phases[8].rate, Some(3886.0));
    }

    #[test]
    fn names_before_dashed_decorations() {
        let cases = [
            (
                "                    -Create-- --Read--- -Delete--",
                Some(""),
            ),
            (
                "romano              -Create-- --Read--- -Delete--",
                Some("romano"),
            ),
            (
                "Seagate 7200.11 USB -Create-- --Read--- -Delete--",
                Some("Seagate 7200.11 USB"),
            ),
            ("box --Random--", Some("box")),
            ("see the table below --", None),
            ("Bonnie results -- ext3", None),
            ("no dashes at all", None),
        ];
        for (i, (text, want)) in cases.into_iter().enumerate() {
            assert_eq!(name_before_dashes(text), want, "case {i}: {text:?}");
        }
    }
}
