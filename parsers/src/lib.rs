//! Pure parsers for database and disk benchmark output as people post it:
//! pasted into mails, quoted (`>`, `>>`), wrapped at 72 columns and mixed
//! with prose. Text goes in, a [`Document`] comes out; nothing here does I/O.
//!
//! That is the whole surface: [`parse`] and the types of its [`Document`],
//! [`contract`] for Contract 2's names (metrics with their units and
//! directions, attribute keys, the rules about names), and [`mbox`] to split
//! and decode mail archives into texts for [`parse`]. How each tool's output
//! is read stays inside.
//!
//! ```
//! let text = "super-smack -d mysql select-key.smack 10 10000\n\
//!             Query Barrel Report for client smacker1\n\
//!             connect: max=4ms min=1ms avg= 2ms from 10 clients\n\
//!             Query_type num_queries max_time min_time q_per_s\n\
//!             select_index 200000 0 0 22061.88\n";
//! let doc = parsers::parse(text);
//! assert_eq!(doc.runs.len(), 1);
//! assert_eq!(doc.runs[0].threads, Some(10));
//! assert_eq!(doc.runs[0].value("select_index", "q_per_s"), Some(22061.88));
//! ```

#![deny(missing_docs)]

use std::collections::hash_map::{Entry, HashMap};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod bonnie;
mod context;
pub mod contract;
mod diskinfo;
mod dispatch;
mod mail;
pub mod mbox;
mod number;
mod reader;
mod sql_bench;
mod super_smack;
mod sysbench;
mod text;

pub use contract::{metric_info, MetricInfo};

/// What every tool module's unit tests need: run one tool's reader on a text.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::dispatch::read_alone;
    use crate::reader::Reader;
    use crate::{text, Run, Unparsed};

    /// The runs and near misses one tool's reader finds in `input`.
    pub(crate) fn runs_of<R: Reader>(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        read_alone::<R>(&text::lines(input))
    }

    /// Each input is exactly one near miss, on line 1, whose `why` says `why`.
    pub(crate) fn assert_one_near_miss_each<R: Reader>(cases: &[(&str, &str)]) {
        for (i, (input, why)) in cases.iter().enumerate() {
            let (runs, unparsed) = read_alone::<R>(&text::lines(input));
            assert!(runs.is_empty(), "case {i}");
            assert_eq!(unparsed.len(), 1, "case {i}");
            assert_eq!(unparsed[0].line, 1, "case {i}");
            assert!(
                unparsed[0].why.contains(why),
                "case {i}: {}",
                unparsed[0].why
            );
        }
    }
}

/// Everything recognised in one input: its messages, the benchmark runs
/// found in them, and the blocks that looked like a report but were not one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The mails the input holds, in the order they appear.
    pub messages: Vec<Message>,
    /// The runs, ordered by their first line, each quoted copy kept once.
    pub runs: Vec<Run>,
    /// Near misses, ordered by line.
    pub unparsed: Vec<Unparsed>,
}

/// One mail (or one author's part of a quoted thread) inside the input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The sender's name, or the address when the name is missing.
    pub author: Option<String>,
    /// The address as written, with archive obfuscation (`user at host`) undone.
    pub email: Option<String>,
    /// The `Date:` header as written.
    pub date: Option<String>,
    /// The `Subject:` header.
    pub subject: Option<String>,
    /// The `Message-ID:` header, without its angle brackets.
    pub message_id: Option<String>,
    /// The `In-Reply-To:` header's message id.
    pub in_reply_to: Option<String>,
    /// 0 for the input's own message, 1 for a message quoted once, ...
    pub quote_depth: usize,
    /// 1-based first and last line of the input this message covers.
    pub lines: [usize; 2],
}

/// The benchmark tools benchlog reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Tool {
    /// super-smack's query barrel reports.
    #[serde(rename = "super-smack")]
    SuperSmack,
    /// sysbench, every generation from 0.4 on.
    #[serde(rename = "sysbench")]
    Sysbench,
    /// MySQL's sql-bench: run-all-tests summaries and single test logs.
    #[serde(rename = "sql-bench")]
    SqlBench,
    /// Bonnie and bonnie++ (tables and CSV lines).
    #[serde(rename = "bonnie")]
    Bonnie,
    /// FreeBSD's `diskinfo -t` / `-c` / `-i` / `-S`.
    #[serde(rename = "diskinfo")]
    Diskinfo,
}

impl Tool {
    /// Every tool, in the order the dashboard lists them.
    pub const ALL: [Tool; 5] = [
        Tool::SuperSmack,
        Tool::Sysbench,
        Tool::SqlBench,
        Tool::Bonnie,
        Tool::Diskinfo,
    ];

    /// The stable name used in JSON, URLs and the database.
    pub fn name(self) -> &'static str {
        match self {
            Tool::SuperSmack => "super-smack",
            Tool::Sysbench => "sysbench",
            Tool::SqlBench => "sql-bench",
            Tool::Bonnie => "bonnie",
            Tool::Diskinfo => "diskinfo",
        }
    }

    /// The tool of a stable name ([`Tool::name`]), if it is one.
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|tool| tool.name() == name)
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One execution of a benchmark tool and the numbers it printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The tool that printed the run.
    pub tool: Tool,
    /// The workload: the smack file's name, the sysbench test, ...
    pub test: Option<String>,
    /// The section label the run was printed under, as written.
    pub label: Option<String>,
    /// Where in the post's outline the label came from: the heading,
    /// banner, caption, list item or lead-in, outermost first (a caption
    /// met under several headings is told apart by the heading above it,
    /// `My Laptop / 2. CPU benchmark`). Empty when the tool's own output
    /// named the run or nothing did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_from: Vec<LabelSource>,
    /// Concurrency the tool was run with (super-smack clients, sysbench threads).
    pub threads: Option<u32>,
    /// Normalised attributes (Contract 2 keys: scheduler, thread_lib, ...).
    pub attrs: BTreeMap<String, String>,
    /// How deeply quoted the run's lines are: 0 for the input's own text.
    pub quote_depth: usize,
    /// Who wrote the run's lines: the message's author, or the one an
    /// attribution line names for quoted text.
    pub author: Option<String>,
    /// Index into [`Document::messages`] of the message holding the run.
    pub message: Option<usize>,
    /// The command line that started the run, as re-joined.
    pub command: Option<String>,
    /// 1-based first and last line of the input.
    pub lines: [usize; 2],
    /// The numbers, in the order the tool printed them.
    pub results: Vec<Measurement>,
}

impl Run {
    /// A run of `tool` found at `lines` with nothing known about it yet but
    /// its numbers; each tool fills in what its output says.
    pub fn new(
        tool: Tool,
        quote_depth: usize,
        lines: [usize; 2],
        results: Vec<Measurement>,
    ) -> Run {
        Run {
            tool,
            test: None,
            label: None,
            label_from: Vec::new(),
            threads: None,
            attrs: BTreeMap::new(),
            quote_depth,
            author: None,
            message: None,
            command: None,
            lines,
            results,
        }
    }

    /// The value of `metric` for `item`, if the run printed it.
    pub fn value(&self, item: &str, metric: &str) -> Option<f64> {
        self.results
            .iter()
            .find(|r| r.item == item && r.metric == metric)
            .map(|r| r.value)
    }
}

/// A block of the post's outline that names a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelSource {
    /// What kind of block it is.
    pub kind: LabelKind,
    /// 1-based first and last line of the input it spans.
    pub lines: [usize; 2],
}

/// The kinds of block a label comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabelKind {
    /// A titled section: markdown `#`, setext, reStructuredText, AsciiDoc,
    /// HTML `<h1>`-`<h6>`.
    #[serde(rename = "heading")]
    Heading,
    /// A mail's banner (`== ULE + libthr ==`) or a line bold as a whole.
    #[serde(rename = "banner")]
    Banner,
    /// A list item (`- graviton2`, `2.只读测试`) over the report.
    #[serde(rename = "list item")]
    ListItem,
    /// A line ending in a colon that leads into the report (`New disk:`).
    #[serde(rename = "lead-in")]
    LeadIn,
    /// A phrase of its own right above the report or opening its block
    /// (`2.4.20 + some-driver`, `<pre>NUC-i7`).
    #[serde(rename = "caption")]
    Caption,
}

impl LabelKind {
    /// The kind as Contract 1 spells it.
    pub fn name(self) -> &'static str {
        match self {
            LabelKind::Heading => "heading",
            LabelKind::Banner => "banner",
            LabelKind::ListItem => "list item",
            LabelKind::LeadIn => "lead-in",
            LabelKind::Caption => "caption",
        }
    }
}

/// One number a tool printed: `select_index` `q_per_s` = 28581.18 q/s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// What was measured (Contract 2): `select_index`, `total`, `t=10s`.
    pub item: String,
    /// The metric's Contract 2 name: `q_per_s`.
    pub metric: String,
    /// The value in [`Measurement::unit`].
    pub value: f64,
    /// The contract's unit of the metric ([`metric_info`]).
    pub unit: String,
    /// 1-based line of the input the value was read from.
    pub line: usize,
    /// The tool marked the value as estimated (sql-bench's `+`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Measurement {
    /// A value of `metric` in the unit the contract gives it, so that no
    /// tool can store a unit of its own. A metric the contract does not know
    /// gets no unit (`tests/contract.rs` keeps every parser from making one).
    pub fn new(item: &str, metric: &str, value: f64, line: usize) -> Measurement {
        Measurement {
            item: item.to_string(),
            metric: metric.to_string(),
            value,
            unit: metric_info(metric).map_or("", |m| m.unit).to_string(),
            line,
            estimated: false,
        }
    }
}

/// A block that looked like a report but could not be read as one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unparsed {
    /// 1-based line of the input where the block starts.
    pub line: usize,
    /// The block's first lines, as read.
    pub text: String,
    /// What was expected and not found, for the person who posted it.
    pub why: String,
}

/// Lines from which [`parse`] splits its work over two threads
/// ([`on_two_threads`]): below it (a mail, a paste: a few hundred lines)
/// a thread costs more than it saves. On the parse bench's 67 MB corpus
/// (1.5 million lines) the wall time went from about 350 to 295 ms with
/// the messages alone on the second thread.
const PARALLEL_LINES: usize = 100_000;

/// The tools whose reports the second thread reads for a large input
/// ([`on_two_threads`]): sysbench's, most of the reading on the parse
/// bench's corpus. With the messages they weigh about what the other
/// tools and the outline weigh on the first thread (on the first 8 MB of
/// that corpus, about 190 million instructions each).
const SECOND_THREAD_TOOLS: &[Tool] = &[Tool::Sysbench];

/// Parses one input (a paste, a file, an archive page) into a [`Document`].
/// Never panics; text that holds no report gives a document with no runs.
pub fn parse(input: &str) -> Document {
    parse_with(input, PARALLEL_LINES)
}

/// [`parse`], on two threads from `parallel_from` lines on.
fn parse_with(input: &str, parallel_from: usize) -> Document {
    let wanted = [
        dispatch::start_line_bytes().as_slice(),
        context::FACT_CLUE_BYTES,
    ]
    .concat();
    let mut source = text::Source::marked(input, &wanted);
    let bits = source.marked_bytes().clone();
    let raw = source.raw_lines();
    let (lines, marks) = source.marked_lines();
    let mut runs = Vec::new();
    let mut unparsed = Vec::new();
    let two_threads = lines.len() >= parallel_from;
    let (messages, outlined) = if two_threads {
        on_two_threads(input, raw, &lines, &marks, &bits, &mut runs, &mut unparsed)
    } else {
        let messages = mail::messages(&lines);
        let outlined = context::Outlined::read(input, raw, &lines);
        dispatch::find_runs(&lines, &marks, &bits, &mut runs, &mut unparsed);
        (messages, outlined)
    };
    let clues = context::FactClues::new(&marks, &bits);
    context::apply(&outlined, &lines, &clues, &messages, &mut runs, two_threads);
    runs.sort_by_key(|run| run.lines[0]);
    dedup_runs(&mut runs);
    unparsed.sort_by_key(|u| u.line);
    // Several lines read from one line of the input (an HTML table's
    // cells) may report the same block: once is enough.
    unparsed.dedup_by(|a, b| a.line == b.line && a.why == b.why);
    Document {
        messages: messages.messages,
        runs,
        unparsed,
    }
}

/// What the second thread does for a large input: the messages, which
/// owe nothing to the runs, and the reports of [`SECOND_THREAD_TOOLS`].
fn second_thread_work(
    lines: &[text::Line<'_>],
    marks: &[u32],
    bits: &text::MarkedBytes,
) -> (mail::Messages, dispatch::Found) {
    let messages = mail::messages(lines);
    let found = dispatch::find_runs_of(lines, marks, bits, |tool| {
        SECOND_THREAD_TOOLS.contains(&tool)
    });
    (messages, found)
}

/// Finds the messages and some tools' runs on a thread of its own while
/// this one finds the other tools' runs and reads the outline: none
/// needs another, and on a large input each half is about half of this
/// work. Should no thread be had, this one does both halves. The runs
/// and near misses are listed as one thread lists them.
fn on_two_threads<'a>(
    input: &'a str,
    raw: Vec<&'a str>,
    lines: &[text::Line<'_>],
    marks: &[u32],
    bits: &text::MarkedBytes,
    runs: &mut Vec<Run>,
    unparsed: &mut Vec<Unparsed>,
) -> (mail::Messages, context::Outlined<'a>) {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .spawn_scoped(scope, || second_thread_work(lines, marks, bits));
        let first = dispatch::find_runs_of(lines, marks, bits, |tool| {
            !SECOND_THREAD_TOOLS.contains(&tool)
        });
        let outlined = context::Outlined::read(input, raw, lines);
        let (messages, second) = match spawned {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => second_thread_work(lines, marks, bits),
        };
        first.merge(second).append_to(runs, unparsed);
        (messages, outlined)
    })
}

/// A run quoted again later in the same input is kept once: its first,
/// least-quoted occurrence, in the place of the first occurrence.
fn dedup_runs(runs: &mut Vec<Run>) {
    // The keys borrow the runs' names (a clone of every result's names
    // was most of this work); the runs move only once the keys are gone.
    let mut kept: Vec<usize> = Vec::with_capacity(runs.len());
    {
        let mut seen: HashMap<RunKey<'_>, usize> = HashMap::with_capacity(runs.len());
        for (i, run) in runs.iter().enumerate() {
            match seen.entry(RunKey::of(run)) {
                Entry::Occupied(at) => {
                    let slot = &mut kept[*at.get()];
                    if runs[*slot].quote_depth > run.quote_depth {
                        *slot = i;
                    }
                }
                Entry::Vacant(at) => {
                    at.insert(kept.len());
                    kept.push(i);
                }
            }
        }
    }
    let mut all: Vec<Option<Run>> = runs.drain(..).map(Some).collect();
    runs.extend(kept.into_iter().filter_map(|i| all.get_mut(i)?.take()));
}

/// What makes two runs the same run: the tool, the test, the threads and
/// every number with its name, bit for bit; for a run without numbers (a
/// `diskinfo -v` header alone) the attributes the tool itself printed,
/// so two disks' headers in one post stay two runs.
#[derive(PartialEq, Eq, Hash)]
struct RunKey<'r> {
    tool: Tool,
    test: Option<&'r str>,
    threads: Option<u32>,
    results: Vec<(&'r str, &'r str, u64)>,
    own_attrs: Vec<(&'r str, &'r str)>,
}

impl<'r> RunKey<'r> {
    fn of(run: &'r Run) -> RunKey<'r> {
        RunKey {
            tool: run.tool,
            test: run.test.as_deref(),
            threads: run.threads,
            results: run
                .results
                .iter()
                .map(|r| (r.item.as_str(), r.metric.as_str(), r.value.to_bits()))
                .collect(),
            own_attrs: if run.results.is_empty() {
                let own = run.tool.own_attribute_keys();
                run.attrs
                    .iter()
                    .filter(|(k, _)| own.contains(&k.as_str()))
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect()
            } else {
                Vec::new()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fixture, one after the other: a large input of every kind.
    fn all_fixtures() -> String {
        testkit::fixture_files::fixture_texts()
            .iter()
            .map(|path| std::fs::read_to_string(path).unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every line's mark has 32 bits: the marked bytes (markup's, `=`, a
    /// prompt's, the readers' start line bytes and the fact clue bytes)
    /// must fit, each with a bit of its own, or a sixth tool's start line
    /// bytes would silently share one.
    #[test]
    fn the_marked_bytes_fit_the_32_bits_of_a_mark() {
        let wanted = [
            dispatch::start_line_bytes().as_slice(),
            context::FACT_CLUE_BYTES,
        ]
        .concat();
        let source = text::Source::marked("", &wanted);
        let given = source.marked_bytes().given();
        assert!(given <= 32, "{given} bytes for 32 bits");
        eprintln!("{given} of the 32 bits of a line's mark are taken");
    }

    /// Every variant of `Tool` is in `Tool::ALL`, once: a tool left out
    /// compiles, and nothing would list, name or read it. The variants are
    /// counted through serde's variant index, which knows them all. And
    /// its serde name is [`Tool::name`]: nothing else ties the two.
    #[test]
    fn all_holds_every_tool_once() {
        use serde::de::value::{Error, U32Deserializer};
        let variants: Vec<Tool> = (0..)
            .map_while(|index| Tool::deserialize(U32Deserializer::<Error>::new(index)).ok())
            .collect();
        assert_eq!(variants, Tool::ALL);
        for tool in Tool::ALL {
            assert_eq!(Tool::from_name(tool.name()), Some(tool));
            // Its JSON (a `serde(rename)`) is its name, both ways.
            let json = serde_json::to_string(&tool).unwrap();
            assert_eq!(json, format!("\"{}\"", tool.name()), "{tool:?}");
            assert_eq!(serde_json::from_str::<Tool>(&json).unwrap(), tool);
        }
    }

    /// Finding the messages on a second thread gives the document found on
    /// one.
    #[test]
    fn a_second_thread_finds_the_same_document() {
        let input = all_fixtures();
        let one = parse_with(&input, usize::MAX);
        let two = parse_with(&input, 0);
        assert!(one.runs.len() > 100, "{} runs", one.runs.len());
        assert!(one.messages.len() > 50, "{} messages", one.messages.len());
        assert_eq!(one, two);
    }
}
