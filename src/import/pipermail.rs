//! Mailing-list archives by their address, as pipermail and mailman 2
//! serve them: a month (`2006-April.txt.gz`, or `.txt`), or the archive's
//! index page, whose month links are followed oldest first. Politely: one
//! request at a time, a User-Agent naming benchlog, a busy server's short
//! `Retry-After` waited for, and, on a re-run,
//! each month asked with what the server said of it last time
//! (`If-Modified-Since`, `If-None-Match`), so an unchanged month costs a
//! 304 and nothing else. What a month is told from: its bytes, unpacked by
//! [`intake::unpack`] and recognised as an mbox by [`mbox::detect`], the
//! same rule as a file's; an index page is HTML linking to such months.
//!
//! The months are a [`Source`] of the import ([`Months`]), each message
//! read as one of an mbox file; a month's mark is stored with its last
//! message (`migrations/0016_url_marks.sql`).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use anyhow::Context;
use parsers::mbox::{self, Kind};
use reqwest::header::{ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, RETRY_AFTER};
use reqwest::{Client, StatusCode, Url};
use rusqlite::Connection;

use super::files::read_bytes;
use super::step::{FileEnd, Sink, Step};
use super::{FileOutcome, Source};
use crate::intake;
use crate::limits::{
    HTTP_TIMEOUT, MAX_ARCHIVE_BYTES, MAX_INDEX_BYTES, MAX_INDEX_MONTHS, MAX_MARK_BYTES,
    MAX_REDIRECTS, MAX_RETRY_AFTER, MAX_TRANSFER_TIME, SNIFF_BYTES,
};
use crate::store::{self, UrlMark};

/// What benchlog says it is to the servers it asks.
pub const USER_AGENT: &str = concat!(
    "benchlog/",
    env!("CARGO_PKG_VERSION"),
    " (mailing-list archive import; one request at a time)"
);

/// Whether an argument of `benchlog ingest` is an address to fetch rather
/// than a path.
pub fn is_url(argument: &str) -> bool {
    let lower = argument.get(..8).unwrap_or(argument).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Why an address gave no archive. These are the user's to fix.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchError {
    #[error("{0} is not a web address benchlog can fetch: {1}")]
    BadAddress(String, String),
    #[error("{0}: the server has no such page (HTTP 404 Not Found); give the address of a month (like .../2006-April.txt.gz) or of the archive's index page")]
    NotFound(Url),
    #[error("{0}: the server answered HTTP {1}")]
    Status(Url, StatusCode),
    #[error("{0}: the server is still busy (HTTP 429 or 503) after the wait it asked for; try again later")]
    Busy(Url),
    #[error("{url}: larger than {}, the most benchlog reads from one {what}", intake::size_for_people(*.limit))]
    TooLarge {
        url: Url,
        limit: u64,
        what: &'static str,
    },
    #[error("{url}: took longer than {} to arrive, the most benchlog gives one page; the server sends too slowly", duration_for_people(*.limit))]
    TooSlow { url: Url, limit: Duration },
    #[error("{url}: the server sent nothing for {}", duration_for_people(*.limit))]
    Stalled { url: Url, limit: Duration },
    #[error("{from}: the server redirects to {to}, off the archive's host (another host, port or scheme); benchlog follows redirects only on the host asked, as it follows an index's links; if the archive moved, give its new address")]
    RedirectedAway { from: Url, to: Url },
    #[error("{0}: more than {max} redirects", max = MAX_REDIRECTS)]
    TooManyRedirects(Url),
    #[error("{0} is not a mailing-list archive: neither an mbox month (like 2006-April.txt.gz, its first line `From ...`) nor an index page linking to months (`.txt` or `.txt.gz`)")]
    NotAnArchive(Url),
    #[error("{0}: the index page links to more than the {max} months benchlog follows from one page", max = MAX_INDEX_MONTHS)]
    TooManyMonths(Url),
}

/// `10 minutes`, `60 s`, `250 ms`: a limit's time as the errors say it.
fn duration_for_people(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if duration.subsec_millis() != 0 || seconds == 0 {
        format!("{} ms", duration.as_millis())
    } else if seconds.is_multiple_of(60) && seconds > 60 {
        format!("{} minutes", seconds / 60)
    } else {
        format!("{seconds} s")
    }
}

/// What one import by address allows one page; [`FetchLimits::default`]
/// is the constants of [`crate::limits`], and tests make them short.
#[derive(Debug, Clone, Copy)]
pub struct FetchLimits {
    /// The largest index page ([`MAX_INDEX_BYTES`]); a page is read this
    /// far before it must show itself a month to be read on.
    pub index_bytes: u64,
    /// The largest month ([`MAX_ARCHIVE_BYTES`]).
    pub month_bytes: u64,
    /// The longest one page takes from its request to its last byte
    /// ([`MAX_TRANSFER_TIME`]).
    pub transfer_time: Duration,
}

impl Default for FetchLimits {
    fn default() -> Self {
        FetchLimits {
            index_bytes: MAX_INDEX_BYTES,
            month_bytes: MAX_ARCHIVE_BYTES,
            transfer_time: MAX_TRANSFER_TIME,
        }
    }
}

/// What one request brought.
enum Got {
    /// The page's bytes, as sent, and what to ask with next time.
    Body { bytes: Vec<u8>, mark: UrlMark },
    /// 304: unchanged since the mark it was asked with.
    Unchanged,
}

/// What a page asked for may be: the address given may be an index or a
/// month; an index's link must be a month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Address,
    Link,
}

/// The web client of an import: one connection pool, requests one after
/// the other (the import asks for the next month only once the last is
/// read). The client is reqwest's async one on a runtime of its own, so
/// that each read waits at most what is left of its page's time.
pub struct Fetcher {
    client: Client,
    limits: FetchLimits,
    // Dropped after the client (fields drop in order).
    runtime: tokio::runtime::Runtime,
}

impl Fetcher {
    pub fn new() -> anyhow::Result<Fetcher> {
        Fetcher::within(FetchLimits::default())
    }

    /// A fetcher held to `limits`.
    pub fn within(limits: FetchLimits) -> anyhow::Result<Fetcher> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the web client's runtime")?;
        let _entered = runtime.enter();
        let client = Client::builder()
            .user_agent(USER_AGENT)
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let asked = &attempt.previous()[0];
                if !same_archive(asked, attempt.url()) {
                    let refused = FetchError::RedirectedAway {
                        from: asked.clone(),
                        to: attempt.url().clone(),
                    };
                    attempt.error(refused)
                } else if attempt.previous().len() > MAX_REDIRECTS {
                    let refused = FetchError::TooManyRedirects(asked.clone());
                    attempt.error(refused)
                } else {
                    attempt.follow()
                }
            }))
            .connect_timeout(HTTP_TIMEOUT)
            .build()
            .context("starting the web client")?;
        Ok(Fetcher {
            client,
            limits,
            runtime,
        })
    }

    /// GETs `url`, asking with `mark` when there is one. A server that is
    /// busy (429, 503) and says for how long (`Retry-After` in seconds, up
    /// to [`MAX_RETRY_AFTER`]) is asked once more after that wait.
    fn get(&self, url: &Url, mark: Option<&UrlMark>, asked: Asked) -> anyhow::Result<Got> {
        let once = || self.runtime.block_on(self.get_once(url, mark, asked));
        match once()? {
            Answer::Got(got) => Ok(got),
            Answer::Busy(wait) => {
                std::thread::sleep(wait);
                match once()? {
                    Answer::Got(got) => Ok(got),
                    Answer::Busy(_) => Err(FetchError::Busy(url.clone()).into()),
                }
            }
        }
    }

    /// One request, its whole transfer within the limits' time, each step
    /// of it within [`HTTP_TIMEOUT`]. Its body is read in pieces and no
    /// further than the limit: to the index's size while it may be an
    /// index, then on only if it is a month, to the month's.
    async fn get_once(
        &self,
        url: &Url,
        mark: Option<&UrlMark>,
        asked: Asked,
    ) -> anyhow::Result<Answer> {
        let limits = &self.limits;
        let deadline = Instant::now() + limits.transfer_time;
        let mut request = self.client.get(url.clone());
        if let Some(mark) = mark {
            if let Some(date) = &mark.last_modified {
                request = request.header(IF_MODIFIED_SINCE, date);
            }
            if let Some(etag) = &mark.etag {
                request = request.header(IF_NONE_MATCH, etag);
            }
        }
        let mut response = self
            .in_time(url, deadline, "fetching", request.send())
            .await?;
        match response.status() {
            StatusCode::NOT_MODIFIED if mark.is_some() => return Ok(Answer::Got(Got::Unchanged)),
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
                let wait = response
                    .headers()
                    .get(RETRY_AFTER)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| value.trim().parse::<u64>().ok())
                    .map(Duration::from_secs)
                    .filter(|wait| *wait <= MAX_RETRY_AFTER);
                return match wait {
                    Some(wait) => Ok(Answer::Busy(wait)),
                    None => Err(FetchError::Status(url.clone(), response.status()).into()),
                };
            }
            StatusCode::NOT_FOUND | StatusCode::GONE => {
                return Err(FetchError::NotFound(url.clone()).into())
            }
            status if !status.is_success() => {
                return Err(FetchError::Status(url.clone(), status).into())
            }
            _ => {}
        }
        let too_large = |limit, what| FetchError::TooLarge {
            url: url.clone(),
            limit,
            what,
        };
        let length = response.content_length();
        if length.is_some_and(|length| length > limits.month_bytes) {
            return Err(too_large(limits.month_bytes, "archive").into());
        }
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|value: &reqwest::header::HeaderValue| value.to_str().ok())
                // A longer one is no date or tag worth keeping: the month
                // is then read again next time.
                .filter(|value| value.len() <= MAX_MARK_BYTES)
                .map(str::to_owned)
        };
        let mark = UrlMark {
            url: url.to_string(),
            last_modified: header(LAST_MODIFIED),
            etag: header(ETAG),
        };
        // Room for what it says it is, up to an index's size: a length
        // may lie, and past that size the page must first be a month.
        let mut bytes = Vec::with_capacity(
            usize::try_from(length.unwrap_or(0).min(limits.index_bytes)).unwrap_or(0),
        );
        let mut a_month = false;
        while let Some(piece) = self
            .in_time(url, deadline, "reading", response.chunk())
            .await?
        {
            if !append_within(&mut bytes, &piece, limits.month_bytes) {
                return Err(too_large(limits.month_bytes, "archive").into());
            }
            if !a_month && bytes.len() as u64 > limits.index_bytes {
                if !is_month(url, &bytes) {
                    return Err(match asked {
                        Asked::Address => too_large(limits.index_bytes, "index page"),
                        Asked::Link => FetchError::NotAnArchive(url.clone()),
                    }
                    .into());
                }
                a_month = true;
                // A month says its length truly or is cut at it: room
                // for all of it at once, not doubling after doubling.
                if let Some(length) = length.and_then(|n| usize::try_from(n).ok()) {
                    bytes.reserve_exact(length.saturating_sub(bytes.len()));
                }
            }
        }
        Ok(Answer::Got(Got::Body { bytes, mark }))
    }

    /// `step` (`doing` the request to `url`), given what is left of the
    /// page's time (to `deadline`) and at most [`HTTP_TIMEOUT`]. A redirect
    /// the client refused is said as such.
    async fn in_time<T>(
        &self,
        url: &Url,
        deadline: Instant,
        doing: &str,
        step: impl std::future::Future<Output = reqwest::Result<T>>,
    ) -> anyhow::Result<T> {
        let idle = Instant::now() + HTTP_TIMEOUT;
        let until = idle.min(deadline);
        match tokio::time::timeout_at(until.into(), step).await {
            Ok(Ok(done)) => Ok(done),
            Ok(Err(error)) => Err(match refused_redirect(&error) {
                Some(refused) => refused.into(),
                None => anyhow::Error::new(error).context(format!("{doing} {url}")),
            }),
            Err(_) if until == deadline => Err(FetchError::TooSlow {
                url: url.clone(),
                limit: self.limits.transfer_time,
            }
            .into()),
            Err(_) => Err(FetchError::Stalled {
                url: url.clone(),
                limit: HTTP_TIMEOUT,
            }
            .into()),
        }
    }
}

/// The redirect the client's policy refused, if that is what `error` is.
fn refused_redirect(error: &reqwest::Error) -> Option<FetchError> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if let Some(refused) = error.downcast_ref::<FetchError>() {
            return Some(refused.clone());
        }
        cause = error.source();
    }
    None
}

/// Appends `piece` to `bytes` unless that makes them longer than `limit`.
/// They grow by doubling, but never past `limit`: a doubling past it held
/// twice the largest page (an endless month took 539 MB).
fn append_within(bytes: &mut Vec<u8>, piece: &[u8], limit: u64) -> bool {
    let length = bytes.len() + piece.len();
    if length as u64 > limit {
        return false;
    }
    if length > bytes.capacity() {
        let most = usize::try_from(limit).unwrap_or(usize::MAX);
        let grown = bytes.capacity().saturating_mul(2).clamp(length, most);
        bytes.reserve_exact(grown - bytes.len());
    }
    bytes.extend_from_slice(piece);
    true
}

/// What one request was answered.
enum Answer {
    Got(Got),
    /// 429 or 503, with a wait short enough to ask again after it.
    Busy(Duration),
}

/// What an address turned out to be.
pub enum Page {
    /// A month's mbox: its address, its bytes as sent.
    Month(Url, Vec<u8>, UrlMark),
    /// A month unchanged since it was read.
    Unchanged,
    /// An index page, and the months it links to, oldest first.
    Index(Vec<Url>),
}

/// Fetches `address` and tells what it is.
pub fn fetch_page(fetcher: &Fetcher, conn: &Connection, address: &str) -> anyhow::Result<Page> {
    let url = Url::parse(address)
        .map_err(|error| FetchError::BadAddress(address.to_owned(), error.to_string()))?;
    let mark = store::url_mark(conn, url.as_str())?;
    let (bytes, mark) = match fetcher.get(&url, mark.as_ref(), Asked::Address)? {
        Got::Unchanged => return Ok(Page::Unchanged),
        Got::Body { bytes, mark } => (bytes, mark),
    };
    if is_month(&url, &bytes) {
        return Ok(Page::Month(url, bytes, mark));
    }
    let limit = fetcher.limits.index_bytes;
    if bytes.len() as u64 > limit {
        return Err(FetchError::TooLarge {
            url,
            limit,
            what: "index page",
        }
        .into());
    }
    let months = month_links(&url, &bytes);
    if months.is_empty() {
        return Err(FetchError::NotAnArchive(url).into());
    }
    if months.len() > MAX_INDEX_MONTHS {
        return Err(FetchError::TooManyMonths(url).into());
    }
    Ok(Page::Index(months))
}

/// Whether a page is a month's mbox: unpacked (a `.txt.gz`), its first
/// line `From ` over header fields. Only its start is unpacked for this.
fn is_month(url: &Url, bytes: &[u8]) -> bool {
    let start = intake::unpacked_prefix(bytes, SNIFF_BYTES);
    mbox::detect(Some(file_name(url)), &start) == Kind::Mbox
}

/// The last segment of an address's path: `2006-April.txt.gz`.
fn file_name(url: &Url) -> &str {
    url.path_segments()
        .and_then(|mut segments| segments.next_back())
        .unwrap_or("")
}

/// Whether `url` is on the archive at `asked`: the same host and port by
/// the same scheme, or the same host moved from http to https (each on
/// its default port). An index's links and every redirect are held to
/// it: a page elsewhere is not this archive's, and a month's redirect
/// must not reach what its link could not.
pub fn same_archive(asked: &Url, url: &Url) -> bool {
    let same = url.scheme() == asked.scheme()
        && url.port_or_known_default() == asked.port_or_known_default();
    let upgraded = asked.scheme() == "http"
        && url.scheme() == "https"
        && asked.port().is_none()
        && url.port().is_none();
    url.host_str() == asked.host_str() && (same || upgraded)
}

/// The month archives an index page links to: the `href` of each `a`
/// tag whose path ends in `.txt` or `.txt.gz`, resolved against the page,
/// on the page's own archive ([`same_archive`]), each once, oldest first
/// ([`month_order`]).
pub fn month_links(page: &Url, html: &[u8]) -> Vec<Url> {
    let mut months: Vec<Url> = Vec::new();
    let mut seen: std::collections::HashSet<Url> = std::collections::HashSet::new();
    for token in html5gum::Tokenizer::new(html).flatten() {
        let html5gum::Token::StartTag(tag) = token else {
            continue;
        };
        if !tag.name.eq_ignore_ascii_case(b"a") {
            continue;
        }
        let Some(href) = tag.attributes.get(b"href".as_slice()) else {
            continue;
        };
        let Ok(href) = std::str::from_utf8(&href.value) else {
            continue;
        };
        let Ok(mut url) = page.join(href.trim()) else {
            continue;
        };
        url.set_fragment(None);
        let path = url.path().to_ascii_lowercase();
        let month = path.ends_with(".txt") || path.ends_with(".txt.gz");
        if month && same_archive(page, &url) && seen.insert(url.clone()) {
            months.push(url);
            // More than the most followed is refused whole; counting on
            // would only say by how much.
            if months.len() > MAX_INDEX_MONTHS {
                break;
            }
        }
    }
    let mut keyed: Vec<(MonthKey, usize, Url)> = months
        .into_iter()
        .enumerate()
        .map(|(at, url)| (month_order(file_name(&url)), at, url))
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, _, url)| url).collect()
}

/// Sorts an archive's periods oldest first: mailman names them
/// `2006-April`, `2006q2`, `2006`, `2006-Week-of-Mon-20060403` or
/// `20060403`. The year is the first four digits; then the month's name
/// or the quarter; then the rest of the digits (a week's or a day's
/// date). A name without a year sorts after those with one, in page
/// order.
type MonthKey = (bool, u32, u32, u64);

fn month_order(name: &str) -> MonthKey {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let stem = name.to_ascii_lowercase();
    let stem = stem
        .trim_end_matches(".gz")
        .trim_end_matches(".txt")
        .to_owned();
    let digits: String = stem.chars().filter(char::is_ascii_digit).collect();
    let Some(year) = digits.get(..4).and_then(|year| year.parse::<u32>().ok()) else {
        return (true, 0, 0, 0);
    };
    let month = MONTHS
        .iter()
        .position(|month| stem.contains(month))
        .map(|at| at as u32 + 1)
        .or_else(|| {
            let quarter = stem.split_once('q')?.1.chars().next()?.to_digit(10)?;
            Some((quarter - 1) * 3 + 1)
        })
        .unwrap_or(0);
    let rest = digits[4..].chars().take(18).collect::<String>();
    (false, year, month, rest.parse().unwrap_or(0))
}

/// What importing one address did, for the lines `benchlog ingest`
/// prints.
pub struct UrlRead {
    /// Each month's address and what became of it, in the order read.
    pub months: Vec<(String, Result<FileOutcome, String>)>,
    /// Whether the address was an index page.
    pub index: bool,
}

impl UrlRead {
    /// The summary lines of the address.
    pub fn lines(&self, address: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let unchanged = self
            .months
            .iter()
            .filter(|(_, outcome)| matches!(outcome, Ok(FileOutcome::Unchanged)))
            .count();
        let failed = self
            .months
            .iter()
            .filter(|(_, outcome)| outcome.is_err())
            .count();
        if self.index {
            lines.push(format!(
                "{address}: index page of {} months: {} read, {unchanged} unchanged since the last import (HTTP 304), {failed} failed",
                self.months.len(),
                self.months.len() - unchanged - failed,
            ));
        } else if unchanged > 0 {
            lines.push(format!(
                "{address}: unchanged since the last import (HTTP 304), not read"
            ));
        }
        lines
    }
}

/// The months at an address, fetched one after the other on the import's
/// reading thread (one is fetched while the one before is stored), each
/// read as an mbox file is ([`super::files`]). A month's mark is stored in
/// the transaction that stores its last message (or a later one), never
/// before; a month that could not be fetched or read is reported with
/// why, and the others are read.
pub struct Months {
    fetcher: Fetcher,
    /// Their addresses, oldest first.
    months: Vec<Url>,
    /// What the server said of each last time.
    marks: Vec<Option<UrlMark>>,
    /// The address's own page, when it was a month.
    first: Option<(Vec<u8>, UrlMark)>,
    /// Whether the address was an index page.
    index: bool,
    /// The address is a month unchanged since it was read: nothing to read.
    unchanged: bool,
}

impl Months {
    /// Fetches `address` (a month, or an index page of months) and reads
    /// what the server said of each month last time. An address that is
    /// no archive at all is an error.
    pub fn fetch(conn: &Connection, address: &str, limits: FetchLimits) -> anyhow::Result<Months> {
        let fetcher = Fetcher::within(limits)?;
        let (months, first, index, unchanged) = match fetch_page(&fetcher, conn, address)? {
            Page::Unchanged => {
                let url = Url::parse(address).context("the address")?;
                (vec![url], None, false, true)
            }
            Page::Month(url, bytes, mark) => (vec![url], Some((bytes, mark)), false, false),
            Page::Index(months) => (months, None, true, false),
        };
        // All in one statement, here: the reading thread has no connection.
        let addresses: Vec<String> = months.iter().map(Url::to_string).collect();
        let marks = store::url_marks(conn, &addresses)?;
        Ok(Months {
            fetcher,
            months,
            marks,
            first,
            index,
            unchanged,
        })
    }

    /// What the import did of these months: the files of the source at
    /// `source` in `imported`.
    pub fn read_of(&self, imported: &super::Imported, source: usize) -> UrlRead {
        UrlRead {
            months: imported
                .files_of(source)
                .map(|done| (done.shown.clone(), done.outcome.clone()))
                .collect(),
            index: self.index,
        }
    }

    /// Fetches the month at `at`: its bytes and the mark to record once
    /// all of its messages are stored, or `None` when it is unchanged.
    fn get(&mut self, at: usize) -> anyhow::Result<Option<(Vec<u8>, Option<UrlMark>)>> {
        let url = &self.months[at];
        let got = match self.first.take() {
            Some((bytes, mark)) => Got::Body { bytes, mark },
            None => self
                .fetcher
                .get(url, self.marks[at].as_ref(), Asked::Link)?,
        };
        match got {
            Got::Unchanged => Ok(None),
            // A link of the index that is no month is not stored as a
            // text: it is listed, with why.
            Got::Body { bytes, .. } if !is_month(url, &bytes) => {
                Err(FetchError::NotAnArchive(url.clone()).into())
            }
            Got::Body { bytes, mark } => {
                let worth = mark.last_modified.is_some() || mark.etag.is_some();
                Ok(Some((bytes, worth.then_some(mark))))
            }
        }
    }
}

impl Source for Months {
    fn read(&mut self, sink: &mut Sink<'_>) -> ControlFlow<()> {
        if self.unchanged {
            let shown = self.months[0].to_string();
            return sink.send(
                Step::FileEnd {
                    shown,
                    end: FileEnd::Unchanged,
                },
                0,
            );
        }
        for file in 0..self.months.len() {
            let shown = self.months[file].to_string();
            let (bytes, mark) = match self.get(file) {
                Ok(Some(got)) => got,
                Ok(None) => {
                    sink.send(
                        Step::FileEnd {
                            shown,
                            end: FileEnd::Unchanged,
                        },
                        0,
                    )?;
                    continue;
                }
                Err(error) => {
                    let end = FileEnd::Failed(format!("{error:#}"));
                    sink.send(Step::FileEnd { shown, end }, 0)?;
                    continue;
                }
            };
            let name = file_name(&self.months[file]).to_owned();
            let mail = read_bytes(sink, &name, shown, bytes, MAX_ARCHIVE_BYTES)?;
            if let (true, Some(mark)) = (mail, mark) {
                sink.send(Step::UrlMark(Box::new(mark)), 0)?;
            }
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_told_from_paths() {
        assert!(is_url("http://example.org/pipermail/x/"));
        assert!(is_url("HTTPS://example.org/2006-April.txt.gz"));
        assert!(!is_url("2006-April.txt.gz"));
        assert!(!is_url("http"));
        assert!(!is_url("./http://x"));
    }

    fn sorted(mut names: Vec<&str>) -> Vec<&str> {
        names.sort_by_key(|name| month_order(name));
        names
    }

    #[test]
    fn periods_sort_oldest_first() {
        // As the index lists them, newest first, and as a folder does.
        let months = vec![
            "2017-March.txt",
            "2006-August.txt.gz",
            "2006-April.txt.gz",
            "2005-December.txt.gz",
        ];
        let oldest_first = [
            "2005-December.txt.gz",
            "2006-April.txt.gz",
            "2006-August.txt.gz",
            "2017-March.txt",
        ];
        assert_eq!(sorted(months), oldest_first);
        assert_eq!(
            sorted(vec![
                "2006-Week-of-Mon-20060403.txt.gz",
                "2006-Week-of-Mon-20060327.txt.gz",
                "2005-Week-of-Mon-20051226.txt.gz",
            ]),
            [
                "2005-Week-of-Mon-20051226.txt.gz",
                "2006-Week-of-Mon-20060327.txt.gz",
                "2006-Week-of-Mon-20060403.txt.gz",
            ]
        );
        assert_eq!(
            sorted(vec!["2006q2.txt", "notes.txt", "2006q1.txt", "2005q4.txt"]),
            ["2005q4.txt", "2006q1.txt", "2006q2.txt", "notes.txt"]
        );
        assert_eq!(
            sorted(vec!["20060403.txt.gz", "2006.txt.gz", "20060327.txt.gz"]),
            ["2006.txt.gz", "20060327.txt.gz", "20060403.txt.gz"]
        );
    }

    #[test]
    fn an_archive_is_its_host_and_port_or_its_https() {
        let asked = Url::parse("http://lists.example.org/pipermail/perf/").unwrap();
        let on = |url: &str| same_archive(&asked, &Url::parse(url).unwrap());
        assert!(on("http://lists.example.org/pipermail/perf/2006-May.txt"));
        assert!(on("http://lists.example.org:80/elsewhere/2006-May.txt"));
        assert!(on("https://lists.example.org/pipermail/perf/2006-May.txt"));
        assert!(!on(
            "https://lists.example.org:8443/pipermail/perf/2006-May.txt"
        ));
        assert!(!on(
            "http://lists.example.org:8080/pipermail/perf/2006-May.txt"
        ));
        assert!(!on("http://example.org/pipermail/perf/2006-May.txt"));
        assert!(!on("ftp://lists.example.org/pipermail/perf/2006-May.txt"));
        // Not back from https to http.
        let secure = Url::parse("https://lists.example.org/").unwrap();
        let plain = Url::parse("http://lists.example.org/2006-May.txt").unwrap();
        assert!(!same_archive(&secure, &plain));
    }

    #[test]
    fn limits_are_said_in_the_units_they_were_chosen_in() {
        assert_eq!(duration_for_people(Duration::from_secs(600)), "10 minutes");
        assert_eq!(duration_for_people(Duration::from_secs(60)), "60 s");
        assert_eq!(duration_for_people(Duration::from_millis(1500)), "1500 ms");
    }

    #[test]
    fn a_page_grows_by_doubling_but_never_past_its_limit() {
        let mut bytes = Vec::new();
        assert!(append_within(&mut bytes, &[1; 600], 1000));
        assert!(append_within(&mut bytes, &[2; 300], 1000));
        assert!(bytes.capacity() <= 1000, "{}", bytes.capacity());
        assert!(append_within(&mut bytes, &[3; 100], 1000));
        assert!(!append_within(&mut bytes, &[4], 1000));
        assert_eq!(bytes.len(), 1000);
        assert_eq!(bytes.capacity(), 1000);
    }

    #[test]
    fn an_index_links_its_months_on_its_own_host_only() {
        let page = Url::parse("http://lists.example.org/pipermail/perf/").unwrap();
        let html = br#"<a href="2006-May.txt.gz">x</a> <A HREF='2006-April.txt'>y</A>
            <a href="2006-May.txt.gz#top">again</a> <a href="2006-May/thread.html">t</a>
            <a href="http://elsewhere.example.com/2006-June.txt.gz">other host</a>
            <a href="/pipermail/perf/2006-March.txt.gz">absolute</a><a>no href</a>"#;
        let links: Vec<String> = month_links(&page, html)
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            links,
            [
                "http://lists.example.org/pipermail/perf/2006-March.txt.gz",
                "http://lists.example.org/pipermail/perf/2006-April.txt",
                "http://lists.example.org/pipermail/perf/2006-May.txt.gz",
            ]
        );
    }
}
