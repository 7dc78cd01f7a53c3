//! Text of PNG charts, laid out and rasterised with ab_glyph from the
//! embedded fonts: each glyph placed at its advance plus kerning, with
//! its own left bearing, and blended into the RGB buffer. Every width the
//! layout measures comes from here too, by the same rule.
//!
//! The rule: a character is drawn by the first font of
//! [`FALLBACK_CHAIN`] that has a glyph for it (DejaVu Sans, then the CJK
//! subset); one that none has is DejaVu's .notdef box. Every font is
//! scaled to the same em as DejaVu Sans at the label's size, and all sit
//! on DejaVu's baseline.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, GlyphId, PxScale, ScaleFont};
use plotters::style::text_anchor::{HPos, VPos};

use super::{Label, FALLBACK_CHAIN};

/// One font of the chain and how to scale it to DejaVu's em.
struct Face {
    font: FontRef<'static>,
    /// This font's `PxScale` per pixel of label size: ab_glyph scales a
    /// font's ascent-to-descent height to the `PxScale`, so a font with
    /// another height per em needs another scale for the same em.
    scale_per_size: f32,
}

/// The parsed fonts of [`FALLBACK_CHAIN`], in its order; the first is
/// DejaVu Sans.
struct Fonts {
    faces: Vec<Face>,
}

/// A font's height (ascent to descent) per em.
fn height_per_em(font: &FontRef<'static>) -> f32 {
    font.height_unscaled() / font.units_per_em().unwrap_or(1000.0)
}

fn fonts() -> Option<&'static Fonts> {
    static FONTS: OnceLock<Option<Fonts>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let parsed: Vec<FontRef<'static>> = FALLBACK_CHAIN
                .iter()
                .filter_map(|bytes| FontRef::try_from_slice(bytes).ok())
                .collect();
            let primary = height_per_em(parsed.first()?);
            let faces = parsed
                .into_iter()
                .map(|font| Face {
                    scale_per_size: height_per_em(&font) / primary,
                    font,
                })
                .collect();
            Some(Fonts { faces })
        })
        .as_ref()
}

impl Fonts {
    /// The font that draws `c` (its index in the chain) and its glyph.
    fn pick(&self, c: char) -> (usize, GlyphId) {
        for (index, face) in self.faces.iter().enumerate() {
            let id = face.font.glyph_id(c);
            if id.0 != 0 {
                return (index, id);
            }
        }
        (0, GlyphId(0))
    }
}

/// Whether a font of the chain has a glyph for `c` (else it is drawn as
/// a box).
#[cfg(test)]
pub(super) fn has_glyph(c: char) -> bool {
    fonts().is_some_and(|fonts| fonts.pick(c).1 .0 != 0)
}

/// Lays `text` out at `size`: calls `place` with each glyph's font, scale,
/// id and x offset along the baseline, and returns the total advance.
/// Kerning applies between neighbours of one font.
fn layout(
    fonts: &Fonts,
    text: &str,
    size: f64,
    mut place: impl FnMut(&Face, PxScale, GlyphId, f32),
) -> f32 {
    let mut caret = 0.0;
    let mut previous: Option<(usize, GlyphId)> = None;
    for c in text.chars() {
        let (index, id) = fonts.pick(c);
        let face = &fonts.faces[index];
        let scale = PxScale::from(size as f32 * face.scale_per_size);
        let scaled = face.font.as_scaled(scale);
        if let Some((previous_index, previous_id)) = previous {
            if previous_index == index {
                caret += scaled.kern(previous_id, id);
            }
        }
        place(face, scale, id, caret);
        caret += scaled.h_advance(id);
        previous = Some((index, id));
    }
    caret
}

/// The width of `text` in pixels at `size`.
pub fn width(text: &str, size: f64) -> f32 {
    match fonts() {
        Some(fonts) => layout(fonts, text, size, |_, _, _, _| {}),
        // Unmeasurable: assume a wide average glyph.
        None => text.chars().count() as f32 * size as f32 * 0.62,
    }
}

/// Blends every label into `rgb` (width × height × 3 bytes).
pub fn draw_labels(rgb: &mut [u8], (width, height): (u32, u32), labels: &[Label]) {
    let Some(fonts) = fonts() else {
        return;
    };
    // The text box and baseline are DejaVu's, whichever font draws.
    let primary = &fonts.faces[0].font;
    for label in labels {
        let scaled = primary.as_scaled(PxScale::from(label.size as f32));
        let advance = layout(fonts, &label.text, label.size, |_, _, _, _| {});
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
        let baseline = v0 + scaled.ascent();
        let (r, g, b) = (label.colour.0, label.colour.1, label.colour.2);
        layout(fonts, &label.text, label.size, |face, scale, id, x| {
            let glyph = id.with_scale_and_position(scale, point(u0 + x, baseline));
            let Some(outline) = face.font.outline_glyph(glyph) else {
                return;
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
        });
    }
}
