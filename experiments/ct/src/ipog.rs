//! IPOG-C: in-parameter-order covering arrays with complete constraint handling (Lei et al.,
//! "IPOG: a general strategy for t-way software testing", 2007; Yu et al., "An efficient algorithm
//! for constraint handling in combinatorial test generation", 2013), then a pass that drops tests
//! whose tuples are all covered elsewhere.
//!
//! Rows are kept in the model's parameter order with `None` for don't-care; columns are processed
//! in `order`. Coverage of the tuples of the current column is one bitset per combination of
//! earlier columns, indexed mixed-radix. Invalid tuples are never covered by a valid row, so they
//! are only checked (with the solver) when vertical growth would build a row for them.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::combos::Combinations;
use crate::solver::Solver;

/// How a generation run varies: a seed permutes parameter and value order (0: the natural
/// order, largest domains first).
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub seed: Option<u64>,
    /// Drop tests whose tuples are all covered by other tests.
    pub reduce: bool,
}

impl Default for Variant {
    fn default() -> Self {
        Variant { seed: None, reduce: true }
    }
}

/// Builds a t-wise covering suite for the solver's constraints and domains, starting from
/// `seeds` (partial tests; kept, completed). Strength 0 gives one test.
pub fn generate(solver: &mut Solver, t: usize, seeds: &[Vec<Option<usize>>], variant: Variant) -> Vec<Vec<usize>> {
    let n = solver.domains().len();
    let mut domains: Vec<Vec<usize>> = solver.domains().to_vec();
    let mut order: Vec<usize> = (0..n).collect();
    match variant.seed {
        Some(s) => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
            order.shuffle(&mut rng);
            for d in &mut domains {
                d.shuffle(&mut rng);
            }
        }
        None => order.sort_by_key(|&p| std::cmp::Reverse(domains[p].len())),
    }
    let t = t.min(n);
    let mut rows: Vec<Vec<Option<usize>>> = seeds.iter().filter(|s| solver.extensible(s)).cloned().collect();
    if t == 0 {
        let row = rows.first().cloned().unwrap_or_else(|| vec![None; n]);
        return solver.complete(&row).into_iter().collect();
    }
    // The first t columns: every valid combination not already in a seed.
    let first: Vec<usize> = order[..t].to_vec();
    let mut vals = vec![0usize; t];
    loop {
        let mut row = vec![None; n];
        for (i, &p) in first.iter().enumerate() {
            row[p] = Some(domains[p][vals[i]]);
        }
        let seen = rows.iter().any(|r| first.iter().all(|&p| r[p] == row[p]));
        if !seen && solver.extensible(&row) {
            rows.push(row);
        }
        // Next combination (mixed radix, last digit fastest).
        let mut i = t;
        loop {
            if i == 0 {
                break;
            }
            i -= 1;
            vals[i] += 1;
            if vals[i] < domains[first[i]].len() {
                break;
            }
            vals[i] = 0;
            if i == 0 {
                i = usize::MAX;
                break;
            }
        }
        if i == usize::MAX {
            break;
        }
    }
    for j in t..n {
        extend(solver, &mut rows, &order[..j], order[j], &domains, t);
    }
    let mut suite: Vec<Vec<usize>> = rows.iter().filter_map(|r| solver.complete(r)).collect();
    if variant.reduce {
        reduce(&mut suite, &order, &domains, t);
    }
    suite
}

/// Coverage of the tuples (t−1 earlier columns, the new column).
struct Coverage {
    combos: Vec<Vec<usize>>,
    /// Per combination: one bit per tuple, set = still uncovered.
    bits: Vec<Vec<u64>>,
    /// Per combination: domain sizes of its parameters (mixed radix).
    radix: Vec<Vec<usize>>,
    dk: usize,
}

impl Coverage {
    fn new(earlier: &[usize], domains: &[Vec<usize>], k: usize, t: usize) -> Coverage {
        let combos: Vec<Vec<usize>> = Combinations::new(earlier.len(), t - 1)
            .map(|c| c.iter().map(|&i| earlier[i]).collect())
            .collect();
        let dk = domains[k].len();
        let radix: Vec<Vec<usize>> = combos.iter().map(|c| c.iter().map(|&p| domains[p].len()).collect()).collect();
        let bits = radix
            .iter()
            .map(|r| {
                let n = r.iter().product::<usize>() * dk;
                let mut b = vec![u64::MAX; n.div_ceil(64)];
                if n % 64 != 0 {
                    *b.last_mut().expect("n > 0") = (1u64 << (n % 64)) - 1;
                }
                b
            })
            .collect();
        Coverage { combos, bits, radix, dk }
    }

    /// Index of the combination's values in `row` (positions into each domain), if all assigned.
    fn base(&self, c: usize, row: &[Option<usize>], pos: &[Vec<usize>]) -> Option<usize> {
        let mut idx = 0;
        for (&p, &r) in self.combos[c].iter().zip(&self.radix[c]) {
            idx = idx * r + pos[p][row[p]?];
        }
        Some(idx)
    }
}

/// Adds column `k` to every row (horizontal growth), then rows for tuples still uncovered
/// (vertical growth).
fn extend(solver: &mut Solver, rows: &mut Vec<Vec<Option<usize>>>, earlier: &[usize], k: usize, domains: &[Vec<usize>], t: usize) {
    // pos[p][value] = position of the value in p's (possibly shuffled) domain.
    let pos: Vec<Vec<usize>> = domains
        .iter()
        .enumerate()
        .map(|(p, d)| {
            let size = d.iter().max().map_or(0, |m| m + 1).max(solver.domains()[p].len());
            let mut v = vec![usize::MAX; size];
            for (i, &x) in d.iter().enumerate() {
                v[x] = i;
            }
            v
        })
        .collect();
    let mut cov = Coverage::new(earlier, domains, k, t);
    let dk = cov.dk;
    let mut counts = vec![0usize; dk];
    let mut weights = vec![0usize; dk];
    let mut ranked: Vec<usize> = Vec::with_capacity(dk);
    // Uncovered tuples per value of k: ties go to the value still most needed, which spreads
    // values evenly instead of piling the misses onto one combination.
    let per_value: usize = cov.radix.iter().map(|r| r.iter().product::<usize>()).sum();
    let mut needed = vec![per_value; dk];
    // Uncovered tuples per combination. Each leftover of one combination will need a row of its
    // own in vertical growth, while leftovers of different combinations can share rows: among
    // values covering as many tuples, prefer those of combinations that lack the most.
    let mut left: Vec<usize> = cov.radix.iter().map(|r| r.iter().product::<usize>() * dk).collect();
    for r in 0..rows.len() {
        counts.iter_mut().for_each(|c| *c = 0);
        weights.iter_mut().for_each(|c| *c = 0);
        let bases: Vec<Option<usize>> = (0..cov.combos.len()).map(|c| cov.base(c, &rows[r], &pos)).collect();
        for (c, b) in bases.iter().enumerate() {
            if let Some(b) = b {
                for v in 0..dk {
                    let i = b * dk + v;
                    if cov.bits[c][i / 64] >> (i % 64) & 1 == 1 {
                        counts[v] += 1;
                        weights[v] += left[c];
                    }
                }
            }
        }
        ranked.clear();
        ranked.extend(0..dk);
        // Most new tuples first; ties keep domain order (stable sort).
        ranked.sort_by_key(|&v| (std::cmp::Reverse(counts[v]), std::cmp::Reverse(weights[v]), std::cmp::Reverse(needed[v])));
        let mut chosen = None;
        for &v in &ranked {
            rows[r][k] = Some(domains[k][v]);
            if solver.extensible(&rows[r]) {
                chosen = Some(v);
                break;
            }
        }
        match chosen {
            Some(v) => {
                for (c, b) in bases.iter().enumerate() {
                    if let Some(b) = b {
                        let i = b * dk + v;
                        if cov.bits[c][i / 64] >> (i % 64) & 1 == 1 {
                            cov.bits[c][i / 64] &= !(1u64 << (i % 64));
                            left[c] -= 1;
                            needed[v] -= 1;
                        }
                    }
                }
            }
            // Only a row with don't-cares can fail every value; leave k open for vertical growth.
            None => rows[r][k] = None,
        }
    }
    // Vertical growth: every uncovered valid tuple gets a row.
    let first_new = rows.len();
    for c in 0..cov.combos.len() {
        let params: Vec<usize> = cov.combos[c].iter().copied().chain(std::iter::once(k)).collect();
        let radix: Vec<usize> = cov.radix[c].iter().copied().chain(std::iter::once(dk)).collect();
        for w in 0..cov.bits[c].len() {
            let mut word = cov.bits[c][w];
            while word != 0 {
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                let idx = w * 64 + bit;
                // Decode the mixed-radix index into values.
                let mut rem = idx;
                let mut vals = vec![0usize; params.len()];
                for i in (0..params.len()).rev() {
                    vals[i] = domains[params[i]][rem % radix[i]];
                    rem /= radix[i];
                }
                if !solver.tuple_ok(&params, &vals) {
                    continue;
                }
                place(solver, rows, first_new, &params, &vals);
            }
        }
    }
}

/// Puts a tuple into a row whose don't-cares allow it (rows of this vertical growth first, then
/// older rows with gaps), or into a new row.
fn place(solver: &mut Solver, rows: &mut Vec<Vec<Option<usize>>>, first_new: usize, params: &[usize], vals: &[usize]) {
    let fits = |row: &Vec<Option<usize>>| params.iter().zip(vals).all(|(&p, &v)| row[p].is_none_or(|x| x == v));
    let candidates = (first_new..rows.len()).chain(0..first_new);
    for r in candidates {
        if !fits(&rows[r]) || params.iter().all(|&p| rows[r][p].is_some()) {
            continue;
        }
        let saved = rows[r].clone();
        for (&p, &v) in params.iter().zip(vals) {
            rows[r][p] = Some(v);
        }
        if solver.extensible(&rows[r]) {
            return;
        }
        rows[r] = saved;
    }
    let mut row = vec![None; solver.domains().len()];
    for (&p, &v) in params.iter().zip(vals) {
        row[p] = Some(v);
    }
    rows.push(row);
}

/// Most counters the redundancy pass may use (one per possible tuple); beyond it the pass is
/// skipped rather than exhaust memory.
const REDUCE_BUDGET: usize = 200_000_000;

/// Removes tests whose every t-tuple also appears in another test (last tests first: they were
/// added to cover leftovers).
fn reduce(suite: &mut Vec<Vec<usize>>, order: &[usize], domains: &[Vec<usize>], t: usize) {
    if suite.len() < 2 || t == 0 {
        return;
    }
    let n = order.len();
    let sizes: Vec<usize> = (0..n).map(|p| domains[p].iter().max().map_or(1, |m| m + 1)).collect();
    let combos: Vec<Vec<usize>> = Combinations::new(n, t).collect();
    let total: usize = combos.iter().map(|c| c.iter().map(|&p| sizes[p]).product::<usize>()).sum();
    if total > REDUCE_BUDGET {
        return;
    }
    let index = |test: &[usize], c: &[usize]| c.iter().fold(0, |acc, &p| acc * sizes[p] + test[p]);
    let mut count: Vec<Vec<u32>> =
        combos.iter().map(|c| vec![0; c.iter().map(|&p| sizes[p]).product()]).collect();
    for test in suite.iter() {
        for (ci, c) in combos.iter().enumerate() {
            count[ci][index(test, c)] += 1;
        }
    }
    let mut keep = vec![true; suite.len()];
    for i in (0..suite.len()).rev() {
        if combos.iter().enumerate().all(|(ci, c)| count[ci][index(&suite[i], c)] >= 2) {
            keep[i] = false;
            for (ci, c) in combos.iter().enumerate() {
                count[ci][index(&suite[i], c)] -= 1;
            }
        }
    }
    let mut it = keep.iter();
    suite.retain(|_| *it.next().expect("same length"));
}
