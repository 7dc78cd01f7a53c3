//! From bytes to an input, the one way: an upload's parts and the files
//! of `benchlog ingest` are gunzipped by the one gunzip, which counts
//! against bombs ([`unpack`]), told apart as mail (an mbox, a MIME
//! message) or text by one rule ([`mbox::detect`]), and decoded and
//! parsed ([`read`]). Text that is gzipped again inside is unpacked once
//! more, by the same [`unpack`] ([`decode_input`]). Where the two read the
//! same bytes differently, the difference is a named field of their
//! [`Policy`]: how large, how many messages, what a bad message does and
//! what mail with no readable message becomes.
//!
//! Also the reading of files and folders for `benchlog ingest`.

use std::borrow::Cow;
use std::io::Read as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use flate2::read::MultiGzDecoder;
use parsers::mbox::{self, Kind, MailMessage};
use parsers::Document;
use sha2::{Digest, Sha256};

use crate::ingest::{TextHashes, Verbatim};
use crate::limits::{MAX_INPUT_BYTES, MAX_LINE_BYTES};
use crate::store::ArchivedText;

/// Why some bytes cannot be a submission. These are the user's to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("the input is empty (or only white space)")]
    Empty,
    #[error("the input looks binary (it contains NUL bytes); benchlog reads text, or text compressed with gzip")]
    Binary,
    #[error("the input looks gzip-compressed but could not be unpacked: {0}")]
    BadGzip(String),
    #[error("the input is larger than {} MB", MAX_INPUT_BYTES / 1024 / 1024)]
    TooLarge,
    #[error(
        "the archive holds more than {0} messages; split it, or import it with `benchlog ingest`"
    )]
    TooManyMessages(usize),
    #[error("line {0} is longer than {max} characters; benchlog reads text in lines, as benchmark tools print it", max = MAX_LINE_BYTES)]
    LongLine(usize),
    /// One message of a mail archive is refused; its number counts from 1.
    #[error("message {message} of the archive: {error}")]
    InMessage {
        message: usize,
        error: Box<InputError>,
    },
}

/// How an input is read: what an upload and `benchlog ingest` do
/// differently with the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// The most bytes the input may hold, gunzipped.
    pub max_bytes: u64,
    /// The most messages an archive may hold (more refuse it before any
    /// is decoded); `None`: any number.
    pub max_messages: Option<usize>,
    /// What a message whose decoded text a paste could not have (a NUL,
    /// an overlong line) does.
    pub bad_message: BadMessage,
    /// What mail becomes when none of its messages can be read.
    pub unreadable_mail: UnreadableMail,
    /// Who decodes and parses each message of mail.
    pub preparing: Preparing,
}

/// Who decodes and parses each message of mail ([`read_each`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preparing {
    /// [`read_each`], before it hands the message over.
    Here,
    /// The caller ([`Handed::Raw`]): an import prepares messages on
    /// several threads at once. Only where a bad message is skipped and
    /// unreadable mail is its failures, since no message's fate then
    /// changes what becomes of the others.
    ByCaller,
}

/// What a message whose decoded text a paste could not have does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadMessage {
    /// It refuses the whole input, as the paste would be
    /// ([`InputError::InMessage`] in an mbox).
    RefusesInput,
    /// It is recorded as a failure and the others are read.
    IsSkipped,
}

/// What mail with no readable message becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadableMail {
    /// Text, decoded like any paste.
    Text,
    /// Its messages' failures.
    Failures,
}

impl Policy {
    /// An upload's: at most [`MAX_INPUT_BYTES`] and `max_messages`; a bad
    /// message refuses the upload; unreadable mail is kept as text.
    pub fn upload(max_messages: usize) -> Policy {
        Policy {
            max_bytes: MAX_INPUT_BYTES,
            max_messages: Some(max_messages),
            bad_message: BadMessage::RefusesInput,
            unreadable_mail: UnreadableMail::Text,
            preparing: Preparing::Here,
        }
    }

    /// Whether an input of `size` bytes as kept (a git archive's blob,
    /// known before it is read) may be read; why not.
    pub fn admits(&self, size: u64) -> Result<(), String> {
        if size > self.max_bytes {
            return Err(format!(
                "its message is {}, more than the {} benchlog reads as one input",
                size_for_people(size),
                size_for_people(self.max_bytes)
            ));
        }
        Ok(())
    }

    /// `benchlog ingest`'s: at most `max_bytes`, any number of messages,
    /// each bad one recorded and skipped, unreadable mail a file of
    /// failures; each message prepared here.
    pub fn import(max_bytes: u64) -> Policy {
        Policy {
            max_bytes,
            max_messages: None,
            bad_message: BadMessage::IsSkipped,
            unreadable_mail: UnreadableMail::Failures,
            preparing: Preparing::Here,
        }
    }

    /// [`Policy::import`], each message handed over raw, for the caller
    /// to prepare ([`Preparing::ByCaller`]).
    pub fn import_raw(max_bytes: u64) -> Policy {
        Policy {
            preparing: Preparing::ByCaller,
            ..Policy::import(max_bytes)
        }
    }
}

/// Reads `bytes`, named `name` (a file name tells an mbox or `.eml`), into
/// an [`Input`] as `policy` says: gunzipped, then read as an mbox or a
/// MIME message when it is one, else decoded as text like any paste.
pub fn read(name: &str, bytes: &[u8], policy: &Policy) -> Result<Input, InputError> {
    let mut mails = Vec::new();
    let read = read_each(
        name,
        Cow::Borrowed(bytes),
        policy,
        |_| false,
        |_, message| {
            match message {
                Handed::Prepared(mail) => mails.push(mail.map(|prepared| *prepared)),
                Handed::Raw(raw) => mails.push(raw.prepare(Verbatim::MayBeStored)),
                // `known` above says no message is.
                Handed::Known => {}
            }
            ControlFlow::Continue(())
        },
    );
    match read {
        Ok(Read::Text(text, document)) => Ok(Input::Text(text, document)),
        Ok(Read::Mails { .. }) => Ok(Input::Mails(mails)),
        Err(ReadError::TooLarge) => Err(InputError::TooLarge),
        Err(ReadError::Input(error)) => Err(error),
    }
}

/// An upload's part read ([`read`] with [`Policy::upload`]); a part with
/// no file name is named `upload`.
pub fn prepare_input(
    file_name: Option<&str>,
    bytes: &[u8],
    max_messages: usize,
) -> Result<Input, InputError> {
    read(
        file_name.unwrap_or("upload"),
        bytes,
        &Policy::upload(max_messages),
    )
}

/// What [`read_each`] read.
pub enum Read {
    /// A text and what the parsers found in it.
    Text(String, Document),
    /// Mail, whose `messages` were each handed over.
    Mails { messages: usize },
}

/// Why [`read_each`] read nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Gunzipped, the input holds more than the policy's `max_bytes`.
    TooLarge,
    /// The input is refused as it is.
    Input(InputError),
}

/// What [`read_each`] hands over of one message.
pub enum Handed {
    /// The message prepared, or why it could not be.
    Prepared(Result<Box<PreparedMail>, MailFailure>),
    /// A message whose raw bytes `known` said are stored already: neither
    /// decoded nor parsed.
    Known,
    /// A message for the caller to prepare ([`Preparing::ByCaller`]).
    Raw(RawMail),
}

/// A message as read, not yet decoded nor parsed.
#[derive(Debug, Clone)]
pub struct RawMail {
    pub source_name: String,
    pub raw: Vec<u8>,
    pub raw_sha256: String,
}

impl RawMail {
    /// Decodes and parses it ([`prepare_hashed_mail`]), its text hashed
    /// for a database holding `stored`.
    pub fn prepare(self, stored: Verbatim) -> Result<PreparedMail, MailFailure> {
        prepare(self.source_name, &self.raw, self.raw_sha256, stored)
            .map_err(|(failure, _)| failure)
    }
}

/// [`read`], handing each message of mail to `each` as soon as it is
/// prepared, with the bytes of the input as given (gzipped or not) it
/// accounts for; `each` breaking stops the reading. A message whose raw
/// SHA-256 (hex) `known` says is stored is handed over unread
/// ([`Handed::Known`]). `bytes` is dropped once unpacked. Mail that
/// becomes text ([`UnreadableMail::Text`]) has handed over its messages'
/// failures first.
pub fn read_each(
    name: &str,
    bytes: Cow<'_, [u8]>,
    policy: &Policy,
    mut known: impl FnMut(&str) -> bool,
    mut each: impl FnMut(u64, Handed) -> ControlFlow<()>,
) -> Result<Read, ReadError> {
    let given = bytes.len() as u64;
    let gunzipped = match unpack(&bytes, policy.max_bytes) {
        Ok(Cow::Owned(out)) => Some(out),
        Ok(Cow::Borrowed(_)) => None,
        Err(InputError::TooLarge) => return Err(ReadError::TooLarge),
        Err(error) => return Err(ReadError::Input(error)),
    };
    let unpacked = match gunzipped {
        Some(out) => {
            // The compressed bytes are not needed once unpacked.
            drop(bytes);
            Cow::Owned(out)
        }
        None => bytes,
    };
    let (kind, raws) = raw_messages(name, &unpacked);
    let raws: RawMessages = match policy.max_messages {
        Some(most) => {
            let raws: Vec<(String, &[u8])> = raws.take(most + 1).collect();
            if raws.len() > most {
                return Err(ReadError::Input(InputError::TooManyMessages(most)));
            }
            Box::new(raws.into_iter())
        }
        None => raws,
    };
    // Input bytes per unpacked byte, so a .gz advances a bar evenly.
    let scale = given as f64 / unpacked.len().max(1) as f64;
    let (mut messages, mut readable) = (0, false);
    if kind == Kind::Text {
        // What it borrows of `unpacked` is let go, so that the text can
        // take `unpacked` over.
        drop(raws);
    } else {
        for (i, (source_name, raw)) in raws.enumerate() {
            let on_disk = (raw.len() as f64 * scale) as u64;
            let raw_sha256 = raw_sha256(raw);
            if known(&raw_sha256) {
                readable = true;
                messages += 1;
                if each(on_disk, Handed::Known).is_break() {
                    return Ok(Read::Mails { messages });
                }
                continue;
            }
            if policy.preparing == Preparing::ByCaller {
                // A bad message is skipped and unreadable mail is its
                // failures (`Policy::import_raw`): nothing here waits on
                // how the message reads.
                readable = true;
                messages += 1;
                let raw = RawMail {
                    source_name,
                    raw: raw.to_vec(),
                    raw_sha256,
                };
                if each(on_disk, Handed::Raw(raw)).is_break() {
                    return Ok(Read::Mails { messages });
                }
                continue;
            }
            let prepared = match prepare(source_name, raw, raw_sha256, Verbatim::MayBeStored) {
                Err((_, Refusal::Text(error)))
                    if policy.bad_message == BadMessage::RefusesInput =>
                {
                    return Err(ReadError::Input(if kind == Kind::Mbox {
                        InputError::InMessage {
                            message: i + 1,
                            error: Box::new(error),
                        }
                    } else {
                        error
                    }))
                }
                prepared => prepared.map_err(|(failure, _)| failure),
            };
            readable |= prepared.is_ok();
            messages += 1;
            if each(on_disk, Handed::Prepared(prepared.map(Box::new))).is_break() {
                return Ok(Read::Mails { messages });
            }
        }
        if readable || policy.unreadable_mail == UnreadableMail::Failures {
            return Ok(Read::Mails { messages });
        }
    }
    // The unpacked bytes become the text: one copy of it is held, not two.
    let text = decode_unpacked(unpacked).map_err(ReadError::Input)?;
    let document = parsers::parse(&text);
    Ok(Read::Text(text, document))
}

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

/// The first `most` bytes of `bytes` as [`unpack`] would give them: enough
/// to tell what they are ([`mbox::detect`] reads a message's header lines)
/// without unpacking all of a `.gz`. A gzip stream that cannot be read
/// gives what could be read before the error.
pub fn unpacked_prefix(bytes: &[u8], most: usize) -> Cow<'_, [u8]> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Cow::Borrowed(&bytes[..bytes.len().min(most)]);
    }
    let mut out = Vec::with_capacity(most);
    let mut decoder = MultiGzDecoder::new(bytes).take(most as u64);
    let mut chunk = [0u8; 8192];
    while let Ok(read) = decoder.read(&mut chunk) {
        if read == 0 {
            break;
        }
        out.extend_from_slice(&chunk[..read]);
    }
    Cow::Owned(out)
}

/// Turns uploaded or read bytes into text: gunzips `.gz` content
/// ([`unpack`], to [`MAX_INPUT_BYTES`]), takes UTF-8 when valid and
/// windows-1252 otherwise (the charset of most old list mail; UTF-16 when
/// it starts with its byte-order mark), drops a byte-order mark, and
/// refuses empty or binary input and overlong lines.
pub fn decode_input(bytes: &[u8]) -> Result<String, InputError> {
    decode_unpacked(Cow::Borrowed(bytes))
}

/// [`decode_input`], taking over bytes it is given owned: valid UTF-8
/// becomes the text where it lies (a 63 MB text was held twice, and
/// peaked at 339 MB with what its parsing and storing take).
fn decode_unpacked(bytes: Cow<'_, [u8]>) -> Result<String, InputError> {
    let unpacked = match unpack(&bytes, MAX_INPUT_BYTES)? {
        Cow::Owned(unpacked) => Some(unpacked),
        // Not gzip, and within the limit: as it is.
        Cow::Borrowed(_) => None,
    };
    let bytes = unpacked.map_or(bytes, Cow::Owned);
    // UTF-16 (as some Windows editors save text) says so with its
    // byte-order mark; without one, its NUL bytes make it binary.
    let utf16 = match encoding_rs::Encoding::for_bom(&bytes) {
        Some((encoding, _)) if encoding != encoding_rs::UTF_8 => {
            Some(encoding.decode_with_bom_removal(&bytes).0.into_owned())
        }
        _ => None,
    };
    let mut text = match utf16 {
        Some(text) => text,
        None => match bytes {
            Cow::Owned(bytes) => String::from_utf8(bytes).unwrap_or_else(|not_utf8| {
                encoding_rs::WINDOWS_1252
                    .decode(not_utf8.as_bytes())
                    .0
                    .into_owned()
            }),
            Cow::Borrowed(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => text.to_owned(),
                Err(_) => encoding_rs::WINDOWS_1252.decode(bytes).0.into_owned(),
            },
        },
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    check_text(&text)?;
    Ok(text)
}

/// What any text must be to be stored, pasted or decoded from mail alike:
/// no NUL (binary data) and no line over [`MAX_LINE_BYTES`].
pub fn check_text(text: &str) -> Result<(), InputError> {
    let bytes = text.as_bytes();
    if memchr::memchr(0, bytes).is_some() {
        return Err(InputError::Binary);
    }
    let ends = memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]);
    let mut start = 0;
    for (index, end) in ends.enumerate() {
        if end - start > MAX_LINE_BYTES {
            return Err(InputError::LongLine(index + 1));
        }
        start = end + 1;
    }
    Ok(())
}
/// One message read, decoded and parsed, ready to be stored.
#[derive(Debug, Clone)]
pub struct PreparedMail {
    /// Where it came from, for people: `2006-April.txt.gz, message 12`.
    pub source_name: String,
    pub raw_sha256: String,
    pub raw_len: usize,
    pub mail: MailMessage,
    /// What its decoded text is found by among the texts stored.
    pub text_hashes: TextHashes,
    pub document: Document,
    /// Where an archive keeps the message (a public-inbox blob): set, the
    /// message is stored with its header block only unless it holds or
    /// answers runs or near misses (`ingest::store_mail`).
    pub archived: Option<ArchivedText>,
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
    /// Not mail at all: recorded as a failure of its message (and the
    /// input read as text, when its policy says so).
    #[error(transparent)]
    NotMail(#[from] mbox::MailError),
    /// Mail whose decoded text is refused as a paste would be: what it
    /// does is [`Policy::bad_message`].
    #[error(transparent)]
    Text(#[from] InputError),
}

/// Decodes and parses one raw message. Pure work, no database: all of it
/// is done before a transaction takes the write lock.
pub fn prepare_mail(source_name: String, raw: &[u8]) -> Result<PreparedMail, MailFailure> {
    prepare(source_name, raw, raw_sha256(raw), Verbatim::MayBeStored)
        .map_err(|(failure, _)| failure)
}

/// [`prepare_mail`] of a message whose [`raw_sha256`] is known.
pub fn prepare_hashed_mail(
    source_name: String,
    raw: &[u8],
    raw_sha256: String,
) -> Result<PreparedMail, MailFailure> {
    prepare(source_name, raw, raw_sha256, Verbatim::MayBeStored).map_err(|(failure, _)| failure)
}

/// The identity of a message as read: the SHA-256 of its raw bytes, hex
/// (`mails.raw_sha256`).
pub fn raw_sha256(raw: &[u8]) -> String {
    hex::encode(Sha256::digest(raw))
}

/// [`prepare_mail`], telling also why a message was refused.
fn prepare(
    source_name: String,
    raw: &[u8],
    raw_sha256: String,
    stored: Verbatim,
) -> Result<PreparedMail, (MailFailure, Refusal)> {
    let decoded =
        mbox::decode(raw)
            .map_err(Refusal::from)
            .and_then(|mail| match check_text(&mail.text) {
                Ok(()) => Ok(mail),
                Err(error) => Err(error.into()),
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
        raw_sha256,
        raw_len: raw.len(),
        text_hashes: TextHashes::for_database(&mail.text, stored),
        mail,
        document,
        archived: None,
    })
}

/// An upload or file, read: plain text, or the messages of a mail archive.
#[derive(Debug, Clone)]
pub enum Input {
    /// A text and what the parsers found in it.
    Text(String, Document),
    Mails(Vec<Result<PreparedMail, MailFailure>>),
}

/// An archive's raw messages, each with the name it is reported under.
type RawMessages<'a> = Box<dyn Iterator<Item = (String, &'a [u8])> + 'a>;

/// What a file named `name` holds (by [`mbox::detect`]), and its raw
/// messages, each with
/// the name it is reported under: `NAME, message N` in an mbox, `NAME`
/// for a single message; none for text.
fn raw_messages<'a>(name: &'a str, unpacked: &'a [u8]) -> (Kind, RawMessages<'a>) {
    let kind = mbox::detect(Some(name), unpacked);
    let raws: RawMessages<'a> = match kind {
        Kind::Mbox => Box::new(
            mbox::split(unpacked)
                .enumerate()
                .map(move |(i, raw)| (format!("{name}, message {}", i + 1), raw)),
        ),
        Kind::Message => Box::new(std::iter::once((name.to_owned(), unpacked))),
        Kind::Text => Box::new(std::iter::empty()),
    };
    (kind, raws)
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

    /// What of it was not read, and why: the messages of an archive that
    /// could not be, and the parts left out of those that were, as
    /// `benchlog ingest` reports them.
    pub fn not_read(&self) -> Vec<MailFailure> {
        let Input::Mails(mails) = self else {
            return Vec::new();
        };
        let mut not_read = Vec::new();
        for mail in mails {
            match mail {
                Ok(prepared) => not_read.extend(parts_not_read(prepared)),
                Err(failure) => not_read.push(failure.clone()),
            }
        }
        not_read
    }

    /// Bytes of decoded text it holds.
    pub fn text_bytes(&self) -> usize {
        match self {
            Input::Text(text, _) => text.len(),
            Input::Mails(mails) => mails.iter().flatten().map(|m| m.mail.text.len()).sum(),
        }
    }
}

/// The parts of a message that were left out of its text, and why.
pub(crate) fn parts_not_read(prepared: &PreparedMail) -> impl Iterator<Item = MailFailure> + '_ {
    prepared.mail.not_read.iter().map(|why| MailFailure {
        source_name: prepared.source_name.clone(),
        why: why.clone(),
    })
}

/// Reads a regular file of at most `limit` bytes. Anything else is
/// refused before it is opened: a FIFO or `/dev/zero` would block or
/// never end.
pub fn read_file(path: &Path, limit: u64) -> anyhow::Result<Vec<u8>> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    refuse_special(path, &meta)?;
    if meta.is_dir() {
        bail!("{} is a folder, not a file", path.display());
    }
    let too_large = || {
        anyhow::anyhow!(
            "{} is larger than {}, the most benchlog reads from one file",
            path.display(),
            size_for_people(limit)
        )
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    // The file may grow after its size was read: read no more than allowed.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// `256 MiB`, or `1000 bytes` for a size that is not whole MiB.
pub fn size_for_people(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Refuses what is neither a regular file nor a folder.
fn refuse_special(path: &Path, meta: &std::fs::Metadata) -> anyhow::Result<()> {
    if !meta.is_file() && !meta.is_dir() {
        bail!(
            "{} is not a regular file (a FIFO, device or socket); benchlog reads files and folders",
            path.display()
        );
    }
    Ok(())
}

/// The files to ingest for the given paths: files as given, folders walked
/// recursively in name order, skipping hidden entries and the parsers'
/// golden `.json` files that sit next to fixtures. A path given that is
/// neither a file nor a folder is refused at once; one found in a folder
/// is listed, and refused when read (see [`read_file`]).
pub fn collect_input_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
        refuse_special(path, &meta)?;
        if meta.is_dir() {
            walk(path, &mut files)?;
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("listing {}", dir.display()))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry
            .file_type()
            .with_context(|| format!("reading {}", path.display()))?;
        if kind.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_none_or(|ext| ext != "json") {
            files.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 63 MB text upload held its unpacked bytes and a copy of them as
    /// text at once: the text now takes the bytes over where they lie.
    #[test]
    fn owned_utf8_becomes_the_text_without_a_copy() {
        let bytes = "\u{feff}select_index 200000 0 0 22061.88\n"
            .repeat(1_000)
            .into_bytes();
        let at = bytes.as_ptr();
        let text = decode_unpacked(Cow::Owned(bytes)).unwrap();
        assert_eq!(text.as_ptr(), at, "the text is the bytes it was given");
        assert!(
            text.starts_with("select_index"),
            "the byte-order mark is gone"
        );
        // Bytes given borrowed, or not UTF-8, are decoded as before.
        assert_eq!(decode_input(b"caf\xe9\n").unwrap(), "café\n");
        let latin1 = decode_unpacked(Cow::Owned(b"caf\xe9\n".to_vec())).unwrap();
        assert_eq!(latin1, "café\n");
    }

    const GOOD: &str = "From a at b.org  Mon Jan  1 10:00:00 2007\nFrom: A <a@b.org>\nSubject: a\nMessage-ID: <a@b.org>\n\nprose\n";

    /// A message whose base64 body decodes to text with a NUL in it.
    const NUL: &str = "From a at b.org  Mon Jan  1 10:01:00 2007\nFrom: A <a@b.org>\nSubject: core\nMessage-ID: <nul@b.org>\nMIME-Version: 1.0\nContent-Transfer-Encoding: base64\n\naGVsbG8Ad29ybGQK\n";

    #[test]
    fn a_prefix_is_unpacked_only_as_far_as_asked() {
        let plain = GOOD.repeat(1000);
        let packed = {
            use std::io::Write as _;
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(plain.as_bytes()).unwrap();
            encoder.finish().unwrap()
        };
        assert_eq!(&*unpacked_prefix(&packed, 100), &plain.as_bytes()[..100]);
        assert_eq!(
            &*unpacked_prefix(plain.as_bytes(), 100),
            &plain.as_bytes()[..100]
        );
        assert_eq!(unpacked_prefix(b"short", 100).len(), 5);
        // Cut short, a stream gives what it held before the cut.
        let cut = unpacked_prefix(&packed[..packed.len() / 2], plain.len());
        assert!(!cut.is_empty() && plain.as_bytes().starts_with(&cut));
    }

    fn failures(input: &Input) -> usize {
        match input {
            Input::Mails(mails) => mails.iter().filter(|mail| mail.is_err()).count(),
            Input::Text(..) => panic!("read as text"),
        }
    }

    /// The same bytes, read by an upload's policy and by an import's: the
    /// two differences the policies name.
    #[test]
    fn the_policies_differ_only_where_they_say() {
        let (upload, import) = (Policy::upload(1_000), Policy::import(MAX_INPUT_BYTES));
        let mbox = format!("{GOOD}\n{NUL}");
        assert_eq!(
            read("a.mbox", mbox.as_bytes(), &upload).unwrap_err(),
            InputError::InMessage {
                message: 2,
                error: Box::new(InputError::Binary)
            },
            "a bad message refuses an upload"
        );
        let read_in = read("a.mbox", mbox.as_bytes(), &import).unwrap();
        assert_eq!(failures(&read_in), 1, "and is skipped by an import");
        assert_eq!(read_in.submissions(), 1);

        // An mbox whose one message has none of the mail headers: no
        // message is readable.
        let headless = "From a at b.org  Mon Jan  1 10:00:00 2007\nX-Note: n\n\nprose\n";
        let as_upload = read("a.mbox", headless.as_bytes(), &upload).unwrap();
        assert!(matches!(as_upload, Input::Text(..)), "{as_upload:?}");
        let as_import = read("a.mbox", headless.as_bytes(), &import).unwrap();
        assert_eq!(failures(&as_import), 1);

        let mut upload_of_one = upload;
        upload_of_one.max_messages = Some(1);
        assert_eq!(
            read("a.mbox", mbox.as_bytes(), &upload_of_one).unwrap_err(),
            InputError::TooManyMessages(1)
        );
    }
}
