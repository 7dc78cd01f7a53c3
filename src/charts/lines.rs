//! Line charts: each series against threads, with whiskers, counts and
//! verdicts beside the points.

use std::collections::HashMap;

use super::*;

/// Draws the series' `summaries` (an empty slice for a series left out)
/// on axes spanning every point of `range`: panels of small multiples
/// share their ranges, so that they compare. Returns how many verdicts
/// found no room beside their points.
pub(super) fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    summaries: &[&[Summary]],
    range: &[&[Summary]],
    frame: Rect,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let axis = ValueAxis::for_lines(range, chart.log_scale, chart.percent_of_baseline);
    let tick_labels: Vec<String> = axis.ticks.iter().map(|v| axis.tick_label(*v)).collect();
    let tick_width = tick_labels
        .iter()
        .map(|t| text_width(t, LABEL_SIZE))
        .max()
        .unwrap_or(0);
    let mut plot = Rect {
        left: frame.left + 28 + tick_width + 8,
        top: frame.top + 8,
        right: frame.right - 16,
        bottom: frame.bottom - 52,
    };
    // Across ordered values, every value is a tick, so panels share
    // their axis; along threads, the counts run.
    let xs: Vec<f64> = match &chart.x_labels {
        Some(values) => (0..values.len()).map(|i| i as f64).collect(),
        None => thread_counts(range),
    };
    // Values too wide to stand side by side are set upright, under a
    // plot made shorter for them.
    let upright = chart.x_labels.as_ref().and_then(|values| {
        let widest = values
            .iter()
            .map(|v| text_width(v, LABEL_SIZE))
            .max()
            .unwrap_or(0);
        let room = plot.width() * 88 / 100 / values.len().max(1) as i32;
        (widest + 6 > room).then_some(widest.min(UPRIGHT_TICK_WIDTH))
    });
    if let Some(height) = upright {
        plot.bottom -= height;
    }
    let scales = Scales::new(&axis, plot, &xs, chart.x_labels.is_none());
    draw_value_grid(root, labels, &scales, &tick_labels)?;
    let tick_label = |x: f64| match &chart.x_labels {
        Some(values) => values.get(x as usize).cloned().unwrap_or_default(),
        None => format_number(x),
    };
    draw_x_ticks(root, labels, &scales, &xs, tick_label, upright.is_some())?;
    draw_axes(root, plot)?;
    let x_title = if scales.log {
        format!("{}, log scale", chart.x_title)
    } else {
        chart.x_title.clone()
    };
    text(
        labels,
        &fit(&x_title, AXIS_TITLE_SIZE, plot.width()),
        ((plot.left + plot.right) / 2, frame.bottom - 8),
        AXIS_TITLE_SIZE,
        &TEXT,
        (HPos::Center, VPos::Bottom),
    );
    draw_y_title(labels, &axis.title(&chart.y_title), frame.left + 6, plot);

    // Lines first, then whiskers and markers on top of every line; the
    // baseline last of each, so no other series hides it.
    let order = drawing_order(chart);
    for &index in order.iter().filter(|&&i| !summaries[i].is_empty()) {
        let style = series_style(index);
        let points: Vec<(i32, i32)> = summaries[index]
            .iter()
            .map(|s| (scales.px(s.x), scales.py(s.mean)))
            .collect();
        let dashed = chart.series.get(index).is_some_and(|s| s.dashed);
        draw_line(root, points, style, dashed)?;
    }
    let placed = draw_points(root, summaries, &order, &scales)?;
    draw_point_notes(root, labels, summaries, &order, &scales, placed)
}

/// The thread counts of `range`, ascending, each once.
fn thread_counts(range: &[&[Summary]]) -> Vec<f64> {
    let mut xs: Vec<f64> = range
        .iter()
        .flat_map(|points| points.iter())
        .map(|s| s.x)
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs
}

/// Where thread counts and values fall in the plot.
struct Scales<'a> {
    axis: &'a ValueAxis,
    plot: Rect,
    /// Thread counts usually double (1, 2, 4 ... 64): on a linear axis
    /// the small ones would crowd into a corner, so such an axis is
    /// logarithmic.
    log: bool,
    p_low: f64,
    p_high: f64,
}

impl<'a> Scales<'a> {
    /// The scales of `plot` for the thread counts `xs` (ascending, not
    /// empty) and the value `axis`; `counts` where `xs` are counts that
    /// may double (not the indexes of ordered values).
    fn new(axis: &'a ValueAxis, plot: Rect, xs: &[f64], counts: bool) -> Self {
        let (x_min, x_max) = (xs[0], xs[xs.len() - 1]);
        let log = counts && x_min > 0.0 && x_max / x_min >= 8.0;
        let mut scales = Scales {
            axis,
            plot,
            log,
            p_low: 0.0,
            p_high: 0.0,
        };
        let (p_min, p_max) = (scales.position(x_min), scales.position(x_max));
        let pad = if p_max > p_min {
            (p_max - p_min) * 0.06
        } else {
            1.0
        };
        (scales.p_low, scales.p_high) = (p_min - pad, p_max + pad);
        scales
    }

    fn position(&self, x: f64) -> f64 {
        if self.log {
            x.log2()
        } else {
            x
        }
    }

    /// The pixel column of thread count `x`.
    fn px(&self, x: f64) -> i32 {
        self.plot.left
            + ((self.position(x) - self.p_low) / (self.p_high - self.p_low)
                * self.plot.width() as f64)
                .round() as i32
    }

    /// The pixel row of value `y`.
    fn py(&self, y: f64) -> i32 {
        self.plot.bottom - (self.axis.fraction(y) * self.plot.height() as f64).round() as i32
    }
}

/// The value axis' grid lines and tick labels.
fn draw_value_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    scales: &Scales,
    tick_labels: &[String],
) -> DrawResult<DB> {
    let plot = scales.plot;
    for (value, label) in scales.axis.ticks.iter().zip(tick_labels) {
        let y = scales.py(*value);
        root.draw(&PathElement::new(
            vec![(plot.left, y), (plot.right, y)],
            GRID.stroke_width(1),
        ))?;
        text(
            labels,
            label,
            (plot.left - 8, y),
            LABEL_SIZE,
            &TEXT,
            (HPos::Right, VPos::Center),
        );
    }
    Ok(())
}

/// The longest upright tick label, in pixels; longer ones are cut.
const UPRIGHT_TICK_WIDTH: i32 = 150;

/// A tick at every x (thread count run, or value along x), labelled as
/// long as the labels do not touch; `upright` labels read bottom to top,
/// hanging from their tick.
fn draw_x_ticks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    scales: &Scales,
    xs: &[f64],
    tick_label: impl Fn(f64) -> String,
    upright: bool,
) -> DrawResult<DB> {
    let plot = scales.plot;
    let mut last_right = i32::MIN;
    for &x in xs {
        let mut label = tick_label(x);
        if upright {
            label = fit(&label, LABEL_SIZE, UPRIGHT_TICK_WIDTH);
        }
        let half = if upright {
            LABEL_SIZE as i32 / 2 + 1
        } else {
            text_width(&label, LABEL_SIZE) / 2
        };
        let at = scales.px(x);
        root.draw(&PathElement::new(
            vec![(at, plot.top), (at, plot.bottom)],
            GRID.stroke_width(1),
        ))?;
        root.draw(&PathElement::new(
            vec![(at, plot.bottom), (at, plot.bottom + 5)],
            AXIS.stroke_width(1),
        ))?;
        if at - half > last_right + 6 {
            if upright {
                labels.push(Label {
                    text: label,
                    at: (at, plot.bottom + 8),
                    size: LABEL_SIZE,
                    colour: TEXT,
                    anchor: (HPos::Right, VPos::Center),
                    rotated: true,
                });
            } else {
                text(
                    labels,
                    &label,
                    (at, plot.bottom + 8),
                    LABEL_SIZE,
                    &TEXT,
                    (HPos::Center, VPos::Top),
                );
            }
            last_right = at + half;
        }
    }
    Ok(())
}

/// Each point's whisker and marker, in drawing order; returns the room
/// each marker takes, which the notes keep clear of.
fn draw_points<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    summaries: &[&[Summary]],
    order: &[usize],
    scales: &Scales,
) -> Result<Vec<Rect>, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut placed: Vec<Rect> = Vec::new();
    for &index in order {
        let style = series_style(index);
        let colour = style.colour;
        for s in summaries[index].iter() {
            let (x, y) = (scales.px(s.x), scales.py(s.mean));
            if s.max > s.min {
                let (top, bottom) = (scales.py(s.max), scales.py(s.min));
                root.draw(&PathElement::new(
                    vec![(x, top), (x, bottom)],
                    colour.stroke_width(1),
                ))?;
                for end in [top, bottom] {
                    root.draw(&PathElement::new(
                        vec![(x - 4, end), (x + 4, end)],
                        colour.stroke_width(1),
                    ))?;
                }
            }
            draw_marker(root, style.shape, (x, y), colour, s.mark)?;
            let radius = if s.mark == Mark::Baseline { 9 } else { 5 };
            placed.push(Rect::around((x, y), radius));
        }
    }
    Ok(placed)
}

/// The verdict beside each compared point, then n= beside repeated
/// points, each where it covers no other note, leader line or marker
/// (`placed`): the verdicts in [`verdicts_in_placing_order`], then
/// [`count_notes`], each where [`NoteRoom::find`] finds room. Returns how
/// many verdicts found no room, for the image to say.
fn draw_point_notes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    summaries: &[&[Summary]],
    order: &[usize],
    scales: &Scales,
    placed: Vec<Rect>,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let plot = scales.plot;
    let verdicts = verdicts_in_placing_order(summaries, order);
    let counts = count_notes(summaries, order);
    let verdict_count = verdicts.len();
    if verdict_count == 0 && counts.clone().next().is_none() {
        return Ok(0);
    }
    // Notes may reach a little past the plot's right edge.
    let area = Rect {
        right: plot.right + 12,
        ..plot
    };
    let mut room = NoteRoom::new(
        area,
        placed,
        verdicts
            .iter()
            .map(|(_, s, _)| (scales.px(s.x), scales.py(s.mean))),
    );
    let mut dropped = 0;
    for (number, (index, s, label)) in verdicts.into_iter().chain(counts).enumerate() {
        let is_verdict = number < verdict_count;
        let size = (text_width(&label, NOTE_SIZE), NOTE_SIZE as i32 + 2);
        let at = (scales.px(s.x), scales.py(s.mean));
        let Some(place) = room.find(at, size, is_verdict) else {
            dropped += usize::from(is_verdict);
            continue;
        };
        let colour = colour_for_text(series_style(index).colour);
        draw_note(root, labels, place, &label, colour, is_verdict)?;
        room.take(place);
    }
    Ok(dropped)
}

/// The verdicts beside compared points (series `index`, its point, the
/// text), in the order they are given room: the proven differences
/// (better or worse) first, then the other verdicts; of each kind a
/// first note at every x, then a second, so that no crowded x takes the
/// room of its neighbours'. Within that, in drawing `order`.
fn verdicts_in_placing_order<'s>(
    summaries: &[&'s [Summary]],
    order: &[usize],
) -> Vec<(usize, &'s Summary, String)> {
    let verdicts = order.iter().flat_map(|&index| {
        summaries[index]
            .iter()
            .filter_map(move |s| Some((index, s, s.verdict.clone()?)))
    });
    let mut at_x: HashMap<(bool, u64), usize> = HashMap::new();
    let mut keyed: Vec<((bool, usize), _)> = verdicts
        .map(|verdict| {
            let class = verdict.1.mark != Mark::Proven;
            let rank = at_x.entry((class, verdict.1.x.to_bits())).or_default();
            *rank += 1;
            ((class, *rank), verdict)
        })
        .collect();
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, v)| v).collect()
}

/// The counts beside repeated points, `n=3` (series `index`, its point,
/// the text), in drawing `order`: placed after every verdict.
fn count_notes<'s>(
    summaries: &'s [&'s [Summary]],
    order: &'s [usize],
) -> impl Iterator<Item = (usize, &'s Summary, String)> + Clone + 's {
    order.iter().flat_map(|&index| {
        summaries[index]
            .iter()
            .filter(|s| s.count > 1)
            .map(move |s| (index, s, format!("n={}", s.count)))
    })
}

/// A note at its `place`, in its series' `colour`: its leader line, and
/// for a verdict a white backdrop that keeps it legible over the lines
/// it sits on.
fn draw_note<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    Place { rect, leader }: Place,
    label: &str,
    colour: RGBColor,
    is_verdict: bool,
) -> DrawResult<DB> {
    if let Some((from, to)) = leader {
        root.draw(&PathElement::new(vec![from, to], colour.stroke_width(1)))?;
    }
    if is_verdict {
        root.draw(&Rectangle::new(
            [(rect.left - 1, rect.top), (rect.right + 1, rect.bottom)],
            WHITE.mix(0.85).filled(),
        ))?;
    }
    text(
        labels,
        label,
        (rect.left, rect.bottom),
        NOTE_SIZE,
        &colour,
        (HPos::Left, VPos::Bottom),
    );
    Ok(())
}

/// The series' indexes in the order they are drawn: the baseline last.
pub(super) fn drawing_order(chart: &Chart) -> Vec<usize> {
    let is_baseline = |index: &usize| chart.series[*index].is_baseline();
    let all = 0..chart.series.len();
    all.clone()
        .filter(|i| !is_baseline(i))
        .chain(all.filter(is_baseline))
        .collect()
}

/// A series' line: solid, or dashed when none of its differences is
/// proven; dotted (or long-dashed) for the second dozen of series.
pub(super) fn draw_line<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: Vec<(i32, i32)>,
    style: SeriesStyle,
    dashed: bool,
) -> DrawResult<DB> {
    let stroke = style.colour.stroke_width(2);
    match (dashed, style.second_round) {
        (false, false) => root.draw(&PathElement::new(points, stroke)),
        (true, false) => root.draw(&DashedPathElement::new(points, 7, 5, stroke)),
        (false, true) => root.draw(&DashedPathElement::new(points, 2, 3, stroke)),
        (true, true) => root.draw(&DashedPathElement::new(points, 12, 4, stroke)),
    }
}

/// Yellow and sky blue are too faint for small text on white.
pub(super) fn colour_for_text(colour: RGBColor) -> RGBColor {
    match colour {
        RGBColor(0xF0, 0xE4, 0x42) | RGBColor(0x56, 0xB4, 0xE9) => MUTED,
        other => other,
    }
}

pub(super) fn draw_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: Rect,
) -> DrawResult<DB> {
    root.draw(&PathElement::new(
        vec![
            (plot.left, plot.top),
            (plot.left, plot.bottom),
            (plot.right, plot.bottom),
        ],
        AXIS.stroke_width(1),
    ))
}

pub(super) fn draw_y_title(labels: &mut Labels, title: &str, x: i32, plot: Rect) {
    labels.push(Label {
        text: fit(title, AXIS_TITLE_SIZE, plot.height()),
        at: (x, (plot.top + plot.bottom) / 2),
        size: AXIS_TITLE_SIZE,
        colour: TEXT,
        anchor: (HPos::Center, VPos::Top),
        rotated: true,
    });
}
