//! Scale: the SQL statements each page runs stay the same however much is
//! stored (no query per row), counted on the server's own connections.

use benchlog::web::state::AppState;

use crate::http::get;
use crate::support::{smack_log, test_state};

/// The pages whose statement counts must not grow with the data.
const PAGES: [&str; 11] = [
    "/",
    "/runs",
    "/runs?tool=super-smack&page=2",
    "/runs?tool=super-smack&before=150&page=2",
    "/runs?tool=super-smack&after=50&page=3",
    "/submissions/1",
    "/runs/1",
    "/runs/100",
    "/compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads",
    "/compare.svg?tool=super-smack&item=select_index&metric=q_per_s&x=threads",
    "/compare.csv?tool=super-smack&item=select_index&metric=q_per_s&x=threads",
];

/// Statements run by each of [`PAGES`], on a database of `submissions`
/// logs of 8 super-smack runs each.
async fn statements_per_page(submissions: u64) -> Vec<u64> {
    let (_dir, path, state) = test_state();
    let mut conn = benchlog::store::open(&path).unwrap();
    for seed in 0..submissions {
        let stored = benchlog::ingest::ingest_text(&mut conn, None, &smack_log(seed, 8)).unwrap();
        assert_eq!(stored.runs, 8);
    }
    let mut counts = Vec::new();
    for uri in PAGES {
        counts.push(count(&state, uri).await);
    }
    counts
}

async fn count(state: &AppState, uri: &str) -> u64 {
    let before = state.statements_run();
    let (status, page) = get(state, uri).await;
    assert_eq!(status, 200, "{uri}: {page}");
    state.statements_run() - before
}

#[tokio::test]
async fn pages_run_as_many_statements_on_ten_times_the_data() {
    // 25 logs of 8 runs: two full pages of the runs table already.
    let small = statements_per_page(25).await;
    let large = statements_per_page(250).await;
    for (index, uri) in PAGES.iter().enumerate() {
        assert!(
            small[index] > 0,
            "{uri} ran no statement: is the counter on?"
        );
        assert!(small[index] <= 25, "{uri} ran {} statements", small[index]);
    }
    assert_eq!(small, large, "statements per page for {PAGES:?}");
    // For docs/performance.md: `cargo test --test integration scale -- --nocapture`.
    for (uri, count) in PAGES.iter().zip(&small) {
        eprintln!("{count:>3} statements  {uri}");
    }
}

/// A page asked for again while the data is unchanged comes from memory:
/// the same bytes, and no statement beyond reading the data generation
/// (BEGIN, the generation, the end of the read).
#[tokio::test]
async fn a_page_asked_again_reads_only_the_data_generation() {
    let (_dir, path, state) = test_state();
    let mut conn = benchlog::store::open(&path).unwrap();
    for seed in 0..5 {
        benchlog::ingest::ingest_text(&mut conn, None, &smack_log(seed, 8)).unwrap();
    }
    for uri in PAGES
        .iter()
        .filter(|uri| **uri == "/" || uri.starts_with("/compare"))
    {
        let before = state.statements_run();
        let (_, first) = get(&state, uri).await;
        let made = state.statements_run() - before;
        let before = state.statements_run();
        let (status, again) = get(&state, uri).await;
        let served = state.statements_run() - before;
        assert_eq!(status, 200, "{uri}");
        assert_eq!(first, again, "{uri}: the same data, the same page");
        assert!(
            served <= 3 && served < made,
            "{uri}: {served} statements served from memory, {made} to make it"
        );
    }
}
