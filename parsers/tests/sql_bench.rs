//! sql-bench: seed 004 checked value by value, key values of every
//! fixture under `fixtures/sql-bench/`, and `parse` on mangled sql-bench
//! text.

mod common;

use parsers::{parse, Document, Run, Tool};
use proptest::prelude::*;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../fixtures/sql-bench/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parsed(name: &str) -> Document {
    parse(&fixture(name))
}

fn attr<'a>(run: &'a Run, key: &str) -> Option<&'a str> {
    run.attrs.get(key).map(String::as_str)
}

fn sql_bench_runs(doc: &Document) -> Vec<&Run> {
    doc.runs
        .iter()
        .filter(|r| r.tool == Tool::SqlBench)
        .collect()
}

/// (test, wallclock, usr, sys, cpu) of each `NAME: Total time:` line.
type TestTimes = (&'static str, f64, f64, f64, f64);

fn check_tests(run: &Run, want: &[TestTimes]) {
    for (i, &(test, wall, usr, sys, cpu)) in want.iter().enumerate() {
        let item = format!("test-{test}");
        let got = [
            run.value(&item, "wallclock_s"),
            run.value(&item, "usr_s"),
            run.value(&item, "sys_s"),
            run.value(&item, "cusr_s"),
            run.value(&item, "csys_s"),
            run.value(&item, "cpu_s"),
        ];
        let expected = [
            Some(wall),
            Some(usr),
            Some(sys),
            Some(0.0),
            Some(0.0),
            Some(cpu),
        ];
        assert_eq!(got, expected, "case {i}: {item}");
    }
}

#[test]
fn seed_004_gives_one_run_per_kernel() {
    let doc = parsed("seed-004-linux-2.4-vs-2.2-smp");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    assert_eq!(doc.runs.len(), 2);
    let kernels: Vec<[Option<&str>; 4]> = doc
        .runs
        .iter()
        .map(|r| ["os", "os_version", "arch", "db_version"].map(|k| attr(r, k)))
        .collect();
    assert_eq!(
        kernels,
        [
            [Some("Linux"), Some("2.4.0"), Some("i686"), Some("3.23.32")],
            [
                Some("Linux"),
                Some("2.2.16-22smp"),
                Some("i686"),
                Some("3.23.32")
            ],
        ]
    );
    for run in &doc.runs {
        assert_eq!(run.tool, Tool::SqlBench);
        assert_eq!(run.test.as_deref(), Some("run-all-tests"));
        assert_eq!(run.threads, None);
        assert_eq!(run.quote_depth, 0);
        assert_eq!(attr(run, "db_server"), Some("MySQL"));
        assert_eq!(attr(run, "tool_version"), Some("2.11a"));
        assert_eq!(attr(run, "limits_from"), Some("mysql,mysql,pg,solid"));
        // `Arguments:` and `Comments:` are empty in both runs.
        assert_eq!(attr(run, "arguments"), None);
        assert_eq!(attr(run, "comments"), None);
        // Seven tests with six figures each, and the five TOTALS columns.
        assert_eq!(run.results.len(), 7 * 6 + 5);
        assert!(run.results.iter().all(|m| !m.estimated));
    }
    assert_eq!(attr(&doc.runs[0], "date"), Some("2001-01-24 8:58:30"));
    assert_eq!(attr(&doc.runs[1], "date"), Some("2001-01-24 9:44:55"));
    // From `Benchmark DBD suite:` through TOTALS.
    assert_eq!(doc.runs[0].lines, [55, 78]);
    assert_eq!(doc.runs[1].lines, [84, 107]);
}

#[test]
fn seed_004_first_run_value_by_value() {
    let doc = parsed("seed-004-linux-2.4-vs-2.2-smp");
    let run = &doc.runs[0];
    check_tests(
        run,
        &[
            ("ATIS", 26.0, 4.84, 2.25, 7.09),
            ("alter-table", 143.0, 0.10, 0.03, 0.13),
            ("big-tables", 24.0, 5.66, 4.44, 10.10),
            ("connect", 24.0, 12.47, 3.70, 16.17),
            ("insert", 1119.0, 254.38, 87.85, 342.23),
            ("select", 739.0, 35.62, 7.38, 43.00),
            ("wisconsin", 11.0, 2.38, 1.09, 3.47),
        ],
    );
    let totals =
        ["wallclock_s", "usr_s", "sys_s", "cpu_s", "tests"].map(|m| run.value("TOTALS", m));
    assert_eq!(
        totals,
        [
            Some(2124.00),
            Some(315.43),
            Some(106.74),
            Some(422.17),
            Some(1875011.0)
        ]
    );
    let tests = run
        .results
        .iter()
        .find(|m| m.item == "TOTALS" && m.metric == "tests")
        .unwrap();
    assert_eq!((tests.unit.as_str(), tests.line), ("tests", 78));
    // A test line wrapped after `csys =` keeps the line it starts on.
    let atis_cpu = run
        .results
        .iter()
        .find(|m| m.item == "test-ATIS" && m.metric == "cpu_s")
        .unwrap();
    assert_eq!((atis_cpu.line, atis_cpu.unit.as_str()), (62, "s"));
}

#[test]
fn seed_004_second_run_value_by_value() {
    let doc = parsed("seed-004-linux-2.4-vs-2.2-smp");
    let run = &doc.runs[1];
    check_tests(
        run,
        &[
            ("ATIS", 26.0, 5.50, 2.29, 7.79),
            ("alter-table", 176.0, 0.21, 0.07, 0.28),
            ("big-tables", 25.0, 6.26, 4.13, 10.39),
            ("connect", 29.0, 14.97, 4.12, 19.09),
            ("insert", 1274.0, 326.70, 102.33, 429.03),
            ("select", 746.0, 41.49, 10.66, 52.15),
            ("wisconsin", 11.0, 2.91, 1.19, 4.10),
        ],
    );
    let totals =
        ["wallclock_s", "usr_s", "sys_s", "cpu_s", "tests"].map(|m| run.value("TOTALS", m));
    assert_eq!(
        totals,
        [
            Some(2326.00),
            Some(398.02),
            Some(124.79),
            Some(522.81),
            Some(1875011.0)
        ]
    );
}

#[test]
fn unwrapped_5_0_summary_skips_failed_and_skipped_tests() {
    let doc = parsed("run-all-tests-5.0-unwrapped-failed-and-skipped");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = sql_bench_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.lines, [8, 72]);
    assert_eq!(attr(run, "arguments"), Some("--fast"));
    assert_eq!(attr(run, "db_version"), Some("5.0.37"));
    assert_eq!(attr(run, "os_version"), Some("2.6.18-8.el5"));
    assert_eq!(attr(run, "arch"), Some("x86_64"));
    // `Optimization: None` is run-all-tests' default, not information.
    assert_eq!(attr(run, "optimization"), None);
    check_tests(
        run,
        &[
            ("connect", 107.0, 25.93, 15.66, 41.59),
            ("insert", 791.0, 257.43, 67.52, 324.95),
        ],
    );
    assert_eq!(run.value("test-create", "wallclock_s"), None);
    assert_eq!(run.value("test-transactions", "wallclock_s"), None);
    assert_eq!(run.value("connect+select_simple", "tests"), Some(10000.0));
    assert_eq!(run.value("insert", "tests"), Some(350768.0));
    let rows = run.results.iter().filter(|m| m.metric == "tests").count();
    assert_eq!(rows, 41, "40 operations and TOTALS");
}

#[test]
fn run_file_keeps_estimated_marks() {
    let doc = parsed("run-file-pg-estimated-plus-marks");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(
        attr(run, "run_file"),
        Some("RUN-Pg-Linux_2.6.8_3_686_i686-cmp-mysql,pg")
    );
    assert_eq!(attr(run, "db_server"), Some("PostgreSQL"));
    assert_eq!(attr(run, "db_version"), Some("8.1.4"));
    assert_eq!(attr(run, "comments"), Some("pg 8.1 with fsync=off"));
    // Some(true) when every figure of the item is marked, Some(false) when none is.
    let estimated = |item: &str| -> Option<bool> {
        let flags: Vec<bool> = run
            .results
            .iter()
            .filter(|m| m.item == item)
            .map(|m| m.estimated)
            .collect();
        assert!(!flags.is_empty(), "{item} missing");
        if flags.iter().all(|&e| e) {
            Some(true)
        } else if flags.iter().all(|&e| !e) {
            Some(false)
        } else {
            None
        }
    };
    let cases = [
        ("test-insert", Some(true)),
        ("test-select", Some(true)),
        ("test-ATIS", Some(false)),
        ("count_on_key", Some(true)),
        ("min_max_on_key", Some(true)),
        ("select_range_key2", Some(true)),
        ("insert", Some(false)),
        ("TOTALS", Some(true)),
    ];
    for (i, (item, want)) in cases.into_iter().enumerate() {
        assert_eq!(estimated(item), want, "case {i}: {item}");
    }
    assert_eq!(run.value("test-insert", "wallclock_s"), Some(199360.0));
    assert_eq!(run.value("count_on_key", "wallclock_s"), Some(337.0));
    assert_eq!(run.value("TOTALS", "tests"), Some(1022492.0));
}

#[test]
fn test_insert_log_gives_operations_and_totals() {
    let doc = parsed("test-insert-log-time-for-lines");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(run.test.as_deref(), Some("test-insert"));
    assert_eq!(run.lines, [4, 40]);
    assert_eq!(attr(run, "db_version"), Some("4.1.22"));
    assert_eq!(attr(run, "date"), Some("2007-01-15 10:42:07"));
    assert_eq!(run.value("insert", "tests"), Some(300000.0));
    assert_eq!(run.value("insert", "cpu_s"), Some(12.13));
    // `(10:3000000)`: the first number is the test count.
    assert_eq!(run.value("select_big", "tests"), Some(10.0));
    // Printed twice: each line is a measurement, the second `NAME#2`.
    assert_eq!(run.value("select_range_prefix", "wallclock_s"), Some(7.0));
    assert_eq!(run.value("select_range_prefix", "tests"), Some(5010.0));
    assert_eq!(run.value("select_range_prefix#2", "wallclock_s"), Some(5.0));
    assert_eq!(run.value("select_range_prefix#2", "tests"), Some(20000.0));
    assert_eq!(run.value("select_range_prefix#2", "cpu_s"), Some(2.5));
    let min_max = run
        .results
        .iter()
        .find(|m| m.item == "min_max_on_key")
        .unwrap();
    assert!(min_max.estimated);
    assert_eq!(run.value("TOTALS", "wallclock_s"), Some(3981.0));
    assert!(run
        .results
        .iter()
        .filter(|m| m.item == "TOTALS")
        .all(|m| m.estimated));
    // `Time for drop table(2)`: run-all-tests' summary skips it (its
    // pattern takes one word), but the log prints a time of its own.
    assert_eq!(run.value("drop table", "wallclock_s"), Some(0.0));
    assert_eq!(run.value("drop table", "tests"), Some(2.0));
    assert!(run.results.iter().all(|m| m.item != "drop"));
}

/// test-insert runs `select_range_prefix` and `select_range_key2` again
/// after "Test of compares with simple ranges", and `select_in` and
/// `select_join_in` once for each of 10, 100 and 1000 values: every line
/// is kept, the n-th repeat as `NAME#n`, in logs of 1999 to 2016.
#[test]
fn repeated_operations_keep_every_line() {
    let doc = parsed("real-arstercz-zh-proxysql-test-insert-repeated-operations");
    let runs = sql_bench_runs(&doc);
    assert_eq!(runs.len(), 2);
    let proxied = runs[0];
    assert_eq!(proxied.test.as_deref(), Some("test-insert"));
    assert_eq!(attr(proxied, "db_version"), Some("5.5.36"));
    assert_eq!(
        proxied.value("select_range_prefix", "wallclock_s"),
        Some(9.0)
    );
    assert_eq!(proxied.value("select_range_prefix", "tests"), Some(5010.0));
    assert_eq!(
        proxied.value("select_range_prefix#2", "wallclock_s"),
        Some(11.0)
    );
    assert_eq!(
        proxied.value("select_range_prefix#2", "tests"),
        Some(20000.0)
    );
    assert_eq!(proxied.value("select_range_key2#2", "cpu_s"), Some(2.19));
    assert_eq!(proxied.value("select_in", "wallclock_s"), Some(1.0));
    assert_eq!(proxied.value("select_in#2", "wallclock_s"), Some(2.0));
    assert_eq!(proxied.value("select_in#3", "wallclock_s"), Some(9.0));
    assert_eq!(proxied.value("select_join_in#3", "cpu_s"), Some(0.85));
    assert_eq!(proxied.value("select_in#4", "wallclock_s"), None);
    assert_eq!(proxied.value("TOTALS", "wallclock_s"), Some(3385.0));
    // `drop table(2)`, then `drop table(1)` at the log's end.
    assert_eq!(proxied.value("drop table", "tests"), Some(2.0));
    assert_eq!(proxied.value("drop table#2", "tests"), Some(1.0));
    // 56 operation lines of 7 values each, and the 6 of TOTALS.
    assert_eq!(proxied.results.len(), 56 * 7 + 6);
    assert_eq!(runs[1].value("select_join_in#2", "usr_s"), Some(0.15));

    let doc = parsed("real-results-insert-mysql-4.0-test-log-repeated-select-in");
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(run.value("select_in#3", "wallclock_s"), Some(26.0));
    assert_eq!(run.value("select_in#3", "tests"), Some(500.0));
    assert_eq!(run.results.len(), 55 * 7 + 6);

    let doc = parsed("real-results-insert-mysql-3.21-test-log-repeated-ranges-cpu-secs");
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(run.value("select_range", "wallclock_s"), Some(15.0));
    assert_eq!(run.value("select_range#2", "usr_s"), Some(5.8));
    assert_eq!(run.value("delete_big", "wallclock_s"), Some(72.0));
    assert_eq!(run.value("delete_big#2", "wallclock_s"), Some(133.0));
    assert_eq!(run.value("delete_big#2", "tests"), Some(2.0));
    // Benchmark.pm of 1999 printed 0.00 CPU over non-zero parts.
    assert_eq!(run.value("select_range#2", "cpu_s"), None);
}

#[test]
fn test_log_is_named_by_its_first_message_and_colonless_time_lines_count() {
    let doc = parsed("test-alter-table-log-named-by-first-message");
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(run.test.as_deref(), Some("test-alter-table"));
    assert_eq!(run.value("insert", "tests"), Some(1000.0));
    assert_eq!(run.value("alter_table_add", "wallclock_s"), Some(118.0));
    assert_eq!(run.value("TOTALS", "cpu_s"), Some(0.22));
    assert_eq!(attr(run, "db_version"), Some("5.0.51a"));
}

#[test]
fn quoted_and_wrapped_summary_reads_like_the_original() {
    let doc = parsed("quoted-wrapped-72-columns-summary");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = sql_bench_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.quote_depth, 1);
    assert_eq!(run.lines, [2, 85]);
    assert_eq!(
        attr(run, "comments"),
        Some("dual opteron 246, 4G, 3ware 9500 RAID10, key_buffer=512M table_cache=512 libthr")
    );
    assert_eq!(
        (attr(run, "os"), attr(run, "os_version"), attr(run, "arch")),
        (Some("FreeBSD"), Some("6.0-BETA5"), Some("amd64"))
    );
    check_tests(
        run,
        &[
            ("alter-table", 21.0, 0.07, 0.03, 0.10),
            ("connect", 77.0, 19.82, 11.30, 31.12),
            ("insert", 1038.0, 298.02, 72.17, 370.19),
        ],
    );
    // Rows cut before their `tests` column.
    assert_eq!(run.value("alter_table_add", "tests"), Some(100.0));
    assert_eq!(run.value("alter_table_add", "wallclock_s"), Some(34.0));
    assert_eq!(run.value("TOTALS", "tests"), Some(849356.0));
    assert_eq!(run.value("TOTALS", "cpu_s"), Some(470.07));
    assert_eq!(
        run.results.iter().filter(|m| m.metric == "tests").count(),
        25
    );
}

#[test]
fn sql_bench_2_0_old_timestr() {
    let doc = parsed("sql-bench-2.0-secs-and-cpu");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(attr(run, "tool_version"), Some("2.0"));
    assert_eq!(attr(run, "db_version"), Some("3.21.33"));
    assert_eq!(run.value("test-ATIS", "wallclock_s"), Some(75.0));
    assert_eq!(run.value("test-ATIS", "cpu_s"), Some(23.92));
    // No children's times in the old format: absent, not zero.
    assert_eq!(run.value("test-ATIS", "cusr_s"), None);
    let select: Vec<bool> = run
        .results
        .iter()
        .filter(|m| m.item == "test-select")
        .map(|m| m.estimated)
        .collect();
    assert_eq!(select, [true; 4]);
    assert_eq!(run.value("alter_table_add", "tests"), Some(1992.0));
    assert!(run.value("TOTALS", "wallclock_s").is_some());
}

/// (item, metric) pairs a run must hold, and those it must not.
fn check_values(run: &Run, have: &[(&str, &str, f64)], absent: &[(&str, &str)]) {
    for (i, &(item, metric, want)) in have.iter().enumerate() {
        assert_eq!(
            run.value(item, metric),
            Some(want),
            "case {i}: {item} {metric}"
        );
    }
    for (i, &(item, metric)) in absent.iter().enumerate() {
        assert_eq!(run.value(item, metric), None, "absent {i}: {item} {metric}");
    }
}

#[test]
fn real_nt4_run_file_with_crlf_leaves_benchmark_pm_zero_cpu_out() {
    let doc = parsed("real-results-run-mysql-nt4-crlf-benchmark-pm-zero-cpu");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = sql_bench_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.lines, [1, 79]);
    assert_eq!(
        [
            "os",
            "os_version",
            "db_server",
            "db_version",
            "tool_version"
        ]
        .map(|k| attr(run, k)),
        [
            Some("Windows NT"),
            Some("4.0"),
            Some("MySQL"),
            Some("3.23.25"),
            Some("2.9")
        ]
    );
    check_values(
        run,
        &[
            ("test-insert", "wallclock_s", 5829.0),
            ("test-insert", "usr_s", 581.28),
            ("test-insert", "sys_s", 317.09),
            ("count_distinct_big", "usr_s", 225.82),
            ("TOTALS", "wallclock_s", 12412.0),
            ("TOTALS", "tests", 1845595.0),
            ("delete_big", "cpu_s", 0.0),
        ],
        &[
            ("test-insert", "cpu_s"),
            ("count_distinct_big", "cpu_s"),
            ("TOTALS", "cpu_s"),
            ("test-create", "wallclock_s"),
        ],
    );
}

#[test]
fn real_pg_run_file_from_2000_keeps_its_estimates() {
    let doc = parsed("real-results-run-pg-2000-estimated-marks-unknown-version");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(attr(run, "db_server"), Some("PostgreSQL"));
    assert_eq!(attr(run, "db_version"), None);
    check_values(
        run,
        &[
            ("test-insert", "wallclock_s", 110214.0),
            ("select_range_key2", "wallclock_s", 26862.0),
            ("TOTALS", "wallclock_s", 130055.0),
        ],
        &[("test-insert", "cpu_s"), ("TOTALS", "cpu_s")],
    );
    let estimated = |item: &str| {
        run.results
            .iter()
            .filter(|m| m.item == item)
            .all(|m| m.estimated)
    };
    assert!(estimated("test-insert") && estimated("min_max_on_key") && estimated("TOTALS"));
    assert!(!estimated("connect"));
}

#[test]
fn real_sql_bench_2_0b_run_file_with_cpu_secs() {
    let doc = parsed("real-results-run-mysql-3.21-cpu-secs-integer-seconds");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(attr(run, "tool_version"), Some("2.0b"));
    assert_eq!(attr(run, "db_version"), Some("3.21.34"));
    check_values(
        run,
        &[
            ("test-ATIS", "wallclock_s", 64.0),
            ("test-ATIS", "usr_s", 12.66),
            ("alter_table_add", "wallclock_s", 476.0),
            ("create_index", "cpu_s", 0.0),
            ("TOTALS", "tests", 1411318.0),
        ],
        &[("test-ATIS", "cpu_s"), ("alter_table_add", "cpu_s")],
    );
}

#[test]
fn real_win98_odbc_run_file() {
    let doc = parsed("real-results-run-mysql-odbc-win98-version-in-brackets");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(
        ["os", "os_version", "arguments", "db_version"].map(|k| attr(run, k)),
        [
            Some("Windows 98"),
            Some("4.10.1998"),
            Some("--odbc"),
            Some("3.22.19a")
        ]
    );
    check_values(
        run,
        &[
            // The table cuts operation names at 20 characters.
            ("multiple_value_inser", "tests", 100000.0),
            ("TOTALS", "usr_s", 13959.08),
            ("test-connect", "usr_s", 1627.82),
        ],
        &[("test-connect", "cpu_s")],
    );
}

#[test]
fn real_select_log_with_time_limit_estimates() {
    let doc = parsed("real-results-select-pg-test-log-estimated-time-limit");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let run = sql_bench_runs(&doc)[0];
    assert_eq!(run.test.as_deref(), Some("test-select"));
    assert_eq!(run.lines, [1, 29]);
    check_values(
        run,
        &[
            ("insert", "wallclock_s", 254.0),
            ("min_max_on_key", "wallclock_s", 4289.0),
            ("min_max_on_key", "tests", 70000.0),
            ("count_distinct_big", "usr_s", 8.24),
        ],
        &[("min_max_on_key", "cpu_s"), ("insert", "cpu_s")],
    );
    let min_max = run
        .results
        .iter()
        .find(|m| m.item == "min_max_on_key")
        .unwrap();
    assert!(min_max.estimated);
}

#[test]
fn truncated_reports_are_near_misses() {
    let cases = [
        ("truncated-per-operation-table", 3, "TOTALS"),
        ("total-time-line-missing-cpu-part", 16, "Total time:"),
    ];
    for (i, (name, line, why)) in cases.into_iter().enumerate() {
        let doc = parsed(name);
        assert!(sql_bench_runs(&doc).is_empty(), "case {i}: {:?}", doc.runs);
        assert_eq!(doc.unparsed.len(), 1, "case {i}: {:?}", doc.unparsed);
        assert_eq!(doc.unparsed[0].line, line, "case {i}");
        assert!(
            doc.unparsed[0].why.contains(why),
            "case {i}: {}",
            doc.unparsed[0].why
        );
    }
}

fn check_invariants(input: &str) {
    let doc = parse(input);
    let line_count = input.split('\n').count();
    for run in &doc.runs {
        assert!(
            run.lines[0] >= 1 && run.lines[0] <= run.lines[1] && run.lines[1] <= line_count,
            "{:?}",
            run.lines
        );
        assert!(!run.results.is_empty());
        for m in &run.results {
            assert!(m.value.is_finite(), "{m:?}");
            assert!(
                (run.lines[0]..=run.lines[1]).contains(&m.line),
                "{m:?} outside {:?}",
                run.lines
            );
        }
    }
    for miss in &doc.unparsed {
        assert!(miss.line >= 1 && miss.line <= line_count, "{miss:?}");
    }
}

/// A fixture with some lines dropped, duplicated, cut short or quoted.
fn mutated(text: &'static str) -> impl Strategy<Value = String> {
    common::mutated(text, 1..30, 90)
}

const SEED_004: &str = include_str!("../../fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt");
const INSERT_LOG: &str =
    include_str!("../../fixtures/sql-bench/test-insert-log-time-for-lines.txt");
const WRAPPED: &str =
    include_str!("../../fixtures/sql-bench/quoted-wrapped-72-columns-summary.txt");

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mutated_seed_004(input in mutated(SEED_004)) {
        check_invariants(&input);
    }

    #[test]
    fn mutated_test_log(input in mutated(INSERT_LOG)) {
        check_invariants(&input);
    }

    #[test]
    fn mutated_wrapped_summary(input in mutated(WRAPPED)) {
        check_invariants(&input);
    }

    #[test]
    fn sql_bench_shaped_noise(input in "((> ?)*(Benchmark DBD suite:|Running tests on:|Server version:|Totals per operation:|Operation|seconds usr sys cpu tests|TOTALS|ATIS:|insert:|Total time:|Estimated total time:|Time for|Estimated time for|Time to|Testing server '|'| at |wallclock|secs|\\(|\\)|usr|sys|cusr|csys|=|CPU\\)|cpu|\\+|[0-9]{1,25}|\\.|[0-9]+\\.[0-9]+|1e999|:| |\n)){0,80}") {
        check_invariants(&input);
    }
}
