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
    /// A line chart's axis. Throughput and times are never negative, so
    /// a linear axis of values starts at zero: a chart that starts at
    /// 18000 makes a 5% difference look like a doubling. The views asked
    /// for to see differences fit the data instead (with a margin of 5%
    /// of its span): `y=relative` (95%-112%, its ticks every few %, the
    /// axis saying it is % of the baseline) and `scale=log` (its axis
    /// saying so); a line is read by its position, and the tick labels
    /// say where the axis starts.
    pub(super) fn for_lines(summaries: &[&[Summary]], log: bool, percent: bool) -> Self {
        Self::of(summaries, log, percent, log || percent)
    }

    /// A bar chart's axis. A bar is read by its length, so a bar of a
    /// linear axis starts at zero, `y=relative` too (a bar of 103% is
    /// 1.03 times the baseline's; the verdict at its end says the
    /// difference); a log axis' bars start at the power of ten under the
    /// smallest value, never just under it, where a few % would look
    /// like several times over.
    pub(super) fn for_bars(summaries: &[&[Summary]], log: bool, percent: bool) -> Self {
        Self::of(summaries, log, percent, false)
    }

    /// The axis over every whisker of `summaries`; `fit`: its low end
    /// fitted to the data rather than at zero (linear) or a power of ten
    /// (log). A log axis spans the positive values (a value at or under
    /// zero sits on its floor).
    fn of(summaries: &[&[Summary]], log: bool, percent: bool, fit: bool) -> Self {
        let all = summaries.iter().flat_map(|points| points.iter());
        let high = all.clone().map(|s| s.max).fold(f64::NEG_INFINITY, f64::max);
        let positive_low = all
            .clone()
            .map(|s| s.min)
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        if log && positive_low.is_finite() {
            // The margin: 5% of the span in decades, at least 1%.
            let pad = ((high / positive_low).log10() * 0.05).max(1.01f64.log10());
            let low = if fit {
                positive_low / 10f64.powf(pad)
            } else {
                10f64.powf(positive_low.log10().floor())
            };
            let ticks = log_ticks(low, high * 10f64.powf(pad));
            return ValueAxis {
                low: ticks[0],
                high: ticks[ticks.len() - 1],
                ticks,
                log: true,
                percent,
            };
        }
        let data_low = all.map(|s| s.min).fold(f64::INFINITY, f64::min);
        let (low, high) = if fit {
            let span = high - data_low;
            let pad = if span > 0.0 {
                span * 0.05
            } else {
                (high.abs() * 0.05).max(1.0)
            };
            // Never below zero for values that are not.
            let low = if data_low >= 0.0 {
                (data_low - pad).max(0.0)
            } else {
                data_low - pad
            };
            (low, high + pad)
        } else {
            let low = data_low.min(0.0);
            let high = if high <= low { low + 1.0 } else { high };
            (low, high * 1.04)
        };
        let ticks = nice_ticks(low, high, 6);
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
    /// `10k`) and a log axis under a decade (`75k`, `100k`), each on its
    /// own across a log axis' decades (`1`, `1k`).
    pub(super) fn tick_label(&self, value: f64) -> String {
        let label = if self.log && self.high / self.low >= 10.0 {
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
