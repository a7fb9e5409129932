//! Metric-over-budget curves: one line per series (technique) with a shaded band, one panel per
//! subject, a shared legend.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::common::{self, LegendEntry, Swatch, XyPanel};
use super::theme::{self, series_color, series_marker};
use super::{Figure, Layout, Plot, PlotError};

/// One line with an optional band, e.g. the mean coverage of one technique over budgets with
/// the min–max or 95% CI band across repetitions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BandSeries {
    /// Legend label; series with the same name share a colour across panels.
    pub name: String,
    pub x: Vec<f64>,
    /// The line (e.g. the mean across repetitions), same length as `x`.
    pub mean: Vec<f64>,
    /// Lower edge of the band, same length as `x`; `None` for no band.
    pub lower: Option<Vec<f64>>,
    /// Upper edge of the band, same length as `x`; `None` for no band.
    pub upper: Option<Vec<f64>>,
}

/// One panel (e.g. one subject).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineBandPanel {
    pub title: String,
    pub series: Vec<BandSeries>,
}

/// A grid of line-with-band panels sharing one legend.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineBandPlot {
    /// Figure title ("" for none).
    pub title: String,
    /// x-axis title with unit, e.g. "budget (% of HTTP calls)".
    pub x_label: String,
    /// y-axis title with unit, e.g. "line coverage (%)".
    pub y_label: String,
    pub panels: Vec<LineBandPanel>,
    /// What the band shows, added to the legend, e.g. "shaded: min–max over 10 runs".
    pub band_label: Option<String>,
    /// Fixed y range for every panel; `None` fits each panel to its data.
    pub y_range: Option<(f64, f64)>,
    /// Draw a marker at every data point (shapes differ per series).
    pub markers: bool,
    pub layout: Layout,
}

/// Renders `plot` to `path` (`.svg` or `.png`).
pub fn line_band(plot: &LineBandPlot, path: impl AsRef<Path>) -> Result<(), PlotError> {
    plot.save(path.as_ref())
}

impl LineBandPlot {
    fn validate(&self) -> Result<(), PlotError> {
        for p in &self.panels {
            for s in &p.series {
                let n = s.x.len();
                let bad = |what: &str, len: usize| {
                    PlotError::InvalidInput(format!(
                        "panel {:?}, series {:?}: {what} has {len} values but x has {n}",
                        p.title, s.name
                    ))
                };
                if s.mean.len() != n {
                    return Err(bad("mean", s.mean.len()));
                }
                if let Some(l) = &s.lower {
                    if l.len() != n {
                        return Err(bad("lower", l.len()));
                    }
                }
                if let Some(u) = &s.upper {
                    if u.len() != n {
                        return Err(bad("upper", u.len()));
                    }
                }
            }
        }
        Ok(())
    }

    fn names(&self) -> Vec<String> {
        common::name_index(
            self.panels
                .iter()
                .flat_map(|p| p.series.iter().map(|s| s.name.as_str())),
        )
    }
}

/// `(x, mean, lower, upper)`; missing band edges are NaN.
type Row = (f64, f64, f64, f64);

/// A series as sorted rows `(x, mean, lower, upper)` with finite x.
fn rows(s: &BandSeries) -> Vec<Row> {
    let mut rows: Vec<_> = (0..s.x.len())
        .map(|i| {
            let band = |b: &Option<Vec<f64>>| b.as_ref().map_or(f64::NAN, |v| v[i]);
            (s.x[i], s.mean[i], band(&s.lower), band(&s.upper))
        })
        .filter(|r| r.0.is_finite())
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    rows
}

/// Maximal runs of rows whose band edges are both finite, as `(x, lower, upper)`.
fn band_runs(rows: &[Row]) -> Vec<Vec<(f64, f64, f64)>> {
    let mut runs = Vec::new();
    let mut cur = Vec::new();
    for &(x, _, lo, hi) in rows {
        if lo.is_finite() && hi.is_finite() {
            cur.push((x, lo.min(hi), lo.max(hi)));
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    runs
}

fn panel_has_data(p: &LineBandPanel) -> bool {
    p.series.iter().any(|s| {
        rows(s)
            .iter()
            .any(|r| r.1.is_finite() || (r.2.is_finite() && r.3.is_finite()))
    })
}

impl Figure for LineBandPlot {
    fn size(&self) -> (u32, u32) {
        self.layout.figure_size(self.panels.len())
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        self.validate()?;
        let names = self.names();
        let has_band = self
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .any(|s| s.lower.is_some() && s.upper.is_some());
        let any_data = self.panels.iter().any(panel_has_data);

        let mut legend: Vec<LegendEntry> = names
            .iter()
            .enumerate()
            .map(|(i, n)| LegendEntry {
                label: n.clone(),
                color: series_color(i),
                swatch: Swatch::Line {
                    marker: self.markers.then(|| series_marker(i)),
                    band: has_band,
                },
            })
            .collect();
        if let (Some(label), true) = (&self.band_label, has_band) {
            legend.push(LegendEntry {
                label: label.clone(),
                color: theme::TEXT_MUTED,
                swatch: Swatch::Band,
            });
        }
        common::panel_grid(root, &self.title, &legend, any_data, &self.layout, &self.panels, |area, panel| {
            self.draw_panel(area, panel, &names)
        })
    }
}

impl LineBandPlot {
    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        panel: &LineBandPanel,
        names: &[String],
    ) -> Result<(), PlotError> {
        let all: Vec<(usize, Vec<Row>)> = panel
            .series
            .iter()
            .map(|s| {
                (
                    names.iter().position(|n| n == &s.name).unwrap_or(0),
                    rows(s),
                )
            })
            .collect();
        let x_range = common::finite_range(
            all.iter()
                .flat_map(|(_, r)| r.iter())
                .filter(|r| r.1.is_finite() || (r.2.is_finite() && r.3.is_finite()))
                .map(|r| r.0),
        );
        let y_data = common::finite_range(all.iter().flat_map(|(_, r)| {
            r.iter().flat_map(|&(_, m, lo, hi)| {
                let band = lo.is_finite() && hi.is_finite();
                [
                    m,
                    if band { lo } else { f64::NAN },
                    if band { hi } else { f64::NAN },
                ]
            })
        }));
        let (Some(x_range), Some(y_data)) = (x_range, y_data) else {
            return common::no_data(area, &panel.title);
        };
        let x_range = if x_range.1 > x_range.0 {
            x_range
        } else {
            common::pad_range(x_range, 0.0)
        };
        let y_range =
            common::valid_range(self.y_range).unwrap_or_else(|| common::pad_range(y_data, 0.05));
        let mut chart = common::xy_chart(
            area,
            &XyPanel {
                caption: &panel.title,
                x_title: &self.x_label,
                y_title: &self.y_label,
                x_range,
                y_range,
            },
        )?;
        let clamp_y = |y: f64| y.clamp(y_range.0, y_range.1);

        // Bands first, so every line is drawn on top of every band.
        for (ci, r) in &all {
            let color = series_color(*ci);
            for run in band_runs(r) {
                if let [(x, lo, hi)] = run[..] {
                    // A lone point: show the band as a vertical bar.
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(x, clamp_y(lo)), (x, clamp_y(hi))],
                            color.alpha(0.5).stroke_width(6),
                        )))
                        .map_err(common::draw_err)?;
                } else {
                    let poly: Vec<(f64, f64)> = run
                        .iter()
                        .map(|&(x, _, hi)| (x, clamp_y(hi)))
                        .chain(run.iter().rev().map(|&(x, lo, _)| (x, clamp_y(lo))))
                        .collect();
                    chart
                        .draw_series(std::iter::once(Polygon::new(
                            poly,
                            color.alpha(theme::BAND_ALPHA).filled(),
                        )))
                        .map_err(common::draw_err)?;
                }
            }
        }
        for (ci, r) in &all {
            let color = series_color(*ci);
            let pts: Vec<(f64, f64)> = r.iter().map(|&(x, m, _, _)| (x, m)).collect();
            for run in common::finite_runs(&pts) {
                let run: Vec<(f64, f64)> = run.into_iter().map(|(x, y)| (x, clamp_y(y))).collect();
                if run.len() == 1 && !self.markers {
                    let p = common::to_pixel(&chart, run[0]);
                    common::draw_marker(
                        &chart.plotting_area().use_screen_coord(),
                        p,
                        theme::Marker::Circle,
                        color,
                        4,
                    )?;
                }
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        run,
                        color.rgb().stroke_width(3),
                    )))
                    .map_err(common::draw_err)?;
            }
            if self.markers {
                let screen = chart.plotting_area().use_screen_coord();
                for &(x, y) in pts.iter().filter(|p| p.1.is_finite()) {
                    let p = common::to_pixel(&chart, (x, clamp_y(y)));
                    common::draw_marker(&screen, p, series_marker(*ci), color, 5)?;
                }
            }
        }
        Ok(())
    }
}
