//! The forms a comparison is shown in: the chart, the CSV and the text
//! for a mail (laid out in `compare::table`).

use super::{table, Comparison, Method, Point, Series, Verdict, VsBaseline, XAxis, MIN_RUNS};
use crate::charts::{Chart, ChartSeries, Mark, Summary};
use crate::csv_cell;

/// The CSV's columns that say where a point is, each where no series key
/// gives it already.
const CSV_PLACE_COLUMNS: [&str; 5] = ["tool", "test", "item", "metric", "threads"];

/// The CSV's columns of a point's figures, last in each row: its
/// statistics and unit, its difference to the baseline with the
/// interval's bounds, method and level and the verdict, the scaling
/// efficiency and the ids of its runs.
const CSV_FIGURE_COLUMNS: [&str; 18] = [
    "mean",
    "min",
    "max",
    "n",
    "configurations",
    "mixed",
    "unit",
    "vs_baseline",
    "vs_baseline_pct",
    "ci_low",
    "ci_high",
    "ci_pct_low",
    "ci_pct_high",
    "ci_method",
    "confidence",
    "verdict",
    "efficiency",
    "run_ids",
];

/// A figure in a CSV cell: one that is not a finite number is none, an
/// empty cell, as JSON's null (and the page's `-`).
fn csv_number(value: Option<f64>) -> String {
    value
        .filter(|v| v.is_finite())
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// Whether a point has a difference to the baseline that is not shown to
/// be more than noise.
fn is_unproven(point: &Point) -> bool {
    point
        .vs_baseline
        .as_ref()
        .is_some_and(|vs| !vs.verdict.is_proven())
}

impl VsBaseline {
    /// The difference in % with the half-width of its interval,
    /// `+16.8% ± 4.3%`, or the plain `-0.6%` without an interval.
    pub fn percent_text(&self) -> String {
        match &self.interval {
            Some(interval) => format!(
                "{:+.1}% ± {:.1}%",
                self.percent, interval.percent_half_width
            ),
            None => format!("{:+.1}%", self.percent),
        }
    }

    /// What a chart prints beside a compared point: the difference with
    /// the interval its verdict rests on, and the verdict. Where Welch's
    /// interval withdrew Student's proof, Welch's is printed and named,
    /// so the label never shows an interval clear of zero beside "no
    /// difference" (`+6.0% ± 7.9% (Welch's t) no difference at 95%`).
    pub fn chart_text(&self) -> String {
        match (&self.welch, self.withdrawn) {
            (Some(welch), true) => format!(
                "{:+.1}% ± {:.1}% (Welch's t) {}",
                self.percent,
                welch.percent_half_width,
                self.verdict_words()
            ),
            _ => format!("{} {}", self.percent_text(), self.verdict_words()),
        }
    }
}

/// How the chart draws a point of `series`, and what it prints beside it.
fn chart_mark(with_baseline: bool, series: &Series, point: &Point) -> (Mark, Option<String>) {
    if !with_baseline {
        // Runs of several setups are no repeats, baseline or not: a
        // reader must not take its whisker for noise.
        let mark = if point.mixed.is_empty() && point.configurations <= 1 {
            Mark::Plain
        } else {
            Mark::Mixed
        };
        return (mark, None);
    }
    if series.is_baseline {
        return (Mark::Baseline, None);
    }
    let Some(vs) = &point.vs_baseline else {
        return (Mark::NotCompared, Some("not compared".to_owned()));
    };
    // Every verdict gets its own mark: the match is exhaustive on purpose.
    let mark = match vs.verdict {
        Verdict::Better | Verdict::Worse => Mark::Proven,
        Verdict::NoDifference => Mark::NoDifference,
        Verdict::TooFewRuns => Mark::TooFewRuns,
        Verdict::Mixed => Mark::Mixed,
    };
    (mark, Some(vs.chart_text()))
}

/// Redraws every series as % of the baseline series' mean at the same x
/// (`y=relative`): the baseline becomes a flat 100%, and whiskers scale
/// with their means. A point where the baseline has none cannot be a %
/// of it and is left out; returns how many were, for the note to say.
fn relative_to_baseline(series: &mut [ChartSeries]) -> usize {
    let Some(baseline) = series.iter().find(|s| s.is_baseline()) else {
        return 0;
    };
    let base: Vec<(f64, f64)> = baseline.points.iter().map(|p| (p.x, p.mean)).collect();
    let mut left_out = 0;
    for series in series.iter_mut() {
        let before = series.points.len();
        series.points.retain_mut(|point| {
            let Some(&(_, mean)) = base.iter().find(|(x, _)| *x == point.x) else {
                return false;
            };
            // A zero baseline has no %; nor is a point that cannot be drawn
            // shown as one that can.
            if mean == 0.0 {
                return false;
            }
            let percent = |value: f64| 100.0 * value / mean;
            point.mean = percent(point.mean);
            point.min = percent(point.min);
            point.max = percent(point.max);
            true
        });
        left_out += before - series.points.len();
    }
    left_out
}

impl Comparison {
    /// The headline: tool, what is measured, of which item and test.
    pub fn title(&self) -> String {
        let mut title = format!("{} {}", self.tool, self.metric_title);
        if let Some(item) = &self.item {
            title.push_str(&format!(", {item}"));
        }
        if let Some(test) = &self.test {
            title.push_str(&format!(" ({test})"));
        }
        title
    }

    /// The value axis' title: what, in which unit, and which way is better.
    pub fn value_title(&self) -> String {
        format!(
            "{} ({}), {}",
            self.metric_title,
            self.unit,
            self.direction()
        )
    }

    /// Which way is better, in words.
    pub fn direction(&self) -> &'static str {
        if self.higher_is_better {
            "higher is better"
        } else {
            "lower is better"
        }
    }

    fn x_title(&self) -> &'static str {
        match self.x {
            XAxis::Threads => parsers::Tool::from_name(&self.tool)
                .map_or("threads", parsers::Tool::concurrency_title),
            XAxis::None => "item",
            XAxis::Attribute(key) => key,
        }
    }

    /// Series names as the legend shows them, in series order.
    ///
    /// A query without `by` is split by every attribute that tells the
    /// runs apart, so its names join up to eight values, most of them
    /// `(none)` or shared by every series (seed 000: `select_index / 4BSD
    /// / libpthread / ACPI-fast / (none) / (none) / 6.1-PRERELEASE /
    /// i386`), and the legend had room for half of them. There the legend
    /// keeps only the values that tell the series apart, leaves `(none)`
    /// out and lets lists of patches wrap after their commas; the JSON,
    /// CSV and table keep the full names. Where the short names would
    /// not all differ, the full ones stay.
    fn legend_names(&self) -> Vec<String> {
        fn value<'a>(series: &'a Series, key: &str) -> Option<&'a str> {
            series.keys.get(key).map(String::as_str)
        }
        let asked_by = super::CompareQuery::from_query_string(&self.query)
            .map(|query| !query.by.is_empty())
            .unwrap_or(true);
        let short: Vec<String> = self
            .series
            .iter()
            .map(|series| {
                let parts: Vec<String> = self
                    .key_columns
                    .iter()
                    .filter(|key| {
                        let first = self.series.first().and_then(|s| value(s, key));
                        self.series.iter().any(|s| value(s, key) != first)
                    })
                    .filter_map(|key| value(series, key))
                    .filter(|v| *v != super::NONE)
                    .map(|v| v.replace(',', ", "))
                    .collect();
                if parts.is_empty() {
                    super::NONE.to_owned()
                } else {
                    parts.join(" / ")
                }
            })
            .collect();
        let distinct = short
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == short.len();
        self.series
            .iter()
            .zip(short)
            .map(|(series, short)| {
                let name = if asked_by || !distinct || self.series.len() < 2 {
                    series.name.clone()
                } else {
                    short
                };
                if series.is_baseline {
                    format!("{name} (baseline)")
                } else {
                    name
                }
            })
            .collect()
    }

    /// The chart: lines against threads, or bars per item. It draws the
    /// points as grouped here, so the chart's mean, whisker and count are
    /// the table's.
    /// Where every series has a single thread count (one each, say),
    /// lines would be points on one vertical line: those are drawn as
    /// grouped bars, a group per thread count.
    pub fn chart(&self) -> Chart {
        let single_threads = self.single_thread_counts();
        let mut chart = self.chart_kind(&single_threads);
        chart.series = self.chart_series(&single_threads);
        // The canonical link holds what the chart is asked to draw.
        let asked = super::CompareQuery::from_query_string(&self.query).unwrap_or_default();
        chart.log_scale = asked.log_scale;
        let mut notes = Vec::new();
        if let Some(method) = self.methods_title() {
            notes.push(format!(
                "Differences to the baseline: {} confidence, {method}; an interval needs {MIN_RUNS} runs a side.",
                self.confidence
            ));
        }
        if asked.relative {
            self.relative_chart(&mut chart, &mut notes);
        }
        if let (Some(key), 1..) = (self.x.attribute(), self.without_x) {
            notes.push(format!(
                "Not drawn: {} results without {key}.",
                self.without_x
            ));
        }
        if !notes.is_empty() {
            chart.note = Some(notes.join(" "));
        }
        chart
    }

    /// Lines against threads, or bars: per item, or per thread count where
    /// every series has a single one.
    fn chart_kind(&self, single_threads: &[u32]) -> Chart {
        match self.x {
            XAxis::Threads if !single_threads.is_empty() => {
                let word = self.x_title().split(' ').next().unwrap_or("threads");
                Chart::bars(
                    self.title(),
                    self.x_title(),
                    self.value_title(),
                    single_threads
                        .iter()
                        .map(|t| format!("{t} {word}"))
                        .collect(),
                )
            }
            XAxis::Threads => Chart::new(self.title(), self.x_title(), self.value_title()),
            XAxis::Attribute(key) => Chart::across(
                self.title(),
                format!("{key}, in version order"),
                self.value_title(),
                self.x_values.clone(),
            ),
            XAxis::None => Chart::bars(
                self.title(),
                self.x_title(),
                self.value_title(),
                self.categories.clone(),
            ),
        }
    }

    /// The series as the chart draws them: each point's summary, mark and
    /// verdict, at its x (on bars, the index of its category).
    fn chart_series(&self, single_threads: &[u32]) -> Vec<ChartSeries> {
        self.series
            .iter()
            .zip(self.legend_names())
            .map(|(series, name)| ChartSeries {
                name,
                points: series
                    .points
                    .iter()
                    .map(|point| {
                        let (mark, verdict) = chart_mark(self.baseline.is_some(), series, point);
                        Summary {
                            x: match point.threads {
                                Some(threads) if !single_threads.is_empty() => single_threads
                                    .iter()
                                    .position(|&t| t == threads)
                                    .unwrap_or(0)
                                    as f64,
                                _ => self.chart_x(point),
                            },
                            mean: point.mean,
                            min: point.min,
                            max: point.max,
                            count: point.n,
                            mark,
                            verdict,
                        }
                    })
                    .collect(),
                dashed: !series.is_baseline
                    && series.points.iter().any(|p| p.vs_baseline.is_some())
                    && series
                        .points
                        .iter()
                        .filter(|p| p.vs_baseline.is_some())
                        .all(is_unproven),
            })
            .collect()
    }

    /// `y=relative`: each series as % of the baseline at the same x, the
    /// points with no baseline point left out and counted in a note.
    fn relative_chart(&self, chart: &mut Chart, notes: &mut Vec<String>) {
        match &self.baseline {
            Some(baseline) => {
                let left_out = relative_to_baseline(&mut chart.series);
                chart.percent_of_baseline = true;
                // The baseline first: a long name cut at the end
                // still says what 100% is.
                chart.y_title = format!(
                    "% of {baseline} ({}), {}",
                    self.metric_title,
                    self.direction()
                );
                if left_out > 0 {
                    let (points, their) = if left_out == 1 {
                        ("point", "its")
                    } else {
                        ("points", "their")
                    };
                    notes.push(format!(
                        "{left_out} {points} left out: the baseline has no point at {their} x, so no % of it (the table has them)."
                    ));
                }
            }
            None => notes.push(
                "Drawn in absolute values: y=relative needs the baseline series, and this comparison has none."
                    .to_owned(),
            ),
        }
    }

    /// The methods of the intervals the verdicts rest on, in words
    /// (`Student's t, as ministat`); `None` without a baseline.
    fn methods_title(&self) -> Option<String> {
        self.baseline.as_ref()?;
        let methods: Vec<Method> = self
            .series
            .iter()
            .flat_map(|s| &s.points)
            .filter_map(|p| Some(p.vs_baseline.as_ref()?.interval.as_ref()?.method))
            .collect();
        let student = format!("{}, as ministat", Method::Student.title());
        Some(if methods.contains(&Method::Welch) {
            if methods.contains(&Method::Student) {
                format!(
                    "{student}; {} where the variances differ",
                    Method::Welch.title()
                )
            } else {
                Method::Welch.title().to_owned()
            }
        } else {
            student
        })
    }

    /// The thread counts, in order, when every series of a chart against
    /// threads has at most one (and some series one); else empty.
    fn single_thread_counts(&self) -> Vec<u32> {
        if self.x != XAxis::Threads || self.series.iter().any(|s| s.points.len() > 1) {
            return Vec::new();
        }
        let mut threads: Vec<u32> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|p| p.threads))
            .collect();
        threads.sort_unstable();
        threads.dedup();
        threads
    }

    /// Where a point sits along the chart's x: its thread count, the
    /// index of its value along x, or on bars the index of its item.
    fn chart_x(&self, point: &Point) -> f64 {
        if let Some(value) = &point.x {
            return self.x_values.iter().position(|v| v == value).unwrap_or(0) as f64;
        }
        match point.threads {
            Some(threads) => f64::from(threads),
            None => self
                .categories
                .iter()
                .position(|c| *c == point.item)
                .unwrap_or(0) as f64,
        }
    }

    /// The numbers as CSV (RFC 4180): one row per point, every series key
    /// a column, the attribute along x (`x=os_version`) one named by it,
    /// then mean, min, max, n, how many configurations the runs
    /// are and the keys that differ among them, and with a baseline the
    /// difference to it, its interval (absolute and in %), the method and
    /// level of the interval, and the verdict.
    pub fn to_csv(&self) -> Result<Vec<u8>, csv::Error> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let fixed: Vec<&str> = CSV_PLACE_COLUMNS
            .into_iter()
            .filter(|c| !self.key_columns.iter().any(|k| k == c))
            .collect();
        csv_cell::write_record(&mut writer, self.csv_header(&fixed))?;
        for series in &self.series {
            for point in &series.points {
                let mut record = self.csv_place(series, point, &fixed);
                record.extend(self.csv_figures(point));
                csv_cell::write_record(&mut writer, &record)?;
            }
        }
        writer.into_inner().map_err(|e| e.into_error().into())
    }

    /// The CSV's header: `series`, the series' key columns, the attribute
    /// along x (a column named by it), the `fixed` place columns (those
    /// of [`CSV_PLACE_COLUMNS`] no key gives), then [`CSV_FIGURE_COLUMNS`].
    fn csv_header(&self, fixed: &[&str]) -> Vec<String> {
        let mut header = vec!["series".to_owned()];
        header.extend(self.key_columns.iter().cloned());
        header.extend(self.x.attribute().map(str::to_owned));
        header.extend(fixed.iter().map(|c| c.to_string()));
        header.extend(CSV_FIGURE_COLUMNS.map(str::to_owned));
        header
    }

    /// Which point a CSV row is, as [`Comparison::csv_header`] names its
    /// first columns: its series' name and keys, its value along x, and
    /// the `fixed` place columns (the tests of its runs joined by `;`).
    fn csv_place(&self, series: &Series, point: &Point, fixed: &[&str]) -> Vec<String> {
        let mut record = vec![series.name.clone()];
        record.extend(
            self.key_columns
                .iter()
                .map(|k| series.keys.get(k).cloned().unwrap_or_default()),
        );
        if self.x.attribute().is_some() {
            record.push(point.x.clone().unwrap_or_default());
        }
        for column in fixed {
            record.push(match *column {
                "tool" => self.tool.clone(),
                "test" => point.tests().join(";"),
                "item" => point.item.clone(),
                "metric" => self.metric.clone(),
                _ => point.threads.map(|t| t.to_string()).unwrap_or_default(),
            });
        }
        record
    }

    /// A point's figures, one per [`CSV_FIGURE_COLUMNS`] in its order;
    /// those of the baseline empty where the point has no difference to
    /// one, lists joined by `;`.
    fn csv_figures(&self, point: &Point) -> [String; CSV_FIGURE_COLUMNS.len()] {
        let baseline = point.vs_baseline.as_ref();
        let interval = baseline.and_then(|b| b.interval.as_ref());
        [
            csv_number(Some(point.mean)),
            csv_number(Some(point.min)),
            csv_number(Some(point.max)),
            point.n.to_string(),
            point.configurations.to_string(),
            point.mixed.join(";"),
            self.unit.clone(),
            csv_number(baseline.map(|b| b.difference)),
            csv_number(baseline.map(|b| b.percent)),
            csv_number(interval.map(|i| i.low)),
            csv_number(interval.map(|i| i.high)),
            csv_number(interval.map(|i| i.percent_low)),
            csv_number(interval.map(|i| i.percent_high)),
            interval
                .map(|i| i.method.name().to_owned())
                .unwrap_or_default(),
            baseline
                .map(|b| b.confidence.name().to_owned())
                .unwrap_or_default(),
            baseline
                .map(|b| b.verdict.name().to_owned())
                .unwrap_or_default(),
            csv_number(point.efficiency),
            point
                .runs
                .iter()
                .map(|r| r.run_id.to_string())
                .collect::<Vec<_>>()
                .join(";"),
        ]
    }

    /// The comparison as plain text of at most 72 columns, for a mail,
    /// but for its link (absolute where `origin` is known), whole on the
    /// last line.
    pub fn to_text(&self, origin: Option<&str>) -> String {
        table::to_text(self, origin)
    }
}
