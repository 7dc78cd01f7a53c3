//! The attributes a label names (`ULE + libthr + TSC`: scheduler,
//! thread library, timer), in Contract 2's keys and spellings.

use std::collections::BTreeMap;

use crate::context::prose;
use crate::context::spelling::{classify, OS_NAMES};

/// The attributes a label names, in Contract 2's keys and spellings.
/// `ULE + libthr + TSC + context_time.patch` gives scheduler ULE,
/// thread_lib libthr, timer TSC, patches context_time.patch. Parts that fit
/// no key are kept, joined, as `variant`.
pub(in crate::context) fn label_attrs(label: &str) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    let mut patches = Vec::new();
    let mut variant = Vec::new();
    for part in label_parts(label) {
        if let Some((key, value)) = classify(part) {
            attrs
                .entry(key.to_string())
                .or_insert_with(|| value.to_string());
            continue;
        }
        if is_patch(part) {
            patches.push(part);
            continue;
        }
        // "ULE libthr", "2.6.18 SATA": several known words in one part.
        let words: Vec<&str> = part.split_whitespace().collect();
        let known: Vec<Option<(&str, &str)>> = words
            .iter()
            .enumerate()
            .map(|(n, word)| {
                let after = n.checked_sub(1).map(|p| words[p]);
                classify(word)
                    .or_else(|| names_kernel(word, after).then_some(("os_version", *word)))
                    .or_else(|| os_named(word).map(|os| ("os", os)))
            })
            .collect();
        if known.iter().any(Option::is_some) && (words.len() > 1 || known[0].is_some()) {
            let mut rest = Vec::new();
            for (word, found) in words.iter().zip(known) {
                match found {
                    Some((key, value)) => {
                        attrs
                            .entry(key.to_string())
                            .or_insert_with(|| value.to_string());
                        // `under Linux`, `on FreeBSD`: the preposition goes
                        // with the word it introduces.
                        if rest
                            .last()
                            .is_some_and(|w: &&str| prose::is_naming_preposition(w))
                        {
                            rest.pop();
                        }
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

/// The operating system a word of a label names (`Linux`, `FreeBSD`), as
/// Contract 2 spells it.
fn os_named(word: &str) -> Option<&'static str> {
    OS_NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(word))
        .map(|&(name, _)| name)
}

/// Whether `word` in a label names the Linux kernel a run was run on: a
/// release (`2.6.18`, `2.4.6.pre3`, `2.6.23-rc1`, `5.4.0-42-generic`,
/// [`kernel_release`]) that starts its part of the label (`2.6.18,
/// SATA`, `2.4.20 + some-driver`) or follows `Linux` or `kernel`; after
/// another word it is that word's version (`MySQL 5.1.22`).
fn names_kernel(word: &str, after: Option<&str>) -> bool {
    let introduced =
        after.is_none_or(|a| a.eq_ignore_ascii_case("linux") || a.eq_ignore_ascii_case("kernel"));
    introduced && kernel_release(word)
}

/// Whether `word` has a Linux kernel release's shape: a major version of
/// 2 to 6, then either two more numbers (`2.6.18`, `4.19.0-6-amd64`) or
/// a release candidate (`2.6.23-rc1`), then any suffix of letters,
/// digits and `.-_+`.
fn kernel_release(word: &str) -> bool {
    let word = word.trim_end_matches([':', ')']);
    let bytes = word.as_bytes();
    if bytes.len() < 3 || !(b'2'..=b'6').contains(&bytes[0]) || bytes[1] != b'.' {
        return false;
    }
    let minor = bytes[2..].iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &word[2 + minor..];
    let third = rest
        .strip_prefix('.')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    let candidate = rest.starts_with("-rc") || rest.starts_with("-pre");
    minor > 0
        && (third || candidate)
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
}

/// A label's parts: split at `+`, `,` and `;`, but a doubled `++` belongs
/// to its word (`bonnie++`, `g++`).
fn label_parts(label: &str) -> impl Iterator<Item = &str> {
    let bytes = label.as_bytes();
    let mut cuts = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        let doubled_plus = b == b'+'
            && (i.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&b'+')
                || bytes.get(i + 1) == Some(&b'+'));
        if matches!(b, b'+' | b',' | b';') && !doubled_plus {
            cuts.push(i);
        }
    }
    let mut start = 0;
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    for cut in cuts.into_iter().chain(std::iter::once(label.len())) {
        parts.push(label[start..cut].trim());
        start = cut + 1;
    }
    parts.into_iter().filter(|p| !p.is_empty())
}

/// A patch file named in a label: `context_time.patch`, `fix.diff`.
fn is_patch(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    [".patch", ".diff"].iter().any(|ext| lower.ends_with(ext)) && !word.contains(' ')
}
