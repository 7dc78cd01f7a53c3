//! Builds a large results database for `scripts/bench-scale.sh`: at least
//! 1,000,000 results in 60,000 runs of all five tools, with realistic
//! attributes and thread counts, written straight with SQL in large
//! transactions (parsing that much text would measure the parser, not the
//! dashboard).
//!
//!     cargo run --release --example gen_scale_db -- PATH [RUNS]

use std::path::PathBuf;

use rusqlite::params;

const RUNS_PER_SUBMISSION: usize = 6;
const THREADS: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
const SCHEDULERS: [&str; 2] = ["ULE", "4BSD"];
const THREAD_LIBS: [&str; 3] = ["libthr", "libpthread", "libc_r"];
const OS_VERSIONS: [&str; 5] = [
    "5.3-RELEASE",
    "5.4-RELEASE",
    "6.0-RELEASE",
    "6.1-RELEASE",
    "7.0-CURRENT",
];
const TIMERS: [&str; 3] = ["TSC", "ACPI-fast", "i8254"];
const AUTHORS: [&str; 6] = [
    "Kris Kennaway",
    "Robert Watson",
    "Jeff Roberson",
    "David Xu",
    "Ivan Voras",
    "Peter Jeremy",
];

/// One tool's shape: its tests and the (item, metric, unit) it reports per run.
struct Shape {
    tool: &'static str,
    test: &'static str,
    results: Vec<(String, &'static str, &'static str)>,
}

fn shapes() -> Vec<Shape> {
    let mut smack = Vec::new();
    for item in ["select_index", "update_index"] {
        for (metric, unit) in [
            ("num_queries", "queries"),
            ("max_time", "ms"),
            ("min_time", "ms"),
            ("q_per_s", "q/s"),
        ] {
            smack.push((item.to_owned(), metric, unit));
        }
    }
    for metric in ["max_ms", "min_ms", "avg_ms"] {
        smack.push(("connect".to_owned(), metric, "ms"));
    }
    let sysbench = [
        ("tps", "1/s"),
        ("qps", "1/s"),
        ("transactions", "count"),
        ("queries", "count"),
        ("read_queries", "count"),
        ("write_queries", "count"),
        ("other_queries", "count"),
        ("ignored_errors", "count"),
        ("reconnects", "count"),
        ("total_time_s", "s"),
        ("events", "count"),
        ("latency_min_ms", "ms"),
        ("latency_avg_ms", "ms"),
        ("latency_max_ms", "ms"),
        ("latency_p95_ms", "ms"),
        ("latency_sum_ms", "ms"),
        ("qps_per_thread", "1/s"),
    ]
    .iter()
    .map(|&(metric, unit)| ("total".to_owned(), metric, unit))
    .collect();
    let sql_ops = [
        "alter_table_add",
        "alter_table_drop",
        "connect",
        "connect+select_simple",
        "count",
        "count_distinct",
        "create_index",
        "delete_big",
        "delete_key",
        "drop_index",
        "insert",
        "insert_duplicates",
        "insert_key",
        "insert_select_1_key",
        "order_by_big",
        "order_by_key",
        "select_big",
        "select_column+column",
        "select_diff_key",
        "select_distinct",
        "select_group",
        "select_join",
        "select_key",
        "select_range",
        "select_simple",
        "update_big",
        "update_key",
        "update_of_key",
        "update_with_key",
    ];
    let mut sql_bench: Vec<_> = sql_ops
        .iter()
        .map(|op| (op.to_string(), "wallclock_s", "s"))
        .collect();
    sql_bench.push(("TOTALS".to_owned(), "wallclock_s", "s"));
    let mut bonnie = Vec::new();
    for item in [
        "seq_output_char",
        "seq_output_block",
        "seq_output_rewrite",
        "seq_input_char",
        "seq_input_block",
    ] {
        bonnie.push((item.to_owned(), "kb_per_s", "KB/s"));
        bonnie.push((item.to_owned(), "cpu_pct", "%"));
    }
    for item in [
        "random_seeks",
        "seq_create",
        "seq_stat",
        "seq_delete",
        "random_create",
    ] {
        bonnie.push((item.to_owned(), "per_s", "1/s"));
        bonnie.push((item.to_owned(), "cpu_pct", "%"));
    }
    let diskinfo = [
        ("seek_full_stroke", "ms", "ms"),
        ("seek_half_stroke", "ms", "ms"),
        ("seek_quarter_stroke", "ms", "ms"),
        ("seek_short_forward", "ms", "ms"),
        ("seek_short_backward", "ms", "ms"),
        ("seq_outer", "ms", "ms"),
        ("seq_inner", "ms", "ms"),
        ("transfer_outside", "kb_per_s", "KB/s"),
        ("transfer_middle", "kb_per_s", "KB/s"),
        ("transfer_inside", "kb_per_s", "KB/s"),
        ("command_overhead", "ms", "ms"),
        ("async_random_reads", "iops", "IOPS"),
    ]
    .iter()
    .map(|&(item, metric, unit)| (item.to_owned(), metric, unit))
    .collect();
    vec![
        Shape {
            tool: "super-smack",
            test: "select-key",
            results: smack,
        },
        Shape {
            tool: "sysbench",
            test: "oltp",
            results: sysbench,
        },
        Shape {
            tool: "sql-bench",
            test: "run-all-tests",
            results: sql_bench,
        },
        Shape {
            tool: "bonnie",
            test: "bonnie++",
            results: bonnie,
        },
        Shape {
            tool: "diskinfo",
            test: "diskinfo -t",
            results: diskinfo,
        },
    ]
}

/// A small deterministic generator (xorshift), so every run builds the same database.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
    fn unit(&mut self) -> f64 {
        (self.next() % 1_000_000) as f64 / 1_000_000.0
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: gen_scale_db PATH [RUNS]"))?,
    );
    let total_runs: usize = args
        .next()
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(60_000);
    if path.exists() {
        let counts = benchlog::store::counts(&benchlog::store::open(&path)?)?;
        eprintln!(
            "{} exists: {} submissions, {} runs, {} results (kept)",
            path.display(),
            counts.submissions,
            counts.runs,
            counts.results
        );
        return Ok(());
    }
    let mut conn = benchlog::store::open(&path)?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    // Runs are written before their submission's text is complete.
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let shapes = shapes();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let submissions = total_runs.div_ceil(RUNS_PER_SUBMISSION);
    let (mut runs, mut results) = (0usize, 0usize);
    let started = std::time::Instant::now();
    for chunk in 0..submissions.div_ceil(1000) {
        let writer = benchlog::store::Writer::begin(&mut conn, None)?;
        let tx = writer.tx();
        {
            let mut add_submission = tx.prepare_cached(
                "INSERT INTO submissions (id, text, sha256, source_name, author, date, subject)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let mut add_run = tx.prepare_cached(
                "INSERT INTO runs (id, submission_id, idx, message_idx, tool, test, label, threads,
                                   quote_depth, author, command, first_line, last_line)
                 VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?11)",
            )?;
            let mut add_attr = tx.prepare_cached(
                "INSERT INTO run_attrs (run_id, tool, key, value) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let mut add_result = tx.prepare_cached(
                "INSERT INTO results (run_id, tool, item, metric, value, unit, line, estimated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0)",
            )?;
            for s in chunk * 1000..((chunk + 1) * 1000).min(submissions) {
                let id = s as i64 + 1;
                let shape = &shapes[s % shapes.len()];
                let author = rng.pick(&AUTHORS);
                let scheduler = rng.pick(&SCHEDULERS);
                let thread_lib = rng.pick(&THREAD_LIBS);
                let os_version = rng.pick(&OS_VERSIONS);
                let timer = rng.pick(&TIMERS);
                let ncpu = ["1", "2", "4", "8"][s % 4];
                let lines_per_run = shape.results.len() + 3;
                let mut text = format!(
                    "Here are {} results on a {ncpu}-CPU box, {os_version}, {scheduler} scheduler, {thread_lib}.\n\n",
                    shape.tool
                );
                let scale = 500.0 + 9_500.0 * rng.unit();
                for r in 0..RUNS_PER_SUBMISSION {
                    let run_id = (s * RUNS_PER_SUBMISSION + r) as i64 + 1;
                    let threads = THREADS[(r + s) % THREADS.len()];
                    let first_line = 3 + r * lines_per_run;
                    let command = format!("{} {} {threads}", shape.tool, shape.test);
                    text.push_str(&command);
                    text.push('\n');
                    add_run.execute(params![
                        run_id,
                        id,
                        r as i64,
                        shape.tool,
                        shape.test,
                        format!("{scheduler} / {thread_lib}"),
                        threads,
                        author,
                        command,
                        first_line as i64,
                        (first_line + lines_per_run - 2) as i64,
                    ])?;
                    for (key, value) in [
                        ("scheduler", scheduler),
                        ("thread_lib", thread_lib),
                        ("os_version", os_version),
                        ("timer", timer),
                        ("ncpu", ncpu),
                    ] {
                        add_attr.execute(params![run_id, shape.tool, key, value])?;
                    }
                    let speedup = (threads as f64).min(ncpu.parse::<f64>()? * 1.5).sqrt();
                    for (i, (item, metric, unit)) in shape.results.iter().enumerate() {
                        let value =
                            (scale * speedup * (0.9 + 0.2 * rng.unit()) * 100.0).round() / 100.0;
                        let line = first_line + 1 + i;
                        text.push_str(&format!("{item} {metric} {value} {unit}\n"));
                        add_result.execute(params![
                            run_id,
                            shape.tool,
                            item,
                            metric,
                            value,
                            unit,
                            line as i64
                        ])?;
                        results += 1;
                    }
                    text.push_str("\n\n");
                    runs += 1;
                }
                text.push_str("-- \nsent from the lab\n");
                add_submission.execute(params![
                    id,
                    text,
                    format!("{:064x}", id),
                    format!("scale-{id}.txt"),
                    author,
                    format!("2005-{:02}-{:02}", 1 + s % 12, 1 + s % 28),
                    format!("{} numbers, {scheduler} vs {thread_lib}", shape.tool),
                ])?;
            }
        }
        // The store's finish indexes the new submissions and sums the runs.
        writer.finish()?.commit()?;
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    eprintln!(
        "{}: {submissions} submissions, {runs} runs, {results} results in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
