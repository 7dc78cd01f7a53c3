//! The context around a report: section labels such as `== ULE + libthr +
//! TSC ==` and the attributes they name, and who wrote the report.

use std::collections::BTreeMap;

use crate::mail::Messages;
use crate::text::{Line, LogicalLine};
use crate::Run;

/// A section label line (or lines) such as `== 4BSD + libthr + TSC ==`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionLabel {
    pub label: String,
    pub depth: usize,
    /// Index of the label's last line.
    pub end: usize,
}

/// How many lines a wrapped section label may span.
const MAX_LABEL_LINES: usize = 3;
const MAX_LABEL_LEN: usize = 200;

/// Reads a section label starting at `lines[start]`: text between `==`
/// (or `**`) marks, wrapped over up to three lines at the same depth.
pub fn section_label(lines: &[Line<'_>], start: usize) -> Option<SectionLabel> {
    let first = lines.get(start)?;
    let open = first.text.trim_start();
    let mark = ["==", "**"].into_iter().find(|m| open.starts_with(m))?;
    let mut end = start;
    while !closes(lines[end].text, mark) {
        end += 1;
        let next = lines.get(end)?;
        if end - start >= MAX_LABEL_LINES || next.depth != first.depth || next.is_blank() {
            return None;
        }
    }
    let joined = LogicalLine::join(&lines[start..=end], " ");
    let marks: &[char] = if mark == "==" { &['='] } else { &['*'] };
    let inner = joined
        .text
        .trim()
        .trim_end_matches(':')
        .trim_matches(marks)
        .trim();
    let valid = !inner.is_empty()
        && inner.len() <= MAX_LABEL_LEN
        && !inner.contains(marks[0])
        && inner.chars().any(char::is_alphanumeric);
    valid.then(|| SectionLabel {
        label: inner.split_whitespace().collect::<Vec<_>>().join(" "),
        depth: first.depth,
        end,
    })
}

fn closes(text: &str, mark: &str) -> bool {
    let text = text.trim_end().trim_end_matches(':');
    text.ends_with(mark) && text.trim().len() > mark.len()
}

/// The attributes a label names, in Contract 2's keys and spellings.
/// `ULE + libthr + TSC + context_time.patch` gives scheduler ULE,
/// thread_lib libthr, timer TSC, patches context_time.patch. Parts that fit
/// no key are kept, joined, as `variant`.
pub fn label_attrs(label: &str) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    let mut patches = Vec::new();
    let mut variant = Vec::new();
    for part in label.split(['+', ',', ';']).map(str::trim).filter(|p| !p.is_empty()) {
        if let Some((key, value)) = classify(part) {
            attrs.entry(key.to_string()).or_insert_with(|| value.to_string());
            continue;
        }
        if is_patch(part) {
            patches.push(part);
            continue;
        }
        // "ULE libthr": several known words in one part.
        let words: Vec<&str> = part.split_whitespace().collect();
        let known: Vec<Option<(&str, &str)>> = words.iter().map(|w| classify(w)).collect();
        if words.len() > 1 && known.iter().any(Option::is_some) {
            let mut rest = Vec::new();
            for (word, found) in words.iter().zip(known) {
                match found {
                    Some((key, value)) => {
                        attrs.entry(key.to_string()).or_insert_with(|| value.to_string());
                    }
                    None if is_patch(word) => patches.push(word),
                    None => rest.push(*word),
                }
            }
            if !rest.is_empty() {
                variant.push(rest.join(" "));
            }
        } else {
            variant.push(part.to_string());
        }
    }
    if !patches.is_empty() {
        attrs.insert("patches".to_string(), patches.join(","));
    }
    if !variant.is_empty() {
        attrs.insert("variant".to_string(), variant.join(" + "));
    }
    attrs
}

fn is_patch(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    [".patch", ".diff"].iter().any(|ext| lower.ends_with(ext)) && !word.contains(' ')
}

/// One word or part of a label as (key, normalised value), if known.
pub fn classify(word: &str) -> Option<(&'static str, &'static str)> {
    let lower = word.trim().to_ascii_lowercase();
    let lower = lower.as_str();
    let found = match lower {
        "ule" | "sched_ule" | "ule2" => ("scheduler", "ULE"),
        "4bsd" | "sched_4bsd" => ("scheduler", "4BSD"),
        "cfs" => ("scheduler", "CFS"),
        "bfs" => ("scheduler", "BFS"),
        "libthr" | "thr" => ("thread_lib", "libthr"),
        "libpthread" | "pthread" => ("thread_lib", "libpthread"),
        "kse" | "libkse" => ("thread_lib", "KSE"),
        "libc_r" | "c_r" => ("thread_lib", "libc_r"),
        "nptl" => ("thread_lib", "NPTL"),
        "linuxthreads" => ("thread_lib", "LinuxThreads"),
        "tsc" => ("timer", "TSC"),
        "acpi-fast" | "acpi_fast" | "acpi" => ("timer", "ACPI-fast"),
        "acpi-safe" => ("timer", "ACPI-safe"),
        "i8254" => ("timer", "i8254"),
        "hpet" => ("timer", "HPET"),
        "jemalloc" => ("malloc", "jemalloc"),
        "phkmalloc" => ("malloc", "phkmalloc"),
        "tcmalloc" => ("malloc", "tcmalloc"),
        "ufs" | "ufs2" | "ffs" => ("fs", "UFS"),
        "ext2" => ("fs", "ext2"),
        "ext3" => ("fs", "ext3"),
        "ext4" => ("fs", "ext4"),
        "reiserfs" => ("fs", "ReiserFS"),
        "zfs" => ("fs", "ZFS"),
        "xfs" => ("fs", "XFS"),
        "jfs" => ("fs", "JFS"),
        "myisam" => ("storage_engine", "MyISAM"),
        "innodb" => ("storage_engine", "InnoDB"),
        _ => return classify_shared_object(lower),
    };
    Some(found)
}

/// `libthr.so.2`, `libpthread.so` name the thread library.
fn classify_shared_object(lower: &str) -> Option<(&'static str, &'static str)> {
    let stem = lower.split(".so").next().filter(|_| lower.contains(".so"))?;
    match stem {
        "libthr" => Some(("thread_lib", "libthr")),
        "libpthread" => Some(("thread_lib", "libpthread")),
        "libkse" => Some(("thread_lib", "KSE")),
        "libc_r" => Some(("thread_lib", "libc_r")),
        _ => None,
    }
}

/// Gives each run its section label, the label's attributes, and the
/// author and message of the text it was found in.
///
/// A label applies to the runs after it at its own quote depth, until the
/// next label at that depth or until the quoted block it is in ends.
pub fn apply(lines: &[Line<'_>], messages: &Messages, runs: &mut [Run]) {
    let labels = active_labels(lines);
    for run in runs.iter_mut() {
        let index = run.lines[0].saturating_sub(1);
        // A label the tool's own parser found (a heading it knows) wins.
        if run.label.is_none() {
            run.label = labels.get(index).cloned().flatten();
        }
        if let Some(label) = &run.label {
            for (key, value) in label_attrs(label) {
                run.attrs.entry(key).or_insert(value);
            }
        }
        if let Some((m, message)) = messages.at(index) {
            run.message = Some(m);
            run.author = message.author.clone();
        }
    }
}

/// For each line, the section label in force at its depth.
fn active_labels(lines: &[Line<'_>]) -> Vec<Option<String>> {
    let mut in_force: Vec<Option<String>> = Vec::new();
    let mut per_line = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if !line.is_blank() {
            // Leaving a quoted block ends the labels inside it.
            in_force.truncate(line.depth + 1);
        }
        if in_force.len() <= line.depth {
            in_force.resize(line.depth + 1, None);
        }
        if let Some(label) = section_label(lines, i) {
            in_force[line.depth] = Some(label.label);
            for _ in i..=label.end {
                per_line.push(None);
            }
            i = label.end + 1;
            continue;
        }
        per_line.push(in_force[line.depth].clone());
        i += 1;
    }
    per_line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text;

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn labels_name_attributes() {
        let cases = [
            ("4BSD + libpthread + ACPI-Fast", attrs(&[("scheduler", "4BSD"), ("thread_lib", "libpthread"), ("timer", "ACPI-fast")])),
            ("ULE + libthr + TSC", attrs(&[("scheduler", "ULE"), ("thread_lib", "libthr"), ("timer", "TSC")])),
            (
                "ULE + libthr + TSC + context_time.patch + cpu_acct_1.patch + cpu_acct_2.patch",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("thread_lib", "libthr"),
                    ("timer", "TSC"),
                    ("patches", "context_time.patch,cpu_acct_1.patch,cpu_acct_2.patch"),
                ]),
            ),
            ("SCHED_ULE libthr.so.2", attrs(&[("scheduler", "ULE"), ("thread_lib", "libthr")])),
            ("update test", attrs(&[("variant", "update test")])),
            ("4 * dualcore opteron", attrs(&[("variant", "4 * dualcore opteron")])),
            ("ule jemalloc ZFS big box", attrs(&[("scheduler", "ULE"), ("malloc", "jemalloc"), ("fs", "ZFS"), ("variant", "big box")])),
        ];
        for (i, (label, want)) in cases.into_iter().enumerate() {
            assert_eq!(label_attrs(label), want, "case {i}: {label:?}");
        }
    }

    #[test]
    fn section_labels_single_wrapped_and_not() {
        let input = "== ULE + libthr + TSC ==\n== ULE + libthr +\ncpu_acct_2.patch ==\n** update test **\n== 4 * dualcore opteron ==:\n==\n== a\nb\nc\nd ==\n=== ===\n";
        let lines = text::lines(input);
        let got: Vec<Option<String>> = (0..lines.len())
            .map(|i| section_label(&lines, i).map(|l| l.label))
            .collect();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(got[0], some("ULE + libthr + TSC"));
        assert_eq!(got[1], some("ULE + libthr + cpu_acct_2.patch"));
        assert_eq!(section_label(&lines, 1).unwrap().end, 2);
        assert_eq!(got[3], some("update test"));
        assert_eq!(got[4], some("4 * dualcore opteron"));
        assert_eq!(got[5], None, "bare ==");
        assert_eq!(got[6], None, "label not closed within three lines");
        assert_eq!(got[10], None, "no text inside");
    }

    #[test]
    fn labels_apply_at_their_depth_until_the_quote_ends() {
        let input = "== A ==\nrun1\n> run2\n> == B ==\n> run3\nrun4\n> run5\n== C ==\nrun6\n";
        let lines = text::lines(input);
        let labels = active_labels(&lines);
        let want = [None, Some("A"), None, None, Some("B"), Some("A"), None, None, Some("C")];
        for (i, want) in want.into_iter().enumerate() {
            assert_eq!(labels[i].as_deref(), want, "line {}", i + 1);
        }
    }
}
