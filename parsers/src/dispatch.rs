//! The one walk over the lines that finds where each tool's report may
//! start. Every tool module says, with a cheap test of one line, whether a
//! report of its own can start there ([`Reader::may_start`]); only the
//! lines a tool picked are read by that tool ([`Reader::read_at`]), one
//! report at a time, by the one loop here. Most lines are prose, and each
//! is looked at once for all tools rather than once per tool.

use crate::reader::{LineBytes, Reader};
use crate::text::{Line, MarkedBytes};
use crate::{bonnie, diskinfo, sql_bench, super_smack, sysbench, Run, Tool, Unparsed};

/// A tool's loop over its picked lines: the lines, the indices its
/// [`Reader::may_start`] picked, and where its runs and near misses go.
type ReadAll = fn(&[Line<'_>], &[usize], &mut Vec<Run>, &mut Vec<Unparsed>);

/// What the walk holds of one tool: its [`Reader`], with the loop over the
/// picked lines made for it.
struct Registered {
    tool: Tool,
    start_line_bytes: &'static [u8],
    may_start: fn(&[Line<'_>], usize, LineBytes<'_>) -> bool,
    /// [`read_all`] for the tool's reader.
    read_all: ReadAll,
}

const fn register<R: Reader>() -> Registered {
    Registered {
        tool: R::TOOL,
        start_line_bytes: R::START_LINE_BYTES,
        may_start: R::may_start,
        read_all: read_all::<R>,
    }
}

/// The tools in the order their runs are listed before sorting by line
/// (which decides the order of runs that start on the same line): that of
/// [`Tool::ALL`], one reader a tool, which a test holds it to.
const READERS: [Registered; Tool::ALL.len()] = [
    register::<super_smack::SuperSmackReader>(),
    register::<sysbench::SysbenchReader>(),
    register::<sql_bench::SqlBenchReader>(),
    register::<bonnie::BonnieReader>(),
    register::<diskinfo::DiskinfoReader>(),
];

/// Every tool's [`Reader::START_LINE_BYTES`], for
/// [`crate::text::Source::marked`] to mark lines by.
pub fn start_line_bytes() -> Vec<u8> {
    READERS
        .iter()
        .flat_map(|reader| reader.start_line_bytes.iter().copied())
        .collect()
}

/// Every tool's runs and near misses in the lines; `marks` holds each
/// line's mark under `marked`, which include [`start_line_bytes`].
pub fn find_runs(
    lines: &[Line<'_>],
    marks: &[u32],
    marked: &MarkedBytes,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) {
    find_runs_of(lines, marks, marked, |_| true).append_to(runs, unparsed);
}

/// The runs and near misses of the tools `read_by` picks, as
/// [`find_runs`] finds them: two calls for two sets of tools, each on a
/// thread of its own, make [`find_runs`]'s answer once merged
/// ([`Found::merge`]).
pub fn find_runs_of(
    lines: &[Line<'_>],
    marks: &[u32],
    marked: &MarkedBytes,
    read_by: impl Fn(Tool) -> bool,
) -> Found {
    // A tool not picked has no bits: no line starts its report.
    let masks = READERS.map(|reader| {
        if read_by(reader.tool) {
            marked.mask(reader.start_line_bytes)
        } else {
            0
        }
    });
    let any = masks.iter().fold(0, |any, mask| any | mask);
    let mut starts: [Vec<usize>; READERS.len()] = Default::default();
    for (i, &mark) in marks.iter().enumerate().take(lines.len()) {
        if mark & any == 0 {
            continue;
        }
        for ((reader, starts), mask) in READERS.iter().zip(starts.iter_mut()).zip(masks) {
            if mark & mask != 0 && (reader.may_start)(lines, i, LineBytes::from_mark(mark, marked))
            {
                starts.push(i);
            }
        }
    }
    let mut found = Found::default();
    for ((reader, starts), (runs, unparsed)) in READERS.iter().zip(&starts).zip(&mut found.by_tool)
    {
        (reader.read_all)(lines, starts, runs, unparsed);
        debug_assert!(
            runs.iter().all(|run| run.tool == reader.tool),
            "{}'s reader gave another tool's run",
            reader.tool
        );
    }
    found
}

/// What [`find_runs_of`] found: each tool's runs and near misses, apart
/// until they are listed in the order of [`READERS`].
#[derive(Default)]
pub struct Found {
    by_tool: [(Vec<Run>, Vec<Unparsed>); READERS.len()],
}

impl Found {
    /// What both found, for two disjoint sets of tools.
    pub fn merge(mut self, mut other: Found) -> Found {
        for (mine, theirs) in self.by_tool.iter_mut().zip(&mut other.by_tool) {
            mine.0.append(&mut theirs.0);
            mine.1.append(&mut theirs.1);
        }
        self
    }

    /// Adds the runs and near misses, tool by tool in the order of
    /// [`READERS`] (which decides the order of runs that start on the
    /// same line).
    pub fn append_to(self, runs: &mut Vec<Run>, unparsed: &mut Vec<Unparsed>) {
        for (mut tool_runs, mut tool_unparsed) in self.by_tool {
            runs.append(&mut tool_runs);
            unparsed.append(&mut tool_unparsed);
        }
    }
}

/// Reads one tool's reports at the lines its [`Reader::may_start`] picked,
/// in order: each at the first picked line at or after the end of the
/// report before it, so that no line is read as part of two reports.
fn read_all<R: Reader>(
    lines: &[Line<'_>],
    picked: &[usize],
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) {
    let mut state = R::State::default();
    let mut rest = picked;
    let mut i = 0;
    loop {
        rest = &rest[rest.partition_point(|&start| start < i)..];
        let Some(&start) = rest.first() else {
            return;
        };
        i = R::read_at(lines, start, &mut state, runs, unparsed).max(start + 1);
    }
}

/// One tool's runs and near misses in a text, read the way [`find_runs`]
/// reads them: what the tools' unit tests need.
#[cfg(test)]
pub fn read_alone<R: Reader>(lines: &[Line<'_>]) -> (Vec<Run>, Vec<Unparsed>) {
    // The line's own text, not its mark: a start line byte a tool forgot
    // fails the tool's tests.
    let picked: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let text = lines[i].text.as_bytes();
            R::START_LINE_BYTES.iter().any(|byte| text.contains(byte))
                && R::may_start(lines, i, LineBytes::unknown())
        })
        .collect();
    let (mut runs, mut unparsed) = (Vec::new(), Vec::new());
    read_all::<R>(lines, &picked, &mut runs, &mut unparsed);
    (runs, unparsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool left out of the walk would find nothing, and its unit tests
    /// (which call its reader alone) would still pass.
    #[test]
    fn every_tool_has_one_reader_in_the_order_of_all() {
        assert_eq!(READERS.map(|reader| reader.tool), Tool::ALL);
    }
}
