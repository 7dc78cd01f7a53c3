//! Files and folders on disk, as `benchlog ingest` names them: a mail
//! archive (an mbox, plain or gzipped, or a single `.eml`) is read
//! message by message, anything else as one text.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::step::{FileEnd, Sink, Step, Title};
use super::Source;
use crate::intake::{self, Handed, Policy, Read, ReadError};
use crate::limits::MAX_ARCHIVE_BYTES;

/// Files to read, in order, each at most `limit` bytes on disk and
/// unpacked.
pub struct Files {
    paths: Vec<PathBuf>,
    limit: u64,
}

impl Files {
    /// The files at `paths`, at most [`MAX_ARCHIVE_BYTES`] each.
    pub fn new(paths: Vec<PathBuf>) -> Files {
        Files::within(paths, MAX_ARCHIVE_BYTES)
    }

    /// The files at `paths`, at most `limit` bytes each.
    pub fn within(paths: Vec<PathBuf>, limit: u64) -> Files {
        Files { paths, limit }
    }
}

impl Source for Files {
    fn read(&mut self, sink: &mut Sink<'_>) -> ControlFlow<()> {
        for path in &self.paths {
            let shown = path.display().to_string();
            let bytes = match intake::read_file(path, self.limit) {
                Ok(bytes) => bytes,
                Err(error) => {
                    let end = FileEnd::Failed(format!("{error:#}"));
                    sink.send(Step::FileEnd { shown, end }, 0)?;
                    continue;
                }
            };
            read_bytes(sink, &file_name(path), shown, bytes, self.limit)?;
        }
        ControlFlow::Continue(())
    }
}

/// A path's file name, or the path where it has none.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Reads, decodes and parses one file's bytes into steps
/// ([`intake::read_each`] with [`Policy::import`]), skipping the messages
/// the sink knows are stored: `name` is the file's name (it tells an
/// mbox), `shown` how people know it. Says whether the file was read as
/// mail; breaks when the writer is gone.
pub(super) fn read_bytes(
    sink: &mut Sink<'_>,
    name: &str,
    shown: String,
    bytes: Vec<u8>,
    limit: u64,
) -> ControlFlow<(), bool> {
    let on_disk = bytes.len() as u64;
    // Each message is prepared by the import's workers.
    let policy = Policy::import_raw(limit);
    // The sink asks whether a message is stored and takes each: both
    // borrow it, one after the other.
    let sink = std::cell::RefCell::new(sink);
    let read = intake::read_each(
        name,
        Cow::Owned(bytes),
        &policy,
        |raw_sha256| sink.borrow_mut().known(raw_sha256),
        |on_disk, mail| {
            let step = match mail {
                Handed::Raw(raw) => return sink.borrow_mut().send_raw(raw, None, on_disk),
                Handed::Prepared(Ok(prepared)) => Step::Mail(prepared),
                Handed::Prepared(Err(failure)) => Step::MailFailed(failure),
                Handed::Known => Step::Known,
            };
            sink.borrow_mut().send(step, on_disk)
        },
    );
    let sink = sink.into_inner();
    let (step, on_disk, mail) = match read {
        Ok(Read::Text(text, document)) => {
            let step = Step::Text {
                name: name.to_owned(),
                shown,
                hashes: Box::new(crate::ingest::TextHashes::of(&text)),
                text,
                document: Box::new(document),
                title: Title::Named,
            };
            (step, on_disk, false)
        }
        Ok(Read::Mails { messages }) => {
            let end = FileEnd::Mail { messages };
            (Step::FileEnd { shown, end }, 0, true)
        }
        Err(ReadError::TooLarge) => {
            let end = FileEnd::Failed(format!(
                "{shown} is larger than {} unpacked, the most benchlog reads from one file; split it",
                intake::size_for_people(limit)
            ));
            (Step::FileEnd { shown, end }, 0, false)
        }
        Err(ReadError::Input(error)) => {
            let error = anyhow::Error::new(error).context(format!("reading {shown}"));
            let end = FileEnd::Failed(format!("{error:#}"));
            (Step::FileEnd { shown, end }, 0, false)
        }
    };
    sink.send(step, on_disk)?;
    ControlFlow::Continue(mail)
}
