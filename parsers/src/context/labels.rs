//! Section labels: banners such as `== ULE + libthr + TSC ==`, markdown
//! headings and labels in prose ([`prose`]), the attributes a label names,
//! and which label is in force on a line.

use std::collections::BTreeMap;

use super::prose;
use super::spelling::classify;
use crate::text::{trim_start, Line, LogicalLine};
use crate::Run;

/// A section label line (or lines) such as `== 4BSD + libthr + TSC ==`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SectionLabel {
    /// The text between the marks, its spaces collapsed.
    label: String,
    /// The quote depth of its lines.
    depth: usize,
    /// Index of the label's last line.
    end: usize,
}

/// How many lines a wrapped section label may span.
const MAX_LABEL_LINES: usize = 3;
const MAX_LABEL_LEN: usize = 200;

/// Reads a section label starting at `lines[start]`: text between `==`
/// (or `**`) marks, wrapped over up to three lines at the same depth.
fn section_label(lines: &[Line<'_>], start: usize) -> Option<SectionLabel> {
    let first = lines.get(start)?;
    let open = first.text.trim_start();
    if let Some(label) = markdown_heading(open) {
        return Some(SectionLabel {
            label,
            depth: first.depth,
            end: start,
        });
    }
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

/// A markdown heading of level 2 to 6 (`## Resource Overload w/ Atropos`),
/// as write-ups on the web title the runs under them. A single `#` is
/// left alone: it is also a root shell prompt (`# sysbench ... run`).
fn markdown_heading(text: &str) -> Option<String> {
    let hashes = text.bytes().take_while(|&b| b == b'#').count();
    if !(2..=6).contains(&hashes) {
        return None;
    }
    let inner = text[hashes..]
        .strip_prefix(' ')?
        .trim()
        .trim_end_matches('#')
        .trim();
    let valid = !inner.is_empty()
        && inner.len() <= MAX_LABEL_LEN
        && inner.chars().any(char::is_alphanumeric);
    valid.then(|| inner.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Whether `text` ends a label opened with `mark` (`== ... ==`).
fn closes(text: &str, mark: &str) -> bool {
    let text = text.trim_end().trim_end_matches(':');
    text.ends_with(mark) && text.trim().len() > mark.len()
}

/// The attributes a label names, in Contract 2's keys and spellings.
/// `ULE + libthr + TSC + context_time.patch` gives scheduler ULE,
/// thread_lib libthr, timer TSC, patches context_time.patch. Parts that fit
/// no key are kept, joined, as `variant`.
pub(super) fn label_attrs(label: &str) -> BTreeMap<String, String> {
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
        // "ULE libthr": several known words in one part.
        let words: Vec<&str> = part.split_whitespace().collect();
        let known: Vec<Option<(&str, &str)>> = words.iter().map(|w| classify(w)).collect();
        if words.len() > 1 && known.iter().any(Option::is_some) {
            let mut rest = Vec::new();
            for (word, found) in words.iter().zip(known) {
                match found {
                    Some((key, value)) => {
                        attrs
                            .entry(key.to_string())
                            .or_insert_with(|| value.to_string());
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

/// Where the runs lie, as 0-based line indexes, ordered by first line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    depth: usize,
}

/// The runs met so far on a walk down the lines: the rest of them in line
/// order, and how far down the ones begun reach at each depth.
struct RunsBegun {
    spans: Vec<Span>,
    /// Index into `spans` of the first run not begun yet.
    next: usize,
    /// covered[d]: the last line of the runs at depth d begun so far.
    covered: Vec<Option<usize>>,
}

impl RunsBegun {
    /// The runs' spans, none begun.
    fn new(runs: &[Run]) -> RunsBegun {
        let mut spans: Vec<Span> = runs
            .iter()
            .map(|run| Span {
                start: run.lines[0].saturating_sub(1),
                end: run.lines[1].saturating_sub(1),
                depth: run.quote_depth,
            })
            .collect();
        spans.sort_unstable_by_key(|s| (s.start, s.depth));
        RunsBegun {
            spans,
            next: 0,
            covered: Vec::new(),
        }
    }

    /// Begins the runs that start on or above line `i`.
    fn begin_to(&mut self, i: usize) {
        while let Some(span) = self.spans.get(self.next).filter(|s| s.start <= i) {
            if self.covered.len() <= span.depth {
                self.covered.resize(span.depth + 1, None);
            }
            let end = &mut self.covered[span.depth];
            *end = Some(end.map_or(span.end, |e| e.max(span.end)));
            self.next += 1;
        }
    }

    /// The last line of the runs begun at `depth`, if any.
    fn covered_until(&self, depth: usize) -> Option<usize> {
        self.covered.get(depth).copied().flatten()
    }

    /// Whether a run not begun yet starts on line `i` at `depth`.
    fn starts_at(&self, i: usize, depth: usize) -> bool {
        self.spans.get(self.next).is_some_and(|s| s.start == i)
            && self.spans[self.next..]
                .iter()
                .take_while(|s| s.start == i)
                .any(|s| s.depth == depth)
    }
}

/// A label in prose and whether a run has taken it yet.
#[derive(Debug, Clone, Copy)]
struct ProseLabel {
    label: u32,
    depth: usize,
    attached: bool,
}

/// For each line `asked` names (0-based indices, sorted, each once), the
/// label in force at its depth: the prose label attached to the run the
/// line belongs to, else the section banner or heading in force. One pass
/// over the lines; each line costs a look at its first and last bytes
/// unless it has a label's shape. Only the lines asked about keep their
/// answer: a table for every line was 8 bytes a line of fresh memory for
/// the few lines runs ask about.
pub(super) fn active_labels(lines: &[Line<'_>], runs: &[Run], asked: &[usize]) -> ActiveLabels {
    let mut runs = RunsBegun::new(runs);
    let mut found = ActiveLabels {
        labels: Vec::new(),
        label_lines: Vec::new(),
        answers: Vec::with_capacity(asked.len()),
    };
    // in_force[d]: index into `labels` of the banner in force at depth d.
    let mut in_force: Vec<Option<u32>> = Vec::new();
    let mut prose: Option<ProseLabel> = None;
    let mut asked = asked.iter().copied().peekable();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        runs.begin_to(i);
        if !line.is_blank() {
            // Leaving a quoted block ends the labels inside it.
            in_force.truncate(line.depth + 1);
        }
        if in_force.len() <= line.depth {
            in_force.resize(line.depth + 1, None);
        }
        if let Some(label) = banner_at(lines, i) {
            in_force[line.depth] = u32::try_from(found.labels.len()).ok();
            found.labels.push(label.label);
            found.label_lines.push(i);
            prose = None;
            // The label's own lines are under no label.
            while let Some(at) = asked.next_if(|&at| at <= label.end) {
                found.answers.push((at, None));
            }
            i = label.end + 1;
            continue;
        }
        if !line.is_blank() {
            prose = follow_prose(lines, i, &runs, prose, &mut found);
        }
        let attached = prose.filter(|p| p.attached && p.depth == line.depth);
        let label = attached.map(|p| p.label).or(in_force[line.depth]);
        while let Some(at) = asked.next_if(|&at| at <= i) {
            found.answers.push((at, label));
        }
        i += 1;
    }
    found
}

/// The section banner or heading starting on line `i`, if one does; most
/// lines are ruled out by their first visible byte.
fn banner_at(lines: &[Line<'_>], i: usize) -> Option<SectionLabel> {
    let opens_label = matches!(
        trim_start(lines.get(i)?.text).as_bytes().first(),
        Some(b'=' | b'*' | b'#')
    );
    if opens_label {
        section_label(lines, i)
    } else {
        None
    }
}

/// The prose label after line `i`, which is not blank and no banner: the
/// label it starts (added to `found`), the one a run inside it takes,
/// the one waiting under a heading, or none.
fn follow_prose(
    lines: &[Line<'_>],
    i: usize,
    runs: &RunsBegun,
    prose: Option<ProseLabel>,
    found: &mut ActiveLabels,
) -> Option<ProseLabel> {
    let line = &lines[i];
    let mut prose = prose.filter(|p| p.depth == line.depth);
    let covered_until = runs.covered_until(line.depth);
    if covered_until.is_some_and(|end| i <= end) {
        if let Some(p) = &mut prose {
            p.attached = true;
        }
        return prose;
    }
    if let Some(label) = prose_label_at(lines, i, runs, covered_until) {
        let index = u32::try_from(found.labels.len()).unwrap_or(u32::MAX);
        found.labels.push(label);
        found.label_lines.push(i);
        return Some(ProseLabel {
            label: index,
            depth: line.depth,
            attached: false,
        });
    }
    match prose {
        // Under a heading it keeps the label waiting; between runs it
        // parts them.
        Some(p) if prose::is_rule(line.text) => Some(p).filter(|p| !p.attached),
        Some(_) if !prose::is_command_line(line.text) => None,
        other => other,
    }
}

/// The label in prose line `i` states, outside any run (`covered_until`:
/// where the runs begun at its depth end), by the rules of [`prose`].
fn prose_label_at(
    lines: &[Line<'_>],
    i: usize,
    runs: &RunsBegun,
    covered_until: Option<usize>,
) -> Option<String> {
    let line = &lines[i];
    // Most lines are prose that cannot be a label: their last byte, and
    // the first bytes of the line below, tell.
    let run_below = runs.starts_at(i + 1, line.depth);
    let rule_below = lines
        .get(i + 1)
        .is_some_and(|next| next.depth == line.depth && prose::is_rule(next.text));
    let below = (prose::last_char(line.text) == Some(':') || run_below || rule_below).then_some(
        prose::Below {
            run: run_below,
            rule: rule_below,
        },
    );
    below
        .filter(|_| {
            let run_ended_above = i.checked_sub(1).is_some_and(|p| covered_until == Some(p));
            !run_ended_above && !continues_sentence(lines, i)
        })
        .filter(|_| !prose::is_command_line(line.text))
        .and_then(|below| prose::label_of(line.text, below))
}

/// Whether line `i` goes on with a sentence the line above it left open
/// (rule 3 of [`prose`]); a run ending right above is checked by the caller.
fn continues_sentence(lines: &[Line<'_>], i: usize) -> bool {
    let (Some(above), Some(line)) = (i.checked_sub(1).and_then(|p| lines.get(p)), lines.get(i))
    else {
        return false;
    };
    above.depth == line.depth
        && markdown_heading(above.text.trim_start()).is_none()
        && prose::leaves_sentence_open(prose::last_char(above.text))
}

/// The section label in force on the lines asked about, without a copy
/// per line.
pub(super) struct ActiveLabels {
    labels: Vec<String>,
    /// The line (0-based) each of `labels` starts on.
    label_lines: Vec<usize>,
    /// (0-based line, index into `labels`), sorted by line.
    answers: Vec<(usize, Option<u32>)>,
}

impl ActiveLabels {
    /// The label of line `index`, if it was asked about and has one.
    #[cfg(test)]
    fn at(&self, index: usize) -> Option<&str> {
        self.with_line(index).map(|(label, _)| label)
    }

    /// The label of line `index`, if it was asked about and has one, with
    /// the line the label starts on.
    pub(super) fn with_line(&self, index: usize) -> Option<(&str, usize)> {
        let at = self
            .answers
            .binary_search_by_key(&index, |&(line, _)| line)
            .ok()?;
        let label = self.answers.get(at)?.1? as usize;
        Some((
            self.labels.get(label)?.as_str(),
            *self.label_lines.get(label)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text;

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn labels_name_attributes() {
        let cases = [
            (
                "4BSD + libpthread + ACPI-Fast",
                attrs(&[
                    ("scheduler", "4BSD"),
                    ("thread_lib", "libpthread"),
                    ("timer", "ACPI-fast"),
                ]),
            ),
            (
                "ULE + libthr + TSC",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("thread_lib", "libthr"),
                    ("timer", "TSC"),
                ]),
            ),
            (
                "ULE + libthr + TSC + context_time.patch + cpu_acct_1.patch + cpu_acct_2.patch",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("thread_lib", "libthr"),
                    ("timer", "TSC"),
                    (
                        "patches",
                        "context_time.patch,cpu_acct_1.patch,cpu_acct_2.patch",
                    ),
                ]),
            ),
            (
                "SCHED_ULE libthr.so.2",
                attrs(&[("scheduler", "ULE"), ("thread_lib", "libthr")]),
            ),
            ("update test", attrs(&[("variant", "update test")])),
            (
                "4 * dualcore opteron",
                attrs(&[("variant", "4 * dualcore opteron")]),
            ),
            (
                "For indication, here is a bonnie++ run as ext4 formatted",
                attrs(&[
                    ("fs", "ext4"),
                    (
                        "variant",
                        "For indication + here is a bonnie++ run as formatted",
                    ),
                ]),
            ),
            (
                "Results with 2.4.32 + libata latest",
                attrs(&[("variant", "Results with 2.4.32 + libata latest")]),
            ),
            (
                "ule jemalloc ZFS big box",
                attrs(&[
                    ("scheduler", "ULE"),
                    ("malloc", "jemalloc"),
                    ("fs", "ZFS"),
                    ("variant", "big box"),
                ]),
            ),
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
    fn markdown_headings_of_level_two_to_six_are_labels() {
        let cases = [
            (
                "## Resource Overload w/ Atropos",
                Some("Resource Overload w/ Atropos"),
            ),
            ("### CPU 성능 측정 ###", Some("CPU 성능 측정")),
            ("###### deep", Some("deep")),
            ("# sysbench cpu run", None),
            ("####### seven", None),
            ("##no space", None),
            ("## ##", None),
        ];
        for (i, (text, want)) in cases.iter().enumerate() {
            let lines = text::lines(text);
            let got = section_label(&lines, 0).map(|l| l.label);
            assert_eq!(got.as_deref(), *want, "case {i}");
        }
    }

    #[test]
    fn labels_apply_at_their_depth_until_the_quote_ends() {
        let input = "== A ==\nrun1\n> run2\n> == B ==\n> run3\nrun4\n> run5\n== C ==\nrun6\n";
        let lines = text::lines(input);
        let every_line: Vec<usize> = (0..lines.len()).collect();
        let labels = active_labels(&lines, &[], &every_line);
        let want = [
            None,
            Some("A"),
            None,
            None,
            Some("B"),
            Some("A"),
            None,
            None,
            Some("C"),
        ];
        for (i, want) in want.into_iter().enumerate() {
            assert_eq!(labels.at(i), want, "line {}", i + 1);
        }
    }

    #[test]
    fn runs_begun_cover_their_lines_at_their_depth() {
        let run = |lines: [usize; 2], depth: usize| {
            Run::new(crate::Tool::Sysbench, depth, lines, Vec::new())
        };
        // 1-based lines: 0-based spans 2..=4 at depth 0, 3..=3 and 6..=8 at 1.
        let mut runs = RunsBegun::new(&[run([7, 9], 1), run([3, 5], 0), run([4, 4], 1)]);
        assert!(runs.starts_at(2, 0) && !runs.starts_at(2, 1) && !runs.starts_at(3, 1));
        runs.begin_to(1);
        assert_eq!((runs.covered_until(0), runs.covered_until(1)), (None, None));
        runs.begin_to(3);
        assert_eq!(runs.covered_until(0), Some(4));
        assert_eq!(runs.covered_until(1), Some(3));
        // A run begun is no longer one starting.
        assert!(!runs.starts_at(2, 0) && runs.starts_at(6, 1));
        runs.begin_to(6);
        assert_eq!(runs.covered_until(1), Some(8));
        assert_eq!(runs.covered_until(2), None);
    }

    #[test]
    fn banners_start_with_their_marks() {
        let lines = text::lines(
            "== A ==
  ** B **
## C
D ==
",
        );
        let got: Vec<Option<String>> = (0..5)
            .map(|i| banner_at(&lines, i).map(|l| l.label))
            .collect();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(got, [some("A"), some("B"), some("C"), None, None]);
    }

    #[test]
    fn a_prose_label_waits_for_its_run_and_stays_on_it() {
        // 0: label, 1: run, 2: rule, 3: run, 4: prose ends it.
        let lines = text::lines(
            "Before this change:
run
-----
run
And then it was slow
",
        );
        let runs = RunsBegun::new(&[]);
        let mut found = ActiveLabels {
            labels: Vec::new(),
            label_lines: Vec::new(),
            answers: Vec::new(),
        };
        let waiting = follow_prose(&lines, 0, &runs, None, &mut found).unwrap();
        assert_eq!((waiting.label, waiting.attached), (0, false));
        assert_eq!(
            (found.labels.as_slice(), found.label_lines.as_slice()),
            (
                ["Before this change".to_string()].as_slice(),
                [0].as_slice()
            )
        );
        // A rule keeps a waiting label and parts an attached one from the
        // runs after it.
        assert!(follow_prose(&lines, 2, &runs, Some(waiting), &mut found).is_some());
        let attached = ProseLabel {
            attached: true,
            ..waiting
        };
        assert!(follow_prose(&lines, 2, &runs, Some(attached), &mut found).is_none());
        // Prose ends it; so does a line at another depth.
        assert!(follow_prose(&lines, 4, &runs, Some(waiting), &mut found).is_none());
        let deeper = ProseLabel {
            depth: 1,
            ..waiting
        };
        assert!(follow_prose(&lines, 3, &runs, Some(deeper), &mut found).is_none());
        assert_eq!(found.labels.len(), 1);
    }
}
