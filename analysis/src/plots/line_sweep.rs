//! A metric against a swept parameter (e.g. recall against the frequent threshold): one line
//! with markers per group.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::common::{self, LegendEntry, Swatch, XyPanel};
use super::theme::{series_color, series_marker};
use super::{Figure, Layout, Plot, PlotError};

/// One line: the metric at each parameter value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepSeries {
    pub name: String,
    /// Parameter values.
    pub x: Vec<f64>,
    /// Metric values, same length as `x`.
    pub y: Vec<f64>,
}

/// A single-panel line chart with markers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineSweep {
    /// Figure title ("" for none).
    pub title: String,
    /// Title of the swept parameter's axis, e.g. "frequent threshold".
    pub x_label: String,
    /// Title of the metric's axis, e.g. "recall".
    pub y_label: String,
    pub series: Vec<SweepSeries>,
    /// Fixed x range; `None` fits the data.
    pub x_range: Option<(f64, f64)>,
    /// Fixed y range; `None` fits the data.
    pub y_range: Option<(f64, f64)>,
    /// Size of the figure (`columns` is ignored).
    pub layout: Layout,
}

/// Renders `plot` to `path` (`.svg` or `.png`).
pub fn line_sweep(plot: &LineSweep, path: impl AsRef<Path>) -> Result<(), PlotError> {
    plot.save(path.as_ref())
}

impl Figure for LineSweep {
    fn size(&self) -> (u32, u32) {
        (self.layout.panel_width, self.layout.panel_height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        for s in &self.series {
            if s.x.len() != s.y.len() {
                return Err(PlotError::InvalidInput(format!(
                    "series {:?}: x has {} values but y has {}",
                    s.name,
                    s.x.len(),
                    s.y.len()
                )));
            }
        }
        let points: Vec<Vec<(f64, f64)>> = self
            .series
            .iter()
            .map(|s| {
                let mut p: Vec<(f64, f64)> =
                    s.x.iter()
                        .copied()
                        .zip(s.y.iter().copied())
                        .filter(|p| p.0.is_finite())
                        .collect();
                p.sort_by(|a, b| a.0.total_cmp(&b.0));
                p
            })
            .collect();
        let finite = || points.iter().flatten().filter(|p| p.1.is_finite());
        let x_data = common::finite_range(finite().map(|p| p.0));
        let y_data = common::finite_range(finite().map(|p| p.1));
        let legend: Vec<LegendEntry> = if x_data.is_some() {
            self.series
                .iter()
                .enumerate()
                .map(|(i, s)| LegendEntry {
                    label: s.name.clone(),
                    color: series_color(i),
                    swatch: Swatch::Line {
                        marker: Some(series_marker(i)),
                        band: false,
                    },
                })
                .collect()
        } else {
            Vec::new()
        };
        let body = common::header(root, &self.title, &legend)?;
        let (Some(x_data), Some(y_data)) = (x_data, y_data) else {
            return common::no_data(&body, "");
        };
        let x_range =
            common::valid_range(self.x_range).unwrap_or_else(|| common::pad_range(x_data, 0.03));
        let y_range =
            common::valid_range(self.y_range).unwrap_or_else(|| common::pad_range(y_data, 0.06));
        let mut chart = common::xy_chart(
            &body,
            &XyPanel {
                caption: "",
                x_title: &self.x_label,
                y_title: &self.y_label,
                x_range,
                y_range,
            },
        )?;
        let clamp =
            |(x, y): (f64, f64)| (x.clamp(x_range.0, x_range.1), y.clamp(y_range.0, y_range.1));
        let screen = chart.plotting_area().use_screen_coord();
        for (i, pts) in points.iter().enumerate() {
            let color = series_color(i);
            for run in common::finite_runs(pts) {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        run.into_iter().map(clamp).collect::<Vec<_>>(),
                        color.rgb().stroke_width(3),
                    )))
                    .map_err(common::draw_err)?;
            }
            for &p in pts.iter().filter(|p| p.1.is_finite()) {
                let px = common::to_pixel(&chart, clamp(p));
                common::draw_marker(&screen, px, series_marker(i), color, 5)?;
            }
        }
        Ok(())
    }
}
