//! Complete constraint handling: can a partial test be extended to a full test that satisfies
//! every constraint of a set?
//!
//! Parameters linked by constraints form components; a partial test extends iff its restriction to
//! each component it touches does (components are independent). Within a component a backtracking
//! search assigns the free parameters, pruning as soon as a constraint evaluates to false under
//! three-valued logic. Answers are cached per component and assignment.

use std::collections::HashMap;

use crate::expr::{Expr, Truth};
use crate::model::Model;

/// The cache is hit once per extensibility check and component; SipHash dominated the profile.
/// Multiply-rotate hashing (as in rustc's FxHash) is enough for these short keys.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

type BuildFx = std::hash::BuildHasherDefault<Fx>;

/// A constraint's three-valued truth for every partial assignment of its parameters, so the
/// search does not re-evaluate expressions (which compare value strings) at every node. Index:
/// mixed radix over the parameters, digit `values.len()` standing for unassigned.
struct Table {
    params: Vec<usize>,
    radix: Vec<usize>,
    truth: Vec<Truth>,
}

/// Largest table built; bigger constraints are evaluated directly.
const TABLE_MAX: usize = 1 << 16;

impl Table {
    fn new(model: &Model, e: &Expr) -> Option<Table> {
        let params = e.params();
        let radix: Vec<usize> = params.iter().map(|&p| model.params[p].values.len() + 1).collect();
        let size = radix.iter().try_fold(1usize, |a, &r| a.checked_mul(r).filter(|&x| x <= TABLE_MAX))?;
        let mut test = vec![None; model.params.len()];
        let truth = (0..size)
            .map(|mut idx| {
                for (&p, &r) in params.iter().zip(&radix).rev() {
                    let d = idx % r;
                    idx /= r;
                    test[p] = (d + 1 < r).then_some(d);
                }
                e.eval(model, &test)
            })
            .collect();
        Some(Table { params, radix, truth })
    }

    fn eval(&self, test: &[Option<usize>]) -> Truth {
        let idx = self.params.iter().zip(&self.radix).fold(0, |a, (&p, &r)| a * r + test[p].unwrap_or(r - 1));
        self.truth[idx]
    }
}

pub struct Solver<'m> {
    model: &'m Model,
    constraints: Vec<Expr>,
    /// Allowed values per parameter (all of them unless restricted).
    domains: Vec<Vec<usize>>,
    /// Component of each parameter (`None`: in no constraint and unrestricted).
    component: Vec<Option<usize>>,
    /// Per component: its parameters and its constraints.
    members: Vec<Vec<usize>>,
    rules: Vec<Vec<usize>>,
    /// Per constraint: its truth table, when small enough (see [`Table`]).
    tables: Vec<Option<Table>>,
    /// Per component: answers by assignment of its parameters.
    cache: Vec<HashMap<Vec<Option<usize>>, bool, BuildFx>>,
}

impl<'m> Solver<'m> {
    /// `domains[p]`: the values parameter p may take (e.g. one value when fixed).
    pub fn new(model: &'m Model, constraints: Vec<Expr>, domains: Vec<Vec<usize>>) -> Self {
        let n = model.params.len();
        // Union-find over parameters sharing a constraint.
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(parent: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while parent[r] != r {
                r = parent[r];
            }
            let mut y = x;
            while parent[y] != r {
                let next = parent[y];
                parent[y] = r;
                y = next;
            }
            r
        }
        let cparams: Vec<Vec<usize>> = constraints.iter().map(|c| c.params()).collect();
        for ps in &cparams {
            for w in ps.windows(2) {
                let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                parent[a] = b;
            }
        }
        let mut root_id: HashMap<usize, usize> = HashMap::new();
        let mut component = vec![None; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut involved = vec![false; n];
        for ps in &cparams {
            for &p in ps {
                involved[p] = true;
            }
        }
        for p in 0..n {
            let restricted = domains[p].len() < model.params[p].values.len();
            if !involved[p] && !restricted {
                continue;
            }
            let r = find(&mut parent, p);
            let id = *root_id.entry(r).or_insert_with(|| {
                members.push(Vec::new());
                members.len() - 1
            });
            component[p] = Some(id);
            members[id].push(p);
        }
        let mut rules = vec![Vec::new(); members.len()];
        // A constraint on no parameter is a constant: `satisfiable` checks it once.
        for (i, ps) in cparams.iter().enumerate() {
            if let Some(&p) = ps.first() {
                rules[component[p].expect("constrained")].push(i);
            }
        }
        let tables = constraints.iter().map(|c| Table::new(model, c)).collect();
        let cache = vec![HashMap::default(); members.len()];
        Solver { model, constraints, domains, component, members, rules, tables, cache }
    }

    pub fn domains(&self) -> &[Vec<usize>] {
        &self.domains
    }

    /// Whether the set is satisfiable at all (constant constraints included).
    pub fn satisfiable(&mut self) -> bool {
        let empty = vec![None; self.model.params.len()];
        let constant_ok = self
            .constraints
            .iter()
            .filter(|c| c.params().is_empty())
            .all(|c| c.eval(self.model, &empty) != Truth::False);
        constant_ok && (0..self.members.len()).all(|c| self.component_ok(c, &empty))
    }

    /// Whether `test` (None = free) extends to a full test satisfying every constraint, assuming
    /// the set is satisfiable. Values outside a parameter's domain make it false.
    pub fn extensible(&mut self, test: &[Option<usize>]) -> bool {
        let mut touched: Vec<usize> = Vec::new();
        for (p, v) in test.iter().enumerate() {
            if let Some(v) = v {
                match self.component[p] {
                    Some(c) => {
                        if !touched.contains(&c) {
                            touched.push(c);
                        }
                    }
                    None => {}
                }
                if self.domains[p].len() < self.model.params[p].values.len() && !self.domains[p].contains(v) {
                    return false;
                }
            }
        }
        touched.into_iter().all(|c| self.component_ok(c, test))
    }

    /// Whether the parameters in `params` (with values `vals`) extend; a t-tuple check.
    pub fn tuple_ok(&mut self, params: &[usize], vals: &[usize]) -> bool {
        if params.iter().all(|&p| self.component[p].is_none()) {
            return true;
        }
        let mut test = vec![None; self.model.params.len()];
        for (&p, &v) in params.iter().zip(vals) {
            test[p] = Some(v);
        }
        self.extensible(&test)
    }

    fn component_ok(&mut self, c: usize, test: &[Option<usize>]) -> bool {
        let key: Vec<Option<usize>> = self.members[c].iter().map(|&p| test[p]).collect();
        if let Some(&r) = self.cache[c].get(&key) {
            return r;
        }
        let mut work = vec![None; self.model.params.len()];
        for (&p, v) in self.members[c].iter().zip(&key) {
            work[p] = *v;
        }
        let free: Vec<usize> = self.members[c].iter().copied().filter(|&p| work[p].is_none()).collect();
        let r = self.search(c, &mut work, &free, 0);
        self.cache[c].insert(key, r);
        r
    }

    fn consistent(&self, c: usize, work: &[Option<usize>]) -> bool {
        self.rules[c].iter().all(|&i| match &self.tables[i] {
            Some(t) => t.eval(work) != Truth::False,
            None => self.constraints[i].eval(self.model, work) != Truth::False,
        })
    }

    fn search(&self, c: usize, work: &mut Vec<Option<usize>>, free: &[usize], i: usize) -> bool {
        if !self.consistent(c, work) {
            return false;
        }
        if i == free.len() {
            return true;
        }
        let p = free[i];
        for k in 0..self.domains[p].len() {
            work[p] = Some(self.domains[p][k]);
            if self.search(c, work, free, i + 1) {
                work[p] = None;
                return true;
            }
        }
        work[p] = None;
        false
    }

    /// Completes `test` into a full test satisfying every constraint, preferring for each free
    /// parameter the first value that keeps the test extensible. `None` if it does not extend.
    pub fn complete(&mut self, test: &[Option<usize>]) -> Option<Vec<usize>> {
        if !self.extensible(test) {
            return None;
        }
        let mut t = test.to_vec();
        for p in 0..t.len() {
            if t[p].is_some() {
                continue;
            }
            let mut chosen = None;
            for k in 0..self.domains[p].len() {
                t[p] = Some(self.domains[p][k]);
                if self.component[p].is_none() || self.extensible(&t) {
                    chosen = t[p];
                    break;
                }
            }
            t[p] = Some(chosen?);
        }
        Some(t.into_iter().map(|v| v.expect("assigned")).collect())
    }
}
