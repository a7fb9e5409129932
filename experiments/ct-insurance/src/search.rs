//! Test-only helpers: a seeded xorshift generator and a backtracking search for full tests that
//! meet wanted truth values of constraints (exclusions hold, chosen error constraints hold or are
//! violated). Pruning uses the three-valued [`rigor_ct::Expr::eval`]: after a parameter is
//! assigned, every constraint mentioning it is evaluated on the partial test, and a branch is cut
//! as soon as one is decided against its wanted value. A constraint not mentioning the parameter
//! cannot change, so at a leaf every constraint has been checked on the full test.

use rigor_ct::{Expr, Model, Truth};

/// xorshift64 (Marsaglia): tiny, seeded, deterministic.
pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform-enough in `0..n` for test generation (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Uniformly random full tests, valid or not (not even the exclusions need hold).
pub(crate) fn uniform(model: &Model, rng: &mut XorShift) -> Vec<usize> {
    model.params.iter().map(|p| rng.below(p.values.len())).collect()
}

pub(crate) struct Search<'a> {
    model: &'a Model,
    /// (constraint, must hold?): `false` means the constraint must be violated.
    constraints: Vec<(&'a Expr, bool)>,
    /// Per parameter, the constraints mentioning it.
    by_param: Vec<Vec<usize>>,
    /// The order parameters are assigned in: the parameters of the constraints to violate
    /// first, then their neighbours in the constraint graph (breadth first), then the rest in
    /// model order. Deciding the violation first keeps a wrong early choice from being found
    /// out only at the last parameter.
    order: Vec<usize>,
    /// Node limit per search, so that a mistake fails instead of hanging.
    budget: usize,
}

impl<'a> Search<'a> {
    pub(crate) fn new(model: &'a Model, constraints: Vec<(&'a Expr, bool)>) -> Search<'a> {
        let mut by_param = vec![Vec::new(); model.params.len()];
        for (i, (c, _)) in constraints.iter().enumerate() {
            for p in c.params() {
                by_param[p].push(i);
            }
        }
        let n = model.params.len();
        let mut order: Vec<usize> = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        for (c, want) in &constraints {
            if !*want {
                for p in c.params() {
                    if !placed[p] {
                        placed[p] = true;
                        order.push(p);
                    }
                }
            }
        }
        let mut next = 0;
        while next < order.len() {
            let p = order[next];
            next += 1;
            for &c in &by_param[p] {
                for q in constraints[c].0.params() {
                    if !placed[q] {
                        placed[q] = true;
                        order.push(q);
                    }
                }
            }
        }
        order.extend((0..n).filter(|&p| !placed[p]));
        Search { model, constraints, by_param, order, budget: 200_000 }
    }

    /// Valid tests: every exclusion and every error constraint holds.
    pub(crate) fn valid(model: &'a Model) -> Search<'a> {
        let cs = model.exclusions.iter().map(|x| (x, true)).chain(model.errors.iter().map(|e| (&e.expr, true))).collect();
        Search::new(model, cs)
    }

    /// Strong invalid tests for error constraint `k`: it is violated, every other error
    /// constraint and every exclusion holds.
    pub(crate) fn strong_invalid(model: &'a Model, k: usize) -> Search<'a> {
        let cs = model
            .exclusions
            .iter()
            .map(|x| (x, true))
            .chain(model.errors.iter().enumerate().map(|(j, e)| (&e.expr, j != k)))
            .collect();
        Search::new(model, cs)
    }

    /// The first test in lexicographic order of value indices (in the search's parameter order).
    pub(crate) fn first(&self) -> Option<Vec<usize>> {
        self.run(None)
    }

    /// A test found with a random value order at every node.
    pub(crate) fn random(&self, rng: &mut XorShift) -> Option<Vec<usize>> {
        self.run(Some(rng))
    }

    /// Up to `tries` random searches; the first test `pred` accepts.
    pub(crate) fn random_until(&self, rng: &mut XorShift, tries: usize, mut pred: impl FnMut(&[usize]) -> bool) -> Option<Vec<usize>> {
        (0..tries).filter_map(|_| self.random(rng)).find(|t| pred(t))
    }

    fn run(&self, mut rng: Option<&mut XorShift>) -> Option<Vec<usize>> {
        let mut test = vec![None; self.model.params.len()];
        let mut nodes = 0;
        if self.dfs(0, &mut test, &mut rng, &mut nodes) {
            Some(test.into_iter().map(|v| v.expect("full test")).collect())
        } else {
            None
        }
    }

    fn dfs(&self, depth: usize, test: &mut Vec<Option<usize>>, rng: &mut Option<&mut XorShift>, nodes: &mut usize) -> bool {
        let Some(&p) = self.order.get(depth) else {
            return true;
        };
        let mut order: Vec<usize> = (0..self.model.params[p].values.len()).collect();
        if let Some(r) = rng.as_deref_mut() {
            for i in (1..order.len()).rev() {
                order.swap(i, r.below(i + 1));
            }
        }
        for v in order {
            *nodes += 1;
            if *nodes > self.budget {
                return false;
            }
            test[p] = Some(v);
            let ok = self.by_param[p].iter().all(|&c| {
                let (expr, want) = self.constraints[c];
                let bad = if want { Truth::False } else { Truth::True };
                expr.eval(self.model, test) != bad
            });
            if ok && self.dfs(depth + 1, test, rng, nodes) {
                return true;
            }
        }
        test[p] = None;
        false
    }
}
