//! The study report: tables (`tables/*.tex|md|csv`), figures (`plots/*.svg|png`) and one
//! self-contained `index.html` with every table, every figure and the study's provenance.

mod build;
mod html;
pub mod spec;

use std::path::{Path, PathBuf};

pub use build::{comparison_table, figures, metric_names, summary_table, tables, Figure, NamedFigure};
pub use html::Provenance;
pub use spec::{from_study_toml, ReportSpec, SpecError};

use crate::frame::JobRecord;
use crate::plots::{Plot, PlotError};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("plot {name}: {source}")]
    Plot { name: String, source: PlotError },
    #[error("writing {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct ReportSummary {
    pub index: PathBuf,
    pub tables: usize,
    pub figures: usize,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io { path: path.to_path_buf(), source }
}

fn plot_of(f: &Figure) -> &dyn Plot {
    match f {
        Figure::Curves(p) => p,
        Figure::Boxes(p) => p,
        Figure::Bars(p) => p,
        Figure::Heat(p) => p,
        Figure::Sweep(p) => p,
    }
}

/// Writes the whole report for `records` into `out`, as `spec` says (defaults where it is silent).
pub fn write_report(records: &[JobRecord], spec: &ReportSpec, provenance: &Provenance, out: &Path) -> Result<ReportSummary, ReportError> {
    let tables_dir = out.join("tables");
    let plots_dir = out.join("plots");
    std::fs::create_dir_all(&tables_dir).map_err(io(&tables_dir))?;
    std::fs::create_dir_all(&plots_dir).map_err(io(&plots_dir))?;
    // Once for tables and figures: labels then name only what varies within an experiment.
    let records = &*build::without_constant_params(records, spec);
    let tables = tables(records, spec);
    for t in &tables {
        t.write_all(&tables_dir).map_err(io(&tables_dir))?;
    }
    let figures = figures(records, spec);
    let mut svgs = Vec::new();
    for f in &figures {
        let plot = plot_of(&f.figure);
        let err = |source| ReportError::Plot { name: f.name.clone(), source };
        let svg = plot.to_svg().map_err(err)?;
        let svg_path = plots_dir.join(format!("{}.svg", f.name));
        std::fs::write(&svg_path, &svg).map_err(io(&svg_path))?;
        let png_path = plots_dir.join(format!("{}.png", f.name));
        std::fs::write(&png_path, plot.to_png().map_err(err)?).map_err(io(&png_path))?;
        svgs.push(svg);
    }
    let index = out.join("index.html");
    let page = html::page(provenance, &tables, &figures, &svgs, records);
    std::fs::write(&index, page).map_err(io(&index))?;
    Ok(ReportSummary { index, tables: tables.len(), figures: figures.len() })
}
