//! Charts: data in, SVG or PNG bytes out. Nothing here touches the
//! database or the web; [`LineChart`] is all a chart knows.
//!
//! Text is drawn with the DejaVu Sans font embedded in the binary, so the
//! same data gives the same image on every machine (no system fonts).

use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

mod format;

pub use format::{format_number, format_tick};

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

/// Okabe & Ito's palette, which stays distinguishable with the common
/// colour-vision deficiencies. Yellow comes last: it is faint on white.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
];

/// The CSS hex colour of series `index`, for tables next to a chart.
pub fn series_colour(index: usize) -> String {
    let RGBColor(r, g, b) = PALETTE[index % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// One line of a chart. Points may repeat an x (the same configuration run
/// twice): the line goes through their mean and a whisker spans min to max.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSeries {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_title: String,
    pub y_title: String,
    pub series: Vec<ChartSeries>,
    pub width: u32,
    pub height: u32,
}

impl LineChart {
    pub fn new(
        title: impl Into<String>,
        x_title: impl Into<String>,
        y_title: impl Into<String>,
    ) -> Self {
        LineChart {
            title: title.into(),
            x_title: x_title.into(),
            y_title: y_title.into(),
            series: Vec::new(),
            width: 900,
            height: 480,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("drawing the chart failed: {0}")]
pub struct ChartError(String);

/// The points of one x of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub x: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub count: usize,
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
            }),
        }
    }
    for summary in &mut out {
        summary.mean /= summary.count as f64;
    }
    out
}

/// The chart as an SVG document.
pub fn render_svg(chart: &LineChart) -> Result<String, ChartError> {
    register_fonts();
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (chart.width, chart.height)).into_drawing_area();
        draw(&root, chart)?;
        root.present().map_err(|e| ChartError(e.to_string()))?;
    }
    Ok(svg)
}

/// The chart as a PNG image.
pub fn render_png(chart: &LineChart) -> Result<Vec<u8>, ChartError> {
    register_fonts();
    let (width, height) = (chart.width, chart.height);
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        draw(&root, chart)?;
        root.present().map_err(|e| ChartError(e.to_string()))?;
    }
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

const LEGEND_WIDTH: u32 = 230;
const TEXT: RGBColor = RGBColor(0x22, 0x22, 0x22);
const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);
const GRID_BOLD: RGBColor = RGBColor(0xCC, 0xCC, 0xCC);

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &LineChart,
) -> Result<(), ChartError>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| ChartError(e.to_string());
    root.fill(&WHITE).map_err(fail)?;
    let summaries: Vec<Vec<Summary>> = chart.series.iter().map(|s| summarise(&s.points)).collect();
    let all = || summaries.iter().flatten();
    if all().next().is_none() {
        let style = (FONT, 18).into_font().color(&TEXT);
        root.draw(&Text::new(
            "No data to draw for this choice.",
            (40, chart.height as i32 / 2),
            style,
        ))
        .map_err(fail)?;
        return Ok(());
    }

    let (x_range, y_range) = ranges(all().copied());
    let (plot_area, legend_area) =
        root.split_horizontally(chart.width.saturating_sub(LEGEND_WIDTH));

    let mut cartesian = ChartBuilder::on(&plot_area)
        .caption(&chart.title, (FONT, 18).into_font().color(&TEXT))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x_range.clone(), y_range.clone())
        .map_err(fail)?;
    let (x_max, y_max) = (
        x_range.end.abs().max(x_range.start.abs()),
        y_range.end.abs().max(y_range.start.abs()),
    );
    let x_format = move |v: &f64| format_tick(*v, x_max);
    let y_format = move |v: &f64| format_tick(*v, y_max);
    cartesian
        .configure_mesh()
        .x_desc(chart.x_title.as_str())
        .y_desc(chart.y_title.as_str())
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style((FONT, 13).into_font().color(&TEXT))
        .axis_desc_style((FONT, 14).into_font().color(&TEXT))
        .light_line_style(GRID)
        .max_light_lines(1)
        .bold_line_style(GRID_BOLD)
        .axis_style(TEXT)
        .draw()
        .map_err(fail)?;

    for (index, summary) in summaries.iter().enumerate() {
        let colour = PALETTE[index % PALETTE.len()];
        let line = ShapeStyle::from(colour).stroke_width(2);
        cartesian
            .draw_series(LineSeries::new(summary.iter().map(|s| (s.x, s.mean)), line))
            .map_err(fail)?;
        cartesian
            .draw_series(summary.iter().filter(|s| s.max > s.min).map(|s| {
                PathElement::new(vec![(s.x, s.min), (s.x, s.max)], colour.stroke_width(1))
            }))
            .map_err(fail)?;
        cartesian
            .draw_series(summary.iter().map(|s| marker(index, (s.x, s.mean), colour)))
            .map_err(fail)?;
    }

    draw_legend(&legend_area, chart).map_err(fail)?;
    Ok(())
}

/// A marker whose shape changes with the series as well as its colour, so
/// lines stay apart in greyscale and past the palette's eight colours.
fn marker<DB: DrawingBackend, C: Copy + 'static>(
    index: usize,
    at: C,
    colour: RGBColor,
) -> DynElement<'static, DB, C> {
    let style = ShapeStyle::from(colour).filled();
    match index % 3 {
        0 => Circle::new(at, 4, style).into_dyn(),
        1 => TriangleMarker::new(at, 5, style).into_dyn(),
        _ => Cross::new(at, 4, colour.stroke_width(2)).into_dyn(),
    }
}

/// The legend sits beside the plot so it never hides a line.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &LineChart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = (FONT, 13).into_font().color(&TEXT);
    let row_height = 22;
    let top = 48;
    let (_, height) = area.dim_in_pixel();
    let fits = ((height as i32 - top - 40) / row_height).max(1) as usize;
    let shown = if chart.series.len() > fits {
        fits - 1
    } else {
        chart.series.len()
    };
    for (index, series) in chart.series.iter().take(shown).enumerate() {
        let y = top + index as i32 * row_height;
        let colour = PALETTE[index % PALETTE.len()];
        area.draw(&PathElement::new(
            vec![(4, y), (32, y)],
            colour.stroke_width(2),
        ))?;
        area.draw(&marker(index, (18, y), colour))?;
        area.draw(&Text::new(
            shorten(&series.name, 26),
            (40, y - 7),
            style.clone(),
        ))?;
    }
    if shown < chart.series.len() {
        let y = top + shown as i32 * row_height;
        let more = format!("+ {} more (see table)", chart.series.len() - shown);
        area.draw(&Text::new(more, (40, y - 7), style))?;
    }
    Ok(())
}

fn shorten(name: &str, max_chars: usize) -> String {
    if name.chars().count() <= max_chars {
        name.to_owned()
    } else {
        let mut short: String = name.chars().take(max_chars - 1).collect();
        short.push('…');
        short
    }
}

/// Axis ranges with some air around the data. Throughput and times are
/// never negative, so y starts at zero then: a chart that starts at 18000
/// makes a 5% difference look like a doubling.
fn ranges(
    summaries: impl Iterator<Item = Summary>,
) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let (mut x_min, mut x_max) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y_min, mut y_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in summaries {
        x_min = x_min.min(s.x);
        x_max = x_max.max(s.x);
        y_min = y_min.min(s.min);
        y_max = y_max.max(s.max);
    }
    let x_pad = if x_max > x_min {
        (x_max - x_min) * 0.05
    } else {
        (x_min.abs() * 0.1).max(1.0)
    };
    let y_low = if y_min >= 0.0 { 0.0 } else { y_min * 1.1 };
    let y_high = if y_max > 0.0 {
        y_max * 1.08
    } else if y_max == 0.0 {
        1.0
    } else {
        0.0
    };
    let y_high = if y_high <= y_low { y_low + 1.0 } else { y_high };
    (x_min - x_pad..x_max + x_pad, y_low..y_high)
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
        chart.series.push(ChartSeries {
            name: "ULE / libthr".into(),
            points: vec![(10.0, 30128.44), (100.0, 28581.18)],
        });
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
    fn png_is_a_png() {
        let mut chart = LineChart::new("t", "x", "y");
        chart.series.push(ChartSeries {
            name: "a".into(),
            points: vec![(1.0, 1.0), (2.0, 4.0)],
        });
        let png = render_png(&chart).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn an_empty_chart_says_so() {
        let svg = render_svg(&LineChart::new("t", "x", "y")).unwrap();
        assert!(svg.contains("No data"));
    }
}
