//! bonnie++'s CSV lines, every format version, also wrapped by a mailer.
//!
//! ```text
//! 1.0x: host,2G,38531,97,51467,19,...,178.3,0,16,3265,97,+++++,+++,...
//! 1.92: 1.92a,1.92a,host,1001286857,1248M,79,97,...,138ms,2546ms,...
//! 1.96: 1.96,1.96,host,1,1379531733,2G,,624,97,...,21169us,408ms,...
//! 1.98: 1.98,2.00a,host,1,1795989233,64M,,8192,5,3261,81,...
//! ```

use crate::text::{self, Line};
use crate::Unparsed;

use super::{cell, is_size, latency_us, Flavour, Report, FILE_PHASES};

/// 1.0x lines: name, size, 12 I/O figures, files, 12 file figures.
const V1_FIELDS: usize = 27;
/// The field counts of the 1.9x and 2.x formats.
const V2_FIELDS: [usize; 3] = [46, 48, 50];
/// How many source lines one wrapped CSV line may span.
const MAX_WRAPPED_LINES: usize = 6;

/// Where each part of a 1.9x/2.x line starts.
struct Layout {
    concurrency: Option<usize>,
    io: usize,
    file_params: usize,
    file_stats: usize,
    latencies: usize,
}

fn layout(fields: usize) -> Option<Layout> {
    let (concurrency, io) = match fields {
        46 => (None, 5),
        48 => (Some(3), 7),
        50 => (Some(3), 9),
        _ => return None,
    };
    Some(Layout {
        concurrency,
        io,
        file_params: io + 12,
        file_stats: io + 17,
        latencies: io + 29,
    })
}

/// Cheap test before any real work: a CSV record has many commas and no
/// spaces in its first field.
///
/// It runs on every line holding a comma (much prose): the first byte
/// is read without Unicode trimming, and the commas are counted by a loop
/// the compiler vectorises (a byte search per comma cost a call each, more
/// than a short line takes to count).
pub(super) fn may_be_record(text: &str) -> bool {
    let first = text::trim_start(text).as_bytes().first().copied();
    first.is_some_and(|b| b.is_ascii_alphanumeric()) && count_byte(text.as_bytes(), b',') >= 10
}

/// How many times `byte` occurs in `bytes`.
fn count_byte(bytes: &[u8], byte: u8) -> usize {
    // Counted in bytes, 255 at a time, so that each step of the loop
    // compares a whole vector of them.
    bytes
        .chunks(255)
        .map(|chunk| {
            let n = chunk
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == byte)));
            usize::from(n)
        })
        .sum()
}

/// `1.96`, `1.92a`, `2.00a`: a version in the first two fields.
fn is_version(field: &str) -> bool {
    let mut parts = field.splitn(2, '.');
    let major = parts.next().unwrap_or_default();
    let minor = parts.next().unwrap_or_default();
    let digits = minor.trim_end_matches(|c: char| c.is_ascii_lowercase());
    !major.is_empty()
        && major.len() <= 2
        && major.bytes().all(|b| b.is_ascii_digit())
        && !digits.is_empty()
        && digits.len() <= 3
        && digits.bytes().all(|b| b.is_ascii_digit())
        && minor.len() - digits.len() <= 1
}

fn is_versioned(text: &str) -> bool {
    let mut fields = text.trim().split(',');
    let first = fields.next().unwrap_or_default();
    let second = fields.next().unwrap_or_default();
    is_version(first) && is_version(second)
}

/// Reads the CSV record starting at `lines[start]`, re-joining a record a
/// mailer wrapped. `None` when the line is not a bonnie++ record at all;
/// on success also the index past its last line.
pub(super) fn read_record(
    lines: &[Line<'_>],
    start: usize,
) -> Option<Result<(Report, usize), Unparsed>> {
    let first = &lines[start];
    let versioned = is_versioned(first.text);
    let (text, end) = join_wrapped(lines, start, versioned);
    let fields: Vec<&str> = text.split(',').collect();
    let report = if versioned {
        match parse_versioned(&fields, first.depth, first.number, lines[end - 1].number) {
            Some(report) => report,
            None => {
                return Some(Err(Unparsed {
                    line: first.number,
                    text: text.chars().take(300).collect(),
                    why: format!(
                        "looks like a bonnie++ {} CSV line but has {} fields or a bad value; 1.9x and 2.x lines have 46, 48 or 50",
                        fields[0],
                        fields.len()
                    ),
                }))
            }
        }
    } else {
        parse_v1(&fields, first.depth, first.number, lines[end - 1].number)?
    };
    Some(Ok((report, end)))
}

/// Joins the lines of one record: a line ending short of a full record is
/// continued by the next one when that one is a bare piece of CSV (a
/// mailer may even put an empty quoted line between them).
fn join_wrapped(lines: &[Line<'_>], start: usize, versioned: bool) -> (String, usize) {
    let depth = lines[start].depth;
    let mut text = lines[start].text.trim().to_string();
    if !versioned {
        split_name_and_size(&mut text);
    }
    let mut end = start + 1;
    let full = if versioned { V2_FIELDS[0] } else { V1_FIELDS };
    let most = if versioned { V2_FIELDS[2] } else { V1_FIELDS };
    while end - start < MAX_WRAPPED_LINES {
        let count = text.split(',').count();
        if count >= most {
            break;
        }
        let mut next = end;
        if lines
            .get(next)
            .is_some_and(|l| l.is_blank() && l.depth == depth)
            && count < full
        {
            next += 1;
        }
        let Some(line) = lines.get(next).filter(|l| l.depth == depth) else {
            break;
        };
        let piece = line.text.trim();
        let continues = !piece.is_empty()
            && !piece.contains(' ')
            && !is_versioned(piece)
            && text.split(',').count() + piece.split(',').count() - 1 <= most
            && (count < full || piece.starts_with(',') || text.ends_with(','));
        if !continues {
            break;
        }
        text.push_str(piece);
        end = next + 1;
    }
    (text, end)
}

/// A 1.0x line whose first field is `name:size` (`c6300-optimized:4000M,
/// 43976,99,...`, one field short) gets its two fields back.
fn split_name_and_size(text: &mut String) {
    let first = text.split(',').next().unwrap_or_default();
    let Some(colon) = first.rfind(':') else {
        return;
    };
    if colon > 0 && is_size(&first[colon + 1..]) && !first[..colon].contains(':') {
        text.replace_range(colon..=colon, ",");
    }
}

/// A 1.9x or 2.x line: `format,version,name,...`.
fn parse_versioned(fields: &[&str], depth: usize, first: usize, last: usize) -> Option<Report> {
    let at = layout(fields.len())?;
    let mut report = Report::new(Flavour::PlusPlus, depth, first);
    report.lines = [first, last];
    report.version = Some(fields[1].to_string());
    report.machine = Some(fields[2].to_string()).filter(|m| !m.is_empty());
    // 1.92-1.95 put either the seed or the size in field 3; the size is the
    // field with a unit letter.
    let size_at = if at.concurrency.is_none() {
        [4, 3].into_iter().find(|&i| is_size(fields[i]))
    } else {
        Some(5).filter(|&i| is_size(fields[i]) || fields[i].is_empty())
    };
    if let Some(i) = size_at {
        report.size = Some(fields[i].to_string()).filter(|s| !s.is_empty());
        report.chunk_size = fields
            .get(i + 1)
            .filter(|c| !c.is_empty() && c.ends_with(['k', 'm']))
            .map(|c| c.to_string());
    } else if !fields[at.io..at.file_params].iter().all(|f| f.is_empty()) {
        return None;
    }
    if let Some(i) = at.concurrency {
        let concurrency = fields[i];
        if !concurrency.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        report.concurrency = Some(concurrency.to_string()).filter(|c| !c.is_empty());
    }
    report.files = files_spec(&fields[at.file_params..at.file_params + 5]);
    read_stats(&mut report, &fields[at.io..at.file_params], 0)?;
    read_stats(
        &mut report,
        &fields[at.file_stats..at.file_stats + 12],
        FILE_PHASES,
    )?;
    for (phase, field) in report.phases.iter_mut().zip(&fields[at.latencies..]) {
        if field.is_empty() {
            continue;
        }
        phase.latency_us = Some(latency_us(field)?);
        phase.latency_line = last;
    }
    Some(report)
}

/// `num_files`, `max_size`, `min_size`, `num_dirs`, `file_chunk_size` as
/// bon_csv2txt writes them: `16`, `16:100000:16/64`, `2:4096:1024/2:4k`.
fn files_spec(params: &[&str]) -> Option<String> {
    let files = params.first().filter(|f| !f.is_empty())?;
    let mut spec = files.to_string();
    for (field, mark) in params.iter().skip(1).zip([":", ":", "/", ":"]) {
        if !field.is_empty() {
            spec.push_str(mark);
            spec.push_str(field);
        }
    }
    Some(spec)
}

/// Six (rate, CPU) pairs into the phases from `first` on.
fn read_stats(report: &mut Report, fields: &[&str], first: usize) -> Option<()> {
    let line = report.lines[1];
    for (k, pair) in fields.chunks(2).enumerate() {
        let phase = &mut report.phases[first + k];
        let [rate, cpu] = pair else { return None };
        phase.rate = if rate.is_empty() { None } else { cell(rate)? };
        phase.cpu = if cpu.is_empty() { None } else { cell(cpu)? };
        // bon_csv2txt prints `+++++` as `0k`: a rate with no CPU figure was
        // not measured.
        if *cpu == "+++" {
            phase.rate = None;
        }
        phase.line = line;
    }
    Some(())
}

/// A 1.0x line: `name,size,putc,putc_cpu,...,seeks_cpu,files,seq_create,...`.
/// Anything that does not fit exactly is some other CSV, not a near miss.
fn parse_v1(fields: &[&str], depth: usize, first: usize, last: usize) -> Option<Report> {
    if fields.len() != V1_FIELDS {
        return None;
    }
    let name = fields[0].trim();
    let size = fields[1];
    let files = fields[14];
    let io_blank = fields[2..14].iter().all(|f| f.is_empty());
    let plausible = !name.is_empty()
        && !name.starts_with(|c: char| {
            c.is_ascii_digit() && name.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        })
        && (is_size(size) || (size.is_empty() && io_blank))
        && (files.is_empty() || files.starts_with(|c: char| c.is_ascii_digit()));
    if !plausible {
        return None;
    }
    let mut report = Report::new(Flavour::PlusPlus, depth, first);
    report.lines = [first, last];
    report.machine = Some(name.to_string());
    let (size, chunk) = super::split_size(size);
    report.size = Some(size).filter(|s| !s.is_empty());
    report.chunk_size = chunk;
    report.files = Some(files.to_string()).filter(|f| !f.is_empty());
    read_stats(&mut report, &fields[2..14], 0)?;
    read_stats(&mut report, &fields[15..27], FILE_PHASES)?;
    report.has_results().then_some(report)
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_are_counted_past_a_chunk() {
        assert_eq!(super::count_byte(b"", b','), 0);
        assert_eq!(super::count_byte(b"a,b,,c", b','), 3);
        let commas = vec![b','; 1000];
        assert_eq!(super::count_byte(&commas, b','), 1000);
    }

    #[test]
    fn name_and_size_joined_by_a_colon() {
        // bonnie++ 1.03 lines from a 2007 linux-raid reply (Justin Piszcz).
        let input = "c6300-optimized:4000M,43976,99,167209,29,73109,22,43471,91,208572,40,511.4,1,16:100000:16/64,1109,12,26948,89,2469,14,1051,11,29037,97,2167,16\n";
        let (runs, unparsed) = crate::test_support::runs_of::<super::super::BonnieReader>(input);
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(
            run.attrs.get("machine").map(String::as_str),
            Some("c6300-optimized")
        );
        assert_eq!(run.attrs.get("size").map(String::as_str), Some("4000M"));
        let value = |item: &str, metric: &str| {
            run.results
                .iter()
                .find(|r| r.item == item && r.metric == metric)
                .map(|r| (r.value, r.line))
        };
        assert_eq!(value("seq_output_block", "kb_per_s"), Some((167209.0, 1)));
        assert_eq!(value("random_seeks", "per_s"), Some((511.4, 1)));
        assert_eq!(value("random_delete", "per_s"), Some((2167.0, 1)));
        // A name with a colon of its own is left alone.
        let mut text = "a:b:4000M,1".to_string();
        super::split_name_and_size(&mut text);
        assert_eq!(text, "a:b:4000M,1");
    }

    use super::*;
    use crate::text;

    fn read(input: &str) -> Option<Result<(Report, usize), Unparsed>> {
        let lines = text::lines(input);
        read_record(&lines, 0)
    }

    #[test]
    fn versions() {
        let cases = [
            ("1.96", true),
            ("1.92a", true),
            ("2.00a", true),
            ("host", false),
            ("1.2.3", false),
            ("", false),
            ("10", false),
        ];
        for (i, (field, want)) in cases.into_iter().enumerate() {
            assert_eq!(is_version(field), want, "case {i}: {field:?}");
        }
    }

    #[test]
    fn every_format_version() {
        let cases = [
            // 1.0x: 27 fields.
            ("txiki,2G,21270,87,32856,11,10533,3,10962,51,28744,5,157.0,0,16,21675,96,+++++,+++,23523,100,23700,99,+++++,+++,13062,61", "txiki", Some("2G"), Some(21270.0), Some(157.0), Some(21675.0), None),
            // 1.92a: seed before size, 46 fields.
            ("1.92a,1.92a,SunWave1,1001286857,1248M,79,97,16034,21,5719,6,147,98,22904,16,269.0,4,16,,,,,6121,75,+++++,+++,12753,95,8422,80,+++++,+++,11152,95,138ms,2546ms,201ms,97838us,58940us,3207ms,26126us,11425us,11879us,5325us,12082us,13025us", "SunWave1", Some("1248M"), Some(79.0), Some(269.0), Some(6121.0), Some(138_000.0)),
            // 1.96: concurrency and seed, 48 fields.
            ("1.96,1.96,mg,1,1379531733,2G,,624,97,83917,17,40261,14,2015,87,999552,41,2840,19,16,,,,,28438,34,+++++,+++,+++++,+++,14767,13,+++++,+++,26551,21,21169us,408ms,310ms,38707us,25734us,8033us,38544us,430us,441us,266us,78us,566us", "mg", Some("2G"), Some(624.0), Some(2840.0), Some(28438.0), Some(21169.0)),
            // 1.98: seeks and seekers too, 50 fields.
            ("1.98,2.00a,benchbox,1,1795989233,64M,,8192,5,3261,81,+++++,+++,+++++,+++,4702,82,+++++,+++,+++++,+++,1,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,6356us,4086us,20076us,7122us,1680us,9723us,553us,156us,236us,261us,6us,117us", "benchbox", Some("64M"), Some(3261.0), None, None, Some(6356.0)),
        ];
        for (i, (line, machine, size, putc, seeks, create, putc_latency)) in
            cases.into_iter().enumerate()
        {
            let (report, end) = read(line).expect("a record").expect("readable");
            assert_eq!(end, 1, "case {i}");
            assert_eq!(report.machine.as_deref(), Some(machine), "case {i}");
            assert_eq!(report.size.as_deref(), size, "case {i}");
            assert_eq!(report.phases[0].rate, putc, "case {i}");
            assert_eq!(report.phases[5].rate, seeks, "case {i}");
            assert_eq!(report.phases[6].rate, create, "case {i}");
            assert_eq!(report.phases[0].latency_us, putc_latency, "case {i}");
            assert_eq!(report.phases[7].rate, None, "case {i}: +++++ is absent");
        }
    }

    #[test]
    fn wrapped_records_are_rejoined() {
        let input = "> txiki,2G,21270,87,32856,11,10533,3,10962,51,28744,5,157.0,0,16,21675,96,+++++,++ \n> \n> +,23523,100,23700,99,+++++,+++,13062,61\n";
        let (report, end) = read(input).unwrap().unwrap();
        assert_eq!(end, 3);
        assert_eq!(report.lines, [1, 3]);
        assert_eq!(report.phases[8].rate, Some(23523.0));
        assert_eq!(report.phases[11].cpu, Some(61.0));
        let input = "store.datzegik.com,1G,2717,99,10837,30,4912,10,2747,95,17228,14,114.5,1,\n16,367,98,+++++,+++,13163,99,368,98,+++++,+++,1386,93\n";
        let (report, _) = read(input).unwrap().unwrap();
        assert_eq!(report.files.as_deref(), Some("16"));
        assert_eq!(report.phases[11].rate, Some(1386.0));
    }

    #[test]
    fn other_csv_is_not_bonnie_and_broken_bonnie_is_a_near_miss() {
        assert!(read("a,b,c,d,e,f,g,h,i,j,k,l,m,n\n").is_none());
        assert!(read(
            "2001,12,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27\n"
        )
        .is_none());
        let miss = read("1.96,1.96,mg,1,1379531733,2G,,624,97,83917,17,40261\n")
            .unwrap()
            .unwrap_err();
        assert!(miss.why.contains("12 fields"), "{}", miss.why);
        let bad_value = "1.96,1.96,mg,1,1379531733,2G,,62x4,97,83917,17,40261,14,2015,87,999552,41,2840,19,16,,,,,28438,34,+++++,+++,+++++,+++,14767,13,+++++,+++,26551,21,21169us,408ms,310ms,38707us,25734us,8033us,38544us,430us,441us,266us,78us,566us";
        assert!(read(bad_value).unwrap().is_err());
    }

    #[test]
    fn file_parameters() {
        assert_eq!(files_spec(&["16", "", "", "", ""]).as_deref(), Some("16"));
        assert_eq!(
            files_spec(&["16", "100000", "16", "64", ""]).as_deref(),
            Some("16:100000:16/64")
        );
        assert_eq!(files_spec(&["", "", "", "", ""]), None);
    }
}
