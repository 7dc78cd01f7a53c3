//! An answer too large for memory (a `/compare.json` over 40 MB) is made
//! once and then sent from the file it is kept in, over real HTTP from
//! the binary on 127.0.0.1: the same bytes every time, its gzip copy to
//! clients that take gzip, 304 to a client that has it, several on
//! their way to one client at once, and a new one once the data changes,
//! made once for three clients asking at the same time; and the byte
//! ranges of one (`Range`, `If-Range`: 206, 416).

use std::io::Read;
use std::path::Path;

use axum::body::Bytes;
use axum::http::{header, HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use rusqlite::params;

use crate::load::{client, start_server, upload, HttpClient};
use crate::support::smack_log;

const COMPARE: &str = "/compare.json?tool=super-smack&item=select_index&metric=q_per_s&x=threads";

/// Runs and submissions written straight with SQL (parsing that many
/// would take minutes in a debug build), as `examples/gen_scale_db.rs`
/// does. Labels and authors are long, so that fewer runs make the 40 MB.
const RUNS: usize = 120_000;
const RUNS_PER_SUBMISSION: usize = 100;

/// The line the server logs each time it writes an answer to disk.
const KEPT: &str = "answer kept on disk";

fn fill(db: &Path, runs: usize) {
    let mut conn = benchlog::store::open(db).unwrap();
    let writer = benchlog::store::Writer::begin(&mut conn, None).unwrap();
    let tx = writer.tx();
    {
        let mut add_submission = tx
            .prepare(
                "INSERT INTO submissions (id, text, sha256, source_name, author, date, subject)
                 VALUES (?1, ?2, ?3, ?4, ?5, '2006-05-01', 'super-smack numbers')",
            )
            .unwrap();
        let mut add_run = tx
            .prepare(
                "INSERT INTO runs (id, submission_id, idx, message_idx, tool, test, label, threads,
                                   quote_depth, author, command, first_line, last_line)
                 VALUES (?1, ?2, ?3, 0, 'super-smack', 'select-key', ?4, ?5, 0, ?6,
                         'super-smack select-key.smack', ?7, ?7 + 4)",
            )
            .unwrap();
        let mut add_result = tx
            .prepare(
                "INSERT INTO results (run_id, tool, item, metric, value, unit, line, estimated)
                 VALUES (?1, 'super-smack', 'select_index', 'q_per_s', ?2, 'q/s', ?3, 0)",
            )
            .unwrap();
        for s in 0..runs / RUNS_PER_SUBMISSION {
            let id = s as i64 + 1;
            let author = format!(
                "Tester number {s} of the FreeBSD SMP and threading performance working group"
            );
            add_submission
                .execute(params![
                    id,
                    format!("super-smack results, series {s}\n"),
                    format!("{id:064x}"),
                    format!("large-{id}.txt"),
                    author
                ])
                .unwrap();
            for r in 0..RUNS_PER_SUBMISSION {
                let run_id = (s * RUNS_PER_SUBMISSION + r) as i64 + 1;
                let threads = [1, 2, 4, 8, 16, 32, 64, 128][r % 8];
                let line = 3 + 5 * r as i64;
                let label = format!(
                    "ULE scheduler with libthr on a 4-CPU 6.1-RELEASE box, series {s}, run {r}, kernel without WITNESS and INVARIANTS"
                );
                add_run
                    .execute(params![run_id, id, r as i64, label, threads, author, line])
                    .unwrap();
                let value = 1000.0 + (run_id % 9973) as f64 * 1.37;
                add_result
                    .execute(params![run_id, value, line + 3])
                    .unwrap();
            }
        }
    }
    writer.finish().unwrap().commit().unwrap();
}

/// Status, headers and body of a GET of [`COMPARE`] with these headers.
async fn get(
    client: &HttpClient,
    addr: std::net::SocketAddr,
    headers: &[(header::HeaderName, &str)],
) -> (StatusCode, HeaderMap, Bytes) {
    let mut request = Request::get(format!("http://{addr}{COMPARE}"));
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    let response = client
        .request(request.body(Full::new(Bytes::new())).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    (parts.status, parts.headers, body)
}

fn content_length(headers: &HeaderMap) -> Option<usize> {
    headers
        .get(header::CONTENT_LENGTH)
        .map(|value| value.to_str().unwrap().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_40_mb_is_sent_from_where_it_is_kept() {
    let server = start_server(&["--uploads-per-minute", "0"]);
    fill(&server.db, RUNS);
    let kept = || {
        let log = server.log.lock().unwrap();
        log.iter().filter(|line| line.contains(KEPT)).count()
    };
    let client = client();
    let addr = server.addr;

    let (status, headers, first) = get(&client, addr, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        first.len() > 40 << 20,
        "the answer is {} bytes, not over 40 MB",
        first.len()
    );
    assert_eq!(content_length(&headers), Some(first.len()));
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert!(headers.get(header::CONTENT_ENCODING).is_none());
    assert_eq!(
        kept(),
        1,
        "made once and written to disk; the server said: {:?}",
        server
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|line| line.contains("not kept on disk"))
            .collect::<Vec<_>>()
    );
    let etag = headers[header::ETAG].to_str().unwrap().to_owned();

    // Again, as made: from the kept file, not made a second time.
    let (status, headers, again) = get(&client, addr, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(first == again, "the same bytes from the kept file");
    assert_eq!(headers[header::ETAG], etag.as_str());
    assert_eq!(kept(), 1, "the second request made nothing");

    // Gzipped: the copy made once, with its length (compressing on the
    // way would have none), which unpacks to the same bytes.
    let (status, headers, gzipped) =
        get(&client, addr, &[(header::ACCEPT_ENCODING, "gzip, br")]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    assert_eq!(content_length(&headers), Some(gzipped.len()));
    assert!(gzipped.len() < first.len() / 4);
    assert_eq!(headers[header::VARY], "accept-encoding");
    let mut unpacked = Vec::with_capacity(first.len());
    flate2::read::GzDecoder::new(&gzipped[..])
        .read_to_end(&mut unpacked)
        .unwrap();
    assert!(unpacked == first, "the gzip copy unpacks to the answer");
    assert_eq!(kept(), 1);

    // Read from the file a piece at a time, the answer holds no share
    // of the budget of answers being sent: one client may have several
    // on their way at once (held in memory, the second would be 429).
    let mut unread = Vec::new();
    for _ in 0..3 {
        let request = Request::get(format!("http://{addr}{COMPARE}"))
            .body(Full::new(Bytes::new()))
            .unwrap();
        let response = client.request(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        unread.push(response);
    }
    drop(unread);

    // A client that has it is told so.
    let (status, headers, empty) = get(&client, addr, &[(header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(empty.is_empty());
    assert_eq!(headers[header::ETAG], etag.as_str());

    // New data: a new answer, made and kept once more.
    let (status, _, _) = crate::load::fetch(&client, upload(addr, &smack_log(7, 2)))
        .await
        .unwrap();
    assert_eq!(status, StatusCode::SEE_OTHER);
    // Three asking at once: one makes it, the others wait for it.
    let asking: Vec<_> = (0..3)
        .map(|_| {
            let (client, etag) = (client.clone(), etag.clone());
            tokio::spawn(async move { get(&client, addr, &[(header::IF_NONE_MATCH, &etag)]).await })
        })
        .collect();
    let mut answers = Vec::new();
    for asked in asking {
        answers.push(asked.await.unwrap());
    }
    let (status, headers, changed) = &answers[0];
    assert_eq!(*status, StatusCode::OK, "the old tag no longer matches");
    assert_ne!(headers[header::ETAG], etag.as_str());
    assert!(*changed != first);
    assert!(changed.len() > first.len(), "it lists the new runs too");
    for (status, _, body) in &answers[1..] {
        assert_eq!(*status, StatusCode::OK);
        assert!(body == changed);
    }
    assert_eq!(kept(), 2, "made once for the three");
}

/// The slice `range` of `whole`, as a 206 must give it.
fn slice(whole: &Bytes, range: std::ops::Range<usize>) -> &[u8] {
    &whole[range]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ranges_of_an_answer_kept_on_disk_are_its_bytes() {
    let server = start_server(&["--uploads-per-minute", "0"]);
    // About 10 MB: over what is kept in memory.
    fill(&server.db, 30_000);
    let client = client();
    let addr = server.addr;

    let (status, headers, whole) = get(&client, addr, &[]).await;
    assert_eq!(status, StatusCode::OK);
    let len = whole.len();
    assert!(
        len as u64 > benchlog::limits::DISK_ANSWER_BYTES,
        "{len} bytes"
    );
    let kept = server
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains(KEPT))
        .count();
    assert_eq!(kept, 1, "the answer is kept on disk");
    assert_eq!(headers[header::ACCEPT_RANGES], "bytes");
    let weak = headers[header::ETAG].to_str().unwrap().to_owned();
    let strong = weak
        .strip_prefix("W/")
        .expect("a weak tag on the whole answer");

    // A range across several pieces read from the file, asked by a client
    // that takes gzip: the bytes of the body as made, never of the copy.
    let (status, headers, part) = get(
        &client,
        addr,
        &[
            (header::RANGE, "bytes=1000-1999999"),
            (header::ACCEPT_ENCODING, "gzip"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert!(
        part == slice(&whole, 1000..2_000_000),
        "bytes 1000 to 1999999"
    );
    assert_eq!(
        headers[header::CONTENT_RANGE],
        format!("bytes 1000-1999999/{len}").as_str()
    );
    assert_eq!(content_length(&headers), Some(1_999_000));
    assert!(headers.get(header::CONTENT_ENCODING).is_none());
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(headers[header::ETAG], strong, "the tag's strong form");
    assert_eq!(headers[header::VARY], "accept-encoding");

    // The last bytes, by suffix and from an offset to the end.
    let (status, headers, tail) = get(&client, addr, &[(header::RANGE, "bytes=-100")]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert!(tail == slice(&whole, len - 100..len));
    assert_eq!(
        headers[header::CONTENT_RANGE],
        format!("bytes {}-{}/{len}", len - 100, len - 1).as_str()
    );
    let from = format!("bytes={}-", len - 300_000);
    let (status, _, rest) = get(&client, addr, &[(header::RANGE, &from)]).await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert!(rest == slice(&whole, len - 300_000..len));

    // If-Range: the strong tag a 206 gave resumes; the weak one, another
    // tag or a date give the whole answer.
    let (status, _, resumed) = get(
        &client,
        addr,
        &[(header::RANGE, "bytes=5-9"), (header::IF_RANGE, strong)],
    )
    .await;
    assert_eq!(status, StatusCode::PARTIAL_CONTENT);
    assert!(resumed == slice(&whole, 5..10));
    for if_range in [weak.as_str(), "\"0123\"", "Sat, 06 Dec 2025 09:00:00 GMT"] {
        let (status, headers, again) = get(
            &client,
            addr,
            &[(header::RANGE, "bytes=5-9"), (header::IF_RANGE, if_range)],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "If-Range: {if_range}");
        assert!(again == whole, "the whole answer for If-Range: {if_range}");
        assert!(headers.get(header::CONTENT_RANGE).is_none());
        assert_eq!(headers[header::ETAG], weak.as_str());
    }

    // Past the end: 416, saying how long the answer is, kept by no cache.
    let past = format!("bytes={len}-");
    let (status, headers, _) = get(&client, addr, &[(header::RANGE, &past)]).await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(
        headers[header::CONTENT_RANGE],
        format!("bytes */{len}").as_str()
    );
    assert!(headers.get(header::CACHE_CONTROL).is_none());

    // Several ranges (a multipart answer) are not given: the whole, 200.
    let (status, _, again) = get(&client, addr, &[(header::RANGE, "bytes=0-9,20-29")]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(again == whole);

    // A client that has it is told so first.
    let (status, _, empty) = get(
        &client,
        addr,
        &[(header::RANGE, "bytes=0-9"), (header::IF_NONE_MATCH, &weak)],
    )
    .await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    assert!(empty.is_empty());
}
