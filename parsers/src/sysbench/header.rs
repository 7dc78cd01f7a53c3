//! The run's header above a report: banner, thread count, command line, mode line.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::text::Line;

use super::{glued, workload};

/// How far above a report its header (banner, threads, command) may be.
const MAX_HEADER_LINES: usize = 60;

/// What the lines above a report say about its run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunHeader {
    pub version: Option<String>,
    pub threads: Option<u32>,
    pub command_threads: Option<u32>,
    pub marker_threads: Option<u32>,
    pub test: Option<String>,
    pub mode_test: Option<&'static str>,
    pub command: Option<String>,
    /// The workload's options, printed or on the command line
    /// ([`workload`]), by attribute key.
    pub workload: BTreeMap<&'static str, String>,
    /// Index of the header's first line, if any was found.
    pub first: Option<usize>,
}

/// Reads the header of the report starting at `report_start`: the lines
/// above it back to `taken_until` (same quote depth) and the text glued in
/// front of it on its own line.
pub(super) fn read_header(
    lines: &[Line<'_>],
    taken_until: usize,
    report_start: usize,
    glued: &str,
) -> RunHeader {
    let window = header_window(lines, taken_until, report_start, glued);
    let mut header = RunHeader::default();
    // Where the marker in force was read, to tell whether it came after
    // the command a later one replaces.
    let mut marker_at = None;
    let mut command_at_line = None;
    for (n, &(j, text)) in window.iter().enumerate() {
        let mut found = false;
        if let Some(version) = banner_version(text) {
            header.version = Some(version);
            found = true;
        }
        if let Some(threads) = after_label(text, &THREADS_LABEL_FINDER) {
            header.threads = Some(threads);
            found = true;
        }
        if let Some(threads) = thread_marker(text) {
            header.marker_threads = Some(threads);
            marker_at = Some(n);
            found = true;
        }
        if let Some(mode) = mode_line(text) {
            header.mode_test = Some(mode);
        }
        workload::printed(text, &mut header.workload);
        if let Some(command) = command_at(&window[n..]).filter(runs_a_benchmark) {
            // A second benchmark command above the report is the one that
            // printed it: the first ran another report, which was not
            // pasted (`sudo sysbench cpu run` in a how-to, then the
            // same command again over its output). The header starts over.
            if header.command.is_some() {
                let marker = header
                    .marker_threads
                    .filter(|_| marker_at > command_at_line);
                header = RunHeader {
                    marker_threads: marker,
                    ..RunHeader::default()
                };
            }
            command_at_line = Some(n);
            header.command_threads = command.threads.or(header.command_threads);
            header.test = command.test.or(header.test.take());
            header.command = Some(command.text);
            found = true;
        }
        if found && header.first.is_none() {
            header.first = Some(j);
        }
    }
    if let Some(command) = &header.command {
        workload::from_command(command, &mut header.workload);
    }
    header
}

/// The lines of the header above the report at `report_start`, back to
/// `taken_until` (same quote depth) and with the text `glued` in front of
/// it on its own line, each in its pieces (where a lost line break glued
/// one of sysbench's lines to the one before, [`glued`]) with its index;
/// without what a `prepare` or `cleanup` printed above.
fn header_window<'t>(
    lines: &[Line<'t>],
    taken_until: usize,
    report_start: usize,
    glued: &'t str,
) -> Vec<(usize, &'t str)> {
    let depth = lines[report_start].depth;
    // `--debug` prints two `DEBUG: Worker thread (#N) ...` lines per
    // thread between the banner and the report: they say nothing and do
    // not count towards the window.
    let is_debug = |j: usize| lines[j].text.trim_start().starts_with("DEBUG:");
    let mut from = report_start;
    let mut counted = 0;
    for j in (taken_until..report_start).rev() {
        let line = &lines[j];
        if line.depth != depth && !line.is_blank() {
            from = quoted_header_above(lines, taken_until, j, report_start).unwrap_or(from);
            break;
        }
        if is_debug(j) {
            continue;
        }
        counted += 1;
        if counted > MAX_HEADER_LINES {
            break;
        }
        from = j;
    }
    // Each line in its pieces, where a lost line break glued one of
    // sysbench's lines to the one before ([`glued`]).
    let mut window: Vec<(usize, &str)> = Vec::new();
    for j in (from..report_start).filter(|&j| !is_debug(j)) {
        window.extend(glued::pieces(lines[j].text).map(|piece| (j, piece)));
    }
    if !glued.trim().is_empty() {
        window.extend(glued::pieces(glued).map(|piece| (report_start, piece)));
    }
    // A banner followed by what `prepare` or `cleanup` print (`Creating
    // file test_file.0`, `Removing test files...`) is that command's:
    // the run's header starts after its last such line.
    let cut = window
        .iter()
        .rposition(|&(_, text)| prepare_or_cleanup_output(text))
        .filter(|&at| {
            window[..at]
                .iter()
                .any(|&(_, t)| banner_version(t).is_some())
        })
        .map_or(0, |at| at + 1);
    window.drain(..cut);
    window
}

/// How far above a report a quoted header of it may start
/// ([`quoted_header_above`]).
const MAX_QUOTED_HEADER_LINES: usize = 40;
/// The longest caption between a quoted header and its report, in
/// characters (`Result:`, `* 结果`, `Here is what I got:`).
const MAX_CAPTION_CHARS: usize = 48;

/// Where the header of the report at `report_start` starts when it is
/// quoted above an unquoted report: a post that quotes the command it
/// ran (a markdown `> ` block) and pastes what it printed below, plain,
/// with at most a caption between (`> sysbench ... --num-threads=5 run`,
/// `* 结果`, then the report). `above` is the first line above the
/// report at another quote depth; it must be deeper than the report's,
/// and between them stand only blank lines, elisions (`...`, `[...]`,
/// `<snip>`) and at most one short caption. The header is the block of
/// lines at `above`'s depth that ends there, back to no further than
/// [`MAX_QUOTED_HEADER_LINES`] above the report and never into an
/// earlier run (`taken_until`).
fn quoted_header_above(
    lines: &[Line<'_>],
    taken_until: usize,
    above: usize,
    report_start: usize,
) -> Option<usize> {
    let depth = lines[above].depth;
    if depth <= lines[report_start].depth || report_start - above > MAX_QUOTED_HEADER_LINES {
        return None;
    }
    let mut captions = (above + 1..report_start)
        .map(|j| lines[j].text.trim())
        .filter(|text| !text.is_empty() && !crate::text::is_elision(text));
    let caption = captions.next();
    let short = caption.is_none_or(|text| text.chars().count() <= MAX_CAPTION_CHARS);
    if !short || captions.next().is_some() {
        return None;
    }
    let lowest = taken_until.max(report_start.saturating_sub(MAX_QUOTED_HEADER_LINES));
    let mut from = above;
    while from > lowest && (lines[from - 1].depth == depth || lines[from - 1].is_blank()) {
        from -= 1;
    }
    Some(from)
}

/// Lines a command continued with `\` (or options on lines of their own)
/// may span above an elision.
const MAX_COMMAND_LINES: usize = 8;

/// Whether the lines right above line `at` (none of them before `from`,
/// at `at`'s quote depth) end the opening of a run: a sysbench command
/// that runs the benchmark (continued over lines with `\` or `--`
/// options), or sysbench's banner. A poster who cut a report with `...`
/// under such a line kept the report's tail below the cut.
pub(super) fn opens_a_run_above(lines: &[Line<'_>], from: usize, at: usize) -> bool {
    let depth = lines[at].depth;
    let Some(last) = (from..at).rev().find(|&j| !lines[j].is_blank()) else {
        return false;
    };
    if lines[last].depth != depth {
        return false;
    }
    if banner_version(lines[last].text).is_some() {
        return true;
    }
    // Up to the line the command starts on: each line below it either
    // follows a `\` or is an option of its own.
    let mut first = last;
    while first > from && last - first < MAX_COMMAND_LINES {
        let above = &lines[first - 1];
        let continues = above.text.trim_end().ends_with('\\')
            || lines[first].text.trim_start().starts_with("--");
        if !continues || above.depth != depth || above.is_blank() {
            break;
        }
        first -= 1;
    }
    let window: Vec<(usize, &str)> = (first..=last).map(|j| (j, lines[j].text)).collect();
    (0..window.len()).any(|n| command_at(&window[n..]).filter(runs_a_benchmark).is_some())
}

/// A line sysbench prints only for `prepare` or `cleanup`: creating or
/// removing the fileio test files, creating and filling the OLTP tables.
pub(crate) fn prepare_or_cleanup_output(text: &str) -> bool {
    const OUTPUT: &[&str] = &[
        "Removing test files",
        "Creating file test_file",
        "Creating files for the test",
        "Dropping table '",
        "Creating table '",
        "Inserting ",
    ];
    let text = text.trim();
    OUTPUT.iter().any(|start| text.starts_with(start))
        && (!text.starts_with("Inserting ") || text.contains(" records into '"))
}

/// `sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)`, `sysbench 0.4.12:
/// multi-threaded system evaluation benchmark`, `sysbench v0.4.8: ...`.
fn banner_version(text: &str) -> Option<String> {
    let at = BANNER_FINDER.find(text.as_bytes())?;
    let rest = text.get(at + BANNER.len()..)?;
    let word = rest.split_whitespace().next()?;
    let version = word.trim_start_matches('v').trim_end_matches(':');
    let plausible = version.starts_with(|c: char| c.is_ascii_digit())
        && version.contains('.')
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    // A line of just `sysbench 1.1.0-bbee5d5` is what `sysbench --version`
    // prints.
    let version_output = text.trim().strip_prefix(BANNER) == Some(word);
    let banner = rest.contains("LuaJIT")
        || rest.contains("evaluation benchmark")
        || word.ends_with(':')
        || version_output;
    (plausible && banner).then(|| version.to_string())
}

/// `Number of threads: 8` and the like: the number after a label (its
/// searcher, built once).
fn after_label(text: &str, label: &Finder<'static>) -> Option<u32> {
    let at = label.find(text.as_bytes())?;
    let rest = text.get(at + label.needle().len()..)?.trim_start();
    let digits: &str = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// `=> 8 THREADS`, as a shell loop around sysbench prints it.
fn thread_marker(text: &str) -> Option<u32> {
    let rest = text.trim().strip_prefix("=>")?.trim_start();
    let (digits, word) = rest.split_once(char::is_whitespace)?;
    let word = word.trim();
    (word.eq_ignore_ascii_case("threads") || word.eq_ignore_ascii_case("thread"))
        .then(|| digits.parse().ok())
        .flatten()
}

/// How 0.4's and 1.0's mode lines before a report start, and the test
/// each names.
pub(super) const MODES: [(&str, &str); 12] = [
    ("Doing OLTP test", "oltp"),
    ("Doing CPU performance benchmark", "cpu"),
    ("Prime numbers limit:", "cpu"),
    ("Doing memory operations speed test", "memory"),
    ("Running memory speed test", "memory"),
    ("Doing thread subsystem performance test", "threads"),
    ("Doing mutex performance test", "mutex"),
    ("Extra file open flags", "fileio"),
    ("Doing random r/w test", "fileio"),
    ("Doing random read test", "fileio"),
    ("Doing random write test", "fileio"),
    ("Doing sequential", "fileio"),
];

/// The lines 1.x prints between its banner and the run: the options
/// block (`Running the test with following options:`, `Number of
/// threads: 8`) and what it does before the threads start.
pub(super) const OPTION_LINES: [&str; 4] = [
    "Running the test with following options:",
    THREADS_LABEL,
    "Initializing random number generator",
    "Initializing worker threads...",
];
const THREADS_LABEL: &str = "Number of threads:";
/// [`THREADS_LABEL`]'s searcher, built once: a header's every line is
/// searched for it.
static THREADS_LABEL_FINDER: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(THREADS_LABEL));
/// What sysbench's banner line starts with, before its version.
const BANNER: &str = "sysbench ";
/// [`BANNER`]'s searcher, built once.
static BANNER_FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(BANNER));

/// 0.4's and 1.0's mode lines before a report name its test.
fn mode_line(text: &str) -> Option<&'static str> {
    let text = text.trim_start();
    MODES
        .into_iter()
        .find(|(start, _)| text.starts_with(start))
        .map(|(_, test)| test)
}

/// A sysbench command line and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysbenchCommand {
    pub test: Option<String>,
    pub threads: Option<u32>,
    pub text: String,
}

/// Whether a command runs the benchmark: `--version` and `--help` print
/// text, `prepare` and `cleanup` make and drop its data. A post often
/// shows them above the run (a tutorial's steps), and they are not its
/// header.
fn runs_a_benchmark(command: &SysbenchCommand) -> bool {
    let words: Vec<&str> = command.text.split_whitespace().collect();
    let asks = |flag: &str| {
        words.iter().any(|w| {
            w.strip_prefix(flag)
                .is_some_and(|v| v.is_empty() || v.starts_with('='))
        })
    };
    // `run >> /root/sysbench-mysql.log`: the output went to a file, so
    // what follows the command is not what it printed.
    let redirected = words
        .iter()
        .position(|w| w.starts_with('>'))
        .is_some_and(|at| at > 0 && !words[at].starts_with(">&"));
    let verb = words
        .iter()
        .take_while(|w| !w.starts_with('>'))
        .last()
        .copied()
        .unwrap_or_default();
    !(redirected
        || asks("--version")
        || asks("--help")
        || matches!(verb, "prepare" | "cleanup" | "help"))
}

/// The command starting at the first of `window`'s lines, continued over
/// the next lines when it ends with `\` or they start with `--`.
fn command_at(window: &[(usize, &str)]) -> Option<SysbenchCommand> {
    let (_, first) = window.first()?;
    if !first.contains("sysbench") {
        return None;
    }
    let mut text = first.trim().trim_end_matches('\\').trim_end().to_string();
    let mut continued = first.trim_end().ends_with('\\');
    for (_, next) in &window[1..] {
        let next_trimmed = next.trim();
        if !(continued || next_trimmed.starts_with("--")) || next_trimmed.is_empty() {
            break;
        }
        continued = next_trimmed.ends_with('\\');
        text.push(' ');
        text.push_str(next_trimmed.trim_end_matches('\\').trim_end());
    }
    parse_command(&text)
}

/// Reads a command line: `sysbench oltp_read_only --threads=8 run`, `sysbench
/// --test=oltp --num-threads=16 run`, `sysbench --test=tests/db/oltp.lua ...`.
/// Text without a `sysbench` word followed by an option is no command.
pub fn parse_command(text: &str) -> Option<SysbenchCommand> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let from = words
        .iter()
        .position(|w| basename(w) == "sysbench" || basename(w).starts_with("sysbench-"))?;
    let args = &words[from + 1..];
    // sysbench's grammar is `sysbench [options] [testname] [command]`: a
    // known test then its command (`sysbench mutex run`) is one too,
    // with no option.
    let test_then_command = matches!(
        args,
        [test, verb, ..] if known_test(test_name(test).as_deref().unwrap_or(""))
            && matches!(*verb, "run" | "prepare" | "cleanup")
    );
    if !test_then_command && !args.iter().any(|w| w.starts_with("--")) {
        return None;
    }
    let mut command = SysbenchCommand {
        test: None,
        threads: None,
        text: words[from..].join(" "),
    };
    for arg in args {
        if let Some(n) = arg
            .strip_prefix("--threads=")
            .or_else(|| arg.strip_prefix("--num-threads="))
        {
            command.threads = n.parse().ok().or(command.threads);
        } else if let Some(test) = arg.strip_prefix("--test=") {
            command.test = test_name(test).or(command.test);
        } else if !arg.starts_with('-') && command.test.is_none() {
            command.test = test_name(arg).filter(|t| known_test(t));
        }
    }
    Some(command)
}

/// `tests/db/oltp.lua` -> `oltp`, `oltp_read_only` -> `oltp_read_only`.
fn test_name(word: &str) -> Option<String> {
    let name = basename(word).trim_end_matches(".lua");
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| name.to_string())
}

fn known_test(name: &str) -> bool {
    matches!(
        name,
        "cpu" | "memory" | "threads" | "mutex" | "fileio" | "oltp"
    ) || ["oltp_", "select_random_", "bulk_insert"]
        .iter()
        .any(|p| name.starts_with(p))
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines() {
        let cases = [
            ("$ sysbench mutex run", Some("mutex"), None),
            ("sysbench cpu run", Some("cpu"), None),
            (
                "$ sysbench oltp_read_only --threads=8 --time=60 run",
                Some("oltp_read_only"),
                Some(8),
            ),
            (
                "sysbench --test=oltp --num-threads=16 --max-time=60 run",
                Some("oltp"),
                Some(16),
            ),
            (
                "./sysbench --test=tests/db/oltp.lua --num-threads=8 run",
                Some("oltp"),
                Some(8),
            ),
            (
                "sysbench /usr/share/sysbench/oltp_point_select.lua --threads=4 run",
                Some("oltp_point_select"),
                Some(4),
            ),
            (
                "I ran sysbench with --threads=8 and it was fine",
                None,
                Some(8),
            ),
        ];
        for (i, (text, test, threads)) in cases.into_iter().enumerate() {
            let command = parse_command(text).unwrap_or_else(|| panic!("case {i}"));
            assert_eq!(
                (command.test.as_deref(), command.threads),
                (test, threads),
                "case {i}"
            );
        }
        assert_eq!(
            parse_command("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)"),
            None
        );
        assert_eq!(parse_command("we used sysbench and super-smack"), None);
        assert_eq!(parse_command("I ran sysbench cpu yesterday"), None);
        assert_eq!(parse_command("sysbench run"), None);
    }

    #[test]
    fn a_cleanup_above_the_run_is_not_its_header() {
        // A cleanup's banner and output, a caption, then the run's own
        // banner: the header starts after the cleanup's output, so the
        // caption stays above the run.
        let input = "sysbench --threads=4 fileio cleanup\n\
                     sysbench 1.0.20 (using system LuaJIT 2.0.5)\n\
                     \n\
                     Removing test files...\n\
                     \n\
                     MEMORY BENCHMARKS\n\
                     sysbench 1.0.20 (using system LuaJIT 2.0.5)\n\
                     \n\
                     Running the test with following options:\n\
                     Number of threads: 256\n\
                     report\n";
        let lines = crate::text::lines(input);
        let header = read_header(&lines, 0, 10, "");
        assert_eq!(header.first, Some(6));
        assert_eq!(header.threads, Some(256));
        assert_eq!(header.test, None);
        assert!(prepare_or_cleanup_output(
            "Inserting 100 records into 'sbtest1'"
        ));
        assert!(!prepare_or_cleanup_output("Inserting the results below"));
    }

    #[test]
    fn a_second_run_command_starts_the_header_again() {
        // A how-to's command, its heading, then the command over the
        // pasted output: the run starts at the second command.
        let input = "sudo sysbench --threads=4 --test=cpu run\n\
                     \n\
                     ### arm\n\
                     \n\
                     $ sudo sysbench --test=cpu run\n\
                     sysbench 1.0.11 (using system LuaJIT 2.1.0-beta3)\n\
                     \n\
                     Number of threads: 1\n\
                     report\n";
        let lines = crate::text::lines(input);
        let header = read_header(&lines, 0, 8, "");
        assert_eq!(header.first, Some(4));
        assert_eq!(header.command_threads, None);
        assert_eq!(header.threads, Some(1));
        assert_eq!(header.test.as_deref(), Some("cpu"));
    }

    #[test]
    fn banners_markers_and_modes() {
        assert_eq!(
            banner_version("sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)").as_deref(),
            Some("1.0.20")
        );
        assert_eq!(
            banner_version("sysbench 0.4.12:  multi-threaded system evaluation benchmark")
                .as_deref(),
            Some("0.4.12")
        );
        assert_eq!(
            banner_version("sysbench v0.4.8:  multi-threaded system evaluation benchmark")
                .as_deref(),
            Some("0.4.8")
        );
        assert_eq!(banner_version("sysbench 3 times and got nothing"), None);
        assert_eq!(
            banner_version("sysbench 1.1.0-bbee5d5").as_deref(),
            Some("1.1.0-bbee5d5")
        );
        assert_eq!(banner_version("I ran sysbench 1.0.20"), None);
        assert_eq!(thread_marker("=> 8 THREADS"), Some(8));
        assert_eq!(thread_marker("        echo \"=> ${i} THREADS\""), None);
        assert_eq!(mode_line("Doing OLTP test."), Some("oltp"));
        assert_eq!(mode_line("Doing mutex performance test"), Some("mutex"));
    }
}
