//! The context around a report: section labels such as `== ULE + libthr +
//! TSC ==`, markdown headings and labels in prose (`Before this change:`,
//! see [`prose`]) and the attributes they name; facts about the system from
//! dmesg, `uname -a`, `Running tests on:` and `Server version:` lines; and
//! who wrote the report.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

mod prose;

use crate::mail::Messages;
use crate::text::{trim_end, trim_start, ByteBits, Line, LogicalLine};
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

fn is_patch(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    [".patch", ".diff"].iter().any(|ext| lower.ends_with(ext)) && !word.contains(' ')
}

/// One word or part of a label as (key, normalised value), if known.
pub fn classify(word: &str) -> Option<(&'static str, &'static str)> {
    // Every known word is short (`libpthread.so.2` at most): lower-case it
    // on the stack, since this runs for many words of many lines.
    const LONGEST: usize = 32;
    let word = word.trim();
    if word.len() > LONGEST {
        return None;
    }
    let mut buffer = [0u8; LONGEST];
    let buffer = &mut buffer[..word.len()];
    buffer.copy_from_slice(word.as_bytes());
    buffer.make_ascii_lowercase();
    let lower = std::str::from_utf8(buffer).ok()?;
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
    // Byte windows rather than a substring searcher: this runs for every
    // word of the lines that name a thread library.
    let at = lower.as_bytes().windows(3).position(|w| w == b".so")?;
    let stem = &lower[..at];
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
/// A section banner or heading applies to the runs after it at its own
/// quote depth, until the next label at that depth or until the quoted
/// block it is in ends. A label in prose applies only to the run directly
/// under it (and the runs right after that one), at its own depth; the
/// [`prose`] module states the rule.
///
/// The facts of the system a run takes are the nearest before it in its
/// message at its depth, else the nearest after it. A sentence naming one
/// thread library announces a change (`With this below in my
/// /etc/libmap.conf for libthr`, `And without libthr its even slower`):
/// it labels the runs after it in its place until the next announcement,
/// or until a label in force on a run starts after it. At the head of a
/// place, one with another paragraph of prose between it and the first run
/// sums the text up and labels none ([`is_head_summary`]). An author going
/// on under his own quote goes on with its announcement
/// ([`carry_announcements`]).
///
/// `capitals` says which lines may hold the capitals some facts need.
pub fn apply(lines: &[Line<'_>], capitals: &Capitals<'_>, messages: &Messages, runs: &mut [Run]) {
    // The line whose label each run without one of its own takes: where
    // its first value was printed (a heading between a run's command and
    // its report names the report, `## Results`, not the step before it).
    let label_line = |run: &Run| {
        let index = run.lines[0].saturating_sub(1);
        run.results
            .iter()
            .map(|r| r.line)
            .min()
            .map_or(index, |line| line.saturating_sub(1))
    };
    let mut asked: Vec<usize> = runs
        .iter()
        .filter(|run| run.label.is_none())
        .map(label_line)
        .collect();
    asked.sort_unstable();
    asked.dedup();
    let labels = active_labels(lines, runs, &asked);
    // A fact is looked up only from a run in its message at its depth:
    // the lines of other places are not read for facts.
    // (message, depth) of each run, sorted.
    let mut places_of_runs: Vec<(usize, usize)> = runs
        .iter()
        .filter_map(|run| {
            let (m, _) = messages.at(run.lines[0].saturating_sub(1))?;
            Some((m, run.quote_depth))
        })
        .collect();
    places_of_runs.sort_unstable();
    places_of_runs.dedup();
    // The place of a line is asked for every line: each message's first
    // place in `places_of_runs`, if it has one, is looked up by index (a
    // quoted thread changes place every few lines, and a binary search
    // each time cost more than all else the facts do).
    // As a `u32` with `u32::MAX` for none: one per message (a large input
    // has hundreds of thousands), at a quarter of an `Option<usize>`'s
    // size, so fewer fresh pages are touched. `places_of_runs` is at most
    // one place per run, far below the sentinel.
    let mut first_place = vec![u32::MAX; messages.messages.len()];
    for (p, &(m, _)) in places_of_runs.iter().enumerate().rev() {
        if let (Some(first), Ok(p)) = (first_place.get_mut(m), u32::try_from(p)) {
            *first = p;
        }
    }
    // The index in `places_of_runs` of message `m`'s place at `depth`.
    let place_at = |m: usize, depth: usize| {
        let first = *first_place.get(m)?;
        let first = usize::try_from(first).ok().filter(|_| first != u32::MAX)?;
        let of_message = places_of_runs.get(first..)?.iter();
        let mut of_message = of_message.take_while(|&&(other, _)| other == m);
        of_message.position(|&(_, d)| d == depth).map(|k| first + k)
    };
    // The same for line `index` at `depth`, for a walk over the lines: the
    // place of the line before is kept, since neighbouring lines nearly
    // always share their message and depth.
    let place_of_lines = || {
        let mut last: Option<((usize, usize), Option<usize>)> = None;
        move |index: usize, depth: usize| {
            let (m, _) = messages.at(index)?;
            match last {
                Some((seen, place)) if seen == (m, depth) => place,
                _ => {
                    let place = place_at(m, depth);
                    last = Some(((m, depth), place));
                    place
                }
            }
        }
    };
    let facts = if runs.is_empty() {
        Vec::new()
    } else {
        let starts: Vec<(usize, Option<usize>)> = runs
            .iter()
            .map(|run| {
                let index = run.lines[0].saturating_sub(1);
                let place = messages.at(index);
                (index, place.and_then(|(m, _)| place_at(m, run.quote_depth)))
            })
            .collect();
        let mut place_of = place_of_lines();
        let mut facts = facts_where(lines, capitals, |index, depth| {
            place_of(index, depth).is_some()
        });
        facts.extend(remarks_before_runs(
            lines,
            capitals,
            places_of_runs.len(),
            starts,
            place_of_lines(),
        ));
        // In line order, a line's remark after its other facts, as a
        // run's nearest fact of each key is found by binary search.
        facts.sort_by_key(|fact| fact.index);
        facts
    };
    // (message, depth) -> key -> facts in line order, so that a run finds
    // the nearest fact of each key by binary search, however many there are.
    let mut facts_by_place: HashMap<(usize, usize), BTreeMap<&str, Vec<&Fact>>> = HashMap::new();
    for fact in &facts {
        if let Some((m, _)) = messages.at(fact.index) {
            let by_key = facts_by_place.entry((m, fact.depth)).or_default();
            by_key.entry(fact.key).or_default().push(fact);
        }
    }
    // The thread library each run took from an announcement, by run, for
    // the text its author goes on with under the quote (below).
    let mut announced: Vec<Option<&'static str>> = vec![None; runs.len()];
    for (r, run) in runs.iter_mut().enumerate() {
        let index = run.lines[0].saturating_sub(1);
        // A label the tool's own parser found (a heading it knows) wins.
        // Otherwise the label in force on its `label_line`, which also
        // ends the announcements made before it.
        let mut label_start = None;
        if run.label.is_none() {
            if let Some((label, start)) = labels.with_line(label_line(run)) {
                run.label = Some(label.to_string());
                label_start = Some(start);
            }
        }
        if let Some(label) = &run.label {
            for (key, value) in label_attrs(label) {
                run.attrs.entry(key).or_insert(value);
            }
        }
        if let Some((m, message)) = messages.at(index) {
            run.message = Some(m);
            run.author = message.author.clone();
            if let Some(by_key) = facts_by_place.get(&(m, run.quote_depth)) {
                announced[r] = apply_facts(run, index, label_start, by_key);
            }
        }
    }
    carry_announcements(runs, &mut announced);
}

/// An author who quotes his own text and goes on under it goes on with
/// its setup: a run that no announcement of its own place reaches, under
/// no label, takes the thread library announced for the run before it in
/// the text when that run is quoted deeper from the same author (seed
/// 000: "With this ... for libthr" in the quote, then "run the exact same
/// tests" under it), or lies in its own place.
fn carry_announcements(runs: &mut [Run], announced: &mut [Option<&'static str>]) {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&r| runs[r].lines[0]);
    for pair in order.windows(2) {
        let (before, r) = (pair[0], pair[1]);
        let Some(lib) = announced[before] else {
            continue;
        };
        let (earlier, run) = (&runs[before], &runs[r]);
        let same_place = earlier.message == run.message && earlier.quote_depth == run.quote_depth;
        let own_quote = earlier.quote_depth > run.quote_depth
            && run.author.is_some()
            && earlier.author == run.author;
        let open = announced[r].is_none()
            && run.label.is_none()
            && !run.tool.is_disk()
            && !run.attrs.contains_key("thread_lib");
        if open && (same_place || own_quote) {
            runs[r]
                .attrs
                .insert("thread_lib".to_string(), lib.to_string());
            announced[r] = Some(lib);
        }
    }
}

/// Gives a run, for each key, the fact nearest before it in its message
/// at its depth, else the nearest after it (a `Machine:` block under the
/// log); what the run or its label already say is kept. A remark in prose
/// is an announcement: the last one before the run, unless the run's label
/// starts after it (`label_start`). Returns the thread library the run
/// took from an announcement.
fn apply_facts(
    run: &mut Run,
    index: usize,
    label_start: Option<usize>,
    by_key: &BTreeMap<&str, Vec<&Fact>>,
) -> Option<&'static str> {
    // A thread library says nothing about a disk benchmark.
    let disk_tool = run.tool.is_disk();
    let relevant = by_key
        .iter()
        .filter(|(&key, _)| !(disk_tool && key == "thread_lib"));
    let nearest = relevant.filter_map(|(&key, facts)| {
        let after = facts.partition_point(|f| f.index < index);
        let before = after.checked_sub(1).and_then(|i| facts.get(i));
        if facts.first().is_some_and(|f| f.remark) {
            let last = before?;
            let after_label = label_start.is_none_or(|l| last.index > l);
            return after_label.then_some((key, *last));
        }
        Some((key, *before.or_else(|| facts.get(after))?))
    });
    let nearest: Vec<(&str, &Fact)> = nearest.collect();
    // A machine named LINUXSMP in a FreeBSD mail is not a FreeBSD box.
    let machine_os = run.attrs.get("machine").and_then(|m| os_in_name(m));
    if let Some(os) = machine_os {
        run.attrs
            .entry("os".to_string())
            .or_insert_with(|| os.to_string());
    }
    let os_conflicts = |fact: &Fact| match (run.attrs.get("os"), fact.group) {
        (Some(os), Some(group)) => os != group,
        _ => false,
    };
    let announced = nearest.iter().find_map(|(_, fact)| match &fact.value {
        Cow::Borrowed(lib) if fact.remark && !run.attrs.contains_key("thread_lib") => Some(*lib),
        _ => None,
    });
    let chosen: Vec<(&str, String)> = nearest
        .into_iter()
        .filter(|(_, fact)| !os_conflicts(fact))
        .map(|(key, fact)| (key, fact.value.to_string()))
        .collect();
    for (key, value) in chosen {
        run.attrs.entry(key.to_string()).or_insert(value);
    }
    announced
}

fn os_in_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    // A thread library named as the machine (`LinuxThreads` beside `NPTL`)
    // says nothing of the system.
    if classify(&lower).is_some_and(|(key, _)| key == "thread_lib") {
        return None;
    }
    if lower.contains("linux") {
        Some("Linux")
    } else if lower.contains("freebsd") {
        Some("FreeBSD")
    } else if lower.contains("netbsd") {
        Some("NetBSD")
    } else {
        None
    }
}

/// A mail header that names the sender's own system (`X-Mailer: Mozilla
/// 4.74 [en] (X11; U; Linux 2.2.19 i686)`), not the benchmarked one.
fn is_mailer_header(text: &str) -> bool {
    // Each starts with `X` or `U`, as few lines do.
    if !matches!(text.as_bytes().first(), Some(b'X' | b'x' | b'U' | b'u')) {
        return false;
    }
    ["X-Mailer:", "User-Agent:", "X-Newsreader:", "X-MimeOLE:"]
        .iter()
        .any(|h| {
            text.as_bytes()
                .get(..h.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(h.as_bytes()))
        })
}

/// One thing the text says about the system the runs ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// Index of the line it was read from.
    pub index: usize,
    pub depth: usize,
    pub key: &'static str,
    /// Borrowed when it is a fixed name (a thread library, one line in 13
    /// of a long thread), so that those facts allocate nothing.
    pub value: Cow<'static, str>,
    /// The operating system an OS-specific fact belongs to (`os_version`
    /// of FreeBSD must not land on a Linux run).
    pub group: Option<&'static str>,
    /// A remark in prose ("without libthr it is slower") rather than what
    /// the system printed: it announces the runs after it ([`apply`]).
    pub remark: bool,
}

const OS_NAMES: [(&str, &str); 6] = [
    ("FreeBSD", "FreeBSD"),
    ("NetBSD", "NetBSD"),
    ("OpenBSD", "OpenBSD"),
    ("DragonFly", "DragonFly"),
    ("Linux", "Linux"),
    ("SunOS", "SunOS"),
];

/// The first letters of [`OS_NAMES`] (a test checks they agree).
const OS_INITIALS: &[u8] = b"FNODLS";

/// Reads every fact the lines state: dmesg's kernel banner, `CPU:`, CPU
/// count and memory; `uname -a`; `Running tests on:`; `Server version:`;
/// `mysqld Ver` banners; and "running FreeBSD 6.1-PRERELEASE (i386)" in prose.
#[cfg(test)]
pub fn facts(lines: &[Line<'_>]) -> Vec<Fact> {
    let bits = ByteBits::new(&[MARKERS]);
    let marks: Vec<u32> = lines
        .iter()
        .map(|line| bits.mark_of(line.text.as_bytes()))
        .collect();
    let capitals = Capitals::new(&marks, &bits);
    let mut found = facts_where(lines, &capitals, |_, _| true);
    found.extend(lines.iter().enumerate().filter_map(|(index, line)| {
        remark(line, index, &capitals).map(|lib| remark_fact(index, line, lib))
    }));
    found.sort_by_key(|fact| fact.index);
    found
}

/// The capitals some facts need ([`Capitals`]), and the `:` or `(` every
/// fact read after a fixed head holds: the lines' marks must cover them.
pub const MARKERS: &[u8] = b"MVBLKN:(";

/// Which of the capitals a fact needs each line may hold, from the lines'
/// marks: `M` of `Multiprocessor`, `V` of `Ver`, `B`/`L` of `BSD` and
/// `Linux`, `K`/`N` of `KSE` and `NPTL`; and `:` or `(`, which every
/// fact read after a fixed head (`CPU: `, `real memory`) and every mailer
/// header holds.
pub struct Capitals<'m> {
    marks: &'m [u32],
    colon_paren: u32,
    m: u32,
    v: u32,
    bsd_linux: u32,
    kse_nptl: u32,
}

impl<'m> Capitals<'m> {
    /// `marks` holds a mark per line under `bits`, which include [`MARKERS`].
    pub fn new(marks: &'m [u32], bits: &ByteBits) -> Capitals<'m> {
        Capitals {
            marks,
            colon_paren: bits.mask(b":("),
            m: bits.mask(b"M"),
            v: bits.mask(b"V"),
            bsd_linux: bits.mask(b"BL"),
            kse_nptl: bits.mask(b"KN"),
        }
    }
}

/// The facts of the lines `wanted` picks (by index and quote depth), but
/// for the remarks on thread libraries ([`remarks_before_runs`]).
fn facts_where(
    lines: &[Line<'_>],
    capitals: &Capitals<'_>,
    mut wanted: impl FnMut(usize, usize) -> bool,
) -> Vec<Fact> {
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(text) = fact_start(line) else {
            continue;
        };
        if !wanted(index, line.depth) {
            continue;
        }
        let Some((text, mark)) = fact_text(text, index, capitals) else {
            continue;
        };
        let headed = mark & capitals.colon_paren != 0;
        // Most prose holds neither `:` nor `(`: its heads are not compared.
        let after = |head: &str| headed.then(|| text.strip_prefix(head)).flatten();
        let mut push = |key: &'static str, value: &str, group: Option<&'static str>| {
            let value = value.trim();
            if !value.is_empty() && value.len() <= 120 {
                found.push(Fact {
                    index,
                    depth: line.depth,
                    key,
                    value: Cow::Owned(value.to_string()),
                    group,
                    remark: key == "thread_lib",
                });
            }
        };
        if let Some(rest) = after("CPU: ") {
            // `AMD Athlon(tm) 64 X2 Dual Core Processor 4200+ (2194.52-MHz K8-class CPU)`
            let name = match rest.rfind(" (") {
                Some(i) if rest.ends_with(')') && rest[i..].contains("MHz") => &rest[..i],
                _ => rest,
            };
            push("cpu", name, None);
        } else if let Some(rest) = after("model name") {
            // Linux /proc/cpuinfo: `model name\t: Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz`
            if let Some((_, name)) = rest.split_once(':') {
                push(
                    "cpu",
                    &name.split_whitespace().collect::<Vec<_>>().join(" "),
                    None,
                );
            }
        } else if let Some(rest) = after("MemTotal:") {
            // Linux /proc/meminfo: `MemTotal:        8167848 kB`
            if let Some(kb) = rest
                .trim()
                .strip_suffix("kB")
                .and_then(|kb| kb.trim().parse::<u64>().ok())
            {
                push("memory_mb", &(kb / 1024).to_string(), None);
            }
        } else if let Some(rest) = after("real memory") {
            // `real memory = 5368709120 (5120 MB)`
            if let Some(mb) = between(rest, "(", " MB)") {
                if mb.bytes().all(|b| b.is_ascii_digit()) {
                    push("memory_mb", mb, None);
                }
            }
        } else if text.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
            && mark & capitals.m != 0
            && finders::SMP.find(text.as_bytes()).is_some()
        {
            // `FreeBSD/SMP: Multiprocessor System Detected: 2 CPUs`
            if let Some(n) = between(text, "Detected: ", " CPUs") {
                if n.bytes().all(|b| b.is_ascii_digit()) {
                    push("cpus", n, None);
                }
            }
        } else if let Some(rest) = after("Running tests on: ") {
            // sql-bench: `Running tests on: Linux 2.4.0 i686`, `Windows NT
            // Version 4.0`: read as sql-bench reads its own header.
            let attrs = crate::sql_bench::machine_attrs(rest);
            let group = attrs
                .iter()
                .find(|(key, _)| *key == "os")
                .and_then(|(_, os)| os_group(os));
            if attrs.len() >= 2 {
                for (key, value) in &attrs {
                    push(key, value, if *key == "arch" { None } else { group });
                }
            }
        } else if let Some(rest) = after("Server version:") {
            server_version(rest, &mut push);
        } else if let Some(banner) = kernel_banner(text) {
            let group = os_group(banner.os);
            push("os", banner.os, group);
            push("os_version", banner.version, group);
            if let Some(config) = banner.kernel_config {
                push("kernel_config", config, group);
            }
            if let Some(arch) = banner.arch {
                push("arch", arch, None);
            }
        } else if let Some(i) = (mark & capitals.v != 0)
            .then(|| finders::VER.find(text.as_bytes()))
            .flatten()
        {
            // `mysqld  Ver 5.0.51a-24 for debian-linux-gnu on x86_64`
            let program = text[..i].trim();
            if program.ends_with("mysqld") || program.ends_with("mariadbd") {
                if let Some(version) = text[i + 5..].split_whitespace().next() {
                    push(
                        "db_server",
                        if version.contains("MariaDB") {
                            "MariaDB"
                        } else {
                            "MySQL"
                        },
                        None,
                    );
                    push(
                        "db_version",
                        version.split('-').next().unwrap_or(version),
                        None,
                    );
                }
            }
        } else if let Some((os, version, arch)) = os_in_prose(text, mark & capitals.bsd_linux != 0)
        {
            let group = os_group(os);
            push("os", os, group);
            push("os_version", version, group);
            if let Some(arch) = arch {
                push("arch", arch, None);
            }
        }
    }
    found
}

/// A line's text from its first visible character when a fact may start
/// there. Every fact starts with a letter (or a `(` of prose); most prose lines are rejected by
/// their first byte before any trimming or searching.
fn fact_start<'t>(line: &Line<'t>) -> Option<&'t str> {
    let text = trim_start(line.text);
    // A parenthesis opens prose too: `(single core 3.60GHz) using the
    // AMD64 build of FreeBSD`.
    text.as_bytes()
        .first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'(')
        .then_some(text)
}

/// The text (from [`fact_start`]) of line `index` with its mark, unless
/// it is too short or too long to state a fact or is a mailer header.
#[inline]
fn fact_text<'t>(text: &'t str, index: usize, capitals: &Capitals<'_>) -> Option<(&'t str, u32)> {
    // A line without a mark could hold any of the bytes.
    let mark = capitals.marks.get(index).copied().unwrap_or(u32::MAX);
    let headed = mark & capitals.colon_paren != 0;
    let text = trim_end(text);
    let fits = (6..=400).contains(&text.len()) && !(headed && is_mailer_header(text));
    fits.then_some((text, mark))
}

/// The thread library line `index` remarks on, if any.
fn remark(line: &Line<'_>, index: usize, capitals: &Capitals<'_>) -> Option<&'static str> {
    let (text, mark) = fact_text(fact_start(line)?, index, capitals)?;
    thread_lib_in_prose(text, mark & capitals.kse_nptl != 0)
}

fn remark_fact(index: usize, line: &Line<'_>, thread_lib: &'static str) -> Fact {
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
/// in its place that is no head summary ([`apply_facts`]). So the lines are read from the end, and in each place
/// a line is looked at for a remark only while a run after it still lacks
/// one: one line in 13 of a long thread remarks on a thread library, and
/// most of them are far from any run.
///
/// `starts`: each run's first line and its place (an index below
/// `places`), as `place_of` gives the places of lines.
fn remarks_before_runs(
    lines: &[Line<'_>],
    capitals: &Capitals<'_>,
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
                    if let Some(lib) = remark(line, index, capitals) {
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

/// Substring searchers built once: most lines are prose and must cost little.
mod finders {
    use std::sync::LazyLock;

    use memchr::memmem::Finder;

    pub static THR: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("thr"));
    pub static KSE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("KSE"));
    pub static NPTL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("NPTL"));
    pub static BSD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("BSD"));
    pub static LINUX: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("Linux"));
    pub static VER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" Ver "));
    pub static SMP: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new("Multiprocessor System Detected:"));
}

fn os_group(os: &str) -> Option<&'static str> {
    // Most words are no OS name: reject them by their first letter.
    if !os
        .as_bytes()
        .first()
        .is_some_and(|b| OS_INITIALS.contains(b))
    {
        return None;
    }
    OS_NAMES
        .iter()
        .find(|(name, _)| *name == os)
        .map(|&(_, group)| group)
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(&text[start..start + len])
}

/// `Server version: MySQL 3.23.32 log` (sql-bench) or `Server version:
/// 5.0.45-log Source distribution` (the mysql client).
fn server_version(rest: &str, push: &mut impl FnMut(&'static str, &str, Option<&'static str>)) {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let (server, version) = match words.as_slice() {
        [name, version, ..] if !name.starts_with(|c: char| c.is_ascii_digit()) => (*name, *version),
        [version, ..] => {
            let server = if rest.contains("MariaDB") {
                "MariaDB"
            } else {
                "MySQL"
            };
            (server, *version)
        }
        [] => return,
    };
    if version.starts_with(|c: char| c.is_ascii_digit()) {
        push("db_server", server, None);
        let version = version.split('-').next().unwrap_or(version);
        push("db_version", version, None);
    }
}

/// The kernel's own words about itself.
#[derive(Debug, PartialEq, Eq)]
struct KernelBanner<'a> {
    os: &'a str,
    version: &'a str,
    kernel_config: Option<&'a str>,
    arch: Option<&'a str>,
}

/// `FreeBSD 6.2-PRERELEASE #1: Thu Oct 19 02:57:52 EDT 2006` (dmesg),
/// `FreeBSD host 6.1-STABLE FreeBSD 6.1-STABLE #0: ... :/usr/obj/usr/src/sys/GENERIC  amd64`
/// and `Linux host 2.6.18-1 #1 SMP ... x86_64 GNU/Linux` (`uname -a`),
/// `Linux version 2.6.18 (root@host) (gcc ...) #1 SMP ...` (Linux dmesg).
/// Inlined with its first-byte test, which most of the lines facts read
/// fail; [`read_kernel_banner`] reads the rest.
#[inline]
fn kernel_banner(text: &str) -> Option<KernelBanner<'_>> {
    // Cheap first: almost no line starts with an OS name.
    let first = *text.as_bytes().first()?;
    if !matches!(first, b'F' | b'N' | b'O' | b'D' | b'L' | b'S') {
        return None;
    }
    read_kernel_banner(text)
}

fn read_kernel_banner(text: &str) -> Option<KernelBanner<'_>> {
    if !OS_NAMES.iter().any(|(name, _)| text.starts_with(name)) {
        return None;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let os = *words.first()?;
    os_group(os)?;
    let is_version = |w: &str| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.');
    match words.as_slice() {
        // Linux dmesg
        [_, "version", version, ..] if os == "Linux" && is_version(version) => Some(KernelBanner {
            os,
            version,
            kernel_config: None,
            arch: None,
        }),
        // BSD dmesg: `FreeBSD 6.2-PRERELEASE #1: ...`
        [_, version, build, ..] if is_version(version) && build.starts_with('#') => {
            Some(KernelBanner {
                os,
                version,
                kernel_config: None,
                arch: None,
            })
        }
        // uname -a
        [_, _host, version, rest @ ..]
            if is_version(version) && rest.iter().any(|w| w.starts_with('#')) =>
        {
            let last = rest.last().copied();
            let (kernel_config, arch) = if os == "Linux" {
                let arch = rest
                    .iter()
                    .rev()
                    .find(|w| !w.contains('/') && !w.is_empty())
                    .copied();
                (None, arch.filter(|a| is_arch(a)))
            } else {
                let config = rest
                    .iter()
                    .find_map(|w| w.rsplit_once("/sys/").map(|(_, c)| c))
                    .or_else(|| {
                        rest.iter()
                            .find_map(|w| w.rsplit_once("/compile/").map(|(_, c)| c))
                    });
                (config, last.filter(|a| is_arch(a)))
            };
            Some(KernelBanner {
                os,
                version,
                kernel_config,
                arch,
            })
        }
        _ => None,
    }
}

/// The architectures `uname -m` prints, as it spells them.
const ARCHES: [&str; 13] = [
    "i386", "i486", "i586", "i686", "amd64", "x86_64", "sparc64", "alpha", "ia64", "powerpc",
    "arm", "aarch64", "arm64",
];

/// An architecture named in prose, in the spelling `uname -m` prints:
/// `AMD64` is `amd64`.
fn arch_word(word: &str) -> Option<&'static str> {
    ARCHES
        .into_iter()
        .find(|arch| word.eq_ignore_ascii_case(arch))
}

fn is_arch(word: &str) -> bool {
    ARCHES.contains(&word)
}

/// `running FreeBSD 6.1-PRERELEASE (i386)`, `install of i386 FreeBSD
/// 6.1RC1`: an OS name followed by a version number; or an architecture
/// and an OS name without one (`the AMD64 build of FreeBSD`).
/// `may_name_os`: the line holds a `B` or an `L`.
/// Inlined with the test of the line's mark, which most lines fail;
/// [`read_os_in_prose`] reads the rest.
#[inline]
fn os_in_prose(text: &str, may_name_os: bool) -> Option<(&str, &str, Option<&str>)> {
    // Both names hold a capital few prose lines have.
    may_name_os.then(|| read_os_in_prose(text)).flatten()
}

fn read_os_in_prose(text: &str) -> Option<(&str, &str, Option<&str>)> {
    let b = text.as_bytes();
    // A version (below) holds a `.` with a digit after it: one byte
    // search rejects most prose naming a system (`FreeBSD results?`)
    // before the two substring searches.
    let digit_after_dot = |at: usize| b.get(at + 1).is_some_and(u8::is_ascii_digit);
    // Without a version only an architecture can be read (`the AMD64
    // build of FreeBSD`), and the common ones hold `86` or `64`.
    let may_name_arch = || [b"86", b"64"].iter().any(|n| b.windows(2).any(|w| w == *n));
    if !memchr::memchr_iter(b'.', b).any(digit_after_dot) && !may_name_arch() {
        return None;
    }
    if !(finders::BSD.find(b).is_some() || finders::LINUX.find(b).is_some()) {
        return None;
    }
    // Word by word, no list of them: the word before an OS name and the
    // two after it are all that is looked at.
    let mut previous: Option<&str> = None;
    // The three words before the OS name, for `<arch> build of <OS>`.
    let mut behind: [&str; 3] = [""; 3];
    let mut words = text.split_whitespace();
    while let Some(os) = words.next() {
        if os_group(os).is_none() {
            previous = Some(os);
            behind = [behind[1], behind[2], os];
            continue;
        }
        // Without a version, only `<arch> build of <OS>` names the system
        // run on: `which had AMD64 FreeBSD on before hand` is the past.
        let [arch, build, of] = behind;
        let arch_build = (matches!(
            build,
            "build" | "version" | "port" | "install" | "installation"
        ) && of == "of")
            .then(|| arch_word(arch))
            .flatten();
        let mut ahead = words.clone();
        let Some(version) = ahead.next() else {
            return arch_build.map(|arch| (os, "", Some(arch)));
        };
        let version = version.trim_end_matches([',', '.', ';', ':', ')']);
        let first_dot = version.find('.');
        let versionlike = version.starts_with(|c: char| c.is_ascii_digit())
            && first_dot
                .is_some_and(|d| version[d + 1..].starts_with(|c: char| c.is_ascii_digit()))
            && version.len() <= 24;
        if !versionlike {
            if arch_build.is_some() {
                return Some((os, "", arch_build));
            }
            previous = Some(os);
            behind = [behind[1], behind[2], os];
            continue;
        }
        let arch = ahead
            .next()
            .map(|w| w.trim_matches(['(', ')', ',', '.']))
            .and_then(arch_word)
            .or_else(|| previous.and_then(arch_word))
            .or(arch_build);
        return Some((os, version, arch));
    }
    None
}

/// Where the runs lie, as 0-based line indexes, ordered by first line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    depth: usize,
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
fn active_labels(lines: &[Line<'_>], runs: &[Run], asked: &[usize]) -> ActiveLabels {
    let mut spans: Vec<Span> = runs
        .iter()
        .map(|run| Span {
            start: run.lines[0].saturating_sub(1),
            end: run.lines[1].saturating_sub(1),
            depth: run.quote_depth,
        })
        .collect();
    spans.sort_unstable_by_key(|s| (s.start, s.depth));
    let mut next_span = 0;
    // covered[d]: the last line of the runs at depth d begun so far.
    let mut covered: Vec<Option<usize>> = Vec::new();
    let mut labels = Vec::new();
    let mut label_lines = Vec::new();
    // in_force[d]: index into `labels` of the banner in force at depth d.
    let mut in_force: Vec<Option<u32>> = Vec::new();
    let mut prose: Option<ProseLabel> = None;
    let mut asked = asked.iter().copied().peekable();
    let mut answers = Vec::with_capacity(asked.len());
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        while let Some(span) = spans.get(next_span).filter(|s| s.start <= i) {
            if covered.len() <= span.depth {
                covered.resize(span.depth + 1, None);
            }
            let end = &mut covered[span.depth];
            *end = Some(end.map_or(span.end, |e| e.max(span.end)));
            next_span += 1;
        }
        if !line.is_blank() {
            // Leaving a quoted block ends the labels inside it.
            in_force.truncate(line.depth + 1);
        }
        if in_force.len() <= line.depth {
            in_force.resize(line.depth + 1, None);
        }
        let opens_label = matches!(
            trim_start(line.text).as_bytes().first(),
            Some(b'=' | b'*' | b'#')
        );
        let found = if opens_label {
            section_label(lines, i)
        } else {
            None
        };
        if let Some(label) = found {
            in_force[line.depth] = u32::try_from(labels.len()).ok();
            labels.push(label.label);
            label_lines.push(i);
            prose = None;
            // The label's own lines are under no label.
            while let Some(at) = asked.next_if(|&at| at <= label.end) {
                answers.push((at, None));
            }
            i = label.end + 1;
            continue;
        }
        if !line.is_blank() {
            if prose.is_some_and(|p| p.depth != line.depth) {
                prose = None;
            }
            let covered_until = covered.get(line.depth).copied().flatten();
            if covered_until.is_some_and(|end| i <= end) {
                if let Some(p) = &mut prose {
                    p.attached = true;
                }
            } else {
                // Most lines are prose that cannot be a label: their last
                // byte, and the first bytes of the line below, tell.
                let run_below = spans.get(next_span).is_some_and(|s| s.start == i + 1)
                    && spans[next_span..]
                        .iter()
                        .take_while(|s| s.start == i + 1)
                        .any(|s| s.depth == line.depth);
                let rule_below = lines
                    .get(i + 1)
                    .is_some_and(|next| next.depth == line.depth && prose::is_rule(next.text));
                let below = (prose::last_char(line.text) == Some(':') || run_below || rule_below)
                    .then_some(prose::Below {
                        run: run_below,
                        rule: rule_below,
                    });
                let found = below
                    .filter(|_| {
                        let run_ended_above =
                            i.checked_sub(1).is_some_and(|p| covered_until == Some(p));
                        !run_ended_above && !continues_sentence(lines, i)
                    })
                    .filter(|_| !prose::is_command_line(line.text))
                    .and_then(|below| prose::label_of(line.text, below));
                if let Some(label) = found {
                    let index = u32::try_from(labels.len()).unwrap_or(u32::MAX);
                    labels.push(label);
                    label_lines.push(i);
                    prose = Some(ProseLabel {
                        label: index,
                        depth: line.depth,
                        attached: false,
                    });
                } else if prose.is_some() {
                    if prose::is_rule(line.text) {
                        // Under a heading it keeps the label waiting;
                        // between runs it parts them.
                        prose = prose.filter(|p| !p.attached);
                    } else if !prose::is_command_line(line.text) {
                        prose = None;
                    }
                }
            }
        }
        let attached = prose.filter(|p| p.attached && p.depth == line.depth);
        let label = attached.map(|p| p.label).or(in_force[line.depth]);
        while let Some(at) = asked.next_if(|&at| at <= i) {
            answers.push((at, label));
        }
        i += 1;
    }
    ActiveLabels {
        labels,
        label_lines,
        answers,
    }
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
struct ActiveLabels {
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
    fn with_line(&self, index: usize) -> Option<(&str, usize)> {
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
    fn os_initials_are_the_os_names_first_letters() {
        let mut initials: Vec<u8> = OS_NAMES
            .iter()
            .map(|(name, _)| name.as_bytes()[0])
            .collect();
        initials.sort_unstable();
        initials.dedup();
        let mut want = OS_INITIALS.to_vec();
        want.sort_unstable();
        assert_eq!(initials, want);
    }

    #[test]
    fn facts_not_taken_from_mailers_or_thread_libraries() {
        // The X-Mailer of a 2001 LKML mail names the sender's desktop.
        let lines = text::lines(
            "X-Mailer: Mozilla 4.74 [en] (X11; U; Linux 2.2.19 i686)\n\
             Running tests on: Windows NT Version 4.0\n",
        );
        let got: Vec<(&str, String)> = facts(&lines)
            .into_iter()
            .map(|f| (f.key, f.value.into_owned()))
            .collect();
        assert_eq!(
            got,
            [
                ("os", "Windows NT".to_string()),
                ("os_version", "4.0".to_string())
            ]
        );
        // NPTL against LinuxThreads: rows named after a thread library.
        assert_eq!(os_in_name("LinuxThreads"), None);
        assert_eq!(os_in_name("LINUXSMP"), Some("Linux"));
    }

    #[test]
    fn facts_from_dmesg_uname_and_servers() {
        let input = "FreeBSD 6.2-PRERELEASE #1: Thu Oct 19 02:57:52 EDT 2006\n\
            CPU: AMD Athlon(tm) 64 X2 Dual Core Processor 4200+ (2194.52-MHz K8-class CPU)\n\
            real memory = 5368709120 (5120 MB)\n\
            FreeBSD/SMP: Multiprocessor System Detected: 2 CPUs\n\
            > FreeBSD fw 6.1-STABLE FreeBSD 6.1-STABLE #0: Sun May 7 12:00:00 BST 2006 root@fw:/usr/obj/usr/src/sys/SMP  amd64\n\
            Linux db1 2.6.18-1.2798.fc6 #1 SMP Mon Oct 16 14:37:32 EDT 2006 x86_64 x86_64 x86_64 GNU/Linux\n\
            Running tests on: Linux 2.4.0 i686\n\
            Server version: MySQL 3.23.32 log\n\
            Server version: 5.0.45-log Source distribution\n\
            Dual 244, 2Gb running FreeBSD 6.1-PRERELEASE (i386)\n\
            mysqld  Ver 5.0.51a-24 for debian-linux-gnu on x86_64\n\
            I like FreeBSD a lot, Linux 2 much.\n\
            model name\t: Intel(R) Xeon(R)  CPU E5-2670 0 @ 2.60GHz\n\
            MemTotal:        8167848 kB\n";
        let lines = text::lines(input);
        let got: Vec<(usize, usize, &str, String)> = facts(&lines)
            .into_iter()
            .map(|f| (f.index, f.depth, f.key, f.value.into_owned()))
            .collect();
        let want: Vec<(usize, usize, &str, &str)> = vec![
            (0, 0, "os", "FreeBSD"),
            (0, 0, "os_version", "6.2-PRERELEASE"),
            (
                1,
                0,
                "cpu",
                "AMD Athlon(tm) 64 X2 Dual Core Processor 4200+",
            ),
            (2, 0, "memory_mb", "5120"),
            (3, 0, "cpus", "2"),
            (4, 1, "os", "FreeBSD"),
            (4, 1, "os_version", "6.1-STABLE"),
            (4, 1, "kernel_config", "SMP"),
            (4, 1, "arch", "amd64"),
            (5, 0, "os", "Linux"),
            (5, 0, "os_version", "2.6.18-1.2798.fc6"),
            (5, 0, "arch", "x86_64"),
            (6, 0, "os", "Linux"),
            (6, 0, "os_version", "2.4.0"),
            (6, 0, "arch", "i686"),
            (7, 0, "db_server", "MySQL"),
            (7, 0, "db_version", "3.23.32"),
            (8, 0, "db_server", "MySQL"),
            (8, 0, "db_version", "5.0.45"),
            (9, 0, "os", "FreeBSD"),
            (9, 0, "os_version", "6.1-PRERELEASE"),
            (9, 0, "arch", "i386"),
            (10, 0, "db_server", "MySQL"),
            (10, 0, "db_version", "5.0.51a"),
            (12, 0, "cpu", "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz"),
            (13, 0, "memory_mb", "7976"),
        ];
        let want: Vec<(usize, usize, &str, String)> = want
            .into_iter()
            .map(|(i, d, k, v)| (i, d, k, v.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_arch_build_of_an_os_in_prose() {
        let lines = text::lines(
            "(single core 3.60GHz) using the AMD64 build of FreeBSD and got similar\n\
             AMD64 FreeBSD on before hand) and run the exact same tests\n\
             Interestingly I just did a install of i386 FreeBSD 6.1RC1 and installed\n",
        );
        let got: Vec<(usize, &str, String)> = facts(&lines)
            .into_iter()
            .map(|f| (f.index, f.key, f.value.into_owned()))
            .collect();
        let want = [
            (0, "os", "FreeBSD"),
            (0, "arch", "amd64"),
            (2, "os", "FreeBSD"),
            (2, "os_version", "6.1RC1"),
            (2, "arch", "i386"),
        ];
        let want: Vec<(usize, &str, String)> = want
            .into_iter()
            .map(|(i, k, v)| (i, k, v.to_string()))
            .collect();
        assert_eq!(got, want);
    }

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
}
