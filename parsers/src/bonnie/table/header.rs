//! A table's header rows: the `Machine Size K/sec %CP ...` line (or the
//! phase decoration standing in for it), the `Version` and dashed
//! decoration lines above it and a wrapped header's rest below.

use crate::bonnie::MACHINE_KEY;
use crate::text::{self, Line};

use super::row::{read_row, tokens, MAX_NAME_WORDS};
use super::{HeaderKind, RowKind, Units};

/// Decoration lines (`Version ...`, `-Per Chr- --Block--`) above a header.
const MAX_DECORATION_LINES: usize = 8;

/// The header words a wrapped header may leave on the next line.
const HEADER_WORDS: [&str; 5] = ["/sec", "%CP", "%CPU", "K/sec", "M/sec"];

/// The attribute a table's row names give, by the word heading their
/// column (compared without case): bonnie prints `Machine`, and posters
/// who ran one machine under several kernels or file systems head the
/// column with what tells the rows apart (`Kernel     MB K/sec %CPU`,
/// LKML 2003). Any other word gives [`OTHER_NAME_KEY`].
const NAME_COLUMNS: [(&str, &str); 5] = [
    ("machine", MACHINE_KEY),
    ("host", MACHINE_KEY),
    ("kernel", "os_version"),
    ("fs", "fs"),
    ("filesystem", "fs"),
];

/// The attribute of row names under a header word [`NAME_COLUMNS`] lacks
/// (`Config`, `Test`): Contract 2's key for what fits no other.
const OTHER_NAME_KEY: &str = "variant";

/// The attribute key of the row names under the header word `word`.
fn name_key(word: &str) -> &'static str {
    NAME_COLUMNS
        .iter()
        .find(|(header, _)| header.eq_ignore_ascii_case(word))
        .map_or(OTHER_NAME_KEY, |&(_, key)| key)
}

/// A word that may head the column of row names: a single word of
/// letters (`Kernel`, `FS`, `Host`), not one of the size column's.
fn is_name_heading(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_alphabetic()) && !matches!(word, "Size" | "MB" | "GB")
}

pub(super) fn header_kind(text: &str) -> Option<HeaderKind> {
    let text = text.trim_start();
    let mut words = text.split_whitespace();
    let (first, second, third) = (words.next(), words.next(), words.next());
    // Posts cut the machine column away (`Size K/sec %CP ...`, the rows
    // starting with the size) or blank out the word `Machine` above the names.
    // Classic tables lose the column the same way (` MB K/sec %CPU ...`).
    let nameless =
        matches!(first, Some("Size" | "MB" | "GB")) && matches!(second, Some("K/sec" | "M/sec"));
    // Any single word before the size column heads the row names.
    let headed = first.is_some_and(is_name_heading)
        && matches!(second, Some("Size" | "MB" | "GB"))
        && matches!(third, Some("K/sec" | "M/sec" | "/sec"));
    let named = headed || text.starts_with("Machine") || text.starts_with("Name:Size");
    if named || nameless {
        let names = first.filter(|_| headed).map_or(MACHINE_KEY, name_key);
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
        return Some(HeaderKind::Io {
            classic,
            units,
            names,
        });
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
            _ => match name_before_dashes(line.text) {
                Some("") => {}
                Some(name) => found.machine = Some(name.to_string()),
                None => break,
            },
        }
        found.start = j;
    }
    found
}

/// Dashed words a decoration line with a name of several words in front
/// holds at least: bonnie++ prints six after it (`-Create-- --Read---`).
const MIN_DASHED_AFTER_NAME: usize = 2;

/// A dashed decoration line and the name in front of it: bonnie++ 1.9x
/// prints the machine name before its file-creation phases (`%-19.19s
/// -Create-- --Read--- ...`), with the spaces a `-m "Seagate 7200.11"`
/// gave it. `Some("")` for a line of dashed words alone, `None` for a
/// line that is no decoration.
pub(super) fn name_before_dashes(text: &str) -> Option<&str> {
    let text = text.trim();
    let words = tokens(text);
    let first_dashed = words.iter().position(|w| is_dashed(w.text))?;
    let dashed = &words[first_dashed..];
    if !dashed.iter().all(|w| is_dashed(w.text)) {
        return None;
    }
    if first_dashed == 0 {
        return Some("");
    }
    let one_word = first_dashed == 1;
    let several = first_dashed <= MAX_NAME_WORDS && dashed.len() >= MIN_DASHED_AFTER_NAME;
    (one_word || several).then(|| text[..dashed[0].start].trim_end())
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
    Some(HeaderKind::Io {
        classic,
        units,
        names: MACHINE_KEY,
    })
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
