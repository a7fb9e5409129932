//! Typed parameter values of a grid cell and their declaration-driven validation.

use std::collections::BTreeMap;
use std::fmt;

use crate::ValidationError;

/// A parameter value as written in the study file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

/// The parameters of one job, ordered by name (the order is part of the canonical job spec).
pub type Params = BTreeMap<String, ParamValue>;

impl ParamValue {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(f) => Some(*f),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            ParamValue::Int(i) => Some(*i),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ParamValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ParamValue::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn type_name(&self) -> &'static str {
        match self {
            ParamValue::Bool(_) => "boolean",
            ParamValue::Int(_) => "integer",
            ParamValue::Float(_) => "float",
            ParamValue::Str(_) => "string",
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            // `{:?}` keeps a decimal point (1.0), so floats and integers never print alike.
            ParamValue::Float(x) => write!(f, "{x:?}"),
            ParamValue::Str(s) => write!(f, "{s}"),
        }
    }
}

/// The type a declared parameter accepts.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamType {
    Bool,
    /// An integer within the inclusive range.
    Int { min: i64, max: i64 },
    /// A number (integers are accepted) within the inclusive range.
    Float { min: f64, max: f64 },
    /// A string, optionally restricted to a set of choices.
    Str { choices: Vec<&'static str> },
}

/// A declared parameter of a technique.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub doc: &'static str,
}

impl ParamSpec {
    pub fn new(name: &'static str, ty: ParamType, doc: &'static str) -> Self {
        ParamSpec { name, ty, required: false, doc }
    }
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }
}

/// Checks `params` against `specs`: unknown names, wrong types, out-of-range values, missing required ones.
pub fn check(specs: &[ParamSpec], params: &Params) -> Result<(), ValidationError> {
    for (name, value) in params {
        let field = format!("params.{name}");
        let Some(spec) = specs.iter().find(|s| s.name == name) else {
            let known: Vec<_> = specs.iter().map(|s| s.name).collect();
            return Err(ValidationError::new(
                field,
                format!("unknown parameter (known: {})", known.join(", ")),
            ));
        };
        check_value(&spec.ty, value).map_err(|m| ValidationError::new(field, m))?;
    }
    if let Some(missing) = specs.iter().find(|s| s.required && !params.contains_key(s.name)) {
        return Err(ValidationError::new(format!("params.{}", missing.name), "required parameter is missing"));
    }
    Ok(())
}

fn check_value(ty: &ParamType, value: &ParamValue) -> Result<(), String> {
    match (ty, value) {
        (ParamType::Bool, ParamValue::Bool(_)) => Ok(()),
        (ParamType::Int { min, max }, ParamValue::Int(i)) => {
            if i < min || i > max {
                Err(format!("{i} is outside [{min}, {max}]"))
            } else {
                Ok(())
            }
        }
        (ParamType::Float { min, max }, v @ (ParamValue::Float(_) | ParamValue::Int(_))) => {
            let x = v.as_f64().expect("numeric");
            if !(x >= *min && x <= *max) {
                Err(format!("{x} is outside [{min}, {max}]"))
            } else {
                Ok(())
            }
        }
        (ParamType::Str { choices }, ParamValue::Str(s)) => {
            if choices.is_empty() || choices.contains(&s.as_str()) {
                Ok(())
            } else {
                Err(format!("`{s}` is not one of: {}", choices.join(", ")))
            }
        }
        (ty, v) => Err(format!("expected {}, found {} `{v}`", expected(ty), v.type_name())),
    }
}

fn expected(ty: &ParamType) -> &'static str {
    match ty {
        ParamType::Bool => "a boolean",
        ParamType::Int { .. } => "an integer",
        ParamType::Float { .. } => "a number",
        ParamType::Str { .. } => "a string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<ParamSpec> {
        vec![
            ParamSpec::new("n", ParamType::Int { min: 0, max: 10 }, "").required(),
            ParamSpec::new("rate", ParamType::Float { min: 0.0, max: 1.0 }, ""),
            ParamSpec::new("mode", ParamType::Str { choices: vec!["a", "b"] }, ""),
        ]
    }

    fn params(pairs: &[(&str, ParamValue)]) -> Params {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn accepts_valid_cell_and_integer_for_float() {
        let p = params(&[("n", ParamValue::Int(3)), ("rate", ParamValue::Int(1))]);
        assert_eq!(check(&specs(), &p), Ok(()));
    }

    #[test]
    fn names_the_field_of_each_problem() {
        let cases = [
            (params(&[("n", ParamValue::Str("x".into()))]), "params.n", "expected an integer"),
            (params(&[("n", ParamValue::Int(11))]), "params.n", "outside"),
            (params(&[("n", ParamValue::Int(1)), ("bogus", ParamValue::Bool(true))]), "params.bogus", "unknown"),
            (params(&[]), "params.n", "missing"),
            (params(&[("n", ParamValue::Int(1)), ("mode", ParamValue::Str("c".into()))]), "params.mode", "not one of"),
            (params(&[("n", ParamValue::Int(1)), ("rate", ParamValue::Float(f64::NAN))]), "params.rate", "outside"),
        ];
        for (p, field, msg) in cases {
            let err = check(&specs(), &p).unwrap_err();
            assert_eq!(err.field, field);
            assert!(err.message.contains(msg), "{} lacks {msg}", err.message);
        }
    }

    #[test]
    fn floats_and_integers_display_differently() {
        assert_eq!(ParamValue::Float(1.0).to_string(), "1.0");
        assert_eq!(ParamValue::Int(1).to_string(), "1");
    }
}
