//! What large answers in flight may hold. A page is built whole before it
//! is sent, and a client that never reads keeps it until the write stall
//! timeout closes its connection ([`crate::limits::WRITE_STALL_TIMEOUT`]):
//! 50 such clients of a 28 MB page held 1.5 GB. Answers of
//! [`LARGE_ANSWER_BYTES`] or more take a share of a budget until they are
//! sent or dropped; one that does not fit is refused at once (429 when
//! its client holds too much already, 503 when everyone does), so many
//! never-reading clients cannot make the server hold more than the
//! budget.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::server::Holding;
use super::{cache, guard, AppError, AppState};
use crate::limits::{
    ANSWER_BUDGET_BYTES, CLIENT_ANSWER_BYTES, LARGE_ANSWER_BYTES, WRITE_STALL_TIMEOUT,
};
/// The bytes held by large answers in flight, in all and per client.
pub struct AnswerBudget {
    total: u64,
    per_client: u64,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    total: u64,
    per_client: HashMap<Option<IpAddr>, u64>,
}

/// One answer's share; dropping it gives the bytes back.
pub struct Share {
    budget: Arc<AnswerBudget>,
    client: Option<IpAddr>,
    bytes: u64,
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

    /// A share of `bytes` for `client`'s answer. An answer larger than a
    /// part is still sent when nothing else is held (by the client, or at
    /// all): the pages' own bounds keep it from being huge.
    pub fn take(
        budget: &Arc<AnswerBudget>,
        client: Option<IpAddr>,
        bytes: u64,
    ) -> Result<Share, Exceeded> {
        let mut held = budget.held.lock().unwrap_or_else(|e| e.into_inner());
        let of_client = held.per_client.get(&client).copied().unwrap_or(0);
        if of_client > 0 && of_client + bytes > budget.per_client {
            return Err(Exceeded::Client);
        }
        if held.total > 0 && held.total + bytes > budget.total {
            return Err(Exceeded::Total);
        }
        held.total += bytes;
        *held.per_client.entry(client).or_default() += bytes;
        Ok(Share {
            budget: Arc::clone(budget),
            client,
            bytes,
        })
    }

    /// Bytes held in all.
    #[cfg(test)]
    fn held(&self) -> u64 {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.budget.held.lock().unwrap_or_else(|e| e.into_inner());
        held.total -= self.bytes;
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
    match AnswerBudget::take(state.answer_budget(), client, bytes) {
        Ok(share) => response.map(|body| Body::new(Holding::new(body, share))),
        Err(Exceeded::Client) => AppError::TooManyRequests {
            message: format!(
                "This page is large ({} KiB), and answers this large are being sent to you already, up to {} MiB at once. Wait for those to arrive, then ask again.",
                bytes / 1024,
                CLIENT_ANSWER_BYTES >> 20
            ),
            retry_after,
        }
        .into_response(),
        Err(Exceeded::Total) => AppError::Busy {
            message: format!(
                "The server is sending as many large pages as it may at once ({} MiB); please try again in a few seconds.",
                ANSWER_BUDGET_BYTES >> 20
            ),
            retry_after,
        }
        .into_response(),
    }
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
        let a1 = AnswerBudget::take(&budget, a, 30).unwrap();
        assert_eq!(
            AnswerBudget::take(&budget, a, 30).err(),
            Some(Exceeded::Client)
        );
        let _b1 = AnswerBudget::take(&budget, b, 40).unwrap();
        let _c1 = AnswerBudget::take(&budget, c, 30).unwrap();
        assert_eq!(
            AnswerBudget::take(&budget, None, 1).err(),
            Some(Exceeded::Total)
        );
        drop(a1);
        assert_eq!(budget.held(), 70);
        // Its part is free again.
        let _a2 = AnswerBudget::take(&budget, a, 30).unwrap();
        assert_eq!(budget.held(), 100);
    }

    #[test]
    fn one_answer_larger_than_the_budget_is_sent_alone() {
        let budget = Arc::new(AnswerBudget::new(100, 40));
        let huge = AnswerBudget::take(&budget, None, 500).unwrap();
        assert_eq!(
            AnswerBudget::take(&budget, None, 1).err(),
            Some(Exceeded::Client)
        );
        drop(huge);
        assert_eq!(budget.held(), 0);
    }
}
