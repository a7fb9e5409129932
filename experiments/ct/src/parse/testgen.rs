//! Random models and expressions for the parsers' property tests.

use proptest::collection::vec;
use proptest::prelude::*;

use crate::expr::{CmpOp, Expr, Operand};
use crate::model::{ErrorConstraint, Model, Param, SubModel};

pub fn model(params: &[(&str, &[&str])]) -> Model {
    let params = params
        .iter()
        .map(|(n, vs)| Param { name: n.to_string(), values: vs.iter().map(|v| v.to_string()).collect(), invalid: vec![] })
        .collect();
    Model { name: "m".into(), params, ..Model::default() }
}

/// Identifier-like names (what `Expr::display` can write bare).
fn plain_name() -> impl Strategy<Value = String> {
    prop_oneof![Just("a".to_string()), "[a-zA-Z_][a-zA-Z0-9_.-]{0,6}", Just("Größe".to_string()), Just("x.y-z".to_string())]
        .prop_filter("keyword", |s| !matches!(s.as_str(), "true" | "false" | "in"))
}

/// Any name, including ones that need back quotes.
fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![3 => plain_name(), 1 => any_text(), 1 => Just("in".to_string()), 1 => Just("my param".to_string())]
}

/// Values and constants: numbers, words and awkward text (quotes, backslashes, newlines).
pub fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[0-9]{1,3}(\\.[0-9]{1,2})?",
        "[a-z]{1,5}",
        Just(String::new()),
        Just("true".to_string()),
        Just("a \"q\" \\ b".to_string()),
        vec(any::<char>(), 0..6).prop_map(String::from_iter),
    ]
}

fn dedup(mut xs: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    xs.retain(|x| seen.insert(x.clone()));
    xs
}

fn params(names: BoxedStrategy<String>) -> impl Strategy<Value = Vec<Param>> {
    vec((names, vec(any_text(), 1..5)), 1..5).prop_map(|ps| {
        let mut seen = std::collections::HashSet::new();
        ps.into_iter()
            .filter(|(n, _)| seen.insert(n.clone()))
            .map(|(name, values)| Param { name, values: dedup(values), invalid: vec![] })
            .collect()
    })
}

fn operand(n: usize) -> impl Strategy<Value = Operand> {
    prop_oneof![(0..n).prop_map(Operand::Param), any_text().prop_map(Operand::Const)]
}

pub fn expr(n: usize) -> impl Strategy<Value = Expr> {
    let op = prop_oneof![Just(CmpOp::Eq), Just(CmpOp::Ne), Just(CmpOp::Lt), Just(CmpOp::Le), Just(CmpOp::Gt), Just(CmpOp::Ge)];
    let leaf = prop_oneof![
        any::<bool>().prop_map(Expr::Bool),
        (operand(n), op, operand(n)).prop_map(|(a, o, b)| Expr::Cmp(a, o, b)),
        (0..n, vec(any_text(), 0..3)).prop_map(|(p, vs)| Expr::In(p, vs)),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            vec(inner.clone(), 0..4).prop_map(Expr::And),
            vec(inner.clone(), 0..4).prop_map(Expr::Or),
            (inner.clone(), inner).prop_map(|(a, b)| Expr::Implies(Box::new(a), Box::new(b))),
        ]
    })
}

/// A model with identifier names and an expression over it.
pub fn model_and_expr() -> impl Strategy<Value = (Model, Expr)> {
    params(plain_name().boxed()).prop_flat_map(|ps| {
        let n = ps.len();
        (Just(Model { name: "m".into(), params: ps, ..Model::default() }), expr(n))
    })
}

/// A whole model as the native parser would produce it: invalid values' error constraints first,
/// expressions normalized, every part exercised.
pub fn full_model() -> impl Strategy<Value = Model> {
    (any_text(), params(any_name().boxed())).prop_flat_map(|(name, ps)| {
        let n = ps.len();
        let sizes: Vec<usize> = ps.iter().map(|p| p.values.len()).collect();
        let invalid = sizes.iter().map(|&s| proptest::sample::subsequence((0..s).collect::<Vec<_>>(), 0..=s.min(2)).prop_shuffle()).collect::<Vec<_>>();
        let seed = sizes.iter().map(|&s| proptest::option::of(0..s)).collect::<Vec<_>>();
        let sub = (proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 1..=n)).prop_flat_map(|params| {
            let len = params.len();
            (Just(params), 1..=len).prop_map(|(params, strength)| SubModel { params, strength })
        });
        (
            Just(name),
            Just(ps),
            invalid,
            vec(expr(n), 0..3),
            vec(expr(n), 0..3),
            vec(seed, 0..3),
            vec(sub, 0..2),
        )
            .prop_map(|(name, mut params, invalid, exclusions, errors, seeds, submodels)| {
                let mut generated = Vec::new();
                for (i, (p, inv)) in params.iter_mut().zip(invalid).enumerate() {
                    for &v in &inv {
                        generated.push(ErrorConstraint {
                            name: format!("{}={}", p.name, p.values[v]),
                            expr: Expr::Cmp(Operand::Param(i), CmpOp::Ne, Operand::Const(p.values[v].clone())),
                        });
                    }
                    p.invalid = inv;
                }
                let named = errors.iter().enumerate().map(|(i, e)| ErrorConstraint { name: format!("e{i}"), expr: crate::parse::expr::normalize(e) });
                Model {
                    name,
                    params,
                    exclusions: exclusions.iter().map(crate::parse::expr::normalize).collect(),
                    errors: generated.into_iter().chain(named).collect(),
                    seeds,
                    submodels,
                }
            })
    })
    .prop_filter("a valid model", |m| m.check().is_ok())
}

/// Line, column and message of the error parsing `text` in `format` (panics if it parses).
pub fn err(format: crate::parse::Format, text: &str) -> (usize, usize, String) {
    let e = crate::parse::parse(text, std::path::Path::new("m"), format).unwrap_err();
    (e.line, e.column, e.message)
}

/// Line and column of that error.
pub fn at(format: crate::parse::Format, text: &str) -> (usize, usize) {
    let (l, c, _) = err(format, text);
    (l, c)
}

/// `param op "value"`.
pub fn c(p: usize, op: CmpOp, v: &str) -> Expr {
    Expr::Cmp(Operand::Param(p), op, Operand::Const(v.into()))
}
