//! The steps a source hands the writer, and the sink it hands them to.

use std::ops::ControlFlow;

use parsers::Document;
use rusqlite::Connection;

use std::sync::mpsc::Receiver;

use super::prepare::Job;
use super::queue::{self, Held};
use crate::intake::{MailFailure, PreparedMail, RawMail};
use crate::store::{self, ArchivedText};

/// One thing for the writer to store or record, in the order read.
pub enum Step {
    /// A text, decoded and parsed: one submission. `name` is its file
    /// name (what names the submission), `shown` how people know it.
    Text {
        name: String,
        shown: String,
        text: String,
        /// What the text is found by among those stored, hashed by the
        /// source, not by the writer.
        hashes: Box<crate::ingest::TextHashes>,
        document: Box<Document>,
        title: Title,
    },
    /// One message, decoded and parsed.
    Mail(Box<PreparedMail>),
    /// A message that could not be read, and why.
    MailFailed(MailFailure),
    /// A message stored already, known by its raw bytes: not read.
    Known,
    /// A file's last step: every message of it was handed over, or it
    /// could not be read, or it was not read for it has not changed.
    FileEnd { shown: String, end: FileEnd },
    /// How far a git archive is read: stored in the transaction that
    /// stores the last message of the commits up to it, never before.
    ArchiveMark(Box<store::ArchiveMark>),
    /// What the server said of a page fetched by its address, all of
    /// whose messages were handed over.
    UrlMark(Box<store::UrlMark>),
    /// The messages the source is about to hand over: what a progress
    /// bar counts up to.
    Expect(u64),
    /// The full text of a message stored with its header block only,
    /// read back from the archive that keeps it (the thread context of
    /// results).
    Restore {
        submission_id: i64,
        prepared: Box<PreparedMail>,
    },
    /// Something that could not be read that is no message of its own (a
    /// thread's context gone from its archive), and why.
    Failed(MailFailure),
    /// A question for the database, asked once every step before it is
    /// committed ([`Sink::ask`]).
    Ask(Box<dyn FnOnce(&Connection) + Send>),
    /// A message being prepared by a worker ([`Sink::send_raw`]): the
    /// writer waits for its step here, in the order read. `bytes` are its
    /// raw bytes, what the queue counts; `source_name` names it should
    /// its worker give no answer.
    Pending {
        answer: Receiver<Step>,
        bytes: usize,
        source_name: String,
    },
}

/// How a text stored without a Subject of its own is titled
/// ([`crate::ingest::Naming`], owned, so that it can wait in the queue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Title {
    Named,
    Pasted,
    Typed(String),
}

impl Title {
    pub fn naming(&self) -> crate::ingest::Naming<'_> {
        match self {
            Title::Named => crate::ingest::Naming::Named,
            Title::Pasted => crate::ingest::Naming::Pasted,
            Title::Typed(title) => crate::ingest::Naming::Typed(title),
        }
    }
}

/// How a file ended ([`Step::FileEnd`]).
pub enum FileEnd {
    /// Mail: its `messages` were handed over.
    Mail { messages: usize },
    /// It could not be read at all, and why (the error's chain).
    Failed(String),
    /// Fetched by its address, it has not changed since it was read.
    Unchanged,
}

impl Held for (usize, Step) {
    /// The text it holds (a document and a message's decoded text are
    /// of its size).
    fn held_bytes(&self) -> usize {
        match &self.1 {
            Step::Text { text, .. } => text.len(),
            Step::Mail(prepared) | Step::Restore { prepared, .. } => prepared.mail.text.len(),
            Step::Pending { bytes, .. } => *bytes,
            _ => 0,
        }
    }
}

/// Where a source hands its steps, on the import's reading thread: to
/// the writer's queue, stamped with the source's place, and with the
/// mails stored already to ask.
pub struct Sink<'a> {
    pub(super) source: usize,
    pub(super) sender: &'a queue::Sender<(usize, Step)>,
    pub(super) known: &'a mut store::KnownMails,
    /// Where messages go to be prepared on the workers.
    pub(super) jobs: &'a std::sync::mpsc::Sender<Job>,
}

impl Sink<'_> {
    /// Hands `step` over with the bytes of the input it accounts for (what
    /// a progress bar counts); breaks when the writer is gone (storing
    /// failed): the source then stops reading.
    pub fn send(&mut self, step: Step, on_disk: u64) -> ControlFlow<()> {
        match self.sender.send(((self.source, step), on_disk)) {
            Ok(()) => ControlFlow::Continue(()),
            Err(()) => ControlFlow::Break(()),
        }
    }

    /// Hands over a message to be decoded and parsed by the import's
    /// workers, in its place among the steps; `archived` says where an
    /// archive keeps it. Breaks when the writer is gone.
    pub fn send_raw(
        &mut self,
        raw: RawMail,
        archived: Option<ArchivedText>,
        on_disk: u64,
    ) -> ControlFlow<()> {
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        let (bytes, source_name) = (raw.raw.len(), raw.source_name.clone());
        let job = Job {
            raw,
            archived,
            reply,
        };
        if self.jobs.send(job).is_err() {
            return ControlFlow::Break(());
        }
        let pending = Step::Pending {
            answer,
            bytes,
            source_name,
        };
        self.send(pending, on_disk)
    }

    /// Whether the message whose raw bytes hash to `raw_sha256` is stored:
    /// such a message is handed over as [`Step::Known`], not decoded.
    pub fn known(&mut self, raw_sha256: &str) -> bool {
        self.known.holds(raw_sha256)
    }

    /// Asks the database `question` once every step handed over before is
    /// committed, and waits for the answer: what a source can only know
    /// from what it stored (the thread context its messages want).
    pub fn ask<T: Send + 'static>(
        &mut self,
        question: impl FnOnce(&Connection) -> T + Send + 'static,
    ) -> ControlFlow<(), T> {
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        let asked = Step::Ask(Box::new(move |conn| {
            let _ = reply.send(question(conn));
        }));
        self.send(asked, 0)?;
        match answer.recv() {
            Ok(answer) => ControlFlow::Continue(answer),
            Err(_) => ControlFlow::Break(()),
        }
    }
}
