//! The review page's model: what [`super::show::read`] read, made into
//! the page ([`review_page`]) without the database; its template is
//! `submissions/show.html`.

use std::collections::HashMap;

use askama::Template;

use super::super::ready::{self, ReadyComparison};
use super::super::rights::ViewerRights;
use super::super::view::{
    edit_url, group_by_item, part_of_line, quote_view, thread_url, ItemValues, QuoteView,
};
use super::lines::{line_views, LabelTag, LineView};
use super::show::ShowParams;
use crate::limits::{PART_LINES, PART_ROWS, PART_RUN_BYTES};
use crate::store::{
    self, LabelBlock, LineWindow, RunEdit, RunField, StoredMessage, StoredQuote, StoredRun,
    StoredUnparsed, SubmissionCounts, SubmissionHead, SubmissionSummary,
};

#[derive(Template)]
#[template(path = "submissions/show.html")]
pub(super) struct SubmissionPage {
    title: String,
    submission: SubmissionHead,
    counts: SubmissionCounts,
    messages: Vec<MessageView>,
    runs: Vec<RunView>,
    lines: Vec<LineView>,
    unparsed: Vec<StoredUnparsed>,
    comparisons: Vec<ReadyComparison>,
    /// The "all runs of a message" forms: messages holding runs.
    scopes: Vec<ScopeView>,
    /// Other submissions of the same upload, when it had several inputs.
    uploaded: Vec<SubmissionSummary>,
    /// A notice after an edit.
    notice: Option<String>,
    /// Attribute names the "add" boxes suggest.
    known_attrs: &'static [&'static str],
    /// The mail this submission was read from: its thread and quotes.
    mail: SubmissionMail,
    /// Whether the viewer may change it, and the edit token to show once.
    rights: ViewerRights,
    /// Which part of a long text this page shows.
    part: Part,
    /// When the part's runs are more than one page lists: the number of
    /// the first run listed (None: the part's first), and of the first
    /// one left for the next page.
    runs_from: Option<usize>,
    more_runs: Option<usize>,
    /// The runs touching the part's lines, on this page or not.
    part_runs: usize,
    /// The run whose edit form the page opens (`edit=N`), 1-based.
    editing: Option<usize>,
    /// Where the archive keeps the text of a message stored with its
    /// header block only.
    archived: Option<store::ArchivedText>,
}

/// A long submission is shown a part at a time: [`PART_LINES`] lines of
/// its text, with the runs, messages and near misses that touch them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Part {
    /// 1-based.
    pub(super) number: usize,
    pub(super) count: usize,
    first_line: usize,
    last_line: usize,
}

impl Part {
    pub(super) fn of(number: usize, total_lines: usize) -> Part {
        let first_line = (number - 1) * PART_LINES + 1;
        Part {
            number,
            count: total_lines.div_ceil(PART_LINES).max(1),
            first_line,
            last_line: (first_line + PART_LINES - 1).min(total_lines.max(first_line)),
        }
    }

    pub(super) fn window(self) -> LineWindow {
        LineWindow {
            first: self.first_line,
            last: self.first_line + PART_LINES - 1,
            limit: PART_ROWS,
        }
    }
}

impl SubmissionPage {
    /// Roughly how much text rendering the page writes: its lines and
    /// values.
    pub(super) fn weight(&self) -> usize {
        let lines: usize = self.lines.iter().map(|line| line.text.len() + 64).sum();
        let values: usize = self
            .runs
            .iter()
            .flat_map(|run| &run.values)
            .map(|item| item.values.len() * 96)
            .sum();
        lines + values + self.unparsed.iter().map(|u| u.text.len()).sum::<usize>()
    }

    /// Whether the page shows the viewer's edit token, once.
    pub(super) fn shows_fresh_token(&self) -> bool {
        self.rights.fresh_token.is_some()
    }

    /// The row's "edit" link of run `number`: its form opened, or the
    /// form asking for the edit token.
    fn edit_link(&self, number: impl std::borrow::Borrow<usize>) -> String {
        edit_url(
            self.submission.id,
            self.part.number,
            self.runs_from,
            *number.borrow(),
            !self.rights.can_edit,
        )
    }

    /// Whether run `number`'s edit form is open: edited, or asked for.
    fn opens(&self, number: impl std::borrow::Borrow<usize>, edited: &bool) -> bool {
        *edited || self.editing == Some(*number.borrow())
    }

    /// The link to line `line` of the text: an anchor on this page, or on
    /// the part that shows it.
    fn at(&self, line: impl std::borrow::Borrow<usize>) -> String {
        let line = *line.borrow();
        let part = part_of_line(line);
        if part == self.part.number {
            format!("#L{line}")
        } else {
            format!("{}#L{line}", self.part_url(part))
        }
    }

    /// The page listing the rest of this part's runs, if some are left.
    fn more_runs_url(&self) -> Option<String> {
        let part = self.part_url(self.part.number);
        let join = if part.contains('?') { '&' } else { '?' };
        self.more_runs
            .map(|number| format!("{part}{join}runs={number}#runs"))
    }

    /// The link to a run a block of this part's text labelled: its row
    /// on this page when it touches this part's lines, else on the part
    /// showing its first line.
    fn run_at(&self, tag: &LabelTag) -> String {
        let window = self.part.window();
        if tag.lines[1] >= window.first && tag.lines[0] <= window.last {
            format!("#run-{}", tag.number)
        } else {
            let part = self.part_url(part_of_line(tag.lines[0]));
            format!("{part}#run-{}", tag.number)
        }
    }

    fn part_url(&self, part: impl std::borrow::Borrow<usize>) -> String {
        let part = *part.borrow();
        if part == 1 {
            format!("/submissions/{}", self.submission.id)
        } else {
            format!("/submissions/{}?part={part}", self.submission.id)
        }
    }
}

/// What [`super::show::read`] read for the review page: the part of the
/// text shown and the rows that touch it.
pub(super) struct ReviewRead {
    pub(super) submission: SubmissionHead,
    pub(super) rights: ViewerRights,
    /// Other submissions of the same upload, when it had several inputs.
    pub(super) uploaded: Vec<SubmissionSummary>,
    /// The part's lines, from its first.
    pub(super) lines: Vec<String>,
    pub(super) part: Part,
    pub(super) counts: SubmissionCounts,
    pub(super) messages: Vec<StoredMessage>,
    pub(super) runs: Vec<StoredRun>,
    pub(super) label_blocks: Vec<LabelBlock>,
    pub(super) unparsed: Vec<StoredUnparsed>,
    pub(super) edits: Vec<RunEdit>,
    /// Runs of each message (by its idx), of the whole submission.
    pub(super) runs_per_message: HashMap<usize, usize>,
    pub(super) thread_id: Option<String>,
    /// The runs the part's lines quote.
    pub(super) quotes: Vec<StoredQuote>,
    pub(super) archived: Option<store::ArchivedText>,
}

/// The mail side of a submission page: its thread, and the runs it quotes.
pub(super) struct SubmissionMail {
    pub(super) thread_url: Option<String>,
    pub(super) quotes: Vec<QuoteView>,
}

/// The review page of what was read: no database, no HTTP.
pub(super) fn review_page(read: ReviewRead, params: &ShowParams) -> SubmissionPage {
    let ReviewRead {
        submission,
        rights,
        uploaded,
        lines,
        part,
        counts,
        messages,
        runs,
        label_blocks,
        unparsed,
        edits,
        runs_per_message,
        thread_id,
        quotes,
        archived,
    } = read;
    let lines = line_views(lines, part.first_line, &runs, &unparsed, &label_blocks);
    let title = submission
        .subject
        .clone()
        .or_else(|| submission.source_name.clone())
        .unwrap_or_else(|| format!("Submission {}", submission.id));
    let comparisons = ready::submission_comparisons(submission.id, &runs);
    let (run_views, more_runs) = run_views(&runs, &edits, &comparisons, params.runs);
    let messages = message_views(&messages, &runs_per_message);
    SubmissionPage {
        title,
        notice: notice(params, submission.id),
        submission,
        counts,
        scopes: scope_views(&messages),
        messages,
        runs: run_views,
        lines,
        unparsed,
        comparisons,
        uploaded,
        known_attrs: &parsers::contract::ATTRIBUTE_KEYS,
        mail: SubmissionMail {
            thread_url: thread_id.map(|id| thread_url(&id)),
            quotes: quotes.iter().map(quote_view).collect(),
        },
        rights,
        part,
        runs_from: params.runs,
        more_runs,
        archived,
        part_runs: runs.len(),
        editing: params.edit,
    }
}

/// The rows of the runs this page lists (from run number `from` on, see
/// [`runs_of_page`]), each with its edits; and the number of the first
/// run left for the next page.
fn run_views(
    runs: &[StoredRun],
    edits: &[RunEdit],
    comparisons: &[ReadyComparison],
    from: Option<usize>,
) -> (Vec<RunView>, Option<usize>) {
    let mut edits_by_run: HashMap<i64, Vec<&RunEdit>> = HashMap::new();
    for edit in edits {
        edits_by_run.entry(edit.run_id).or_default().push(edit);
    }
    let (listed, more_runs) = runs_of_page(runs, from.unwrap_or(1));
    let views = runs[listed]
        .iter()
        .map(|run| {
            let edits = edits_by_run.get(&run.id).map(Vec::as_slice).unwrap_or(&[]);
            run_view(run, edits, comparisons)
        })
        .collect();
    (views, more_runs)
}

/// The "all runs of a message" forms: the messages holding runs.
fn scope_views(messages: &[MessageView]) -> Vec<ScopeView> {
    messages
        .iter()
        .filter(|m| m.runs > 0)
        .map(|m| ScopeView {
            idx: m.number - 1,
            title: format!(
                "message {}{}{}",
                m.number,
                if m.author.is_empty() { "" } else { " by " },
                m.author
            ),
            runs: m.runs,
        })
        .collect()
}

/// What the page says after an upload, an edit or an undo.
fn notice(params: &ShowParams, submission_id: i64) -> Option<String> {
    match (params.saved, params.undone) {
        _ if params.already => Some(format!(
            "This text was already stored as submission {submission_id}: nothing new was stored."
        )),
        (_, true) => Some("Undone: the value the parser found is back.".to_owned()),
        (Some(0), _) => Some("Nothing changed: the values were already so.".to_owned()),
        (Some(1), _) => Some("Saved 1 change.".to_owned()),
        (Some(n), _) => Some(format!("Saved {n} changes.")),
        (None, false) => None,
    }
}

/// What a run's row and forms take besides its values and attributes.
const RUN_BYTES: usize = 2_048;

/// What one value takes in a run's row, besides its text.
const VALUE_BYTES: usize = 96;

/// What one attribute takes, besides its key and value, each written
/// three times (the row, the form's box and its name).
const ATTR_BYTES: usize = 96;

/// What one block a label came from takes in a run's row (its kind, lines
/// and link).
const LABEL_SOURCE_BYTES: usize = 96;

/// Roughly the HTML `run` takes on the page: what [`PART_RUN_BYTES`]
/// counts.
fn run_weight(run: &StoredRun) -> usize {
    let attrs: usize = run
        .attrs
        .iter()
        .map(|(key, value)| 3 * (key.len() + value.len()) + ATTR_BYTES)
        .sum();
    let values: usize = run
        .results
        .iter()
        .map(|r| r.item.len() + r.metric.len() + r.unit.len() + VALUE_BYTES)
        .sum();
    RUN_BYTES
        + attrs
        + values
        + run.label.as_ref().map_or(0, |l| 3 * l.len())
        + run.label_from.len() * LABEL_SOURCE_BYTES
}

/// The runs of a part one page lists: from run number `from` (1-based) on,
/// at least one, while they fit [`PART_RUN_BYTES`]; and the number of the
/// first one left over.
fn runs_of_page(runs: &[StoredRun], from: usize) -> (std::ops::Range<usize>, Option<usize>) {
    let start = runs
        .iter()
        .position(|run| run.idx + 1 >= from)
        .unwrap_or(runs.len());
    let mut spent = 0;
    let mut end = start;
    while end < runs.len() {
        spent += run_weight(&runs[end]);
        if spent > PART_RUN_BYTES && end > start {
            break;
        }
        end += 1;
    }
    (start..end, runs.get(end).map(|run| run.idx + 1))
}

struct MessageView {
    number: usize,
    author: String,
    email: String,
    date: String,
    subject: String,
    quote_depth: String,
    first_line: usize,
    last_line: usize,
    runs: usize,
}

struct ScopeView {
    /// messages.idx
    idx: usize,
    title: String,
    runs: usize,
}

struct RunView {
    /// The run's id, for its own page.
    id: i64,
    /// 1-based, as shown and as in the anchor `run-N`.
    number: usize,
    tool: String,
    test: String,
    label: String,
    /// What the parser had found, when the label was edited ("" for none).
    parsed_label: Option<String>,
    /// Where the parser's label came from, outermost first.
    label_from: Vec<LabelSourceView>,
    threads: String,
    author: String,
    quote_depth: usize,
    message: Option<usize>,
    first_line: usize,
    last_line: usize,
    attrs: Vec<AttrView>,
    edited: bool,
    /// Values grouped by item, in the order printed.
    values: Vec<ItemValues>,
    compare_url: Option<String>,
}

/// A block of the text a run's label came from, as its row says it:
/// "heading, lines 20–21".
struct LabelSourceView {
    kind: String,
    first_line: usize,
    last_line: usize,
}

struct AttrView {
    key: String,
    /// In force; empty when an edit removed it.
    value: String,
    /// What the parser had found, when edited ("" for nothing).
    parsed: Option<String>,
}
fn message_views(
    messages: &[StoredMessage],
    runs_per_message: &HashMap<usize, usize>,
) -> Vec<MessageView> {
    messages
        .iter()
        .map(|m| MessageView {
            number: m.idx + 1,
            author: m.author.clone().unwrap_or_default(),
            email: m.email.clone().unwrap_or_default(),
            date: m.date.clone().unwrap_or_default(),
            subject: m.subject.clone().unwrap_or_default(),
            quote_depth: m.quote_depth.map(|d| d.to_string()).unwrap_or_default(),
            first_line: m.lines[0],
            last_line: m.lines[1],
            runs: runs_per_message.get(&m.idx).copied().unwrap_or(0),
        })
        .collect()
}

/// A run and its edits as shown: linear in its attributes and edits (a
/// lookup per attribute, not a search).
fn run_view(run: &StoredRun, edits: &[&RunEdit], comparisons: &[ReadyComparison]) -> RunView {
    let mut parsed_label = None;
    let mut parsed_attrs: HashMap<&str, Option<String>> = HashMap::new();
    for edit in edits {
        match &edit.field {
            RunField::Label => parsed_label = Some(edit.parsed_value.clone().unwrap_or_default()),
            RunField::Attr(key) => {
                parsed_attrs.insert(key, edit.parsed_value.clone());
            }
        }
    }
    let mut attrs: Vec<AttrView> = run
        .attrs
        .iter()
        .map(|(key, value)| AttrView {
            key: key.clone(),
            value: value.clone(),
            parsed: parsed_attrs
                .get(key.as_str())
                .map(|parsed| parsed.clone().unwrap_or_default()),
        })
        .collect();
    // Attributes an edit removed: still shown, with what the parser found.
    for edit in edits {
        if let RunField::Attr(key) = &edit.field {
            if !run.attrs.contains_key(key) {
                attrs.push(AttrView {
                    key: key.clone(),
                    value: String::new(),
                    parsed: Some(edit.parsed_value.clone().unwrap_or_default()),
                });
            }
        }
    }
    // The run's link is its test's comparison of the first item it printed
    // (other than connect, when there is more).
    let item = run
        .results
        .iter()
        .find(|r| !parsers::contract::is_connect_item(&r.item))
        .or_else(|| run.results.first())
        .map(|r| r.item.as_str());
    let compare_url = comparisons
        .iter()
        .find(|c| c.tool == run.tool && c.test == run.test && c.item.as_deref() == item)
        .map(|c| c.url.clone());
    RunView {
        id: run.id,
        number: run.idx + 1,
        tool: run.tool.clone(),
        test: run.test.clone().unwrap_or_default(),
        label: run.label.clone().unwrap_or_default(),
        parsed_label,
        label_from: run
            .label_from
            .iter()
            .map(|source| LabelSourceView {
                kind: source.kind.clone(),
                first_line: source.lines[0],
                last_line: source.lines[1],
            })
            .collect(),
        threads: run.threads.map(|t| t.to_string()).unwrap_or_default(),
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
        message: run.message_idx.map(|m| m + 1),
        first_line: run.lines[0],
        last_line: run.lines[1],
        edited: !edits.is_empty(),
        attrs,
        values: group_by_item(run),
        compare_url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoredResult;

    fn run(id: i64, idx: usize, lines: [usize; 2], value_line: Option<usize>) -> StoredRun {
        StoredRun {
            id,
            idx,
            message_idx: Some(0),
            tool: "super-smack".to_owned(),
            test: Some("select-key".to_owned()),
            label: Some("ULE".to_owned()),
            threads: Some(4),
            quote_depth: 0,
            author: None,
            command: None,
            lines,
            attrs: [("scheduler".to_owned(), "ULE".to_owned())].into(),
            results: value_line
                .map(|line| StoredResult {
                    item: "select_index".to_owned(),
                    metric: "q_per_s".to_owned(),
                    value: 1234.5,
                    unit: "q/s".to_owned(),
                    line,
                    estimated: false,
                })
                .into_iter()
                .collect(),
            label_from: Vec::new(),
        }
    }

    /// A three-line paste of one message with two runs, the first's label
    /// edited, and a near miss on the last line.
    fn read() -> ReviewRead {
        ReviewRead {
            submission: SubmissionHead {
                id: 4,
                source_name: Some("paste.txt".to_owned()),
                author: None,
                date: None,
                subject: None,
                created_at: "2026-01-01 00:00:00".to_owned(),
            },
            rights: ViewerRights {
                can_edit: false,
                fresh_token: None,
            },
            uploaded: Vec::new(),
            lines: ["header", "select_index 1234.5", "query_barrel"]
                .map(str::to_owned)
                .to_vec(),
            part: Part::of(1, 3),
            counts: SubmissionCounts::default(),
            messages: vec![StoredMessage {
                idx: 0,
                author: Some("Ann".to_owned()),
                email: None,
                date: None,
                subject: None,
                quote_depth: Some(0),
                lines: [1, 3],
            }],
            runs: vec![run(31, 0, [1, 2], Some(2)), run(32, 1, [2, 3], None)],
            label_blocks: Vec::new(),
            unparsed: vec![StoredUnparsed {
                line: 3,
                text: "query_barrel".to_owned(),
                why: "no numbers".to_owned(),
            }],
            edits: vec![RunEdit {
                run_id: 31,
                field: RunField::Label,
                parsed_value: Some("libthr".to_owned()),
                edited_at: String::new(),
            }],
            runs_per_message: [(0, 2)].into(),
            thread_id: None,
            quotes: Vec::new(),
            archived: None,
        }
    }

    #[test]
    fn the_review_page_marks_its_lines_and_runs() {
        let page = review_page(read(), &ShowParams::default());
        assert_eq!(page.title, "paste.txt");
        assert_eq!(page.notice, None);
        let runs: Vec<(usize, bool, Option<&str>)> = page
            .runs
            .iter()
            .map(|r| (r.number, r.edited, r.parsed_label.as_deref()))
            .collect();
        assert_eq!(runs, [(1, true, Some("libthr")), (2, false, None)]);
        assert_eq!(page.runs[0].values[0].item, "select_index");
        assert_eq!((page.part_runs, page.more_runs), (2, None));
        let lines: Vec<(usize, &str, &[usize], Option<usize>)> = page
            .lines
            .iter()
            .map(|l| (l.number, l.class, l.runs.as_slice(), l.miss))
            .collect();
        // Line 2 gave run 1 a value: it is run 1's alone, though run 2
        // spans it.
        assert_eq!(
            lines,
            [
                (1, "run", &[1][..], None),
                (2, "value", &[1][..], None),
                (3, "miss", &[2][..], Some(1)),
            ]
        );
        assert_eq!(page.scopes.len(), 1);
        assert_eq!(
            (page.scopes[0].title.as_str(), page.scopes[0].runs),
            ("message 1 by Ann", 2)
        );
        assert_eq!(page.mail.thread_url, None);
        // Without the edit token, a run's edit link asks for it.
        assert_eq!(page.edit_link(2), "/submissions/4?edit=2#review");
        assert_eq!(page.at(2), "#L2");
        assert_eq!(
            page.at(PART_LINES + 1),
            format!("/submissions/4?part=2#L{}", PART_LINES + 1)
        );
    }

    #[test]
    fn the_notice_says_what_the_last_request_did() {
        let saved = |saved, undone, already| {
            let params = ShowParams {
                saved,
                undone,
                already,
                ..ShowParams::default()
            };
            review_page(read(), &params).notice
        };
        assert_eq!(
            saved(Some(2), false, false).as_deref(),
            Some("Saved 2 changes.")
        );
        assert_eq!(
            saved(Some(1), false, false).as_deref(),
            Some("Saved 1 change.")
        );
        assert_eq!(
            saved(Some(0), false, false).as_deref(),
            Some("Nothing changed: the values were already so.")
        );
        assert_eq!(
            saved(Some(3), true, false).as_deref(),
            Some("Undone: the value the parser found is back.")
        );
        assert_eq!(
            saved(None, true, true).as_deref(),
            Some("This text was already stored as submission 4: nothing new was stored.")
        );
    }
}
