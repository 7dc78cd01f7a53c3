//! Browsing: the submissions list with search and tool filter, and the
//! runs table with its filters.

use benchlog::web::AppState;

use crate::http::{fixture, get, paste};
use crate::support::{seed_000, test_state};

const SYSBENCH: &str = "fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt";
const BONNIE: &str = "fixtures/bonnie/bonnie-classic-two-machines.txt";

/// Three submissions: 1 seed 000 (super-smack), 2 sysbench, 3 bonnie.
async fn three_submissions(state: &AppState) {
    assert_eq!(paste(state, &seed_000()).await, "/submissions/1");
    assert_eq!(paste(state, &fixture(SYSBENCH)).await, "/submissions/2");
    assert_eq!(paste(state, &fixture(BONNIE)).await, "/submissions/3");
}

/// The submission numbers a list page links, in order.
fn listed(page: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for (at, _) in page.match_indices(r#"<td class="num"><a href="/submissions/"#) {
        let rest = &page[at + r#"<td class="num"><a href="/submissions/"#.len()..];
        let id = rest[..rest.find('"').unwrap()].parse().unwrap();
        ids.push(id);
    }
    ids
}

#[tokio::test]
async fn submissions_are_searched_by_author_subject_and_text_and_filtered_by_tool() {
    let (_dir, _db, state) = test_state();
    let (status, empty) = get(&state, "/submissions").await;
    assert_eq!(status, 200);
    assert!(empty.contains("Nothing stored yet"));
    three_submissions(&state).await;

    let cases: [(&str, &[i64]); 10] = [
        ("/submissions", &[3, 2, 1]),
        // An author of a quoted message, a word of the subject, a word of the text.
        ("/submissions?q=Hartland", &[1]),
        ("/submissions?q=opteron", &[1]),
        ("/submissions?q=LOCK_open", &[2]),
        // Prefixes match, every word must.
        ("/submissions?q=hartl+libth", &[1]),
        ("/submissions?q=hartland+LOCK_open", &[]),
        ("/submissions?tool=sysbench", &[2]),
        ("/submissions?tool=bonnie&q=", &[3]),
        ("/submissions?tool=super-smack&q=opteron", &[1]),
        // Search syntax is taken as words, never as an error.
        ("/submissions?q=%22AND%20*%20NEAR(%20OR", &[]),
    ];
    for (index, (uri, want)) in cases.into_iter().enumerate() {
        let (status, page) = get(&state, uri).await;
        assert_eq!(status, 200, "case {index} {uri}: {page}");
        assert_eq!(listed(&page), want, "case {index} {uri}");
    }
    let (_, page) = get(&state, "/submissions?q=nosuchword").await;
    assert!(page.contains("No submission matches."));
    let (_, page) = get(&state, "/submissions?page=2").await;
    assert!(listed(&page).is_empty());

    for (uri, message) in [
        ("/submissions?tool=nosuch", "unknown tool"),
        ("/submissions?page=0", "not a page number"),
        ("/submissions?colour=red", "unknown query parameter"),
    ] {
        let (status, page) = get(&state, uri).await;
        assert_eq!(status, 400, "{uri}");
        assert!(page.contains(message), "{uri}: {page}");
    }
}

/// How many runs a runs page lists.
fn rows(page: &str) -> usize {
    page.matches(r#"<td class="nowrap"><a href="/submissions/"#)
        .count()
}

#[tokio::test]
async fn the_runs_table_filters_by_tool_test_and_attributes() {
    let (_dir, _db, state) = test_state();
    let (status, _) = get(&state, "/runs").await;
    assert_eq!(status, 200);
    three_submissions(&state).await;
    let (_, all) = get(&state, "/runs").await;
    let total = rows(&all);
    assert!(total > 17, "{total}");

    let cases: [(&str, usize); 9] = [
        ("/runs?tool=super-smack", 17),
        ("/runs?tool=super-smack&test=update-select", 1),
        ("/runs?where=scheduler:ULE", 4),
        // Several values of one attribute: either; different attributes: both.
        ("/runs?where=scheduler:ULE&where=scheduler:4BSD", 12),
        ("/runs?where=scheduler:4BSD&where=timer:TSC", 4),
        ("/runs?where=scheduler:ule", 4),
        ("/runs?tool=super-smack&where=scheduler:(none)", 5),
        ("/runs?where=label:ULE+%2B+libthr+%2B+TSC", 2),
        ("/runs?tool=sysbench&where=variant:Original", 3),
    ];
    for (index, (uri, want)) in cases.into_iter().enumerate() {
        let (status, page) = get(&state, uri).await;
        assert_eq!(status, 200, "case {index} {uri}: {page}");
        assert_eq!(rows(&page), want, "case {index} {uri}");
    }
    // Each run links to its submission's run and to its lines.
    let (_, page) = get(&state, "/runs?where=label:ULE+%2B+libthr+%2B+TSC").await;
    assert!(page.contains(r#"href="/submissions/1#run-11""#), "{page}");
    assert!(page.contains(r#"href="/submissions/1#L130""#));
    assert!(page.contains("28581.18"), "the headline value is shown");

    for (uri, message) in [
        ("/runs?where=scheduler", "needs the form where="),
        ("/runs?where=Bad-Key:x", "not an attribute name"),
        ("/runs?tool=nosuch", "unknown tool"),
        ("/runs?sort=up", "unknown query parameter"),
    ] {
        let (status, page) = get(&state, uri).await;
        assert_eq!(status, 400, "{uri}");
        assert!(page.contains(message), "{uri}: {page}");
    }
}

#[tokio::test]
async fn submissions_stored_before_search_existed_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        // A database as the first schema left it, with one submission.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../migrations/0001_init.sql"))
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO submissions (text, sha256, source_name, subject)
             VALUES ('sysbench says hello', 'abc', 'old.txt', 'An old mail')",
            [],
        )
        .unwrap();
    }
    let state = AppState::open(&path, &crate::support::repo_path("static")).unwrap();
    let (status, page) = get(&state, "/submissions?q=hello").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(listed(&page), [1]);
}
