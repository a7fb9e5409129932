//! What a report shows: the study file's `[report]` section, or defaults derived from the data.
//!
//! ```toml
//! [report]
//! baseline = "bb"                  # experiment the others are compared with (default: the first)
//! adjust = "holm"                  # holm | bonferroni | none, over each table's p-values
//! magnitude = "vargha-delaney"     # or "hess-kromrey"
//! lower_is_better = ["time_ms"]    # metrics where smaller is best (bold)
//!
//! [[report.table]]
//! kind = "comparison"              # comparison | summary
//! metrics = ["coverage", "faults"]
//! by = ["budget"]                  # parameters that split rows besides the subject
//!
//! [[report.table]]
//! kind = "wide"                    # one statistic per cell: rows subject (× by), columns metric × technique
//! metrics = ["detects_f1", "detects_f2"]
//! stat = "mean"                    # mean | median | sum | min | max
//! transpose = true                 # metrics as rows, techniques as columns
//! total = true                     # a last row with each column's mean (e.g. AFDE)
//! experiments = ["exec"]           # any table or plot: only these experiments' jobs
//!
//! [[report.plot]]
//! kind = "curve"                   # curve (series over x) | box | bars | heatmap | sweep
//! series = "coverage"              # curve: the series name
//! metric = "value"                 # box, bars, heatmap, sweep: the metric
//! x = "threshold"                  # sweep: the swept parameter; heatmap: the column parameter
//! metrics = ["killed_by_a", ...]   # heatmap: metrics as rows (default: techniques as rows)
//! band = "minmax"                  # curve: minmax | ci95
//! x_label = "budget (%)"
//! y_label = "line coverage (%)"
//! ```

use serde::Deserialize;

use crate::stats::{Adjustment, MagnitudeConvention};

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSpec {
    pub baseline: Option<String>,
    #[serde(default)]
    pub adjust: AdjustSpec,
    #[serde(default)]
    pub magnitude: MagnitudeSpec,
    #[serde(default)]
    pub lower_is_better: Vec<String>,
    #[serde(default, rename = "table")]
    pub tables: Vec<TableSpec>,
    #[serde(default, rename = "plot")]
    pub plots: Vec<PlotSpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdjustSpec {
    #[default]
    Holm,
    Bonferroni,
    None,
}

impl AdjustSpec {
    pub fn method(self) -> Option<Adjustment> {
        match self {
            AdjustSpec::Holm => Some(Adjustment::Holm),
            AdjustSpec::Bonferroni => Some(Adjustment::Bonferroni),
            AdjustSpec::None => None,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MagnitudeSpec {
    #[default]
    VarghaDelaney,
    HessKromrey,
}

impl MagnitudeSpec {
    pub fn convention(self) -> MagnitudeConvention {
        match self {
            MagnitudeSpec::VarghaDelaney => MagnitudeConvention::VarghaDelaney,
            MagnitudeSpec::HessKromrey => MagnitudeConvention::HessKromrey,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableKind {
    Comparison,
    Summary,
    /// One statistic per row and metric, techniques side by side (e.g. the MRG paper's Table 2:
    /// MRs per pattern per subject); transposed, metrics are rows and techniques columns (e.g. a
    /// fault-detection table: faults × criteria with FDE cells and an AFDE row).
    Wide,
}

/// The statistic a wide table shows in each cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    #[default]
    Mean,
    Median,
    Sum,
    Min,
    Max,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub kind: TableKind,
    #[serde(default)]
    pub metrics: Vec<String>,
    #[serde(default)]
    pub by: Vec<String>,
    pub title: Option<String>,
    /// Wide tables: the statistic in each cell.
    #[serde(default)]
    pub stat: Stat,
    /// Wide tables: metrics as rows, techniques as columns.
    #[serde(default)]
    pub transpose: bool,
    /// Wide tables: a last row with the mean of each column (e.g. AFDE).
    #[serde(default)]
    pub total: bool,
    /// Decimals in the cells (default 2).
    pub decimals: Option<usize>,
    /// Only these experiments' jobs (default: all).
    #[serde(default)]
    pub experiments: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlotKind {
    Curve,
    Box,
    Bars,
    Heatmap,
    Sweep,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    #[default]
    Minmax,
    Ci95,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    pub kind: PlotKind,
    pub series: Option<String>,
    pub metric: Option<String>,
    pub x: Option<String>,
    #[serde(default)]
    pub band: Band,
    pub title: Option<String>,
    pub x_label: Option<String>,
    pub y_label: Option<String>,
    /// Heatmap: these metrics as rows (instead of one metric, techniques as rows).
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Only these experiments' jobs (default: all).
    #[serde(default)]
    pub experiments: Vec<String>,
}

impl PlotSpec {
    /// A plot of `kind` with every option at its default.
    pub fn of(kind: PlotKind) -> Self {
        PlotSpec {
            kind,
            series: None,
            metric: None,
            x: None,
            band: Band::Minmax,
            title: None,
            x_label: None,
            y_label: None,
            metrics: Vec::new(),
            experiments: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("[report] section: {0}")]
pub struct SpecError(pub String);

/// Reads the `[report]` section of a study file's text; a study without one gets the defaults.
pub fn from_study_toml(text: &str) -> Result<ReportSpec, SpecError> {
    #[derive(Deserialize)]
    struct File {
        report: Option<toml::Value>,
    }
    let file: File = toml::from_str(text).map_err(|e| SpecError(e.message().to_string()))?;
    match file.report {
        None => Ok(ReportSpec::default()),
        Some(v) => v.try_into().map_err(|e: toml::de::Error| SpecError(e.message().to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_example() {
        let text = r#"
[study]
name = "x"
[report]
baseline = "bb"
adjust = "none"
magnitude = "hess-kromrey"
lower_is_better = ["time_ms"]
[[report.table]]
kind = "comparison"
metrics = ["coverage"]
by = ["budget"]
[[report.plot]]
kind = "curve"
series = "coverage"
band = "ci95"
"#;
        let s = from_study_toml(text).unwrap();
        assert_eq!(s.baseline.as_deref(), Some("bb"));
        assert_eq!(s.adjust, AdjustSpec::None);
        assert_eq!(s.magnitude, MagnitudeSpec::HessKromrey);
        assert_eq!(s.tables[0].by, ["budget"]);
        assert_eq!(s.plots[0].band, Band::Ci95);
    }

    #[test]
    fn no_section_gives_defaults_and_typos_are_errors() {
        assert_eq!(from_study_toml("[study]\nname = \"x\"\n").unwrap(), ReportSpec::default());
        let e = from_study_toml("[report]\nbaseline = \"a\"\nbaseln = 1\n").unwrap_err();
        assert!(e.to_string().contains("baseln"), "{e}");
    }
}
