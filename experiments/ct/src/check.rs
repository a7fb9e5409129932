//! The independent coverage checker: does a suite satisfy a criterion, and which tuples are
//! missing? It shares nothing with the generators but the model: its own tuple enumeration and its
//! own (plain, memoised) search for whether a tuple can be part of a conforming test.

use std::collections::{HashMap, HashSet};

use crate::combos::Combinations;
use crate::expr::{Expr, Truth};
use crate::model::Model;

/// A criterion a suite is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criterion {
    /// Every t-tuple allowed by the exclusion constraints is in a test that satisfies them.
    Relevant(usize),
    /// Every t-tuple allowed by exclusions and error constraints is in a valid test.
    Valid(usize),
    /// Per error constraint e: every tuple of e's parameters that violates e (and can, with every
    /// other constraint satisfied), combined with every a-wise combination of the other
    /// parameters' values, is in a test violating exactly e.
    StrongInvalid(usize),
}

/// A tuple no conforming test covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// For strong invalid coverage: the error constraint's name.
    pub error: Option<String>,
    pub tuple: Vec<(usize, usize)>,
}

#[derive(Debug, Clone, Default)]
pub struct Report {
    pub required: usize,
    pub missing: Vec<Missing>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Whether some full test extends `partial` and satisfies every constraint (plain backtracking
/// over the constrained parameters, memoised on their assignment).
struct Extends<'a> {
    model: &'a Model,
    constraints: Vec<&'a Expr>,
    negated: Option<&'a Expr>,
    vars: Vec<usize>,
    /// Parameters of each constraint (the negated one last), for the reachability walk.
    scopes: Vec<Vec<usize>>,
    memo: HashMap<Vec<Option<usize>>, bool>,
}

impl<'a> Extends<'a> {
    fn new(model: &'a Model, constraints: Vec<&'a Expr>, negated: Option<&'a Expr>) -> Self {
        let scopes: Vec<Vec<usize>> = constraints.iter().chain(negated.iter()).map(|c| c.params()).collect();
        let mut vars: Vec<usize> = scopes.iter().flatten().copied().collect();
        vars.sort_unstable();
        vars.dedup();
        Extends { model, constraints, negated, vars, scopes, memo: HashMap::new() }
    }

    fn ok(&self, t: &[Option<usize>]) -> bool {
        self.constraints.iter().all(|c| c.eval(self.model, t) != Truth::False)
            && self.negated.is_none_or(|e| e.eval(self.model, t) != Truth::True)
    }

    fn test(&mut self, partial: &[Option<usize>]) -> bool {
        let mut t = vec![None; self.model.params.len()];
        for &p in &self.vars {
            t[p] = partial[p];
        }
        let key: Vec<Option<usize>> = self.vars.iter().map(|&p| t[p]).collect();
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        // Only variables linked to the assigned ones through constraints matter; visiting them
        // outward from the assigned ones finds a contradiction near its cause. Constraints on
        // no assigned variable were checked satisfiable once (the empty tuple).
        let order = self.reachable(&t);
        let r = self.dfs(&mut t, &order);
        self.memo.insert(key, r);
        r
    }

    /// Unassigned variables reachable from the assigned ones, breadth first.
    fn reachable(&self, t: &[Option<usize>]) -> Vec<usize> {
        let mut seen: Vec<usize> = self.vars.iter().copied().filter(|&p| t[p].is_some()).collect();
        if seen.is_empty() {
            return self.vars.clone();
        }
        let mut order = Vec::new();
        let mut i = 0;
        while i < seen.len() {
            let p = seen[i];
            i += 1;
            for scope in self.scopes.iter().filter(|s| s.contains(&p)) {
                for &q in scope {
                    if !seen.contains(&q) {
                        seen.push(q);
                        order.push(q);
                    }
                }
            }
        }
        order
    }

    fn dfs(&self, t: &mut Vec<Option<usize>>, order: &[usize]) -> bool {
        if !self.ok(t) {
            return false;
        }
        let Some((&p, rest)) = order.split_first() else { return true };
        for v in 0..self.model.params[p].values.len() {
            t[p] = Some(v);
            if self.dfs(t, rest) {
                t[p] = None;
                return true;
            }
        }
        t[p] = None;
        false
    }

    fn full(&self, test: &[usize]) -> bool {
        let t: Vec<Option<usize>> = test.iter().map(|&v| Some(v)).collect();
        self.constraints.iter().all(|c| c.eval(self.model, &t) == Truth::True)
            && self.negated.is_none_or(|e| e.eval(self.model, &t) == Truth::False)
    }
}

/// Every t-tuple that `ext` allows, missing from the `conforming` tests (those `ext` accepts in
/// full) that carry the `fixed` values.
fn t_wise(model: &Model, conforming: &[&Vec<usize>], t: usize, ext: &mut Extends, fixed: &[(usize, usize)], error: Option<&str>, report: &mut Report) {
    let n = model.params.len();
    let free: Vec<usize> = (0..n).filter(|p| !fixed.iter().any(|(q, _)| q == p)).collect();
    let conforming: Vec<&Vec<usize>> = conforming.iter().copied().filter(|s| fixed.iter().all(|&(p, v)| s[p] == v)).collect();
    let columns = Columns::of(&conforming, n);
    for combo in Combinations::new(free.len(), t.min(free.len())) {
        let params: Vec<usize> = combo.iter().map(|&i| free[i]).collect();
        combination(model, &columns, &params, ext, fixed, error, report);
    }
}

/// The tuples of one combination of parameters (see [`t_wise`]).
fn combination(model: &Model, columns: &Columns, params: &[usize], ext: &mut Extends, fixed: &[(usize, usize)], error: Option<&str>, report: &mut Report) {
    let n = model.params.len();
    let sizes: Vec<usize> = params.iter().map(|&p| model.params[p].values.len()).collect();
    let present = Present::new(columns, params, &sizes);
    let mut vals = vec![0usize; params.len()];
    let mut partial = vec![None; n];
    for &(p, v) in fixed {
        partial[p] = Some(v);
    }
    loop {
        // A tuple some conforming test carries extends (to that test): no search needed.
        let covered = present.contains(&vals);
        let allowed = covered || {
            for (&p, &v) in params.iter().zip(&vals) {
                partial[p] = Some(v);
            }
            ext.test(&partial)
        };
        if allowed {
            report.required += 1;
            if !covered {
                let mut tuple: Vec<(usize, usize)> = fixed.to_vec();
                tuple.extend(params.iter().copied().zip(vals.iter().copied()));
                report.missing.push(Missing { error: error.map(String::from), tuple });
            }
        }
        // Next value combination.
        let mut i = vals.len();
        let mut carry = true;
        while carry && i > 0 {
            i -= 1;
            vals[i] += 1;
            if vals[i] < sizes[i] {
                carry = false;
            } else {
                vals[i] = 0;
            }
        }
        if carry {
            break;
        }
    }
}

/// The tests column by column: a combination's projection then reads a few contiguous arrays
/// instead of one scattered row per test (t=5 on 23,000 tests: minutes to seconds).
struct Columns {
    cols: Vec<Vec<u32>>,
    rows: usize,
}

impl Columns {
    fn of(tests: &[&Vec<usize>], n: usize) -> Columns {
        Columns { cols: (0..n).map(|p| tests.iter().map(|s| s[p] as u32).collect()).collect(), rows: tests.len() }
    }
}

/// The value combinations of `params` that the tests carry: a dense bit per combination (mixed
/// radix) where that fits, else a hash set.
enum Present {
    Dense { bits: Vec<bool>, sizes: Vec<usize> },
    Sparse(HashSet<Vec<usize>>),
}

impl Present {
    const DENSE_MAX: usize = 1 << 24;

    fn new(columns: &Columns, params: &[usize], sizes: &[usize]) -> Present {
        let total = sizes.iter().try_fold(1usize, |a, &s| a.checked_mul(s));
        match total {
            Some(total) if total <= Self::DENSE_MAX => {
                let mut index = vec![0usize; columns.rows];
                for (&p, &r) in params.iter().zip(sizes) {
                    for (i, &v) in index.iter_mut().zip(&columns.cols[p]) {
                        *i = *i * r + v as usize;
                    }
                }
                let mut bits = vec![false; total];
                for i in index {
                    bits[i] = true;
                }
                Present::Dense { bits, sizes: sizes.to_vec() }
            }
            _ => Present::Sparse((0..columns.rows).map(|i| params.iter().map(|&p| columns.cols[p][i] as usize).collect()).collect()),
        }
    }

    fn contains(&self, vals: &[usize]) -> bool {
        match self {
            Present::Dense { bits, sizes } => bits[vals.iter().zip(sizes).fold(0, |i, (&v, &r)| i * r + v)],
            Present::Sparse(set) => set.contains(vals),
        }
    }
}

/// The combinations of each sub-model at its strength, where it exceeds t (lower strengths are
/// implied by t-wise coverage).
fn sub_models(model: &Model, conforming: &[&Vec<usize>], t: usize, ext: &mut Extends, report: &mut Report) {
    let mut combos: std::collections::BTreeSet<Vec<usize>> = std::collections::BTreeSet::new();
    for m in model.submodels.iter().filter(|m| m.strength > t) {
        for c in Combinations::new(m.params.len(), m.strength) {
            let mut params: Vec<usize> = c.iter().map(|&i| m.params[i]).collect();
            params.sort_unstable();
            params.dedup();
            if params.len() > t {
                combos.insert(params);
            }
        }
    }
    let columns = Columns::of(conforming, model.params.len());
    for params in combos {
        combination(model, &columns, &params, ext, &[], None, report);
    }
}

/// Every value combination of `params` (mixed radix, last fastest).
pub(crate) fn assignments<'a>(model: &'a Model, params: &'a [usize]) -> impl Iterator<Item = Vec<usize>> + 'a {
    let sizes: Vec<usize> = params.iter().map(|&p| model.params[p].values.len()).collect();
    let total: usize = sizes.iter().product();
    (0..total).map(move |mut i| {
        let mut vals = vec![0; sizes.len()];
        for k in (0..sizes.len()).rev() {
            vals[k] = i % sizes[k];
            i /= sizes[k];
        }
        vals
    })
}

/// Checks `suite` against `criterion`.
pub fn check(model: &Model, suite: &[Vec<usize>], criterion: Criterion) -> Report {
    let mut report = Report::default();
    let exclusions: Vec<&Expr> = model.exclusions.iter().collect();
    match criterion {
        Criterion::Relevant(t) => {
            let mut ext = Extends::new(model, exclusions, None);
            let conforming: Vec<&Vec<usize>> = suite.iter().filter(|s| ext.full(s)).collect();
            t_wise(model, &conforming, t, &mut ext, &[], None, &mut report);
            sub_models(model, &conforming, t, &mut ext, &mut report);
        }
        Criterion::Valid(t) => {
            let all: Vec<&Expr> = exclusions.iter().copied().chain(model.errors.iter().map(|e| &e.expr)).collect();
            let mut ext = Extends::new(model, all, None);
            let conforming: Vec<&Vec<usize>> = suite.iter().filter(|s| ext.full(s)).collect();
            t_wise(model, &conforming, t, &mut ext, &[], None, &mut report);
            sub_models(model, &conforming, t, &mut ext, &mut report);
        }
        Criterion::StrongInvalid(a) => {
            for (i, e) in model.errors.iter().enumerate() {
                let others: Vec<&Expr> = exclusions
                    .iter()
                    .copied()
                    .chain(model.errors.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, f)| &f.expr))
                    .collect();
                let mut ext = Extends::new(model, others, Some(&e.expr));
                // Every violating assignment of e's own parameters...
                let ps = e.expr.params();
                let tuples: Vec<Vec<(usize, usize)>> = assignments(model, &ps)
                    .filter(|vals| {
                        let mut partial = vec![None; model.params.len()];
                        for (&p, &v) in ps.iter().zip(vals) {
                            partial[p] = Some(v);
                        }
                        ext.test(&partial)
                    })
                    .map(|vals| ps.iter().copied().zip(vals).collect())
                    .collect();
                // ...combined with every a-wise combination of the others, in tests violating
                // exactly e.
                let conforming: Vec<&Vec<usize>> = suite.iter().filter(|s| ext.full(s)).collect();
                for tu in tuples {
                    t_wise(model, &conforming, a, &mut ext, &tu, Some(&e.name), &mut report);
                }
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_presence_agree() {
        let tests: Vec<Vec<usize>> = vec![vec![0, 4_999, 3], vec![4_998, 0, 1], vec![7, 7, 2]];
        let refs: Vec<&Vec<usize>> = tests.iter().collect();
        let columns = Columns::of(&refs, 3);
        // 5,000 × 5,000 combinations exceed the dense limit; 5,000 × 4 do not.
        let sparse = Present::new(&columns, &[0, 1], &[5_000, 5_000]);
        let dense = Present::new(&columns, &[0, 2], &[5_000, 4]);
        assert!(matches!(sparse, Present::Sparse(_)) && matches!(dense, Present::Dense { .. }));
        for t in &tests {
            assert!(sparse.contains(&[t[0], t[1]]));
            assert!(dense.contains(&[t[0], t[2]]));
        }
        assert!(!sparse.contains(&[0, 0]) && !sparse.contains(&[4_999, 0]));
        assert!(!dense.contains(&[0, 1]) && !dense.contains(&[7, 3]));
    }
}
