//! Pieces shared by the plot kinds: figure header (title + shared legend), "no data" panels,
//! axis ranges and tick formatting, a categorical axis, markers and the numeric x/y panel.

use std::ops::Range;

use plotters::coord::ranged1d::{
    BoldPoints, KeyPointHint, KeyPointWeight, NoDefaultFormatting, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::theme::{self, Marker, Rgb};
use super::PlotError;

pub(crate) fn draw_err<E: std::error::Error + Send + Sync>(
    e: DrawingAreaErrorKind<E>,
) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// `(min, max)` of the finite values, if any.
pub(crate) fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// Widens a data range by `frac` of its span on both sides; a zero-width range gets a span
/// around its value so an axis can still be drawn.
pub(crate) fn pad_range((lo, hi): (f64, f64), frac: f64) -> (f64, f64) {
    let span = hi - lo;
    if !(span.is_finite()) || span <= f64::EPSILON * lo.abs().max(hi.abs()).max(1.0) {
        let d = if lo.abs() > 1.0 { lo.abs() * 0.1 } else { 1.0 };
        return (lo - d, hi + d);
    }
    (lo - span * frac, hi + span * frac)
}

/// A user-given axis range, if it is usable.
pub(crate) fn valid_range(r: Option<(f64, f64)>) -> Option<(f64, f64)> {
    r.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && hi > lo)
}

/// Tick positions plotters will label for `lo..hi` with at most `n` labels.
pub(crate) fn tick_points(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let r: RangedCoordf64 = (lo..hi).into();
    r.key_points(BoldPoints(n))
}

/// Fewest decimals that print every tick exactly.
pub(crate) fn decimals_for(points: &[f64]) -> usize {
    (0..=6)
        .find(|&d| {
            let scale = 10f64.powi(d as i32);
            points
                .iter()
                .all(|p| ((p * scale).round() - p * scale).abs() < 1e-6 * scale.max(1.0))
        })
        .unwrap_or(6)
}

/// `v` with `decimals` decimals, without a "-0".
pub(crate) fn fmt_num(v: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, v);
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// Estimated text extent in pixels; falls back to a character-count guess.
pub(crate) fn text_size<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
) -> (u32, u32) {
    let style = theme::text_style(size, theme::TEXT);
    area.estimate_text_size(text, &style).unwrap_or_else(|_| {
        (
            (text.chars().count() as f64 * size * 0.5) as u32,
            (size / 1.24) as u32,
        )
    })
}

/// Shortens `text` with an ellipsis until it fits `max_w` pixels (may return "").
pub(crate) fn fit_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
    max_w: u32,
) -> String {
    if text_size(area, text, size).0 <= max_w {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    for keep in (1..chars.len()).rev() {
        let s: String = chars[..keep].iter().collect::<String>() + "…";
        if text_size(area, &s, size).0 <= max_w {
            return s;
        }
    }
    String::new()
}

pub(crate) fn draw_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
    color: Rgb,
    pos: (i32, i32),
    anchor: (HPos, VPos),
) -> Result<(), PlotError> {
    if text.is_empty() {
        return Ok(());
    }
    let style = theme::text_style(size, color).pos(Pos::new(anchor.0, anchor.1));
    area.draw_text(text, &style, pos).map_err(draw_err)
}

/// What a legend entry shows next to its label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Swatch {
    /// A line sample, optionally with a marker and a shaded band behind it.
    Line { marker: Option<Marker>, band: bool },
    /// A filled square (bars, boxes).
    Fill,
    /// A light grey square: explains shading, e.g. "shaded: 95% CI".
    Band,
}

#[derive(Debug, Clone)]
pub(crate) struct LegendEntry {
    pub label: String,
    pub color: Rgb,
    pub swatch: Swatch,
}

const TITLE_STRIP: u32 = 44;
const LEGEND_ROW: u32 = 28;
const SWATCH_W: i32 = 30;
const SWATCH_GAP: i32 = 8;
const ENTRY_GAP: i32 = 26;

/// Lays legend entries into centred rows no wider than `max_w`: per row, the entries' indices and
/// the row width.
fn legend_rows<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
    max_w: i32,
) -> Vec<(Vec<(usize, i32)>, i32)> {
    let mut rows: Vec<(Vec<(usize, i32)>, i32)> = Vec::new();
    let mut row: Vec<(usize, i32)> = Vec::new();
    let mut row_w = 0;
    for (i, e) in entries.iter().enumerate() {
        let w = SWATCH_W + SWATCH_GAP + text_size(area, &e.label, theme::LEGEND_SIZE).0 as i32;
        let add = if row.is_empty() { w } else { ENTRY_GAP + w };
        if !row.is_empty() && row_w + add > max_w {
            rows.push((std::mem::take(&mut row), row_w));
            row_w = 0;
            row.push((i, w));
            row_w += w;
        } else {
            row.push((i, w));
            row_w += add;
        }
    }
    if !row.is_empty() {
        rows.push((row, row_w));
    }
    rows
}

/// Draws the figure title and the shared legend at the top of `root`; returns the area below.
pub(crate) fn header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[LegendEntry],
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    let (w, h) = root.dim_in_pixel();
    let title_h = if title.is_empty() { 8 } else { TITLE_STRIP };
    let rows = legend_rows(root, legend, w as i32 - 24);
    let legend_h = if rows.is_empty() {
        0
    } else {
        rows.len() as u32 * LEGEND_ROW + 6
    };
    let head_h = (title_h + legend_h).min(h / 2);
    if !title.is_empty() {
        let fitted = fit_text(root, title, theme::TITLE_SIZE, w.saturating_sub(16));
        draw_text(
            root,
            &fitted,
            theme::TITLE_SIZE,
            theme::TEXT,
            (w as i32 / 2, title_h as i32 / 2 + 2),
            (HPos::Center, VPos::Center),
        )?;
    }
    for (r, (row, row_w)) in rows.iter().enumerate() {
        let cy = title_h as i32 + r as i32 * LEGEND_ROW as i32 + LEGEND_ROW as i32 / 2;
        let mut x = (w as i32 - row_w) / 2;
        for &(i, entry_w) in row {
            let e = &legend[i];
            draw_swatch(root, (x, cy), e.color, e.swatch)?;
            draw_text(
                root,
                &e.label,
                theme::LEGEND_SIZE,
                theme::TEXT,
                (x + SWATCH_W + SWATCH_GAP, cy),
                (HPos::Left, VPos::Center),
            )?;
            x += entry_w + ENTRY_GAP;
        }
    }
    Ok(root.split_vertically(head_h).1)
}

fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, cy): (i32, i32),
    color: Rgb,
    swatch: Swatch,
) -> Result<(), PlotError> {
    match swatch {
        Swatch::Line { marker, band } => {
            if band {
                area.draw(&Rectangle::new(
                    [(x, cy - 8), (x + SWATCH_W, cy + 8)],
                    color.alpha(theme::BAND_ALPHA).filled(),
                ))
                .map_err(draw_err)?;
            }
            area.draw(&PathElement::new(
                vec![(x, cy), (x + SWATCH_W, cy)],
                color.rgb().stroke_width(3),
            ))
            .map_err(draw_err)?;
            if let Some(m) = marker {
                draw_marker(area, (x + SWATCH_W / 2, cy), m, color, 5)?;
            }
        }
        Swatch::Fill => {
            area.draw(&Rectangle::new(
                [(x + 6, cy - 9), (x + SWATCH_W - 6, cy + 9)],
                color.rgb().filled(),
            ))
            .map_err(draw_err)?;
        }
        Swatch::Band => {
            area.draw(&Rectangle::new(
                [(x, cy - 8), (x + SWATCH_W, cy + 8)],
                color.alpha(0.3).filled(),
            ))
            .map_err(draw_err)?;
        }
    }
    Ok(())
}

/// Draws "no data" in the middle of `area`, under an optional caption.
/// The frame of a multi-panel figure: title and shared legend, then `draw` for each panel in a
/// grid cell; "no data" instead when no panel has any finite value.
pub(crate) fn panel_grid<DB: DrawingBackend, P>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[LegendEntry],
    any_data: bool,
    layout: &super::Layout,
    panels: &[P],
    mut draw: impl FnMut(&DrawingArea<DB, Shift>, &P) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let body = header(root, title, if any_data { legend } else { &[] })?;
    if !any_data {
        return no_data(&body, "");
    }
    let (cols, rows) = layout.grid(panels.len());
    let areas = body.split_evenly((rows, cols));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        draw(area, panel)?;
    }
    Ok(())
}

pub(crate) fn no_data<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
) -> Result<(), PlotError> {
    let (w, h) = area.dim_in_pixel();
    if !caption.is_empty() {
        let fitted = fit_text(area, caption, theme::PANEL_TITLE_SIZE, w.saturating_sub(8));
        draw_text(
            area,
            &fitted,
            theme::PANEL_TITLE_SIZE,
            theme::TEXT,
            (w as i32 / 2, 18),
            (HPos::Center, VPos::Center),
        )?;
    }
    let top = if caption.is_empty() { 10 } else { 36 };
    area.draw(&Rectangle::new(
        [(10, top), (w as i32 - 10, h as i32 - 10)],
        ShapeStyle::from(&theme::GRID.rgb()).stroke_width(1),
    ))
    .map_err(draw_err)?;
    draw_text(
        area,
        "no data",
        theme::NO_DATA_SIZE,
        theme::TEXT_MUTED,
        (w as i32 / 2, (h as i32 + top) / 2),
        (HPos::Center, VPos::Center),
    )
}

/// Draws a marker centred on pixel `at` of `area`.
pub(crate) fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    marker: Marker,
    color: Rgb,
    r: i32,
) -> Result<(), PlotError> {
    let fill = color.rgb().filled();
    let line = color.rgb().stroke_width(2);
    let (x, y) = at;
    let res = match marker {
        Marker::Circle => area.draw(&Circle::new(at, r, fill)),
        Marker::HollowCircle => area.draw(&Circle::new(at, r, line)),
        Marker::Square => {
            let s = r - 1;
            area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], fill))
        }
        Marker::TriangleUp => area.draw(&Polygon::new(
            vec![(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)],
            fill,
        )),
        Marker::TriangleDown => area.draw(&Polygon::new(
            vec![(x, y + r + 1), (x + r + 1, y - r), (x - r - 1, y - r)],
            fill,
        )),
        Marker::Diamond => area.draw(&Polygon::new(
            vec![
                (x, y - r - 1),
                (x + r + 1, y),
                (x, y + r + 1),
                (x - r - 1, y),
            ],
            fill,
        )),
        Marker::Cross => area
            .draw(&PathElement::new(
                vec![(x - r, y - r), (x + r, y + r)],
                line,
            ))
            .and_then(|_| {
                area.draw(&PathElement::new(
                    vec![(x - r, y + r), (x + r, y - r)],
                    line,
                ))
            }),
        Marker::Plus => area
            .draw(&PathElement::new(
                vec![(x - r - 1, y), (x + r + 1, y)],
                line,
            ))
            .and_then(|_| {
                area.draw(&PathElement::new(
                    vec![(x, y - r - 1), (x, y + r + 1)],
                    line,
                ))
            }),
    };
    res.map_err(draw_err)
}

/// A categorical axis: category `i` sits at value `i`, the axis spans `-0.5 .. n - 0.5`, ticks
/// are at the category centres and there are no light grid lines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CategoryAxis {
    pub n: usize,
}

impl Ranged for CategoryAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.n.max(1) as f64;
        let t = (value + 0.5) / span;
        limit.0 + (t * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        match hint.weight() {
            KeyPointWeight::Bold => {
                let stride = self.n.div_ceil(hint.max_num_points().max(1)).max(1);
                (0..self.n).step_by(stride).map(|i| i as f64).collect()
            }
            KeyPointWeight::Any => Vec::new(),
        }
    }

    fn range(&self) -> Range<f64> {
        -0.5..(self.n.max(1) as f64 - 0.5)
    }
}

impl ValueFormatter<f64> for CategoryAxis {
    fn format(value: &f64) -> String {
        format!("{value}")
    }
}

/// Styles shared by every mesh: light grid at the labelled ticks, no minor grid.
pub(crate) fn style_mesh<X, Y, DB>(mesh: &mut plotters::chart::MeshStyle<'_, '_, X, Y, DB>)
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    mesh.axis_style(theme::AXIS.rgb())
        .bold_line_style(theme::GRID.rgb())
        .light_line_style(TRANSPARENT)
        .label_style(theme::text_style(theme::TICK_SIZE, theme::TEXT))
        .axis_desc_style(theme::text_style(theme::AXIS_TITLE_SIZE, theme::TEXT));
}

/// Label-area sizes `(x_area_height, y_area_width)` for the given tick labels and axis titles.
pub(crate) fn label_areas<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    y_tick_labels: &[String],
    x_title: &str,
    y_title: &str,
) -> (u32, u32) {
    let tick_h = text_size(area, "0", theme::TICK_SIZE).1;
    let desc_h = text_size(area, "Ag", theme::AXIS_TITLE_SIZE).1;
    let max_tick_w = y_tick_labels
        .iter()
        .map(|s| text_size(area, s, theme::TICK_SIZE).0)
        .max()
        .unwrap_or(0);
    let x_area = 10 + tick_h + 6 + if x_title.is_empty() { 0 } else { desc_h + 10 };
    let y_area = max_tick_w + 16 + if y_title.is_empty() { 0 } else { desc_h + 12 };
    (x_area, y_area)
}

/// Everything needed to set up one numeric x/y panel.
pub(crate) struct XyPanel<'a> {
    pub caption: &'a str,
    pub x_title: &'a str,
    pub y_title: &'a str,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

pub(crate) type XyChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

pub(crate) const X_TICKS: usize = 10;
pub(crate) const Y_TICKS: usize = 8;

/// Builds a numeric chart with axes, grid, tick labels and axis titles drawn.
pub(crate) fn xy_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    spec: &XyPanel<'_>,
) -> Result<XyChart<'a, DB>, PlotError> {
    let (x0, x1) = spec.x_range;
    let (y0, y1) = spec.y_range;
    let xd = decimals_for(&tick_points(x0, x1, X_TICKS));
    let y_ticks = tick_points(y0, y1, Y_TICKS);
    let yd = decimals_for(&y_ticks);
    let y_labels: Vec<String> = y_ticks.iter().map(|v| fmt_num(*v, yd)).collect();
    let (x_area, y_area) = label_areas(area, &y_labels, spec.x_title, spec.y_title);

    let mut builder = ChartBuilder::on(area);
    builder
        .margin_top(8)
        .margin_left(10)
        .margin_right(28)
        .margin_bottom(6)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    if !spec.caption.is_empty() {
        let (w, _) = area.dim_in_pixel();
        let fitted = fit_text(
            area,
            spec.caption,
            theme::PANEL_TITLE_SIZE,
            w.saturating_sub(8),
        );
        builder.caption(
            fitted,
            theme::font(theme::PANEL_TITLE_SIZE).color(&theme::TEXT.rgb()),
        );
    }
    let mut chart = builder
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(draw_err)?;

    let fx = move |v: &f64| fmt_num(*v, xd);
    let fy = move |v: &f64| fmt_num(*v, yd);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.x_labels(X_TICKS)
        .y_labels(Y_TICKS)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy);
    if !spec.x_title.is_empty() {
        mesh.x_desc(spec.x_title);
    }
    if !spec.y_title.is_empty() {
        mesh.y_desc(spec.y_title);
    }
    mesh.draw().map_err(draw_err)?;
    Ok(chart)
}

pub(crate) type CategoryChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<CategoryAxis, RangedCoordf64>>;

/// Builds a chart with one x slot per category (labelled with `categories`, shortened with "…"
/// when a name is wider than its slot) and a numeric y axis.
pub(crate) fn category_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
    x_title: &str,
    y_title: &str,
    categories: &[String],
    y_range: (f64, f64),
) -> Result<CategoryChart<'a, DB>, PlotError> {
    let (y0, y1) = y_range;
    let y_ticks = tick_points(y0, y1, Y_TICKS);
    let yd = decimals_for(&y_ticks);
    let y_labels: Vec<String> = y_ticks.iter().map(|v| fmt_num(*v, yd)).collect();
    let (x_area, y_area) = label_areas(area, &y_labels, x_title, y_title);
    let (w, _) = area.dim_in_pixel();
    let n = categories.len().max(1);
    let plot_w = w.saturating_sub(y_area + 10 + 28);
    let slot = (plot_w / n as u32).saturating_sub(8);
    let labels: Vec<String> = categories
        .iter()
        .map(|c| fit_text(area, c, theme::TICK_SIZE, slot))
        .collect();

    let mut builder = ChartBuilder::on(area);
    builder
        .margin_top(8)
        .margin_left(10)
        .margin_right(28)
        .margin_bottom(6)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    if !caption.is_empty() {
        let fitted = fit_text(area, caption, theme::PANEL_TITLE_SIZE, w.saturating_sub(8));
        builder.caption(
            fitted,
            theme::font(theme::PANEL_TITLE_SIZE).color(&theme::TEXT.rgb()),
        );
    }
    let mut chart = builder
        .build_cartesian_2d(CategoryAxis { n }, y0..y1)
        .map_err(draw_err)?;

    let fx = move |v: &f64| {
        let i = v.round();
        if i >= 0.0 && (i as usize) < labels.len() {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    };
    let fy = move |v: &f64| fmt_num(*v, yd);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.disable_x_mesh()
        .x_labels(n)
        .y_labels(Y_TICKS)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy);
    if !x_title.is_empty() {
        mesh.x_desc(x_title);
    }
    if !y_title.is_empty() {
        mesh.y_desc(y_title);
    }
    mesh.draw().map_err(draw_err)?;
    Ok(chart)
}

/// Pixel position of a data point, clamped into the plotting rectangle.
pub(crate) fn to_pixel<DB: DrawingBackend, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    (x, y): (f64, f64),
) -> (i32, i32)
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let area = chart.plotting_area();
    let (xr, yr) = area.get_pixel_range();
    let (px, py) = area.map_coordinate(&(x, y));
    (
        px.clamp(xr.start, xr.end.max(xr.start)),
        py.clamp(yr.start, yr.end.max(yr.start)),
    )
}

/// Splits finite `(x, y)` points (already in x order) into runs without gaps, so a NaN breaks the
/// line rather than being bridged.
pub(crate) fn finite_runs(points: &[(f64, f64)]) -> Vec<Vec<(f64, f64)>> {
    let mut runs = Vec::new();
    let mut cur = Vec::new();
    for &(x, y) in points {
        if x.is_finite() && y.is_finite() {
            cur.push((x, y));
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    runs
}

/// Colour index of each distinct name, in order of first appearance.
pub(crate) fn name_index<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for n in names {
        if !seen.iter().any(|s| s == n) {
            seen.push(n.to_string());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_padding() {
        assert_eq!(
            finite_range([f64::NAN, 3.0, -1.0, f64::INFINITY]),
            Some((-1.0, 3.0))
        );
        assert_eq!(finite_range([f64::NAN]), None);
        assert_eq!(finite_range(Vec::new()), None);
        assert_eq!(pad_range((0.0, 10.0), 0.1), (-1.0, 11.0));
        let (lo, hi) = pad_range((5.0, 5.0), 0.1);
        assert!(lo < 5.0 && hi > 5.0);
        let (lo, hi) = pad_range((0.0, 0.0), 0.1);
        assert!(lo < 0.0 && hi > 0.0);
        assert_eq!(valid_range(Some((1.0, 0.0))), None);
        assert_eq!(valid_range(Some((0.0, f64::NAN))), None);
        assert_eq!(valid_range(Some((0.0, 1.0))), Some((0.0, 1.0)));
    }

    #[test]
    fn tick_formatting() {
        assert_eq!(decimals_for(&[0.0, 20.0, 40.0]), 0);
        assert_eq!(decimals_for(&[0.0, 0.2, 0.4]), 1);
        assert_eq!(decimals_for(&[0.0, 0.25, 0.5]), 2);
        assert_eq!(fmt_num(-0.0001, 2), "0.00");
        assert_eq!(fmt_num(-1.5, 1), "-1.5");
        assert_eq!(fmt_num(12.0, 0), "12");
    }

    #[test]
    fn runs_break_at_nan() {
        let pts = [(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0), (3.0, 4.0)];
        assert_eq!(
            finite_runs(&pts),
            vec![vec![(0.0, 1.0)], vec![(2.0, 3.0), (3.0, 4.0)]]
        );
    }

    #[test]
    fn category_axis_maps_centres() {
        let a = CategoryAxis { n: 4 };
        assert_eq!(a.map(&-0.5, (0, 400)), 0);
        assert_eq!(a.map(&0.0, (0, 400)), 50);
        assert_eq!(a.map(&3.5, (0, 400)), 400);
        assert_eq!(a.key_points(BoldPoints(10)), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(a.key_points(BoldPoints(2)), vec![0.0, 2.0]);
    }
}
