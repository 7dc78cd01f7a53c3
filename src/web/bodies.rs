//! What uploads' request bodies may hold, and how slowly they may come.
//!
//! A body waits for its share of [`BODY_BUDGET_KIB`] (its Content-Length)
//! before it is read, so that the bodies being read never hold more than
//! the budget. Two rules keep a few clients from holding it all: one
//! client's bodies hold at most [`CLIENT_BODY_KIB`] at once (its further
//! bodies wait for its own part, not for everyone's), and a body being
//! read must bring [`MIN_BODY_BYTES_PER_WINDOW`] every
//! [`BODY_RATE_WINDOW`] or is dropped with 408 ([`MinimumRate`]). Four
//! bodies sent 16 bytes every 5 s from one address held the whole budget
//! for the 60 s request timeout before, and every other upload waited.
//!
//! [`BODY_BUDGET_KIB`]: crate::limits::BODY_BUDGET_KIB
//! [`CLIENT_BODY_KIB`]: crate::limits::CLIENT_BODY_KIB
//! [`MIN_BODY_BYTES_PER_WINDOW`]: crate::limits::MIN_BODY_BYTES_PER_WINDOW
//! [`BODY_RATE_WINDOW`]: crate::limits::BODY_RATE_WINDOW

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use hyper::body::{Frame, SizeHint};
use tokio::sync::Notify;
use tokio::time::Sleep;

use super::budget::{AnswerBudget, Share};

/// The KiB of request bodies held, in all and per client: the answers'
/// rule of a part per client ([`AnswerBudget`]), waited for instead of
/// refused.
pub struct BodyBudget {
    held: Arc<AnswerBudget>,
    /// Told whenever a share is given back.
    freed: Notify,
}

/// One body's share; dropping it gives the KiB back.
pub struct BodyShare<'a> {
    budget: &'a BodyBudget,
    /// Always Some until dropped: given back before the waiters are told.
    share: Option<Share>,
}

impl BodyBudget {
    /// A budget of `total` KiB, at most `per_client` of them per client.
    pub fn new(total: usize, per_client: usize) -> Self {
        BodyBudget {
            held: Arc::new(AnswerBudget::new(total as u64, per_client as u64)),
            freed: Notify::new(),
        }
    }

    /// Waits until `client` may hold `kib` more: its own bodies leave
    /// room in its part and everyone's in the budget. A body larger than
    /// a part goes when the client holds nothing, one larger than the
    /// budget when nobody does. Whoever fits goes first: a small paste
    /// does not queue behind a large body waiting for room.
    pub async fn take(&self, client: Option<IpAddr>, kib: usize) -> BodyShare<'_> {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so no release in between is missed.
            freed.as_mut().enable();
            if let Ok(share) = AnswerBudget::take(&self.held, client, kib as u64, None) {
                return BodyShare {
                    budget: self,
                    share: Some(share),
                };
            }
            freed.await;
        }
    }

    /// KiB held in all.
    #[cfg(test)]
    fn held(&self) -> u64 {
        self.held.held()
    }
}

impl Drop for BodyShare<'_> {
    fn drop(&mut self) {
        drop(self.share.take());
        self.budget.freed.notify_waiters();
    }
}

/// A body that brought less than the least in one window.
#[derive(Debug, thiserror::Error)]
#[error("the body brought {brought} bytes in {} ms, less than the {least} it must bring in each such window", window.as_millis())]
pub struct TooSlow {
    pub brought: usize,
    pub least: usize,
    pub window: Duration,
}

/// A request body that must bring at least `least` bytes (or the rest of
/// its declared length, when that is less) in every `window` from when it
/// is first read, or ends with [`TooSlow`].
pub struct MinimumRate {
    body: Body,
    window: Duration,
    least: usize,
    /// What is still to come by the declared length; None: not declared.
    remaining: Option<u64>,
    /// What the current window needs: `least`, or the rest when less.
    needed: usize,
    brought: usize,
    /// The end of the current window; set at the first poll.
    timer: Option<Pin<Box<Sleep>>>,
}

impl MinimumRate {
    pub fn new(body: Body, declared: Option<u64>, window: Duration, least: usize) -> Self {
        MinimumRate {
            body,
            window,
            least,
            remaining: declared,
            needed: 0,
            brought: 0,
            timer: None,
        }
    }

    fn start_window(&mut self) {
        self.brought = 0;
        self.needed = match self.remaining {
            Some(rest) => usize::try_from(rest).unwrap_or(usize::MAX).min(self.least),
            None => self.least,
        };
        let end = tokio::time::Instant::now() + self.window;
        match &mut self.timer {
            Some(timer) => timer.as_mut().reset(end),
            None => self.timer = Some(Box::pin(tokio::time::sleep_until(end))),
        }
    }
}

impl HttpBody for MinimumRate {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if this.timer.is_none() {
            this.start_window();
        }
        loop {
            match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        this.brought += data.len();
                        if let Some(rest) = &mut this.remaining {
                            *rest = rest.saturating_sub(data.len() as u64);
                        }
                    }
                    return Poll::Ready(Some(Ok(frame)));
                }
                Poll::Ready(other) => return Poll::Ready(other),
                Poll::Pending => {}
            }
            let Some(timer) = &mut this.timer else {
                return Poll::Pending;
            };
            match timer.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(()) if this.brought < this.needed => {
                    let slow = TooSlow {
                        brought: this.brought,
                        least: this.needed,
                        window: this.window,
                    };
                    return Poll::Ready(Some(Err(axum::Error::new(slow))));
                }
                // Enough this window: the next one starts, and its timer
                // is polled (and so armed) on the next turn.
                Poll::Ready(()) => this.start_window(),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn client(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([192, 0, 2, last]))
    }

    #[tokio::test]
    async fn a_client_holds_at_most_its_part_and_others_go_on() {
        let budget = BodyBudget::new(100, 40);
        let a1 = budget.take(client(1), 30).await;
        // Its second body waits for its own part...
        let a2 = budget.take(client(1), 30);
        tokio::pin!(a2);
        assert!(futures_poll(&mut a2).is_none(), "over its part: waits");
        // ...while another client's go at once.
        let _b = budget.take(client(2), 40).await;
        let _c = budget.take(client(3), 30).await;
        assert_eq!(budget.held(), 100);
        drop(a1);
        let _a2 = a2.await;
        assert_eq!(budget.held(), 100);
    }

    #[tokio::test]
    async fn one_body_larger_than_a_part_goes_alone() {
        let budget = BodyBudget::new(100, 40);
        let huge = budget.take(None, 500).await;
        let small = budget.take(None, 1);
        tokio::pin!(small);
        assert!(futures_poll(&mut small).is_none());
        drop(huge);
        let _small = small.await;
        assert_eq!(budget.held(), 1);
    }

    /// Polls a future once.
    fn futures_poll<F: Future + Unpin>(future: &mut F) -> Option<F::Output> {
        let waker = std::task::Waker::noop();
        match Pin::new(future).poll(&mut Context::from_waker(waker)) {
            Poll::Ready(out) => Some(out),
            Poll::Pending => None,
        }
    }

    /// The pieces a test body is sent in.
    struct Pieces(tokio::sync::mpsc::Receiver<Bytes>);

    impl futures_core::Stream for Pieces {
        type Item = Result<Bytes, std::io::Error>;

        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            self.get_mut().0.poll_recv(cx).map(|piece| piece.map(Ok))
        }
    }

    /// A body of `pieces`, each sent after `gap`.
    fn trickle(pieces: Vec<&'static [u8]>, gap: Duration) -> Body {
        let (send, receive) = tokio::sync::mpsc::channel(1);
        tokio::spawn(async move {
            for piece in pieces {
                tokio::time::sleep(gap).await;
                if send.send(Bytes::from_static(piece)).await.is_err() {
                    return;
                }
            }
        });
        Body::from_stream(Pieces(receive))
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_under_the_rate_ends_with_too_slow() {
        let slow = trickle(vec![b"0123456789abcdef"; 10], Duration::from_secs(2));
        let body = MinimumRate::new(slow, Some(1_000), Duration::from_secs(5), 64);
        let error = Body::new(body).collect().await.unwrap_err();
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
        let slow = std::iter::from_fn(|| {
            let this = cause?;
            cause = this.source();
            Some(this)
        })
        .find_map(|cause| cause.downcast_ref::<TooSlow>())
        .expect("too slow");
        assert_eq!((slow.brought, slow.least), (32, 64));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_at_the_rate_is_read_whole() {
        let steady = trickle(vec![b"0123456789abcdef"; 10], Duration::from_secs(1));
        let body = MinimumRate::new(steady, Some(160), Duration::from_secs(5), 64);
        let read = Body::new(body).collect().await.unwrap().to_bytes();
        assert_eq!(read.len(), 160);
    }
}
