//! FreeBSD's `diskinfo -v` header and its benchmarks (`-t`, `-c`, `-i`,
//! `-S`), as FreeBSD 5.x to 14.x print them:
//!
//! ```text
//! # diskinfo -t /dev/da0s1
//! /dev/da0s1
//!         512             # sectorsize
//!         159973438464    # mediasize in bytes (149G)
//!         ...
//! Seek times:
//!         Full stroke:      250 iter in   1.439902 sec =    5.760 msec
//!         ...
//! Transfer rates:
//!         outside:       102400 kbytes in   0.741994 sec =   138007 kbytes/sec
//! ```
//!
//! Header values are properties of the disk and become attrs (`device`,
//! `sectorsize`, `mediasize_bytes`, `description`, `ident`, `trim`,
//! `rotation_rate`, ...); the timed figures are results. A `-v` header
//! alone is a run with no results, which describes the disk of the other
//! runs in its post. A section the paste cuts short is left out of the run
//! and reported as a near miss.
//!
//! Items beyond Contract 2's list: `-i` measures several I/O sizes, kept
//! as `async_random_reads` (sector size) and `async_random_reads_4k`,
//! `_32k`, `_128k`, `_1024k`; `-S` gives `sync_random_writes_<N>k` with
//! `latency_us` and `mib_per_s`.

use std::collections::BTreeMap;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, space0, space1};
use nom::combinator::eof;
use nom::{IResult, Parser};

use crate::contract::diskinfo_keys as keys;
use crate::number::short_decimal;
use crate::reader::{LineBytes, Reader};
use crate::text::{self, Line};
use crate::{Measurement, Run, Tool, Unparsed};

/// Lines above the header that may hold the device and the command.
const MAX_LEAD_LINES: usize = 3;
/// Lines of prose above a report that may name its command.
const MAX_PROSE_LINES: usize = 6;
/// Blank lines allowed between two parts of one report.
const MAX_BLANK_GAP: usize = 2;
/// No report is longer than this.
const MAX_REPORT_LINES: usize = 80;

/// The benchmark sections diskinfo prints, by their title line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Seek,
    Transfer,
    Overhead,
    AsyncReads,
    SyncWrites,
}

impl Section {
    fn from_title(text: &str) -> Option<Section> {
        match text.trim() {
            "Seek times:" => Some(Section::Seek),
            "Transfer rates:" => Some(Section::Transfer),
            "I/O command overhead:" => Some(Section::Overhead),
            "Asynchronous random reads:" => Some(Section::AsyncReads),
            "Synchronous random writes:" => Some(Section::SyncWrites),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Section::Seek => "seek times (-t)",
            Section::Transfer => "transfer rates (-t)",
            Section::Overhead => "command overhead (-c)",
            Section::AsyncReads => "asynchronous random reads (-i)",
            Section::SyncWrites => "synchronous random writes (-S)",
        }
    }

    /// The items a complete section holds (sync writes vary with the
    /// sector size and end at 8192 kbytes).
    fn required(self) -> &'static [&'static str] {
        match self {
            Section::Seek => &[
                "seek_full_stroke",
                "seek_half_stroke",
                "seek_quarter_stroke",
                "seek_short_forward",
                "seek_short_backward",
                "seq_outer",
                "seq_inner",
            ],
            Section::Transfer => &["transfer_outside", "transfer_middle", "transfer_inside"],
            Section::Overhead => &["command_overhead"],
            // diskinfo.c's iopsbench() ends at 128 kbytes (and skips 4
            // kbytes on 4096-byte sectors); a 1024 kbytes line is kept
            // when printed but never required.
            Section::AsyncReads => &[
                "async_random_reads",
                "async_random_reads_32k",
                "async_random_reads_128k",
            ],
            Section::SyncWrites => &["sync_random_writes_8192k"],
        }
    }
}

/// How the one walk over the lines finds diskinfo's reports.
pub struct DiskinfoReader;

impl Reader for DiskinfoReader {
    const TOOL: Tool = Tool::Diskinfo;
    // `# sectorsize`, the colon that ends a section's title and
    // `outside:`, and for a plain `diskinfo` line the `0` of its stripe
    // figures or the `/` of its `/dev/` (FreeBSD 5's had no stripes).
    const START_LINE_BYTES: &'static [u8] = b"#:0/";
    /// Lines below this index belong to a report already read.
    type State = usize;

    fn may_start(lines: &[Line<'_>], i: usize, line_bytes: LineBytes<'_>) -> bool {
        starts_report(&lines[i], line_bytes)
    }

    /// Reads the diskinfo report around line `i`.
    fn read_at(
        lines: &[Line<'_>],
        i: usize,
        taken_until: &mut usize,
        runs: &mut Vec<Run>,
        unparsed: &mut Vec<Unparsed>,
    ) -> usize {
        let before = runs.len();
        *taken_until = read_report(lines, i, *taken_until, runs, unparsed);
        share_command(runs, before);
        *taken_until
    }
}

/// A report starts at its `# sectorsize` line (`-t`'s header), at a
/// section's title, or at a transfer rate line whose title was cut off.
/// `line_bytes` says which bytes the line may hold.
fn starts_report(line: &Line<'_>, line_bytes: LineBytes<'_>) -> bool {
    let text = line.text;
    // A `#` is rare in prose; look for the header only then.
    (line_bytes.may_hold(b'#') && text.contains("# sectorsize"))
        || (text::trim_end(text).ends_with(':') && Section::from_title(text).is_some())
        || (line_bytes.may_hold(b':') && is_untitled_transfer(text, line.number))
        || ((line_bytes.may_hold(b'0') || line_bytes.may_hold(b'/'))
            && plain_header(text).is_some())
}

/// `diskinfo ada0` without `-v` prints the header on one line: the
/// device, then sector size, media size in bytes and in sectors, stripe
/// size and offset, and the firmware's cylinders, heads and sectors when
/// it gives them (`/dev/da0  512  21474836480  41943040  0  0  2610  255
/// 63`); FreeBSD 5 printed the first three figures only. Read only when
/// the figures agree (a power-of-two sector size, the sectors the bytes
/// make), so no other table's row passes.
fn plain_header(text: &str) -> Option<BTreeMap<String, String>> {
    const KEYS: [&str; 8] = [
        keys::SECTORSIZE,
        keys::MEDIASIZE_BYTES,
        keys::MEDIASIZE_SECTORS,
        keys::STRIPESIZE,
        keys::STRIPEOFFSET,
        keys::CYLINDERS,
        keys::HEADS,
        keys::SECTORS,
    ];
    let mut words = text.split_whitespace();
    let device = words.next().filter(|w| is_device(w))?;
    let figures: Vec<&str> = words.collect();
    if ![3, 5, KEYS.len()].contains(&figures.len()) {
        return None;
    }
    let numbers: Vec<u64> = figures
        .iter()
        .map(|w| {
            w.parse::<u64>()
                .ok()
                .filter(|_| w.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect::<Option<_>>()?;
    let (sector, bytes, sectors) = (numbers[0], numbers[1], numbers[2]);
    let agrees = sector.is_power_of_two()
        && (512..=65536).contains(&sector)
        && sectors > 0
        && bytes / sector == sectors;
    if !agrees {
        return None;
    }
    let mut attrs: BTreeMap<String, String> = KEYS
        .iter()
        .zip(&figures)
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect();
    attrs.insert(keys::DEVICE.to_string(), device.to_string());
    Some(attrs)
}

/// `diskinfo -ct ada0 ada1` prints one report per disk under one command:
/// a report without a command line of its own takes the previous report's
/// command when that command names its device.
fn share_command(runs: &mut [Run], new: usize) {
    let Some((previous, added)) = new
        .checked_sub(1)
        .and_then(|p| runs.get_mut(p..))
        .and_then(|r| r.split_first_mut())
    else {
        return;
    };
    let (Some(command), Some(run)) = (previous.command.as_ref(), added.first_mut()) else {
        return;
    };
    if previous.tool != Tool::Diskinfo || run.command.is_some() {
        return;
    }
    let named = run.attrs.get(keys::DEVICE).is_some_and(|device| {
        command
            .split_whitespace()
            .skip(1)
            .any(|w| w == device || w.strip_prefix("/dev/") == Some(device))
    });
    if named {
        run.command = Some(command.clone());
    }
}

/// What has been read of one report so far.
struct Report {
    attrs: BTreeMap<String, String>,
    results: Vec<Measurement>,
    command: Option<String>,
    first_line: usize,
    last_line: usize,
}

impl Report {
    /// The run of a report read at quote depth `depth`.
    fn into_run(self, depth: usize) -> Run {
        Run {
            test: Some("diskinfo".to_string()),
            attrs: self.attrs,
            command: self.command,
            ..Run::new(
                Tool::Diskinfo,
                depth,
                [self.first_line, self.last_line],
                self.results,
            )
        }
    }
}

/// Reads the report around `anchor` and returns the index past its end.
fn read_report(
    lines: &[Line<'_>],
    anchor: usize,
    taken_until: usize,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) -> usize {
    let depth = lines[anchor].depth;
    let mut report = Report {
        attrs: BTreeMap::new(),
        results: Vec::new(),
        command: None,
        first_line: lines[anchor].number,
        last_line: lines[anchor].number,
    };
    if let Some(attrs) = plain_header(lines[anchor].text) {
        read_lead(lines, anchor, taken_until, &mut report);
        // The line names its device itself, whatever a line above said.
        report.attrs.extend(attrs);
        runs.push(report.into_run(depth));
        return anchor + 1;
    }
    read_lead(lines, anchor, taken_until, &mut report);

    // A transfer-rate block pasted without its title starts its section
    // at its first line.
    let mut section: Option<(Section, Vec<Measurement>, usize)> =
        is_untitled_transfer(lines[anchor].text, lines[anchor].number)
            .then(|| (Section::Transfer, Vec::new(), anchor));
    let mut measured = section.is_some();
    let mut i = anchor;
    let mut blanks = 0;
    let mut end = anchor + 1;
    while i < lines.len() && i - anchor < MAX_REPORT_LINES {
        let line = &lines[i];
        if line.depth != depth {
            break;
        }
        if line.is_blank() {
            blanks += 1;
            if blanks > MAX_BLANK_GAP {
                break;
            }
            i += 1;
            continue;
        }
        let text = line.text.trim();
        if let Some(next) = Section::from_title(text) {
            close_section(section.take(), &mut report, unparsed, lines);
            section = Some((next, Vec::new(), i));
            measured = true;
        } else if let Some((current, found, _)) = section.as_mut() {
            match measurement(*current, text, line.number) {
                Some(mut got) => found.append(&mut got),
                None => {
                    // A mailer may have wrapped the line after a few words.
                    let Some(mut got) = wrapped_measurement(*current, lines, i) else {
                        break;
                    };
                    found.append(&mut got);
                    i += 1;
                }
            }
        } else if let Some((key, value)) = header_attr(text) {
            if !value.is_empty() {
                report.attrs.entry(key).or_insert(value);
            }
        } else {
            break;
        }
        blanks = 0;
        report.last_line = lines[i].number;
        i += 1;
        end = i;
    }
    close_section(section, &mut report, unparsed, lines);
    if !report.results.is_empty() || (!measured && is_disk_header(&report.attrs)) {
        runs.push(report.into_run(depth));
    }
    end
}

/// `diskinfo -v` alone prints only the header: it is a run of its own,
/// with no results, that describes the disk of the other runs in its post
/// (DESIGN, Contract 3). A header needs its sector size and at least one
/// more of its lines, so a lone `512 # sectorsize` in prose is none; a
/// header whose section broke off stays a near miss, not a run.
fn is_disk_header(attrs: &BTreeMap<String, String>) -> bool {
    attrs.contains_key(keys::SECTORSIZE)
        && attrs
            .keys()
            .any(|k| k != keys::SECTORSIZE && k != keys::DEVICE)
}

/// `outside: 102400 kbytes in 0.719681 s = 142285 kB/s`: the first line of
/// a transfer-rate block quoted without its `Transfer rates:` title (an
/// article printed only these three lines, its units abbreviated).
fn is_untitled_transfer(text: &str, line: usize) -> bool {
    // The head before trimming both ends: this runs for every line with a colon.
    if !text::trim_start(text).starts_with("outside:") {
        return false;
    }
    let text = text.trim();
    Section::from_title(text).is_none() && measurement(Section::Transfer, text, line).is_some()
}

/// The device line (`/dev/da0s1`) and the command (`# diskinfo -t
/// /dev/da0s1`) just above the header.
fn read_lead(lines: &[Line<'_>], anchor: usize, taken_until: usize, report: &mut Report) {
    let depth = lines[anchor].depth;
    let lowest = anchor.saturating_sub(MAX_LEAD_LINES).max(taken_until);
    let mut top = anchor;
    for j in (lowest..anchor).rev() {
        let line = &lines[j];
        if line.depth != depth || line.is_blank() {
            break;
        }
        if let Some((command, device)) = diskinfo_command(line.text) {
            if let Some(device) = device {
                report
                    .attrs
                    .entry(keys::DEVICE.to_string())
                    .or_insert(device);
            }
            report.command = Some(command);
            report.first_line = line.number;
            return;
        }
        let words: Vec<&str> = line.text.split_whitespace().collect();
        match words.as_slice() {
            [device] if is_device(device) => {
                report
                    .attrs
                    .insert(keys::DEVICE.to_string(), device.to_string());
                report.first_line = line.number;
                top = j;
            }
            _ => break,
        }
    }
    command_in_prose(lines, top, taken_until, report);
}

/// A write-up that names the command in its prose (`` `diskinfo -t
/// /dev/adaX` ``, then "Sample output is" and a code fence) gives the
/// report that command when it names the report's device. The command line
/// stays outside the report's lines.
fn command_in_prose(lines: &[Line<'_>], top: usize, taken_until: usize, report: &mut Report) {
    let Some(device) = report.attrs.get(keys::DEVICE) else {
        return;
    };
    let depth = lines[top].depth;
    let lowest = top.saturating_sub(MAX_PROSE_LINES).max(taken_until);
    for line in lines[lowest..top].iter().rev() {
        if line.depth != depth {
            return;
        }
        if let Some((command, Some(named))) = diskinfo_command(line.text) {
            if &named == device {
                report.command = Some(command);
            }
            return;
        }
    }
}

/// `# diskinfo -t /dev/ada0`, `` `diskinfo -t /dev/adaX` ``: the command
/// from its `diskinfo` word on, and the device it names last. A shell
/// comment after it (`diskinfo -v /dev/da1   # before resizing`) is no
/// part of the command; a pipe stays in it (`diskinfo -v ada0 | head
/// -n3`), but the device is named before the pipe.
fn diskinfo_command(text: &str) -> Option<(String, Option<String>)> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches('`'))
        .filter(|w| !w.is_empty())
        .collect();
    let at = words
        .iter()
        .position(|w| w.rsplit('/').next() == Some("diskinfo"))?;
    let words = &words[at..];
    let words = &words[..words
        .iter()
        .position(|w| w.starts_with('#'))
        .unwrap_or(words.len())];
    let own = words
        .iter()
        .position(|w| matches!(*w, "|" | "||" | "&&" | ";") || w.starts_with(['>', '<']))
        .unwrap_or(words.len());
    let device = words[1..own]
        .iter()
        .rev()
        .find(|w| !w.starts_with('-'))
        .map(|w| w.to_string());
    Some((words.join(" "), device))
}

/// `/dev/ada0`, `da0s1`, `nvd0p2`, `/tmp/disk.img`.
fn is_device(word: &str) -> bool {
    word.starts_with("/dev/")
        || (word.starts_with(|c: char| c.is_ascii_lowercase())
            && word.ends_with(|c: char| c.is_ascii_alphanumeric())
            && word.bytes().any(|b| b.is_ascii_digit())
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'/'))
}

/// One `VALUE # WHAT` line of the `-v` header as (attr key, value). A
/// disk that reports an empty string (an ident a virtual disk lacks)
/// leaves only the padding before `# Disk ident.`: its value is empty,
/// and the header goes on past it.
fn header_attr(text: &str) -> Option<(String, String)> {
    let (value, what) = match text.strip_prefix("# ") {
        Some(what) => ("", what),
        None => text.split_once(" # ").or_else(|| text.split_once("\t# "))?,
    };
    let value = value.trim();
    let what = what.trim();
    let key = match what {
        "sectorsize" => keys::SECTORSIZE,
        "mediasize in sectors" => keys::MEDIASIZE_SECTORS,
        "stripesize" => keys::STRIPESIZE,
        "stripeoffset" => keys::STRIPEOFFSET,
        "Cylinders according to firmware." => keys::CYLINDERS,
        "Heads according to firmware." => keys::HEADS,
        "Sectors according to firmware." => keys::SECTORS,
        "Disk descr." => keys::DESCRIPTION,
        "Disk ident." => keys::IDENT,
        "Attachment" => keys::ATTACHMENT,
        "Physical path" => keys::PHYSICAL_PATH,
        "TRIM/UNMAP support" => keys::TRIM,
        "Rotation rate in RPM" => keys::ROTATION_RATE,
        "Zone Mode" => keys::ZONE_MODE,
        _ if what.starts_with("mediasize in bytes") => keys::MEDIASIZE_BYTES,
        _ => return None,
    };
    let numeric = !matches!(
        key,
        keys::DESCRIPTION
            | keys::IDENT
            | keys::ATTACHMENT
            | keys::PHYSICAL_PATH
            | keys::TRIM
            | keys::ROTATION_RATE
            | keys::ZONE_MODE
    );
    if numeric && (value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    Some((key.to_string(), value.to_string()))
}

/// The item a labelled line of a section measures.
fn item_for(section: Section, label: &str) -> Option<String> {
    let label = label.trim();
    let item = match (section, label) {
        (Section::Seek, "Full stroke") => "seek_full_stroke",
        (Section::Seek, "Half stroke") => "seek_half_stroke",
        (Section::Seek, "Quarter stroke") => "seek_quarter_stroke",
        (Section::Seek, "Short forward") => "seek_short_forward",
        (Section::Seek, "Short backward") => "seek_short_backward",
        (Section::Seek, "Seq outer") => "seq_outer",
        (Section::Seek, "Seq inner") => "seq_inner",
        (Section::Transfer, "outside") => "transfer_outside",
        (Section::Transfer, "middle") => "transfer_middle",
        (Section::Transfer, "inside") => "transfer_inside",
        (Section::AsyncReads, "sectorsize") => "async_random_reads",
        (Section::AsyncReads, size) => {
            let kbytes = size.strip_suffix(" kbytes")?.trim();
            if kbytes.is_empty() || !kbytes.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            return Some(format!("async_random_reads_{kbytes}k"));
        }
        _ => return None,
    };
    Some(item.to_string())
}

/// Reads one line of a section into its measurements; `None` when the
/// line is not one this section prints (or is cut short).
fn measurement(section: Section, text: &str, line: usize) -> Option<Vec<Measurement>> {
    let one =
        |item: String, metric: &str, value: f64| vec![Measurement::new(&item, metric, value, line)];
    match section {
        Section::Overhead => {
            if text.starts_with("time to read") {
                // The two timings the overhead is computed from.
                return overhead_value(text).ok().map(|_| Vec::new());
            }
            let rest = text.strip_prefix("calculated command overhead")?;
            let (_, value) = overhead_value(rest).ok()?;
            Some(one("command_overhead".to_string(), "ms", value))
        }
        Section::SyncWrites => {
            let (_, (kbytes, usec, mib)) = sync_write(text).ok()?;
            let item = format!("sync_random_writes_{kbytes}k");
            let mut both = one(item.clone(), "latency_us", usec);
            both.extend(one(item, "mib_per_s", mib));
            Some(both)
        }
        Section::Seek | Section::Transfer | Section::AsyncReads => {
            let (label, rest) = text.split_once(':')?;
            let item = item_for(section, label)?;
            let (_, (unit, value)) = timed(rest.trim_start()).ok()?;
            let metric = match (section, unit) {
                (Section::Seek, "msec") => "ms",
                (Section::Transfer, "kbytes/sec" | "kB/s") => "kb_per_s",
                (Section::AsyncReads, "IOPS") => "iops",
                _ => return None,
            };
            Some(one(item, metric, value))
        }
    }
}

/// A section line a mailer broke in two, read as one (at its first line).
fn wrapped_measurement(section: Section, lines: &[Line<'_>], i: usize) -> Option<Vec<Measurement>> {
    let next = lines
        .get(i + 1)
        .filter(|l| l.depth == lines[i].depth && !l.is_blank())?;
    let joined = format!("{} {}", lines[i].text.trim(), next.text.trim());
    measurement(section, &joined, lines[i].number)
}

/// Ends a section: a complete one joins the run, a cut one is a near miss.
fn close_section(
    section: Option<(Section, Vec<Measurement>, usize)>,
    report: &mut Report,
    unparsed: &mut Vec<Unparsed>,
    lines: &[Line<'_>],
) {
    let Some((section, found, title)) = section else {
        return;
    };
    let missing: Vec<&str> = section
        .required()
        .iter()
        .copied()
        .filter(|item| !found.iter().any(|m| m.item == *item))
        .collect();
    if missing.is_empty() {
        report.results.extend(found);
        return;
    }
    unparsed.push(Unparsed {
        line: lines[title].number,
        text: lines[title].text.trim().to_string(),
        why: format!(
            "diskinfo {} breaks off: no {} (truncated paste?)",
            section.name(),
            missing.join(", ")
        ),
    });
}

/// `250 iter in   1.439902 sec =    5.760 msec`, `102400 kbytes in ...
/// = 138007 kbytes/sec`, `12345 ops in  3.000 sec = 4115 IOPS`: the unit
/// and the figure after `=`. Write-ups that abbreviate the units (`0.72 s =
/// 142285 kB/s`) are read the same way.
fn timed(input: &str) -> IResult<&str, (&str, f64)> {
    let (input, (_, _, _, _, _, _, _, _, _, _, _, value, _, unit, _, _)) = (
        short_decimal,
        space1,
        alt((tag("iter"), tag("kbytes"), tag("ops"))),
        space1,
        tag("in"),
        space1,
        short_decimal,
        space1,
        alt((tag("sec"), tag("s"))),
        space0,
        char('='),
        preceded_space(short_decimal),
        space1,
        alt((tag("msec"), tag("kbytes/sec"), tag("kB/s"), tag("IOPS"))),
        space0,
        eof,
    )
        .parse(input)?;
    Ok((input, (unit, value)))
}

/// `  0.123456 sec\t=    0.006 msec/sector` and `\t\t\t=    0.108 msec/sector`.
fn overhead_value(input: &str) -> IResult<&str, f64> {
    let at = input.find('=').unwrap_or(input.len());
    let rest = input.get(at..).unwrap_or_default();
    let (rest, (_, value, _, _, _, _)) = (
        char('='),
        preceded_space(short_decimal),
        space1,
        tag("msec/sector"),
        space0,
        eof,
    )
        .parse(rest)?;
    Ok((rest, value))
}

/// `   4 kbytes:    123.4 usec/IO =     31.7 Mbytes/s` (`%4.4g` sizes such
/// as `0.5` for 512-byte sectors).
fn sync_write(input: &str) -> IResult<&str, (&str, f64, f64)> {
    let (input, (_, kbytes, _, _, usec, _, _, _, mib, _, _, _, _)) = (
        space0,
        take_while1(|c: char| c.is_ascii_digit() || c == '.'),
        space1,
        tag("kbytes:"),
        preceded_space(short_decimal),
        space1,
        tag("usec/IO"),
        space0,
        preceded((char('='), space0), short_decimal),
        space1,
        tag("Mbytes/s"),
        space0,
        eof,
    )
        .parse(input)?;
    Ok((input, (kbytes, usec, mib)))
}

fn preceded<'a, O>(
    first: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
    second: impl Parser<&'a str, Output = f64, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = f64, Error = nom::error::Error<&'a str>> {
    nom::sequence::preceded(first, second)
}

fn preceded_space<'a>(
    value: impl Parser<&'a str, Output = f64, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = f64, Error = nom::error::Error<&'a str>> {
    nom::sequence::preceded(space0, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of::<DiskinfoReader>(input)
    }

    #[test]
    fn timed_lines() {
        let cases = [
            (
                "250 iter in 1.439902 sec = 5.760 msec",
                Some(("msec", 5.760)),
            ),
            ("  250 iter in   1.439902 sec =    5.760 msec", None),
            (
                "102400 kbytes in   0.741994 sec =   138007 kbytes/sec",
                Some(("kbytes/sec", 138007.0)),
            ),
            ("  116227 ops in  3.000471 sec =    38737 IOPS", None),
            (
                "116227 ops in  3.000471 sec =    38737 IOPS",
                Some(("IOPS", 38737.0)),
            ),
            (
                "102400 kbytes in 0.719681 s = 142285 kB/s",
                Some(("kB/s", 142285.0)),
            ),
            ("102400 kbytes in 0.719681 s = 142285 kB", None),
            ("250 iter in 1.439902 sec = 5.7", None),
            ("250 iter in 1.439902 sec = 1e999 msec", None),
            (
                "250 iter in 1.4 sec = 99999999999999999999 msec",
                Some(("msec", 1e20)),
            ),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                timed(input).ok().map(|(_, got)| got),
                want,
                "case {i}: {input:?}"
            );
        }
    }

    #[test]
    fn plain_headers_on_one_line() {
        let nine = "/dev/da0        512     21474836480     41943040        0       0       2610    255     63";
        let got = plain_header(nine).expect("nine fields");
        assert_eq!(got["device"], "/dev/da0");
        assert_eq!(got["mediasize_sectors"], "41943040");
        assert_eq!(got["heads"], "255");
        let six = "ada0\t4096\t1000204886016\t244190646\t0\t0";
        assert_eq!(plain_header(six).expect("six fields")["sectorsize"], "4096");
        let four = "/dev/md34s1a\t512\t1073741824\t2097152";
        assert_eq!(plain_header(four).expect("four fields").len(), 4);
        for (i, no) in [
            "ada0 512 21474836480 41943041 0 0",
            "ada0 500 21474836480 42949672 0 0",
            "ada0 512 21474836480 41943040 0",
            "ada0 512 21474836480",
            "ada0 512 21474836480 41943040 0 0.0",
            "Total 512 21474836480 41943040 0 0",
            "/dev/ada0p2 1234 567 890 12% /",
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(plain_header(no), None, "case {i}: {no:?}");
        }
    }

    #[test]
    fn commands_and_their_devices() {
        let cases = [
            (
                "# diskinfo -t /dev/ada0",
                "diskinfo -t /dev/ada0",
                Some("/dev/ada0"),
            ),
            (
                "`diskinfo -t /dev/adaX`",
                "diskinfo -t /dev/adaX",
                Some("/dev/adaX"),
            ),
            (
                "`# diskinfo -v /dev/da1        # 実行前の容量確認",
                "diskinfo -v /dev/da1",
                Some("/dev/da1"),
            ),
            (
                "# diskinfo -v ada0 | head -n3",
                "diskinfo -v ada0 | head -n3",
                Some("ada0"),
            ),
            (
                "$ diskinfo -v ada0 > disk.txt",
                "diskinfo -v ada0 > disk.txt",
                Some("ada0"),
            ),
            ("# diskinfo -t", "diskinfo -t", None),
        ];
        for (i, (input, command, device)) in cases.into_iter().enumerate() {
            let got = diskinfo_command(input);
            let got = got.as_ref().map(|(c, d)| (c.as_str(), d.as_deref()));
            assert_eq!(got, Some((command, device)), "case {i}: {input:?}");
        }
    }

    #[test]
    fn header_attrs() {
        let cases = [
            ("512 # sectorsize", Some(("sectorsize", "512"))),
            (
                "159973438464\t# mediasize in bytes (149G)",
                Some(("mediasize_bytes", "159973438464")),
            ),
            (
                "Samsung SSD 850 EVO 250GB\t# Disk descr.",
                Some(("description", "Samsung SSD 850 EVO 250GB")),
            ),
            ("Yes          \t# TRIM/UNMAP support", Some(("trim", "Yes"))),
            (
                "Unknown      \t# Rotation rate in RPM",
                Some(("rotation_rate", "Unknown")),
            ),
            ("# Disk ident.", Some(("ident", ""))),
            ("# sectorsize", None),
            ("abc # sectorsize", None),
            ("1 # favourite number", None),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let got = header_attr(input);
            let got = got.as_ref().map(|(k, v)| (k.as_str(), v.as_str()));
            assert_eq!(got, want, "case {i}: {input:?}");
        }
    }

    #[test]
    fn sync_writes_and_overhead() {
        assert_eq!(
            sync_write("\t   4 kbytes:    123.4 usec/IO =     31.7 Mbytes/s")
                .ok()
                .map(|r| r.1),
            Some(("4", 123.4, 31.7))
        );
        assert_eq!(
            sync_write(" 0.5 kbytes:     80.1 usec/IO =      6.1 Mbytes/s")
                .ok()
                .map(|r| r.1 .0),
            Some("0.5")
        );
        assert_eq!(
            overhead_value("\t\t\t=    0.108 msec/sector")
                .ok()
                .map(|r| r.1),
            Some(0.108)
        );
        assert_eq!(
            overhead_value("   2.345 sec\t=    0.114 msec/sector")
                .ok()
                .map(|r| r.1),
            Some(0.114)
        );
    }

    #[test]
    fn seek_and_transfer_without_header() {
        let (runs, unparsed) = runs_of(
            "Seek times:\n\tFull stroke:\t  250 iter in   1.439902 sec =    5.760 msec\n\tHalf stroke:\t  250 iter in   1.455372 sec =    5.821 msec\n\tQuarter stroke:\t  500 iter in   6.351412 sec =   12.703 msec\n\tShort forward:\t  400 iter in   1.341134 sec =    3.353 msec\n\tShort backward:\t  400 iter in   2.936428 sec =    7.341 msec\n\tSeq outer:\t 2048 iter in   0.359675 sec =    0.176 msec\n\tSeq inner:\t 2048 iter in   0.377226 sec =    0.184 msec\n\nTransfer rates:\n\toutside:       102400 kbytes in   0.741994 sec =   138007 kbytes/sec\n\tmiddle:        102400 kbytes in   0.866048 sec =   118238 kbytes/sec\n\tinside:        102400 kbytes in   1.567069 sec =    65345 kbytes/sec\n\nThat was fast.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].results.len(), 10);
        assert_eq!(runs[0].value("seek_quarter_stroke", "ms"), Some(12.703));
        assert_eq!(runs[0].value("transfer_inside", "kb_per_s"), Some(65345.0));
        assert_eq!(runs[0].lines, [1, 13]);
    }

    #[test]
    fn header_alone_is_a_run_and_a_cut_section_is_a_near_miss() {
        let (runs, unparsed) =
            runs_of("ada0\n\t512\t# sectorsize\n\t500107862016\t# mediasize in bytes (466G)\n\n");
        assert!(unparsed.is_empty());
        assert_eq!(runs.len(), 1);
        assert!(runs[0].results.is_empty());
        assert_eq!(runs[0].lines, [1, 3]);
        assert_eq!(
            runs[0].attrs.get("device").map(String::as_str),
            Some("ada0")
        );
        assert_eq!(
            runs[0].attrs.get("mediasize_bytes").map(String::as_str),
            Some("500107862016")
        );
        // A sector size alone is no header.
        let (runs, _) = runs_of("the disk has\n\t512\t# sectorsize\n");
        assert!(runs.is_empty());
        let (runs, unparsed) = runs_of(
            "/dev/ada0\n\t512\t# sectorsize\n\nSeek times:\n\tFull stroke:\t  250 iter in   1.4 sec =    5.760 msec\n\tHalf stroke:\t  250 iter in   1.4\n",
        );
        assert!(runs.is_empty());
        assert_eq!(unparsed.len(), 1);
        assert_eq!(unparsed[0].line, 4);
        assert!(
            unparsed[0].why.contains("seek_half_stroke"),
            "{}",
            unparsed[0].why
        );
    }

    #[test]
    fn async_reads_end_at_128_kbytes() {
        // What FreeBSD's iopsbench() prints on a 4096-byte-sector disk:
        // no 4 kbytes line, no 1024 kbytes line.
        let (runs, unparsed) = runs_of(
            "nvd0\n\t4096\t# sectorsize\n\t500107862016\t# mediasize in bytes (466G)\n\nAsynchronous random reads:\n\tsectorsize:    301234 ops in    3.000412 sec =   100398 IOPS\n\t32 kbytes:      98765 ops in    3.001122 sec =    32909 IOPS\n\t128 kbytes:     24567 ops in    3.002345 sec =     8183 IOPS\n\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].results.len(), 3);
        assert_eq!(
            runs[0].value("async_random_reads_128k", "iops"),
            Some(8183.0)
        );
    }

    #[test]
    fn one_v_command_for_two_disks_gives_a_run_per_disk() {
        let (runs, unparsed) = runs_of(
            "# diskinfo -v ada0 ada1\nada0\n\t512         \t# sectorsize\n\t500107862016\t# mediasize in bytes (466G)\n\tS1234       \t# Disk ident.\n\nada1\n\t4096        \t# sectorsize\n\t1000204886016\t# mediasize in bytes (932G)\n\tS5678       \t# Disk ident.\n\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 2);
        let ident = |r: &Run| r.attrs.get("ident").cloned();
        assert_eq!(ident(&runs[0]).as_deref(), Some("S1234"));
        assert_eq!(ident(&runs[1]).as_deref(), Some("S5678"));
        assert_eq!(
            runs[1].attrs.get("sectorsize").map(String::as_str),
            Some("4096")
        );
        assert_eq!(runs[1].lines, [7, 10]);
        // The second disk's header takes the command that names it.
        assert_eq!(runs[1].command.as_deref(), Some("diskinfo -v ada0 ada1"));
    }

    #[test]
    fn untitled_abbreviated_transfer_block_is_a_run() {
        // FreeBSD Journal 2016/05-06 (bhyve ATA emulation) printed only the
        // three transfer lines, with `s` and `kB/s`.
        let (runs, unparsed) = runs_of(
            "```sh\noutside: 102400 kbytes in 0.719681 s = 142285 kB/s\nmiddle: 102400 kbytes in 0.796385 s = 128581 kB/s\ninside: 102400 kbytes in 0.781721 s = 130993 kB/s\n```\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].lines, [2, 4]);
        assert_eq!(runs[0].value("transfer_middle", "kb_per_s"), Some(128581.0));
        // Two lines of three are a near miss, as with the titled section.
        let (runs, unparsed) = runs_of(
            "outside: 102400 kbytes in 0.719681 s = 142285 kB/s\nmiddle: 102400 kbytes in 0.796385 s = 128581 kB/s\n",
        );
        assert!(runs.is_empty());
        assert_eq!(unparsed.len(), 1);
        assert!(
            unparsed[0].why.contains("transfer_inside"),
            "{}",
            unparsed[0].why
        );
        // Prose about the outside of a disk is no anchor.
        let (runs, unparsed) = runs_of("outside: the disk is faster there\n");
        assert!(runs.is_empty() && unparsed.is_empty());
    }

    #[test]
    fn command_named_in_prose_above_a_fenced_report() {
        let report = "Sample output is\n\n```\n/dev/adaX\n        512             # sectorsize\n\nTransfer rates:\n        outside:       102400 kbytes in   1.903863 sec =    53785 kbytes/sec\n        middle:        102400 kbytes in   1.811469 sec =    56529 kbytes/sec\n        inside:        102400 kbytes in   2.676795 sec =    38255 kbytes/sec\n```\n";
        let (runs, _) = runs_of(&format!("`diskinfo -t /dev/adaX`\n\n{report}"));
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].command.as_deref(), Some("diskinfo -t /dev/adaX"));
        // The run still starts at its device line, not at the prose.
        assert_eq!(runs[0].lines, [6, 12]);
        // A command for another device is not this report's.
        let (runs, _) = runs_of(&format!("`diskinfo -t /dev/ada9`\n\n{report}"));
        assert_eq!(runs[0].command, None);
        assert_eq!(
            runs[0].attrs.get("device").map(String::as_str),
            Some("/dev/adaX")
        );
    }

    #[test]
    fn devices() {
        let cases = [
            ("/dev/da0s1", true),
            ("ada0", true),
            ("nvd0p2", true),
            ("Hello", false),
            ("da0:", false),
            ("the", false),
        ];
        for (i, (word, want)) in cases.into_iter().enumerate() {
            assert_eq!(is_device(word), want, "case {i}: {word:?}");
        }
    }
}
