//! Hostile input: each request of the corpus gets a 4xx with a message
//! saying what was wrong (a page, or JSON on the .json routes) and stores
//! nothing; or, where the input is legitimately acceptable (a legacy 8-bit
//! charset, quoting 200 levels deep), it is taken. Never a 5xx, never a
//! panic, and /healthz answers 200 after every one.

use std::io::Write;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use benchlog::store;
use benchlog::web::WebOptions;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::http::{
    edit_form, get, get_request, multipart, paste, paste_bytes, post_form, raw_post, read, send,
};
use crate::support::{gzip, seed_000, test_state_with, ADMIN_TOKEN};

/// What a case must get.
enum Expect {
    /// This 4xx, with this text in the answer, and nothing stored.
    Refused(u16, &'static str),
    /// A 2xx or 3xx: the input is fine.
    Accepted,
    /// A 2xx, or a 4xx with this text; nothing stored either way.
    ReadOnly(&'static str),
}

struct Case {
    name: &'static str,
    request: Request<Body>,
    expect: Expect,
}

/// A super-smack report with `clients` and a q_per_s `value` put in.
fn smack_report(clients: &str, value: &str) -> String {
    format!(
        "super-smack -d mysql select-key.smack {clients} 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from {clients} clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 {value}\n"
    )
}

fn file(name: &'static str, bytes: Vec<u8>) -> Request<Body> {
    multipart(&[("file", Some(name), &bytes)])
}

fn quoted(depth: usize, marker: &str, text: &str) -> String {
    let prefix = marker.repeat(depth);
    text.lines()
        .map(|line| format!("{prefix}{line}\n"))
        .collect()
}

fn corpus() -> Vec<Case> {
    use Expect::*;
    let report = smack_report("10", "22061.88");
    let png =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0\x1f\xf3\xffa".to_vec();
    let gz = gzip(report.as_bytes());
    let mut bomb = GzEncoder::new(Vec::new(), Compression::best());
    let zeros = vec![b' '; 1024 * 1024];
    for _ in 0..65 {
        bomb.write_all(&zeros).unwrap();
    }
    let bomb = bomb.finish().unwrap();
    let boundary = "multipart/form-data; boundary=XyZ";
    let repeat = |count: usize, pair: &dyn Fn(usize) -> String| -> String {
        (0..count).map(|i| format!("&{}", pair(i))).collect()
    };
    let compare = "/compare?tool=super-smack&item=select_index&metric=q_per_s";
    vec![
        Case { name: "binary file (PNG)", request: file("chart.png", png.clone()), expect: Refused(400, "binary") },
        Case { name: "binary in .gz", request: file("chart.png.gz", gzip(&png)), expect: Refused(400, "binary") },
        Case { name: "NUL byte in a paste", request: paste_bytes(format!("{report}\0tail").as_bytes()), expect: Refused(400, "NUL") },
        Case { name: "NUL byte in a file", request: file("nul.txt", format!("a\0{report}").into_bytes()), expect: Refused(400, "NUL") },
        Case { name: "invalid UTF-8 in a file: windows-1252 is decoded", request: file("latin.txt", [b"Caf\xe9 \xab test \xbb\n".as_slice(), report.as_bytes()].concat()), expect: Accepted },
        Case { name: "invalid UTF-8 in a paste", request: paste_bytes(&[b"\xff\xfe\xfd ".as_slice(), smack_report("11", "1.5").as_bytes()].concat()), expect: Accepted },
        Case { name: "UTF-16 with a byte-order mark is decoded", request: file("utf16.txt", {
            let mut bytes = vec![0xff, 0xfe];
            for unit in smack_report("12", "2.5").encode_utf16() { bytes.extend_from_slice(&unit.to_le_bytes()); }
            bytes
        }), expect: Accepted },
        Case { name: "a single 10 MB line", request: file("line.txt", vec![b'x'; 10 * 1024 * 1024]), expect: Refused(400, "line 1 is longer than") },
        Case { name: "a 10 MB line after a report", request: file("report-line.txt", [report.as_bytes(), &vec![b'9'; 10 * 1024 * 1024]].concat()), expect: Refused(400, "line 6 is longer than") },
        Case { name: "quoting 200 levels deep (\"> \")", request: post_form("/upload", &[("text", &quoted(200, "> ", &smack_report("13", "3.5")))]), expect: Accepted },
        Case { name: "quoting 200 levels deep (\">\")", request: post_form("/upload", &[("text", &quoted(200, ">", &smack_report("14", "4.5")))]), expect: Accepted },
        Case { name: "a value of 1e999", request: post_form("/upload", &[("text", &smack_report("15", "1e999"))]), expect: Accepted },
        Case { name: "a value of 99999999999999999999", request: post_form("/upload", &[("text", &smack_report("16", "99999999999999999999"))]), expect: Accepted },
        Case { name: "99999999999999999999 clients", request: post_form("/upload", &[("text", &smack_report("99999999999999999999", "5.5"))]), expect: Accepted },
        Case { name: "a value of -1e999 and NaN", request: post_form("/upload", &[("text", &format!("{}{}", smack_report("17", "-1e999"), smack_report("18", "NaN")))]), expect: Accepted },
        Case { name: "empty text", request: post_form("/upload", &[("text", "")]), expect: Refused(400, "Nothing to store") },
        Case { name: "white space only", request: post_form("/upload", &[("text", " \n\t\r\n   \n")]), expect: Refused(400, "Nothing to store") },
        Case { name: "a byte-order mark only", request: file("bom.txt", b"\xef\xbb\xbf\n".to_vec()), expect: Refused(400, "Nothing to store") },
        Case { name: "an empty file", request: file("empty.txt", Vec::new()), expect: Refused(400, "Nothing to store") },
        Case { name: "truncated gzip", request: file("cut.txt.gz", gz[..gz.len() / 2].to_vec()), expect: Refused(400, "could not be unpacked") },
        Case { name: "gzip header only", request: file("head.gz", gz[..10].to_vec()), expect: Refused(400, "could not be unpacked") },
        Case { name: "named .gz, not gzip", request: file("plain.gz", report.clone().into_bytes()), expect: Refused(400, "not gzip-compressed") },
        Case { name: "gzip bomb (65 MB of blanks)", request: file("bomb.gz", bomb), expect: Refused(413, "larger than") },
        Case { name: "multipart without closing boundary", request: raw_post("/upload", boundary, "--XyZ\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhello"), expect: Refused(400, "form could not be read") },
        Case { name: "multipart with another boundary", request: raw_post("/upload", boundary, "--AbC\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhello\r\n--AbC--\r\n"), expect: Refused(400, "") },
        Case { name: "multipart without boundary parameter", request: raw_post("/upload", "multipart/form-data", "--XyZ--\r\n"), expect: Refused(400, "form could not be read") },
        Case { name: "multipart part without headers", request: raw_post("/upload", boundary, "--XyZ\r\n\r\nhello\r\n--XyZ--\r\n"), expect: Refused(400, "") },
        Case { name: "upload as JSON", request: raw_post("/upload", "application/json", "{\"text\": \"x\"}"), expect: Refused(400, "Send the upload as a form") },
        Case { name: "upload without content type", request: Request::post("/upload").body(Body::from("text=x")).unwrap(), expect: Refused(400, "Send the upload as a form") },
        Case { name: "urlencoded form with broken escapes (text \"%%%\" is stored)", request: raw_post("/upload", "application/x-www-form-urlencoded", "text=%%%&&=="), expect: Accepted },
        Case { name: "file name with path and quotes", request: file("../../etc/passwd\".txt", smack_report("19", "6.5").into_bytes()), expect: Accepted },
        Case { name: "GET /upload", request: get_request("/upload"), expect: Refused(405, "does not take this kind of request") },
        Case { name: "SQL in /compare?tool=", request: get_request("/compare?tool=super-smack';DROP%20TABLE%20runs;--"), expect: Refused(400, "unknown tool") },
        Case { name: "SQL in /compare.json?tool=", request: get_request("/compare.json?tool=super-smack';DROP%20TABLE%20runs;--"), expect: Refused(400, "\"error\"") },
        Case { name: "SQL in /runs?where=", request: get_request("/runs?where=x:'or%201=1"), expect: ReadOnly("") },
        Case { name: "SQL in /runs?where= key", request: get_request("/runs?where=x'%20or%201=1--:y"), expect: Refused(400, "") },
        Case { name: "SQL in /submissions?q=", request: get_request("/submissions?q=%27%29%20OR%201%3D1%3B%20DROP%20TABLE%20submissions%3B--"), expect: ReadOnly("") },
        Case { name: "FTS syntax in /submissions?q=", request: get_request("/submissions?q=%22NEAR(a%20b)%20*%20OR%20col:x%22%22"), expect: ReadOnly("") },
        Case { name: "NUL in /submissions?q=", request: get_request("/submissions?q=%00"), expect: ReadOnly("") },
        Case { name: "unknown metric in /compare", request: get_request("/compare?tool=super-smack&item=select_index&metric=no_such_metric"), expect: Refused(400, "no_such_metric") },
        Case { name: "unknown attribute in /compare?by=", request: get_request("/compare?tool=super-smack&item=select_index&metric=q_per_s&by=no_such_attr"), expect: ReadOnly("no_such_attr") },
        Case { name: "unknown metric in /compare.json", request: get_request("/compare.json?tool=super-smack&item=select_index&metric=no_such_metric"), expect: Refused(400, "\"error\"") },
        Case { name: "unknown metric in /compare.svg", request: get_request("/compare.svg?tool=super-smack&item=select_index&metric=no_such_metric"), expect: Refused(400, "no_such_metric") },
        Case { name: "unknown query parameter", request: get_request("/compare?tool=super-smack&evil=1"), expect: Refused(400, "") },
        Case { name: "/runs with 1,000 where= attributes", request: get_request(&format!("/runs?tool=super-smack{}", repeat(1000, &|i| format!("where=k{i}:v")))), expect: Refused(414, "at most 8 KiB") },
        Case { name: "/runs with 17 where=", request: get_request(&format!("/runs?{}", repeat(17, &|i| format!("where=scheduler:v{i}")))), expect: Refused(400, "at most 16") },
        Case { name: "/compare with 2,100 by= attributes", request: get_request(&format!("{compare}{}", repeat(2100, &|i| format!("by=k{i}")))), expect: Refused(414, "at most 8 KiB") },
        Case { name: "/compare with 9 by= in one box", request: get_request(&format!("{compare}&by=os,cpu,timer,malloc,scheduler,thread_lib,patches,label,author")), expect: Refused(400, "at most 8") },
        Case { name: "/compare with 1,000 where=", request: get_request(&format!("{compare}{}", repeat(1000, &|i| format!("where=k{i}:v")))), expect: Refused(414, "at most 8 KiB") },
        Case { name: "/compare.json with 17 where=", request: get_request(&format!("/compare.json?tool=super-smack&metric=q_per_s{}", repeat(17, &|i| format!("where=scheduler:v{i}")))), expect: Refused(400, "at most 16") },
        Case { name: "/compare.svg with 2,100 by= of one attribute", request: get_request(&format!("/compare.svg?tool=super-smack&metric=q_per_s{}", repeat(2100, &|_| "by=scheduler".to_owned()))), expect: Refused(414, "at most 8 KiB") },
        Case { name: "/compare.svg with x= 100 times", request: get_request(&format!("/compare.svg?tool=super-smack&metric=q_per_s{}", repeat(100, &|_| "x=threads".to_owned()))), expect: Refused(400, "at most 64") },
        Case { name: "/submissions with 65 parameters", request: get_request(&format!("/submissions?{}", repeat(65, &|_| "q=x".to_owned()))), expect: Refused(400, "at most 64") },
        Case { name: "/runs with a 40 KB query string", request: get_request(&format!("/runs?test={}", "x".repeat(40 * 1024))), expect: Refused(414, "at most 8 KiB") },
        Case { name: "/static/../Cargo.toml", request: get_request("/static/../Cargo.toml"), expect: Refused(404, "no page or file") },
        Case { name: "/static/%2e%2e/Cargo.toml", request: get_request("/static/%2e%2e/Cargo.toml"), expect: Refused(404, "no page or file") },
        Case { name: "/static/..%2fCargo.toml", request: get_request("/static/..%2fCargo.toml"), expect: Refused(404, "no page or file") },
        Case { name: "/static/%2e%2e%2f%2e%2e%2fetc/passwd", request: get_request("/static/%2e%2e%2f%2e%2e%2fetc/passwd"), expect: Refused(404, "no page or file") },
        Case { name: "/static/....//Cargo.toml", request: get_request("/static/....//Cargo.toml"), expect: Refused(404, "no page or file") },
        Case { name: "/static/%5c..%5cCargo.toml", request: get_request("/static/%5c..%5cCargo.toml"), expect: Refused(404, "no page or file") },
        Case { name: "submission id not a number", request: get_request("/submissions/abc"), expect: Refused(400, "not a submission number") },
        Case { name: "submission id of 20 digits", request: get_request("/submissions/99999999999999999999"), expect: Refused(400, "not a submission number") },
        Case { name: "submission id -1", request: get_request("/submissions/-1"), expect: Refused(404, "no submission") },
        Case { name: "page=0", request: get_request("/submissions?page=0"), expect: Refused(400, "page") },
        Case { name: "page of 20 digits", request: get_request("/runs?page=99999999999999999999"), expect: Refused(400, "page") },
        Case { name: "edit: run of 20 digits", request: edit_form("/submissions/1/edit", &[("run", "99999999999999999999"), ("label", "x")]), expect: Refused(400, "run") },
        Case { name: "edit: run 0", request: edit_form("/submissions/1/edit", &[("run", "0"), ("label", "x")]), expect: Refused(400, "run") },
        Case { name: "edit: attribute name with markup", request: edit_form("/submissions/1/edit", &[("run", "1"), ("attr.<script>", "x")]), expect: Refused(400, "not an attribute name") },
        Case { name: "edit: label with a line break", request: edit_form("/submissions/1/edit", &[("run", "1"), ("label", "a\r\nSet-Cookie: x=y")]), expect: Refused(400, "control characters") },
        Case { name: "edit: label of 10 000 characters", request: edit_form("/submissions/1/edit", &[("run", "1"), ("label", &"é".repeat(10_000))]), expect: Refused(400, "longer than") },
        Case { name: "edit without a token", request: post_form("/submissions/1/edit", &[("run", "1"), ("label", "x")]), expect: Refused(403, "edit token") },
        Case { name: "delete with a wrong token", request: post_form("/submissions/1/delete", &[("token", "0123456789abcdef0123456789abcdef")]), expect: Refused(403, "not the edit token") },
        Case { name: "edit: 65 attributes in one form", request: edit_form("/submissions/1/edit", &[vec![("run".to_owned(), "1".to_owned())], (0..65).map(|i| (format!("attr.k{i}"), "v".to_owned())).collect()].concat().iter().map(|(k, v)| (k.as_str(), v.as_str())).collect::<Vec<_>>()), expect: Refused(400, "at most 64") },
        Case { name: "edit: a 70 KB form", request: edit_form("/submissions/1/edit", &[("run", "1"), ("label", &"x".repeat(70_000))]), expect: Refused(413, "") },
        Case { name: "upload: 21 texts in one form", request: multipart(&(0..21).map(|_| ("text", None, report.as_bytes())).collect::<Vec<_>>()), expect: Refused(400, "more than 20") },
        Case { name: "upload: an mbox of 1,001 messages", request: file("2007-May.txt", (0..1001).map(|i| format!("From a{i} at b.org  Mon Jan  1 10:00:00 2007\nFrom: A <a{i}@b.org>\nSubject: s{i}\n\nnote {i}\n\n")).collect::<String>().into_bytes()), expect: Refused(413, "more than 1000 submissions") },
        Case { name: "upload: a form posted in Latin-1", request: raw_post("/upload", "application/x-www-form-urlencoded", "text=R%E9sultats+du+caf%E9"), expect: Accepted },
        Case { name: "submission page: part 0", request: get_request("/submissions/1?part=0"), expect: Refused(400, "part=0 is not a part number; parts count from 1") },
        Case { name: "submission page: part 999", request: get_request("/submissions/1?part=999"), expect: Refused(404, "there is no part 999") },
        Case { name: "edit: form body not urlencoded", request: raw_post("/submissions/1/edit", "application/x-www-form-urlencoded", vec![0xff, 0x00, 0x25]), expect: Refused(403, "") },
    ]
}

#[tokio::test]
async fn hostile_requests_get_a_4xx_with_a_message_and_change_nothing() {
    // More uploads than the rate limit lets through a minute.
    let (_dir, db, state) = test_state_with(WebOptions {
        admin_token: Some(ADMIN_TOKEN.to_owned()),
        uploads_per_minute: 0,
        ..WebOptions::default()
    });
    paste(&state, &seed_000()).await;
    let conn = store::open(&db).unwrap();
    let cases = corpus();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let mut refused = 0;
    for (index, case) in cases.into_iter().enumerate() {
        let what = format!("case {index} ({})", case.name);
        let before = store::counts(&conn).unwrap();
        let (status, body) = read(send(&state, case.request).await).await;
        assert!(!status.is_server_error(), "{what}: {status} {body}");
        let after = store::counts(&conn).unwrap();
        match case.expect {
            Expect::Refused(code, needle) => {
                refused += 1;
                assert_eq!(status.as_u16(), code, "{what}: {body}");
                assert!(
                    body.contains(needle) && body.len() > 40,
                    "{what}: the answer should say {needle:?}: {body}"
                );
                assert_eq!(before, after, "{what}: a refused input stored something");
            }
            Expect::Accepted => {
                assert!(
                    status.is_success() || status.is_redirection(),
                    "{what}: {status} {body}"
                );
            }
            Expect::ReadOnly(needle) => {
                assert!(
                    status.is_success() || (status.is_client_error() && body.contains(needle)),
                    "{what}: {status} {body}"
                );
                assert_eq!(before, after, "{what}: a read stored something");
            }
        }
        // No answer leaks a file from outside static/.
        assert!(
            !body.contains("[workspace]") && !body.contains("root:"),
            "{what}"
        );
        let (health, _) = get(&state, "/healthz").await;
        assert_eq!(health, StatusCode::OK, "/healthz after {what}");
    }
    assert!(refused >= 30, "{refused} refusals");
    // The SQL in the query strings was never run.
    let runs: i64 = conn
        .query_row("SELECT count(*) FROM runs", [], |row| row.get(0))
        .unwrap();
    assert!(runs > 17, "runs are still there: {runs}");
}
