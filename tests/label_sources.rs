//! Where each run's label came from (the parsers' `label_from`): stored
//! with the run, and shown on the review page next to the label, with the
//! lines it came from marked in the text and tagged with their runs.

use benchlog::store;
use benchlog::web::state::AppState;
use benchlog::web::WebOptions;

use crate::http::{edit_form, fixture, get, paste, see_other, send};
use crate::load::{client, fetch, start_server, upload};
use crate::support::{test_state, ADMIN_TOKEN};

/// A Chinese Jekyll post: `## CPU Benchmark` (line 26) over the caption
/// 测试结果 (line 32) of run 1; `## Memory Benchmark` (line 60) over runs 2
/// and 3, captioned at lines 66 and 111; `## IO Benchmark` (line 153)
/// alone over run 4.
const HEADINGS_AND_CAPTIONS: &str =
    "fixtures/corpus/mail3/sysbench-jekyll-zh-0412-tab-indented-collapsed-restated-lines.txt";

/// A Jekyll post whose hosts are setext headings (`My Laptop:` over a
/// line of dashes, lines 20–21) and whose tests are list items inside the
/// runs' own spans (`2. CPU benchmark:`, line 39, in run 1's 36–68).
const HEADINGS_AND_LIST_ITEMS: &str =
    "fixtures/corpus/mail3/sysbench-blog-0412-and-05-three-hosts-list-indented-prepare-noise.txt";

/// The row of run `n` in the runs table.
fn run_row(page: &str, n: usize) -> &str {
    let start = page
        .find(&format!(r#"<tr id="run-{n}""#))
        .unwrap_or_else(|| panic!("no row of run {n}"));
    &page[start..start + page[start..].find("</tr>").unwrap()]
}

/// The `<div>` of line `n` in the text, from its opening tag.
fn line(page: &str, n: usize) -> &str {
    let at = page
        .find(&format!(r#"" id="L{n}">"#))
        .unwrap_or_else(|| panic!("no line {n}"));
    let start = page[..at].rfind("<div").unwrap();
    &page[start..at + page[at..].find("</div>").unwrap()]
}

/// The tags of the runs whose labels line `n` gave, as the page links them.
fn label_tags(page: &str, n: usize) -> Vec<String> {
    let line = line(page, n);
    line.match_indices(r#"<a class="tag label-of" href=""#)
        .map(|(at, found)| {
            let rest = &line[at + found.len()..];
            let href = &rest[..rest.find('"').unwrap()];
            let text = &rest[rest.find('>').unwrap() + 1..rest.find("</a>").unwrap()];
            format!("{href} {text}")
        })
        .collect()
}

/// Uploads two real posts to the real server over HTTP and reads their
/// review pages: each run's row says which heading, caption or list item
/// its label came from, linking those lines, and each such line is
/// marked and tagged with the runs it named.
#[tokio::test]
async fn over_http_the_review_page_says_where_each_label_came_from() {
    let server = start_server(&[]);
    let http = client();
    let mut pages = Vec::new();
    for path in [HEADINGS_AND_CAPTIONS, HEADINGS_AND_LIST_ITEMS] {
        let (status, location, body) = fetch(&http, upload(server.addr, &fixture(path)))
            .await
            .unwrap();
        assert_eq!(status, 303, "{path}: {body}");
        let location = location.expect("an upload redirects to its page");
        let (status, _, page) = fetch(&http, crate::load::get(server.addr, &location))
            .await
            .unwrap();
        assert_eq!(status, 200, "{location}: {page}");
        pages.push(page);
    }

    // Headings and captions.
    let page = &pages[0];
    for (run, label, from) in [
        (
            1,
            "CPU Benchmark / 测试结果",
            r##"from <a href="#L26">heading, line 26</a> · <a href="#L32">caption, line 32</a>"##,
        ),
        (
            2,
            "Memory Benchmark / 测试结果",
            r##"from <a href="#L60">heading, line 60</a> · <a href="#L66">caption, line 66</a>"##,
        ),
        (
            3,
            "Memory Benchmark / 测试结果",
            r##"from <a href="#L60">heading, line 60</a> · <a href="#L111">caption, line 111</a>"##,
        ),
        (
            4,
            "IO Benchmark",
            r##"from <a href="#L153">heading, line 153</a></div>"##,
        ),
    ] {
        let row = run_row(page, run);
        assert!(row.contains(label), "run {run}: {row}");
        assert!(row.contains(from), "run {run} should say {from:?}: {row}");
    }
    // The lines are marked, and each tagged with the runs it named.
    for (n, tags) in [
        (26, vec!["#run-1 label of run 1"]),
        (32, vec!["#run-1 label of run 1"]),
        (60, vec!["#run-2 label of run 2", "#run-3 label of run 3"]),
        (66, vec!["#run-2 label of run 2"]),
        (111, vec!["#run-3 label of run 3"]),
        (153, vec!["#run-4 label of run 4"]),
    ] {
        assert!(
            line(page, n).starts_with(r#"<div class="line label-source" id="#),
            "line {n}: {}",
            line(page, n)
        );
        assert_eq!(label_tags(page, n), tags, "line {n}");
    }
    // Lines no label came from are not marked: the heading's blank line,
    // and the lines of run 1's report.
    for n in [27, 34, 40] {
        assert!(
            !line(page, n).contains("label"),
            "line {n}: {}",
            line(page, n)
        );
    }
    assert!(page.contains(r#"<span class="swatch label-source"></span>"#));

    // A setext heading of two lines, and list items inside the runs.
    let page = &pages[1];
    assert!(
        run_row(page, 1).contains(
            r##"from <a href="#L20">heading, lines 20–21</a> · <a href="#L39">list item, line 39</a>"##
        ),
        "{}",
        run_row(page, 1)
    );
    assert!(
        run_row(page, 4).contains(
            r##"from <a href="#L126">heading, lines 126–127</a> · <a href="#L176">list item, line 176</a>"##
        ),
        "{}",
        run_row(page, 4)
    );
    // Both lines of the heading are marked; the tags are on its first.
    assert_eq!(
        label_tags(page, 20),
        ["#run-1 label of run 1", "#run-2 label of run 2"]
    );
    assert!(line(page, 21).starts_with(r#"<div class="line label-source" id="#));
    assert_eq!(label_tags(page, 21), Vec::<String>::new());
    assert_eq!(
        label_tags(page, 126),
        ["#run-3 label of run 3", "#run-4 label of run 4"]
    );
    // A list item inside its run's lines keeps the run's highlighting and
    // its "run 1" tag, and is marked as the label's source too.
    let item = line(page, 39);
    assert!(
        item.starts_with(r#"<div class="line run label-source" id="#),
        "{item}"
    );
    assert!(
        item.contains(r##"<a class="tag" href="#run-1">run 1</a>"##),
        "{item}"
    );
    assert_eq!(label_tags(page, 39), ["#run-1 label of run 1"]);
}

/// A corrected label still shows where the parser's came from, said to
/// be the parser's.
#[tokio::test]
async fn an_edited_label_still_says_where_the_parsers_came_from() {
    let (_dir, _db, state) = test_state();
    paste(&state, &fixture(HEADINGS_AND_CAPTIONS)).await;
    let response = send(
        &state,
        edit_form(
            "/submissions/1/edit",
            &[("run", "1"), ("label", "cpu, 20000 primes")],
        ),
    )
    .await;
    assert_eq!(see_other(&response), "/submissions/1?saved=1#run-1");
    let (status, page) = get(&state, "/submissions/1").await;
    assert_eq!(status, 200);
    let row = run_row(&page, 1);
    assert!(
        row.contains(
            r#"<mark title="edited; the parser found: CPU Benchmark / 测试结果">cpu, 20000 primes</mark>"#
        ),
        "{row}"
    );
    assert!(
        row.contains(r##"the parser’s label came from <a href="#L26">heading, line 26</a> · <a href="#L32">caption, line 32</a>"##),
        "{row}"
    );
    // The lines stay marked: they are where the parser's label came from.
    assert_eq!(label_tags(&page, 26), ["#run-1 label of run 1"]);
    // An unedited run says it plainly.
    assert!(run_row(&page, 4).contains(r##"from <a href="#L153">"##));
    assert!(!run_row(&page, 4).contains("parser’s"));
}

/// A database stored before label sources were kept (schema 17) is
/// migrated, and its runs, which have no source, are shown as before:
/// their labels, and no word or mark of where they came from.
#[tokio::test]
async fn a_run_stored_without_label_sources_still_renders() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    {
        let mut conn = store::open(&db).unwrap();
        benchlog::ingest::ingest_text(&mut conn, None, &fixture(HEADINGS_AND_CAPTIONS)).unwrap();
        let kept: i64 = conn
            .query_row("SELECT count(*) FROM run_label_sources", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(kept, 7, "heading and caption of runs 1-3, heading of 4");
        // Back to the schema before 0018, holding those runs.
        conn.execute_batch(
            "DROP TABLE run_label_sources;
             PRAGMA user_version = 17;",
        )
        .unwrap();
    }
    benchlog::charts::register_fonts();
    let state = AppState::open_with(
        &db,
        WebOptions {
            admin_token: Some(ADMIN_TOKEN.to_owned()),
            ..WebOptions::default()
        },
    )
    .unwrap();
    let (status, page) = get(&state, "/submissions/1").await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Runs found (4)"));
    let row = run_row(&page, 1);
    assert!(row.contains("CPU Benchmark / 测试结果"), "{row}");
    assert!(!row.contains("label-from"), "{row}");
    assert!(!page.contains("label of run"));
    assert!(!page.contains(r#"class="line label-source""#));
    assert!(line(&page, 26).starts_with(r#"<div class="line " id="L26">"#));
}

/// A run keeps at most `MAX_LABEL_SOURCES` blocks, those nearest to it,
/// in their order.
#[test]
fn a_run_keeps_at_most_eight_label_sources_the_nearest() {
    assert_eq!(benchlog::limits::MAX_LABEL_SOURCES, 8);
    let (_dir, _db, mut conn) = crate::support::fresh_db();
    let mut document = parsers::parse(&fixture(HEADINGS_AND_CAPTIONS));
    let run = &mut document.runs[0];
    run.label_from = (1..=10)
        .map(|line| parsers::LabelSource {
            kind: parsers::LabelKind::Heading,
            lines: [line, line],
        })
        .collect();
    benchlog::ingest::ingest_document(&mut conn, None, "a text", &document).unwrap();
    let runs = store::runs_of_submission(&conn, 1).unwrap();
    let lines: Vec<usize> = runs[0]
        .label_from
        .iter()
        .map(|source| source.lines[0])
        .collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 8, 9, 10]);
    assert!(runs[0]
        .label_from
        .iter()
        .all(|source| source.kind == "heading"));
    assert_eq!(
        runs[1].label_from,
        [
            store::StoredLabelSource {
                kind: "heading".to_owned(),
                lines: [60, 60]
            },
            store::StoredLabelSource {
                kind: "caption".to_owned(),
                lines: [66, 66]
            },
        ]
    );
}

/// A lead-in over a table of 14 bonnie++ runs (an LKML post of 2003,
/// stored as its decoded text, line 23 of it, below the headers the
/// upload reads): its line is tagged with the first [`LABEL_TAGS_PER_BLOCK`] runs and
/// counts the rest, however many runs it named.
///
/// [`LABEL_TAGS_PER_BLOCK`]: benchlog::limits::LABEL_TAGS_PER_BLOCK
#[tokio::test]
async fn a_block_naming_many_runs_tags_the_first_eight_and_counts_the_rest() {
    assert_eq!(benchlog::limits::LABEL_TAGS_PER_BLOCK, 8);
    let (_dir, _db, state) = test_state();
    paste(
        &state,
        &fixture("fixtures/bonnie/real-lkml-2003-x5-runs-shifted-header-tab-cut.txt"),
    )
    .await;
    let (status, page) = get(&state, "/submissions/1").await;
    assert_eq!(status, 200);
    let tags: Vec<String> = (1..=8)
        .map(|n| format!("#run-{n} label of run {n}"))
        .collect();
    assert!(line(&page, 23).contains("on the box with 128M of ram:"));
    assert_eq!(label_tags(&page, 23), tags);
    assert!(
        line(&page, 23).ends_with(r#"<span class="tag muted">and 6 more runs</span>"#),
        "{}",
        line(&page, 23)
    );
    // Every run's row still says where its label came from.
    for run in [1, 14] {
        assert!(
            run_row(&page, run).contains(r##"from <a href="#L23">lead-in, line 23</a>"##),
            "{}",
            run_row(&page, run)
        );
    }
}

/// A long text is shown 2,000 lines a part: a heading on part 1 that
/// named a run on part 2 links to that run's part, and the run's row
/// links the heading's line on part 1. The text is a real post after
/// 1,970 blank lines, which move its lines and nothing else.
#[tokio::test]
async fn a_label_from_another_part_links_across_parts() {
    let (_dir, _db, state) = test_state();
    let text = format!("{}{}", "\n".repeat(1_970), fixture(HEADINGS_AND_CAPTIONS));
    paste(&state, &text).await;

    let (status, first) = get(&state, "/submissions/1").await;
    assert_eq!(status, 200);
    // `## CPU Benchmark`, line 26 of the post.
    assert!(line(&first, 1996).starts_with(r#"<div class="line label-source" id="#));
    assert_eq!(
        label_tags(&first, 1996),
        ["/submissions/1?part=2#run-1 label of run 1"]
    );

    let (status, second) = get(&state, "/submissions/1?part=2").await;
    assert_eq!(status, 200);
    let row = run_row(&second, 1);
    assert!(
        row.contains(
            r##"from <a href="/submissions/1#L1996">heading, line 1996</a> · <a href="#L2002">caption, line 2002</a>"##
        ),
        "{row}"
    );
    assert_eq!(label_tags(&second, 2002), ["#run-1 label of run 1"]);
}
