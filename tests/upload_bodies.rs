//! What uploads' bodies may hold, over real HTTP on 127.0.0.1: one
//! client's slow bodies hold at most its part of the body budget, so
//! another client's paste is stored at once; and a body that comes slower
//! than the least rate is dropped with 408, storing nothing. Sockets bind
//! to other loopback addresses (127.0.0.2, ...) to be other clients.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use benchlog::web::WebOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::{counts, smack_log, test_state_with};

fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// The real server in this process with `options`, on 127.0.0.1: its
/// folder, database and address.
pub async fn serve_with(options: WebOptions) -> (tempfile::TempDir, PathBuf, SocketAddr) {
    let (dir, db, state) = test_state_with(options);
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    tokio::spawn(benchlog::web::serve(state, addr));
    for _ in 0..200 {
        if TcpStream::connect(addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (dir, db, addr)
}

/// A connection to `server` from `from`.
pub async fn connect_from(from: IpAddr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    socket.connect(server).await.unwrap()
}

/// The head of an urlencoded upload declaring `length` bytes of body.
pub fn upload_head(length: usize) -> String {
    format!(
        "POST /upload HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n\r\n"
    )
}

/// Sends an upload's head and the start of its body from `from`, then 16
/// bytes every `gap` until the server answers (or `within` passes); the
/// status and body of the answer, if one came, and when.
pub async fn trickle_from(
    from: IpAddr,
    server: SocketAddr,
    declared: usize,
    gap: Duration,
    within: Duration,
) -> (Option<(u16, String)>, Duration) {
    let started = Instant::now();
    let mut stream = connect_from(from, server).await;
    stream
        .write_all(format!("{}text=", upload_head(declared)).as_bytes())
        .await
        .unwrap();
    let (mut reading, mut writing) = stream.into_split();
    let mut answer = Vec::new();
    let mut ticks = tokio::time::interval(gap);
    ticks.tick().await;
    let deadline = tokio::time::sleep(within);
    tokio::pin!(deadline);
    let mut buf = [0u8; 4096];
    loop {
        tokio::select! {
            read = reading.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            },
            _ = ticks.tick(), if answer.is_empty() => {
                if writing.write_all(b"0123456789abcdef").await.is_err() {
                    // Closed: read what was said.
                    let _ = tokio::time::timeout(Duration::from_secs(2), reading.read_to_end(&mut answer)).await;
                    break;
                }
            }
            () = &mut deadline => break,
        }
    }
    (parse(&answer), started.elapsed())
}

/// Sends `request` from `from` and reads the whole answer.
pub async fn exchange_from(
    from: IpAddr,
    server: SocketAddr,
    request: &[u8],
) -> (Option<(u16, String)>, Duration) {
    let started = Instant::now();
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        let mut stream = connect_from(from, server).await;
        stream.write_all(request).await.ok()?;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        Some(answer)
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_default();
    (parse(&answer), started.elapsed())
}

fn parse(answer: &[u8]) -> Option<(u16, String)> {
    let text = String::from_utf8_lossy(answer).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    Some((status, text))
}

/// A paste of `text` as an urlencoded upload.
pub fn paste_request(text: &str) -> Vec<u8> {
    let body = serde_urlencoded::to_string([("text", text)]).unwrap();
    format!("{}{body}", upload_head(body.len())).into_bytes()
}

/// Four bodies declaring 16 MiB each (the whole 64 MiB budget) sent 16
/// bytes at a time from 127.0.0.2 held every upload back until their
/// request timeout (a paste from elsewhere waited 59 s). Now one client
/// holds at most a quarter: another address's paste is stored at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bodies_of_one_client_leave_the_budget_to_others() {
    let (_dir, db, server) = serve_with(WebOptions {
        request_timeout: Duration::from_secs(8),
        ..WebOptions::default()
    })
    .await;
    let slow: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(trickle_from(
                loopback(2),
                server,
                16 << 20,
                Duration::from_millis(500),
                Duration::from_secs(12),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (answer, took) = exchange_from(loopback(3), server, &paste_request(&smack_log(1, 2))).await;
    let (status, text) = answer.expect("an answer to the paste");
    assert_eq!(status, 303, "{text}");
    assert!(
        took < Duration::from_secs(3),
        "the paste waited {took:?} behind another client's slow bodies"
    );
    assert_eq!(counts(&db).submissions, 1);
    for body in slow {
        let (answer, _) = body.await.unwrap();
        let status = answer.map(|(status, _)| status);
        assert_eq!(status, Some(408), "a slow body is never stored");
    }
    assert_eq!(counts(&db).submissions, 1);
}

/// A body that brings less than the least in a window (here 300 ms) is
/// dropped with 408 and a message saying so, long before the request
/// timeout; nothing is stored. A paste sent whole is not affected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_slower_than_the_least_rate_gets_408_and_stores_nothing() {
    let (_dir, db, server) = serve_with(WebOptions {
        body_rate_window: Duration::from_millis(300),
        ..WebOptions::default()
    })
    .await;
    let (answer, took) = trickle_from(
        loopback(4),
        server,
        100_000,
        Duration::from_millis(100),
        Duration::from_secs(10),
    )
    .await;
    let (status, text) = answer.expect("an answer to the slow body");
    assert_eq!(status, 408, "{text}");
    assert!(text.contains("arrived too slowly"), "{text}");
    assert!(text.contains("64 KiB"), "{text}");
    assert!(took < Duration::from_secs(3), "dropped after {took:?}");
    assert_eq!(counts(&db).submissions, 0, "nothing is stored");

    let (answer, _) = exchange_from(loopback(4), server, &paste_request(&smack_log(2, 2))).await;
    assert_eq!(answer.map(|(status, _)| status), Some(303));
    assert_eq!(counts(&db).submissions, 1);
}
