//! Vargha-Delaney A12 effect size and its magnitude labels.
//!
//! `A12 = P(X > Y) + 0.5 P(X = Y)`: the probability that a run of the first technique beats a run
//! of the second, the effect size recommended for randomised algorithms (Arcuri & Briand). It is
//! computed from the pooled mid-ranks, `A12 = U1 / (m n) = (R1/m - (m+1)/2) / n`, in
//! O((m+n) log(m+n)). Two labelling conventions are in use and papers differ, so both are offered.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::rank::rank_samples;
use super::StatsError;

/// `A12(x, y) = P(X > Y) + 0.5 P(X = Y)`, estimated from the samples.
///
/// 0.5 means no difference (also when every value is tied); 1 means every `x` beats every `y`.
/// Errors on an empty sample or a NaN value.
pub fn a12(x: &[f64], y: &[f64]) -> Result<f64, StatsError> {
    Ok(rank_samples(x, y)?.a12())
}

/// How large an effect is, in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Magnitude {
    /// Below the "small" threshold.
    Negligible,
    /// At least "small", below "medium".
    Small,
    /// At least "medium", below "large".
    Medium,
    /// At least "large".
    Large,
}

impl fmt::Display for Magnitude {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Magnitude::Negligible => "negligible",
            Magnitude::Small => "small",
            Magnitude::Medium => "medium",
            Magnitude::Large => "large",
        })
    }
}

/// Which thresholds turn an A12 into a [`Magnitude`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum MagnitudeConvention {
    /// Vargha & Delaney (2000), on `max(A, 1 - A)`:
    /// negligible < 0.56 <= small < 0.64 <= medium < 0.71 <= large.
    #[default]
    VarghaDelaney,
    /// Hess & Kromrey (2004) on `|2A - 1|` (Cliff's delta), as R's `effsize` package:
    /// negligible < 0.147 <= small < 0.33 <= medium < 0.474 <= large.
    HessKromrey,
}

/// Values this close below a threshold count as reaching it. A12 is a ratio computed in floating
/// point, so `A` and `1 - A` for the same comparison may differ from the decimal threshold by an
/// ulp in opposite directions; the slack keeps `magnitude(A) == magnitude(1 - A)`.
const THRESHOLD_SLACK: f64 = 1e-12;

/// The magnitude label of an A12 value under a convention. Symmetric: `A` and `1 - A` get the
/// same label. Errors if `a12` is NaN or outside `[0, 1]`.
pub fn magnitude(a12: f64, convention: MagnitudeConvention) -> Result<Magnitude, StatsError> {
    if !(0.0..=1.0).contains(&a12) {
        return Err(StatsError::InvalidA12(a12));
    }
    // Both conventions are thresholds on the distance from 0.5: max(A, 1-A) >= t  <=>
    // |2A - 1| >= 2t - 1.
    let d = (2.0 * a12 - 1.0).abs();
    let [small, medium, large] = match convention {
        MagnitudeConvention::VarghaDelaney => [0.12, 0.28, 0.42],
        MagnitudeConvention::HessKromrey => [0.147, 0.33, 0.474],
    };
    let reaches = |t: f64| d >= t - THRESHOLD_SLACK;
    Ok(if reaches(large) {
        Magnitude::Large
    } else if reaches(medium) {
        Magnitude::Medium
    } else if reaches(small) {
        Magnitude::Small
    } else {
        Magnitude::Negligible
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Magnitude::*;
    use MagnitudeConvention::*;

    #[test]
    fn a12_by_definition() {
        // x beats y in 17 of 20 pairs (the SciPy docs' diabetes example).
        let a = a12(&[19.0, 22.0, 16.0, 29.0, 24.0], &[20.0, 11.0, 17.0, 12.0]).unwrap();
        assert_eq!(a, 0.85);
        assert_eq!(a12(&[1.0, 2.0], &[1.0, 2.0]).unwrap(), 0.5);
        assert_eq!(a12(&[5.0; 3], &[5.0; 4]).unwrap(), 0.5);
        assert_eq!(a12(&[3.0], &[1.0, 2.0]).unwrap(), 1.0);
        assert_eq!(a12(&[0.0], &[1.0, 2.0]).unwrap(), 0.0);
    }

    #[test]
    fn vargha_delaney_thresholds() {
        let cases = [
            (0.5, Negligible),
            (0.559, Negligible),
            (0.56, Small),
            (0.44, Small),
            (0.639, Small),
            (0.64, Medium),
            (0.36, Medium),
            (0.709, Medium),
            (0.71, Large),
            (0.29, Large),
            (1.0, Large),
            (0.0, Large),
        ];
        for (a, want) in cases {
            assert_eq!(magnitude(a, VarghaDelaney).unwrap(), want, "A = {a}");
        }
    }

    #[test]
    fn hess_kromrey_thresholds() {
        // A = (1 + d) / 2 for Cliff's delta d.
        let cases = [
            (0.5, Negligible),
            (0.5735, Small), // d = 0.147
            (0.4265, Small), // d = -0.147
            (0.57, Negligible),
            (0.665, Medium), // d = 0.33
            (0.737, Large),  // d = 0.474
            (0.736, Medium),
            (0.85, Large),
        ];
        for (a, want) in cases {
            assert_eq!(magnitude(a, HessKromrey).unwrap(), want, "A = {a}");
        }
    }

    #[test]
    fn magnitude_rejects_bad_values() {
        assert!(matches!(
            magnitude(f64::NAN, VarghaDelaney),
            Err(StatsError::InvalidA12(_))
        ));
        assert!(magnitude(1.5, HessKromrey).is_err());
        assert!(magnitude(-0.1, HessKromrey).is_err());
    }

    #[test]
    fn display_is_lowercase_words() {
        let words: Vec<String> = [Negligible, Small, Medium, Large]
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(words, ["negligible", "small", "medium", "large"]);
        assert_eq!(MagnitudeConvention::default(), VarghaDelaney);
    }
}
