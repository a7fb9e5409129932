//! The one error type of the statistics core.

use thiserror::Error;

/// Why a statistic could not be computed.
///
/// Every function in [`crate::stats`] returns this instead of panicking: bad input (empty samples,
/// NaN, probabilities outside `[0, 1]`) and requests that cannot be honoured (an exact p-value with
/// ties, an exact distribution too large to build) are reported here.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    /// A sample that must hold at least one value is empty.
    #[error("sample `{input}` is empty")]
    Empty {
        /// Which input (`"x"`, `"y"`, `"values"`).
        input: &'static str,
    },
    /// A sample holds NaN; NaN has no rank, so it is refused rather than dropped silently.
    #[error("sample `{input}` contains NaN")]
    NaN {
        /// Which input (`"x"`, `"y"`, `"values"`).
        input: &'static str,
    },
    /// The exact Mann-Whitney distribution was requested, but the data contain ties; the exact
    /// null distribution assumes none, so its p-value would be wrong.
    #[error("exact Mann-Whitney p-value requested but the data contain ties")]
    ExactWithTies,
    /// The exact null distribution for these sample sizes would take too much memory or time.
    #[error("exact Mann-Whitney distribution for sizes {m} and {n} is too large to compute")]
    ExactTooLarge {
        /// Size of `x`.
        m: usize,
        /// Size of `y`.
        n: usize,
    },
    /// A p-value (input to an adjustment) is outside `[0, 1]` or infinite.
    #[error("p-value {0} is outside [0, 1]")]
    InvalidProbability(f64),
    /// An A12 value is NaN or outside `[0, 1]`.
    #[error("A12 value {0} is outside [0, 1]")]
    InvalidA12(f64),
    /// A 2x2 table whose counts are so large that Fisher's test would not finish in reasonable
    /// time (more than `limit` tables with non-negligible probability).
    #[error("2x2 table too large for Fisher's exact test (more than {limit} tables to sum)")]
    TableTooLarge {
        /// The number of tables the walk was allowed to visit.
        limit: u64,
    },
}
