//! Property tests of the statistics core: symmetries, ranges and agreement between methods.

use proptest::prelude::*;
use rigor_analysis::stats::{
    a12, bonferroni, describe, fisher_exact, holm, magnitude, mann_whitney, Alternative,
    MagnitudeConvention, MannWhitneyOptions, Method, StatsError,
};

/// Samples with many ties: small integers.
fn tied_sample() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec((0i32..6).prop_map(f64::from), 1..25)
}

/// Samples of arbitrary finite values.
fn finite_sample() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e6f64..1e6, 1..60)
}

/// Any f64 at all, NaN and infinities included.
fn any_sample() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(any::<f64>(), 0..20)
}

const ALTERNATIVES: [Alternative; 3] = [
    Alternative::TwoSided,
    Alternative::Greater,
    Alternative::Less,
];

proptest! {
    #[test]
    fn a12_is_antisymmetric(x in finite_sample(), y in finite_sample()) {
        let forward = a12(&x, &y).unwrap();
        let backward = a12(&y, &x).unwrap();
        prop_assert!((forward - (1.0 - backward)).abs() < 1e-12);
        prop_assert!((0.0..=1.0).contains(&forward));
        for convention in [MagnitudeConvention::VarghaDelaney, MagnitudeConvention::HessKromrey] {
            prop_assert_eq!(magnitude(forward, convention).unwrap(), magnitude(backward, convention).unwrap());
        }
    }

    #[test]
    fn a12_with_ties_is_antisymmetric(x in tied_sample(), y in tied_sample()) {
        prop_assert!((a12(&x, &y).unwrap() + a12(&y, &x).unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn u1_counts_winning_pairs(x in tied_sample(), y in tied_sample()) {
        let pairs: f64 = x.iter().flat_map(|a| y.iter().map(move |b| if a > b { 1.0 } else if a == b { 0.5 } else { 0.0 })).sum();
        prop_assert_eq!(mann_whitney(&x, &y, &MannWhitneyOptions::default()).unwrap().u1, pairs);
    }

    #[test]
    fn p_is_a_probability_or_nan_when_all_tied(x in tied_sample(), y in tied_sample(), continuity in any::<bool>()) {
        let all_tied = x.iter().chain(&y).all(|v| *v == x[0]);
        for method in [Method::Auto, Method::Asymptotic, Method::R] {
            for alternative in ALTERNATIVES {
                let r = mann_whitney(&x, &y, &MannWhitneyOptions { alternative, method, continuity }).unwrap();
                if all_tied {
                    prop_assert!(r.p.is_nan());
                    prop_assert_eq!(r.a12, 0.5);
                } else {
                    prop_assert!((0.0..=1.0).contains(&r.p), "p = {}", r.p);
                }
            }
        }
    }

    #[test]
    fn p_is_a_probability_without_ties(x in finite_sample(), y in finite_sample()) {
        for method in [Method::Auto, Method::Exact, Method::Asymptotic, Method::R] {
            for alternative in ALTERNATIVES {
                let options = MannWhitneyOptions { alternative, method, continuity: true };
                match mann_whitney(&x, &y, &options) {
                    Ok(r) => prop_assert!((0.0..=1.0).contains(&r.p), "p = {}", r.p),
                    Err(e) => prop_assert_eq!(e, StatsError::ExactWithTies),
                }
            }
        }
    }

    #[test]
    fn one_sided_p_values_cover_both_tails(x in finite_sample(), y in finite_sample()) {
        // Exact: P(U >= u) + P(U <= u) = 1 + P(U = u) >= 1, and the two-sided p is twice the smaller.
        let run = |alternative| mann_whitney(&x, &y, &MannWhitneyOptions { alternative, method: Method::Exact, continuity: true });
        if let (Ok(g), Ok(l), Ok(t)) = (run(Alternative::Greater), run(Alternative::Less), run(Alternative::TwoSided)) {
            prop_assert!(g.p + l.p >= 1.0 - 1e-12);
            prop_assert!((t.p - (2.0 * g.p.min(l.p)).min(1.0)).abs() < 1e-12);
        }
    }

    #[test]
    fn exact_and_asymptotic_agree_for_30_by_30(pooled in Just((0..60).map(f64::from).collect::<Vec<_>>()).prop_shuffle()) {
        let (x, y) = pooled.split_at(30);
        for alternative in ALTERNATIVES {
            let exact = mann_whitney(x, y, &MannWhitneyOptions { alternative, method: Method::Exact, continuity: true }).unwrap();
            let normal = mann_whitney(x, y, &MannWhitneyOptions { alternative, method: Method::Asymptotic, continuity: true }).unwrap();
            prop_assert!((exact.p - normal.p).abs() < 1e-2, "{:?}: exact {} asymptotic {}", alternative, exact.p, normal.p);
        }
    }

    #[test]
    fn holm_between_raw_and_bonferroni(p in prop::collection::vec(prop_oneof![9 => 0.0f64..=1.0, 1 => Just(f64::NAN)], 0..30)) {
        let h = holm(&p).unwrap();
        let b = bonferroni(&p).unwrap();
        for ((raw, h), b) in p.iter().zip(&h).zip(&b) {
            if raw.is_nan() {
                prop_assert!(h.is_nan() && b.is_nan());
            } else {
                prop_assert!(*h >= *raw && *h <= *b && *b <= 1.0, "raw {} holm {} bonferroni {}", raw, h, b);
            }
        }
        // Holm keeps the order of the raw p-values.
        for i in 0..p.len() {
            for j in 0..p.len() {
                if p[i] < p[j] {
                    prop_assert!(h[i] <= h[j]);
                }
            }
        }
    }

    #[test]
    fn fisher_p_is_a_probability(a in 0u64..200, b in 0u64..200, c in 0u64..200, d in 0u64..200) {
        let p = fisher_exact([[a, b], [c, d]]).unwrap();
        prop_assert!((0.0..=1.0).contains(&p), "p = {}", p);
        // Symmetric under transposition.
        prop_assert!((fisher_exact([[a, c], [b, d]]).unwrap() - p).abs() <= 1e-9 * p.max(1e-300));
    }

    #[test]
    fn describe_is_ordered(x in finite_sample()) {
        let d = describe(&x).unwrap();
        prop_assert!(d.min <= d.q1 && d.q1 <= d.median && d.median <= d.q3 && d.q3 <= d.max);
        prop_assert!(d.iqr >= 0.0);
        prop_assert!(d.mean >= d.min - 1e-9 && d.mean <= d.max + 1e-9);
        prop_assert!(x.len() < 2 || d.sd >= 0.0);
    }

    #[test]
    fn never_panics_on_any_input(x in any_sample(), y in any_sample()) {
        let has_nan = x.iter().chain(&y).any(|v| v.is_nan());
        for method in [Method::Auto, Method::Exact, Method::Asymptotic, Method::R] {
            let r = mann_whitney(&x, &y, &MannWhitneyOptions { method, ..MannWhitneyOptions::default() });
            if x.is_empty() || y.is_empty() {
                prop_assert!(matches!(r, Err(StatsError::Empty { .. })), "{:?}", r);
            } else if has_nan {
                prop_assert!(matches!(r, Err(StatsError::NaN { .. })), "{:?}", r);
            } else if let Ok(r) = r {
                prop_assert!(r.p.is_nan() || (0.0..=1.0).contains(&r.p));
            }
        }
        let _ = describe(&x);
        let _ = holm(&x);
        let _ = bonferroni(&y);
        for v in x.iter().chain(&y) {
            let _ = magnitude(*v, MagnitudeConvention::HessKromrey);
        }
    }
}
