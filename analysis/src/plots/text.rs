//! Bitmap text rendering with the embedded font.
//!
//! plotters 0.3.7's `ab_glyph` text path places each glyph by its ink box rather than its pen
//! position (left side bearings are dropped, so "RESTler" renders as "REST ler") and puts the
//! baseline half an em below the anchor whatever the anchor says. [`PngCanvas`] wraps the bitmap
//! backend, forwards every drawing call to it, and does text itself with `ab_glyph`: pen
//! advances with kerning, sub-pixel glyph placement, anchors that match the SVG output's
//! (`dy="0.76em"` for top, `-0.5ex` for bottom), and rotations.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use super::theme;

/// The embedded font, parsed once.
fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(theme::FONT_BYTES).ok())
        .as_ref()
}

/// A laid-out line of text: each glyph with its pen position (baseline at y = 0), and the
/// total advance width.
struct Line {
    glyphs: Vec<(ab_glyph::GlyphId, f32)>,
    width: f32,
    scale: PxScale,
    em: f32,
}

/// Lays out `text` at plotters size `size`. Plotters' SVG backend writes
/// `font-size = size / 1.24`, so that is the em size here too.
fn layout(font: &FontRef<'static>, text: &str, size: f64) -> Line {
    let em = (size / 1.24) as f32;
    let units = font.units_per_em().unwrap_or(2048.0);
    let scale = PxScale::from(em * font.height_unscaled() / units);
    let scaled = font.as_scaled(scale);
    let mut pen = 0f32;
    let mut prev = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            pen += scaled.kern(p, id);
        }
        glyphs.push((id, pen));
        pen += scaled.h_advance(id);
        prev = Some(id);
    }
    Line {
        glyphs,
        width: pen,
        scale,
        em,
    }
}

/// The bitmap backend with our own text rendering.
pub(crate) struct PngCanvas<'a> {
    inner: BitMapBackend<'a>,
}

impl<'a> PngCanvas<'a> {
    pub(crate) fn new(inner: BitMapBackend<'a>) -> Self {
        PngCanvas { inner }
    }
}

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for PngCanvas<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<'a>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), Error<'a>> {
        match font() {
            Some(f) => {
                let line = layout(f, text, style.size());
                Ok((line.width.ceil() as u32, line.em.ceil() as u32))
            }
            None => self.inner.estimate_text_size(text, style),
        }
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        let Some(f) = font() else {
            return self.inner.draw_text(text, style, pos);
        };
        let line = layout(f, text, style.size());
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -line.width / 2.0,
            HPos::Right => -line.width,
        };
        // Baseline offset from the anchor, as the SVG backend's `dy` puts it.
        let x_height = f
            .as_scaled(line.scale)
            .outline_glyph(f.glyph_id('x').with_scale(line.scale))
            .map_or(0.55 * line.em, |g| -g.px_bounds().min.y);
        let cap_height = f
            .as_scaled(line.scale)
            .outline_glyph(f.glyph_id('H').with_scale(line.scale))
            .map_or(0.73 * line.em, |g| -g.px_bounds().min.y);
        let baseline = match anchor.v_pos {
            VPos::Top => 0.76 * line.em,
            VPos::Center => cap_height / 2.0,
            VPos::Bottom => -0.5 * x_height,
        };
        let trans = style.transform();
        let (w, h) = self.inner.get_size();
        let scaled = f.as_scaled(line.scale);
        for (id, pen) in &line.glyphs {
            let glyph = id.with_scale_and_position(line.scale, point(dx + pen, baseline));
            let Some(outline) = scaled.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            let (bx, by) = (b.min.x as i32, b.min.y as i32);
            let mut result = Ok(());
            outline.draw(|gx, gy, coverage| {
                if result.is_err() || coverage <= 0.0 {
                    return;
                }
                let (tx, ty) = trans.transform(bx + gx as i32, by + gy as i32);
                let (x, y) = (pos.0 + tx, pos.1 + ty);
                if x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h {
                    let c = BackendColor {
                        alpha: color.alpha * coverage.min(1.0) as f64,
                        rgb: color.rgb,
                    };
                    result = self.inner.draw_pixel((x, y), c);
                }
            });
            result?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_uses_advances_and_kerning() {
        let f = font().expect("embedded font parses");
        let w = |t: &str| layout(f, t, 24.0).width;
        // em = 24 / 1.24 px; DejaVu's "M" advances about 0.86 em.
        let m = w("M") / (24.0 / 1.24);
        assert!((0.8..0.92).contains(&m), "M advance {m} em");
        assert!((w("MM") - 2.0 * w("M")).abs() < 0.01);
        // The font's kerning table pulls "AV" together.
        assert!(
            w("AV") < w("A") + w("V") - 0.5,
            "AV {} vs {}",
            w("AV"),
            w("A") + w("V")
        );
        assert_eq!(w(""), 0.0);
    }
}
