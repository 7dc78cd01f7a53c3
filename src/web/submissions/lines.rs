//! The lines of the review page: each marked with the runs and near
//! misses read from it and the blocks runs' labels came from, cut to what
//! a page may show.

use crate::limits::{PART_TEXT_BYTES, SHOWN_LINE_CHARS};
use crate::store::{LabelBlock, StoredRun, StoredUnparsed};

pub(super) struct LineView {
    pub(super) number: usize,
    pub(super) text: String,
    /// Characters of the line not shown.
    pub(super) cut: usize,
    /// "value" (a number was read here), "run" (inside a run), "miss" (a
    /// near miss) or "".
    pub(super) class: &'static str,
    /// The runs this line belongs to (1-based).
    pub(super) runs: Vec<usize>,
    /// The near miss at this line (1-based, as in `miss-N`), if any.
    pub(super) miss: Option<usize>,
    /// Whether a run's label came from this line (a heading, caption,
    /// list item, ...).
    pub(super) label_source: bool,
    /// The runs whose labels the block starting here (or, for a block
    /// begun on an earlier part, continuing here) gave, at most
    /// [`crate::limits::LABEL_TAGS_PER_BLOCK`] a block.
    pub(super) labels: Vec<LabelTag>,
    /// How many more runs' labels it gave.
    pub(super) more_labels: usize,
}

/// A run a line gave the label of.
pub(super) struct LabelTag {
    /// 1-based, as in `run-N`.
    pub(super) number: usize,
    /// The run's first and last line, to link it on the part that lists it.
    pub(super) lines: [usize; 2],
}

/// How much of `text` a page shows: at most [`SHOWN_LINE_CHARS`]
/// characters, and at most `budget` bytes of HTML; the byte length of
/// that prefix and the HTML bytes it takes.
fn shown_prefix(text: &str, budget: usize) -> (usize, usize) {
    let mut weight = 0;
    for (count, (at, c)) in text.char_indices().enumerate() {
        // As askama escapes it.
        let escaped = match c {
            '<' | '>' => 4,
            '&' | '"' | '\'' => 5,
            c => c.len_utf8(),
        };
        if count == SHOWN_LINE_CHARS || weight + escaped > budget {
            return (at, weight);
        }
        weight += escaped;
    }
    (text.len(), weight)
}

/// The lines shown (`first` is the number of the first), marked with the
/// runs and near misses read from them and the blocks runs' labels came
/// from.
pub(super) fn line_views(
    shown: Vec<String>,
    first: usize,
    runs: &[StoredRun],
    unparsed: &[StoredUnparsed],
    label_blocks: &[LabelBlock],
) -> Vec<LineView> {
    let mut text_left = PART_TEXT_BYTES;
    let mut lines: Vec<LineView> = shown
        .into_iter()
        .enumerate()
        .map(|(index, mut text)| {
            let (end, weight) = shown_prefix(&text, text_left);
            text_left -= weight;
            let cut = text[end..].chars().count();
            text.truncate(end);
            LineView {
                number: first + index,
                text,
                cut,
                class: "",
                runs: Vec::new(),
                miss: None,
                label_source: false,
                labels: Vec::new(),
                more_labels: 0,
            }
        })
        .collect();
    let slot = |number: usize| number.checked_sub(first);
    for (index, miss) in unparsed.iter().enumerate() {
        if let Some(line) = slot(miss.line).and_then(|at| lines.get_mut(at)) {
            line.class = "miss";
            line.miss.get_or_insert(index + 1);
        }
    }
    // A line a value was read from belongs to that run alone; the other
    // lines of a run's span (a table header, say) may be shared by several.
    let mut value_of: Vec<Option<usize>> = vec![None; lines.len()];
    for run in runs {
        for result in &run.results {
            if let Some(at) = slot(result.line).and_then(|at| value_of.get_mut(at)) {
                at.get_or_insert(run.idx + 1);
            }
        }
    }
    for run in runs {
        let from = run.lines[0].max(first);
        let to = run.lines[1].min(first + lines.len().saturating_sub(1));
        for number in from..=to {
            let Some(at) = slot(number) else { continue };
            let Some(line) = lines.get_mut(at) else {
                continue;
            };
            if value_of[at].is_some() {
                continue;
            }
            line.runs.push(run.idx + 1);
            if line.class.is_empty() {
                line.class = "run";
            }
        }
    }
    for (line, run) in lines.iter_mut().zip(value_of) {
        if let Some(run) = run {
            line.class = "value";
            line.runs = vec![run];
        }
    }
    mark_label_sources(&mut lines, first, label_blocks);
    lines
}

/// Marks the lines of each block that runs' labels came from, and tags
/// the first of them shown with those runs: once a block (the store
/// gives each block once, with its first runs), however many runs it
/// named.
fn mark_label_sources(lines: &mut [LineView], first: usize, label_blocks: &[LabelBlock]) {
    let shown = first..first + lines.len();
    for block in label_blocks {
        if shown.is_empty() || block.lines[1] < shown.start || block.lines[0] >= shown.end {
            continue;
        }
        // Indexes of the block's lines shown.
        let from = block.lines[0].max(shown.start) - first;
        let to = block.lines[1].min(shown.end - 1) - first;
        for line in &mut lines[from..=to] {
            line.label_source = true;
        }
        let tagged = &mut lines[from];
        for &(idx, run_lines) in &block.runs {
            // Two blocks starting on one line may name the same run.
            if !tagged.labels.iter().any(|tag| tag.number == idx + 1) {
                tagged.labels.push(LabelTag {
                    number: idx + 1,
                    lines: run_lines,
                });
            }
        }
        tagged.more_labels += block.named.saturating_sub(block.runs.len());
    }
}
