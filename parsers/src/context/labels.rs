//! Section labels: banners such as `== ULE + libthr + TSC ==`, markdown
//! headings and labels in prose ([`prose`]), the attributes a label names,
//! and which label is in force on a line.
//!
//! # The rule: labels from structure
//!
//! **The nearest heading above a report, at the report's own quote depth,
//! names it.** Line by line:
//!
//! 1. *Headings and their levels.* A heading is a markdown `##` to
//!    `######` line (levels 2-6); a single `#` (level 1) only standing
//!    alone between blank lines and naming no command, as `#` is also a
//!    root prompt and a shell comment; an AsciiDoc title `== test.86`,
//!    `=== myisam` (its count of `=`) alone between blank lines; an HTML
//!    `<h1>`-`<h6>` line (its digit). Below every level sit a mail's
//!    banner closed by its marks (`== ULE + libthr + TSC ==`,
//!    `** update test **`) and a line bold as a whole (`**Laptop**`,
//!    `__Laptop__`, `<b>`, `<strong>`, a `:` after it allowed). Marks
//!    that undoing markup took off the line are read from the input as
//!    written ([`Markup`]).
//! 2. *Scope.* A heading applies from its line down, at its depth, to
//!    every report under it — several reports share it — until the next
//!    heading of its level or above: a heading further up stops applying
//!    there, and a deeper heading under it takes its place only until
//!    then. A quoted block ending ends the headings inside it.
//! 3. *Repeated headings.* Where the same heading text names sections
//!    under several others (`### CPU` under each machine's `##`), the
//!    heading above it is put in front, joined by ` / `
//!    (`AMD 7900 台式机 / CPU`); a heading met once keeps its own text.
//! 4. *Nearer than a heading: labels in prose*, by the rules of
//!    [`prose`]: a colon lead-in (`host:`, `- MSI Ghost:`), an underlined
//!    line, a lone phrase or list item (`* Developer 1`) right above a
//!    report, and the first line of a `<pre>` block or code fence with a
//!    report starting after it (its caption). Such a label names the run
//!    it attaches to and those right after it — within the block, for a
//!    caption — then the heading in force applies again.
//! 5. A report takes the label in force where its first value is printed
//!    (a heading between its command and its output names it); a label's
//!    own lines and a tool's own headers are never labels, nor is the
//!    mysql client's `*** 1. row ***`.
//! 6. *A run read from far above its report* (a script's `sysbench ...
//!    run` line, an install step's `sysbench --version`, a list item
//!    naming the command): its report begins at the last command line or
//!    block opening before its first value ([`report_start`]), and the
//!    lines above that inside the run are read for labels as prose is:
//!    the lead-in, list item or caption nearest the report names it.
//!    A list item is a lead-in (`- graviton2` over a fenced report), and
//!    the line right above a block whose report starts at its top is its
//!    caption too.

use std::collections::BTreeMap;

use super::outline::{Markup, Outline, SectionLabel};
use super::prose;
use crate::text::Line;
use crate::{LabelKind, LabelSource, Run};

mod attrs;
mod stated;
use stated::{may_lead_in, prose_label_at, CAPTION_GAP};

pub(super) use attrs::label_attrs;

/// What joins the headings in force into one label, outermost first
/// (`MacBook Pro 2019 13 英寸 / CPU`).
const PATH_JOIN: &str = " / ";

/// Where the runs lie, as 0-based line indexes, ordered by first line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    depth: usize,
    /// Where its report begins for the labels around it ([`report_start`]).
    report: usize,
}

/// The runs met so far on a walk down the lines: the rest of them in line
/// order, and how far down the ones begun reach at each depth.
struct RunsBegun {
    spans: Vec<Span>,
    /// Index into `spans` of the first run not begun yet.
    next: usize,
    /// covered[d]: the last line of the runs at depth d begun so far.
    covered: Vec<Option<usize>>,
    /// reports[d]: where the report of the last run begun at depth d
    /// begins.
    reports: Vec<Option<usize>>,
    /// Every line a report may begin on, at any depth (each run's first
    /// line and its [`report_start`]), sorted, each once: the only lines
    /// [`RunsBegun::report_at`] can answer yes for.
    report_lines: Vec<usize>,
    /// How many of `report_lines` lie on or above the line begun to.
    reports_passed: usize,
}

impl RunsBegun {
    /// The runs' spans, none begun, each report starting on its first line.
    #[cfg(test)]
    fn new(runs: &[Run]) -> RunsBegun {
        RunsBegun::with_reports(&[], &Markup::default(), runs)
    }

    /// The runs' spans, none begun, with where each one's report begins
    /// in `lines` ([`report_start`]).
    fn with_reports(lines: &[Line<'_>], markup: &Markup<'_>, runs: &[Run]) -> RunsBegun {
        let mut spans: Vec<Span> = runs
            .iter()
            .map(|run| {
                let start = line_index(lines, run.lines[0]);
                Span {
                    start,
                    end: line_index(lines, run.lines[1]),
                    depth: run.quote_depth,
                    report: report_start(lines, markup, run).max(start),
                }
            })
            .collect();
        spans.sort_unstable_by_key(|s| (s.start, s.depth));
        let mut report_lines: Vec<usize> = spans.iter().flat_map(|s| [s.start, s.report]).collect();
        report_lines.sort_unstable();
        report_lines.dedup();
        RunsBegun {
            spans,
            next: 0,
            covered: Vec::new(),
            reports: Vec::new(),
            report_lines,
            reports_passed: 0,
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
            if self.reports.len() <= span.depth {
                self.reports.resize(span.depth + 1, None);
            }
            let report = &mut self.reports[span.depth];
            *report = Some(report.map_or(span.report, |r| r.max(span.report)));
            self.next += 1;
        }
        while self
            .report_lines
            .get(self.reports_passed)
            .is_some_and(|&r| r <= i)
        {
            self.reports_passed += 1;
        }
    }

    /// The first line from `first` on a report may begin on, at any depth.
    /// `first` lies below the line begun to.
    fn next_report_line(&self, first: usize) -> Option<usize> {
        self.report_lines[self.reports_passed..]
            .iter()
            .find(|&&r| r >= first)
            .copied()
    }

    /// The first line of the next run not begun yet.
    fn next_start(&self) -> Option<usize> {
        self.spans.get(self.next).map(|s| s.start)
    }

    /// Whether a report, at any depth, may begin on a line from `first`
    /// to `last`, both below the line begun to: a cheap bound on
    /// [`RunsBegun::report_at`] over those lines.
    fn report_may_begin(&self, first: usize, last: usize) -> bool {
        self.next_report_line(first).is_some_and(|r| r <= last)
    }

    /// Whether line `i` lies in a run begun at `depth` above the line its
    /// report begins on (the script or install step it was read from).
    fn before_report(&self, i: usize, depth: usize) -> bool {
        self.reports
            .get(depth)
            .copied()
            .flatten()
            .is_some_and(|report| i < report)
    }

    /// Whether the report of a run at `depth` begins on line `i`: the first
    /// line of a run not begun yet, or the report start of one begun
    /// above it.
    fn report_at(&self, i: usize, depth: usize) -> bool {
        self.starts_at(i, depth) || self.reports.get(depth).copied().flatten() == Some(i)
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

/// The index in `lines` of the 1-based input line `number`: the line
/// holding it, where undoing quoted-printable soft breaks joined several
/// input lines into one (no line at all: the number less one, as for the
/// runs of a unit test).
pub(super) fn line_index(lines: &[Line<'_>], number: usize) -> usize {
    if lines.is_empty() {
        return number.saturating_sub(1);
    }
    lines
        .partition_point(|line| line.number <= number)
        .saturating_sub(1)
}

/// Where a run's report begins, for the labels around it: the last command
/// line (`[root@db ~]# bash sysbench.sh -r`) or block opening (`<pre>`, a
/// code fence) between its first line and its first value, else its first
/// line. A run read from a command far above its report (a line of a
/// script, an install step's `sysbench --version`, a list item naming the
/// command) holds the author's lead-in or caption for the report
/// (`压力测试:`, `- graviton2`, `<pre>NUC-i7`) between the two: a label
/// there names the run ([`follow_prose`]).
fn report_start(lines: &[Line<'_>], markup: &Markup<'_>, run: &Run) -> usize {
    let start = line_index(lines, run.lines[0]);
    let first_value = run
        .results
        .iter()
        .map(|r| line_index(lines, r.line))
        .min()
        .unwrap_or(start)
        .min(lines.len());
    (start + 1..first_value)
        .rev()
        .find(|&j| {
            let line = &lines[j];
            line.depth == run.quote_depth
                && if line.is_blank() {
                    markup.opens_block(line)
                } else {
                    prose::is_command_line(line.text)
                }
        })
        .unwrap_or(start)
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
pub(super) fn active_labels(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    outline: &Outline,
    runs: &[Run],
    asked: &[usize],
) -> ActiveLabels {
    let mut headings_ahead = outline.headings().iter().peekable();
    let mut runs = RunsBegun::with_reports(lines, markup, runs);
    let mut found = ActiveLabels {
        labels: Vec::new(),
        blocks: Vec::new(),
        answers: Vec::with_capacity(asked.len()),
    };
    // in_force[d]: the headings in force at depth d, outermost first, as
    // (level, index into `labels` of the path they make down to it).
    let mut in_force: Vec<Vec<(u8, u32)>> = Vec::new();
    // Each heading met, with the one it is under (see qualify_repeated).
    let mut headings: Vec<(u32, Option<u32>)> = Vec::new();
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
            in_force.resize(line.depth + 1, Vec::new());
        }
        if let Some((_, label)) = headings_ahead.next_if(|&&(start, _)| start == i) {
            enter_heading(
                &mut in_force[line.depth],
                label,
                i,
                &mut found,
                &mut headings,
            );
            prose = None;
            // The label's own lines are under no label.
            while let Some(at) = asked.next_if(|&at| at <= label.end) {
                found.answers.push((at, None));
            }
            i = label.end + 1;
            continue;
        }
        let inside_run = runs.covered_until(line.depth).is_some_and(|end| i <= end);
        if line.is_blank() && !inside_run && markup.bounds_block(line) {
            // A block's caption names the runs in that block only: the
            // block ending between runs ends it.
            prose = prose.filter(|p| !(p.attached && p.depth == line.depth));
        }
        if !line.is_blank() {
            let known = found.labels.len();
            prose = follow_prose(lines, markup, i, &runs, prose, &mut found);
            if found.labels.len() > known {
                // A label in prose sits under the heading in force, as a
                // deeper heading would: the same caption under several
                // headings is told apart by them (qualify_repeated).
                let outer = in_force[line.depth].last().map(|&(_, outer)| outer);
                headings.push((u32::try_from(known).unwrap_or(u32::MAX), outer));
            }
        }
        let attached = prose.filter(|p| p.attached && p.depth == line.depth);
        let in_force_here = in_force[line.depth].last().map(|&(_, index)| index);
        let label = attached.map(|p| p.label).or(in_force_here);
        while let Some(at) = asked.next_if(|&at| at <= i) {
            found.answers.push((at, label));
        }
        // The next heading, run or line asked about must be read in full.
        let stop = [
            headings_ahead.peek().map(|&&(start, _)| start),
            asked.peek().copied(),
            runs.next_start(),
        ]
        .into_iter()
        .flatten()
        .fold(lines.len(), usize::min);
        let depth = in_force.len() - 1;
        i = next_to_read(lines, i + 1, stop, depth, prose, &runs);
    }
    for (index, outer) in qualify_repeated(&mut found.labels, &headings) {
        if let Some(block) = found.blocks.get_mut(index as usize) {
            block.qualified_by = Some(outer);
        }
    }
    found
}

/// Puts the heading `label`, at line `i`, in force on `stack` (the
/// headings in force at its depth, as [`active_labels`] keeps them): it
/// closes the ones of its level and below it. An empty heading (`####`,
/// a title naming nothing) only ends the ones it closes: the heading
/// above it is in force again.
fn enter_heading(
    stack: &mut Vec<(u8, u32)>,
    label: &SectionLabel,
    i: usize,
    found: &mut ActiveLabels,
    headings: &mut Vec<(u32, Option<u32>)>,
) {
    while stack.last().is_some_and(|&(level, _)| level >= label.level) {
        stack.pop();
    }
    if label.label.is_empty() {
        return;
    }
    let index = u32::try_from(found.labels.len()).unwrap_or(u32::MAX);
    headings.push((index, stack.last().map(|&(_, outer)| outer)));
    stack.push((label.level, index));
    found.labels.push(label.label.clone());
    found.blocks.push(LabelBlock {
        start: i,
        end: label.end,
        kind: label.kind(),
        qualified_by: None,
    });
}

/// The first line from `i` on that [`active_labels`] must read, before
/// `stop`: the lines it passes over change nothing the walk keeps. With
/// the headings last in force at `depth` and no label in prose waiting
/// (none, or one attached to a run at `depth`), these are:
/// - a blank line at `depth` or above it (a quote less deep) inside a
///   run at `depth`, or anywhere with no label in prose;
/// - a line at `depth` inside a run begun, on or below the line its
///   report begins on;
/// - with no label in prose, a line at `depth` outside the runs that
///   cannot state a label: no lead-in's or list item's byte
///   ([`may_lead_in`]), no rule under it, and no report beginning within
///   [`CAPTION_GAP`] + 2 lines under it ([`may_state_label`]).
///
/// Most lines of prose and of a report are such lines: a few bytes each
/// tell.
fn next_to_read(
    lines: &[Line<'_>],
    mut i: usize,
    stop: usize,
    depth: usize,
    prose: Option<ProseLabel>,
    runs: &RunsBegun,
) -> usize {
    let no_prose = match prose {
        None => true,
        Some(p) if p.attached && p.depth == depth => false,
        Some(_) => return i,
    };
    let covered = runs.covered_until(depth);
    let report = runs.reports.get(depth).copied().flatten().unwrap_or(0);
    // Past this line a report may begin close enough under a line for
    // it to be the report's caption.
    let far_from_reports = runs
        .next_report_line(i)
        .map_or(usize::MAX, |r| r.saturating_sub(2 + CAPTION_GAP));
    while i < stop {
        let line = &lines[i];
        let inside_run = covered.is_some_and(|end| i <= end);
        let quiet = if line.is_blank() {
            line.depth < depth || (line.depth == depth && (no_prose || inside_run))
        } else if line.depth != depth {
            false
        } else if inside_run {
            i >= report
        } else {
            no_prose
                && i < far_from_reports
                && !may_lead_in(line.text)
                && !lines
                    .get(i + 1)
                    .is_some_and(|below| below.depth == depth && prose::is_rule(below.text))
        };
        if !quiet {
            break;
        }
        i += 1;
    }
    i
}

/// Puts the heading above in front of a heading whose text names several
/// sections of the post (`## MacBook Pro 2019 13 英寸`, `### CPU`, ...,
/// `## AMD 7900 台式机`, `### CPU`): the nearest heading names a report,
/// but only the one above tells those apart (`AMD 7900 台式机 / CPU`). A
/// heading met once keeps its own text (`Disk Information`, not the page
/// title above it). `headings`: (index into `labels`, index of the
/// heading above), in the order met, so an outer heading is qualified
/// before the ones under it.
/// Returns (label, the label put in front of it) for each one qualified.
fn qualify_repeated(labels: &mut [String], headings: &[(u32, Option<u32>)]) -> Vec<(u32, u32)> {
    let mut qualified = Vec::new();
    let mut met: BTreeMap<&str, usize> = BTreeMap::new();
    for &(index, _) in headings {
        if let Some(text) = labels.get(index as usize) {
            *met.entry(text.as_str()).or_default() += 1;
        }
    }
    let repeated: Vec<bool> = headings
        .iter()
        .map(|&(index, _)| {
            labels.get(index as usize).is_some_and(|text| {
                !text.is_empty() && met.get(text.as_str()).is_some_and(|&n| n > 1)
            })
        })
        .collect();
    for (&(index, outer), repeated) in headings.iter().zip(repeated) {
        let Some(outer) = outer.filter(|_| repeated) else {
            continue;
        };
        if let Some(outer_text) = labels.get(outer as usize).cloned() {
            if let Some(label) = labels.get_mut(index as usize) {
                *label = format!("{outer_text}{PATH_JOIN}{label}");
                qualified.push((index, outer));
            }
        }
    }
    qualified
}

/// The prose label after line `i`, which is not blank and no banner: the
/// label it starts (added to `found`), the one a run inside it takes,
/// the one waiting under a heading, or none.
fn follow_prose(
    lines: &[Line<'_>],
    markup: &Markup<'_>,
    i: usize,
    runs: &RunsBegun,
    prose: Option<ProseLabel>,
    found: &mut ActiveLabels,
) -> Option<ProseLabel> {
    let line = &lines[i];
    if prose.is_some_and(|p| !p.attached && p.depth != line.depth && continues_command(lines, i)) {
        // `> --threads=4 \`: a shell's prompt for the rest of a command,
        // read as a quote, keeps the label waiting for the report.
        return prose;
    }
    let prose = prose.map(|p| enter_quote(lines, runs, found, p, i));
    let mut prose = prose.filter(|p| p.depth == line.depth);
    let covered_until = runs.covered_until(line.depth);
    if covered_until.is_some_and(|end| i <= end) {
        if runs.before_report(i, line.depth) {
            // Above the report of a run read from far above it: a lead-in
            // here waits for the report; other lines leave the label as
            // it is.
            if let Some(label) = prose_label_at(lines, markup, i, runs, None) {
                return Some(new_prose(found, lines, label, i));
            }
            return prose;
        }
        if let Some(p) = &mut prose {
            p.attached = true;
        }
        return prose;
    }
    if let Some(label) = prose_label_at(lines, markup, i, runs, covered_until) {
        return Some(new_prose(found, lines, label, i));
    }
    match prose {
        // Under a heading it keeps the label waiting; between runs it
        // parts them.
        Some(p) if prose::is_rule(line.text) => Some(p).filter(|p| !p.attached),
        Some(p) if prose::is_tool_progress(line.text) || prose::is_tool_header(line.text) => {
            Some(p).filter(|p| !p.attached)
        }
        Some(_) if !prose::is_command_line(line.text) => None,
        other => other,
    }
}

/// A label waiting at one depth goes into the quote that opens right
/// under it with a report (`Second run (without the patch)` over a quoted
/// table): the author's own line names what he quotes. Only blank lines,
/// at most [`CAPTION_GAP`], may stand between.
fn enter_quote(
    lines: &[Line<'_>],
    runs: &RunsBegun,
    found: &ActiveLabels,
    mut prose: ProseLabel,
    i: usize,
) -> ProseLabel {
    let depth = lines[i].depth;
    let Some(start) = found.blocks.get(prose.label as usize).map(|b| b.end) else {
        return prose;
    };
    let right_under =
        i > start && i - start <= CAPTION_GAP + 1 && lines[start + 1..i].iter().all(Line::is_blank);
    if !prose.attached && depth > prose.depth && right_under && runs.report_at(i, depth) {
        prose.depth = depth;
    }
    prose
}

/// Adds the prose `label` found on line `i` to `found`: a label waiting
/// for its run.
fn new_prose(found: &mut ActiveLabels, lines: &[Line<'_>], label: String, i: usize) -> ProseLabel {
    let index = u32::try_from(found.labels.len()).unwrap_or(u32::MAX);
    let line = &lines[i];
    let underlined = lines
        .get(i + 1)
        .is_some_and(|next| next.depth == line.depth && prose::is_rule(next.text));
    let kind = if underlined {
        LabelKind::Heading
    } else if prose::is_list_item(line.text) {
        LabelKind::ListItem
    } else if matches!(prose::last_char(line.text), Some(':' | '：')) {
        LabelKind::LeadIn
    } else {
        LabelKind::Caption
    };
    let depth = line.depth;
    found.labels.push(label);
    found.blocks.push(LabelBlock {
        start: i,
        end: i + usize::from(underlined),
        kind,
        qualified_by: None,
    });
    ProseLabel {
        label: index,
        depth,
        attached: false,
    }
}

/// Whether line `i` goes on with a command the line above it continued
/// with a trailing `\`.
fn continues_command(lines: &[Line<'_>], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|p| lines.get(p))
        .is_some_and(|above| above.text.trim_end().ends_with('\\'))
}

/// The section label in force on the lines asked about, without a copy
/// per line.
pub(super) struct ActiveLabels {
    labels: Vec<String>,
    /// Where each of `labels` stands in the outline.
    blocks: Vec<LabelBlock>,
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
        // A title that names nothing ends the sections above it only.
        if self.labels.get(label).is_none_or(String::is_empty) {
            return None;
        }
        Some((
            self.labels.get(label)?.as_str(),
            self.blocks.get(label)?.start,
        ))
    }

    /// The blocks the label of line `index` came from, outermost first, as
    /// 1-based lines of the input.
    pub(super) fn sources(&self, lines: &[Line<'_>], index: usize) -> Vec<LabelSource> {
        let Some(mut label) = self
            .answers
            .binary_search_by_key(&index, |&(line, _)| line)
            .ok()
            .and_then(|at| self.answers.get(at)?.1)
        else {
            return Vec::new();
        };
        let mut found = Vec::new();
        // Each qualifier was met before the label it qualifies: the chain
        // ends.
        while let Some(block) = self.blocks.get(label as usize) {
            let number = |i: usize| lines.get(i).map_or(i + 1, |line| line.number);
            found.push(LabelSource {
                kind: block.kind,
                lines: [number(block.start), number(block.end)],
            });
            match block.qualified_by {
                Some(outer) if outer < label => label = outer,
                _ => break,
            }
        }
        found.reverse();
        found
    }
}

/// Where a label stands in the outline (0-based line indexes).
#[derive(Debug, Clone, Copy)]
struct LabelBlock {
    start: usize,
    end: usize,
    kind: LabelKind,
    /// The label put in front of this one's text, where the same text
    /// names several sections ([`qualify_repeated`]).
    qualified_by: Option<u32>,
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
    fn a_label_names_the_kernel_it_starts_with() {
        let cases = [
            ("2.6.18, SATA", Some("2.6.18"), Some("SATA")),
            ("2.4.20 + some-driver", Some("2.4.20"), Some("some-driver")),
            ("2.4.6.pre3 before", Some("2.4.6.pre3"), Some("before")),
            ("Linux 2.6.23-rc1", Some("2.6.23-rc1"), None),
            ("5.4.0-42-generic", Some("5.4.0-42-generic"), None),
            ("MySQL 5.1.22", None, Some("MySQL 5.1.22")),
            ("sysbench 0.4.12", None, Some("sysbench 0.4.12")),
            ("2.6", None, Some("2.6")),
            ("7.2.1 release", None, Some("7.2.1 release")),
        ];
        for (label, kernel, variant) in cases {
            let attrs = label_attrs(label);
            assert_eq!(
                attrs.get("os_version").map(String::as_str),
                kernel,
                "{label}"
            );
            assert_eq!(attrs.get("variant").map(String::as_str), variant, "{label}");
        }
        assert_eq!(label_attrs("Linux 2.6.23-rc1")["os"], "Linux");
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
    fn labels_apply_at_their_depth_until_the_quote_ends() {
        let input = "== A ==\nrun1\n> run2\n> == B ==\n> run3\nrun4\n> run5\n== C ==\nrun6\n";
        let lines = text::lines(input);
        let every_line: Vec<usize> = (0..lines.len()).collect();
        let labels = active_labels(
            &lines,
            &Markup::default(),
            &Outline::read(&lines, &Markup::default()),
            &[],
            &every_line,
        );
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
            blocks: Vec::new(),
            answers: Vec::new(),
        };
        let waiting = follow_prose(&lines, &Markup::default(), 0, &runs, None, &mut found).unwrap();
        assert_eq!((waiting.label, waiting.attached), (0, false));
        assert_eq!(
            (
                found.labels.as_slice(),
                found
                    .blocks
                    .iter()
                    .map(|b| b.start)
                    .collect::<Vec<_>>()
                    .as_slice()
            ),
            (
                ["Before this change".to_string()].as_slice(),
                [0].as_slice()
            )
        );
        // A rule keeps a waiting label and parts an attached one from the
        // runs after it.
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            2,
            &runs,
            Some(waiting),
            &mut found
        )
        .is_some());
        let attached = ProseLabel {
            attached: true,
            ..waiting
        };
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            2,
            &runs,
            Some(attached),
            &mut found
        )
        .is_none());
        // Prose ends it; so does a line at another depth.
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            4,
            &runs,
            Some(waiting),
            &mut found
        )
        .is_none());
        let deeper = ProseLabel {
            depth: 1,
            ..waiting
        };
        assert!(follow_prose(
            &lines,
            &Markup::default(),
            3,
            &runs,
            Some(deeper),
            &mut found
        )
        .is_none());
        assert_eq!(found.labels.len(), 1);
    }
}
