//! The running statistics of a set of values (count, mean, the sum of
//! squared deviations from the mean, min and max) that two sets merge
//! into exactly those of their union: what `store::sums` keeps per
//! comparison point and configuration, and what a comparison adds up
//! across configurations.

/// Count, mean, sum of squared deviations from the mean (`m2`), min and
/// max of some values. Adding a value is Welford's update and merging
/// two is Chan, Golub and LeVeque's: both keep `m2` exactly 0 for equal
/// values, which sums of squares (`Σx² − (Σx)²/n`) do not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    pub n: usize,
    pub mean: f64,
    pub m2: f64,
    pub min: f64,
    pub max: f64,
}

impl Default for Moments {
    fn default() -> Self {
        Moments {
            n: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Moments {
    /// The moments of `values`.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut moments = Moments::default();
        for value in values {
            moments.push(value);
        }
        moments
    }

    /// Adds one value.
    pub fn push(&mut self, value: f64) {
        self.n += 1;
        let delta = value - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (value - self.mean);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Moments) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let (a, b) = (self.n as f64, other.n as f64);
        let n = a + b;
        let delta = other.mean - self.mean;
        self.mean += delta * (b / n);
        self.m2 += other.m2 + delta * delta * (a * b / n);
        self.n += other.n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The sample variance (with n − 1); zero for fewer than two values.
    pub fn variance(&self) -> f64 {
        if self.n > 1 {
            (self.m2 / (self.n - 1) as f64).max(0.0)
        } else {
            0.0
        }
    }

    /// Whether every figure is a finite number (values near the ends of
    /// `f64`'s range overflow the squares).
    pub fn is_finite(&self) -> bool {
        self.n == 0
            || [self.mean, self.m2, self.min, self.max]
                .iter()
                .all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_pass(values: &[f64]) -> (f64, f64) {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let m2 = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>();
        (mean, m2)
    }

    #[test]
    fn merged_halves_are_the_whole() {
        let values = [
            26772.83, 25601.49, 22061.88, 18624.6, 27000.0, 1e-3, 123456.0,
        ];
        for split in 0..=values.len() {
            let mut left = Moments::of(values[..split].iter().copied());
            left.merge(&Moments::of(values[split..].iter().copied()));
            let (mean, m2) = two_pass(&values);
            assert!((left.mean - mean).abs() < 1e-9 * mean.abs(), "{split}");
            assert!((left.m2 - m2).abs() < 1e-9 * m2, "{split}");
            assert_eq!(left.n, values.len());
            assert_eq!(left.min, 1e-3);
            assert_eq!(left.max, 123456.0);
        }
    }

    #[test]
    fn equal_values_have_no_spread_however_merged() {
        let mut whole = Moments::of([29261.64; 5]);
        assert_eq!(whole.m2, 0.0);
        whole.merge(&Moments::of([29261.64; 3]));
        assert_eq!((whole.n, whole.mean, whole.m2), (8, 29261.64, 0.0));
        assert_eq!(whole.variance(), 0.0);
    }

    #[test]
    fn an_empty_side_changes_nothing() {
        let mut some = Moments::of([1.0, 2.0]);
        let before = some;
        some.merge(&Moments::default());
        assert_eq!(some, before);
        let mut none = Moments::default();
        none.merge(&before);
        assert_eq!(none, before);
        assert!(Moments::default().is_finite());
        assert!(!Moments::of([f64::MAX, -f64::MAX]).is_finite());
    }
}
