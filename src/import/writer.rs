//! The writer's side of an import: stores steps in transactions and tells
//! each file once the transaction holding the last of it is committed.
//!
//! The steps of a transaction are stored one after the other with no
//! savepoint: a savepoint per text would make the full-text index write
//! out its pending terms each time, and most batches hold no failure.
//! When one text or message fails, the transaction is rolled back and its
//! steps stored again, each under its own savepoint, so the failing one
//! leaves nothing and the others are kept. The steps of a transaction are
//! kept until it commits for that ([`BATCH_BYTES`] of text at most).

use std::path::Path;

use anyhow::Context;
use rusqlite::Transaction;

use super::queue::Receiver;
use super::step::{FileEnd, Step};
use super::{Commit, FileDone, FileOutcome, ImportSummary, Imported, Observer, Options};
use crate::ingest::{self, MailOutcome};
use crate::intake::{parts_not_read, MailFailure, PreparedMail};
use crate::limits::{BATCH_BYTES, MAX_LOCK_HOLD};
use crate::store;

type Item = ((usize, Step), u64);

/// Stores what `receiver` brings until the reading thread is done, as
/// `options` commit, adding what each transaction did to `imported` once
/// it is committed. A transaction stops taking texts and messages after
/// its batch's items, [`BATCH_BYTES`] of text, or [`MAX_LOCK_HOLD`],
/// whichever comes first; finishing what it took (see [`MAX_LOCK_HOLD`])
/// and committing follow, so other writers (the server's uploads) wait
/// about twice that at most.
pub(super) fn write_steps(
    conn: &mut rusqlite::Connection,
    receiver: Receiver<(usize, Step)>,
    options: Options<'_>,
    imported: &mut Imported,
    observer: &mut dyn Observer,
) -> anyhow::Result<()> {
    // Each batch's pages are copied into the database by the checkpoints
    // of a thread of its own while the next batch is written (see
    // store::checkpoint).
    let own = match (options.checkpointer, conn.path().filter(|p| !p.is_empty())) {
        (None, Some(path)) => Some(store::Checkpointer::start(Path::new(path))?),
        _ => None,
    };
    let checkpointer = options.checkpointer.or(own.as_ref());
    let (batch_items, alone_on_failure) = match options.commit {
        Commit::InBatches { items } => (items.max(1), true),
        Commit::AllOrNothing => (usize::MAX, false),
    };
    store::with_bulk_write(conn, |conn| {
        let mut next = None;
        // Waiting for the first step of a batch holds no lock.
        while let Some(first) = next.take().or_else(|| receive(&receiver, observer, None)) {
            if let ((_, Step::Ask(question)), _) = first {
                question(conn);
                continue;
            }
            let mut writer =
                store::Writer::begin(conn, checkpointer).context("starting the transaction")?;
            observer.began(writer.tx())?;
            let mut batch = Batch {
                items: batch_items,
                kept: alone_on_failure.then(Vec::new),
                done: Written::default(),
            };
            let failed = batch.write(&writer, first, &receiver, observer, &mut next)?;
            if let Some(error) = failed {
                // Stored again item by item, so that only the text or
                // message at fault is left out.
                let Some(kept) = batch.kept else {
                    return Err(error);
                };
                drop(writer);
                writer =
                    store::Writer::begin(conn, checkpointer).context("starting the transaction")?;
                observer.began(writer.tx())?;
                batch.done = Written::default();
                for ((source, step), _) in &kept {
                    write_step(&writer, *source, step, true, &mut batch.done, observer)?;
                }
            }
            let finished = writer
                .finish()
                .context("storing the attributes and indexing the new submissions")?;
            observer.committing()?;
            finished
                .commit()
                .context("committing a batch of texts and messages")?;
            imported.summary.add(batch.done.summary);
            for file in batch.done.files {
                observer.file_done(&file);
                imported.files.push(file);
            }
        }
        Ok(())
    })
}

/// The steps of one transaction.
struct Batch {
    /// The most texts and messages it takes.
    items: usize,
    /// The steps stored, kept for a second try item by item should one
    /// fail; `None` in an import of one transaction, which has no second
    /// try (each step's text goes as soon as SQLite has its copy).
    kept: Option<Vec<Item>>,
    done: Written,
}

impl Batch {
    /// Stores `first` and the steps after it in `writer` until the batch
    /// is full, [`MAX_LOCK_HOLD`] has passed (in batches), a question
    /// comes (left in `next`) or the input ends; then the batch's
    /// attributes, in one statement (store::insert_run_attrs). Says why
    /// the batch failed, if it did: a text or message at fault, or its
    /// attributes.
    fn write(
        &mut self,
        writer: &store::Writer,
        first: Item,
        receiver: &Receiver<(usize, Step)>,
        observer: &mut dyn Observer,
        next: &mut Option<Item>,
    ) -> anyhow::Result<Option<anyhow::Error>> {
        let started = std::time::Instant::now();
        let (mut items, mut text_bytes) = (0, 0);
        let mut current = Some(first);
        while let Some(item) = current.take() {
            let ((source, step), on_disk) = &item;
            let stored = write_step(writer, *source, step, false, &mut self.done, observer)?;
            observer.progress(*on_disk);
            if let Some(kept) = &mut self.kept {
                kept.push(item);
            }
            if stored.failure.is_some() {
                return Ok(stored.failure);
            }
            items += stored.items;
            text_bytes += stored.text_bytes;
            let in_batches = self.kept.is_some();
            if items >= self.items || (in_batches && text_bytes >= BATCH_BYTES) {
                break;
            }
            // An import in one transaction waits as long as it takes.
            let left = match in_batches {
                true => match MAX_LOCK_HOLD.checked_sub(started.elapsed()) {
                    Some(left) => Some(left),
                    None => break,
                },
                false => None,
            };
            match receive(receiver, observer, left) {
                Some(item @ ((_, Step::Ask(_)), _)) => *next = Some(item),
                item => current = item,
            }
        }
        Ok(writer
            .write_staged_attrs()
            .err()
            .map(|error| anyhow::Error::new(error).context("storing the runs' attributes")))
    }
}

/// The next step to store, waiting at most `timeout` (`None`: as long as
/// it takes); `None` when there is none. The messages a source is about
/// to hand over are told to `observer` at once: they are nothing to store.
fn receive(
    receiver: &Receiver<(usize, Step)>,
    observer: &mut dyn Observer,
    timeout: Option<std::time::Duration>,
) -> Option<Item> {
    loop {
        let item = match timeout {
            Some(timeout) => receiver.recv_timeout(timeout).ok()?,
            None => receiver.recv().ok()?,
        };
        match item {
            ((_, Step::Expect(messages)), _) => observer.expect(messages),
            // Its worker's answer, in its place.
            (
                (
                    source,
                    Step::Pending {
                        answer,
                        source_name,
                        ..
                    },
                ),
                on_disk,
            ) => {
                let step = answer.recv().unwrap_or_else(|_| {
                    Step::MailFailed(MailFailure {
                        source_name,
                        why: "it could not be decoded and parsed".to_owned(),
                    })
                });
                return Some(((source, step), on_disk));
            }
            item => return Some(item),
        }
    }
}

/// What a transaction's steps did, applied once it commits.
#[derive(Default)]
struct Written {
    summary: ImportSummary,
    files: Vec<FileDone>,
}

/// What storing one step took and whether it failed.
struct Stored {
    /// Texts and messages stored (0 or 1).
    items: usize,
    text_bytes: usize,
    /// Why the text or message could not be stored.
    failure: Option<anyhow::Error>,
}

impl Stored {
    fn nothing() -> Stored {
        Stored {
            items: 0,
            text_bytes: 0,
            failure: None,
        }
    }
}

/// Stores one step of the source at `source` in `writer`, under a
/// savepoint of its own when `alone`, and records what it did in `done`.
/// The error is the database's or the observer's; a text or message that
/// cannot be stored is [`Stored::failure`].
fn write_step(
    writer: &store::Writer,
    source: usize,
    step: &Step,
    alone: bool,
    done: &mut Written,
    observer: &mut dyn Observer,
) -> anyhow::Result<Stored> {
    let summary = &mut done.summary;
    match step {
        Step::Text {
            name,
            shown,
            text,
            hashes,
            document,
            title,
        } => {
            let stored = in_savepoint(writer, alone, |tx| {
                let text = std::borrow::Cow::Borrowed(text.as_str());
                ingest::store_titled_text(tx, Some(name), text, hashes, document, title.naming())
            })?
            .with_context(|| format!("storing {name}"));
            let (outcome, failure) = match stored {
                Ok(ingested) => {
                    match ingested.created {
                        true => summary.texts_added += 1,
                        false => summary.texts_already_stored += 1,
                    }
                    observer.stored(writer.tx(), ingested.submission_id)?;
                    (Ok(FileOutcome::Text(ingested)), None)
                }
                Err(error) => (Err(format!("{error:#}")), Some(error)),
            };
            done.file(source, shown, outcome);
            Ok(Stored {
                items: 1,
                text_bytes: text.len(),
                failure,
            })
        }
        Step::Mail(prepared) => write_mail(writer, prepared, alone, summary, observer),
        Step::Known => {
            summary.messages_read += 1;
            summary.messages_already_stored += 1;
            summary.messages_known_unread += 1;
            Ok(Stored::nothing())
        }
        Step::MailFailed(failure) => {
            summary.messages_read += 1;
            summary.failures.push(failure.clone());
            Ok(Stored::nothing())
        }
        Step::Failed(failure) => {
            summary.failures.push(failure.clone());
            Ok(Stored::nothing())
        }
        Step::FileEnd { shown, end } => {
            let outcome = match end {
                FileEnd::Mail { messages } => Ok(FileOutcome::Mail {
                    messages: *messages,
                }),
                FileEnd::Unchanged => Ok(FileOutcome::Unchanged),
                FileEnd::Failed(why) => Err(why.clone()),
            };
            done.file(source, shown, outcome);
            Ok(Stored::nothing())
        }
        Step::ArchiveMark(mark) => {
            store::set_archive_mark(writer.tx(), mark)
                .with_context(|| format!("recording how far {} is read", mark.archive))?;
            Ok(Stored::nothing())
        }
        Step::UrlMark(mark) => {
            store::set_url_mark(writer.tx(), mark)
                .with_context(|| format!("recording what the server said of {}", mark.url))?;
            Ok(Stored::nothing())
        }
        Step::Restore {
            submission_id,
            prepared,
        } => {
            ingest::restore_archived_text(writer.tx(), *submission_id, prepared)?;
            summary.texts_restored += 1;
            Ok(Stored {
                items: 1,
                text_bytes: prepared.mail.text.len(),
                failure: None,
            })
        }
        // Taken by the batch loop (`receive`, `write_steps`), never stored.
        Step::Expect(_) | Step::Ask(_) | Step::Pending { .. } => Ok(Stored::nothing()),
    }
}

/// Stores one message ([`Step::Mail`]), counting it in `summary`.
fn write_mail(
    writer: &store::Writer,
    prepared: &PreparedMail,
    alone: bool,
    summary: &mut ImportSummary,
    observer: &mut dyn Observer,
) -> anyhow::Result<Stored> {
    summary.messages_read += 1;
    summary.parts_not_read.extend(parts_not_read(prepared));
    if !prepared.document.runs.is_empty() {
        summary.messages_with_results += 1;
    }
    let failure = match in_savepoint(writer, alone, |tx| ingest::store_mail(tx, prepared))? {
        Ok(MailOutcome::Stored {
            runs,
            quotes,
            headers_only,
            submission_id,
        }) => {
            summary.messages_added += 1;
            summary.messages_headers_only += usize::from(headers_only);
            summary.runs_added += runs;
            summary.runs_quoted += quotes;
            observer.stored(writer.tx(), submission_id)?;
            None
        }
        Ok(MailOutcome::AlreadyStored(submission_id)) => {
            summary.messages_already_stored += 1;
            observer.stored(writer.tx(), submission_id)?;
            None
        }
        Err(error) => {
            summary.failures.push(MailFailure {
                source_name: prepared.source_name.clone(),
                why: format!("{error:#}"),
            });
            Some(error)
        }
    };
    Ok(Stored {
        items: 1,
        text_bytes: prepared.mail.text.len(),
        failure,
    })
}

impl Written {
    /// Records a file's outcome; one that failed is also a failure of the
    /// summary, under the name people know it by.
    fn file(&mut self, source: usize, shown: &str, outcome: Result<FileOutcome, String>) {
        if let Err(why) = &outcome {
            self.summary.failures.push(MailFailure {
                source_name: shown.to_owned(),
                why: why.clone(),
            });
        }
        self.files.push(FileDone {
            source,
            shown: shown.to_owned(),
            outcome,
        });
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
