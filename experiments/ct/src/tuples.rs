//! A dense index of every tuple a suite must cover: all t-subsets of the parameters at strength
//! t plus the combinations of the mixed-strength sub-models, each value combination one counter.
//! The post-optimisation passes count coverage per tuple with it.
//!
//! Combination c = (c_0 < ... < c_{t-1}) has colex rank Σ C(c_i, i+1); its block of counters
//! starts at `offsets[rank]` and the tuple's values index the block in mixed radix. The rank gives
//! direct access to the tuples of one parameter of a test, which the passes need when they change
//! one cell.

/// Tuple counters for parameters of the given domain sizes.
pub struct Tuples {
    t: usize,
    sizes: Vec<usize>,
    /// binom[m][k] = C(m, k) for m ≤ n, k ≤ t.
    binom: Vec<Vec<usize>>,
    offsets: Vec<u32>,
    /// Sub-model combinations (sorted parameters, larger than t) and their block offsets.
    extra: Vec<(Vec<usize>, usize)>,
    total: usize,
}

impl Tuples {
    /// `None` when the counters would exceed `budget` (the caller skips its pass).
    pub fn new(sizes: &[usize], t: usize, extra: &[Vec<usize>], budget: usize) -> Option<Tuples> {
        let n = sizes.len();
        if t == 0 || t > n {
            return None;
        }
        let binom: Vec<Vec<usize>> = (0..=n)
            .map(|m| {
                let mut row = vec![0usize; t + 1];
                row[0] = 1;
                for k in 1..=t.min(m) {
                    // C(m, k) = C(m, k-1) (m-k+1) / k, exact at each step.
                    row[k] = row[k - 1].checked_mul(m - k + 1)? / k;
                }
                Some(row)
            })
            .collect::<Option<_>>()?;
        let combos = binom[n][t];
        if combos > budget {
            return None;
        }
        let mut tuples = Tuples { t, sizes: sizes.to_vec(), binom, offsets: vec![0; combos], extra: Vec::new(), total: 0 };
        let mut offsets = vec![0u32; combos];
        let mut run = 0usize;
        tuples.each_combo(&mut |rank, block| {
            offsets[rank] = run as u32;
            run = run.saturating_add(block);
        });
        if run > budget {
            return None;
        }
        tuples.offsets = offsets;
        let mut extra: Vec<Vec<usize>> = extra.iter().filter(|c| c.len() > t).cloned().collect();
        for c in &mut extra {
            c.sort_unstable();
        }
        extra.sort();
        extra.dedup();
        for c in extra {
            let block: usize = c.iter().map(|&p| sizes[p]).product();
            tuples.extra.push((c, run));
            run = run.checked_add(block)?;
            if run > budget {
                return None;
            }
        }
        tuples.total = run;
        Some(tuples)
    }

    /// Number of counters.
    pub fn len(&self) -> usize {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Tuples in one whole test: what a pass over a test costs.
    pub fn per_test(&self) -> usize {
        self.binom[self.sizes.len()][self.t] + self.extra.len()
    }

    /// Calls `f(rank, block size)` for every t-combination.
    fn each_combo(&self, f: &mut impl FnMut(usize, usize)) {
        fn rec(me: &Tuples, start: usize, i: usize, rank: usize, block: usize, f: &mut impl FnMut(usize, usize)) {
            if i == me.t {
                f(rank, block);
                return;
            }
            for q in start..=me.sizes.len() - (me.t - i) {
                rec(me, q + 1, i + 1, rank + me.binom[q][i + 1], block * me.sizes[q], f);
            }
        }
        rec(self, 0, 0, 0, 1, f);
    }

    /// Calls `f(counter, params)` for every tuple of `test`, or of `test` involving parameter
    /// `only`, until `f` returns false; returns whether it ran to the end.
    pub fn each(&self, test: &[usize], only: Option<usize>, f: &mut impl FnMut(usize, &[usize]) -> bool) -> bool {
        let mut combo = Vec::with_capacity(self.t);
        let done = match only {
            // Whole tests walk the blocks in order, offsets counted on the way: no rank lookups,
            // memory touched front to back.
            None => self.rec_all(test, 0, (0, 1), &mut 0, &mut combo, f),
            Some(_) => self.rec(test, only, 0, 0, 0, &mut combo, f),
        };
        if !done {
            return false;
        }
        for (c, off) in &self.extra {
            if only.is_some_and(|p| !c.contains(&p)) {
                continue;
            }
            let idx = c.iter().fold(0, |i, &p| i * self.sizes[p] + test[p]);
            if !f(off + idx, c) {
                return false;
            }
        }
        true
    }

    /// All t-combinations in lexicographic order (the order offsets were assigned in);
    /// `tuple` = (index within the block, block size) of the parameters chosen so far.
    fn rec_all(&self, test: &[usize], start: usize, tuple: (usize, usize), off: &mut usize, combo: &mut Vec<usize>, f: &mut impl FnMut(usize, &[usize]) -> bool) -> bool {
        let (idx, block) = tuple;
        if combo.len() == self.t {
            let go = f(*off + idx, combo);
            *off += block;
            return go;
        }
        for q in start..=self.sizes.len() - (self.t - combo.len()) {
            combo.push(q);
            let go = self.rec_all(test, q + 1, (idx * self.sizes[q] + test[q], block * self.sizes[q]), off, combo, f);
            combo.pop();
            if !go {
                return false;
            }
        }
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn rec(&self, test: &[usize], only: Option<usize>, start: usize, rank: usize, idx: usize, combo: &mut Vec<usize>, f: &mut impl FnMut(usize, &[usize]) -> bool) -> bool {
        let i = combo.len();
        if i == self.t {
            return f(self.offsets[rank] as usize + idx, combo);
        }
        let n = self.sizes.len();
        let mut q = start;
        // Combinations must contain `only`: until it is chosen, nothing past it, and the last
        // free slot is its.
        let pending = only.filter(|p| !combo.contains(p));
        if let Some(p) = pending {
            if i + 1 == self.t {
                q = q.max(p);
            }
        }
        while q + (self.t - i) <= n {
            if pending.is_some_and(|p| q > p) {
                break;
            }
            combo.push(q);
            let go = self.rec(test, only, q + 1, rank + self.binom[q][i + 1], idx * self.sizes[q] + test[q], combo, f);
            combo.pop();
            if !go {
                return false;
            }
            q += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combos::Combinations;
    use std::collections::HashSet;

    #[test]
    fn every_tuple_has_its_own_counter() {
        let sizes = [2, 3, 2, 4, 3];
        let extra = vec![vec![4, 1, 3, 0]];
        let idx = Tuples::new(&sizes, 2, &extra, 1 << 20).unwrap();
        let expected: usize = Combinations::new(5, 2).map(|c| c.iter().map(|&p| sizes[p]).product::<usize>()).sum::<usize>() + 2 * 3 * 4 * 3;
        assert_eq!(idx.len(), expected);
        // All tests of the full space hit every counter, and each (combination, values) pair
        // maps to exactly one counter.
        let mut seen: HashSet<(Vec<usize>, Vec<usize>)> = HashSet::new();
        let mut counter_of = std::collections::HashMap::new();
        let mut test = vec![0; 5];
        loop {
            idx.each(&test, None, &mut |i, c| {
                let key = (c.to_vec(), c.iter().map(|&p| test[p]).collect::<Vec<_>>());
                if let Some(&j) = counter_of.get(&key) {
                    assert_eq!(i, j);
                } else {
                    assert!(!counter_of.values().any(|&j| j == i), "counter {i} shared");
                    counter_of.insert(key.clone(), i);
                }
                seen.insert(key);
                true
            });
            let mut p = 0;
            while p < 5 {
                test[p] += 1;
                if test[p] < sizes[p] {
                    break;
                }
                test[p] = 0;
                p += 1;
            }
            if p == 5 {
                break;
            }
        }
        assert_eq!(seen.len(), expected);
        assert!(counter_of.values().all(|&i| i < expected));
    }

    #[test]
    fn only_visits_the_tuples_of_one_parameter() {
        let sizes = [3; 6];
        let idx = Tuples::new(&sizes, 3, &[], 1 << 20).unwrap();
        let test = [0, 1, 2, 0, 1, 2];
        for p in 0..6 {
            let mut all = Vec::new();
            idx.each(&test, None, &mut |i, c| {
                if c.contains(&p) {
                    all.push(i);
                }
                true
            });
            let mut some = Vec::new();
            idx.each(&test, Some(p), &mut |i, c| {
                assert!(c.contains(&p));
                some.push(i);
                true
            });
            assert_eq!(all, some);
            assert_eq!(some.len(), 10, "C(5, 2) combinations contain parameter {p}");
        }
    }

    #[test]
    fn too_large_is_refused() {
        assert!(Tuples::new(&[10; 20], 6, &[], 1_000_000).is_none());
        assert!(Tuples::new(&[2; 3], 4, &[], 100).is_none());
    }
}
