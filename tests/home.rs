//! The home page: counts per tool, the upload form, the comparisons the
//! data holds and the newest submissions.

use crate::http::{fixture, get, links_with_class, paste};
use crate::support::{seed_000, test_state};

#[tokio::test]
async fn home_counts_runs_per_tool_and_offers_ready_comparisons() {
    let (_dir, _db, state) = test_state();
    let (status, empty) = get(&state, "/").await;
    assert_eq!(status, 200);
    for needle in [
        r#"<textarea id="paste" name="text""#,
        r#"id="upload-submit""#,
        r#"name="file" multiple"#,
        "Nothing stored yet",
    ] {
        assert!(empty.contains(needle), "missing {needle:?}");
    }
    assert!(links_with_class(&empty, "ready-compare").is_empty());

    paste(&state, &seed_000()).await;
    // Three runs per label, all at 64 threads: no thread axis, no ready chart.
    paste(
        &state,
        &fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt"),
    )
    .await;
    paste(
        &state,
        &fixture("fixtures/bonnie/bonnie-classic-two-machines.txt"),
    )
    .await;

    let (_, page) = get(&state, "/").await;
    let counts = &page[page.find("<table class=\"list counts\">").unwrap()..];
    let counts = &counts[..counts.find("</table>").unwrap()];
    assert!(
        counts.contains(r#"<a href="/runs?tool=super-smack">17</a></td>"#),
        "{counts}"
    );
    assert!(counts.contains(r#"<a href="/submissions?tool=super-smack">1</a>"#));
    assert!(
        counts.contains(r#"<a href="/submissions">3</a>"#),
        "{counts}"
    );

    // Seed 000 ran select-key at 10 and 100 clients in many configurations.
    let ready = links_with_class(&page, "ready-compare");
    assert!(!ready.is_empty());
    assert!(ready.iter().all(|link| link == &ready[0]), "{ready:?}");
    let link = &ready[0];
    for part in [
        "tool=super-smack",
        "test=select-key",
        "item=select_index",
        "metric=q_per_s",
        "x=threads",
        "by=scheduler&by=thread_lib&by=timer&by=patches",
        "where=submission%3A1",
    ] {
        assert!(link.contains(part), "{link} lacks {part}");
    }
    assert!(
        page.contains("<svg"),
        "each ready comparison has a small chart"
    );
    let (status, chart) = get(&state, link).await;
    assert_eq!(status, 200, "{link}: {chart}");
    assert!(chart.contains("ULE / libthr / TSC / (none)"), "{chart}");

    // The submission page links the same comparison, one per test and item.
    let (_, review) = get(&state, "/submissions/1").await;
    let links = links_with_class(&review, "ready-compare");
    assert!(links.contains(link), "{links:?}");
    assert!(
        links.iter().any(|l| l.contains("item=update_index")),
        "{links:?}"
    );
    assert!(
        links.iter().any(|l| l.contains("item=connect")),
        "{links:?}"
    );
}

#[tokio::test]
async fn ready_comparisons_are_looked_for_among_the_newest_runs() {
    let (_dir, path, state) = test_state();
    paste(&state, &seed_000()).await;
    let mut conn = benchlog::store::open(&path).unwrap();
    // Two logs of 8 runs in one configuration: nothing to compare.
    for seed in 0..2 {
        let log = crate::support::smack_log(seed, 8);
        benchlog::ingest::ingest_text(&mut conn, None, &log).unwrap();
    }
    let submissions = |groups: Vec<benchlog::store::RunGroup>| -> Vec<i64> {
        groups.iter().map(|g| g.submission_id).collect()
    };
    let all = benchlog::store::ready_groups(&conn, 12, 1000).unwrap();
    assert!(submissions(all).contains(&1));
    // The newest 9 runs are all of submission 3 and one of submission 2:
    // both are looked through whole, seed 000's submission 1 is not.
    let newest = benchlog::store::ready_groups(&conn, 12, 9).unwrap();
    assert_eq!(submissions(newest), Vec::<i64>::new());
    // 17 runs reach into submission 1.
    let reaching = benchlog::store::ready_groups(&conn, 12, 17).unwrap();
    assert!(submissions(reaching).contains(&1));
}
