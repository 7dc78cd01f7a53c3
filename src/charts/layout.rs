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

    pub fn overlaps(&self, other: &Rect) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
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

/// Ticks of a logarithmic axis covering `low..=high` (both positive):
/// the powers of ten around them, and 2 and 5 times each where the range
/// spans at most two decades.
pub fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    if !(low > 0.0 && high.is_finite()) {
        return vec![1.0];
    }
    let first = low.log10().floor() as i32;
    let last = (high.log10().ceil() as i32).max(first + 1);
    let steps: &[f64] = if last - first <= 2 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    (first..=last)
        .flat_map(|power| steps.iter().map(move |m| m * 10f64.powi(power)))
        .filter(|&tick| tick <= 10f64.powi(last))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_are_decades_with_steps_when_few() {
        assert_eq!(
            log_ticks(554.0, 130055.0),
            [100.0, 1000.0, 10000.0, 100000.0, 1000000.0]
        );
        assert_eq!(
            log_ticks(3.0, 40.0),
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        );
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

    #[test]
    fn overlap() {
        let a = Rect::around((10, 10), 5);
        assert!(a.overlaps(&Rect::around((14, 14), 2)));
        assert!(!a.overlaps(&Rect::around((30, 10), 5)));
    }
}
