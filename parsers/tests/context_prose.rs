//! Labels in prose (`Before this change:`, `cfq:`, `32KB:`) name the run
//! directly under them: made-up texts for each rule and its negatives, then
//! the real posts under `fixtures/prose-labels/`, label by label.

use parsers::{parse, Document};

/// A super-smack report; its command line is the run's first line.
fn smack(clients: u32, qps: &str) -> String {
    format!(
        "super-smack -d mysql select-key.smack {clients} 10000\n\
         Query Barrel Report for client smacker1\n\
         connect: max=4ms min=1ms avg= 2ms from {clients} clients\n\
         Query_type num_queries max_time min_time q_per_s\n\
         select_index 200000 0 0 {qps}\n"
    )
}

/// A bonnie++ 1.03 table with one row; a command above it is not part of
/// the run.
const BONNIE: &str = "\
Version  1.03       ------Sequential Output------ --Sequential Input- --Random-
                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--
Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP
proliant         2G 33294  91 57592  20 26778   5 30885  77 56081   5 174.2   0
";

fn labels(doc: &Document) -> Vec<Option<&str>> {
    doc.runs.iter().map(|r| r.label.as_deref()).collect()
}

#[test]
fn a_colon_line_labels_the_run_under_it() {
    let text = format!(
        "Before this change:\n{}\nAfter:\n\n\n{}",
        smack(10, "22061.88"),
        smack(10, "25000.10")
    );
    let doc = parse(&text);
    assert_eq!(labels(&doc), [Some("Before this change"), Some("After")]);
    assert_eq!(
        doc.runs[0].attrs.get("variant").map(String::as_str),
        Some("Before this change")
    );
}

#[test]
fn blank_lines_and_a_command_may_stand_between_label_and_run() {
    let text = format!("With patch:\n\n# mount -o nobarrier /dev/sda1 /mnt\n$ bonnie++ -d /mnt -s 2048\n\n{BONNIE}");
    assert_eq!(labels(&parse(&text)), [Some("With patch")]);
}

#[test]
fn prose_between_label_and_run_drops_the_label() {
    let text = format!(
        "Without the patch:\n\nI had to reboot twice before this one finished.\n\n{}",
        smack(10, "22061.88")
    );
    assert_eq!(labels(&parse(&text)), [None]);
}

#[test]
fn a_long_sentence_ending_in_a_colon_far_above_a_run_is_no_label() {
    let text = format!(
        "I ran the benchmark three times on each of the kernels and took the best result of each:\n\n\
         The box is a dual Opteron with 4 GB of memory.\n\n{}",
        smack(10, "22061.88")
    );
    assert_eq!(labels(&parse(&text)), [None]);
    // Too long even right above the run.
    let text = format!(
        "I ran the benchmark three times on each of the kernels and took the best result of each:\n{}",
        smack(10, "22061.88")
    );
    assert_eq!(labels(&parse(&text)), [None]);
}

#[test]
fn the_tail_of_a_wrapped_sentence_is_no_label() {
    let text = format!(
        "On a four CPU Opteron compiling the driver as module gives much better\n\
         performance than compiling it in, here some bonnie++ results:\n\n{BONNIE}"
    );
    assert_eq!(labels(&parse(&text)), [None]);
}

#[test]
fn a_tools_own_header_is_no_label() {
    // Inside a run: sysbench's `Threads fairness:` ends the first report and
    // must not name the second.
    let report = |eps: &str| {
        format!(
            "$ sysbench cpu --threads=2 run\n\
             sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n\
             Running the test with following options:\nNumber of threads: 2\n\n\
             Threads started!\n\nCPU speed:\n    events per second:  {eps}\n\n\
             General statistics:\n    total time:                          5.0017s\n    \
             total number of events:              11297\n\n\
             Threads fairness:\n    events (avg/stddev):           5648.5000/137.50\n    \
             execution time (avg/stddev):   4.9901/0.00\n"
        )
    };
    let text = format!("{}\n{}", report("2258.08"), report("2301.44"));
    let doc = parse(&text);
    assert_eq!(doc.runs.len(), 2);
    assert_eq!(labels(&doc), [None, None]);
    // Outside any run, right above one.
    let text = format!("Threads fairness:\n{}", smack(10, "22061.88"));
    assert_eq!(labels(&parse(&text)), [None]);
    let text = format!("Threads:\n\n{BONNIE}");
    assert_eq!(labels(&parse(&text)), [None]);
}

#[test]
fn a_label_is_replaced_by_the_next_one() {
    let text = format!("His raid:\n\n---raid0 5*120gb sw raid:\n\n{BONNIE}");
    assert_eq!(labels(&parse(&text)), [Some("raid0 5*120gb sw raid")]);
}

#[test]
fn a_label_applies_at_its_own_quote_depth() {
    let quoted: String = smack(10, "22061.88")
        .lines()
        .map(|l| format!("> {l}\n"))
        .collect();
    // A quoted label names the quoted run.
    let text = format!("Joe wrote:\n> Before:\n{quoted}");
    assert_eq!(labels(&parse(&text)), [Some("Before")]);
    // A label of the mail's own text names the quoted report right under
    // it (the author's caption for what he quotes), and the quoted block
    // between it and a later run of his own ends it there.
    let text = format!("Before:\n{quoted}\n{}", smack(20, "30000.00"));
    assert_eq!(labels(&parse(&text)), [Some("Before"), None]);
    let text = format!("Second run (without the patch)\n\n{quoted}");
    assert_eq!(
        labels(&parse(&text)),
        [Some("Second run (without the patch)")]
    );
    // Prose of its own between them keeps it from the quote.
    let text = format!("Before:\nas you see below\n{quoted}");
    assert_eq!(labels(&parse(&text)), [None]);
}

#[test]
fn an_attribution_or_filler_is_no_label() {
    let quoted: String = "> can you run it again?\n".to_string();
    let text = format!("Joe Bloggs wrote:\n{quoted}\n{}", smack(10, "22061.88"));
    assert_eq!(labels(&parse(&text)), [None]);
    for intro in [
        "Here are the results:",
        "Here's a bonnie++ benchmark:",
        "The command I'm running is:",
    ] {
        let text = format!("{intro}\n\n{BONNIE}");
        assert_eq!(labels(&parse(&text)), [None], "{intro:?}");
    }
}

#[test]
fn a_lone_phrase_directly_above_a_report_is_a_label() {
    assert_eq!(
        labels(&parse(&format!("vanilla\n{BONNIE}"))),
        [Some("vanilla")]
    );
    assert_eq!(
        labels(&parse(&format!("patched kernel\n{}", smack(10, "1.00")))),
        [Some("patched kernel")]
    );
    // A paragraph of its own a blank line above the report is its
    // caption; one line of a longer paragraph is not.
    assert_eq!(
        labels(&parse(&format!("vanilla\n\n{BONNIE}"))),
        [Some("vanilla")]
    );
    assert_eq!(
        labels(&parse(&format!(
            "Second run (without the patch)\n\n{BONNIE}"
        ))),
        [Some("Second run (without the patch)")]
    );
    assert_eq!(
        labels(&parse(&format!("we built it\nvanilla\n\n{BONNIE}"))),
        [None]
    );
    // A lead-in sentence too long for a label names the run by the
    // phrase it ends with, if that phrase names something.
    for (lead_in, want) in [
        (
            "For indication, here is a bonnie++ run as ext4 formatted on the VIM3:",
            Some("on the VIM3"),
        ),
        (
            "1 laptop here has an m2.SSD.  This test took just under 8min to run:",
            None,
        ),
        ("Here are the numbers I got for this:", None),
    ] {
        let text = format!("{lead_in}\n{BONNIE}");
        assert_eq!(labels(&parse(&text)), [want], "{lead_in}");
    }
    // A sentence without its full stop is still a sentence.
    assert_eq!(
        labels(&parse(&format!(
            "Here is the output from my box\n\n{BONNIE}"
        ))),
        [None]
    );
    // A sentence is no lone phrase.
    assert_eq!(labels(&parse(&format!("It got slower.\n{BONNIE}"))), [None]);
}

#[test]
fn an_underlined_heading_labels_the_run_below() {
    let text = format!("Linux 2.5.3-dj1\n---------------\n\n{BONNIE}");
    assert_eq!(labels(&parse(&text)), [Some("Linux 2.5.3-dj1")]);
}

#[test]
fn the_label_lasts_over_runs_that_follow_with_only_commands_between() {
    let text = format!(
        "2.6.23-rc1:\n{}\n{}\nAnd now the old kernel again.\n\n{}",
        smack(10, "1.00"),
        smack(20, "2.00"),
        smack(30, "3.00")
    );
    assert_eq!(
        labels(&parse(&text)),
        [Some("2.6.23-rc1"), Some("2.6.23-rc1"), None]
    );
}

#[test]
fn a_banner_is_in_force_again_once_the_prose_label_ends() {
    let text = format!(
        "== ULE + libthr ==\n\nWith patch:\n{}\nThe same box, no patch.\n\n{}",
        smack(10, "1.00"),
        smack(10, "2.00")
    );
    let doc = parse(&text);
    assert_eq!(labels(&doc), [Some("With patch"), Some("ULE + libthr")]);
    assert_eq!(
        doc.runs[1].attrs.get("scheduler").map(String::as_str),
        Some("ULE")
    );
}

#[test]
fn label_text_is_trimmed_and_cut() {
    let text =
        format!("   The   first test with hdparm -a0 -c1 -m16 -u1 -d1 /dev/hde :  \n\n{BONNIE}");
    assert_eq!(
        labels(&parse(&text)),
        [Some(
            "The first test with hdparm -a0 -c1 -m16 -u1 -d1 /dev/hde"
        )]
    );
    let long = "Second run: patched-2.6.16-rc4-mm2-kernel, readahead-of-4096-sectors, write-cache-off on hde:";
    let doc = parse(&format!("{long}\n{BONNIE}"));
    let label = doc.runs[0].label.as_deref().unwrap();
    assert_eq!(
        label,
        "Second run: patched-2.6.16-rc4-mm2-kernel, readahead-of-4096-sectors,"
    );
    assert!(label.chars().count() <= 80);
}

// The real posts.

fn fixture(name: &str) -> Document {
    let path = format!(
        "{}/../fixtures/prose-labels/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{path}")))
}

/// A run's label, machine, first line and block write K/sec.
type Summary<'a> = (Option<&'a str>, Option<&'a str>, usize, Option<f64>);

fn summary(doc: &Document) -> Vec<Summary<'_>> {
    doc.runs
        .iter()
        .map(|r| {
            let block = r
                .results
                .iter()
                .find(|m| m.item == "seq_output_block" && m.metric == "kb_per_s")
                .map(|m| m.value);
            (
                r.label.as_deref(),
                r.attrs.get("machine").map(String::as_str),
                r.lines[0],
                block,
            )
        })
        .collect()
}

#[test]
fn libata_results_labelled_by_the_line_right_above() {
    let doc = fixture("real-lkml-2005-libata-results-with-kernel-labels");
    assert_eq!(
        summary(&doc),
        [
            (
                Some("Results with 2.4.32 + libata latest"),
                Some("proliant"),
                38,
                Some(57592.0)
            ),
            (
                Some("Previous results with kernel 2.4.32-rc3"),
                Some("proliant"),
                49,
                Some(11532.0)
            ),
        ]
    );
}

#[test]
fn io_schedulers_each_name_their_table() {
    let doc = fixture("real-lkml-2006-io-schedulers-cfq-deadline-noop");
    let got: Vec<Option<&str>> = labels(&doc);
    assert_eq!(
        got,
        [
            Some("cfq"),
            Some("deadline"),
            Some("noop"),
            Some("compact format"),
            Some("compact format"),
            Some("cfq"),
            Some("deadline"),
            Some("noop"),
            Some("compact"),
        ]
    );
    // `bonnie -s 1024` above its `=====` is a command, not a label.
    assert!(doc
        .runs
        .iter()
        .all(|r| r.label.as_deref() != Some("bonnie -s 1024")));
}

#[test]
fn request_sizes_label_tables_over_a_blank_line() {
    let doc = fixture("real-lkml-2004-max-request-size-labels-over-blank");
    assert_eq!(
        summary(&doc),
        [
            (Some("32KB"), Some("mindpipe"), 71, Some(38499.0)),
            (Some("1024KB"), Some("mindpipe"), 83, Some(38285.0)),
        ]
    );
}

#[test]
fn readahead_tests_keep_their_hdparm_options() {
    let doc = fixture("real-lkml-2003-readahead-hdparm-test-labels");
    assert_eq!(
        labels(&doc),
        [
            Some("The first test with hdparm -a0 -c1 -m16 -u1 -d1 /dev/hde"),
            Some("The second test with hdparm -a16 -c1 -m16 -u1 -d1 /dev/hde"),
            Some("The third test with hdparm -a256 -c1 -m16 -u1 -d1 /dev/hde"),
            Some("The fourth test with hdparm -a4096 -c1 -m16 -u1 -d1 /dev/hde"),
        ]
    );
}

#[test]
fn his_raid_is_replaced_by_the_line_that_names_it() {
    let doc = fixture("real-linux-raid-2003-my-raid-his-raid-label-replaced");
    assert_eq!(
        labels(&doc),
        [
            Some("My raid"),
            Some("raid0 5*120gb sw raid"),
            // "...is much faster:" ends a wrapped sentence; the line after
            // the blank names the run.
            Some("raid5 6*80gb sw raid"),
        ]
    );
}

#[test]
fn a_sentence_tail_leaves_the_first_run_unlabelled() {
    let doc = fixture("real-lkml-2006-ext3-delalloc-unlabelled-then-labelled");
    let without = "And here the results when mounting without extents,mballoc,delalloc option";
    // Three `-x 3` rows per table.
    assert_eq!(
        labels(&doc),
        [
            None,
            None,
            None,
            Some(without),
            Some(without),
            Some(without)
        ]
    );
}

#[test]
fn i_get_and_a_bonnie_or_two_name_nothing() {
    let doc = fixture("real-lkml-2003-nptl-quoted-and-sentence-tail-no-label");
    assert_eq!(
        summary(&doc),
        [
            // His earlier table, quoted at depth 2 under "> > ...with a mere
            // / > > 100MB file, on 1GHz P3:".
            (None, Some("NPTL"), 40, Some(127068.0)),
            (None, Some("LinuxThreads"), 40, Some(127928.0)),
            (None, Some("NPTL"), 58, None),
            (None, Some("LinuxThreads"), 58, None),
        ]
    );
    let doc = fixture("real-lkml-2000-promise-sentence-tail-and-lists-no-label");
    assert_eq!(labels(&doc), [None]);
}

/// The thread library of each run, in order.
fn thread_libs(doc: &Document) -> Vec<Option<&str>> {
    doc.runs
        .iter()
        .map(|r| r.attrs.get("thread_lib").map(String::as_str))
        .collect()
}

#[test]
fn an_announcement_labels_every_run_after_it_until_the_next() {
    let text = format!(
        "{}\nNow with libthr in libmap.conf the numbers jump.\n\n{}\n{}\n\
         Interestingly the same tests on the other box are slower.\n\n{}\n\
         And without libthr it is even slower\n{}",
        smack(10, "22061.88"),
        smack(10, "25601.49"),
        smack(10, "25011.00"),
        smack(10, "19234.02"),
        smack(10, "16583.43")
    );
    assert_eq!(
        thread_libs(&parse(&text)),
        [
            None,
            Some("libthr"),
            Some("libthr"),
            Some("libthr"),
            Some("libpthread")
        ]
    );
}

#[test]
fn a_summary_at_the_head_labels_no_run() {
    // A paragraph of prose between the remark and the first run: the
    // remark sums up the runs (before and after), it does not set them.
    let head = format!(
        "After enabling libthr it does jump by about 3,600.\n\n\
         For those who are interested in how I tested:\n\n{}\n{}",
        smack(10, "22061.88"),
        smack(10, "25601.49")
    );
    assert_eq!(thread_libs(&parse(&head)), [None, None]);
    // The paragraph leading into the first run sets it up, and the rest.
    let setup = format!(
        "All of these use libthr via libmap.conf\n\n{}\n{}",
        smack(10, "25601.49"),
        smack(100, "24011.10")
    );
    assert_eq!(
        thread_libs(&parse(&setup)),
        [Some("libthr"), Some("libthr")]
    );
}

#[test]
fn a_section_label_ends_an_announcement() {
    let text = format!(
        "With libthr in libmap.conf the numbers jump.\n\n{}\n== update test ==\n{}",
        smack(10, "25601.49"),
        smack(10, "6468.70")
    );
    let doc = parse(&text);
    assert_eq!(thread_libs(&doc), [Some("libthr"), None]);
    assert_eq!(labels(&doc), [None, Some("update test")]);
}

#[test]
fn an_announcement_in_a_quote_goes_on_only_under_its_own_author() {
    let quoted = |author: &str| {
        let runs: String = format!(
            "{}\nWith libthr in libmap.conf the numbers jump.\n\n{}",
            smack(10, "22061.88"),
            smack(10, "25601.49")
        )
        .lines()
        .map(|l| format!("> {l}\n"))
        .collect();
        format!(
            "From: Michael Vince <mv@example.org>\nSubject: smp\n\n{author} wrote:\n{runs}\
             I ran the exact same tests on i386 and it is slower.\n{}",
            smack(10, "19234.02")
        )
    };
    let own = parse(&quoted("Michael Vince"));
    assert_eq!(thread_libs(&own), [None, Some("libthr"), Some("libthr")]);
    let other = parse(&quoted("Steven Hartland"));
    assert_eq!(thread_libs(&other), [None, Some("libthr"), None]);
}
