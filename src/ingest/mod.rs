//! From a parsed text to stored rows: the one place that knows both the
//! parsers' [`Document`] and the database's rows. Bytes become that text
//! in [`crate::intake`]. A text is stored by [`store_text`], a message
//! of a mail archive by [`store_mail`] (with its place in its thread);
//! [`crate::import`] hands them over.
//!
//! A submission is written in one transaction, so a failure leaves nothing
//! behind, and the SHA-256 of its text makes the same text twice one
//! submission.

use std::borrow::Cow;

use anyhow::{bail, Context};
use parsers::mbox::MailMessage;
use parsers::Document;
use rusqlite::{Connection, Transaction};
use sha2::{Digest, Sha256};

use crate::intake::PreparedMail;
use crate::limits::MAX_ANCESTORS;
use crate::store;

pub mod title;

use title::{paste_title, title_line};

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
    identity(text).0
}

/// [`text_sha256`], and whether the text is already in its normal form
/// (then the identity is the hash of the text as it is). The lines that
/// are as the identity has them are hashed as one span of the text, not
/// line by line.
fn identity(text: &str) -> (String, bool) {
    let bytes = text.as_bytes();
    let mut hash = Sha256::new();
    // The text's bytes up to here that are the identity's too, not yet
    // hashed; `normal` until a line is not.
    let mut span = 0..0;
    let mut normal = true;
    // Blank lines are hashed only once a line with text follows them;
    // `plain_blanks` while each was an empty line with its `\n`.
    let mut blank_lines = 0;
    let mut plain_blanks = true;
    // Split at each `\n` as `str::lines` does, with the memchr crate's
    // search; a last empty piece is a blank line, which changes nothing.
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]);
    for end in ends {
        let line = &text[start..end];
        start = end + 1;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            blank_lines += 1;
            plain_blanks &= line.is_empty() && end < bytes.len();
            continue;
        }
        if plain_blanks && trimmed.len() == line.len() && end < bytes.len() {
            span.end = end + 1;
        } else {
            normal = false;
            hash.update(&bytes[span]);
            for _ in 0..blank_lines {
                hash.update(b"\n");
            }
            hash.update(trimmed.as_bytes());
            hash.update(b"\n");
            let next = (end + 1).min(bytes.len());
            span = next..next;
        }
        blank_lines = 0;
        plain_blanks = true;
    }
    // Blank lines at the end are left out.
    normal &= span.end == bytes.len();
    hash.update(&bytes[span]);
    (hex::encode(hash.finalize()), normal)
}

/// What a text is found by among those stored: hashed once, where the
/// text is prepared (an import's workers hash a message's text beside
/// parsing it), not by the writer that holds the write lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextHashes {
    /// Its identity ([`text_sha256`]), stored with a new submission.
    pub identity: String,
    /// The hash of the text as it is ([`sha256_hex`]), when that differs
    /// from its identity: what a text stored before identities were
    /// normalised is found by.
    pub verbatim: Option<String>,
}

/// Whether a database may hold texts found only by the hash of the text
/// as it is ([`TextHashes::verbatim`]): those stored before identities
/// were normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbatim {
    /// It may: a text is hashed as it is too.
    MayBeStored,
    /// It holds no text at all (a first import): its identity is enough,
    /// every text stored from now on being stored by its identity.
    NoneStored,
}

impl Verbatim {
    /// What the database `conn` writes to may hold.
    pub fn of(conn: &Connection) -> Verbatim {
        match store::holds_submissions(conn) {
            Ok(false) => Verbatim::NoneStored,
            Ok(true) | Err(_) => Verbatim::MayBeStored,
        }
    }
}

impl TextHashes {
    /// The hashes of `text`, for a database that may hold anything.
    pub fn of(text: &str) -> Self {
        TextHashes::for_database(text, Verbatim::MayBeStored)
    }

    /// The hashes of `text` that a database holding `stored` is asked.
    pub fn for_database(text: &str, stored: Verbatim) -> Self {
        let (identity, normal) = identity(text);
        let verbatim = (!normal && stored == Verbatim::MayBeStored)
            .then(|| sha256_hex(text))
            .filter(|verbatim| *verbatim != identity);
        TextHashes { identity, verbatim }
    }
}

/// The stored submission with the text hashed as `hashes`, by its
/// identity or, for a text stored before identities were normalised, by
/// the hash of the text as it is.
pub fn find_stored_text(conn: &Connection, hashes: &TextHashes) -> anyhow::Result<Option<i64>> {
    if let Some(id) = store::find_submission_by_sha256(conn, &hashes.identity)? {
        return Ok(Some(id));
    }
    match &hashes.verbatim {
        Some(verbatim) => Ok(store::find_submission_by_sha256(conn, verbatim)?),
        None => Ok(None),
    }
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
    if let Some(id) = find_stored_text(conn, &TextHashes::of(text))? {
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
        &TextHashes::of(text),
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

/// [`store_text`] of a text hashed as `hashes` ([`TextHashes::of`], by
/// whoever read it), under the title [`Naming`] says. A text already
/// stored keeps the title it has. A text given owned is dropped as soon
/// as SQLite has its copy.
pub fn store_titled_text(
    tx: &Transaction,
    source_name: Option<&str>,
    text: Cow<'_, str>,
    hashes: &TextHashes,
    document: &Document,
    naming: Naming<'_>,
) -> anyhow::Result<Ingested> {
    if let Some(id) = find_stored_text(tx, hashes)? {
        return Ok(existing(id));
    }
    let mut runs = copies_of_stored_runs(tx, document)?;
    runs.naming = naming;
    let submission_id = store_document(tx, source_name, text, &hashes.identity, &runs)?;
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
        &prepared.text_hashes.identity,
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
    find_stored_text(tx, &prepared.text_hashes)
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

#[cfg(test)]
mod identity_tests {
    use super::*;

    /// The identity as first written, with `str::lines`.
    fn by_lines(text: &str) -> String {
        let mut normal = String::new();
        let mut blank_lines = 0;
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() {
                blank_lines += 1;
                continue;
            }
            normal.push_str(&"\n".repeat(blank_lines));
            blank_lines = 0;
            normal.push_str(line);
            normal.push('\n');
        }
        sha256_hex(&normal)
    }

    #[test]
    fn the_identity_splits_lines_as_str_lines_does() {
        let texts = [
            "",
            "\n",
            "\n\n\n",
            "one",
            "one\n",
            "one\r\n",
            "one\r",
            "\none\n\n two \t\n\n\nthree\r\n\r\n",
            "a\rb\n\u{a0}x\u{2003}\n\u{2003}\n",
            "trailing spaces   \n\t\n",
            "normal\n\nlines\n",
            "normal\n\nlines\n\n",
            "\n\nlead\nblank \nthen\n\nnormal\nagain\n",
            "mixed\n \nblank\n",
            "-- \nsig\n",
        ];
        for text in texts {
            assert_eq!(text_sha256(text), by_lines(text), "{text:?}");
            let as_it_is = sha256_hex(text);
            let hashes = TextHashes::of(text);
            assert_eq!(
                hashes.verbatim.is_none(),
                as_it_is == hashes.identity,
                "{text:?}"
            );
            assert_eq!(identity(text).1, as_it_is == hashes.identity, "{text:?}");
        }
        // Every text of up to six of these characters.
        let alphabet = ['a', ' ', '\r', '\n', 'é'];
        let mut texts = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> = texts
                .iter()
                .filter(|text| {
                    text.chars().count() == texts.last().map_or(0, |t| t.chars().count())
                })
                .flat_map(|text| alphabet.iter().map(move |c| format!("{text}{c}")))
                .collect();
            texts.extend(longer);
        }
        assert_eq!(texts.len(), (0..=6).map(|n| 5usize.pow(n)).sum::<usize>());
        for text in &texts {
            let (hash, normal) = identity(text);
            assert_eq!(hash, by_lines(text), "{text:?}");
            assert_eq!(normal, sha256_hex(text) == hash, "{text:?}");
        }
        assert_eq!(text_sha256("one\r\n\r\n"), text_sha256("one"));
    }

    /// A database with no text is asked by identity alone; one with texts
    /// by the hash of a text as it is too, when that differs.
    #[test]
    fn a_text_is_hashed_as_it_is_only_for_a_database_that_holds_texts() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = store::open(&dir.path().join("texts.db")).unwrap();
        assert_eq!(Verbatim::of(&conn), Verbatim::NoneStored);
        let signed = "a report\n-- \nme\n";
        let hashes = TextHashes::for_database(signed, Verbatim::of(&conn));
        assert_eq!(hashes.identity, text_sha256(signed));
        assert_eq!(hashes.verbatim, None);
        ingest_text(&mut conn, None, "some text\n").unwrap();
        assert_eq!(Verbatim::of(&conn), Verbatim::MayBeStored);
        let hashes = TextHashes::for_database(signed, Verbatim::of(&conn));
        assert_eq!(hashes, TextHashes::of(signed));
        assert_eq!(hashes.verbatim, Some(sha256_hex(signed)));
        assert_ne!(text_sha256("\none"), text_sha256("one"));
    }
}
