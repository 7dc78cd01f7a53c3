//! Remarks in prose on the thread library a run used ("After enabling
//! libthr", "And without libthr its even slower", libmap.conf's
//! `libpthread.so.2 libthr.so.2`): facts that announce the runs after them.

use std::borrow::Cow;

use super::{fact_start, fact_text, finders, Fact, FactClues};
use crate::context::prose;
use crate::context::spelling::classify;
use crate::text::Line;

/// The thread library line `index` remarks on, if any.
pub(super) fn remark(line: &Line<'_>, index: usize, clues: &FactClues<'_>) -> Option<&'static str> {
    let (text, mark) = fact_text(fact_start(line)?, index, clues)?;
    thread_lib_in_prose(text, mark & clues.thread_lib != 0)
}

/// The fact of a remark on `thread_lib` on line `index`.
pub(super) fn remark_fact(index: usize, line: &Line<'_>, thread_lib: &'static str) -> Fact {
    Fact {
        index,
        depth: line.depth,
        key: "thread_lib",
        value: Cow::Borrowed(thread_lib),
        group: None,
        remark: true,
    }
}

/// The remarks a run can take: a run reads only the last remark before it
/// in its place that is no head summary (`apply_facts` in
/// [`apply`](crate::context::apply)). So the lines are read from the end,
/// and in each place a line is looked at for a remark only while a run
/// after it still lacks one: one line in 13 of a long thread remarks on a
/// thread library, and most of them are far from any run.
///
/// `starts`: each run's first line and its place (an index below
/// `places`), as `place_of` gives the places of lines.
pub(in crate::context) fn remarks_before_runs(
    lines: &[Line<'_>],
    clues: &FactClues<'_>,
    places: usize,
    mut starts: Vec<(usize, Option<usize>)>,
    mut place_of: impl FnMut(usize, usize) -> Option<usize>,
) -> Vec<Fact> {
    // first_start[p]: where the first run of place p starts.
    let mut first_start = vec![usize::MAX; places];
    for &(index, place) in &starts {
        if let Some(first) = place.and_then(|p| first_start.get_mut(p)) {
            *first = (*first).min(index);
        }
    }
    starts.sort_unstable_by_key(|&(index, _)| std::cmp::Reverse(index));
    let mut starts = starts.into_iter().peekable();
    // wanting[p]: a run in place p has no remark yet from the lines read;
    // `waiting` of them. While none waits, a line is not even placed.
    let mut wanting = vec![false; places];
    let mut waiting = 0usize;
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate().rev() {
        if waiting > 0 {
            if let Some(p) = place_of(index, line.depth) {
                if wanting.get(p) == Some(&true) {
                    if let Some(lib) = remark(line, index, clues) {
                        // Every remark above a head summary is one too (the
                        // same paragraph stands below it): the place stops
                        // wanting, and no line is scanned twice for it.
                        if !is_head_summary(lines, index, first_start.get(p).copied()) {
                            found.push(remark_fact(index, line, lib));
                        }
                        wanting[p] = false;
                        waiting -= 1;
                    }
                }
            }
        }
        // A run starting here wants a remark from the lines above it (as
        // does one past the last line: a run's first line is a line
        // number, and lines left out make the lines fewer).
        while let Some((_, place)) = starts.next_if(|&(start, _)| start >= index) {
            if let Some(wants) = place.and_then(|p| wanting.get_mut(p)) {
                waiting += usize::from(!*wants);
                *wants = true;
            }
        }
    }
    found
}

/// Whether a remark on line `index`, above `first_run` (the first run of
/// its place), belongs to the head of the text rather than announcing the
/// runs: another paragraph of prose stands between them. The head of a
/// mail or a quote sums up what follows ("After enabling libthr it does
/// jump by about 3,600", then "For those who are interested in exactly how
/// I tested ..." and the runs before and after the change); only the
/// paragraph leading into the first run says how it ran.
fn is_head_summary(lines: &[Line<'_>], index: usize, first_run: Option<usize>) -> bool {
    let Some(first_run) = first_run.filter(|&first| index < first) else {
        return false;
    };
    let Some(depth) = lines.get(index).map(|line| line.depth) else {
        return false;
    };
    let mut after_blank = false;
    for line in lines.get(index + 1..first_run).unwrap_or_default() {
        if line.depth != depth {
            continue;
        }
        if line.is_blank() {
            after_blank = true;
        } else if after_blank && is_sentence(line.text) {
            return true;
        } else {
            after_blank = false;
        }
    }
    false
}

/// A line of prose: three words or more of letters only, not a command.
/// `portupgrade -RN -m 'BUILD_OPTIMIZED=yes'`, `[log]` and `super-smack
/// -d mysql ...` are none.
fn is_sentence(text: &str) -> bool {
    let words = text
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', '.', ':', ';', '!', '?']))
        .filter(|w| !w.is_empty() && w.chars().all(char::is_alphabetic))
        .count();
    words >= 3 && !prose::is_command_line(text)
}

/// The thread library a line says was used: "After enabling libthr",
/// libmap.conf's `libpthread.so.2 libthr.so.2` (the last one replaces the
/// first), and "without libthr" (the other library of the pair).
/// `may_name_kse_nptl`: the line holds a `K` or an `N`.
fn thread_lib_in_prose(text: &str, may_name_kse_nptl: bool) -> Option<&'static str> {
    let bytes = text.as_bytes();
    // `KSE` and `NPTL` are looked for only where a `K` or `N` is.
    let worth_reading = finders::THR.find(bytes).is_some()
        || (may_name_kse_nptl
            && (finders::KSE.find(bytes).is_some() || finders::NPTL.find(bytes).is_some()));
    if !worth_reading {
        return None;
    }
    let mut mentions: Vec<(&'static str, bool, bool)> = Vec::new();
    let mut previous = "";
    let is_separator =
        |c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '"' | '\'' | ';' | '+');
    let (mut ascii_parts, mut other_parts);
    let parts: &mut dyn Iterator<Item = &str> = if text.is_ascii() {
        // Byte by byte: every byte is a character, none needs decoding.
        ascii_parts = bytes
            .split(move |&b| is_separator(char::from(b)))
            .map(|part| {
                let start = part.as_ptr() as usize - bytes.as_ptr() as usize;
                text.get(start..start + part.len()).unwrap_or_default()
            });
        &mut ascii_parts
    } else {
        other_parts = text.split(is_separator);
        &mut other_parts
    };
    for word in parts {
        let word = word.trim_end_matches(['.', '!', '?', ':']);
        if word.is_empty() {
            continue;
        }
        // The names of three letters (`thr`, `kse`) are too common as words.
        if word.len() <= 3 {
            previous = word;
            continue;
        }
        // Every thread library's name of four letters or more starts with
        // `l`, `p` or `n`: other words are not worth classifying.
        let may_name_one = matches!(word.as_bytes()[0] | 0x20, b'l' | b'p' | b'n');
        if let Some(("thread_lib", lib)) = may_name_one.then(|| classify(word)).flatten() {
            let negated = ["without", "no", "not", "disabling", "disabled"]
                .iter()
                .any(|w| previous.eq_ignore_ascii_case(w));
            mentions.push((lib, negated, word.contains(".so")));
        }
        previous = word;
    }
    let (lib, negated, _) = match mentions.as_slice() {
        [] => return None,
        [one] => *one,
        // libmap.conf: the library on the right replaces the one on the left.
        many if many.iter().all(|&(_, _, shared_object)| shared_object) => *many.last()?,
        many if many.iter().all(|&(lib, _, _)| lib == many[0].0) => many[0],
        _ => return None,
    };
    if !negated {
        return Some(lib);
    }
    match lib {
        "libthr" => Some("libpthread"),
        "libpthread" | "KSE" => Some("libthr"),
        "NPTL" => Some("LinuxThreads"),
        "LinuxThreads" => Some("NPTL"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_libraries_in_prose() {
        let cases = [
            (
                "After enabling libthr it does jump by about 3,600 on a generic SMP",
                Some("libthr"),
            ),
            (
                "With this below in my /etc/libmap.conf for libthr and a MySQL restart",
                Some("libthr"),
            ),
            ("libpthread.so.2 libthr.so.2", Some("libthr")),
            ("And without libthr its even slower", Some("libpthread")),
            ("I compared libthr and libpthread here", None),
            ("threads through three thrilling threads", None),
            ("I used libmap.conf to use libthr.so.2.", Some("libthr")),
            ("NPTL is the default on 2.6 kernels", Some("NPTL")),
        ];
        for (i, (text, want)) in cases.into_iter().enumerate() {
            assert_eq!(thread_lib_in_prose(text, true), want, "case {i}: {text:?}");
        }
    }
}
