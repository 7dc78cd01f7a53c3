//! A table's header rows: the `Machine Size K/sec %CP ...` line (or the
//! phase decoration standing in for it), the `Version` and dashed
//! decoration lines above it and a wrapped header's rest below.

use crate::text::{self, Line};

use super::row::read_row;
use super::{HeaderKind, RowKind, Units};

/// Decoration lines (`Version ...`, `-Per Chr- --Block--`) above a header.
const MAX_DECORATION_LINES: usize = 8;

/// The header words a wrapped header may leave on the next line.
const HEADER_WORDS: [&str; 5] = ["/sec", "%CP", "%CPU", "K/sec", "M/sec"];

pub(super) fn header_kind(text: &str) -> Option<HeaderKind> {
    let text = text.trim_start();
    // Posts cut the machine column away (`Size K/sec %CP ...`, the rows
    // starting with the size) or blank out the word `Machine` above the names.
    // Classic tables lose the column the same way (` MB K/sec %CPU ...`).
    let nameless = {
        let mut words = text.split_whitespace();
        matches!(words.next(), Some("Size" | "MB" | "GB"))
            && matches!(words.next(), Some("K/sec" | "M/sec"))
    };
    let named = text.starts_with("Machine") || text.starts_with("Name:Size");
    if named || nameless {
        // bonnie++ 1.00's bon_csv2txt heads its size column `MB` too, but
        // keeps bonnie++'s `%CP` columns; bonnie64 prints `GB` and `M/sec`.
        let size_word = text.split_whitespace().nth(usize::from(named));
        let bare_size = match size_word {
            Some("MB") => Some('M'),
            Some("GB") => Some('G'),
            _ => None,
        };
        let classic = bare_size.is_some() && text.contains("%CPU");
        let units = Units {
            bare_size,
            mb_per_s: text.contains("M/sec"),
        };
        return Some(HeaderKind::Io { classic, units });
    }
    if text.starts_with("files") && text.contains("/sec") {
        return Some(HeaderKind::Files);
    }
    None
}

/// What the decoration above a header says.
#[derive(Debug, Default)]
pub(super) struct Decoration {
    pub(super) start: usize,
    pub(super) version: Option<String>,
    pub(super) concurrency: Option<String>,
    pub(super) machine: Option<String>,
}

pub(super) fn is_dashed(word: &str) -> bool {
    word.starts_with('-') || word.ends_with('-')
}

/// Walks up from a header over `Version`, `Concurrency` and dashed lines.
pub(super) fn decoration_above(
    lines: &[Line<'_>],
    header: usize,
    taken_until: usize,
) -> Decoration {
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

/// The dashed line that names the phases (`-Per Chr- --Block-- ...
/// --Seeks--`, classic Bonnie's `-Per Char- --Block--- ... --Seeks---`).
pub(in crate::bonnie) fn is_phase_decoration(text: &str) -> bool {
    // Checked on every line: look further only at what starts like one.
    let start = text::trim_start(text);
    (start.starts_with("-Per Ch") || start.starts_with("Concurrency"))
        && (text.contains("-Per Chr-") || text.contains("-Per Char-"))
        && text.contains("--Seeks")
}

/// A table whose rows follow its phase decoration with no `Machine Size
/// K/sec %CP` line between them: posters cut that line away (LKML, 2003).
pub(super) fn headerless_kind(lines: &[Line<'_>], at: usize) -> Option<HeaderKind> {
    let text = lines[at].text;
    if !is_phase_decoration(text) {
        return None;
    }
    let classic = text.contains("-Per Char-");
    let next = lines.get(at + 1).filter(|l| l.depth == lines[at].depth)?;
    if next.text.contains("%CP") {
        return None;
    }
    let units = Units {
        bare_size: classic.then_some('M'),
        mb_per_s: false,
    };
    read_row(lines, at + 1, RowKind::Io { classic, units })?;
    Some(HeaderKind::Io { classic, units })
}

/// Skips the part of a wrapped header that landed on the next lines.
pub(super) fn skip_header_rest(lines: &[Line<'_>], mut i: usize) -> usize {
    while lines.get(i).is_some_and(|l| {
        !l.is_blank() && l.text.split_whitespace().all(|w| HEADER_WORDS.contains(&w))
    }) {
        i += 1;
    }
    i
}
