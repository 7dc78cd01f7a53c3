//! Charts: data in, SVG or PNG bytes out. Nothing here touches the
//! database or the web; [`Chart`] is all a chart knows.
//!
//! Two kinds: a line chart of a value against threads, and grouped
//! horizontal bars (one group per category, one bar per series) for tools
//! without a thread axis. Repeats of one configuration are drawn as their
//! mean with a min–max whisker and their count.
//!
//! Everything is laid out here in pixels rather than by plotters' mesh, so
//! that ticks sit on the thread counts actually run and labels are measured
//! with the embedded DejaVu Sans: the same data gives the same image on
//! every machine (no system fonts).

use std::sync::Once;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle, FontTransform};

mod format;
mod glyphs;
mod layout;
mod panels;

pub use format::{format_number, format_tick, format_value};

use layout::{log_ticks, nice_ticks, Rect};

/// DejaVu Sans, from Debian's fonts-dejavu-core (see fonts/DejaVuSans.copyright).
static DEJAVU_SANS: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

const FONT: &str = "sans-serif";

/// Makes the embedded font known to plotters. Every chart needs it (with
/// plotters' `ab_glyph` text, even SVG fails without one); call it at
/// start-up. Idempotent, and the render functions call it too.
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in and known good; a failure here is a
        // broken build, not a runtime condition.
        register_font(FONT, FontStyle::Normal, DEJAVU_SANS)
            .unwrap_or_else(|_| panic!("the embedded DejaVuSans.ttf is not a usable font"));
    });
}

/// Okabe & Ito's eight colours, which stay distinguishable with the
/// common colour-vision deficiencies, then the four of Paul Tol's "muted"
/// scheme furthest from them, so that twelve series get twelve colours.
/// Yellow comes eighth: it is faint on white. Past twelve, series repeat
/// a colour with another marker shape and dash pattern
/// ([`series_style`]).
pub const PALETTE: [RGBColor; 12] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
    RGBColor(0x33, 0x22, 0x88), // Tol's indigo
    RGBColor(0x88, 0x22, 0x55), // Tol's wine
    RGBColor(0x99, 0x99, 0x33), // Tol's olive
    RGBColor(0x11, 0x77, 0x33), // Tol's green
];

/// How series `index` is told apart: its colour, its marker shape (one
/// of [`SHAPES`]) and, from the second dozen on, a dotted line, so that no
/// two of 24 series look alike and lines stay apart in greyscale.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SeriesStyle {
    colour: RGBColor,
    shape: Shape,
    /// The series repeats an earlier series' colour.
    second_round: bool,
}

fn series_style(index: usize) -> SeriesStyle {
    let round = index / PALETTE.len();
    SeriesStyle {
        colour: PALETTE[index % PALETTE.len()],
        shape: SHAPES[(index + round) % SHAPES.len()],
        second_round: round % 2 == 1,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Circle,
    Triangle,
    Square,
    Diamond,
}

const SHAPES: [Shape; 4] = [
    Shape::Circle,
    Shape::Triangle,
    Shape::Square,
    Shape::Diamond,
];

/// The CSS hex colour of series `index`, for tables next to a chart.
pub fn series_colour(index: usize) -> String {
    let RGBColor(r, g, b) = PALETTE[index % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// One series of a chart: a point per x, in ascending x, already
/// summarised (the mean of the runs of one configuration, a whisker from
/// min to max, and their count), so the chart shows the numbers its
/// comparison computed rather than computing them again. For bars, x is
/// the category's index.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSeries {
    pub name: String,
    pub points: Vec<Summary>,
    /// Drawn dashed (and so in the legend): none of its differences to
    /// the baseline is shown to be more than noise.
    pub dashed: bool,
}

impl ChartSeries {
    /// Whether this is the baseline series (its points are marked so).
    pub fn is_baseline(&self) -> bool {
        self.points.iter().any(|p| p.mark == Mark::Baseline)
    }

    /// A series of raw `(x, value)` pairs, repeats of an x summarised into
    /// one point.
    pub fn from_values(name: impl Into<String>, values: &[(f64, f64)]) -> Self {
        ChartSeries {
            name: name.into(),
            points: summarise(values),
            dashed: false,
        }
    }
}

/// What to draw. `categories: None` is a line chart against a numeric x
/// (threads); `Some` is grouped bars, one group per category.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    /// The x axis of a line chart, or what the categories are.
    pub x_title: String,
    /// The value axis, with its unit.
    pub y_title: String,
    pub series: Vec<ChartSeries>,
    pub categories: Option<Vec<String>>,
    /// A line under the legend explaining its marks (what hollow means).
    pub note: Option<String>,
    /// A logarithmic value axis (`scale=log`): values from 1 s to
    /// thousands of seconds all stay readable.
    pub log_scale: bool,
    /// The values are % of the baseline (`y=relative`): ticks and bar
    /// labels read `100%`.
    pub percent_of_baseline: bool,
    pub width: u32,
    pub height: u32,
}

/// The line chart was the first kind; the name stays for callers that
/// only draw lines.
pub type LineChart = Chart;

/// The default size: readable as it is in a mail or on a laptop.
pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 500;

impl Chart {
    /// A line chart of the series against a numeric x.
    pub fn new(
        title: impl Into<String>,
        x_title: impl Into<String>,
        y_title: impl Into<String>,
    ) -> Self {
        Chart {
            title: title.into(),
            x_title: x_title.into(),
            y_title: y_title.into(),
            series: Vec::new(),
            categories: None,
            note: None,
            log_scale: false,
            percent_of_baseline: false,
            width: WIDTH,
            height: HEIGHT,
        }
    }

    /// Grouped bars: a group per category (in the given order), a bar per
    /// series; a series' point `(i, v)` belongs to category `i`.
    pub fn bars(
        title: impl Into<String>,
        category_title: impl Into<String>,
        value_title: impl Into<String>,
        categories: Vec<String>,
    ) -> Self {
        Chart {
            categories: Some(categories),
            ..Chart::new(title, category_title, value_title)
        }
    }

    /// The width drawn: wider for a grid of panels.
    fn drawn_width(&self) -> u32 {
        panels::width(self).unwrap_or(self.width)
    }

    /// The height bars need so that every bar stays at least a few pixels
    /// thick; never less than `height`.
    fn drawn_height(&self) -> u32 {
        if let Some(height) = panels::height(self) {
            return height;
        }
        // Tall enough for every legend entry, long names wrapped.
        let legend = legend_height(self, self.width as i32);
        match &self.categories {
            None => self.height.max(legend.min(4000)),
            Some(categories) => {
                let bars = categories.len() * self.series.len().max(1);
                let wanted = 120 + bars as u32 * 14 + categories.len() as u32 * 10;
                self.height.max(wanted.max(legend).min(4000))
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("drawing the chart failed: {0}")]
pub struct ChartError(String);

/// How a point stands against the baseline, each drawn its own way and
/// named in the legend's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mark {
    /// No baseline in the chart: drawn filled.
    #[default]
    Plain,
    /// A point of the baseline series: filled, ringed and drawn over the
    /// other series, so no marker hides it.
    Baseline,
    /// Better or worse than the baseline, beyond noise: filled.
    Proven,
    /// The interval holds zero: hollow.
    NoDifference,
    /// Too few runs on a side for an interval: a pale fill.
    TooFewRuns,
    /// The point (or, with a baseline, its baseline point) mixes
    /// configurations: hollow and crossed, with or without a baseline.
    Mixed,
    /// The baseline has no point at this x: a dashed outline.
    NotCompared,
}

impl Mark {
    /// The legend key's words for the mark; `None` for marks that need
    /// no key.
    fn key(self) -> Option<&'static str> {
        match self {
            Mark::Plain | Mark::Baseline => None,
            Mark::Proven => Some("Filled: better or worse"),
            Mark::NoDifference => Some("Hollow: no difference"),
            Mark::TooFewRuns => Some("Pale: too few runs"),
            Mark::Mixed => Some("Crossed: mixed configurations"),
            Mark::NotCompared => Some("Dashed: no baseline point"),
        }
    }

    /// The marks the key lists, in its order.
    const KEYED: [Mark; 5] = [
        Mark::Proven,
        Mark::NoDifference,
        Mark::TooFewRuns,
        Mark::Mixed,
        Mark::NotCompared,
    ];
}

/// The values of one x of a series.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    pub x: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub count: usize,
    /// How it stands against the baseline.
    pub mark: Mark,
    /// Printed beside the point: its difference to the baseline and the
    /// interval (`+16.8% ± 4.3% better`), or why there is none.
    pub verdict: Option<String>,
}

/// Groups points by x (in ascending x) into mean, min and max.
pub fn summarise(points: &[(f64, f64)]) -> Vec<Summary> {
    let mut sorted: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<Summary> = Vec::new();
    for (x, y) in sorted {
        match out.last_mut() {
            Some(last) if last.x == x => {
                last.mean += y;
                last.min = last.min.min(y);
                last.max = last.max.max(y);
                last.count += 1;
            }
            _ => out.push(Summary {
                x,
                mean: y,
                min: y,
                max: y,
                count: 1,
                ..Summary::default()
            }),
        }
    }
    for summary in &mut out {
        summary.mean /= summary.count as f64;
    }
    out
}

/// The chart as an SVG document.
pub fn render_svg(chart: &Chart) -> Result<String, ChartError> {
    register_fonts();
    let mut svg = String::new();
    {
        let size = (chart.drawn_width(), chart.drawn_height());
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let labels = draw(&root, chart).map_err(|e| ChartError(e.to_string()))?;
        draw_labels_svg(&root, &labels).map_err(|e| ChartError(e.to_string()))?;
        root.present().map_err(|e| ChartError(e.to_string()))?;
    }
    Ok(svg)
}

/// The chart as a PNG image.
pub fn render_png(chart: &Chart) -> Result<Vec<u8>, ChartError> {
    register_fonts();
    let (width, height) = (chart.drawn_width(), chart.drawn_height());
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    let labels = {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        let labels = draw(&root, chart).map_err(|e| ChartError(e.to_string()))?;
        root.present().map_err(|e| ChartError(e.to_string()))?;
        labels
    };
    glyphs::draw_labels(&mut rgb, (width, height), &labels);
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| ChartError(e.to_string()))?;
    writer
        .write_image_data(&rgb)
        .map_err(|e| ChartError(e.to_string()))?;
    writer.finish().map_err(|e| ChartError(e.to_string()))?;
    Ok(png_bytes)
}

const TEXT: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x55, 0x55, 0x55);
const GRID: RGBColor = RGBColor(0xE2, 0xE2, 0xE2);
const AXIS: RGBColor = RGBColor(0x88, 0x88, 0x88);

const TITLE_SIZE: f64 = 18.0;
const LABEL_SIZE: f64 = 13.0;
const AXIS_TITLE_SIZE: f64 = 14.0;
const NOTE_SIZE: f64 = 11.0;

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn font(size: f64) -> FontDesc<'static> {
    (FONT, size).into_font()
}

/// The width of `text` in pixels, measured with the embedded font.
fn text_width(text: &str, size: f64) -> i32 {
    glyphs::width(text, size).ceil() as i32
}

/// `text` cut (with an ellipsis) to fit `max_width` pixels.
fn fit(text: &str, size: f64, max_width: i32) -> String {
    if text_width(text, size) <= max_width {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut low, mut high) = (0, chars.len());
    // The longest prefix that fits with its ellipsis.
    while low < high {
        let mid = (low + high).div_ceil(2);
        let candidate: String = chars[..mid].iter().collect::<String>() + "…";
        if text_width(&candidate, size) <= max_width {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    chars[..low].iter().collect::<String>() + "…"
}

/// `text` in lines of at most `max_width` pixels, broken at spaces; a
/// single word wider than that is the only thing broken inside.
fn wrap(text: &str, size: f64, max_width: i32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if line.is_empty() {
            word.to_owned()
        } else {
            format!("{line} {word}")
        };
        if text_width(&candidate, size) <= max_width {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        let mut rest = word;
        while text_width(rest, size) > max_width {
            let mut cut = rest
                .char_indices()
                .skip(1)
                .map(|(i, _)| i)
                .take_while(|&i| text_width(&rest[..i], size) <= max_width)
                .last()
                .unwrap_or(0);
            if cut == 0 {
                cut = rest.chars().next().map_or(rest.len(), char::len_utf8);
            }
            lines.push(rest[..cut].to_owned());
            rest = &rest[cut..];
        }
        line = rest.to_owned();
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A piece of text to draw once the shapes are drawn. SVG hands text to
/// plotters (the browser renders it); PNG text is rasterised by
/// [`glyphs::draw_labels`], with correct glyph spacing.
#[derive(Clone)]
struct Label {
    text: String,
    at: (i32, i32),
    size: f64,
    colour: RGBColor,
    anchor: (HPos, VPos),
    /// Reads bottom to top (the value axis' title).
    rotated: bool,
}

type Labels = Vec<Label>;

fn text(
    labels: &mut Labels,
    content: &str,
    at: (i32, i32),
    size: f64,
    colour: &RGBColor,
    anchor: (HPos, VPos),
) {
    labels.push(Label {
        text: content.to_owned(),
        at,
        size,
        colour: *colour,
        anchor,
        rotated: false,
    });
}

/// Draws the labels through plotters (for SVG).
fn draw_labels_svg<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &[Label],
) -> DrawResult<DB> {
    for label in labels {
        let mut style = font(label.size);
        if label.rotated {
            style = style.transform(FontTransform::Rotate270);
        }
        let style = style
            .color(&label.colour)
            .pos(Pos::new(label.anchor.0, label.anchor.1));
        root.draw(&Text::new(label.text.clone(), label.at, style))?;
    }
    Ok(())
}

/// Draws the shapes and returns the text still to draw.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
) -> Result<Labels, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut labels = Labels::new();
    let labels = &mut labels;
    root.fill(&WHITE)?;
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    text(
        labels,
        &fit(&chart.title, TITLE_SIZE, width - 24),
        (12, 10),
        TITLE_SIZE,
        &TEXT,
        (HPos::Left, VPos::Top),
    );
    let summaries: Vec<&[Summary]> = chart.series.iter().map(|s| s.points.as_slice()).collect();
    if summaries.iter().all(|points| points.is_empty()) {
        text(
            labels,
            "No data to draw for this choice.",
            (width / 2, height / 2),
            16.0,
            &MUTED,
            (HPos::Center, VPos::Center),
        );
        return Ok(std::mem::take(labels));
    }
    let legend_width = legend_width(chart, width);
    let frame = Rect {
        left: 0,
        top: 40,
        right: width - legend_width,
        bottom: height,
    };
    let grid = panels::grid(chart, frame);
    match (&grid, &chart.categories) {
        (Some(grid), _) => panels::draw(root, labels, chart, &summaries, grid)?,
        (None, None) => draw_lines(root, labels, chart, &summaries, &summaries, frame)?,
        (None, Some(categories)) => {
            let groups = category_groups(categories, &summaries);
            draw_bars(root, labels, chart, &groups, summaries.len(), frame, true)?
        }
    }
    // Panels left out for the image's height are named in the note.
    let with_note;
    let legend_chart = match grid.as_ref().and_then(panels::Grid::left_out_note) {
        Some(left_out) => {
            with_note = Chart {
                note: Some(match &chart.note {
                    Some(note) => format!("{left_out} {note}"),
                    None => left_out,
                }),
                ..chart.clone()
            };
            &with_note
        }
        None => chart,
    };
    draw_legend(
        root,
        labels,
        legend_chart,
        width - legend_width + 8,
        frame.top + 6,
    )?;
    Ok(std::mem::take(labels))
}

fn legend_width(chart: &Chart, width: i32) -> i32 {
    let widest = chart
        .series
        .iter()
        .map(|s| text_width(&s.name, LABEL_SIZE))
        .chain(
            keyed_marks(chart)
                .iter()
                .filter_map(|m| m.key())
                .map(|key| text_width(key, NOTE_SIZE)),
        )
        .max()
        .unwrap_or(0);
    (widest + 52).clamp(110, width / 3)
}

/// The height the legend needs to show every entry, as
/// [`draw_legend`] lays them out beside the plot.
fn legend_height(chart: &Chart, width: i32) -> u32 {
    let left = width - legend_width(chart, width) + 8;
    let text_room = width - left - 40;
    let entries: i32 = chart
        .series
        .iter()
        .map(|s| 22 + (wrap(&s.name, LABEL_SIZE, text_room).len() as i32 - 1) * 16)
        .sum();
    let note = if chart.note.is_some() { 96 } else { 0 };
    let keyed = keyed_marks(chart).len() as i32 * 22;
    // The frame's top, the entries, a spare row, the bottom margin.
    (46 + 8 + entries + 22 + 40 + note + keyed).max(0) as u32
}

/// The marks the chart's points use that the legend's key explains.
fn keyed_marks(chart: &Chart) -> Vec<Mark> {
    Mark::KEYED
        .into_iter()
        .filter(|mark| {
            chart
                .series
                .iter()
                .flat_map(|s| &s.points)
                .any(|p| p.mark == *mark)
        })
        .collect()
}

/// The value axis: the range its ticks cover, linear or logarithmic.
struct ValueAxis {
    low: f64,
    high: f64,
    ticks: Vec<f64>,
    log: bool,
    /// Its values are % of the baseline.
    percent: bool,
}

impl ValueAxis {
    /// Throughput and times are never negative, so a linear axis starts
    /// at zero then: a chart that starts at 18000 makes a 5% difference
    /// look like a doubling. A log axis spans the decades of the positive
    /// values (a value at or under zero sits on its floor).
    fn of(summaries: &[&[Summary]], log: bool, percent: bool) -> Self {
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
    fn fraction(&self, value: f64) -> f64 {
        if self.log {
            let low = self.low.log10();
            (value.max(self.low).log10() - low) / (self.high.log10() - low)
        } else {
            (value - self.low) / (self.high - self.low)
        }
    }

    /// A tick's label: on one scale for the whole linear axis (`5k`,
    /// `10k`), each on its own across a log axis' decades (`1`, `1k`).
    fn tick_label(&self, value: f64) -> String {
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
    fn base(&self) -> f64 {
        if self.log {
            self.low
        } else {
            self.low.max(0.0)
        }
    }

    /// The axis' title, saying when it is logarithmic.
    fn title(&self, title: &str) -> String {
        if self.log {
            format!("{title}, log scale")
        } else {
            title.to_owned()
        }
    }
}

/// Draws the series' `summaries` (an empty slice for a series left out)
/// on axes spanning every point of `range`: panels of small multiples
/// share their ranges, so that they compare.
fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    summaries: &[&[Summary]],
    range: &[&[Summary]],
    frame: Rect,
) -> DrawResult<DB> {
    let axis = ValueAxis::of(range, chart.log_scale, chart.percent_of_baseline);
    let tick_labels: Vec<String> = axis.ticks.iter().map(|v| axis.tick_label(*v)).collect();
    let tick_width = tick_labels
        .iter()
        .map(|t| text_width(t, LABEL_SIZE))
        .max()
        .unwrap_or(0);
    let plot = Rect {
        left: frame.left + 28 + tick_width + 8,
        top: frame.top + 8,
        right: frame.right - 16,
        bottom: frame.bottom - 52,
    };

    // Thread counts usually double (1, 2, 4 ... 64): on a linear axis the
    // small ones would crowd into a corner, so such an axis is logarithmic.
    let mut xs: Vec<f64> = range
        .iter()
        .flat_map(|points| points.iter())
        .map(|s| s.x)
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let (x_min, x_max) = (xs[0], xs[xs.len() - 1]);
    let log = x_min > 0.0 && x_max / x_min >= 8.0;
    let position = |x: f64| if log { x.log2() } else { x };
    let (p_min, p_max) = (position(x_min), position(x_max));
    let pad = if p_max > p_min {
        (p_max - p_min) * 0.06
    } else {
        1.0
    };
    let (p_low, p_high) = (p_min - pad, p_max + pad);
    let px = |x: f64| {
        plot.left + ((position(x) - p_low) / (p_high - p_low) * plot.width() as f64).round() as i32
    };
    let py = |y: f64| plot.bottom - (axis.fraction(y) * plot.height() as f64).round() as i32;

    // Grid and value ticks.
    for (value, label) in axis.ticks.iter().zip(&tick_labels) {
        let y = py(*value);
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
    // A tick at every thread count run, as long as the labels do not touch.
    let mut last_right = i32::MIN;
    for &x in &xs {
        let label = format_number(x);
        let half = text_width(&label, LABEL_SIZE) / 2;
        let at = px(x);
        root.draw(&PathElement::new(
            vec![(at, plot.top), (at, plot.bottom)],
            GRID.stroke_width(1),
        ))?;
        root.draw(&PathElement::new(
            vec![(at, plot.bottom), (at, plot.bottom + 5)],
            AXIS.stroke_width(1),
        ))?;
        if at - half > last_right + 6 {
            text(
                labels,
                &label,
                (at, plot.bottom + 8),
                LABEL_SIZE,
                &TEXT,
                (HPos::Center, VPos::Top),
            );
            last_right = at + half;
        }
    }
    draw_axes(root, plot)?;
    let x_title = if log {
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
            .map(|s| (px(s.x), py(s.mean)))
            .collect();
        let dashed = chart.series.get(index).is_some_and(|s| s.dashed);
        draw_line(root, points, style, dashed)?;
    }
    let mut placed: Vec<Rect> = Vec::new();
    for &index in &order {
        let style = series_style(index);
        let colour = style.colour;
        for s in summaries[index].iter() {
            let (x, y) = (px(s.x), py(s.mean));
            if s.max > s.min {
                let (top, bottom) = (py(s.max), py(s.min));
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
    // The verdict beside each compared point, then n= beside repeated
    // points, each where it covers no other label or marker.
    let verdicts = order.iter().flat_map(|&index| {
        summaries[index]
            .iter()
            .filter_map(move |s| Some((index, s, s.verdict.clone()?)))
    });
    let counts = order.iter().flat_map(|&index| {
        summaries[index]
            .iter()
            .filter(|s| s.count > 1)
            .map(move |s| (index, s, format!("n={}", s.count)))
    });
    let verdict_count = verdicts.clone().count();
    for (number, (index, s, label)) in verdicts.chain(counts).enumerate() {
        let w = text_width(&label, NOTE_SIZE);
        let (x, y) = (px(s.x), py(s.mean));
        let h = NOTE_SIZE as i32 + 2;
        // Right of the point, left of it, then above or below (verdicts).
        let mut candidates = vec![(x + 9, y - 2 - h), (x - 9 - w, y - 2 - h)];
        if number < verdict_count {
            candidates.extend([(x + 9, y + 3), (x - 9 - w, y + 3), (x - w / 2, y - 10 - h)]);
            candidates.push((x - w / 2, y + 10));
        }
        let free = candidates
            .into_iter()
            .map(|(left, top)| Rect {
                left,
                top,
                right: left + w,
                bottom: top + h,
            })
            .find(|rect| {
                rect.right <= plot.right + 12
                    && rect.left >= plot.left
                    && rect.top >= plot.top
                    && rect.bottom <= plot.bottom
                    && !placed.iter().any(|other| other.overlaps(rect))
            });
        if let Some(rect) = free {
            if number < verdict_count {
                // A verdict stays legible over the lines it sits on.
                root.draw(&Rectangle::new(
                    [(rect.left - 1, rect.top), (rect.right + 1, rect.bottom)],
                    WHITE.mix(0.85).filled(),
                ))?;
            }
            text(
                labels,
                &label,
                (rect.left, rect.bottom),
                NOTE_SIZE,
                &colour_for_text(series_style(index).colour),
                (HPos::Left, VPos::Bottom),
            );
            placed.push(rect);
        }
    }
    Ok(())
}

/// The series' indexes in the order they are drawn: the baseline last.
fn drawing_order(chart: &Chart) -> Vec<usize> {
    let is_baseline = |index: &usize| chart.series[*index].is_baseline();
    let all = 0..chart.series.len();
    all.clone()
        .filter(|i| !is_baseline(i))
        .chain(all.filter(is_baseline))
        .collect()
}

/// A series' line: solid, or dashed when none of its differences is
/// proven; dotted (or long-dashed) for the second dozen of series.
fn draw_line<DB: DrawingBackend>(
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
fn colour_for_text(colour: RGBColor) -> RGBColor {
    match colour {
        RGBColor(0xF0, 0xE4, 0x42) | RGBColor(0x56, 0xB4, 0xE9) => MUTED,
        other => other,
    }
}

fn draw_axes<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: Rect) -> DrawResult<DB> {
    root.draw(&PathElement::new(
        vec![
            (plot.left, plot.top),
            (plot.left, plot.bottom),
            (plot.right, plot.bottom),
        ],
        AXIS.stroke_width(1),
    ))
}

fn draw_y_title(labels: &mut Labels, title: &str, x: i32, plot: Rect) {
    labels.push(Label {
        text: fit(title, AXIS_TITLE_SIZE, plot.height()),
        at: (x, (plot.top + plot.bottom) / 2),
        size: AXIS_TITLE_SIZE,
        colour: TEXT,
        anchor: (HPos::Center, VPos::Top),
        rotated: true,
    });
}

/// One group of bars, named on the category axis: a category's bar per
/// series, or in a panel of small multiples a series' one bar.
struct BarGroup<'a> {
    name: &'a str,
    /// `(slot in the group, series index, point)`: the slot places the
    /// bar, the series index gives its style.
    bars: Vec<(usize, usize, &'a Summary)>,
}

/// The groups of a chart of grouped bars: a category each, a slot per
/// series, so that a series sits at the same place in every group.
fn category_groups<'a>(categories: &'a [String], summaries: &[&'a [Summary]]) -> Vec<BarGroup<'a>> {
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
/// `axis_title` is false (panels, whose grid says it once).
fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    groups: &[BarGroup],
    slots: usize,
    frame: Rect,
    axis_title: bool,
) -> DrawResult<DB> {
    let drawn: Vec<Summary> = groups
        .iter()
        .flat_map(|g| g.bars.iter().map(|(_, _, s)| (*s).clone()))
        .collect();
    let axis = ValueAxis::of(&[&drawn], chart.log_scale, chart.percent_of_baseline);
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
    let values_width = f64::from((values_right - plot.left).max(1));
    let px = |v: f64| plot.left + (axis.fraction(v) * values_width).round() as i32;
    // Every tick gets its grid line; its label only where it touches no
    // other (a narrow panel's axis).
    let mut last_right = i32::MIN;
    for value in &axis.ticks {
        let x = px(*value);
        root.draw(&PathElement::new(
            vec![(x, plot.top), (x, plot.bottom)],
            GRID.stroke_width(1),
        ))?;
        let label = axis.tick_label(*value);
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
            let style = series_style(index);
            let top = (band_top + band * 0.1 + bar * slot as f64).round() as i32;
            let bottom = (band_top + band * 0.1 + bar * (slot + 1) as f64).round() as i32 - 1;
            let bottom = bottom.max(top + 1);
            let corners = [(px(axis.base()), top), (px(s.mean), bottom)];
            draw_bar(root, corners, style, s.mark)?;
            let middle = (top + bottom) / 2;
            if s.max > s.min {
                root.draw(&PathElement::new(
                    vec![(px(s.min), middle), (px(s.max), middle)],
                    TEXT.stroke_width(1),
                ))?;
                for end in [s.min, s.max] {
                    let half = ((bottom - top) / 3).clamp(1, 4);
                    root.draw(&PathElement::new(
                        vec![(px(end), middle - half), (px(end), middle + half)],
                        TEXT.stroke_width(1),
                    ))?;
                }
            }
            // The value and verdict at the end of the bar when the bar is
            // thick enough to read them.
            if bottom - top + 1 >= 11 {
                let label = bar_label(s, chart.percent_of_baseline);
                let x = px(s.max.max(s.mean)) + 5;
                if x + text_width(&label, NOTE_SIZE) <= plot.right + 12 {
                    text(
                        labels,
                        &label,
                        (x, middle),
                        NOTE_SIZE,
                        &TEXT,
                        (HPos::Left, VPos::Center),
                    );
                }
            }
        }
    }
    draw_axes(root, plot)
}

/// What a bar says at its end: its mean (a % of the baseline's with
/// `percent`), count and verdict, or that it is the baseline.
fn bar_label(s: &Summary, percent: bool) -> String {
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

/// The outline of a marker of `shape` centred at `at`, as a closed path.
fn outline(shape: Shape, at: (i32, i32)) -> Vec<(i32, i32)> {
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
fn pale(colour: RGBColor) -> RGBColor {
    let mix = |c: u8| ((u16::from(c) + 3 * 255) / 4) as u8;
    RGBColor(mix(colour.0), mix(colour.1), mix(colour.2))
}

/// A marker of `shape` drawn as `mark` says: filled, hollow, pale,
/// crossed, dash-outlined, or filled and ringed for the baseline.
fn draw_marker<DB: DrawingBackend>(
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

/// A bar (or the legend's swatch of one) drawn as `mark` says; a series
/// of the second dozen carries its marker's shape at the bar's root.
fn draw_bar<DB: DrawingBackend>(
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

/// The legend sits beside the plot so it never hides a line.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    left: i32,
    top: i32,
) -> DrawResult<DB> {
    let (width, height) = root.dim_in_pixel();
    let row_height = 22;
    let line_height = 16;
    let keyed = keyed_marks(chart);
    // Room for the key and the note's lines under the entries.
    let reserved = if chart.note.is_some() { 96 } else { 0 } + keyed.len() as i32 * row_height;
    let bottom = height as i32 - 40 - reserved;
    let text_room = width as i32 - left - 40;
    let bars = chart.categories.is_some();
    // Names wrap at spaces rather than being cut; an entry that no longer
    // fits leaves room for the line that says how many more the table has.
    let mut y = top + 8;
    let mut shown = 0;
    for (index, series) in chart.series.iter().enumerate() {
        let lines = wrap(&series.name, LABEL_SIZE, text_room);
        let needed = row_height + (lines.len() as i32 - 1) * line_height;
        let last = index + 1 == chart.series.len();
        let reserve = if last { 0 } else { row_height };
        if shown > 0 && y + needed + reserve > bottom {
            break;
        }
        let style = series_style(index);
        let mark = if series.is_baseline() {
            Mark::Baseline
        } else {
            Mark::Plain
        };
        if bars {
            draw_bar(root, [(left + 4, y - 6), (left + 26, y + 6)], style, mark)?;
        } else {
            let line = vec![(left, y), (left + 28, y)];
            draw_line(root, line, style, series.dashed)?;
            draw_marker(root, style.shape, (left + 14, y), style.colour, mark)?;
        }
        for (number, line) in lines.iter().enumerate() {
            text(
                labels,
                line,
                (left + 36, y + number as i32 * line_height),
                LABEL_SIZE,
                &TEXT,
                (HPos::Left, VPos::Center),
            );
        }
        y += needed;
        shown += 1;
    }
    if shown < chart.series.len() {
        let more = format!("+ {} more (see table)", chart.series.len() - shown);
        text(
            labels,
            &more,
            (left + 36, y),
            LABEL_SIZE,
            &MUTED,
            (HPos::Left, VPos::Center),
        );
        y += row_height;
    }
    // The key to the marks used, drawn in grey.
    if !keyed.is_empty() {
        y += 4;
    }
    for mark in keyed {
        let style = SeriesStyle {
            colour: MUTED,
            shape: Shape::Circle,
            second_round: false,
        };
        if bars {
            draw_bar(root, [(left + 4, y - 6), (left + 26, y + 6)], style, mark)?;
        } else {
            draw_marker(root, style.shape, (left + 14, y), style.colour, mark)?;
        }
        let lines = wrap(mark.key().unwrap_or_default(), NOTE_SIZE, text_room);
        for (number, line) in lines.iter().enumerate() {
            text(
                labels,
                line,
                (left + 36, y + number as i32 * (NOTE_SIZE as i32 + 3)),
                NOTE_SIZE,
                &TEXT,
                (HPos::Left, VPos::Center),
            );
        }
        y += row_height + (lines.len() as i32 - 1) * (NOTE_SIZE as i32 + 3);
    }
    if let Some(note) = &chart.note {
        let room = width as i32 - left - 8;
        let mut y = y + 6;
        for line in wrap(note, NOTE_SIZE, room).into_iter().take(6) {
            text(
                labels,
                &line,
                (left, y),
                NOTE_SIZE,
                &MUTED,
                (HPos::Left, VPos::Center),
            );
            y += NOTE_SIZE as i32 + 4;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarise_groups_repeats_by_x() {
        let summary = summarise(&[(100.0, 3.0), (10.0, 1.0), (100.0, 5.0)]);
        assert_eq!(summary.len(), 2);
        assert_eq!(
            (summary[0].x, summary[0].mean, summary[0].count),
            (10.0, 1.0, 1)
        );
        assert_eq!(
            (
                summary[1].x,
                summary[1].mean,
                summary[1].min,
                summary[1].max
            ),
            (100.0, 4.0, 3.0, 5.0)
        );
    }

    #[test]
    fn svg_has_the_titles_and_legend() {
        let mut chart = LineChart::new(
            "q_per_s of select_index",
            "threads",
            "queries per second (q/s)",
        );
        chart.series.push(ChartSeries::from_values(
            "ULE / libthr",
            &[(10.0, 30128.44), (100.0, 28581.18)],
        ));
        let svg = render_svg(&chart).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("queries per second (q/s)"));
        assert!(svg.contains("ULE / libthr"));
        assert!(
            svg.contains("30k"),
            "y ticks are formatted by format_number"
        );
    }

    #[test]
    fn repeats_show_their_count() {
        let mut chart = LineChart::new("t", "threads", "q/s");
        chart.series.push(ChartSeries::from_values(
            "a",
            &[(64.0, 1.0), (64.0, 2.0), (64.0, 3.0), (8.0, 2.0)],
        ));
        let svg = render_svg(&chart).unwrap();
        assert!(svg.contains("n=3"), "{svg}");
        assert!(!svg.contains("n=1"));
    }

    #[test]
    fn bars_name_their_categories() {
        let mut chart = Chart::bars(
            "sql-bench",
            "test",
            "wall-clock time (s)",
            vec!["test-ATIS".into(), "test-insert".into()],
        );
        chart.series.push(ChartSeries::from_values(
            "2.4.0",
            &[(0.0, 26.0), (1.0, 1000.0)],
        ));
        let svg = render_svg(&chart).unwrap();
        for needle in ["test-ATIS", "test-insert", "2.4.0", "wall-clock time (s)"] {
            assert!(svg.contains(needle), "{needle}");
        }
    }

    /// A line chart of a baseline and one series whose points all carry
    /// `mark`.
    fn marked(mark: Mark) -> String {
        let mut chart = LineChart::new("t", "threads", "q/s");
        let mut baseline =
            ChartSeries::from_values("base (baseline)", &[(1.0, 10.0), (64.0, 12.0)]);
        for point in &mut baseline.points {
            point.mark = Mark::Baseline;
        }
        let mut series = ChartSeries::from_values("a", &[(1.0, 20.0), (64.0, 30.0)]);
        for point in &mut series.points {
            point.mark = mark;
            point.verdict = Some(format!("{mark:?} here"));
        }
        chart.series = vec![baseline, series];
        render_svg(&chart).unwrap()
    }

    #[test]
    fn each_verdict_is_drawn_apart_and_named_in_the_key() {
        let svgs: Vec<(Mark, String)> = Mark::KEYED.iter().map(|&m| (m, marked(m))).collect();
        // Series 1's colour, orange, in the plot's two points only (the
        // legend's marker is always filled).
        let filled = r##"fill="#E69F00" points="##;
        let pale = r##"fill="#F8E7BF""##;
        let dashed_pieces = |svg: &str| svg.matches(r##"stroke="#E69F00""##).count();
        for (mark, svg) in &svgs {
            let key = mark.key().unwrap();
            assert!(svg.contains(key), "{mark:?}: {svg}");
            for (other, _) in &svgs {
                let other_key = other.key().unwrap();
                assert_eq!(
                    svg.contains(other_key),
                    other == mark,
                    "{mark:?} has {other:?}"
                );
            }
            assert!(
                svg.contains(&format!("{mark:?} here")),
                "the verdict is printed"
            );
            let points_filled = svg.matches(filled).count() - 1;
            assert_eq!(
                points_filled,
                if *mark == Mark::Proven { 2 } else { 0 },
                "{mark:?}"
            );
            assert_eq!(svg.contains(pale), *mark == Mark::TooFewRuns, "{mark:?}");
        }
        let strokes: Vec<usize> = svgs.iter().map(|(_, svg)| dashed_pieces(svg)).collect();
        // Every mark outlines its points (filled, hollow or pale); mixed
        // adds the two strokes of a cross to each; not compared draws its
        // outlines in dashes.
        let [proven, no_difference, _, mixed, not_compared] = strokes[..] else {
            panic!("{strokes:?}")
        };
        assert_eq!(no_difference, proven, "{strokes:?}");
        let hollow = |svg: &str| svg.matches(r##"fill="#FFFFFF" points="##).count();
        assert_eq!(hollow(&svgs[0].1), 0);
        for (mark, svg) in &svgs[1..] {
            // Two points and the key's sample.
            let expected = if *mark == Mark::TooFewRuns { 0 } else { 3 };
            assert_eq!(hollow(svg), expected, "{mark:?}");
        }
        assert_eq!(mixed, no_difference + 4, "{strokes:?}");
        assert!(not_compared > no_difference + 8, "{strokes:?}");
    }

    #[test]
    fn the_baseline_is_drawn_over_the_others_and_ringed() {
        let svg = marked(Mark::Proven);
        let blue_point = svg.find(r##"fill="#0072B2" points="##).unwrap();
        let orange_point = svg.find(r##"fill="#E69F00" points="##).unwrap();
        assert!(blue_point > orange_point, "the baseline comes last");
        // Two points and the legend's marker, each in a dark ring.
        assert_eq!(svg.matches(r##"<circle"##).count(), 3, "{svg}");
        assert_eq!(
            svg.matches(r##"fill="none" stroke="#222222" stroke-width="2""##)
                .count(),
            3,
            "{svg}"
        );
    }

    #[test]
    fn bars_print_their_verdict_and_name_the_baseline() {
        let mut chart = Chart::bars("sysbench", "threads", "q/s", vec!["64 threads".into()]);
        let mut baseline = ChartSeries::from_values("Original (baseline)", &[(0.0, 186470.33)]);
        baseline.points[0].mark = Mark::Baseline;
        let mut series = ChartSeries::from_values("slow LOCK_open", &[(0.0, 217725.0)]);
        series.points[0].mark = Mark::Proven;
        series.points[0].verdict = Some("+16.8% ± 4.3% better".into());
        chart.series = vec![baseline, series];
        let svg = render_svg(&chart).unwrap();
        for needle in [
            "186470.33  baseline",
            "217725  +16.8% ± 4.3% better",
            "Filled: better or worse",
        ] {
            assert!(svg.contains(needle), "{needle}: {svg}");
        }
    }

    #[test]
    fn twenty_four_series_look_alike_in_no_two() {
        let styles: Vec<SeriesStyle> = (0..24).map(series_style).collect();
        let colours: std::collections::HashSet<_> = styles[..12]
            .iter()
            .map(|s| (s.colour.0, s.colour.1, s.colour.2))
            .collect();
        assert_eq!(colours.len(), 12, "twelve series, twelve colours");
        for (i, a) in styles.iter().enumerate() {
            for b in &styles[i + 1..] {
                assert_ne!(a, b, "series {i}");
            }
        }
        // A series of the second dozen repeats a colour, never its shape.
        assert_ne!(styles[0].shape, styles[12].shape);
        assert!(styles[12].second_round && !styles[11].second_round);
    }

    #[test]
    fn the_pages_swatches_have_the_charts_colours() {
        let css = include_str!("../../static/style.css");
        for index in 0..PALETTE.len() {
            let rule = format!(
                ".swatch.s{index} {{ background: {}; }}",
                series_colour(index)
            );
            assert!(css.contains(&rule), "static/style.css lacks {rule}");
        }
    }

    #[test]
    fn a_log_scale_spreads_values_of_every_size() {
        let draw = |log_scale: bool| {
            // One item: items far apart get a panel (and axis) each.
            let mut chart = Chart::bars("sql-bench", "test", "s", vec!["a".into()]);
            chart.series = vec![
                ChartSeries::from_values("2.4.0", &[(0.0, 3.0)]),
                ChartSeries::from_values("2.2.16", &[(0.0, 3000.0)]),
            ];
            chart.log_scale = log_scale;
            render_svg(&chart).unwrap()
        };
        // The first bar of the series' colour is the plot's (the legend's
        // swatch comes after).
        let width_of_bar = |svg: &str, index: usize| -> i32 {
            let fill = [r##"fill="#0072B2""##, r##"fill="#E69F00""##][index];
            let line = svg
                .lines()
                .find(|l| l.starts_with("<rect") && l.contains(fill))
                .unwrap()
                .to_owned();
            line.split(r#"width=""#)
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let (linear, log) = (draw(false), draw(true));
        // Linear: 3 s is a hairline beside 3000 s; log: over a tenth as long.
        assert!(width_of_bar(&linear, 0) <= 1, "{linear}");
        assert!(width_of_bar(&log, 0) * 10 > width_of_bar(&log, 1), "{log}");
        assert!(log.contains("s, log scale") && !linear.contains("log scale"));
        let texts: Vec<&str> = log.lines().collect();
        for tick in ["1", "10", "100"] {
            assert!(texts.contains(&tick), "tick {tick}: {log}");
        }
    }

    #[test]
    fn png_is_a_png() {
        let mut chart = LineChart::new("t", "x", "y");
        chart
            .series
            .push(ChartSeries::from_values("a", &[(1.0, 1.0), (2.0, 4.0)]));
        let png = render_png(&chart).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn an_empty_chart_says_so() {
        let svg = render_svg(&LineChart::new("t", "x", "y")).unwrap();
        assert!(svg.contains("No data"));
    }

    #[test]
    fn long_text_is_cut_to_fit() {
        register_fonts();
        let long = "ULE + libthr + TSC + context_time.patch + cpu_acct_1.patch";
        let cut = fit(long, LABEL_SIZE, 120);
        assert!(
            cut.ends_with('…') && text_width(&cut, LABEL_SIZE) <= 120,
            "{cut}"
        );
        assert_eq!(fit("short", LABEL_SIZE, 120), "short");
    }

    #[test]
    fn legend_names_wrap_at_spaces_and_are_never_cut() {
        register_fonts();
        let long = "ULE + libthr + TSC + context_time.patch + cpu_acct_1.patch";
        let lines = wrap(long, LABEL_SIZE, 120);
        assert!(lines.len() > 2, "{lines:?}");
        assert!(
            lines.iter().all(|l| text_width(l, LABEL_SIZE) <= 120),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), long);
        assert_eq!(wrap("ULE / libthr", LABEL_SIZE, 120), ["ULE / libthr"]);
        // Only a word wider than the room is broken, and nothing is lost.
        let word = "context_time_and_cpu_accounting.patch";
        let lines = wrap(word, LABEL_SIZE, 80);
        assert_eq!(lines.concat(), word);

        let mut chart = Chart::new("t", "threads", "q/s");
        chart.series = vec![
            ChartSeries::from_values(long, &[(1.0, 2.0)]),
            ChartSeries::from_values("4BSD / libpthread / ACPI-fast", &[(1.0, 3.0)]),
        ];
        let svg = render_svg(&chart).unwrap();
        assert!(!svg.contains('…'), "{svg}");
        for word in ["context_time.patch", "cpu_acct_1.patch", "ACPI-fast"] {
            assert!(svg.contains(word), "{word}");
        }
    }
}
