//! What a tool module gives the walk over the lines ([`crate::dispatch`]):
//! a [`Reader`] that says where a report of its tool may start and reads
//! one there. Its own module, so that the tools and the walk that lists
//! them both import it and not each other.

use crate::text::{Line, MarkedBytes};
use crate::{Run, Tool, Unparsed};

/// One tool's way of finding its reports. The walk asks
/// [`Reader::may_start`] of every line, then calls [`Reader::read_at`] at
/// each picked line from where the last report read ended on: the loop
/// over the picked lines is the walk's, not the tool's.
pub trait Reader {
    /// The tool whose reports this reads.
    const TOOL: Tool;
    /// The bytes that tell a line a report may start on: every line
    /// [`Reader::may_start`] says yes to holds one of them, and the test
    /// runs only on lines whose mark shows one.
    const START_LINE_BYTES: &'static [u8];
    /// What the reader carries from one report to the next in a text (how
    /// far the reports read so far reach, say); it starts at its default.
    type State: Default;

    /// Whether a report of the tool can start at `lines[i]`. It may say yes
    /// to a line the tool then rejects, never no to one it would read; it
    /// runs on every line, so it must cost little for prose. [`LineBytes`]
    /// says which of the tool's start line bytes the line may hold.
    fn may_start(lines: &[Line<'_>], i: usize, line_bytes: LineBytes<'_>) -> bool;

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
/// its start line bytes (a search costs a call per line, more than a short line
/// takes to read). It may say yes for a byte the line lacks, never no for
/// one it holds.
#[derive(Clone, Copy)]
pub struct LineBytes<'b> {
    mark: u32,
    /// `None`: no mark was taken, and every byte may be there.
    marked: Option<&'b MarkedBytes>,
}

impl LineBytes<'_> {
    /// What a line's `mark`, taken under `marked`, says it may hold.
    pub fn from_mark(mark: u32, marked: &MarkedBytes) -> LineBytes<'_> {
        LineBytes {
            mark,
            marked: Some(marked),
        }
    }

    /// Every byte may be there: for a line read without a mark.
    pub fn unknown() -> LineBytes<'static> {
        LineBytes {
            mark: 0,
            marked: None,
        }
    }

    /// Whether the line may hold `byte`. A byte the mark has no bit for
    /// may be there.
    pub fn may_hold(&self, byte: u8) -> bool {
        let Some(marked) = self.marked else {
            return true;
        };
        let bit = marked.mask(&[byte]);
        bit == 0 || self.mark & bit != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_bytes_never_deny_a_byte_the_line_has() {
        let marked = MarkedBytes::new(&[b"#:,"]);
        let line = "ad0: 76319MB";
        let line_bytes = LineBytes::from_mark(marked.mark_of(line.as_bytes()), &marked);
        assert!(line_bytes.may_hold(b':'));
        assert!(!line_bytes.may_hold(b'#') && !line_bytes.may_hold(b','));
        // A byte the table has no bit for may be anywhere.
        assert!(line_bytes.may_hold(b'%'));
        assert!(LineBytes::unknown().may_hold(b'#'));
    }
}
