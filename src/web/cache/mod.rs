//! Answers kept in memory per data generation ([`crate::store::generation`]):
//! a page many people ask for (a shared comparison, the home page) is made
//! once per change to the data, then served from memory. A change by any
//! writer, this server or `benchlog ingest`, moves the generation on, and
//! the next request makes the page again from the new data.
//!
//! Three stores: the main one in memory, a one-part one for answers too
//! large for a part of it, and files on disk ([`spill`]) for answers over
//! [`DISK_ANSWER_BYTES`](crate::limits::DISK_ANSWER_BYTES).

use std::sync::Arc;

use askama::Template;

use axum::body::Bytes;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use quick_cache::sync::{Cache, DefaultLifecycle, GuardResult};
use quick_cache::{DefaultHashBuilder, OptionsBuilder, Weighter};
use sha2::{Digest, Sha256};

use super::AppError;
use crate::limits::{CACHE_BYTES, DISK_CACHE_BYTES, LARGE_CACHE_BYTES};

mod range;
mod spill;

pub(in crate::web) use spill::FileBody;
pub use spill::SentFromFile;

/// Answers kept, as the cache's first estimate; it grows within
/// [`CACHE_BYTES`].
const ESTIMATED_ANSWERS: usize = 1024;

/// The main store is cut into this many parts, each with its own lock and
/// an equal share of [`CACHE_BYTES`]; an answer must fit in one part. Fixed
/// rather than taken from the number of cores, so that what fits does not
/// depend on the machine.
const SHARDS: usize = 8;

/// Answers heavier than this (a 12,000-run comparison's JSON is 3 MB) are
/// kept in the large store instead: half a part of the main store.
const LARGE_ANSWER: u64 = CACHE_BYTES / SHARDS as u64 / 2;

/// The type of the pages' HTML.
const HTML: &str = "text/html; charset=utf-8";

/// A finished answer: its body and its type, and a tag for revalidation.
#[derive(Debug)]
pub struct Answer {
    pub content_type: &'static str,
    body: Body,
    /// A weak ETag (the body may be compressed on the way) over the body:
    /// the same bytes, the same tag, whatever generation made them.
    pub etag: String,
}

/// Where an answer's body is.
#[derive(Debug)]
enum Body {
    Memory(Bytes),
    /// Kept on disk ([`spill`]), with its gzip copy.
    Disk(spill::Files),
}

impl Answer {
    pub fn new(content_type: &'static str, body: impl Into<Bytes>) -> Self {
        let body = body.into();
        let etag = format!("W/\"{}\"", &hex::encode(Sha256::digest(&body))[..32]);
        Answer {
            content_type,
            body: Body::Memory(body),
            etag,
        }
    }

    /// The body's length, as made.
    pub fn body_len(&self) -> u64 {
        match &self.body {
            Body::Memory(bytes) => bytes.len() as u64,
            Body::Disk(files) => files.body_len(),
        }
    }

    /// The body, when it is in memory.
    pub fn bytes(&self) -> Option<&Bytes> {
        match &self.body {
            Body::Memory(bytes) => Some(bytes),
            Body::Disk(_) => None,
        }
    }

    fn files(&self) -> Option<&spill::Files> {
        match &self.body {
            Body::Memory(_) => None,
            Body::Disk(files) => Some(files),
        }
    }

    /// The same answer, its body now read from `files`.
    fn on_disk(self, files: spill::Files) -> Self {
        Answer {
            body: Body::Disk(files),
            ..self
        }
    }

    /// A page: its template rendered to HTML.
    pub fn page(page: &impl Template) -> Result<Self, AppError> {
        let html = page.render().map_err(|e| {
            AppError::Internal(anyhow::Error::new(e).context("rendering a page's template"))
        })?;
        Ok(Answer::new(HTML, html))
    }

    /// The answer, or 304 when the client's If-None-Match already names it.
    /// `cache_control` lets shared caches keep it a while.
    pub fn respond(&self, request: &HeaderMap, cache_control: Option<&'static str>) -> Response {
        let mut response = match &self.body {
            _ if names_tag(request, &self.etag) => StatusCode::NOT_MODIFIED.into_response(),
            Body::Memory(bytes) => {
                let mut response = bytes.clone().into_response();
                // Every answer sent from it shares this one buffer.
                let shared = super::budget::SharedBuffer::of(bytes);
                response.extensions_mut().insert(shared);
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static(self.content_type));
                response
            }
            Body::Disk(files) => files.response(request, self.content_type, &self.etag),
        };
        let headers = response.headers_mut();
        if self.files().is_some() {
            // Its gzip copy or its body as made, by the request's
            // Accept-Encoding: on 304s too, for the caches on the way.
            headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
        }
        // A 206 carries the tag's strong form already.
        if let (Ok(value), false) = (
            HeaderValue::from_str(&self.etag),
            headers.contains_key(ETAG),
        ) {
            headers.insert(ETAG, value);
        }
        // Not on a 416: a cache keeping that would answer others with it.
        let refused = response.status() == StatusCode::RANGE_NOT_SATISFIABLE;
        if let (Some(cache_control), false) = (cache_control, refused) {
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
        }
        response
    }
}

/// Whether the request's If-None-Match names `tag` (weak comparison).
fn names_tag(request: &HeaderMap, tag: &str) -> bool {
    let opaque = |t: &str| t.trim().trim_start_matches("W/").to_owned();
    let ours = opaque(tag);
    request
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|candidate| candidate.trim() == "*" || opaque(candidate) == ours)
}

/// The generation the answer was made at, and what was asked (the page and
/// its canonical query).
pub type Key = (i64, String);

#[derive(Debug, Clone, Copy)]
struct Size;

impl Weighter<Key, Arc<Answer>> for Size {
    fn weight(&self, key: &Key, answer: &Arc<Answer>) -> u64 {
        key.1.len() as u64 + answer.body_len() + answer.etag.len() as u64 + 64
    }
}

type Store = Cache<Key, Arc<Answer>, Size, DefaultHashBuilder, DefaultLifecycle<Key, Arc<Answer>>>;

fn store(estimated_answers: usize, bytes: u64, shards: usize) -> Store {
    let options = OptionsBuilder::new()
        .estimated_items_capacity(estimated_answers)
        .weight_capacity(bytes)
        .shards(shards)
        .build()
        .expect("every option is set");
    Cache::with_options(
        options,
        Size,
        DefaultHashBuilder::default(),
        DefaultLifecycle::default(),
    )
}

/// The answers kept, least useful first out when [`CACHE_BYTES`] (or, for
/// large answers, [`LARGE_CACHE_BYTES`], and on disk
/// [`DISK_CACHE_BYTES`]) is reached; answers of past generations are
/// never asked for again and go.
pub struct AnswerCache {
    answers: Store,
    /// Answers over [`LARGE_ANSWER`], which one part of `answers` could
    /// not hold.
    large: Store,
    /// Answers over [`DISK_ANSWER_BYTES`](crate::limits::DISK_ANSWER_BYTES).
    disk: spill::DiskAnswers,
}

impl AnswerCache {
    /// A cache whose largest answers go to files beside the database at
    /// `db_path`, while its disk has room enough above the `min_free_disk`
    /// bytes uploads need ([`spill::DiskAnswers`]).
    pub fn new(db_path: &std::path::Path, min_free_disk: u64) -> Self {
        AnswerCache {
            answers: store(ESTIMATED_ANSWERS, CACHE_BYTES, SHARDS),
            large: store(16, LARGE_CACHE_BYTES, 1),
            disk: spill::DiskAnswers::new(db_path, min_free_disk, DISK_CACHE_BYTES),
        }
    }

    /// The answer kept for `key`, if there is one: no waiting for one
    /// being made.
    pub fn get(&self, key: &Key) -> Option<Arc<Answer>> {
        self.kept_large(key).or_else(|| self.answers.get(key))
    }

    /// Drops answers kept on disk, oldest first, until the disk is back
    /// above the cache's floor ([`spill::DiskAnswers::make_room`]): asked
    /// before anyone is told the disk is full. Whether any went.
    pub fn make_room_on_disk(&self) -> bool {
        self.disk.make_room()
    }

    fn kept_large(&self, key: &Key) -> Option<Arc<Answer>> {
        self.disk.get(key).or_else(|| self.large.get(key))
    }

    /// The answer kept for `key`, or the one `make` gives, kept for the
    /// next request, whatever its size. Requests for the same key at the
    /// same time wait for one `make` rather than each doing the work.
    /// Errors are not kept.
    pub fn get_or_make<E>(
        &self,
        key: &Key,
        make: impl FnOnce() -> Result<Answer, E>,
    ) -> Result<Arc<Answer>, E> {
        if let Some(answer) = self.kept_large(key) {
            return Ok(answer);
        }
        // The main store's placeholder makes one request do the work for
        // all, large answers included.
        let guard = match self.answers.get_value_or_guard(key, None) {
            GuardResult::Value(answer) => return Ok(answer),
            GuardResult::Guard(guard) => Some(guard),
            GuardResult::Timeout => None,
        };
        // Made while this request waited, and too large for the main store.
        if let Some(answer) = self.kept_large(key) {
            return Ok(answer);
        }
        let answer = make()?;
        if spill::DiskAnswers::takes(&answer) {
            return Ok(self.disk.keep(key, answer));
        }
        let answer = Arc::new(answer);
        if Size.weight(key, &answer) > LARGE_ANSWER {
            self.large.insert(key.clone(), answer.clone());
        } else if let Some(guard) = guard {
            let _ = guard.insert(answer.clone());
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_body_has_the_same_tag_and_revalidates() {
        let a = Answer::new("text/plain", "one");
        let b = Answer::new("text/plain", "one");
        let c = Answer::new("text/plain", "two");
        assert_eq!(a.etag, b.etag);
        assert_ne!(a.etag, c.etag);

        let mut request = HeaderMap::new();
        assert_eq!(a.respond(&request, None).status(), StatusCode::OK);
        request.insert(IF_NONE_MATCH, HeaderValue::from_str(&c.etag).unwrap());
        assert_eq!(a.respond(&request, None).status(), StatusCode::OK);
        let both = format!("{}, {}", c.etag, a.etag.trim_start_matches("W/"));
        request.insert(IF_NONE_MATCH, HeaderValue::from_str(&both).unwrap());
        let response = a.respond(&request, Some("public, max-age=60"));
        assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(response.headers()[ETAG], a.etag.as_str());
        assert_eq!(response.headers()[CACHE_CONTROL], "public, max-age=60");
    }

    #[test]
    fn makes_once_per_key_and_keeps_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let cache = AnswerCache::new(&dir.path().join("benchlog.db"), 0);
        let key = (7, "/compare?tool=sysbench".to_owned());
        let first = cache
            .get_or_make(&key, || Ok::<_, ()>(Answer::new("text/plain", "made")))
            .unwrap();
        let again = cache
            .get_or_make(&key, || -> Result<Answer, ()> {
                panic!("made twice for one key")
            })
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));

        let next_generation = (8, key.1.clone());
        assert_eq!(
            cache
                .get_or_make(&next_generation, || Err("no"))
                .unwrap_err(),
            "no"
        );
        let made = cache
            .get_or_make(&next_generation, || {
                Ok::<_, ()>(Answer::new("text/plain", "new data"))
            })
            .unwrap();
        assert_eq!(made.bytes().unwrap(), "new data");
    }

    #[test]
    fn answers_of_any_size_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = AnswerCache::new(&dir.path().join("benchlog.db"), 0);
        // A 5 MB answer: over what one part of the main store holds.
        let big = vec![b'x'; 5 << 20];
        let key = (1, "/compare.json?tool=sysbench&metric=tps".to_owned());
        let first = cache
            .get_or_make(&key, || Ok::<_, ()>(Answer::new("application/json", big)))
            .unwrap();
        assert_eq!(first.bytes().unwrap().len(), 5 << 20);
        let again = cache
            .get_or_make(&key, || -> Result<Answer, ()> {
                panic!("a 5 MB answer was made twice")
            })
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        // Small answers still go to the main store, beside it.
        let small = (1, "/compare?tool=sysbench&metric=tps".to_owned());
        cache
            .get_or_make(&small, || Ok::<_, ()>(Answer::new(HTML, "page")))
            .unwrap();
        assert!(cache.answers.get(&small).is_some());
        assert!(cache.large.get(&small).is_none());
        assert!(cache.large.get(&key).is_some());
    }
}
