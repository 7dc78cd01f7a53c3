//! An answer's body, handed to hyper in pieces while it holds what must
//! last as long as the answer is being sent.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use hyper::body::{Frame, SizeHint};

use crate::limits::ANSWER_CHUNK_BYTES;

/// A body that holds `held` until it is all handed to hyper (in pieces of
/// [`ANSWER_CHUNK_BYTES`]), or dropped: what marks a request under way,
/// and a large answer's share of a budget.
pub(in crate::web) struct Holding<H> {
    body: Body,
    /// Of the last data taken from `body`, what is still to give.
    rest: Bytes,
    _held: H,
}

impl<H> Holding<H> {
    pub(in crate::web) fn new(body: Body, held: H) -> Self {
        Holding {
            body,
            rest: Bytes::new(),
            _held: held,
        }
    }
}

impl<H: Unpin> hyper::body::Body for Holding<H> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if this.rest.is_empty() {
            match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.rest = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return other,
            }
        }
        let piece = this.rest.split_to(this.rest.len().min(ANSWER_CHUNK_BYTES));
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let mut hint = self.body.size_hint();
        let rest = self.rest.len() as u64;
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + rest);
        }
        hint.set_lower(hint.lower() + rest);
        hint
    }
}
