//! Mailing-list archives into submissions: an mbox (a list's month, plain
//! or gzipped) or a single `.eml` becomes one submission per message, with
//! its thread, the authors of the text it quotes, and the runs it quotes
//! from earlier mails linked to them instead of stored again.
//!
//! Each message is decoded by [`parsers::mbox`] into text with a short
//! header block; that text is what the submission keeps and what line
//! numbers point into. The SHA-256 of the raw message bytes (and its
//! Message-ID) make importing the same archive twice add nothing.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context};
use flate2::read::MultiGzDecoder;
use parsers::mbox::{self, Kind, MailMessage};
use parsers::Document;
use rusqlite::{Connection, Transaction, TransactionBehavior};
use sha2::{Digest, Sha256};

use crate::ingest::{self, InputError, MAX_INPUT_BYTES};
use crate::store;

/// The largest file `benchlog ingest` reads, on disk and unpacked
/// (uploads keep the smaller [`MAX_INPUT_BYTES`]). A file is held whole
/// while its messages are read, so this bounds the memory an import takes;
/// a busy list's month is a few MB, a year of one under 100 MB.
pub const MAX_ARCHIVE_BYTES: u64 = 256 * 1024 * 1024;

/// Messages stored per transaction when importing an archive: one commit
/// per message would cost more than the parsing.
const BATCH: usize = 256;

/// Gunzips `.gz` content (by its magic bytes), up to `limit` bytes.
///
/// The stream is unpacked twice, first only to count: a gzip bomb is then
/// refused without holding any of it, and what is kept is allocated once.
pub fn unpack(bytes: &[u8], limit: u64) -> Result<Cow<'_, [u8]>, InputError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return if bytes.len() as u64 > limit {
            Err(InputError::TooLarge)
        } else {
            Ok(Cow::Borrowed(bytes))
        };
    }
    let bad = |e: std::io::Error| InputError::BadGzip(e.to_string());
    let size = std::io::copy(
        &mut MultiGzDecoder::new(bytes).take(limit + 1),
        &mut std::io::sink(),
    )
    .map_err(bad)?;
    if size > limit {
        return Err(InputError::TooLarge);
    }
    let mut out = Vec::with_capacity(size as usize);
    MultiGzDecoder::new(bytes)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(bad)?;
    if out.len() as u64 > limit {
        return Err(InputError::TooLarge);
    }
    Ok(Cow::Owned(out))
}

/// One message read, decoded and parsed, ready to be stored.
#[derive(Debug, Clone)]
pub struct PreparedMail {
    /// Where it came from, for people: `2006-April.txt.gz, message 12`.
    pub source_name: String,
    pub raw_sha256: String,
    pub raw_len: usize,
    pub mail: MailMessage,
    pub document: Document,
}

/// A message that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailFailure {
    pub source_name: String,
    pub why: String,
}

/// Why a message was not prepared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Refusal {
    /// Not mail at all: an upload is then read as text instead.
    #[error(transparent)]
    NotMail(#[from] mbox::MailError),
    /// Mail whose decoded text is refused as a paste would be.
    #[error(transparent)]
    Text(#[from] InputError),
}

/// Decodes and parses one raw message. Pure work, no database: all of it
/// is done before a transaction takes the write lock.
pub fn prepare_mail(source_name: String, raw: &[u8]) -> Result<PreparedMail, MailFailure> {
    prepare(source_name, raw).map_err(|(failure, _)| failure)
}

/// [`prepare_mail`], telling also why a message was refused.
fn prepare(source_name: String, raw: &[u8]) -> Result<PreparedMail, (MailFailure, Refusal)> {
    let decoded =
        mbox::decode(raw).map_err(Refusal::from).and_then(|mail| {
            match ingest::check_text(&mail.text) {
                Ok(()) => Ok(mail),
                Err(error) => Err(error.into()),
            }
        });
    let mail = match decoded {
        Ok(mail) => mail,
        Err(refusal) => {
            let failure = MailFailure {
                source_name,
                why: refusal.to_string(),
            };
            return Err((failure, refusal));
        }
    };
    let document = parsers::parse(&mail.text);
    Ok(PreparedMail {
        source_name,
        raw_sha256: hex::encode(Sha256::digest(raw)),
        raw_len: raw.len(),
        mail,
        document,
    })
}

/// An upload or file, read: plain text, or the messages of a mail archive.
#[derive(Debug, Clone)]
pub enum Input {
    /// A text and what the parsers found in it.
    Text(String, Document),
    Mails(Vec<Result<PreparedMail, MailFailure>>),
}

/// Turns uploaded bytes into an [`Input`]: gunzipped, then read as an mbox
/// or a MIME message when it is one (see [`mbox::detect`]), else decoded as
/// text like any paste. Mail that yields no readable message at all is
/// kept as text rather than refused; a message whose decoded text a paste
/// could not have (a NUL, an overlong line) refuses the whole upload, as
/// the paste would be. An archive of more than `max_messages` messages is
/// refused before any of them is decoded.
pub fn prepare_input(
    file_name: Option<&str>,
    bytes: &[u8],
    max_messages: usize,
) -> Result<Input, InputError> {
    let unpacked = unpack(bytes, MAX_INPUT_BYTES)?;
    let kind = mbox::detect(file_name, &unpacked);
    let name = file_name.unwrap_or("upload");
    let raws: Vec<&[u8]> = match kind {
        Kind::Mbox => mbox::split(&unpacked).take(max_messages + 1).collect(),
        Kind::Message => vec![&unpacked[..]],
        Kind::Text => Vec::new(),
    };
    if raws.len() > max_messages {
        return Err(InputError::TooManyMessages(max_messages));
    }
    let mut mails = Vec::with_capacity(raws.len());
    for (i, raw) in raws.into_iter().enumerate() {
        let source_name = match kind {
            Kind::Mbox => format!("{name}, message {}", i + 1),
            _ => name.to_owned(),
        };
        match prepare(source_name, raw) {
            Err((_, Refusal::Text(error))) if kind == Kind::Mbox => {
                return Err(InputError::InMessage {
                    message: i + 1,
                    error: Box::new(error),
                })
            }
            Err((_, Refusal::Text(error))) => return Err(error),
            prepared => mails.push(prepared.map_err(|(failure, _)| failure)),
        }
    }
    if mails.iter().any(Result::is_ok) {
        return Ok(Input::Mails(mails));
    }
    let text = ingest::decode_input(&unpacked)?;
    let document = parsers::parse(&text);
    Ok(Input::Text(text, document))
}

/// Stores an [`Input`] in the caller's transaction and returns the
/// submissions it is (new or already stored), in order; none when none of
/// its messages could be read.
pub fn store_input(tx: &Transaction, source_name: &str, input: &Input) -> anyhow::Result<Vec<i64>> {
    match input {
        Input::Text(text, document) => Ok(vec![
            ingest::store_text(tx, Some(source_name), text, document)?.submission_id,
        ]),
        Input::Mails(mails) => mails
            .iter()
            .flatten()
            .map(|prepared| Ok(store_mail(tx, prepared)?.submission_id()))
            .collect(),
    }
}

impl Input {
    /// How many submissions storing it may create: one for a text, one
    /// per readable message of an archive.
    pub fn submissions(&self) -> usize {
        match self {
            Input::Text(..) => 1,
            Input::Mails(mails) => mails.iter().flatten().count(),
        }
    }

    /// Bytes of decoded text it holds.
    pub fn text_bytes(&self) -> usize {
        match self {
            Input::Text(text, _) => text.len(),
            Input::Mails(mails) => mails.iter().flatten().map(|m| m.mail.text.len()).sum(),
        }
    }
}

/// What storing one message did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailOutcome {
    Stored {
        submission_id: i64,
        runs: usize,
        quotes: usize,
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

/// Ancestors looked up for a mail: one per quote depth that real threads
/// reach, and each costs a query under the write lock.
const MAX_ANCESTORS: usize = 16;

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
/// submission) as quotes instead of storing them again, and records the
/// mail's place in its thread.
pub fn store_mail(tx: &Transaction, prepared: &PreparedMail) -> anyhow::Result<MailOutcome> {
    let mail = &prepared.mail;
    if let Some(id) = store::find_mail_by_raw_sha256(tx, &prepared.raw_sha256)? {
        return Ok(MailOutcome::AlreadyStored(id));
    }
    if let Some(message_id) = &mail.message_id {
        if let Some(found) = store::find_mail_by_message_id(tx, message_id)? {
            return Ok(MailOutcome::AlreadyStored(found.submission_id));
        }
    }
    let text_sha256 = ingest::sha256_hex(&mail.text);
    if let Some(id) = store::find_submission_by_sha256(tx, &text_sha256)? {
        return Ok(MailOutcome::AlreadyStored(id));
    }

    let ancestor_ids = ancestors(mail);
    let mut found_ancestors = Vec::with_capacity(ancestor_ids.len());
    for id in &ancestor_ids {
        found_ancestors.push(store::find_mail_by_message_id(tx, id)?);
    }
    let author_at_depth = |depth: usize| -> Option<String> {
        let ancestor = found_ancestors.get(depth.checked_sub(1)?)?.as_ref()?;
        ancestor.author.clone()
    };

    let mut document = prepared.document.clone();
    for message in &mut document.messages {
        if message.author.is_none() && message.quote_depth > 0 {
            message.author = author_at_depth(message.quote_depth);
        }
    }
    let quotes = ingest::take_known_runs(tx, &mut document)?;
    for run in &mut document.runs {
        if run.author.is_none() && run.quote_depth > 0 {
            run.author = author_at_depth(run.quote_depth);
        }
    }

    let submission_id = ingest::store_document(
        tx,
        Some(&prepared.source_name),
        &mail.text,
        &text_sha256,
        &document,
    )
    .with_context(|| format!("storing {}", prepared.source_name))?;

    let thread_id = found_ancestors
        .iter()
        .flatten()
        .next()
        .map(|parent| parent.thread_id.clone())
        .or_else(|| mail.references.first().cloned())
        .or_else(|| mail.in_reply_to.clone())
        .or_else(|| mail.message_id.clone())
        .unwrap_or_else(|| format!("submission-{submission_id}"));
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
    ingest::store_quotes(tx, submission_id, &quotes)?;
    Ok(MailOutcome::Stored {
        submission_id,
        runs: document.runs.len(),
        quotes: quotes.len(),
    })
}

/// What a bulk import did, for its summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Files read as plain text (not mail): stored, or already stored.
    pub texts_added: usize,
    pub texts_already_stored: usize,
    pub messages_read: usize,
    /// Messages in which at least one run was found (stored or quoted).
    pub messages_with_results: usize,
    pub messages_added: usize,
    pub messages_already_stored: usize,
    pub runs_added: usize,
    /// Runs found again in a later message and linked, not stored.
    pub runs_quoted: usize,
    /// Files and messages that could not be read or stored, and why.
    pub failures: Vec<MailFailure>,
}

impl ImportSummary {
    /// The summary as printed at the end of `benchlog ingest`.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{} added, {} already stored, {} failed",
            self.texts_added + self.messages_added,
            self.texts_already_stored + self.messages_already_stored,
            self.failures.len()
        )];
        if self.messages_read > 0 {
            lines.push(format!(
                "mail: {} messages read, {} with results, {} runs added; duplicates skipped: {} runs quoted again, {} messages already stored; {} messages could not be read",
                self.messages_read,
                self.messages_with_results,
                self.runs_added,
                self.runs_quoted,
                self.messages_already_stored,
                self.failures.len()
            ));
        }
        lines
    }

    /// The report file's text: the summary, then every failure with why.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for line in self.lines() {
            let _ = writeln!(out, "{line}");
        }
        if !self.failures.is_empty() {
            let _ = writeln!(out, "\nCould not be read or stored:");
        }
        for failure in &self.failures {
            let _ = writeln!(out, "{}: {}", failure.source_name, failure.why);
        }
        out
    }
}

/// Stores prepared messages in batches of [`BATCH`], one transaction per
/// batch. When a message of a batch fails, the batch is rolled back and
/// its messages stored one transaction each, so the bad one leaves nothing
/// behind and the others are kept. `progress` is told the raw bytes of
/// each message handled.
pub fn import_mails(
    conn: &mut Connection,
    mails: impl IntoIterator<Item = Result<PreparedMail, MailFailure>>,
    summary: &mut ImportSummary,
    mut progress: impl FnMut(usize),
) -> anyhow::Result<()> {
    let mut batch = Vec::with_capacity(BATCH);
    for item in mails {
        summary.messages_read += 1;
        match item {
            Ok(prepared) => {
                if !prepared.document.runs.is_empty() {
                    summary.messages_with_results += 1;
                }
                batch.push(prepared);
                if batch.len() == BATCH {
                    store_batch(conn, &mut batch, summary, &mut progress)?;
                }
            }
            Err(failure) => summary.failures.push(failure),
        }
    }
    store_batch(conn, &mut batch, summary, &mut progress)
}

fn store_batch(
    conn: &mut Connection,
    batch: &mut Vec<PreparedMail>,
    summary: &mut ImportSummary,
    progress: &mut impl FnMut(usize),
) -> anyhow::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let outcomes = {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("starting the transaction")?;
        let outcomes: anyhow::Result<Vec<MailOutcome>> = batch
            .iter()
            .map(|prepared| store_mail(&tx, prepared))
            .collect();
        match outcomes {
            Ok(outcomes) => {
                tx.commit().context("committing a batch of messages")?;
                outcomes.into_iter().map(Ok).collect()
            }
            Err(_) => {
                drop(tx);
                one_by_one(conn, batch)?
            }
        }
    };
    for (prepared, outcome) in batch.iter().zip(outcomes) {
        match outcome {
            Ok(MailOutcome::Stored { runs, quotes, .. }) => {
                summary.messages_added += 1;
                summary.runs_added += runs;
                summary.runs_quoted += quotes;
            }
            Ok(MailOutcome::AlreadyStored(_)) => summary.messages_already_stored += 1,
            Err(error) => summary.failures.push(MailFailure {
                source_name: prepared.source_name.clone(),
                why: format!("{error:#}"),
            }),
        }
        progress(prepared.raw_len);
    }
    batch.clear();
    Ok(())
}

fn one_by_one(
    conn: &mut Connection,
    batch: &[PreparedMail],
) -> anyhow::Result<Vec<anyhow::Result<MailOutcome>>> {
    let mut outcomes = Vec::with_capacity(batch.len());
    for prepared in batch {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("starting the transaction")?;
        let outcome = store_mail(&tx, prepared);
        if outcome.is_ok() {
            tx.commit().context("committing a message")?;
        }
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// What [`import_file`] found in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOutcome {
    /// Plain text, stored as one submission.
    Text(ingest::Ingested),
    /// A mail archive or message; its messages are counted in the summary.
    Mail { messages: usize },
}

/// Reads one file: a mail archive is imported message by message (counted
/// in `summary`), anything else is stored as one text submission.
/// `progress` is told how many of the file's on-disk bytes are done.
pub fn import_file(
    conn: &mut Connection,
    path: &Path,
    summary: &mut ImportSummary,
    progress: impl FnMut(u64),
) -> anyhow::Result<FileOutcome> {
    import_file_within(conn, path, MAX_ARCHIVE_BYTES, summary, progress)
}

/// [`import_file`] with another limit than [`MAX_ARCHIVE_BYTES`] on the
/// file's size, on disk and unpacked.
pub fn import_file_within(
    conn: &mut Connection,
    path: &Path,
    limit: u64,
    summary: &mut ImportSummary,
    mut progress: impl FnMut(u64),
) -> anyhow::Result<FileOutcome> {
    let bytes = ingest::read_file(path, limit)?;
    let on_disk = bytes.len() as u64;
    let gunzipped = match unpack(&bytes, limit) {
        Ok(Cow::Owned(out)) => Some(out),
        Ok(Cow::Borrowed(_)) => None,
        Err(InputError::TooLarge) => bail!(
            "{} is larger than {} unpacked, the most benchlog reads from one file; split it",
            path.display(),
            ingest::size_for_people(limit)
        ),
        Err(error) => {
            return Err(anyhow::Error::new(error).context(format!("reading {}", path.display())))
        }
    };
    // The compressed bytes are not needed once unpacked.
    let unpacked = gunzipped.unwrap_or(bytes);
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let kind = mbox::detect(Some(&name), &unpacked);
    if kind == Kind::Text {
        let text = ingest::decode_input(&unpacked)
            .with_context(|| format!("reading {}", path.display()))?;
        let done = ingest::ingest_text(conn, Some(&name), &text)
            .with_context(|| format!("storing {}", path.display()))?;
        progress(on_disk);
        return Ok(FileOutcome::Text(done));
    }
    // On-disk bytes per unpacked byte, so a .gz advances the bar evenly.
    let scale = on_disk as f64 / unpacked.len().max(1) as f64;
    let before = summary.messages_read;
    let unpacked = &unpacked[..];
    let source_name = |i: usize| match kind {
        Kind::Mbox => format!("{name}, message {}", i + 1),
        _ => name.clone(),
    };
    // Decoding and parsing run on a second thread while this one stores
    // the messages before, in order.
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::sync_channel(BATCH);
        scope.spawn(move || {
            let raws: Box<dyn Iterator<Item = &[u8]>> = match kind {
                Kind::Mbox => Box::new(mbox::split(unpacked)),
                _ => Box::new(std::iter::once(unpacked)),
            };
            for (i, raw) in raws.enumerate() {
                // The receiver is gone when storing failed: stop.
                if sender.send(prepare_mail(source_name(i), raw)).is_err() {
                    break;
                }
            }
        });
        import_mails(conn, receiver, summary, |raw_len| {
            progress((raw_len as f64 * scale) as u64)
        })
    })?;
    Ok(FileOutcome::Mail {
        messages: summary.messages_read - before,
    })
}
