//! Seed 001's `diskinfo -t /dev/da0s1` value by value, and the key values
//! of the diskinfo fixtures (6.x to 14.x output, -c, -i, -S, quoting).

use parsers::{parse, Document, Run, Tool};

fn read(path: &str) -> Document {
    let path = format!("{}/../fixtures/{path}.txt", env!("CARGO_MANIFEST_DIR"));
    parse(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("fixture {path}")))
}

fn diskinfo_runs(doc: &Document) -> Vec<&Run> {
    doc.runs
        .iter()
        .filter(|r| r.tool == Tool::Diskinfo)
        .collect()
}

fn attr<'a>(run: &'a Run, key: &str) -> Option<&'a str> {
    run.attrs.get(key).map(String::as_str)
}

#[test]
fn seed_001_has_one_complete_diskinfo_run() {
    let doc = read("bonnie/seed-001-freebsd-vs-linux-rt-database");
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.lines, [67, 86]);
    assert_eq!(run.threads, None);
    assert_eq!(run.quote_depth, 0);
    assert_eq!(run.command.as_deref(), Some("diskinfo -t /dev/da0s1"));
    assert_eq!(run.author.as_deref(), Some("Mike Tancsa"));
    for (key, value) in [
        ("device", "/dev/da0s1"),
        ("sectorsize", "512"),
        ("mediasize_bytes", "159973438464"),
        ("mediasize_sectors", "312448122"),
        ("cylinders", "19448"),
        ("heads", "255"),
        ("sectors", "63"),
    ] {
        assert_eq!(attr(run, key), Some(value), "{key}");
    }
    // The transfer-rate part is all there: seven seeks and three rates.
    let want = [
        ("seek_full_stroke", "ms", 5.760, "ms", 76),
        ("seek_half_stroke", "ms", 5.821, "ms", 77),
        ("seek_quarter_stroke", "ms", 12.703, "ms", 78),
        ("seek_short_forward", "ms", 3.353, "ms", 79),
        ("seek_short_backward", "ms", 7.341, "ms", 80),
        ("seq_outer", "ms", 0.176, "ms", 81),
        ("seq_inner", "ms", 0.184, "ms", 82),
        ("transfer_outside", "kb_per_s", 138007.0, "KB/s", 84),
        ("transfer_middle", "kb_per_s", 118238.0, "KB/s", 85),
        ("transfer_inside", "kb_per_s", 65345.0, "KB/s", 86),
    ];
    let got: Vec<(&str, &str, f64, &str, usize)> = run
        .results
        .iter()
        .map(|m| {
            (
                m.item.as_str(),
                m.metric.as_str(),
                m.value,
                m.unit.as_str(),
                m.line,
            )
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn key_values_of_each_fixture() {
    // (fixture, runs, device, item, metric, value)
    let cases = [
        (
            "freebsd-6-diskinfo-t-chs-header",
            1,
            "ad4",
            "transfer_inside",
            "kb_per_s",
            30607.0,
        ),
        (
            "freebsd-13-diskinfo-t-trim-rotation-attachment",
            1,
            "/dev/ada1",
            "seek_full_stroke",
            "ms",
            32.924,
        ),
        (
            "diskinfo-c-command-overhead",
            1,
            "da0",
            "command_overhead",
            "ms",
            0.231,
        ),
        (
            "diskinfo-i-async-random-reads-nvme",
            1,
            "nvd0",
            "async_random_reads",
            "iops",
            100398.0,
        ),
        (
            "diskinfo-wS-sync-random-writes-slog",
            1,
            "/dev/da3",
            "sync_random_writes_8192k",
            "mib_per_s",
            757.9,
        ),
        (
            "diskinfo-quoted-tabs-expanded-and-wrapped",
            1,
            "/dev/mfid0",
            "transfer_middle",
            "kb_per_s",
            229762.0,
        ),
        (
            "diskinfo-ct-two-disks-one-command",
            2,
            "ada0",
            "command_overhead",
            "ms",
            0.052,
        ),
    ];
    for (i, (name, count, device, item, metric, value)) in cases.into_iter().enumerate() {
        let doc = read(&format!("diskinfo/{name}"));
        let runs = diskinfo_runs(&doc);
        assert_eq!(runs.len(), count, "case {i} {name}");
        assert!(
            doc.unparsed.is_empty(),
            "case {i} {name}: {:?}",
            doc.unparsed
        );
        assert_eq!(attr(runs[0], "device"), Some(device), "case {i} {name}");
        assert_eq!(runs[0].value(item, metric), Some(value), "case {i} {name}");
        assert_eq!(runs[0].test.as_deref(), Some("diskinfo"), "case {i} {name}");
    }
}

#[test]
fn newer_headers_give_disk_attrs() {
    let doc = read("diskinfo/freebsd-13-diskinfo-t-trim-rotation-attachment");
    let run = diskinfo_runs(&doc)[0];
    assert_eq!(attr(run, "description"), Some("WDC WD40EFRX-68N32N0"));
    assert_eq!(attr(run, "ident"), Some("WD-WCC7K1234567"));
    assert_eq!(attr(run, "attachment"), Some("ahcich1"));
    assert_eq!(attr(run, "trim"), Some("No"));
    assert_eq!(attr(run, "rotation_rate"), Some("5400"));
    assert_eq!(attr(run, "stripesize"), Some("4096"));
    assert_eq!(run.results.len(), 10);
    let doc = read("diskinfo/diskinfo-i-async-random-reads-nvme");
    let run = diskinfo_runs(&doc)[0];
    assert_eq!(run.value("async_random_reads_4k", "iops"), Some(95873.0));
    assert_eq!(run.value("async_random_reads_1024k", "iops"), Some(1037.0));
    assert_eq!(attr(run, "rotation_rate"), Some("0"));
}

#[test]
fn quoted_wrapped_lines_keep_their_depth_and_line() {
    let doc = read("diskinfo/diskinfo-quoted-tabs-expanded-and-wrapped");
    let run = diskinfo_runs(&doc)[0];
    assert_eq!(run.quote_depth, 1);
    assert_eq!(run.author.as_deref(), Some("Pat Admin"));
    assert_eq!(run.lines, [4, 30]);
    let inside = run
        .results
        .iter()
        .find(|m| m.item == "transfer_inside")
        .unwrap();
    assert_eq!((inside.value, inside.line), (170316.0, 29));
}

#[test]
fn two_disks_under_one_command() {
    let doc = read("diskinfo/diskinfo-ct-two-disks-one-command");
    let runs = diskinfo_runs(&doc);
    assert_eq!(attr(runs[1], "device"), Some("ada1"));
    assert_eq!(runs[1].command.as_deref(), Some("diskinfo -ct ada0 ada1"));
    assert_eq!(runs[1].value("seek_full_stroke", "ms"), Some(0.44));
    assert!(runs[0].lines[1] < runs[1].lines[0]);
}

#[test]
fn truncated_seek_times_are_a_near_miss_not_a_run() {
    let doc = read("diskinfo/truncated-seek-times-is-a-near-miss");
    assert!(diskinfo_runs(&doc).is_empty());
    assert_eq!(doc.unparsed.len(), 1);
    assert_eq!(doc.unparsed[0].line, 14);
    assert!(
        doc.unparsed[0].why.contains("seq_inner"),
        "{}",
        doc.unparsed[0].why
    );
}

#[test]
fn other_tools_fixtures_hold_no_diskinfo_runs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
    for dir in std::fs::read_dir(root).expect("fixtures").flatten() {
        // fixtures/SOURCES.md sits beside the tool folders.
        if dir.file_name() == "diskinfo" || dir.file_name() == "bonnie" || !dir.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(dir.path())
            .expect("tool folder")
            .flatten()
        {
            let path = file.path();
            if path.extension().is_some_and(|e| e == "txt") {
                let doc = parse(&std::fs::read_to_string(&path).expect("UTF-8 fixture"));
                assert!(diskinfo_runs(&doc).is_empty(), "{}", path.display());
                assert!(
                    doc.unparsed.iter().all(|u| !u.why.contains("diskinfo")),
                    "{}",
                    path.display()
                );
            }
        }
    }
}

/// (item, value, line) of each result, in order.
fn values(run: &Run) -> Vec<(&str, f64, usize)> {
    run.results
        .iter()
        .map(|m| (m.item.as_str(), m.value, m.line))
        .collect()
}

#[test]
fn real_pfsense_blog_tab_doubled_report_without_gap_before_transfer_rates() {
    // Karim Elatov's pfSense-on-APU post: the report indented one tab more
    // than diskinfo prints it, a `[2.3-RELEASE][root@pf.kar.int]/root:`
    // prompt before the command, and `Transfer rates:` straight after
    // `Seq inner:` with no empty line.
    let doc = read("diskinfo/real-elatov-blog-pfsense-apu-tab-doubled-no-gap");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.command.as_deref(), Some("diskinfo -t /dev/da0s1a"));
    assert_eq!(run.lines, [261, 284]);
    assert_eq!(run.label.as_deref(), Some("Disk Information"));
    assert_eq!(run.threads, None);
    assert_eq!(attr(run, "device"), Some("/dev/da0s1a"));
    assert_eq!(attr(run, "ident"), Some("058F63666485"));
    assert_eq!(attr(run, "stripeoffset"), Some("40448"));
    assert_eq!(
        values(run),
        [
            ("seek_full_stroke", 0.885, 274),
            ("seek_half_stroke", 0.885, 275),
            ("seek_quarter_stroke", 0.911, 276),
            ("seek_short_forward", 0.800, 277),
            ("seek_short_backward", 0.798, 278),
            ("seq_outer", 0.422, 279),
            ("seq_inner", 0.389, 280),
            ("transfer_outside", 34729.0, 282),
            ("transfer_middle", 33734.0, 283),
            ("transfer_inside", 33947.0, 284),
        ]
    );
}

#[test]
fn real_journal_article_transfer_rates_without_title_and_abbreviated_units() {
    // FreeBSD Journal 2016/05-06 "bhyve ATA/ATAPI Emulation" in Chinese
    // prints only the three transfer lines of `diskinfo -t /dev/ada1`, as
    // `... 0.719681 s = 142285 kB/s`: the ATA emulation, then AHCI.
    let doc = read("diskinfo/real-fbsdjournal-zh-bhyve-ata-transfer-rates-alone-abbreviated");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 2);
    assert_eq!(
        values(runs[0]),
        [
            ("transfer_outside", 142285.0, 211),
            ("transfer_middle", 128581.0, 212),
            ("transfer_inside", 130993.0, 213),
        ]
    );
    assert_eq!(
        values(runs[1]),
        [
            ("transfer_outside", 313436.0, 221),
            ("transfer_middle", 301332.0, 222),
            ("transfer_inside", 293834.0, 223),
        ]
    );
    for run in runs {
        assert_eq!(run.command, None);
        assert_eq!(attr(run, "device"), None);
        assert!(run.results.iter().all(|m| m.unit == "KB/s"));
    }
}

#[test]
fn real_xigmanas_blog_sample_output_takes_the_command_from_the_prose() {
    // "ZFS Disk performance troubleshooting under FreeBSD" (2021): the
    // command is given in backticks, then "Sample output is" and a fenced
    // report for the placeholder device `/dev/adaX`.
    let doc = read("diskinfo/real-xigmanas-blog-2021-sample-adaX-command-far-above");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.command.as_deref(), Some("diskinfo -t /dev/adaX"));
    assert_eq!(run.lines, [58, 86]);
    assert_eq!(
        run.label.as_deref(),
        Some("Find specific disk performance information with \"diskinfo\"")
    );
    assert_eq!(attr(run, "device"), Some("/dev/adaX"));
    assert_eq!(attr(run, "description"), Some("WDC WD40EFRX-68N32N0"));
    assert_eq!(
        attr(run, "physical_path"),
        Some("id1,enc@n3061686369656d30/type@0/slot@8/elmdesc@Slot_07")
    );
    assert_eq!(
        values(run),
        [
            ("seek_full_stroke", 69.404, 75),
            ("seek_half_stroke", 54.370, 76),
            ("seek_quarter_stroke", 49.367, 77),
            ("seek_short_forward", 25.189, 78),
            ("seek_short_backward", 11.818, 79),
            ("seq_outer", 0.423, 80),
            ("seq_inner", 0.438, 81),
            ("transfer_outside", 53785.0, 84),
            ("transfer_middle", 56529.0, 85),
            ("transfer_inside", 38255.0, 86),
        ]
    );
}

#[test]
fn real_zfs_notes_ctv_with_underscored_physical_path() {
    // A ZFS notes page ("All things ZFS"): zfs-stats output and sysctl
    // lists, then `diskinfo -ctv /dev/da1` on a 12 TB HGST disk whose
    // Physical path ends in a run of underscores.
    let doc = read("diskinfo/real-ironbank-zfs-notes-ctv-physical-path-underscores");
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 1);
    let run = runs[0];
    assert_eq!(run.command.as_deref(), Some("diskinfo -ctv /dev/da1"));
    assert_eq!(run.lines, [478, 512]);
    assert_eq!(run.label.as_deref(), Some("Testing disks primitively"));
    assert_eq!(attr(run, "description"), Some("HGST HUH721212AL5200"));
    assert_eq!(
        attr(run, "physical_path"),
        Some("id1,enc@n5000ccab04075dbc/type@0/slot@2/elmdesc@SLOT_01,8HKX1R0H____________")
    );
    assert_eq!(
        values(run),
        [
            ("command_overhead", 0.058, 498),
            ("seek_full_stroke", 18.365, 501),
            ("seek_half_stroke", 13.708, 502),
            ("seek_quarter_stroke", 11.185, 503),
            ("seek_short_forward", 4.443, 504),
            ("seek_short_backward", 5.071, 505),
            ("seq_outer", 0.042, 506),
            ("seq_inner", 0.065, 507),
            ("transfer_outside", 233191.0, 510),
            ("transfer_middle", 197291.0, 511),
            ("transfer_inside", 124918.0, 512),
        ]
    );
}

/// `diskinfo -v` alone is a run of its header and no results (DESIGN,
/// Contract 3): one per disk, with the header's values as attributes.
#[test]
fn diskinfo_v_alone_is_a_run_of_its_header() {
    let doc = read("diskinfo/real-unixbsdshell-2025-flashdisk-two-diskinfo-v-spaces");
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 2, "two disks, two runs");
    for (run, device, ident, bytes) in [
        (runs[0], "da0", "17TYRSE65DEAAUTI", "15787360256"),
        (runs[1], "ada0", "WD-WCAYV1684481", "250059350016"),
    ] {
        assert!(run.results.is_empty());
        assert_eq!(attr(run, "device"), Some(device));
        assert_eq!(attr(run, "ident"), Some(ident));
        assert_eq!(attr(run, "mediasize_bytes"), Some(bytes));
        assert_eq!(attr(run, "sectorsize"), Some("512"));
        assert_eq!(attr(run, "zone_mode"), Some("Not_Zoned"));
    }
    assert_eq!(runs[0].lines, [150, 165]);
    assert_eq!(runs[1].command.as_deref(), Some("diskinfo -v ada0"));
    assert_eq!(attr(runs[1], "attachment"), Some("ata2"));

    let doc = read("diskinfo/real-zh-freebsd-notes-diskinfo-v-alone-hgst-tabs");
    let runs = diskinfo_runs(&doc);
    assert_eq!(runs.len(), 1);
    assert_eq!(attr(runs[0], "description"), Some("HGST HDN726060ALE614"));
    assert_eq!(attr(runs[0], "stripesize"), Some("4096"));
    assert_eq!(attr(runs[0], "rotation_rate"), Some("7200"));
    assert_eq!(attr(runs[0], "mediasize_sectors"), Some("11721045168"));
}

/// `-c`, `-t`, `-i` and `-S` each give one run per disk that holds both
/// the header's attributes and the section's results.
#[test]
fn each_benchmark_option_is_one_run_with_its_header() {
    for (fixture, item) in [
        ("diskinfo/diskinfo-c-command-overhead", "command_overhead"),
        (
            "diskinfo/freebsd-13-diskinfo-t-trim-rotation-attachment",
            "seq_outer",
        ),
        (
            "diskinfo/diskinfo-i-async-random-reads-nvme",
            "async_random_reads_4k",
        ),
        (
            "diskinfo/diskinfo-wS-sync-random-writes-slog",
            "sync_random_writes_8192k",
        ),
    ] {
        let doc = read(fixture);
        let runs = diskinfo_runs(&doc);
        assert_eq!(runs.len(), 1, "{fixture}");
        let run = runs[0];
        assert!(attr(run, "sectorsize").is_some(), "{fixture}");
        assert!(attr(run, "mediasize_bytes").is_some(), "{fixture}");
        assert!(run.results.iter().any(|m| m.item == item), "{fixture}");
    }
}
