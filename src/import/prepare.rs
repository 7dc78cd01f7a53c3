//! Messages decoded and parsed on several threads at once, handed to the
//! writer in the order they were read.
//!
//! A source hands a raw message over ([`super::Sink::send_raw`]): it goes
//! to the workers as a job, and its place in the writer's queue is taken
//! at once by a [`super::Step::Pending`] holding where the job's answer
//! will come. The writer waits on each in turn, so the order is the
//! order read, and what is in flight is what the queue holds: at most
//! [`crate::limits::QUEUE`] messages and [`crate::limits::QUEUE_BYTES`]
//! of their bytes.

use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use super::step::Step;
use crate::ingest::Verbatim;
use crate::intake::RawMail;
use crate::limits::MAX_PREPARE_THREADS;
use crate::store::ArchivedText;

/// One message to prepare, and where its step goes.
pub(super) struct Job {
    pub raw: RawMail,
    /// Where an archive keeps it ([`crate::intake::PreparedMail::archived`]).
    pub archived: Option<ArchivedText>,
    pub reply: SyncSender<Step>,
}

/// The workers' side: the jobs, taken by whichever worker is free.
pub(super) type Jobs = Arc<Mutex<Receiver<Job>>>;

/// How many threads prepare messages: the machine's cores, at most
/// [`MAX_PREPARE_THREADS`].
pub(super) fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_PREPARE_THREADS)
}

/// A worker: prepares jobs until the sources are done (the sending side
/// is dropped). A job whose answer nobody waits for (the writer is gone)
/// is dropped.
pub(super) fn work(jobs: &Jobs, stored: Verbatim) {
    loop {
        let job = match jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv()
        {
            Ok(job) => job,
            Err(_) => return,
        };
        let step = match job.raw.prepare(stored) {
            Ok(mut prepared) => {
                prepared.archived = job.archived;
                Step::Mail(Box::new(prepared))
            }
            Err(failure) => Step::MailFailed(failure),
        };
        let _ = job.reply.send(step);
    }
}
