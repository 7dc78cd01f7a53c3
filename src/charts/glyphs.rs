//! Text of PNG charts, laid out and rasterised with ab_glyph from the
//! embedded DejaVu Sans: each glyph placed at its advance plus kerning,
//! with its own left bearing, and blended into the RGB buffer.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, GlyphId, PxScale, ScaleFont};
use plotters::style::text_anchor::{HPos, VPos};

use super::{Label, DEJAVU_SANS};

fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(DEJAVU_SANS).ok())
        .as_ref()
}

/// Glyphs and their x offsets along the baseline, and the total advance.
fn layout(font: &FontRef<'static>, text: &str, size: f64) -> (Vec<(GlyphId, f32)>, f32) {
    let scaled = font.as_scaled(PxScale::from(size as f32));
    let mut caret = 0.0;
    let mut previous: Option<GlyphId> = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(previous) = previous {
            caret += scaled.kern(previous, id);
        }
        glyphs.push((id, caret));
        caret += scaled.h_advance(id);
        previous = Some(id);
    }
    (glyphs, caret)
}

/// The width of `text` in pixels at `size`.
pub fn width(text: &str, size: f64) -> f32 {
    match font() {
        Some(font) => layout(font, text, size).1,
        // Unmeasurable: assume a wide average glyph.
        None => text.chars().count() as f32 * size as f32 * 0.62,
    }
}

/// Blends every label into `rgb` (width × height × 3 bytes).
pub fn draw_labels(rgb: &mut [u8], (width, height): (u32, u32), labels: &[Label]) {
    let Some(font) = font() else {
        return;
    };
    for label in labels {
        let scale = PxScale::from(label.size as f32);
        let scaled = font.as_scaled(scale);
        let (glyphs, advance) = layout(font, &label.text, label.size);
        let line_height = scaled.ascent() - scaled.descent();
        // Top-left of the text box in text coordinates (u along the text, v down).
        let u0 = match label.anchor.0 {
            HPos::Left => 0.0,
            HPos::Center => -advance / 2.0,
            HPos::Right => -advance,
        };
        let v0 = match label.anchor.1 {
            VPos::Top => 0.0,
            VPos::Center => -line_height / 2.0,
            VPos::Bottom => -line_height,
        };
        let (r, g, b) = (label.colour.0, label.colour.1, label.colour.2);
        for (id, x) in glyphs {
            let glyph = id.with_scale_and_position(scale, point(u0 + x, v0 + scaled.ascent()));
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                let u = bounds.min.x as i32 + gx as i32;
                let v = bounds.min.y as i32 + gy as i32;
                // Rotated text reads bottom to top: u goes up, v goes right.
                let (px, py) = if label.rotated {
                    (label.at.0 + v, label.at.1 - u)
                } else {
                    (label.at.0 + u, label.at.1 + v)
                };
                if px < 0 || py < 0 || px >= width as i32 || py >= height as i32 {
                    return;
                }
                let index = (py as usize * width as usize + px as usize) * 3;
                let alpha = coverage.clamp(0.0, 1.0);
                for (offset, colour) in [r, g, b].into_iter().enumerate() {
                    let old = f32::from(rgb[index + offset]);
                    rgb[index + offset] = (old + (f32::from(colour) - old) * alpha).round() as u8;
                }
            });
        }
    }
}
