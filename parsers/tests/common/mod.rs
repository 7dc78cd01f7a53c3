//! Shared by the parsers' test binaries.

use proptest::prelude::*;

/// `text` with some lines dropped, duplicated, cut short (at a character
/// boundary, at most `max_cut` bytes kept) or quoted once more.
pub fn mutated(
    text: &'static str,
    edit_count: std::ops::Range<usize>,
    max_cut: usize,
) -> impl Strategy<Value = String> {
    let line_count = text.lines().count().max(1);
    prop::collection::vec((0..line_count, 0..4u8, 0..max_cut), edit_count).prop_map(move |edits| {
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        for (at, kind, cut) in edits {
            let at = at % lines.len().max(1);
            match kind {
                0 if lines.len() > 1 => {
                    lines.remove(at);
                }
                1 => {
                    let copy = lines[at].clone();
                    lines.insert(at, copy);
                }
                2 => {
                    let line = &mut lines[at];
                    let cut = (0..=cut.min(line.len()))
                        .rev()
                        .find(|&c| line.is_char_boundary(c))
                        .unwrap_or(0);
                    line.truncate(cut);
                }
                _ => lines[at] = format!("> {}", lines[at]),
            }
        }
        lines.join("\n")
    })
}
