//! From records to the report's tables and figures.
//!
//! A "technique" is an experiment plus the parameters of its cell that do not split rows, so a
//! grid over budgets with `by = ["budget"]` compares techniques per subject and budget, while
//! without it each budget is a technique of its own.

use std::collections::{BTreeMap, BTreeSet};

use rigor_technique::ParamValue;

use super::spec::{Band, PlotKind, PlotSpec, ReportSpec, Stat, TableKind, TableSpec};
use crate::frame::JobRecord;
use crate::plots::{
    BandSeries, BarSeries, BoxGroup, BoxPanel, BoxPlot, GroupedBars, Heatmap, Layout, LineBandPanel, LineBandPlot,
    LineSweep, SweepSeries,
};
use crate::stats::{adjust, compare, describe, CompareOptions, MannWhitneyOptions};
use crate::table::{number, p_value, Cell, Table};

/// A figure to render, by kind.
#[derive(Debug, Clone)]
pub enum Figure {
    Curves(LineBandPlot),
    Boxes(BoxPlot),
    Bars(GroupedBars),
    Heat(Heatmap),
    Sweep(LineSweep),
}

/// A figure with the file stem it is written under.
#[derive(Debug, Clone)]
pub struct NamedFigure {
    pub name: String,
    pub caption: String,
    pub figure: Figure,
}

/// Records without the parameters that are constant within their experiment and that the report
/// does not split or plot by: technique labels then name only what varies (`relevant
/// (strength=2)`, not every fixed setting).
pub fn without_constant_params<'a>(records: &'a [JobRecord], spec: &ReportSpec) -> std::borrow::Cow<'a, [JobRecord]> {
    let used: BTreeSet<&str> = spec
        .tables
        .iter()
        .flat_map(|t| t.by.iter().map(String::as_str))
        .chain(spec.plots.iter().filter_map(|p| p.x.as_deref()))
        .collect();
    let mut values: BTreeMap<(&str, &str), BTreeSet<String>> = BTreeMap::new();
    for r in records {
        for (k, v) in &r.params {
            values.entry((r.experiment.as_str(), k.as_str())).or_default().insert(v.to_string());
        }
    }
    let constant: BTreeSet<(&str, &str)> =
        values.iter().filter(|(k, v)| v.len() == 1 && !used.contains(k.1)).map(|(k, _)| *k).collect();
    if constant.is_empty() {
        return std::borrow::Cow::Borrowed(records);
    }
    std::borrow::Cow::Owned(
        records
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.params.retain(|k, _| !constant.contains(&(r.experiment.as_str(), k.as_str())));
                r
            })
            .collect(),
    )
}

/// The records of the named experiments (all when none are named).
fn only<'a>(records: &'a [JobRecord], experiments: &[String]) -> std::borrow::Cow<'a, [JobRecord]> {
    if experiments.is_empty() {
        return std::borrow::Cow::Borrowed(records);
    }
    std::borrow::Cow::Owned(records.iter().filter(|r| experiments.contains(&r.experiment)).cloned().collect())
}

fn ok(records: &[JobRecord]) -> impl Iterator<Item = &JobRecord> {
    records.iter().filter(|r| r.status == "ok")
}

fn param_text(r: &JobRecord, name: &str) -> String {
    r.params.get(name).map(|v| v.to_string()).unwrap_or_default()
}

/// The technique label of a record: experiment, plus cell parameters not in `by`.
fn technique(r: &JobRecord, by: &[String]) -> String {
    let rest: Vec<String> =
        r.params.iter().filter(|(k, _)| !by.contains(k)).map(|(k, v)| format!("{k}={v}")).collect();
    if rest.is_empty() {
        r.experiment.clone()
    } else {
        format!("{} ({})", r.experiment, rest.join(", "))
    }
}

/// Row key: subject, then the `by` parameters.
fn row_key(r: &JobRecord, by: &[String]) -> Vec<String> {
    let mut k = vec![r.subject.clone()];
    k.extend(by.iter().map(|b| param_text(r, b)));
    k
}

fn metric(r: &JobRecord, name: &str) -> Option<f64> {
    r.metrics.iter().find(|(m, _)| m == name).map(|(_, v)| *v)
}

/// Metric names in order of first appearance.
pub fn metric_names(records: &[JobRecord]) -> Vec<String> {
    let mut seen = Vec::new();
    for r in ok(records) {
        for (m, _) in &r.metrics {
            if !seen.contains(m) {
                seen.push(m.clone());
            }
        }
    }
    seen
}

fn series_names(records: &[JobRecord]) -> Vec<String> {
    let mut seen = Vec::new();
    for r in ok(records) {
        for (s, _) in &r.series {
            if !seen.contains(s) {
                seen.push(s.clone());
            }
        }
    }
    seen
}

/// Techniques in order of first appearance (plan order), which fixes their colours and columns.
fn techniques(records: &[JobRecord], by: &[String]) -> Vec<String> {
    let mut seen = Vec::new();
    for r in records {
        let t = technique(r, by);
        if !seen.contains(&t) {
            seen.push(t);
        }
    }
    seen
}

/// metric values per (row key, technique) over repetitions.
type Samples = BTreeMap<Vec<String>, BTreeMap<String, Vec<f64>>>;

fn samples(records: &[JobRecord], metric_name: &str, by: &[String]) -> Samples {
    let mut out: Samples = BTreeMap::new();
    for r in ok(records) {
        if let Some(v) = metric(r, metric_name) {
            out.entry(row_key(r, by)).or_default().entry(technique(r, by)).or_default().push(v);
        }
    }
    out
}

/// Metric values grouped by (technique, category) in one pass over the records.
fn by_technique_and<'a>(
    records: &'a [JobRecord],
    metric_name: &str,
    by: &[String],
    category: impl Fn(&'a JobRecord) -> String,
) -> BTreeMap<(String, String), Vec<f64>> {
    let mut out: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in ok(records) {
        if let Some(v) = metric(r, metric_name) {
            out.entry((technique(r, by), category(r))).or_default().push(v);
        }
    }
    out
}

/// The y values of (x, y) points grouped by x, in increasing x.
fn group_by_x(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, Vec<f64>)> {
    let mut by_x: BTreeMap<u64, (f64, Vec<f64>)> = BTreeMap::new();
    for (x, y) in points {
        by_x.entry(x.to_bits()).or_insert((x, Vec::new())).1.push(y);
    }
    let mut pts: Vec<(f64, Vec<f64>)> = by_x.into_values().collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

fn safe_name(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// The comparison table of one metric: per row the mean of each technique, then A12 and p of each
/// technique against the baseline (p adjusted over the table), best mean in bold.
pub fn comparison_table(records: &[JobRecord], spec: &ReportSpec, metric_name: &str, by: &[String]) -> Option<Table> {
    let techs = techniques(records, by);
    if techs.len() < 2 {
        return None;
    }
    let baseline = spec
        .baseline
        .as_ref()
        .and_then(|b| techs.iter().find(|t| *t == b || t.starts_with(&format!("{b} ("))))
        .unwrap_or(&techs[0])
        .clone();
    let others: Vec<&String> = techs.iter().filter(|t| **t != baseline).collect();
    let data = samples(records, metric_name, by);
    if data.is_empty() {
        return None;
    }
    let lower_better = spec.lower_is_better.iter().any(|m| m == metric_name);
    let options = CompareOptions { test: MannWhitneyOptions::default(), convention: spec.magnitude.convention() };

    // First pass: every comparison, so the p-values can be adjusted together.
    let mut comparisons = Vec::new();
    for per_tech in data.values() {
        for o in &others {
            let c = match (per_tech.get(*o), per_tech.get(&baseline)) {
                (Some(x), Some(y)) => compare(x, y, &options).ok(),
                _ => None,
            };
            comparisons.push(c);
        }
    }
    let raw: Vec<f64> = comparisons.iter().map(|c| c.map_or(f64::NAN, |c| c.p)).collect();
    let adjusted = match spec.adjust.method() {
        Some(m) => adjust(&raw, m).unwrap_or(raw.clone()),
        None => raw.clone(),
    };

    let mut columns: Vec<String> = vec!["subject".into()];
    columns.extend(by.iter().cloned());
    let labels = columns.len();
    let mut groups = vec![(String::new(), labels), (format!("mean {metric_name}"), techs.len())];
    columns.extend(techs.iter().cloned());
    for o in &others {
        groups.push((format!("{o} vs {baseline}"), 2));
        columns.push("A12".into());
        columns.push("p".into());
    }
    let mut rows = Vec::new();
    let mut k = 0;
    for (key, per_tech) in &data {
        let mut row: Vec<Cell> = key.iter().map(|s| Cell::new(s.clone())).collect();
        let means: Vec<Option<f64>> =
            techs.iter().map(|t| per_tech.get(t).and_then(|v| describe(v).ok()).map(|d| d.mean)).collect();
        let best = means.iter().flatten().filter(|m| m.is_finite()).fold(None, |acc: Option<f64>, &m| match acc {
            None => Some(m),
            Some(a) => Some(if lower_better { a.min(m) } else { a.max(m) }),
        });
        for m in &means {
            let text = number(*m, 2);
            row.push(if m.is_some() && *m == best && means.len() > 1 { Cell::bold(text) } else { Cell::new(text) });
        }
        for _ in &others {
            let c = comparisons[k];
            row.push(Cell::new(number(c.map(|c| c.a12), 2)));
            row.push(Cell::new(c.map_or("–".into(), |_| p_value(adjusted[k]))));
            k += 1;
        }
        rows.push(row);
    }
    let adjust_note = match spec.adjust.method() {
        Some(_) => format!("{:?}-adjusted over the table", spec.adjust),
        None => "not adjusted".into(),
    };
    Some(Table {
        name: format!("comparison-{}", safe_name(metric_name)),
        caption: format!("{metric_name}: mean per technique; A12 and Mann-Whitney p against {baseline}"),
        groups,
        columns,
        label_columns: labels,
        rows,
        notes: vec![format!(
            "Best mean in bold ({} is better). A12 > 0.5 favours the first technique. p-values two-sided, {adjust_note}; NaN when both samples are constant and equal.",
            if lower_better { "lower" } else { "higher" }
        )],
    })
}

/// Descriptives of every metric per technique and row.
pub fn summary_table(records: &[JobRecord], metrics: &[String], by: &[String]) -> Option<Table> {
    let mut columns: Vec<String> = vec!["subject".into()];
    columns.extend(by.iter().cloned());
    columns.extend(["technique", "metric"].map(String::from));
    let labels = columns.len();
    columns.extend(["n", "mean", "sd", "median", "min", "max", "IQR"].map(String::from));
    let mut rows = Vec::new();
    for m in metrics {
        for (key, per_tech) in samples(records, m, by) {
            for (t, values) in per_tech {
                let Ok(d) = describe(&values) else { continue };
                let mut row: Vec<Cell> = key.iter().map(|s| Cell::new(s.clone())).collect();
                row.push(Cell::new(t));
                row.push(Cell::new(m.clone()));
                row.push(Cell::new(d.n.to_string()));
                for v in [d.mean, d.sd, d.median, d.min, d.max, d.iqr] {
                    row.push(Cell::new(number(Some(v), 3)));
                }
                rows.push(row);
            }
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        name: "summary".into(),
        caption: "Descriptive statistics per subject and technique over repetitions".into(),
        groups: Vec::new(),
        columns,
        label_columns: labels,
        rows,
        notes: vec!["sd with n−1; IQR from type-7 quantiles (R's default).".into()],
    })
}

fn stat_of(values: &[f64], stat: Stat) -> Option<f64> {
    let d = describe(values).ok()?;
    Some(match stat {
        Stat::Mean => d.mean,
        Stat::Median => d.median,
        Stat::Sum => values.iter().sum(),
        Stat::Min => d.min,
        Stat::Max => d.max,
    })
}

fn stat_name(stat: Stat) -> &'static str {
    match stat {
        Stat::Mean => "mean",
        Stat::Median => "median",
        Stat::Sum => "sum",
        Stat::Min => "min",
        Stat::Max => "max",
    }
}

/// One statistic per cell. Rows are subjects (× `by`) with metric × technique columns, or, when
/// transposed, metrics with technique columns (pooled over subjects), optionally with a row of
/// column means.
pub fn wide_table(records: &[JobRecord], t: &TableSpec, metrics: &[String]) -> Option<Table> {
    let techs = techniques(records, &t.by);
    let decimals = t.decimals.unwrap_or(2);
    let stat = stat_name(t.stat);
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut numeric: Vec<Vec<Option<f64>>> = Vec::new();
    let (groups, mut columns, label_columns) = if t.transpose {
        for m in metrics {
            let pooled = by_technique_and(records, m, &t.by, |_| String::new());
            let cells: Vec<Option<f64>> =
                techs.iter().map(|tech| pooled.get(&(tech.clone(), String::new())).and_then(|v| stat_of(v, t.stat))).collect();
            rows.push(vec![Cell::new(m.clone())]);
            numeric.push(cells);
        }
        let mut columns = vec!["metric".to_string()];
        columns.extend(techs.iter().cloned());
        (Vec::new(), columns, 1)
    } else {
        let mut keys: Vec<Vec<String>> = Vec::new();
        for r in ok(records) {
            let k = row_key(r, &t.by);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let per_metric: Vec<Samples> = metrics.iter().map(|m| samples(records, m, &t.by)).collect();
        for k in &keys {
            let mut cells = Vec::new();
            for data in &per_metric {
                for tech in &techs {
                    cells.push(data.get(k).and_then(|row| row.get(tech)).and_then(|v| stat_of(v, t.stat)));
                }
            }
            rows.push(k.iter().map(|s| Cell::new(s.clone())).collect());
            numeric.push(cells);
        }
        let mut columns = vec!["subject".to_string()];
        columns.extend(t.by.iter().cloned());
        let labels = columns.len();
        let mut groups = vec![(String::new(), labels)];
        for m in metrics {
            groups.push((m.clone(), techs.len()));
            columns.extend(techs.iter().cloned());
        }
        if techs.len() == 1 {
            // One technique: the metric names are the columns.
            groups.clear();
            columns.truncate(labels);
            columns.extend(metrics.iter().cloned());
        }
        (groups, columns, labels)
    };
    if rows.is_empty() || numeric.iter().all(|r| r.iter().all(Option::is_none)) {
        return None;
    }
    if t.total {
        let width = numeric[0].len();
        let means: Vec<Option<f64>> = (0..width)
            .map(|j| {
                let col: Vec<f64> = numeric.iter().filter_map(|r| r[j]).collect();
                stat_of(&col, Stat::Mean)
            })
            .collect();
        let mut label = vec![Cell::new("mean")];
        label.extend((1..label_columns).map(|_| Cell::new("")));
        rows.push(label);
        numeric.push(means);
    }
    for (row, cells) in rows.iter_mut().zip(&numeric) {
        row.extend(cells.iter().map(|v| Cell::new(number(*v, decimals))));
    }
    if columns.len() < label_columns {
        columns.resize(label_columns, String::new());
    }
    Some(Table {
        name: "wide".into(),
        caption: format!("{stat} per {}", if t.transpose { "metric and technique" } else { "subject, metric and technique" }),
        groups,
        columns,
        label_columns,
        rows,
        notes: if t.total { vec!["The last row is the mean of each column.".into()] } else { Vec::new() },
    })
}

/// The tables the spec asks for, or by default a summary of every metric and, when there are
/// several techniques, a comparison table per metric.
pub fn tables(records: &[JobRecord], spec: &ReportSpec) -> Vec<Table> {
    let specs: Vec<TableSpec> = if spec.tables.is_empty() {
        let metrics = metric_names(records);
        let blank = |kind, metrics| TableSpec {
            kind,
            metrics,
            by: Vec::new(),
            title: None,
            stat: Stat::Mean,
            transpose: false,
            total: false,
            decimals: None,
            experiments: Vec::new(),
        };
        let mut t = vec![blank(TableKind::Summary, metrics.clone())];
        t.extend(metrics.into_iter().map(|m| blank(TableKind::Comparison, vec![m])));
        t
    } else {
        spec.tables.clone()
    };
    let mut out = Vec::new();
    for t in specs {
        let records = &*only(records, &t.experiments);
        let metrics = if t.metrics.is_empty() { metric_names(records) } else { t.metrics.clone() };
        let mut made: Vec<Table> = match t.kind {
            TableKind::Summary => summary_table(records, &metrics, &t.by).into_iter().collect(),
            TableKind::Comparison => metrics.iter().filter_map(|m| comparison_table(records, spec, m, &t.by)).collect(),
            TableKind::Wide => wide_table(records, &t, &metrics).into_iter().collect(),
        };
        if let Some(title) = &t.title {
            for m in &mut made {
                m.caption = title.clone();
            }
        }
        out.extend(made);
    }
    // Two specs may produce the same file name: keep the names unique.
    let mut seen = BTreeSet::new();
    for t in &mut out {
        let mut name = t.name.clone();
        let mut i = 2;
        while !seen.insert(name.clone()) {
            name = format!("{}-{i}", t.name);
            i += 1;
        }
        t.name = name;
    }
    out
}

fn subjects(records: &[JobRecord]) -> Vec<String> {
    let mut seen = Vec::new();
    for r in records {
        if !seen.contains(&r.subject) {
            seen.push(r.subject.clone());
        }
    }
    seen
}

/// Mean and band of a series per technique and subject, over repetitions, on the union of x values.
fn curves(records: &[JobRecord], series: &str, band: Band, spec: &PlotSpec) -> LineBandPlot {
    let techs = techniques(records, &[]);
    let mut index: BTreeMap<(String, String), Vec<&JobRecord>> = BTreeMap::new();
    for r in ok(records) {
        index.entry((r.subject.clone(), technique(r, &[]))).or_default().push(r);
    }
    let panels = subjects(records)
        .into_iter()
        .map(|subject| {
            let series_list = techs
                .iter()
                .filter_map(|t| {
                    let pts = group_by_x(
                        index
                            .get(&(subject.clone(), t.clone()))
                            .into_iter()
                            .flatten()
                            .flat_map(|r| r.series.iter().filter(|(name, _)| name == series))
                            .flat_map(|(_, points)| points.iter().copied()),
                    );
                    if pts.is_empty() {
                        return None;
                    }
                    let x = pts.iter().map(|p| p.0).collect();
                    let stats: Vec<_> = pts.iter().map(|p| describe(&p.1).ok()).collect();
                    let mean = stats.iter().map(|d| d.as_ref().map_or(f64::NAN, |d| d.mean)).collect();
                    let (lower, upper) = match band {
                        Band::Minmax => (
                            stats.iter().map(|d| d.as_ref().map_or(f64::NAN, |d| d.min)).collect(),
                            stats.iter().map(|d| d.as_ref().map_or(f64::NAN, |d| d.max)).collect(),
                        ),
                        Band::Ci95 => {
                            // Normal-approximation interval of the mean: mean ± 1.96 sd / sqrt(n).
                            let half = |d: &crate::stats::Descriptives| {
                                if d.n > 1 {
                                    1.96 * d.sd / (d.n as f64).sqrt()
                                } else {
                                    0.0
                                }
                            };
                            (
                                stats.iter().map(|d| d.as_ref().map_or(f64::NAN, |d| d.mean - half(d))).collect(),
                                stats.iter().map(|d| d.as_ref().map_or(f64::NAN, |d| d.mean + half(d))).collect(),
                            )
                        }
                    };
                    Some(BandSeries { name: t.clone(), x, mean, lower: Some(lower), upper: Some(upper) })
                })
                .collect();
            LineBandPanel { title: subject, series: series_list }
        })
        .collect();
    LineBandPlot {
        title: spec.title.clone().unwrap_or_else(|| format!("{series} over repetitions")),
        x_label: spec.x_label.clone().unwrap_or_else(|| "x".into()),
        y_label: spec.y_label.clone().unwrap_or_else(|| series.to_string()),
        panels,
        band_label: Some(match band {
            Band::Minmax => "min–max".into(),
            Band::Ci95 => "95% CI".into(),
        }),
        y_range: None,
        markers: false,
        layout: Layout::default(),
    }
}

fn boxes(records: &[JobRecord], metric_name: &str, spec: &PlotSpec) -> BoxPlot {
    let techs = techniques(records, &[]);
    let grouped = by_technique_and(records, metric_name, &[], |r| r.subject.clone());
    let panels = subjects(records)
        .into_iter()
        .map(|subject| BoxPanel {
            groups: techs
                .iter()
                .filter_map(|t| grouped.get(&(t.clone(), subject.clone())).map(|v| BoxGroup { name: t.clone(), values: v.clone() }))
                .collect(),
            title: subject,
        })
        .collect();
    BoxPlot {
        title: spec.title.clone().unwrap_or_else(|| format!("{metric_name} per technique")),
        x_label: spec.x_label.clone().unwrap_or_else(|| "technique".into()),
        y_label: spec.y_label.clone().unwrap_or_else(|| metric_name.to_string()),
        panels,
        y_range: None,
        layout: Layout::default(),
    }
}

fn mean_of(values: &[f64]) -> f64 {
    describe(values).map_or(f64::NAN, |d| d.mean)
}

/// Mean metric per technique (bars) and category (subject, or the `x` parameter).
fn bars(records: &[JobRecord], metric_name: &str, spec: &PlotSpec) -> GroupedBars {
    let category = |r: &JobRecord| spec.x.as_ref().map_or(r.subject.clone(), |x| param_text(r, x));
    let by: Vec<String> = spec.x.iter().cloned().collect();
    let mut categories: Vec<String> = Vec::new();
    for r in ok(records) {
        let c = category(r);
        if !categories.contains(&c) {
            categories.push(c);
        }
    }
    let grouped = by_technique_and(records, metric_name, &by, category);
    let series = techniques(records, &by)
        .into_iter()
        .map(|t| BarSeries {
            values: categories.iter().map(|c| grouped.get(&(t.clone(), c.clone())).map_or(f64::NAN, |v| mean_of(v))).collect(),
            name: t,
        })
        .collect();
    GroupedBars {
        title: spec.title.clone().unwrap_or_else(|| format!("mean {metric_name}")),
        x_label: spec.x_label.clone().unwrap_or_else(|| spec.x.clone().unwrap_or_else(|| "subject".into())),
        y_label: spec.y_label.clone().unwrap_or_else(|| metric_name.to_string()),
        categories,
        series,
        y_range: None,
        value_decimals: Some(2),
        layout: Layout::default(),
    }
}

/// Mean metric per technique (rows) and value of the `x` parameter or subject (columns); with
/// `metrics`, one row per metric instead (e.g. relation patterns × seeded faults).
fn heat(records: &[JobRecord], metric_name: &str, spec: &PlotSpec) -> Heatmap {
    // `x = "technique"`: one column per technique (with `metrics` as rows, e.g. fault × criterion).
    let column = |r: &JobRecord| match spec.x.as_deref() {
        Some("technique") => technique(r, &[]),
        Some(x) => param_text(r, x),
        None => r.subject.clone(),
    };
    let mut cols: Vec<String> = Vec::new();
    for r in ok(records) {
        let c = column(r);
        if !cols.contains(&c) {
            cols.push(c);
        }
    }
    let (rows, values, y_default, colorbar): (Vec<String>, Vec<Vec<f64>>, &str, String) = if spec.metrics.is_empty() {
        let by: Vec<String> = spec.x.iter().cloned().collect();
        let rows = techniques(records, &by);
        let grouped = by_technique_and(records, metric_name, &by, column);
        let values = rows
            .iter()
            .map(|t| cols.iter().map(|c| grouped.get(&(t.clone(), c.clone())).map_or(f64::NAN, |v| mean_of(v))).collect())
            .collect();
        (rows, values, "technique", metric_name.to_string())
    } else {
        let mut sums: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
        for r in ok(records) {
            let c = cols.iter().position(|x| *x == column(r)).expect("collected above");
            for (i, m) in spec.metrics.iter().enumerate() {
                if let Some(v) = metric(r, m) {
                    sums.entry((i, c)).or_default().push(v);
                }
            }
        }
        let values = (0..spec.metrics.len())
            .map(|i| (0..cols.len()).map(|c| sums.get(&(i, c)).map_or(f64::NAN, |v| mean_of(v))).collect())
            .collect();
        (spec.metrics.clone(), values, "metric", "mean".to_string())
    };
    let title_metric = if spec.metrics.is_empty() { metric_name.to_string() } else { spec.metrics.join(", ") };
    Heatmap {
        title: spec.title.clone().unwrap_or_else(|| format!("mean {title_metric}")),
        x_label: spec.x_label.clone().unwrap_or_else(|| spec.x.clone().unwrap_or_else(|| "subject".into())),
        y_label: spec.y_label.clone().unwrap_or_else(|| y_default.into()),
        row_labels: rows,
        col_labels: cols,
        values,
        value_range: None,
        colorbar_label: colorbar,
        value_decimals: 2,
        layout: Layout::default(),
    }
}

/// Mean metric against a numeric parameter, one line per technique.
fn sweep(records: &[JobRecord], metric_name: &str, x: &str, spec: &PlotSpec) -> LineSweep {
    let by = vec![x.to_string()];
    let mut per_tech: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in ok(records) {
        if let (Some(xv), Some(v)) = (r.params.get(x).and_then(ParamValue::as_f64), metric(r, metric_name)) {
            per_tech.entry(technique(r, &by)).or_default().push((xv, v));
        }
    }
    let series = techniques(records, &by)
        .into_iter()
        .map(|t| {
            let pts = group_by_x(per_tech.remove(&t).unwrap_or_default().into_iter());
            SweepSeries { name: t, x: pts.iter().map(|p| p.0).collect(), y: pts.iter().map(|p| mean_of(&p.1)).collect() }
        })
        .filter(|s| !s.x.is_empty())
        .collect();
    LineSweep {
        title: spec.title.clone().unwrap_or_else(|| format!("{metric_name} against {x}")),
        x_label: spec.x_label.clone().unwrap_or_else(|| x.to_string()),
        y_label: spec.y_label.clone().unwrap_or_else(|| format!("mean {metric_name}")),
        series,
        x_range: None,
        y_range: None,
        layout: Layout::default(),
    }
}

/// The figures the spec asks for, or by default a box plot per metric and a curve per series.
pub fn figures(records: &[JobRecord], spec: &ReportSpec) -> Vec<NamedFigure> {
    let specs: Vec<PlotSpec> = if spec.plots.is_empty() {
        let mut p: Vec<PlotSpec> = series_names(records).into_iter().map(|s| PlotSpec { series: Some(s), ..PlotSpec::of(PlotKind::Curve) }).collect();
        p.extend(metric_names(records).into_iter().map(|m| PlotSpec { metric: Some(m), ..PlotSpec::of(PlotKind::Box) }));
        p
    } else {
        spec.plots.clone()
    };
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for p in specs {
        let records = &*only(records, &p.experiments);
        let metric_name = p.metric.clone().unwrap_or_else(|| "value".into());
        let (stem, figure) = match p.kind {
            PlotKind::Curve => {
                let s = p.series.clone().unwrap_or_else(|| series_names(records).into_iter().next().unwrap_or_default());
                (format!("curve-{}", safe_name(&s)), Figure::Curves(curves(records, &s, p.band, &p)))
            }
            PlotKind::Box => (format!("box-{}", safe_name(&metric_name)), Figure::Boxes(boxes(records, &metric_name, &p))),
            PlotKind::Bars => (format!("bars-{}", safe_name(&metric_name)), Figure::Bars(bars(records, &metric_name, &p))),
            PlotKind::Heatmap => {
                let stem = if p.metrics.is_empty() { metric_name.clone() } else { format!("metrics-{}", p.x.as_deref().unwrap_or("subject")) };
                (format!("heatmap-{}", safe_name(&stem)), Figure::Heat(heat(records, &metric_name, &p)))
            }
            PlotKind::Sweep => {
                let x = p.x.clone().unwrap_or_default();
                (format!("sweep-{}-{}", safe_name(&metric_name), safe_name(&x)), Figure::Sweep(sweep(records, &metric_name, &x, &p)))
            }
        };
        let mut name = stem.clone();
        let mut i = 2;
        while !seen.insert(name.clone()) {
            name = format!("{stem}-{i}");
            i += 1;
        }
        let caption = match &figure {
            Figure::Curves(f) => f.title.clone(),
            Figure::Boxes(f) => f.title.clone(),
            Figure::Bars(f) => f.title.clone(),
            Figure::Heat(f) => f.title.clone(),
            Figure::Sweep(f) => f.title.clone(),
        };
        out.push(NamedFigure { name, caption, figure });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(exp: &str, subject: &str, rep: u32, budget: i64, cov: f64) -> JobRecord {
        JobRecord {
            study: "s".into(),
            experiment: exp.into(),
            kind: "noop".into(),
            subject: subject.into(),
            params: BTreeMap::from([("budget".to_string(), ParamValue::Int(budget))]),
            repetition: rep,
            status: "ok".into(),
            metrics: vec![("cov".into(), cov)],
            series: vec![("trace".into(), vec![(0.0, cov), (1.0, cov * 2.0)])],
            ..Default::default()
        }
    }

    fn data() -> Vec<JobRecord> {
        let mut v = Vec::new();
        for rep in 0..5 {
            v.push(rec("bb", "a", rep, 10, 50.0 + rep as f64));
            v.push(rec("wb", "a", rep, 10, 20.0 + rep as f64));
            v.push(rec("bb", "b", rep, 10, 7.0));
            v.push(rec("wb", "b", rep, 10, 7.0));
        }
        v
    }

    #[test]
    fn heatmap_of_metrics_against_a_parameter_and_experiment_filter() {
        let mut recs = data();
        for r in &mut recs {
            r.metrics.push(("twice".into(), 2.0 * r.metrics[0].1));
        }
        let spec = PlotSpec {
            metrics: vec!["cov".into(), "twice".into()],
            experiments: vec!["wb".into()],
            ..PlotSpec::of(PlotKind::Heatmap)
        };
        let report = ReportSpec { plots: vec![spec], ..ReportSpec::default() };
        let figs = figures(&recs, &report);
        let Figure::Heat(h) = &figs[0].figure else { panic!("not a heatmap") };
        assert_eq!(figs[0].name, "heatmap-metrics-subject");
        assert_eq!(h.row_labels, ["cov", "twice"]);
        assert_eq!(h.col_labels, ["a", "b"]);
        // wb only: subject a has 20..24 (mean 22), b has 7.
        assert_eq!(h.values, vec![vec![22.0, 7.0], vec![44.0, 14.0]]);
    }

    #[test]
    fn comparison_table_matches_direct_statistics() {
        let spec = ReportSpec::default();
        let t = comparison_table(&data(), &spec, "cov", &["budget".to_string()]).unwrap();
        assert_eq!(t.columns, ["subject", "budget", "bb", "wb", "A12", "p"]);
        let a = &t.rows[0];
        assert_eq!((a[0].text.as_str(), a[2].text.as_str(), a[3].text.as_str()), ("a", "52.00", "22.00"));
        assert!(a[2].bold && !a[3].bold, "the higher mean is bold");
        assert_eq!(a[4].text, "0.00", "wb loses every pair: A12 = 0");
        // Direct: exact two-sided p for 5 vs 5 without overlap is 2/252; Holm over 2 tests (other NaN).
        assert_eq!(a[5].text, p_value(2.0 / 252.0));
        let b = &t.rows[1];
        assert_eq!((b[4].text.as_str(), b[5].text.as_str()), ("0.50", "NaN"), "constant equal samples");
    }

    #[test]
    fn lower_is_better_moves_the_bold() {
        let spec = ReportSpec { lower_is_better: vec!["cov".into()], ..Default::default() };
        let t = comparison_table(&data(), &spec, "cov", &["budget".to_string()]).unwrap();
        assert!(t.rows[0][3].bold && !t.rows[0][2].bold);
    }

    #[test]
    fn defaults_give_summary_comparison_curve_and_box() {
        let spec = ReportSpec::default();
        let names: Vec<String> = tables(&data(), &spec).into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["summary", "comparison-cov"]);
        let figs: Vec<String> = figures(&data(), &spec).into_iter().map(|f| f.name).collect();
        assert_eq!(figs, ["curve-trace", "box-cov"]);
    }

    #[test]
    fn wide_tables_put_one_statistic_per_cell_with_a_mean_row() {
        let mut t = TableSpec {
            kind: TableKind::Wide,
            metrics: vec!["cov".into()],
            by: vec!["budget".into()],
            title: None,
            stat: Stat::Mean,
            transpose: false,
            total: true,
            decimals: Some(1),
            experiments: Vec::new(),
        };
        let w = wide_table(&data(), &t, &t.metrics.clone()).unwrap();
        assert_eq!(w.columns, ["subject", "budget", "bb", "wb"]);
        assert_eq!(w.groups, [(String::new(), 2), ("cov".to_string(), 2)]);
        let text = |r: &Vec<Cell>| r.iter().map(|c| c.text.clone()).collect::<Vec<_>>();
        assert_eq!(text(&w.rows[0]), ["a", "10", "52.0", "22.0"]);
        assert_eq!(text(&w.rows[2]), ["mean", "", "29.5", "14.5"], "column means over subjects a and b");
        t.transpose = true;
        t.stat = Stat::Max;
        let w = wide_table(&data(), &t, &t.metrics.clone()).unwrap();
        assert_eq!(w.columns, ["metric", "bb", "wb"]);
        assert_eq!(text(&w.rows[0]), ["cov", "54.0", "24.0"]);
    }

    #[test]
    fn curves_average_repetitions_with_min_max_band() {
        let spec = ReportSpec::default();
        let data = data();
        let Figure::Curves(c) = &figures(&without_constant_params(&data, &spec), &spec)[0].figure else { panic!("a curve first") };
        let bb = &c.panels[0].series[0];
        assert_eq!(bb.name, "bb", "budget is 10 in every bb job: the label leaves it out");
        assert_eq!(bb.mean, [52.0, 104.0]);
        assert_eq!(bb.lower.as_ref().unwrap(), &[50.0, 100.0]);
        assert_eq!(bb.upper.as_ref().unwrap(), &[54.0, 108.0]);
    }
}
