//! The markers of points: shapes, and how each [`super::Mark`] fills or
//! crosses them.

use super::*;

/// The outline of a marker of `shape` centred at `at`, as a closed path.
pub(super) fn outline(shape: Shape, at: (i32, i32)) -> Vec<(i32, i32)> {
    let around = |corners: usize, radius: f64, start: f64| -> Vec<(i32, i32)> {
        (0..=corners)
            .map(|corner| {
                let angle = (start + 360.0 * corner as f64 / corners as f64).to_radians();
                (
                    (f64::from(at.0) + radius * angle.cos()).round() as i32,
                    (f64::from(at.1) + radius * angle.sin()).round() as i32,
                )
            })
            .collect()
    };
    match shape {
        Shape::Circle => around(16, 4.5, 0.0),
        Shape::Triangle => around(3, 5.5, -90.0),
        Shape::Square => around(4, 5.5, 45.0),
        Shape::Diamond => around(4, 5.5, 0.0),
    }
}

/// `colour` mixed with white: the pale fill of too few runs.
pub(super) fn pale(colour: RGBColor) -> RGBColor {
    let mix = |c: u8| ((u16::from(c) + 3 * 255) / 4) as u8;
    RGBColor(mix(colour.0), mix(colour.1), mix(colour.2))
}

/// A marker of `shape` drawn as `mark` says: filled, hollow, pale,
/// crossed, dash-outlined, or filled and ringed for the baseline.
pub(super) fn draw_marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    shape: Shape,
    at: (i32, i32),
    colour: RGBColor,
    mark: Mark,
) -> DrawResult<DB> {
    let path = outline(shape, at);
    let fill = match mark {
        Mark::Plain | Mark::Baseline | Mark::Proven => colour,
        Mark::TooFewRuns => pale(colour),
        Mark::NoDifference | Mark::Mixed | Mark::NotCompared => WHITE,
    };
    root.draw(&Polygon::new(path.clone(), fill.filled()))?;
    match mark {
        Mark::NotCompared => {
            root.draw(&DashedPathElement::new(path, 2, 2, colour.stroke_width(2)))?
        }
        _ => root.draw(&PathElement::new(path, colour.stroke_width(2)))?,
    }
    if mark == Mark::Mixed {
        let (x, y) = at;
        for (from, to) in [
            ((x - 3, y - 3), (x + 3, y + 3)),
            ((x - 3, y + 3), (x + 3, y - 3)),
        ] {
            root.draw(&PathElement::new(vec![from, to], colour.stroke_width(1)))?;
        }
    }
    if mark == Mark::Baseline {
        root.draw(&Circle::new(at, 8, TEXT.stroke_width(2)))?;
    }
    Ok(())
}
