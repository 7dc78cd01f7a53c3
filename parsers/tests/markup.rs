//! The real posts of `fixtures/markup/` and `fixtures/bonnie/real-markup-*`:
//! what carried a tool's output into the post (quoted-printable, quoting
//! beyond `> `, HTML and markdown remnants, stamps and prompts) is undone
//! by `parsers::text` once, and the values, labels, threads and source
//! lines below prove it. A post the normalisation still misreads keeps an
//! assertion of what it gives today, and an ignored test of what it
//! should give, so the fix shows up as a change here.

use parsers::{parse, Document, Run, Tool};

fn read(path: &str) -> Document {
    let path = format!("{}/../fixtures/{path}.txt", env!("CARGO_MANIFEST_DIR"));
    parse(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("fixture {path}")))
}

fn runs(doc: &Document, tool: Tool) -> Vec<&Run> {
    doc.runs.iter().filter(|r| r.tool == tool).collect()
}

/// (item, metric, value, line) of the result, if the run has it.
fn result(run: &Run, item: &str, metric: &str) -> Option<(f64, usize)> {
    run.results
        .iter()
        .find(|m| m.item == item && m.metric == metric)
        .map(|m| (m.value, m.line))
}

/// (item, metric, value, line) a run must hold.
type Expected<'a> = &'a [(&'a str, &'a str, f64, usize)];

/// Checks each (item, metric, value, line) against the run.
fn assert_results(run: &Run, want: Expected<'_>, what: &str) {
    for &(item, metric, value, line) in want {
        assert_eq!(
            result(run, item, metric),
            Some((value, line)),
            "{what}: {item} {metric}"
        );
    }
}

const QP: &str = "bonnie/real-markup-lkml-2003-qp-soft-breaks-cut-three-bonnie-tables";

#[test]
fn quoted_printable_mail_gives_three_whole_bonnie_runs() {
    // Every table line and every CSV line of this raw mail is cut by a
    // soft break (`=` at column 76), and `=20` ends the section titles.
    let doc = read(QP);
    assert_eq!(doc.messages.len(), 1);
    let message = &doc.messages[0];
    assert_eq!(message.author.as_deref(), Some("Chris Cheney"));
    assert_eq!(
        message.message_id.as_deref(),
        Some("<20031010082002.GB2394@cheney.cx>")
    );
    assert_eq!(message.lines, [1, 143]);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);

    let runs = runs(&doc, Tool::Bonnie);
    assert_eq!(runs.len(), 3);
    // (span, seq output block, random seeks, random delete): the CSV line
    // starts on the last line of the span and goes on after a soft break;
    // the values from its second half still map to its first line.
    let want = [
        ([63, 80], 19857.0, 186.5, 8743.0, 99.0),
        ([86, 103], 9252.0, 189.8, 7596.0, 85.0),
        ([109, 126], 48814.0, 185.2, 8650.0, 100.0),
    ];
    for (run, (lines, block, seeks, delete, delete_cpu)) in runs.iter().zip(want) {
        let csv = lines[1];
        assert_eq!(run.lines, lines);
        assert_eq!(run.quote_depth, 0);
        assert_eq!(run.author.as_deref(), Some("Chris Cheney"));
        assert_eq!(run.test.as_deref(), Some("bonnie++"));
        for (key, value) in [
            ("machine", "calc"),
            ("size", "2G"),
            ("files", "16"),
            ("tool_version", "1.03"),
        ] {
            assert_eq!(run.attrs.get(key).map(String::as_str), Some(value), "{key}");
        }
        assert_results(
            run,
            &[
                ("seq_output_block", "kb_per_s", block, csv),
                ("random_seeks", "per_s", seeks, csv),
                ("random_delete", "per_s", delete, csv),
                ("random_delete", "cpu_pct", delete_cpu, csv),
            ],
            "QP run",
        );
        // `+++++` stays absent, never zero.
        assert_eq!(result(run, "seq_stat", "per_s"), None);
        assert_eq!(run.results.len(), 18);
    }
}

const TIDB: &str = "markup/real-tidb-lessons-2020-md-fences-bold-br-sysbench-reports";

#[test]
fn markdown_fences_bold_and_br_around_three_sysbench_reports() {
    let doc = read(TIDB);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::Sysbench);
    assert_eq!(runs.len(), 3);
    // A ```yaml fence reads as a blank line: each run starts on the line
    // after its fence (20, 50, 80), not on the fence.
    let want: [([usize; 2], Expected); 3] = [
        (
            [20, 44],
            &[
                ("total", "read_queries", 4953915.0, 22),
                ("total", "tps", 27521.31, 26),
                ("total", "qps", 27521.31, 27),
                ("total", "total_time_s", 180.0018, 32),
                ("total", "latency_p95_ms", 0.42, 39),
                ("total", "latency_sum_ms", 1437284.27, 40),
            ],
        ),
        (
            // This block's first line is ` SQL statistics:`, one space in.
            [50, 74],
            &[
                ("total", "write_queries", 1215.0, 53),
                ("total", "tps", 6.72, 56),
                ("total", "latency_max_ms", 3374.54, 68),
                ("total", "latency_p95_ms", 1618.78, 69),
            ],
        ),
        (
            [80, 104],
            &[
                ("total", "other_queries", 272052.0, 84),
                ("total", "tps", 755.65, 86),
                ("total", "qps", 12090.38, 87),
                ("total", "events", 136026.0, 93),
                ("total", "latency_p95_ms", 14.73, 99),
            ],
        ),
    ];
    let labels = [
        "Point select output",
        "Update index output",
        "Read-only output",
    ];
    for ((run, (lines, values)), label) in runs.iter().zip(want).zip(labels) {
        assert_eq!(run.lines, lines);
        assert_eq!(run.quote_depth, 0);
        assert_eq!(run.threads, None);
        // Each report's own `Point select output:` line under the
        // `## sysbench测试报告` heading; `**…**<br>` above it is gone.
        assert_eq!(run.label.as_deref(), Some(label));
        assert_results(run, values, "TiDB lesson");
        assert_eq!(run.results.len(), 16);
    }
}

const APPLEBOY: &str = "markup/real-appleboy-blog-2014-pre-class-brush-sysbench-0.5-report";

#[test]
fn pre_tags_with_attributes_and_a_dollar_prompt_around_sysbench_0_5() {
    let doc = read(APPLEBOY);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::Sysbench);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    // `<pre class="brush: bash; …">$ sysbench … run</pre>`: tag, prompt
    // and closing tag are gone, so the command and its thread count read.
    assert_eq!(
        run.command.as_deref(),
        Some(
            "sysbench --test=oltp --db-driver=mysql --mysql-engine-trx=yes \
             --mysql-table-engine=innodb --mysql-host=127.0.0.1 --mysql-port=3307 \
             --mysql-user=xxxx --mysql-password=xxxxx --oltp-auto-inc=off \
             --test=/usr/share/doc/sysbench/tests/db/oltp.lua --oltp-table-size=100000 \
             --num-threads=100 run"
        )
    );
    assert_eq!(run.threads, Some(100));
    assert_eq!(run.test.as_deref(), Some("oltp"));
    assert_eq!(run.label.as_deref(), Some("看結果"));
    // The report opens on the `<pre …>OLTP test statistics:` line (68)
    // and closes on `… 214.2758/0.75</pre>` (91).
    assert_eq!(run.lines[1], 91);
    assert_results(
        run,
        &[
            ("total", "read_queries", 172102.0, 70),
            ("total", "transactions", 10000.0, 74),
            ("total", "tps", 46.37, 74),
            ("total", "deadlocks", 2293.0, 75),
            ("total", "rw_requests_per_s", 1025.0, 76),
            ("total", "total_time_s", 215.654, 80),
            ("total", "latency_min_ms", 53.45, 84),
            ("total", "latency_p95_ms", 5689.02, 87),
        ],
        "appleboy",
    );
    assert_eq!(run.results.len(), 17);
}

#[test]
fn appleboy_run_span_starts_at_the_run_command() {
    // The span starts at the `run` command of line 58 that the run's
    // command is read from, not at the `prepare` command of line 50.
    let doc = read(APPLEBOY);
    assert_eq!(runs(&doc, Tool::Sysbench)[0].lines, [58, 91]);
}

const OTUS: &str = "markup/real-otus-homework-md-br-line-ends-blockquote-sysbench-innodb-myisam";

#[test]
fn lazy_markdown_blockquote_gives_two_runs() {
    // Each section opens with `>SQL statistics:<br>` (a markdown
    // blockquote) and goes on unquoted (markdown's lazy continuation).
    let doc = read(OTUS);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::Sysbench);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].lines, [34, 58]);
    assert_results(
        runs[0],
        &[
            ("total", "tps", 70.45, 40),
            ("total", "qps", 1410.65, 41),
            ("total", "ignored_errors", 1.0, 42),
            ("total", "total_time_s", 10.543, 46),
            ("total", "latency_p95_ms", 1213.57, 53),
        ],
        "InnoDB",
    );
    assert_eq!(runs[1].lines, [62, 86]);
    assert_results(
        runs[1],
        &[
            ("total", "tps", 109.21, 68),
            ("total", "qps", 2184.11, 69),
            ("total", "total_time_s", 10.0056, 74),
            ("total", "latency_p95_ms", 13.22, 81),
        ],
        "MyISAM",
    );
}

const DRIZZLE: &str = "markup/real-drizzle-docs-2011-kewpie-sqlbench-stamped-summary";

#[test]
fn stamped_run_all_tests_summary_reads() {
    // Every line of the example is `    20110608-135645  …` (a
    // reStructuredText literal block, four spaces in): with the indent and
    // the stamps taken off it is a run-all-tests summary from line 109
    // (`Benchmark DBD suite: 2.15`), and the `<snip>` of line 136 only
    // leaves rows out of its per-operation table.
    let doc = read(DRIZZLE);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::SqlBench);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.lines, [109, 141]);
    assert_eq!(
        run.attrs.get("db_server").map(String::as_str),
        Some("Drizzle")
    );
    assert_eq!(
        run.attrs.get("tool_version").map(String::as_str),
        Some("2.15")
    );
    assert_results(
        run,
        &[
            ("test-alter-table", "wallclock_s", 42.0, 119),
            ("test-insert", "wallclock_s", 1962.0, 124),
            ("test-wisconsin", "cpu_s", 2.63, 127),
            ("connect", "tests", 2000.0, 135),
            ("update_rollback", "wallclock_s", 3.0, 137),
            ("TOTALS", "wallclock_s", 2865.0, 141),
            ("TOTALS", "tests", 2_974_250.0, 141),
        ],
        "kewpie sql-bench",
    );
}

#[test]
fn triple_quoted_bonnie_1_96_file_creation_table() {
    let doc = read("bonnie/real-markup-linux-mm-2013-triple-quoted-1.96-file-creation-and-csv");
    let runs = runs(&doc, Tool::Bonnie);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    // `>>> Version  1.96 …`: three levels of `>` in a reply to a reply.
    assert_eq!(run.quote_depth, 3);
    assert_eq!(run.lines, [97, 101]);
    assert_eq!(run.attrs.get("machine").map(String::as_str), Some("fslab3"));
    assert_eq!(run.attrs.get("files").map(String::as_str), Some("60:32:32"));
    assert_results(
        run,
        &[
            ("seq_create", "per_s", 1702.0, 100),
            ("seq_create", "cpu_pct", 14.0, 100),
            ("random_delete", "per_s", 1266.0, 100),
            ("seq_create", "latency_us", 3_874_000.0, 101),
            ("random_create", "latency_us", 505_000.0, 101),
        ],
        "linux-mm",
    );
    assert_eq!(run.results.len(), 18);
    // Reported: the table is Bernd Schubert's own (quoted by him with
    // `> `, then by Dave Chinner and Bernd again); the `Ric Wheeler
    // wrote:` attribution of line 27 is still taken to hold at depth 3.
    assert_eq!(run.author.as_deref(), Some("Ric Wheeler"));
    // Reported to the bonnie++ reader: the real 1.96 CSV line of `-s 0`
    // has 47 fields.
    assert_eq!(doc.unparsed.len(), 1);
    assert_eq!(doc.unparsed[0].line, 102);
}

#[test]
fn double_quoted_tables_with_spaced_machine_names() {
    // `>>` is read, and so are machine names with spaces in them
    // (`compiled in`) or glued to the size (`Raid0 (8 disk)15744M`).
    type Row<'a> = (&'a str, &'a str, f64, f64, usize);
    let cases: [(&str, &[Row<'_>]); 2] = [
        (
            "bonnie/real-lkml-2005-double-quoted-name-with-space-fusion-reply",
            &[
                ("compiled in", "15872M", 38366.0, 905.4, 40),
                ("module", "15872M", 51246.0, 923.0, 41),
            ],
        ),
        (
            "bonnie/real-lkml-2005-double-quoted-names-glued-to-size",
            &[
                ("Raid0 (8 disk)", "15744M", 54406.0, 830.2, 45),
                ("Raid0s(4 disk)", "15744M", 54915.0, 659.8, 46),
                ("Raid0s(4 disk)", "15744M", 54866.0, 666.3, 47),
            ],
        ),
    ];
    for (name, want) in cases {
        let doc = read(name);
        assert!(doc.unparsed.is_empty(), "{name}: {:?}", doc.unparsed);
        let runs = runs(&doc, Tool::Bonnie);
        assert_eq!(runs.len(), want.len(), "{name}");
        for (run, &(machine, size, per_chr, seeks, line)) in runs.iter().zip(want) {
            assert_eq!(run.quote_depth, 2, "{name}");
            assert_eq!(run.attrs.get("machine").map(String::as_str), Some(machine));
            assert_eq!(run.attrs.get("size").map(String::as_str), Some(size));
            assert_results(
                run,
                &[
                    ("seq_output_char", "kb_per_s", per_chr, line),
                    ("random_seeks", "per_s", seeks, line),
                ],
                name,
            );
        }
        assert_eq!(doc.messages[0].author.as_deref(), Some("Holger Kiehl"));
    }
}

const TIDB_ESCAPED: &str =
    "markup/real-tidb-homework-md-backslash-escapes-blockquoted-sysbench-intervals";

#[test]
fn blockquoted_sysbench_reports_read_with_their_escaped_intervals() {
    let doc = read(TIDB_ESCAPED);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::Sysbench);
    assert_eq!(runs.len(), 3);
    // Each report is a markdown blockquote (`> `, `>` and `> ` blank
    // lines mixed): depth 1, threads from its own header.
    for (run, lines) in runs.iter().zip([[89, 137], [143, 191], [197, 245]]) {
        assert_eq!(run.lines, lines);
        assert_eq!(run.quote_depth, 1);
        assert_eq!(run.threads, Some(8));
        assert_eq!(
            run.attrs.get("tool_version").map(String::as_str),
            Some("1.0.20")
        );
    }
    assert_results(
        runs[0],
        &[
            ("total", "tps", 194.02, 119),
            ("total", "total_time_s", 60.048, 125),
            ("total", "latency_p95_ms", 144.97, 132),
        ],
        "point select",
    );
    assert_results(
        runs[1],
        &[
            ("t=10s", "tps", 13.99, 155),
            ("t=60s", "latency_p95_ms", 397.39, 165),
            ("total", "tps", 37.8, 173),
            ("total", "latency_p95_ms", 458.96, 186),
        ],
        "update index",
    );
    assert_results(
        runs[2],
        &[
            ("t=10s", "qps", 353.3, 209),
            ("t=40s", "latency_p95_ms", 1170.65, 215),
            ("total", "qps", 346.08, 228),
            ("total", "latency_p95_ms", 746.32, 240),
        ],
        "read only",
    );
    // The first report's interval lines are markdown-escaped (`\[ 10s \]
    // … \(r/w/o: …\) lat \(ms,95%\): …`, lines 101-111): the escapes go,
    // and its six intervals are read.
    let intervals = runs[0].results.iter().filter(|m| m.item != "total").count();
    assert_eq!(intervals, runs[0].results.len() - 16);
    assert!(intervals >= 6 * 4, "{intervals}");
    // 16 totals, and six intervals of five values and their error and
    // reconnect rates.
    assert_eq!(runs[1].results.len(), 16 + 6 * 7);
    assert_eq!(
        runs[1]
            .results
            .iter()
            .filter(|m| m.metric == "err_per_s" || m.metric == "reconn_per_s")
            .count(),
        6 * 2
    );
}

#[test]
fn escaped_interval_lines_read() {
    let doc = read(TIDB_ESCAPED);
    let run = runs(&doc, Tool::Sysbench)[0];
    assert_results(
        run,
        &[
            ("t=10s", "tps", 73.05, 101),
            ("t=10s", "latency_p95_ms", 248.83, 101),
            ("t=30s", "qps", 190.98, 105),
            ("t=60s", "tps", 245.73, 111),
            ("t=60s", "latency_p95_ms", 108.68, 111),
        ],
        "escaped intervals",
    );
}

#[test]
fn br_inside_a_line_of_a_fenced_sysbench_report() {
    // `transactions:   4552   <br>(73.34 per sec.)<br>`: both tags go,
    // and the rate stays on its line.
    let doc = read("markup/real-otus-pg-homework-md-br-inside-transactions-line-sysbench-tpcc");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::Sysbench);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_results(
        run,
        &[
            ("total", "read_queries", 59248.0, 60),
            ("total", "transactions", 4552.0, 64),
            ("total", "tps", 73.34, 64),
            ("total", "qps", 2097.23, 65),
            ("total", "ignored_errors", 34.0, 66),
        ],
        "tpcc",
    );
    assert_eq!(run.results.len(), 9);
    // Reported: the span starts at the `sysbench --version` banner of
    // line 27 (another fence, another command), and the `--threads=30`
    // of the `./tpcc.lua … run` command (line 54) is not taken.
    assert_eq!(run.lines, [27, 67]);
    assert_eq!(run.threads, None);
}

#[test]
fn double_quoted_wrapped_table_and_csv_split_by_a_quoted_blank_line() {
    let doc = read("bonnie/real-lkml-2003-double-quoted-wrapped-table-after-spaced-dmesg");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = runs(&doc, Tool::Bonnie);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    // `>> ` quoting under `Ed Sweetman wrote:` and, one deeper, `Luis
    // Miguel García wrote:`; every table row wrapped at 72 columns, the
    // CSV line cut inside `+++` with a quoted blank line between.
    assert_eq!(run.quote_depth, 2);
    assert_eq!(run.lines, [588, 606]);
    assert_eq!(run.author.as_deref(), Some("Luis Miguel García"));
    assert_eq!(run.attrs.get("machine").map(String::as_str), Some("txiki"));
    // Values come from the CSV line (as in the mail this one answers,
    // `real-lkml-2003-quoted-wrapped-csv-split-plus`), at its last line.
    assert_results(
        run,
        &[
            ("seq_output_char", "kb_per_s", 21270.0, 606),
            ("random_seeks", "per_s", 157.0, 606),
            ("seq_delete", "per_s", 23523.0, 606),
            ("random_delete", "cpu_pct", 61.0, 606),
        ],
        "txiki",
    );
    assert_eq!(result(run, "seq_stat", "per_s"), None);
    assert_eq!(run.results.len(), 20);
    // The RFC 2047 `From:` of line 14 is decoded.
    assert_eq!(
        doc.messages[0].author.as_deref(),
        Some("Luis Miguel García")
    );
}
