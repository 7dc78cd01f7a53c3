//! The one walk over the lines that finds where each tool's report may
//! start. Every tool module says, with a cheap test of one line, whether a
//! report of its own can start there ([`Reader::may_start`]); only the
//! lines a tool picked are read by that tool ([`Reader::read`]). Most lines
//! are prose, and each is looked at once for all tools rather than once
//! per tool.

use crate::text::{ByteBits, Line};
use crate::{bonnie, diskinfo, sql_bench, super_smack, sysbench, Run, Unparsed};

/// A tool's reader: the lines, the indices its [`Reader::may_start`]
/// picked, and where its runs and near misses go.
pub type ReadRuns = fn(&[Line<'_>], &[usize], &mut Vec<Run>, &mut Vec<Unparsed>);

/// What the walk needs of one tool.
pub struct Reader {
    /// Bytes one of which every line [`Reader::may_start`] says yes to
    /// holds: the test runs only on lines whose mark shows one.
    pub markers: &'static [u8],
    /// Whether a report of the tool can start at `lines[i]`. It may say yes
    /// to a line the tool then rejects, never no to one it would read; it
    /// runs on every line, so it must cost little for prose. [`Holds`]
    /// says which of the tool's markers the line may hold.
    pub may_start: fn(&[Line<'_>], usize, Holds<'_>) -> bool,
    /// Reads the tool's runs and near misses, given the indices
    /// [`Reader::may_start`] picked, in order.
    pub read: ReadRuns,
}

/// Which bytes a line may hold, read from its mark: a tool's
/// [`Reader::may_start`] asks this rather than search a line for one of
/// its markers (a search costs a call per line, more than a short line
/// takes to read). It may say yes for a byte the line lacks, never no for
/// one it holds.
#[derive(Clone, Copy)]
pub struct Holds<'b> {
    mark: u32,
    /// `None`: no mark was taken, and every byte may be there.
    bits: Option<&'b ByteBits>,
}

impl Holds<'_> {
    /// Every byte may be there: for a line read without a mark.
    pub fn anything() -> Holds<'static> {
        Holds {
            mark: 0,
            bits: None,
        }
    }

    /// Whether the line may hold `byte`. A byte the mark has no bit for
    /// may be there.
    pub fn byte(&self, byte: u8) -> bool {
        let Some(bits) = self.bits else {
            return true;
        };
        let bit = bits.mask(&[byte]);
        bit == 0 || self.mark & bit != 0
    }
}

/// The tools in the order their runs are listed before sorting by line
/// (which decides the order of runs that start on the same line).
const READERS: [Reader; 5] = [
    super_smack::READER,
    sysbench::READER,
    sql_bench::READER,
    bonnie::READER,
    diskinfo::READER,
];

/// Every tool's markers, for [`crate::text::Source::marked`] to find.
pub fn markers() -> Vec<u8> {
    READERS
        .iter()
        .flat_map(|reader| reader.markers.iter().copied())
        .collect()
}

/// Every tool's runs and near misses in the lines; `marks` holds each
/// line's mark under `bits`, found for [`markers`].
pub fn find_runs(
    lines: &[Line<'_>],
    marks: &[u32],
    bits: &ByteBits,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) {
    let masks = READERS.map(|reader| bits.mask(reader.markers));
    let any = masks.iter().fold(0, |any, mask| any | mask);
    let mut starts: [Vec<usize>; READERS.len()] = Default::default();
    for (i, &mark) in marks.iter().enumerate().take(lines.len()) {
        if mark & any == 0 {
            continue;
        }
        for ((reader, starts), mask) in READERS.iter().zip(starts.iter_mut()).zip(masks) {
            let holds = Holds {
                mark,
                bits: Some(bits),
            };
            if mark & mask != 0 && (reader.may_start)(lines, i, holds) {
                starts.push(i);
            }
        }
    }
    for (reader, starts) in READERS.iter().zip(&starts) {
        (reader.read)(lines, starts, runs, unparsed);
    }
}

/// The picked lines a tool's reader goes through: it asks for the first
/// one at or after the line it has read up to.
pub struct Starts<'s> {
    rest: &'s [usize],
}

impl<'s> Starts<'s> {
    /// The lines [`Reader::may_start`] picked, in order.
    pub fn new(picked: &'s [usize]) -> Starts<'s> {
        Starts { rest: picked }
    }

    /// The first picked line at or after `i`.
    pub fn from(&mut self, i: usize) -> Option<usize> {
        let skip = self.rest.partition_point(|&start| start < i);
        self.rest = &self.rest[skip..];
        self.rest.first().copied()
    }
}

/// One tool's runs and near misses in a text, read the way [`find_runs`]
/// reads them: what the tools' unit tests need.
#[cfg(test)]
pub fn read_alone(reader: &Reader, lines: &[Line<'_>]) -> (Vec<Run>, Vec<Unparsed>) {
    // The line's own text, not its mark: a marker a tool forgot fails
    // the tool's tests.
    let picked: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let text = lines[i].text.as_bytes();
            reader.markers.iter().any(|marker| text.contains(marker))
                && (reader.may_start)(lines, i, Holds::anything())
        })
        .collect();
    let (mut runs, mut unparsed) = (Vec::new(), Vec::new());
    (reader.read)(lines, &picked, &mut runs, &mut unparsed);
    (runs, unparsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_never_denies_a_byte_the_line_has() {
        let bits = ByteBits::new(&[b"#:,"]);
        let line = "ad0: 76319MB";
        let holds = Holds {
            mark: bits.mark_of(line.as_bytes()),
            bits: Some(&bits),
        };
        assert!(holds.byte(b':'));
        assert!(!holds.byte(b'#') && !holds.byte(b','));
        // A byte the table has no bit for may be anywhere.
        assert!(holds.byte(b'%'));
        assert!(Holds::anything().byte(b'#'));
    }
}
