//! Joint mid-ranking of two samples: the one sort that A12 and Mann-Whitney share.
//!
//! Both statistics are functions of the rank sum of `x` in the pooled sample, with tied values
//! given the mean of the ranks they span (mid-ranks). Sorting once makes this O((m+n) log(m+n))
//! instead of the O(m n) pairwise count. Ranks are kept doubled (`2 * mid-rank` is an integer)
//! so the rank sum and U are exact integers, whatever the sample sizes.

use super::StatsError;

/// What the pooled ranking tells about two samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked {
    /// Size of `x`.
    pub m: usize,
    /// Size of `y`.
    pub n: usize,
    /// `2 * U1`, where `U1 = R1 - m(m+1)/2` and `R1` is the mid-rank sum of `x`.
    pub twice_u1: u128,
    /// `sum over tie groups of (t^3 - t)`, as used by the tie-corrected variance.
    pub tie_term: f64,
    /// Some value occurs more than once in the pooled sample.
    pub has_ties: bool,
    /// Every pooled value is the same.
    pub all_tied: bool,
}

impl Ranked {
    /// `U1`, the Mann-Whitney statistic of `x` (exact: a multiple of 0.5).
    pub fn u1(&self) -> f64 {
        self.twice_u1 as f64 / 2.0
    }

    /// `A12 = U1 / (m n)`, the probability that a value of `x` beats one of `y`, ties counting half.
    pub fn a12(&self) -> f64 {
        self.u1() / (self.m as f64 * self.n as f64)
    }
}

/// Checks that a sample is non-empty and NaN-free.
pub(crate) fn check_sample(values: &[f64], input: &'static str) -> Result<(), StatsError> {
    if values.is_empty() {
        return Err(StatsError::Empty { input });
    }
    if values.iter().any(|v| v.is_nan()) {
        return Err(StatsError::NaN { input });
    }
    Ok(())
}

/// Ranks `x` and `y` together.
pub(crate) fn rank_samples(x: &[f64], y: &[f64]) -> Result<Ranked, StatsError> {
    check_sample(x, "x")?;
    check_sample(y, "y")?;
    let (m, n) = (x.len(), y.len());
    let mut pooled: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    // No NaN is left, so total order agrees with numeric order except that -0.0 sorts just before
    // 0.0; the grouping below uses `==`, which puts them in one tie group.
    pooled.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));

    let mut twice_rank_sum: u128 = 0;
    let mut tie_term: u128 = 0;
    let mut groups = 0usize;
    let mut start = 0usize;
    while start < pooled.len() {
        let value = pooled[start].0;
        let mut end = start;
        let mut in_x: u128 = 0;
        while end < pooled.len() && pooled[end].0 == value {
            in_x += u128::from(pooled[end].1);
            end += 1;
        }
        // Positions start+1 ..= end (1-based) share the mid-rank (start + 1 + end) / 2.
        let t = (end - start) as u128;
        twice_rank_sum += in_x * (start as u128 + 1 + end as u128);
        tie_term += t * t * t - t;
        groups += 1;
        start = end;
    }
    let m128 = m as u128;
    let twice_u1 = twice_rank_sum - m128 * (m128 + 1);
    Ok(Ranked {
        m,
        n,
        twice_u1,
        tie_term: tie_term as f64,
        has_ties: groups < pooled.len(),
        all_tied: groups == 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// U1 by its definition: pairs where x wins, plus half the ties. O(m n), for checking.
    fn pairwise_twice_u1(x: &[f64], y: &[f64]) -> u128 {
        let mut s = 0;
        for a in x {
            for b in y {
                if a > b {
                    s += 2;
                } else if a == b {
                    s += 1;
                }
            }
        }
        s
    }

    #[test]
    fn mid_ranks_match_pairwise_definition() {
        let x = [1.0, 2.0, 2.0, 5.0, -0.0, 7.5];
        let y = [2.0, 0.0, 3.0, 5.0, 5.0];
        let r = rank_samples(&x, &y).unwrap();
        assert_eq!(r.twice_u1, pairwise_twice_u1(&x, &y));
        assert!(r.has_ties && !r.all_tied);
        // Ties: {-0.0, 0.0} (2), {2, 2, 2} (3), {5, 5, 5} (3).
        assert_eq!(r.tie_term, 6.0 + 24.0 + 24.0);
    }

    #[test]
    fn all_tied_and_no_ties() {
        let r = rank_samples(&[3.0, 3.0], &[3.0]).unwrap();
        assert!(r.all_tied && r.has_ties);
        assert_eq!(r.u1(), 1.0);
        let r = rank_samples(&[1.0], &[2.0]).unwrap();
        assert!(!r.has_ties && !r.all_tied);
        assert_eq!(r.u1(), 0.0);
        let r = rank_samples(&[f64::INFINITY], &[f64::INFINITY, f64::NEG_INFINITY]).unwrap();
        assert_eq!(r.twice_u1, 3);
    }

    #[test]
    fn rejects_empty_and_nan() {
        assert_eq!(
            rank_samples(&[], &[1.0]),
            Err(StatsError::Empty { input: "x" })
        );
        assert_eq!(
            rank_samples(&[1.0], &[]),
            Err(StatsError::Empty { input: "y" })
        );
        assert_eq!(
            rank_samples(&[f64::NAN], &[1.0]),
            Err(StatsError::NaN { input: "x" })
        );
        assert_eq!(
            rank_samples(&[1.0], &[2.0, f64::NAN]),
            Err(StatsError::NaN { input: "y" })
        );
    }
}
