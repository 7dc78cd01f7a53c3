//! Browsing: the submissions list with search and tool filter, and the
//! runs table with its filters.

use benchlog::web::state::AppState;

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

    // As many filters as a query may hold still work.
    let mut most = "/runs?where=scheduler:ULE&where=scheduler:4BSD".to_owned();
    for i in 2..benchlog::limits::MAX_WHERE {
        most.push_str(&format!("&where=scheduler:x{i}"));
    }
    let (status, page) = get(&state, &most).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(rows(&page), 12);
    let too_many = format!("{most}&where=timer:TSC");

    for (uri, message) in [
        (too_many.as_str(), "at most 16 are taken"),
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
    let state = AppState::open(&path).unwrap();
    let (status, page) = get(&state, "/submissions?q=hello").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(listed(&page), [1]);
}

/// The runs a runs page lists, as (submission, run number), in order.
fn listed_runs(page: &str) -> Vec<(i64, i64)> {
    let needle = r#"<td class="nowrap"><a href="/submissions/"#;
    page.match_indices(needle)
        .map(|(at, _)| {
            let rest = &page[at + needle.len()..];
            let link = &rest[..rest.find('"').unwrap()];
            let (submission, run) = link.split_once("#run-").unwrap();
            (submission.parse().unwrap(), run.parse().unwrap())
        })
        .collect()
}

/// The address of the pager's `rel` ("next" or "prev") link, as a browser
/// reads it.
fn pager_link(page: &str, rel: &str) -> Option<String> {
    let end = page.find(&format!(r#"" rel="{rel}""#))?;
    let start = page[..end].rfind(r#"href=""#)? + r#"href=""#.len();
    Some(page[start..end].replace("&#38;", "&").replace("&amp;", "&"))
}

/// Every 4BSD super-smack run, newest first, as the runs table numbers
/// them.
fn bsd_smack_runs(conn: &rusqlite::Connection) -> Vec<(i64, i64)> {
    let mut stmt = conn
        .prepare(
            "SELECT r.submission_id, r.idx + 1 FROM runs r
             JOIN run_attrs a ON a.run_id = r.id AND a.key = 'scheduler'
             WHERE r.tool = 'super-smack' AND a.value = '4BSD' ORDER BY r.id DESC",
        )
        .unwrap();
    let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)));
    rows.unwrap().collect::<rusqlite::Result<_>>().unwrap()
}

/// Stores `logs` logs of 8 super-smack runs, with a sysbench mail among
/// them, and gives two of every three super-smack runs scheduler=4BSD, the
/// rest ULE.
fn store_smack_runs(conn: &mut rusqlite::Connection, logs: u64, first_seed: u64) {
    for seed in first_seed..first_seed + logs {
        if seed == first_seed + logs / 2 {
            benchlog::ingest::ingest_text(conn, None, &fixture(SYSBENCH)).unwrap();
        }
        benchlog::ingest::ingest_text(conn, None, &crate::support::smack_log(seed, 8)).unwrap();
    }
    conn.execute(
        "INSERT OR REPLACE INTO run_attrs (run_id, key, value)
         SELECT id, 'scheduler', CASE WHEN id % 3 = 0 THEN 'ULE' ELSE '4BSD' END
         FROM runs WHERE tool = 'super-smack'",
        [],
    )
    .unwrap();
}

/// Follows the runs pager from `first` to the last page and back, checking
/// each page shows `want_pages` in turn and its links keep the filters
/// (`filters`, as the links write them). The next links, in order.
async fn walk_runs_pages(
    state: &AppState,
    first: &str,
    filters: &str,
    want_pages: &[&[(i64, i64)]],
) -> Vec<String> {
    // Forwards through the older pages: each the following runs.
    let mut uri = first.to_owned();
    let mut pages = Vec::new();
    let mut next_links = Vec::new();
    loop {
        let (status, page) = get(state, &uri).await;
        assert_eq!(status, 200, "{uri}: {page}");
        let number = pages.len() + 1;
        assert_eq!(
            listed_runs(&page),
            want_pages[number - 1],
            "page {number}: {uri}"
        );
        let prev = pager_link(&page, "prev");
        if number == 1 {
            assert_eq!(prev, None, "{uri}");
        } else {
            let prev = prev.expect("a later page links the newer one");
            assert!(prev.starts_with(filters), "{prev}");
            assert!(page.contains(&format!("page {number}</span>")), "{uri}");
        }
        pages.push(page.clone());
        let Some(next) = pager_link(&page, "next") else {
            break;
        };
        assert!(next.starts_with(&format!("{filters}&before=")), "{next}");
        assert!(next.ends_with(&format!("&page={}", number + 1)), "{next}");
        next_links.push(next.clone());
        uri = next;
    }
    assert_eq!(pages.len(), want_pages.len(), "{first}");

    // Backwards from the last page: the same pages, and page 1 is the
    // plain address.
    let mut uri = pager_link(pages.last().unwrap(), "prev").unwrap();
    for number in (1..pages.len()).rev() {
        let (status, page) = get(state, &uri).await;
        assert_eq!(status, 200, "{uri}: {page}");
        assert_eq!(
            listed_runs(&page),
            want_pages[number - 1],
            "back to page {number}: {uri}"
        );
        if number == 1 {
            assert_eq!(uri, filters);
            assert_eq!(pager_link(&page, "prev"), None);
        } else {
            assert!(uri.contains("&after="), "{uri}");
            uri = pager_link(&page, "prev").unwrap();
        }
    }
    next_links
}

#[tokio::test]
async fn runs_pages_link_each_other_by_run_without_repeating_or_skipping_one() {
    let (_dir, path, state) = test_state();
    let mut conn = benchlog::store::open(&path).unwrap();
    store_smack_runs(&mut conn, 45, 0);
    let want = bsd_smack_runs(&conn);
    let want_pages: Vec<&[(i64, i64)]> = want.chunks(100).collect();
    assert!(want_pages.len() >= 3, "{} runs", want.len());

    // Read by tool, and by attribute value (only super-smack runs have one).
    let first = "/runs?tool=super-smack&where=scheduler:4bsd";
    let filters = "/runs?tool=super-smack&where=scheduler%3A4bsd";
    let next_links = walk_runs_pages(&state, first, filters, &want_pages).await;
    walk_runs_pages(
        &state,
        "/runs?where=scheduler:4bsd",
        "/runs?where=scheduler%3A4bsd",
        &want_pages,
    )
    .await;

    // An old link by page number shows the same runs and links by run.
    let (_, page) = get(&state, &format!("{first}&page=2")).await;
    assert_eq!(listed_runs(&page), want_pages[1]);
    assert_eq!(pager_link(&page, "next"), Some(next_links[1].clone()));
    assert_eq!(pager_link(&page, "prev").as_deref(), Some(filters));

    // New runs go on the first page; a page linked by run keeps its runs.
    store_smack_runs(&mut conn, 3, 1000);
    let (_, page) = get(&state, &next_links[0]).await;
    assert_eq!(listed_runs(&page), want_pages[1]);
    let (_, page) = get(&state, first).await;
    assert_eq!(listed_runs(&page), bsd_smack_runs(&conn)[..100]);

    for (uri, message) in [
        ("/runs?before=x", "not a run number"),
        ("/runs?before=-3", "not a run number"),
        ("/runs?before=10&after=2", "give before= or after="),
    ] {
        let (status, page) = get(&state, uri).await;
        assert_eq!(status, 400, "{uri}");
        assert!(page.contains(message), "{uri}: {page}");
    }
}

/// `asof=2&asof=1` was read as asof=1 by the server and could be read as
/// asof=2 by whatever else reads the link: every page refuses a
/// parameter given twice with two values, and says which.
#[tokio::test]
async fn a_parameter_given_twice_with_two_values_is_refused() {
    let (_dir, _db, state) = test_state();
    three_submissions(&state).await;
    for (uri, named) in [
        ("/runs?page=1&page=2", "page=1 and page=2"),
        (
            "/submissions?tool=sysbench&tool=bonnie",
            "tool=sysbench and tool=bonnie",
        ),
        ("/submissions/1?part=1&part=2", "part=1 and part=2"),
        (
            "/compare?tool=super-smack&metric=q_per_s&asof=2&asof=1",
            "asof=2 and asof=1",
        ),
        (
            "/compare.csv?tool=super-smack&metric=q_per_s&baseline=a&baseline=b",
            "baseline=a and baseline=b",
        ),
    ] {
        let (status, body) = get(&state, uri).await;
        assert_eq!(status, axum::http::StatusCode::BAD_REQUEST, "{uri}: {body}");
        assert!(body.contains("given twice"), "{uri}: {body}");
        assert!(body.contains(named), "{uri}: {body}");
    }
    // The same value twice, and repeated by and where, are fine.
    for uri in [
        "/runs?page=1&page=1",
        "/runs?where=scheduler:ULE&where=timer:TSC",
        "/compare?tool=super-smack&metric=q_per_s&by=scheduler&by=thread_lib",
    ] {
        assert_eq!(
            get(&state, uri).await.0,
            axum::http::StatusCode::OK,
            "{uri}"
        );
    }
}
