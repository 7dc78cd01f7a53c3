//! The mail-like corpus the parse benchmarks read: every fixture, quoted at
//! depths 0-2, between long runs of prose, quoting and dmesg-like noise,
//! about 64 MB in all. The parsers' `benches/parse.rs` and
//! `examples/write_corpus.rs` both read it, so the criterion figure and
//! the one `scripts/bench-parse.sh` takes against grep are of the same
//! text.

use crate::fixture_files::fixtures_root;

/// How large the corpus grows before the last block is closed.
pub const TARGET_BYTES: usize = 64 << 20;

const PROSE: &[&str] = &[
    "I took the generic config, removed the debugging options (INVARIANTS,",
    "WITNESS and whatever else I could find) and added SCHED_ULE to it.",
    "> In tests that have been run on p4 hardware, the FreeBSD system's graph",
    "> looks more like NetBSD's than the one presented here.",
    ">> Which kernel config did you use for the FreeBSD results?",
    "",
    "Thanks, Sergey",
    "ad0: 76319MB <WDC WD800JD-00LSA0 06.01D06> at ata0-master SATA150",
    "set-variable = key_buffer=128M",
    "On Fri, Sep 28, 2007 at 02:04:00PM -0600, Warner Losh wrote:",
    "The numbers jump by about 3,600 q/s with libthr: 22061.88 vs 25601.49.",
    "_______________________________________________",
    "freebsd-performance at freebsd.org mailing list",
];

/// Every `.txt` fixture under the workspace's `fixtures/`, sorted by text
/// so that the corpus does not depend on the order of directory entries.
fn fixtures() -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![fixtures_root()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "txt") {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    found.push(text);
                }
            }
        }
    }
    found.sort();
    found
}

/// Prose with a fixture every ~40 KB, quoted at a depth that cycles 0, 1, 2.
pub fn corpus() -> String {
    let fixtures = fixtures();
    let mut out = String::with_capacity(TARGET_BYTES + (1 << 20));
    let mut n = 0usize;
    let mut block = 0usize;
    while out.len() < TARGET_BYTES {
        for _ in 0..600 {
            out.push_str(PROSE[n % PROSE.len()]);
            out.push('\n');
            n += 1;
        }
        block += 1;
        if let Some(fixture) = fixtures.get(block % fixtures.len().max(1)) {
            let quote = ["", "> ", ">> "][(block / fixtures.len().max(1)) % 3];
            for line in fixture.lines() {
                out.push_str(quote);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}
