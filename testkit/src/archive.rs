//! The generated list archive of the ingest benchmark: about 56 MB, 4200
//! messages in threads of prose replies quoting each other, a few percent
//! carrying the fixtures' real benchmark output, some of them base64.
//! Shared by `benches/ingest.rs` and `examples/gen_archive.rs` (which
//! writes it for `scripts/bench-ingest.sh`).

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::fixture_files::fixtures_root;

const MESSAGES: usize = 4200;
/// Every this many messages, one carries a fixture's benchmark output.
const RESULTS_EVERY: usize = 30;

/// A small deterministic generator, so every run measures the same archive.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "the",
    "kernel",
    "scheduler",
    "mysql",
    "threads",
    "performance",
    "on",
    "with",
    "a",
    "is",
    "we",
    "tested",
    "box",
    "dual",
    "opteron",
    "FreeBSD",
    "Linux",
    "libthr",
    "patch",
    "run",
    "numbers",
    "looks",
    "better",
    "than",
    "before",
    "and",
    "it",
    "seems",
    "that",
    "disk",
    "latency",
    "queries",
    "per",
    "second",
    "I",
    "think",
    "could",
    "you",
    "try",
    "again",
    "without",
    "tweaks",
    "buffer",
    "pool",
    "InnoDB",
    "settings",
    "my.cnf",
    "result",
    "of",
    "this",
    "machine",
    "load",
    "average",
    "under",
    "benchmark",
    "mutex",
    "contention",
    "here",
];

fn prose(rng: &mut Lcg, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        let mut line = String::new();
        while line.len() < 60 + rng.below(12) {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(WORDS[rng.below(WORDS.len())]);
        }
        line.push('\n');
        out.push_str(&line);
        if rng.below(8) == 0 {
            out.push('\n');
        }
    }
    out
}

fn fixtures() -> Vec<String> {
    let mut texts = Vec::new();
    let mut dirs = vec![fixtures_root()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "txt") {
                // A few real posts are in Latin-1 (fixtures/corpus): read
                // as an upload of them would be, lossily.
                let bytes = std::fs::read(&path).unwrap();
                texts.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    texts
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out.push('\n');
        }
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for j in 0..4 {
            if j <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * j)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push('\n');
    out
}

/// The archive: threads of up to 12 messages, each reply quoting part of
/// the one before with "> ".
pub fn archive() -> Vec<u8> {
    let fixtures = fixtures();
    let mut rng = Lcg(0x5eed);
    let mut out = String::with_capacity(60 << 20);
    let mut previous_body = String::new();
    let mut thread_root = 0;
    for i in 0..MESSAGES {
        let new_thread = i % 12 == 0 || rng.below(6) == 0;
        if new_thread {
            thread_root = i;
            previous_body.clear();
        }
        let mut body = String::new();
        if !previous_body.is_empty() {
            body.push_str("Someone wrote:\n");
            for line in previous_body.lines().take(40 + rng.below(80)) {
                let _ = writeln!(body, "> {line}");
            }
            body.push('\n');
        }
        let lines = 60 + rng.below(120);
        body.push_str(&prose(&mut rng, lines));
        if i % RESULTS_EVERY == 7 {
            body.push_str(&fixtures[(i / RESULTS_EVERY) % fixtures.len()]);
            body.push('\n');
        }
        let lines = 5 + rng.below(20);
        body.push_str(&prose(&mut rng, lines));
        let _ = writeln!(
            out,
            "From user{} at example.org  Mon Apr {:2} {:02}:{:02}:{:02} 2006",
            i % 97,
            1 + i % 28,
            i % 24,
            i % 60,
            (i * 7) % 60
        );
        let _ = writeln!(out, "From: user{0} at example.org (User {0})", i % 97);
        let _ = writeln!(
            out,
            "Date: Mon, {} Apr 2006 {:02}:{:02}:00 +0000",
            1 + i % 28,
            i % 24,
            i % 60
        );
        let _ = writeln!(out, "Subject: Re: thread {thread_root}");
        let _ = writeln!(out, "Message-ID: <m{i}@example.org>");
        if i != thread_root {
            let _ = writeln!(out, "In-Reply-To: <m{}@example.org>", i - 1);
            let _ = writeln!(
                out,
                "References: <m{thread_root}@example.org> <m{}@example.org>",
                i - 1
            );
        }
        if i % 9 == 4 {
            out.push_str("MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n");
            out.push_str(&base64(body.as_bytes()));
        } else {
            out.push('\n');
            // mbox escaping of body lines that look like envelopes.
            for line in body.lines() {
                if line.starts_with("From ") {
                    out.push('>');
                }
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push('\n');
        previous_body = body;
    }
    out.into_bytes()
}
