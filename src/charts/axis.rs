//! The value axis: its range and ticks, linear or logarithmic.

use super::*;

/// The value axis: the range its ticks cover, linear or logarithmic.
pub(super) struct ValueAxis {
    pub(super) low: f64,
    pub(super) high: f64,
    pub(super) ticks: Vec<f64>,
    pub(super) log: bool,
    /// Its values are % of the baseline.
    pub(super) percent: bool,
}

impl ValueAxis {
    /// Throughput and times are never negative, so a linear axis starts
    /// at zero then: a chart that starts at 18000 makes a 5% difference
    /// look like a doubling. A log axis spans the decades of the positive
    /// values (a value at or under zero sits on its floor).
    pub(super) fn of(summaries: &[&[Summary]], log: bool, percent: bool) -> Self {
        let all = summaries.iter().flat_map(|points| points.iter());
        let high = all.clone().map(|s| s.max).fold(f64::NEG_INFINITY, f64::max);
        let positive_low = all
            .clone()
            .map(|s| s.min)
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        if log && positive_low.is_finite() {
            let ticks = log_ticks(positive_low, high * 1.04);
            return ValueAxis {
                low: ticks[0],
                high: ticks[ticks.len() - 1],
                ticks,
                log: true,
                percent,
            };
        }
        let low = all.map(|s| s.min).fold(f64::INFINITY, f64::min);
        let low = low.min(0.0);
        let high = if high <= low { low + 1.0 } else { high };
        let ticks = nice_ticks(low, high * 1.04, 6);
        let first = ticks.first().copied().unwrap_or(low).min(low);
        let last = ticks.last().copied().unwrap_or(high).max(high);
        ValueAxis {
            low: first,
            high: last,
            ticks,
            log: false,
            percent,
        }
    }

    /// How far along the axis `value` lies, from 0 to 1.
    pub(super) fn fraction(&self, value: f64) -> f64 {
        if self.log {
            let low = self.low.log10();
            (value.max(self.low).log10() - low) / (self.high.log10() - low)
        } else {
            (value - self.low) / (self.high - self.low)
        }
    }

    /// A tick's label: on one scale for the whole linear axis (`5k`,
    /// `10k`), each on its own across a log axis' decades (`1`, `1k`).
    pub(super) fn tick_label(&self, value: f64) -> String {
        let label = if self.log {
            format_tick(value, value)
        } else {
            format_tick(value, self.low.abs().max(self.high.abs()))
        };
        if self.percent {
            format!("{label}%")
        } else {
            label
        }
    }

    /// Where bars start: zero, or the floor of a log axis.
    pub(super) fn base(&self) -> f64 {
        if self.log {
            self.low
        } else {
            self.low.max(0.0)
        }
    }

    /// The axis' title, saying when it is logarithmic.
    pub(super) fn title(&self, title: &str) -> String {
        if self.log {
            format!("{title}, log scale")
        } else {
            title.to_owned()
        }
    }
}
