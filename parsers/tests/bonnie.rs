//! Seed 001's classic Bonnie table value by value, and the key values of
//! the bonnie++ fixtures: tables, CSV lines of each format version, and a
//! table with its CSV line read as one run.

use parsers::{parse, Document, Run, Tool};

fn fixture(name: &str) -> Document {
    let path = format!(
        "{}/../fixtures/bonnie/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("fixture {path}")))
}

fn bonnie_runs(doc: &Document) -> Vec<&Run> {
    doc.runs.iter().filter(|r| r.tool == Tool::Bonnie).collect()
}

fn attr<'a>(run: &'a Run, key: &str) -> Option<&'a str> {
    run.attrs.get(key).map(String::as_str)
}

fn unit_of<'a>(run: &'a Run, item: &str, metric: &str) -> Option<(&'a str, usize)> {
    run.results
        .iter()
        .find(|m| m.item == item && m.metric == metric)
        .map(|m| (m.unit.as_str(), m.line))
}

const ITEMS: [&str; 6] = [
    "seq_output_char",
    "seq_output_block",
    "seq_output_rewrite",
    "seq_input_char",
    "seq_input_block",
    "random_seeks",
];

#[test]
fn seed_001_has_three_classic_bonnie_runs() {
    let doc = fixture("seed-001-freebsd-vs-linux-rt-database");
    let runs = bonnie_runs(&doc);
    assert_eq!(runs.len(), 3);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    // (machine, 12 figures in print order, last line of the wrapped row)
    let want: [(&str, [f64; 12], usize); 3] = [
        (
            "amd64SMP",
            [
                110199.0, 72.8, 110363.0, 26.0, 34922.0, 9.7, 77879.0, 69.9, 123349.0, 17.3, 729.0,
                2.5,
            ],
            33,
        ),
        (
            "amd64UP",
            [
                111557.0, 68.6, 114372.0, 20.9, 25162.0, 4.8, 98951.0, 88.1, 124080.0, 14.7, 720.7,
                1.9,
            ],
            35,
        ),
        (
            "LINUXSMP",
            [
                91132.0, 91.4, 103707.0, 43.9, 61248.0, 17.4, 50721.0, 92.5, 139426.0, 11.4, 926.0,
                0.7,
            ],
            37,
        ),
    ];
    for (run, (machine, figures, last)) in runs.iter().zip(want) {
        assert_eq!(attr(run, "machine"), Some(machine));
        assert_eq!(attr(run, "size"), Some("5000M"), "{machine}");
        assert_eq!(run.test.as_deref(), Some("bonnie"), "{machine}");
        assert_eq!(run.threads, None, "{machine}");
        assert_eq!(run.quote_depth, 0);
        assert_eq!(run.lines, [27, last], "{machine}");
        assert_eq!(
            run.results.len(),
            12,
            "{machine}: no latency in classic Bonnie"
        );
        for (k, item) in ITEMS.iter().enumerate() {
            let rate_metric = if *item == "random_seeks" {
                "per_s"
            } else {
                "kb_per_s"
            };
            assert_eq!(
                run.value(item, rate_metric),
                Some(figures[2 * k]),
                "{machine} {item}"
            );
            assert_eq!(
                run.value(item, "cpu_pct"),
                Some(figures[2 * k + 1]),
                "{machine} {item} cpu"
            );
        }
        assert_eq!(run.author.as_deref(), Some("Mike Tancsa"));
    }
    let smp = runs[0];
    assert_eq!(
        unit_of(smp, "seq_output_char", "kb_per_s"),
        Some(("KB/s", 32))
    );
    assert_eq!(unit_of(smp, "seq_input_block", "cpu_pct"), Some(("%", 33)));
    assert_eq!(unit_of(smp, "random_seeks", "per_s").map(|u| u.1), Some(33));
}

#[test]
fn table_followed_by_its_csv_is_one_run_with_the_csv_values() {
    let doc = fixture("bonnie++-2.00a-table-and-its-csv-are-one-run");
    let runs = bonnie_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.test.as_deref(), Some("bonnie++"));
    assert_eq!(attr(run, "tool_version"), Some("2.00a"));
    assert_eq!(attr(run, "machine"), Some("dbhost"));
    assert_eq!(attr(run, "size"), Some("256M"));
    assert_eq!(attr(run, "files"), Some("64"));
    assert_eq!(run.lines, [7, 17]);
    // The table says 65536 files/s; the CSV's exact figure wins.
    assert_eq!(run.value("seq_create", "per_s"), Some(32546.0));
    assert_eq!(run.value("random_delete", "per_s"), Some(122312.0));
    assert_eq!(run.value("seq_output_char", "kb_per_s"), Some(3613.0));
    // +++++ is absent, never zero.
    assert_eq!(run.value("seq_output_block", "kb_per_s"), None);
    assert_eq!(run.value("seq_output_block", "cpu_pct"), None);
    assert_eq!(run.value("random_seeks", "per_s"), None);
    assert_eq!(run.value("seq_output_block", "latency_us"), Some(8230.0));
    assert_eq!(unit_of(run, "seq_create", "latency_us"), Some(("us", 17)));
}

#[test]
fn fast_mode_blank_columns_are_absent() {
    let doc = fixture("bonnie++-2.00a-fast-mode-blank-columns");
    let run = bonnie_runs(&doc)[0];
    assert_eq!(run.value("seq_output_char", "latency_us"), None);
    assert_eq!(run.value("seq_input_char", "latency_us"), None);
    assert_eq!(run.value("seq_output_block", "latency_us"), Some(2645.0));
    assert_eq!(run.value("random_seeks", "latency_us"), Some(7372.0));
    assert!(
        run.results.iter().all(|m| m.metric == "latency_us"),
        "every rate was +++++"
    );
}

#[test]
fn csv_format_versions() {
    // (fixture, runs, machine, size, seq_output_char kb/s, seeks, latency of block writes)
    let cases = [
        (
            "bonnie++-2.00a-quiet-csv-only",
            1,
            "benchbox",
            Some("64M"),
            Some(3596.0),
            None,
            Some(4098.0),
        ),
        (
            "bonnie++-2.00a-x2-concurrency-csv-with-header",
            2,
            "dbhost",
            Some("128M"),
            Some(3846.0),
            None,
            Some(341.0),
        ),
        (
            "bonnie++-1.96-concurrency-and-ms-latency",
            1,
            "tank",
            Some("4G"),
            Some(601.0),
            Some(1204.0),
            Some(512_000.0),
        ),
        (
            "bonnie++-1.92a-wrapped-46-field-csv",
            1,
            "sparky",
            Some("1248M"),
            Some(81.0),
            Some(271.3),
            Some(2_601_000.0),
        ),
        (
            "bonnie++-1.03-quoted-and-wrapped",
            1,
            "pokey",
            Some("2G"),
            Some(29870.0),
            Some(212.4),
            None,
        ),
        (
            "bonnie++-2.00a-file-tests-only",
            1,
            "benchbox",
            None,
            None,
            None,
            None,
        ),
    ];
    for (i, (name, count, machine, size, putc, seeks, block_latency)) in
        cases.into_iter().enumerate()
    {
        let doc = fixture(name);
        let runs = bonnie_runs(&doc);
        assert_eq!(runs.len(), count, "case {i} {name}");
        assert!(
            doc.unparsed.is_empty(),
            "case {i} {name}: {:?}",
            doc.unparsed
        );
        let run = runs[0];
        assert_eq!(attr(run, "machine"), Some(machine), "case {i} {name}");
        assert_eq!(attr(run, "size"), size, "case {i} {name}");
        assert_eq!(
            run.value("seq_output_char", "kb_per_s"),
            putc,
            "case {i} {name}"
        );
        assert_eq!(run.value("random_seeks", "per_s"), seeks, "case {i} {name}");
        assert_eq!(
            run.value("seq_output_block", "latency_us"),
            block_latency,
            "case {i} {name}"
        );
    }
}

#[test]
fn concurrency_and_file_parameters_become_attrs() {
    let doc = fixture("bonnie++-2.00a-x2-concurrency-csv-with-header");
    let runs = bonnie_runs(&doc);
    assert!(runs.iter().all(|r| attr(r, "concurrency") == Some("2")));
    assert_eq!(runs[1].value("seq_create", "per_s"), Some(6532.0));
    let doc = fixture("bonnie++-2.00a-files-max-min-dirs");
    let run = bonnie_runs(&doc)[0];
    assert_eq!(attr(run, "files"), Some("2:4096:1024/2"));
    assert_eq!(
        attr(run, "concurrency"),
        None,
        "the default of one is not kept"
    );
    assert_eq!(run.value("seq_delete", "per_s"), Some(1785.0));
}

#[test]
fn quoted_and_wrapped_1_03_run() {
    let doc = fixture("bonnie++-1.03-quoted-and-wrapped");
    let run = bonnie_runs(&doc)[0];
    assert_eq!(run.quote_depth, 1);
    assert_eq!(run.lines, [6, 23]);
    assert_eq!(attr(run, "tool_version"), Some("1.03"));
    assert_eq!(attr(run, "files"), Some("16"));
    assert_eq!(run.value("random_delete", "per_s"), Some(9377.0));
    assert_eq!(run.value("random_delete", "cpu_pct"), Some(93.0));
    assert_eq!(run.value("seq_stat", "per_s"), None);
}

#[test]
fn bon_csv2txt_zero_k_under_plus_cpu_is_absent() {
    let doc = fixture("bon-csv2txt-renders-plus-as-0k");
    let runs = bonnie_runs(&doc);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].value("seq_output_block", "kb_per_s"), None);
    assert_eq!(runs[0].value("seq_output_char", "kb_per_s"), Some(3613.0));
    assert_eq!(runs[0].value("random_delete", "per_s"), Some(122312.0));
    assert_eq!(attr(runs[1], "files"), Some("2:4096:1024:2"));
    assert_eq!(runs[1].value("seq_delete", "per_s"), Some(1785.0));
}

#[test]
fn classic_rows_are_runs_of_their_own() {
    let doc = fixture("bonnie-classic-two-machines");
    let runs = bonnie_runs(&doc);
    assert_eq!(runs.len(), 2);
    assert_eq!(
        attr(runs[1], "machine"),
        Some("ufs-asyn"),
        "Bonnie prints eight characters"
    );
    assert_eq!(runs[1].value("seq_output_block", "kb_per_s"), Some(41290.0));
    assert_eq!(runs[1].value("random_seeks", "cpu_pct"), Some(1.6));
}

#[test]
fn truncated_table_is_a_near_miss_not_a_run() {
    let doc = fixture("truncated-table-is-a-near-miss");
    assert!(bonnie_runs(&doc).is_empty());
    assert_eq!(doc.unparsed.len(), 1);
    assert_eq!(doc.unparsed[0].line, 5);
}

#[test]
fn other_tools_fixtures_hold_no_bonnie_runs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
    for dir in std::fs::read_dir(root).expect("fixtures").flatten() {
        // fixtures/SOURCES.md sits beside the tool folders, and folders
        // named for a kind of quirk (prose-labels) hold any tool's posts.
        let other_tool = dir
            .file_name()
            .to_str()
            .and_then(Tool::from_name)
            .is_some_and(|tool| tool != Tool::Bonnie);
        if !other_tool || !dir.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(dir.path())
            .expect("tool folder")
            .flatten()
        {
            let path = file.path();
            if path.extension().is_some_and(|e| e == "txt") {
                let doc = parse(&std::fs::read_to_string(&path).expect("UTF-8 fixture"));
                assert!(bonnie_runs(&doc).is_empty(), "{}", path.display());
                assert!(
                    doc.unparsed.iter().all(|u| !u.why.contains("onnie")),
                    "{}: {:?}",
                    path.display(),
                    doc.unparsed
                );
            }
        }
    }
}

/// Every fixture of both disk tools cut after each line, and each line cut
/// at each character: parsing returns, and what it returns stays inside
/// the text with finite values.
#[test]
fn cut_fixtures_never_panic() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
    for tool in ["bonnie", "diskinfo"] {
        for file in std::fs::read_dir(format!("{root}/{tool}"))
            .expect("tool folder")
            .flatten()
        {
            let path = file.path();
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("UTF-8 fixture");
            let lines: Vec<&str> = text.lines().take(120).collect();
            for cut in 0..lines.len() {
                let mut prefix = lines[..cut].join("\n");
                let last = lines[cut];
                for (at, _) in last.char_indices().step_by(7) {
                    let input = format!("{prefix}\n{}", &last[..at]);
                    let doc = parse(&input);
                    let count = input.split('\n').count();
                    for run in &doc.runs {
                        assert!(
                            run.lines[0] >= 1
                                && run.lines[0] <= run.lines[1]
                                && run.lines[1] <= count
                        );
                        assert!(run.results.iter().all(|m| m.value.is_finite()));
                    }
                }
                prefix.push('\n');
            }
        }
    }
}

/// Real whole mails (and one real capture) whose tables no print format
/// shows: (fixture, runs, checks of one run each: index, machine, size,
/// item, metric, value, line).
#[test]
fn real_table_variants() {
    type Check = (
        usize,
        Option<&'static str>,
        Option<&'static str>,
        &'static str,
        &'static str,
        f64,
        usize,
    );
    let cases: [(&str, usize, &[Check]); 14] = [
        (
            "real-lkml-2005-machine-name-with-a-space",
            2,
            &[(
                0,
                Some("compiled in"),
                Some("15872M"),
                "seq_output_block",
                "kb_per_s",
                65602.0,
                31,
            )],
        ),
        (
            "real-lkml-2005-names-glued-to-size-quoted-and-split",
            7,
            &[
                (
                    0,
                    Some("Raid0 (8 disk)"),
                    Some("15744M"),
                    "random_seeks",
                    "per_s",
                    830.2,
                    70,
                ),
                (
                    3,
                    Some("Raid5 (8 disk)"),
                    Some("15744M"),
                    "seq_input_block",
                    "kb_per_s",
                    207348.0,
                    77,
                ),
                (
                    6,
                    Some("/dev/sdc"),
                    Some("15744M"),
                    "seq_output_char",
                    "cpu_pct",
                    95.0,
                    85,
                ),
            ],
        ),
        (
            "real-lkml-2005-double-quoted-names-glued-to-size",
            3,
            &[(
                2,
                Some("Raid0s(4 disk)"),
                Some("15744M"),
                "seq_output_block",
                "kb_per_s",
                268361.0,
                47,
            )],
        ),
        (
            "real-lkml-2003-rows-without-a-header-line",
            2,
            &[(
                1,
                Some("LinuxThreads"),
                Some("100M"),
                "seq_output_rewrite",
                "kb_per_s",
                59075.0,
                40,
            )],
        ),
        (
            "real-lkml-2003-quoted-rows-without-a-header-line",
            4,
            &[
                (
                    0,
                    Some("NPTL"),
                    Some("100M"),
                    "seq_output_block",
                    "kb_per_s",
                    127068.0,
                    42,
                ),
                (
                    3,
                    Some("LinuxThreads"),
                    Some("100M"),
                    "seq_input_char",
                    "kb_per_s",
                    26777.0,
                    62,
                ),
            ],
        ),
        (
            "real-linux-mm-2000-classic-blank-line-under-header",
            12,
            &[
                (
                    1,
                    Some("TEST5"),
                    Some("256M"),
                    "seq_output_char",
                    "cpu_pct",
                    100.0,
                    43,
                ),
                (
                    11,
                    Some("TEST1"),
                    Some("256M"),
                    "random_seeks",
                    "per_s",
                    173.5,
                    56,
                ),
            ],
        ),
        (
            "real-linux-mm-2000-quoted-classic-blank-quote-under-header",
            2,
            &[(
                1,
                Some("TEST4"),
                Some("256M"),
                "seq_output_block",
                "kb_per_s",
                9915.0,
                24,
            )],
        ),
        (
            "real-lkml-2001-classic-rows-without-a-name",
            2,
            &[(
                1,
                None,
                Some("1024M"),
                "seq_input_block",
                "kb_per_s",
                23509.0,
                67,
            )],
        ),
        (
            "real-linux-mm-1998-classic-nameless-rows-and-carets",
            2,
            &[(
                1,
                None,
                Some("100M"),
                "seq_input_block",
                "kb_per_s",
                17860.0,
                63,
            )],
        ),
        (
            "real-lkml-2001-classic-label-lines-and-tab-rows",
            16,
            &[
                (
                    0,
                    Some("pblade 1 (reiserfs defaults)"),
                    Some("1000M"),
                    "random_seeks",
                    "per_s",
                    1011.2,
                    54,
                ),
                (
                    4,
                    Some("pblade 2 (ext2 defaults)"),
                    Some("1000M"),
                    "random_seeks",
                    "cpu_pct",
                    6.4,
                    60,
                ),
                (
                    7,
                    Some("pblade 2 (ext2 defaults)"),
                    Some("1000M"),
                    "seq_output_char",
                    "cpu_pct",
                    100.0,
                    63,
                ),
                (
                    15,
                    Some("pblade 6 ( log new data )"),
                    Some("1000M"),
                    "seq_output_char",
                    "kb_per_s",
                    5592.0,
                    73,
                ),
            ],
        ),
        (
            "real-lkml-2002-bonnie-1.2-name-glued-to-volumes-and-size",
            2,
            &[
                (
                    0,
                    Some("localh"),
                    Some("256M"),
                    "seq_output_block",
                    "kb_per_s",
                    58316.0,
                    46,
                ),
                (
                    1,
                    Some("localh"),
                    Some("1024M"),
                    "random_seeks",
                    "per_s",
                    159.4,
                    61,
                ),
            ],
        ),
        (
            "real-lkml-2001-bonnie-1.2-nameless-row-wrapped-seeks",
            1,
            &[(0, None, Some("1024M"), "random_seeks", "cpu_pct", 6.4, 46)],
        ),
        (
            "real-lkml-2003-bon-csv2txt-x2-size-with-chunk",
            2,
            &[(
                1,
                Some("Gaia"),
                Some("1G"),
                "random_delete",
                "per_s",
                1339.0,
                52,
            )],
        ),
        (
            "real-github-2009-bonnie64-gigabytes-and-mb-per-sec",
            10,
            &[
                (
                    0,
                    Some("EBS-0.1G"),
                    None,
                    "random_seeks",
                    "per_s",
                    15384.0,
                    5,
                ),
                (
                    4,
                    Some("EBS-5GB"),
                    Some("5G"),
                    "seq_input_block",
                    "kb_per_s",
                    51.6 * 1024.0,
                    23,
                ),
                (
                    4,
                    Some("EBS-5GB"),
                    Some("5G"),
                    "random_seeks",
                    "cpu_pct",
                    0.0,
                    23,
                ),
            ],
        ),
    ];
    for (i, (name, count, checks)) in cases.into_iter().enumerate() {
        let doc = fixture(name);
        let runs = bonnie_runs(&doc);
        assert_eq!(runs.len(), count, "case {i} {name}");
        assert!(
            doc.unparsed.is_empty(),
            "case {i} {name}: {:?}",
            doc.unparsed
        );
        for (k, &(run, machine, size, item, metric, value, line)) in checks.iter().enumerate() {
            let run = runs[run];
            assert_eq!(attr(run, "machine"), machine, "case {i} {name} check {k}");
            assert_eq!(attr(run, "size"), size, "case {i} {name} check {k}");
            assert_eq!(
                run.value(item, metric),
                Some(value),
                "case {i} {name} check {k}"
            );
            assert_eq!(
                unit_of(run, item, metric).map(|(_, l)| l),
                Some(line),
                "case {i} {name} check {k}"
            );
        }
    }
}

#[test]
fn a_classic_table_headed_kernel_gives_each_row_its_kernel() {
    // LKML, July 2003 (Andrea Arcangeli): `Kernel     MB K/sec %CPU ...`,
    // three runs under each of three kernels, groups split by blank lines.
    let doc = fixture("real-lkml-2003-classic-kernel-column-three-kernels-x3");
    let runs = bonnie_runs(&doc);
    assert_eq!(runs.len(), 9);
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    // (kernel, row line, per-char output, its CPU share, seeks, their CPU share)
    let want: [(&str, usize, f64, f64, f64, f64); 9] = [
        ("2.4.21", 47, 11052.0, 77.3, 865.6, 2.8),
        ("2.4.21", 48, 13533.0, 94.5, 1254.3, 2.2),
        ("2.4.21", 49, 12402.0, 86.5, 1398.8, 3.8),
        ("22pre6", 51, 13070.0, 91.4, 959.9, 2.2),
        ("22pre6", 52, 13181.0, 92.2, 1271.9, 1.9),
        ("22pre6", 53, 14082.0, 98.5, 1450.6, 4.0),
        ("22pre6aa2", 55, 12703.0, 90.5, 775.9, 1.4),
        ("22pre6aa2", 56, 13241.0, 94.0, 843.5, 1.8),
        ("22pre6aa2", 57, 12948.0, 93.0, 740.6, 1.7),
    ];
    for (k, (run, (kernel, line, putc, putc_cpu, seeks, seeks_cpu))) in
        runs.iter().zip(want).enumerate()
    {
        assert_eq!(attr(run, "os_version"), Some(kernel), "row {k}");
        assert_eq!(
            attr(run, "machine"),
            None,
            "row {k}: a kernel is no machine"
        );
        assert_eq!(attr(run, "size"), Some("100M"), "row {k}");
        assert_eq!(run.test.as_deref(), Some("bonnie"), "row {k}");
        assert_eq!(run.lines, [44, line], "row {k}");
        assert_eq!(run.results.len(), 12, "row {k}");
        assert_eq!(
            run.value("seq_output_char", "kb_per_s"),
            Some(putc),
            "row {k}"
        );
        assert_eq!(
            run.value("seq_output_char", "cpu_pct"),
            Some(putc_cpu),
            "row {k}"
        );
        assert_eq!(run.value("random_seeks", "per_s"), Some(seeks), "row {k}");
        assert_eq!(
            run.value("random_seeks", "cpu_pct"),
            Some(seeks_cpu),
            "row {k}"
        );
        assert_eq!(
            unit_of(run, "random_seeks", "per_s"),
            Some(("1/s", line)),
            "row {k}"
        );
        assert_eq!(run.author.as_deref(), Some("Andrea Arcangeli"), "row {k}");
    }
    assert_eq!(runs[4].value("seq_output_block", "kb_per_s"), Some(18556.0));
    assert_eq!(runs[6].value("seq_input_block", "kb_per_s"), Some(37072.0));
}

#[test]
fn a_name_cut_twice_by_bonnie_1_95_is_one_run_with_the_longer_cut() {
    // Socorro's disk test notes (reStructuredText): the I/O row cuts the
    // machine name to fit the size (`tm-breakpad0 32000M`), the file
    // phases' decoration to 19 columns (`tm-breakpad01-maste`).
    let doc = fixture("real-rst-socorro-docs-1.95-name-cut-twice-one-run");
    let runs = bonnie_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(attr(run, "machine"), Some("tm-breakpad01-maste"));
    assert_eq!(attr(run, "size"), Some("32000M"));
    assert_eq!(attr(run, "files"), Some("100"));
    assert_eq!(attr(run, "concurrency"), Some("8"));
    assert_eq!(run.lines, [91, 100]);
    assert_eq!(run.results.len(), 32);
    assert_eq!(run.value("random_seeks", "latency_us"), Some(241_000.0));
    assert_eq!(run.value("seq_create", "per_s"), Some(44410.0));
    assert_eq!(unit_of(run, "seq_create", "per_s"), Some(("1/s", 99)));
    assert_eq!(run.value("seq_stat", "per_s"), None, "+++++ is absent");
    assert_eq!(run.value("random_delete", "latency_us"), Some(552.0));
}
