//! What large answers in flight may hold. A page is built whole before it
//! is sent, and a client that never reads keeps it until the write stall
//! timeout closes its connection ([`crate::limits::WRITE_STALL_TIMEOUT`]):
//! 50 such clients of a 28 MB page held 1.5 GB. Answers of
//! [`LARGE_ANSWER_BYTES`] or more take a share of a budget until they are
//! sent or dropped, so many never-reading clients cannot make the server
//! hold more than the budget:
//!
//! - a buffer the answer cache keeps counts once, however many answers
//!   are being sent from it ([`SharedBuffer`]): 18 never-reading clients
//!   of one 4.6 MB comparison hold 4.6 MB, not 83;
//! - an answer that does not fit what is left is written to an unnamed
//!   file beside the database and sent from there, a piece at a time
//!   (within [`crate::limits::SPILLED_ANSWER_BYTES`] on disk, above the disk's floor):
//!   a few squatters holding the budget no longer refuse a large page to
//!   everyone else (58 of 66 asks for a 4.6 MB comparison were 503);
//! - a client holding its part already is refused (429), and so is
//!   everyone when the disk cannot take the answer either (503).

use std::collections::HashMap;
use std::io::Write as _;
use std::net::IpAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::server::Holding;
use super::state::AppState;
use super::{cache, guard, AppError};
use crate::limits::{
    ANSWER_BUDGET_BYTES, CLIENT_ANSWER_BYTES, LARGE_ANSWER_BYTES, WRITE_STALL_TIMEOUT,
};

/// Marks an answer whose body is a buffer the answer cache keeps (its
/// address): every answer sent from it shares that one buffer.
#[derive(Debug, Clone, Copy)]
pub struct SharedBuffer(usize);

impl SharedBuffer {
    pub fn of(body: &Bytes) -> Self {
        SharedBuffer(body.as_ptr() as usize)
    }
}

/// The bytes held by large answers in flight, in all and per client (and
/// the KiB of uploads' bodies being read: `bodies::BodyBudget` waits for
/// a share where an answer is refused one).
pub struct AnswerBudget {
    total: u64,
    per_client: u64,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    total: u64,
    per_client: HashMap<Option<IpAddr>, u64>,
    /// The shares of each buffer being sent from ([`SharedBuffer`]),
    /// counted once in `total`.
    shared: HashMap<usize, usize>,
}

/// One answer's share; dropping it gives the bytes back.
pub struct Share {
    budget: Arc<AnswerBudget>,
    client: Option<IpAddr>,
    bytes: u64,
    buffer: Option<usize>,
}

/// Why a share was not given.
#[derive(Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// The client holds its part already.
    Client,
    /// Everyone's answers hold the whole budget.
    Total,
}

impl AnswerBudget {
    /// A budget of `total` bytes, at most `per_client` of them per client.
    pub fn new(total: u64, per_client: u64) -> Self {
        AnswerBudget {
            total,
            per_client,
            held: Mutex::new(Held::default()),
        }
    }

    /// A share of `bytes` for `client`'s answer, sent from `buffer` when
    /// that is one the cache keeps. An answer larger than a part is still
    /// sent when nothing else is held (by the client, or at all): the
    /// pages' own bounds keep it from being huge. The client's part counts
    /// every answer; the total counts a shared buffer once.
    pub fn take(
        budget: &Arc<AnswerBudget>,
        client: Option<IpAddr>,
        bytes: u64,
        buffer: Option<SharedBuffer>,
    ) -> Result<Share, Exceeded> {
        let mut held = budget.held.lock().unwrap_or_else(|e| e.into_inner());
        let of_client = held.per_client.get(&client).copied().unwrap_or(0);
        if of_client > 0 && of_client + bytes > budget.per_client {
            return Err(Exceeded::Client);
        }
        let buffer = buffer.map(|SharedBuffer(at)| at);
        let held_already = buffer.is_some_and(|at| held.shared.contains_key(&at));
        let new_bytes = if held_already { 0 } else { bytes };
        if held.total > 0 && held.total + new_bytes > budget.total {
            return Err(Exceeded::Total);
        }
        held.total += new_bytes;
        *held.per_client.entry(client).or_default() += bytes;
        if let Some(at) = buffer {
            *held.shared.entry(at).or_default() += 1;
        }
        Ok(Share {
            budget: Arc::clone(budget),
            client,
            bytes,
            buffer,
        })
    }

    /// Bytes held in all.
    #[cfg(test)]
    pub(super) fn held(&self) -> u64 {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.budget.held.lock().unwrap_or_else(|e| e.into_inner());
        let last = match self.buffer {
            Some(at) => {
                let shares = held.shared.get_mut(&at).map_or(0, |shares| {
                    *shares -= 1;
                    *shares
                });
                if shares == 0 {
                    held.shared.remove(&at);
                }
                shares == 0
            }
            None => true,
        };
        if last {
            held.total -= self.bytes;
        }
        if let Some(of_client) = held.per_client.get_mut(&self.client) {
            *of_client -= self.bytes;
            if *of_client == 0 {
                held.per_client.remove(&self.client);
            }
        }
    }
}

/// Gives each large answer its share of the budget until it is sent, or
/// refuses it when there is none. Inside the compression layer, where an
/// answer's length is still known.
pub async fn hold_large_answers(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let client = guard::peer_ip(&request);
    let response = next.run(request).await;
    // Read from a kept file a piece at a time: they hold no more.
    if response.extensions().get::<cache::SentFromFile>().is_some() {
        return response;
    }
    // Bodies of unknown length are streamed (static files), not held.
    let Some(bytes) = response.body().size_hint().exact() else {
        return response;
    };
    if bytes < LARGE_ANSWER_BYTES {
        return response;
    }
    let retry_after = WRITE_STALL_TIMEOUT.as_secs();
    let buffer = response.extensions().get::<SharedBuffer>().copied();
    let exceeded = match AnswerBudget::take(state.answer_budget(), client, bytes, buffer) {
        Ok(share) => return response.map(|body| Body::new(Holding::new(body, share))),
        Err(exceeded) => exceeded,
    };
    if exceeded == Exceeded::Total {
        match spill(&state, client, bytes, response).await {
            Ok(response) => return response,
            Err(reason) => tracing::info!("a large answer not sent from a file: {reason}"),
        }
    }
    match exceeded {
        Exceeded::Client => AppError::TooManyRequests {
            message: format!(
                "This page is large ({} KiB), and answers this large are being sent to you already, up to {} MiB at once. Wait for those to arrive, then ask again.",
                bytes / 1024,
                CLIENT_ANSWER_BYTES >> 20
            ),
            retry_after,
        }
        .into_response(),
        Exceeded::Total => AppError::Busy {
            message: format!(
                "The server is sending as many large pages as it may at once ({} MiB); please try again in a few seconds.",
                ANSWER_BUDGET_BYTES >> 20
            ),
            retry_after,
        }
        .into_response(),
    }
}

/// `response`, of `bytes`, sent from an unnamed file beside the database
/// instead of memory, holding a share of the spilled answers' budget
/// ([`crate::limits::SPILLED_ANSWER_BYTES`]) until it is sent; or why it cannot be (that
/// budget, or the disk, is full).
async fn spill(
    state: &AppState,
    client: Option<IpAddr>,
    bytes: u64,
    response: Response,
) -> Result<Response, String> {
    let share = AnswerBudget::take(state.spilled_budget(), client, bytes, None)
        .map_err(|exceeded| format!("the spilled answers' budget is full ({exceeded:?})"))?;
    // As the answers kept on disk: never within their headroom above the
    // uploads' floor, so that no crowd of slow readers leaves uploads
    // saying the disk is full.
    let needed = state
        .options()
        .min_free_disk_bytes
        .saturating_add(crate::limits::DISK_CACHE_HEADROOM_BYTES)
        .saturating_add(bytes);
    state
        .db_file()
        .check_free_space(needed)
        .map_err(|problem| format!("{needed} bytes free needed: {problem:?}"))?;
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|error| format!("reading the answer: {error}"))?;
    let file = write_unnamed(state.db_dir(), &body)
        .map_err(|error| format!("writing the answer to a file: {error}"))?;
    let len = body.len() as u64;
    drop(body);
    // Logged at the 1st, 2nd, 4th, 8th, ...: a few lines however long an
    // attack lasts.
    static SPILLED: AtomicU64 = AtomicU64::new(0);
    let spilled = SPILLED.fetch_add(1, Ordering::Relaxed) + 1;
    if spilled.is_power_of_two() {
        tracing::info!(
            "large answers sent from files, those in memory holding {} MiB: {spilled} so far",
            ANSWER_BUDGET_BYTES >> 20
        );
    }
    let sent = cache::FileBody::new(Arc::new(file), len);
    Ok(Response::from_parts(
        parts,
        Body::new(Holding::new(Body::new(sent), share)),
    ))
}

/// A file in `dir` with no name (nothing is left behind), holding `body`.
fn write_unnamed(dir: &Path, body: &[u8]) -> std::io::Result<std::fs::File> {
    let file = tempfile::tempfile_in(dir)?;
    (&file).write_all(body)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_bounded_per_client_and_in_all_and_given_back() {
        let budget = Arc::new(AnswerBudget::new(100, 40));
        let (a, b, c) = (
            Some("192.0.2.1".parse().unwrap()),
            Some("192.0.2.2".parse().unwrap()),
            Some("192.0.2.3".parse().unwrap()),
        );
        let a1 = AnswerBudget::take(&budget, a, 30, None).unwrap();
        assert_eq!(
            AnswerBudget::take(&budget, a, 30, None).err(),
            Some(Exceeded::Client)
        );
        let _b1 = AnswerBudget::take(&budget, b, 40, None).unwrap();
        let _c1 = AnswerBudget::take(&budget, c, 30, None).unwrap();
        assert_eq!(
            AnswerBudget::take(&budget, None, 1, None).err(),
            Some(Exceeded::Total)
        );
        drop(a1);
        assert_eq!(budget.held(), 70);
        // Its part is free again.
        let _a2 = AnswerBudget::take(&budget, a, 30, None).unwrap();
        assert_eq!(budget.held(), 100);
    }

    #[test]
    fn one_answer_larger_than_the_budget_is_sent_alone() {
        let budget = Arc::new(AnswerBudget::new(100, 40));
        let huge = AnswerBudget::take(&budget, None, 500, None).unwrap();
        assert_eq!(
            AnswerBudget::take(&budget, None, 1, None).err(),
            Some(Exceeded::Client)
        );
        drop(huge);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn a_buffer_shared_by_many_answers_counts_once_in_all() {
        let budget = Arc::new(AnswerBudget::new(100, 70));
        let page = Bytes::from(vec![0u8; 60]);
        let kept = Some(SharedBuffer::of(&page));
        let clients: Vec<Option<IpAddr>> = (1..=5)
            .map(|n| Some(format!("192.0.2.{n}").parse().unwrap()))
            .collect();
        // Five clients of one kept 60-byte page: 60 held, not 300.
        let mut shares: Vec<Share> = clients
            .iter()
            .map(|client| AnswerBudget::take(&budget, *client, 60, kept).unwrap())
            .collect();
        assert_eq!(budget.held(), 60);
        // A client's part still counts each of its answers.
        assert_eq!(
            AnswerBudget::take(&budget, clients[0], 60, kept).err(),
            Some(Exceeded::Client)
        );
        // Another 60 bytes of their own do not fit beside them.
        assert_eq!(
            AnswerBudget::take(&budget, None, 60, None).err(),
            Some(Exceeded::Total)
        );
        let last = shares.pop();
        drop(shares);
        assert_eq!(budget.held(), 60, "held while one share is left");
        drop(last);
        assert_eq!(budget.held(), 0);
    }
}
