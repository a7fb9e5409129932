//! Source tests generated from the specification (t-wise valid coverage with rigor-ct's IPOG-C)
//! instead of read from a CSV file.
//!
//! Each parameter becomes a model parameter whose values are its `enum`, else its `values` pool,
//! else its default; optional parameters also take the value "absent". Requires/excludes
//! constraints become constraints over those values (an atom `p` holds when p is not absent).

use rigor_ct::expr::{CmpOp, Expr, Operand};
use rigor_ct::ipog::Variant;
use rigor_ct::suite::{generate, Goal};

use crate::constraint::ConstraintKind;
use crate::spec::Feature;
use crate::sut::Mode;
use crate::tests_csv::SourceTest;

/// The value standing for "parameter not in the query".
const ABSENT: &str = "\u{0}absent";

/// t-wise valid source tests for `feature`; ids `T01`, `T02`, ...
pub fn source_tests(feature: &Feature, strength: usize, seed: Option<u64>, mode: Mode) -> Result<Vec<SourceTest>, String> {
    let mut params = Vec::new();
    for p in &feature.parameters {
        let mut values: Vec<String> = match (&p.enum_values, p.values.is_empty(), &p.default) {
            (Some(e), _, _) if !e.is_empty() => e.clone(),
            (_, false, _) => p.values.clone(),
            (_, true, Some(d)) => vec![d.clone()],
            _ if p.is_required() => {
                return Err(format!("parameter {:?} is required but has no enum, `values` or default to generate tests from", p.name))
            }
            _ => Vec::new(),
        };
        values.dedup();
        if !p.is_required() {
            values.push(ABSENT.into());
        }
        params.push(rigor_ct::Param { name: p.name.clone(), values, invalid: vec![] });
    }
    let index = |n: &str| feature.parameters.iter().position(|p| p.name == n);
    let atom = |a: &crate::constraint::Atom| -> Expr {
        match (index(&a.param), &a.value) {
            (None, _) => Expr::Bool(false),
            (Some(i), None) => Expr::Cmp(Operand::Param(i), CmpOp::Ne, Operand::Const(ABSENT.into())),
            (Some(i), Some(v)) => Expr::In(i, vec![v.clone()]),
        }
    };
    let exclusions = feature
        .constraints
        .iter()
        .map(|d| {
            let c = if mode == Mode::Compat { &d.compat } else { &d.native };
            let (a, b) = (atom(&c.left), atom(&c.right));
            match c.kind {
                ConstraintKind::Requires => Expr::Implies(Box::new(a), Box::new(b)),
                ConstraintKind::Excludes => Expr::Not(Box::new(Expr::And(vec![a, b]))),
            }
        })
        .collect();
    let model = rigor_ct::Model { name: feature.id.clone(), params, exclusions, ..Default::default() };
    let suite = generate(&model, Goal::Relevant(strength), Variant { seed, reduce: true }).map_err(|e| e.to_string())?;
    Ok(suite
        .iter()
        .enumerate()
        .map(|(i, t)| SourceTest {
            id: format!("T{:02}", i + 1),
            values: t
                .iter()
                .enumerate()
                .filter(|(p, &v)| model.params[*p].values[v] != ABSENT)
                .map(|(p, &v)| (model.params[p].name.clone(), model.params[p].values[v].clone()))
                .collect(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;
    use crate::sut::Sut;

    #[test]
    fn pairwise_tests_cover_pairs_and_satisfy_constraints() {
        let text = "features:\n- id: F\n  parameters:\n  - {name: q, required: true, values: [a, b]}\n  - {name: g, required: false, enum: [x, y, z]}\n  - {name: s, required: false, enum: [up, down], default: up}\n  - {name: n, required: false, values: ['1', '2']}\n  constraints:\n  - constraint: n requires g\n  - constraint: g = z excludes s = down\n";
        let spec = Spec::parse(text, "s.yml").unwrap();
        let f = &spec.features[0];
        let tests = source_tests(f, 2, None, Mode::Native).unwrap();
        let sut = Sut::new(f, "F", Mode::Native).unwrap();
        // Every test satisfies the constraints (Sut::tests refuses any that does not).
        let resolved = sut.tests(&tests).unwrap();
        assert!(resolved.iter().all(|t| t.get(0).is_some()), "q is required");
        // Every allowed pair of (g, s) values, absence included, appears.
        let get = |t: &SourceTest, k: &str| t.get(k).map(str::to_string);
        for g in [None, Some("x"), Some("y"), Some("z")] {
            for s in [None, Some("up"), Some("down")] {
                if g == Some("z") && s == Some("down") {
                    continue;
                }
                let want = (g.map(String::from), s.map(String::from));
                assert!(tests.iter().any(|t| (get(t, "g"), get(t, "s")) == want), "missing {want:?}");
            }
        }
    }
}
