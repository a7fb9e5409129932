//! Colours, fonts and sizes shared by every plot.
//!
//! * Categorical colours: the Okabe–Ito palette (8 colours, safe for the common forms of colour
//!   blindness), reordered so the low-contrast yellow comes last.
//! * Sequential colours: viridis, interpolated from 17 anchors evenly sampled from matplotlib's
//!   256-entry table.
//! * Text: DejaVu Sans, embedded in the crate and registered with plotters' `ab_glyph` text
//!   backend, so PNG output has text on machines without any system font. SVG output names the
//!   family [`FONT_FAMILY`], a CSS list that viewers resolve against their own fonts.

use std::sync::OnceLock;

use plotters::style::{
    register_font, Color, FontDesc, FontFamily, FontStyle, RGBAColor, RGBColor, TextStyle,
};

use super::PlotError;

/// The font family written into SVG `font-family` attributes and the name the embedded font is
/// registered under for bitmap rendering.
pub const FONT_FAMILY: &str = "DejaVu Sans, Arial, sans-serif";

/// DejaVu Sans (Bitstream Vera licence): see `assets/fonts/NOTE.md`.
pub(crate) static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Registers the embedded font with plotters (once per process).
pub(crate) fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        // Our own family name is what every style in this module uses; "sans-serif" covers any
        // plotters default style we did not override.
        register_font(FONT_FAMILY, FontStyle::Normal, FONT_BYTES).is_ok()
            && register_font("sans-serif", FontStyle::Normal, FONT_BYTES).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// An RGB colour, independent of the plotting library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Parses `#rrggbb`.
    pub const fn from_hex(hex: u32) -> Self {
        Rgb((hex >> 16) as u8, (hex >> 8) as u8, hex as u8)
    }

    /// Relative luminance in 0..=1 (sRGB, WCAG formula).
    pub fn luminance(self) -> f64 {
        fn lin(c: u8) -> f64 {
            let c = c as f64 / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        }
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }

    pub(crate) fn rgb(self) -> RGBColor {
        RGBColor(self.0, self.1, self.2)
    }

    pub(crate) fn alpha(self, a: f64) -> RGBAColor {
        self.rgb().mix(a)
    }
}

/// The Okabe–Ito palette, in the order series get their colours.
pub const OKABE_ITO: [Rgb; 8] = [
    Rgb::from_hex(0x0072B2), // blue
    Rgb::from_hex(0xD55E00), // vermillion
    Rgb::from_hex(0x009E73), // bluish green
    Rgb::from_hex(0xCC79A7), // reddish purple
    Rgb::from_hex(0xE69F00), // orange
    Rgb::from_hex(0x56B4E9), // sky blue
    Rgb::from_hex(0x000000), // black
    Rgb::from_hex(0xF0E442), // yellow
];

/// The categorical colour of the `i`-th series (cycles after 8).
pub fn series_color(i: usize) -> Rgb {
    OKABE_ITO[i % OKABE_ITO.len()]
}

/// Viridis anchors: matplotlib's table sampled at 0, 1/16, ..., 1.
const VIRIDIS: [Rgb; 17] = [
    Rgb::from_hex(0x440154),
    Rgb::from_hex(0x48186A),
    Rgb::from_hex(0x472D7B),
    Rgb::from_hex(0x424086),
    Rgb::from_hex(0x3B528B),
    Rgb::from_hex(0x33638D),
    Rgb::from_hex(0x2C728E),
    Rgb::from_hex(0x26828E),
    Rgb::from_hex(0x21918C),
    Rgb::from_hex(0x1FA088),
    Rgb::from_hex(0x28AE80),
    Rgb::from_hex(0x3FBC73),
    Rgb::from_hex(0x5EC962),
    Rgb::from_hex(0x84D44B),
    Rgb::from_hex(0xADDC30),
    Rgb::from_hex(0xD8E219),
    Rgb::from_hex(0xFDE725),
];

/// The viridis colour at `t` in 0..=1 (clamped; NaN maps to the low end).
pub fn viridis(t: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Marker shapes, assigned per series so lines stay distinguishable in greyscale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
    HollowCircle,
}

const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
    Marker::HollowCircle,
];

/// The marker of the `i`-th series (cycles after 8).
pub fn series_marker(i: usize) -> Marker {
    MARKERS[i % MARKERS.len()]
}

// Font sizes in plotters units. Plotters writes `font-size = size / 1.24` into SVG, so the
// em sizes in pixels are: title 19.4, panel title 16.9, axis title 15.3, legend 14.5,
// tick labels and cell values 12.9.
pub(crate) const TITLE_SIZE: f64 = 24.0;
pub(crate) const PANEL_TITLE_SIZE: f64 = 21.0;
pub(crate) const AXIS_TITLE_SIZE: f64 = 19.0;
pub(crate) const LEGEND_SIZE: f64 = 18.0;
pub(crate) const TICK_SIZE: f64 = 16.0;
pub(crate) const CELL_SIZE: f64 = 16.0;
pub(crate) const NO_DATA_SIZE: f64 = 22.0;

pub(crate) const TEXT: Rgb = Rgb::from_hex(0x222222);
pub(crate) const TEXT_MUTED: Rgb = Rgb::from_hex(0x555555);
pub(crate) const AXIS: Rgb = Rgb::from_hex(0x666666);
pub(crate) const GRID: Rgb = Rgb::from_hex(0xE3E3E3);
pub(crate) const MISSING_CELL: Rgb = Rgb::from_hex(0xDDDDDD);
/// Opacity of shaded bands and box fills.
pub(crate) const BAND_ALPHA: f64 = 0.20;
pub(crate) const BOX_ALPHA: f64 = 0.35;

pub(crate) fn font(size: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, FontStyle::Normal)
}

pub(crate) fn text_style(size: f64, color: Rgb) -> TextStyle<'static> {
    font(size).color(&color.rgb())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_endpoints_and_midpoint() {
        assert_eq!(viridis(0.0), Rgb::from_hex(0x440154));
        assert_eq!(viridis(1.0), Rgb::from_hex(0xFDE725));
        assert_eq!(viridis(0.5), Rgb::from_hex(0x21918C));
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(7.0), viridis(1.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        // Monotone in luminance, as a sequential scale should be.
        let mut last = -1.0;
        for i in 0..=100 {
            let l = viridis(i as f64 / 100.0).luminance();
            assert!(l >= last - 1e-3, "viridis not monotone at {i}");
            last = l;
        }
    }

    #[test]
    fn palette_cycles() {
        assert_eq!(series_color(0), series_color(8));
        assert_ne!(series_color(0), series_color(1));
        assert_eq!(series_marker(3), series_marker(11));
    }

    #[test]
    fn embedded_font_registers() {
        ensure_font().unwrap();
        ensure_font().unwrap();
    }
}
