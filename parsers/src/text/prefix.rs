//! What a harness or a terminal puts before each line of a tool's output:
//! a timestamp (`20110608-135645  `, `[2011-06-08 13:56:45] `,
//! `2011-06-08 13:56:45 `) and a shell prompt before a benchmark's command
//! line (`# `, `$ `, `[root@db1 ~]# `, `user@host:~$ `). Taking them off is
//! slicing, so the text still borrows from the input.

/// The line without a leading timestamp, then without a shell prompt that
/// stands before a benchmark command.
pub fn strip_line_prefix(text: &str) -> &str {
    strip_line_prefix_marked(text, true)
}

/// The bytes a prompt ends with (`# `, `$ `, `% `).
pub const PROMPT_BYTES: [u8; 3] = *b"#$%";

/// [`strip_line_prefix`] for a line whose mark says whether it holds one
/// of [`PROMPT_BYTES`]: a line without one has no prompt to look for.
/// Inlined into the callers with the first-byte test for a stamp: every
/// line of the input goes through it, and most lines are done after it.
#[inline]
pub fn strip_line_prefix_marked(text: &str, may_hold_prompt: bool) -> &str {
    // Cheap first: most lines start with none of the three bytes a stamp
    // (or the indentation before one) starts with.
    let text = if matches!(text.as_bytes().first(), Some(b' ' | b'[' | b'0'..=b'9')) {
        strip_stamp(text)
    } else {
        text
    };
    if may_hold_prompt {
        strip_prompt(text)
    } else {
        text
    }
}

/// A stamp starts with a digit or `[` and a digit. A page may indent the
/// stamped lines (a reStructuredText literal block): up to 8 spaces
/// before the stamp go with it. The caller has tested the first byte.
fn strip_stamp(text: &str) -> &str {
    let indent = text.bytes().take(9).take_while(|&c| c == b' ').count();
    if indent > 8 {
        return text;
    }
    let whole = text;
    let text = &text[indent..];
    let b = text.as_bytes();
    let starts = match b.first() {
        Some(b'0'..=b'9') => true,
        Some(b'[') => b.get(1).is_some_and(u8::is_ascii_digit),
        _ => false,
    };
    if !starts {
        return whole;
    }
    let width = if b[0] == b'[' {
        bracketed_stamp(b)
    } else {
        compact_stamp(b).or_else(|| iso_stamp(b))
    };
    match width {
        // A stamp is followed by its separator; the tool's own indentation
        // (tabs in diskinfo) comes after that and is kept.
        Some(w) if matches!(b.get(w), Some(b' ' | b'\t')) => {
            let rest = &text[w..];
            rest.strip_prefix('\t')
                .unwrap_or_else(|| rest.trim_start_matches(' '))
        }
        Some(w) if w == b.len() => "",
        _ => whole,
    }
}

fn digits(b: &[u8], at: usize, n: usize) -> bool {
    b.len() >= at + n && b[at..at + n].iter().all(u8::is_ascii_digit)
}

/// `20110608-135645`.
fn compact_stamp(b: &[u8]) -> Option<usize> {
    (digits(b, 0, 8) && b.get(8) == Some(&b'-') && digits(b, 9, 6)).then_some(15)
}

/// `2011-06-08 13:56:45`, `2011-06-08T13:56:45.123Z`, with an optional
/// fraction and zone.
fn iso_stamp(b: &[u8]) -> Option<usize> {
    let date = digits(b, 0, 4)
        && b.get(4) == Some(&b'-')
        && digits(b, 5, 2)
        && b.get(7) == Some(&b'-')
        && digits(b, 8, 2)
        && matches!(b.get(10), Some(b' ' | b'T'))
        && digits(b, 11, 2)
        && b.get(13) == Some(&b':')
        && digits(b, 14, 2)
        && b.get(16) == Some(&b':')
        && digits(b, 17, 2);
    if !date {
        return None;
    }
    let tail = b[19..]
        .iter()
        .take_while(|c| c.is_ascii_digit() || matches!(c, b'.' | b',' | b'Z' | b'+'))
        .count();
    Some(19 + tail)
}

/// `[2011-06-08 13:56:45]`, `[20110608-135645]`, `[2011-06-08T13:56:45.1]`:
/// a date and a clock time inside brackets. sysbench's own `[ 10s]` is no
/// stamp (it starts with a space).
fn bracketed_stamp(b: &[u8]) -> Option<usize> {
    let close = b.iter().take(40).position(|&c| c == b']')?;
    let inner = &b[1..close];
    let stamp = iso_stamp(inner) == Some(inner.len()) || compact_stamp(inner) == Some(inner.len());
    stamp.then_some(close + 1)
}

/// The benchmark commands a prompt is taken off before: only these, so a
/// `# comment` in a my.cnf stays a comment.
const COMMANDS: [&str; 14] = [
    "super-smack",
    "mysql-super-smack",
    "smack",
    "sysbench",
    "diskinfo",
    "bonnie",
    "bonnie++",
    "Bonnie",
    "run-all-tests",
    "perl",
    "sudo",
    "time",
    "nice",
    "env",
];

fn is_benchmark_command(rest: &str) -> bool {
    let Some(word) = rest.split_whitespace().next() else {
        return false;
    };
    let base = word.rsplit('/').next().unwrap_or(word);
    COMMANDS.contains(&base) || base.starts_with("test-") || base.ends_with(".smack")
}

/// `[root@db1 ~]` and FreeNAS's `[root@freenas] ~`: a bracketed part,
/// then at most one word.
fn bracketed_prompt(before: &str) -> bool {
    let Some(inner) = before.strip_prefix('[') else {
        return false;
    };
    let Some(close) = inner.find(']') else {
        return false;
    };
    let after = inner[close + 1..].trim_start();
    !after.contains(char::is_whitespace)
}

/// `$ sysbench ...`, `# diskinfo -t ada0`, `[root@db1 ~]# super-smack ...`,
/// `user@host:~$ ./run-all-tests`, `host% bonnie++ ...`.
fn strip_prompt(text: &str) -> &str {
    let b = text.as_bytes();
    let search = b.len().min(80);
    // Most lines have no prompt character at all.
    let [hash, dollar, percent] = PROMPT_BYTES;
    if memchr::memchr3(hash, dollar, percent, &b[..search]).is_none() {
        return text;
    }
    for i in 0..search {
        if !matches!(b[i], b'#' | b'$' | b'%') || b.get(i + 1) != Some(&b' ') {
            continue;
        }
        let before = &text[..i];
        let prompt = before.is_empty()
            || bracketed_prompt(before)
            || (!before.contains(char::is_whitespace)
                && !before.contains(['=', '#', '$', '%'])
                && (before.contains(['@', ':', '~']) || i <= 24));
        if !prompt {
            // Once a word has gone by that is no prompt, no later `# `
            // can start one.
            if before.contains(char::is_whitespace) && !bracketed_prompt(before) {
                return text;
            }
            continue;
        }
        let rest = text[i + 2..].trim_start();
        if is_benchmark_command(rest) {
            return rest;
        }
        return text;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps() {
        let cases = [
            (
                "20110608-135645  Query_type num_queries",
                "Query_type num_queries",
            ),
            (
                "[2011-06-08 13:56:45] select_index 2000",
                "select_index 2000",
            ),
            ("2011-06-08 13:56:45 Operation seconds", "Operation seconds"),
            (
                "2011-06-08T13:56:45.123Z transactions: 10",
                "transactions: 10",
            ),
            ("[20110608-135645] x", "x"),
            ("20110608-135645\t\tFull stroke:", "\tFull stroke:"),
            ("20110608-135645", ""),
            (
                "[ 10s] threads: 8, tps: 1.00",
                "[ 10s] threads: 8, tps: 1.00",
            ),
            ("2011-06-08 is the date", "2011-06-08 is the date"),
            ("100 clients", "100 clients"),
            ("20110608-1356 short", "20110608-1356 short"),
            ("[2011-06-08 13:56:45]tight", "[2011-06-08 13:56:45]tight"),
            ("512\t# sectorsize", "512\t# sectorsize"),
            // Indented in a page's literal block (the Drizzle docs).
            (
                "    20110608-135645  Benchmark DBD suite: 2.15",
                "Benchmark DBD suite: 2.15",
            ),
            ("    100 clients", "    100 clients"),
            ("         20110608-135645  x", "         20110608-135645  x"),
        ];
        for (i, (raw, want)) in cases.into_iter().enumerate() {
            assert_eq!(strip_line_prefix(raw), want, "case {i}: {raw:?}");
        }
    }

    #[test]
    fn prompts() {
        let cases = [
            (
                "$ super-smack -d mysql select-key.smack 10 100",
                "super-smack -d mysql select-key.smack 10 100",
            ),
            ("# diskinfo -t /dev/ada0", "diskinfo -t /dev/ada0"),
            (
                "[root@db1 ~]# ./super-smack update-select.smack 30 1000",
                "./super-smack update-select.smack 30 1000",
            ),
            (
                "user@host:~/sql-bench$ ./run-all-tests --server=mysql",
                "./run-all-tests --server=mysql",
            ),
            ("host% bonnie++ -d /tmp", "bonnie++ -d /tmp"),
            (
                "[root@freenas] ~# diskinfo -t /dev/ada0  ",
                "diskinfo -t /dev/ada0  ",
            ),
            ("[x] a b# diskinfo -t ada0", "[x] a b# diskinfo -t ada0"),
            (
                "db1# time sysbench --test=oltp run",
                "time sysbench --test=oltp run",
            ),
            ("# sectorsize comment", "# sectorsize comment"),
            ("# Use this for tuning", "# Use this for tuning"),
            ("$ ls -l", "$ ls -l"),
            ("512\t# sectorsize", "512\t# sectorsize"),
            ("costs 5$ super-smack", "costs 5$ super-smack"),
            ("key_buffer = 64M # sysbench", "key_buffer = 64M # sysbench"),
            ("#", "#"),
        ];
        for (i, (raw, want)) in cases.into_iter().enumerate() {
            assert_eq!(strip_line_prefix(raw), want, "case {i}: {raw:?}");
        }
    }
}
