//! Multiple-comparison adjustment of p-values: Bonferroni and Holm, as R's `p.adjust`.
//!
//! A study compares many technique pairs on many subjects; unadjusted p-values would find
//! "significant" differences by chance. NaN p-values (comparisons with no test, e.g. all values
//! tied) stay NaN and are not counted in the number of comparisons, as R excludes `NA` from `n`.

use serde::{Deserialize, Serialize};

use super::StatsError;

/// A p-value adjustment method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Adjustment {
    /// No adjustment (values are still validated).
    None,
    /// Bonferroni: `min(1, n p)`.
    Bonferroni,
    /// Holm's step-down method; never larger than Bonferroni and uniformly more powerful.
    #[default]
    Holm,
}

/// Adjusts `p` by `method`; see [`bonferroni`] and [`holm`].
pub fn adjust(p: &[f64], method: Adjustment) -> Result<Vec<f64>, StatsError> {
    match method {
        Adjustment::None => {
            validate(p)?;
            Ok(p.to_vec())
        }
        Adjustment::Bonferroni => bonferroni(p),
        Adjustment::Holm => holm(p),
    }
}

/// Bonferroni adjustment: each non-NaN `p` becomes `min(1, n p)` with `n` the number of non-NaN
/// values. Errors if a value is infinite or outside `[0, 1]`.
pub fn bonferroni(p: &[f64]) -> Result<Vec<f64>, StatsError> {
    let n = validate(p)? as f64;
    Ok(p.iter()
        .map(|&v| if v.is_nan() { v } else { (n * v).min(1.0) })
        .collect())
}

/// Holm adjustment: with the `n` non-NaN values sorted ascending, the `i`-th smallest (from 1)
/// becomes `min(1, max over j <= i of (n - j + 1) p_(j))`, returned in the input order (R's
/// `pmin(1, cummax((n - i + 1) * p[o]))[ro]`). Errors if a value is infinite or outside `[0, 1]`.
pub fn holm(p: &[f64]) -> Result<Vec<f64>, StatsError> {
    let n = validate(p)?;
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b])); // stable, as R's order()
    let mut out = p.to_vec();
    let mut running_max: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running_max = running_max.max((n - rank) as f64 * p[i]);
        out[i] = running_max.min(1.0);
    }
    Ok(out)
}

/// Checks every value is NaN or in `[0, 1]`; returns the number of non-NaN values.
fn validate(p: &[f64]) -> Result<usize, StatsError> {
    let mut n = 0;
    for &v in p {
        if v.is_nan() {
            continue;
        }
        if !(0.0..=1.0).contains(&v) {
            return Err(StatsError::InvalidProbability(v));
        }
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-12 * w.abs(),
                "{got:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn r_examples() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") and "bonferroni".
        let p = [0.01, 0.04, 0.03, 0.005];
        assert_close(&holm(&p).unwrap(), &[0.03, 0.06, 0.06, 0.02]);
        assert_close(&bonferroni(&p).unwrap(), &[0.04, 0.16, 0.12, 0.02]);
        assert_close(&adjust(&p, Adjustment::None).unwrap(), &p);
    }

    #[test]
    fn nan_is_kept_and_not_counted() {
        let p = [0.01, f64::NAN, 0.02];
        assert_close(&bonferroni(&p).unwrap(), &[0.02, f64::NAN, 0.04]);
        assert_close(&holm(&p).unwrap(), &[0.02, f64::NAN, 0.02]);
        assert_close(&holm(&[f64::NAN]).unwrap(), &[f64::NAN]);
        assert!(holm(&[]).unwrap().is_empty());
    }

    #[test]
    fn clipped_to_one_and_monotone() {
        assert_close(&bonferroni(&[0.5, 0.9]).unwrap(), &[1.0, 1.0]);
        // Sorted 0.1, 0.2, 0.21: 0.3, 0.4, 0.21 -> cummax 0.3, 0.4, 0.4.
        assert_close(&holm(&[0.21, 0.1, 0.2]).unwrap(), &[0.4, 0.3, 0.4]);
    }

    #[test]
    fn rejects_invalid() {
        assert_eq!(holm(&[0.1, 1.5]), Err(StatsError::InvalidProbability(1.5)));
        assert_eq!(
            bonferroni(&[-0.1]),
            Err(StatsError::InvalidProbability(-0.1))
        );
        assert!(adjust(&[f64::INFINITY], Adjustment::None).is_err());
    }
}
