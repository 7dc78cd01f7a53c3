//! Any attribute as the x axis (`x=os_version`, `x=date`): values in
//! version or time order, and what cannot be an axis refused (split out
//! of tests/compare.rs).

use axum::http::StatusCode;

use crate::compare::{ingest, series};
use crate::http::{fetch, get_ok};
use crate::support::{test_state, SEED_000, SQL_BENCH_KERNELS};

/// `x=os_version`: a line per server across the Linux kernels of the
/// sql-bench posts, in version order (2.6.8 before 2.6.18, which text
/// order swaps), each kernel a tick of the chart; the runs that name no
/// kernel are counted, never placed.
#[tokio::test]
async fn an_attribute_along_x_is_in_version_order() {
    let (_dir, db, state) = test_state();
    ingest(&db, SQL_BENCH_KERNELS);
    let query =
        "tool=sql-bench&metric=wallclock_s&item=TOTALS&x=os_version&by=db_server&where=os:Linux";
    let json = get_ok(&state, &format!("/compare.json?{query}"))
        .await
        .json();
    assert_eq!(json["x"], "os_version");
    let kernels = [
        "2.0.35",
        "2.2.1",
        "2.2.14-my-SMP",
        "2.2.16-22smp",
        "2.4.0",
        "2.6.8-3-686",
        "2.6.18-8.el5",
    ];
    assert_eq!(json["x_values"], serde_json::json!(kernels), "{json}");
    assert_eq!(json["without_x"], 0);
    let points = |name: &str| -> Vec<(String, f64)> {
        series(&json, name)["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["x"].as_str().unwrap().to_owned(),
                    p["mean"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let at = |pairs: &[(&str, f64)]| -> Vec<(String, f64)> {
        pairs.iter().map(|(x, v)| ((*x).to_owned(), *v)).collect()
    };
    assert_eq!(
        points("MySQL"),
        at(&[
            ("2.0.35", 676.0),
            ("2.2.1", 5009.0),
            ("2.2.16-22smp", 2326.0),
            ("2.4.0", 2124.0),
            ("2.6.18-8.el5", 786.0),
        ])
    );
    assert_eq!(
        points("PostgreSQL"),
        at(&[("2.2.14-my-SMP", 130055.0), ("2.6.8-3-686", 971.0)])
    );

    // The CSV: a column named by the attribute, the rows in its order.
    let csv = get_ok(&state, &format!("/compare.csv?{query}"))
        .await
        .text();
    assert!(
        csv.starts_with("series,db_server,os_version,tool,test,item,metric,threads,mean,"),
        "{csv}"
    );
    let csv_kernels: Vec<&str> = csv
        .lines()
        .skip(1)
        .filter(|line| line.starts_with("MySQL,"))
        .map(|line| line.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(
        csv_kernels,
        ["2.0.35", "2.2.1", "2.2.16-22smp", "2.4.0", "2.6.18-8.el5"]
    );

    // The chart: every kernel a tick label, left to right in that order.
    let svg = get_ok(&state, &format!("/compare.svg?{query}"))
        .await
        .text();
    let lines: Vec<&str> = svg.lines().collect();
    let ticks: Vec<usize> = kernels
        .iter()
        .map(|kernel| {
            lines
                .iter()
                .position(|line| line == kernel)
                .unwrap_or_else(|| panic!("no tick {kernel}: {svg}"))
        })
        .collect();
    assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
    assert!(svg.contains("os_version, in version order"), "{svg}");

    // Without the filter, the runs that name no kernel are counted.
    let open = "tool=sql-bench&metric=wallclock_s&item=TOTALS&x=os_version&by=db_server";
    let json = get_ok(&state, &format!("/compare.json?{open}"))
        .await
        .json();
    assert_eq!(json["without_x"], 7, "{json}");
    assert!(
        json["x_values"].as_array().unwrap().len() > kernels.len(),
        "Windows' and FreeBSD's too: {json}"
    );
    let notice = "Results without os_version: 7.";
    let text = get_ok(&state, &format!("/compare.txt?{open}")).await.text();
    assert!(text.contains(notice), "{text}");
    let page = get_ok(&state, &format!("/compare?{open}")).await.text();
    assert!(page.contains(notice), "{page}");
}

/// Seed 000's question: select q/s across FreeBSD versions, by thread
/// library; the thread counts split the lines, never averaged together.
#[tokio::test]
async fn q_per_s_across_freebsd_versions_by_thread_library() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_000]);
    let query = "tool=super-smack&item=select_index&metric=q_per_s&x=os_version&by=thread_lib";
    let json = get_ok(&state, &format!("/compare.json?{query}"))
        .await
        .json();
    assert_eq!(
        json["x_values"],
        serde_json::json!(["6.1-PRERELEASE", "6.1RC1"]),
        "{json}"
    );
    assert_eq!(
        json["key_columns"],
        serde_json::json!(["thread_lib", "threads"])
    );
    for series in json["series"].as_array().unwrap() {
        let threads = series["keys"]["threads"].as_str().unwrap();
        for point in series["points"].as_array().unwrap() {
            assert_eq!(point["threads"].to_string(), threads, "{series}");
        }
    }
    // The form offers the attributes the runs have as x.
    let page = get_ok(&state, &format!("/compare?{query}")).await.text();
    assert!(
        page.contains(
            r#"<option value="os_version" selected>os_version (lines across its values)</option>"#
        ),
        "{page}"
    );
    assert!(page
        .contains(r#"<option value="thread_lib">thread_lib (lines across its values)</option>"#));
}

#[tokio::test]
async fn an_unknown_or_split_attribute_along_x_is_refused() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_000]);
    let base = "/compare.json?tool=super-smack&item=select_index&metric=q_per_s";
    for (extra, want) in [
        (
            "&x=bogus",
            "x=bogus is not supported; the x axis can be threads, none for bars per item, or an attribute of super-smack runs: os, os_version,",
        ),
        (
            "&x=os_version&by=os_version",
            "x=os_version and by=os_version: each series is drawn across the values of os_version",
        ),
    ] {
        let answer = fetch(&state, &format!("{base}{extra}"), None).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{extra}");
        assert!(answer.text().contains(want), "{extra}: {}", answer.text());
    }
}

/// `x=date`: the day a run ran, by its own date (sql-bench's header),
/// else by its post's Date header; in time order either way.
#[tokio::test]
async fn date_along_x_is_the_day_in_time_order() {
    let (_dir, db, state) = test_state();
    ingest(
        &db,
        &[
            SEED_000,
            "fixtures/super-smack/rfc822-headers-and-section-labels.txt",
        ],
    );
    let query = "tool=super-smack&item=select_index&metric=q_per_s&x=date&by=thread_lib";
    let json = get_ok(&state, &format!("/compare.json?{query}"))
        .await
        .json();
    assert_eq!(
        json["x_values"],
        serde_json::json!(["2006-04-05", "2006-04-20"]),
        "{json}"
    );

    let (_dir, db, state) = test_state();
    ingest(&db, SQL_BENCH_KERNELS);
    let query = "tool=sql-bench&item=TOTALS&metric=wallclock_s&x=date&by=db_server&where=os:Linux";
    let json = get_ok(&state, &format!("/compare.json?{query}"))
        .await
        .json();
    // Every run here has its own date (sql-bench 2.0's header says
    // 1998-08-21 13:27:33), drawn by its day; seed 000's above have
    // none, and take their mail's.
    let days: Vec<&str> = json["x_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(days.first(), Some(&"1998-08-21"), "{json}");
    let mut sorted = days.clone();
    sorted.sort_unstable();
    assert_eq!(days, sorted, "year-first days sort as text too");
    assert!(days.iter().all(|d| d.len() == 10), "{days:?}");
}
