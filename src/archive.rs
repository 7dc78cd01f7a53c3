//! Mailing-list archives into submissions: an mbox (a list's month, plain
//! or gzipped) or a single `.eml` becomes one submission per message, with
//! its thread, the authors of the text it quotes, and the runs it quotes
//! from earlier mails stored as its own, linked to them as copies.
//!
//! Each message is decoded by [`parsers::mbox`] into text with a short
//! header block; that text is what the submission keeps and what line
//! numbers point into. The SHA-256 of the raw message bytes (and its
//! Message-ID) make importing the same archive twice add nothing.
//!
//! Files and messages are read by [`crate::intake`] and each stored as
//! rows by [`crate::ingest`] ([`ingest::store_mail`]); this module is the
//! import's pipeline, a reading thread and a writer storing in batches
//! ([`import_files`]).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Context;
use parsers::Document;
use rusqlite::{Connection, Transaction};

use crate::ingest::{self, store_mail, MailOutcome};
use crate::intake::{
    self, parts_not_read, Handed, MailFailure, Policy, PreparedMail, Read, ReadError,
};
use crate::limits::{BATCH_BYTES, BATCH_ITEMS, MAX_ARCHIVE_BYTES, MAX_LOCK_HOLD};
use crate::store;

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
    /// Of `messages_added`, those stored with their header block only,
    /// their text kept by the archive (`ingest::store_mail`).
    pub messages_headers_only: usize,
    /// Messages stored with their header block only whose text was
    /// brought back from the archive: a message answering them holds runs.
    pub texts_restored: usize,
    pub messages_already_stored: usize,
    /// Of `messages_already_stored`, those known by their raw bytes
    /// before they were decoded and parsed.
    pub messages_known_unread: usize,
    pub runs_added: usize,
    /// Of `runs_added`, those found again in a later message: each is
    /// stored as that message's own run, linked to the earlier one as its
    /// copy.
    pub runs_quoted: usize,
    /// Files and messages that could not be read or stored, and why.
    pub failures: Vec<MailFailure>,
    /// Parts of messages read that were left out of their text, and why
    /// (a forward nested too deep).
    pub parts_not_read: Vec<MailFailure>,
}

impl ImportSummary {
    /// Adds what another part of the same import did.
    pub fn add(&mut self, other: ImportSummary) {
        // Destructured, so a new field cannot be forgotten here.
        let ImportSummary {
            texts_added,
            texts_already_stored,
            messages_read,
            messages_with_results,
            messages_added,
            messages_headers_only,
            texts_restored,
            messages_already_stored,
            messages_known_unread,
            runs_added,
            runs_quoted,
            failures,
            parts_not_read,
        } = other;
        self.texts_added += texts_added;
        self.texts_already_stored += texts_already_stored;
        self.messages_read += messages_read;
        self.messages_with_results += messages_with_results;
        self.messages_added += messages_added;
        self.messages_headers_only += messages_headers_only;
        self.texts_restored += texts_restored;
        self.messages_already_stored += messages_already_stored;
        self.messages_known_unread += messages_known_unread;
        self.runs_added += runs_added;
        self.runs_quoted += runs_quoted;
        self.failures.extend(failures);
        self.parts_not_read.extend(parts_not_read);
    }

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
                "mail: {} messages read, {} with results, {} runs added ({} of them quoted again, linked to the earlier run); duplicates skipped: {} messages already stored ({} of them known before decoding); {} messages could not be read",
                self.messages_read,
                self.messages_with_results,
                self.runs_added,
                self.runs_quoted,
                self.messages_already_stored,
                self.messages_known_unread,
                self.failures.len()
            ));
        }
        if self.messages_headers_only > 0 || self.texts_restored > 0 {
            lines.push(format!(
                "{} messages with no results stored with their headers only (the archive keeps their text); {} texts brought back from the archive as the thread context of results",
                self.messages_headers_only, self.texts_restored
            ));
        }
        if !self.parts_not_read.is_empty() {
            lines.push(format!(
                "{} parts of messages read could not be read themselves",
                self.parts_not_read.len()
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
        if !self.parts_not_read.is_empty() {
            let _ = writeln!(out, "\nParts of messages not read:");
        }
        for part in &self.parts_not_read {
            let _ = writeln!(out, "{}: {}", part.source_name, part.why);
        }
        out
    }
}

/// Stores prepared messages as [`import_files`] stores a mail file's:
/// many per transaction, each all-or-nothing, so a bad one leaves
/// nothing behind and the others are kept. `progress` is told the
/// raw bytes of each message handled.
pub fn import_mails(
    conn: &mut Connection,
    mails: impl IntoIterator<Item = Result<PreparedMail, MailFailure>, IntoIter: Send>,
    summary: &mut ImportSummary,
    mut progress: impl FnMut(usize),
) -> anyhow::Result<()> {
    std::thread::scope(|scope| {
        let (sender, receiver) = queue();
        let mails = mails.into_iter();
        scope.spawn(move || {
            for mail in mails {
                let raw_len = mail.as_ref().map_or(0, |prepared| prepared.raw_len);
                let step = match mail {
                    Ok(prepared) => Step::Mail(Box::new(prepared)),
                    Err(failure) => Step::MailFailed(failure),
                };
                if sender.send((step, raw_len as u64)).is_err() {
                    break;
                }
            }
        });
        write_steps(
            conn,
            receiver,
            BATCH_ITEMS,
            summary,
            &mut |_, _| {},
            &mut |bytes| progress(bytes as usize),
        )
    })
}

/// What the reader of a git archive ([`crate::public_inbox`]) hands
/// [`import_archive`], in the archive's order.
pub enum ArchiveItem {
    /// One message, prepared, or why it could not be.
    Mail(Result<Box<PreparedMail>, MailFailure>),
    /// A message stored already (by its raw bytes), not read.
    Known,
    /// Every message of the commits up to this mark is handed over: it is
    /// stored in the transaction that stores the last of them.
    Mark(store::ArchiveMark),
}

/// Stores what `read` hands over as [`import_mails`] stores messages,
/// `read` running on the reading thread (a git repository's handle stays
/// on the thread that opened it). `read` is given the sink for each item
/// and the count `progress` is told once it is stored; it stops when the
/// sink breaks (storing failed).
pub fn import_archive(
    conn: &mut Connection,
    batch_items: usize,
    read: impl FnOnce(&mut dyn FnMut(ArchiveItem, u64) -> ControlFlow<()>) + Send,
    summary: &mut ImportSummary,
    mut progress: impl FnMut(u64),
) -> anyhow::Result<()> {
    std::thread::scope(|scope| {
        let (sender, receiver) = queue();
        scope.spawn(move || {
            read(&mut |item, done| {
                let step = match item {
                    ArchiveItem::Mail(Ok(prepared)) => Step::Mail(prepared),
                    ArchiveItem::Mail(Err(failure)) => Step::MailFailed(failure),
                    ArchiveItem::Known => Step::Known,
                    ArchiveItem::Mark(mark) => Step::Mark(Box::new(mark)),
                };
                match sender.send((step, done)) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(_) => ControlFlow::Break(()),
                }
            })
        });
        write_steps(
            conn,
            receiver,
            batch_items,
            summary,
            &mut |_, _| {},
            &mut progress,
        )
    })
}

/// What [`import_files`] found in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOutcome {
    /// Plain text, stored as one submission.
    Text(ingest::Ingested),
    /// A mail archive or message; its messages are counted in the summary.
    Mail { messages: usize },
    /// Fetched by its address, it has not changed since it was read (the
    /// server answered 304 to the mark of [`Fetched::Body`]): not read.
    Unchanged,
}

/// What fetching one file of an archive by its address gave
/// ([`import_fetched`]).
pub enum Fetched {
    /// The file's bytes, named as an error should name it (`name`) and
    /// by its file name (which tells an mbox), and what to record once
    /// every message of it is stored, if anything.
    Body {
        name: String,
        file_name: String,
        bytes: Vec<u8>,
        mark: Option<store::UrlMark>,
    },
    /// The server says it has not changed since it was read.
    Unchanged,
}

/// Imports `count` files that `fetch` brings one after the other, as
/// [`import_files`] imports files from disk: `fetch` runs on the reading
/// thread, so one file is fetched while the one before is stored. A
/// file's mark is stored in the transaction that stores its last message
/// (or a later one), never before; a file that could not be fetched or
/// read is reported with why, and the others are read.
pub fn import_fetched(
    conn: &mut Connection,
    count: usize,
    batch_items: usize,
    mut fetch: impl FnMut(usize) -> anyhow::Result<Fetched> + Send,
    summary: &mut ImportSummary,
    mut report: impl FnMut(usize, anyhow::Result<FileOutcome>),
    mut progress: impl FnMut(u64),
) -> anyhow::Result<()> {
    let mut known = store::KnownMails::of(conn);
    std::thread::scope(|scope| {
        let (sender, receiver) = queue();
        scope.spawn(move || {
            for file in 0..count {
                let sent = match fetch(file) {
                    Err(error) => {
                        let why = format!("{error:#}");
                        sender.send((Step::FileFailed { file, why }, 0)).is_ok()
                    }
                    Ok(Fetched::Unchanged) => sender.send((Step::Unchanged { file }, 0)).is_ok(),
                    Ok(Fetched::Body {
                        name,
                        file_name,
                        bytes,
                        mark,
                    }) => {
                        match read_bytes_steps(
                            file,
                            &file_name,
                            &name,
                            bytes,
                            MAX_ARCHIVE_BYTES,
                            &mut known,
                            &sender,
                        ) {
                            Ok(true) => match mark {
                                Some(mark) => {
                                    sender.send((Step::UrlMark(Box::new(mark)), 0)).is_ok()
                                }
                                None => true,
                            },
                            Ok(false) => true,
                            Err(()) => false,
                        }
                    }
                };
                // The receiver is gone when storing failed: stop.
                if !sent {
                    break;
                }
            }
        });
        write_steps(
            conn,
            receiver,
            batch_items,
            summary,
            &mut report,
            &mut progress,
        )
    })
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
    let mut outcome = None;
    let limits = Limits {
        file_bytes: limit,
        batch_items: BATCH_ITEMS,
    };
    import_files_within(
        conn,
        std::slice::from_ref(&path.to_path_buf()),
        limits,
        summary,
        |_, done| outcome = Some(done),
        &mut progress,
    )?;
    outcome.unwrap_or_else(|| Err(anyhow::anyhow!("{} was not read", path.display())))
}

/// Imports files as `benchlog ingest` does: a second thread reads, decodes
/// and parses them in order while this one stores what it has read, many
/// files and messages per transaction.
///
/// Every text and every message is all-or-nothing: each is stored under
/// its own savepoint, so one that fails leaves nothing and the others of
/// its transaction are kept. `report` is told each file's outcome only
/// once the transaction holding all of it is committed: a crash at any
/// moment loses no file reported as stored, and leaves no part of one.
/// A transaction stops taking texts and messages after [`BATCH_ITEMS`] of
/// them, [`BATCH_BYTES`] of text, or [`MAX_LOCK_HOLD`], whichever comes
/// first; finishing what it took (see [`MAX_LOCK_HOLD`]) and committing
/// follow, so other writers (the server's uploads) wait about twice that
/// at most.
pub fn import_files(
    conn: &mut Connection,
    files: &[std::path::PathBuf],
    batch_items: usize,
    summary: &mut ImportSummary,
    report: impl FnMut(&Path, anyhow::Result<FileOutcome>),
    mut progress: impl FnMut(u64),
) -> anyhow::Result<()> {
    let limits = Limits {
        file_bytes: MAX_ARCHIVE_BYTES,
        batch_items,
    };
    import_files_within(conn, files, limits, summary, report, &mut progress)
}

/// How much an import reads from one file and stores per transaction.
#[derive(Clone, Copy)]
struct Limits {
    file_bytes: u64,
    batch_items: usize,
}

fn import_files_within(
    conn: &mut Connection,
    files: &[std::path::PathBuf],
    limits: Limits,
    summary: &mut ImportSummary,
    mut report: impl FnMut(&Path, anyhow::Result<FileOutcome>),
    progress: &mut impl FnMut(u64),
) -> anyhow::Result<()> {
    let mut known = store::KnownMails::of(conn);
    std::thread::scope(|scope| {
        let (sender, receiver) = queue();
        scope.spawn(move || {
            for (index, path) in files.iter().enumerate() {
                // The receiver is gone when storing failed: stop.
                let read = read_file_steps(index, path, limits.file_bytes, &mut known, &sender);
                if read.is_err() {
                    break;
                }
            }
        });
        write_steps(
            conn,
            receiver,
            limits.batch_items,
            summary,
            &mut |index, outcome| report(&files[index], outcome),
            progress,
        )
    })
}

use crate::limits::{QUEUE, QUEUE_BYTES};

/// What the reading thread hands the writer, in file order, with the
/// on-disk bytes it accounts for.
enum Step {
    /// A plain-text file, decoded and parsed.
    Text {
        file: usize,
        name: String,
        text: String,
        document: Box<Document>,
    },
    /// One message of a mail file.
    Mail(Box<PreparedMail>),
    /// A message that could not be read.
    MailFailed(MailFailure),
    /// A message stored already, known by its raw bytes: not read.
    Known,
    /// The end of a mail file: all its messages were sent.
    MailFileDone { file: usize, messages: usize },
    /// A file that could not be read at all, and why (the error's chain).
    FileFailed { file: usize, why: String },
    /// How far a git archive is read ([`ArchiveItem::Mark`]).
    Mark(Box<store::ArchiveMark>),
    /// A file fetched by its address is unchanged ([`Fetched::Unchanged`]).
    Unchanged { file: usize },
    /// What the server said of a file fetched by its address, all of whose
    /// messages were sent ([`Fetched::Body`]).
    UrlMark(Box<store::UrlMark>),
}

impl Step {
    /// The text it holds (a document and a message's decoded text are
    /// of its size): what the queue counts against [`QUEUE_BYTES`].
    fn held_bytes(&self) -> usize {
        match self {
            Step::Text { text, .. } => text.len(),
            Step::Mail(prepared) => prepared.mail.text.len(),
            _ => 0,
        }
    }
}

/// The queue between an import's reading thread and its writer: at most
/// [`QUEUE`] steps, and [`QUEUE_BYTES`] of the text they hold (a step
/// larger than that goes alone), so what is read ahead of the writer is
/// bounded in bytes as well as in steps: 64 messages of 64 MiB each
/// could otherwise wait at once.
fn queue() -> (Sender, Receiver) {
    let (sender, receiver) = std::sync::mpsc::sync_channel(QUEUE);
    let budget = std::sync::Arc::new(Budget::default());
    let sender = Sender {
        sender,
        budget: budget.clone(),
    };
    (sender, Receiver { receiver, budget })
}

/// The bytes held by the steps in a [`queue`], and whether its receiver
/// is gone (a sender waiting for room then gives up).
#[derive(Default)]
struct Budget {
    held: std::sync::Mutex<(usize, bool)>,
    freed: std::sync::Condvar,
}

impl Budget {
    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, bool)> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

struct Sender {
    sender: std::sync::mpsc::SyncSender<(Step, u64, usize)>,
    budget: std::sync::Arc<Budget>,
}

impl Sender {
    /// Sends a step with the on-disk bytes it accounts for, once the queue
    /// has room for its text; errs when the writer is gone.
    fn send(&self, (step, on_disk): (Step, u64)) -> Result<(), ()> {
        let bytes = step.held_bytes();
        let mut held = self.budget.lock();
        while held.0 > 0 && held.0 + bytes > QUEUE_BYTES && !held.1 {
            held = self
                .budget
                .freed
                .wait(held)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        if held.1 {
            return Err(());
        }
        held.0 += bytes;
        drop(held);
        self.sender.send((step, on_disk, bytes)).map_err(|_| ())
    }
}

struct Receiver {
    receiver: std::sync::mpsc::Receiver<(Step, u64, usize)>,
    budget: std::sync::Arc<Budget>,
}

impl Receiver {
    fn recv(&self) -> Result<(Step, u64), std::sync::mpsc::RecvError> {
        let (step, on_disk, bytes) = self.receiver.recv()?;
        self.release(bytes);
        Ok((step, on_disk))
    }

    fn recv_timeout(
        &self,
        timeout: std::time::Duration,
    ) -> Result<(Step, u64), std::sync::mpsc::RecvTimeoutError> {
        let (step, on_disk, bytes) = self.receiver.recv_timeout(timeout)?;
        self.release(bytes);
        Ok((step, on_disk))
    }

    fn release(&self, bytes: usize) {
        self.budget.lock().0 -= bytes;
        self.budget.freed.notify_all();
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.budget.lock().1 = true;
        self.budget.freed.notify_all();
    }
}

/// Reads, decodes and parses one file into steps ([`read_bytes_steps`]).
/// Errs only when the writer is gone.
fn read_file_steps(
    file: usize,
    path: &Path,
    limit: u64,
    known: &mut store::KnownMails,
    sender: &Sender,
) -> Result<(), ()> {
    let bytes = match intake::read_file(path, limit) {
        Ok(bytes) => bytes,
        Err(error) => {
            let why = format!("{error:#}");
            return sender
                .send((Step::FileFailed { file, why }, 0))
                .map_err(|_| ());
        }
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let shown = path.display().to_string();
    read_bytes_steps(file, &name, &shown, bytes, limit, known, sender).map(|_| ())
}

/// Reads, decodes and parses one file's bytes into steps
/// ([`intake::read_each`] with [`Policy::import`]), skipping the messages
/// `known` holds: `name` is the file's name (it tells an mbox), `shown`
/// how errors name it. Says whether the file was read as mail; errs only
/// when the writer is gone.
fn read_bytes_steps(
    file: usize,
    name: &str,
    shown: &str,
    bytes: Vec<u8>,
    limit: u64,
    known: &mut store::KnownMails,
    sender: &Sender,
) -> Result<bool, ()> {
    let send = |step: Step, bytes: u64| sender.send((step, bytes)).map_err(|_| ());
    let failed = |error: anyhow::Error| {
        let why = format!("{error:#}");
        send(Step::FileFailed { file, why }, 0).map(|()| false)
    };
    let on_disk = bytes.len() as u64;
    let mut gone = false;
    let policy = Policy::import(limit);
    let known = |raw_sha256: &str| known.holds(raw_sha256);
    let read = intake::read_each(name, Cow::Owned(bytes), &policy, known, |on_disk, mail| {
        let step = match mail {
            Handed::Prepared(Ok(prepared)) => Step::Mail(prepared),
            Handed::Prepared(Err(failure)) => Step::MailFailed(failure),
            Handed::Known => Step::Known,
        };
        gone = send(step, on_disk).is_err();
        if gone {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    if gone {
        return Err(());
    }
    match read {
        Ok(Read::Text(text, document)) => {
            let document = Box::new(document);
            let step = Step::Text {
                file,
                name: name.to_owned(),
                text,
                document,
            };
            send(step, on_disk).map(|()| false)
        }
        Ok(Read::Mails { messages }) => {
            send(Step::MailFileDone { file, messages }, 0).map(|()| true)
        }
        Err(ReadError::TooLarge) => failed(anyhow::anyhow!(
            "{shown} is larger than {} unpacked, the most benchlog reads from one file; split it",
            intake::size_for_people(limit)
        )),
        Err(ReadError::Input(error)) => {
            failed(anyhow::Error::new(error).context(format!("reading {shown}")))
        }
    }
}

/// The writer's side of an import: stores steps in transactions of many
/// and reports each file once the transaction holding the last of it is
/// committed.
///
/// The steps of a transaction are stored one after the other with no
/// savepoint: a savepoint per text would make the full-text index write
/// out its pending terms each time, and most batches hold no failure.
/// When one text or message fails, the transaction is rolled back and its
/// steps stored again, each under its own savepoint, so the failing one
/// leaves nothing and the others are kept. The steps of a transaction are
/// kept until it commits for that ([`BATCH_BYTES`] of text at most).
fn write_steps(
    conn: &mut Connection,
    receiver: Receiver,
    batch_items: usize,
    summary: &mut ImportSummary,
    report: &mut dyn FnMut(usize, anyhow::Result<FileOutcome>),
    progress: &mut dyn FnMut(u64),
) -> anyhow::Result<()> {
    // Each batch's pages are copied into the database by this thread's
    // checkpoints while the next batch is written (see store::checkpoint).
    let checkpointer = match conn.path().filter(|path| !path.is_empty()) {
        Some(path) => Some(store::Checkpointer::start(Path::new(path))?),
        None => None,
    };
    store::with_bulk_write(conn, |conn| {
        // Waiting for the first step of a batch holds no lock.
        while let Ok(first) = receiver.recv() {
            let mut writer = store::Writer::begin(conn, checkpointer.as_ref())
                .context("starting the transaction")?;
            let started = std::time::Instant::now();
            let mut batch = vec![first];
            let mut done = Written::default();
            let (mut items, mut text_bytes, mut failed) = (0, 0, false);
            while let Some((step, on_disk)) = batch.last() {
                let stored = write_step(&writer, step, false, &mut done)?;
                progress(*on_disk);
                items += stored.items;
                text_bytes += stored.text_bytes;
                if stored.failed {
                    failed = true;
                    break;
                }
                if items >= batch_items || text_bytes >= BATCH_BYTES {
                    break;
                }
                // A timeout or the end of the input ends the batch.
                match MAX_LOCK_HOLD
                    .checked_sub(started.elapsed())
                    .and_then(|left| receiver.recv_timeout(left).ok())
                {
                    Some(step) => batch.push(step),
                    None => break,
                }
            }
            // The batch's attributes, in one statement (store::insert_run_attrs);
            // should that fail, the batch is stored again item by item, so
            // that only the text or message at fault is left out.
            if !failed && writer.write_staged_attrs().is_err() {
                failed = true;
            }
            if failed {
                drop(writer);
                writer = store::Writer::begin(conn, checkpointer.as_ref())
                    .context("starting the transaction")?;
                done = Written::default();
                for (step, _) in &batch {
                    write_step(&writer, step, true, &mut done)?;
                }
            }
            writer
                .finish()
                .context("storing the attributes and indexing the new submissions")?
                .commit()
                .context("committing a batch of texts and messages")?;
            summary.add(done.summary);
            for (file, outcome) in done.reports {
                report(file, outcome);
            }
        }
        Ok(())
    })
}

/// What a transaction's steps did, applied once it commits.
#[derive(Default)]
struct Written {
    summary: ImportSummary,
    reports: Vec<(usize, anyhow::Result<FileOutcome>)>,
}

/// What storing one step took and whether it failed.
struct Stored {
    /// Texts and messages stored (0 or 1).
    items: usize,
    text_bytes: usize,
    failed: bool,
}

/// Stores one step in `writer`, under a savepoint of its own when `alone`,
/// and records what it did in `done`. The error is the database's; a
/// text or message that cannot be stored is `Stored::failed`.
fn write_step(
    writer: &store::Writer,
    step: &Step,
    alone: bool,
    done: &mut Written,
) -> anyhow::Result<Stored> {
    let summary = &mut done.summary;
    let stored = |items, text_bytes, failed| Stored {
        items,
        text_bytes,
        failed,
    };
    match step {
        Step::Text {
            file,
            name,
            text,
            document,
        } => {
            let outcome = in_savepoint(writer, alone, |tx| {
                ingest::store_text(tx, Some(name), text, document)
            })?
            .with_context(|| format!("storing {name}"));
            match &outcome {
                Ok(ingested) if ingested.created => summary.texts_added += 1,
                Ok(_) => summary.texts_already_stored += 1,
                Err(_) => {}
            }
            let failed = outcome.is_err();
            done.reports.push((*file, outcome.map(FileOutcome::Text)));
            Ok(stored(1, text.len(), failed))
        }
        Step::Mail(prepared) => {
            summary.messages_read += 1;
            summary.parts_not_read.extend(parts_not_read(prepared));
            if !prepared.document.runs.is_empty() {
                summary.messages_with_results += 1;
            }
            let outcome = in_savepoint(writer, alone, |tx| store_mail(tx, prepared))?;
            match &outcome {
                Ok(MailOutcome::Stored {
                    runs,
                    quotes,
                    headers_only,
                    ..
                }) => {
                    summary.messages_added += 1;
                    summary.messages_headers_only += usize::from(*headers_only);
                    summary.runs_added += runs;
                    summary.runs_quoted += quotes;
                }
                Ok(MailOutcome::AlreadyStored(_)) => summary.messages_already_stored += 1,
                Err(error) => summary.failures.push(MailFailure {
                    source_name: prepared.source_name.clone(),
                    why: format!("{error:#}"),
                }),
            }
            Ok(stored(1, prepared.mail.text.len(), outcome.is_err()))
        }
        Step::Known => {
            summary.messages_read += 1;
            summary.messages_already_stored += 1;
            summary.messages_known_unread += 1;
            Ok(stored(0, 0, false))
        }
        Step::MailFailed(failure) => {
            summary.messages_read += 1;
            summary.failures.push(failure.clone());
            Ok(stored(0, 0, false))
        }
        Step::MailFileDone { file, messages } => {
            let messages = *messages;
            done.reports
                .push((*file, Ok(FileOutcome::Mail { messages })));
            Ok(stored(0, 0, false))
        }
        Step::FileFailed { file, why } => {
            done.reports.push((*file, Err(anyhow::anyhow!("{why}"))));
            Ok(stored(0, 0, false))
        }
        Step::Mark(mark) => {
            store::set_archive_mark(writer.tx(), mark)
                .with_context(|| format!("recording how far {} is read", mark.archive))?;
            Ok(stored(0, 0, false))
        }
        Step::Unchanged { file } => {
            done.reports.push((*file, Ok(FileOutcome::Unchanged)));
            Ok(stored(0, 0, false))
        }
        Step::UrlMark(mark) => {
            store::set_url_mark(writer.tx(), mark)
                .with_context(|| format!("recording what the server said of {}", mark.url))?;
            Ok(stored(0, 0, false))
        }
    }
}

/// Runs `store`, under a savepoint when `alone`
/// ([`store::Writer::in_savepoint`]), else straight in the transaction.
fn in_savepoint<T>(
    writer: &store::Writer,
    alone: bool,
    store: impl FnOnce(&Transaction) -> anyhow::Result<T>,
) -> anyhow::Result<anyhow::Result<T>> {
    if alone {
        writer.in_savepoint(store)
    } else {
        Ok(store(writer.tx()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(bytes: usize) -> Step {
        Step::Text {
            file: 0,
            name: String::new(),
            text: "x".repeat(bytes),
            document: Box::default(),
        }
    }

    #[test]
    fn the_queue_holds_at_most_its_bytes_but_a_large_step_goes_alone() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (sender, receiver) = queue();
        let half = QUEUE_BYTES / 2 + 1;
        let sent = AtomicUsize::new(0);
        // Waits for the sender to have sent `n`, then a little more: it
        // must not send another meanwhile.
        let sent_just = |n: usize| {
            while sent.load(Ordering::SeqCst) < n {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            sent.load(Ordering::SeqCst)
        };
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for step in [text_of(half), text_of(half), text_of(2 * QUEUE_BYTES)] {
                    sender.send((step, 0)).unwrap();
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            });
            // The second half does not fit beside the first.
            assert_eq!(sent_just(1), 1);
            receiver.recv().unwrap();
            // Nor the large one beside the second; alone, it goes.
            assert_eq!(sent_just(2), 2);
            receiver.recv().unwrap();
            let (step, _) = receiver.recv().unwrap();
            assert_eq!(step.held_bytes(), 2 * QUEUE_BYTES);
        });
        assert_eq!(sender.budget.lock().0, 0);
    }

    #[test]
    fn a_sender_waiting_for_room_gives_up_when_the_writer_is_gone() {
        let (sender, receiver) = queue();
        sender.send((text_of(QUEUE_BYTES), 0)).unwrap();
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| sender.send((text_of(1), 0)));
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(receiver);
            assert_eq!(waiting.join().unwrap(), Err(()));
        });
    }
}
