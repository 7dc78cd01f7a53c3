//! The workload a sysbench run was given: the options that make two runs
//! of one test unlike (a sequential write and a random read of fileio, a
//! prime limit of 10000 or 200000 for cpu), so that they are never
//! averaged as repeats. sysbench prints them above its report, 1.x as
//!
//! ```text
//! 1024 files, 1MiB each
//! 1GiB total file size
//! Block size 16KiB
//! Read/Write ratio for combined random IO test: 1.50
//! Using synchronous I/O mode
//! Doing random r/w test
//! ```
//!
//! (0.4 the same with `16Kb`, `2Gb`), `Prime numbers limit: 10000` (0.4:
//! `Maximum prime number checked in CPU test: 20000`), and memory's
//! `  block size: 1KiB` / `  total size: 102400MiB` / `  operation: write`
//! / `  scope: global` (0.4: `Memory block size: 1K` ...). The command
//! line's options say the same (`--file-test-mode=seqwr`), and one more
//! that sysbench does not print (`--memory-access-mode=rnd`). Each is an
//! attribute named after the option
//! ([`crate::contract::sysbench_workload_keys`]); what
//! sysbench printed wins over what the command asked for, as for the
//! thread count. Sizes are written in the largest binary unit that holds
//! them whole (`1228800Kb` is `1200MiB`), so that 0.4's, 1.x's and the
//! command's spellings of one size are one value.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::contract::sysbench_workload_keys as keys;

/// What stands between fileio's file count and each file's size (`128
/// files, 16Mb each`).
const FILES: &str = " files, ";
/// [`FILES`]'s searcher, built once: every line of a header is searched
/// for it.
static FILES_FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(FILES));

/// The attributes one printed header line gives (at most two: fileio's
/// `N files, SIZE each` gives the count alone, the total has its own line).
pub(super) fn printed(text: &str, into: &mut BTreeMap<&'static str, String>) {
    let text = text.trim();
    let mut put = |key: &'static str, value: Option<String>| {
        if let Some(value) = value {
            into.insert(key, value);
        }
    };
    if let Some(mode) = text
        .strip_prefix("Doing ")
        .and_then(|rest| rest.strip_suffix(" test"))
        .and_then(file_test_mode_named)
    {
        put(keys::FILE_TEST_MODE, Some(mode.to_owned()));
    } else if let Some(size) = text.strip_prefix("Block size ") {
        put(keys::FILE_BLOCK_SIZE, size_value(size));
    } else if let Some(size) = text.strip_suffix(" total file size") {
        put(keys::FILE_TOTAL_SIZE, size_value(size));
    } else if let Some((count, each)) = FILES_FINDER
        .find(text.as_bytes())
        .map(|at| (&text[..at], &text[at + FILES.len()..]))
    {
        // 1.x writes a size that does not divide evenly with decimals
        // (`128 files, 1.1719GiB each`).
        let size = each.strip_suffix(" each").unwrap_or("");
        if size.starts_with(|c: char| c.is_ascii_digit())
            && size.ends_with(|c: char| c.is_ascii_alphabetic())
        {
            put(keys::FILE_NUM, whole(count));
        }
    } else if let Some(ratio) = text.strip_prefix("Read/Write ratio for combined random IO test:") {
        put(keys::FILE_RW_RATIO, number(ratio));
    } else if let Some(mode) = text
        .strip_prefix("Using ")
        .and_then(|rest| rest.strip_suffix(" I/O mode"))
    {
        let mode = match mode {
            "synchronous" => Some("sync"),
            "asynchronous" => Some("async"),
            "mmap" => Some("mmap"),
            _ => None,
        };
        put(keys::FILE_IO_MODE, mode.map(str::to_owned));
    } else if let Some(limit) = text
        .strip_prefix("Prime numbers limit:")
        .or_else(|| text.strip_prefix("Maximum prime number checked in CPU test:"))
    {
        put(keys::CPU_MAX_PRIME, whole(limit));
    } else if let Some((name, value)) = text.split_once(':') {
        let value = value.trim();
        match name {
            "block size" | "Memory block size" => put(keys::MEMORY_BLOCK_SIZE, size_value(value)),
            "total size" | "Memory transfer size" => {
                put(keys::MEMORY_TOTAL_SIZE, size_value(value))
            }
            "operation" | "Memory operations type" => put(keys::MEMORY_OPER, word(value)),
            "scope" | "Memory scope type" => put(keys::MEMORY_SCOPE, word(value)),
            _ => {}
        }
    }
}

/// The attributes a command line's options give (`--file-test-mode=seqwr`
/// or `--file-test-mode seqwr`), for those sysbench did not print.
pub(super) fn from_command(command: &str, into: &mut BTreeMap<&'static str, String>) {
    let words: Vec<&str> = command.split_whitespace().collect();
    for (at, given) in words.iter().enumerate() {
        let Some(option) = given.strip_prefix("--") else {
            continue;
        };
        let (name, value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, words.get(at + 1).copied()),
        };
        let Some(value) = value.map(|value| value.trim_matches(|c| c == '"' || c == '\'')) else {
            continue;
        };
        let (key, value) = match name {
            "file-test-mode" => (
                keys::FILE_TEST_MODE,
                file_test_mode(value).map(str::to_owned),
            ),
            "file-num" => (keys::FILE_NUM, whole(value)),
            "file-total-size" => (keys::FILE_TOTAL_SIZE, size_value(value)),
            "file-block-size" => (keys::FILE_BLOCK_SIZE, size_value(value)),
            "file-rw-ratio" => (keys::FILE_RW_RATIO, number(value)),
            "file-io-mode" => (keys::FILE_IO_MODE, io_mode(value).map(str::to_owned)),
            "cpu-max-prime" => (keys::CPU_MAX_PRIME, whole(value)),
            "memory-block-size" => (keys::MEMORY_BLOCK_SIZE, size_value(value)),
            "memory-total-size" => (keys::MEMORY_TOTAL_SIZE, size_value(value)),
            "memory-oper" => (keys::MEMORY_OPER, word(value)),
            "memory-scope" => (keys::MEMORY_SCOPE, word(value)),
            "memory-access-mode" => (keys::MEMORY_ACCESS_MODE, word(value)),
            _ => continue,
        };
        if let Some(value) = value {
            into.entry(key).or_insert(value);
        }
    }
}

/// fileio's modes as `--file-test-mode` names them.
const FILE_TEST_MODES: [&str; 6] = ["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"];

fn file_test_mode(value: &str) -> Option<&'static str> {
    FILE_TEST_MODES.iter().copied().find(|mode| *mode == value)
}

/// The mode a `Doing ... test` line names: `sequential write (creation)`,
/// `sequential rewrite`, `sequential read`, `random read`, `random write`,
/// `random r/w`.
fn file_test_mode_named(words: &str) -> Option<&'static str> {
    Some(match words {
        "sequential write (creation)" => "seqwr",
        "sequential rewrite" => "seqrewr",
        "sequential read" => "seqrd",
        "random read" => "rndrd",
        "random write" => "rndwr",
        "random r/w" => "rndrw",
        _ => return None,
    })
}

fn io_mode(value: &str) -> Option<&'static str> {
    ["sync", "async", "mmap"]
        .into_iter()
        .find(|mode| *mode == value)
}

/// A count: digits alone.
fn whole(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.trim_start_matches('0').to_owned())
        .map(|digits| {
            if digits.is_empty() {
                "0".to_owned()
            } else {
                digits
            }
        })
}

/// A ratio: `1.50` (as written, at most 16 characters).
fn number(text: &str) -> Option<String> {
    let text = text.trim();
    if text.len() > 16 {
        return None;
    }
    text.parse::<f64>()
        .ok()
        .filter(|value| value.is_finite() && *value >= 0.0)
        .map(|_| text.to_owned())
}

/// One lower-case word: `write`, `global`.
fn word(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && text.len() <= 16 && text.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| text.to_ascii_lowercase())
}

/// A size as sysbench prints or takes it (`16KiB`, `16Kb`, `1228800Kb`,
/// `2G`, `16384` bytes), in the largest binary unit that holds it whole.
fn size_value(text: &str) -> Option<String> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = text.get(..digits)?.parse().ok()?;
    let scale: u64 = match text[digits..].trim() {
        "" | "b" | "B" => 1,
        "K" | "k" | "Kb" | "KB" | "KiB" => 1 << 10,
        "M" | "m" | "Mb" | "MB" | "MiB" => 1 << 20,
        "G" | "g" | "Gb" | "GB" | "GiB" => 1 << 30,
        "T" | "t" | "Tb" | "TB" | "TiB" => 1 << 40,
        _ => return None,
    };
    let bytes = number.checked_mul(scale)?;
    let units = [
        (1u64 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    Some(
        units
            .iter()
            .find(|(size, _)| bytes >= *size && bytes % size == 0)
            .map_or_else(
                || format!("{bytes}B"),
                |(size, unit)| format!("{}{unit}", bytes / size),
            ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str], command: Option<&str>) -> BTreeMap<&'static str, String> {
        let mut found = BTreeMap::new();
        for line in lines {
            printed(line, &mut found);
        }
        if let Some(command) = command {
            from_command(command, &mut found);
        }
        found
    }

    #[test]
    fn fileio_headers_of_each_generation_say_the_same() {
        assert_eq!(
            read(&["128 files, 1.1719GiB each"], None)["file_num"],
            "128"
        );
        let one = read(
            &[
                "1024 files, 1MiB each",
                "1GiB total file size",
                "Block size 16KiB",
                "Read/Write ratio for combined random IO test: 1.50",
                "Using synchronous I/O mode",
                "Doing sequential write (creation) test",
            ],
            None,
        );
        let old = read(
            &[
                "1024 files, 1Mb each",
                "1Gb total file size",
                "Block size 16Kb",
                "Read/Write ratio for combined random IO test: 1.50",
                "Using synchronous I/O mode",
                "Doing sequential write (creation) test",
            ],
            None,
        );
        let asked = read(
            &[],
            Some("sysbench fileio --file-num=1024 --file-total-size=1G --file-block-size=16384 --file-rw-ratio=1.50 --file-io-mode sync --file-test-mode=seqwr run"),
        );
        assert_eq!(one, old);
        assert_eq!(one, asked);
        assert_eq!(one["file_test_mode"], "seqwr");
        assert_eq!(one["file_block_size"], "16KiB");
        assert_eq!(one["file_total_size"], "1GiB");
        assert_eq!(one["file_num"], "1024");
        assert_eq!(one["file_io_mode"], "sync");
    }

    #[test]
    fn what_sysbench_printed_wins_over_the_command() {
        let found = read(
            &["Doing random r/w test", "Prime numbers limit: 20000"],
            Some("sysbench --test=fileio --file-test-mode=seqrd --cpu-max-prime=10000 run"),
        );
        assert_eq!(found["file_test_mode"], "rndrw");
        assert_eq!(found["cpu_max_prime"], "20000");
    }

    #[test]
    fn cpu_and_memory_options() {
        let found = read(
            &[
                "Maximum prime number checked in CPU test: 20000",
                "  block size: 1KiB",
                "  total size: 102400MiB",
                "  operation: write",
                "  scope: global",
            ],
            None,
        );
        assert_eq!(found["cpu_max_prime"], "20000");
        assert_eq!(
            read(
                &[],
                Some("sysbench --test=memory --memory-access-mode=rnd run")
            )["memory_access_mode"],
            "rnd"
        );
        assert_eq!(found["memory_block_size"], "1KiB");
        assert_eq!(found["memory_total_size"], "100GiB");
        assert_eq!(found["memory_oper"], "write");
        assert_eq!(found["memory_scope"], "global");
        let old = read(
            &[
                "Memory block size: 1K",
                "Memory transfer size: 102400M",
                "Memory operations type: write",
                "Memory scope type: global",
            ],
            None,
        );
        assert_eq!(
            old,
            found
                .into_iter()
                .filter(|(k, _)| k.starts_with("memory"))
                .collect()
        );
    }

    #[test]
    fn sizes_are_written_in_their_largest_whole_unit() {
        assert_eq!(size_value("1228800Kb").as_deref(), Some("1200MiB"));
        assert_eq!(size_value("131072KiB").as_deref(), Some("128MiB"));
        assert_eq!(size_value("160KiB").as_deref(), Some("160KiB"));
        assert_eq!(size_value("1000").as_deref(), Some("1000B"));
        assert_eq!(size_value("3Gb").as_deref(), Some("3GiB"));
        assert_eq!(size_value("lots"), None);
        assert_eq!(size_value("99999999999999999999T"), None);
    }

    #[test]
    fn prose_gives_nothing() {
        let found = read(
            &[
                "Doing a quick test",
                "Using my own I/O mode",
                "two files, many each",
                "block size: huge",
                "operation: 12 ops",
            ],
            Some("run --file-test-mode=fast --cpu-max-prime=-1 --file-rw-ratio=1.00000000000000000001"),
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
