//! Pixel geometry and axis ticks.

/// A rectangle in pixels; `right` and `bottom` are exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Rect {
    pub fn around((x, y): (i32, i32), radius: i32) -> Self {
        Rect {
            left: x - radius,
            top: y - radius,
            right: x + radius,
            bottom: y + radius,
        }
    }

    pub fn width(&self) -> i32 {
        (self.right - self.left).max(1)
    }

    pub fn height(&self) -> i32 {
        (self.bottom - self.top).max(1)
    }
}

/// About `wanted` + 1 round tick values covering `low..=high`: steps of 1, 2,
/// 2.5 or 5 times a power of ten, the first at or below `low` and the last
/// at or above `high`.
pub fn nice_ticks(low: f64, high: f64, wanted: usize) -> Vec<f64> {
    if !(low.is_finite() && high.is_finite()) || high <= low {
        return vec![low];
    }
    let raw = (high - low) / wanted.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    // The round step whose tick count comes closest to the wish (the
    // smaller step on a tie).
    let intervals = |step: f64| (high / step).ceil() - (low / step).floor();
    let step = [1.0, 2.0, 2.5, 5.0, 10.0, 20.0]
        .into_iter()
        .map(|m| m * power)
        .min_by(|a, b| {
            let distance = |s: f64| (intervals(s) - wanted as f64).abs();
            distance(*a).total_cmp(&distance(*b))
        })
        .unwrap_or(power);
    let first = (low / step).floor();
    let last = (high / step).ceil();
    (0..=((last - first) as usize).min(100))
        .map(|i| {
            let value = (first + i as f64) * step;
            // 0.6000000000000001 -> 0.6
            let scale = 10f64.powi((-step.log10().floor()).max(0.0) as i32 + 1);
            (value * scale).round() / scale
        })
        .collect()
}

/// Ticks of a logarithmic axis covering `low..=high` (both positive);
/// the axis runs from the first tick to the last, so it fits the data
/// rather than whole decades (values from 90k to 200k span 75k-225k, not
/// 10k-1M, and a 5% difference stays visible):
/// - under a decade, round linear steps ([`nice_ticks`]: 75k, 100k,
///   125k ...), which read as they are on so short a log axis;
/// - up to two decades, 1, 2 and 5 times each power of ten;
/// - past that, the powers of ten, the ends at 1, 2 or 5 times one.
pub fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    if !(low > 0.0 && high.is_finite()) {
        return vec![1.0];
    }
    let high = high.max(low);
    if high / low < 10.0 {
        let mut ticks = nice_ticks(low, high, 6);
        if ticks.len() >= 2 && ticks[0] > 0.0 {
            return ticks;
        }
        // A first step at or under zero has no place on a log axis.
        ticks.retain(|t| *t > 0.0);
        let floor = one_two_five(low, false);
        if ticks.first().is_some_and(|&t| t > floor) {
            ticks.insert(0, floor);
        }
        if ticks.len() >= 2 {
            return ticks;
        }
    }
    let first = one_two_five(low, false);
    let mut last = one_two_five(high, true);
    if last <= first * (1.0 + 1e-9) {
        last = one_two_five(first * 1.001, true);
    }
    let steps: &[f64] = if last / first <= 100.0 * (1.0 + 1e-9) {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let (from, to) = (first.log10().floor() as i32, last.log10().ceil() as i32);
    let mut ticks = vec![first];
    ticks.extend(
        (from..=to)
            .flat_map(|power| steps.iter().map(move |m| m * 10f64.powi(power)))
            .filter(|&tick| tick > first * (1.0 + 1e-9) && tick < last * (1.0 - 1e-9)),
    );
    ticks.push(last);
    ticks
}

/// The nearest of 1, 2 or 5 times a power of ten at or under `value`
/// (at or over it with `up`).
pub fn one_two_five(value: f64, up: bool) -> f64 {
    let power = 10f64.powf(value.log10().floor());
    let candidates = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0].map(|m| m * power);
    // The float power of ten may sit a hair off the value itself.
    let close = |c: f64| (c - value).abs() <= value * 1e-9;
    if up {
        candidates
            .into_iter()
            .find(|&c| c >= value || close(c))
            .unwrap_or(value)
    } else {
        candidates
            .into_iter()
            .rev()
            .find(|&c| c <= value || close(c))
            .unwrap_or(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_fit_the_data() {
        // Three decades: the powers of ten, the ends at 1-2-5 values.
        assert_eq!(
            log_ticks(554.0, 130055.0),
            [500.0, 1000.0, 10000.0, 100000.0, 200000.0]
        );
        // Up to two decades: 1, 2 and 5 times each.
        assert_eq!(log_ticks(3.0, 40.0), [2.0, 5.0, 10.0, 20.0, 50.0]);
        // Under a decade: round linear steps, well inside 50k-300k.
        assert_eq!(
            log_ticks(86_900.0, 207_000.0),
            [75e3, 100e3, 125e3, 150e3, 175e3, 200e3, 225e3]
        );
        // Linear steps from zero fall back to a 1-2-5 floor.
        let ticks = log_ticks(1.1, 9.5);
        assert!(ticks[0] > 0.0 && ticks[0] <= 1.1, "{ticks:?}");
        assert!(*ticks.last().unwrap() >= 9.5, "{ticks:?}");
        assert_eq!(one_two_five(10_000.0, false), 10_000.0);
        assert_eq!(one_two_five(10_000.0, true), 10_000.0);
        assert_eq!(one_two_five(130_055.0, true), 200_000.0);
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let cases: [(f64, f64, &[f64]); 3] = [
            (
                0.0,
                31057.52,
                &[
                    0.0, 5000.0, 10000.0, 15000.0, 20000.0, 25000.0, 30000.0, 35000.0,
                ],
            ),
            (0.0, 1.0, &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
            (0.0, 26.0, &[0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0]),
        ];
        for (index, (low, high, want)) in cases.into_iter().enumerate() {
            assert_eq!(nice_ticks(low, high, 6), want, "case {index}");
        }
    }
}
