//! Is a difference to the baseline more than noise? The confidence
//! interval of the difference of two means, as FreeBSD's `ministat`
//! computes it, and the verdict drawn from it.
//!
//! For the runs `x` of the baseline and `y` of a series at the same x
//! (n₁ and n₂ values, means x̄ and ȳ, variances s₁² and s₂² with n − 1):
//!
//! - the difference is d = ȳ − x̄, and in % d / |x̄| × 100;
//! - Student's t with the pooled standard deviation (ministat's only
//!   method): s = √(((n₁−1)s₁² + (n₂−1)s₂²) / (n₁+n₂−2)), half-width
//!   e = t(1−α/2, n₁+n₂−2) × s × √(1/n₁ + 1/n₂), and in % e / |x̄| × 100
//!   (ministat's % half-width is the absolute one over the baseline's
//!   mean, like its %);
//! - Welch's t, which does not assume equal variances: standard error
//!   se = √(s₁²/n₁ + s₂²/n₂), half-width t(1−α/2, ν) × se with the
//!   Welch–Satterthwaite ν = se⁴ / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1)).
//!
//! Both are computed whenever each side has [`MIN_RUNS`] values. The
//! verdict rests on Student's interval, as ministat's does: a list's
//! readers check a pasted block with ministat, and benchlog never proves
//! what ministat does not. Where an F-test at the same confidence level
//! says the variances differ (larger s² / smaller s² above the F
//! distribution's 1 − α/2 quantile with their degrees of freedom),
//! Welch's interval is shown beside it as a caution: pooling two unequal
//! variances makes Student's interval too narrow when the smaller set is
//! the noisier one. Welch's can then only withdraw a verdict (Student's
//! proves a difference, Welch's holds zero: no difference), never make
//! one. The difference is shown when it lies outside its interval (|d| >
//! e, ministat's test): better or worse by the metric's direction;
//! otherwise there is no difference at that confidence.
//!
//! Where benchlog and ministat part: ministat reads t from a table with
//! three decimals; Student's t here is statrs' quantile rounded to three
//! decimals too, so both print the same digits. Past 100 degrees of
//! freedom ministat takes the normal distribution's value; here t keeps
//! its degrees of freedom. And ministat's 99.5% column holds the 99.8%
//! values (t(0.999), 318.313 for one degree of freedom): `conf=99.5`
//! takes the same t, so benchlog never proves what ministat does not,
//! and says the level it is, 99.8% ([`Confidence::level`]).

use std::fmt;

use serde::{Serialize, Serializer};

use crate::moments::Moments;
use statrs::distribution::{ContinuousCDF, FisherSnedecor, StudentsT};

/// The fewest values on each side for an interval: ministat refuses
/// fewer, and with two the variance of each rests on one difference.
pub const MIN_RUNS: usize = 3;

/// A confidence level of the intervals: ministat's choices, the only
/// ones `conf=` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Confidence {
    P80,
    P90,
    #[default]
    P95,
    P98,
    P99,
    P99_5,
}

impl Confidence {
    /// Every level, in ascending order.
    pub const ALL: [Confidence; 6] = [
        Confidence::P80,
        Confidence::P90,
        Confidence::P95,
        Confidence::P98,
        Confidence::P99,
        Confidence::P99_5,
    ];

    /// As `conf=` spells it: `95`, `99.5`.
    pub fn name(self) -> &'static str {
        match self {
            Confidence::P80 => "80",
            Confidence::P90 => "90",
            Confidence::P95 => "95",
            Confidence::P98 => "98",
            Confidence::P99 => "99",
            Confidence::P99_5 => "99.5",
        }
    }

    /// The level a `conf=` value names (`95`, `95.0` and `95%` alike).
    pub fn from_name(text: &str) -> Option<Self> {
        let text = text.trim().trim_end_matches('%');
        let value: f64 = text.parse().ok()?;
        Self::ALL.into_iter().find(|level| level.percent() == value)
    }

    /// The level in percent: 95.0.
    pub fn percent(self) -> f64 {
        match self {
            Confidence::P80 => 80.0,
            Confidence::P90 => 90.0,
            Confidence::P95 => 95.0,
            Confidence::P98 => 98.0,
            Confidence::P99 => 99.0,
            Confidence::P99_5 => 99.5,
        }
    }

    /// The level the intervals truly have, in percent: the one asked
    /// for, but 99.8 for `conf=99.5`. ministat's 99.5 column holds the
    /// two-sided 99.8% values (t(0.999), 318.313 for one degree of
    /// freedom), and benchlog is never bolder than ministat at a level it
    /// offers: it takes the same t, and names the level it is.
    pub fn level(self) -> f64 {
        match self {
            Confidence::P99_5 => MINISTAT_99_5_COLUMN,
            other => other.percent(),
        }
    }

    /// The probability below the upper end of a two-sided interval:
    /// 0.975 for 95%.
    fn upper_quantile(self) -> f64 {
        1.0 - (1.0 - self.level() / 100.0) / 2.0
    }

    /// The names, for messages: `80, 90, 95, 98, 99 or 99.5`.
    pub fn names() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
        format!(
            "{} or {}",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        )
    }
}

/// The two-sided level of ministat's `-c 99.5` column.
const MINISTAT_99_5_COLUMN: f64 = 99.8;

/// The level the intervals have (`95%`; `99.8%` for `conf=99.5`).
impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.level())
    }
}

/// In JSON the level is its number, 95 or 99.5.
impl Serialize for Confidence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.percent())
    }
}

/// The summary of one side's values that the intervals need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub n: usize,
    pub mean: f64,
    /// With n − 1; zero for a single value.
    pub variance: f64,
}

/// The mean of `values`, finite whenever they are: their sum overflows
/// past about 1.8e308, which a sum of two values near it already does;
/// then each is divided first.
pub fn mean(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean.is_finite() || values.iter().any(|v| !v.is_finite()) {
        mean
    } else {
        values.iter().map(|v| v / n).sum()
    }
}

/// One side of a difference: a point's values, or (where the point was
/// read from the sums of its configurations, `store::sums`) their
/// moments.
#[derive(Debug, Clone, Copy)]
pub enum Side<'a> {
    Values(&'a [f64]),
    Moments(Moments),
}

impl Side<'_> {
    fn n(&self) -> usize {
        match self {
            Side::Values(values) => values.len(),
            Side::Moments(m) => m.n,
        }
    }

    fn mean(&self) -> f64 {
        match self {
            Side::Values(values) => mean(values),
            Side::Moments(m) => m.mean,
        }
    }

    /// The largest finite magnitude of the values (0 for none).
    fn largest(&self) -> f64 {
        let finite = |v: f64| if v.is_finite() { v.abs() } else { 0.0 };
        match self {
            Side::Values(values) => values.iter().map(|&v| finite(v)).fold(0.0_f64, f64::max),
            Side::Moments(m) if m.n == 0 => 0.0,
            Side::Moments(m) => finite(m.min).max(finite(m.max)),
        }
    }

    /// The summary of the values divided by `unit` (a power of two).
    fn sample(&self, unit: f64) -> Sample {
        match self {
            Side::Values(values) => {
                let scaled: Vec<f64> = values.iter().map(|v| v / unit).collect();
                Sample::of(&scaled)
            }
            Side::Moments(m) => Sample {
                n: m.n,
                mean: m.mean / unit,
                variance: m.variance() / (unit * unit),
            },
        }
    }
}

/// A power of two that brings the largest of the values near 1, when
/// they are so large (or small) that their squares or sums would leave
/// the range of `f64`; else 1. Dividing by a power of two is exact, so
/// the statistics of the scaled values are those of the values, scaled.
/// The power stays within `f64`'s: 2^1024, the nearest to values past
/// 1.3e308, is infinite, and divided by it they were all 0 (no mean, no
/// difference).
fn scale_of(largest: f64) -> f64 {
    if largest == 0.0 || (1e-100..=1e100).contains(&largest) {
        1.0
    } else {
        let power = largest.log2().round() as i32;
        2.0_f64.powi(power.clamp(f64::MIN_EXP - 1, f64::MAX_EXP - 1))
    }
}

/// The standard deviation of `values` (with n − 1), finite whenever it
/// is within `f64`'s range: the squares are taken of the values scaled by
/// [`scale_of`] (the variance of values near 1e308 is not, and its root
/// printed `inf` in the text view).
pub fn std_dev(values: &[f64]) -> f64 {
    let finite = |v: &f64| if v.is_finite() { v.abs() } else { 0.0 };
    let unit = scale_of(values.iter().map(finite).fold(0.0_f64, f64::max));
    let scaled: Vec<f64> = values.iter().map(|v| v / unit).collect();
    Sample::of(&scaled).std_dev() * unit
}

impl Sample {
    pub fn of(values: &[f64]) -> Self {
        let n = values.len();
        // Equal values have no spread: their mean is one of them, not a
        // sum divided back with a rounding error whose square would give
        // them a variance (and so a variance ratio of 1e29 to a side of
        // others).
        if let Some(&first) = values.first() {
            if values.iter().all(|&v| v == first) {
                return Sample {
                    n,
                    mean: first,
                    variance: 0.0,
                };
            }
        }
        let mean = mean(values);
        let variance = if n > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Sample { n, mean, variance }
    }

    pub fn std_dev(&self) -> f64 {
        self.variance.sqrt()
    }
}

/// How an interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Student's t with the pooled standard deviation (ministat's).
    Student,
    /// Welch's t with the Welch–Satterthwaite degrees of freedom.
    Welch,
}

impl Method {
    /// Its name in CSV and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Method::Student => "student",
            Method::Welch => "welch",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Method::Student => "Student's t",
            Method::Welch => "Welch's t",
        }
    }
}

/// The confidence interval of a difference of means, absolute and in %
/// of the baseline's mean.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    pub method: Method,
    /// Degrees of freedom (a fraction for Welch's).
    pub df: f64,
    /// The t quantile used.
    pub t: f64,
    /// Student's: the pooled standard deviation; Welch's: the standard
    /// error of the difference.
    pub s: f64,
    pub half_width: f64,
    pub low: f64,
    pub high: f64,
    pub percent_half_width: f64,
    pub percent_low: f64,
    pub percent_high: f64,
}

impl Interval {
    fn tidy(&mut self) {
        for value in [
            &mut self.df,
            &mut self.t,
            &mut self.s,
            &mut self.half_width,
            &mut self.low,
            &mut self.high,
            &mut self.percent_half_width,
            &mut self.percent_low,
            &mut self.percent_high,
        ] {
            *value = significant(*value);
        }
    }
}

/// `value` rounded to ten significant digits.
fn significant(value: f64) -> f64 {
    if value.is_finite() && value != 0.0 {
        format!("{value:.9e}").parse().unwrap_or(value)
    } else {
        value
    }
}

/// Whether a series did better or worse than the baseline at one x, or
/// cannot be told apart from it. In CSV and JSON its snake-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The difference lies outside its interval, the good way.
    Better,
    /// The difference lies outside its interval, the bad way.
    Worse,
    /// The interval holds zero: noise may explain the difference.
    NoDifference,
    /// Fewer than [`MIN_RUNS`] runs on one side: no interval.
    TooFewRuns,
    /// The point or the baseline's point gathers runs of several
    /// configurations: they are not repeats, and no interval is computed.
    Mixed,
}

impl Verdict {
    /// Its name in CSV and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NoDifference => "no_difference",
            Verdict::TooFewRuns => "too_few_runs",
            Verdict::Mixed => "mixed",
        }
    }

    /// Whether the difference is shown to be more than noise.
    pub fn is_proven(self) -> bool {
        matches!(self, Verdict::Better | Verdict::Worse)
    }
}

/// The difference of a point to the baseline's point at the same x.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VsBaseline {
    /// Mean − the baseline's mean.
    pub difference: f64,
    /// The difference in % of the baseline's mean.
    pub percent: f64,
    pub verdict: Verdict,
    pub confidence: Confidence,
    /// The interval the verdict rests on, Student's (ministat's); `None`
    /// with too few runs.
    pub interval: Option<Interval>,
    /// Both intervals.
    pub student: Option<Interval>,
    pub welch: Option<Interval>,
    /// The F-test's larger over smaller variance, when both sides have
    /// enough runs.
    pub variance_ratio: Option<f64>,
    /// Whether the F-test finds the variances differ: Welch's interval is
    /// then the caution shown beside Student's.
    pub variances_differ: bool,
    /// Whether Student's interval proves a difference that Welch's, where
    /// the variances differ, does not: the verdict is withdrawn.
    pub withdrawn: bool,
    /// The baseline's runs at this x, and this point's.
    pub baseline_n: usize,
    pub n: usize,
}

impl VsBaseline {
    /// The plain difference of the means of a point and the baseline's
    /// point where either mixes configurations: no interval, verdict
    /// [`Verdict::Mixed`]. `None` when the baseline's mean is zero.
    pub fn mixed(baseline: &[f64], values: &[f64], confidence: Confidence) -> Option<Self> {
        Self::mixed_sides(Side::Values(baseline), Side::Values(values), confidence)
    }

    /// [`VsBaseline::mixed`] of two sides.
    pub fn mixed_sides(baseline: Side, values: Side, confidence: Confidence) -> Option<Self> {
        let (base, other) = (baseline.mean(), values.mean());
        if baseline.n() == 0 || values.n() == 0 || base == 0.0 || !base.is_finite() {
            return None;
        }
        Some(VsBaseline {
            difference: other - base,
            percent: (other - base) / base.abs() * 100.0,
            verdict: Verdict::Mixed,
            confidence,
            interval: None,
            student: None,
            welch: None,
            variance_ratio: None,
            variances_differ: false,
            withdrawn: false,
            baseline_n: baseline.n(),
            n: values.n(),
        })
    }

    /// Compares a point's `values` with the baseline's at the same x.
    /// `None` when the baseline's mean is zero (no percentage).
    pub fn compare(
        baseline: &[f64],
        values: &[f64],
        confidence: Confidence,
        higher_is_better: bool,
    ) -> Option<Self> {
        Self::compare_sides(
            Side::Values(baseline),
            Side::Values(values),
            confidence,
            higher_is_better,
        )
    }

    /// [`VsBaseline::compare`] of two sides.
    pub fn compare_sides(
        baseline: Side,
        values: Side,
        confidence: Confidence,
        higher_is_better: bool,
    ) -> Option<Self> {
        // Values near the ends of f64's range are compared scaled, so
        // that no sum or square overflows into an infinite mean or
        // variance (which made every such difference "no difference").
        let unit = scale_of(baseline.largest().max(values.largest()));
        let (base, other) = (baseline.sample(unit), values.sample(unit));
        if base.n == 0 || other.n == 0 || base.mean == 0.0 || !base.mean.is_finite() {
            return None;
        }
        let difference = other.mean - base.mean;
        let scale = 100.0 / base.mean.abs();
        let enough = base.n >= MIN_RUNS && other.n >= MIN_RUNS;
        let student = enough.then(|| student(&base, &other, confidence, scale));
        let welch = if enough {
            welch(&base, &other, confidence, scale)
        } else {
            None
        };
        let variance_ratio = enough.then(|| variance_ratio(&base, &other));
        let differ = enough && variances_differ(&base, &other, confidence);
        let outside = |interval: &Interval| difference.abs() > interval.half_width;
        let student_proves = student.as_ref().is_some_and(outside);
        // Welch's only withdraws: it is asked only where Student's proves.
        let withdrawn = student_proves && differ && !welch.as_ref().is_some_and(outside);
        let verdict = match &student {
            None => Verdict::TooFewRuns,
            Some(_) if student_proves && !withdrawn => {
                if (difference > 0.0) == higher_is_better {
                    Verdict::Better
                } else {
                    Verdict::Worse
                }
            }
            Some(_) => Verdict::NoDifference,
        };
        let interval = student.clone();
        let unscaled = |interval: Option<Interval>| {
            interval.map(|interval| Interval {
                s: interval.s * unit,
                half_width: interval.half_width * unit,
                low: interval.low * unit,
                high: interval.high * unit,
                ..interval
            })
        };
        Some(VsBaseline {
            difference: difference * unit,
            percent: difference * scale,
            verdict,
            confidence,
            interval: unscaled(interval),
            student: unscaled(student),
            welch: unscaled(welch),
            variance_ratio,
            variances_differ: differ,
            withdrawn,
            baseline_n: base.n,
            n: other.n,
        })
    }

    /// The numbers to ten significant digits, so that every form shows
    /// the same digits (no 16.760000000000002): far beyond what the runs'
    /// values hold, and what the verdict was drawn from is unchanged.
    pub fn tidy(mut self) -> Self {
        self.difference = significant(self.difference);
        self.percent = significant(self.percent);
        for interval in [&mut self.interval, &mut self.student, &mut self.welch]
            .into_iter()
            .flatten()
        {
            interval.tidy();
        }
        self.variance_ratio = self.variance_ratio.map(significant);
        self
    }

    /// The verdict in words: `better`, `no difference at 95%`, `too few
    /// runs`.
    pub fn verdict_words(&self) -> String {
        match self.verdict {
            Verdict::Better => "better".to_owned(),
            Verdict::Worse => "worse".to_owned(),
            Verdict::NoDifference => format!("no difference at {}", self.confidence),
            Verdict::TooFewRuns => "too few runs".to_owned(),
            Verdict::Mixed => "mixed configurations".to_owned(),
        }
    }

    /// Why a verdict is what it is, in a sentence for a table cell's
    /// second line: the interval it rests on, and where the variances
    /// differ, Welch's beside it.
    pub fn explanation(&self) -> String {
        if self.verdict == Verdict::Mixed {
            return "runs of several configurations are not repeats: no interval".to_owned();
        }
        let Some(interval) = &self.interval else {
            return format!(
                "n = {} and {}: {MIN_RUNS} runs a side are needed",
                self.baseline_n, self.n
            );
        };
        let mut why = format!(
            "{} at {}, {} df",
            interval.method.title(),
            self.confidence,
            format_df(interval.df)
        );
        if let (true, Some(welch)) = (self.variances_differ, &self.welch) {
            why.push_str(&format!(
                "; the variances differ: Welch's t gives ± {:.1}%",
                welch.percent_half_width
            ));
            if self.withdrawn {
                why.push_str(", which holds zero");
            }
        }
        why
    }
}

/// Degrees of freedom as a reader wants them: whole ones bare, Welch's
/// to one decimal.
pub fn format_df(df: f64) -> String {
    if df.fract() == 0.0 {
        format!("{df}")
    } else {
        format!("{df:.1}")
    }
}

/// The two-sided t quantile of `confidence` with `df` degrees of freedom.
fn t_quantile(confidence: Confidence, df: f64) -> f64 {
    match StudentsT::new(0.0, 1.0, df) {
        Ok(t) => t.inverse_cdf(confidence.upper_quantile()),
        Err(_) => f64::NAN,
    }
}

fn interval(
    method: Method,
    df: f64,
    t: f64,
    s: f64,
    standard_error: f64,
    difference: f64,
    scale: f64,
) -> Interval {
    let half_width = t * standard_error;
    Interval {
        method,
        df,
        t,
        s,
        half_width,
        low: difference - half_width,
        high: difference + half_width,
        percent_half_width: half_width * scale,
        percent_low: (difference - half_width) * scale,
        percent_high: (difference + half_width) * scale,
    }
}

/// Student's interval with the pooled standard deviation, as ministat
/// computes it (t to three decimals, as its table has it).
fn student(base: &Sample, other: &Sample, confidence: Confidence, scale: f64) -> Interval {
    let df = (base.n + other.n - 2) as f64;
    let pooled =
        (((base.n - 1) as f64 * base.variance + (other.n - 1) as f64 * other.variance) / df).sqrt();
    let t = (t_quantile(confidence, df) * 1000.0).round() / 1000.0;
    let standard_error = pooled * (1.0 / base.n as f64 + 1.0 / other.n as f64).sqrt();
    interval(
        Method::Student,
        df,
        t,
        pooled,
        standard_error,
        other.mean - base.mean,
        scale,
    )
}

/// Welch's interval; `None` when both sides have no spread at all (no
/// degrees of freedom to speak of).
fn welch(base: &Sample, other: &Sample, confidence: Confidence, scale: f64) -> Option<Interval> {
    let (a, b) = (
        base.variance / base.n as f64,
        other.variance / other.n as f64,
    );
    if a + b == 0.0 {
        return None;
    }
    let df = (a + b).powi(2) / (a.powi(2) / (base.n - 1) as f64 + b.powi(2) / (other.n - 1) as f64);
    let standard_error = (a + b).sqrt();
    Some(interval(
        Method::Welch,
        df,
        t_quantile(confidence, df),
        standard_error,
        standard_error,
        other.mean - base.mean,
        scale,
    ))
}

/// The larger variance over the smaller (infinite when only one is zero,
/// 1 when both are).
fn variance_ratio(base: &Sample, other: &Sample) -> f64 {
    let (larger, smaller) = if base.variance >= other.variance {
        (base.variance, other.variance)
    } else {
        (other.variance, base.variance)
    };
    if larger == 0.0 {
        1.0
    } else {
        larger / smaller
    }
}

/// The two-sided F-test of equal variances at `confidence`.
fn variances_differ(base: &Sample, other: &Sample, confidence: Confidence) -> bool {
    let ratio = variance_ratio(base, other);
    if ratio.is_infinite() {
        return true;
    }
    let (larger, smaller) = if base.variance >= other.variance {
        (base, other)
    } else {
        (other, base)
    };
    match FisherSnedecor::new((larger.n - 1) as f64, (smaller.n - 1) as f64) {
        Ok(f) => ratio > f.inverse_cdf(confidence.upper_quantile()),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * b.abs().max(1e-300)
    }

    /// Whether `value` rounds to `printed`, a number printed with six
    /// significant digits (ministat's `%g`).
    fn prints_as(value: f64, printed: f64) -> bool {
        let unit = 10f64.powi(printed.abs().log10().floor() as i32 - 5);
        (value - printed).abs() <= unit / 2.0 * (1.0 + 1e-9)
    }

    #[test]
    fn levels_are_ministats() {
        let names: Vec<&str> = Confidence::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["80", "90", "95", "98", "99", "99.5"]);
        for (text, want) in [
            ("95", Some(Confidence::P95)),
            ("99.5", Some(Confidence::P99_5)),
            ("95.0", Some(Confidence::P95)),
            ("80%", Some(Confidence::P80)),
            ("97", None),
            ("0.95", None),
            ("ninety", None),
            ("", None),
        ] {
            assert_eq!(Confidence::from_name(text), want, "{text:?}");
        }
        assert_eq!(Confidence::default(), Confidence::P95);
        assert_eq!(Confidence::names(), "80, 90, 95, 98, 99 or 99.5");
        assert_eq!(serde_json::to_string(&Confidence::P99_5).unwrap(), "99.5");
    }

    /// The two-sided values of printed t tables (and of ministat's, whose
    /// rows are these to three decimals), by degrees of freedom.
    #[test]
    fn student_t_has_the_tables_three_decimals() {
        let table = [
            (1.0, Confidence::P95, 12.706),
            (4.0, Confidence::P80, 1.533),
            (4.0, Confidence::P90, 2.132),
            (4.0, Confidence::P95, 2.776),
            (4.0, Confidence::P98, 3.747),
            (4.0, Confidence::P99, 4.604),
            (5.0, Confidence::P95, 2.571),
            (10.0, Confidence::P99, 3.169),
            (30.0, Confidence::P95, 2.042),
            (100.0, Confidence::P95, 1.984),
        ];
        for (df, level, want) in table {
            let t = (t_quantile(level, df) * 1000.0).round() / 1000.0;
            assert_eq!(t, want, "df {df} at {level}");
        }
        // conf=99.5 is ministat's column: the 99.8% value, 7.173 at 4 df
        // (the true 99.5% would be 5.598, bolder than ministat).
        assert!(close(t_quantile(Confidence::P99_5, 4.0), 7.1732, 1e-4));
        assert_eq!(Confidence::P99_5.to_string(), "99.8%");
        assert_eq!(Confidence::P95.to_string(), "95%");
    }

    #[test]
    fn a_proven_difference_follows_the_direction() {
        // Printed by `ministat -c 95` for these two files:
        //   Difference at 95.0% confidence
        //   13.5 +/- 6.51264
        //   117.391% +/- 56.6316%
        //   (Student's t, pooled s = 3.31662)
        let base = [10.0, 12.0, 11.0, 13.0];
        let other = [20.0, 25.0, 30.0];
        let vs = VsBaseline::compare(&base, &other, Confidence::P95, true).unwrap();
        let student = vs.student.clone().unwrap();
        assert!(close(vs.difference, 13.5, 1e-12));
        assert!(prints_as(student.half_width, 6.51264), "{student:?}");
        assert!(prints_as(vs.percent, 117.391), "{vs:?}");
        assert!(
            prints_as(student.percent_half_width, 56.6316),
            "{student:?}"
        );
        assert!(prints_as(student.s, 3.31662), "{student:?}");
        assert_eq!(student.df, 5.0);
        assert_eq!(vs.verdict, Verdict::Better);
        // Lower is better: the same numbers are worse.
        let vs = VsBaseline::compare(&base, &other, Confidence::P95, false).unwrap();
        assert_eq!(vs.verdict, Verdict::Worse);
        assert_eq!(vs.verdict_words(), "worse");
    }

    #[test]
    fn an_interval_holding_zero_is_no_difference() {
        let base = [100.0, 120.0, 80.0];
        let other = [105.0, 125.0, 85.0];
        let vs = VsBaseline::compare(&base, &other, Confidence::P95, true).unwrap();
        let interval = vs.interval.clone().unwrap();
        assert!(interval.low < 0.0 && interval.high > 0.0, "{interval:?}");
        assert_eq!(vs.verdict, Verdict::NoDifference);
        assert_eq!(vs.verdict_words(), "no difference at 95%");
        // A lower level narrows the interval; this one still holds zero.
        let vs80 = VsBaseline::compare(&base, &other, Confidence::P80, true).unwrap();
        assert!(vs80.interval.as_ref().unwrap().half_width < interval.half_width);
        assert_eq!(vs80.verdict_words(), "no difference at 80%");
    }

    #[test]
    fn fewer_than_three_runs_a_side_give_no_interval() {
        // Two runs spanning 6,468 to 19,234 against one of 19,345.
        let vs =
            VsBaseline::compare(&[19345.0], &[6468.70, 19234.02], Confidence::P95, true).unwrap();
        assert_eq!(vs.verdict, Verdict::TooFewRuns);
        assert!(vs.interval.is_none() && vs.student.is_none() && vs.welch.is_none());
        let mean = (6468.70 + 19234.02) / 2.0;
        assert!(close(vs.percent, (mean - 19345.0) / 19345.0 * 100.0, 1e-12));
        assert_eq!(vs.verdict_words(), "too few runs");
        assert!(
            vs.explanation().contains("n = 1 and 2"),
            "{}",
            vs.explanation()
        );
    }

    #[test]
    fn welch_withdraws_a_verdict_when_the_variances_differ() {
        // A quiet baseline and a very noisy series: the F-test rejects
        // equal variances, and Welch's interval (wider here) holds zero.
        let base = [1000.0, 1001.0, 999.0, 1000.5, 999.5, 1000.0, 1000.2, 999.8];
        let other = [1030.0, 1010.0, 1050.0];
        let vs = VsBaseline::compare(&base, &other, Confidence::P95, true).unwrap();
        let (student, welch) = (vs.student.clone().unwrap(), vs.welch.clone().unwrap());
        assert!(vs.variance_ratio.unwrap() > 100.0 && vs.variances_differ);
        assert_eq!(vs.interval.as_ref().unwrap().method, Method::Student);
        // ν = se⁴ / Σ (s²/n)² / (n − 1), computed by hand.
        let (a, b) = (Sample::of(&base), Sample::of(&other));
        let (va, vb) = (a.variance / 8.0, b.variance / 3.0);
        let nu = (va + vb).powi(2) / (va * va / 7.0 + vb * vb / 2.0);
        assert!(close(welch.df, nu, 1e-12) && welch.df < 3.0, "{welch:?}");
        assert!(welch.half_width > student.half_width);
        // Student's interval alone would call it better; Welch's does not.
        assert!(vs.difference > student.half_width);
        assert!(vs.withdrawn);
        assert_eq!(vs.verdict, Verdict::NoDifference);
        assert!(
            vs.explanation()
                .starts_with("Student's t at 95%, 9 df; the variances differ: Welch's t gives ±"),
            "{}",
            vs.explanation()
        );
        assert!(vs.explanation().ends_with("which holds zero"));
        // The chart prints the interval the verdict rests on: Welch's,
        // which holds zero, never Student's beside "no difference".
        let label = vs.chart_text();
        let welch_text = format!(
            "± {:.1}% (Welch's t) no difference at 95%",
            welch.percent_half_width
        );
        assert!(label.ends_with(&welch_text), "{label}");
        assert!(welch.percent_half_width > vs.percent.abs(), "{label}");

        // Alike spreads: no caution.
        let vs = VsBaseline::compare(
            &[10.0, 11.0, 12.0],
            &[20.0, 21.5, 22.0],
            Confidence::P95,
            true,
        )
        .unwrap();
        assert_eq!(vs.interval.unwrap().method, Method::Student);
        assert!(!vs.variances_differ && !vs.withdrawn);
    }

    /// Eight noisy baseline runs against three quiet ones: Welch's
    /// interval leaves zero out, Student's (ministat's) holds it, and
    /// `ministat -c 95` prints "No difference proven at 95.0% confidence".
    /// Welch's never makes a verdict.
    #[test]
    fn welch_never_proves_what_student_does_not() {
        let base = [95.0, 105.0, 92.0, 108.0, 97.0, 103.0, 90.0, 110.0];
        let other = [106.9, 107.0, 107.1];
        let vs = VsBaseline::compare(&base, &other, Confidence::P95, true).unwrap();
        let (student, welch) = (vs.student.clone().unwrap(), vs.welch.clone().unwrap());
        assert!(vs.variances_differ);
        assert!(welch.half_width < vs.difference && vs.difference < student.half_width);
        assert_eq!(vs.verdict, Verdict::NoDifference);
        assert!(!vs.withdrawn);
        assert_eq!(vs.interval.unwrap().method, Method::Student);
    }

    #[test]
    fn identical_repeats_are_a_difference_of_exactly_their_gap() {
        let vs = VsBaseline::compare(&[5.0; 3], &[6.0; 3], Confidence::P99, true).unwrap();
        assert_eq!(vs.verdict, Verdict::Better);
        assert_eq!(vs.interval.unwrap().half_width, 0.0);
        let vs = VsBaseline::compare(&[5.0; 3], &[5.0; 3], Confidence::P99, true).unwrap();
        assert_eq!(vs.verdict, Verdict::NoDifference);
        assert!(VsBaseline::compare(&[0.0; 3], &[1.0; 3], Confidence::P95, true).is_none());
    }

    /// Values whose sums overflow f64 (a post's `1.5e308`) gave an
    /// infinite mean, shown as `inf` or `null`, and "no difference".
    #[test]
    fn values_near_the_end_of_the_range_keep_finite_means_and_verdicts() {
        let huge = 1.0e308;
        let values = [huge, 1.5 * huge, 1.2 * huge];
        let mean = mean(&values);
        assert!(
            mean.is_finite() && close(mean / huge, 3.7 / 3.0, 1e-12),
            "{mean}"
        );
        // The same comparison as a_proven_difference_follows_the_direction,
        // in units of 1e300: the same verdict and the same percentages.
        let unit = 1.0e300;
        let base: Vec<f64> = [10.0, 12.0, 11.0, 13.0].iter().map(|v| v * unit).collect();
        let other: Vec<f64> = [20.0, 25.0, 30.0].iter().map(|v| v * unit).collect();
        let vs = VsBaseline::compare(&base, &other, Confidence::P95, true).unwrap();
        assert_eq!(vs.verdict, Verdict::Better, "{vs:?}");
        assert!(close(vs.difference / unit, 13.5, 1e-9), "{vs:?}");
        assert!(prints_as(vs.percent, 117.391), "{vs:?}");
        let student = vs.student.unwrap();
        assert!(prints_as(student.half_width / unit, 6.51264), "{student:?}");
        assert!(prints_as(student.s / unit, 3.31662), "{student:?}");
        assert!(
            prints_as(student.percent_half_width, 56.6316),
            "{student:?}"
        );
        // Small values the same way.
        let tiny: Vec<f64> = [10.0, 12.0, 11.0, 13.0]
            .iter()
            .map(|v| v * 1e-300)
            .collect();
        let vs = VsBaseline::compare(&tiny, &tiny, Confidence::P95, true).unwrap();
        assert_eq!(vs.verdict, Verdict::NoDifference, "{vs:?}");
    }
}
