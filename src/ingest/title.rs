//! The title of a text stored without a Subject of its own: its first
//! line when that reads as one, or for a paste, what it holds.

use std::borrow::Cow;

use parsers::Document;

use crate::limits::MAX_TITLE_CHARS;

/// The title of a text with no Subject of its own: its first line, when
/// that reads as one, as a paste copied from a list archive's page starts
/// with the mail's subject (`[Maria-developers] MariaDB scalability:
/// mutexes`). Not a line of a report, a quote, an attribution or lead-in
/// (ending with `:` or `,`), nor the start of a wrapped sentence (the
/// next line going on in lower case).
pub(super) fn title_line<'t>(text: &'t str, document: &Document) -> Option<&'t str> {
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, line)| line.trim().is_empty());
    let (index, first) = lines.next()?;
    let title = first.trim();
    let next = lines.next().map_or("", |(_, line)| line.trim_start());
    let in_a_run = document
        .runs
        .iter()
        .any(|run| (run.lines[0]..=run.lines[1]).contains(&(index + 1)));
    let reads_as_title = title.chars().count() <= MAX_TITLE_CHARS
        && title.chars().any(char::is_alphabetic)
        && !title.starts_with('>')
        && !title.ends_with([':', ',', ';', '-'])
        && !next.starts_with(char::is_lowercase)
        && !in_a_run;
    reads_as_title.then_some(title)
}

/// The title of a text pasted with none and carrying no Subject, so that
/// no paste is listed as just "paste": its first meaningful line, else
/// what it holds (`super-smack select-key: 4 runs`), else none (an empty
/// text of no runs).
///
/// A line is meaningful unless it is blank, a line of a run or a near
/// miss (a report's command, its banner such as `Query Barrel Report`,
/// its table), only quote marks, a separator (`-----`, `=====`, `***`),
/// a shell prompt alone (`$`, `mysql>`, `[root@db ~]#`) or with a
/// command (`$ sysbench ...`), a field of a header block (`From: ...`,
/// `Date: ...`, a front matter's `layout: post`, and the lines that
/// continue them), an attribution, lead-in or greeting (ending in `:` or
/// `,`), a bare address, or without a letter. A `title:` or `Subject:`
/// field gives its value. The line is taken without its quote marks,
/// heading marks and decoration, its white space collapsed, and cut at a
/// word to [`MAX_TITLE_CHARS`] with `…`.
pub fn paste_title(text: &str, document: &Document) -> Option<String> {
    // The lines of runs and near misses, by first line: skipped in one
    // pass with a cursor.
    let mut taken: Vec<(usize, usize)> = document
        .runs
        .iter()
        .map(|run| (run.lines[0], run.lines[1]))
        .chain(document.unparsed.iter().map(|miss| {
            let lines = miss.text.lines().count().max(1);
            (miss.line, miss.line + lines - 1)
        }))
        .collect();
    taken.sort_unstable();
    let mut next_taken = 0;
    let mut in_fields = false;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        while taken
            .get(next_taken)
            .is_some_and(|&(_, last)| last < number)
        {
            next_taken += 1;
        }
        if taken
            .get(next_taken)
            .is_some_and(|&(first, _)| first <= number)
        {
            continue;
        }
        // A header field goes on on indented lines.
        if in_fields && raw.starts_with([' ', '\t']) && !raw.trim().is_empty() {
            continue;
        }
        in_fields = false;
        let line = raw.trim_start().trim_start_matches(['>', ' ', '\t', '|']);
        let line = line.trim();
        if is_code(line) || !line.starts_with('<') && is_prompt(line) {
            continue;
        }
        let line = if let Some((key, value)) = header_field(line) {
            in_fields = true;
            if !key.eq_ignore_ascii_case("title") && !key.eq_ignore_ascii_case("subject") {
                continue;
            }
            value.trim_matches(['"', '\''])
        } else {
            line
        };
        let line = if line.starts_with('<') {
            Cow::Owned(without_tags(line))
        } else {
            Cow::Borrowed(line)
        };
        let line = line
            .trim_matches(|c: char| "#=*_~-`".contains(c) || c.is_whitespace())
            .trim_start_matches("[b]")
            .trim_end_matches("[/b]");
        let lead_in = line.ends_with([':', ',', ';', '：', '，']);
        // An address, a path, a line of CSV: no title is one long word.
        let long_word = !line.contains(char::is_whitespace)
            && (line.contains("://") || line.is_ascii() && line.len() > 40);
        let table_rule = line.contains("----") || line.contains("====");
        if lead_in || long_word || table_rule || !line.chars().any(char::is_alphabetic) {
            continue;
        }
        return Some(cut_to_title(line));
    }
    runs_title(document)
}

/// `sysbench oltp, sysbench fileio: 5 runs`: a paste's title when no line
/// of it reads as one ([`paste_title`]); up to three kinds of run named.
fn runs_title(document: &Document) -> Option<String> {
    const NAMED: usize = 3;
    let mut kinds: Vec<(parsers::Tool, Option<&str>)> = Vec::new();
    let mut more = false;
    for run in &document.runs {
        let kind = (run.tool, run.test.as_deref());
        if kinds.contains(&kind) {
            continue;
        }
        if kinds.len() == NAMED {
            more = true;
            break;
        }
        kinds.push(kind);
    }
    if kinds.is_empty() {
        return None;
    }
    let mut names: Vec<String> = kinds
        .iter()
        .map(|(tool, test)| match test {
            // bonnie's test is `bonnie++`, diskinfo's `diskinfo`.
            Some(test) if test.contains(tool.name()) => (*test).to_owned(),
            Some(test) => format!("{} {test}", tool.name()),
            None => tool.name().to_owned(),
        })
        .collect();
    if more {
        names.push("…".to_owned());
    }
    let runs = document.runs.len();
    let plural = if runs == 1 { "" } else { "s" };
    Some(cut_to_title(&format!(
        "{}: {runs} run{plural}",
        names.join(", ")
    )))
}

/// A shell prompt, alone or before a command: `$`, `% make`, `mysql>`,
/// `bash-3.2$`, `root@db:~# sysbench`, `[root@db ~]# ./run`. A `#`
/// followed by a space is a markdown heading, not a root prompt.
fn is_prompt(line: &str) -> bool {
    if line.starts_with('[') {
        if let Some(end) = line.find(']') {
            let after = &line[end + 1..];
            return after.starts_with(['$', '#', '%'])
                && after[1..].chars().next().is_none_or(char::is_whitespace);
        }
    }
    let first = line.split_whitespace().next().unwrap_or("");
    let alone = first.len() == line.len();
    match first.chars().last() {
        Some('$' | '%' | '>') => true,
        Some('#') => alone && first.len() > 1 && !first.starts_with('#') || first.contains('@'),
        _ => false,
    }
}

/// Code, not prose: a fence (```` ``` ````, `~~~`), a shebang, a
/// comment (`//`, `/*`), a roff request or reStructuredText directive
/// (`.TH`, `.. note::`), a relative path run as a command (`./run`).
fn is_code(line: &str) -> bool {
    ["```", "~~~", "#!", "//", "/*", "."]
        .iter()
        .any(|start| line.starts_with(start))
}

/// `Key: value` (or TOML's `key = value`) where the key is one word
/// (`From`, `Date`, `X-Mailer`, `layout`): a field of a mail's or a
/// page's header block.
fn header_field(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(": ").or_else(|| line.split_once(" = "))?;
    let word = !key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    word.then_some((key, value.trim()))
}

/// The text of a line of HTML, its tags taken off.
fn without_tags(line: &str) -> String {
    let mut text = String::with_capacity(line.len());
    let mut in_tag = false;
    for c in line.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// `line` with its white space collapsed, cut at a word (or, in a text
/// without spaces, a character) to at most [`MAX_TITLE_CHARS`] with `…`.
fn cut_to_title(line: &str) -> String {
    let words = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.chars().count() <= MAX_TITLE_CHARS {
        return words;
    }
    let end = words
        .char_indices()
        .nth(MAX_TITLE_CHARS - 1)
        .map_or(words.len(), |(at, _)| at);
    let head = &words[..end];
    let head = match head.rfind(' ') {
        Some(space) if space > end / 2 && !words[end..].starts_with(' ') => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end_matches([',', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The title each pasted text gets: its first meaningful line, else
    /// what it holds.
    #[test]
    fn an_untitled_paste_takes_its_first_meaningful_line_or_what_it_holds() {
        let report = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";
        // 99 characters, then the mark.
        let long_title = format!("{}…", "word ".repeat(20).trim_end());
        let cases: Vec<(String, Option<&str>)> = vec![
            // A list archive's page starts with the mail's subject.
            (
                fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt"),
                Some("[Maria-developers] MariaDB scalability: mutexes"),
            ),
            // The attribution is no title; the quoted text under it is.
            (
                fixture("fixtures/sysbench/seed-003-script-and-dmesg-no-results.txt"),
                Some("Back in March I posted some MySQL benchmarks after we switched to a 1:1"),
            ),
            // A wrapped sentence's first line is one here.
            (
                fixture("fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt"),
                Some("In order to verify and perhaps solve the SMP problems I and others"),
            ),
            // A report's own lines (its command, `Query Barrel Report`)
            // are not: what it holds is.
            (report.to_owned(), Some("super-smack select-key: 1 run")),
            // A prompt with its command, then the tool's banner.
            (
                fixture("fixtures/sysbench/1.0-fileio-rndrw-file-operations-throughput.txt"),
                Some("sysbench fileio: 1 run"),
            ),
            (
                fixture("fixtures/sysbench/1.0-threads-and-mutex-general-statistics-only.txt"),
                Some("sysbench threads, sysbench mutex: 2 runs"),
            ),
            // diskinfo's test is its name, said once.
            (
                fixture("fixtures/diskinfo/diskinfo-ct-two-disks-one-command.txt"),
                Some("diskinfo: 2 runs"),
            ),
            // A blank line and separators above a caption.
            (
                fixture("fixtures/sysbench/real-txt-container-benchmarks-labels-underlined-proot.txt"),
                Some("CPU BENCHMARKS"),
            ),
            // A page's header block gives its title field.
            (
                fixture("fixtures/bonnie/real-blog-pelican-2008-tmpfs-1.03d-files-only-indented-blocks.txt"),
                Some("tmpfs vs. ext3 performance on large file sets"),
            ),
            (
                fixture("fixtures/bonnie/real-forum-2009-lianli-1.03c-prompt-session-in-fence.txt"),
                Some("Benchmarking HDD Performance"),
            ),
            // Headers, quote marks alone, a prompt alone, a greeting, a
            // markdown heading.
            (
                format!("From: Ann <ann@example.org>\nDate: Mon, 1 Jan 2007\n  (continued)\n\n>\n> >\n$\nmysql>\nHi all,\n## ULE vs 4BSD on the new box ##\n\n{report}"),
                Some("ULE vs 4BSD on the new box"),
            ),
            // A long line is cut at a word.
            (
                format!("{}\n\n{report}", "word ".repeat(40)),
                Some(long_title.as_str()),
            ),
            // Nothing to say.
            ("-----\n\n=====\n".to_owned(), None),
        ];
        for (index, (text, title)) in cases.iter().enumerate() {
            let document = parsers::parse(text);
            let found = paste_title(text, &document);
            assert_eq!(found.as_deref(), *title, "case {index}");
            if let Some(found) = found {
                assert!(found.chars().count() <= MAX_TITLE_CHARS, "case {index}");
            }
        }
    }
}
