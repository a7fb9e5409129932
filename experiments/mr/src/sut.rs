//! A feature resolved for generation: parameters by index, the filter lists of its configuration,
//! its constraints, and source tests as index/value pairs.
//!
//! [`Mode::Compat`] keeps the original tool's view (constraint names and values with whitespace
//! removed) and only refuses what would crash it; [`Mode::Native`] also refuses specifications the
//! original would silently mishandle, and keeps spaces in constraint values.

use thiserror::Error;

use crate::constraint::{Constraint, ConstraintKind};
use crate::spec::{AllValue, Feature};
use crate::tests_csv::SourceTest;

/// Which behaviour to follow where the original tool and a correct one differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Output identical to the MRG tool (MET22 release).
    Compat,
    /// Clear errors, spaces in constraint values, complete partitions dropped whole when any part
    /// is invalid, empty value pools skipped.
    Native,
}

pub type ParamId = usize;

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub enum_values: Option<Vec<String>>,
    pub default: Option<String>,
    pub required: bool,
    /// Extension: values to fill `<TBD>` with when executing.
    pub pool: Vec<String>,
}

/// A test: its id and present parameters, in insertion order (the original appends added
/// parameters at the end).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Test {
    pub id: String,
    pub params: Vec<(ParamId, String)>,
}

impl Test {
    pub fn get(&self, p: ParamId) -> Option<&str> {
        self.params
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, v)| v.as_str())
    }

    pub fn has(&self, p: ParamId) -> bool {
        self.params.iter().any(|(q, _)| *q == p)
    }

    /// Sets a present parameter's value or appends it.
    pub fn set(&mut self, p: ParamId, v: &str) {
        match self.params.iter_mut().find(|(q, _)| *q == p) {
            Some(slot) => slot.1 = v.to_string(),
            None => self.params.push((p, v.to_string())),
        }
    }

    pub fn remove(&mut self, p: ParamId) {
        self.params.retain(|(q, _)| *q != p);
    }
}

/// `param` or `param = value`, with the parameter resolved (`None`: names no parameter, never holds).
#[derive(Debug, Clone)]
struct Atom {
    param: Option<ParamId>,
    value: Option<String>,
}

impl Atom {
    fn holds(&self, t: &Test) -> bool {
        match (self.param.and_then(|p| t.get(p)), &self.value) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(v), Some(want)) => v == want,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub text: String,
    left: Atom,
    kind: ConstraintKind,
    right: Atom,
}

impl Rule {
    pub fn holds(&self, t: &Test) -> bool {
        let (a, b) = (self.left.holds(t), self.right.holds(t));
        match self.kind {
            ConstraintKind::Requires => !a || b,
            ConstraintKind::Excludes => !(a && b),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Sut {
    pub mode: Mode,
    /// The feature id as the user named it (printed in the natural-language output).
    pub feature: String,
    pub params: Vec<Param>,
    pub ordering: Vec<ParamId>,
    pub conjunctive: Vec<ParamId>,
    pub disjunctive: Vec<ParamId>,
    /// Disjoint filters and their disjoint values, in configuration order.
    pub disjoint: Vec<(ParamId, Vec<String>)>,
    pub complete: Vec<(ParamId, AllValue)>,
    pub with_default: Vec<ParamId>,
    pub limit: Option<ParamId>,
    pub offset: Option<ParamId>,
    /// Requires constraints first, then excludes (the original checks them in that order).
    pub rules: Vec<Rule>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SutError {
    #[error("parameter {0:?} has no `required: true|false` (the MRG tool crashes on this)")]
    MissingRequired(String),
    #[error("{role} parameter {param:?} has no `enum` (the MRG tool crashes on this)")]
    NoEnum { role: &'static str, param: String },
    #[error("disjoint filter {0:?} has no values (no `values` and no `enum`)")]
    EmptyDisjoint(String),
    #[error("source test {test}: parameter {param:?} is not a parameter of the feature")]
    UnknownParameter { test: String, param: String },
    #[error("source test {test} violates constraint `{constraint}`")]
    Violates { test: String, constraint: String },
}

impl Sut {
    /// Resolves `feature`; `name` is the feature id as the user wrote it.
    pub fn new(feature: &Feature, name: &str, mode: Mode) -> Result<Sut, SutError> {
        let index = |n: &str| feature.parameters.iter().position(|p| p.name == n);
        let mut params = Vec::with_capacity(feature.parameters.len());
        for p in &feature.parameters {
            if p.required.is_none() {
                return Err(SutError::MissingRequired(p.name.clone()));
            }
            params.push(Param {
                name: p.name.clone(),
                enum_values: p.enum_values.clone(),
                default: p.default.clone(),
                required: p.is_required(),
                pool: p.values.clone(),
            });
        }
        let c = &feature.configuration;
        // The original keeps declaration order for the plain filter lists.
        let members = |names: &[String]| -> Vec<ParamId> {
            (0..params.len())
                .filter(|&i| names.iter().any(|n| *n == params[i].name))
                .collect()
        };
        let ordering = members(&c.ordering_parameters);
        let conjunctive = members(&c.conjunctive_filters);
        let disjunctive = members(&c.disjunctive_filters);
        // The spec parser has checked that every configured name is a parameter.
        let id = |n: &str| index(n).expect("configured names are parameters");
        let disjoint: Vec<(ParamId, Vec<String>)> = c
            .disjoint_filters
            .iter()
            .map(|d| (id(&d.parameter), d.values.clone()))
            .collect();
        let complete: Vec<(ParamId, AllValue)> = c
            .complete_filters
            .iter()
            .map(|f| (id(&f.parameter), f.all_value.clone()))
            .collect();
        let enum_needed = ordering
            .iter()
            .map(|&p| ("ordering", p))
            .chain(complete.iter().map(|&(p, _)| ("complete", p)));
        for (role, p) in enum_needed {
            if params[p].enum_values.is_none() {
                return Err(SutError::NoEnum {
                    role,
                    param: params[p].name.clone(),
                });
            }
        }
        if mode == Mode::Native {
            if let Some((p, _)) = disjoint.iter().find(|(_, v)| v.is_empty()) {
                return Err(SutError::EmptyDisjoint(params[*p].name.clone()));
            }
        }
        let with_default = (0..params.len())
            .filter(|&i| params[i].default.is_some())
            .collect();
        let mut rules: Vec<Rule> = Vec::new();
        for kind in [ConstraintKind::Requires, ConstraintKind::Excludes] {
            for d in &feature.constraints {
                let c: &Constraint = match mode {
                    Mode::Compat => &d.compat,
                    Mode::Native => &d.native,
                };
                if c.kind != kind {
                    continue;
                }
                let atom = |a: &crate::constraint::Atom| Atom {
                    param: index(&a.param),
                    value: a.value.clone(),
                };
                rules.push(Rule {
                    text: d.text.clone(),
                    left: atom(&c.left),
                    kind,
                    right: atom(&c.right),
                });
            }
        }
        Ok(Sut {
            mode,
            feature: name.to_string(),
            ordering,
            conjunctive,
            disjunctive,
            disjoint,
            complete,
            with_default,
            limit: c.limit_parameter.as_deref().and_then(index),
            offset: c.offset_parameter.as_deref().and_then(index),
            rules,
            params,
        })
    }

    pub fn param(&self, name: &str) -> Option<ParamId> {
        self.params.iter().position(|p| p.name == name)
    }

    pub fn name(&self, p: ParamId) -> &str {
        &self.params[p].name
    }

    /// The first constraint the test violates.
    pub fn violated(&self, t: &Test) -> Option<&Rule> {
        self.rules.iter().find(|r| !r.holds(t))
    }

    /// Whether the number of results is limited, explicitly or by a default: then only the
    /// disjoint and equivalence patterns apply.
    pub fn limit_block(&self, t: &Test) -> bool {
        let limit_default = self
            .limit
            .is_some_and(|p| self.params[p].default.is_some());
        limit_default
            || self.limit.is_some_and(|p| t.has(p))
            || self.offset.is_some_and(|p| t.has(p))
    }

    /// Converts source tests, checking every one against the constraints (the original refuses to
    /// start when one is violated; this says which test and which constraint).
    pub fn tests(&self, source: &[SourceTest]) -> Result<Vec<Test>, SutError> {
        source
            .iter()
            .map(|s| {
                let mut params = Vec::with_capacity(s.values.len());
                for (k, v) in &s.values {
                    let p = self.param(k).ok_or_else(|| SutError::UnknownParameter {
                        test: s.id.clone(),
                        param: k.clone(),
                    })?;
                    params.push((p, v.clone()));
                }
                let t = Test {
                    id: s.id.clone(),
                    params,
                };
                if let Some(r) = self.violated(&t) {
                    return Err(SutError::Violates {
                        test: s.id.clone(),
                        constraint: r.text.clone(),
                    });
                }
                Ok(t)
            })
            .collect()
    }
}
