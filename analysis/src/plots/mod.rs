//! Paper-ready plots of study results.
//!
//! Every plot kind is a plain data struct plus a function that renders it to a file:
//!
//! | kind | struct | function |
//! | --- | --- | --- |
//! | metric-over-budget curves with shaded bands, one panel per subject | [`LineBandPlot`] | [`line_band`] |
//! | box plots per technique, one panel per subject | [`BoxPlot`] | [`boxplot`] |
//! | grouped bar chart | [`GroupedBars`] | [`grouped_bars`] |
//! | matrix heatmap with a viridis colour bar | [`Heatmap`] | [`heatmap`] |
//! | metric against a swept parameter, lines with markers | [`LineSweep`] | [`line_sweep`] |
//!
//! The output format follows the file extension: `.svg` or `.png` (case-insensitive). The
//! [`Plot`] trait gives the same renderings in memory (an SVG string or PNG bytes), e.g. to
//! inline an SVG into an HTML report.
//!
//! Conventions shared by all kinds:
//! * Non-finite values (NaN, ±inf) are skipped: lines break there, bars and cells are left out.
//!   A plot (or a panel) without any finite data renders its title and the text "no data"; it is
//!   never an error and never panics.
//! * Mismatched input lengths (e.g. `x` and `mean` of different lengths) are an error,
//!   [`PlotError::InvalidInput`].
//! * Series get colours from the Okabe–Ito palette by their order of first appearance, and the
//!   same name keeps the same colour across the panels of one figure. Pass series in the same
//!   order to every figure to keep colours stable across figures.
//! * Text uses the embedded DejaVu Sans (see [`theme`]), so PNGs render text without any system
//!   font.

mod common;
mod text;

mod boxplot;
mod grouped_bars;
mod heatmap;
mod line_band;
mod line_sweep;
pub mod theme;

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

pub use boxplot::{boxplot, quantile_type7, BoxGroup, BoxPanel, BoxPlot, BoxStats};
pub use grouped_bars::{grouped_bars, BarSeries, GroupedBars};
pub use heatmap::{heatmap, Heatmap, MAX_LABELLED_SIDE};
pub use line_band::{line_band, BandSeries, LineBandPanel, LineBandPlot};
pub use line_sweep::{line_sweep, LineSweep, SweepSeries};
pub use theme::{series_color, viridis, Rgb, FONT_FAMILY, OKABE_ITO};

/// Why a plot could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The output path has no `.svg` or `.png` extension.
    #[error("unsupported plot file {0:?}: the extension must be .svg or .png")]
    UnsupportedFormat(PathBuf),
    /// The figure would be empty or unreasonably large.
    #[error("invalid figure size {width}x{height} (each side must be 1..={max})", max = MAX_SIDE)]
    InvalidSize { width: u32, height: u32 },
    /// The input data is inconsistent (e.g. arrays of different lengths).
    #[error("invalid plot input: {0}")]
    InvalidInput(String),
    /// The embedded font could not be loaded.
    #[error("the embedded font could not be registered with the plotting backend")]
    Font,
    /// The plotting backend failed.
    #[error("drawing failed: {0}")]
    Draw(String),
    /// PNG encoding failed.
    #[error("encoding PNG: {0}")]
    Png(String),
    /// The output file could not be written.
    #[error("writing {path:?}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Largest accepted figure side in pixels.
pub const MAX_SIDE: u32 = 16_384;

/// Output file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Svg,
    Png,
}

impl OutputFormat {
    /// The format named by the path's extension.
    pub fn from_path(path: &Path) -> Result<Self, PlotError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("svg") => Ok(OutputFormat::Svg),
            Some("png") => Ok(OutputFormat::Png),
            _ => Err(PlotError::UnsupportedFormat(path.to_path_buf())),
        }
    }
}

/// Size of one panel and how panels are arranged.
///
/// Single-panel kinds ([`GroupedBars`], [`LineSweep`], and [`Heatmap`] up to its minimum cell
/// size) produce a figure of exactly `panel_width` × `panel_height`. Multi-panel kinds
/// ([`LineBandPlot`], [`BoxPlot`]) produce `columns × panel_width` by `rows × panel_height`;
/// the figure title and the shared legend take their room out of that total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub panel_width: u32,
    pub panel_height: u32,
    /// Panels per row; `None` picks a near-square grid (up to 3 panels side by side).
    pub columns: Option<usize>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            panel_width: 800,
            panel_height: 500,
            columns: None,
        }
    }
}

impl Layout {
    /// `(columns, rows)` of the grid for `n_panels` panels (at least 1×1).
    pub fn grid(&self, n_panels: usize) -> (usize, usize) {
        let n = n_panels.max(1);
        let cols = match self.columns {
            Some(c) => c.clamp(1, n),
            None if n <= 3 => n,
            None => (n as f64).sqrt().ceil() as usize,
        };
        (cols, n.div_ceil(cols))
    }

    /// Figure size in pixels for `n_panels` panels.
    pub fn figure_size(&self, n_panels: usize) -> (u32, u32) {
        let (cols, rows) = self.grid(n_panels);
        (
            self.panel_width.saturating_mul(cols as u32),
            self.panel_height.saturating_mul(rows as u32),
        )
    }
}

/// Something that draws itself onto a plotters drawing area.
pub(crate) trait Figure {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>;
}

/// Rendering shared by all plot kinds.
pub trait Plot {
    /// Figure size in pixels, `(width, height)`.
    fn figure_size(&self) -> (u32, u32);
    /// The figure as an SVG document.
    fn to_svg(&self) -> Result<String, PlotError>;
    /// The figure as PNG file bytes (8-bit RGB).
    fn to_png(&self) -> Result<Vec<u8>, PlotError>;
    /// Writes the figure to `path`, as SVG or PNG by its extension.
    fn save(&self, path: &Path) -> Result<(), PlotError> {
        let bytes = match OutputFormat::from_path(path)? {
            OutputFormat::Svg => self.to_svg()?.into_bytes(),
            OutputFormat::Png => self.to_png()?,
        };
        std::fs::write(path, bytes).map_err(|source| PlotError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

macro_rules! impl_plot {
    ($($t:ty),*) => {$(
        impl Plot for $t {
            fn figure_size(&self) -> (u32, u32) {
                Figure::size(self)
            }
            fn to_svg(&self) -> Result<String, PlotError> {
                render_svg(self)
            }
            fn to_png(&self) -> Result<Vec<u8>, PlotError> {
                render_png(self)
            }
        }
    )*};
}
impl_plot!(LineBandPlot, BoxPlot, GroupedBars, Heatmap, LineSweep);

fn checked_size<F: Figure>(fig: &F) -> Result<(u32, u32), PlotError> {
    let (width, height) = fig.size();
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(PlotError::InvalidSize { width, height });
    }
    Ok((width, height))
}

fn render_svg<F: Figure>(fig: &F) -> Result<String, PlotError> {
    theme::ensure_font()?;
    let size = checked_size(fig)?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(common::draw_err)?;
        fig.draw(&root)?;
        root.present().map_err(common::draw_err)?;
    }
    Ok(out)
}

fn render_png<F: Figure>(fig: &F) -> Result<Vec<u8>, PlotError> {
    theme::ensure_font()?;
    let (w, h) = checked_size(fig)?;
    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    {
        let root =
            text::PngCanvas::new(BitMapBackend::with_buffer(&mut rgb, (w, h))).into_drawing_area();
        root.fill(&WHITE).map_err(common::draw_err)?;
        fig.draw(&root)?;
        root.present().map_err(common::draw_err)?;
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let png_err = |e: png::EncodingError| PlotError::Png(e.to_string());
        let mut writer = encoder.write_header().map_err(png_err)?;
        writer.write_image_data(&rgb).map_err(png_err)?;
        writer.finish().map_err(png_err)?;
    }
    Ok(out)
}
