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
    let link = ready
        .iter()
        .find(|link| link.contains("tool=super-smack"))
        .unwrap_or_else(|| panic!("no super-smack comparison: {ready:?}"));
    for part in [
        "tool=super-smack",
        "test=select-key",
        "item=select_index",
        "metric=q_per_s",
        "x=threads",
        // Every attribute that tells the runs apart, so that no point
        // averages different setups (by scheduler and thread_lib alone,
        // 4BSD / libthr was ACPI-fast, TSC and TSC+patches as n=3).
        "by=scheduler&by=thread_lib&by=timer&by=patches",
        "where=submission%3A1",
    ] {
        assert!(link.contains(part), "{link} lacks {part}");
    }
    let query = link
        .strip_prefix("/compare?")
        .unwrap()
        .replace("&#38;", "&");
    let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    // Each series one configuration: no point mixes setups.
    let series = json["series"].as_array().unwrap();
    assert!(series.len() >= 9, "{json}");
    for point in series.iter().flat_map(|s| s["points"].as_array().unwrap()) {
        assert_eq!(point["configurations"], 1, "{point}");
        assert_eq!(point["mixed"], serde_json::json!([]), "{point}");
    }
    assert!(
        page.contains("<svg"),
        "each ready comparison has a small chart"
    );
    let (status, chart) = get(&state, link).await;
    assert_eq!(status, 200, "{link}: {chart}");
    assert!(chart.contains("ULE / libthr"), "{chart}");

    // The submission page links its comparisons, one per test and item,
    // split by every attribute that tells its runs apart.
    let (_, review) = get(&state, "/submissions/1").await;
    let links = links_with_class(&review, "ready-compare");
    assert!(
        links.iter().any(|l| l.contains("item=select_index")
            && l.contains("by=scheduler&by=thread_lib&by=timer&by=patches")),
        "{links:?}"
    );
    // update-select ran once: nothing to compare it with.
    assert!(
        !links.iter().any(|l| l.contains("item=update_index")),
        "{links:?}"
    );
    assert!(
        links.iter().any(|l| l.contains("item=connect")),
        "{links:?}"
    );
}

/// The distinct links of a page's ready comparisons, in page order (each
/// small chart and its caption link the same comparison).
fn ready_links(page: &str) -> Vec<String> {
    let mut links = links_with_class(page, "ready-compare");
    links.dedup();
    links
}

#[tokio::test]
async fn home_shows_the_comparisons_with_most_proven_differences_first() {
    let (_dir, _db, state) = test_state();
    paste(&state, &seed_000()).await;
    paste(
        &state,
        &fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt"),
    )
    .await;
    paste(
        &state,
        &fixture("fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt"),
    )
    .await;
    let (_, page) = get(&state, "/").await;
    let links = ready_links(&page);
    assert_eq!(links.len(), 3, "{links:?}");
    // Seed 002: three repeats of each mutex, against the first printed
    // ("Original"), and both others proven faster; drawn first although
    // it is not the newest.
    assert!(links[0].contains("tool=sysbench"), "{links:?}");
    assert!(links[0].contains("by=variant"), "{}", links[0]);
    assert!(links[0].contains("baseline=Original"), "{}", links[0]);
    assert!(page.contains("9 runs, 2 proven differences"), "{page}");
    assert!(
        page.contains("+16.8% ± 4.3% better"),
        "the small chart carries the verdict"
    );
    assert!(
        page.contains("+41.2% ± 4.0% better"),
        "the small chart carries the verdict"
    );
    // Seed 004, newer than seed 000 and with nothing proven: every test
    // of run-all-tests side by side for the two kernels (not by date),
    // an item a panel on its own axis (11 s to 2326 s), against the first
    // kernel printed, marked one run a side (no interval, no verdict).
    let sql_bench = &links[1];
    for part in ["tool=sql-bench", "x=none", "by=os_version", "baseline="] {
        assert!(sql_bench.contains(part), "{sql_bench} lacks {part}");
    }
    assert!(page.contains("Each panel on its own axis"), "{page}");
    for part in ["by=date", "item="] {
        assert!(!sql_bench.contains(part), "{sql_bench} has {part}");
    }
    assert!(page.contains("one run a side"), "{page}");
    assert!(links[2].contains("tool=super-smack"), "{links:?}");
    // Seed 000's runs are single too: differences to its first series,
    // without verdicts.
    assert!(links[2].contains("baseline="), "{}", links[2]);

    // A reply quoting seed 002 whole brings copies of its runs and
    // nothing new: its chart is not drawn twice; the first post keeps it.
    let reply = format!(
        "Thanks, I will run these here too.\n\nSergey wrote:\n{}",
        fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt")
            .lines()
            .map(|line| format!("> {line}\n"))
            .collect::<String>()
    );
    paste(&state, &reply).await;
    let (_, page) = get(&state, "/").await;
    let again = ready_links(&page);
    assert_eq!(again.len(), 3, "{again:?}");
    assert!(again[0].contains("where=submission%3A2"), "{again:?}");

    // Seed 004's own comparisons: TOTALS by its wall-clock time, never by
    // its count of tests; each needs two runs.
    let (_, review) = get(&state, "/submissions/3").await;
    let links = ready_links(&review);
    assert!(
        links
            .iter()
            .any(|l| l.contains("item=TOTALS") && l.contains("metric=wallclock_s")),
        "{links:?}"
    );
    assert!(
        !links.iter().any(|l| l.contains("metric=tests")),
        "{links:?}"
    );
}

#[tokio::test]
async fn a_comparison_of_a_single_run_is_not_offered() {
    let (_dir, _db, state) = test_state();
    // One run of select-key: nothing to compare it with.
    let log = crate::support::smack_log(0, 1);
    paste(&state, &log).await;
    let (_, review) = get(&state, "/submissions/1").await;
    assert_eq!(ready_links(&review), Vec::<String>::new(), "{review}");
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

/// A chart's legend: each series' colour and name, in order. The name
/// keeps what the chart shows, so a long one ends in an ellipsis.
fn legend(svg: &str) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    for (at, _) in svg.match_indices("<polyline ") {
        let element = &svg[at..at + svg[at..].find("/>").unwrap()];
        let stroke = attribute(element, "stroke");
        let points: Vec<(i32, i32)> = attribute(element, "points")
            .split_whitespace()
            .map(|point| {
                let (x, y) = point.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        // A legend line is the one 28 pixels long (or, dashed, its first
        // dash) with its name 36 pixels right of where it starts.
        let [(x1, y1), (x2, y2)] = points[..] else {
            continue;
        };
        if y1 != y2 || x2 <= x1 || x2 - x1 > 28 {
            continue;
        }
        let name_at = format!(r#"<text x="{}" y="{y1}""#, x1 + 36);
        let Some(text) = svg.find(&name_at) else {
            continue;
        };
        let start = text + svg[text..].find('>').unwrap() + 1;
        let end = start + svg[start..].find("</text>").unwrap();
        entries.push((stroke, svg[start..end].trim().to_owned()));
    }
    entries
}

fn attribute(element: &str, name: &str) -> String {
    let needle = format!(r#" {name}=""#);
    let start = element.find(&needle).unwrap() + needle.len();
    element[start..start + element[start..].find('"').unwrap()].to_owned()
}

/// The same name, allowing for either being cut short with an ellipsis.
fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_end_matches('…'), b.trim_end_matches('…'));
    a.starts_with(b) || b.starts_with(a)
}

#[tokio::test]
async fn thumbnails_order_and_colour_their_series_as_the_chart_they_link_to() {
    let (_dir, _db, state) = test_state();
    // (none) sorts first byte by byte but last on /compare.
    paste(&state, &seed_000()).await;
    // "run 10" sorts before "run 9" byte by byte, after it naturally.
    let mut numbered = String::new();
    for (label, qps) in [("run 9", 1100.0), ("run 10", 1200.0)] {
        numbered.push_str(&format!("== {label} ==\n\n"));
        for clients in [10, 100] {
            numbered.push_str(&format!(
                "super-smack -d mysql select-key.smack {clients} 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from {clients} clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index {} 0 0 {:.2}\n\n",
                clients * 20000,
                qps + f64::from(clients)
            ));
        }
    }
    paste(&state, &numbered).await;

    let (_, page) = get(&state, "/").await;
    // Each small chart sits inside its link to /compare.
    let thumbnails: Vec<(String, &str)> = page
        .split(r#"class="ready-compare" href=""#)
        .skip(1)
        .filter_map(|rest| {
            let link = rest[..rest.find('"')?].replace("&#38;", "&");
            let inside = &rest[rest.find('>')? + 1..];
            let svg = &inside[..inside.find("</svg>")? + "</svg>".len()];
            inside.starts_with("<svg").then_some((link, svg))
        })
        .collect();
    assert_eq!(thumbnails.len(), 2, "one small chart per submission");
    for (link, thumbnail) in thumbnails {
        let query = link.strip_prefix("/compare?").unwrap();
        let (status, full) = get(&state, &format!("/compare.svg?{query}")).await;
        assert_eq!(status, 200, "{link}");
        let full_svg = full.clone();
        let (thumbnail, full) = (legend(thumbnail), legend(&full));
        assert!(thumbnail.len() >= 2, "{link}: {thumbnail:?}");
        // A full chart whose legend runs out of room says how many more
        // its table has; the ones it shows come in the thumbnail's order.
        let more = thumbnail.len().saturating_sub(full.len());
        assert!(
            more == 0 || full_svg.contains(&format!("+ {more} more (see table)")),
            "{link}: {thumbnail:?} {full:?}"
        );
        for (position, ((small_colour, small), (colour, name))) in
            thumbnail.iter().zip(&full).enumerate()
        {
            assert!(
                same_name(small, name) && small_colour == colour,
                "{link}: series {position} is {small:?} in {small_colour} on the thumbnail, {name:?} in {colour} on /compare.svg"
            );
        }
    }
}

/// Every ready comparison of every example log compares something: where
/// it has several series, two of them share a point (the same thread
/// count or item); and a post of single runs a side, seed 004's two
/// kernels, still gets its baseline, marked "one run a side".
#[tokio::test]
async fn ready_comparisons_compare_points_two_series_share() {
    let (_dir, db, state) = test_state();
    let mut conn = benchlog::store::open(&db).unwrap();
    crate::verdicts::ingest_all_fixtures(&mut conn);
    let submissions: i64 = conn
        .query_row("SELECT max(id) FROM submissions", [], |row| row.get(0))
        .unwrap();
    let mut checked = 0;
    for id in 1..=submissions {
        let (status, page) = get(&state, &format!("/submissions/{id}")).await;
        if status != 200 {
            continue;
        }
        for link in ready_links(&page) {
            let query = link.strip_prefix("/compare?").unwrap();
            let (status, json) = get(&state, &format!("/compare.json?{query}")).await;
            assert_eq!(status, 200, "{link}: {json}");
            let json: serde_json::Value = serde_json::from_str(&json).unwrap();
            let series = json["series"].as_array().unwrap();
            if series.len() < 2 {
                continue;
            }
            let mut holders: std::collections::HashMap<String, usize> = Default::default();
            for s in series {
                let points: std::collections::BTreeSet<String> = s["points"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| format!("{}|{}|{}", p["threads"], p["x"], p["item"]))
                    .collect();
                for point in points {
                    *holders.entry(point).or_default() += 1;
                }
            }
            assert!(
                holders.values().any(|&n| n > 1),
                "submission {id} offers {link}, whose series share no point"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} comparisons checked");

    // Seed 004: one run of each kernel.
    let seed_004 = fixture("fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt");
    let (_dir, _db, state) = test_state();
    paste(&state, &seed_004).await;
    let (_, page) = get(&state, "/submissions/1").await;
    let links = ready_links(&page);
    assert!(
        links.iter().any(|l| l.contains("baseline=")),
        "no baseline: {links:?}"
    );
    assert!(page.contains("one run a side"), "{page}");
    let (_, home) = get(&state, "/").await;
    assert!(home.contains("one run a side"), "{home}");
}
