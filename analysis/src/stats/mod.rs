//! Statistics core: the tests and effect sizes a software-testing study reports.
//!
//! Results of randomised techniques are compared pairwise with the Mann-Whitney U test and the
//! Vargha-Delaney A12 effect size (the practice recommended by Arcuri & Briand), corrected for
//! multiple comparisons with Holm or Bonferroni; rates use Fisher's exact test; groups are
//! summarised by [`describe`]. The p-values reproduce SciPy's and R's conventions to 1e-12 (see
//! `analysis/tests/fixtures/stats`), so numbers in a paper can be checked with either tool.
//!
//! Every function validates its input and returns [`StatsError`] instead of panicking.

mod a12;
mod adjust;
mod describe;
mod error;
mod exact;
mod fisher;
mod mannwhitney;
mod normal;
mod rank;

pub use a12::{a12, magnitude, Magnitude, MagnitudeConvention};
pub use adjust::{adjust, bonferroni, holm, Adjustment};
pub use describe::{describe, quantile, Descriptives};
pub use error::StatsError;
pub use exact::exact_null_pmf;
pub use fisher::fisher_exact;
pub use mannwhitney::{
    compare, mann_whitney, Alternative, CompareOptions, Comparison, MannWhitney,
    MannWhitneyOptions, Method, MethodUsed,
};
pub use normal::{normal_cdf, normal_sf};
