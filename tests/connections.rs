//! How the real server holds connections (on 127.0.0.1): silent clients
//! are closed after the header-read timeout, one client cannot hold more
//! than its share, the total cap holds and frees again, shutdown does not
//! wait for stuck requests, and over-long addresses and headers get 414
//! and 431 with a message. Attacking sockets bind to other loopback
//! addresses (127.0.0.2, ...) so that they count as other clients than the
//! one checking /healthz from 127.0.0.1.
//!
//! `cargo test --test integration -- --ignored stress_eleven_hundred` (15 s)
//! runs the attack as reported: 1,100 silent connections against a server
//! whose file limit is 1,024.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::load::start_server;

fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// A connection to `server` from `from` that sends nothing.
async fn silent(from: IpAddr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    socket.connect(server).await.unwrap()
}

/// How a connection the client keeps silent ends.
#[derive(Debug, PartialEq)]
enum Fate {
    /// Still open after the wait.
    Held,
    /// Closed (or reset) by the server; what it said first, if anything.
    Closed(String),
}

/// Waits up to `within` for the server to close `stream`.
async fn fate(stream: &mut TcpStream, within: Duration) -> Fate {
    let mut said = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buf = [0u8; 1024];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => said.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    match read {
        Ok(()) => Fate::Closed(String::from_utf8_lossy(&said).into_owned()),
        Err(_) => Fate::Held,
    }
}

/// Sends `request` from 127.0.0.1 on a fresh connection and reads the
/// whole answer: status and body (None if the server closed or refused
/// the connection without an answer), and how long it took.
async fn exchange(server: SocketAddr, request: &[u8]) -> (Option<(u16, String)>, Duration) {
    exchange_from(loopback(1), server, request).await
}

async fn exchange_from(
    from: IpAddr,
    server: SocketAddr,
    request: &[u8],
) -> (Option<(u16, String)>, Duration) {
    exchange_within(from, server, request, Duration::from_secs(10)).await
}

/// [`exchange_from`], the server given `within` to answer.
async fn exchange_within(
    from: IpAddr,
    server: SocketAddr,
    request: &[u8],
    within: Duration,
) -> (Option<(u16, String)>, Duration) {
    let started = Instant::now();
    let answer = tokio::time::timeout(within, async {
        let mut stream = silent(from, server).await;
        stream.write_all(request).await.ok()?;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer.split_once("\r\n\r\n")?;
        let status = head.split(' ').nth(1)?.parse().ok()?;
        Some((status, body.to_owned()))
    })
    .await
    .unwrap_or_else(|_| panic!("the server answers within {within:?}"));
    (answer, started.elapsed())
}

async fn healthz(server: SocketAddr) -> (Option<(u16, String)>, Duration) {
    exchange(
        server,
        b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .await
}

async fn assert_healthy(server: SocketAddr, what: &str) {
    let (answer, took) = healthz(server).await;
    assert_eq!(
        answer.map(|(status, _)| status),
        Some(200),
        "/healthz {what}"
    );
    assert!(
        took < Duration::from_secs(1),
        "/healthz {what} took {took:?}"
    );
}

#[tokio::test]
async fn one_client_cannot_hold_more_than_its_share_and_others_stay_served() {
    let server = start_server(&[
        "--max-connections",
        "64",
        "--max-connections-per-ip",
        "8",
        "--header-read-timeout-secs",
        "30",
    ]);
    let mut attack = Vec::new();
    for _ in 0..20 {
        attack.push(silent(loopback(2), server.addr).await);
    }
    let mut fates = Vec::new();
    for stream in &mut attack {
        fates.push(fate(stream, Duration::from_millis(300)).await);
    }
    let held = fates.iter().filter(|fate| **fate == Fate::Held).count();
    assert_eq!(held, 8, "{fates:?}");
    // Silent ones, that never answered, are not given up for others of
    // the same client: the first 8 stay, the rest are told 503.
    assert!(
        fates[..8].iter().all(|fate| *fate == Fate::Held),
        "{fates:?}"
    );
    for fate in &fates[8..] {
        let Fate::Closed(said) = fate else {
            panic!("a connection over the cap was held: {fates:?}");
        };
        assert!(
            said.is_empty() || said.starts_with("HTTP/1.1 503"),
            "{said}"
        );
    }
    assert_healthy(server.addr, "while 127.0.0.2 holds its 8").await;
    // And 127.0.0.2 itself gets its place back once one of its own closes.
    attack.truncate(7);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = silent(loopback(2), server.addr).await;
    assert_eq!(
        fate(&mut again, Duration::from_millis(300)).await,
        Fate::Held
    );
}

#[tokio::test]
async fn a_silent_or_slow_connection_is_closed_after_the_header_read_timeout() {
    let server = start_server(&["--header-read-timeout-secs", "1"]);
    // Silent from the start.
    let started = Instant::now();
    let mut quiet = silent(loopback(2), server.addr).await;
    let ended = fate(&mut quiet, Duration::from_secs(5)).await;
    let took = started.elapsed();
    assert!(matches!(ended, Fate::Closed(_)), "{ended:?}");
    assert!(
        (Duration::from_millis(900)..Duration::from_secs(3)).contains(&took),
        "closed after {took:?}"
    );

    // A head sent a byte at a time never finishes: the timeout bounds the
    // whole head, not the gaps between bytes.
    let started = Instant::now();
    let mut slow = silent(loopback(3), server.addr).await;
    let dribble = async {
        for byte in b"GET /healthz HTTP/1.1\r\nX-Slow: ".iter().cycle() {
            if slow.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), dribble).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(3), "dribbled for {took:?}");

    // An idle keep-alive connection after its answer: closed as quickly.
    let mut idle = silent(loopback(4), server.addr).await;
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 1024];
    let n = idle.read(&mut answer).await.unwrap();
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
    let started = Instant::now();
    let ended = fate(&mut idle, Duration::from_secs(5)).await;
    assert!(matches!(ended, Fate::Closed(_)), "{ended:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_healthy(server.addr, "after the timeouts").await;
}

#[tokio::test]
async fn the_total_cap_holds_and_frees_when_connections_go() {
    let server = start_server(&[
        "--max-connections",
        "10",
        "--max-connections-per-ip",
        "4",
        "--header-read-timeout-secs",
        "30",
    ]);
    // One each from ten clients, each an upload whose body never comes:
    // the whole cap, none silent (a silent one would give its place up),
    // none to be cut, and no one holds more than a newcomer would.
    let upload = b"POST /upload HTTP/1.1\r\nHost: localhost\r\n\
        Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n";
    let mut holders = Vec::new();
    for client in 2..12 {
        let mut stream = silent(loopback(client), server.addr).await;
        stream.write_all(upload).await.unwrap();
        holders.push(stream);
    }
    for stream in &mut holders {
        assert_eq!(fate(stream, Duration::from_millis(100)).await, Fate::Held);
    }
    // A new client is turned away at once, not accepted and held.
    let mut late = silent(loopback(12), server.addr).await;
    let ended = fate(&mut late, Duration::from_secs(1)).await;
    assert!(matches!(ended, Fate::Closed(_)), "{ended:?}");
    let (answer, took) = healthz(server.addr).await;
    assert!(took < Duration::from_secs(1), "refused after {took:?}");
    if let Some((status, body)) = answer {
        assert_eq!(status, 503);
        assert!(body.contains("Too many open connections"), "{body}");
    }
    drop(holders);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_healthy(server.addr, "after the holders left").await;
}

/// Holds `per_address` silent connections from each of `addresses`, each
/// opened again as soon as the server closes it, until the handle is
/// dropped; and counts the connections opened.
fn reconnecting_attack(
    server: SocketAddr,
    addresses: std::ops::Range<u8>,
    per_address: usize,
) -> (tokio::task::JoinSet<()>, Arc<AtomicU64>) {
    let opened = Arc::new(AtomicU64::new(0));
    let mut attack = tokio::task::JoinSet::new();
    for address in addresses {
        for _ in 0..per_address {
            let opened = Arc::clone(&opened);
            attack.spawn(async move {
                loop {
                    let socket = TcpSocket::new_v4().unwrap();
                    socket.bind(SocketAddr::new(loopback(address), 0)).unwrap();
                    let Ok(mut stream) = socket.connect(server).await else {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    };
                    opened.fetch_add(1, Ordering::Relaxed);
                    let mut buf = [0u8; 256];
                    while let Ok(n) = stream.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                    }
                }
            });
        }
    }
    (attack, opened)
}

/// Requests /healthz `count` times from 127.0.0.1 while an attack runs:
/// the statuses seen (0: no answer) and the latencies.
async fn health_under(server: SocketAddr, count: usize) -> (Vec<u16>, Vec<Duration>) {
    let mut statuses = Vec::new();
    let mut latencies = Vec::new();
    for _ in 0..count {
        let (answer, took) = healthz(server).await;
        statuses.push(answer.map_or(0, |(status, _)| status));
        latencies.push(took);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    latencies.sort();
    (statuses, latencies)
}

async fn a_few_addresses_holding_every_place(max: usize, per_address: usize, addresses: u8) {
    let server = start_server(&[
        "--max-connections",
        &max.to_string(),
        "--header-read-timeout-secs",
        "30",
    ]);
    let (attack, opened) = reconnecting_attack(server.addr, 2..2 + addresses, per_address);
    // Every place is taken.
    let started = Instant::now();
    while opened.load(Ordering::Relaxed) < max as u64 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the attack never filled the cap"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (statuses, latencies) = health_under(server.addr, 40).await;
    let opened = opened.load(Ordering::Relaxed);
    drop(attack);
    let served = statuses.iter().filter(|s| **s == 200).count();
    eprintln!(
        "{addresses} addresses x {per_address} reconnecting against {max} places: /healthz 200 in {served} of {}, median {:?}, slowest {:?}; {opened} attacking connections opened",
        statuses.len(),
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1],
    );
    assert_eq!(served, statuses.len(), "{statuses:?}");
    assert!(
        latencies[latencies.len() / 2] < Duration::from_millis(500),
        "{latencies:?}"
    );
    // Said at the default level, once, not once per connection.
    let log = server.log.lock().unwrap().clone();
    let said: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("too many connections"))
        .collect();
    assert!(
        !said.is_empty() && said.len() <= 2 && said.iter().all(|l| l.contains("WARN")),
        "{said:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_few_addresses_holding_every_place_do_not_lock_others_out() {
    // 4 addresses x 24 reconnecting silent clients against 64 places.
    a_few_addresses_holding_every_place(64, 24, 4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "stress: 640 reconnecting connections from 10 addresses; run with --ignored stress_"]
async fn stress_six_hundred_forty_silent_connections_from_ten_addresses() {
    a_few_addresses_holding_every_place(512, 64, 10).await;
}

/// The addresses of a crowd: `count` of them from 127.10.0.1 on, 254 to a
/// /24.
fn crowd(count: usize) -> Vec<IpAddr> {
    (0..count)
        .map(|n| IpAddr::V4(Ipv4Addr::new(127, 10, (n / 254) as u8, (n % 254 + 1) as u8)))
        .collect()
}

/// One silent connection from each of `addresses`, opened again 10 ms
/// after the server closes it; and how many were opened.
fn silent_crowd(
    server: SocketAddr,
    addresses: Vec<IpAddr>,
) -> (tokio::task::JoinSet<()>, Arc<AtomicU64>) {
    let opened = Arc::new(AtomicU64::new(0));
    let mut attack = tokio::task::JoinSet::new();
    for address in addresses {
        let opened = Arc::clone(&opened);
        attack.spawn(async move {
            loop {
                let socket = TcpSocket::new_v4().unwrap();
                socket.bind(SocketAddr::new(address, 0)).unwrap();
                if let Ok(mut stream) = socket.connect(server).await {
                    opened.fetch_add(1, Ordering::Relaxed);
                    let mut buf = [0u8; 256];
                    while let Ok(n) = stream.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                    }
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
    }
    (attack, opened)
}

/// Asks /healthz on one keep-alive connection from 127.0.0.1 until
/// `until`, opening another when the server closes it: requests answered
/// 200, and asked.
async fn keep_alive_client(server: SocketAddr, until: Instant) -> (usize, usize) {
    let (mut answered, mut asked) = (0, 0);
    let mut stream = None;
    while Instant::now() < until {
        if stream.is_none() {
            stream = TcpStream::connect(server).await.ok();
        }
        let Some(conn) = stream.as_mut() else {
            asked += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        asked += 1;
        let answer = tokio::time::timeout(Duration::from_secs(5), async {
            conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                .await
                .ok()?;
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&got[..end]).to_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))?
                        .trim()
                        .parse()
                        .ok()?;
                    if got.len() >= end + 4 + length {
                        return Some(head.starts_with("http/1.1 200"));
                    }
                }
                match conn.read(&mut buf).await {
                    Ok(0) | Err(_) => return None,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
            }
        })
        .await;
        match answer {
            Ok(Some(true)) => answered += 1,
            // Closed, refused or too slow: a new connection next time.
            _ => stream = None,
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (answered, asked)
}

/// Reads `path` from 127.0.0.1 16 KiB at a time, 5 ms apart: the bytes
/// of its body, and whether the connection ended cleanly.
async fn slow_download(server: SocketAddr, path: &str) -> usize {
    let mut stream = TcpStream::connect(server).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let end = got
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(got.len(), |e| e + 4);
    got.len() - end
}

/// 520 addresses each holding one silent connection, opened again when
/// closed, against `places`; a client on 4 keep-alive connections and a
/// large download from another network meanwhile.
async fn a_crowd_of_silent_addresses(places: usize, addresses: usize) {
    let server = start_server(&[
        "--max-connections",
        &places.to_string(),
        "--header-read-timeout-secs",
        "30",
    ]);
    let path = large_submission(server.addr).await;
    let page = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let (answer, _) = exchange(server.addr, page.as_bytes()).await;
    let whole = answer.expect("the page").1.len();
    let (attack, opened) = silent_crowd(server.addr, crowd(addresses));
    let started = Instant::now();
    while opened.load(Ordering::Relaxed) < places as u64 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the attack never filled the cap"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let until = Instant::now() + Duration::from_secs(6);
    let clients: Vec<_> = (0..4)
        .map(|_| tokio::spawn(keep_alive_client(server.addr, until)))
        .collect();
    let addr = server.addr;
    let download = tokio::spawn(async move { slow_download(addr, &path).await });
    let mut answered = 0;
    let mut asked = 0;
    for client in clients {
        let (a, n) = client.await.unwrap();
        answered += a;
        asked += n;
    }
    let downloaded = download.await.unwrap();
    let opened = opened.load(Ordering::Relaxed);
    drop(attack);
    tokio::time::sleep(Duration::from_secs(1)).await;
    eprintln!(
        "{addresses} addresses x 1 silent against {places} places: {answered} of {asked} keep-alive requests answered; download {downloaded} of {whole} bytes; {opened} attacking connections opened"
    );
    assert!(asked >= 100, "only {asked} requests asked");
    assert!(
        answered * 100 >= asked * 99,
        "{answered} of {asked} answered"
    );
    assert_eq!(downloaded, whole, "the download in flight was cut");
    assert_healthy(server.addr, "after the crowd left").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_of_silent_addresses_does_not_lock_a_client_out() {
    // The attack as reported, against half the places.
    a_crowd_of_silent_addresses(256, 520).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "stress: 5,000 addresses x 1 silent connection; run with --ignored stress_"]
async fn stress_five_thousand_silent_addresses_against_the_default_cap() {
    a_crowd_of_silent_addresses(4_096, 5_000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reconnecting_fast_is_never_refused_at_its_cap() {
    let server = start_server(&["--max-connections-per-ip", "4"]);
    // 4 at a time from one address, each a new connection that the client
    // closes once it has its answer: the server may not have seen the
    // last close when the next connection arrives.
    let mut clients = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let addr = server.addr;
        clients.spawn(async move {
            let mut refused = 0;
            for _ in 0..150 {
                let mut stream = silent(loopback(2), addr).await;
                stream
                    .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .await
                    .unwrap();
                let mut answer = Vec::new();
                let mut buf = [0u8; 1024];
                while !answer.ends_with(b"\r\n\r\nok\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => answer.extend_from_slice(&buf[..n]),
                    }
                }
                if !answer.starts_with(b"HTTP/1.1 200") {
                    refused += 1;
                }
            }
            refused
        });
    }
    let refused: usize = clients.join_all().await.into_iter().sum();
    assert_eq!(refused, 0, "of 600 requests");
}

#[tokio::test]
async fn shutdown_does_not_wait_for_a_stuck_request_longer_than_the_grace() {
    let mut server = start_server(&["--shutdown-grace-secs", "1"]);
    // An upload that never sends the body it announced: its request stays
    // under way until the 60 s request timeout.
    let mut stuck = TcpStream::connect(server.addr).await.unwrap();
    stuck
        .write_all(
            b"POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\ntext=abc",
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = server.exit_within(Duration::from_secs(10));
    let took = started.elapsed();
    assert!(
        status.is_some_and(|status| status.success()),
        "{status:?} after {took:?}"
    );
    assert!(took < Duration::from_secs(4), "exited after {took:?}");
}

#[tokio::test]
async fn long_addresses_get_414_and_large_headers_431_with_a_message() {
    let server = start_server(&[]);
    let long_uri = format!(
        "GET /runs?tool={} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        "a".repeat(20_000)
    );
    let (answer, _) = exchange(server.addr, long_uri.as_bytes()).await;
    let (status, body) = answer.expect("an answer");
    assert_eq!(status, 414, "{body}");
    assert!(body.contains("address is too long"), "{body}");
    assert!(body.contains("8 KiB"), "{body}");

    let mut large_headers =
        String::from("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for n in 0..40 {
        large_headers.push_str(&format!("X-Filler-{n}: {}\r\n", "b".repeat(1000)));
    }
    large_headers.push_str("\r\n");
    let (answer, _) = exchange(server.addr, large_headers.as_bytes()).await;
    let (status, body) = answer.expect("an answer");
    assert_eq!(status, 431, "{body}");
    assert!(body.contains("headers are too large"), "{body}");
    assert!(body.contains("32 KiB"), "{body}");

    let mut many_headers =
        String::from("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for n in 0..150 {
        many_headers.push_str(&format!("X-Filler-{n}: b\r\n"));
    }
    many_headers.push_str("\r\n");
    let (answer, _) = exchange(server.addr, many_headers.as_bytes()).await;
    let (status, body) = answer.expect("an answer");
    assert_eq!(status, 431, "{body}");
    assert!(body.contains("too many headers"), "{body}");

    // Within the limits all is as before.
    let (answer, _) = exchange(
        server.addr,
        format!(
            "GET /runs?tool={} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Filler: {}\r\n\r\n",
            "a".repeat(7_000),
            "b".repeat(20_000)
        )
        .as_bytes(),
    )
    .await;
    let status = answer.map(|(status, _)| status);
    assert!(matches!(status, Some(200 | 400)), "{status:?}");
    assert_healthy(server.addr, "after the oversized requests").await;
}

#[tokio::test]
async fn the_upload_rate_limit_still_tells_clients_apart_by_address() {
    let server = start_server(&["--uploads-per-minute", "1"]);
    let upload = |text: &str| {
        format!(
            "POST /upload HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\ntext={text}",
            text.len() + 5
        )
    };
    let status = |answer: Option<(u16, String)>| answer.map(|(status, _)| status);
    let (first, _) = exchange_from(loopback(2), server.addr, upload("one").as_bytes()).await;
    assert_eq!(status(first), Some(303));
    let (again, _) = exchange_from(loopback(2), server.addr, upload("two").as_bytes()).await;
    assert_eq!(status(again), Some(429));
    let (other, _) = exchange_from(loopback(3), server.addr, upload("three").as_bytes()).await;
    assert_eq!(
        status(other),
        Some(303),
        "another address has its own bucket"
    );
}

#[tokio::test]
async fn the_json_routes_say_414_as_json() {
    use crate::http::{read, send};
    use axum::body::Body;
    use axum::http::Request;
    let (_dir, _db, state) = crate::support::test_state();
    let uri = format!("/compare.json?tool={}", "a".repeat(9_000));
    let response = send(&state, Request::get(uri).body(Body::empty()).unwrap()).await;
    let (status, body) = read(response).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["status"], 414);
    assert!(json["error"].as_str().unwrap().contains("8 KiB"), "{body}");
}

/// Opens `count` silent connections to `server` from `from`.
async fn hold(from: IpAddr, server: SocketAddr, count: usize) -> Vec<TcpStream> {
    let mut streams = Vec::with_capacity(count);
    for _ in 0..count {
        streams.push(silent(from, server).await);
    }
    streams
}

#[tokio::test]
#[ignore = "stress: opens 1,100 connections; run with --ignored stress_"]
async fn stress_eleven_hundred_silent_connections_leave_the_server_reachable() {
    // The server's file limit as the report had it, hard limit too, so
    // that the cap it takes from it is 1,024 less what it keeps back
    // (this process keeps its own, which must hold 1,100 sockets).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("load.db");
    let mut command = std::process::Command::new("prlimit");
    command
        .args(["--nofile=1024:1024", "--"])
        .arg(env!("CARGO_BIN_EXE_benchlog"))
        .args(["serve", "--db"])
        .arg(&db);
    let server = crate::load::start(command, dir, db);
    let mut attack = hold(loopback(2), server.addr, 1_100).await;
    let mut held = 0;
    for stream in &mut attack {
        if fate(stream, Duration::from_millis(2)).await == Fate::Held {
            held += 1;
        }
    }
    assert!(held <= 64, "{held} held from one client");
    for round in 0..20 {
        assert_healthy(server.addr, &format!("round {round}")).await;
    }
    // From 20 clients the total cap (656 of 1,024 files) is what holds:
    // the server never runs out of files, and a newcomer takes the place
    // of the oldest silent connection.
    drop(attack);
    let mut attack = Vec::new();
    for client in 10..30 {
        attack.push(hold(loopback(client), server.addr, 55).await);
    }
    let started = Instant::now();
    loop {
        if let (Some((200, _)), _) = healthz(server.addr).await {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "not served again"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(attack);
}

/// Stores a text of 2,000 lines of 1,000 characters, whose page is about
/// 2 MB: a large answer. Its path.
async fn large_submission(server: SocketAddr) -> String {
    use crate::load::{client, fetch, upload};
    let line = "0123456789 abcdefghijklmnopqrstuvwxyz ".repeat(30);
    let text = format!("{}\n", &line[..1000]).repeat(2_000);
    let (status, location, body) = fetch(&client(), upload(server, &text)).await.unwrap();
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    location.unwrap()
}

/// Asks for `path` from `from` three times in a row on one connection
/// that never reads: the socket buffers (up to 4 MB on the server's side)
/// take the first answer or two, and the next one waits for the client.
async fn never_reading(from: IpAddr, server: SocketAddr, path: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    let mut stream = socket.connect(server).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream
        .write_all(request.repeat(PIPELINED).as_bytes())
        .await
        .unwrap();
    stream
}

/// Requests a never-reading client sends at once.
const PIPELINED: usize = 3;

/// Reads what `stream` still gets, until the server closes it or 10 s.
async fn read_rest(stream: &mut TcpStream) -> usize {
    let mut got = 0;
    let mut buf = vec![0u8; 64 * 1024];
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
            got += n;
        }
    })
    .await;
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_its_answer_is_closed_after_the_write_stall_timeout() {
    let server = start_server(&["--write-stall-timeout-secs", "1"]);
    let path = large_submission(server.addr).await;
    let page = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let (answer, took) = exchange(server.addr, page.as_bytes()).await;
    let whole = answer.expect("the page").1.len();
    assert!(whole > 1_500_000, "a large page: {whole} bytes");
    let mut stalled = Vec::new();
    for _ in 0..4 {
        stalled.push(never_reading(loopback(2), server.addr, &path).await);
    }
    // Long enough to make the answers (a debug build is slow) and stall.
    tokio::time::sleep(took * 4 * PIPELINED as u32 + Duration::from_secs(3)).await;
    assert_healthy(server.addr, "while clients do not read").await;
    // Closed before the page was all sent: reading now gets only what the
    // sockets' buffers held.
    for stream in &mut stalled {
        let got = read_rest(stream).await;
        assert!(
            got < PIPELINED * whole,
            "got {got} of {} bytes: the answers waited",
            PIPELINED * whole
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_answers_nobody_reads_hold_at_most_a_clients_part_of_the_budget() {
    let server = start_server(&["--write-stall-timeout-secs", "60"]);
    let path = large_submission(server.addr).await;
    let page = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    // 2 MB each, one waiting per connection: more than a client's part
    // (16 MiB) in all.
    let mut stalled = Vec::new();
    for _ in 0..12 {
        stalled.push(never_reading(loopback(2), server.addr, &path).await);
    }
    // Until the answers are made and wait (a debug build is slow).
    let started = Instant::now();
    let (status, body) = loop {
        let (answer, _) = exchange_from(loopback(2), server.addr, page.as_bytes()).await;
        let (status, body) = answer.expect("an answer");
        if status != 200 || started.elapsed() > Duration::from_secs(30) {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(status, 429, "{}", &body[..body.len().min(300)]);
    assert!(body.contains("being sent to you already"), "{body}");
    // Everyone else still gets it.
    let (answer, _) = exchange_from(loopback(3), server.addr, page.as_bytes()).await;
    assert_eq!(answer.map(|(status, _)| status), Some(200));
    assert_healthy(server.addr, "while one client's answers wait").await;
    // What the refused ones got: the 429 page, not the 2 MB one.
    drop(stalled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_reading_clients_holding_the_budget_do_not_refuse_a_large_page_to_others() {
    let server = start_server(&["--write-stall-timeout-secs", "60"]);
    let path = large_submission(server.addr).await;
    let page = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let (answer, _) = exchange(server.addr, page.as_bytes()).await;
    let whole = answer.expect("the page").1.len();
    // 6 addresses x 6 connections, one 2.2 MB answer waiting on each:
    // more than the 64 MiB budget, each client within its 16 MiB part.
    let mut stalled = Vec::new();
    for address in 2..8 {
        for _ in 0..6 {
            stalled.push(never_reading(loopback(address), server.addr, &path).await);
        }
    }
    let spilled = || {
        let log = server.log.lock().unwrap();
        log.iter()
            .any(|line| line.contains("large answers sent from files"))
    };
    // Until the waiting answers fill the budget (a debug build is slow),
    // and once after: another client gets the whole page every time.
    let started = Instant::now();
    loop {
        let full = spilled();
        // Its page is made after those asked before it (a debug build
        // makes a few at a time, slowly).
        let within = Duration::from_secs(60);
        let (answer, _) = exchange_within(loopback(1), server.addr, page.as_bytes(), within).await;
        let (status, body) = answer.expect("an answer");
        assert_eq!(status, 200, "{}", &body[..body.len().min(300)]);
        assert_eq!(body.len(), whole, "the whole page");
        if full {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the never-reading clients never filled the budget"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_healthy(server.addr, "while the budget is full").await;
    drop(stalled);
}

/// The server's peak resident memory so far, in MiB.
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "stress: 400 clients that never read a 2 MB page; run with --ignored stress_"]
async fn stress_four_hundred_clients_that_never_read_hold_a_bounded_memory() {
    let server = start_server(&[]);
    let path = large_submission(server.addr).await;
    let mut stalled = Vec::new();
    for address in 2..10 {
        for _ in 0..50 {
            stalled.push(never_reading(loopback(address), server.addr, &path).await);
        }
    }
    let (statuses, latencies) = health_under(server.addr, 200).await;
    let peak = peak_rss_mib(server.pid());
    eprintln!(
        "400 never reading: /healthz median {:?}, slowest {:?}; peak RSS {peak} MiB",
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1]
    );
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    // 64 MiB of answers, the rest the server's own.
    assert!(peak < 256, "peak RSS {peak} MiB");
    drop(stalled);
}
