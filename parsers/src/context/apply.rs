//! Applying the context to the runs: each run takes the label in force on
//! it and the attributes the label names, the author and message it was
//! found in, and the facts of its place; an announcement of a thread
//! library carries on under its author's own quote.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::facts::{facts_where, remarks_before_runs, Fact, FactClues};
use super::labels::{active_labels, label_attrs, line_index, ActiveLabels};
use super::outline::{Markup, Outline};
use super::spelling::os_in_name;
use crate::mail::Messages;
use crate::text::Line;
use crate::Run;

/// Gives each run its section label, the label's attributes, and the
/// author and message of the text it was found in.
///
/// The nearest heading above a run at its own quote depth names it: a
/// heading applies to the runs under it until the next heading of its
/// level or above, or until the quoted block it is in ends; the
/// [`labels`](super::labels) module states the rule whole. A label in
/// prose applies only to the run directly under it (and the runs right
/// after that one), at its own depth; the [`prose`](super::prose) module
/// states its rules.
///
/// The facts of the system a run takes are the nearest before it in its
/// message at its depth, else the nearest after it. A sentence naming one
/// thread library announces a change (`With this below in my
/// /etc/libmap.conf for libthr`, `And without libthr its even slower`):
/// it labels the runs after it in its place until the next announcement,
/// or until a label in force on a run starts after it. At the head of a
/// place, one with another paragraph of prose between it and the first run
/// sums the text up and labels none ([`is_head_summary`](super::facts)). An author going
/// on under his own quote goes on with its announcement
/// ([`carry_announcements`]).
///
/// `outlined` holds the markup of the text as given and its outline
/// ([`Outlined::read`]); `clues` says which facts each line may state.
/// With `two_threads` (a large input), the labels are read on a second
/// thread while this one reads the facts: neither needs the other.
pub(crate) fn apply(
    outlined: &Outlined<'_>,
    lines: &[Line<'_>],
    clues: &FactClues<'_>,
    messages: &Messages,
    runs: &mut [Run],
    two_threads: bool,
) {
    let Outlined { markup, outline } = outlined;
    let asked = asked_lines(lines, runs);
    let found: &[Run] = runs;
    let read_labels = || active_labels(lines, markup, outline, found, &asked);
    let places = Places::new(messages, found);
    let (labels, facts) = if two_threads {
        std::thread::scope(|scope| {
            let spawned = std::thread::Builder::new().spawn_scoped(scope, read_labels);
            let facts = facts_of_places(lines, clues, &places, found);
            let labels = match spawned {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => read_labels(),
            };
            (labels, facts)
        })
    } else {
        (read_labels(), facts_of_places(lines, clues, &places, found))
    };
    let facts_by_place = facts_by_place(&facts, messages);
    // The thread library each run took from an announcement, by run, for
    // the text its author goes on with under the quote (below).
    let mut announced: Vec<Option<&'static str>> = vec![None; runs.len()];
    for (r, run) in runs.iter_mut().enumerate() {
        let label_start = take_label(lines, run, &labels);
        let index = first_index(run);
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

/// What the labels are read from that owes nothing to the runs: the
/// input's markup and its outline, read while the tools find the runs
/// (on a thread of their own for a large input).
pub(crate) struct Outlined<'a> {
    markup: Markup<'a>,
    outline: Outline,
}

impl<'a> Outlined<'a> {
    /// Reads the markup of `input`, whose own lines are `raw`
    /// ([`crate::text::Source::raw_lines`]), and the outline of its
    /// `lines`.
    pub(crate) fn read(input: &'a str, raw: Vec<&'a str>, lines: &[Line<'_>]) -> Outlined<'a> {
        let markup = Markup::from_raw(input, raw);
        let outline = Outline::read(lines, &markup);
        Outlined { markup, outline }
    }
}

/// The index of a run's first line (`Run::lines` are 1-based): where its
/// message and place are looked up.
fn first_index(run: &Run) -> usize {
    run.lines[0].saturating_sub(1)
}

/// The line whose label a run without one of its own takes: where its
/// first value was printed (a heading between a run's command and its
/// report names the report, `## Results`, not the step before it).
fn label_line(lines: &[Line<'_>], run: &Run) -> usize {
    let first = run.results.iter().map(|r| r.line).min();
    line_index(lines, first.unwrap_or(run.lines[0]))
}

/// The lines whose labels the runs without one ask about, sorted, each
/// once.
fn asked_lines(lines: &[Line<'_>], runs: &[Run]) -> Vec<usize> {
    let mut asked: Vec<usize> = runs
        .iter()
        .filter(|run| run.label.is_none())
        .map(|run| label_line(lines, run))
        .collect();
    asked.sort_unstable();
    asked.dedup();
    asked
}

/// Gives a run the label in force on its [`label_line`], unless the tool's
/// own parser found one (a heading it knows), and the attributes its label
/// names. Returns the line the label in force starts on, which ends the
/// announcements made before it.
fn take_label(lines: &[Line<'_>], run: &mut Run, labels: &ActiveLabels) -> Option<usize> {
    let mut label_start = None;
    if run.label.is_none() {
        let line = label_line(lines, run);
        if let Some((label, start)) = labels.with_line(line) {
            run.label = Some(label.to_string());
            run.label_from = labels.sources(lines, line);
            label_start = Some(start);
        }
    }
    if let Some(label) = &run.label {
        for (key, value) in label_attrs(label) {
            run.attrs.entry(key).or_insert(value);
        }
        if run.threads.is_none() && run.tool == crate::Tool::Sysbench {
            run.threads = threads_in_label(label);
        }
    }
    label_start
}

/// The thread count a sysbench run's label gives when nothing else did
/// (`### 1. Test with 10 threads` over a report pasted without its
/// header): one `N threads` (or `N thread`) in it; none when it names
/// two different counts (`8 vs 16 threads`).
fn threads_in_label(label: &str) -> Option<u32> {
    let words: Vec<&str> = label.split_whitespace().collect();
    let number = |word: &str| word.trim_end_matches(',').parse::<u32>().ok();
    let mut found = None;
    for (at, pair) in words.windows(2).enumerate() {
        let unit = pair[1].trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        if !unit.eq_ignore_ascii_case("threads") && !unit.eq_ignore_ascii_case("thread") {
            continue;
        }
        let Some(count) = number(pair[0]) else {
            continue;
        };
        // `8 16 32 threads`, `8, 16 and 32 threads`: a list, not one count.
        let before = at.checked_sub(1).map(|b| words[b]);
        let listed = before.is_some_and(|word| {
            number(word).is_some() || word == "and" || word == "or" || word == "vs"
        });
        if count == 0 || listed || found.is_some_and(|seen| seen != count) {
            return None;
        }
        found = Some(count);
    }
    found
}

/// The places runs lie in, (message, quote depth): a fact is looked up
/// only from a run in its message at its depth, and the lines of other
/// places are not read for facts.
struct Places<'a> {
    messages: &'a Messages,
    /// (message, depth) of each run, sorted, each once.
    of_runs: Vec<(usize, usize)>,
    /// The place of a line is asked for every line: each message's first
    /// place in `of_runs`, if it has one, is looked up by index (a quoted
    /// thread changes place every few lines, and a binary search each time
    /// cost more than all else the facts do). As a `u32` with `u32::MAX`
    /// for none: one per message (a large input has hundreds of
    /// thousands), at a quarter of an `Option<usize>`'s size, so fewer
    /// fresh pages are touched. `of_runs` is at most one place per run,
    /// far below the sentinel.
    first_of_message: Vec<u32>,
}

impl<'a> Places<'a> {
    /// The places of `runs`.
    fn new(messages: &'a Messages, runs: &[Run]) -> Places<'a> {
        let mut of_runs: Vec<(usize, usize)> = runs
            .iter()
            .filter_map(|run| {
                let (m, _) = messages.at(first_index(run))?;
                Some((m, run.quote_depth))
            })
            .collect();
        of_runs.sort_unstable();
        of_runs.dedup();
        let mut first_of_message = vec![u32::MAX; messages.messages.len()];
        for (p, &(m, _)) in of_runs.iter().enumerate().rev() {
            if let (Some(first), Ok(p)) = (first_of_message.get_mut(m), u32::try_from(p)) {
                *first = p;
            }
        }
        Places {
            messages,
            of_runs,
            first_of_message,
        }
    }

    /// How many places there are; each is an index below it.
    fn len(&self) -> usize {
        self.of_runs.len()
    }

    /// The place of message `m` at `depth`, if a run lies there.
    fn at(&self, m: usize, depth: usize) -> Option<usize> {
        let first = *self.first_of_message.get(m)?;
        let first = usize::try_from(first).ok().filter(|_| first != u32::MAX)?;
        let of_message = self.of_runs.get(first..)?.iter();
        let mut of_message = of_message.take_while(|&&(other, _)| other == m);
        of_message.position(|&(_, d)| d == depth).map(|k| first + k)
    }

    /// The place of line `index` at `depth`, for a walk over the lines:
    /// the place of the line before is kept, since neighbouring lines
    /// nearly always share their message and depth.
    fn of_lines(&self) -> impl FnMut(usize, usize) -> Option<usize> + '_ {
        let mut last: Option<((usize, usize), Option<usize>)> = None;
        move |index: usize, depth: usize| {
            let (m, _) = self.messages.at(index)?;
            match last {
                Some((seen, place)) if seen == (m, depth) => place,
                _ => {
                    let place = self.at(m, depth);
                    last = Some(((m, depth), place));
                    place
                }
            }
        }
    }
}

/// The facts of the places runs lie in, in line order, a line's remark
/// after its other facts (as a run's nearest fact of each key is found by
/// binary search).
fn facts_of_places(
    lines: &[Line<'_>],
    clues: &FactClues<'_>,
    places: &Places<'_>,
    runs: &[Run],
) -> Vec<Fact> {
    if runs.is_empty() {
        return Vec::new();
    }
    let starts: Vec<(usize, Option<usize>)> = runs
        .iter()
        .map(|run| {
            let index = first_index(run);
            let place = places.messages.at(index);
            (
                index,
                place.and_then(|(m, _)| places.at(m, run.quote_depth)),
            )
        })
        .collect();
    let mut place_of = places.of_lines();
    let mut facts = facts_where(lines, clues, |index, depth| {
        place_of(index, depth).is_some()
    });
    facts.extend(remarks_before_runs(
        lines,
        clues,
        places.len(),
        starts,
        places.of_lines(),
    ));
    facts.sort_by_key(|fact| fact.index);
    facts
}

/// The facts by (message, depth), then key, each key's in line order, so
/// that a run finds the nearest fact of each key by binary search, however
/// many there are.
fn facts_by_place<'f>(
    facts: &'f [Fact],
    messages: &Messages,
) -> HashMap<(usize, usize), BTreeMap<&'f str, Vec<&'f Fact>>> {
    let mut by_place: HashMap<(usize, usize), BTreeMap<&str, Vec<&Fact>>> = HashMap::new();
    for fact in facts {
        if let Some((m, _)) = messages.at(fact.index) {
            let by_key = by_place.entry((m, fact.depth)).or_default();
            by_key.entry(fact.key).or_default().push(fact);
        }
    }
    by_place
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_gives_one_thread_count() {
        assert_eq!(threads_in_label("1. Test with 10 threads`"), Some(10));
        assert_eq!(threads_in_label("ULE, 8 threads"), Some(8));
        assert_eq!(threads_in_label("1 thread"), Some(1));
        assert_eq!(threads_in_label("8 vs 16 threads"), None);
        assert_eq!(threads_in_label("8 16 32 threads"), None);
        assert_eq!(threads_in_label("8, 16 and 32 threads"), None);
        assert_eq!(threads_in_label("2 Test with 16 threads"), Some(16));
        assert_eq!(threads_in_label("threads: many"), None);
        assert_eq!(threads_in_label("0 threads"), None);
        assert_eq!(threads_in_label("libthr"), None);
    }
    use crate::{mail, text, Measurement, Tool};

    /// A sysbench run on 1-based `lines`, its first value on `value_line`.
    fn run(lines: [usize; 2], depth: usize, value_line: Option<usize>) -> Run {
        let results = value_line
            .map(|line| vec![Measurement::new("oltp", "tps", 1.0, line)])
            .unwrap_or_default();
        Run::new(Tool::Sysbench, depth, lines, results)
    }

    #[test]
    fn a_run_asks_for_the_label_where_its_first_value_is() {
        let mut labelled = run([3, 9], 0, Some(7));
        labelled.label = Some("own".to_string());
        let runs = [
            run([3, 9], 0, Some(7)),
            run([3, 9], 0, None),
            run([1, 2], 0, Some(2)),
            run([20, 30], 1, Some(25)),
            labelled,
        ];
        let lines: Vec<usize> = runs.iter().map(|run| label_line(&[], run)).collect();
        // Indices: of a run's first value, else of its first line.
        assert_eq!(lines, [6, 2, 1, 24, 6]);
        // The runs with a label of their own ask nothing; each line once.
        assert_eq!(asked_lines(&[], &runs), [1, 2, 6, 24]);
    }

    #[test]
    fn a_run_takes_the_label_in_force_unless_it_has_its_own() {
        let lines = text::lines("== ULE + libthr ==\nrun\n");
        let mut plain = run([2, 2], 0, None);
        let mut own = run([2, 2], 0, None);
        own.label = Some("4BSD".to_string());
        let outline = Outline::read(&lines, &Markup::default());
        let labels = active_labels(
            &lines,
            &Markup::default(),
            &outline,
            &[plain.clone()],
            &[0, 1],
        );
        assert_eq!(take_label(&lines, &mut plain, &labels), Some(0));
        assert_eq!(plain.label.as_deref(), Some("ULE + libthr"));
        assert_eq!(
            plain.attrs.get("thread_lib").map(String::as_str),
            Some("libthr")
        );
        assert_eq!(take_label(&lines, &mut own, &labels), None);
        assert_eq!(own.label.as_deref(), Some("4BSD"));
        assert_eq!(own.attrs.get("scheduler").map(String::as_str), Some("4BSD"));
    }

    #[test]
    fn places_are_the_message_and_depth_runs_lie_at() {
        let lines = text::lines("top\nrun\n> quoted\n> run\n> run\nmore\n");
        let messages = mail::messages(&lines);
        let runs = [
            run([2, 2], 0, None),
            run([4, 4], 1, None),
            run([5, 5], 1, None),
        ];
        let places = Places::new(&messages, &runs);
        // Two runs at one place make one place.
        assert_eq!(places.len(), 2);
        let of = |index: usize| messages.at(index).map(|(m, _)| m).unwrap();
        let (top, quoted) = (places.at(of(0), 0), places.at(of(3), 1));
        assert!(top.is_some() && quoted.is_some() && top != quoted);
        assert_eq!(places.at(of(0), 2), None, "no run at depth 2");
        assert_eq!(places.at(messages.messages.len(), 0), None, "no message");
        // Walking the lines gives each line its place, as `at` does.
        let mut place_of = places.of_lines();
        let walked: Vec<Option<usize>> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| place_of(i, line.depth))
            .collect();
        let looked_up: Vec<Option<usize>> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| places.at(of(i), line.depth))
            .collect();
        assert_eq!(walked, looked_up);
        assert_eq!(walked[0], top);
        assert_eq!(walked[3], quoted);
    }

    #[test]
    fn facts_are_kept_by_place_and_key_in_line_order() {
        let lines = text::lines(
            "FreeBSD 6.2-PRERELEASE #1: Thu Oct 19 02:57:52 EDT 2006\n\
             real memory = 5368709120 (5120 MB)\n\
             run\n\
             FreeBSD 7.0-CURRENT #2: Fri Oct 20 02:57:52 EDT 2006\n\
             > real memory = 1073741824 (1024 MB)\n",
        );
        let messages = mail::messages(&lines);
        let bits = crate::text::MarkedBytes::new(&[crate::context::FACT_CLUE_BYTES]);
        let marks: Vec<u32> = lines
            .iter()
            .map(|line| bits.mark_of(line.text.as_bytes()))
            .collect();
        let clues = FactClues::new(&marks, &bits);
        let runs = [run([3, 3], 0, None)];
        let places = Places::new(&messages, &runs);
        let facts = facts_of_places(&lines, &clues, &places, &runs);
        // The quoted line lies in no place a run lies in: it is not read.
        let read: Vec<(usize, &str)> = facts.iter().map(|f| (f.index, f.key)).collect();
        assert_eq!(
            read,
            [
                (0, "os"),
                (0, "os_version"),
                (1, "memory_mb"),
                (3, "os"),
                (3, "os_version")
            ]
        );
        let by_place = facts_by_place(&facts, &messages);
        let m = messages.at(2).map(|(m, _)| m).unwrap();
        let versions: Vec<&str> = by_place[&(m, 0)]["os_version"]
            .iter()
            .map(|f| f.value.as_ref())
            .collect();
        assert_eq!(versions, ["6.2-PRERELEASE", "7.0-CURRENT"]);
        assert!(facts_of_places(&lines, &clues, &places, &[]).is_empty());
    }
}
