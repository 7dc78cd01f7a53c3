//! Importing, one way for every source: files and folders on disk, an
//! upload's parts, the months of a pipermail archive fetched by address,
//! the epochs of a public-inbox archive, inputs read already (the demo's
//! logs). Each source reads its input into [`Step`]s; [`import`] owns the
//! rest:
//!
//! ```text
//!   sources (reading thread)          writer (the caller's thread)
//!   ─────────────────────────         ─────────────────────────────
//!   Files     ─┐                       batch of steps ── Writer::begin
//!   Inputs     ├─ Step ─► queue ─────► store_text / store_mail / marks
//!   Months     │   (bounded in steps   (a failing item: the batch again,
//!   Epochs    ─┘    and in bytes)       each under its own savepoint)
//!        ▲                              finish, commit ─► Observer
//!        └──── Sink::ask (after commit: thread context to bring back)
//! ```
//!
//! Bytes become inputs in [`crate::intake`], each with its
//! [`crate::intake::Policy`]; inputs become rows in [`crate::ingest`].
//! A reading thread reads, decodes and parses the sources in order while
//! the caller's thread stores what it has read, many texts and messages
//! per transaction ([`Commit::InBatches`]) or all in one
//! ([`Commit::AllOrNothing`], an upload). A file is told
//! ([`Observer::file_done`]) only once the transaction holding all of it
//! is committed: a crash at any moment loses no file told stored, and
//! leaves no part of one. The next source (a Maildir, a news server) is
//! one more [`Source`].

use std::ops::ControlFlow;

use rusqlite::{Connection, Transaction};

mod files;
mod inputs;
pub mod pipermail;
mod prepare;
pub mod public_inbox;
mod queue;
mod step;
mod summary;
mod writer;

pub use files::Files;
pub use inputs::Inputs;
pub use step::{FileEnd, Sink, Step, Title};
pub use summary::{FileDone, FileOutcome, ImportSummary};

use crate::limits::BATCH_ITEMS;
use crate::store;

/// Something to import: read on the import's reading thread, in order,
/// into steps handed to `sink`. Reading stops when the sink breaks (the
/// writer is gone: storing failed). What a source learns while reading
/// (the commits of an archive it read, say) it keeps, for its caller to
/// ask once [`import`] returns.
pub trait Source: Send {
    fn read(&mut self, sink: &mut Sink<'_>) -> ControlFlow<()>;
}

/// How an import commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// Many texts and messages per transaction: a transaction stops
    /// taking them after `items` of them, [`crate::limits::BATCH_BYTES`]
    /// of text, or [`crate::limits::MAX_LOCK_HOLD`], whichever comes
    /// first. Every text and message is all-or-nothing: one that fails
    /// leaves nothing and is counted among the failures; the others are
    /// kept.
    InBatches { items: usize },
    /// Everything in one transaction (an upload): the first text or
    /// message that cannot be stored fails the import, which then
    /// stores nothing.
    AllOrNothing,
}

/// How [`import`] writes.
#[derive(Clone, Copy)]
pub struct Options<'c> {
    pub commit: Commit,
    /// The checkpointer to ask after each commit (the server's); `None`:
    /// the import starts its own when the database is a file.
    pub checkpointer: Option<&'c store::Checkpointer>,
}

impl Default for Options<'_> {
    /// In batches of [`BATCH_ITEMS`], checkpointed by a thread of its own.
    fn default() -> Self {
        Options::in_batches(BATCH_ITEMS)
    }
}

impl Options<'_> {
    /// In batches of at most `items` texts and messages.
    pub fn in_batches(items: usize) -> Options<'static> {
        Options {
            commit: Commit::InBatches { items },
            checkpointer: None,
        }
    }
}

/// What an import tells as it goes. Every method has a default that does
/// nothing, so `()` observes nothing.
pub trait Observer {
    /// The bytes of input just stored (as given: gzipped or not).
    fn progress(&mut self, _on_disk: u64) {}

    /// A source is about to hand over `_messages` more messages.
    fn expect(&mut self, _messages: u64) {}

    /// A file, once the transaction holding the last of it is committed.
    fn file_done(&mut self, _done: &FileDone) {}

    /// A transaction has begun (before anything of it is stored).
    fn began(&mut self, _tx: &Transaction) -> anyhow::Result<()> {
        Ok(())
    }

    /// A submission, new or stored already, has been stored in `_tx`; an
    /// error rolls the transaction back and ends the import with it. A
    /// batch stored again item by item tells its submissions again.
    fn stored(&mut self, _tx: &Transaction, _submission: i64) -> anyhow::Result<()> {
        Ok(())
    }

    /// A transaction's writes are finished and it is about to commit: an
    /// error here rolls it back and ends the import with it.
    fn committing(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

impl Observer for () {}

/// What an import did.
#[derive(Debug, Default)]
pub struct Imported {
    pub summary: ImportSummary,
    /// Every file of every source, in the order read, with what became
    /// of it.
    pub files: Vec<FileDone>,
}

impl Imported {
    /// The files of the source at `source`, in order.
    pub fn files_of(&self, source: usize) -> impl Iterator<Item = &FileDone> {
        self.files.iter().filter(move |done| done.source == source)
    }
}

/// Imports `sources`, one after the other, as `options` says: a second
/// thread reads them, the messages are decoded and parsed by as many
/// threads as the machine has cores ([`prepare`]), and this one stores
/// what is read, in the order read ([`writer`]), telling `observer` as
/// it goes. The messages
/// stored already are known by their raw bytes before they are decoded
/// ([`store::KnownMails`]), once for every source. An error is the
/// database's (or, for [`Commit::AllOrNothing`], the first item's that
/// could not be stored, or the observer's); what could not be read is in
/// the summary's failures.
pub fn import(
    conn: &mut Connection,
    sources: &mut [&mut dyn Source],
    options: Options<'_>,
    observer: &mut dyn Observer,
) -> anyhow::Result<Imported> {
    let mut known = store::KnownMails::of(conn);
    let stored = crate::ingest::Verbatim::of(conn);
    let mut imported = Imported::default();
    std::thread::scope(|scope| {
        let (sender, receiver) = queue::queue();
        let (jobs, waiting) = std::sync::mpsc::channel();
        let waiting: prepare::Jobs = std::sync::Arc::new(std::sync::Mutex::new(waiting));
        for _ in 0..prepare::threads() {
            let waiting = std::sync::Arc::clone(&waiting);
            scope.spawn(move || prepare::work(&waiting, stored));
        }
        scope.spawn(move || {
            for (at, source) in sources.iter_mut().enumerate() {
                let mut sink = Sink {
                    source: at,
                    sender: &sender,
                    known: &mut known,
                    jobs: &jobs,
                };
                if source.read(&mut sink).is_break() {
                    break;
                }
            }
            // Dropping `jobs` here lets the workers go once the last
            // message is prepared.
        });
        writer::write_steps(conn, receiver, options, &mut imported, observer)
    })?;
    Ok(imported)
}
