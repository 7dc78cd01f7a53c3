//! Answers over [`DISK_ANSWER_BYTES`] kept on disk: written once to an
//! unnamed file beside the database, with a gzip copy made once beside
//! it, and sent from there for every request until the data changes. The
//! cache keeps only the files' handles and lengths.
//!
//! The files have no name (`O_TMPFILE`, or created and unlinked at once),
//! so nothing is left behind when the server stops or crashes; a file
//! dropped from the cache while a client still reads it is freed when
//! that last reader is done.
//!
//! The disk is the uploads' first: the files keep to a floor of their own
//! well above `--min-free-disk-mb` ([`DISK_CACHE_HEADROOM_BYTES`] more,
//! and at most [`DISK_CACHE_SHARE_PERCENT`] of the room above it), the
//! oldest dropped to make room for a new one, and all of them, oldest
//! first, before anyone is told the disk is full ([`DiskAnswers::make_room`]).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::header::{
    ACCEPT_ENCODING, ACCEPT_RANGES, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE,
    ETAG,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use flate2::write::GzEncoder;
use hyper::body::{Frame, SizeHint};
use rustix::buffer::spare_capacity;

use super::range::{self, Part};
use super::{Answer, Key};
use crate::limits::{
    DISK_ANSWER_BYTES, DISK_CACHE_HEADROOM_BYTES, DISK_CACHE_SHARE_PERCENT, FILE_PIECE_BYTES,
};
use crate::web::AppError;

/// Marks a response whose body is read from a kept file: it holds one
/// piece in memory at a time, so the budget of answers being sent
/// ([`super::super::budget`]) leaves it alone.
#[derive(Debug, Clone, Copy)]
pub struct SentFromFile;

/// One copy of an answer's body in a file.
#[derive(Debug)]
struct Stored {
    file: Arc<File>,
    len: u64,
}

/// An answer's body on disk: as made, and gzipped.
#[derive(Debug)]
pub struct Files {
    plain: Stored,
    gzip: Stored,
}

impl Files {
    pub fn body_len(&self) -> u64 {
        self.plain.len
    }

    /// Bytes on disk, both copies.
    fn disk_bytes(&self) -> u64 {
        self.plain.len + self.gzip.len
    }

    /// The body, streamed from its file: the gzip copy to a client that
    /// takes gzip (tower-http's compression leaves a body with a
    /// `Content-Encoding` alone), else the body as made; or the part of
    /// the body as made that the request's `Range` asks for, 206, whose
    /// tag is `etag`'s strong form, or 416 ([`range`]'s rule).
    pub fn response(
        &self,
        request: &HeaderMap,
        content_type: &'static str,
        etag: &str,
    ) -> Response {
        let strong_tag = etag.trim_start_matches("W/");
        let (copy, body, gzip) = match range::asked(request, strong_tag, self.plain.len) {
            Part::Whole => {
                let gzip = accepts_gzip(request);
                let copy = if gzip { &self.gzip } else { &self.plain };
                let body = FileBody::new(Arc::clone(&copy.file), copy.len);
                (copy, body, gzip)
            }
            Part::Bytes { start, end } => {
                let body = FileBody::part(Arc::clone(&self.plain.file), start, end);
                let mut response = Body::new(body).into_response();
                *response.status_mut() = StatusCode::PARTIAL_CONTENT;
                let headers = response.headers_mut();
                headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
                headers.insert(CONTENT_LENGTH, HeaderValue::from(end - start));
                let range = format!("bytes {start}-{}/{}", end - 1, self.plain.len);
                if let Ok(range) = HeaderValue::from_str(&range) {
                    headers.insert(CONTENT_RANGE, range);
                }
                if let Ok(tag) = HeaderValue::from_str(strong_tag) {
                    headers.insert(ETAG, tag);
                }
                headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
                response.extensions_mut().insert(SentFromFile);
                return response;
            }
            Part::Unsatisfiable => {
                return AppError::RangeNotSatisfiable {
                    len: self.plain.len,
                }
                .into_response();
            }
        };
        let mut response = Body::new(body).into_response();
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        headers.insert(CONTENT_LENGTH, HeaderValue::from(copy.len));
        headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
        if gzip {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        response.extensions_mut().insert(SentFromFile);
        response
    }
}

/// Whether the request's Accept-Encoding takes gzip: named (or `x-gzip`)
/// with a q-value above 0, or, when not named, `*` above 0. The rule
/// tower-http's compression follows, so that it never compresses on the
/// fly what a kept copy would have served.
fn accepts_gzip(request: &HeaderMap) -> bool {
    let mut named = None;
    let mut any = None;
    for value in request.get_all(ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for part in value.split(',') {
            let mut pieces = part.split(';');
            let coding = pieces.next().unwrap_or("").trim();
            let wanted = pieces.all(|param| {
                let param = param.trim();
                match param.split_once('=') {
                    Some((q, v)) if q.trim().eq_ignore_ascii_case("q") => {
                        v.trim().parse::<f32>().is_ok_and(|q| q > 0.0)
                    }
                    _ => true,
                }
            });
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                named = Some(named.unwrap_or(false) || wanted);
            } else if coding == "*" {
                any = Some(any.unwrap_or(false) || wanted);
            }
        }
    }
    named.or(any).unwrap_or(false)
}

/// A file's bytes from `offset` to `end`, read a piece
/// ([`FILE_PIECE_BYTES`]) at a time as hyper asks for it. Each read is a
/// `pread` at the body's own offset, so the readers of one file share no
/// cursor, straight into the piece's unfilled buffer (nothing zeroed
/// first), which hyper then writes as it is (no copy). It reads on the
/// async worker: the file was written when the answer was made and sits
/// in the page cache, so a piece is a copy from memory, less than handing
/// it to a blocking thread would cost (and those are the database's,
/// [`crate::limits::BLOCKING_THREADS`]).
pub(in crate::web) struct FileBody {
    file: Arc<File>,
    offset: u64,
    end: u64,
}

impl FileBody {
    /// The whole file, of `len` bytes.
    pub(in crate::web) fn new(file: Arc<File>, len: u64) -> Self {
        FileBody::part(file, 0, len)
    }

    /// Bytes `start..end` of the file.
    fn part(file: Arc<File>, start: u64, end: u64) -> Self {
        FileBody {
            file,
            offset: start,
            end,
        }
    }
}

impl hyper::body::Body for FileBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        let left = this.end - this.offset;
        if left == 0 {
            return Poll::Ready(None);
        }
        let want = left.min(FILE_PIECE_BYTES as u64) as usize;
        let mut piece = Vec::with_capacity(want);
        while piece.len() < want {
            let at = this.offset + piece.len() as u64;
            match rustix::io::pread(&*this.file, spare_capacity(&mut piece), at) {
                Ok(0) => {
                    let short = io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("a kept answer's file ends at {at}, before {}", this.end),
                    );
                    return Poll::Ready(Some(Err(short)));
                }
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(error) => return Poll::Ready(Some(Err(error.into()))),
            }
        }
        this.offset += want as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(piece)))))
    }

    fn is_end_stream(&self) -> bool {
        self.offset == self.end
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.end - self.offset)
    }
}

/// The answers kept on disk, oldest first, within [`crate::limits::DISK_CACHE_BYTES`]
/// and the cache's floor of free space ([`DiskAnswers::may_keep`]).
pub struct DiskAnswers {
    /// Where the files go: the database's folder, whose disk is watched
    /// (a temp folder may be memory).
    dir: PathBuf,
    /// Free space uploads need on the disk
    /// ([`super::super::WebOptions::min_free_disk_bytes`]); the cache
    /// leaves more.
    min_free: u64,
    /// Bytes of files kept at most ([`crate::limits::DISK_CACHE_BYTES`]).
    budget: u64,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    answers: VecDeque<(Key, Arc<Answer>)>,
    bytes: u64,
    /// The newest data generation asked for: answers of older ones are
    /// never asked for again.
    newest: i64,
}

impl Kept {
    /// Drops the answers of generations before `generation`, and the
    /// oldest while more than `budget` bytes are kept.
    fn drop_stale(&mut self, generation: i64, budget: u64) {
        self.newest = self.newest.max(generation);
        let newest = self.newest;
        let before = self.answers.len();
        self.answers.retain(|(key, _)| key.0 >= newest);
        if self.answers.len() != before {
            self.bytes = self.answers.iter().map(|(_, a)| disk_bytes(a)).sum();
        }
        while self.bytes > budget {
            let Some((_, oldest)) = self.answers.pop_front() else {
                break;
            };
            self.bytes -= disk_bytes(&oldest);
        }
    }
}

fn disk_bytes(answer: &Answer) -> u64 {
    answer.files().map_or(0, Files::disk_bytes)
}

impl DiskAnswers {
    /// Answers kept in unnamed files in the folder of the database at
    /// `db_path`, while its disk has more than `min_free` bytes free, at
    /// most `budget` bytes of them ([`crate::limits::DISK_CACHE_BYTES`]).
    pub fn new(db_path: &Path, min_free: u64, budget: u64) -> Self {
        let dir = match db_path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        };
        DiskAnswers {
            dir,
            min_free,
            budget,
            kept: Mutex::new(Kept::default()),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer kept for `key`, if there is one.
    pub fn get(&self, key: &Key) -> Option<Arc<Answer>> {
        let mut kept = self.kept();
        if key.0 > kept.newest {
            kept.drop_stale(key.0, self.budget);
        }
        kept.answers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, answer)| Arc::clone(answer))
    }

    /// Whether `answer` is large enough to be kept here.
    pub fn takes(answer: &Answer) -> bool {
        answer.body_len() > DISK_ANSWER_BYTES
    }

    /// Bytes free on the files' disk for this process (`statvfs` of
    /// their folder).
    fn free_space(&self) -> io::Result<u64> {
        let fs = rustix::fs::statvfs(&self.dir)?;
        Ok(fs.f_bavail.saturating_mul(fs.f_frsize))
    }

    /// Whether `kept` bytes of files may stay on a disk with `free` bytes
    /// free: the room above the uploads' floor is at least
    /// [`DISK_CACHE_HEADROOM_BYTES`], and the files hold at most
    /// [`DISK_CACHE_SHARE_PERCENT`] of it and themselves.
    fn may_keep(&self, kept: u64, free: u64) -> bool {
        let above = free.saturating_sub(self.min_free);
        above >= DISK_CACHE_HEADROOM_BYTES
            && kept.saturating_mul(100)
                <= DISK_CACHE_SHARE_PERCENT.saturating_mul(kept.saturating_add(above))
    }

    /// Drops the oldest answers until those left and `extra` bytes more
    /// written may be kept ([`DiskAnswers::may_keep`]); whether they may.
    /// A file a client still reads is freed once it is done, so the disk
    /// may gain less than was dropped: more go then.
    fn trim_to_floor(&self, kept: &mut Kept, extra: u64) -> bool {
        let (answers, bytes) = (kept.answers.len(), kept.bytes);
        let fits = loop {
            let free = match self.free_space() {
                Ok(free) => free,
                Err(error) => {
                    tracing::warn!("free space on {} unknown: {error}", self.dir.display());
                    break false;
                }
            };
            if self.may_keep(kept.bytes.saturating_add(extra), free.saturating_sub(extra)) {
                break true;
            }
            let Some((_, oldest)) = kept.answers.pop_front() else {
                break false;
            };
            kept.bytes -= disk_bytes(&oldest);
        };
        let dropped = answers - kept.answers.len();
        if dropped > 0 {
            tracing::info!(
                dropped,
                bytes = bytes - kept.bytes,
                "answers kept on disk dropped: the disk is short of room"
            );
        }
        fits
    }

    /// Drops the answers kept, oldest first, until the disk is back above
    /// the cache's floor or none is left: asked before anyone is told the
    /// disk is full (`/healthz`, uploads). Whether any was dropped.
    pub fn make_room(&self) -> bool {
        let mut kept = self.kept();
        let before = kept.answers.len();
        self.trim_to_floor(&mut kept, 0);
        kept.answers.len() != before
    }

    /// Writes `answer`'s body and its gzip copy to files and keeps them
    /// for `key`; gives back the answer read from them. When they cannot
    /// be written (the disk is short of room, even with the older answers
    /// dropped, say), the answer as made, kept nowhere.
    pub fn keep(&self, key: &Key, answer: Answer) -> Arc<Answer> {
        let Some(body) = answer.bytes() else {
            return Arc::new(answer);
        };
        // Room for both copies (the gzip one is at most about as large).
        let needed = 2 * body.len() as u64;
        if !self.trim_to_floor(&mut self.kept(), needed) {
            tracing::warn!(
                "an answer of {} MiB is not kept on disk in {}: {needed} bytes would take the disk below the cache's floor ({} MiB free above --min-free-disk-mb, and at most {DISK_CACHE_SHARE_PERCENT}% of the room above it)",
                body.len() >> 20,
                self.dir.display(),
                DISK_CACHE_HEADROOM_BYTES >> 20
            );
            return Arc::new(answer);
        }
        let files = match self.write(body) {
            Ok(files) => files,
            Err(error) => {
                tracing::warn!(
                    "an answer of {} MiB is not kept on disk in {}: {error}",
                    body.len() >> 20,
                    self.dir.display()
                );
                return Arc::new(answer);
            }
        };
        tracing::info!(
            what = %key.1,
            generation = key.0,
            bytes = files.plain.len,
            gzip_bytes = files.gzip.len,
            "answer kept on disk"
        );
        let kept_answer = Arc::new(answer.on_disk(files));
        let mut kept = self.kept();
        kept.answers
            .push_back((key.clone(), Arc::clone(&kept_answer)));
        kept.bytes += disk_bytes(&kept_answer);
        kept.drop_stale(key.0, self.budget);
        kept_answer
    }

    fn write(&self, body: &[u8]) -> io::Result<Files> {
        let plain = tempfile::tempfile_in(&self.dir)?;
        (&plain).write_all(body)?;
        let gzip = tempfile::tempfile_in(&self.dir)?;
        let mut encoder = GzEncoder::new(BufWriter::new(&gzip), flate2::Compression::default());
        encoder.write_all(body)?;
        encoder.finish()?.flush()?;
        let gzip_len = gzip.metadata()?.len();
        Ok(Files {
            plain: Stored {
                file: Arc::new(plain),
                len: body.len() as u64,
            },
            gzip: Stored {
                file: Arc::new(gzip),
                len: gzip_len,
            },
        })
    }

    /// Answers kept, and the bytes of their files.
    #[cfg(test)]
    fn usage(&self) -> (usize, u64) {
        let kept = self.kept();
        (kept.answers.len(), kept.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    fn headers(accept: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(accept).unwrap());
        headers
    }

    #[test]
    fn gzip_is_taken_as_tower_http_takes_it() {
        assert!(accepts_gzip(&headers("gzip, deflate, br")));
        assert!(accepts_gzip(&headers("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(&headers("x-gzip")));
        assert!(accepts_gzip(&headers("*")));
        assert!(!accepts_gzip(&headers("gzip;q=0")));
        assert!(!accepts_gzip(&headers("gzip;q=0, *")));
        assert!(!accepts_gzip(&headers("br, identity")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn the_files_keep_to_a_floor_above_the_uploads_one() {
        const MIB: u64 = 1 << 20;
        let floor = 64 * MIB;
        let budget = crate::limits::DISK_CACHE_BYTES;
        let disk = DiskAnswers::new(Path::new("/srv/benchlog.db"), floor, budget);
        let headroom = DISK_CACHE_HEADROOM_BYTES;
        // Never within the headroom above the uploads' floor.
        assert!(!disk.may_keep(0, floor + headroom - 1));
        assert!(disk.may_keep(0, floor + headroom));
        // At most half the room above the floor, their own files counted.
        assert_eq!(DISK_CACHE_SHARE_PERCENT, 50);
        let room = 300 * MIB;
        assert!(disk.may_keep(room, floor + room));
        assert!(!disk.may_keep(room + 1, floor + room));
        // A disk below the floor keeps nothing.
        assert!(!disk.may_keep(0, floor / 2));
    }

    #[test]
    fn kept_files_are_bounded_and_go_with_their_generation() {
        let dir = tempfile::tempdir().unwrap();
        // Room for three answers of a little over 8 MiB and their copies.
        let budget = 3 * (DISK_ANSWER_BYTES + (1 << 20));
        let db = dir.path().join("benchlog.db");
        std::fs::write(&db, "").unwrap();
        let disk = DiskAnswers::new(&db, 0, budget);
        assert!(budget < crate::limits::DISK_CACHE_BYTES);
        let body = vec![b'7'; (DISK_ANSWER_BYTES + 1) as usize];
        let answer = Answer::new("application/json", body.clone());
        assert!(DiskAnswers::takes(&answer));
        let key = (3, "/compare.json?tool=bonnie".to_owned());
        let kept = disk.keep(&key, answer);
        assert!(kept.bytes().is_none(), "the body is read from its file");
        assert!(Arc::ptr_eq(&kept, &disk.get(&key).unwrap()));
        let files = kept.files().unwrap();
        let mut read = vec![0; body.len()];
        files.plain.file.read_exact_at(&mut read, 0).unwrap();
        assert_eq!(read, body);
        assert!(files.gzip.len < files.plain.len / 100);

        // Enough answers of one generation to pass the budget: the oldest go.
        let each = files.disk_bytes();
        let fit = (budget / each) as usize;
        assert_eq!(fit, 3);
        for n in 0..fit {
            let key = (3, format!("/compare.json?n={n}"));
            disk.keep(&key, Answer::new("application/json", body.clone()));
        }
        let (answers, bytes) = disk.usage();
        assert_eq!(answers, fit);
        assert!(bytes <= budget);
        assert!(disk.get(&key).is_none(), "the first one went first");

        // A new generation: every older file goes.
        assert!(disk.get(&(4, key.1.clone())).is_none());
        assert_eq!(disk.usage(), (0, 0));
    }
}
