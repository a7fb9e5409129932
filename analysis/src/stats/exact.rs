//! Exact null distribution of the Mann-Whitney U statistic (no ties).
//!
//! Under H0 every placement of the `m` x-values among the `m + n` pooled ranks is equally likely,
//! and the number of placements with `U = k` is the coefficient of `q^k` in the Gaussian binomial
//! `prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)` (Harding 1984). Each factor is one pass over the
//! coefficient array: subtract a shifted copy, then a strided running sum. The counts are kept as
//! exact multi-word integers (wrapping arithmetic is exact because every final count is below the
//! word range), so there is no overflow and no rounding until the single division by
//! `C(m+n, m)`; n = m = 50 (counts about 1e29) takes about 1e5 word operations.
//! Only `k <= mn/2` is built; the distribution is symmetric about `mn/2`.

use super::StatsError;

/// Largest coefficient table, in 64-bit words (256 MiB).
const MAX_WORDS: u128 = 1 << 25;
/// Largest amount of work, in word operations (a few seconds).
const MAX_WORK: u128 = 3_000_000_000;

/// Lower half of the null distribution of U for sample sizes `m` and `n`.
#[derive(Debug, Clone)]
pub(crate) struct NullDistribution {
    mn: u64,
    /// `cdf[k] = P(U <= k)` for `k = 0 ..= mn / 2`.
    cdf: Vec<f64>,
    /// `pmf[k] = P(U = k)` for `k = 0 ..= mn / 2`.
    pmf: Vec<f64>,
}

impl NullDistribution {
    /// Builds the distribution; `m` and `n` must be at least 1.
    pub fn new(m: usize, n: usize) -> Result<Self, StatsError> {
        let too_large = StatsError::ExactTooLarge { m, n };
        let (small, large) = (m.min(n) as u64, m.max(n) as u64);
        let mn = small.checked_mul(large).ok_or(too_large.clone())?;
        let half = mn / 2;
        let len = usize::try_from(half + 1).map_err(|_| too_large.clone())?;
        if len as u128 > MAX_WORDS {
            return Err(too_large);
        }
        // Bits of C(m+n, small), the total count, plus a spare word.
        let bits: f64 = (1..=small)
            .map(|i| ((large + i) as f64 / i as f64).log2())
            .sum();
        let words = (bits / 64.0) as usize + 2;
        let table_words = len as u128 * words as u128;
        if table_words > MAX_WORDS || table_words * u128::from(small) > MAX_WORK {
            return Err(too_large);
        }

        let mut counts = BigTable::new(len, words);
        counts.set_one(0);
        for i in 1..=small as usize {
            let shift = large as usize + i;
            // Multiply by (1 - q^shift): high to low so each source is still the old value.
            for k in (shift..len).rev() {
                counts.sub_from(k, k - shift);
            }
            // Divide by (1 - q^i), i.e. multiply by 1 + q^i + q^2i + ...: low to high.
            for k in i..len {
                counts.add_to(k, k - i);
            }
        }
        let pmf_counts: Vec<Scaled> = (0..len).map(|k| counts.scaled(k)).collect();
        for k in 1..len {
            counts.add_to(k, k - 1);
        }
        // Total = C(m+n, m), from the symmetry P(U = k) = P(U = mn - k).
        let mut total = BigTable::new(1, words);
        total.copy_from(&counts, len - 1);
        if mn % 2 == 1 {
            total.add_external(&counts, len - 1);
        } else {
            total.add_external(&counts, len - 2);
        }
        let total = total.scaled(0);
        let cdf = (0..len).map(|k| counts.scaled(k).ratio(total)).collect();
        let pmf = pmf_counts.into_iter().map(|c| c.ratio(total)).collect();
        Ok(NullDistribution { mn, cdf, pmf })
    }

    /// `P(U <= k)` for any `k`.
    pub fn cdf(&self, k: i128) -> f64 {
        let mn = i128::from(self.mn);
        let half = mn / 2;
        if k < 0 {
            0.0
        } else if k >= mn {
            1.0
        } else if k <= half {
            self.cdf[k as usize]
        } else {
            // P(U <= k) = 1 - P(U >= k + 1) = 1 - P(U <= mn - k - 1), and mn - k - 1 < half.
            1.0 - self.cdf[(mn - k - 1) as usize]
        }
    }

    /// `P(U >= k)` for any `k`.
    pub fn sf(&self, k: i128) -> f64 {
        // By symmetry P(U >= k) = P(U <= mn - k).
        self.cdf(i128::from(self.mn) - k)
    }

    /// `P(U = k)` for every `k = 0 ..= mn`.
    pub fn pmf_full(&self) -> Vec<f64> {
        let len = self.mn as usize + 1;
        (0..len).map(|k| self.pmf[k.min(len - 1 - k)]).collect()
    }
}

/// The exact null distribution of the Mann-Whitney U statistic for sizes `m` and `n` without
/// ties: element `k` is `P(U = k)`, `k = 0 ..= m n`.
///
/// Errors if a size is 0 or the distribution is too large to build (about 2^25 words of table).
pub fn exact_null_pmf(m: usize, n: usize) -> Result<Vec<f64>, StatsError> {
    if m == 0 {
        return Err(StatsError::Empty { input: "x" });
    }
    if n == 0 {
        return Err(StatsError::Empty { input: "y" });
    }
    Ok(NullDistribution::new(m, n)?.pmf_full())
}

/// A non-negative number as `mantissa * 2^exponent`, so counts beyond f64's range still divide.
#[derive(Debug, Clone, Copy)]
struct Scaled {
    mantissa: f64,
    exponent: i64,
}

impl Scaled {
    /// `self / other` as an f64 (0 when it underflows).
    fn ratio(self, other: Scaled) -> f64 {
        let mut r = self.mantissa / other.mantissa;
        let mut e = self.exponent - other.exponent;
        while e != 0 && r != 0.0 && r.is_finite() {
            let step = e.clamp(-1000, 1000);
            r *= 2f64.powi(step as i32);
            e -= step;
        }
        r
    }
}

/// A row-major table of fixed-width unsigned integers, `words` little-endian u64 words each,
/// with wrapping (mod 2^(64 words)) arithmetic.
struct BigTable {
    words: usize,
    data: Vec<u64>,
}

impl BigTable {
    fn new(len: usize, words: usize) -> Self {
        BigTable {
            words,
            data: vec![0; len * words],
        }
    }

    fn set_one(&mut self, k: usize) {
        self.data[k * self.words] = 1;
    }

    fn entry(&self, k: usize) -> &[u64] {
        &self.data[k * self.words..(k + 1) * self.words]
    }

    /// `self[dst] += self[src]` for `src < dst`.
    fn add_to(&mut self, dst: usize, src: usize) {
        let w = self.words;
        let (lo, hi) = self.data.split_at_mut(dst * w);
        add_words(&mut hi[..w], &lo[src * w..(src + 1) * w]);
    }

    /// `self[dst] -= self[src]` for `src < dst`.
    fn sub_from(&mut self, dst: usize, src: usize) {
        let w = self.words;
        let (lo, hi) = self.data.split_at_mut(dst * w);
        let (dst, src) = (&mut hi[..w], &lo[src * w..(src + 1) * w]);
        let mut borrow = false;
        for (d, &s) in dst.iter_mut().zip(src) {
            let (v, b1) = d.overflowing_sub(s);
            let (v, b2) = v.overflowing_sub(u64::from(borrow));
            *d = v;
            borrow = b1 || b2;
        }
    }

    /// `self[0] = other[k]`.
    fn copy_from(&mut self, other: &BigTable, k: usize) {
        let w = self.words;
        self.data[..w].copy_from_slice(other.entry(k));
    }

    /// `self[0] += other[k]`.
    fn add_external(&mut self, other: &BigTable, k: usize) {
        let w = self.words;
        add_words(&mut self.data[..w], other.entry(k));
    }

    /// Entry `k` as a [`Scaled`], rounded from its top 128 bits.
    fn scaled(&self, k: usize) -> Scaled {
        let e = self.entry(k);
        match e.iter().rposition(|&w| w != 0) {
            None => Scaled {
                mantissa: 0.0,
                exponent: 0,
            },
            Some(0) => Scaled {
                mantissa: e[0] as f64,
                exponent: 0,
            },
            Some(top) => {
                let mut bits = (u128::from(e[top]) << 64) | u128::from(e[top - 1]);
                // Sticky bit: lower words that are non-zero can only matter for rounding.
                if e[..top - 1].iter().any(|&w| w != 0) {
                    bits |= 1;
                }
                Scaled {
                    mantissa: bits as f64,
                    exponent: 64 * (top as i64 - 1),
                }
            }
        }
    }
}

fn add_words(dst: &mut [u64], src: &[u64]) {
    let mut carry = false;
    for (d, &s) in dst.iter_mut().zip(src) {
        let (v, c1) = d.overflowing_add(s);
        let (v, c2) = v.overflowing_add(u64::from(carry));
        *d = v;
        carry = c1 || c2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts of U over all C(m+n, m) placements, by brute force.
    fn brute_force_counts(m: usize, n: usize) -> Vec<u64> {
        let total = m + n;
        let mut counts = vec![0u64; m * n + 1];
        for mask in 0u32..(1 << total) {
            if mask.count_ones() as usize != m {
                continue;
            }
            // Bit i set: pooled rank i+1 belongs to x. U = sum over x of the y's below it.
            let mut ys_below = 0;
            let mut u = 0;
            for i in 0..total {
                if mask & (1 << i) != 0 {
                    u += ys_below;
                } else {
                    ys_below += 1;
                }
            }
            counts[u] += 1;
        }
        counts
    }

    /// The classical recurrence on probabilities (largest pooled value is an x with probability
    /// m/(m+n), adding n to U, else a y): an independent floating-point algorithm.
    fn recurrence_pmf(m: usize, n: usize) -> Vec<f64> {
        // rows[j] = distribution for (i, j) while building row i.
        let mut prev: Vec<Vec<f64>> = (0..=n).map(|_| vec![1.0]).collect(); // i = 0
        for i in 1..=m {
            let mut row: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
            row.push(vec![1.0]); // j = 0
            for j in 1..=n {
                let mut p = vec![0.0; i * j + 1];
                let (wx, wy) = (i as f64 / (i + j) as f64, j as f64 / (i + j) as f64);
                for (k, v) in prev[j].iter().enumerate() {
                    p[k + j] += wx * v;
                }
                for (k, v) in row[j - 1].iter().enumerate() {
                    p[k] += wy * v;
                }
                row.push(p);
            }
            prev = row;
        }
        prev.pop().unwrap()
    }

    #[test]
    fn three_by_three_is_the_textbook_table() {
        // 20 arrangements; counts 1,1,2,3,3,3,3,2,1,1 for U = 0..9 (Mann & Whitney 1947, Table I).
        let pmf = exact_null_pmf(3, 3).unwrap();
        let counts: Vec<f64> = pmf.iter().map(|p| (p * 20.0).round()).collect();
        assert_eq!(counts, [1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0]);
        for (p, c) in pmf.iter().zip(&counts) {
            assert!((p - c / 20.0).abs() < 1e-16);
        }
    }

    #[test]
    fn matches_brute_force_enumeration() {
        for m in 1..=7 {
            for n in 1..=7 {
                let counts = brute_force_counts(m, n);
                let total: u64 = counts.iter().sum();
                let pmf = exact_null_pmf(m, n).unwrap();
                assert_eq!(pmf.len(), m * n + 1);
                for (k, (&c, &p)) in counts.iter().zip(&pmf).enumerate() {
                    let want = c as f64 / total as f64;
                    assert!(
                        (p - want).abs() <= 1e-15 * want,
                        "m={m} n={n} k={k}: {p} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn matches_probability_recurrence() {
        for (m, n) in [(10, 10), (8, 30), (25, 17), (40, 40), (50, 50), (3, 200)] {
            let got = exact_null_pmf(m, n).unwrap();
            let want = recurrence_pmf(m, n);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() <= 1e-12 * w, "m={m} n={n} k={k}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn fifty_by_fifty_sums_to_one_without_overflow() {
        let pmf = exact_null_pmf(50, 50).unwrap();
        assert_eq!(pmf.len(), 2501);
        assert!(pmf.iter().all(|p| p.is_finite() && *p > 0.0));
        let total: f64 = pmf.iter().sum();
        assert!((total - 1.0).abs() < 1e-12, "total {total}");
        // P(U = 0) = 1 / C(100, 50).
        let c100_50 = 100_891_344_545_564_193_334_812_497_256_f64;
        assert!((pmf[0] * c100_50 - 1.0).abs() < 1e-15);
        let d = NullDistribution::new(50, 50).unwrap();
        assert!((d.cdf(1250) + d.sf(1251) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn counts_beyond_f64_range_still_divide() {
        // Entries 2^1300 + 2^1260 and 2^1290: their ratio is 1024 (1 + 2^-40); the entries are
        // beyond f64's range, the ratio is not.
        let mut t = BigTable::new(2, 22);
        t.data[20] = 1 << 20; // word 20 of entry 0: 2^(1280 + 20)
        t.data[19] = 1 << 44; // 2^(1216 + 44)
        t.data[22 + 20] = 1 << 10; // entry 1: 2^1290
        let r = t.scaled(0).ratio(t.scaled(1));
        assert_eq!(r, 1024.0 * (1.0 + 2f64.powi(-40)));
        assert!((t.scaled(1).ratio(t.scaled(0)) * 1024.0 - 1.0).abs() < 1e-11);
        // A ratio below f64's range underflows to zero instead of becoming NaN.
        let mut tiny = BigTable::new(1, 22);
        tiny.set_one(0);
        assert_eq!(tiny.scaled(0).ratio(t.scaled(0)), 0.0);
        // Wrapping subtraction then addition restores the value exactly.
        let mut w = BigTable::new(2, 3);
        w.set_one(0);
        w.data[3] = 5;
        w.sub_from(1, 0);
        w.sub_from(1, 0);
        w.sub_from(1, 0);
        w.sub_from(1, 0);
        w.sub_from(1, 0);
        w.sub_from(1, 0);
        assert_eq!(w.entry(1), [u64::MAX, u64::MAX, u64::MAX]);
        w.add_to(1, 0);
        assert_eq!(w.entry(1), [0, 0, 0]);
    }

    #[test]
    fn refuses_huge_sizes() {
        assert!(matches!(
            NullDistribution::new(100_000, 100_000),
            Err(StatsError::ExactTooLarge { .. })
        ));
        assert!(matches!(
            NullDistribution::new(usize::MAX, 3),
            Err(StatsError::ExactTooLarge { .. })
        ));
        assert!(exact_null_pmf(0, 3).is_err());
    }
}
