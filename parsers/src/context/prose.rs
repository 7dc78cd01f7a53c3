//! Labels in prose: the author's own short line that names the run right
//! under it, as a section banner would — `Before this change:`, `After:`,
//! `host:`, `With patch:`, `2.6.23-rc1:`, `And here the results when
//! mounting without barrier:`, or a lone `vanilla` directly above a report.
//!
//! # Which lines are labels
//!
//! A line is a *prose label* when all of these hold:
//!
//! 1. **It is not the tool's.** It lies outside the lines of every run found
//!    at its quote depth (a tool's own headers — `Threads fairness:`, `Seek
//!    times:`, `Totals per operation:` — lie inside their run and are never
//!    labels); it is not a command line ([`is_command_line`]), not a rule
//!    line ([`is_rule`]) and not a section banner or markdown heading.
//! 2. **It has a label's shape**, one of three (bytes and words counted on
//!    the trimmed line):
//!    - *colon label*: ends with `:`, at most [`MAX_LINE`] bytes and
//!      [`MAX_WORDS`] words of prose (words starting with a letter: options
//!      such as `-a0`, paths and numbers are not counted);
//!    - *underlined label*: the same bounds without the colon, with a rule
//!      (`-----` or `=====`) on the next line, as a heading is drawn in mail;
//!    - *lone phrase*: at most [`MAX_LONE_LEN`] bytes and [`MAX_LONE_WORDS`]
//!      words, starting with a letter or digit (after a list item's `- `,
//!      `* ` or `• `: `* Developer 1`), not ending with `.`, `,`,
//!      `;`, `!` or `?`, and the very next line (no blank line between) is
//!      the first line of a run at the same depth: directly above a report.
//! 3. **It starts its sentence.** The line above it at the same depth is
//!    blank, absent, at another depth, part of a run, or ends with
//!    something other than a letter, a digit, `,` or `;`. The tail of a
//!    wrapped sentence (`...compiling it in, here some bonnie++ results:`)
//!    is no label, nor is a parenthesis closing one (`(already sent to
//!    this list):`).
//! 4. **It names something.** It is not an attribution (`... wrote:`), does
//!    not end with a word that waits for what follows ([`INTRODUCING_TAILS`]:
//!    `The command I'm running is:`) and has no `following` in it (`running
//!    the following over a Gigabit link:`), is not a tool's section header met
//!    outside its run ([`TOOL_HEADERS`]), and is not made only of [`FILLER`]
//!    words (`Here's a bonnie++ benchmark:`, `And this is the output:`,
//!    `I get:`).
//!
//! The label text is the line trimmed, leading `-`, `*` or `•` marks and the
//! trailing `:` dropped, runs of white space made one space, and cut at a
//! word boundary to at most [`MAX_LABEL_CHARS`] characters.
//!
//! # Which runs it labels
//!
//! A prose label applies only at its own quote depth: `> Before:` labels a
//! quoted run, `Before:` a run of the message's own text. From its line on
//! it is *pending*: blank lines, command lines and rule lines at its depth
//! keep it pending; the first line of a run at its depth *attaches* it;
//! anything else — a line of prose, a line at another depth, a section
//! banner — drops it. Once attached it labels every line of that run and of
//! the runs that follow it with only blank or command lines between, and
//! ends at the first other line (a rule line included). A newer prose label
//! replaces it, pending or attached. While it is attached it takes the place
//! of the section banner in force; once it ends, the banner is in force
//! again. A run takes the label in force where its first value is printed,
//! as for banners.
//!
//! The check costs little per line: outside runs, a line's last byte and
//! the first bytes of the line below decide whether it can be a label at
//! all, and only the rare line of a label's shape has its words looked at,
//! without allocating until it is taken; no pattern matching, no second
//! pass over the lines.

/// Longest colon or underlined label line, in bytes once trimmed.
pub const MAX_LINE: usize = 100;
/// Most words of prose a colon or underlined label may have.
pub const MAX_WORDS: usize = 10;
/// Longest lone phrase, in bytes once trimmed.
pub const MAX_LONE_LEN: usize = 32;
/// Most words a lone phrase may have.
pub const MAX_LONE_WORDS: usize = 4;
/// Longest label kept, in characters; a longer one is cut at a word boundary.
pub const MAX_LABEL_CHARS: usize = 80;

/// Words that name nothing about a run: a label made only of these
/// introduces results without telling which (`Here are the results:`).
/// Endings that introduce what follows in languages written without
/// spaces between words: Chinese `如下` ("as follows"), Japanese `以下の通り`.
pub const INTRODUCING_ENDINGS: &[&str] = &["如下", "以下の通り", "次の通り"];

pub const FILLER: &[&str] = &[
    "a",
    "all",
    "an",
    "and",
    "are",
    "as",
    "below",
    "bench",
    "benchmark",
    "benchmarks",
    "comparison",
    "did",
    "follow",
    "follows",
    "for",
    "from",
    "get",
    "gives",
    "got",
    "here",
    "here's",
    "heres",
    "how",
    "i",
    "i've",
    "is",
    "it",
    "its",
    "it's",
    "mark",
    "me",
    "my",
    "now",
    "number",
    "numbers",
    "of",
    "ok",
    "our",
    "output",
    "quick",
    "result",
    "results",
    "run",
    "runs",
    "see",
    "setup",
    "show",
    "shows",
    "simple",
    "so",
    "some",
    "test",
    "tests",
    "that",
    "the",
    "these",
    "this",
    "those",
    "using",
    "was",
    "we",
    "were",
    "to",
    "what",
    "with",
    "bonnie",
    "bonnie++",
    "sysbench",
    "super-smack",
    "diskinfo",
    "sql-bench",
];

/// Last words of an attribution line (`Michael Vince wrote:`).
pub const ATTRIBUTION_TAILS: &[&str] = &["wrote", "writes", "said", "schrieb", "écrit"];

/// Last words that leave a sentence waiting for what follows: the line
/// introduces something (`The command I'm running is:`, `...looks like:`)
/// rather than naming the run.
pub const INTRODUCING_TAILS: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "like",
    "follows",
    "following",
    "gives",
    "gave",
    "shows",
    "showed",
    "says",
    "reads",
    "get",
    "got",
    "gets",
    "see",
    "here",
    "to",
    "of",
    "the",
    "a",
    "an",
    "and",
    "or",
    "as",
    "by",
    "for",
    "in",
    "on",
    "at",
    "from",
    "with",
    "this",
    "these",
];

/// Section headers the tools print themselves. Inside a run they are the
/// run's own lines; met outside one (a report cut short, a pasted part)
/// they still name no run.
pub const TOOL_HEADERS: &[&str] = &[
    "threads",
    "threads fairness",
    "general statistics",
    "sql statistics",
    "oltp test statistics",
    "test execution summary",
    "per-request statistics",
    "queries performed",
    "response time",
    "latency",
    "latency (ms)",
    "throughput",
    "file operations",
    "operations performed",
    "cpu speed",
    "execution time",
    "running the test with following options",
    "seek times",
    "transfer rates",
    "i/o command overhead",
    "asynchronous random reads",
    "synchronous random writes",
    "totals per operation",
];

/// Lines a tool prints as it starts or goes on, before its report:
/// between a label and its report they keep the label waiting, as a
/// command line does.
const TOOL_PROGRESS: &[&str] = &[
    "threads started!",
    "initializing worker threads...",
    "done.",
];

/// How a line sysbench prints while it runs starts, beside those of
/// [`TOOL_PROGRESS`].
const PROGRESS_STARTS: &[&str] = &["Extra file open flags"];

/// Whether a line is one of [`TOOL_PROGRESS`] or [`PROGRESS_STARTS`], or
/// what a tool prints while it sets up or clears away a run (sysbench's
/// `prepare` and `cleanup`: their banner, the lines
/// `sysbench::prepare_or_cleanup_output` knows, `128 files, ...
/// total`, `... bytes written in 152.64 seconds`), which may stand
/// between a label and its run like a command.
pub fn is_tool_progress(text: &str) -> bool {
    let text = text.trim();
    let banner = text.starts_with("sysbench ")
        && (text.contains("LuaJIT") || text.contains("evaluation benchmark"));
    banner
        || TOOL_PROGRESS
            .iter()
            .any(|line| line.eq_ignore_ascii_case(text))
        || PROGRESS_STARTS.iter().any(|start| text.starts_with(start))
        || crate::sysbench::prepare_or_cleanup_output(text)
        || (text.ends_with(" total") && text.contains(" files, "))
        || (text.contains(" bytes written in ") && text.ends_with("/sec)."))
}

/// Whether a line is one of [`TOOL_HEADERS`] (`Running the test with
/// following options:`): printed by the tool above its numbers, it may
/// stand between a label and the run read below it, as progress does.
/// Words are compared one by one, any white space between them; the
/// line's first word is found once, and only a header starting with it
/// has its other words compared.
pub fn is_tool_header(text: &str) -> bool {
    let text = text.trim();
    let text = text.strip_suffix(':').unwrap_or(text);
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    TOOL_HEADERS.iter().any(|header| {
        let Some(rest) = header
            .get(..first.len())
            .filter(|head| head.eq_ignore_ascii_case(first))
            .and_then(|_| header.get(first.len()..))
            .filter(|rest| rest.is_empty() || rest.starts_with(' '))
        else {
            return false;
        };
        let mut got = words.clone();
        // `rest` is empty or ` word word`: its first piece is empty.
        let mut want = rest.split(' ').skip(1);
        loop {
            match (got.next(), want.next()) {
                (Some(g), Some(w)) if g.eq_ignore_ascii_case(w) => continue,
                (None, None) => return true,
                _ => return false,
            }
        }
    })
}

/// Programs whose command line may stand between a label and its run.
const TOOLS: &[&str] = &[
    "bonnie",
    "bon_csv2txt",
    "sysbench",
    "super-smack",
    "diskinfo",
    "run-all-tests",
];

/// What lies right under a candidate line, as far as its shape needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Below {
    /// The next line is the first line of a run at the same depth.
    pub run: bool,
    /// The next line is a rule (`-----`, `=====`) at the same depth.
    pub rule: bool,
    /// The line is the first of a preformatted block whose run starts
    /// right under it, or a paragraph of its own over a report: its
    /// caption, which may be as long as a colon label.
    pub caption: bool,
    /// The next line is the first line of a report at the same depth,
    /// nothing between.
    pub adjacent: bool,
}

/// The label a line states, if its text has a label's shape (rules 2 and 4
/// of the module doc; the caller checks rules 1 and 3).
pub fn label_of(text: &str, below: Below) -> Option<String> {
    let text = text.trim();
    // A link alone (`https://www.howtoforge.com/...`) cites a source; it
    // names no run.
    if !text.contains(' ') && (text.starts_with("http://") || text.starts_with("https://")) {
        return None;
    }
    // A list item's mark (`* Developer 1`, `3.  PXC`) is no part of the
    // phrase.
    let item = list_item(text).unwrap_or(text);
    // `：` is the colon of Chinese and Japanese text.
    let (body, max_words) = if let Some(body) = text.strip_suffix([':', '：']) {
        (body, MAX_WORDS)
    } else if below.rule {
        // A table's header laid out in columns is no title.
        if text.contains("   ") {
            return None;
        }
        (text, MAX_WORDS)
    } else {
        // A block's caption (`RaspberryPi4 4G RAM with SSD`) may be as long
        // as a colon label, but is a phrase: no sentence, no options.
        let phrase = below.caption
            && item.chars().next().is_some_and(char::is_alphanumeric)
            && !text.ends_with(SENTENCE_ENDS)
            && !text.split_whitespace().any(is_option_like)
            && !is_field(item)
            && !holds_clock_time(item)
            && !reads_as_sentence(item);
        // Else a lone phrase: a list item is a lead-in of its own (`-
        // sysbench mysql test sample(run)` over the block holding the
        // report), waiting for the report as a colon label does; short
        // words right above the report (`kern.sched.name: ULE`) name it.
        // `Thread = 2` over a report states a setting the report prints
        // itself; it names nothing.
        let lone = (below.adjacent || (item.len() < text.len() && !is_command_line(item)))
            && !item.contains('=')
            && item.len() <= MAX_LONE_LEN
            && item.chars().next().is_some_and(char::is_alphanumeric)
            && !text.ends_with(SENTENCE_ENDS);
        match (phrase, lone) {
            (true, _) => (text, MAX_WORDS),
            (false, true) => (text, MAX_LONE_WORDS),
            (false, false) => return None,
        }
    };
    if text.len() > MAX_LINE {
        return None;
    }
    let body = body.trim_start_matches(['-', '*', '•']).trim();
    // `::`, or nothing but marks.
    if body.ends_with(':') || !body.chars().any(char::is_alphanumeric) {
        return None;
    }
    // `(already sent to this list):` ends the sentence above it.
    if body.starts_with('(') && body.ends_with(')') {
        return None;
    }
    let counted = if max_words == MAX_LONE_WORDS {
        body.split_whitespace().count()
    } else {
        body.split_whitespace()
            .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
            .count()
    };
    if counted > max_words || says_nothing(body) {
        // A lead-in that is a whole sentence may still end by naming the
        // run (`For indication, here is a bonnie++ run as ext4 formatted
        // on the VIM3:`).
        let lead_in = text.ends_with([':', '：']);
        return lead_in.then(|| naming_tail(body)).flatten();
    }
    let words: Vec<&str> = body.split_whitespace().collect();
    Some(cut(&words))
}

/// Words that open the phrase a sentence ends with when it names what a
/// run was run on or with.
const NAMING_PREPOSITIONS: &[&str] = &["on", "with", "without", "under", "using", "for", "at"];

/// Whether `word` is one of [`NAMING_PREPOSITIONS`].
pub fn is_naming_preposition(word: &str) -> bool {
    is_listed(NAMING_PREPOSITIONS, word)
}

/// Most words of that phrase after its preposition.
const MAX_TAIL_WORDS: usize = 5;

/// The phrase a lead-in sentence ends with, from its last preposition
/// ([`NAMING_PREPOSITIONS`]): `on the VIM3`, `with the patch applied`;
/// none where it names nothing (`for this`), is a clause (`under 8min
/// to run`) or is longer than a name.
fn naming_tail(body: &str) -> Option<String> {
    let words: Vec<&str> = body.split_whitespace().collect();
    let at = words
        .iter()
        .rposition(|w| is_listed(NAMING_PREPOSITIONS, w))?;
    let tail = &words[at..];
    let named = tail[1..]
        .iter()
        .any(|w| !is_listed(FILLER, word(w)) && !is_listed(SENTENCE_WORDS, word(w)));
    // `under 8min to run`: a clause, not a name.
    let clause = tail.iter().any(|w| w.eq_ignore_ascii_case("to"));
    let fits = (2..=MAX_TAIL_WORDS + 1).contains(&tail.len()) && !clause;
    (fits && named && !says_nothing(&tail.join(" "))).then(|| cut(tail))
}

/// What ends a sentence, or leaves one going, in the scripts posts are
/// written in: a line ending so is prose, not a phrase naming a run.
const SENTENCE_ENDS: &[char] = &['.', ',', ';', '!', '?', '。', '，', '；', '！', '？'];

/// Words that make a line a sentence rather than a name: pronouns and the
/// verbs that carry a clause (`And without libthr it is even slower`,
/// `Here is the output from my box`), where a caption is a phrase
/// (`Second run (without the patch)`, `2.4.20 + some-driver`).
const SENTENCE_WORDS: &[&str] = &[
    "i", "we", "you", "he", "she", "it", "they", "is", "are", "was", "were", "has", "have", "had",
    "do", "does", "did", "can", "could", "will", "would", "should", "here", "there", "i'm", "it's",
    "here's", "there's", "i've", "we've",
];

/// Whether a caption reads as a sentence ([`SENTENCE_WORDS`]).
fn reads_as_sentence(text: &str) -> bool {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .any(|w| is_listed(SENTENCE_WORDS, w))
}

/// Whether a line is a field (`Version: Branch 1.0 HEAD`, `CPU: Xeon`):
/// one word and a colon before its value. It states a fact about the
/// system; it names no run.
fn is_field(text: &str) -> bool {
    text.split_once(": ")
        .is_some_and(|(key, _)| !key.is_empty() && !key.contains(char::is_whitespace))
}

/// Whether a line holds a time of day (`Sun Jun  7 17:33:37 UTC 2009`,
/// a `date` printed before a run): a stamp, not a name.
fn holds_clock_time(text: &str) -> bool {
    text.as_bytes().windows(5).any(|w| {
        w[0].is_ascii_digit()
            && w[1].is_ascii_digit()
            && w[2] == b':'
            && w[3].is_ascii_digit()
            && w[4].is_ascii_digit()
    })
}

/// A word of a command's arguments: `--user=percona`, `-s`, `./run`,
/// `a=b`.
fn is_option_like(word: &str) -> bool {
    let option = word
        .strip_prefix('-')
        .is_some_and(|rest| rest.starts_with(|c: char| c == '-' || c.is_ascii_alphanumeric()));
    // `a=b`, not an `=` standing between words (`flushto = ndirty`).
    option || word.starts_with("./") || (word.contains('=') && word != "=")
}

/// The text of a list item after its mark: `- `, `* `, `• `, or a
/// number and `.`, `)` or `、` followed by white space or a letter
/// (`3.  PXC DB`, `2.只读测试`).
pub fn list_item(text: &str) -> Option<&str> {
    if let Some(rest) = ["- ", "* ", "• "]
        .iter()
        .find_map(|mark| text.strip_prefix(mark))
    {
        return Some(rest.trim_start());
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let rest = text.get(digits..)?;
    let rest = rest
        .strip_prefix(['.', ')'])
        .or_else(|| rest.strip_prefix('、'))?;
    // `2.只读测试`, `3.Results`: a number's mark may touch its text, but
    // `2.6.18` is a version, not item 2.
    let spaced = rest.starts_with([' ', '\t']);
    let touching = rest.starts_with(char::is_alphabetic);
    (digits > 0 && digits <= 2 && (spaced || touching)).then(|| rest.trim_start())
}

/// Whether a line is a list item (`- `, `* `, `• ` or `3. ` before its
/// text).
pub fn is_list_item(text: &str) -> bool {
    list_item(text.trim_start()).is_some()
}

/// A line drawn under a heading or between parts: only `-` or only `=`,
/// at least three of them. Most lines fail on their first byte.
pub fn is_rule(text: &str) -> bool {
    let bytes = text.as_bytes().trim_ascii_start();
    match bytes.first() {
        Some(&mark) if mark == b'-' || mark == b'=' => {
            let bytes = bytes.trim_ascii_end();
            bytes.len() >= 3 && bytes.iter().all(|&b| b == mark)
        }
        _ => false,
    }
}

/// The last character of a line that is not white space.
pub fn last_char(text: &str) -> Option<char> {
    let bytes = text.as_bytes().trim_ascii_end();
    match *bytes.last()? {
        b if b.is_ascii() => Some(char::from(b)),
        _ => text[..bytes.len()].chars().next_back(),
    }
}

/// Whether `w` is in `list`, ignoring ASCII case, with a typographic
/// apostrophe (`here’s`) read as `'`.
fn is_listed(list: &[&str], w: &str) -> bool {
    if w.contains('’') {
        let plain = w.replace('’', "'");
        return list.iter().any(|l| l.eq_ignore_ascii_case(&plain));
    }
    list.iter().any(|l| l.eq_ignore_ascii_case(w))
}

/// Rule 4: an attribution, a line waiting for what follows, a tool's own
/// header, or only filler words. Compares without allocating: only lines
/// of a label's shape get here, but a mail has many attribution lines.
fn says_nothing(body: &str) -> bool {
    let is_in = is_listed;
    let last = body.split_whitespace().next_back().map_or("", word);
    if is_in(ATTRIBUTION_TAILS, last) || is_in(INTRODUCING_TAILS, last) {
        return true;
    }
    // `示例结果如下` ("the sample result is as follows") introduces what
    // comes, as `...looks like:` does.
    if INTRODUCING_ENDINGS.iter().any(|end| body.ends_with(end)) {
        return true;
    }
    // "...running the following over a Gigabit link:" introduces what
    // comes, wherever the word stands.
    if body
        .split_whitespace()
        .any(|w| word(w).eq_ignore_ascii_case("following"))
    {
        return true;
    }
    is_tool_header(body)
        || is_tool_progress(body)
        || body
            .split_whitespace()
            .map(word)
            .all(|w| w.is_empty() || is_in(FILLER, w))
}

/// A word without the punctuation around it.
fn word(w: &str) -> &str {
    w.trim_matches(|c: char| matches!(c, ',' | '.' | '(' | ')' | '"' | '\'' | '!'))
}

/// The words joined by single spaces, cut at a word boundary to at most
/// [`MAX_LABEL_CHARS`] characters (a single longer word is cut inside).
fn cut(words: &[&str]) -> String {
    let mut label = String::new();
    let mut chars = 0;
    for word in words {
        let len = word.chars().count();
        let extra = usize::from(!label.is_empty());
        if chars + extra + len > MAX_LABEL_CHARS {
            if label.is_empty() {
                label = word.chars().take(MAX_LABEL_CHARS).collect();
            }
            break;
        }
        if extra == 1 {
            label.push(' ');
        }
        label.push_str(word);
        chars += extra + len;
    }
    label
}

/// Whether a line is a command, which may stand between a label and its
/// run: a shell prompt followed by a command (`# mount -o nobarrier ...`,
/// `[root@db ~]# ...`, `host% ...`), or a line whose program is one of the
/// tools (`bonnie++ -d /mnt -s 2048`, `sudo sysbench ...`).
pub fn is_command_line(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    // A command does not end with a colon; `sysbench tpcc run sample:`
    // is the author's lead-in naming the tool.
    if !is_prompt(first) && !first.starts_with('[') && text.trim_end().ends_with(':') {
        return false;
    }
    let mut program = first;
    if is_prompt(first) {
        match words.next() {
            Some(next) => program = next,
            None => return false,
        }
    } else if first.starts_with('[') {
        // `[root@db ~]# command`
        match (words.next(), words.next()) {
            (Some(end), Some(next)) if end.ends_with(['#', '$', '%']) && end.contains(']') => {
                program = next;
            }
            _ => return false,
        }
    }
    if program != first {
        return true;
    }
    while matches!(program, "sudo" | "time" | "nice" | "nohup") {
        match words.next() {
            Some(next) => program = next,
            None => return false,
        }
    }
    // `sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)`: a tool's
    // banner, its version where a command has its first argument.
    if words
        .next()
        .is_some_and(|arg| arg.starts_with(|c: char| c.is_ascii_digit()))
    {
        return false;
    }
    let name = program.rsplit('/').next().unwrap_or(program);
    TOOLS.iter().any(|tool| {
        name.get(..tool.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(tool))
    })
}

/// `#`, `$`, `%`, `host#`, `root@db:~#`, `user@host:~$`.
fn is_prompt(word: &str) -> bool {
    let Some(rest) = word.strip_suffix(['#', '$', '%']) else {
        return false;
    };
    rest.is_empty()
        || rest.contains(['@', ':', '~', '/'])
        || (rest.bytes().any(|b| b.is_ascii_alphabetic())
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')))
}

/// Rule 3, seen from the line above: whether a line ending with `last`
/// leaves its sentence open, so that a line under it continues that
/// sentence.
pub fn leaves_sentence_open(last: Option<char>) -> bool {
    last.is_some_and(|c| c.is_alphanumeric() || c == ',' || c == ';')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_output_is_told_from_prose() {
        for text in [
            "sysbench 1.0.20 (using system LuaJIT 2.0.5)",
            "128 files, 1228800Kb each, 153600Mb total",
            "Creating file test_file.127",
            "161061273600 bytes written in 152.64 seconds (1006.30 MiB/sec).",
            "Removing test files...",
            "Threads started!",
        ] {
            assert!(is_tool_progress(text), "{text}");
        }
        assert!(!is_tool_progress("sysbench is slow here, so we moved on."));
        assert!(!is_tool_progress("FILEIO BENCHMARKS"));
    }

    #[test]
    fn colon_labels_and_their_text() {
        let cases = [
            ("Before this change:", Some("Before this change")),
            ("After:", Some("After")),
            ("host:", Some("host")),
            ("kata:", Some("kata")),
            ("Without the patch:", Some("Without the patch")),
            ("With patch:", Some("With patch")),
            (
                "And here the results when mounting without barrier:",
                Some("And here the results when mounting without barrier"),
            ),
            ("2.6.23-rc1:", Some("2.6.23-rc1")),
            ("  My raid :  ", Some("My raid")),
            ("---raid0 5*120gb sw raid:", Some("raid0 5*120gb sw raid")),
            ("With   two\tspaces:", Some("With two spaces")),
            // Filler only: introduces results, names none.
            ("Here's a bonnie++ benchmark:", None),
            ("And this is the output:", None),
            ("I get:", None),
            ("Here is a quick bench mark:", None),
            ("Here is a simple comparison using bonnie:", None),
            ("For example running the following over a Gibabit link:", None),
            ("Here some tests I did and the results with bonnie++:", None),
            // A tool's own headers.
            ("Threads fairness:", None),
            ("Threads:", None),
            ("Latency (ms):", None),
            ("Seek times:", None),
            // Attributions.
            ("Michael Vince wrote:", None),
            ("On Fri, Sep 28, 2007 at 02:04:00PM -0600, Warner Losh wrote:", None),
            // Too long or too many words.
            (
                "I ran the benchmark three times on each of the kernels and took the best result of each:",
                None,
            ),
            ("one two three four five six seven eight nine ten eleven twelve thirteen:", None),
            ("::", None),
            ("--:", None),
            ("Foo::", None),
        ];
        for (i, (text, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                label_of(text, Below::default()).as_deref(),
                want,
                "case {i}: {text:?}"
            );
        }
    }

    #[test]
    fn lone_phrases_only_directly_above_a_run() {
        let cases = [
            ("vanilla", true, Some("vanilla")),
            ("patched kernel", true, Some("patched kernel")),
            ("vanilla", false, None),
            ("Thanks.", true, None),
            ("Hi all,", true, None),
            ("one two three four five", true, None),
            ("a phrase that is rather too long here", true, None),
            ("(patched)", true, None),
            ("bonnie++", true, None),
            ("Results", true, None),
        ];
        for (i, (text, above_run, want)) in cases.into_iter().enumerate() {
            assert_eq!(
                label_of(
                    text,
                    Below {
                        run: above_run,
                        adjacent: above_run,
                        ..Below::default()
                    }
                )
                .as_deref(),
                want,
                "case {i}: {text:?}"
            );
        }
    }

    #[test]
    fn labels_are_cut_at_a_word_boundary() {
        let text = "Second run: patched-2.6.16-rc4-mm2-kernel, readahead-of-4096-sectors, write-cache-off on hde:";
        let label = label_of(text, Below::default()).unwrap();
        assert_eq!(
            label,
            "Second run: patched-2.6.16-rc4-mm2-kernel, readahead-of-4096-sectors,"
        );
        assert!(label.chars().count() <= MAX_LABEL_CHARS);
        let long_word = format!("{}:", "x".repeat(90));
        assert_eq!(
            label_of(&long_word, Below::default()).unwrap().len(),
            MAX_LABEL_CHARS
        );
    }

    #[test]
    fn command_lines() {
        let yes = [
            "# mount -o nobarrier /dev/sda1 /mnt",
            "$ bonnie++ -d /mnt -s 2048",
            "bonnie++ -d /mnt -s 2048",
            "./sysbench --test=cpu run",
            "sudo sysbench --test=oltp run",
            "/usr/local/bin/super-smack -d mysql select-key.smack 10 1000",
            "[root@db1 ~]# diskinfo -t ada0",
            "root@box:~# time dd if=/dev/zero of=x",
            "freebsd% diskinfo -t ad0",
            "Bonnie -s 1024",
        ];
        for text in yes {
            assert!(is_command_line(text), "{text:?}");
        }
        let no = [
            "Before:",
            "#",
            "50% faster with the patch",
            "The used command is : bonnie++ -d /home/test",
            "[1] http://example.org/",
            "",
        ];
        for text in no {
            assert!(!is_command_line(text), "{text:?}");
        }
    }

    #[test]
    fn rules() {
        for text in ["---", "  ==============  ", "--------------------"] {
            assert!(is_rule(text), "{text:?}");
        }
        for text in ["--", "-=-", "--- raid0", "", "Version 1.03"] {
            assert!(!is_rule(text), "{text:?}");
        }
    }

    #[test]
    fn open_sentences() {
        let open = |text: &str| leaves_sentence_open(last_char(text));
        assert!(open("compiling the Fusion-MPT as module gives much better"));
        assert!(open("glibc-2.3.2-10, (NPTL 0.60),  "));
        assert!(open("CPU 性能"));
        assert!(!open("Now the machine is performing very fast :-)"));
        assert!(!open("I repeated the test."));
        assert!(!open("=============="));
        assert!(!open("Results:"));
        assert!(!open("   "));
    }
}
