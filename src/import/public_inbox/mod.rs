//! public-inbox archives in, kept current: the git repositories that
//! lore-style list archives are mirrored and cloned as.
//!
//! A v2 archive is a folder of epoch repositories, `git/0.git`,
//! `git/1.git`, …, whose commits each hold one message as the blob `m`,
//! or remove one, holding it as `d`. A v1 archive is one bare repository
//! whose tree keeps every message at a path made from the SHA-1 of its
//! Message-ID (`ab/cdef…`); a commit adds (or removes) one. Both are read
//! commit by commit, oldest first, with gitoxide (no `git` is run).
//!
//! Each message is prepared as one of an mbox
//! ([`crate::intake::prepare_mail`]), its size admitted by the same
//! [`Policy`], and stored by the import's writer ([`super::import`]), so
//! Message-IDs, threads and quotes are those of any mail; a message
//! already stored from another source (an mbox of the same list) is
//! found by its Message-ID ([`crate::ingest::store_mail`]) and stored once.
//!
//! The database keeps, per archive (its canonical path) and epoch, the
//! last commit read ([`store::ArchiveMark`]), written in the transaction
//! that stores that commit's message: importing again reads only the
//! commits after it, and a crash at any moment skips no message.
//!
//! A message whose object cannot be read (missing from a mirror caught
//! mid-fetch, or an I/O error) may be readable next time: it is
//! reported, the messages after it are stored, and its epoch's mark
//! stays before it, so the next import reads it again (the messages
//! after it are found stored by their bytes and skipped, as any known
//! message is). A failure that reading again cannot mend (a message too
//! large, something that is not a message, mail that cannot be read)
//! moves the mark on. [`Start::Beginning`] (`benchlog ingest --reread`)
//! reads every epoch from its first commit again.
//!
//! A message that a later commit of the same import deletes (a `d`, or a
//! v1 file removed) is not stored; one stored by an earlier import stays
//! stored (benchlog keeps what it found; the deletion is counted).

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use gix::ObjectId;
use rusqlite::Connection;

mod plan;

use super::{Sink, Source, Step};
use crate::intake::{prepare_hashed_mail, raw_sha256, MailFailure, Policy, PreparedMail, RawMail};
use crate::limits::{BATCH_BYTES, MAX_INPUT_BYTES, PACK_WINDOW_OBJECTS};
use crate::store::{self, ArchiveMark, ArchivedText};
use plan::{plan_epoch, Change, EpochPlan};

/// A public-inbox archive found at a path.
#[derive(Debug, Clone)]
pub struct Inbox {
    /// Its canonical path: what its marks are recorded under.
    pub path: PathBuf,
    pub version: Version,
    /// Its repositories and their epoch numbers, in order: `git/N.git`
    /// (v2), or the one repository as epoch 0 (v1).
    pub epochs: Vec<(u32, PathBuf)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

/// The public-inbox archive at `path`, if it is one: a folder holding
/// `git/` (v2), or a bare git repository (v1). `None`: something else (a
/// file, a folder of files), read as today. A `git/` folder without an
/// epoch repository is an error, not a folder of files.
pub fn find(path: &Path) -> anyhow::Result<Option<Inbox>> {
    if !path.is_dir() {
        return Ok(None);
    }
    let git = path.join("git");
    if git.is_dir() {
        let mut epochs = Vec::new();
        for entry in
            std::fs::read_dir(&git).with_context(|| format!("listing {}", git.display()))?
        {
            let entry = entry.with_context(|| format!("listing {}", git.display()))?;
            let name = entry.file_name();
            let number = name
                .to_str()
                .and_then(|name| name.strip_suffix(".git"))
                .and_then(|number| number.parse::<u32>().ok());
            if let Some(number) = number {
                epochs.push((number, entry.path()));
            }
        }
        if epochs.is_empty() {
            bail!(
                "{} holds no epoch repository (0.git, 1.git, …): not a public-inbox archive",
                git.display()
            );
        }
        epochs.sort();
        return Ok(Some(Inbox {
            path: canonical(path)?,
            version: Version::V2,
            epochs,
        }));
    }
    if path.join("HEAD").is_file() && path.join("objects").is_dir() {
        let path = canonical(path)?;
        return Ok(Some(Inbox {
            epochs: vec![(0, path.clone())],
            path,
            version: Version::V1,
        }));
    }
    Ok(None)
}

fn canonical(path: &Path) -> anyhow::Result<PathBuf> {
    std::fs::canonicalize(path).with_context(|| format!("reading {}", path.display()))
}

/// What an archive's import read, beside the messages' summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InboxRead {
    /// Commits read now, and commits skipped as read by an earlier import.
    pub commits_read: u64,
    pub commits_skipped: u64,
    /// Messages the commits read add.
    pub messages: u64,
    /// Deletions (`d`, or a v1 file removed) among the commits read, and
    /// of the messages added, those a later commit of the same epoch
    /// deletes (not stored).
    pub deletions: u64,
    pub deleted_before_read: u64,
    /// Epochs whose recorded commit is no longer in their history (the
    /// archive was rewritten): read whole again, their messages already
    /// stored found as such.
    pub marks_lost: Vec<u32>,
    /// Epochs whose mark stays before a message that could not be read
    /// for a reason that may pass (a missing object, an I/O error), and
    /// how many such messages each had: the next import reads them again.
    pub held_back: Vec<(u32, u64)>,
}

impl InboxRead {
    /// Counts what an epoch's plan reads: its commits and messages, and
    /// the messages a later commit of it deletes.
    fn count(&mut self, plan: &EpochPlan, deleted: &HashSet<ObjectId>) {
        self.commits_skipped += plan.skipped;
        let mut last = None;
        for (commit, change) in &plan.changes {
            if last != Some(commit) {
                self.commits_read += 1;
                last = Some(commit);
            }
            match change {
                Change::Message(blob) if deleted.contains(blob) => {
                    self.messages += 1;
                    self.deleted_before_read += 1;
                }
                Change::Message(_) => self.messages += 1,
                Change::Deletion(_) => self.deletions += 1,
                Change::NotMessage(_) | Change::Nothing => {}
            }
        }
    }

    /// The lines printed for the archive at `path`.
    pub fn lines(&self, path: &Path) -> Vec<String> {
        let mut lines = vec![format!(
            "{}: {} new commits read ({} messages, {} deletions); {} commits skipped, read by an earlier import",
            path.display(),
            self.commits_read,
            self.messages,
            self.deletions,
            self.commits_skipped
        )];
        if self.deleted_before_read > 0 {
            lines.push(format!(
                "{} messages not stored: a later commit of the archive deletes them",
                self.deleted_before_read
            ));
        }
        for epoch in &self.marks_lost {
            lines.push(format!(
                "epoch {epoch}: the commit read last time is no longer in its history (rewritten?); read it whole again"
            ));
        }
        for (epoch, messages) in &self.held_back {
            lines.push(format!(
                "epoch {epoch}: {messages} messages could not be read now (a missing object: a mirror mid-fetch?); the next import reads them again"
            ));
        }
        lines
    }
}

/// What an archive import keeps of the messages that hold no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepTexts {
    /// Their header block and where the archive keeps the rest; the text
    /// of messages holding runs or near misses, and of their thread
    /// context, in full (`ingest::store_mail`).
    WithFindings,
    /// Every message's text in full.
    All,
}

/// Where an import starts reading each epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// After the commit an earlier import read last (its mark).
    Mark,
    /// At the epoch's first commit (`benchlog ingest --reread`): the
    /// messages stored already are found by their bytes and skipped.
    Beginning,
}

/// The epochs of an archive, to import from where [`Start`] says: a
/// [`Source`] whose reading walks each epoch's history back to its mark,
/// or to its first commit (a commit id and a blob id per commit, held
/// until the epoch is read: about 65 bytes a message), then reads and
/// prepares its messages one by one, oldest first, and last brings back
/// the thread context the results stored want. What it read is
/// [`Epochs::finish`]'s.
pub struct Epochs<'i> {
    inbox: &'i Inbox,
    /// Its canonical path, as text: what its marks are recorded under.
    archive: String,
    /// Each epoch's mark, in the order of `inbox.epochs`.
    marks: Vec<Option<ArchiveMark>>,
    keep: KeepTexts,
    /// How many texts to bring back per question to the database.
    batch_items: usize,
    read: InboxRead,
    /// What stopped the reading (an epoch that cannot be walked).
    error: Option<anyhow::Error>,
}

impl<'i> Epochs<'i> {
    /// The epochs of `inbox` from `start`, their marks read from `conn`
    /// (all of them, now: the reading thread has no connection).
    pub fn new(
        conn: &Connection,
        inbox: &'i Inbox,
        start: Start,
        keep: KeepTexts,
        batch_items: usize,
    ) -> anyhow::Result<Epochs<'i>> {
        let archive = inbox.path.to_string_lossy().into_owned();
        let mut marks = Vec::with_capacity(inbox.epochs.len());
        for (epoch, _) in &inbox.epochs {
            marks.push(match start {
                Start::Mark => store::archive_mark(conn, &archive, *epoch)
                    .context("reading how far the archive was read")?,
                Start::Beginning => None,
            });
        }
        Ok(Epochs {
            inbox,
            archive,
            marks,
            keep,
            batch_items: batch_items.max(1),
            read: InboxRead::default(),
            error: None,
        })
    }

    /// What the import read of the archive, or what stopped it.
    pub fn finish(self) -> anyhow::Result<InboxRead> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.read),
        }
    }

    /// Plans one epoch, then hands over its messages and marks.
    fn read_one(&mut self, at: usize, sink: &mut Sink<'_>) -> ControlFlow<()> {
        let (epoch, git_dir) = &self.inbox.epochs[at];
        let inbox_name = self.inbox.path.file_name().map_or_else(
            || self.archive.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
        let name = match self.inbox.version {
            Version::V2 => format!("{inbox_name}/git/{epoch}.git"),
            Version::V1 => inbox_name,
        };
        let plan = match plan_epoch(
            *epoch,
            git_dir,
            name,
            self.marks[at].as_ref(),
            &mut self.read,
        ) {
            Ok(plan) => plan,
            Err(error) => {
                self.error = Some(error);
                return ControlFlow::Break(());
            }
        };
        // A message deleted later in the same epoch is not stored at all.
        let deleted: HashSet<ObjectId> = plan
            .changes
            .iter()
            .filter_map(|(_, change)| match change {
                Change::Deletion(blob) => Some(*blob),
                _ => None,
            })
            .collect();
        self.read.count(&plan, &deleted);
        let messages = plan
            .changes
            .iter()
            .filter(|(_, change)| matches!(change, Change::Message(b) if !deleted.contains(b)))
            .count();
        sink.send(Step::Expect(messages as u64), 0)?;
        let mut unread = 0;
        let read = read_epoch(&self.archive, &plan, &deleted, self.keep, &mut unread, sink);
        if unread > 0 {
            self.read.held_back.push((*epoch, unread));
        }
        read
    }
}

impl Source for Epochs<'_> {
    // One epoch is planned, then read, at a time: a plan holds some 65
    // bytes a message, and public-inbox rolls an epoch over at about
    // 1 GB, so what is held stays bounded whatever the archive's size.
    fn read(&mut self, sink: &mut Sink<'_>) -> ControlFlow<()> {
        for at in 0..self.inbox.epochs.len() {
            self.read_one(at, sink)?;
        }
        restore_context(self, sink)
    }
}

/// Opens one repository of an archive, as it is: no discovery upwards,
/// and neither the environment's nor the system's git settings.
fn open(git_dir: &Path) -> anyhow::Result<gix::Repository> {
    let options = gix::open::Options::isolated().open_path_as_is(true);
    gix::open_opts(git_dir, options).with_context(|| {
        format!(
            "{} is not a git repository that can be read: not a public-inbox archive, or a damaged one",
            git_dir.display()
        )
    })
}

/// A repository opened again after every [`PACK_WINDOW_OBJECTS`] objects
/// read through it: dropping an opening unmaps its packs, whose pages
/// read so far count in the import's RSS (a whole pack's worth by the
/// end of an epoch, 267 MB of 410 MB on linux-xfs), so they stay bounded
/// whatever the archive's size.
struct Reopening<'a> {
    git_dir: &'a Path,
    repo: gix::Repository,
    reads: usize,
    window: usize,
    openings: usize,
}

impl<'a> Reopening<'a> {
    fn open(git_dir: &'a Path) -> anyhow::Result<Reopening<'a>> {
        Reopening::with_window(git_dir, PACK_WINDOW_OBJECTS)
    }

    fn with_window(git_dir: &'a Path, window: usize) -> anyhow::Result<Reopening<'a>> {
        Ok(Reopening {
            git_dir,
            repo: open(git_dir)?,
            reads: 0,
            window,
            openings: 1,
        })
    }

    /// The repository, for one more object (or commit and its trees).
    fn for_next(&mut self) -> anyhow::Result<&gix::Repository> {
        self.reads += 1;
        if self.reads > self.window {
            self.repo = open(self.git_dir)?;
            self.reads = 1;
            self.openings += 1;
        }
        Ok(&self.repo)
    }
}

/// Reads the messages of one epoch's plan into `sink`, with a mark after
/// each commit's until a message cannot be read for a reason that may
/// pass (counted in `unread`): the mark stays before it, so that the next
/// import reads it again, and the messages after it are still read.
/// Breaks when the sink does (storing failed).
fn read_epoch(
    archive: &str,
    plan: &EpochPlan,
    deleted: &HashSet<ObjectId>,
    keep: KeepTexts,
    unread: &mut u64,
    sink: &mut Sink<'_>,
) -> ControlFlow<()> {
    let unopened = |error: anyhow::Error| {
        Step::MailFailed(MailFailure {
            source_name: plan.name.clone(),
            why: format!("{error:#}"),
        })
    };
    let mut repo = match Reopening::open(&plan.git_dir) {
        Ok(repo) => repo,
        Err(error) => return sink.send(unopened(error), 0),
    };
    let mut commits = plan.skipped;
    for (i, (commit, change)) in plan.changes.iter().enumerate() {
        let source_name = format!("{}, commit {}", plan.name, commit.to_hex_with_len(12));
        match change {
            Change::Message(blob) if !deleted.contains(blob) => {
                let repo = match repo.for_next() {
                    Ok(repo) => repo,
                    Err(error) => return sink.send(unopened(error), 0),
                };
                let archived = (keep == KeepTexts::WithFindings).then(|| ArchivedText {
                    archive: archive.to_owned(),
                    epoch: plan.epoch,
                    blob: blob.to_string(),
                    text_bytes: 0,
                });
                match read_message(repo, *blob, source_name, unread, sink) {
                    Ok(raw) => sink.send_raw(raw, archived, 1)?,
                    Err(step) => sink.send(step, 1)?,
                }
            }
            Change::NotMessage(what) => {
                let failure = MailFailure {
                    source_name,
                    why: what.clone(),
                };
                sink.send(Step::MailFailed(failure), 0)?;
            }
            Change::Message(_) | Change::Deletion(_) | Change::Nothing => {}
        }
        let last_of_commit = plan
            .changes
            .get(i + 1)
            .is_none_or(|(next, _)| next != commit);
        if last_of_commit && *unread == 0 {
            commits += 1;
            let mark = ArchiveMark {
                archive: archive.to_owned(),
                epoch: plan.epoch,
                commit_id: commit.to_string(),
                commits,
            };
            sink.send(Step::ArchiveMark(Box::new(mark)), 0)?;
        }
    }
    ControlFlow::Continue(())
}

/// Reads the message of `blob`, its size admitted by the import's
/// [`Policy`]: its raw bytes, for the import's workers to prepare, or
/// its step when there is nothing to prepare: known by its bytes, or why
/// it could not be read. One that cannot be read now (a mirror caught
/// mid-fetch, an I/O error) is counted in `unread`: reading it again may
/// work.
fn read_message(
    repo: &gix::Repository,
    blob: ObjectId,
    source_name: String,
    unread: &mut u64,
    sink: &mut Sink<'_>,
) -> Result<RawMail, Step> {
    let mut unreadable = |error: &dyn std::fmt::Display| {
        *unread += 1;
        Step::MailFailed(MailFailure {
            source_name: source_name.clone(),
            why: format!(
                "its message {blob} could not be read: {error} (the next import reads it again)"
            ),
        })
    };
    let policy = Policy::import(MAX_INPUT_BYTES);
    let found = match repo
        .find_header(blob)
        .map(|header| policy.admits(header.size()))
    {
        Ok(Ok(())) => repo.find_blob(blob),
        Ok(Err(why)) => return Err(Step::MailFailed(MailFailure { source_name, why })),
        Err(error) => return Err(unreadable(&error)),
    };
    let found = match found {
        Ok(found) => found,
        Err(error) => return Err(unreadable(&error)),
    };
    let raw_sha256 = raw_sha256(&found.data);
    if sink.known(&raw_sha256) {
        return Err(Step::Known);
    }
    Ok(RawMail {
        source_name,
        raw: found.detach().data,
        raw_sha256,
    })
}

/// Brings back from the archive the text of the messages stored with
/// their headers only that a message holding runs or near misses answers
/// (marked wanted by `ingest::store_mail`, in this import or an earlier
/// one), asked of the database once what was read before is committed,
/// as many per question as the import stores per batch and at most
/// [`BATCH_BYTES`] of text. A blob that is gone, or whose bytes are not
/// those stored (a rewritten archive), is reported and the message keeps
/// its headers only.
fn restore_context(epochs: &mut Epochs<'_>, sink: &mut Sink<'_>) -> ControlFlow<()> {
    let mut repos: HashMap<u32, gix::Repository> = HashMap::new();
    let mut after = 0;
    loop {
        let (archive, most) = (epochs.archive.clone(), epochs.batch_items);
        let wanted = match sink.ask(move |conn| store::wanted_texts(conn, &archive, after, most))? {
            Ok(wanted) if wanted.is_empty() => return ControlFlow::Continue(()),
            Ok(wanted) => wanted,
            Err(error) => {
                let error = anyhow::Error::new(error)
                    .context("listing the thread context to bring back from the archive");
                epochs.error = Some(error);
                return ControlFlow::Break(());
            }
        };
        let mut text_bytes = 0;
        for text in &wanted {
            // A message that could not be read back is not asked for again
            // by this import (`after`), and stays wanted for the next.
            after = text.submission_id;
            let source_name = format!(
                "{}, epoch {}, message {}",
                epochs.archive, text.epoch, text.blob
            );
            let step = match read_wanted(epochs.inbox, &mut repos, text, source_name.clone()) {
                Ok(prepared) => {
                    text_bytes += prepared.mail.text.len();
                    let submission_id = text.submission_id;
                    let prepared = Box::new(prepared);
                    Step::Restore {
                        submission_id,
                        prepared,
                    }
                }
                Err(why) => Step::Failed(MailFailure { source_name, why }),
            };
            sink.send(step, 0)?;
            if text_bytes >= BATCH_BYTES {
                break;
            }
        }
    }
}

/// Reads one wanted message back from its epoch's repository, checked
/// against the bytes stored, or why it cannot be.
fn read_wanted(
    inbox: &Inbox,
    repos: &mut HashMap<u32, gix::Repository>,
    wanted: &store::WantedText,
    source_name: String,
) -> Result<PreparedMail, String> {
    let repo = match repos.entry(wanted.epoch) {
        std::collections::hash_map::Entry::Occupied(repo) => repo.into_mut(),
        std::collections::hash_map::Entry::Vacant(slot) => {
            let Some((_, git_dir)) = inbox.epochs.iter().find(|(n, _)| *n == wanted.epoch) else {
                return Err(format!(
                    "epoch {} is no longer in the archive: the message keeps its headers only",
                    wanted.epoch
                ));
            };
            slot.insert(open(git_dir).map_err(|error| format!("{error:#}"))?)
        }
    };
    let gone = |why: String| format!("{why}: the message keeps its headers only");
    let blob = ObjectId::from_hex(wanted.blob.as_bytes())
        .map_err(|error| gone(format!("the blob id {} is not one: {error}", wanted.blob)))?;
    let size = repo
        .find_header(blob)
        .map_err(|error| gone(format!("its message is gone from the archive: {error}")))?
        .size();
    Policy::import(MAX_INPUT_BYTES).admits(size).map_err(gone)?;
    let found = repo
        .find_blob(blob)
        .map_err(|error| gone(format!("its message is gone from the archive: {error}")))?;
    let raw_sha256 = raw_sha256(&found.data);
    if raw_sha256 != wanted.raw_sha256 {
        return Err(gone(
            "the archive holds other bytes under its id than were stored".to_owned(),
        ));
    }
    prepare_hashed_mail(source_name, &found.data, raw_sha256).map_err(|failure| failure.why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_is_opened_again_after_its_window_and_reads_the_same() {
        let git_dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/public-inbox/v2/git/0.git");
        let mut repo = Reopening::with_window(&git_dir, 2).unwrap();
        let head = repo.repo.head_id().unwrap().detach();
        let mut seen = Vec::new();
        for _ in 0..5 {
            let commit = repo.for_next().unwrap().find_commit(head).unwrap();
            seen.push(commit.tree_id().unwrap().detach());
        }
        assert_eq!(repo.openings, 3, "opened for reads 1-2, 3-4, 5");
        assert!(seen.windows(2).all(|pair| pair[0] == pair[1]));
    }
}
