//! One uploader's data cannot make a page expensive for everyone: edits
//! are bounded in the attributes they add, and a huge submission is shown
//! a part at a time (its text read in pieces, its rows per part).

use benchlog::store;

use crate::http::{edit_form, get, paste, send};
use crate::support::{seed_000, test_state};

/// Attribute fields `attr.k0=v0 ... attr.kN=vN` for an edit form.
fn attr_fields(from: usize, count: usize) -> Vec<(String, String)> {
    (from..from + count)
        .map(|i| (format!("attr.extra_{i}"), format!("v{i}")))
        .collect()
}

async fn edit_run_1(
    state: &benchlog::web::state::AppState,
    fields: &[(String, String)],
) -> (u16, String) {
    let mut pairs: Vec<(&str, &str)> = vec![("run", "1")];
    pairs.extend(fields.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let response = send(state, edit_form("/submissions/1/edit", &pairs)).await;
    let status = response.status().as_u16();
    let (_, body) = crate::http::read(response).await;
    (status, body)
}

fn attrs_of_run_1(db: &std::path::Path) -> i64 {
    let conn = store::open(db).unwrap();
    conn.query_row(
        "SELECT count(*) FROM run_attrs a JOIN runs r ON r.id = a.run_id
         WHERE r.submission_id = 1 AND r.idx = 0",
        [],
        |row| row.get(0),
    )
    .unwrap()
}

#[tokio::test]
async fn an_edit_cannot_give_a_run_unbounded_attributes() {
    let (_dir, db, state) = test_state();
    paste(&state, &seed_000()).await;
    let before = attrs_of_run_1(&db);

    // One form with more fields than one edit may set.
    let (status, body) = edit_run_1(&state, &attr_fields(0, 20_000)).await;
    assert!(status == 400 || status == 413, "{status} {body}");
    assert_eq!(
        attrs_of_run_1(&db),
        before,
        "a refused edit changes nothing"
    );

    // Within one edit's limit, but past the run's in two steps.
    let (status, body) = edit_run_1(&state, &attr_fields(0, 50)).await;
    assert_eq!(status, 303, "{body}");
    assert_eq!(attrs_of_run_1(&db), before + 50);
    let (status, body) = edit_run_1(&state, &attr_fields(50, 50)).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("at most 64 attributes"), "{body}");
    assert_eq!(attrs_of_run_1(&db), before + 50, "nothing of it was kept");

    // 64 fields are the most one edit may set, whatever the run has.
    let (status, body) = edit_run_1(&state, &attr_fields(100, 66)).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("at most 64"), "{body}");
}

#[tokio::test]
async fn an_edit_form_larger_than_its_limit_is_refused_before_it_is_read() {
    let (_dir, db, state) = test_state();
    paste(&state, &seed_000()).await;
    let before = attrs_of_run_1(&db);
    let long = "x".repeat(benchlog::limits::MAX_FORM_BYTES);
    let (status, body) = edit_run_1(&state, &[("label".to_owned(), long)]).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(attrs_of_run_1(&db), before);
}

/// A text of `lines` lines with a super-smack run every `every` lines.
fn long_text(lines: usize, every: usize) -> String {
    let report = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\n";
    let mut text = String::new();
    let mut line = 0;
    let mut run = 0;
    while line < lines {
        if line % every == 0 && line + 6 <= lines {
            text.push_str(report);
            text.push_str(&format!("select_index 200000 0 0 {}.25\n\n", 1000 + run));
            run += 1;
            line += 6;
        } else {
            text.push_str(&format!("prose line {} of the long mail\n", line + 1));
            line += 1;
        }
    }
    text
}

#[tokio::test]
async fn a_long_submission_is_shown_a_part_at_a_time() {
    let (_dir, _db, state) = test_state();
    // 5,000 lines: parts of 2,000 lines, so three parts.
    let text = long_text(5_000, 100);
    let runs = parsers::parse(&text).runs.len();
    assert_eq!(runs, 50);
    let location = paste(&state, &text).await;
    assert_eq!(location, "/submissions/1");

    let (status, page) = get(&state, "/submissions/1").await;
    assert_eq!(status, 200);
    assert!(page.contains("Runs found (50)"), "every run is counted");
    assert!(page.contains(r#"id="L2000""#) && !page.contains(r#"id="L2001""#));
    assert!(page.contains("part 1 of 3"), "the parts are named");
    assert!(page.contains(r#"href="/submissions/1?part=2""#));
    // Only the runs touching lines 1-2000 are listed: the 20 starting there.
    assert_eq!(page.matches(r#"<tr id="run-"#).count(), 20);

    let (status, page) = get(&state, "/submissions/1?part=3").await;
    assert_eq!(status, 200);
    assert!(page.contains(r#"id="L4001""#) && page.contains(r#"id="L5000""#));
    assert!(!page.contains(r#"id="L4000""#));
    // Run 41 starts at line 4001; its value is on line 4005 of this part.
    assert!(page.contains(r#"<tr id="run-41""#), "{page}");
    assert!(page.contains(r##"<a class="num" href="#L4005">1040.25</a>"##));
    assert!(page.contains(r#"href="/submissions/1?part=2""#));

    let (status, page) = get(&state, "/submissions/1?part=4").await;
    assert_eq!(status, 404);
    assert!(page.contains("has 3 parts"), "{page}");
    let (status, _) = get(&state, "/submissions/1?part=0").await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn an_overlong_line_is_shown_cut() {
    let (_dir, _db, state) = test_state();
    let text = format!("a short line\n{}\nthe end\n", "y".repeat(100_000));
    paste(&state, &text).await;
    let (status, page) = get(&state, "/submissions/1").await;
    assert_eq!(status, 200);
    assert!(page.contains("98000 more characters"), "the cut is said");
    assert!(
        page.len() < 40_000,
        "the page holds 2,000 of its characters"
    );
    assert!(page.contains("the end"));
}

#[test]
fn the_text_window_reads_lines_as_str_lines_splits_them() {
    let (_dir, _path, conn) = crate::support::fresh_db();
    let texts = [
        "one\ntwo\r\nthree",
        "one\ntwo\n",
        "\n\nx\n",
        "only",
        &"line\n".repeat(100_000),
    ];
    for (case, text) in texts.iter().enumerate() {
        let mut conn = store::open(_path.as_path()).unwrap();
        let id = benchlog::ingest::ingest_text(&mut conn, None, text)
            .unwrap()
            .submission_id;
        let all: Vec<&str> = text.lines().collect();
        for (first, last) in [(1, 2), (2, 3), (1, 1_000_000), (3, 3), (99_999, 100_001)] {
            let window = store::text_window(&conn, id, first, last).unwrap();
            assert_eq!(window.total_lines, all.len(), "case {case}");
            let expected: Vec<String> = all
                .iter()
                .skip(first - 1)
                .take(last + 1 - first)
                .map(|line| line.to_string())
                .collect();
            assert_eq!(window.lines, expected, "case {case}, lines {first}-{last}");
        }
    }
    drop(conn);
}

/// Run numbers listed on a page, in order.
fn listed_runs(page: &str) -> Vec<usize> {
    page.match_indices(r#"<tr id="run-"#)
        .map(|(at, tag)| {
            let rest = &page[at + tag.len()..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

#[tokio::test]
async fn a_part_with_many_heavy_runs_lists_them_a_bounded_page_at_a_time() {
    let (_dir, db, state) = test_state();
    let text = crate::support::smack_log(1, 500);
    paste(&state, &text).await;
    // 63 attributes of 200 characters on every run, within the limits: 500
    // such runs made a 28 MB page.
    store::open(&db)
        .unwrap()
        .execute_batch(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 63)
             INSERT OR REPLACE INTO run_attrs (run_id, key, value)
             SELECT r.id, 'attribute_' || n.i, printf('%0200d', n.i) FROM runs r, n",
        )
        .unwrap();
    let mut seen = Vec::new();
    let mut next = Some("/submissions/1".to_owned());
    while let Some(uri) = next.take() {
        let (status, page) = get(&state, &uri).await;
        assert_eq!(status, 200, "{uri}");
        assert!(page.len() < 5 * 1024 * 1024, "{uri}: {} bytes", page.len());
        let listed = listed_runs(&page);
        assert!(!listed.is_empty(), "{uri} lists no run");
        seen.extend(listed);
        next = page
            .split(r#"<a rel="next" href=""#)
            .nth(1)
            .map(|rest| rest[..rest.find('"').unwrap()].replace("&amp;", "&"))
            .filter(|href| href.contains("runs="));
        assert!(seen.len() <= 500, "the pages go round");
    }
    // Every run touching the first part, once, in order, over a few pages.
    let (_, first) = get(&state, "/submissions/1").await;
    let part_runs = first.split("Those touching lines 1–2000 (").nth(1).unwrap();
    let part_runs: usize = part_runs[..part_runs.find(')').unwrap()].parse().unwrap();
    assert!(
        listed_runs(&first).len() < part_runs,
        "the first page lists a few"
    );
    assert_eq!(seen, (1..=part_runs).collect::<Vec<_>>());
}
