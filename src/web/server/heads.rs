//! Over-long addresses and headers, answered with a page saying so:
//! those hyper parses by the router's [`refuse_oversized_heads`], those
//! it cannot by the socket's [`ExplainedHeads`].

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::limits::{
    HYPER_MAX_HEADERS, MAX_HEADER_BYTES, MAX_HEADER_COUNT, MAX_URI_BYTES, READ_BUFFER_BYTES,
};
use crate::web::AppError;

/// Answers a request whose address or headers are larger than
/// [`MAX_URI_BYTES`], [`MAX_HEADER_BYTES`] or [`MAX_HEADER_COUNT`] with 414
/// or 431 and a message, before anything reads them.
pub async fn refuse_oversized_heads(request: Request, next: Next) -> Response {
    let uri = request.uri();
    let uri_bytes = uri.scheme_str().map_or(0, str::len)
        + uri.authority().map_or(0, |a| a.as_str().len())
        + uri.path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_bytes > MAX_URI_BYTES {
        return AppError::UriTooLong(format!(
            "The address is too long: {uri_bytes} bytes, and this site takes at most {} KiB ({MAX_URI_BYTES} bytes). Shorten it (fewer `by` or `where` terms in a comparison).",
            MAX_URI_BYTES / 1024
        ))
        .into_response();
    }
    let header_count = request.headers().len();
    if header_count > MAX_HEADER_COUNT {
        return AppError::HeadersTooLarge(format!(
            "The request has too many headers: {header_count}, and this site takes at most {MAX_HEADER_COUNT}."
        ))
        .into_response();
    }
    // As sent: "name: value\r\n".
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return AppError::HeadersTooLarge(format!(
            "The request's headers are too large: {header_bytes} bytes, and this site takes at most {} KiB ({MAX_HEADER_BYTES} bytes). Clearing this site's cookies usually helps.",
            MAX_HEADER_BYTES / 1024
        ))
        .into_response();
    }
    next.run(request).await
}

/// The longest request target hyper parses: longer ones get its own
/// empty 414, which [`ExplainedHeads`] replaces.
const HYPER_MAX_URI_BYTES: usize = u16::MAX as usize - 1;

/// The accepted socket, on which hyper's own answers to heads it cannot
/// parse are replaced by ones saying what was too large and the limit.
/// hyper answers a head larger than its buffer ([`READ_BUFFER_BYTES`]),
/// with more than [`HYPER_MAX_HEADERS`] headers, or with a target over
/// 64 KiB itself, with an empty 431 or 414, before the router (and
/// [`refuse_oversized_heads`]) sees the request.
pub(in crate::web) struct ExplainedHeads<S> {
    inner: S,
    /// Bytes read since the last answer began: how large the head hyper
    /// gave up on was.
    read_since_answer: usize,
    /// Our answer in place of hyper's, and how much of it is written.
    replacing: Option<(Vec<u8>, usize)>,
}

impl<S> ExplainedHeads<S> {
    pub(in crate::web) fn new(inner: S) -> Self {
        ExplainedHeads {
            inner,
            read_since_answer: 0,
            replacing: None,
        }
    }

    /// The answer to write instead of `written`, when `written` is one of
    /// hyper's empty 414 or 431 answers (a whole head, no body).
    fn explained(&self, written: &[u8]) -> Option<Vec<u8>> {
        let empty = written.len() < 512
            && written.ends_with(b"\r\n\r\n")
            && written
                .windows(b"content-length: 0\r\n".len())
                .any(|line| line.eq_ignore_ascii_case(b"content-length: 0\r\n"));
        if !empty {
            return None;
        }
        let (status, message) = if written.starts_with(b"HTTP/1.1 414 ") {
            (
                "414 URI Too Long",
                format!(
                    "The address is too long: more than {} KiB, and this site takes at most {} KiB ({MAX_URI_BYTES} bytes). Shorten it (fewer `by` or `where` terms in a comparison).\n",
                    // 65,534 bytes: 64 KiB, less the two bytes of a
                    // 16-bit length's top.
                    (HYPER_MAX_URI_BYTES + 2) / 1024,
                    MAX_URI_BYTES / 1024
                ),
            )
        } else if written.starts_with(b"HTTP/1.1 431 ") {
            let message = if self.read_since_answer >= READ_BUFFER_BYTES {
                format!(
                    "The request's head (its address and headers) is larger than {} KiB; this site takes an address of at most {} KiB and headers of at most {} KiB ({MAX_HEADER_BYTES} bytes). Clearing this site's cookies usually helps.\n",
                    READ_BUFFER_BYTES / 1024,
                    MAX_URI_BYTES / 1024,
                    MAX_HEADER_BYTES / 1024
                )
            } else {
                format!(
                    "The request has too many headers: more than {HYPER_MAX_HEADERS}, and this site takes at most {MAX_HEADER_COUNT}.\n"
                )
            };
            ("431 Request Header Fields Too Large", message)
        } else {
            return None;
        };
        Some(
            format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\nx-content-type-options: nosniff\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{message}",
                message.len()
            )
            .into_bytes(),
        )
    }
}

impl<S: AsyncWrite + Unpin> ExplainedHeads<S> {
    /// Writes what `written` (of `len` bytes) is replaced by, if it is,
    /// then says all of it was written; else writes it through `write`.
    fn write_or_replace(
        &mut self,
        cx: &mut Context<'_>,
        first: &[u8],
        len: usize,
        write: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        if self.replacing.is_none() {
            if let Some(answer) = self.explained(first).filter(|_| first.len() == len) {
                self.replacing = Some((answer, 0));
            }
        }
        let Some((answer, done)) = &mut self.replacing else {
            self.read_since_answer = 0;
            return write(Pin::new(&mut self.inner), cx);
        };
        while *done < answer.len() {
            match Pin::new(&mut self.inner).poll_write(cx, &answer[*done..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *done += n,
                other => return other,
            }
        }
        // hyper's answer counts as written; it closes the connection next.
        self.replacing = None;
        self.read_since_answer = 0;
        Poll::Ready(Ok(len))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ExplainedHeads<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        this.read_since_answer += buf.filled().len() - before;
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ExplainedHeads<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .write_or_replace(cx, buf, buf.len(), |inner, cx| inner.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let len = bufs.iter().map(|buf| buf.len()).sum();
        let first = bufs
            .iter()
            .find(|buf| !buf.is_empty())
            .map_or(&[][..], |buf| &buf[..]);
        self.get_mut()
            .write_or_replace(cx, first, len, |inner, cx| {
                inner.poll_write_vectored(cx, bufs)
            })
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_empty_answers_are_replaced() {
        let heads = ExplainedHeads::new(());
        let hyper_431 = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Sun, 06 Dec 2026 01:00:00 GMT\r\n\r\n";
        let answer = String::from_utf8(heads.explained(hyper_431).unwrap()).unwrap();
        assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
        assert!(
            answer.contains("too many headers: more than 200"),
            "{answer}"
        );
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));

        let mut large = ExplainedHeads::new(());
        large.read_since_answer = READ_BUFFER_BYTES;
        let answer = String::from_utf8(large.explained(hyper_431).unwrap()).unwrap();
        assert!(answer.contains("larger than 128 KiB"), "{answer}");

        let hyper_414 = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n";
        let answer = String::from_utf8(heads.explained(hyper_414).unwrap()).unwrap();
        assert!(answer.contains("more than 64 KiB"), "{answer}");
        assert!(answer.contains("at most 8 KiB"), "{answer}");

        // Our own answers, and anything else, pass as they are.
        let ours = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/html\r\ncontent-length: 900\r\n\r\n";
        assert!(heads.explained(ours).is_none());
        assert!(heads
            .explained(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            .is_none());
    }
}
