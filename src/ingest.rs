//! From a parsed text to stored rows: the one place that knows both the
//! parsers' [`Document`] and the database's rows. Bytes become that text
//! in [`crate::intake`]. A text is stored by [`store_text`], a message
//! of a mail archive by [`store_mail`] (with its place in its thread),
//! and either kind of [`Input`] by [`store_input`].
//!
//! A submission is written in one transaction, so a failure leaves nothing
//! behind, and the SHA-256 of its text makes the same text twice one
//! submission.

use std::borrow::Cow;
use std::path::Path;

use anyhow::{bail, Context};
use parsers::mbox::MailMessage;
use parsers::Document;
use rusqlite::{Connection, Transaction};
use sha2::{Digest, Sha256};

use crate::intake::{Input, PreparedMail};
use crate::limits::{MAX_ANCESTORS, MAX_TITLE_CHARS};
use crate::store;

/// Hex SHA-256 of some text, as it is.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Hex SHA-256 of a submission's text, its identity: of the text with
/// every line end made `\n`, white space at the end of each line and
/// blank lines at the end taken off, and one `\n` after the last line.
/// The same report pasted from a browser (CRLF line ends), or saved by an
/// editor that trims lines or adds a last newline, is the same
/// submission. A text already in that form hashes as it is, so the texts
/// stored before the identity was normalised keep theirs (see
/// [`find_stored_text`]).
pub fn text_sha256(text: &str) -> String {
    let mut hash = Sha256::new();
    // Blank lines are hashed only once a line with text follows them.
    let mut blank_lines = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_lines += 1;
            continue;
        }
        for _ in 0..blank_lines {
            hash.update(b"\n");
        }
        blank_lines = 0;
        hash.update(line.as_bytes());
        hash.update(b"\n");
    }
    hex::encode(hash.finalize())
}

/// The stored submission with this text, by its identity
/// ([`text_sha256`]) or, for a text stored before identities were
/// normalised, by the hash of the text as it is.
pub fn find_stored_text(conn: &Connection, text: &str) -> anyhow::Result<Option<i64>> {
    let identity = text_sha256(text);
    if let Some(id) = store::find_submission_by_sha256(conn, &identity)? {
        return Ok(Some(id));
    }
    let verbatim = sha256_hex(text);
    if verbatim == identity {
        return Ok(None);
    }
    Ok(store::find_submission_by_sha256(conn, &verbatim)?)
}

/// What storing one input did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ingested {
    pub submission_id: i64,
    /// False when the same text was already stored: nothing was added.
    pub created: bool,
    pub runs: usize,
    pub unparsed: usize,
}

/// Parses `text` and stores it, unless the same text is already stored.
pub fn ingest_text(
    conn: &mut Connection,
    source_name: Option<&str>,
    text: &str,
) -> anyhow::Result<Ingested> {
    if let Some(id) = find_stored_text(conn, text)? {
        return Ok(existing(id));
    }
    let document = parsers::parse(text);
    ingest_document(conn, source_name, text, &document)
}

fn existing(submission_id: i64) -> Ingested {
    Ingested {
        submission_id,
        created: false,
        runs: 0,
        unparsed: 0,
    }
}

/// Stores `text` and its parsed `document` in one transaction.
pub fn ingest_document(
    conn: &mut Connection,
    source_name: Option<&str>,
    text: &str,
    document: &Document,
) -> anyhow::Result<Ingested> {
    let writer = store::Writer::begin(conn, None).context("starting the transaction")?;
    let ingested = store_text(writer.tx(), source_name, text, document)?;
    writer
        .finish()
        .context("storing the attributes and indexing the submission")?
        .commit()
        .context("committing the submission")?;
    Ok(ingested)
}

/// Stores a text and its parsed document in the caller's transaction,
/// unless the same text is stored already ([`find_stored_text`]). Every
/// run found is stored as this submission's own; one already stored (the
/// same report pasted again with a greeting, or quoted in a reply) is
/// linked to the stored one as a copy ([`copies_of_stored_runs`]).
pub fn store_text(
    tx: &Transaction,
    source_name: Option<&str>,
    text: &str,
    document: &Document,
) -> anyhow::Result<Ingested> {
    store_titled_text(
        tx,
        source_name,
        Cow::Borrowed(text),
        document,
        Naming::Named,
    )
}

/// How a text stored without a Subject of its own gets its title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming<'t> {
    /// The title its uploader typed: it names the text before its mail's
    /// Subject.
    Typed(&'t str),
    /// A text with a name of its own (a file, a message of an archive, a
    /// text `benchlog ingest` read): its Subject, else its first line
    /// when that reads as a title ([`title_line`]), else its name shows.
    Named,
    /// A text pasted into the form with no title, whose only name is
    /// "paste": its Subject, else [`paste_title`].
    Pasted,
}

/// [`store_text`] under the title [`Naming`] says. A text already stored
/// keeps the title it has. A text given owned is dropped as soon as
/// SQLite has its copy.
pub fn store_titled_text(
    tx: &Transaction,
    source_name: Option<&str>,
    text: Cow<'_, str>,
    document: &Document,
    naming: Naming<'_>,
) -> anyhow::Result<Ingested> {
    if let Some(id) = find_stored_text(tx, &text)? {
        return Ok(existing(id));
    }
    let mut runs = copies_of_stored_runs(tx, document)?;
    runs.naming = naming;
    let sha256 = text_sha256(&text);
    let submission_id = store_document(tx, source_name, text, &sha256, &runs)?;
    Ok(Ingested {
        submission_id,
        created: true,
        runs: runs.runs.len(),
        unparsed: document.unparsed.len(),
    })
}

/// What [`store_document`] stores of a parsed document: its runs with
/// their fingerprints and copy keys, and the authors found for quoted
/// text that names none. Borrowed, so that a document kept for a second
/// try is not copied to be stored.
pub struct ToStore<'d> {
    pub document: &'d Document,
    /// The runs to store, in their order in the document.
    pub runs: Vec<&'d parsers::Run>,
    /// Each run's [`run_fingerprint`], in the same order.
    pub fingerprints: Vec<String>,
    /// Each run's copy key: that of the stored run it repeats, `None` for
    /// a run stored for the first time (migrations/0012_run_copies.sql).
    pub copy_keys: Vec<Option<i64>>,
    /// The author of the message quoted at depth `d` is `quoted_authors[d - 1]`.
    pub quoted_authors: Vec<Option<String>>,
    /// How the text gets its title ([`Naming`]).
    pub naming: Naming<'d>,
}

impl ToStore<'_> {
    /// `author` if known, else that of the message quoted at `depth`.
    fn author<'a>(&'a self, author: &'a Option<String>, depth: usize) -> Option<&'a str> {
        author
            .as_deref()
            .or_else(|| self.quoted_authors.get(depth.checked_sub(1)?)?.as_deref())
    }

    /// How many of the runs repeat a stored run.
    pub fn copies(&self) -> usize {
        self.copy_keys.iter().flatten().count()
    }
}

/// Every run of `document`, each with its fingerprint and, for one that
/// repeats a stored run (same tool, test, threads and every value:
/// [`run_fingerprint`]), the stored run's copy key: one query.
pub fn copies_of_stored_runs<'d>(
    tx: &Transaction,
    document: &'d Document,
) -> anyhow::Result<ToStore<'d>> {
    let fingerprints: Vec<String> = document.runs.iter().map(run_fingerprint).collect();
    let copy_keys = store::copy_keys_of_fingerprints(tx, &fingerprints)?;
    Ok(ToStore {
        document,
        runs: document.runs.iter().collect(),
        fingerprints,
        copy_keys,
        quoted_authors: Vec::new(),
        naming: Naming::Named,
    })
}

/// The title of a text with no Subject of its own: its first line, when
/// that reads as one, as a paste copied from a list archive's page starts
/// with the mail's subject (`[Maria-developers] MariaDB scalability:
/// mutexes`). Not a line of a report, a quote, an attribution or lead-in
/// (ending with `:` or `,`), nor the start of a wrapped sentence (the
/// next line going on in lower case).
fn title_line<'t>(text: &'t str, document: &Document) -> Option<&'t str> {
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, line)| line.trim().is_empty());
    let (index, first) = lines.next()?;
    let title = first.trim();
    let next = lines.next().map_or("", |(_, line)| line.trim_start());
    let in_a_run = document
        .runs
        .iter()
        .any(|run| (run.lines[0]..=run.lines[1]).contains(&(index + 1)));
    let reads_as_title = title.chars().count() <= MAX_TITLE_CHARS
        && title.chars().any(char::is_alphabetic)
        && !title.starts_with('>')
        && !title.ends_with([':', ',', ';', '-'])
        && !next.starts_with(char::is_lowercase)
        && !in_a_run;
    reads_as_title.then_some(title)
}

/// The title of a text pasted with none and carrying no Subject, so that
/// no paste is listed as just "paste": its first meaningful line, else
/// what it holds (`super-smack select-key: 4 runs`), else none (an empty
/// text of no runs).
///
/// A line is meaningful unless it is blank, a line of a run or a near
/// miss (a report's command, its banner such as `Query Barrel Report`,
/// its table), only quote marks, a separator (`-----`, `=====`, `***`),
/// a shell prompt alone (`$`, `mysql>`, `[root@db ~]#`) or with a
/// command (`$ sysbench ...`), a field of a header block (`From: ...`,
/// `Date: ...`, a front matter's `layout: post`, and the lines that
/// continue them), an attribution, lead-in or greeting (ending in `:` or
/// `,`), a bare address, or without a letter. A `title:` or `Subject:`
/// field gives its value. The line is taken without its quote marks,
/// heading marks and decoration, its white space collapsed, and cut at a
/// word to [`MAX_TITLE_CHARS`] with `…`.
pub fn paste_title(text: &str, document: &Document) -> Option<String> {
    // The lines of runs and near misses, by first line: skipped in one
    // pass with a cursor.
    let mut taken: Vec<(usize, usize)> = document
        .runs
        .iter()
        .map(|run| (run.lines[0], run.lines[1]))
        .chain(document.unparsed.iter().map(|miss| {
            let lines = miss.text.lines().count().max(1);
            (miss.line, miss.line + lines - 1)
        }))
        .collect();
    taken.sort_unstable();
    let mut next_taken = 0;
    let mut in_fields = false;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        while taken
            .get(next_taken)
            .is_some_and(|&(_, last)| last < number)
        {
            next_taken += 1;
        }
        if taken
            .get(next_taken)
            .is_some_and(|&(first, _)| first <= number)
        {
            continue;
        }
        // A header field goes on on indented lines.
        if in_fields && raw.starts_with([' ', '\t']) && !raw.trim().is_empty() {
            continue;
        }
        in_fields = false;
        let line = raw.trim_start().trim_start_matches(['>', ' ', '\t', '|']);
        let line = line.trim();
        if is_code(line) || !line.starts_with('<') && is_prompt(line) {
            continue;
        }
        let line = if let Some((key, value)) = header_field(line) {
            in_fields = true;
            if !key.eq_ignore_ascii_case("title") && !key.eq_ignore_ascii_case("subject") {
                continue;
            }
            value.trim_matches(['"', '\''])
        } else {
            line
        };
        let line = if line.starts_with('<') {
            Cow::Owned(without_tags(line))
        } else {
            Cow::Borrowed(line)
        };
        let line = line
            .trim_matches(|c: char| "#=*_~-`".contains(c) || c.is_whitespace())
            .trim_start_matches("[b]")
            .trim_end_matches("[/b]");
        let lead_in = line.ends_with([':', ',', ';', '：', '，']);
        // An address, a path, a line of CSV: no title is one long word.
        let long_word = !line.contains(char::is_whitespace)
            && (line.contains("://") || line.is_ascii() && line.len() > 40);
        let table_rule = line.contains("----") || line.contains("====");
        if lead_in || long_word || table_rule || !line.chars().any(char::is_alphabetic) {
            continue;
        }
        return Some(cut_to_title(line));
    }
    runs_title(document)
}

/// `sysbench oltp, sysbench fileio: 5 runs`: a paste's title when no line
/// of it reads as one ([`paste_title`]); up to three kinds of run named.
fn runs_title(document: &Document) -> Option<String> {
    const NAMED: usize = 3;
    let mut kinds: Vec<(parsers::Tool, Option<&str>)> = Vec::new();
    let mut more = false;
    for run in &document.runs {
        let kind = (run.tool, run.test.as_deref());
        if kinds.contains(&kind) {
            continue;
        }
        if kinds.len() == NAMED {
            more = true;
            break;
        }
        kinds.push(kind);
    }
    if kinds.is_empty() {
        return None;
    }
    let mut names: Vec<String> = kinds
        .iter()
        .map(|(tool, test)| match test {
            // bonnie's test is `bonnie++`, diskinfo's `diskinfo`.
            Some(test) if test.contains(tool.name()) => (*test).to_owned(),
            Some(test) => format!("{} {test}", tool.name()),
            None => tool.name().to_owned(),
        })
        .collect();
    if more {
        names.push("…".to_owned());
    }
    let runs = document.runs.len();
    let plural = if runs == 1 { "" } else { "s" };
    Some(cut_to_title(&format!(
        "{}: {runs} run{plural}",
        names.join(", ")
    )))
}

/// A shell prompt, alone or before a command: `$`, `% make`, `mysql>`,
/// `bash-3.2$`, `root@db:~# sysbench`, `[root@db ~]# ./run`. A `#`
/// followed by a space is a markdown heading, not a root prompt.
fn is_prompt(line: &str) -> bool {
    if line.starts_with('[') {
        if let Some(end) = line.find(']') {
            let after = &line[end + 1..];
            return after.starts_with(['$', '#', '%'])
                && after[1..].chars().next().is_none_or(char::is_whitespace);
        }
    }
    let first = line.split_whitespace().next().unwrap_or("");
    let alone = first.len() == line.len();
    match first.chars().last() {
        Some('$' | '%' | '>') => true,
        Some('#') => alone && first.len() > 1 && !first.starts_with('#') || first.contains('@'),
        _ => false,
    }
}

/// Code, not prose: a fence (```` ``` ````, `~~~`), a shebang, a
/// comment (`//`, `/*`), a roff request or reStructuredText directive
/// (`.TH`, `.. note::`), a relative path run as a command (`./run`).
fn is_code(line: &str) -> bool {
    ["```", "~~~", "#!", "//", "/*", "."]
        .iter()
        .any(|start| line.starts_with(start))
}

/// `Key: value` (or TOML's `key = value`) where the key is one word
/// (`From`, `Date`, `X-Mailer`, `layout`): a field of a mail's or a
/// page's header block.
fn header_field(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(": ").or_else(|| line.split_once(" = "))?;
    let word = !key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    word.then_some((key, value.trim()))
}

/// The text of a line of HTML, its tags taken off.
fn without_tags(line: &str) -> String {
    let mut text = String::with_capacity(line.len());
    let mut in_tag = false;
    for c in line.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// `line` with its white space collapsed, cut at a word (or, in a text
/// without spaces, a character) to at most [`MAX_TITLE_CHARS`] with `…`.
fn cut_to_title(line: &str) -> String {
    let words = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.chars().count() <= MAX_TITLE_CHARS {
        return words;
    }
    let end = words
        .char_indices()
        .nth(MAX_TITLE_CHARS - 1)
        .map_or(words.len(), |(at, _)| at);
    let head = &words[..end];
    let head = match head.rfind(' ') {
        Some(space) if space > end / 2 && !words[end..].starts_with(' ') => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end_matches([',', ';', ':', ' ']))
}

/// Writes a submission and everything parsed from it inside the caller's
/// transaction (which decides whether it is already stored), and returns
/// its id. Each run's fingerprint is kept, so the same run quoted again
/// later can be recognised. The runs' attributes are staged: the caller's
/// [`store::Writer::finish`] stores them before it commits.
pub fn store_document(
    tx: &Transaction,
    source_name: Option<&str>,
    text: Cow<'_, str>,
    sha256: &str,
    fresh: &ToStore,
) -> anyhow::Result<i64> {
    anyhow::ensure!(
        fresh.fingerprints.len() == fresh.runs.len() && fresh.copy_keys.len() == fresh.runs.len(),
        "{} fingerprints and {} copy keys for {} runs",
        fresh.fingerprints.len(),
        fresh.copy_keys.len(),
        fresh.runs.len()
    );
    let submission_id = insert_submission(tx, source_name, text, sha256, fresh)?;
    insert_messages(tx, submission_id, fresh)?;
    let first_run_id = insert_runs(tx, submission_id, fresh)?;
    insert_results_and_attrs(tx, first_run_id, fresh)?;
    insert_near_misses(tx, submission_id, fresh.document)?;
    Ok(submission_id)
}

/// The submission's own row: its author, date and subject are those of
/// its first message, the subject before that the uploader's title and
/// after it the title [`Naming`] says.
fn insert_submission(
    tx: &Transaction,
    source_name: Option<&str>,
    text: Cow<'_, str>,
    sha256: &str,
    fresh: &ToStore,
) -> anyhow::Result<i64> {
    let first = fresh.document.messages.first();
    let typed = match fresh.naming {
        Naming::Typed(title) => Some(title),
        Naming::Named | Naming::Pasted => None,
    };
    let subject = typed
        .or_else(|| first.and_then(|m| m.subject.as_deref()))
        .map(str::to_owned)
        .or_else(|| match fresh.naming {
            Naming::Pasted => paste_title(&text, fresh.document),
            Naming::Typed(_) | Naming::Named => {
                title_line(&text, fresh.document).map(str::to_owned)
            }
        });
    store::insert_submission(
        tx,
        store::NewSubmission {
            text,
            sha256,
            source_name,
            author: first.and_then(|m| fresh.author(&m.author, m.quote_depth)),
            date: first.and_then(|m| m.date.as_deref()),
            subject: subject.as_deref(),
        },
    )
    .context("storing the submission")
}

/// One row per message found in the text, in order.
fn insert_messages(tx: &Transaction, submission_id: i64, fresh: &ToStore) -> anyhow::Result<()> {
    for (idx, message) in fresh.document.messages.iter().enumerate() {
        store::insert_message(
            tx,
            submission_id,
            &store::NewMessage {
                idx,
                author: fresh.author(&message.author, message.quote_depth),
                email: message.email.as_deref(),
                date: message.date.as_deref(),
                subject: message.subject.as_deref(),
                message_id: message.message_id.as_deref(),
                in_reply_to: message.in_reply_to.as_deref(),
                quote_depth: message.quote_depth,
                lines: message.lines,
            },
        )
        .with_context(|| format!("storing message {idx}"))?;
    }
    Ok(())
}

/// The runs' rows (with where their labels came from) and fingerprints,
/// in one statement each; returns the first run's id (the others follow
/// it in order).
fn insert_runs(tx: &Transaction, submission_id: i64, fresh: &ToStore) -> anyhow::Result<i64> {
    let label_from: Vec<Vec<store::NewLabelSource>> = fresh
        .runs
        .iter()
        .map(|run| {
            run.label_from
                .iter()
                .map(|source| store::NewLabelSource {
                    kind: source.kind.name(),
                    lines: source.lines,
                })
                .collect()
        })
        .collect();
    let runs: Vec<store::NewRun> = fresh
        .runs
        .iter()
        .zip(&fresh.copy_keys)
        .zip(&label_from)
        .enumerate()
        .map(|(idx, ((run, &copy_key), label_from))| store::NewRun {
            idx,
            message_idx: run.message,
            tool: run.tool.name(),
            test: run.test.as_deref(),
            label: run.label.as_deref(),
            threads: run.threads,
            quote_depth: run.quote_depth,
            author: fresh.author(&run.author, run.quote_depth),
            command: run.command.as_deref(),
            lines: run.lines,
            copy_key,
            label_from,
        })
        .collect();
    let first_run_id = store::insert_runs(tx, submission_id, &runs)
        .with_context(|| format!("storing the {} runs", runs.len()))?;
    store::insert_run_fingerprints(tx, first_run_id, &fresh.fingerprints)
        .context("storing the runs' fingerprints")?;
    Ok(first_run_id)
}

/// Each run's results, run by run, refusing a value that is not a finite
/// number; then every run's attributes, staged in one call.
fn insert_results_and_attrs(
    tx: &Transaction,
    first_run_id: i64,
    fresh: &ToStore,
) -> anyhow::Result<()> {
    let mut attrs: Vec<store::NewAttr> = Vec::new();
    for ((idx, run), run_id) in fresh.runs.iter().enumerate().zip(first_run_id..) {
        attrs.extend(
            run.attrs
                .iter()
                .map(|(key, value)| (run_id, run.tool.name(), key.as_str(), value.as_str())),
        );
        check_finite(idx, run)?;
        let results: Vec<store::NewResult> = run
            .results
            .iter()
            .map(|result| store::NewResult {
                item: &result.item,
                metric: &result.metric,
                value: result.value,
                unit: &result.unit,
                line: result.line,
                estimated: result.estimated,
            })
            .collect();
        store::insert_results(tx, run_id, run.tool.name(), &results)
            .with_context(|| format!("storing the results of run {idx}"))?;
    }
    store::insert_run_attrs(tx, &attrs).context("storing the runs' attributes")
}

/// Refuses run `idx` if one of its values is not a finite number, which
/// no comparison could use.
fn check_finite(idx: usize, run: &parsers::Run) -> anyhow::Result<()> {
    if let Some(result) = run.results.iter().find(|result| !result.value.is_finite()) {
        bail!(
            "run {idx} (line {}): {} {} is not a finite number ({})",
            result.line,
            result.item,
            result.metric,
            result.value
        );
    }
    Ok(())
}

/// One row per near miss, so the submission's page can show what was
/// not read and why.
fn insert_near_misses(
    tx: &Transaction,
    submission_id: i64,
    document: &Document,
) -> anyhow::Result<()> {
    for near_miss in &document.unparsed {
        store::insert_unparsed(
            tx,
            submission_id,
            near_miss.line,
            &near_miss.text,
            &near_miss.why,
        )
        .with_context(|| format!("storing the near miss at line {}", near_miss.line))?;
    }
    Ok(())
}

/// Stores an [`Input`] in the caller's transaction and returns the
/// submissions it is (new or already stored), in order; none when none of
/// its messages could be read.
pub fn store_input(tx: &Transaction, source_name: &str, input: Input) -> anyhow::Result<Vec<i64>> {
    let mut ids = Vec::new();
    store_input_each(tx, source_name, input, Naming::Named, |id| {
        ids.push(id);
        Ok(())
    })?;
    Ok(ids)
}

/// [`store_input`], telling `stored` each submission (new or already
/// stored) as soon as it is stored; an error from `stored` stops storing
/// (an upload whose client has gone, say) and is returned. `naming` names
/// a text; the messages of an archive keep their subjects. Each message is
/// dropped once stored, so that what an archive's messages parsed to is
/// not all held while the writes are finished and committed.
pub fn store_input_each(
    tx: &Transaction,
    source_name: &str,
    input: Input,
    naming: Naming<'_>,
    mut stored: impl FnMut(i64) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    match input {
        Input::Text(text, document) => {
            // The text is handed over: dropped once SQLite has its copy.
            let stored_text =
                store_titled_text(tx, Some(source_name), Cow::Owned(text), &document, naming)?;
            stored(stored_text.submission_id)
        }
        Input::Mails(mails) => {
            for prepared in mails.into_iter().flatten() {
                let id = store_mail(tx, &prepared)?.submission_id();
                drop(prepared);
                stored(id)?;
            }
            Ok(())
        }
    }
}

/// What storing one message did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailOutcome {
    Stored {
        submission_id: i64,
        /// Every run of the message, its copies of earlier runs too.
        runs: usize,
        /// Of `runs`, the copies of earlier runs.
        quotes: usize,
        /// Stored with its header block only: the archive keeps its text.
        headers_only: bool,
    },
    /// The same message (raw bytes, Message-ID or decoded text) is stored.
    AlreadyStored(i64),
}

impl MailOutcome {
    pub fn submission_id(self) -> i64 {
        match self {
            MailOutcome::Stored { submission_id, .. }
            | MailOutcome::AlreadyStored(submission_id) => submission_id,
        }
    }
}

/// The messages a mail answers, nearest first: its In-Reply-To, then its
/// References from the newest back, at most [`MAX_ANCESTORS`]. The n-th
/// (0-based) wrote the text this mail quotes at depth n + 1.
fn ancestors(mail: &MailMessage) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::with_capacity(MAX_ANCESTORS);
    // References are few and distinct once decoded (mbox::MAX_REFERENCES),
    // so this scan stays small.
    for id in mail.in_reply_to.iter().chain(mail.references.iter().rev()) {
        if ids.len() == MAX_ANCESTORS {
            break;
        }
        if !ids.contains(&id.as_str()) {
            ids.push(id);
        }
    }
    ids
}

/// Stores one prepared message in the caller's transaction: attributes
/// quoted text with no attribution line to the message it answers, links
/// runs already stored (from an earlier mail of the thread, or any earlier
/// submission) to the copies of them it stores, and records the mail's
/// place in its thread.
///
/// A message whose archive keeps it ([`PreparedMail::archived`]) is
/// stored with its header block only, unless it holds runs or near misses
/// or answers a message that does (it is that message's thread context).
/// One that holds them marks the messages it answers as context, whose
/// text the import brings back ([`restore_archived_text`]).
pub fn store_mail(tx: &Transaction, prepared: &PreparedMail) -> anyhow::Result<MailOutcome> {
    let mail = &prepared.mail;
    if let Some(id) = stored_mail(tx, prepared)? {
        return Ok(MailOutcome::AlreadyStored(id));
    }
    let found_ancestors = ancestors(mail)
        .into_iter()
        .map(|id| store::find_mail_by_message_id(tx, id))
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let findings = holds_findings(&prepared.document);
    let headers_only = match &prepared.archived {
        Some(at) if !findings && !answers_findings(tx, &found_ancestors)? => Some(at),
        _ => None,
    };
    // The header block alone, and what the parsers find in it (its
    // message): all the database keeps of a message the archive keeps.
    let header_document;
    let (text, document) = match headers_only {
        Some(_) => {
            let header = header_block(&mail.text);
            header_document = parsers::parse(header);
            (header, &header_document)
        }
        None => (mail.text.as_str(), &prepared.document),
    };
    let mut fresh = copies_of_stored_runs(tx, document)?;
    fresh.quoted_authors = quoted_authors(&found_ancestors);
    let submission_id = store_document(
        tx,
        Some(&prepared.source_name),
        Cow::Borrowed(text),
        &text_sha256(&mail.text),
        &fresh,
    )
    .with_context(|| format!("storing {}", prepared.source_name))?;

    let thread_id = thread_of(mail, &found_ancestors, submission_id);
    store::insert_mail(
        tx,
        &store::NewMail {
            submission_id,
            raw_sha256: &prepared.raw_sha256,
            message_id: mail.message_id.as_deref(),
            in_reply_to: mail.in_reply_to.as_deref(),
            refs: &mail.references.join(" "),
            thread_id: &thread_id,
            sent_at: mail.timestamp,
        },
    )
    .with_context(|| format!("storing the headers of {}", prepared.source_name))?;
    if let Some(at) = headers_only {
        let at = store::ArchivedText {
            text_bytes: (mail.text.len() - text.len()) as u64,
            ..at.clone()
        };
        store::insert_archived_text(tx, submission_id, &at).with_context(|| {
            format!("recording where the archive keeps {}", prepared.source_name)
        })?;
    }
    if findings {
        for ancestor in found_ancestors.iter().flatten() {
            store::mark_wanted(tx, ancestor.submission_id)?;
        }
    }
    Ok(MailOutcome::Stored {
        submission_id,
        runs: fresh.runs.len(),
        quotes: fresh.copies(),
        headers_only: headers_only.is_some(),
    })
}

/// Whether a message holds what makes it worth its text: a run, or a near
/// miss (text that looked like a report).
fn holds_findings(document: &Document) -> bool {
    !document.runs.is_empty() || !document.unparsed.is_empty()
}

/// Whether the nearest stored message a mail answers holds runs or near
/// misses: the mail is then part of that message's thread context.
fn answers_findings(
    tx: &Transaction,
    found_ancestors: &[Option<store::MailRef>],
) -> anyhow::Result<bool> {
    match found_ancestors.iter().flatten().next() {
        Some(parent) => Ok(store::holds_findings(tx, parent.submission_id)?),
        None => Ok(false),
    }
}

/// The authors of the messages a mail answers, nearest first: the authors
/// of the text it quotes at depth 1, 2, ….
fn quoted_authors(found_ancestors: &[Option<store::MailRef>]) -> Vec<Option<String>> {
    found_ancestors
        .iter()
        .map(|ancestor| ancestor.as_ref().and_then(|found| found.author.clone()))
        .collect()
}

/// A decoded message's header block (`From:`, `Date:`, `Subject:`, …, up
/// to the blank line that ends it), with its line end.
fn header_block(text: &str) -> &str {
    match text.find("\n\n") {
        Some(end) => &text[..end + 1],
        None => text,
    }
}

/// Puts back the full text of a message stored with its header block only
/// ([`store_mail`]), read again from its archive as `prepared`: the text,
/// and its messages with their authors. Its runs are not looked for: it
/// held none when it was stored.
pub fn restore_archived_text(
    tx: &Transaction,
    submission_id: i64,
    prepared: &PreparedMail,
) -> anyhow::Result<()> {
    let found_ancestors = ancestors(&prepared.mail)
        .into_iter()
        .map(|id| store::find_mail_by_message_id(tx, id))
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let fresh = ToStore {
        document: &prepared.document,
        runs: Vec::new(),
        fingerprints: Vec::new(),
        copy_keys: Vec::new(),
        quoted_authors: quoted_authors(&found_ancestors),
        naming: Naming::Named,
    };
    store::restore_text(tx, submission_id, &prepared.mail.text)?;
    insert_messages(tx, submission_id, &fresh)
        .with_context(|| format!("storing the messages of {}", prepared.source_name))
}

/// The submission a message is stored as already, found by its raw
/// bytes, then its Message-ID, then its decoded text.
fn stored_mail(tx: &Transaction, prepared: &PreparedMail) -> anyhow::Result<Option<i64>> {
    if let Some(id) = store::find_mail_by_raw_sha256(tx, &prepared.raw_sha256)? {
        return Ok(Some(id));
    }
    if let Some(message_id) = &prepared.mail.message_id {
        if let Some(found) = store::find_mail_by_message_id(tx, message_id)? {
            return Ok(Some(found.submission_id));
        }
    }
    find_stored_text(tx, &prepared.mail.text)
}

/// The thread a mail belongs to: that of the nearest message it answers
/// that is stored, else named after the first message of its thread it
/// knows of (its oldest reference, or the one it answers, or itself).
fn thread_of(
    mail: &MailMessage,
    found_ancestors: &[Option<store::MailRef>],
    submission_id: i64,
) -> String {
    found_ancestors
        .iter()
        .flatten()
        .next()
        .map(|parent| parent.thread_id.clone())
        .or_else(|| mail.references.first().cloned())
        .or_else(|| mail.in_reply_to.clone())
        .or_else(|| mail.message_id.clone())
        .unwrap_or_else(|| format!("submission-{submission_id}"))
}

/// What makes two runs the same run, hashed (hex SHA-256): the tool, the
/// test, the threads and every item, metric and value, bit for bit. Labels,
/// attributes and authors are left out: a quote often loses the context
/// that gave them.
pub fn run_fingerprint(run: &parsers::Run) -> String {
    let mut hash = Sha256::new();
    hash.update(run.tool.name());
    hash.update([0]);
    hash.update(run.test.as_deref().unwrap_or(""));
    hash.update([0]);
    hash.update(run.threads.map_or(-1, i64::from).to_le_bytes());
    for result in &run.results {
        hash.update(&result.item);
        hash.update([0]);
        hash.update(&result.metric);
        hash.update([0]);
        hash.update(result.value.to_bits().to_le_bytes());
    }
    hex::encode(hash.finalize())
}

/// Reads, decodes and stores one file; its file name becomes the source name.
pub fn ingest_file(conn: &mut Connection, path: &Path) -> anyhow::Result<Ingested> {
    let bytes = crate::intake::read_file(path, crate::limits::MAX_INPUT_BYTES)?;
    let text = crate::intake::decode_input(&bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned());
    ingest_text(conn, name.as_deref(), &text).with_context(|| format!("storing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The title each pasted text gets: its first meaningful line, else
    /// what it holds.
    #[test]
    fn an_untitled_paste_takes_its_first_meaningful_line_or_what_it_holds() {
        let report = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";
        // 99 characters, then the mark.
        let long_title = format!("{}…", "word ".repeat(20).trim_end());
        let cases: Vec<(String, Option<&str>)> = vec![
            // A list archive's page starts with the mail's subject.
            (
                fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt"),
                Some("[Maria-developers] MariaDB scalability: mutexes"),
            ),
            // The attribution is no title; the quoted text under it is.
            (
                fixture("fixtures/sysbench/seed-003-script-and-dmesg-no-results.txt"),
                Some("Back in March I posted some MySQL benchmarks after we switched to a 1:1"),
            ),
            // A wrapped sentence's first line is one here.
            (
                fixture("fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt"),
                Some("In order to verify and perhaps solve the SMP problems I and others"),
            ),
            // A report's own lines (its command, `Query Barrel Report`)
            // are not: what it holds is.
            (report.to_owned(), Some("super-smack select-key: 1 run")),
            // A prompt with its command, then the tool's banner.
            (
                fixture("fixtures/sysbench/1.0-fileio-rndrw-file-operations-throughput.txt"),
                Some("sysbench fileio: 1 run"),
            ),
            (
                fixture("fixtures/sysbench/1.0-threads-and-mutex-general-statistics-only.txt"),
                Some("sysbench threads, sysbench mutex: 2 runs"),
            ),
            // diskinfo's test is its name, said once.
            (
                fixture("fixtures/diskinfo/diskinfo-ct-two-disks-one-command.txt"),
                Some("diskinfo: 2 runs"),
            ),
            // A blank line and separators above a caption.
            (
                fixture("fixtures/sysbench/real-txt-container-benchmarks-labels-underlined-proot.txt"),
                Some("CPU BENCHMARKS"),
            ),
            // A page's header block gives its title field.
            (
                fixture("fixtures/bonnie/real-blog-pelican-2008-tmpfs-1.03d-files-only-indented-blocks.txt"),
                Some("tmpfs vs. ext3 performance on large file sets"),
            ),
            (
                fixture("fixtures/bonnie/real-forum-2009-lianli-1.03c-prompt-session-in-fence.txt"),
                Some("Benchmarking HDD Performance"),
            ),
            // Headers, quote marks alone, a prompt alone, a greeting, a
            // markdown heading.
            (
                format!("From: Ann <ann@example.org>\nDate: Mon, 1 Jan 2007\n  (continued)\n\n>\n> >\n$\nmysql>\nHi all,\n## ULE vs 4BSD on the new box ##\n\n{report}"),
                Some("ULE vs 4BSD on the new box"),
            ),
            // A long line is cut at a word.
            (
                format!("{}\n\n{report}", "word ".repeat(40)),
                Some(long_title.as_str()),
            ),
            // Nothing to say.
            ("-----\n\n=====\n".to_owned(), None),
        ];
        for (index, (text, title)) in cases.iter().enumerate() {
            let document = parsers::parse(text);
            let found = paste_title(text, &document);
            assert_eq!(found.as_deref(), *title, "case {index}");
            if let Some(found) = found {
                assert!(found.chars().count() <= MAX_TITLE_CHARS, "case {index}");
            }
        }
    }
}
