//! An upload committed after its client left (it closed the connection
//! while the commit was under way) is stored with a token nobody
//! received; the same client sending the same upload again soon is given
//! that token, once, and nobody else is.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, Request, StatusCode};
use axum::response::Response;
use benchlog::store;

use crate::http::{post_form, send};
use crate::support::{counts, smack_log, test_state};

/// A paste of `text` from the client at 127.0.0.`last`.
fn paste_from(last: u8, text: &str) -> Request<Body> {
    let mut request = post_form("/upload", &[("text", text)]);
    let peer = SocketAddr::new(IpAddr::from([127, 0, 0, last]), 40_000);
    request.extensions_mut().insert(ConnectInfo(peer));
    request
}

/// The edit token an upload's answer hands over, if any.
fn token_of(response: &Response) -> Option<String> {
    response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(|cookie| cookie.strip_prefix("benchlog_edit_1="))
        .map(|rest| rest.split(';').next().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_committed_after_its_client_left_gives_its_token_again_to_that_client() {
    let (_dir, db, state) = test_state();
    let text = smack_log(5, 3);
    // Another writer holds the lock, so the upload waits to store.
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut upload = Box::pin(send(&state, paste_from(2, &text)));
    let waited = tokio::time::timeout(Duration::from_millis(500), &mut upload).await;
    assert!(waited.is_err(), "the upload waits for the write lock");
    // The lock goes; the upload is committed while nobody polls its
    // request, which is then dropped: its client left during the commit.
    lock.execute_batch("ROLLBACK").unwrap();
    for _ in 0..500 {
        if counts(&db).submissions > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(counts(&db).submissions, 1, "committed");
    drop(upload);
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Another address sending the same text gets the submission, no token.
    let other = send(&state, paste_from(3, &text)).await;
    assert_eq!(other.status(), StatusCode::SEE_OTHER);
    assert_eq!(token_of(&other), None, "nobody else gets the token");
    // The client that left gets it, once.
    let again = send(&state, paste_from(2, &text)).await;
    assert_eq!(again.status(), StatusCode::SEE_OTHER);
    assert_eq!(again.headers()[header::LOCATION], "/submissions/1");
    let token = token_of(&again).expect("the token nobody received is handed over");
    let unlock = send(
        &state,
        post_form("/submissions/1/unlock", &[("token", &token)]),
    )
    .await;
    assert_eq!(
        unlock.status(),
        StatusCode::SEE_OTHER,
        "the token is submission 1's edit token"
    );
    let third = send(&state, paste_from(2, &text)).await;
    assert_eq!(token_of(&third), None, "given once");
    assert_eq!(counts(&db).submissions, 1);

    // An upload whose answer arrived is never handed out again.
    let answered = send(&state, paste_from(2, &smack_log(6, 3))).await;
    assert!(answered.headers().get(header::SET_COOKIE).is_some());
    let repeated = send(&state, paste_from(2, &smack_log(6, 3))).await;
    assert!(repeated.headers().get(header::SET_COOKIE).is_none());
    let conn = store::open(&db).unwrap();
    let tokens: i64 = conn
        .query_row("SELECT count(*) FROM edit_tokens", [], |row| row.get(0))
        .unwrap();
    assert_eq!(tokens, 2, "one token per upload that stored anything");
}
