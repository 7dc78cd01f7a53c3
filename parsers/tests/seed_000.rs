//! Seed 000, a FreeBSD performance thread with 17 super-smack runs at three
//! quote depths, checked value by value.

use parsers::{parse, Document, Run, Tool};

fn seed() -> Document {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/super-smack/seed-000-freebsd-mysql-smp.txt"
    );
    parse(&std::fs::read_to_string(path).expect("seed 000 fixture"))
}

fn attr<'a>(run: &'a Run, key: &str) -> Option<&'a str> {
    run.attrs.get(key).map(String::as_str)
}

#[test]
fn exactly_seventeen_super_smack_runs() {
    let doc = seed();
    assert_eq!(doc.runs.len(), 17);
    assert!(doc.runs.iter().all(|r| r.tool == Tool::SuperSmack));
    assert!(doc.unparsed.is_empty(), "{:?}", doc.unparsed);
    // The prose rows at lines 82 and 84 quote results without a report.
    assert!(doc.runs.iter().all(|r| !(80..=85).contains(&r.lines[0])));
}

#[test]
fn ule_libthr_tsc_at_100_clients() {
    let doc = seed();
    let run = doc
        .runs
        .iter()
        .find(|r| r.label.as_deref() == Some("ULE + libthr + TSC") && r.threads == Some(100))
        .expect("the ULE + libthr + TSC run with 100 clients");
    assert_eq!(run.value("select_index", "q_per_s"), Some(28581.18));
    assert_eq!(run.value("select_index", "num_queries"), Some(2_000_000.0));
    assert_eq!(run.value("select_index", "max_time"), Some(5.0));
    assert_eq!(run.value("connect", "avg_ms"), Some(23.0));
    assert_eq!(attr(run, "scheduler"), Some("ULE"));
    assert_eq!(attr(run, "thread_lib"), Some("libthr"));
    assert_eq!(attr(run, "timer"), Some("TSC"));
    assert_eq!(run.author.as_deref(), Some("Steven Hartland"));
    assert_eq!(run.quote_depth, 2);
    assert_eq!(run.test.as_deref(), Some("select-key"));
    assert_eq!(run.lines, [130, 134]);
    let q = run.results.iter().find(|r| r.metric == "q_per_s").unwrap();
    assert_eq!(q.line, 134);
}

#[test]
fn threads_labels_depths_and_authors_of_every_run() {
    let doc = seed();
    /// first line, threads, quote depth, author, label, q_per_s
    type Row<'a> = (
        usize,
        Option<u32>,
        usize,
        Option<&'a str>,
        Option<&'a str>,
        f64,
    );
    let got: Vec<Row> = doc
        .runs
        .iter()
        .map(|r| {
            let q = r
                .results
                .iter()
                .find(|m| m.metric == "q_per_s")
                .unwrap()
                .value;
            (
                r.lines[0],
                r.threads,
                r.quote_depth,
                r.author.as_deref(),
                r.label.as_deref(),
                q,
            )
        })
        .collect();
    let mv = Some("Michael Vince");
    let sh = Some("Steven Hartland");
    let patched_ule =
        Some("ULE + libthr + TSC + context_time.patch + cpu_acct_1.patch + cpu_acct_2.patch");
    let patched_4bsd =
        Some("4BSD + libthr + TSC + context_time.patch + cpu_acct_1.patch + cpu_acct_2.patch");
    let want = vec![
        (20, Some(10), 1, mv, None, 22061.88),
        (34, Some(10), 1, mv, None, 25601.49),
        (45, Some(10), 0, mv, None, 19234.02),
        (52, Some(10), 0, mv, None, 16583.43),
        (
            91,
            Some(100),
            2,
            sh,
            Some("4BSD + libpthread + ACPI-Fast"),
            18624.60,
        ),
        (
            97,
            Some(10),
            2,
            sh,
            Some("4BSD + libpthread + ACPI-Fast"),
            23983.87,
        ),
        (
            104,
            Some(100),
            2,
            sh,
            Some("4BSD + libthr + ACPI-Fast"),
            22413.39,
        ),
        (
            110,
            Some(10),
            2,
            sh,
            Some("4BSD + libthr + ACPI-Fast"),
            26841.07,
        ),
        (117, Some(100), 2, sh, Some("4BSD + libthr + TSC"), 23428.03),
        (123, Some(10), 2, sh, Some("4BSD + libthr + TSC"), 26403.95),
        (130, Some(100), 2, sh, Some("ULE + libthr + TSC"), 28581.18),
        (136, Some(10), 2, sh, Some("ULE + libthr + TSC"), 30128.44),
        (144, Some(100), 2, sh, patched_ule, 29942.10),
        (150, Some(10), 2, sh, patched_ule, 31057.52),
        (158, Some(100), 2, sh, patched_4bsd, 24144.22),
        (164, Some(10), 2, sh, patched_4bsd, 27073.46),
        (171, Some(10), 2, sh, Some("update test"), 6468.70),
    ];
    assert_eq!(got, want);
}

#[test]
fn wrapped_label_gives_patches_and_update_select_gives_two_rows() {
    let doc = seed();
    let patched = doc.runs.iter().find(|r| r.lines[0] == 144).unwrap();
    assert_eq!(
        attr(patched, "patches"),
        Some("context_time.patch,cpu_acct_1.patch,cpu_acct_2.patch")
    );
    assert_eq!(attr(patched, "scheduler"), Some("ULE"));
    let update = doc.runs.iter().find(|r| r.lines[0] == 171).unwrap();
    assert_eq!(update.test.as_deref(), Some("update-select"));
    assert_eq!(update.value("update_index", "q_per_s"), Some(6468.70));
    assert_eq!(
        update.value("select_index", "num_queries"),
        Some(1_000_000.0)
    );
    assert_eq!(update.lines, [171, 176]);
    let acpi = doc.runs.iter().find(|r| r.lines[0] == 91).unwrap();
    assert_eq!(attr(acpi, "timer"), Some("ACPI-fast"));
    assert_eq!(attr(acpi, "thread_lib"), Some("libpthread"));
    // Seed 000 wraps this command after its client count.
    let wrapped = doc.runs.iter().find(|r| r.lines[0] == 20).unwrap();
    assert_eq!(wrapped.lines, [20, 25]);
    assert_eq!(wrapped.test.as_deref(), Some("select-key"));
}

#[test]
fn messages_and_their_authors() {
    let doc = seed();
    let top = &doc.messages[0];
    assert_eq!(top.author.as_deref(), Some("Michael Vince"));
    assert_eq!(top.email.as_deref(), Some("mv@thebeastie.org"));
    assert_eq!(
        top.subject.as_deref(),
        Some("mysql performance on 4 * dualcore opteron")
    );
    assert_eq!(top.date.as_deref(), Some("Thu Apr 20 09:46:56 UTC 2006"));
    let authors: Vec<(Option<&str>, usize)> = doc
        .messages
        .iter()
        .map(|m| (m.author.as_deref(), m.quote_depth))
        .collect();
    assert_eq!(
        authors,
        [
            (Some("Michael Vince"), 0),
            (Some("Michael Vince"), 1),
            (Some("Steven Hartland"), 2),
            (Some("Sven Petai"), 3)
        ]
    );
    let sven = &doc.messages[3];
    assert_eq!(
        sven.date.as_deref(),
        Some("Tuesday, April 04, 2006 5:42 PM")
    );
    assert_eq!(sven.email.as_deref(), Some("hadara@bsd.ee"));
    let steven_runs = doc.runs.iter().filter(|r| r.message == Some(2)).count();
    assert_eq!(steven_runs, 13);
}

#[test]
fn announcements_label_the_runs_after_them_and_the_head_labels_none() {
    let doc = seed();
    let run = |first_line: usize| doc.runs.iter().find(|r| r.lines[0] == first_line).unwrap();
    let thread_lib = |first_line: usize| attr(run(first_line), "thread_lib");
    // Lines 20-25, 22061.88: the run before libthr. "After enabling libthr
    // it does jump by about 3,600" (line 11) sums up the mail at the head
    // of the quote, a paragraph above "For those who are interested ...".
    assert_eq!(run(20).value("select_index", "q_per_s"), Some(22061.88));
    assert_eq!(thread_lib(20), None);
    // Lines 34-39, 25601.49: "With this below in my /etc/libmap.conf for
    // libthr ... the numbers do jump".
    assert_eq!(run(34).value("select_index", "q_per_s"), Some(25601.49));
    assert_eq!(thread_lib(34), Some("libthr"));
    // Lines 45-50, 19234.02: the author, under his own quote, "run the
    // exact same tests": libthr is still announced.
    assert_eq!(run(45).value("select_index", "q_per_s"), Some(19234.02));
    assert_eq!(thread_lib(45), Some("libthr"));
    // Lines 52-57, 16583.43: "And without libthr its even slower".
    assert_eq!(run(52).value("select_index", "q_per_s"), Some(16583.43));
    assert_eq!(thread_lib(52), Some("libpthread"));
    // "The biggest increases coming from libthr" (line 86) is ended by the
    // section banners under it: the update test names no library.
    assert_eq!(thread_lib(171), None);
}

#[test]
fn each_run_has_the_arch_of_the_system_named_before_it_in_its_message() {
    let doc = seed();
    let run = |first_line: usize| doc.runs.iter().find(|r| r.lines[0] == first_line).unwrap();
    // Line 7: "using the AMD64 build of FreeBSD".
    for first_line in [20, 34] {
        assert_eq!(
            attr(run(first_line), "arch"),
            Some("amd64"),
            "line {first_line}"
        );
        assert_eq!(
            attr(run(first_line), "os"),
            Some("FreeBSD"),
            "line {first_line}"
        );
        assert_eq!(
            attr(run(first_line), "os_version"),
            None,
            "line {first_line}"
        );
    }
    // Line 41: "a install of i386 FreeBSD 6.1RC1", not line 43's "(which
    // had AMD64 FreeBSD on before hand)".
    for first_line in [45, 52] {
        assert_eq!(
            attr(run(first_line), "arch"),
            Some("i386"),
            "line {first_line}"
        );
        assert_eq!(
            attr(run(first_line), "os_version"),
            Some("6.1RC1"),
            "line {first_line}"
        );
    }
    // Steven's runs: his "Machine:" block under the log (line 180).
    assert_eq!(attr(run(91), "arch"), Some("i386"));
    assert_eq!(attr(run(91), "os_version"), Some("6.1-PRERELEASE"));
}
