//! Matrix heatmap (e.g. criterion × fault) on the viridis scale, with row and column labels,
//! a colour bar, and the cell values printed when the matrix is at most 30 × 30.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::common::{self, draw_err};
use super::theme::{self, viridis, Rgb};
use super::{Figure, Layout, Plot, PlotError, MAX_SIDE};

/// Matrices up to this many rows and columns get their values printed in the cells.
pub const MAX_LABELLED_SIDE: usize = 30;

/// A heatmap of `values[row][col]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// Figure title ("" for none).
    pub title: String,
    /// Title under the column labels, e.g. "fault" ("" for none).
    pub x_label: String,
    /// Title beside the row labels, e.g. "criterion" ("" for none).
    pub y_label: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// `values[row][col]`; NaN cells are drawn light grey without a value.
    pub values: Vec<Vec<f64>>,
    /// Value mapped to the ends of the colour scale; `None` uses the data's min and max.
    pub value_range: Option<(f64, f64)>,
    /// Colour-bar title, e.g. "detection rate".
    pub colorbar_label: String,
    /// Decimals of the printed cell values.
    pub value_decimals: usize,
    /// Figure size (`panel_width` × `panel_height`); grown when needed so that printed values
    /// fit their cells. `columns` is ignored.
    pub layout: Layout,
}

impl Default for Heatmap {
    fn default() -> Self {
        Heatmap {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            row_labels: Vec::new(),
            col_labels: Vec::new(),
            values: Vec::new(),
            value_range: None,
            colorbar_label: String::new(),
            value_decimals: 2,
            layout: Layout::default(),
        }
    }
}

/// Renders `plot` to `path` (`.svg` or `.png`).
pub fn heatmap(plot: &Heatmap, path: impl AsRef<Path>) -> Result<(), PlotError> {
    plot.save(path.as_ref())
}

impl Heatmap {
    fn rows(&self) -> usize {
        self.values.len()
    }

    fn cols(&self) -> usize {
        self.col_labels.len()
    }

    fn prints_values(&self) -> bool {
        self.rows() > 0
            && self.cols() > 0
            && self.rows() <= MAX_LABELLED_SIDE
            && self.cols() <= MAX_LABELLED_SIDE
    }

    fn validate(&self) -> Result<(), PlotError> {
        if self.row_labels.len() != self.values.len() {
            return Err(PlotError::InvalidInput(format!(
                "{} row labels for {} rows",
                self.row_labels.len(),
                self.values.len()
            )));
        }
        for (r, row) in self.values.iter().enumerate() {
            if row.len() != self.col_labels.len() {
                return Err(PlotError::InvalidInput(format!(
                    "row {r} ({:?}) has {} values for {} column labels",
                    self.row_labels[r],
                    row.len(),
                    self.col_labels.len()
                )));
            }
        }
        Ok(())
    }

    /// The colour-scale range: explicit, else the data's; `None` without finite data.
    fn scale(&self) -> Option<(f64, f64)> {
        let data = common::finite_range(self.values.iter().flatten().copied())?;
        Some(common::valid_range(self.value_range).unwrap_or(data))
    }
}

/// Rough text width in pixels for size estimates made before a backend exists (DejaVu Sans
/// averages about 0.62 em per character).
fn approx_width(chars: usize, size: f64) -> u32 {
    (chars as f64 * 0.62 * size / 1.24).ceil() as u32
}

impl Figure for Heatmap {
    fn size(&self) -> (u32, u32) {
        let (w, h) = (self.layout.panel_width, self.layout.panel_height);
        if !self.prints_values() || self.validate().is_err() {
            return (w, h);
        }
        let value_chars = self
            .values
            .iter()
            .flatten()
            .filter(|v| v.is_finite())
            .map(|v| common::fmt_num(*v, self.value_decimals).chars().count())
            .max()
            .unwrap_or(1);
        let max_chars = |ls: &[String]| ls.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let cell_w = (approx_width(value_chars, theme::CELL_SIZE) + 10).max(30);
        let cell_h = (theme::CELL_SIZE / 1.24) as u32 + 12;
        let left = approx_width(max_chars(&self.row_labels), theme::TICK_SIZE) + 60;
        let bottom = approx_width(max_chars(&self.col_labels), theme::TICK_SIZE).min(200) + 60;
        let need_w = left + self.cols() as u32 * cell_w + 150;
        let need_h = 60 + self.rows() as u32 * cell_h + bottom;
        (w.max(need_w).min(MAX_SIDE), h.max(need_h).min(MAX_SIDE))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        self.validate()?;
        let body = common::header(root, &self.title, &[])?;
        let Some((vmin, vmax)) = self.scale() else {
            return common::no_data(&body, "");
        };
        let (rows, cols) = (self.rows(), self.cols());
        let (bw, bh) = body.dim_in_pixel();
        let (bw, bh) = (bw as i32, bh as i32);
        let size = |t: &str, s: f64| common::text_size(&body, t, s);
        let tick_h = size("0", theme::TICK_SIZE).1 as i32;
        let desc_h = size("Ag", theme::AXIS_TITLE_SIZE).1 as i32;

        // Colour-bar block on the right.
        let bar_ticks = common::tick_points(vmin.min(vmax), vmax.max(vmin + 1e-12), 6);
        let bar_dec = common::decimals_for(&bar_ticks);
        let bar_labels: Vec<String> = bar_ticks
            .iter()
            .map(|v| common::fmt_num(*v, bar_dec))
            .collect();
        let bar_tick_w = bar_labels
            .iter()
            .map(|l| size(l, theme::TICK_SIZE).0 as i32)
            .max()
            .unwrap_or(0);
        let bar_w = 18;
        let any_missing = self.values.iter().flatten().any(|v| !v.is_finite());
        let missing_w = if any_missing {
            size("no value", theme::TICK_SIZE).0 as i32
        } else {
            0
        };
        let right_w = (16
            + bar_w
            + 6
            + bar_tick_w
            + if self.colorbar_label.is_empty() {
                0
            } else {
                12 + desc_h
            }
            + 12)
            .max(16 + bar_w + 7 + missing_w + 8);

        // Row labels and y title on the left.
        let row_w = self
            .row_labels
            .iter()
            .map(|l| size(l, theme::TICK_SIZE).0 as i32)
            .max()
            .unwrap_or(0)
            .min(bw / 3);
        let y_title_w = if self.y_label.is_empty() {
            0
        } else {
            desc_h + 10
        };
        let left_w = 10 + y_title_w + row_w + 8;
        let grid_w = (bw - left_w - right_w).max(cols as i32);
        let cell_w = grid_w as f64 / cols as f64;

        // Column labels: horizontal when they fit their cells, else rotated.
        let col_w = self
            .col_labels
            .iter()
            .map(|l| size(l, theme::TICK_SIZE).0 as i32)
            .max()
            .unwrap_or(0);
        let horizontal = col_w + 6 <= cell_w as i32;
        let x_title_h = if self.x_label.is_empty() {
            0
        } else {
            desc_h + 12
        };
        let col_h = if horizontal {
            tick_h
        } else {
            col_w.min(bh / 3)
        };
        let top = 10;
        let bottom_h = 8 + col_h + x_title_h + 10;
        let grid_h = (bh - top - bottom_h).max(rows as i32);
        let cell_h = grid_h as f64 / rows as f64;
        let gx = left_w;
        let gy = top;
        let xs = |c: usize| gx + (c as f64 * cell_w).round() as i32;
        let ys = |r: usize| gy + (r as f64 * cell_h).round() as i32;

        // Cells.
        let t_of = |v: f64| {
            if vmax > vmin {
                (v - vmin) / (vmax - vmin)
            } else {
                0.5
            }
        };
        let inset = if cell_w >= 8.0 && cell_h >= 8.0 { 1 } else { 0 };
        for (r, row) in self.values.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                let color = if v.is_finite() {
                    viridis(t_of(v))
                } else {
                    theme::MISSING_CELL
                };
                body.draw(&Rectangle::new(
                    [(xs(c), ys(r)), (xs(c + 1) - inset, ys(r + 1) - inset)],
                    color.rgb().filled(),
                ))
                .map_err(draw_err)?;
            }
        }

        // Cell values, all or none, at the largest readable size that fits every cell.
        if self.prints_values() {
            let texts: Vec<Vec<String>> = self
                .values
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|v| {
                            if v.is_finite() {
                                common::fmt_num(*v, self.value_decimals)
                            } else {
                                String::new()
                            }
                        })
                        .collect()
                })
                .collect();
            let widest = texts.iter().flatten().max_by_key(|t| t.chars().count());
            let font_size = [theme::CELL_SIZE, theme::CELL_SIZE - 1.0]
                .into_iter()
                .find(|&s| {
                    let (w, h) = widest.map_or((0, 0), |t| size(t, s));
                    w as f64 + 4.0 <= cell_w && h as f64 + 2.0 <= cell_h
                });
            if let Some(fs) = font_size {
                for (r, row) in texts.iter().enumerate() {
                    for (c, text) in row.iter().enumerate() {
                        if text.is_empty() {
                            continue;
                        }
                        let bg = viridis(t_of(self.values[r][c]));
                        let fg = if bg.luminance() < 0.179 {
                            Rgb(255, 255, 255)
                        } else {
                            Rgb(0, 0, 0)
                        };
                        common::draw_text(
                            &body,
                            text,
                            fs,
                            fg,
                            ((xs(c) + xs(c + 1)) / 2, (ys(r) + ys(r + 1)) / 2),
                            (HPos::Center, VPos::Center),
                        )?;
                    }
                }
            }
        }

        // Row labels (every k-th when rows are thinner than the text).
        let row_step = ((tick_h as f64 + 2.0) / cell_h).ceil().max(1.0) as usize;
        for (r, label) in self.row_labels.iter().enumerate().step_by(row_step) {
            let text = common::fit_text(&body, label, theme::TICK_SIZE, row_w as u32);
            common::draw_text(
                &body,
                &text,
                theme::TICK_SIZE,
                theme::TEXT,
                (gx - 8, (ys(r) + ys(r + 1)) / 2),
                (HPos::Right, VPos::Center),
            )?;
        }
        // Column labels.
        let grid_bottom = ys(rows);
        if horizontal {
            for (c, label) in self.col_labels.iter().enumerate() {
                common::draw_text(
                    &body,
                    label,
                    theme::TICK_SIZE,
                    theme::TEXT,
                    ((xs(c) + xs(c + 1)) / 2, grid_bottom + 8),
                    (HPos::Center, VPos::Top),
                )?;
            }
        } else {
            let col_step = ((tick_h as f64 + 2.0) / cell_w).ceil().max(1.0) as usize;
            let style = theme::text_style(theme::TICK_SIZE, theme::TEXT)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Right, VPos::Center));
            for (c, label) in self.col_labels.iter().enumerate().step_by(col_step) {
                let text = common::fit_text(&body, label, theme::TICK_SIZE, col_h.max(0) as u32);
                if text.is_empty() {
                    continue;
                }
                body.draw_text(&text, &style, ((xs(c) + xs(c + 1)) / 2, grid_bottom + 8))
                    .map_err(draw_err)?;
            }
        }
        // Axis titles.
        let grid_mid_x = (gx + xs(cols)) / 2;
        let grid_mid_y = (gy + grid_bottom) / 2;
        if !self.x_label.is_empty() {
            common::draw_text(
                &body,
                &self.x_label,
                theme::AXIS_TITLE_SIZE,
                theme::TEXT,
                (grid_mid_x, grid_bottom + 8 + col_h + 12),
                (HPos::Center, VPos::Top),
            )?;
        }
        if !self.y_label.is_empty() {
            let style = theme::text_style(theme::AXIS_TITLE_SIZE, theme::TEXT)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Center, VPos::Center));
            body.draw_text(&self.y_label, &style, (10 + desc_h / 2, grid_mid_y))
                .map_err(draw_err)?;
        }

        // Colour bar: a stack of thin slices, low values at the bottom.
        let bx = xs(cols) + 16;
        let (b_top, b_bot) = (gy, grid_bottom);
        let b_h = (b_bot - b_top).max(1);
        let slices = b_h.min(128);
        for k in 0..slices {
            let y0 = b_bot - ((k + 1) * b_h) / slices;
            let y1 = b_bot - (k * b_h) / slices;
            let t = (k as f64 + 0.5) / slices as f64;
            body.draw(&Rectangle::new(
                [(bx, y0), (bx + bar_w, y1)],
                viridis(t).rgb().filled(),
            ))
            .map_err(draw_err)?;
        }
        body.draw(&Rectangle::new(
            [(bx, b_top), (bx + bar_w, b_bot)],
            theme::AXIS.rgb().stroke_width(1),
        ))
        .map_err(draw_err)?;
        for (v, label) in bar_ticks.iter().zip(&bar_labels) {
            let t = t_of(*v);
            if !(-1e-9..=1.0 + 1e-9).contains(&t) {
                continue;
            }
            let y = b_bot - (t * b_h as f64).round() as i32;
            body.draw(&PathElement::new(
                vec![(bx + bar_w, y), (bx + bar_w + 4, y)],
                theme::AXIS.rgb().stroke_width(1),
            ))
            .map_err(draw_err)?;
            common::draw_text(
                &body,
                label,
                theme::TICK_SIZE,
                theme::TEXT,
                (bx + bar_w + 7, y),
                (HPos::Left, VPos::Center),
            )?;
        }
        if !self.colorbar_label.is_empty() {
            let style = theme::text_style(theme::AXIS_TITLE_SIZE, theme::TEXT)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Center, VPos::Center));
            let x = bx + bar_w + 6 + bar_tick_w + 12 + desc_h / 2;
            let fitted = common::fit_text(
                &body,
                &self.colorbar_label,
                theme::AXIS_TITLE_SIZE,
                b_h.max(0) as u32,
            );
            body.draw_text(&fitted, &style, (x, (b_top + b_bot) / 2))
                .map_err(draw_err)?;
        }
        if any_missing {
            let y = grid_bottom + 10;
            body.draw(&Rectangle::new(
                [(bx, y), (bx + bar_w, y + 14)],
                theme::MISSING_CELL.rgb().filled(),
            ))
            .map_err(draw_err)?;
            common::draw_text(
                &body,
                "no value",
                theme::TICK_SIZE,
                theme::TEXT,
                (bx + bar_w + 7, y + 7),
                (HPos::Left, VPos::Center),
            )?;
        }
        Ok(())
    }
}
