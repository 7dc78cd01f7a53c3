//! Names in Chinese, Japanese and Korean drawn in /compare.png and named
//! in /compare.svg (split out of tests/compare.rs).

use crate::http::get_ok;
use crate::support::test_state;

/// Kernels labelled in Chinese, Japanese and Korean by their sections.
const CJK_LABELS: [&str; 3] = [
    "6.1 内核 (调度器 ULE)",
    "6.2 カーネル (スケジューラ)",
    "6.3 커널 (스케줄러)",
];

/// A post of one super-smack run under each of `labels`' headings.
fn post_with_sections(labels: &[String]) -> String {
    let mut text = String::from("Results of three kernels, as run on the lab machine.\n\n");
    for (i, label) in labels.iter().enumerate() {
        text.push_str(&format!(
            "== {label} ==\n\nsuper-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 {}.25\n\n",
            1500 + 150 * i
        ));
    }
    text
}

/// The PNG and SVG of the comparison by label of the runs of `post`.
async fn charts_of(post: &str) -> (Vec<u8>, String) {
    let (_dir, db, state) = test_state();
    let mut conn = benchlog::store::open(&db).unwrap();
    benchlog::ingest::ingest_text(&mut conn, Some("kernels.txt"), post).unwrap();
    let query = "tool=super-smack&item=select_index&metric=q_per_s&by=label";
    let png = get_ok(&state, &format!("/compare.png?{query}")).await;
    assert_eq!(png.content_type, "image/png");
    let svg = get_ok(&state, &format!("/compare.svg?{query}")).await;
    (png.body, svg.text())
}

#[tokio::test]
async fn cjk_labels_are_drawn_in_the_png_and_the_svg() {
    let labels = CJK_LABELS.map(str::to_owned);
    let (png, svg) = charts_of(&post_with_sections(&labels)).await;
    // The same labels with each CJK character one that no font has (a
    // private-use one): the PNG of .notdef boxes, which CJK gave before.
    let boxed = labels.clone().map(|label| {
        label
            .chars()
            .map(|c| if c.is_ascii() { c } else { '\u{E000}' })
            .collect::<String>()
    });
    let (boxes, boxes_svg) = charts_of(&post_with_sections(&boxed)).await;
    assert!(boxes_svg.contains(&boxed[0]), "{boxes_svg}");
    assert!(png != boxes, "the CJK labels are drawn as boxes");
    // The SVG names the labels in a family list that draws CJK.
    for label in CJK_LABELS {
        let line = svg
            .lines()
            .position(|line| line == label)
            .and_then(|i| svg.lines().nth(i.checked_sub(1)?))
            .unwrap_or_else(|| panic!("no label {label:?}: {svg}"));
        assert!(
            line.contains(r#"font-family="DejaVu Sans, WenQuanYi Micro Hei, sans-serif""#),
            "{line}"
        );
    }
}
