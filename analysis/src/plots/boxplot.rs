//! Box plots per group (technique), one panel per subject: quartiles by R's type-7 definition,
//! whiskers to the most extreme values within 1.5 IQR of the box, outliers as points.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::common::{self, LegendEntry, Swatch};
use super::theme::{self, series_color};
use super::{Figure, Layout, Plot, PlotError};

/// The sample of one group, e.g. the final coverage of one technique over repetitions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoxGroup {
    /// x-axis label and legend entry; groups with the same name share a colour across panels.
    pub name: String,
    /// Observations; non-finite values are ignored.
    pub values: Vec<f64>,
}

/// One panel (e.g. one subject).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoxPanel {
    pub title: String,
    pub groups: Vec<BoxGroup>,
}

/// A grid of box-plot panels sharing one legend.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoxPlot {
    /// Figure title ("" for none).
    pub title: String,
    /// x-axis title, e.g. "technique" ("" for none).
    pub x_label: String,
    /// y-axis title with unit, e.g. "line coverage (%)".
    pub y_label: String,
    pub panels: Vec<BoxPanel>,
    /// Fixed y range for every panel; `None` fits each panel to its data.
    pub y_range: Option<(f64, f64)>,
    pub layout: Layout,
}

/// Renders `plot` to `path` (`.svg` or `.png`).
pub fn boxplot(plot: &BoxPlot, path: impl AsRef<Path>) -> Result<(), PlotError> {
    plot.save(path.as_ref())
}

/// The `p`-quantile (0 ≤ p ≤ 1) of ascending `sorted` data by R's default (type 7) definition:
/// linear interpolation between the order statistics at `h = (n - 1) p`. `None` when empty or
/// `p` is outside 0..=1.
pub fn quantile_type7(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// Tukey box-plot statistics of one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxStats {
    /// Number of finite observations.
    pub n: usize,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    /// Smallest observation ≥ q1 − 1.5 IQR.
    pub whisker_low: f64,
    /// Largest observation ≤ q3 + 1.5 IQR.
    pub whisker_high: f64,
    /// Observations beyond the whiskers, ascending.
    pub outliers: Vec<f64>,
}

impl BoxStats {
    /// Statistics of the finite `values`; `None` if there are none.
    pub fn from_values(values: &[f64]) -> Option<BoxStats> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let q1 = quantile_type7(&v, 0.25)?;
        let median = quantile_type7(&v, 0.5)?;
        let q3 = quantile_type7(&v, 0.75)?;
        let iqr = q3 - q1;
        let (lo_fence, hi_fence) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
        let inside = || {
            v.iter()
                .copied()
                .filter(|x| *x >= lo_fence && *x <= hi_fence)
        };
        // Both fences bracket the median, so at least one observation is inside.
        let whisker_low = inside().fold(f64::INFINITY, f64::min);
        let whisker_high = inside().fold(f64::NEG_INFINITY, f64::max);
        let outliers = v
            .iter()
            .copied()
            .filter(|x| *x < lo_fence || *x > hi_fence)
            .collect();
        Some(BoxStats {
            n: v.len(),
            q1,
            median,
            q3,
            whisker_low,
            whisker_high,
            outliers,
        })
    }
}

impl BoxPlot {
    fn names(&self) -> Vec<String> {
        common::name_index(
            self.panels
                .iter()
                .flat_map(|p| p.groups.iter().map(|g| g.name.as_str())),
        )
    }
}

impl Figure for BoxPlot {
    fn size(&self) -> (u32, u32) {
        self.layout.figure_size(self.panels.len())
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let names = self.names();
        let any_data = self
            .panels
            .iter()
            .flat_map(|p| &p.groups)
            .any(|g| g.values.iter().any(|v| v.is_finite()));
        let legend: Vec<LegendEntry> = names
            .iter()
            .enumerate()
            .map(|(i, n)| LegendEntry {
                label: n.clone(),
                color: series_color(i),
                swatch: Swatch::Fill,
            })
            .collect();
        common::panel_grid(root, &self.title, &legend, any_data, &self.layout, &self.panels, |area, panel| {
            self.draw_panel(area, panel, &names)
        })
    }
}

impl BoxPlot {
    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        panel: &BoxPanel,
        names: &[String],
    ) -> Result<(), PlotError> {
        let stats: Vec<Option<BoxStats>> = panel
            .groups
            .iter()
            .map(|g| BoxStats::from_values(&g.values))
            .collect();
        let data = common::finite_range(panel.groups.iter().flat_map(|g| g.values.iter().copied()));
        let Some(data) = data else {
            return common::no_data(area, &panel.title);
        };
        let y_range =
            common::valid_range(self.y_range).unwrap_or_else(|| common::pad_range(data, 0.06));
        let labels: Vec<String> = panel.groups.iter().map(|g| g.name.clone()).collect();
        let mut chart = common::category_chart(
            area,
            &panel.title,
            &self.x_label,
            &self.y_label,
            &labels,
            y_range,
        )?;
        let (ylo, yhi) = y_range;
        let cy = |y: f64| y.clamp(ylo, yhi);
        let screen = chart.plotting_area().use_screen_coord();
        const HALF: f64 = 0.28;
        const CAP: f64 = 0.12;

        for (i, (g, st)) in panel.groups.iter().zip(&stats).enumerate() {
            let Some(st) = st else { continue };
            let color = series_color(names.iter().position(|n| n == &g.name).unwrap_or(0));
            let x = i as f64;
            let line = color.rgb().stroke_width(2);
            let dark = theme::TEXT.rgb().stroke_width(3);
            // Whiskers and caps.
            let segments = [
                vec![(x, cy(st.q3)), (x, cy(st.whisker_high))],
                vec![(x, cy(st.q1)), (x, cy(st.whisker_low))],
                vec![
                    (x - CAP, cy(st.whisker_high)),
                    (x + CAP, cy(st.whisker_high)),
                ],
                vec![(x - CAP, cy(st.whisker_low)), (x + CAP, cy(st.whisker_low))],
            ];
            chart
                .draw_series(segments.into_iter().map(|s| PathElement::new(s, line)))
                .map_err(common::draw_err)?;
            // Box: translucent fill, solid outline, dark median.
            let corners = [(x - HALF, cy(st.q3)), (x + HALF, cy(st.q1))];
            chart
                .draw_series([
                    Rectangle::new(corners, color.alpha(theme::BOX_ALPHA).filled()),
                    Rectangle::new(corners, line),
                ])
                .map_err(common::draw_err)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x - HALF, cy(st.median)), (x + HALF, cy(st.median))],
                    dark,
                )))
                .map_err(common::draw_err)?;
            for &o in st.outliers.iter().filter(|o| **o >= ylo && **o <= yhi) {
                let p = common::to_pixel(&chart, (x, o));
                common::draw_marker(&screen, p, theme::Marker::HollowCircle, color, 4)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type7_matches_r() {
        // R: quantile(1:10, c(0, .25, .5, .75, 1)) -> 1 3.25 5.5 7.75 10
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let q: Vec<f64> = [0.0, 0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(|p| quantile_type7(&v, *p).unwrap())
            .collect();
        assert_eq!(q, vec![1.0, 3.25, 5.5, 7.75, 10.0]);
        // R: quantile(c(1, 2, 4, 8), .3) -> 1.9 (h = 0.9)
        let q = quantile_type7(&[1.0, 2.0, 4.0, 8.0], 0.3).unwrap();
        assert!((q - 1.9).abs() < 1e-12);
        assert_eq!(quantile_type7(&[7.0], 0.9), Some(7.0));
        assert_eq!(quantile_type7(&[], 0.5), None);
        assert_eq!(quantile_type7(&[1.0], 1.5), None);
    }

    #[test]
    fn tukey_whiskers_and_outliers() {
        // q1 = 2, q3 = 4, IQR = 2, fences -1 and 7: 100 is an outlier, whiskers 1 and 4.
        let st = BoxStats::from_values(&[1.0, 2.0, 3.0, 4.0, 100.0, f64::NAN]).unwrap();
        assert_eq!(st.n, 5);
        assert_eq!((st.q1, st.median, st.q3), (2.0, 3.0, 4.0));
        assert_eq!((st.whisker_low, st.whisker_high), (1.0, 4.0));
        assert_eq!(st.outliers, vec![100.0]);
        assert!(BoxStats::from_values(&[f64::NAN]).is_none());
        let one = BoxStats::from_values(&[5.0]).unwrap();
        assert_eq!(
            (
                one.q1,
                one.median,
                one.q3,
                one.whisker_low,
                one.whisker_high
            ),
            (5.0, 5.0, 5.0, 5.0, 5.0)
        );
    }
}
