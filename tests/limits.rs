//! Limits: the request body limit (413 with a message), the per-client
//! upload rate limit (429 with Retry-After) and the request timeout (408).

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, StatusCode};
use benchlog::web::WebOptions;

use crate::http::{get, multipart, post_form, raw_post, read, send};
use crate::support::{counts, test_state_with};

#[tokio::test]
async fn bodies_over_the_limit_get_413_with_a_message() {
    let (_dir, db, state) = test_state_with(WebOptions {
        max_body_bytes: 64 * 1024,
        ..WebOptions::default()
    });
    let big = "x".repeat(100 * 1024);
    // Said up front (Content-Length) ...
    let with_length = post_form("/upload", &[("text", &big)]);
    assert!(with_length.headers().get(header::CONTENT_LENGTH).is_none());
    let mut with_length = with_length;
    let length = (big.len() + 5).to_string();
    with_length
        .headers_mut()
        .insert(header::CONTENT_LENGTH, length.parse().unwrap());
    // ... or found while reading, as a form or as multipart; and on the
    // edit form.
    let cases = [
        ("content-length", with_length),
        ("urlencoded stream", post_form("/upload", &[("text", &big)])),
        (
            "multipart",
            multipart(&[("file", Some("big.txt"), big.as_bytes())]),
        ),
        (
            "edit form",
            post_form("/submissions/1/edit", &[("label", &big)]),
        ),
    ];
    for (what, request) in cases {
        let (status, body) = read(send(&state, request).await).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{what}: {body}");
        assert!(
            body.contains("too large") || body.contains("larger than"),
            "{what}: {body}"
        );
    }
    let small = post_form("/upload", &[("text", "super-smack notes")]);
    assert_eq!(send(&state, small).await.status(), StatusCode::SEE_OTHER);
    assert_eq!(counts(&db).submissions, 1);
}

#[tokio::test]
async fn the_default_body_limit_is_16_mb() {
    let (_dir, _db, state) = test_state_with(WebOptions::default());
    let big = vec![b'a'; 17 * 1024 * 1024];
    let request = multipart(&[("file", Some("big.txt"), &big)]);
    let (status, body) = read(send(&state, request).await).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body.contains("16 MB"), "{body}");
}

#[tokio::test]
async fn uploads_over_the_rate_get_429_and_other_pages_still_answer() {
    let (_dir, db, state) = test_state_with(WebOptions {
        uploads_per_minute: 3,
        ..WebOptions::default()
    });
    for n in 0..3 {
        let request = post_form("/upload", &[("text", &format!("notes {n}"))]);
        assert_eq!(
            send(&state, request).await.status(),
            StatusCode::SEE_OTHER,
            "upload {n}"
        );
    }
    let response = send(&state, post_form("/upload", &[("text", "one more")])).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=20).contains(&retry), "{retry}");
    let (_, body) = read(response).await;
    assert!(body.contains("Too many uploads"), "{body}");
    assert_eq!(counts(&db).submissions, 3);
    let (status, _) = get(&state, "/submissions").await;
    assert_eq!(status, StatusCode::OK);
}

#[test]
fn the_rate_limit_is_per_client_and_refills() {
    use benchlog::web::RateLimiter;
    let limiter = RateLimiter::per_minute(2);
    let a = Some("192.0.2.1".parse().unwrap());
    let b = Some("192.0.2.2".parse().unwrap());
    assert!(limiter.check(a).is_ok() && limiter.check(a).is_ok());
    let wait = limiter.check(a).unwrap_err();
    assert!(wait <= Duration::from_secs(30), "{wait:?}");
    assert!(
        limiter.check(b).is_ok(),
        "another client has its own bucket"
    );
    assert!(RateLimiter::per_minute(0).check(a).is_ok(), "0: no limit");
}

#[tokio::test(start_paused = true)]
async fn a_request_slower_than_the_timeout_gets_408_with_a_message() {
    let (_dir, db, state) = test_state_with(WebOptions {
        request_timeout: Duration::from_secs(5),
        ..WebOptions::default()
    });
    // A body that never ends: a client that stalls mid-upload.
    let stream = futures_stall();
    let request = raw_post(
        "/upload",
        "application/x-www-form-urlencoded",
        Body::from_stream(stream),
    );
    let (status, body) = read(send(&state, request).await).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT, "{body}");
    assert!(body.contains("took too long"), "{body}");
    assert_eq!(counts(&db).submissions, 0);
}

/// A stream that yields a little and then nothing, forever.
fn futures_stall() -> impl futures_core::Stream<Item = Result<&'static [u8], std::io::Error>> + Send
{
    struct Stall(bool);
    impl futures_core::Stream for Stall {
        type Item = Result<&'static [u8], std::io::Error>;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            if self.0 {
                std::task::Poll::Pending
            } else {
                self.0 = true;
                std::task::Poll::Ready(Some(Ok(b"text=super-smack")))
            }
        }
    }
    Stall(false)
}
