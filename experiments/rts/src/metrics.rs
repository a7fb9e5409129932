//! The paper's evaluation metrics for one version: reduction in tests (EN) and time (ET), and
//! fault detection (recall, precision, F).
//!
//! Ratios whose denominator is zero are undefined and reported as `None`, never as 0 or 1, so a
//! version without faults cannot pass for "100% recall":
//! - `en = 1 − NR/NO` is `None` when `NO = 0`;
//! - `et = 1 − (TR + TS)/TO` is `None` when `TO = 0`;
//! - `recall = NSF/NOF` is `None` when `NOF = 0` (no fault-revealing test exists);
//! - `precision = NSF/NR` is `None` when `NR = 0` (nothing selected);
//! - `f = 2PR/(P + R)` is `None` when either is `None`, and `0` when both are 0.

use std::collections::HashSet;
use std::time::Duration;

use crate::record::TestCase;

/// Every metric of one technique on one version (times in milliseconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Tests in the original suite.
    pub no: usize,
    /// Tests selected.
    pub nr: usize,
    pub en: Option<f64>,
    /// Time to run the whole suite.
    pub to_ms: f64,
    /// Time to run the selected tests.
    pub tr_ms: f64,
    /// Selection time (mining included), as measured by the caller.
    pub ts_ms: f64,
    pub et: Option<f64>,
    /// Fault-revealing tests in the original suite.
    pub nof: usize,
    /// Fault-revealing tests among the selected.
    pub nsf: usize,
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    pub f: Option<f64>,
}

impl Metrics {
    /// Safety as the paper defines it: every fault-revealing test selected (`None` without faults).
    pub fn safe(&self) -> Option<bool> {
        self.recall.map(|r| r >= 1.0)
    }
}

/// Computes the metrics. `selected` holds indices into `tests` (repeats and out-of-range indices
/// are ignored); `revealing` holds the ids of the tests that reveal a fault of this version (ids
/// not in the suite are ignored).
pub fn evaluate(
    tests: &[TestCase],
    selected: &[usize],
    revealing: &HashSet<String>,
    selection_time: Duration,
) -> Metrics {
    let mut chosen = vec![false; tests.len()];
    for &i in selected {
        if let Some(c) = chosen.get_mut(i) {
            *c = true;
        }
    }
    let mut m = Metrics {
        no: tests.len(),
        nr: 0,
        en: None,
        to_ms: 0.0,
        tr_ms: 0.0,
        ts_ms: selection_time.as_secs_f64() * 1000.0,
        et: None,
        nof: 0,
        nsf: 0,
        recall: None,
        precision: None,
        f: None,
    };
    for (t, &c) in tests.iter().zip(&chosen) {
        let reveals = revealing.contains(&t.id);
        m.to_ms += t.time_ms;
        m.nof += usize::from(reveals);
        if c {
            m.nr += 1;
            m.tr_ms += t.time_ms;
            m.nsf += usize::from(reveals);
        }
    }
    let ratio = |num: f64, den: f64| (den > 0.0).then(|| num / den);
    m.en = ratio(m.nr as f64, m.no as f64).map(|r| 1.0 - r);
    m.et = ratio(m.tr_ms + m.ts_ms, m.to_ms).map(|r| 1.0 - r);
    m.recall = ratio(m.nsf as f64, m.nof as f64);
    m.precision = ratio(m.nsf as f64, m.nr as f64);
    m.f = match (m.precision, m.recall) {
        (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> Vec<TestCase> {
        (0..4)
            .map(|i| TestCase {
                id: format!("t{i}"),
                path: vec![],
                time_ms: 10.0 * (i + 1) as f64,
            })
            .collect()
    }

    fn ids(v: &[&str]) -> HashSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn hand_computed_metrics() {
        // Times 10, 20, 30, 40 (TO 100); select t1, t2 (TR 50), TS 10 ms; t2, t3 reveal faults.
        let m = evaluate(
            &suite(),
            &[1, 2, 2, 9],
            &ids(&["t2", "t3", "not-a-test"]),
            Duration::from_millis(10),
        );
        assert_eq!((m.no, m.nr, m.nof, m.nsf), (4, 2, 2, 1));
        assert_eq!(m.en, Some(0.5));
        assert_eq!((m.to_ms, m.tr_ms, m.ts_ms), (100.0, 50.0, 10.0));
        assert!((m.et.unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(
            (m.recall, m.precision, m.f),
            (Some(0.5), Some(0.5), Some(0.5))
        );
        assert_eq!(m.safe(), Some(false));
    }

    #[test]
    fn zero_denominators_are_undefined() {
        let m = evaluate(&suite(), &[], &ids(&[]), Duration::ZERO);
        assert_eq!((m.recall, m.precision, m.f), (None, None, None));
        assert_eq!(m.en, Some(1.0));
        assert_eq!(m.safe(), None);
        let m = evaluate(&[], &[], &ids(&[]), Duration::ZERO);
        assert_eq!((m.en, m.et), (None, None));
        // Selected tests reveal nothing while faults exist: P = R = 0, F = 0.
        let m = evaluate(&suite(), &[0], &ids(&["t3"]), Duration::ZERO);
        assert_eq!(
            (m.recall, m.precision, m.f),
            (Some(0.0), Some(0.0), Some(0.0))
        );
    }
}
