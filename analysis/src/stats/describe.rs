//! Descriptive statistics of one group of results (one technique on one subject).
//!
//! Tables report the spread beside the test; quartiles use R's default, quantile type 7
//! (Hyndman & Fan 1996): for probability `p` over the sorted values `x_1 <= ... <= x_n`, with
//! `h = (n - 1) p`, the quantile is `x_(floor h + 1) + (h - floor h) (x_(floor h + 2) - x_(floor h + 1))`,
//! which is also NumPy's default `linear` method.

use serde::{Deserialize, Serialize};

use super::rank::check_sample;
use super::StatsError;

/// Summary of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Descriptives {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (the mean of the two middle values when `n` is even).
    pub median: f64,
    /// Sample standard deviation, denominator `n - 1`; NaN when `n = 1` (as R's `sd`).
    pub sd: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// First quartile, quantile type 7.
    pub q1: f64,
    /// Third quartile, quantile type 7.
    pub q3: f64,
    /// Interquartile range `q3 - q1` (R's `IQR`, type 7).
    pub iqr: f64,
}

/// Descriptive statistics of `values`. Errors if it is empty or holds NaN; infinite values are
/// accepted and propagate (an infinite mean, a NaN sd).
pub fn describe(values: &[f64]) -> Result<Descriptives, StatsError> {
    check_sample(values, "values")?;
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let n = sorted.len();
    let nf = n as f64;
    // Two passes, the second correcting the first's rounding (as R's mean does).
    let mean0 = sorted.iter().sum::<f64>() / nf;
    let mean = if mean0.is_finite() {
        mean0 + sorted.iter().map(|v| v - mean0).sum::<f64>() / nf
    } else {
        mean0
    };
    let sd = if n < 2 {
        f64::NAN
    } else {
        (sorted.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (nf - 1.0)).sqrt()
    };
    let q1 = quantile_sorted(&sorted, 0.25);
    let q3 = quantile_sorted(&sorted, 0.75);
    Ok(Descriptives {
        n,
        mean,
        median: quantile_sorted(&sorted, 0.5),
        sd,
        min: sorted[0],
        max: sorted[n - 1],
        q1,
        q3,
        iqr: q3 - q1,
    })
}

/// Quantile type 7 of `values` at probability `p` in `[0, 1]`. Errors on an empty sample or NaN
/// in `values`; a `p` outside `[0, 1]` (or NaN) is an [`StatsError::InvalidProbability`].
pub fn quantile(values: &[f64], p: f64) -> Result<f64, StatsError> {
    check_sample(values, "values")?;
    if !(0.0..=1.0).contains(&p) {
        return Err(StatsError::InvalidProbability(p));
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    Ok(quantile_sorted(&sorted, p))
}

/// Type 7 on sorted, non-empty, NaN-free data, in R's arithmetic:
/// `(1 - h) * x[lo] + h * x[hi]`, and `x[lo]` itself when `h = 0` or the two are equal.
fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let index = (sorted.len() - 1) as f64 * p;
    let lo = index.floor();
    let h = index - lo;
    let lo = lo as usize;
    let x_lo = sorted[lo];
    if h == 0.0 {
        return x_lo;
    }
    let x_hi = sorted[(lo + 1).min(sorted.len() - 1)];
    if x_hi == x_lo {
        x_lo
    } else {
        (1.0 - h) * x_lo + h * x_hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_r() {
        // R: x <- c(19, 22, 16, 29, 24); mean 22, median 22, sd 4.949747468305833,
        // quantile(x, c(.25, .75)) = 19, 24; IQR 5.
        let d = describe(&[19.0, 22.0, 16.0, 29.0, 24.0]).unwrap();
        assert_eq!(
            (d.n, d.mean, d.median, d.min, d.max),
            (5, 22.0, 22.0, 16.0, 29.0)
        );
        assert!((d.sd - 4.949747468305833).abs() < 1e-15);
        assert_eq!((d.q1, d.q3, d.iqr), (19.0, 24.0, 5.0));
        // R: y <- c(20, 11, 17, 12); quantile(y, c(.25, .5, .75)) = 11.75, 14.5, 17.75.
        let d = describe(&[20.0, 11.0, 17.0, 12.0]).unwrap();
        assert_eq!((d.q1, d.median, d.q3, d.iqr), (11.75, 14.5, 17.75, 6.0));
        assert_eq!(d.mean, 15.0);
        // sd = sqrt(((5)^2 + 4^2 + 2^2 + 3^2) / 3) = sqrt(54 / 3)
        assert!((d.sd - 18f64.sqrt()).abs() < 1e-15);
        // 1..10: quantile type 7 at .25 is 3.25, at .75 is 7.75.
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.25).unwrap(), 3.25);
        assert_eq!(quantile(&v, 0.75).unwrap(), 7.75);
        assert_eq!(quantile(&v, 0.1).unwrap(), 1.9);
        assert_eq!(quantile(&v, 0.0).unwrap(), 1.0);
        assert_eq!(quantile(&v, 1.0).unwrap(), 10.0);
    }

    #[test]
    fn single_value_and_constant() {
        let d = describe(&[7.0]).unwrap();
        assert_eq!(
            (d.n, d.mean, d.median, d.q1, d.q3, d.iqr),
            (1, 7.0, 7.0, 7.0, 7.0, 0.0)
        );
        assert!(d.sd.is_nan());
        let d = describe(&[0.1; 7]).unwrap();
        assert_eq!((d.mean, d.sd, d.iqr), (0.1, 0.0, 0.0));
    }

    #[test]
    fn errors_and_infinities() {
        assert_eq!(describe(&[]), Err(StatsError::Empty { input: "values" }));
        assert_eq!(
            describe(&[1.0, f64::NAN]),
            Err(StatsError::NaN { input: "values" })
        );
        assert!(quantile(&[1.0], 1.5).is_err());
        assert!(quantile(&[1.0], f64::NAN).is_err());
        let d = describe(&[1.0, f64::INFINITY, 2.0]).unwrap();
        assert_eq!(
            (d.mean, d.max, d.median),
            (f64::INFINITY, f64::INFINITY, 2.0)
        );
        let d = describe(&[f64::MAX, f64::MAX]).unwrap();
        assert_eq!(d.median, f64::MAX);
    }
}
