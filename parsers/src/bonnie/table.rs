//! Bonnie's and bonnie++'s human tables.
//!
//! bonnie++ prints fixed columns: the name and size fill 19 characters,
//! then each phase is a ` %5s %3s` pair (rate, CPU) and each latency a
//! ` %9s`. A phase that did not run (`-f` skips the per-character ones)
//! leaves its columns blank, so when a row has fewer figures than columns
//! the figures are placed by where they end. A value wider than its column
//! pushes the rest of the row right; the placement follows that shift.

use crate::text::Line;
use crate::Unparsed;

use super::{cell, csv, is_size, latency_us, split_size, Flavour, Phase, Report, FILE_PHASES};

/// Decoration lines (`Version ...`, `-Per Chr- --Block--`) above a header.
const MAX_DECORATION_LINES: usize = 8;
/// Rows one table may hold (bon_csv2txt prints one per CSV line).
const MAX_ROWS: usize = 64;
/// The header words a wrapped header may leave on the next line.
const HEADER_WORDS: [&str; 5] = ["/sec", "%CP", "%CPU", "K/sec", "M/sec"];

/// The reports of one table (an I/O table, its file-creation table and the
/// CSV lines printed after them) and the index past its last line.
#[derive(Debug)]
pub(super) struct Block {
    pub reports: Vec<Report>,
    pub end: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderKind {
    /// `megabytes`: the size column is headed `MB` and holds bare numbers.
    Io {
        classic: bool,
        megabytes: bool,
    },
    Files,
}

fn header_kind(text: &str) -> Option<HeaderKind> {
    let text = text.trim_start();
    // Posts cut the machine column away (`Size K/sec %CP ...`, the rows
    // starting with the size) or blank out the word `Machine` above the names.
    let nameless = {
        let mut words = text.split_whitespace();
        words.next() == Some("Size") && matches!(words.next(), Some("K/sec" | "M/sec"))
    };
    if text.starts_with("Machine") || text.starts_with("Name:Size") || nameless {
        // bonnie++ 1.00's bon_csv2txt heads its size column `MB` too, but
        // keeps bonnie++'s `%CP` columns.
        let megabytes = text.split_whitespace().nth(1) == Some("MB");
        let classic = megabytes && text.contains("%CPU");
        return Some(HeaderKind::Io { classic, megabytes });
    }
    if text.starts_with("files") && text.contains("/sec") {
        return Some(HeaderKind::Files);
    }
    None
}

/// A whitespace-separated word and the columns it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token<'a> {
    start: usize,
    end: usize,
    text: &'a str,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut found = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c == ' ' || c == '\t', start) {
            (true, Some(s)) => {
                found.push(Token {
                    start: s,
                    end: i,
                    text: &text[s..i],
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        found.push(Token {
            start: s,
            end: text.len(),
            text: &text[s..],
        });
    }
    found
}

/// What the decoration above a header says.
#[derive(Debug, Default)]
struct Decoration {
    start: usize,
    version: Option<String>,
    concurrency: Option<String>,
    machine: Option<String>,
}

fn is_dashed(word: &str) -> bool {
    word.starts_with('-') || word.ends_with('-')
}

/// Walks up from a header over `Version`, `Concurrency` and dashed lines.
fn decoration_above(lines: &[Line<'_>], header: usize, taken_until: usize) -> Decoration {
    let depth = lines[header].depth;
    let lowest = header.saturating_sub(MAX_DECORATION_LINES).max(taken_until);
    let mut found = Decoration {
        start: header,
        ..Decoration::default()
    };
    for j in (lowest..header).rev() {
        let line = &lines[j];
        if line.depth != depth || line.is_blank() {
            break;
        }
        let words: Vec<&str> = line.text.split_whitespace().collect();
        match words.as_slice() {
            ["Version", version, ..] => {
                if !version.starts_with('@') && !is_dashed(version) {
                    found.version = Some(version.to_string());
                }
            }
            ["Concurrency", n, rest @ ..] if rest.iter().all(|w| is_dashed(w)) => {
                found.concurrency = Some(n.to_string());
            }
            [first, rest @ ..]
                if !rest.is_empty() && !is_dashed(first) && rest.iter().all(|w| is_dashed(w)) =>
            {
                found.machine = Some(first.to_string());
            }
            words if words.iter().all(|w| is_dashed(w)) => {}
            _ => break,
        }
        found.start = j;
    }
    found
}

/// Reads the table whose header is `lines[header]` (a line holding `%CP`).
/// `None` when the line is not a Bonnie header.
pub(super) fn read_block(
    lines: &[Line<'_>],
    header: usize,
    taken_until: usize,
) -> Option<Result<Block, Unparsed>> {
    let kind = header_kind(lines[header].text)?;
    let decoration = decoration_above(lines, header, taken_until);
    let miss = |why: &str| Unparsed {
        line: lines[header].number,
        text: lines[header].text.trim().to_string(),
        why: why.to_string(),
    };
    let depth = lines[header].depth;
    let mut reports = Vec::new();
    let mut next = skip_header_rest(lines, header + 1);
    match kind {
        HeaderKind::Io { classic, megabytes } => {
            let (rows, after) = read_rows(lines, next, RowKind::Io { classic, megabytes });
            if rows.is_empty() {
                let why = if classic {
                    "Bonnie table header without a complete row: expected `MACHINE MB` and 12 figures"
                } else {
                    "bonnie++ table header without a readable row: expected `MACHINE SIZE` and up to 12 figures"
                };
                return Some(Err(miss(why)));
            }
            let flavour = if classic {
                Flavour::Classic
            } else {
                Flavour::PlusPlus
            };
            for row in rows {
                let mut report = Report::new(flavour, depth, lines[decoration.start].number);
                report.version = decoration.version.clone();
                report.concurrency = decoration.concurrency.clone();
                row.fill(&mut report, 0);
                reports.push(report);
            }
            next = after;
            if !classic {
                if let Some((file_rows, after)) = file_table_after(lines, next) {
                    if file_rows.len() == reports.len() {
                        for (report, row) in reports.iter_mut().zip(file_rows) {
                            row.fill(report, FILE_PHASES);
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
            }
        }
        HeaderKind::Files => {
            let (rows, after) = read_rows(lines, next, RowKind::Files);
            if rows.is_empty() {
                return Some(Err(miss(
                    "bonnie++ file-creation header without a readable row: expected `FILES` and up to 12 figures",
                )));
            }
            for row in rows {
                let mut report =
                    Report::new(Flavour::PlusPlus, depth, lines[decoration.start].number);
                report.version = decoration.version.clone();
                report.machine = decoration.machine.clone();
                row.fill(&mut report, FILE_PHASES);
                reports.push(report);
            }
            next = after;
        }
    }
    let end = merge_following_csv(lines, next, &mut reports);
    Some(Ok(Block { reports, end }))
}

/// Skips the part of a wrapped header that landed on the next lines.
fn skip_header_rest(lines: &[Line<'_>], mut i: usize) -> usize {
    while lines.get(i).is_some_and(|l| {
        !l.is_blank() && l.text.split_whitespace().all(|w| HEADER_WORDS.contains(&w))
    }) {
        i += 1;
    }
    i
}

/// The file-creation table bonnie++ prints right after its I/O table.
fn file_table_after(lines: &[Line<'_>], from: usize) -> Option<(Vec<Row>, usize)> {
    let depth = lines.get(from)?.depth;
    let mut i = from;
    if lines.get(i).is_some_and(|l| l.is_blank()) {
        i += 1;
    }
    for _ in 0..=4 {
        let line = lines.get(i)?;
        if line.depth != depth || line.is_blank() {
            return None;
        }
        if line.text.contains("%CP") {
            if header_kind(line.text) != Some(HeaderKind::Files) {
                return None;
            }
            let (rows, after) = read_rows(lines, skip_header_rest(lines, i + 1), RowKind::Files);
            return (!rows.is_empty()).then_some((rows, after));
        }
        let words: Vec<&str> = line.text.split_whitespace().collect();
        let decoration =
            words.first() == Some(&"Version") || words.iter().skip(1).all(|w| is_dashed(w));
        if !decoration {
            return None;
        }
        i += 1;
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowKind {
    Io { classic: bool, megabytes: bool },
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
                phase.rate = if measured { cell(text).flatten() } else { None };
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

/// Reads rows (each with its `Latency` line) until a line is not one.
fn read_rows(lines: &[Line<'_>], from: usize, kind: RowKind) -> (Vec<Row>, usize) {
    let mut rows = Vec::new();
    let mut i = from;
    while rows.len() < MAX_ROWS {
        let Some((mut row, next)) = read_row(lines, i, kind) else {
            break;
        };
        i = next;
        if let Some((latencies, line)) = lines.get(i).and_then(|l| latency_line(l)) {
            if lines[i].depth == lines[from].depth {
                for (slot, value) in row.latencies.iter_mut().zip(latencies) {
                    *slot = value.map(|v| (v, line));
                }
                row.last_line = line;
                i += 1;
            }
        }
        rows.push(row);
    }
    (rows, i)
}

/// A size in megabytes as a bare number (`5000`).
fn is_megabytes(token: &str) -> bool {
    !token.is_empty() && token.len() <= 9 && token.bytes().all(|b| b.is_ascii_digit())
}

fn is_files_spec(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_digit())
        && token.split([':', '/']).all(|part| {
            part.is_empty()
                || part.bytes().all(|b| b.is_ascii_digit())
                || ["link", "symlink"].contains(&part)
                || (part.ends_with(['k', 'm'])
                    && part[..part.len() - 1].bytes().all(|b| b.is_ascii_digit()))
        })
}

/// One row at `lines[i]`, re-joined with its wrapped tail if a mailer
/// broke it; also the index of the line after it.
fn read_row(lines: &[Line<'_>], i: usize, kind: RowKind) -> Option<(Row, usize)> {
    let line = lines.get(i)?;
    let words = tokens(line.text);
    let mut row = Row {
        first_line: line.number,
        last_line: line.number,
        ..Row::default()
    };
    // The name (and size) in front of the figures.
    let lead = match kind {
        RowKind::Io { classic: true, .. } => {
            let [name, mb, ..] = words.as_slice() else {
                return None;
            };
            if cell(name.text).is_some() || !is_megabytes(mb.text) {
                return None;
            }
            row.name = Some(name.text.to_string());
            row.size = Some(format!("{}M", mb.text));
            2
        }
        RowKind::Io {
            classic: false,
            megabytes,
        } => match words.as_slice() {
            [name, mb, ..] if megabytes && is_megabytes(mb.text) && cell(name.text).is_none() => {
                row.name = Some(name.text.to_string());
                row.size = Some(format!("{}M", mb.text));
                2
            }
            [name, size, ..]
                if is_size(size.text) && cell(name.text).is_none() && !is_size(name.text) =>
            {
                row.name = Some(name.text.to_string());
                row.size = Some(size.text.to_string());
                2
            }
            [size, ..] if is_size(size.text) => {
                row.size = Some(size.text.to_string());
                1
            }
            _ => return None,
        },
        RowKind::Files => match words.as_slice() {
            [spec, ..] if is_files_spec(spec.text) => {
                row.files = Some(spec.text.to_string());
                1
            }
            [name, spec, ..]
                if is_files_spec(spec.text)
                    && cell(name.text).is_none()
                    && name.text != "Latency" =>
            {
                row.name = Some(name.text.to_string());
                row.files = Some(spec.text.to_string());
                2
            }
            _ => return None,
        },
    };
    let figures = &words[lead..];
    if figures.is_empty() || figures.len() > 12 || !figures.iter().all(|t| cell(t.text).is_some()) {
        return None;
    }
    // A row a mailer wrapped: its tail is on the next line.
    let mut tail: Vec<Token<'_>> = Vec::new();
    let mut next = i + 1;
    if figures.len() < 12 {
        if let Some(more) = lines.get(i + 1).filter(|l| l.depth == line.depth) {
            let more_words = tokens(more.text);
            let fits = !more_words.is_empty()
                && figures.len() + more_words.len() <= 12
                && more_words.iter().all(|t| cell(t.text).is_some());
            if fits {
                tail = more_words;
                next = i + 2;
                row.last_line = more.number;
            }
        }
    }
    if matches!(kind, RowKind::Io { classic: true, .. }) && figures.len() + tail.len() != 12 {
        return None;
    }
    let head_slots = 12 - tail.len();
    let base = words[lead - 1].end;
    let ends: Vec<usize> = (0..head_slots)
        .map(|j| base + (j / 2) * 10 + if j % 2 == 0 { 6 } else { 10 })
        .collect();
    let placed = place(figures, &ends, line.text)?;
    for (slot, token) in row.cells.iter_mut().zip(placed) {
        *slot = token.map(|t| (t.text.to_string(), line.number));
    }
    for (slot, token) in row.cells[head_slots..].iter_mut().zip(&tail) {
        *slot = Some((token.text.to_string(), row.last_line));
    }
    Some((row, next))
}

/// Places tokens into columns that end at `ends`. A full set goes in
/// order; a partial one by the nearest column end, following any shift a
/// too-wide value caused. Without the original spacing a partial row is
/// ambiguous.
fn place<'a, 'b>(
    tokens: &'b [Token<'a>],
    ends: &[usize],
    text: &str,
) -> Option<Vec<Option<&'b Token<'a>>>> {
    let mut placed = vec![None; ends.len()];
    if tokens.len() > ends.len() {
        return None;
    }
    if tokens.len() == ends.len() {
        for (slot, token) in placed.iter_mut().zip(tokens) {
            *slot = Some(token);
        }
        return Some(placed);
    }
    if !text.contains("  ") || text.contains('\t') {
        return None;
    }
    let mut next = 0;
    let mut shift: isize = 0;
    for (k, token) in tokens.iter().enumerate() {
        let end = token.end as isize - shift;
        // Leave room for the tokens still to come.
        let last = ends.len() - (tokens.len() - k);
        if next > last {
            return None;
        }
        let slot = (next..=last).min_by_key(|&j| (ends[j] as isize - end).abs())?;
        placed[slot] = Some(token);
        shift = token.end as isize - ends[slot] as isize;
        next = slot + 1;
    }
    Some(placed)
}

/// A `Latency` line: up to six latencies in ` %9s` columns.
fn latency_line(line: &Line<'_>) -> Option<([Option<f64>; 6], usize)> {
    let words = tokens(line.text);
    let (head, figures) = words.split_first()?;
    if head.text != "Latency" || figures.is_empty() || figures.len() > 6 {
        return None;
    }
    let values: Vec<f64> = figures
        .iter()
        .map(|t| latency_us(t.text))
        .collect::<Option<_>>()?;
    let ends: Vec<usize> = (0..6).map(|k| head.start + 27 + 10 * k).collect();
    let placed = place(figures, &ends, line.text)?;
    let mut found = [None; 6];
    let mut values = values.into_iter();
    for (slot, token) in found.iter_mut().zip(placed) {
        if token.is_some() {
            *slot = values.next();
        }
    }
    Some((found, line.number))
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
}
