//! One test's own log: `Testing server`, `Time for NAME (N): ...` lines
//! and its final `Total time`.

use std::collections::BTreeMap;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit0, multispace0, space0, space1};
use nom::combinator::{opt, recognize};
use nom::multi::many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::text::{Line, LogicalLine};
use crate::{Measurement, Run, Tool};

use super::{
    broken, collapse_spaces, count, first_lines, index_of, line_at_end, measurement, record_text,
    server_attrs, timestr, total_time_tag, wrapped_window, Outcome, Problem, Times,
    RUN_FILE_DISTANCE,
};

/// A single test's log is at most this long.
const MAX_LOG_LINES: usize = 1000;
/// Lines without a `Time for` line that a test log may hold in a row
/// (its own progress messages, `Note: Query took longer ...`, blanks).
const MAX_LOG_GAP: usize = 16;

/// The start of a test log's `Time for NAME (N): ` line.
#[derive(Debug, Clone, PartialEq)]
pub struct TimePrefix<'a> {
    pub estimated: bool,
    pub operation: &'a str,
    /// The first number in the parentheses: how many tests were run.
    pub tests: u64,
}

/// `Time for insert (300000): `, `Time to select_many_fields(1000): `,
/// `Estimated time for count_on_key (50000): `, `Time for select_big (70:17207) `,
/// `Time for drop table(2): `.
pub fn time_prefix(input: &str) -> IResult<&str, TimePrefix<'_>> {
    let (input, estimated) = alt((
        (tag("Estimated"), space1, tag("time")).map(|_| true),
        tag("Time").map(|_| false),
    ))
    .parse(input)?;
    let (input, _) = (space1, alt((tag("for"), tag("to"))), space1).parse(input)?;
    let (input, operation) = operation_name(input)?;
    let (input, _) = (space0, char('(')).parse(input)?;
    let (input, tests) = count(input)?;
    let (input, _) = (many0((char(':'), digit0)), char(')')).parse(input)?;
    // What run-all-tests skips with `[^:]*:`; the colon itself is missing
    // in some tests' lines.
    let (input, _) =
        take_while(|c: char| c != ':' && c != '\n' && !c.is_ascii_digit()).parse(input)?;
    let (input, _) = opt(char(':')).parse(input)?;
    Ok((
        input,
        TimePrefix {
            estimated,
            operation,
            tests,
        },
    ))
}

/// An operation's name: one word, or words one space apart up to the
/// count's parenthesis. The scripts name their operations in one word
/// (`select_range_prefix`, `connect+select_1_row`) but for test-insert's
/// `Time for drop table(2):`, whose name is the two words before the
/// count; the count's parenthesis must still follow, so prose (`Time for
/// a change (really)`) is no operation.
fn operation_name(input: &str) -> IResult<&str, &str> {
    let word = || take_while1(|c: char| !c.is_whitespace() && c != ':' && c != '(');
    recognize((word(), many0((char(' '), word())))).parse(input)
}

/// `Time for insert (300000): 122 wallclock secs (...)`, wrapped anywhere.
fn time_line(input: &str) -> IResult<&str, (TimePrefix<'_>, Times)> {
    let (input, prefix) = time_prefix(input)?;
    let (input, times) = preceded(multispace0, timestr).parse(input)?;
    Ok((input, (prefix, times)))
}

/// A single test's final `Total time: ...` (or `Estimated total time: ...`).
fn total_line(input: &str) -> IResult<&str, (bool, Times)> {
    let (input, estimated) = total_time_tag(input)?;
    let (input, times) = preceded(multispace0, timestr).parse(input)?;
    Ok((input, (estimated, times)))
}

/// Where a test log's record starts on a line ([`record_text`]); within a
/// log, the final `Total time:` may also follow prose without a colon
/// (`and the total was Total time: 3 wallclock secs ...`).
fn log_record(text: &str) -> &str {
    let t = record_text(text);
    if is_total_line_start(t) || time_prefix(t).is_ok() {
        return t;
    }
    let first_line = t.split('\n').next().unwrap_or(t);
    ["Estimated total time:", "Total time:"]
        .iter()
        .find_map(|head| {
            let at = first_line.find(head)?;
            first_line[..at].ends_with(' ').then(|| &t[at..])
        })
        .unwrap_or(t)
}

pub(super) fn is_total_line_start(t: &str) -> bool {
    (t.starts_with("Total time:") || t.starts_with("Estimated total time:"))
        && total_time_tag(t).is_ok()
}

struct Operation {
    /// Its item: the operation's name, with a suffix when it repeats.
    name: String,
    /// The operation's name as the log prints it.
    operation: String,
    times: Times,
    tests: u64,
    estimated: bool,
    line: usize,
}

/// Reads the test log that may start at `lines[start]`: `Testing server
/// '...' at DATE`, the test's own messages, `Time for/to NAME (N): ...`
/// lines and the final `Total time: ...`.
///
/// A log cut before its `Total time` (a book or a post showing how a
/// test starts) is still a run when it opens with its `Testing server`
/// banner: each whole `Time for` line is a measurement of that server,
/// and only the `TOTALS` are missing. `Time for` lines with neither the
/// banner nor the total are a near miss: nothing says where their log
/// starts or ends.
pub(super) fn read_test_log(lines: &[Line<'_>], start: usize) -> Outcome {
    let server = testing_server(lines[start].text.trim());
    let first = if server.is_some() { start + 1 } else { start };
    let scan = scan_log(lines, start, first);
    let next = scan.next();
    if let Some(problem) = scan.problem {
        return broken(problem, next);
    }
    let count = scan.operations.len();
    if scan.total.is_none() {
        // A skipped test's whole log is its banner and the reason.
        if count == 0 && scan.skipped {
            return Outcome::NotAReport;
        }
        if count == 0 || server.is_none() {
            return missing_total(lines, start, scan.last_used, count, server.is_some(), next);
        }
    }
    let run = Run {
        test: test_of_log(lines, start, scan.last_used),
        attrs: server_run_attrs(server),
        ..Run::new(
            Tool::SqlBench,
            lines[start].depth,
            [lines[start].number, lines[scan.last_used].number],
            log_results(&scan.operations, scan.total.as_ref()),
        )
    };
    Outcome::Run(Box::new(run), next)
}

/// A test log's final `Total time` line.
struct Total {
    estimated: bool,
    times: Times,
    /// Its 1-based source line.
    line: usize,
}

/// What the lines of one test log held, as [`scan_log`] read them.
struct LogScan {
    operations: Vec<Operation>,
    total: Option<Total>,
    /// The first time or total line that did not read completely.
    problem: Option<Problem>,
    /// The index of the log's last line.
    last_used: usize,
    /// The index where reading stopped.
    stop: usize,
    /// Whether the log said the test was skipped (`Test skipped because
    /// the database doesn't support transactions`).
    skipped: bool,
}

impl LogScan {
    /// Where the next report may start: a log that reached its total
    /// ends there; one that did not also holds the lines read past it.
    fn next(&self) -> usize {
        (self.last_used + 1).max(if self.total.is_some() { 0 } else { self.stop })
    }

    /// Reads the (possibly wrapped) `Total time: ...` line at `lines[j]`.
    fn read_total(&mut self, lines: &[Line<'_>], j: usize, block: &LogicalLine) {
        match total_line(log_record(&block.text)) {
            Ok((rest, (estimated, times))) => {
                self.last_used = index_of(lines, j, line_at_end(block, rest));
                self.total = Some(Total {
                    estimated,
                    times,
                    line: lines[j].number,
                });
            }
            Err(_) => {
                self.problem.get_or_insert(Problem {
                    line: lines[j].number,
                    text: block.text.clone(),
                    why: "sql-bench `Total time:` line without a complete `N wallclock secs ( U usr S sys + CU cusr CS csys = C CPU)` part (truncated or mangled paste?)".to_string(),
                });
                self.last_used = j;
            }
        }
    }

    /// Reads the (possibly wrapped) `Time for NAME (N): ...` line at
    /// `lines[j]`; returns the index of the line after it.
    fn read_time(&mut self, lines: &[Line<'_>], j: usize, block: &LogicalLine) -> usize {
        match time_line(log_record(&block.text)) {
            Ok((rest, (prefix, times))) => {
                let last = index_of(lines, j, line_at_end(block, rest));
                add_operation(&mut self.operations, &prefix, &times, lines[j].number);
                self.last_used = last;
                last + 1
            }
            Err(_) => {
                self.problem.get_or_insert(Problem {
                    line: lines[j].number,
                    text: block.text.clone(),
                    why: "sql-bench `Time for NAME (N):` line without a complete `N wallclock secs ( U usr S sys + CU cusr CS csys = C CPU)` part (truncated or mangled paste?)".to_string(),
                });
                self.last_used = j;
                j + 1
            }
        }
    }
}

/// Reads a test log's lines from `lines[first]` on, at the depth of
/// `lines[start]`, up to its `Total time` line, the next test's log, a
/// gap of more than [`MAX_LOG_GAP`] other lines or [`MAX_LOG_LINES`].
fn scan_log(lines: &[Line<'_>], start: usize, first: usize) -> LogScan {
    let depth = lines[start].depth;
    let mut scan = LogScan {
        operations: Vec::new(),
        total: None,
        problem: None,
        last_used: start,
        stop: first,
        skipped: false,
    };
    let mut gap = 0;
    let mut j = first;
    while j < lines.len() && j - start < MAX_LOG_LINES {
        let line = &lines[j];
        if line.depth != depth {
            break;
        }
        let t = log_record(line.text).trim_end();
        if t.starts_with("Testing server '") || t.starts_with("Benchmark DBD suit") {
            break;
        }
        let is_total = is_total_line_start(t);
        if t.starts_with("Test skipped") {
            scan.skipped = true;
            scan.last_used = j;
        }
        if !is_total && time_prefix(t).is_err() {
            gap += 1;
            if gap > MAX_LOG_GAP {
                break;
            }
            j += 1;
            continue;
        }
        gap = 0;
        let end = wrapped_window(lines, j, |t| {
            is_total_line_start(t) || time_prefix(t).is_ok()
        });
        let block = LogicalLine::join(&lines[j..end], "\n");
        if is_total {
            scan.read_total(lines, j, &block);
            break;
        }
        j = scan.read_time(lines, j, &block);
    }
    scan.stop = j;
    scan
}

/// The outcome of a test log that never reached its `Total time` line
/// and is no run ([`read_test_log`]): not a report when it holds
/// nothing, broken otherwise.
fn missing_total(
    lines: &[Line<'_>],
    start: usize,
    last_used: usize,
    operations: usize,
    has_server: bool,
    next: usize,
) -> Outcome {
    let why = match (operations == 0, has_server) {
        (true, true) => "sql-bench test log (`Testing server ...`) without any `Time for` line or `Total time:` (truncated paste or failed test?)".to_string(),
        (true, false) => return Outcome::NotAReport,
        (false, _) => format!(
            "sql-bench test log breaks off after {} `Time for` line(s) before its `Total time:` line (truncated paste?)",
            operations
        ),
    };
    broken(
        Problem {
            line: lines[start].number,
            text: first_lines(&lines[start..=last_used.max(start)]),
            why,
        },
        next,
    )
}

/// The measurements of a test log: each operation's times and test
/// count, then the `TOTALS` when the log reached its `Total time`.
fn log_results(operations: &[Operation], total: Option<&Total>) -> Vec<Measurement> {
    let mut results = Vec::with_capacity(operations.len() * 7 + 6);
    for op in operations {
        for (metric, value) in op.times.metrics() {
            results.push(measurement(&op.name, metric, value, op.line, op.estimated));
        }
        results.push(measurement(
            &op.name,
            "tests",
            op.tests as f64,
            op.line,
            op.estimated,
        ));
    }
    let Some(total) = total else {
        return results;
    };
    for (metric, value) in total.times.metrics() {
        results.push(measurement(
            "TOTALS",
            metric,
            value,
            total.line,
            total.estimated,
        ));
    }
    results
}

/// The run attributes that a log's `Testing server` line gives: the
/// server's version parts and the date.
fn server_run_attrs(server: Option<(String, String)>) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    if let Some((version, date)) = server {
        for (k, v) in server_attrs(&version) {
            attrs.insert(k.to_string(), v);
        }
        let date = collapse_spaces(&date);
        if !date.is_empty() {
            attrs.insert("date".to_string(), date);
        }
    }
    attrs
}

/// A test that runs an operation again (test-insert's `select_range_prefix`
/// and `select_range_key2` before and after its "Test of compares with
/// simple ranges", `select_in` and `select_join_in` once for each of 10,
/// 100 and 1000 values) printed each run on a line of its own: each is a
/// measurement of its own. run-all-tests adds them up in its summary; a
/// log keeps every one, the first under the operation's name, the n-th
/// repeat as `NAME#n` ([`repeat_item`]).
fn add_operation(
    operations: &mut Vec<Operation>,
    prefix: &TimePrefix<'_>,
    times: &Times,
    line: usize,
) {
    let seen = operations
        .iter()
        .filter(|op| op.operation == prefix.operation)
        .count();
    operations.push(Operation {
        name: repeat_item(prefix.operation, seen + 1),
        operation: prefix.operation.to_string(),
        times: *times,
        tests: prefix.tests,
        estimated: prefix.estimated,
        line,
    });
}

/// The item of the `nth` (1-based) line of one operation in a test log:
/// its name, then `NAME#2`, `NAME#3`. No sql-bench operation name holds a
/// `#`, so a repeat never takes another operation's item.
pub(crate) fn repeat_item(operation: &str, nth: usize) -> String {
    if nth <= 1 {
        operation.to_string()
    } else {
        format!("{operation}#{nth}")
    }
}

/// `Testing server 'MySQL 3.23.37' at 2001-04-13  1:16:40` -> (version, date).
fn testing_server(t: &str) -> Option<(String, String)> {
    let rest = t.strip_prefix("Testing server '")?;
    let close = rest.rfind('\'')?;
    let version = rest[..close].to_string();
    let date = rest[close + 1..]
        .trim_start()
        .strip_prefix("at")
        .unwrap_or_default();
    Some((version, date.trim().to_string()))
}

/// The test scripts whose logs are read, each with its own first
/// message.
const FIRST_MESSAGES: [(&str, &str); 8] = [
    ("ATIS table test", "test-ATIS"),
    ("Testing of ALTER TABLE", "test-alter-table"),
    ("Testing of some unusual tables", "test-big-tables"),
    (
        "Testing the speed of connecting to the server",
        "test-connect",
    ),
    ("Testing the speed of creating and dro", "test-create"),
    ("Testing the speed of inserting data", "test-insert"),
    ("Testing the speed of selecting on keys", "test-select"),
    ("Wisconsin benchmark test", "test-wisconsin"),
];

/// The test whose log `run-all-tests --log` wrote at `path`: it names
/// each `output/TEST-SERVER_COMMENT-OS` (`output/select-mysql_fast-Linux_2.4.18_686_smp_i686`).
fn test_of_output_file(path: &str) -> Option<String> {
    let (folder, name) = path.rsplit_once('/')?;
    if folder.rsplit('/').next()? != "output" {
        return None;
    }
    FIRST_MESSAGES.iter().find_map(|(_, test)| {
        let script = test.strip_prefix("test-")?;
        let server = name.strip_prefix(script)?.strip_prefix('-')?;
        (!server.is_empty()).then(|| test.to_string())
    })
}

/// Which test script printed a log: a `test-NAME` command just above it,
/// the log's file name (`tail output/select-mysql...`), or the script's
/// own first message.
fn test_of_log(lines: &[Line<'_>], start: usize, last: usize) -> Option<String> {
    let above = lines[start.saturating_sub(RUN_FILE_DISTANCE)..start]
        .iter()
        .rev();
    for line in above {
        let named = line.text.split_whitespace().find_map(|word| {
            let name = word.rsplit('/').next().unwrap_or(word);
            let name = name.strip_suffix(".sh").unwrap_or(name);
            let script = name.strip_prefix("test-")?;
            let valid = !script.is_empty()
                && script
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            valid.then(|| name.to_string())
        });
        let named = named.or_else(|| line.text.split_whitespace().find_map(test_of_output_file));
        if named.is_some() {
            return named;
        }
    }
    lines[start..=last].iter().take(6).find_map(|line| {
        let t = line.text.trim();
        FIRST_MESSAGES
            .iter()
            .find(|(message, _)| t.starts_with(message))
            .map(|(_, test)| test.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql_bench::SqlBenchReader;
    use crate::Unparsed;

    fn runs_of(input: &str) -> (Vec<Run>, Vec<Unparsed>) {
        crate::test_support::runs_of::<SqlBenchReader>(input)
    }

    #[test]
    fn records_after_list_marks_and_lead_ins() {
        let times = "1 wallclock secs ( 0.05 usr  0.02 sys +  0.00 cusr  0.00 csys =  0.07 CPU)";
        let total = "3 wallclock secs ( 0.10 usr  0.04 sys +  0.00 cusr  0.00 csys =  0.14 CPU)";
        let cases = [
            format!("- Time for insert (1000): {times}\n- Total time: {total}\n"),
            format!("1. Time for insert (1000): {times}\n2. Total time: {total}\n"),
            format!("test-insert gave: Time for insert (1000): {times}\nTotal time: {total}\n"),
            format!("Time for insert (1000): {times}\nand the total was Total time: {total}\n"),
        ];
        for (i, input) in cases.iter().enumerate() {
            let (runs, unparsed) = runs_of(input);
            assert!(unparsed.is_empty(), "case {i}: {unparsed:?}");
            assert_eq!(runs.len(), 1, "case {i}");
            assert_eq!(runs[0].value("insert", "cpu_s"), Some(0.07), "case {i}");
            assert_eq!(runs[0].value("TOTALS", "cpu_s"), Some(0.14), "case {i}");
        }
        // Prose with colons and no record is no report.
        let (runs, unparsed) =
            runs_of("Note: Time for a change: we ran it.\nSummary: Total time was an hour\n");
        assert!(
            runs.is_empty() && unparsed.is_empty(),
            "{runs:?} {unparsed:?}"
        );
    }

    #[test]
    fn a_log_is_named_by_its_output_file() {
        assert_eq!(
            test_of_output_file("output/select-mysql_fast-Linux_2.4.18_686_smp_i686").as_deref(),
            Some("test-select")
        );
        assert_eq!(
            test_of_output_file("sql-bench/output/alter-table-mysql-Linux").as_deref(),
            Some("test-alter-table")
        );
        assert_eq!(test_of_output_file("output/RUN-mysql_fast-Linux"), None);
        assert_eq!(test_of_output_file("logs/select-mysql"), None);
        assert_eq!(test_of_output_file("output/select"), None);
        let (runs, _) = runs_of(
            "sql-bench$ tail -5 output/select-mysql_fast-Linux_2.4.18_686_smp_i686\nTime for count_distinct_big (100:1000000):\n8 wallclock secs ( 4.22 usr 2.20 sys + 0.00 cusr 0.00 csys = 6.42 CPU)\nTotal time:\n868 wallclock secs (33.24 usr 9.55 sys + 0.00 cusr 0.00 csys = 42.79 CPU)\n",
        );
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].test.as_deref(), Some("test-select"));
    }

    #[test]
    fn a_skipped_test_is_no_near_miss() {
        let (runs, unparsed) = runs_of(
            "Testing server 'MySQL 4.0.2 alpha' at 2002-05-20 16:27:17\n\n\
             Test skipped because the database doesn't support transactions\n",
        );
        assert!(runs.is_empty(), "{runs:?}");
        assert!(unparsed.is_empty(), "{unparsed:?}");
        // A log cut before its first time line still is one.
        let (_, unparsed) =
            runs_of("Testing server 'MySQL 4.0.2 alpha' at 2002-05-20 16:27:17\n\n");
        assert_eq!(unparsed.len(), 1);
    }

    #[test]
    fn time_prefixes() {
        type Want = Option<(bool, &'static str, u64)>;
        let cases: [(&str, Want); 9] = [
            (
                "Time for insert (300000): 122",
                Some((false, "insert", 300000)),
            ),
            (
                "Time to select_many_fields(1000):  9",
                Some((false, "select_many_fields", 1000)),
            ),
            (
                "Time for select_big (70:17207):  1",
                Some((false, "select_big", 70)),
            ),
            (
                "Estimated time for count_on_key (50000): 1734",
                Some((true, "count_on_key", 50000)),
            ),
            (
                "Time for insert (1000) 1 wallclock",
                Some((false, "insert", 1000)),
            ),
            (
                "Time for insert_commit  (10000): 3",
                Some((false, "insert_commit", 10000)),
            ),
            (
                "Time for drop table(2):  0 wallclock",
                Some((false, "drop table", 2)),
            ),
            (
                "Time for drop table (1): 0 wallclock",
                Some((false, "drop table", 1)),
            ),
            ("Time for a change (really): yes", None),
        ];
        for (i, (input, want)) in cases.into_iter().enumerate() {
            let got = time_prefix(input)
                .ok()
                .map(|(_, p)| (p.estimated, p.operation, p.tests));
            assert_eq!(got, want, "case {i}: {input:?}");
        }
    }

    #[test]
    fn a_log_cut_before_its_total_is_a_run_of_its_banner() {
        // A book shows how test-insert starts, in code blocks, and stops
        // before the `Total time`.
        let (runs, unparsed) = runs_of(
            "Testing server 'MySQL 4.0.13 log' at 2003-05-18 11:02:39\n\
             Testing the speed of inserting data into 1 table and do some selects on it.\n\
             Inserting 100000 rows in random order\n\
             Time for insert (300000):\n\
             42 wallclock secs ( 7.91 usr 5.03 sys + 0.00 cusr 0.00 csys = 12.94 CPU)\n\
             Testing insert of duplicates\n\
             Time for insert_duplicates (100000):\n\
             16 wallclock secs ( 2.28 usr 1.89 sys + 0.00 cusr 0.00 csys = 4.17 CPU)\n\
             \n\
             The sysbench tool can run a variety of tests.\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.test.as_deref(), Some("test-insert"));
        assert_eq!(run.lines, [1, 8]);
        assert_eq!(
            run.attrs.get("db_version").map(String::as_str),
            Some("4.0.13")
        );
        assert_eq!(run.value("insert", "wallclock_s"), Some(42.0));
        assert_eq!(run.value("insert", "cpu_s"), Some(12.94));
        assert_eq!(run.value("insert_duplicates", "sys_s"), Some(1.89));
        assert_eq!(run.value("insert_duplicates", "tests"), Some(100000.0));
        assert_eq!(run.value("TOTALS", "wallclock_s"), None);
        assert_eq!(run.results.len(), 14);
    }

    #[test]
    fn drop_table_is_an_operation_of_two_words() {
        let (runs, unparsed) = runs_of(
            "Testing server 'MySQL 5.5.36 34.1 rel34.1 log' at 2016-10-18 22:33:55\n\
             Time for insert_select_2_keys (1):   2 wallclock secs ( 0.00 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.00 CPU)\n\
             Time for drop table(2):  0 wallclock secs ( 0.00 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.00 CPU)\n\
             Time for multiple_value_insert (100000):  2 wallclock secs ( 0.20 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.20 CPU)\n\
             Time for drop table(1):  1 wallclock secs ( 0.01 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.01 CPU)\n\
             Total time: 5 wallclock secs ( 0.21 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.21 CPU)\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.value("drop table", "wallclock_s"), Some(0.0));
        assert_eq!(run.value("drop table", "tests"), Some(2.0));
        assert_eq!(run.value("drop table#2", "wallclock_s"), Some(1.0));
        assert_eq!(run.value("drop table#2", "cpu_s"), Some(0.01));
        assert_eq!(run.value("drop table#2", "tests"), Some(1.0));
        assert_eq!(run.value("TOTALS", "wallclock_s"), Some(5.0));
    }

    #[test]
    fn test_log_keeps_every_line_of_a_repeated_operation() {
        let (runs, unparsed) = runs_of(
            "$ perl test-insert --server=mysql\n\
             Testing server 'MySQL 4.0.20 standard log' at 2004-06-01 10:00:00\n\
             Time for select_range_prefix (5010:42084): 13 wallclock secs ( 2.65 usr  0.50 sys +  0.00 cusr  0.00 csys =  3.15 CPU)\n\
             Note: Query took longer then time-limit: 600\n\
             Estimated time for select_range_prefix (20000:43500): 10 wallclock secs ( 3.84 usr  0.60 sys +  0.00 cusr  0.00 csys =  4.44 CPU)\n\
             Time for select_range_prefix (20000:43500): 11 wallclock secs ( 3.00 usr  0.60 sys +  0.00 cusr  0.00 csys =  3.60 CPU)\n\
             Total time: 34 wallclock secs ( 9.49 usr  1.70 sys +  0.00 cusr  0.00 csys = 11.19 CPU)\n",
        );
        assert!(unparsed.is_empty(), "{unparsed:?}");
        let run = &runs[0];
        assert_eq!(run.test.as_deref(), Some("test-insert"));
        assert_eq!(run.value("select_range_prefix", "wallclock_s"), Some(13.0));
        assert_eq!(run.value("select_range_prefix", "tests"), Some(5010.0));
        assert_eq!(
            run.value("select_range_prefix#2", "wallclock_s"),
            Some(10.0)
        );
        assert_eq!(run.value("select_range_prefix#2", "tests"), Some(20000.0));
        assert_eq!(run.value("select_range_prefix#3", "cpu_s"), Some(3.6));
        // Only the estimated line is flagged.
        for (item, estimated) in [
            ("select_range_prefix", false),
            ("select_range_prefix#2", true),
            ("select_range_prefix#3", false),
        ] {
            assert!(run
                .results
                .iter()
                .filter(|r| r.item == item)
                .all(|r| r.estimated == estimated));
        }
        assert_eq!(run.value("TOTALS", "cpu_s"), Some(11.19));
        assert_eq!(
            run.attrs.get("db_version").map(String::as_str),
            Some("4.0.20")
        );
        assert_eq!(run.lines, [2, 7]);
    }
}
