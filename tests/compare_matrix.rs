//! The comparison's bars as a table: an item a row and a series a column,
//! as sql-bench's compare-results prints them, on the page and in the
//! mail text (split out of tests/compare.rs).

use crate::compare::{ingest, SEED_004, SEED_004_QUERY};
use crate::http::get_ok;
use crate::support::{test_state, SQL_BENCH_KERNELS};

/// The row of the page's item × series matrix for `item`: its cells'
/// HTML, in the series' order.
fn matrix_row<'a>(page: &'a str, item: &str) -> Vec<&'a str> {
    let table = &page[page
        .find(r#"<table class="list numbers matrix">"#)
        .unwrap_or_else(|| panic!("no matrix: {page}"))..];
    let table = &table[..table.find("</table>").unwrap()];
    let start = format!("<tr><th>{item}</th>");
    let row = &table[table
        .find(&start)
        .unwrap_or_else(|| panic!("no row {item}: {table}"))
        + start.len()..];
    let row = &row[..row.find("</tr>").unwrap()];
    row.split("<td").skip(1).collect()
}

/// The line of the text's matrix for `item`.
fn text_row<'a>(text: &'a str, item: &str) -> &'a str {
    text.lines()
        .find(|line| line.starts_with(&format!("{item} ")) && line.ends_with('|'))
        .unwrap_or_else(|| panic!("no row {item}: {text}"))
}

/// Seed 004's two kernels on bars: an item a row, a kernel a column, as
/// sql-bench's compare-results prints them, each cell with the mean, n
/// and the difference to the baseline: 2.4.0's alter-table 143 s against
/// 2.2.16's 176 s is (143 - 176) / 176 = -18.75 %, its TOTALS 2124
/// against 2326 is -8.68 %; one run each is too few for a verdict.
#[tokio::test]
async fn bars_tabulate_an_item_a_row_and_a_series_a_column() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_004]);
    let query = format!("{SEED_004_QUERY}&x=none&baseline=2.2.16-22smp");
    let page = get_ok(&state, &format!("/compare?{query}")).await.text();
    let head = &page[page.find(r#"<table class="list numbers matrix">"#).unwrap()..];
    let head = &head[head.find("<thead>").unwrap()..head.find("</thead>").unwrap()];
    assert!(
        head.contains(
            r#"<span class="swatch s1"></span>2.2.16-22smp <span class="tag">baseline</span></th>"#
        ) && head.contains(r#"<span class="swatch s0"></span>2.4.0</th>"#),
        "{head}"
    );
    // The kernels in the order the post gives them: 2.4.0 first.
    let alter = matrix_row(&page, "test-alter-table");
    assert_eq!(alter.len(), 2, "{alter:?}");
    assert_eq!(
        alter[1],
        r#" class="num">176 <span class="n">n=1</span></td>"#
    );
    assert!(
        alter[0].starts_with(r#" class="num difference too_few_runs""#)
            && alter[0].contains(r#">143 <span class="n">n=1</span><span class="percent">-18.8%</span><span class="why">too few runs</span></td>"#),
        "{}",
        alter[0]
    );
    let totals = matrix_row(&page, "TOTALS");
    assert!(
        totals[0].contains(r#">2124 <span class="n">n=1</span><span class="percent">-8.7%</span>"#),
        "{totals:?}"
    );
    // The items in the order the tool prints them.
    let items: Vec<&str> = page
        .split("<tr><th>")
        .skip(1)
        .map(|row| &row[..row.find("</th>").unwrap()])
        .filter(|item| item.starts_with("test-") || *item == "TOTALS")
        .collect();
    assert_eq!(
        items[..8],
        [
            "test-ATIS",
            "test-alter-table",
            "test-big-tables",
            "test-connect",
            "test-insert",
            "test-select",
            "test-wisconsin",
            "TOTALS"
        ]
    );
    // The long form stays, folded, with the runs' links.
    assert!(page.contains(r#"<details class="long-form">"#), "{page}");

    let text = get_ok(&state, &format!("/compare.txt?{query}"))
        .await
        .text();
    assert!(
        text.contains(
            "\n 1 2.2.16-22smp (baseline)\n 2 2.4.0\n\n\
             ================================================\n\
             item             |          1 |              2 |\n                 | 2.2.16-22… |          2.4.0 |\n"
        ),
        "{text}"
    );
    assert_eq!(
        text_row(&text, "test-alter-table"),
        "test-alter-table |        176 |  143 (-18.8%)? |"
    );
    assert!(
        text.replace('\n', " ")
            .contains("no difference proven. Each mean is of 1 run."),
        "{text}"
    );
    assert_eq!(
        text_row(&text, "TOTALS"),
        "TOTALS           |       2326 | 2124 ( -8.7%)? |"
    );
    // Line charts keep a row per point.
    let lines = get_ok(&state, "/compare?tool=super-smack&metric=q_per_s&x=threads")
        .await
        .text();
    assert!(!lines.contains("matrix"), "{lines}");
}

/// A series without a point for an item gets an empty cell: of seed 004
/// and the 3.21 run on Linux 2.2.1, only the latter has alter_table_add
/// (476 s), the kernels of seed 004 none.
#[tokio::test]
async fn an_absent_point_is_an_empty_cell() {
    let (_dir, db, state) = test_state();
    ingest(
        &db,
        &[
            SEED_004,
            "fixtures/sql-bench/real-results-run-mysql-3.21-cpu-secs-integer-seconds.txt",
        ],
    );
    let query = format!("{SEED_004_QUERY}&x=none&baseline=2.2.16-22smp");
    let page = get_ok(&state, &format!("/compare?{query}")).await.text();
    // Series in the order stored: seed 004's 2.4.0 and 2.2.16-22smp,
    // then 2.2.1.
    assert_eq!(
        matrix_row(&page, "alter_table_add"),
        [
            r#" class="empty"></td>"#,
            r#" class="empty"></td>"#,
            r#" class="num">476 <span class="n">n=1</span></td>"#
        ]
    );
    let text = get_ok(&state, &format!("/compare.txt?{query}"))
        .await
        .text();
    // The baseline first, then the others as stored: 2.4.0, 2.2.1.
    assert!(
        text.contains("\n 1 2.2.16-22smp (baseline)\n 2 2.4.0\n 3 2.2.1\n"),
        "{text}"
    );
    assert_eq!(
        text_row(&text, "alter_table_add"),
        "alter_table_add     |            |                |  476           |"
    );
    assert_eq!(
        text_row(&text, "test-alter-table"),
        "test-alter-table    |        176 |  143 (-18.8%)? |  815 ( +363%)? |"
    );
}

/// Seed 004's two kernels in one series (by test) mix configurations:
/// the cell says so, the mean (176 + 143) / 2 = 159.5 of 2 runs.
#[tokio::test]
async fn a_mixed_points_cell_says_so() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_004]);
    let query = "tool=sql-bench&metric=wallclock_s&by=test&x=none";
    let page = get_ok(&state, &format!("/compare?{query}")).await.text();
    assert_eq!(
        matrix_row(&page, "test-alter-table"),
        [
            r#" class="num">159.5 <span class="n">n=2</span><span class="why mixed">2 runs of 2 configurations (os_version differs)</span></td>"#
        ]
    );
    let text = get_ok(&state, &format!("/compare.txt?{query}"))
        .await
        .text();
    assert_eq!(
        text_row(&text, "test-alter-table"),
        "test-alter-table |     159.5~ |"
    );
    assert!(
        text.replace('\n', " ")
            .contains("(lower is better). ~: runs of several configurations, not repeats. Each mean is of 2 runs.")
            && text.contains(
                "\n  run-all-tests: 2 runs of 2 configurations (os_version differs) at each\n  item\n"
            ),
        "{text}"
    );
}

/// Against a baseline a mixed point's cell gives the difference but no
/// verdict: MySQL 3.23.32 is seed 004's two kernels, (176 + 143) / 2 =
/// 159.5 s on alter-table against 3.21.34's 815 s, (159.5 - 815) / 815
/// = -80.4 %.
#[tokio::test]
async fn a_mixed_points_cell_has_no_verdict() {
    let (_dir, db, state) = test_state();
    ingest(
        &db,
        &[
            SEED_004,
            "fixtures/sql-bench/real-results-run-mysql-3.21-cpu-secs-integer-seconds.txt",
        ],
    );
    let query = "tool=sql-bench&metric=wallclock_s&by=db_version&x=none&baseline=3.21.34";
    let page = get_ok(&state, &format!("/compare?{query}")).await.text();
    // Seed 004's 3.23.32 first, as stored.
    let alter = matrix_row(&page, "test-alter-table");
    assert_eq!(
        alter[1],
        r#" class="num">815 <span class="n">n=1</span></td>"#
    );
    assert!(
        alter[0].starts_with(r#" class="num difference mixed""#)
            && alter[0].ends_with(r#">159.5 <span class="n">n=2</span><span class="percent">-80.4%</span><span class="why">mixed configurations</span><span class="why mixed">2 runs of 2 configurations (os_version differs)</span></td>"#),
        "{}",
        alter[0]
    );
    let text = get_ok(&state, &format!("/compare.txt?{query}"))
        .await
        .text();
    assert_eq!(
        text_row(&text, "test-alter-table"),
        "test-alter-table    |     815 |  159.5 (-80.4%)~ |"
    );
}

/// Eleven kernels do not fit a mail side by side: the text matrix comes
/// in blocks within 72 columns, each beginning with the baseline.
#[tokio::test]
async fn a_wide_matrix_comes_in_blocks_within_a_mail() {
    let (_dir, db, state) = test_state();
    ingest(&db, SQL_BENCH_KERNELS);
    let query = format!("{SEED_004_QUERY}&x=none&baseline=2.2.16-22smp");
    let json = get_ok(&state, &format!("/compare.json?{query}"))
        .await
        .json();
    let series = json["series"].as_array().unwrap().len();
    assert!(series > 4, "{json}");
    let text = get_ok(&state, &format!("/compare.txt?{query}"))
        .await
        .text();
    // All but the link, whole on the last line.
    let (table, _link) = text.trim_end().rsplit_once('\n').unwrap();
    for line in table.lines() {
        assert!(
            line.chars().count() <= 72,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    let heads: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("item "))
        .collect();
    assert!(heads.len() > 1, "{text}");
    for head in &heads {
        assert_eq!(head.split('|').nth(1).map(str::trim), Some("1"), "{head}");
    }
    // Every series is in some block, once.
    let numbers: Vec<usize> = heads
        .iter()
        .flat_map(|head| head.split('|').skip(2))
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    assert_eq!(numbers, (2..=series).collect::<Vec<_>>(), "{text}");
    assert!(
        text.contains(&format!(
            "The {series} series do not fit 72 columns side by side"
        )),
        "{text}"
    );
}
