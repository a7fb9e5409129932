//! Grouped bar chart: one group of bars per category (x axis), one bar per series (legend).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::common::{self, LegendEntry, Swatch};
use super::theme::{self, series_color};
use super::{Figure, Layout, Plot, PlotError};

/// One series: a value per category, e.g. one selection strategy's value for each metric.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BarSeries {
    pub name: String,
    /// One value per category, in the order of [`GroupedBars::categories`]; NaN leaves the
    /// bar out.
    pub values: Vec<f64>,
}

/// A grouped bar chart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupedBars {
    /// Figure title ("" for none).
    pub title: String,
    /// x-axis title ("" for none).
    pub x_label: String,
    /// Value-axis title with unit.
    pub y_label: String,
    /// Group labels along the x axis, e.g. metrics.
    pub categories: Vec<String>,
    /// Bars within each group, e.g. selection strategies.
    pub series: Vec<BarSeries>,
    /// Fixed value range; `None` fits the data (always including 0).
    pub y_range: Option<(f64, f64)>,
    /// Print each bar's value above it (when it fits), with this many decimals.
    pub value_decimals: Option<usize>,
    pub layout: Layout,
}


/// Renders `plot` to `path` (`.svg` or `.png`).
pub fn grouped_bars(plot: &GroupedBars, path: impl AsRef<Path>) -> Result<(), PlotError> {
    plot.save(path.as_ref())
}

impl Figure for GroupedBars {
    fn size(&self) -> (u32, u32) {
        (self.layout.panel_width, self.layout.panel_height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        for s in &self.series {
            if s.values.len() != self.categories.len() {
                return Err(PlotError::InvalidInput(format!(
                    "series {:?} has {} values for {} categories",
                    s.name,
                    s.values.len(),
                    self.categories.len()
                )));
            }
        }
        let data = common::finite_range(self.series.iter().flat_map(|s| s.values.iter().copied()));
        let legend: Vec<LegendEntry> = if data.is_some() {
            self.series
                .iter()
                .enumerate()
                .map(|(i, s)| LegendEntry {
                    label: s.name.clone(),
                    color: series_color(i),
                    swatch: Swatch::Fill,
                })
                .collect()
        } else {
            Vec::new()
        };
        let body = common::header(root, &self.title, &legend)?;
        let Some((lo, hi)) = data else {
            return common::no_data(&body, "");
        };
        let y_range = common::valid_range(self.y_range).unwrap_or_else(|| {
            let (lo, hi) = (lo.min(0.0), hi.max(0.0));
            let span = if hi > lo { hi - lo } else { 1.0 };
            let head = if self.value_decimals.is_some() {
                0.12
            } else {
                0.06
            };
            (
                if lo < 0.0 { lo - span * head } else { 0.0 },
                if hi > 0.0 {
                    hi + span * head
                } else {
                    0.0 + span * 0.02
                },
            )
        });
        let mut chart = common::category_chart(
            &body,
            "",
            &self.x_label,
            &self.y_label,
            &self.categories,
            y_range,
        )?;
        let (ylo, yhi) = y_range;
        let base = 0f64.clamp(ylo, yhi);
        let n = self.series.len().max(1) as f64;
        let group_w = 0.8;
        let bar_w = group_w / n;
        let gap = bar_w * 0.08;

        // Pixel width of one bar, to decide whether value labels fit.
        let bar_px = {
            let a = chart.plotting_area().map_coordinate(&(0.0, base));
            let b = chart
                .plotting_area()
                .map_coordinate(&(bar_w - 2.0 * gap, base));
            (b.0 - a.0).abs()
        };
        let label_style = theme::text_style(theme::TICK_SIZE, theme::TEXT)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        let label_neg =
            theme::text_style(theme::TICK_SIZE, theme::TEXT).pos(Pos::new(HPos::Center, VPos::Top));

        for (c, _) in self.categories.iter().enumerate() {
            let left = c as f64 - group_w / 2.0;
            for (si, s) in self.series.iter().enumerate() {
                let v = s.values[c];
                if !v.is_finite() {
                    continue;
                }
                let x0 = left + si as f64 * bar_w + gap;
                let x1 = left + (si + 1) as f64 * bar_w - gap;
                let top = v.clamp(ylo, yhi);
                let color = series_color(si);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x0, base), (x1, top)],
                        color.rgb().filled(),
                    )))
                    .map_err(common::draw_err)?;
                if let Some(d) = self.value_decimals {
                    let text = common::fmt_num(v, d);
                    let (tw, _) = common::text_size(&body, &text, theme::TICK_SIZE);
                    if tw as i32 <= bar_px + 6 {
                        let (style, dy) = if v >= 0.0 {
                            (&label_style, -3)
                        } else {
                            (&label_neg, 3)
                        };
                        chart
                            .draw_series(std::iter::once(
                                EmptyElement::at(((x0 + x1) / 2.0, top))
                                    + Text::new(text, (0, dy), style.clone()),
                            ))
                            .map_err(common::draw_err)?;
                    }
                }
            }
        }
        // The zero line, when the axis spans both signs.
        if ylo < 0.0 && yhi > 0.0 {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(-0.5, 0.0), (self.categories.len() as f64 - 0.5, 0.0)],
                    theme::AXIS.rgb().stroke_width(1),
                )))
                .map_err(common::draw_err)?;
        }
        Ok(())
    }
}
