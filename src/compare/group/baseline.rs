//! The baseline series a query names, and each other point's difference
//! to the baseline's point at the same place.

use std::collections::HashMap;

use parsers::MetricInfo;

use crate::compare::stats::Side;
use crate::compare::{Confidence, Point, Series, VsBaseline};
use crate::moments::Moments;

/// The series the query names as baseline: its exact name, else the same
/// name in other case, else the same values in another order (a link
/// whose `by` lists the same keys in another order names its series so);
/// a notice when there is none.
pub(super) fn find_baseline(
    series: &[Series],
    wanted: &str,
    notices: &mut Vec<String>,
) -> Option<usize> {
    let parts = |name: &str| -> Vec<String> {
        let mut parts: Vec<String> = name.split(" / ").map(str::to_lowercase).collect();
        parts.sort_unstable();
        parts
    };
    let found = series
        .iter()
        .position(|s| s.name == *wanted)
        .or_else(|| {
            series
                .iter()
                .position(|s| s.name.eq_ignore_ascii_case(wanted))
        })
        .or_else(|| {
            let wanted = parts(wanted);
            series.iter().position(|s| parts(&s.name) == wanted)
        });
    if found.is_none() {
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        notices.push(format!(
            "The baseline {wanted:?} is not one of this comparison's series ({}); no differences are shown.",
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        ));
    }
    found
}

/// Marks series `base` as the baseline and gives every other point the
/// difference to the baseline's point at the same x, with its interval
/// and verdict at `confidence`.
pub(super) fn compare_with_baseline(
    series: &mut [Series],
    base: usize,
    metric: &MetricInfo,
    confidence: Confidence,
) {
    series[base].is_baseline = true;
    // A point's values, or their moments where it was read from sums.
    type Values = (Vec<f64>, Option<Moments>);
    fn side(values: &Values) -> Side<'_> {
        match values {
            (_, Some(moments)) => Side::Moments(*moments),
            (values, None) => Side::Values(values),
        }
    }
    let values_of = |p: &Point| -> Values {
        match p.moments {
            Some(moments) => (Vec::new(), Some(moments)),
            None => (p.values(), None),
        }
    };
    // A point's place: threads, value along x, item.
    type At = (Option<u32>, Option<String>, String);
    let reference: HashMap<At, (Values, bool)> = series[base]
        .points
        .iter()
        .map(|p| {
            (
                (p.threads, p.x.clone(), p.item.clone()),
                (values_of(p), !p.mixed.is_empty()),
            )
        })
        .collect();
    for (index, s) in series.iter_mut().enumerate() {
        if index == base {
            continue;
        }
        for p in &mut s.points {
            let Some((base_values, base_mixed)) =
                reference.get(&(p.threads, p.x.clone(), p.item.clone()))
            else {
                continue;
            };
            let values = values_of(p);
            if *base_mixed || !p.mixed.is_empty() {
                p.vs_baseline =
                    VsBaseline::mixed_sides(side(base_values), side(&values), confidence)
                        .map(VsBaseline::tidy);
                continue;
            }
            p.vs_baseline = VsBaseline::compare_sides(
                side(base_values),
                side(&values),
                confidence,
                metric.higher_is_better,
            )
            .map(VsBaseline::tidy);
        }
    }
}
