//! Post-optimisation of a covering suite, keeping every tuple it covers covered:
//! 1. drop tests whose tuples all appear in other tests (last tests first: they were added for
//!    leftovers);
//! 2. empty tests by re-covering: for a test, each tuple only it covers is moved into another test
//!    by changing that test's cells, where a cell may change only when none of the tuples it
//!    carries would be lost and the changed test still satisfies the constraints. A test whose
//!    tuples all found a new home is dropped. Tests with the fewest such tuples go first.
//!
//! In the spirit of Nayeri, Colbourn and Konjevod, "Randomized post-optimization of covering
//! arrays" (2013), but greedy and deterministic: the same suite gives the same result.

use crate::solver::Solver;
use crate::tuples::Tuples;

/// Tuple visits the re-covering step may spend (a deterministic bound instead of a clock). At
/// 4e8 every CASA benchmark at t=3 takes under 10 s (GCC 101 tests in 8.3 s; 98 tests in 17 s
/// at 2e9), all still below ACTS and PICT.
pub const EFFORT: usize = 400_000_000;

/// Largest suite × tuples-per-test for which the pass runs at all: counting alone visits every
/// tuple of every test three times (t = 5 on the insurance profile: 15,000 tests × 201,376
/// combinations, minutes for a few percent).
pub const MAX_VISITS: usize = 1_500_000_000;

/// Per tuple: how many tests cover it and which (the sum of their indices, exact when one does);
/// per cell: how many tuples only its test covers (`critical`), so that "may this cell change?"
/// is one lookup instead of a walk over the cell's tuples.
struct Counts<'a> {
    tuples: &'a Tuples,
    count: Vec<u32>,
    holders: Vec<u32>,
    /// Tuples the input suite covers (the ones that must stay covered).
    required: Vec<bool>,
    critical: Vec<u32>,
    n: usize,
    visits: usize,
}

impl Counts<'_> {
    /// Adds (`delta` = 1) or removes (-1) test `s`'s tuples, or those of its parameter `only`.
    fn add(&mut self, s: usize, test: &[usize], only: Option<usize>, delta: i32) {
        let Counts { tuples, count, holders, required, critical, n, visits } = self;
        let n = *n;
        tuples.each(test, only, &mut |i, params| {
            *visits += 1;
            let before = count[i];
            count[i] = before.wrapping_add_signed(delta);
            holders[i] = holders[i].wrapping_add_signed(delta * s as i32);
            if !required[i] {
                return true;
            }
            // A tuple is critical for its one holder: track when that changes.
            let (lose, gain) = match (before, delta) {
                (0, 1) => (None, Some(s)),
                (1, 1) => (Some(holders[i].wrapping_sub(s as u32) as usize), None),
                (1, -1) => (Some(s), None),
                (2, -1) => (None, Some(holders[i] as usize)),
                _ => (None, None),
            };
            for &p in params {
                if let Some(h) = lose {
                    critical[h * n + p] -= 1;
                }
                if let Some(h) = gain {
                    critical[h * n + p] += 1;
                }
            }
            true
        });
    }

    /// Changes cell (`s`, `p`) to `v`, moving the counts of the tuples through it.
    fn set(&mut self, s: usize, test: &mut [usize], p: usize, v: usize) {
        self.add(s, test, Some(p), -1);
        test[p] = v;
        self.add(s, test, Some(p), 1);
    }

    /// Whether test `s` may lose the tuples of its parameter `p` (or all its tuples).
    fn can_lose(&self, s: usize, p: Option<usize>) -> bool {
        match p {
            Some(p) => self.critical[s * self.n + p] == 0,
            None => self.critical[s * self.n..(s + 1) * self.n].iter().all(|&k| k == 0),
        }
    }
}

/// Shrinks `suite` in place; the first `protected` tests (seeds) are neither changed nor dropped.
pub fn shrink(solver: &mut Solver, suite: &mut Vec<Vec<usize>>, tuples: &Tuples, protected: usize, effort: usize) {
    if suite.len() < 2 || suite.len() > i32::MAX as usize / 2 || suite.len().saturating_mul(tuples.per_test()) > MAX_VISITS {
        return;
    }
    let n = suite[0].len();
    let mut c = Counts {
        tuples,
        count: vec![0; tuples.len()],
        holders: vec![0; tuples.len()],
        required: vec![false; tuples.len()],
        critical: vec![0; suite.len() * n],
        n,
        visits: 0,
    };
    for test in suite.iter() {
        tuples.each(test, None, &mut |i, _| {
            c.required[i] = true;
            true
        });
    }
    for (s, test) in suite.iter().enumerate() {
        c.add(s, test, None, 1);
    }
    let mut alive = vec![true; suite.len()];
    for r in (protected..suite.len()).rev() {
        if c.can_lose(r, None) {
            c.add(r, &suite[r], None, -1);
            alive[r] = false;
        }
    }
    // Re-covering, tests with the fewest tuples of their own first.
    let mut own: Vec<(u32, usize)> = (protected..suite.len()).filter(|&r| alive[r]).map(|r| (c.critical[r * n..(r + 1) * n].iter().sum(), r)).collect();
    own.sort_unstable();
    for &(_, r) in &own {
        if c.visits > effort {
            break;
        }
        let mut mine: Vec<(usize, Vec<usize>)> = Vec::new();
        c.visits += tuples.per_test();
        tuples.each(&suite[r], None, &mut |i, params| {
            if c.count[i] == 1 && c.required[i] {
                mine.push((i, params.to_vec()));
            }
            true
        });
        let mut all = true;
        for (i, params) in mine {
            // An earlier move may have covered it too (`r` itself is not changed meanwhile).
            if c.count[i] >= 2 {
                continue;
            }
            let vals: Vec<usize> = params.iter().map(|&p| suite[r][p]).collect();
            if !recover(solver, suite, &alive, &mut c, r, protected, &params, &vals) {
                all = false;
                break;
            }
        }
        if all && c.can_lose(r, None) {
            c.add(r, &suite[r], None, -1);
            alive[r] = false;
        }
    }
    let mut it = alive.iter();
    suite.retain(|_| *it.next().expect("same length"));
}

/// Puts the tuple (`params`, `vals`) into some live test other than `from`; true on success.
#[allow(clippy::too_many_arguments)]
fn recover(solver: &mut Solver, suite: &mut [Vec<usize>], alive: &[bool], c: &mut Counts, from: usize, protected: usize, params: &[usize], vals: &[usize]) -> bool {
    let mut targets: Vec<(usize, usize)> = (protected..suite.len())
        .filter(|&s| s != from && alive[s])
        .filter(|&s| params.iter().zip(vals).all(|(&p, &v)| suite[s][p] == v || c.can_lose(s, Some(p))))
        .map(|s| (params.iter().zip(vals).filter(|(&p, &v)| suite[s][p] != v).count(), s))
        .collect();
    targets.sort_unstable();
    for (_, s) in targets {
        let mut changed: Vec<(usize, usize)> = Vec::new();
        let mut ok = true;
        for (&p, &v) in params.iter().zip(vals) {
            if suite[s][p] == v {
                continue;
            }
            // Exact after earlier cells of this move changed (the filter above saw the test as
            // it stood).
            if !c.can_lose(s, Some(p)) {
                ok = false;
                break;
            }
            changed.push((p, suite[s][p]));
            c.set(s, &mut suite[s], p, v);
        }
        if ok {
            let row: Vec<Option<usize>> = suite[s].iter().map(|&v| Some(v)).collect();
            if solver.extensible(&row) {
                return true;
            }
        }
        for &(p, old) in changed.iter().rev() {
            c.set(s, &mut suite[s], p, old);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Model, Param};

    fn model(sizes: &[usize]) -> Model {
        Model {
            name: "m".into(),
            params: sizes.iter().enumerate().map(|(i, &n)| Param { name: format!("p{i}"), values: (0..n).map(|v| v.to_string()).collect(), invalid: vec![] }).collect(),
            ..Model::default()
        }
    }

    fn covered(suite: &[Vec<usize>], tuples: &Tuples) -> Vec<bool> {
        let mut seen = vec![false; tuples.len()];
        for t in suite {
            tuples.each(t, None, &mut |i, _| {
                seen[i] = true;
                true
            });
        }
        seen
    }

    #[test]
    fn drops_redundant_tests_and_keeps_coverage() {
        let m = model(&[2, 2, 2]);
        let mut solver = Solver::new(&m, vec![], vec![vec![0, 1]; 3]);
        let tuples = Tuples::new(&[2, 2, 2], 2, &[], 1000).unwrap();
        // Exhaustive 2^3: four tests suffice for pairs.
        let mut suite: Vec<Vec<usize>> = (0..8).map(|x| vec![x & 1, x >> 1 & 1, x >> 2 & 1]).collect();
        let before = covered(&suite, &tuples);
        shrink(&mut solver, &mut suite, &tuples, 0, EFFORT);
        assert_eq!(covered(&suite, &tuples), before);
        assert_eq!(suite.len(), 4);
    }

    #[test]
    fn recovers_a_test_by_moving_its_tuples() {
        // Pairs over 3 binary parameters. The last test's only own pair (p0=1, p1=1) fits into the
        // second test by changing p1, whose other pairs are covered elsewhere.
        let m = model(&[2, 2, 2]);
        let mut solver = Solver::new(&m, vec![], vec![vec![0, 1]; 3]);
        let tuples = Tuples::new(&[2, 2, 2], 2, &[], 1000).unwrap();
        let mut suite = vec![vec![0, 0, 0], vec![1, 0, 1], vec![0, 1, 1], vec![1, 0, 0], vec![0, 1, 0], vec![1, 1, 0]];
        let before = covered(&suite, &tuples);
        shrink(&mut solver, &mut suite, &tuples, 0, EFFORT);
        assert_eq!(covered(&suite, &tuples), before);
        assert!(suite.len() <= 5, "{suite:?}");
    }

    #[test]
    fn seeds_stay_and_constraints_hold() {
        use crate::expr::{CmpOp, Expr, Operand};
        let m = model(&[3, 3, 3, 3]);
        // p0 = 2 => p1 != 2
        let c = Expr::Implies(
            Box::new(Expr::Cmp(Operand::Param(0), CmpOp::Eq, Operand::Const("2".into()))),
            Box::new(Expr::Cmp(Operand::Param(1), CmpOp::Ne, Operand::Const("2".into()))),
        );
        let mut solver = Solver::new(&m, vec![c], vec![vec![0, 1, 2]; 4]);
        let tuples = Tuples::new(&[3; 4], 2, &[], 1000).unwrap();
        let mut suite: Vec<Vec<usize>> = Vec::new();
        for x in 0..81 {
            let t = vec![x % 3, x / 3 % 3, x / 9 % 3, x / 27];
            if !(t[0] == 2 && t[1] == 2) {
                suite.push(t);
            }
        }
        let seed = suite[40].clone();
        suite.swap(0, 40);
        let before = covered(&suite, &tuples);
        shrink(&mut solver, &mut suite, &tuples, 1, EFFORT);
        assert_eq!(suite[0], seed);
        assert_eq!(covered(&suite, &tuples), before);
        assert!(suite.iter().all(|t| !(t[0] == 2 && t[1] == 2)));
        assert!(suite.len() <= 12, "{} tests", suite.len());
    }
}
