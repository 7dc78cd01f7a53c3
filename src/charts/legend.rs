//! The legend beside the plot: each series' colour, marker and name, the
//! key to the marks used, and the note.

use super::*;

pub(super) fn legend_width(chart: &Chart, width: i32) -> i32 {
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
pub(super) fn legend_height(chart: &Chart, width: i32) -> u32 {
    let left = width - legend_width(chart, width) + 8;
    let text_room = width - left - 40;
    let entries: i32 = chart
        .series
        .iter()
        .map(|s| ROW_HEIGHT + (wrap(&s.name, LABEL_SIZE, text_room).len() as i32 - 1) * LINE_HEIGHT)
        .sum();
    let note = if chart.note.is_some() { 96 } else { 0 };
    let keyed = keyed_marks(chart).len() as i32 * ROW_HEIGHT;
    // The frame's top, the entries, a spare row, the bottom margin.
    (46 + 8 + entries + ROW_HEIGHT + 40 + note + keyed).max(0) as u32
}

/// The marks the chart's points use that the legend's key explains.
pub(super) fn keyed_marks(chart: &Chart) -> Vec<Mark> {
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

/// The legend sits beside the plot so it never hides a line.
pub(super) fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    left: i32,
    top: i32,
) -> DrawResult<DB> {
    let (width, height) = root.dim_in_pixel();
    let keyed = keyed_marks(chart);
    // Room for the key and the note's lines under the entries.
    let reserved = if chart.note.is_some() { 96 } else { 0 } + keyed.len() as i32 * ROW_HEIGHT;
    let room = Room {
        left,
        bottom: height as i32 - 40 - reserved,
        text: width as i32 - left - 40,
        bars: chart.categories.is_some(),
    };
    let y = draw_entries(root, labels, chart, &room, top + 8)?;
    let y = draw_key(root, labels, &keyed, &room, y)?;
    if let Some(note) = &chart.note {
        let mut y = y + 6;
        for line in wrap(note, NOTE_SIZE, width as i32 - left - 8)
            .into_iter()
            .take(6)
        {
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

/// The height of one legend entry's first line.
const ROW_HEIGHT: i32 = 22;
/// The height of each further line of a wrapped name.
const LINE_HEIGHT: i32 = 16;

/// Where the legend may draw: from `left`, entries down to `bottom`, names
/// `text` pixels wide; `bars`: samples are bars, not lines.
struct Room {
    left: i32,
    bottom: i32,
    text: i32,
    bars: bool,
}

/// Each series' sample and name from row `y`; returns the row after.
/// Names wrap at spaces rather than being cut; an entry that no longer
/// fits leaves room for the line that says how many more the table has.
fn draw_entries<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    chart: &Chart,
    room: &Room,
    mut y: i32,
) -> Result<i32, DrawingAreaErrorKind<DB::ErrorType>> {
    let left = room.left;
    let mut shown = 0;
    for (index, series) in chart.series.iter().enumerate() {
        let lines = wrap(&series.name, LABEL_SIZE, room.text);
        let needed = ROW_HEIGHT + (lines.len() as i32 - 1) * LINE_HEIGHT;
        let last = index + 1 == chart.series.len();
        let reserve = if last { 0 } else { ROW_HEIGHT };
        if shown > 0 && y + needed + reserve > room.bottom {
            break;
        }
        let style = series_style(index);
        let mark = if series.is_baseline() {
            Mark::Baseline
        } else {
            Mark::Plain
        };
        if room.bars {
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
                (left + 36, y + number as i32 * LINE_HEIGHT),
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
        y += ROW_HEIGHT;
    }
    Ok(y)
}

/// The key to the marks used, drawn in grey, from row `y`; returns the
/// row after.
fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &mut Labels,
    keyed: &[Mark],
    room: &Room,
    mut y: i32,
) -> Result<i32, DrawingAreaErrorKind<DB::ErrorType>> {
    let left = room.left;
    if !keyed.is_empty() {
        y += 4;
    }
    for &mark in keyed {
        let style = SeriesStyle {
            colour: MUTED,
            shape: Shape::Circle,
            second_round: false,
        };
        if room.bars {
            draw_bar(root, [(left + 4, y - 6), (left + 26, y + 6)], style, mark)?;
        } else {
            draw_marker(root, style.shape, (left + 14, y), style.colour, mark)?;
        }
        let lines = wrap(mark.key().unwrap_or_default(), NOTE_SIZE, room.text);
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
        y += ROW_HEIGHT + (lines.len() as i32 - 1) * (NOTE_SIZE as i32 + 3);
    }
    Ok(y)
}
