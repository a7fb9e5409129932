//! An input parameter model (IPM): parameters with values, exclusion constraints (combinations
//! that are irrelevant: every test must satisfy them), named error constraints (a test is valid
//! when it satisfies all of them; a strong invalid test violates exactly one), seed tests and
//! mixed-strength sub-models. Every parser produces this; every algorithm consumes it.

use thiserror::Error;

use crate::expr::Expr;

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    /// Values as written; compared as numbers when both sides parse as numbers.
    pub values: Vec<String>,
    /// Values marked invalid in the source format (PICT's `~`): each is turned into an error
    /// constraint `param != value` by the importer, kept here for export.
    pub invalid: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ErrorConstraint {
    pub name: String,
    /// Holds for valid inputs (e.g. `age >= 18`).
    pub expr: Expr,
}

/// Parameters covered at their own strength (PICT `{A, B, C} @ 3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubModel {
    pub params: Vec<usize>,
    pub strength: usize,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Model {
    pub name: String,
    pub params: Vec<Param>,
    /// Must hold for every test (valid or invalid).
    pub exclusions: Vec<Expr>,
    pub errors: Vec<ErrorConstraint>,
    /// Tests to include first; `None` = don't care. Value indices.
    pub seeds: Vec<Vec<Option<usize>>>,
    pub submodels: Vec<SubModel>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ModelError {
    #[error("model has no parameters")]
    NoParameters,
    #[error("parameter {0:?} has no values")]
    NoValues(String),
    #[error("parameter {0:?} is declared twice")]
    DuplicateParameter(String),
    #[error("parameter {param:?} has value {value:?} twice")]
    DuplicateValue { param: String, value: String },
    #[error("seed test {index}: {message}")]
    BadSeed { index: usize, message: String },
    #[error("sub-model {index}: {message}")]
    BadSubModel { index: usize, message: String },
    #[error("error constraint name {0:?} is used twice")]
    DuplicateError(String),
}

impl Model {
    pub fn param(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// Domain sizes in parameter order.
    pub fn sizes(&self) -> Vec<usize> {
        self.params.iter().map(|p| p.values.len()).collect()
    }

    /// Structural checks every parser runs last.
    pub fn check(&self) -> Result<(), ModelError> {
        if self.params.is_empty() {
            return Err(ModelError::NoParameters);
        }
        // Sets, not pairwise scans: a model file may list a million values (found by fuzzing).
        let mut names = std::collections::HashSet::new();
        for p in &self.params {
            if p.values.is_empty() {
                return Err(ModelError::NoValues(p.name.clone()));
            }
            if !names.insert(p.name.as_str()) {
                return Err(ModelError::DuplicateParameter(p.name.clone()));
            }
            let mut values = std::collections::HashSet::new();
            if let Some(v) = p.values.iter().find(|v| !values.insert(v.as_str())) {
                return Err(ModelError::DuplicateValue { param: p.name.clone(), value: v.clone() });
            }
        }
        for (index, s) in self.seeds.iter().enumerate() {
            if s.len() != self.params.len() {
                return Err(ModelError::BadSeed { index, message: format!("{} cells for {} parameters", s.len(), self.params.len()) });
            }
            for (p, v) in s.iter().enumerate() {
                if let Some(v) = v {
                    if *v >= self.params[p].values.len() {
                        return Err(ModelError::BadSeed { index, message: format!("value index {v} out of range for {}", self.params[p].name) });
                    }
                }
            }
        }
        for (index, m) in self.submodels.iter().enumerate() {
            if m.strength == 0 || m.strength > m.params.len() {
                return Err(ModelError::BadSubModel { index, message: format!("strength {} for {} parameters", m.strength, m.params.len()) });
            }
            if m.params.iter().any(|&p| p >= self.params.len()) {
                return Err(ModelError::BadSubModel { index, message: "unknown parameter".into() });
            }
        }
        let mut errors = std::collections::HashSet::new();
        if let Some(e) = self.errors.iter().find(|e| !errors.insert(e.name.as_str())) {
            return Err(ModelError::DuplicateError(e.name.clone()));
        }
        Ok(())
    }
}
