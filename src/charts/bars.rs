//! Grouped horizontal bars: a group per category, a bar per series, its
//! value and verdict printed after it.

use super::*;

/// One group of bars, named on the category axis: a category's bar per
/// series, or in a panel of small multiples a series' one bar.
pub(super) struct BarGroup<'a> {
    pub(super) name: &'a str,
    /// `(slot in the group, series index, point)`: the slot places the
    /// bar, the series index gives its style.
    pub(super) bars: Vec<(usize, usize, &'a Summary)>,
}

/// The groups of a chart of grouped bars: a category each, a slot per
/// series, so that a series sits at the same place in every group.
pub(super) fn category_groups<'a>(
    categories: &'a [String],
    summaries: &[&'a [Summary]],
) -> Vec<BarGroup<'a>> {
    categories
        .iter()
        .enumerate()
        .map(|(category, name)| BarGroup {
            name,
            bars: summaries
                .iter()
                .enumerate()
                .filter_map(|(index, points)| {
                    let s = points.iter().find(|s| s.x == category as f64)?;
                    Some((index, index, s))
                })
                .collect(),
        })
        .collect()
}

/// Draws bars in `frame`, their value axis titled under them unless
/// `axis_title` is false (panels, whose grid says it once). Returns how
/// many verdicts found no room at their bars' ends.
pub(super) fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    groups: &[BarGroup],
    slots: usize,
    frame: Rect,
    axis_title: bool,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let drawn: Vec<Summary> = groups
        .iter()
        .flat_map(|g| g.bars.iter().map(|(_, _, s)| (*s).clone()))
        .collect();
    let axis = ValueAxis::for_bars(&[&drawn], chart.log_scale, chart.percent_of_baseline);
    // A panel's names may take more of its width: its bars are one each.
    let label_room = if slots == 1 && groups.len() > 1 {
        (frame.width() * 2 / 5).max(80)
    } else {
        (frame.width() / 3).max(80)
    };
    let category_width = groups
        .iter()
        .map(|g| text_width(g.name, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        .min(label_room);
    let plot = Rect {
        left: frame.left + 10 + category_width + 10,
        top: frame.top + 8,
        right: frame.right - 16,
        bottom: frame.bottom - if axis_title { 52 } else { 30 },
    };
    // Room after the longest bar for its value and verdict: up to two
    // thirds of a small chart, or the verdict of its longest bar is lost.
    let widest_label = drawn
        .iter()
        .map(|s| text_width(&bar_label(s, chart.percent_of_baseline), NOTE_SIZE))
        .max()
        .unwrap_or(0);
    let values_right =
        plot.right - (widest_label + 8).clamp(plot.width() / 10, plot.width() * 2 / 3);
    let scale = BarScale {
        axis: &axis,
        plot,
        values_width: f64::from((values_right - plot.left).max(1)),
    };
    draw_value_ticks(root, labels, &scale)?;
    if axis_title {
        text(
            labels,
            &fit(&axis.title(&chart.y_title), AXIS_TITLE_SIZE, plot.width()),
            ((plot.left + plot.right) / 2, frame.bottom - 8),
            AXIS_TITLE_SIZE,
            &TEXT,
            (HPos::Center, VPos::Bottom),
        );
    }
    let band = plot.height() as f64 / groups.len().max(1) as f64;
    let bar = (band * 0.8 / slots.max(1) as f64).max(1.0);
    let mut not_shown = 0;
    for (category, group) in groups.iter().enumerate() {
        let band_top = plot.top as f64 + band * category as f64;
        text(
            labels,
            &fit(group.name, LABEL_SIZE, category_width),
            (plot.left - 8, (band_top + band / 2.0).round() as i32),
            LABEL_SIZE,
            &TEXT,
            (HPos::Right, VPos::Center),
        );
        if category > 0 {
            let y = band_top.round() as i32;
            root.draw(&PathElement::new(
                vec![(plot.left - 4, y), (plot.left, y)],
                AXIS.stroke_width(1),
            ))?;
        }
        for &(slot, index, s) in &group.bars {
            let top = (band_top + band * 0.1 + bar * slot as f64).round() as i32;
            let bottom = (band_top + band * 0.1 + bar * (slot + 1) as f64).round() as i32 - 1;
            let bottom = bottom.max(top + 1);
            let shown = draw_one_bar(root, labels, chart, &scale, (index, s), (top, bottom))?;
            not_shown += usize::from(!shown && s.verdict.is_some());
        }
    }
    draw_axes(root, plot)?;
    Ok(not_shown)
}

/// Where values fall along the bars.
struct BarScale<'a> {
    axis: &'a ValueAxis,
    plot: Rect,
    /// The width the values span, short of the room kept for labels.
    values_width: f64,
}

impl BarScale<'_> {
    /// The pixel column of value `v`.
    fn px(&self, v: f64) -> i32 {
        self.plot.left + (self.axis.fraction(v) * self.values_width).round() as i32
    }
}

/// Every tick gets its grid line; its label only where it touches no
/// other (a narrow panel's axis).
fn draw_value_ticks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    scale: &BarScale,
) -> DrawResult<DB> {
    let plot = scale.plot;
    let mut last_right = i32::MIN;
    for value in &scale.axis.ticks {
        let x = scale.px(*value);
        root.draw(&PathElement::new(
            vec![(x, plot.top), (x, plot.bottom)],
            GRID.stroke_width(1),
        ))?;
        let label = scale.axis.tick_label(*value);
        let half = text_width(&label, LABEL_SIZE) / 2;
        if x - half > last_right + 6 {
            text(
                labels,
                &label,
                (x, plot.bottom + 8),
                LABEL_SIZE,
                &TEXT,
                (HPos::Center, VPos::Top),
            );
            last_right = x + half;
        }
    }
    Ok(())
}

/// One bar of series `index` between rows `top` and `bottom`: the bar,
/// its whisker, and its value and verdict at its end when the bar is
/// thick enough to read them; returns whether they were printed.
fn draw_one_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    scale: &BarScale,
    (index, s): (usize, &Summary),
    (top, bottom): (i32, i32),
) -> Result<bool, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = series_style(index);
    let corners = [
        (scale.px(scale.axis.base()), top),
        (scale.px(s.mean), bottom),
    ];
    draw_bar(root, corners, style, s.mark)?;
    let middle = (top + bottom) / 2;
    if s.max > s.min {
        root.draw(&PathElement::new(
            vec![(scale.px(s.min), middle), (scale.px(s.max), middle)],
            TEXT.stroke_width(1),
        ))?;
        for end in [s.min, s.max] {
            let half = ((bottom - top) / 3).clamp(1, 4);
            root.draw(&PathElement::new(
                vec![
                    (scale.px(end), middle - half),
                    (scale.px(end), middle + half),
                ],
                TEXT.stroke_width(1),
            ))?;
        }
    }
    if bottom - top + 1 >= 11 {
        let label = bar_label(s, chart.percent_of_baseline);
        let x = scale.px(s.max.max(s.mean)) + 5;
        if x + text_width(&label, NOTE_SIZE) <= scale.plot.right + 12 {
            text(
                labels,
                &label,
                (x, middle),
                NOTE_SIZE,
                &TEXT,
                (HPos::Left, VPos::Center),
            );
            return Ok(true);
        }
    }
    Ok(false)
}

/// What a bar says at its end: its mean (a % of the baseline's with
/// `percent`), count and verdict, or that it is the baseline.
pub(super) fn bar_label(s: &Summary, percent: bool) -> String {
    // A tenth of a percent is as close as the verdict beside it reads.
    let mut label = if percent {
        format!("{}%", format_number((s.mean * 10.0).round() / 10.0))
    } else {
        format_value(s.mean)
    };
    if s.count > 1 {
        label.push_str(&format!("  n={}", s.count));
    }
    if let Some(verdict) = &s.verdict {
        label.push_str(&format!("  {verdict}"));
    } else if s.mark == Mark::Baseline {
        label.push_str("  baseline");
    }
    label
}

/// A bar (or the legend's swatch of one) drawn as `mark` says; a series
/// of the second dozen carries its marker's shape at the bar's root.
pub(super) fn draw_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    corners: [(i32, i32); 2],
    style: SeriesStyle,
    mark: Mark,
) -> DrawResult<DB> {
    let colour = style.colour;
    let [(x0, y0), (x1, y1)] = corners;
    let (left, right, top, bottom) = (x0.min(x1), x0.max(x1), y0.min(y1), y0.max(y1));
    let path = vec![
        (left, top),
        (right, top),
        (right, bottom),
        (left, bottom),
        (left, top),
    ];
    let filled = matches!(mark, Mark::Plain | Mark::Baseline | Mark::Proven);
    match mark {
        Mark::Plain | Mark::Baseline | Mark::Proven => {
            root.draw(&Rectangle::new(corners, colour.filled()))?
        }
        Mark::TooFewRuns => {
            root.draw(&Rectangle::new(corners, pale(colour).filled()))?;
            root.draw(&PathElement::new(path, colour.stroke_width(2)))?
        }
        Mark::NoDifference | Mark::Mixed => {
            root.draw(&Rectangle::new(corners, WHITE.filled()))?;
            root.draw(&PathElement::new(path, colour.stroke_width(2)))?
        }
        Mark::NotCompared => {
            root.draw(&Rectangle::new(corners, WHITE.filled()))?;
            root.draw(&DashedPathElement::new(path, 4, 3, colour.stroke_width(2)))?
        }
    }
    if mark == Mark::Mixed {
        // Hatched: a slanted line every 8 pixels.
        let height = bottom - top;
        let mut x = left + 4;
        while x + height <= right - 2 {
            root.draw(&PathElement::new(
                vec![(x, bottom - 1), (x + height, top + 1)],
                colour.stroke_width(1),
            ))?;
            x += 8;
        }
    }
    if mark == Mark::Baseline {
        // A dark edge on the bar's end, as the ring on a line's point.
        root.draw(&PathElement::new(
            vec![(right, top), (right, bottom)],
            TEXT.stroke_width(3),
        ))?;
    }
    if style.second_round && bottom - top >= 9 && right - left >= 14 {
        let inside = if filled { WHITE } else { colour };
        let at = (left + 8, (top + bottom) / 2);
        root.draw(&Polygon::new(outline(style.shape, at), inside.filled()))?;
    }
    Ok(())
}
