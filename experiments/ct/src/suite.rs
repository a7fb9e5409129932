//! Suites for each coverage criterion: t-wise relevant (exclusions only), t-wise valid
//! (exclusions and error constraints), a-wise strong invalid (per error constraint, tests that
//! violate exactly it), and their union (robust).

use crate::check::{assignments, Criterion};
use crate::expr::Expr;
use crate::ipog::{self, Variant};
use crate::model::Model;
use crate::solver::Solver;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    Relevant(usize),
    Valid(usize),
    StrongInvalid(usize),
    /// t-wise valid plus a-wise strong invalid.
    Robust { t: usize, a: usize },
}

impl Goal {
    /// The checker criteria the suite must meet.
    pub fn criteria(self) -> Vec<Criterion> {
        match self {
            Goal::Relevant(t) => vec![Criterion::Relevant(t)],
            Goal::Valid(t) => vec![Criterion::Valid(t)],
            Goal::StrongInvalid(a) => vec![Criterion::StrongInvalid(a)],
            Goal::Robust { t, a } => vec![Criterion::Valid(t), Criterion::StrongInvalid(a)],
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SuiteError {
    #[error("no test satisfies the {0} constraints")]
    Unsatisfiable(&'static str),
}

fn full_domains(model: &Model) -> Vec<Vec<usize>> {
    model.params.iter().map(|p| (0..p.values.len()).collect()).collect()
}

/// Generates a suite for `goal`; tests are value indices per parameter.
pub fn generate(model: &Model, goal: Goal, variant: Variant) -> Result<Vec<Vec<usize>>, SuiteError> {
    match goal {
        Goal::Relevant(t) => {
            let mut s = Solver::new(model, model.exclusions.clone(), full_domains(model));
            if !s.satisfiable() {
                return Err(SuiteError::Unsatisfiable("exclusion"));
            }
            Ok(ipog::generate(&mut s, t, &model.submodels, &model.seeds, variant))
        }
        Goal::Valid(t) => {
            let all: Vec<Expr> = model.exclusions.iter().cloned().chain(model.errors.iter().map(|e| e.expr.clone())).collect();
            let mut s = Solver::new(model, all, full_domains(model));
            if !s.satisfiable() {
                return Err(SuiteError::Unsatisfiable("exclusion and error"));
            }
            Ok(ipog::generate(&mut s, t, &model.submodels, &model.seeds, variant))
        }
        Goal::StrongInvalid(a) => Ok(strong_invalid(model, a, variant)),
        Goal::Robust { t, a } => {
            let mut suite = generate(model, Goal::Valid(t), variant)?;
            suite.extend(strong_invalid(model, a, variant));
            Ok(suite)
        }
    }
}

/// The smallest of several variants: the natural order first, then seeded random orders while
/// the time spent stays under `budget` (at most `max_tries` in all). Deterministic for a given
/// count of tries; the budget only decides how many are made.
pub fn generate_best(
    model: &Model,
    goal: Goal,
    budget: std::time::Duration,
    max_tries: usize,
) -> Result<Vec<Vec<usize>>, SuiteError> {
    let start = std::time::Instant::now();
    let mut best = generate(model, goal, Variant::default())?;
    let once = start.elapsed();
    let mut seed = 1;
    while (seed as usize) < max_tries && start.elapsed() + once < budget {
        let s = generate(model, goal, Variant { seed: Some(seed), reduce: true })?;
        if s.len() < best.len() {
            best = s;
        }
        seed += 1;
    }
    Ok(best)
}

/// For each error constraint e and each assignment of e's parameters that violates it (and can,
/// with all other constraints satisfied): an a-wise suite of the other parameters with that
/// assignment fixed. a = 0 gives one test per invalid assignment (single-error coverage).
fn strong_invalid(model: &Model, a: usize, variant: Variant) -> Vec<Vec<usize>> {
    let mut suite = Vec::new();
    for (i, e) in model.errors.iter().enumerate() {
        let constraints: Vec<Expr> = model
            .exclusions
            .iter()
            .cloned()
            .chain(model.errors.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, f)| f.expr.clone()))
            .chain(std::iter::once(Expr::Not(Box::new(e.expr.clone()))))
            .collect();
        let ps = e.expr.params();
        let mut probe = Solver::new(model, constraints.clone(), full_domains(model));
        for vals in assignments(model, &ps) {
            if !probe.tuple_ok(&ps, &vals) {
                continue;
            }
            let mut domains = full_domains(model);
            for (&p, &v) in ps.iter().zip(&vals) {
                domains[p] = vec![v];
            }
            let mut s = Solver::new(model, constraints.clone(), domains);
            let v = Variant { seed: variant.seed.map(|x| x ^ (i as u64) << 32), ..variant };
            suite.extend(ipog::generate(&mut s, a, &[], &[], v));
        }
    }
    suite
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::expr::{CmpOp, Operand};
    use crate::model::{ErrorConstraint, Param};

    fn p(name: &str, n: usize) -> Param {
        Param { name: name.into(), values: (0..n).map(|i| i.to_string()).collect(), invalid: vec![] }
    }

    fn eq(p: usize, v: &str) -> Expr {
        Expr::Cmp(Operand::Param(p), CmpOp::Eq, Operand::Const(v.into()))
    }

    fn model() -> Model {
        Model {
            name: "m".into(),
            params: vec![p("a", 3), p("b", 3), p("c", 2), p("d", 4), p("e", 2)],
            exclusions: vec![Expr::Implies(Box::new(eq(0, "0")), Box::new(Expr::Not(Box::new(eq(1, "0")))))],
            errors: vec![
                ErrorConstraint { name: "c_ok".into(), expr: Expr::Not(Box::new(eq(2, "1"))) },
                ErrorConstraint { name: "de".into(), expr: Expr::Implies(Box::new(eq(3, "3")), Box::new(eq(4, "0"))) },
            ],
            ..Model::default()
        }
    }

    #[test]
    fn every_goal_meets_its_criteria() {
        let m = model();
        for goal in [Goal::Relevant(1), Goal::Relevant(2), Goal::Relevant(3), Goal::Valid(2), Goal::Valid(3), Goal::StrongInvalid(0), Goal::StrongInvalid(1), Goal::Robust { t: 2, a: 1 }] {
            for seed in [None, Some(1), Some(2)] {
                let suite = generate(&m, goal, Variant { seed, reduce: true }).unwrap();
                for c in goal.criteria() {
                    let r = check(&m, &suite, c);
                    assert!(r.ok() && r.required > 0, "{goal:?} seed {seed:?}: {c:?} missing {:?}", r.missing);
                }
            }
        }
    }

    #[test]
    fn sub_models_are_generated_and_checked() {
        let mut m = model();
        m.submodels.push(crate::model::SubModel { params: vec![1, 2, 3, 4], strength: 4 });
        let suite = generate(&m, Goal::Relevant(2), Variant::default()).unwrap();
        let r = check(&m, &suite, Criterion::Relevant(2));
        assert!(r.ok(), "{:?}", r.missing);
        // b, c, d, e have 3*2*4*2 = 48 combinations, all allowed by the exclusion on a and b.
        assert!(r.required >= 48 && suite.len() >= 48, "{} required, {} tests", r.required, suite.len());
        let mut fewer = suite.clone();
        let last = fewer.pop().unwrap();
        let r = check(&m, &fewer, Criterion::Relevant(2));
        assert!(r.missing.iter().any(|miss| miss.tuple.len() == 4 && miss.tuple.iter().all(|&(p, v)| last[p] == v)), "{:?}", r.missing);
    }

    #[test]
    fn checker_reports_what_is_missing() {
        let m = model();
        let mut suite = generate(&m, Goal::Valid(2), Variant::default()).unwrap();
        suite.pop();
        let r = check(&m, &suite, Criterion::Valid(2));
        assert!(!r.ok(), "dropping a test of a reduced suite loses a tuple");
        // Strong invalid a=0 needs exactly one test per invalid assignment: c=1, and (d=3, e=1).
        let si = generate(&m, Goal::StrongInvalid(0), Variant::default()).unwrap();
        assert_eq!(si.len(), 2);
    }
}
