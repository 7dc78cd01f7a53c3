//! Gathering a report's elements into one report, and checking that it
//! is whole: every section with its numbers, nothing cut off.

use std::borrow::Cow;

use super::{Element, Field, Item, Section, SysbenchReport};

/// Checks the elements make a whole report and gathers them. An `elided`
/// report (the poster's `...` right above it) may print a section without
/// all its numbers: `Test execution summary: total time: 61.8596s` is all
/// the poster kept.
pub(in crate::sysbench) fn assemble<'a>(
    elements: Vec<Element<'a>>,
    rest: &'a str,
    elided: bool,
) -> Result<SysbenchReport<'a>, String> {
    let mut gathered = Gathered::new();
    for element in elements {
        gathered.add(element)?;
    }
    let Gathered {
        report,
        empty,
        throughput_printed,
        ..
    } = gathered;
    check_not_cut(rest, empty)?;
    if !elided {
        check_sections(&report)?;
    }
    check_throughput(&report, &throughput_printed)?;
    check_has_numbers(&report)?;
    Ok(report)
}

/// A report's elements gathered so far, and where in it they are.
struct Gathered<'a> {
    report: SysbenchReport<'a>,
    /// The heading still waiting for its first number.
    empty: Option<Section>,
    current: Option<Section>,
    /// What the `Throughput:` section itself printed (its eps may repeat
    /// `CPU speed:`'s and so not be kept as a field).
    throughput_printed: Vec<Cow<'static, str>>,
}

impl<'a> Gathered<'a> {
    fn new() -> Self {
        Gathered {
            report: SysbenchReport {
                fields: Vec::new(),
                sections: Vec::new(),
                implied_test: None,
                interval_threads: None,
                overflowed: Vec::new(),
            },
            empty: None,
            current: None,
            throughput_printed: Vec::new(),
        }
    }

    /// Adds one element; a heading right after an empty section is an
    /// error.
    fn add(&mut self, element: Element<'a>) -> Result<(), String> {
        match element {
            Element::Heading(section) => return self.heading(section),
            Element::Fields(fields) => self.fields(fields),
            Element::Interval(fields, threads) => self.interval(fields, threads),
            Element::Skipped => self.empty = None,
            Element::Rule => {}
        }
        Ok(())
    }

    /// A section heading: the previous section must have held a number
    /// (only `queries performed:` may follow `SQL statistics:` at once).
    fn heading(&mut self, section: Section) -> Result<(), String> {
        if let Some(open) = self.empty {
            if !(open == Section::Sql && section == Section::QueriesPerformed) {
                return Err(empty_section(open, section.heading()));
            }
        }
        self.empty = Some(section);
        self.current = Some(section);
        let report = &mut self.report;
        report.sections.push(section);
        // `Throughput:` alone says nothing: 1.1 prints it for every
        // test, fileio's MiB/s fields imply fileio themselves.
        report.implied_test = report.implied_test.or(match section {
            Section::CpuSpeed => Some("cpu"),
            Section::FileOperations => Some("fileio"),
            _ => None,
        });
        Ok(())
    }

    /// The final report's fields: the first of each item and metric is
    /// kept, a wrapped counter set aside.
    fn fields(&mut self, fields: Vec<Field<'a>>) {
        self.empty = None;
        let report = &mut self.report;
        for field in fields {
            if self.current == Some(Section::Throughput) {
                self.throughput_printed.push(field.metric.clone());
            }
            if wrapped_around(field.value) {
                report.overflowed.push(field);
                continue;
            }
            report.implied_test = report.implied_test.or(implied_by(&field.metric));
            let duplicate = report
                .fields
                .iter()
                .any(|f| f.item == field.item && f.metric == field.metric);
            if !duplicate {
                report.fields.push(field);
            }
        }
    }

    /// An interval line's fields and the threads it names.
    fn interval(&mut self, fields: Vec<Field<'a>>, threads: Option<u32>) {
        self.empty = None;
        let report = &mut self.report;
        // A wrapped counter means the line's interval snapshot was
        // torn (sysbench issue #14): none of its numbers is kept.
        if fields.iter().any(|f| wrapped_around(f.value)) {
            report.overflowed.extend(fields.into_iter().take(1));
            return;
        }
        report.interval_threads = report.interval_threads.or(threads);
        report.fields.extend(fields);
    }
}

/// A report that stops at a known label, or with a section that printed
/// no number, was cut short.
fn check_not_cut(rest: &str, empty: Option<Section>) -> Result<(), String> {
    if let Some(label) = known_label_at(rest.trim_start()) {
        return Err(format!(
            "sysbench report breaks off at `{}`: expected {}",
            label.0, label.1
        ));
    }
    // A paste cut inside `Threads fairness:` lost nothing benchlog keeps.
    if let Some(open) = empty.filter(|&open| open != Section::Fairness) {
        return Err(empty_section(open, "the end of the paste"));
    }
    Ok(())
}

/// Each printed section holds its [`Section::required`] metrics.
fn check_sections(report: &SysbenchReport<'_>) -> Result<(), String> {
    // A wrapped value was printed: its field is there, just not usable.
    let printed = |metric: &str| {
        report
            .fields
            .iter()
            .chain(&report.overflowed)
            .any(|f| f.item == Item::Total && f.metric == metric)
    };
    for section in &report.sections {
        let missing = section.required().iter().find(|m| !printed(m));
        if let Some(missing) = missing {
            return Err(format!(
                "sysbench `{}` section without `{missing}`: expected {}",
                section.heading(),
                section.expected()
            ));
        }
    }
    Ok(())
}

/// A printed `Throughput:` section holds either of its two shapes.
fn check_throughput(
    report: &SysbenchReport<'_>,
    throughput_printed: &[Cow<'static, str>],
) -> Result<(), String> {
    let in_throughput = |metric: &str| throughput_printed.iter().any(|m| m == metric);
    let throughput_is_whole = in_throughput("events_per_s")
        || (in_throughput("read_mib_per_s") && in_throughput("written_mib_per_s"));
    if report.sections.contains(&Section::Throughput) && !throughput_is_whole {
        return Err(format!(
            "sysbench `Throughput:` section without its numbers: expected {}",
            Section::Throughput.expected()
        ));
    }
    Ok(())
}

/// A report keeps at least one number.
fn check_has_numbers(report: &SysbenchReport<'_>) -> Result<(), String> {
    if report.fields.is_empty() {
        if let Some(field) = report.overflowed.first() {
            return Err(overflow_reason(field));
        }
        return Err("sysbench report without any number".to_string());
    }
    Ok(())
}

/// sysbench keeps counters and times as unsigned 64-bit integers; a
/// subtraction that goes below zero prints as 2^64 = 18446744073709551616
/// scaled by a power of ten (`18446744073709.55ms` from nanoseconds, tps of
/// `18446842801212211200.00`). No real count or time reaches 10^13, so a
/// value that large with 2^64's leading digits is a wrapped counter.
fn wrapped_around(value: f64) -> bool {
    if !(value >= 1e13 && value.is_finite()) {
        return false;
    }
    let leading = value / 10f64.powi(value.log10().floor() as i32);
    (1.8446..1.8448).contains(&leading)
}

/// Why a wrapped value is not stored, with what was expected instead.
pub(in crate::sysbench) fn overflow_reason(field: &Field<'_>) -> String {
    match &field.item {
        Item::Total => format!(
            "sysbench `{}` is an unsigned counter wrapped around (near 2^64), not a measurement: expected a plausible value; the run keeps its other numbers",
            field.metric
        ),
        Item::Interval(seconds) => format!(
            "sysbench interval line `[ {seconds}s ]` holds a counter wrapped around (`{}` near 2^64), not a measurement: expected the interval's real rates; none of its numbers is kept",
            field.metric
        ),
    }
}

fn empty_section(section: Section, next: &str) -> String {
    format!(
        "sysbench `{}` followed by {next}: expected {}",
        section.heading(),
        section.expected()
    )
}

fn implied_by(metric: &str) -> Option<&'static str> {
    match metric {
        "operations" | "ops_per_s" => Some("memory"),
        "reads" | "writes" | "total_ops" | "read_mib" | "written_mib" | "requests_per_s"
        | "read_mib_per_s" | "written_mib_per_s" => Some("fileio"),
        _ => None,
    }
}

/// Labels whose value is missing or broken where a report stops, with what
/// was expected after them.
fn known_label_at(text: &str) -> Option<(&'static str, &'static str)> {
    const KNOWN: [(&str, &str); 12] = [
        ("transactions:", "`transactions: N (X per sec.)`"),
        ("queries:", "`queries: N (X per sec.)`"),
        (
            "read/write requests:",
            "`read/write requests: N (X per sec.)`",
        ),
        ("deadlocks:", "`deadlocks: N (X per sec.)`"),
        ("total time:", "`total time: Xs`"),
        ("total number of events:", "`total number of events: N`"),
        ("events per second:", "`events per second: X`"),
        ("Total operations:", "`Total operations: N (X per second)`"),
        (
            "Operations performed:",
            "`Operations performed: N Read, N Write, N Other = N Total`",
        ),
        ("min:", "`min: X`"),
        ("avg:", "`avg: X`"),
        ("max:", "`max: X`"),
    ];
    KNOWN.into_iter().find(|(name, _)| text.starts_with(name))
}
