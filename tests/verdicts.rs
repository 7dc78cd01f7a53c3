//! Verdicts on differences to a baseline: benchlog's intervals against
//! FreeBSD's `ministat` on every pair of repeated runs the example logs
//! hold, and the interval and verdict in every form of a comparison.
//!
//! The oracle needs Debian's `ministat` (`apt-get install ministat`);
//! without it the oracle test is skipped, unless `CI` is set.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use axum::http::StatusCode;
use benchlog::compare::{self, CompareQuery, Comparison, Confidence, Method};
use rusqlite::Connection;
use serde_json::Value;

use crate::http::{get, get_typed};
use crate::support::{test_state, SEED_000};

/// The mail of seed 002: three configurations, three runs each, at 64
/// threads.
const SEED_002: &str = "fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt";
const SEED_002_QUERY: &str = "tool=sysbench&metric=qps&by=label&baseline=Original";
const SEED_000_QUERY: &str =
    "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib";

fn ingest(db: &Path, fixtures: &[&str]) {
    let mut conn = benchlog::store::open(db).unwrap();
    for fixture in fixtures {
        crate::support::ingest_fixture(&mut conn, fixture);
    }
}

/// Every example log stored as `benchlog demo` stores them (the ones
/// built into the binary).
pub(crate) fn ingest_all_fixtures(conn: &mut Connection) {
    benchlog::demo::load_examples(conn, None).unwrap();
}

/// What ministat printed for two sets: `None` for "No difference proven".
#[derive(Debug, Clone, Copy)]
struct MinistatDifference {
    difference: f64,
    half_width: f64,
    percent: f64,
    percent_half_width: f64,
    pooled_s: f64,
}

/// FreeBSD's ministat, the oracle: found on PATH, or the test fails
/// saying how to install it.
fn ministat_path() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("ministat"))
                .find(|path| path.is_file())
        })
        .expect("ministat is not on PATH: apt-get install ministat")
}

/// Runs `ministat -A -c LEVEL baseline other` and reads its verdict.
fn ministat(
    ministat: &Path,
    dir: &Path,
    baseline: &[f64],
    other: &[f64],
    level: Confidence,
) -> Option<MinistatDifference> {
    let write = |name: &str, values: &[f64]| {
        let path = dir.join(name);
        let text: String = values.iter().map(|v| format!("{v:?}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    };
    let (a, b) = (write("baseline.txt", baseline), write("other.txt", other));
    let output = Command::new(ministat)
        .args(["-A", "-c", level.name()])
        .args([&a, &b])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "ministat failed: {text}");
    let heading = format!("{:.1}% confidence", level.percent());
    if text.contains(&format!("No difference proven at {heading}")) {
        return None;
    }
    let rest = text
        .split(&format!("Difference at {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("ministat said neither: {text}"));
    let mut lines = rest.lines().map(str::trim);
    let plus_minus = |line: &str| -> (f64, f64) {
        let (left, right) = line.split_once(" +/- ").unwrap();
        let number = |s: &str| s.trim_end_matches('%').parse::<f64>().unwrap();
        (number(left), number(right))
    };
    let (difference, half_width) = plus_minus(lines.next().unwrap());
    let (percent, percent_half_width) = plus_minus(lines.next().unwrap());
    let pooled_s = lines
        .next()
        .unwrap()
        .trim_start_matches("(Student's t, pooled s = ")
        .trim_end_matches(')')
        .parse()
        .unwrap();
    Some(MinistatDifference {
        difference,
        half_width,
        percent,
        percent_half_width,
        pooled_s,
    })
}

/// Whether `ours` and `theirs` agree to four significant figures: within
/// half a unit of the fourth significant digit of ministat's number.
fn agree4(ours: f64, theirs: f64) -> bool {
    if theirs == 0.0 {
        return ours.abs() < 1e-9;
    }
    let unit = 10f64.powi(theirs.abs().log10().floor() as i32 - 3);
    (ours - theirs).abs() <= unit / 2.0
}

/// The queries whose series are the example logs' configurations: for
/// every tool and metric stored, one series per post and label (so the
/// repeats of one configuration in one post are one point), and one per
/// value of each attribute the tool's runs have (seed 000's schedulers,
/// say, each run several times).
fn oracle_queries(conn: &Connection) -> Vec<CompareQuery> {
    let rows = |sql: &str| -> Vec<(String, String)> {
        let mut statement = conn.prepare(sql).unwrap();
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let metrics = rows(
        "SELECT DISTINCT runs.tool, results.metric FROM results
         JOIN runs ON runs.id = results.run_id ORDER BY 1, 2",
    );
    let attrs = rows(
        "SELECT DISTINCT runs.tool, run_attrs.key FROM run_attrs
         JOIN runs ON runs.id = run_attrs.run_id ORDER BY 1, 2",
    );
    let mut queries = Vec::new();
    for (tool, metric) in metrics {
        let base = format!("tool={tool}&metric={metric}");
        queries.push(format!("{base}&by=submission&by=label"));
        for (_, key) in attrs.iter().filter(|(t, _)| *t == tool) {
            queries.push(format!("{base}&by={key}"));
        }
    }
    queries
        .iter()
        .map(|q| CompareQuery::from_query_string(q).unwrap())
        .collect()
}

/// The series of a comparison with a point of at least three runs that
/// another series also has at the same x with as many: the baselines
/// that give ministat something to compare.
fn baselines_with_pairs(comparison: &Comparison) -> Vec<String> {
    let repeated = |p: &compare::Point| p.n >= compare::MIN_RUNS;
    comparison
        .series
        .iter()
        .filter(|base| {
            base.points.iter().filter(|p| repeated(p)).any(|bp| {
                comparison.series.iter().any(|other| {
                    other.name != base.name
                        && other
                            .points
                            .iter()
                            .any(|p| repeated(p) && p.threads == bp.threads && p.item == bp.item)
                })
            })
        })
        .map(|s| s.name.clone())
        .collect()
}

#[test]
#[ignore = "needs ministat (apt-get install ministat); .ci/run runs it"]
fn ministat_gives_the_same_intervals_for_every_pair_of_repeated_runs() {
    let ministat_bin = ministat_path();
    let (_dir, _path, mut conn) = crate::support::fresh_db();
    ingest_all_fixtures(&mut conn);
    let scratch = tempfile::tempdir().unwrap();

    // The same two sets of values are met under several groupings (by
    // submission, by machine ...): each is given to ministat once.
    let mut seen: HashSet<(Vec<u64>, Vec<u64>, Confidence)> = HashSet::new();
    let (mut compared, mut checked_numbers, mut no_difference) = (0, 0, 0);
    let mut checked: BTreeSet<String> = BTreeSet::new();
    for query in oracle_queries(&conn) {
        let resolved = query.resolve_required().unwrap();
        let plain = compare::compare(&conn, &query, resolved, compare::Detail::EveryRun).unwrap();
        for baseline in baselines_with_pairs(&plain) {
            for level in [Confidence::P95, Confidence::P99, Confidence::P99_5] {
                let query = CompareQuery {
                    baseline: Some(baseline.clone()),
                    conf: level,
                    ..query.clone()
                };
                let comparison =
                    compare::compare(&conn, &query, resolved, compare::Detail::EveryRun).unwrap();
                let base = comparison.series.iter().find(|s| s.is_baseline).unwrap();
                for other in comparison.series.iter().filter(|s| !s.is_baseline) {
                    for point in &other.points {
                        let Some(base_point) = base
                            .points
                            .iter()
                            .find(|b| b.threads == point.threads && b.item == point.item)
                        else {
                            continue;
                        };
                        // ministat divides by the baseline's mean; benchlog
                        // gives no difference to a mean of zero.
                        // Runs of several configurations are not
                        // repeats: benchlog computes no interval for them.
                        if point.n < compare::MIN_RUNS
                            || base_point.n < compare::MIN_RUNS
                            || base_point.mean == 0.0
                            || !point.mixed.is_empty()
                            || !base_point.mixed.is_empty()
                        {
                            continue;
                        }
                        let (base_values, values) = (base_point.values(), point.values());
                        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        if !seen.insert((bits(&base_values), bits(&values), level)) {
                            continue;
                        }
                        compared += 1;
                        let vs = point.vs_baseline.as_ref().unwrap();
                        let student = vs.student.as_ref().unwrap();
                        let context = format!(
                            "{} at {:?}/{}: {} against {} at {level}: {vs:?}",
                            query.to_query_string(),
                            point.threads,
                            point.item,
                            other.name,
                            base.name
                        );
                        let theirs =
                            ministat(&ministat_bin, scratch.path(), &base_values, &values, level);
                        // ministat's test, |d| > e, on Student's interval.
                        assert_eq!(
                            theirs.is_some(),
                            vs.difference.abs() > student.half_width,
                            "{context}: ministat says {theirs:?}"
                        );
                        // Never bolder than ministat: proven only where it
                        // proves it, unless Welch's withdraws the verdict.
                        assert_eq!(
                            vs.interval.as_ref().map(|i| i.method),
                            Some(Method::Student)
                        );
                        assert_eq!(
                            theirs.is_some() && !vs.withdrawn,
                            vs.verdict.is_proven(),
                            "{context}"
                        );
                        let Some(theirs) = theirs else {
                            no_difference += 1;
                            continue;
                        };
                        // Past 100 degrees of freedom ministat's table
                        // gives the normal quantile; benchlog keeps t.
                        let scale = if student.df > 100.0 {
                            normal_quantile(level) / student.t
                        } else {
                            1.0
                        };
                        for (name, ours, theirs) in [
                            ("difference", vs.difference, theirs.difference),
                            ("half-width", student.half_width * scale, theirs.half_width),
                            ("%", vs.percent, theirs.percent),
                            (
                                "% half-width",
                                student.percent_half_width * scale,
                                theirs.percent_half_width,
                            ),
                            ("pooled s", student.s, theirs.pooled_s),
                        ] {
                            // ministat's 99.5 column (the 99.8% values)
                            // is off in the third decimal at some df
                            // (4.782 at 7 df, t(0.999) = 4.785): there
                            // benchlog's interval may only be as wide or a
                            // hair wider, never bolder.
                            let wider_t = level == Confidence::P99_5
                                && name.contains("half-width")
                                && ours >= theirs.abs() * 0.9995
                                && ours <= theirs.abs() * 1.002;
                            assert!(
                                agree4(ours, theirs) || wider_t,
                                "{context}: {name} {ours} vs ministat's {theirs}"
                            );
                        }
                        checked_numbers += 1;
                        checked.insert(format!(
                            "{} {} {}: {} against {}",
                            comparison.tool, comparison.metric, point.item, other.name, base.name
                        ));
                        println!(
                            "{level} {} {} {} {:?}: {} against {}: {} +/- {} ({}% +/- {}%); ministat {} +/- {} ({}% +/- {}%)",
                            comparison.tool,
                            comparison.metric,
                            point.item,
                            point.threads,
                            other.name,
                            base.name,
                            vs.difference,
                            student.half_width,
                            vs.percent,
                            student.percent_half_width,
                            theirs.difference,
                            theirs.half_width,
                            theirs.percent,
                            theirs.percent_half_width
                        );
                    }
                }
            }
        }
    }
    println!(
        "{compared} pairs of sets of at least {} runs given to ministat at 95% and 99%: {checked_numbers} intervals checked number by number, {no_difference} with no difference proven",
        compare::MIN_RUNS
    );
    assert!(
        checked_numbers > 0 && no_difference > 0,
        "the fixtures hold pairs on both sides of the line"
    );
}

/// Eight noisy baseline runs against three quiet ones: the variances
/// differ, Welch's interval leaves zero out and Student's holds it.
/// ministat says no difference, and so does benchlog, in every level.
#[test]
#[ignore = "needs ministat (apt-get install ministat); .ci/run runs it"]
fn welch_never_proves_what_ministat_does_not() {
    let ministat_bin = ministat_path();
    let scratch = tempfile::tempdir().unwrap();
    let baseline = [95.0, 105.0, 92.0, 108.0, 97.0, 103.0, 90.0, 110.0];
    let quiet = [106.9, 107.0, 107.1];
    let mut welch_proves = 0;
    for level in Confidence::ALL {
        let theirs = ministat(&ministat_bin, scratch.path(), &baseline, &quiet, level);
        let vs = compare::VsBaseline::compare(&baseline, &quiet, level, true).unwrap();
        assert!(vs.variances_differ, "{level}: {vs:?}");
        let welch = vs.welch.as_ref().unwrap();
        welch_proves += usize::from(vs.difference.abs() > welch.half_width);
        assert_eq!(theirs.is_some(), vs.verdict.is_proven(), "{level}: {vs:?}");
    }
    // At 95% (and the levels below) Welch's alone would have said better.
    let vs = compare::VsBaseline::compare(&baseline, &quiet, Confidence::P95, true).unwrap();
    assert_eq!(vs.verdict, compare::Verdict::NoDifference, "{vs:?}");
    assert!(ministat(
        &ministat_bin,
        scratch.path(),
        &baseline,
        &quiet,
        Confidence::P95
    )
    .is_none());
    assert!(welch_proves >= 3, "{welch_proves}");
}

/// The first point of a series in the JSON.
fn point<'a>(json: &'a Value, series: &str) -> &'a Value {
    &json["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == series)
        .unwrap_or_else(|| panic!("no series {series:?} in {json}"))["points"][0]
}

#[tokio::test]
async fn every_form_shows_the_interval_and_the_verdict() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_002]);
    let (status, json) = get(&state, &format!("/compare.json?{SEED_002_QUERY}")).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["confidence"], 95.0);
    assert!(
        json["query"].as_str().unwrap().ends_with("&conf=95"),
        "{json}"
    );
    let slow = point(&json, "slow LOCK_open");
    let base = point(&json, "Original");
    let mean = |p: &Value| p["mean"].as_f64().unwrap();
    let vs = &slow["vs_baseline"];
    assert_eq!(vs["verdict"], "better", "{vs}");
    assert_eq!(vs["interval"]["method"], "student");
    let difference = vs["difference"].as_f64().unwrap();
    assert!(
        (difference - (mean(slow) - mean(base))).abs() < 1e-3,
        "{vs}"
    );
    let (low, high) = (
        vs["interval"]["low"].as_f64().unwrap(),
        vs["interval"]["high"].as_f64().unwrap(),
    );
    assert!(low > 0.0 && low < difference && difference < high, "{vs}");
    let half_width = vs["interval"]["half_width"].as_f64().unwrap();
    assert!((high - low - 2.0 * half_width).abs() < 1e-3);
    let percent_half_width = vs["interval"]["percent_half_width"].as_f64().unwrap();
    assert!((percent_half_width - half_width / mean(base) * 100.0).abs() < 1e-6);
    assert!(
        base["vs_baseline"].is_null(),
        "the baseline has no difference to itself"
    );

    // The CSV: the same numbers in their columns.
    let (_, content_type, csv) = get_typed(&state, &format!("/compare.csv?{SEED_002_QUERY}")).await;
    assert!(content_type.starts_with("text/csv"));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    for column in [
        "vs_baseline",
        "vs_baseline_pct",
        "ci_low",
        "ci_high",
        "ci_pct_low",
        "ci_pct_high",
        "ci_method",
        "confidence",
        "verdict",
    ] {
        assert!(header.iter().any(|h| h == column), "{column}: {header:?}");
    }
    let cell = |row: &csv::StringRecord, column: &str| {
        row[header.iter().position(|h| h == column).unwrap()].to_owned()
    };
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let row = rows.iter().find(|r| &r[0] == "slow LOCK_open").unwrap();
    assert_eq!(cell(row, "verdict"), "better");
    assert_eq!(cell(row, "ci_method"), "student");
    assert_eq!(cell(row, "confidence"), "95");
    assert_eq!(cell(row, "ci_low").parse::<f64>().unwrap(), low);
    assert_eq!(cell(row, "ci_high").parse::<f64>().unwrap(), high);
    assert_eq!(
        cell(row, "ci_pct_low").parse::<f64>().unwrap(),
        vs["interval"]["percent_low"].as_f64().unwrap()
    );
    let base_row = rows.iter().find(|r| &r[0] == "Original").unwrap();
    assert_eq!(cell(base_row, "verdict"), "");

    // The text: a ministat block, with ministat's own digits for this
    // pair (`ministat -c 95` on the two sets of three qps values).
    let (_, text) = get(&state, &format!("/compare.txt?{SEED_002_QUERY}")).await;
    // All but the link, whole on the last line.
    let (table, _link) = text.trim_end().rsplit_once('\n').unwrap();
    for line in table.lines() {
        assert!(line.chars().count() <= 72, "{line}");
    }
    for needle in [
        "Difference at 95.0% confidence",
        "31254.7 +/- 8034.44",
        "16.7612% +/- 4.30869%",
        "(Student's t, pooled s = 3544.72)",
        "Verdict: better (higher is better)",
        "x Original (baseline)",
        "+ slow LOCK_open",
    ] {
        assert!(text.contains(needle), "{needle:?} in\n{text}");
    }

    // The page: the interval and the verdict in words.
    let (_, page) = get(&state, &format!("/compare?{SEED_002_QUERY}")).await;
    assert!(page.contains("vs baseline (95% interval)"), "{page}");
    let percent = vs["percent"].as_f64().unwrap();
    assert!(
        page.contains(&format!("{percent:+.1}% ± {percent_half_width:.1}%")),
        "{page}"
    );
    assert!(
        page.contains(r#"<td class="verdict better">better"#),
        "{page}"
    );
    assert!(page.contains(r#"<option value="95" selected>95%</option>"#));

    // The chart: every difference is proven, so nothing is hollow.
    let (_, svg) = get(&state, &format!("/compare.svg?{SEED_002_QUERY}")).await;
    assert!(!svg.contains("Hollow"), "{svg}");
}

#[tokio::test]
async fn a_higher_level_widens_the_interval_and_is_part_of_the_link() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_002]);
    let json = |conf: &'static str| {
        let state = state.clone();
        async move {
            let (status, body) = get(
                &state,
                &format!("/compare.json?{SEED_002_QUERY}&conf={conf}"),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            serde_json::from_str::<Value>(&body).unwrap()
        }
    };
    let mut widths = Vec::new();
    for level in Confidence::ALL {
        let json = json(level.name()).await;
        assert_eq!(json["confidence"].as_f64(), Some(level.percent()));
        assert!(
            json["query"]
                .as_str()
                .unwrap()
                .ends_with(&format!("&conf={}", level.name())),
            "{json}"
        );
        let student = &point(&json, "slow LOCK_open")["vs_baseline"]["student"];
        widths.push(student["half_width"].as_f64().unwrap());
    }
    assert!(
        widths.windows(2).all(|w| w[0] < w[1]),
        "each level is wider than the one below: {widths:?}"
    );
    // The default is 95, written out in the link.
    let (_, default) = get(&state, &format!("/compare.json?{SEED_002_QUERY}")).await;
    let (_, explicit) = get(&state, &format!("/compare.json?{SEED_002_QUERY}&conf=95")).await;
    assert_eq!(default, explicit);
    let (_, page) = get(&state, &format!("/compare?{SEED_002_QUERY}&conf=99")).await;
    assert!(page.contains("conf=99"), "the share links keep the level");
    assert!(page.contains(r#"<option value="99" selected>99%</option>"#));
    assert!(page.contains("vs baseline (99% interval)"));
}

#[tokio::test]
async fn an_unknown_level_is_a_400_that_names_the_levels() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_002]);
    for (format, value) in [
        ("", "97"),
        (".json", "0.95"),
        (".csv", "high"),
        (".txt", "100"),
        (".svg", "95.5"),
        (".png", "-95"),
    ] {
        let uri = format!("/compare{format}?{SEED_002_QUERY}&conf={value}");
        let (status, body) = get(&state, &uri).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(
            body.contains("80, 90, 95, 98, 99 or 99.5") && body.contains(value),
            "{uri}: {body}"
        );
    }
}

#[tokio::test]
async fn runs_of_other_setups_are_mixed_or_too_few_never_worse() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_000]);
    // At 10 clients: 4BSD / libpthread ran once (23983.87), and so did
    // the runs with libpthread but no scheduler (16583.43). 4BSD / libthr
    // ran with ACPI-fast, TSC and TSC with three patches (26841.07,
    // 26403.95, 27073.46), ULE / libthr with TSC and TSC with the
    // patches: not repeats, so no interval either.
    let query = format!("{SEED_000_QUERY}&baseline=4BSD+%2F+libpthread");
    let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
    let json: Value = serde_json::from_str(&json).unwrap();
    for (name, configurations) in [("4BSD / libthr", 3), ("ULE / libthr", 2)] {
        let point = point(&json, name);
        assert_eq!(point["configurations"], configurations, "{name}: {point}");
        let vs = &point["vs_baseline"];
        assert_eq!(vs["verdict"], "mixed", "{name}: {vs}");
        assert!(vs["interval"].is_null(), "{vs}");
        assert!(
            vs["percent"].as_f64().unwrap() > 0.0,
            "the plain % is still given"
        );
    }
    let vs = &point(&json, "(none) / libpthread")["vs_baseline"];
    assert_eq!(vs["verdict"], "too_few_runs", "{vs}");
    assert!(vs["interval"].is_null(), "{vs}");

    let (_, text) = get(&state, &format!("/compare.txt?{query}")).await;
    assert!(
        !text.contains("worse") && !text.contains("% better"),
        "{text}"
    );
    assert!(!text.contains("Verdict"), "{text}");
    assert!(text.contains("-30.9% few runs"), "{text}");
    assert!(text.contains("+11.6% mixed"), "{text}");
    assert!(text.contains("Too few runs: n = 1 and 1"), "{text}");
    assert!(
        text.contains("Mixed: 3 runs of 3 configurations (patches, timer"),
        "{text}"
    );
    let (_, page) = get(&state, &format!("/compare?{query}")).await;
    assert!(
        page.contains(r#"<td class="verdict too_few_runs">too few runs"#),
        "{page}"
    );
    assert!(
        page.contains(r#"<td class="verdict mixed">mixed configurations"#),
        "{page}"
    );
    assert!(!page.contains(r#"class="verdict worse""#), "{page}");
    let (_, csv) = get(&state, &format!("/compare.csv?{query}")).await;
    assert!(!csv.contains(",worse,"), "{csv}");
    assert!(csv.contains(",too_few_runs,"), "{csv}");
    assert!(csv.contains(",mixed,"), "{csv}");
    // The chart marks them: pale, and the legend's key says why.
    let (_, svg) = get(&state, &format!("/compare.svg?{query}")).await;
    assert!(svg.contains("Pale: too few runs"), "{svg}");
}

/// Seed 000 by scheduler alone: at 10 clients, four runs with the 4BSD
/// scheduler (23983.87 to 27073.46) of four setups (thread library,
/// timer, patches), five without one named of several. Their means are
/// 4,000 q/s apart; they were "no difference" as if repeats, and are
/// now no comparison at all.
#[tokio::test]
async fn runs_of_several_configurations_get_no_interval() {
    let (_dir, db, state) = test_state();
    ingest(&db, &[SEED_000]);
    let query =
        "tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&baseline=4BSD";
    let (_, json) = get(&state, &format!("/compare.json?{query}")).await;
    let json: Value = serde_json::from_str(&json).unwrap();
    let unnamed = point(&json, "(none)");
    assert_eq!(
        (unnamed["threads"].as_u64(), unnamed["n"].as_u64()),
        (Some(10), Some(5))
    );
    // Four or five, as the context of seed 000's first runs is read.
    assert!(unnamed["configurations"].as_u64() >= Some(4), "{unnamed}");
    let base = point(&json, "4BSD");
    assert_eq!(base["configurations"], 4, "{base}");
    assert_eq!(
        base["mixed"],
        serde_json::json!(["patches", "thread_lib", "timer"]),
        "{base}"
    );
    let vs = &unnamed["vs_baseline"];
    assert_eq!(vs["verdict"], "mixed", "{vs}");
    assert!(vs["interval"].is_null() && vs["student"].is_null(), "{vs}");
    assert!(vs["percent"].as_f64().unwrap() < -10.0, "{vs}");

    let (_, text) = get(&state, &format!("/compare.txt?{query}")).await;
    assert!(!text.contains("No difference proven"), "{text}");
    assert!(!text.contains("Verdict"), "{text}");
    assert!(text.contains("mixed"), "{text}");
    let (_, csv) = get(&state, &format!("/compare.csv?{query}")).await;
    assert!(csv.contains(",95,mixed,"), "{csv}");
    // No level makes a verdict of them.
    let (_, json) = get(&state, &format!("/compare.json?{query}&conf=80")).await;
    let json: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(point(&json, "(none)")["vs_baseline"]["verdict"], "mixed");
}

/// The last row of ministat's t table (infinite degrees of freedom), for
/// the levels the oracle test asks for.
fn normal_quantile(level: Confidence) -> f64 {
    match level {
        Confidence::P95 => 1.960,
        Confidence::P99 => 2.576,
        other => panic!("no normal quantile kept for {other:?}"),
    }
}

/// sysbench one-line summaries of two labelled sets, with the qps values
/// given in units of 1e306 (values near the end of `f64`'s range).
fn huge_qps(sets: &[(&str, &[u32])]) -> String {
    let mut text = String::new();
    for (label, values) in sets {
        text.push_str(&format!("{label}\n{}\n", "-".repeat(label.len())));
        for value in *values {
            text.push_str(&format!(
                "64 threads, time spent: 60s, queries executed: 1000, qps: {value}{}, 1 thread qps: 2994, tps: 13691\n",
                "0".repeat(306)
            ));
        }
        text.push('\n');
    }
    text
}

/// Values near 1e308 keep finite means in every view, but the text
/// view's ministat block printed their standard deviation as `inf` (its
/// square overflows), and past about 1.3e308 no view had a difference
/// to the baseline (the scale it is computed at overflowed to infinity).
/// Every view prints the same figures; none prints `inf`.
#[tokio::test]
async fn values_near_the_end_of_the_range_print_alike_in_every_view() {
    const QUERY: &str = "tool=sysbench&metric=qps&by=label&baseline=Original";
    for (sets, deviation) in [
        // Their standard deviation: 1e307 for the baseline.
        (
            [
                ("Original", &[100, 110, 90][..]),
                ("patched", &[105, 112, 108][..]),
            ],
            1e307,
        ),
        // Past 2^1023.5.
        (
            [
                ("Original", &[150, 170, 120][..]),
                ("patched", &[160, 175, 165][..]),
            ],
            2.5166114784235836e307,
        ),
    ] {
        let (_dir, db, state) = test_state();
        let mut conn = benchlog::store::open(&db).unwrap();
        benchlog::ingest::ingest_text(&mut conn, Some("huge.txt"), &huge_qps(&sets)).unwrap();
        let (status, json) = get(&state, &format!("/compare.json?{QUERY}")).await;
        assert_eq!(status, StatusCode::OK, "{json}");
        let json: Value = serde_json::from_str(&json).unwrap();
        let vs = &point(&json, "patched")["vs_baseline"];
        let difference = vs["difference"].as_f64().unwrap_or(f64::NAN);
        let means: Vec<f64> = sets
            .iter()
            .map(|(_, values)| values.iter().map(|v| f64::from(*v)).sum::<f64>() / 3.0 * 1e306)
            .collect();
        assert!(
            (difference / (means[1] - means[0]) - 1.0).abs() < 1e-9,
            "{vs}"
        );
        assert_eq!(vs["verdict"], "no_difference", "{vs}");

        let (_, text) = get(&state, &format!("/compare.txt?{QUERY}")).await;
        let (_, csv) = get(&state, &format!("/compare.csv?{QUERY}")).await;
        let (_, page) = get(&state, &format!("/compare?{QUERY}")).await;
        for (view, body) in [("text", &text), ("csv", &csv), ("page", &page)] {
            let non_finite = body
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| ["inf", "nan"].contains(&word.to_ascii_lowercase().as_str()));
            assert!(!non_finite, "{view}:\n{body}");
        }
        assert!(
            text.contains("No difference proven at 95.0% confidence"),
            "{text}"
        );
        assert!(
            text.contains("+8.3% no diff.") || text.contains("+13.6% no diff."),
            "{text}"
        );
        let baseline_vitals = text
            .lines()
            .find(|line| line.starts_with("x   3"))
            .unwrap_or_else(|| panic!("{text}"));
        let stddev: f64 = baseline_vitals
            .split_whitespace()
            .last()
            .unwrap()
            .parse()
            .unwrap_or_else(|_| panic!("{baseline_vitals}"));
        assert!((stddev / deviation - 1.0).abs() < 1e-7, "{baseline_vitals}");
    }
}
