//! # The native model format
//!
//! A model is a TOML file (extension `.toml`):
//!
//! ```toml
//! name = "insurance"                # optional; defaults to the file name without extension
//!
//! [[parameter]]
//! name = "age"
//! values = [17, 18, 40, 70]         # numbers or strings, kept as written
//!
//! [[parameter]]
//! name = "product"
//! values = ["basic", "premium"]
//! invalid = ["unknown"]             # optional: invalid values (see below)
//!
//! [[exclusion]]                     # irrelevant combinations: every test satisfies this
//! when = 'product == "basic" => age < 70'
//!
//! [[error]]                         # error constraint: holds for valid inputs
//! name = "adult"
//! when = "age >= 18"
//!
//! [[seed]]                          # optional seed test; unnamed parameters are "don't care"
//! age = 40
//! product = "premium"
//!
//! [[submodel]]                      # optional: cover these parameters at their own strength
//! parameters = ["age", "product"]
//! strength = 2
//! ```
//!
//! - **`[[parameter]]`**: `name` and a non-empty list of distinct `values`. `invalid` lists values
//!   that only invalid tests may use: each one is added to the values (unless already listed there)
//!   and becomes the error constraint `product != "unknown"` named `product=unknown`, so a valid
//!   test never uses it and each strong invalid test uses one.
//! - **`[[exclusion]]`**: `when` is a condition every test (valid or invalid) must satisfy; use it
//!   for combinations that cannot happen or make no sense.
//! - **`[[error]]`**: a named condition that holds for valid inputs; a test violating it is an
//!   invalid test expected to be rejected. Names must be distinct.
//! - **`[[seed]]`**: tests to include first; keys are parameter names, values must be among the
//!   parameter's values.
//! - **`[[submodel]]`**: mixed strength; `strength` between 1 and the number of parameters listed.
//!
//! ## Conditions
//!
//! | syntax | meaning |
//! |---|---|
//! | `age >= 18`, `age < limit` | comparison of a parameter with a constant or with another parameter: `==`, `!=`, `<`, `<=`, `>`, `>=` |
//! | `product in {"basic", "premium"}` | membership |
//! | `!c`, `a && b`, `a \|\| b` | not, and, or (in this order of precedence) |
//! | `a => b` | implication (lowest precedence, right-associative) |
//! | `(c)`, `true`, `false` | grouping and constants |
//!
//! Constants are numbers (`70`, `-1.5`) or double-quoted strings (`"basic"`, escapes `\"` and
//! `\\`). Values compare as numbers when both sides are numbers, as text otherwise. A bare word is
//! a parameter name; names that are not identifiers go in back quotes (`` `max size` > 3 ``).
//! Single-quoted TOML strings (`'...'`) avoid escaping the double quotes of string constants.
//! See [`crate::parse::expr`] for the grammar.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::expr::{CmpOp, Expr, Operand};
use crate::model::{ErrorConstraint, Model, ModelError, Param, SubModel};
use crate::parse::expr::{parse_expr, to_native};
use crate::parse::{find_value, ParseError, Source};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    name: Option<String>,
    #[serde(default)]
    parameter: Vec<Spanned<ParamDef>>,
    #[serde(default)]
    exclusion: Vec<WhenDef>,
    #[serde(default)]
    error: Vec<ErrorDef>,
    #[serde(default)]
    seed: Vec<Spanned<BTreeMap<Spanned<String>, Spanned<toml::Value>>>>,
    #[serde(default)]
    submodel: Vec<Spanned<SubModelDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamDef {
    name: Spanned<String>,
    values: Spanned<Vec<Spanned<toml::Value>>>,
    #[serde(default)]
    invalid: Vec<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WhenDef {
    when: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorDef {
    name: Spanned<String>,
    when: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubModelDef {
    parameters: Vec<Spanned<String>>,
    strength: usize,
}

/// Parses a native model; `file` names it in errors and gives the default model name.
pub fn parse(text: &str, file: &Path) -> Result<Model, ParseError> {
    let src = Source::new(text, file);
    let def: FileDef = toml::from_str(text).map_err(|e| src.error(e.span().map_or(0, |s| s.start), e.message().trim_end().replace('\n', "; ")))?;
    let default_name = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut model = Model { name: def.name.unwrap_or(default_name), ..Model::default() };

    // Byte offsets of each part, to locate `Model::check` errors.
    let mut names_at = Vec::new();
    let mut values_at = Vec::new();
    let mut errors_at = Vec::new();
    for pd in &def.parameter {
        let p = model.params.len();
        let name = pd.get_ref().name.get_ref().clone();
        let mut param = Param { name: name.clone(), values: Vec::new(), invalid: Vec::new() };
        for v in pd.get_ref().values.get_ref() {
            let value = value_text(&src, v)?;
            if param.values.contains(&value) {
                return Err(src.error(v.span().start, format!("value {value:?} is listed twice")));
            }
            param.values.push(value);
        }
        for v in &pd.get_ref().invalid {
            let value = value_text(&src, v)?;
            let index = match param.values.iter().position(|x| *x == value) {
                Some(i) => i,
                None => {
                    param.values.push(value.clone());
                    param.values.len() - 1
                }
            };
            if param.invalid.contains(&index) {
                return Err(src.error(v.span().start, format!("invalid value {value:?} is listed twice")));
            }
            param.invalid.push(index);
            model.errors.push(ErrorConstraint {
                name: format!("{name}={value}"),
                expr: Expr::Cmp(Operand::Param(p), CmpOp::Ne, Operand::Const(value)),
            });
            errors_at.push(v.span().start);
        }
        names_at.push(pd.get_ref().name.span().start);
        values_at.push(pd.get_ref().values.span().start);
        model.params.push(param);
    }

    for ex in &def.exclusion {
        let e = condition(&src, &ex.when, &model)?;
        model.exclusions.push(e);
    }
    for er in &def.error {
        let expr = condition(&src, &er.when, &model)?;
        model.errors.push(ErrorConstraint { name: er.name.get_ref().clone(), expr });
        errors_at.push(er.name.span().start);
    }

    for sd in &def.seed {
        let mut seed = vec![None; model.params.len()];
        for (k, v) in sd.get_ref() {
            let Some(p) = model.param(k.get_ref()) else {
                return Err(src.error(k.span().start, format!("unknown parameter `{}`", k.get_ref())));
            };
            let value = value_text(&src, v)?;
            let Some(i) = find_value(&model, p, &value) else {
                return Err(src.error(v.span().start, format!("{value:?} is not a value of `{}`", k.get_ref())));
            };
            seed[p] = Some(i);
        }
        model.seeds.push(seed);
    }

    for sd in &def.submodel {
        let mut params = Vec::new();
        for n in &sd.get_ref().parameters {
            match model.param(n.get_ref()) {
                Some(p) if params.contains(&p) => return Err(src.error(n.span().start, format!("parameter `{}` is listed twice", n.get_ref()))),
                Some(p) => params.push(p),
                None => return Err(src.error(n.span().start, format!("unknown parameter `{}`", n.get_ref()))),
            }
        }
        model.submodels.push(SubModel { params, strength: sd.get_ref().strength });
    }

    let seeds_at: Vec<usize> = def.seed.iter().map(|s| s.span().start).collect();
    let subs_at: Vec<usize> = def.submodel.iter().map(|s| s.span().start).collect();
    let names: Vec<String> = model.params.iter().map(|p| p.name.clone()).collect();
    let error_names: Vec<String> = model.errors.iter().map(|e| e.name.clone()).collect();
    src.check(model, |e| match e {
        ModelError::NoParameters => 0,
        ModelError::NoValues(n) | ModelError::DuplicateValue { param: n, .. } => {
            names.iter().position(|x| x == n).map_or(0, |i| values_at[i])
        }
        ModelError::DuplicateParameter(n) => second(&names, n).map_or(0, |i| names_at[i]),
        ModelError::DuplicateError(n) => second(&error_names, n).map_or(0, |i| errors_at[i]),
        ModelError::BadSeed { index, .. } => seeds_at.get(*index).copied().unwrap_or(0),
        ModelError::BadSubModel { index, .. } => subs_at.get(*index).copied().unwrap_or(0),
    })
}

/// Index of the second occurrence of `name`.
fn second(names: &[String], name: &str) -> Option<usize> {
    names.iter().enumerate().filter(|(_, x)| *x == name).nth(1).map(|(i, _)| i)
}

/// A value as written: strings as they are, numbers as in the source (so `1.50` stays `1.50`).
fn value_text(src: &Source, v: &Spanned<toml::Value>) -> Result<String, ParseError> {
    let raw = src.text.get(v.span()).unwrap_or("");
    match v.get_ref() {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(_) if raw.parse::<f64>().is_ok() => Ok(raw.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(src.error(v.span().start, format!("expected a number or a string, found a {}", other.type_str()))),
    }
}

/// Parses a `when` condition, locating errors inside the TOML string.
fn condition(src: &Source, when: &Spanned<String>, model: &Model) -> Result<Expr, ParseError> {
    parse_expr(when.get_ref(), model).map_err(|e| src.error(string_offset(src.text, &when.span(), when.get_ref(), e.offset), e.message))
}

/// Byte offset in the file of byte `offset` of a TOML string's value. Exact when the string has no
/// escapes (literal strings never do); otherwise the string's start.
fn string_offset(text: &str, span: &Range<usize>, value: &str, offset: usize) -> usize {
    let raw = text.get(span.clone()).unwrap_or("");
    let delim = if raw.starts_with("'''") || raw.starts_with("\"\"\"") { 3 } else { 1 };
    let mut start = span.start + delim;
    let mut body = text.get(start..span.end.saturating_sub(delim)).unwrap_or("");
    if delim == 3 {
        // A newline right after the opening delimiter is not part of the value.
        for nl in ["\r\n", "\n"] {
            if let Some(b) = body.strip_prefix(nl) {
                body = b;
                start += nl.len();
                break;
            }
        }
    }
    if body == value {
        start + offset
    } else {
        span.start
    }
}

/// Writes `model` in the native format; [`parse`] reads it back as an equal model when its
/// expressions are normalized (see [`crate::parse::expr::normalize`]) and the error constraints of
/// invalid values come first, as the parsers produce them.
pub fn write_native(model: &Model) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "name = {}", basic(&model.name));
    let mut generated = Vec::new();
    for (p, param) in model.params.iter().enumerate() {
        let values: Vec<String> = param.values.iter().map(|v| basic(v)).collect();
        let _ = write!(out, "\n[[parameter]]\nname = {}\nvalues = [{}]\n", basic(&param.name), values.join(", "));
        let invalid: Vec<&String> = param.invalid.iter().filter_map(|&i| param.values.get(i)).collect();
        if !invalid.is_empty() {
            let list: Vec<String> = invalid.iter().map(|v| basic(v)).collect();
            let _ = writeln!(out, "invalid = [{}]", list.join(", "));
        }
        for v in invalid {
            generated.push(ErrorConstraint {
                name: format!("{}={v}", param.name),
                expr: Expr::Cmp(Operand::Param(p), CmpOp::Ne, Operand::Const(v.clone())),
            });
        }
    }
    for e in &model.exclusions {
        let _ = write!(out, "\n[[exclusion]]\nwhen = {}\n", condition_text(&to_native(e, model)));
    }
    // The invalid values' constraints are implied by `invalid = [...]`.
    for e in model.errors.iter().filter(|e| !generated.contains(e)) {
        let _ = write!(out, "\n[[error]]\nname = {}\nwhen = {}\n", basic(&e.name), condition_text(&to_native(&e.expr, model)));
    }
    for seed in &model.seeds {
        out.push_str("\n[[seed]]\n");
        for (p, v) in seed.iter().enumerate() {
            if let (Some(v), Some(param)) = (v, model.params.get(p)) {
                let value = param.values.get(*v).map_or("", String::as_str);
                let _ = writeln!(out, "{} = {}", key(&param.name), basic(value));
            }
        }
    }
    for s in &model.submodels {
        let names: Vec<String> = s.params.iter().map(|&p| basic(model.params.get(p).map_or("", |p| p.name.as_str()))).collect();
        let _ = write!(out, "\n[[submodel]]\nparameters = [{}]\nstrength = {}\n", names.join(", "), s.strength);
    }
    out
}

/// A TOML basic string.
fn basic(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A condition as a TOML literal string when possible (readable, and errors located exactly).
fn condition_text(s: &str) -> String {
    if s.contains(|c: char| c == '\'' || c.is_control()) {
        basic(s)
    } else {
        format!("'{s}'")
    }
}

/// A TOML key: bare when it may be.
fn key(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        name.to_string()
    } else {
        basic(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::testgen;
    use proptest::prelude::*;

    const EXAMPLE: &str = r#"name = "insurance"
[[parameter]]
name = "age"
values = [17, 18, 40.50, 70]
[[parameter]]
name = "product"
values = ["basic", "premium"]
invalid = ["unknown"]
[[exclusion]]
when = 'product == "basic" => age < 70'
[[error]]
name = "adult"
when = "age >= 18"
[[seed]]
age = 40.5
[[submodel]]
parameters = ["age", "product"]
strength = 2
"#;

    fn parse_str(s: &str) -> Result<Model, ParseError> {
        parse(s, Path::new("m.toml"))
    }

    fn at(s: &str) -> (usize, usize) {
        crate::parse::testgen::at(crate::parse::Format::Native, s)
    }

    fn err(s: &str) -> (usize, usize, String) {
        crate::parse::testgen::err(crate::parse::Format::Native, s)
    }

    #[test]
    fn reads_the_documented_example() {
        let m = parse_str(EXAMPLE).unwrap();
        assert_eq!(m.name, "insurance");
        assert_eq!(m.params[0].values, ["17", "18", "40.50", "70"]);
        assert_eq!(m.params[1].values, ["basic", "premium", "unknown"]);
        assert_eq!(m.params[1].invalid, [2]);
        assert_eq!(m.errors.len(), 2);
        assert_eq!(m.errors[0].name, "product=unknown");
        assert_eq!(m.errors[0].expr, Expr::Cmp(Operand::Param(1), CmpOp::Ne, Operand::Const("unknown".into())));
        assert_eq!(m.errors[1].name, "adult");
        assert_eq!(m.exclusions.len(), 1);
        assert_eq!(m.seeds, [vec![Some(2), None]], "40.5 matches 40.50 numerically");
        assert_eq!(m.submodels, [SubModel { params: vec![0, 1], strength: 2 }]);
        // The doc comment's example parses too.
        let doc = include_str!("native.rs");
        let start = doc.find("//! ```toml\n").unwrap() + 12;
        let end = start + doc[start..].find("//! ```\n").unwrap();
        let example: String = doc[start..end].lines().map(|l| l.strip_prefix("//! ").unwrap_or("").to_string() + "\n").collect();
        let m = parse_str(&example).unwrap();
        assert_eq!(m.seeds, [vec![Some(2), Some(1)]]);
    }

    #[test]
    fn defaults_and_invalid_values_already_listed() {
        let m = parse(
            "[[parameter]]\nname = 'x'\nvalues = ['a', 'b', true]\ninvalid = ['b']\n",
            Path::new("dir/shop.toml"),
        )
        .unwrap();
        assert_eq!(m.name, "shop");
        assert_eq!(m.params[0].values, ["a", "b", "true"]);
        assert_eq!(m.params[0].invalid, [1]);
    }

    #[test]
    fn errors_are_located() {
        // TOML syntax.
        assert_eq!(err("[[parameter]]\nname = \n").0, 2);
        // Unknown field (a typo).
        let (l, c, m) = err("[[parameter]]\nname = 'a'\nvalues = [1]\nvalus = [2]\n");
        assert_eq!((l, c), (4, 1), "{m}");
        assert!(m.contains("valus"), "{m}");
        // Missing values.
        assert_eq!(err("[[parameter]]\nname = 'a'\n").2, "missing field `values`");
        // Unknown parameter in a condition: exact column inside a literal string.
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1]\n[[exclusion]]\nwhen = 'a < 3 && b > 2'\n"), (5, 18, "unknown parameter `b`".into()));
        // ... in a multi-line literal string.
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1]\n[[error]]\nname = 'e'\nwhen = '''\na < 3 &&\n  a = 2'''\n").0, 8);
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1]\n[[error]]\nname = 'e'\nwhen = '''\na < 3 &&\n  a = 2'''\n").1, 5);
        // With escapes, the string's start.
        assert_eq!(at("[[parameter]]\nname = 'a'\nvalues = [1]\n[[exclusion]]\nwhen = \"a == \\\"x\\\" && q\"\n"), (5, 8));
        // Duplicate value.
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1, 2, 1]\n"), (3, 17, "value \"1\" is listed twice".into()));
        // Bad value type.
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1, [2]]\n"), (3, 14, "expected a number or a string, found a array".into()));
        // Empty values.
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = []\n"), (3, 10, "parameter \"a\" has no values".into()));
        // Duplicate parameter.
        assert_eq!(at("[[parameter]]\nname = 'a'\nvalues = [1]\n[[parameter]]\nname = 'a'\nvalues = [1]\n"), (5, 8));
        // Seeds.
        assert_eq!(at("[[parameter]]\nname = 'a'\nvalues = [1]\n[[seed]]\nb = 1\n"), (5, 1));
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1]\n[[seed]]\na = 2\n"), (5, 5, "\"2\" is not a value of `a`".into()));
        // Sub-model strength.
        assert_eq!(err("[[parameter]]\nname = 'a'\nvalues = [1]\n[[submodel]]\nparameters = ['a']\nstrength = 2\n").0, 4);
        // Duplicate error names (explicit vs generated).
        assert_eq!(at("[[parameter]]\nname = 'a'\nvalues = [1]\ninvalid = [2]\n[[error]]\nname = 'a=2'\nwhen = 'true'\n"), (6, 8));
        // No parameters.
        assert_eq!(err(""), (1, 1, "model has no parameters".into()));
    }

    #[test]
    fn writes_readable_files() {
        let m = parse_str(EXAMPLE).unwrap();
        let text = write_native(&m);
        assert!(text.contains("invalid = [\"unknown\"]"), "{text}");
        assert!(text.contains("when = 'product == \"basic\" => age < 70'"), "{text}");
        assert!(!text.contains("product=unknown"), "generated constraints are implied: {text}");
        assert_eq!(parse_str(&text).unwrap(), m);
    }

    proptest! {
        #[test]
        fn write_native_round_trips(m in testgen::full_model()) {
            let text = write_native(&m);
            let back = parse_str(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back, m, "{}", text);
        }

        #[test]
        fn never_panics(s in "(\\[\\[parameter\\]\\]\n|name = 'a'\n|values = \\[1, 2\\]\n|\\[\\[exclusion\\]\\]\n|when = '[a-z0-9 =<>!&|()\"]{0,12}'\n|\\[\\[seed\\]\\]\n|a = [0-9]\n|[\\[\\]a-z=\"' \n]{0,8}){0,8}") {
            let _ = parse_str(&s).map_err(|e| e.to_string());
        }
    }
}
