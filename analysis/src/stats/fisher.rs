//! Fisher's exact test on a 2x2 table, two-sided, as R's `fisher.test`.
//!
//! Used for rates (e.g. how often each technique finds a fault at all), where a rank test does
//! not apply. With all margins fixed the count in the top-left cell is hypergeometric; the
//! two-sided p-value sums the probabilities of every table at most as likely as the observed one,
//! with R's relative tolerance of 1e-7 so that tables equally likely up to rounding count.
//!
//! The probabilities are walked outward from the mode with the exact ratio of neighbouring
//! hypergeometric terms, relative to the mode's probability, so no factorial is formed and
//! nothing overflows; terms that underflow to 0 relative to the mode are 0 in R's computation too.

use super::StatsError;

/// Largest number of tables one walk may visit.
const MAX_STEPS: u64 = 10_000_000;

/// Two-sided Fisher exact test p-value for the table `[[a, b], [c, d]]`.
///
/// R's definition: `sum(d[d <= d_obs * (1 + 1e-7)])` over the hypergeometric probabilities `d` of
/// all tables with the observed margins. Errors only if the table is so large that more than
/// 1e7 tables on one side of the mode carry non-negligible probability (margins in the
/// hundreds of billions).
pub fn fisher_exact(table: [[u64; 2]; 2]) -> Result<f64, StatsError> {
    let [[a, b], [c, d]] = table.map(|row| row.map(u128::from));
    let (m, n, k) = (a + c, b + d, a + b); // column 1, column 2, row 1
    let lo = k.saturating_sub(n);
    let hi = k.min(m);
    if lo == hi {
        return Ok(1.0);
    }
    let observed = a;
    // Mode of the hypergeometric distribution, floor((k+1)(m+1) / (m+n+2)); any start near it
    // works, since every probability is taken relative to the start.
    let mode = match (k + 1).checked_mul(m + 1) {
        Some(p) => p / (m + n + 2),
        None => ((k + 1) as f64 * ((m + 1) as f64 / (m + n + 2) as f64)) as u128,
    }
    .clamp(lo, hi);
    // ratio(x) = P(x + 1) / P(x) = (k - x)(m - x) / ((x + 1)(n - k + x + 1)), for lo <= x < hi.
    let ratio = |x: u128| product(k - x, m - x) / product(x + 1, n + x + 1 - k);

    // First walk: total mass and the observed table's probability, relative to the mode's.
    let mut d_obs = if observed == mode { 1.0 } else { 0.0 };
    let mut total = 1.0;
    let mut steps = 0u64;
    walk(mode, lo, hi, ratio, &mut steps, |x, d| {
        total += d;
        if x == observed {
            d_obs = d;
        }
    })?;
    // Second walk: the mass of tables no more likely than the observed one.
    let limit = d_obs * (1.0 + 1e-7);
    let mut tail = if 1.0 <= limit { 1.0 } else { 0.0 };
    walk(mode, lo, hi, ratio, &mut steps, |_, d| {
        if d <= limit {
            tail += d;
        }
    })?;
    Ok((tail / total).min(1.0))
}

/// `a * b` as f64, exact in u128 when it fits.
fn product(a: u128, b: u128) -> f64 {
    match a.checked_mul(b) {
        Some(p) => p as f64,
        None => a as f64 * b as f64,
    }
}

/// Visits every table except the mode, each direction until the relative probability underflows
/// to 0 or the support ends, calling `visit(x, d)` with `d = P(x) / P(mode)`.
fn walk(
    mode: u128,
    lo: u128,
    hi: u128,
    ratio: impl Fn(u128) -> f64,
    steps: &mut u64,
    mut visit: impl FnMut(u128, f64),
) -> Result<(), StatsError> {
    let count = |steps: &mut u64| {
        *steps += 1;
        if *steps > 2 * MAX_STEPS {
            Err(StatsError::TableTooLarge { limit: MAX_STEPS })
        } else {
            Ok(())
        }
    };
    let mut d = 1.0;
    let mut x = mode;
    while x < hi && d > 0.0 {
        d *= ratio(x);
        x += 1;
        visit(x, d);
        count(steps)?;
    }
    let mut d = 1.0;
    let mut x = mode;
    while x > lo && d > 0.0 {
        d /= ratio(x - 1);
        x -= 1;
        visit(x, d);
        count(steps)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= 1e-12 * want
    }

    /// Exact rational values, rounded once: Python's `fractions` and `math.comb` summing every
    /// table with the observed margins whose probability is at most the observed one (exact
    /// comparison, so equally likely tables, as in [[3, 1], [1, 3]], are included exactly).
    #[test]
    fn exact_rational_values() {
        let cases: &[([[u64; 2]; 2], f64)] = &[
            ([[20, 0], [13, 7]], 0.008316008316008316),
            ([[3, 1], [1, 3]], 0.4857142857142857),
            ([[1, 9], [11, 3]], 0.0027594561852200836),
            ([[10, 10], [10, 10]], 1.0),
            ([[0, 5], [5, 0]], 0.007936507936507936),
            ([[2, 7], [8, 2]], 0.023014137565221155),
            ([[200, 0], [0, 200]], 1.9426434495222363e-119),
            ([[300, 250], [200, 310]], 6.035492598762512e-07),
        ];
        for &(t, want) in cases {
            let got = fisher_exact(t).unwrap();
            assert!(close(got, want), "{t:?}: {got} vs {want}");
        }
    }

    #[test]
    fn degenerate_margins() {
        assert_eq!(fisher_exact([[0, 0], [0, 0]]).unwrap(), 1.0);
        assert_eq!(fisher_exact([[5, 0], [7, 0]]).unwrap(), 1.0);
        assert_eq!(fisher_exact([[5, 3], [0, 0]]).unwrap(), 1.0);
    }

    #[test]
    fn symmetric_under_transposition_and_swaps() {
        let t = [[12, 5], [3, 9]];
        let p = fisher_exact(t).unwrap();
        for u in [[[5, 12], [9, 3]], [[3, 9], [12, 5]], [[12, 3], [5, 9]]] {
            assert!((fisher_exact(u).unwrap() - p).abs() < 1e-14);
        }
    }

    #[test]
    fn large_counts_do_not_overflow() {
        let p = fisher_exact([[1_000_000, 1_000_100], [999_000, 1_000_000]]).unwrap();
        assert!((0.0..=1.0).contains(&p));
        // 2 / C(2000, 1000) is below f64's range: 0, as in R.
        assert_eq!(fisher_exact([[1000, 0], [0, 1000]]).unwrap(), 0.0);
        for t in [[[u64::MAX, 0], [0, u64::MAX]], [[u64::MAX; 2]; 2]] {
            assert!(matches!(
                fisher_exact(t),
                Err(StatsError::TableTooLarge { .. })
            ));
        }
    }
}
