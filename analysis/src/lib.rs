//! Analysis of stored results: statistics, tables, plots and the HTML report.
//!
//! [`stats`] is the statistics core (Mann-Whitney U, Vargha-Delaney A12, Holm/Bonferroni,
//! Fisher's exact test, descriptives), checked against SciPy and R reference values; tables,
//! plots and the report build on it (issue 3).

pub mod frame;
pub mod pairwise;
pub mod stats;
pub mod table;
pub mod plots;
pub mod report;

/// The polars version the frames are built with, for callers that build frames themselves.
pub use polars;
