//! Rendering tests for `rigor_analysis::plots`: every kind to SVG and PNG, text present in the
//! SVG, glyphs drawn in the PNG (the embedded font works without system fonts), and empty or NaN
//! data rendering "no data" without panicking.
//!
//! `RIGOR_PLOT_SAMPLES=/some/dir cargo test -p rigor-analysis --test plots write_samples` writes
//! one sample of each kind (SVG and PNG) into that directory for a human to look at.

use std::path::{Path, PathBuf};

use rigor_analysis::plots::{
    boxplot, grouped_bars, heatmap, line_band, line_sweep, BandSeries, BarSeries, BoxGroup,
    BoxPanel, BoxPlot, GroupedBars, Heatmap, Layout, LineBandPanel, LineBandPlot, LineSweep, Plot,
    PlotError, SweepSeries,
};

// ---------------------------------------------------------------------------------------------
// Sample data
// ---------------------------------------------------------------------------------------------

/// A deterministic pseudo-random sequence in 0..1 (no rand dependency needed).
fn noise(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as f64) / ((1u64 << 31) as f64)
        })
        .collect()
}

const TECHNIQUES: [&str; 4] = ["EvoMaster", "RESTler", "Schemathesis", "random"];

fn sample_line_band() -> LineBandPlot {
    let budgets: Vec<f64> = (0..=10).map(|i| i as f64 * 10.0).collect();
    let subjects = ["petclinic", "features-service", "ncs", "scout-api"];
    let panels = subjects
        .iter()
        .enumerate()
        .map(|(si, subject)| LineBandPanel {
            title: subject.to_string(),
            series: TECHNIQUES
                .iter()
                .enumerate()
                .map(|(ti, t)| {
                    let ceiling = 85.0 - ti as f64 * 12.0 - si as f64 * 4.0;
                    let mean: Vec<f64> = budgets
                        .iter()
                        .map(|b| ceiling * (1.0 - (-b / (18.0 + 6.0 * ti as f64)).exp()))
                        .collect();
                    let spread: Vec<f64> = noise((si * 10 + ti) as u64, budgets.len())
                        .iter()
                        .zip(&budgets)
                        .map(|(r, b)| (1.5 + 4.0 * r) * (b / 100.0).sqrt())
                        .collect();
                    BandSeries {
                        name: t.to_string(),
                        x: budgets.clone(),
                        lower: Some(mean.iter().zip(&spread).map(|(m, s)| m - s).collect()),
                        upper: Some(mean.iter().zip(&spread).map(|(m, s)| m + s).collect()),
                        mean,
                    }
                })
                .collect(),
        })
        .collect();
    LineBandPlot {
        title: "Line coverage over budget".into(),
        x_label: "budget (% of HTTP calls)".into(),
        y_label: "line coverage (%)".into(),
        panels,
        band_label: Some("shaded: min–max over 10 runs".into()),
        y_range: Some((0.0, 100.0)),
        markers: false,
        layout: Layout {
            panel_width: 600,
            panel_height: 400,
            columns: Some(2),
        },
    }
}

fn sample_boxplot() -> BoxPlot {
    let subjects = ["petclinic", "features-service", "ncs"];
    BoxPlot {
        title: "Final line coverage (30 repetitions)".into(),
        x_label: "technique".into(),
        y_label: "line coverage (%)".into(),
        panels: subjects
            .iter()
            .enumerate()
            .map(|(si, s)| BoxPanel {
                title: s.to_string(),
                groups: TECHNIQUES
                    .iter()
                    .enumerate()
                    .map(|(ti, t)| {
                        let mut values: Vec<f64> = noise((si * 7 + ti) as u64, 30)
                            .iter()
                            .map(|r| 70.0 - 10.0 * ti as f64 + 8.0 * (r - 0.5))
                            .collect();
                        values[0] = 30.0 + 5.0 * ti as f64; // an outlier
                        BoxGroup {
                            name: t.to_string(),
                            values,
                        }
                    })
                    .collect(),
            })
            .collect(),
        y_range: None,
        layout: Layout {
            panel_width: 520,
            panel_height: 440,
            columns: None,
        },
    }
}

fn sample_grouped_bars() -> GroupedBars {
    GroupedBars {
        title: "Test selection strategies".into(),
        x_label: "metric".into(),
        y_label: "score".into(),
        categories: vec![
            "precision".into(),
            "recall".into(),
            "F1".into(),
            "reduction".into(),
        ],
        series: vec![
            BarSeries {
                name: "coverage-based".into(),
                values: vec![0.81, 0.64, 0.71, 0.42],
            },
            BarSeries {
                name: "history-based".into(),
                values: vec![0.74, 0.78, 0.76, 0.35],
            },
            BarSeries {
                name: "random".into(),
                values: vec![0.52, 0.50, 0.51, 0.50],
            },
        ],
        y_range: Some((0.0, 1.0)),
        value_decimals: Some(2),
        layout: Layout::default(),
    }
}

fn sample_heatmap() -> Heatmap {
    let criteria = [
        "line",
        "branch",
        "MC/DC",
        "status code",
        "schema",
        "mutation",
    ];
    let faults: Vec<String> = (1..=12).map(|i| format!("F{i:02}")).collect();
    let values = criteria
        .iter()
        .enumerate()
        .map(|(r, _)| {
            noise(100 + r as u64, faults.len())
                .into_iter()
                .enumerate()
                .map(|(c, v)| if r == 2 && c == 5 { f64::NAN } else { v })
                .collect()
        })
        .collect();
    Heatmap {
        title: "Fault detection by criterion".into(),
        x_label: "fault".into(),
        y_label: "criterion".into(),
        row_labels: criteria.iter().map(|s| s.to_string()).collect(),
        col_labels: faults,
        values,
        value_range: Some((0.0, 1.0)),
        colorbar_label: "detection rate".into(),
        value_decimals: 2,
        layout: Layout::default(),
    }
}

fn sample_line_sweep() -> LineSweep {
    let thresholds: Vec<f64> = (1..=10).map(|i| i as f64 * 0.05).collect();
    LineSweep {
        title: "Recall against the frequent threshold".into(),
        x_label: "frequent threshold".into(),
        y_label: "recall".into(),
        series: ["k-means", "DBSCAN", "frequency"]
            .iter()
            .enumerate()
            .map(|(i, n)| SweepSeries {
                name: n.to_string(),
                x: thresholds.clone(),
                y: thresholds
                    .iter()
                    .map(|t| (0.95 - i as f64 * 0.1) * (1.0 - t * (0.8 + 0.4 * i as f64)))
                    .collect(),
            })
            .collect(),
        x_range: None,
        y_range: None,
        layout: Layout::default(),
    }
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/// Decodes a PNG file: (width, height, RGB8 pixels).
fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{path:?} lacks the PNG signature"
    );
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Non-white pixels in rows `y0..y1` of an RGB8 image of width `w`.
fn ink(rgb: &[u8], w: u32, y0: u32, y1: u32) -> usize {
    rgb[(y0 * w * 3) as usize..(y1 * w * 3) as usize]
        .chunks(3)
        .filter(|p| p.iter().any(|c| *c < 200))
        .count()
}

/// SVG text content: `<text>` bodies, unescaped enough for our labels.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|s| {
            let body = &s[s.find('>')? + 1..s.find("</text>")?];
            Some(
                body.trim()
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

fn assert_svg_has(svg_path: &Path, expected: &[&str]) {
    let svg = std::fs::read_to_string(svg_path).unwrap();
    assert!(
        svg.starts_with("<svg"),
        "{svg_path:?} is not an SVG document"
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("font-family=\"DejaVu Sans, Arial, sans-serif\""));
    let texts = svg_texts(&svg);
    for e in expected {
        assert!(
            texts.iter().any(|t| t == e),
            "{svg_path:?}: no <text> {e:?}; texts: {texts:?}"
        );
    }
}

/// Renders `plot` to SVG and PNG in `dir`, checks both files, returns the paths.
fn render_both<P: Plot>(plot: &P, dir: &Path, stem: &str) -> (PathBuf, PathBuf) {
    let svg = dir.join(format!("{stem}.svg"));
    let png_path = dir.join(format!("{stem}.png"));
    plot.save(&svg).unwrap();
    plot.save(&png_path).unwrap();
    assert!(
        std::fs::metadata(&svg).unwrap().len() > 300,
        "{svg:?} too small"
    );
    assert!(
        std::fs::metadata(&png_path).unwrap().len() > 100,
        "{png_path:?} too small"
    );
    let (w, h, rgb) = decode_png(&png_path);
    assert_eq!((w, h), plot.figure_size(), "{png_path:?} dimensions");
    assert_eq!(rgb.len(), (w * h * 3) as usize);
    // White background: the top-left corner is white.
    assert_eq!(&rgb[..3], &[255, 255, 255]);
    (svg, png_path)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Tests per kind
// ---------------------------------------------------------------------------------------------

#[test]
fn line_band_renders_svg_and_png() {
    let dir = tmp();
    let plot = sample_line_band();
    let (svg, _) = render_both(&plot, dir.path(), "line_band");
    assert_eq!(plot.figure_size(), (1200, 800));
    let mut expected = vec![
        "Line coverage over budget",
        "budget (% of HTTP calls)",
        "line coverage (%)",
        "shaded: min–max over 10 runs",
        "petclinic",
        "scout-api",
    ];
    expected.extend(TECHNIQUES);
    assert_svg_has(&svg, &expected);
    // The free function picks the format by extension too.
    line_band(&plot, dir.path().join("f.svg")).unwrap();
    line_band(&plot, dir.path().join("F.PNG")).unwrap();
}

#[test]
fn boxplot_renders_svg_and_png() {
    let dir = tmp();
    let plot = sample_boxplot();
    let (svg, _) = render_both(&plot, dir.path(), "boxplot");
    let mut expected = vec![
        "Final line coverage (30 repetitions)",
        "technique",
        "line coverage (%)",
        "petclinic",
        "ncs",
    ];
    expected.extend(TECHNIQUES);
    assert_svg_has(&svg, &expected);
    boxplot(&plot, dir.path().join("b.png")).unwrap();
}

#[test]
fn grouped_bars_render_svg_and_png() {
    let dir = tmp();
    let plot = sample_grouped_bars();
    let (svg, _) = render_both(&plot, dir.path(), "bars");
    assert_svg_has(
        &svg,
        &[
            "Test selection strategies",
            "metric",
            "score",
            "precision",
            "reduction",
            "coverage-based",
            "history-based",
            "random",
            "0.81",
        ],
    );
    grouped_bars(&plot, dir.path().join("g.svg")).unwrap();
}

#[test]
fn heatmap_renders_svg_and_png() {
    let dir = tmp();
    let plot = sample_heatmap();
    let (svg, _) = render_both(&plot, dir.path(), "heatmap");
    let first = format!("{:.2}", plot.values[0][0]);
    assert_svg_has(
        &svg,
        &[
            "Fault detection by criterion",
            "fault",
            "criterion",
            "detection rate",
            "MC/DC",
            "F01",
            "F12",
            "no value",
            &first,
        ],
    );
    heatmap(&plot, dir.path().join("h.png")).unwrap();
}

#[test]
fn heatmap_grows_to_fit_printed_values_but_not_beyond_30() {
    let mut plot = sample_heatmap();
    plot.col_labels = (0..30).map(|i| format!("fault-{i}")).collect();
    plot.row_labels = (0..30).map(|i| format!("criterion {i}")).collect();
    plot.values = (0..30).map(|r| noise(r, 30)).collect();
    let (w, h) = plot.figure_size();
    assert!(
        w > 800 && h > 500,
        "30×30 should grow the figure, got {w}x{h}"
    );
    let dir = tmp();
    let (svg, _) = render_both(&plot, dir.path(), "heatmap30");
    let texts = svg_texts(&std::fs::read_to_string(svg).unwrap());
    assert!(texts
        .iter()
        .any(|t| t == &format!("{:.2}", plot.values[29][29])));

    plot.col_labels.push("fault-30".into());
    for row in &mut plot.values {
        row.push(0.5);
    }
    assert_eq!(
        plot.figure_size(),
        (800, 500),
        "31 columns: no values, no growth"
    );
    let (svg, _) = render_both(&plot, dir.path(), "heatmap31");
    let texts = svg_texts(&std::fs::read_to_string(svg).unwrap());
    assert!(
        !texts.iter().any(|t| t == "0.50"),
        "values printed for a 30×31 matrix"
    );
}

#[test]
fn line_sweep_renders_svg_and_png() {
    let dir = tmp();
    let plot = sample_line_sweep();
    let (svg, _) = render_both(&plot, dir.path(), "sweep");
    assert_svg_has(
        &svg,
        &[
            "Recall against the frequent threshold",
            "frequent threshold",
            "recall",
            "k-means",
            "DBSCAN",
            "frequency",
        ],
    );
    line_sweep(&plot, dir.path().join("s.png")).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Fonts: PNG text is drawn with the embedded font
// ---------------------------------------------------------------------------------------------

#[test]
fn png_title_has_glyph_pixels() {
    let dir = tmp();
    // A figure whose only ink above the chart is the title: no legend ("no data" figure keeps
    // its title but has no legend), so the title strip must hold the title's glyphs.
    let titled = LineSweep {
        title: "Glyphs WMQ".into(),
        ..LineSweep::default()
    };
    let untitled = LineSweep::default();
    let a = dir.path().join("titled.png");
    let b = dir.path().join("untitled.png");
    titled.save(&a).unwrap();
    untitled.save(&b).unwrap();
    let (w, h, rgb) = decode_png(&a);
    assert_eq!((w, h), (800, 500));
    let strip = ink(&rgb, w, 0, 44);
    assert!(strip > 150, "only {strip} ink pixels in the title strip");
    // The ink is centred text, not a line across the figure.
    let cols_with_ink = (0..w)
        .filter(|x| (0..44).any(|y| rgb[((y * w + x) * 3) as usize] < 200))
        .count() as u32;
    assert!(
        cols_with_ink > 40 && cols_with_ink < w / 2,
        "title ink spans {cols_with_ink} columns"
    );
    let (w2, _, rgb2) = decode_png(&b);
    assert_eq!(ink(&rgb2, w2, 0, 8), 0);
    assert!(
        ink(&rgb2, w2, 0, 44) < strip / 4,
        "untitled figure has ink in the title strip"
    );
    // Anti-aliased glyph edges: some grey, not only black and white.
    let greys = rgb[..(44 * w * 3) as usize]
        .chunks(3)
        .filter(|p| p[0] > 40 && p[0] < 215)
        .count();
    assert!(greys > 20, "no anti-aliased glyph pixels");
}

#[test]
fn png_tick_labels_are_drawn() {
    // Below the x axis of a single-panel chart there is only text (tick labels and the axis
    // title): ink there proves tick labels render.
    let dir = tmp();
    let plot = sample_line_sweep();
    let p = dir.path().join("ticks.png");
    plot.save(&p).unwrap();
    let (w, h, rgb) = decode_png(&p);
    let bottom = ink(&rgb, w, h - 40, h);
    assert!(
        bottom > 100,
        "only {bottom} ink pixels in the bottom 40 rows"
    );
}

// ---------------------------------------------------------------------------------------------
// Empty and NaN data
// ---------------------------------------------------------------------------------------------

fn assert_no_data<P: Plot>(plot: &P, dir: &Path, stem: &str) {
    let (svg, png_path) = render_both(plot, dir, stem);
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(
        texts.iter().any(|t| t == "no data"),
        "{svg:?} lacks \"no data\": {texts:?}"
    );
    let (w, h, rgb) = decode_png(&png_path);
    // "no data" is drawn in the middle of the figure.
    assert!(ink(&rgb, w, h / 3, 2 * h / 3) > 100);
}

#[test]
fn empty_data_renders_no_data() {
    let dir = tmp();
    let d = dir.path();
    assert_no_data(
        &LineBandPlot {
            title: "empty".into(),
            ..Default::default()
        },
        d,
        "lb0",
    );
    assert_no_data(
        &LineBandPlot {
            panels: vec![LineBandPanel {
                title: "s".into(),
                series: vec![BandSeries::default()],
            }],
            ..Default::default()
        },
        d,
        "lb1",
    );
    assert_no_data(&BoxPlot::default(), d, "bp0");
    assert_no_data(
        &BoxPlot {
            panels: vec![BoxPanel {
                title: "s".into(),
                groups: vec![BoxGroup::default()],
            }],
            ..Default::default()
        },
        d,
        "bp1",
    );
    assert_no_data(&GroupedBars::default(), d, "gb0");
    assert_no_data(&Heatmap::default(), d, "hm0");
    assert_no_data(&LineSweep::default(), d, "ls0");
    assert_no_data(
        &LineSweep {
            series: vec![SweepSeries::default()],
            ..Default::default()
        },
        d,
        "ls1",
    );
}

#[test]
fn nan_data_renders_no_data() {
    let dir = tmp();
    let d = dir.path();
    let nan = f64::NAN;
    assert_no_data(
        &LineBandPlot {
            title: "all NaN".into(),
            panels: vec![LineBandPanel {
                title: "s".into(),
                series: vec![BandSeries {
                    name: "t".into(),
                    x: vec![1.0, 2.0],
                    mean: vec![nan, nan],
                    lower: Some(vec![nan, 1.0]),
                    upper: Some(vec![nan, nan]),
                }],
            }],
            ..Default::default()
        },
        d,
        "lb",
    );
    assert_no_data(
        &BoxPlot {
            panels: vec![BoxPanel {
                title: "s".into(),
                groups: vec![BoxGroup {
                    name: "t".into(),
                    values: vec![nan, f64::INFINITY],
                }],
            }],
            ..Default::default()
        },
        d,
        "bp",
    );
    assert_no_data(
        &GroupedBars {
            categories: vec!["a".into(), "b".into()],
            series: vec![BarSeries {
                name: "t".into(),
                values: vec![nan, nan],
            }],
            ..Default::default()
        },
        d,
        "gb",
    );
    assert_no_data(
        &Heatmap {
            row_labels: vec!["r".into()],
            col_labels: vec!["c".into(), "d".into()],
            values: vec![vec![nan, nan]],
            ..Default::default()
        },
        d,
        "hm",
    );
    assert_no_data(
        &LineSweep {
            series: vec![SweepSeries {
                name: "t".into(),
                x: vec![nan, 1.0],
                y: vec![1.0, nan],
            }],
            ..Default::default()
        },
        d,
        "ls",
    );
}

#[test]
fn partly_nan_data_still_plots_the_rest() {
    let dir = tmp();
    let mut lb = sample_line_band();
    // One panel entirely NaN: it shows "no data", the others plot.
    for s in &mut lb.panels[1].series {
        s.mean.iter_mut().for_each(|v| *v = f64::NAN);
        s.lower = None;
        s.upper = None;
    }
    // A gap in one line.
    lb.panels[0].series[0].mean[5] = f64::NAN;
    let (svg, _) = render_both(&lb, dir.path(), "lb");
    let texts = svg_texts(&std::fs::read_to_string(svg).unwrap());
    assert_eq!(texts.iter().filter(|t| *t == "no data").count(), 1);
    assert!(texts.iter().any(|t| t == "petclinic"));

    let mut bp = sample_boxplot();
    bp.panels[0].groups[1].values = vec![f64::NAN; 3];
    bp.panels[1].groups[0].values.push(f64::NAN);
    render_both(&bp, dir.path(), "bp");

    let mut gb = sample_grouped_bars();
    gb.series[0].values[1] = f64::NAN;
    render_both(&gb, dir.path(), "gb");

    let mut ls = sample_line_sweep();
    ls.series[1].y[3] = f64::NAN;
    ls.series[2].x[0] = f64::NAN;
    render_both(&ls, dir.path(), "ls");

    let mut hm = sample_heatmap();
    hm.values[0] = vec![f64::NAN; hm.col_labels.len()];
    render_both(&hm, dir.path(), "hm");

    // A constant heatmap and a single-point sweep have degenerate ranges.
    let mut hm = sample_heatmap();
    hm.value_range = None;
    hm.values.iter_mut().flatten().for_each(|v| *v = 0.3);
    render_both(&hm, dir.path(), "hm-const");
    let one = LineSweep {
        series: vec![SweepSeries {
            name: "t".into(),
            x: vec![2.0],
            y: vec![5.0],
        }],
        ..Default::default()
    };
    render_both(&one, dir.path(), "ls-one");
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let dir = tmp();
    let plot = sample_line_sweep();
    assert!(matches!(
        plot.save(&dir.path().join("x.jpg")),
        Err(PlotError::UnsupportedFormat(_))
    ));
    assert!(matches!(
        plot.save(&dir.path().join("noext")),
        Err(PlotError::UnsupportedFormat(_))
    ));

    let mut bad = sample_line_sweep();
    bad.series[0].y.pop();
    assert!(matches!(bad.to_svg(), Err(PlotError::InvalidInput(_))));

    let mut bad = sample_line_band();
    bad.panels[0].series[0].upper.as_mut().unwrap().pop();
    assert!(matches!(bad.to_png(), Err(PlotError::InvalidInput(_))));

    let mut bad = sample_grouped_bars();
    bad.series[0].values.push(1.0);
    assert!(matches!(bad.to_svg(), Err(PlotError::InvalidInput(_))));

    let mut bad = sample_heatmap();
    bad.values[0].pop();
    assert!(matches!(bad.to_svg(), Err(PlotError::InvalidInput(_))));

    let mut tiny = sample_line_sweep();
    tiny.layout.panel_width = 0;
    assert!(matches!(tiny.to_png(), Err(PlotError::InvalidSize { .. })));

    let missing_dir = dir.path().join("no/such/dir/p.svg");
    assert!(matches!(
        sample_line_sweep().save(&missing_dir),
        Err(PlotError::Io { .. })
    ));
}

#[test]
fn small_panels_do_not_panic() {
    let dir = tmp();
    let mut lb = sample_line_band();
    lb.layout = Layout {
        panel_width: 120,
        panel_height: 90,
        columns: None,
    };
    render_both(&lb, dir.path(), "lb");
    let mut bp = sample_boxplot();
    bp.layout = Layout {
        panel_width: 100,
        panel_height: 80,
        columns: Some(1),
    };
    render_both(&bp, dir.path(), "bp");
    let mut hm = sample_heatmap();
    hm.layout = Layout {
        panel_width: 60,
        panel_height: 40,
        columns: None,
    };
    hm.values = vec![vec![0.5; 40]; 40];
    hm.row_labels = vec!["r".into(); 40];
    hm.col_labels = vec!["c".into(); 40];
    render_both(&hm, dir.path(), "hm");
}

// ---------------------------------------------------------------------------------------------
// Samples for humans
// ---------------------------------------------------------------------------------------------

/// Writes one of each kind, SVG and PNG, into `$RIGOR_PLOT_SAMPLES` (skipped when unset).
#[test]
fn write_samples() {
    let Some(dir) = std::env::var_os("RIGOR_PLOT_SAMPLES") else {
        return;
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["svg", "png"] {
        line_band(&sample_line_band(), dir.join(format!("line_band.{ext}"))).unwrap();
        boxplot(&sample_boxplot(), dir.join(format!("boxplot.{ext}"))).unwrap();
        grouped_bars(
            &sample_grouped_bars(),
            dir.join(format!("grouped_bars.{ext}")),
        )
        .unwrap();
        heatmap(&sample_heatmap(), dir.join(format!("heatmap.{ext}"))).unwrap();
        line_sweep(&sample_line_sweep(), dir.join(format!("line_sweep.{ext}"))).unwrap();
        let mut empty = sample_line_band();
        empty.panels[1].series.clear();
        line_band(&empty, dir.join(format!("line_band_one_empty_panel.{ext}"))).unwrap();
        let mut big = sample_heatmap();
        big.title = "30 × 30 heatmap with long column labels".into();
        big.col_labels = (0..30)
            .map(|i| format!("fault-{i:02}-in-handler"))
            .collect();
        big.row_labels = (0..30).map(|i| format!("criterion {i}")).collect();
        big.values = (0..30).map(|r| noise(r, 30)).collect();
        heatmap(&big, dir.join(format!("heatmap_30x30.{ext}"))).unwrap();
        let mut long = sample_boxplot();
        long.panels.truncate(1);
        for (i, g) in long.panels[0].groups.iter_mut().enumerate() {
            g.name = format!("{} with a long configuration name {i}", g.name);
        }
        boxplot(&long, dir.join(format!("boxplot_long_names.{ext}"))).unwrap();
        let mut neg = sample_grouped_bars();
        neg.title = "Change against baseline".into();
        neg.y_range = None;
        neg.series[1].values = vec![-0.2, 0.1, -0.05, 0.3];
        grouped_bars(&neg, dir.join(format!("grouped_bars_negative.{ext}"))).unwrap();
        line_sweep(
            &LineSweep {
                title: "Nothing measured yet".into(),
                ..Default::default()
            },
            dir.join(format!("no_data.{ext}")),
        )
        .unwrap();
    }
}
