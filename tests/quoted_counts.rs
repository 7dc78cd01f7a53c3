//! A message whose runs were all stored earlier (quoted in a reply, or
//! pasted again) is counted by those runs where people look: the lists,
//! its page and its thread, not as "0".

use axum::http::StatusCode;

use crate::http::{get, multipart, send};
use crate::support::{seed_000, test_state};

/// An mbox of two mails: seed 000 as sent, then a reply quoting all of it.
fn thread_mbox() -> String {
    let seed = seed_000();
    let quoted: String = seed.lines().map(|line| format!("> {line}\n")).collect();
    format!(
        "From someone@example.org  Wed Apr  5 12:41:02 2006\n\
         From: Steven Hartland <killing@example.org>\n\
         Date: Wed, 5 Apr 2006 13:41:02 +0100\n\
         Subject: select-key on 4 schedulers\n\
         Message-ID: <first@example.org>\n\
         \n\
         {seed}\n\
         \n\
         From other@example.org  Wed Apr  5 14:00:00 2006\n\
         From: Kris Kennaway <kris@example.org>\n\
         Date: Wed, 5 Apr 2006 15:00:00 +0100\n\
         Subject: Re: select-key on 4 schedulers\n\
         Message-ID: <reply@example.org>\n\
         In-Reply-To: <first@example.org>\n\
         \n\
         Steven Hartland wrote:\n\
         {quoted}\n\
         Interesting, thanks: which malloc flags did you use?\n"
    )
}

#[tokio::test]
async fn a_message_of_quoted_runs_counts_them_in_lists_its_page_and_thread() {
    let (_dir, _db, state) = test_state();
    let mbox = thread_mbox();
    let response = send(
        &state,
        multipart(&[("file", Some("2006-April.txt"), mbox.as_bytes())]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);

    // The list: the first mail's 17 runs, the reply's 17 quoted from it.
    let (status, list) = get(&state, "/submissions").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert!(
        list.contains("<td class=\"num\">17 runs, quoted from submission 1</td>"),
        "{list}"
    );
    assert!(list.contains("<td class=\"num\">17</td>"), "{list}");
    assert!(!list.contains("<td class=\"num\">0</td>"), "{list}");
    // The reply's tools are those of the runs it quotes.
    assert_eq!(
        list.matches("<td class=\"small\">super-smack</td>").count(),
        2
    );
    let (_, home) = get(&state, "/").await;
    assert!(home.contains("17 runs, quoted from submission 1"), "{home}");

    // Its page.
    let (status, page) = get(&state, "/submissions/2").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(
        page.contains("<h2>Runs found (17 runs, quoted from submission 1)</h2>"),
        "{page}"
    );
    assert!(page.contains("Runs (17 runs, quoted from submission 1)"));
    // Each is its own run there, a copy listed with the run it repeats.
    assert!(page.contains("<tr id=\"run-17\""), "{page}");
    assert_eq!(
        page.matches(": quoted from <a href=\"/submissions/1#run-")
            .count(),
        17,
        "{page}"
    );
    assert!(!page.contains("No benchmark run was recognised"));
    let (_, first) = get(&state, "/submissions/1").await;
    assert!(first.contains("<h2>Runs found (17)</h2>"), "{first}");

    // Its thread.
    let (status, thread) = get(&state, "/threads/1").await;
    assert_eq!(status, StatusCode::OK, "{thread}");
    let summaries: Vec<&str> = thread
        .split("<span class=\"mail-runs\">")
        .skip(1)
        .map(|rest| &rest[..rest.find("</span>").unwrap()])
        .collect();
    assert_eq!(summaries, ["17 runs", "17 runs, quoted from submission 1"]);
}

#[tokio::test]
async fn a_paste_of_runs_already_stored_counts_them_too() {
    let (_dir, _db, state) = test_state();
    for text in [
        seed_000(),
        format!("Here they are again:\n\n{}", seed_000()),
    ] {
        let response = send(&state, multipart(&[("text", None, text.as_bytes())])).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
    }
    let (_, list) = get(&state, "/submissions").await;
    assert!(
        list.contains("<td class=\"num\">17 runs, quoted from submission 1</td>"),
        "{list}"
    );
}
