//! NIST ACTS input files.
//!
//! ```text
//! [System]
//! -- comment lines start with --
//! Name: TCAS
//!
//! [Parameter]
//! Cur_Vertical_Sep (int) : 299, 300, 601
//! High_Confidence (boolean) : TRUE, FALSE
//! Other_RAC (enum) : NO_INTENT, DO_NOT_CLIMB
//!
//! [Relation]
//! R1 : (Cur_Vertical_Sep, High_Confidence, Other_RAC, 3)
//!
//! [Constraint]
//! Cur_Vertical_Sep != 299 => Other_RAC != "NO_INTENT"
//! (High_Confidence) || ((Cur_Vertical_Sep) = (300))
//!
//! [Test Set]
//! Cur_Vertical_Sep,High_Confidence,Other_RAC
//! 299,true,*
//! ```
//!
//! Types are `int`, `enum` and `boolean` (values `true`, `false` in any case, stored lower-case;
//! an empty list means both). Relations become sub-models, constraints (one per line, with `=`,
//! `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, `=>`, parentheses; a boolean parameter alone means
//! `= true`) become exclusions, and the test set's rows (`*` = don't care) become seeds. `[Misc]`
//! and unknown sections are skipped.

use std::path::Path;

use crate::model::{Model, ModelError, Param, SubModel};
use crate::parse::expr::{parse_dialect, Dialect};
use crate::parse::{find_value, lines, split_trimmed, ParseError, Source};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    System,
    Parameter,
    Relation,
    Constraint,
    TestSet,
    Skipped,
}

pub fn parse(text: &str, file: &Path) -> Result<Model, ParseError> {
    let src = Source::new(text, file);
    let mut model = Model { name: file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(), ..Model::default() };
    let mut section = None;
    let mut params_at = Vec::new();
    let mut subs_at = Vec::new();
    let mut seeds_at = Vec::new();
    // The test set's header: parameter per column.
    let mut header: Option<Vec<usize>> = None;
    for (at, line) in lines(text) {
        let t = line.trim();
        let lead = line.len() - line.trim_start().len();
        let tat = at + lead;
        if t.is_empty() || t.starts_with("--") {
            continue;
        }
        if t.starts_with('[') {
            section = Some(header_section(&src, tat, t)?);
            continue;
        }
        match section {
            None => return Err(src.error(tat, "expected a section header such as [System] or [Parameter]")),
            Some(Section::Skipped) => {}
            Some(Section::System) => {
                let Some((key, value)) = t.split_once(':') else {
                    return Err(src.error(tat, "expected `Key: value` in [System]"));
                };
                if key.trim().eq_ignore_ascii_case("name") {
                    model.name = value.trim().to_string();
                }
            }
            Some(Section::Parameter) => {
                model.params.push(parameter(&src, tat, t)?);
                params_at.push(tat);
            }
            Some(Section::Relation) => {
                model.submodels.push(relation(&src, tat, t, &model)?);
                subs_at.push(tat);
            }
            Some(Section::Constraint) => {
                let e = parse_dialect(t, &model, Dialect::Acts).map_err(|e| src.error(tat + e.offset, e.message))?;
                model.exclusions.push(e);
            }
            Some(Section::TestSet) => match &header {
                None => header = Some(test_header(&src, tat, t, &model)?),
                Some(cols) => {
                    model.seeds.push(test_row(&src, tat, t, &model, cols)?);
                    seeds_at.push(tat);
                }
            },
        }
    }
    let names: Vec<String> = model.params.iter().map(|p| p.name.clone()).collect();
    src.check(model, |e| match e {
        ModelError::DuplicateParameter(n) => names.iter().enumerate().filter(|(_, x)| *x == n).nth(1).map_or(0, |(i, _)| params_at[i]),
        ModelError::NoValues(n) | ModelError::DuplicateValue { param: n, .. } => names.iter().position(|x| x == n).map_or(0, |i| params_at[i]),
        ModelError::BadSubModel { index, .. } => subs_at.get(*index).copied().unwrap_or(0),
        ModelError::BadSeed { index, .. } => seeds_at.get(*index).copied().unwrap_or(0),
        _ => 0,
    })
}

fn header_section(src: &Source, at: usize, t: &str) -> Result<Section, ParseError> {
    let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return Err(src.error(at, "malformed section header: expected `[Name]`"));
    };
    let key: String = name.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    Ok(match key.trim_end_matches('s') {
        "system" => Section::System,
        "parameter" => Section::Parameter,
        "relation" => Section::Relation,
        "constraint" => Section::Constraint,
        "testset" => Section::TestSet,
        _ => Section::Skipped,
    })
}

/// `name (type) : v1, v2, ...`
fn parameter(src: &Source, at: usize, t: &str) -> Result<Param, ParseError> {
    let Some(colon) = t.find(':') else {
        return Err(src.error(at, "expected `name (type) : value1, value2, ...`"));
    };
    let head = &t[..colon];
    let (name, kind) = match head.find('(') {
        Some(open) => {
            let Some(close) = head.rfind(')').filter(|&c| c > open) else {
                return Err(src.error(at + open, "type without a closing `)`"));
            };
            if !head[close + 1..].trim().is_empty() {
                return Err(src.error(at + close + 1, "expected `:` after the type"));
            }
            (head[..open].trim(), Some((at + open + 1, head[open + 1..close].trim())))
        }
        None => (head.trim(), None),
    };
    if name.is_empty() {
        return Err(src.error(at, "parameter name missing"));
    }
    let kind_name = kind.map_or("enum".to_string(), |(_, k)| k.to_ascii_lowercase());
    let mut param = Param { name: name.to_string(), values: Vec::new(), invalid: Vec::new() };
    let rest = &t[colon + 1..];
    let pieces = if rest.trim().is_empty() { Vec::new() } else { split_trimmed(rest, ',') };
    for (off, v) in pieces {
        let vat = at + colon + 1 + off;
        let value = match kind_name.as_str() {
            "int" => match v.parse::<i64>() {
                Ok(_) => v.to_string(),
                Err(_) => return Err(src.error(vat, format!("`{v}` is not an int"))),
            },
            "boolean" | "bool" => match v.to_ascii_lowercase().as_str() {
                b @ ("true" | "false") => b.to_string(),
                _ => return Err(src.error(vat, format!("`{v}` is not a boolean (true or false)"))),
            },
            "enum" => v.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(v).to_string(),
            other => {
                let kat = kind.map_or(at, |(k, _)| k);
                return Err(src.error(kat, format!("unknown type `{other}`; expected int, enum or boolean")));
            }
        };
        if value.is_empty() {
            return Err(src.error(vat, "empty value"));
        }
        if param.values.contains(&value) {
            return Err(src.error(vat, format!("value {value:?} is listed twice")));
        }
        param.values.push(value);
    }
    if param.values.is_empty() && matches!(kind_name.as_str(), "boolean" | "bool") {
        param.values = vec!["true".into(), "false".into()];
    }
    Ok(param)
}

/// `R1 : (p1, p2, ..., strength)`
fn relation(src: &Source, at: usize, t: &str, model: &Model) -> Result<SubModel, ParseError> {
    let (Some(open), Some(close)) = (t.find('('), t.rfind(')')) else {
        return Err(src.error(at, "expected `name : (p1, p2, ..., strength)`"));
    };
    if close < open || !t[close + 1..].trim().is_empty() {
        return Err(src.error(at + close, "expected `name : (p1, p2, ..., strength)`"));
    }
    let mut items = split_trimmed(&t[open + 1..close], ',');
    let Some((soff, strength)) = items.pop() else {
        return Err(src.error(at + open, "empty relation"));
    };
    let base = at + open + 1;
    let Ok(strength) = strength.parse::<usize>() else {
        return Err(src.error(base + soff, format!("expected the strength (a number) last, found `{strength}`")));
    };
    let mut params = Vec::new();
    for (off, n) in items {
        match model.param(n) {
            Some(p) if !params.contains(&p) => params.push(p),
            Some(_) => return Err(src.error(base + off, format!("parameter `{n}` is listed twice"))),
            None => return Err(src.error(base + off, format!("unknown parameter `{n}`"))),
        }
    }
    if strength == 0 || strength > params.len() {
        return Err(src.error(base + soff, format!("strength must be from 1 to {} (the relation's size)", params.len())));
    }
    Ok(SubModel { params, strength })
}

fn test_header(src: &Source, at: usize, t: &str, model: &Model) -> Result<Vec<usize>, ParseError> {
    let mut cols = Vec::new();
    for (off, n) in split_trimmed(t, ',') {
        match model.param(n) {
            Some(p) if !cols.contains(&p) => cols.push(p),
            Some(_) => return Err(src.error(at + off, format!("column `{n}` is repeated"))),
            None => return Err(src.error(at + off, format!("unknown parameter `{n}` in the test set header"))),
        }
    }
    Ok(cols)
}

fn test_row(src: &Source, at: usize, t: &str, model: &Model, cols: &[usize]) -> Result<Vec<Option<usize>>, ParseError> {
    let cells = split_trimmed(t, ',');
    if cells.len() != cols.len() {
        return Err(src.error(at, format!("{} values for {} columns", cells.len(), cols.len())));
    }
    let mut seed = vec![None; model.params.len()];
    for ((off, v), &p) in cells.into_iter().zip(cols) {
        if v == "*" {
            continue;
        }
        let boolean = v.to_ascii_lowercase();
        let found = find_value(model, p, v).or_else(|| find_value(model, p, &boolean));
        match found {
            Some(i) => seed[p] = Some(i),
            None => return Err(src.error(at + off, format!("{v:?} is not a value of `{}`", model.params[p].name))),
        }
    }
    Ok(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{CmpOp, Expr};
    use proptest::prelude::*;

    const TCAS: &str = "[System]\n\
        -- specify system name\n\
        Name: TCAS\n\
        \n\
        [Parameter]\n\
        -- general syntax is parameter_name (type) : value1, value2, ...\n\
        Cur_Vertical_Sep (int) : 299, 300, 601\n\
        High_Confidence (boolean) : TRUE, FALSE\n\
        Other_RAC (enum) : NO_INTENT, DO_NOT_CLIMB, DO_NOT_DESCEND\n\
        Flag (boolean) :\n\
        \n\
        [Relation]\n\
        R1 : (Cur_Vertical_Sep, High_Confidence, Other_RAC, 2)\n\
        \n\
        [Constraint]\n\
        Cur_Vertical_Sep != 299 => Other_RAC != \"NO_INTENT\"\n\
        ((High_Confidence)||((Cur_Vertical_Sep)=(300))) && Flag = TRUE\n\
        \n\
        [Test Set]\n\
        Other_RAC, Cur_Vertical_Sep\n\
        DO_NOT_CLIMB,*\n\
        *, 601\n\
        \n\
        [Misc]\n\
        anything goes here\n";

    fn parse_str(s: &str) -> Result<Model, ParseError> {
        parse(s, Path::new("m.acts"))
    }

    fn err(s: &str) -> (usize, usize, String) {
        crate::parse::testgen::err(crate::parse::Format::Acts, s)
    }

    fn at(s: &str) -> (usize, usize) {
        crate::parse::testgen::at(crate::parse::Format::Acts, s)
    }

    use crate::parse::testgen::c;

    #[test]
    fn reads_tcas() {
        let m = parse_str(TCAS).unwrap();
        assert_eq!(m.name, "TCAS");
        assert_eq!(m.params.len(), 4);
        assert_eq!(m.params[0].values, ["299", "300", "601"]);
        assert_eq!(m.params[1].values, ["true", "false"]);
        assert_eq!(m.params[2].values, ["NO_INTENT", "DO_NOT_CLIMB", "DO_NOT_DESCEND"]);
        assert_eq!(m.params[3].values, ["true", "false"]);
        assert_eq!(m.submodels, [SubModel { params: vec![0, 1, 2], strength: 2 }]);
        assert_eq!(m.exclusions[0], Expr::Implies(Box::new(c(0, CmpOp::Ne, "299")), Box::new(c(2, CmpOp::Ne, "NO_INTENT"))));
        assert_eq!(
            m.exclusions[1],
            Expr::And(vec![Expr::Or(vec![c(1, CmpOp::Eq, "true"), c(0, CmpOp::Eq, "300")]), c(3, CmpOp::Eq, "true")])
        );
        assert_eq!(m.seeds, [vec![None, None, Some(1), None], vec![Some(2), None, None, None]]);
    }

    #[test]
    fn errors_are_located() {
        assert_eq!(err("Name: x\n"), (1, 1, "expected a section header such as [System] or [Parameter]".into()));
        assert_eq!(err("[Parameter\n"), (1, 1, "malformed section header: expected `[Name]`".into()));
        assert_eq!(err("[Parameter]\n  a (int) : 1, x\n"), (2, 16, "`x` is not an int".into()));
        assert_eq!(err("[Parameter]\na (float) : 1\n"), (2, 4, "unknown type `float`; expected int, enum or boolean".into()));
        assert_eq!(at("[Parameter]\na (boolean) : yes\n"), (2, 15));
        assert_eq!(at("[Parameter]\na (enum) : x, y, x\n"), (2, 18));
        assert_eq!(at("[Parameter]\na (enum) : x\n[Constraint]\na = \"x\" && b = 1\n"), (4, 12));
        assert_eq!(at("[Parameter]\na (enum) : x\n[Constraint]\na + 1 > 2\n"), (4, 3));
        assert_eq!(at("[Parameter]\na (enum) : x\nb (int) : 1\n[Relation]\nR1 : (a, c, 2)\n"), (5, 10));
        assert_eq!(at("[Parameter]\na (enum) : x\nb (int) : 1\n[Relation]\nR1 : (a, b, 3)\n"), (5, 13));
        assert_eq!(at("[Parameter]\na (enum) : x\n[Test Set]\na\ny\n"), (5, 1));
        assert_eq!(at("[Parameter]\na (enum) : x\n[Test Set]\na, b\n"), (4, 4));
        assert_eq!(at("[Parameter]\na (enum) : x\n[Test Set]\na\nx, x\n"), (5, 1));
        assert_eq!(at("[Parameter]\na (enum) : x\na (int) : 1\n"), (3, 1));
        assert_eq!(at("[Parameter]\na (enum) :\n"), (2, 1));
        assert_eq!(at("[System]\nName: x\n"), (1, 1));
    }

    proptest! {
        #[test]
        fn never_panics(s in "(\\[System\\]\n|\\[Parameter\\]\n|\\[Constraint\\]\n|\\[Relation\\]\n|\\[Test Set\\]\n|a \\(int\\) : 1, 2\n|b \\(boolean\\) :\n|R : \\(a, b, 2\\)\n|a, b\n|1, \\*\n|[a-z0-9 ()=!<>&|\",:*\\[\\]-]{0,12}\n){0,10}") {
            let _ = parse_str(&s).map_err(|e| e.to_string());
        }
    }
}
