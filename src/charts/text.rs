//! Text: the embedded fonts measured, cut and wrapped, and the labels drawn
//! after the shapes (SVG through plotters, PNG by [`super::glyphs`]).

use super::*;

pub(super) fn font(size: f64) -> FontDesc<'static> {
    (FONT, size).into_font()
}

/// The width of `text` in pixels, measured with the embedded fonts (each
/// character in the font that draws it, [`glyphs`]).
pub(super) fn text_width(text: &str, size: f64) -> i32 {
    glyphs::width(text, size).ceil() as i32
}

/// `text` cut (with an ellipsis) to fit `max_width` pixels.
pub(super) fn fit(text: &str, size: f64, max_width: i32) -> String {
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
pub(super) fn wrap(text: &str, size: f64, max_width: i32) -> Vec<String> {
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
pub(super) struct Label {
    pub(super) text: String,
    pub(super) at: (i32, i32),
    pub(super) size: f64,
    pub(super) colour: RGBColor,
    pub(super) anchor: (HPos, VPos),
    /// Reads bottom to top (the value axis' title).
    pub(super) rotated: bool,
}

pub(super) type Labels = Vec<Label>;

pub(super) fn text(
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
pub(super) fn draw_labels_svg<DB: DrawingBackend>(
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
