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
//! with the embedded fonts (DejaVu Sans, and a CJK subset for what it
//! lacks): the same data gives the same image on every machine (no system
//! fonts).

use std::sync::Once;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle, FontTransform};

mod axis;
mod bars;
mod format;
mod glyphs;
mod layout;
mod legend;
mod lines;
mod marks;
mod panels;
mod place;
mod text;

pub use format::{format_number, format_tick, format_value, NO_FIGURE};

use axis::*;
use bars::*;
use layout::{log_ticks, nice_ticks, Rect};
use legend::*;
use lines::*;
use marks::*;
use place::*;
use text::*;

/// DejaVu Sans, from Debian's fonts-dejavu-core (see fonts/DejaVuSans.copyright).
static DEJAVU_SANS: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

/// WenQuanYi Micro Hei cut to common Chinese, Japanese and Korean (GB 2312
/// level 1, JIS X 0208 level 1 and kana, KS X 1001 Hangul, CJK
/// punctuation and full-width forms), from Debian's fonts-wqy-microhei by
/// scripts/cjk-font-subset.py (see fonts/WenQuanYiMicroHei-subset.copyright).
static CJK_SANS: &[u8] = include_bytes!("../../fonts/WenQuanYiMicroHei-subset.ttf");

/// The embedded fonts in the order a character is looked up in them: the
/// first that has a glyph for it draws it, in PNG text and in every
/// measurement ([`glyphs`] is the one place that applies the rule).
static FALLBACK_CHAIN: [&[u8]; 2] = [DEJAVU_SANS, CJK_SANS];

/// The font family of SVG text: the embedded fonts' family names in the
/// order of [`FALLBACK_CHAIN`], then the viewer's own sans-serif, so a
/// viewer with neither installed still draws CJK (with its own widths).
const FONT: &str = "DejaVu Sans, WenQuanYi Micro Hei, sans-serif";

/// Makes the embedded font known to plotters. Every chart needs it (with
/// plotters' `ab_glyph` text, even SVG fails without one); call it at
/// start-up. Idempotent, and the render functions call it too. Only
/// DejaVu Sans is registered: plotters keeps one font per family and
/// measures no text of ours (the SVG backend writes `<text>` as given;
/// widths come from [`glyphs`], PNG text is drawn there too).
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
/// (`series_style`).
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
    /// A line chart across ordered values rather than a number
    /// (`x=os_version`): a point's x is the index of its value here, and
    /// every value is a tick named by it, evenly spaced.
    pub x_labels: Option<Vec<String>>,
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
            x_labels: None,
            note: None,
            log_scale: false,
            percent_of_baseline: false,
            width: WIDTH,
            height: HEIGHT,
        }
    }

    /// A line chart across `values`, in their order: a series' point
    /// `(i, v)` is at value `i`.
    pub fn across(
        title: impl Into<String>,
        x_title: impl Into<String>,
        y_title: impl Into<String>,
        values: Vec<String>,
    ) -> Self {
        Chart {
            x_labels: Some(values),
            ..Chart::new(title, x_title, y_title)
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

/// The line at the image's top right counting the verdicts that found no
/// room beside their points: none is dropped without a word.
pub fn not_shown_line(not_shown: usize) -> String {
    match not_shown {
        1 => "1 label not shown: see the table".to_owned(),
        n => format!("{n} labels not shown: see the table"),
    }
}

/// The chart's title at the top left, and at the top right the count of
/// verdicts not shown (when there are any); the title is cut to leave
/// the count its room.
fn draw_title(labels: &mut Labels, chart: &Chart, width: i32, not_shown: usize) {
    let mut room = width - 24;
    if not_shown > 0 {
        let line = not_shown_line(not_shown);
        room -= text_width(&line, LABEL_SIZE) + 16;
        text(
            labels,
            &line,
            (width - 12, 14),
            LABEL_SIZE,
            &MUTED,
            (HPos::Right, VPos::Top),
        );
    }
    text(
        labels,
        &fit(&chart.title, TITLE_SIZE, room.max(40)),
        (12, 10),
        TITLE_SIZE,
        &TEXT,
        (HPos::Left, VPos::Top),
    );
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
    let summaries: Vec<&[Summary]> = chart.series.iter().map(|s| s.points.as_slice()).collect();
    if summaries.iter().all(|points| points.is_empty()) {
        draw_title(labels, chart, width, 0);
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
    let not_shown = match (&grid, &chart.categories) {
        (Some(grid), _) => panels::draw(root, labels, chart, &summaries, grid)?,
        (None, None) => draw_lines(root, labels, chart, &summaries, &summaries, frame)?,
        (None, Some(categories)) => {
            let groups = category_groups(categories, &summaries);
            draw_bars(root, labels, chart, &groups, summaries.len(), frame, true)?
        }
    };
    draw_title(labels, chart, width, not_shown);
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

    /// The labels a chart draws through the PNG's backend: the same
    /// layout as the SVG's, its text read before it is rasterised.
    fn png_labels(chart: &Chart) -> Vec<Label> {
        register_fonts();
        let (width, height) = (chart.drawn_width(), chart.drawn_height());
        let mut rgb = vec![0u8; width as usize * height as usize * 3];
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        draw(&root, chart).unwrap()
    }

    /// The value axis' tick labels of a line chart (right-aligned,
    /// centred on their grid lines), as numbers: `75k` is 75000, `95%`
    /// is 95.
    fn value_ticks(labels: &[Label]) -> Vec<f64> {
        labels
            .iter()
            .filter(|l| matches!(l.anchor, (HPos::Right, VPos::Center)))
            .map(|l| {
                let t = l.text.trim_end_matches('%');
                match t.strip_suffix('k') {
                    Some(k) => k.parse::<f64>().unwrap() * 1e3,
                    None => t.parse::<f64>().unwrap(),
                }
            })
            .collect()
    }

    /// A line chart of a baseline and three series against 1..64
    /// threads, every value between 90k and 200k q/s.
    fn close_values() -> Chart {
        let mut chart = LineChart::new("sysbench", "threads", "q/s");
        for (number, factor) in [1.0, 1.03, 1.06, 0.95].into_iter().enumerate() {
            let values: Vec<(f64, f64)> = [1.0, 4.0, 16.0, 64.0]
                .iter()
                .enumerate()
                .map(|(i, &x)| (x, 95_000.0 * factor * (1.0 + 0.3 * i as f64)))
                .collect();
            chart
                .series
                .push(ChartSeries::from_values(format!("s{number}"), &values));
        }
        chart
    }

    #[test]
    fn a_log_axis_fits_values_under_a_decade() {
        let mut chart = close_values();
        chart.log_scale = true;
        let svg = render_svg(&chart).unwrap();
        let ticks = value_ticks(&png_labels(&chart));
        assert!(ticks.len() >= 4, "{ticks:?}");
        let (low, high) = (ticks[0], ticks[ticks.len() - 1]);
        assert!(low >= 50e3 && high <= 300e3, "{ticks:?}");
        assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
        for tick in &ticks {
            let label = format_tick(*tick, high);
            assert!(svg.lines().any(|l| l == label), "{label}: {svg}");
        }
    }

    #[test]
    fn a_relative_axis_fits_the_differences() {
        let mut chart = close_values();
        chart.percent_of_baseline = true;
        for series in &mut chart.series {
            for (i, point) in series.points.iter_mut().enumerate() {
                let scale = 100.0 / (95_000.0 * (1.0 + 0.3 * i as f64));
                point.mean *= scale;
                point.min *= scale;
                point.max *= scale;
            }
        }
        // Values from 95% to 106%.
        let ticks = value_ticks(&png_labels(&chart));
        assert!(ticks.len() >= 3, "{ticks:?}");
        assert!(
            ticks[0] >= 80.0 && ticks[ticks.len() - 1] <= 120.0,
            "{ticks:?}"
        );
        let step = ticks[1] - ticks[0];
        assert!((1.0..=5.0).contains(&step), "{ticks:?}");
        let svg = render_svg(&chart).unwrap();
        assert!(svg.lines().any(|l| l == "100%"), "{svg}");
        // Bars of the same values keep zero: a bar is read by its length.
        let mut bars = Chart::bars("t", "test", "%", vec!["a".into()]);
        bars.percent_of_baseline = true;
        bars.series = vec![
            ChartSeries::from_values("base", &[(0.0, 100.0)]),
            ChartSeries::from_values("b", &[(0.0, 104.0)]),
        ];
        let svg = render_svg(&bars).unwrap();
        assert!(svg.lines().any(|l| l == "0%"), "{svg}");
        // And lines of the values themselves, on a linear axis.
        let ticks = value_ticks(&png_labels(&close_values()));
        assert_eq!(ticks[0], 0.0, "{ticks:?}");
    }

    /// A baseline and 13 series (so panels of six and the baseline) at
    /// `points` thread counts, each point within a few % of the baseline:
    /// the odd series' differences proven, the even ones' not. Each
    /// verdict says which series and x it belongs to.
    fn crowded(points: usize) -> Chart {
        let xs: Vec<f64> = (0..points).map(|i| f64::from(1u32 << i)).collect();
        let mut chart = LineChart::new("crowded", "threads", "q/s");
        let values = |factor: f64| -> Vec<(f64, f64)> {
            xs.iter().map(|&x| (x, 100_000.0 * factor)).collect()
        };
        let mut baseline = ChartSeries::from_values("base (baseline)", &values(1.0));
        for point in &mut baseline.points {
            point.mark = Mark::Baseline;
        }
        chart.series.push(baseline);
        for number in 1..14 {
            let factor = 1.0 + (number as f64 - 7.0) * 0.004;
            let mut series = ChartSeries::from_values(format!("s{number}"), &values(factor));
            let proven = number % 2 == 1;
            for point in &mut series.points {
                point.mark = if proven {
                    Mark::Proven
                } else {
                    Mark::NoDifference
                };
                let words = if proven { "better" } else { "no difference" };
                point.verdict = Some(format!("s{number}@{} ± 4.0% {words}", point.x));
            }
            chart.series.push(series);
        }
        chart
    }

    #[test]
    fn every_proven_difference_is_labelled_and_the_rest_counted() {
        // Two thread counts: the 26 compared points of issue 38, each
        // labelled; three: the proven all labelled, not all the others.
        for points in [2, 3] {
            let chart = crowded(points);
            let svg = render_svg(&chart).unwrap();
            let labels = png_labels(&chart);
            let verdicts: Vec<(&str, bool)> = chart.series[1..]
                .iter()
                .flat_map(|s| &s.points)
                .map(|p| (p.verdict.as_deref().unwrap(), p.mark == Mark::Proven))
                .collect();
            let mut missing = 0;
            for (verdict, proven) in &verdicts {
                let in_svg = svg.lines().any(|l| l == *verdict);
                let in_png = labels.iter().any(|l| l.text == *verdict);
                assert_eq!(in_svg, in_png, "{verdict}: the same layout");
                assert!(in_svg || !proven, "{points} points: {verdict}: {svg}");
                missing += usize::from(!in_svg);
            }
            let count_line = |svg: &str| {
                svg.lines()
                    .find(|l| l.ends_with("not shown: see the table"))
                    .map(str::to_owned)
            };
            if missing == 0 {
                assert_eq!(count_line(&svg), None, "{points} points");
            } else {
                let label = if missing == 1 { "label" } else { "labels" };
                let want = format!("{missing} {label} not shown: see the table");
                assert_eq!(count_line(&svg), Some(want.clone()), "{points} points");
                assert!(labels.iter().any(|l| l.text == want));
            }
            assert_eq!(missing > 0, points == 3, "{points} points: {svg}");
        }
    }

    #[test]
    fn values_along_x_are_ticks_in_their_order_upright_when_crowded() {
        let draw = |values: &[&str]| {
            let mut chart = Chart::across(
                "t",
                "os_version",
                "s",
                values.iter().map(|v| (*v).to_owned()).collect(),
            );
            let points: Vec<(f64, f64)> = (0..values.len()).map(|i| (i as f64, 10.0)).collect();
            chart
                .series
                .push(ChartSeries::from_values("MySQL", &points));
            render_svg(&chart).unwrap()
        };
        let few = ["2.6.9", "2.6.10", "6.1-RELEASE"];
        let svg = draw(&few);
        let lines: Vec<&str> = svg.lines().collect();
        let at: Vec<usize> = few
            .iter()
            .map(|v| lines.iter().position(|l| l == v).expect(v))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{svg}");
        // The value axis' title is the only upright text.
        assert_eq!(svg.matches("rotate(").count(), 1, "three fit side by side");

        let many: Vec<String> = (0..16).map(|i| format!("2.6.{i}-rc1-smp")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let svg = draw(&many);
        assert_eq!(
            svg.matches("rotate(").count(),
            17,
            "sixteen are set upright"
        );
        for value in &many {
            assert!(svg.lines().any(|l| l == *value), "{value}");
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

    /// Kernels' names in Chinese, Japanese and Korean.
    const CJK_NAMES: [&str; 3] = [
        "内核 6.1 (调度器 ULE)",
        "カーネル 6.2 (スケジューラ)",
        "커널 6.3 (스케줄러)",
    ];

    /// `name` with every non-ASCII character replaced by one that no
    /// embedded font has, which is drawn as the .notdef box.
    fn boxed(name: &str) -> String {
        name.chars()
            .map(|c| if c.is_ascii() { c } else { '\u{E000}' })
            .collect()
    }

    /// `text` drawn black on white at the legend's size.
    fn drawn(text: &str) -> Vec<u8> {
        let (width, height) = (300, 30);
        let mut rgb = vec![255; width as usize * height as usize * 3];
        let label = Label {
            text: text.to_owned(),
            at: (4, 4),
            size: LABEL_SIZE,
            colour: BLACK,
            anchor: (HPos::Left, VPos::Top),
            rotated: false,
        };
        glyphs::draw_labels(&mut rgb, (width, height), &[label]);
        rgb
    }

    #[test]
    fn cjk_names_are_drawn_in_their_own_glyphs() {
        let box_glyph = drawn("\u{E000}");
        for name in CJK_NAMES {
            for c in name.chars() {
                assert!(glyphs::has_glyph(c), "{c:?} of {name:?} has no glyph");
                if c.is_ascii() {
                    continue;
                }
                let glyph = drawn(&c.to_string());
                assert!(glyph.iter().any(|&v| v < 100), "{c:?} left no ink");
                assert!(glyph != box_glyph, "{c:?} of {name:?} is drawn as a box");
            }
        }
        // And so in a chart's PNG: its legend is not that of boxes.
        let png = |names: Vec<String>| {
            let mut chart = Chart::new("t", "threads", "q/s");
            chart.series = names
                .iter()
                .enumerate()
                .map(|(i, name)| ChartSeries::from_values(name, &[(1.0, i as f64 + 1.0)]))
                .collect();
            render_png(&chart).unwrap()
        };
        let names = CJK_NAMES.map(str::to_owned).to_vec();
        let boxes = png(names.iter().map(|n| boxed(n)).collect());
        assert!(png(names) != boxes, "the legend is drawn in boxes");
    }

    #[test]
    fn cjk_text_is_measured_an_em_a_character() {
        use ab_glyph::Font as _;
        let dejavu = ab_glyph::FontRef::try_from_slice(DEJAVU_SANS).unwrap();
        // ab_glyph scales ascent to descent to the size; an em is less.
        let em = LABEL_SIZE as f32 * dejavu.units_per_em().unwrap() / dejavu.height_unscaled();
        for text in ["内核调度器", "カーネル", "스케줄러"] {
            let per_char = glyphs::width(text, LABEL_SIZE) / text.chars().count() as f32;
            assert!(
                (per_char - em).abs() < em * 0.05,
                "{text:?}: {per_char} px a character, an em is {em} px"
            );
        }
        // Mixed text: each part measured in its own font.
        let (name, cjk, rest) = (CJK_NAMES[0], "内核", " 6.1 (调度器 ULE)");
        let sum = glyphs::width(cjk, LABEL_SIZE) + glyphs::width(rest, LABEL_SIZE);
        assert!((glyphs::width(name, LABEL_SIZE) - sum).abs() < 0.5);
        // Cutting to fit counts them so.
        let cut = fit("内核调度器内核调度器", LABEL_SIZE, (em * 5.5) as i32);
        assert_eq!(cut, "内核调度…", "an ellipsis is less than an em");
    }

    #[test]
    fn svg_text_names_a_family_with_cjk() {
        let mut chart = Chart::new("t", "threads", "q/s");
        chart.series = vec![ChartSeries::from_values(CJK_NAMES[0], &[(1.0, 2.0)])];
        let svg = render_svg(&chart).unwrap();
        let label = svg
            .lines()
            .position(|l| l == CJK_NAMES[0])
            .and_then(|i| svg.lines().nth(i.checked_sub(1)?))
            .unwrap_or_else(|| panic!("no label {:?}: {svg}", CJK_NAMES[0]));
        assert!(
            label.contains(r#"font-family="DejaVu Sans, WenQuanYi Micro Hei, sans-serif""#),
            "{label}"
        );
    }
}
