//! Request heads too large for hyper to parse (more than its 128 KiB
//! buffer, more than 200 headers, an address over 64 KiB) are answered
//! with what was too large and the limit, as those it parses are by the
//! router: hyper's own answers to them were empty.

use std::time::Duration;

use benchlog::web::WebOptions;

use crate::upload_bodies::{exchange_from, serve_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heads_too_large_to_parse_are_told_what_and_the_limit() {
    let (_dir, _db, server) = serve_with(WebOptions::default()).await;
    let from = "127.0.0.6".parse().unwrap();
    let get = |extra: &str| {
        format!("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{extra}\r\n")
            .into_bytes()
    };

    let long_uri = format!(
        "GET /runs?tool={} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        "a".repeat(70_000)
    );
    let (answer, _) = exchange_from(from, server, long_uri.as_bytes()).await;
    let (status, text) = answer.expect("an answer");
    assert_eq!(status, 414, "{text}");
    assert!(text.contains("address is too long"), "{text}");
    assert!(text.contains("at most 8 KiB"), "{text}");

    let many: String = (0..250).map(|n| format!("X-Filler-{n}: b\r\n")).collect();
    let (answer, _) = exchange_from(from, server, &get(&many)).await;
    let (status, text) = answer.expect("an answer");
    assert_eq!(status, 431, "{text}");
    assert!(text.contains("too many headers: more than 200"), "{text}");
    assert!(text.contains("at most 100"), "{text}");

    let large: String = (0..190)
        .map(|n| format!("X-Filler-{n}: {}\r\n", "b".repeat(1_020)))
        .collect();
    let (answer, _) = exchange_from(from, server, &get(&large)).await;
    let (status, text) = answer.expect("an answer");
    assert_eq!(status, 431, "{text}");
    assert!(text.contains("larger than 128 KiB"), "{text}");
    assert!(text.contains("headers of at most 32 KiB"), "{text}");

    // The connection after is served as ever.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (answer, _) = exchange_from(from, server, &get("")).await;
    assert_eq!(answer.map(|(status, _)| status), Some(200));
}
