//! What a tool module gives the walk over the lines ([`crate::dispatch`]):
//! a [`Reader`] that says where a report of its tool may start and reads
//! one there. Its own module, so that the tools and the walk that lists
//! them both import it and not each other.

use crate::text::{ByteBits, Line};
use crate::{Run, Tool, Unparsed};

/// One tool's way of finding its reports. The walk asks
/// [`Reader::may_start`] of every line, then calls [`Reader::read_at`] at
/// each picked line from where the last report read ended on: the loop
/// over the picked lines is the walk's, not the tool's.
pub trait Reader {
    /// The tool whose reports this reads.
    const TOOL: Tool;
    /// Bytes one of which every line [`Reader::may_start`] says yes to
    /// holds: the test runs only on lines whose mark shows one.
    const MARKERS: &'static [u8];
    /// What the reader carries from one report to the next in a text (how
    /// far the reports read so far reach, say); it starts at its default.
    type State: Default;

    /// Whether a report of the tool can start at `lines[i]`. It may say yes
    /// to a line the tool then rejects, never no to one it would read; it
    /// runs on every line, so it must cost little for prose. [`Holds`]
    /// says which of the tool's markers the line may hold.
    fn may_start(lines: &[Line<'_>], i: usize, holds: Holds<'_>) -> bool;

    /// Reads the report (or near miss) at the picked line `start`, adds
    /// what it found to `runs` and `unparsed`, and returns the index of the
    /// first line it did not consume: the walk goes on at the first picked
    /// line from there, and past `start` whatever is returned.
    fn read_at(
        lines: &[Line<'_>],
        start: usize,
        state: &mut Self::State,
        runs: &mut Vec<Run>,
        unparsed: &mut Vec<Unparsed>,
    ) -> usize;
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
    /// What a line's `mark`, taken under `bits`, says it may hold.
    pub fn marked(mark: u32, bits: &ByteBits) -> Holds<'_> {
        Holds {
            mark,
            bits: Some(bits),
        }
    }

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
