//! Small multiples: past what one chart holds, a grid of panels sharing
//! one legend. Bars get a panel per category (item), each on its own
//! value axis, so sql-bench's 1 s tests and its TOTALS in thousands of
//! seconds are all readable; lines get panels of the baseline and a few
//! other series each, on the same axes so that panels compare. A series
//! keeps its colour and shape in every panel.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::layout::Rect;
use super::{
    bar_label, draw_bars, draw_lines, fit, keyed_marks, legend_width, text, text_width, BarGroup,
    Chart, Labels, Summary, ValueAxis, LABEL_SIZE, MUTED, NOTE_SIZE, TEXT,
};

use crate::limits::{MAX_BARS, MAX_SERIES};
/// Bars whose categories' largest values differ this many times over
/// share no linear axis readably: a panel (and axis) per category.
const SPREAD: f64 = 20.0;
/// Series beside the baseline in a panel of lines.
const SERIES_PER_PANEL: usize = 6;
/// The narrowest panel: room for names, bars and their values.
const PANEL_MIN_WIDTH: i32 = 300;
/// The width of a grid of panels.
const GRID_WIDTH: u32 = 1200;
use crate::limits::MAX_HEIGHT;
/// Above the grid: the chart's title.
const GRID_TOP: i32 = 40;
/// Each panel's title.
const PANEL_TITLE: i32 = 22;
/// Each bar of a panel, in pixels: thick enough for its value label.
const BAR_ROW: i32 = 14;
/// Above panels of bars: the one line naming their value axes.
const BARS_HEADER: i32 = 22;
use crate::limits::MAX_GRID_WIDTH;
/// A panel of lines.
const LINE_PANEL_HEIGHT: i32 = 300;

/// What one panel draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// One category's bars, a bar per series that has a point there.
    Category(usize),
    /// These series' lines (indexes into the chart's series).
    Series(Vec<usize>),
}

/// A panel, placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: String,
    pub content: Content,
    pub at: Rect,
}

/// The panels drawn and how many did not fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub panels: Vec<Panel>,
    pub left_out: usize,
    /// The height the grid needs (at most [`MAX_HEIGHT`]).
    pub height: u32,
}

impl Grid {
    /// The note's sentence on panels left out, if any were.
    pub fn left_out_note(&self) -> Option<String> {
        if self.left_out == 0 {
            return None;
        }
        let total = self.panels.len() + self.left_out;
        Some(format!(
            "{} of {total} panels drawn: the image stops at {MAX_HEIGHT} px; narrow the query (item=, where=) to see the other {}.",
            self.panels.len(),
            self.left_out
        ))
    }
}

/// The panels the chart is cut into, with the height each needs; `None`
/// when one chart holds it.
fn contents(chart: &Chart) -> Option<Vec<(String, Content, i32)>> {
    let points = |index: usize| chart.series[index].points.as_slice();
    match &chart.categories {
        Some(categories) => {
            let bars: usize = chart.series.iter().map(|s| s.points.len()).sum();
            let crowded = bars > MAX_BARS || chart.series.len() > MAX_SERIES;
            // A log axis (scale=log) already keeps far-apart items readable.
            let far_apart = categories.len() > 1 && !chart.log_scale && spread(chart) >= SPREAD;
            if !crowded && !far_apart {
                return None;
            }
            let panels = categories
                .iter()
                .enumerate()
                .map(|(category, name)| {
                    let rows = (0..chart.series.len())
                        .filter(|&i| points(i).iter().any(|s| s.x == category as f64))
                        .count() as i32;
                    let height = PANEL_TITLE + 8 + rows.max(1) * BAR_ROW + 30 + 12;
                    (name.clone(), Content::Category(category), height)
                })
                .collect();
            Some(panels)
        }
        None => {
            if chart.series.len() <= MAX_SERIES {
                return None;
            }
            let baseline: Vec<usize> = (0..chart.series.len())
                .filter(|&i| chart.series[i].is_baseline())
                .collect();
            let others: Vec<usize> = (0..chart.series.len())
                .filter(|i| !baseline.contains(i))
                .collect();
            let total = others.len();
            let panels = others
                .chunks(SERIES_PER_PANEL)
                .enumerate()
                .map(|(number, chunk)| {
                    let first = number * SERIES_PER_PANEL + 1;
                    let last = first + chunk.len() - 1;
                    let mut title = format!("Series {first}–{last} of {total}");
                    if !baseline.is_empty() {
                        title.push_str(", with the baseline");
                    }
                    let mut series = chunk.to_vec();
                    series.extend(&baseline);
                    (title, Content::Series(series), LINE_PANEL_HEIGHT)
                })
                .collect();
            Some(panels)
        }
    }
}

/// How many times over the categories' largest values differ.
fn spread(chart: &Chart) -> f64 {
    let Some(categories) = &chart.categories else {
        return 1.0;
    };
    let tops: Vec<f64> = (0..categories.len())
        .filter_map(|category| {
            chart
                .series
                .iter()
                .flat_map(|s| &s.points)
                .filter(|s| s.x == category as f64)
                .map(|s| s.max.max(s.mean))
                .filter(|v| *v > 0.0)
                .reduce(f64::max)
        })
        .collect();
    let high = tops.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let low = tops.iter().copied().fold(f64::INFINITY, f64::min);
    if tops.len() < 2 {
        1.0
    } else {
        high / low
    }
}

/// The narrowest a panel may be: for bars, room for the longest series
/// name (up to a third of the grid), bars, and the widest value and
/// verdict at a bar's end.
fn panel_min_width(chart: &Chart) -> i32 {
    if chart.categories.is_none() {
        return PANEL_MIN_WIDTH;
    }
    let name = chart
        .series
        .iter()
        .map(|s| text_width(&s.name, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        .min(GRID_WIDTH as i32 / 4);
    let label = chart
        .series
        .iter()
        .flat_map(|s| &s.points)
        .map(|s| text_width(&bar_label(s, chart.percent_of_baseline), NOTE_SIZE))
        .max()
        .unwrap_or(0);
    (name + label + 180).max(PANEL_MIN_WIDTH)
}

/// The width of a panelled chart; `None` when one chart holds it. A
/// chart asked smaller than the default (a page's small chart) keeps its
/// width, its panels in fewer columns.
///
/// Otherwise the grid is [`GRID_WIDTH`] wide, or wider (in steps, up to
/// [`MAX_GRID_WIDTH`]) where more columns let every panel fit under
/// [`MAX_HEIGHT`].
pub fn width(chart: &Chart) -> Option<u32> {
    contents(chart)?;
    if chart.width < super::WIDTH {
        return Some(chart.width);
    }
    let fits = |width: u32| grid(chart, frame(chart, width)).is_some_and(|grid| grid.left_out == 0);
    let mut width = chart.width.max(GRID_WIDTH);
    while width < MAX_GRID_WIDTH && !fits(width) {
        width += 200;
    }
    Some(width.min(MAX_GRID_WIDTH))
}

/// Where the grid goes in a chart `width` wide: left of the legend,
/// under the title, down to the tallest image.
fn frame(chart: &Chart, width: u32) -> Rect {
    let width = width as i32;
    Rect {
        left: 0,
        top: GRID_TOP,
        right: width - legend_width(chart, width),
        bottom: MAX_HEIGHT as i32,
    }
}

/// The height of a panelled chart: its grid's, and at least the
/// legend's and the chart's own; `None` when one chart holds it.
pub fn height(chart: &Chart) -> Option<u32> {
    let grid = grid(chart, frame(chart, width(chart)?))?;
    // The legend: an entry a series (a long name takes two lines), the
    // key and the note.
    let legend = GRID_TOP
        + 40
        + chart.series.len() as i32 * 38
        + keyed_marks(chart).len() as i32 * 22
        + if chart.note.is_some() { 110 } else { 0 };
    let wanted = grid.height.max(legend as u32).max(chart.height);
    Some(wanted.min(MAX_HEIGHT))
}

/// The panels placed in `frame`, row by row, as many columns as fit;
/// `None` when one chart holds it.
pub fn grid(chart: &Chart, frame: Rect) -> Option<Grid> {
    let contents = contents(chart)?;
    let columns = (frame.width() / panel_min_width(chart)).clamp(1, contents.len().max(1) as i32);
    let panel_width = frame.width() / columns;
    let mut panels = Vec::new();
    let mut top = frame.top;
    if chart.categories.is_some() {
        top += BARS_HEADER;
    }
    let mut left_out = 0;
    for row in contents.chunks(columns as usize) {
        let row_height = row.iter().map(|(_, _, h)| *h).max().unwrap_or(0);
        if !panels.is_empty() && top + row_height > MAX_HEIGHT as i32 {
            left_out = contents.len() - panels.len();
            break;
        }
        for (column, (title, content, height)) in row.iter().enumerate() {
            let left = frame.left + column as i32 * panel_width;
            // Its own height, not the row's: bars keep one thickness.
            panels.push(Panel {
                title: title.clone(),
                content: content.clone(),
                at: Rect {
                    left,
                    top,
                    right: left + panel_width,
                    bottom: top + height,
                },
            });
        }
        top += row_height;
    }
    Some(Grid {
        panels,
        left_out,
        height: (top + 10) as u32,
    })
}

/// Draws the grid's panels, each titled, in the colours and shapes of
/// the one legend; returns how many verdicts found no room in them.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    summaries: &[&[Summary]],
    grid: &Grid,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    if chart.categories.is_some() {
        // One line for every panel's value axis rather than one a panel.
        let title = ValueAxis::for_bars(summaries, chart.log_scale, chart.percent_of_baseline)
            .title(&chart.y_title);
        let right = grid.panels.iter().map(|p| p.at.right).max().unwrap_or(0);
        text(
            labels,
            &fit(
                &format!("Each panel on its own axis: {title}"),
                LABEL_SIZE,
                right - 24,
            ),
            (12, GRID_TOP + 2),
            LABEL_SIZE,
            &MUTED,
            (HPos::Left, VPos::Top),
        );
    }
    let mut not_shown = 0;
    for panel in &grid.panels {
        let at = panel.at;
        text(
            labels,
            &fit(&panel.title, LABEL_SIZE + 1.0, at.width() - 16),
            (at.left + 12, at.top + 4),
            LABEL_SIZE + 1.0,
            &TEXT,
            (HPos::Left, VPos::Top),
        );
        let inner = Rect {
            top: at.top + PANEL_TITLE,
            bottom: at.bottom - 12,
            ..at
        };
        match &panel.content {
            Content::Category(category) => {
                // A bar per series there, named by its series.
                let groups: Vec<BarGroup> = summaries
                    .iter()
                    .enumerate()
                    .filter_map(|(index, points)| {
                        let s = points.iter().find(|s| s.x == *category as f64)?;
                        Some(BarGroup {
                            name: &chart.series[index].name,
                            bars: vec![(0, index, s)],
                        })
                    })
                    .collect();
                not_shown += draw_bars(root, labels, chart, &groups, 1, inner, false)?;
            }
            Content::Series(shown) => {
                let empty: &[Summary] = &[];
                let drawn: Vec<&[Summary]> = summaries
                    .iter()
                    .enumerate()
                    .map(|(index, points)| {
                        if shown.contains(&index) {
                            *points
                        } else {
                            empty
                        }
                    })
                    .collect();
                not_shown += draw_lines(root, labels, chart, &drawn, summaries, inner)?;
            }
        }
    }
    Ok(not_shown)
}

#[cfg(test)]
mod tests {
    use super::super::{render_svg, series_style, ChartSeries, Mark};
    use super::*;

    /// A line chart of a baseline and `others` series against 1..64
    /// threads, series `i` at `i + 1` times the baseline.
    fn lines(others: usize) -> Chart {
        let mut chart = Chart::new("t", "threads", "q/s");
        let mut baseline =
            ChartSeries::from_values("base (baseline)", &[(1.0, 10.0), (64.0, 12.0)]);
        for point in &mut baseline.points {
            point.mark = Mark::Baseline;
        }
        chart.series.push(baseline);
        for i in 0..others {
            let factor = (i + 2) as f64;
            let mut series = ChartSeries::from_values(
                format!("series {i}"),
                &[(1.0, 10.0 * factor), (64.0, 12.0 * factor)],
            );
            for point in &mut series.points {
                point.mark = Mark::Proven;
                point.verdict = Some(format!("+{}% better", (factor - 1.0) * 100.0));
            }
            chart.series.push(series);
        }
        chart
    }

    #[test]
    fn past_twelve_lines_each_panel_holds_the_baseline_and_six_more() {
        assert_eq!(contents(&lines(11)), None, "twelve series: one chart");
        let chart = lines(19);
        let panels = contents(&chart).unwrap();
        let titles: Vec<&str> = panels.iter().map(|(t, _, _)| t.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Series 1–6 of 19, with the baseline",
                "Series 7–12 of 19, with the baseline",
                "Series 13–18 of 19, with the baseline",
                "Series 19–19 of 19, with the baseline",
            ]
        );
        assert_eq!(panels[0].1, Content::Series(vec![1, 2, 3, 4, 5, 6, 0]));
        assert_eq!(panels[3].1, Content::Series(vec![19, 0]));

        let svg = render_svg(&chart).unwrap();
        // Every panel spans the same values: the highest series' 240 q/s
        // tops each one's axis, so the tick is labelled once a panel.
        let texts: Vec<&str> = svg.lines().collect();
        assert_eq!(texts.iter().filter(|l| **l == "250").count(), 4, "{svg}");
        // The baseline's ringed points in each panel, and in the legend.
        assert_eq!(svg.matches("<circle").count(), 2 * 4 + 1, "{svg}");
        // A series keeps its colour: series 19 (index 19) draws its line
        // in the colour the legend gives it.
        let RGBColor(r, g, b) = series_style(19).colour;
        let colour = format!("#{r:02X}{g:02X}{b:02X}");
        assert!(svg.contains(&format!(r#"stroke="{colour}""#)), "{svg}");
        // Verdicts are printed inside the panels.
        assert!(svg.contains("+1900% better"), "{svg}");
    }

    #[test]
    fn a_small_chart_keeps_its_width_in_one_column() {
        let mut chart = lines(19);
        chart.width = 560;
        let svg = render_svg(&chart).unwrap();
        assert!(svg.starts_with(r#"<svg width="560""#), "{}", &svg[..40]);
        let grid = grid(&chart, frame(&chart, 560)).unwrap();
        assert!(grid.panels.iter().all(|p| p.at.left == 0), "{grid:?}");
        assert_eq!(width(&lines(19)), Some(GRID_WIDTH));
    }

    #[test]
    fn panels_past_the_height_are_named_in_the_note() {
        // 1000 panels of one bar cannot all fit under the cap.
        let categories: Vec<String> = (0..1000).map(|i| format!("item {i}")).collect();
        let mut chart = Chart::bars("t", "item", "s", categories);
        let values: Vec<(f64, f64)> = (0..1000).map(|i| (f64::from(i), 1.0)).collect();
        chart.series.push(ChartSeries::from_values("a", &values));
        let svg = render_svg(&chart).unwrap();
        assert_eq!(width(&chart), Some(MAX_GRID_WIDTH), "as wide as it gets");
        let grid = grid(&chart, frame(&chart, MAX_GRID_WIDTH)).unwrap();
        assert!(grid.left_out > 0 && grid.panels.len() + grid.left_out == 1000);
        let note = grid.left_out_note().unwrap();
        assert!(note.starts_with(&format!("{} of 1000 panels drawn", grid.panels.len())));
        let words: Vec<&str> = svg.lines().filter(|l| !l.starts_with('<')).collect();
        assert!(words.join(" ").contains(&note), "{svg}");
        let height: u32 = svg
            .split(r#"height=""#)
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            height <= MAX_HEIGHT && height > MAX_HEIGHT - 200,
            "{height}"
        );
    }
}
