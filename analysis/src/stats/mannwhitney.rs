//! Mann-Whitney U / Wilcoxon rank-sum test, with the p-value conventions of SciPy and R.
//!
//! The test asks whether one technique's results tend to be larger than the other's without
//! assuming a distribution. The statistic is `U1 = R1 - m(m+1)/2` for `x` (SciPy's `statistic`,
//! R's `W`). The p-value comes from the exact null distribution (valid without ties) or from the
//! normal approximation with tie-corrected variance and an optional continuity correction. SciPy
//! and R choose between the two differently, so [`Method`] offers both rules, and the result says
//! which one was used.
//!
//! When every pooled value is tied the variance is 0 and there is no test: the p-value is NaN for
//! every method and alternative, as R's two-sided `wilcox.test` answers and the seed paper's
//! tables print. (SciPy 1.17.1 answers 1.0 there, a side effect of clipping `2 * sf(-inf)`, and
//! R's one-sided tests answer 1; NaN keeps "no test" distinguishable from "no evidence".)

use serde::{Deserialize, Serialize};

use super::a12::{magnitude, Magnitude, MagnitudeConvention};
use super::exact::NullDistribution;
use super::normal::{normal_cdf, normal_sf};
use super::rank::{rank_samples, Ranked};
use super::StatsError;

/// The alternative hypothesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Alternative {
    /// The distributions of `x` and `y` differ.
    #[default]
    TwoSided,
    /// `x` tends to be larger than `y` (SciPy's `alternative='greater'`).
    Greater,
    /// `x` tends to be smaller than `y`.
    Less,
}

/// How to compute the p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Method {
    /// SciPy's default `method='auto'`: exact when there are no ties and at least one sample has at
    /// most 8 values (SciPy's `_mwu_choose_method`: asymptotic only when both exceed 8),
    /// otherwise the normal approximation. If the exact table would be too large to build
    /// (a sample of about a million values against one of at most 8), the normal approximation is
    /// used instead and reported in [`MannWhitney::method_used`].
    #[default]
    Auto,
    /// The exact null distribution; [`StatsError::ExactWithTies`] if there are ties.
    Exact,
    /// The normal approximation with tie correction.
    Asymptotic,
    /// R's `wilcox.test` default: exact when both samples have fewer than 50 values and there are
    /// no ties, otherwise the normal approximation.
    R,
}

/// Which computation produced the p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MethodUsed {
    /// The exact null distribution of U.
    Exact,
    /// The normal approximation.
    Asymptotic,
}

/// Options of [`mann_whitney`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MannWhitneyOptions {
    /// The alternative hypothesis; two-sided by default.
    pub alternative: Alternative,
    /// How the p-value is computed; [`Method::Auto`] by default.
    pub method: Method,
    /// Apply the continuity correction (0.5) in the normal approximation; on by default, as in
    /// both SciPy (`use_continuity=True`) and R (`correct = TRUE`). No effect on exact p-values.
    pub continuity: bool,
}

impl Default for MannWhitneyOptions {
    fn default() -> Self {
        MannWhitneyOptions {
            alternative: Alternative::TwoSided,
            method: Method::Auto,
            continuity: true,
        }
    }
}

/// Result of [`mann_whitney`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// `U1`, the statistic of `x`: pairs where `x` wins plus half the ties.
    pub u1: f64,
    /// The p-value, in `[0, 1]`; NaN when every value is tied.
    pub p: f64,
    /// Whether `p` is exact or asymptotic.
    pub method_used: MethodUsed,
    /// Vargha-Delaney `A12 = U1 / (m n)`.
    pub a12: f64,
}

/// Mann-Whitney U test of `x` against `y`.
///
/// Errors on an empty sample, a NaN value, [`Method::Exact`] with ties, or an exact distribution
/// too large to build with [`Method::Exact`].
pub fn mann_whitney(
    x: &[f64],
    y: &[f64],
    options: &MannWhitneyOptions,
) -> Result<MannWhitney, StatsError> {
    let r = rank_samples(x, y)?;
    let (m, n) = (r.m, r.n);
    let exact = match options.method {
        Method::Exact if r.has_ties => return Err(StatsError::ExactWithTies),
        Method::Exact => Some(NullDistribution::new(m, n)?),
        Method::Asymptotic => None,
        Method::Auto if !r.has_ties && (m <= 8 || n <= 8) => NullDistribution::new(m, n).ok(),
        Method::Auto => None,
        Method::R if !r.has_ties && m < 50 && n < 50 => Some(NullDistribution::new(m, n)?),
        Method::R => None,
    };
    let (p, method_used) = match exact {
        Some(dist) => (exact_p(&r, &dist, options.alternative), MethodUsed::Exact),
        None => (
            asymptotic_p(&r, options.alternative, options.continuity),
            MethodUsed::Asymptotic,
        ),
    };
    Ok(MannWhitney {
        u1: r.u1(),
        p,
        method_used,
        a12: r.a12(),
    })
}

/// Exact p-value; `r` has no ties, so `U1` is an integer.
fn exact_p(r: &Ranked, dist: &NullDistribution, alternative: Alternative) -> f64 {
    let u1 = (r.twice_u1 / 2) as i128;
    let mn = r.m as i128 * r.n as i128;
    let p = match alternative {
        Alternative::Greater => dist.sf(u1),
        Alternative::Less => dist.cdf(u1),
        // 2 * min(P(U <= u1), P(U >= u1)); the smaller tail is the one on the near side of mn/2.
        Alternative::TwoSided => 2.0 * dist.cdf(u1.min(mn - u1)),
    };
    p.clamp(0.0, 1.0)
}

/// Normal-approximation p-value with the tie-corrected variance
/// `mn/12 * ((N+1) - sum(t^3 - t) / (N(N-1)))` and, if asked, a continuity correction of 0.5
/// towards the mean (SciPy's and R's formula; they agree for every input with some variation).
fn asymptotic_p(r: &Ranked, alternative: Alternative, continuity: bool) -> f64 {
    if r.all_tied {
        return f64::NAN;
    }
    let (m, n) = (r.m as f64, r.n as f64);
    let big_n = m + n;
    let variance = (m * n / 12.0) * ((big_n + 1.0) - r.tie_term / (big_n * (big_n - 1.0)));
    if variance.is_nan() || variance <= 0.0 {
        return f64::NAN;
    }
    let sigma = variance.sqrt();
    let diff = r.u1() - m * n / 2.0;
    let correction = match (continuity, alternative) {
        (false, _) => 0.0,
        (true, Alternative::Greater) => 0.5,
        (true, Alternative::Less) => -0.5,
        (true, Alternative::TwoSided) if diff > 0.0 => 0.5,
        (true, Alternative::TwoSided) if diff < 0.0 => -0.5,
        (true, Alternative::TwoSided) => 0.0,
    };
    let z = (diff - correction) / sigma;
    let p = match alternative {
        Alternative::Greater => normal_sf(z),
        Alternative::Less => normal_cdf(z),
        Alternative::TwoSided => 2.0 * normal_cdf(z).min(normal_sf(z)),
    };
    p.clamp(0.0, 1.0)
}

/// Options of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CompareOptions {
    /// How to run the Mann-Whitney test.
    pub test: MannWhitneyOptions,
    /// Which thresholds label the A12 effect size.
    pub convention: MagnitudeConvention,
}

/// One pairwise comparison, as a results table prints it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// `U1`, the Mann-Whitney statistic of `x`.
    pub u: f64,
    /// The Mann-Whitney p-value (NaN when every value is tied).
    pub p: f64,
    /// Vargha-Delaney A12 of `x` over `y`.
    pub a12: f64,
    /// The magnitude label of `a12`.
    pub magnitude: Magnitude,
    /// Whether `p` is exact or asymptotic.
    pub method_used: MethodUsed,
}

/// Compares `x` with `y`: Mann-Whitney U, its p-value, A12 and the A12 magnitude label.
pub fn compare(x: &[f64], y: &[f64], options: &CompareOptions) -> Result<Comparison, StatsError> {
    let t = mann_whitney(x, y, &options.test)?;
    Ok(Comparison {
        u: t.u1,
        p: t.p,
        a12: t.a12,
        magnitude: magnitude(t.a12, options.convention)?,
        method_used: t.method_used,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(alternative: Alternative, method: Method, continuity: bool) -> MannWhitneyOptions {
        MannWhitneyOptions {
            alternative,
            method,
            continuity,
        }
    }

    const MALES: [f64; 5] = [19.0, 22.0, 16.0, 29.0, 24.0];
    const FEMALES: [f64; 4] = [20.0, 11.0, 17.0, 12.0];

    #[test]
    fn scipy_documentation_example() {
        // scipy.stats.mannwhitneyu docstring: U1 = 17, exact p = 0.1111111111111111,
        // asymptotic 0.11134688653314041, without continuity 0.0864107329737, and
        // mannwhitneyu(females, males, alternative="less", method="exact") = (3.0, 0.05555555555555555).
        let r = mann_whitney(
            &MALES,
            &FEMALES,
            &opts(Alternative::TwoSided, Method::Exact, true),
        )
        .unwrap();
        assert_eq!(r.u1, 17.0);
        assert!((r.p - 0.1111111111111111).abs() < 1e-16);
        let r = mann_whitney(
            &MALES,
            &FEMALES,
            &opts(Alternative::TwoSided, Method::Asymptotic, true),
        )
        .unwrap();
        assert!((r.p / 0.11134688653314041 - 1.0).abs() < 1e-13);
        let r = mann_whitney(
            &MALES,
            &FEMALES,
            &opts(Alternative::TwoSided, Method::Asymptotic, false),
        )
        .unwrap();
        assert!((r.p / 0.0864107329737 - 1.0).abs() < 1e-12);
        let r = mann_whitney(
            &FEMALES,
            &MALES,
            &opts(Alternative::Less, Method::Exact, true),
        )
        .unwrap();
        assert_eq!(r.u1, 3.0);
        assert!((r.p / 0.05555555555555555 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn one_sided_exact_by_counting() {
        // m = n = 3, x above y everywhere: U1 = 9, P(U >= 9) = 1/20.
        let x = [4.0, 5.0, 6.0];
        let y = [1.0, 2.0, 3.0];
        let g = mann_whitney(&x, &y, &opts(Alternative::Greater, Method::Exact, true)).unwrap();
        assert_eq!((g.u1, g.p), (9.0, 0.05));
        let l = mann_whitney(&x, &y, &opts(Alternative::Less, Method::Exact, true)).unwrap();
        assert_eq!(l.p, 1.0);
        let t = mann_whitney(&x, &y, &opts(Alternative::TwoSided, Method::Exact, true)).unwrap();
        assert_eq!(t.p, 0.1);
        // U1 = 4 (1 beats nothing, 3 beats 2, 6 beats all): P(U >= 4) = 13/20, P(U <= 4) = 10/20.
        let x = [1.0, 3.0, 6.0];
        let y = [2.0, 4.0, 5.0];
        let g = mann_whitney(&x, &y, &opts(Alternative::Greater, Method::Exact, true)).unwrap();
        assert_eq!(g.u1, 4.0);
        assert!((g.p - 13.0 / 20.0).abs() < 1e-15);
        let l = mann_whitney(&x, &y, &opts(Alternative::Less, Method::Exact, true)).unwrap();
        assert!((l.p - 10.0 / 20.0).abs() < 1e-15);
        let t = mann_whitney(&x, &y, &opts(Alternative::TwoSided, Method::Exact, true)).unwrap();
        assert_eq!(t.p, 1.0);
    }

    #[test]
    fn method_choice() {
        let nine: Vec<f64> = (0..9).map(f64::from).collect();
        let eight: Vec<f64> = (100..108).map(f64::from).collect();
        let forty_nine: Vec<f64> = (200..249).map(f64::from).collect();
        let fifty: Vec<f64> = (300..350).map(f64::from).collect();
        let used = |x: &[f64], y: &[f64], method| {
            mann_whitney(x, y, &opts(Alternative::TwoSided, method, true))
                .unwrap()
                .method_used
        };
        // SciPy: exact unless both samples exceed 8.
        assert_eq!(used(&nine, &eight, Method::Auto), MethodUsed::Exact);
        assert_eq!(used(&eight, &fifty, Method::Auto), MethodUsed::Exact);
        assert_eq!(
            used(&nine, &forty_nine, Method::Auto),
            MethodUsed::Asymptotic
        );
        // R: exact when both are below 50.
        assert_eq!(used(&nine, &forty_nine, Method::R), MethodUsed::Exact);
        assert_eq!(used(&nine, &fifty, Method::R), MethodUsed::Asymptotic);
        assert_eq!(
            used(&nine, &eight, Method::Asymptotic),
            MethodUsed::Asymptotic
        );
        // Ties switch both to the normal approximation, and make Exact an error.
        let tied = [1.0, 1.0, 2.0];
        assert_eq!(used(&tied, &eight, Method::Auto), MethodUsed::Asymptotic);
        assert_eq!(used(&tied, &eight, Method::R), MethodUsed::Asymptotic);
        assert_eq!(
            mann_whitney(
                &tied,
                &eight,
                &opts(Alternative::TwoSided, Method::Exact, true)
            ),
            Err(StatsError::ExactWithTies)
        );
        // A tie between the samples counts too.
        assert_eq!(
            mann_whitney(
                &[1.0],
                &[1.0, 2.0],
                &opts(Alternative::TwoSided, Method::Exact, true)
            ),
            Err(StatsError::ExactWithTies)
        );
    }

    #[test]
    fn all_tied_gives_nan_p_and_half_a12() {
        for method in [Method::Auto, Method::Asymptotic, Method::R] {
            for alternative in [
                Alternative::TwoSided,
                Alternative::Greater,
                Alternative::Less,
            ] {
                let r =
                    mann_whitney(&[3.0; 5], &[3.0; 4], &opts(alternative, method, true)).unwrap();
                assert!(r.p.is_nan());
                assert_eq!((r.u1, r.a12), (10.0, 0.5));
            }
        }
        let c = compare(&[1.0], &[1.0], &CompareOptions::default()).unwrap();
        assert!(c.p.is_nan());
        assert_eq!(c.magnitude, Magnitude::Negligible);
    }

    #[test]
    fn asymptotic_at_the_mean_is_one() {
        // U1 = mn/2 exactly: both SciPy and R give p = 1 with or without continuity.
        let x = [1.0, 4.0, 5.0, 8.0, 10.0, 11.0, 13.0, 16.0, 17.0, 20.0];
        let y = [2.0, 3.0, 6.0, 7.0, 9.0, 12.0, 14.0, 15.0, 18.0, 19.0];
        for continuity in [true, false] {
            let r = mann_whitney(
                &x,
                &y,
                &opts(Alternative::TwoSided, Method::Asymptotic, continuity),
            )
            .unwrap();
            assert_eq!(r.u1, 50.0);
            assert_eq!(r.p, 1.0);
        }
    }

    #[test]
    fn compare_labels_effect() {
        let c = compare(&MALES, &FEMALES, &CompareOptions::default()).unwrap();
        assert_eq!(
            (c.u, c.a12, c.magnitude, c.method_used),
            (17.0, 0.85, Magnitude::Large, MethodUsed::Exact)
        );
        let hk = CompareOptions {
            convention: MagnitudeConvention::HessKromrey,
            ..CompareOptions::default()
        };
        assert_eq!(
            compare(&MALES, &FEMALES, &hk).unwrap().magnitude,
            Magnitude::Large
        );
        assert_eq!(
            compare(&[], &FEMALES, &hk),
            Err(StatsError::Empty { input: "x" })
        );
    }
}
