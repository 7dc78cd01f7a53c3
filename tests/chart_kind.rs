//! The chart fits its data: bars where every series has a single thread
//! count, lines where series run across several; and the text view says
//! what the scaling efficiency is.

use std::path::Path;

use crate::http::get;
use crate::support::{repo_path, seed_000, test_state, SQL_BENCH_KERNELS};

const SEED_002: &str = "fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt";
const THREAD_LOOP: &str = "fixtures/sysbench/1.0-oltp-point-select-thread-loop-markers.txt";

fn ingest(db: &Path, texts: &[String]) {
    let mut conn = benchlog::store::open(db).unwrap();
    for text in texts {
        benchlog::ingest::ingest_text(&mut conn, None, text).unwrap();
    }
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(repo_path(path)).unwrap()
}

#[tokio::test]
async fn series_of_one_thread_count_each_are_drawn_as_bars() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[fixture(SEED_002), seed_000()]);
    // Seed 002: three runs per label, all at 64 threads.
    let query = "tool=sysbench&metric=tps&item=total&by=label";
    let (status, json) = get(&state, &format!("/compare.json?{query}")).await;
    assert_eq!(status, 200, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["x"], "threads");
    let series = json["series"].as_array().unwrap();
    assert!(series.len() >= 2, "{json}");
    assert!(series
        .iter()
        .all(|s| s["points"].as_array().unwrap().len() == 1));
    let (_, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    // One group, named by its thread count; a bar per series, no lines.
    assert!(
        svg.contains(">\n64 threads\n</text>") || svg.contains(">64 threads</text>"),
        "{svg}"
    );
    // Lines are drawn 2 pixels wide; grid lines and whiskers are thinner.
    assert_eq!(svg.matches("stroke-width=\"2\"").count(), 0, "{svg}");
    assert!(svg.matches("<rect").count() >= series.len(), "{svg}");

    // Seed 000 runs at 10 and 100 clients: lines.
    let (_, svg) = get(
        &state,
        "/compare.svg?tool=super-smack&item=select_index&metric=q_per_s&by=scheduler",
    )
    .await;
    assert!(svg.matches("stroke-width=\"2\"").count() >= 3, "{svg}");
    assert!(!svg.contains("100 clients<"), "{svg}");
}

#[tokio::test]
async fn the_text_view_gives_the_scaling_efficiency() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[fixture(THREAD_LOOP)]);
    let query = "tool=sysbench&metric=qps&item=total";
    let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let (_, text) = get(&state, &format!("/compare.txt?{query}")).await;
    assert!(text.contains(" eff.\n"), "{text}");
    assert!(
        text.contains("eff.: scaling efficiency, value(n) / (n x value(1))"),
        "{text}"
    );
    for point in json["series"][0]["points"].as_array().unwrap() {
        let efficiency = point["efficiency"].as_f64().unwrap();
        let threads = point["threads"].as_u64().unwrap();
        let row = text
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{threads} ")))
            .unwrap_or_else(|| panic!("no row for {threads} threads: {text}"));
        assert!(row.ends_with(&format!("{efficiency:.2}")), "{row}");
    }
}

/// The text of every `<text>` element of an SVG, trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|element| {
            let inside = element.split_once('>')?.1;
            Some(inside.split("</text>").next()?.trim().to_owned())
        })
        .collect()
}

#[tokio::test]
async fn y_relative_draws_each_series_as_a_percent_of_the_baseline() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[fixture(SEED_002), seed_000()]);
    // Seed 002: 13318.67 tps for Original, 15551.33 and 18808.33 for the
    // patched builds, all at 64 threads.
    let query = "tool=sysbench&metric=tps&item=total&by=label&baseline=Original";
    let (status, svg) = get(&state, &format!("/compare.svg?{query}&y=relative")).await;
    assert_eq!(status, 200, "{svg}");
    let texts = svg_texts(&svg);
    for wanted in [
        "100%  n=3  baseline",
        "116.8%  n=3  +16.8% ± 4.3% better",
        "141.2%  n=3  +41.2% ± 4.0% better",
    ] {
        assert!(texts.iter().any(|t| t == wanted), "{wanted}: {texts:?}");
    }
    assert!(
        texts
            .iter()
            .any(|t| t == "% of Original (transactions per second), higher is better"),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t == "100%"),
        "a tick at 100%: {texts:?}"
    );
    // The numbers of the other forms stay absolute; the link keeps y.
    let (_, json) = get(&state, &format!("/compare.json?{query}&y=relative")).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(json["query"].as_str().unwrap().ends_with("&y=relative"));
    assert_eq!(json["series"][0]["points"][0]["mean"], 13318.666667);
    let (_, absolute) = get(&state, &format!("/compare.svg?{query}")).await;
    assert!(!absolute.contains("% of Original"), "{absolute}");

    // Seed 000: the baseline ran at 10 clients only, so every 100-client
    // point is left out of the relative chart, and the note says so.
    let query = "tool=super-smack&item=select_index&metric=q_per_s&by=scheduler&by=thread_lib&by=timer&by=patches&baseline=(none)+%2F+libpthread+%2F+(none)+%2F+(none)&y=relative";
    let (status, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    assert_eq!(status, 200, "{svg}");
    // The note wraps; its words read in order.
    let words = svg_texts(&svg).join(" ");
    assert!(
        words.contains("6 points left out: the baseline has no point at their x"),
        "{words}"
    );
    assert!(words.contains("% of (none) / libpthread"), "{words}");
}

#[tokio::test]
async fn y_relative_is_refused_without_a_baseline_or_with_another_value() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[fixture(SEED_002)]);
    let query = "tool=sysbench&metric=tps&item=total&by=label";
    for (asked, wanted) in [
        (
            "y=relative",
            "y=relative draws each series as % of the baseline, so it needs one",
        ),
        (
            "baseline=Original&y=percent",
            "y=percent is not a value axis; choose y=relative",
        ),
    ] {
        for form in ["compare.svg", "compare.png", "compare.json", "compare"] {
            let (status, body) = get(&state, &format!("/{form}?{query}&{asked}")).await;
            assert_eq!(status, 400, "{form}?{asked}: {body}");
            assert!(body.contains(wanted), "{form}?{asked}: {body}");
        }
    }
}

#[tokio::test]
async fn mixed_points_are_crossed_without_a_baseline_too() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[seed_000()]);
    // "4BSD / libthr" at 10 clients: ACPI-fast, TSC and TSC with patches.
    let query = "tool=super-smack&item=select_index&metric=q_per_s&by=scheduler&by=thread_lib";
    let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mixed = json["series"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["points"].as_array().unwrap())
        .filter(|p| !p["mixed"].as_array().unwrap().is_empty())
        .count();
    assert!(mixed >= 2, "{json}");
    let (_, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    let texts = svg_texts(&svg);
    assert!(
        texts.iter().any(|t| t == "Crossed: mixed configurations"),
        "{texts:?}"
    );
    // A cross is two 1-pixel strokes 6 pixels long: two per mixed point,
    // and two on the key's sample.
    let crosses = svg
        .lines()
        .filter(|line| line.starts_with("<polyline") && line.contains(r#"stroke-width="1""#))
        .filter(|line| {
            let points: Vec<(i32, i32)> = line
                .split(r#"points=""#)
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            points.len() == 2
                && (points[0].0 - points[1].0).abs() == 6
                && (points[0].1 - points[1].1).abs() == 6
        })
        .count();
    assert_eq!(crosses, 2 * (mixed + 1), "{svg}");
}

const SEED_004: &str = "fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt";

/// Every fixture of a folder, as texts.
fn fixtures_of(folder: &str) -> Vec<String> {
    let mut paths: Vec<_> = std::fs::read_dir(repo_path(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect()
}

#[tokio::test]
async fn sql_bench_items_are_panels_each_on_its_own_axis() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[fixture(SEED_004)]);
    // Seed 004: test-wisconsin takes 11 s, TOTALS 2326 s: on one axis
    // nearly every bar was a hairline.
    let query = "tool=sql-bench&metric=wallclock_s&by=os_version";
    let (_, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    let texts = svg_texts(&svg);
    let count = |wanted: &str| texts.iter().filter(|t| *t == wanted).count();
    let items = [
        "test-ATIS",
        "test-alter-table",
        "test-big-tables",
        "test-connect",
        "test-insert",
        "test-select",
        "test-wisconsin",
        "TOTALS",
    ];
    for item in items {
        assert_eq!(count(item), 1, "a panel titled {item}: {texts:?}");
    }
    // Each panel its own value axis (its ticks from 0), titled once, and
    // a bar named by its series.
    assert_eq!(count("0"), items.len(), "{texts:?}");
    assert_eq!(
        count("Each panel on its own axis: wall-clock time (s), lower is better"),
        1
    );
    for series in ["2.2.16-22smp", "2.4.0"] {
        // A bar in each panel, and the legend.
        assert_eq!(count(series), items.len() + 1, "{series}: {texts:?}");
    }
    // Test-wisconsin's axis ends near its 11 s, TOTALS' past 2326 s.
    for value in ["11", "2326", "2124"] {
        assert!(count(value) >= 1, "{value}: {texts:?}");
    }
    assert!(svg.starts_with(r#"<svg width="1200""#), "{}", &svg[..60]);

    // With a baseline, each panel's bars carry their verdict.
    let (_, svg) = get(
        &state,
        &format!("/compare.svg?{query}&baseline=2.2.16-22smp"),
    )
    .await;
    let texts = svg_texts(&svg);
    let verdicts = texts
        .iter()
        .filter(|t| t.contains("% too few runs") || t.ends_with("  baseline"))
        .count();
    assert_eq!(verdicts, 2 * items.len(), "{texts:?}");
}

#[tokio::test]
async fn twelve_kernels_and_fifty_machines_draw_every_panel() {
    let (_dir, db, state) = test_state();
    let kernels: Vec<String> = SQL_BENCH_KERNELS
        .iter()
        .map(|path| std::fs::read_to_string(repo_path(path)).unwrap())
        .collect();
    ingest(&db, &kernels);
    ingest(&db, &fixtures_of("fixtures/bonnie"));
    for (query, axis) in [
        (
            "tool=sql-bench&metric=wallclock_s&by=os_version",
            "wall-clock time (s), lower is better",
        ),
        (
            "tool=bonnie&metric=kb_per_s&by=machine",
            "throughput (KB/s), higher is better",
        ),
    ] {
        let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let series: Vec<&str> = json["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        let categories: Vec<&str> = json["categories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert!(series.len() > 10, "{query}: {series:?}");
        let (status, svg) = get(&state, &format!("/compare.svg?{query}")).await;
        assert_eq!(status, 200);
        let texts = svg_texts(&svg);
        // A panel per item, each with its axis (centred ticks from 0; a
        // bar's value is set left of its end); none left out.
        let zero_ticks = svg
            .split("<text")
            .filter(|t| t.contains(r#"text-anchor="middle""#))
            .filter(|t| {
                t.split_once('>')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with("0\n"))
            })
            .count();
        assert_eq!(zero_ticks, categories.len(), "{query}: {texts:?}");
        let header = format!("Each panel on its own axis: {axis}");
        assert!(texts.contains(&header), "{query}: {texts:?}");
        for item in &categories {
            let item = item.replace('&', "&amp;");
            assert!(texts.contains(&item), "{query}: panel {item}");
        }
        assert!(!svg.contains("panels drawn"), "{query}");
        // The legend names every series (in full: it wraps, never cuts).
        let words = texts.join(" ");
        for name in &series {
            let name = name.replace('&', "&amp;");
            assert!(words.contains(&name), "{query}: {name}");
        }
        assert!(!svg.contains("more (see table)"), "{query}");
    }
    // A baseline's verdicts widen the bars' labels: the grid widens so
    // that every panel still fits.
    let query = "tool=sql-bench&metric=wallclock_s&by=os_version&baseline=2.4.0";
    let (_, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    assert!(!svg.contains("panels drawn"), "{svg}");
    assert!(
        svg.contains("+17715.9% too few runs"),
        "test-insert's 2.6.8-3-686"
    );
}

#[tokio::test]
async fn without_by_the_legend_names_what_tells_series_apart() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[seed_000()]);
    // No by: split by eight attributes, mostly (none) or shared.
    let query = "tool=super-smack&metric=q_per_s";
    let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = json["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(
        names.contains(
            &"select_index / (none) / libthr / (none) / (none) / (none) / (none) / amd64"
        ),
        "the JSON keeps the full names: {names:?}"
    );
    let (_, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    let words = svg_texts(&svg).join(" ");
    for legend in [
        "select_index / libthr / amd64",
        "select_index / 4BSD / libpthread / ACPI-fast / 6.1-PRERELEASE / i386",
        "context_time.patch, cpu_acct_1.patch, cpu_acct_2.patch",
        "update_index / update test / 6.1-PRERELEASE / i386",
    ] {
        assert!(words.contains(legend), "{legend}: {words}");
    }
    assert!(!words.contains("(none)"), "{words}");
    // Every entry is shown: the image grows for the legend.
    assert!(!words.contains("more (see table)"), "{words}");

    // A by the user chose keeps its names, value for value.
    let (_, svg) = get(
        &state,
        "/compare.svg?tool=super-smack&item=select_index&metric=q_per_s&by=scheduler&by=thread_lib",
    )
    .await;
    assert!(
        svg_texts(&svg).iter().any(|t| t == "(none) / libthr"),
        "{svg}"
    );
}
