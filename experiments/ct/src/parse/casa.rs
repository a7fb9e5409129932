//! CASA models (Garvin, Cohen and Dwyer's format, used by the classic constrained benchmarks).
//!
//! `foo_2way.model`: the strength t, the number of parameters k, then the k domain sizes, all
//! whitespace-separated. `foo.constraints`: the number of clauses, then per clause its literal
//! count and that many literals `+ i` / `- i`, where `i` is a value index counted across all
//! parameters in order (parameter 0's values first). `+ i` means "the parameter owning value i
//! takes it", `- i` "does not"; a clause is a disjunction, each becomes one exclusion.
//! Parameters are named `p0`..`p{k-1}` and values `0`..`n-1`.

use std::path::{Path, PathBuf};

use crate::expr::{CmpOp, Expr, Operand};
use crate::model::{Model, Param};
use crate::parse::{read_text, ParseError, Source};

/// Refuse domains that would need absurd memory (hostile or corrupt input).
const MAX_VALUES: usize = 1_000_000;

/// Reads `path` (a `.model`) and the `.constraints` beside it (see [`constraints_path`]; missing =
/// no constraints). Returns the model and the strength the file asks for.
pub fn read_with_strength(path: &Path) -> Result<(Model, usize), ParseError> {
    let text = read_text(path)?;
    let cpath = constraints_path(path);
    let constraints = if cpath.exists() { Some(read_text(&cpath)?) } else { None };
    parse_with_constraints(&text, path, constraints.as_deref().map(|c| (c, cpath.as_path())))
}

/// The constraints file of a model file: `foo_2way.model` and `foo.model` both give
/// `foo.constraints` in the same directory.
pub fn constraints_path(model: &Path) -> PathBuf {
    model.with_file_name(format!("{}.constraints", base_name(model)))
}

/// The model file's stem without a trailing `_<n>way`.
fn base_name(model: &Path) -> String {
    let stem = model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some((base, way)) = stem.rsplit_once('_') {
        if let Some(n) = way.strip_suffix("way") {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                return base.to_string();
            }
        }
    }
    stem
}

/// The strength on a `.model` file's first line, if it is readable.
pub fn casa_strength(text: &str) -> Option<usize> {
    text.split_whitespace().next()?.parse().ok()
}

/// Parses a `.model` text and, when given, a `.constraints` text with its file name.
pub fn parse_with_constraints(text: &str, file: &Path, constraints: Option<(&str, &Path)>) -> Result<(Model, usize), ParseError> {
    let src = Source::new(text, file);
    let mut toks = Tokens::new(&src);
    let (t, t_at) = toks.number("the strength t")?;
    let (k, k_at) = toks.number("the number of parameters k")?;
    if k == 0 {
        return Err(src.error(k_at, "model has no parameters"));
    }
    let mut params = Vec::new();
    let mut total = 0usize;
    for p in 0..k {
        let (n, at) = toks.number(&format!("the domain size of parameter {p} (of {k})"))?;
        if n == 0 {
            return Err(src.error(at, format!("parameter p{p} has no values")));
        }
        total = total.saturating_add(n);
        if total > MAX_VALUES {
            return Err(src.error(at, format!("more than {MAX_VALUES} values in all: not supported")));
        }
        params.push(Param { name: format!("p{p}"), values: (0..n).map(|v| v.to_string()).collect(), invalid: Vec::new() });
    }
    if let Some((at, word)) = toks.next() {
        return Err(src.error(at, format!("unexpected `{word}` after the {k} domain sizes")));
    }
    if t == 0 || t > k {
        return Err(src.error(t_at, format!("strength {t} must be from 1 to the number of parameters ({k})")));
    }
    let mut model = Model { name: base_name(file), params, ..Model::default() };
    if let Some((ctext, cfile)) = constraints {
        model.exclusions = clauses(&Source::new(ctext, cfile), &model)?;
    }
    let model = src.check(model, |_| 0)?;
    Ok((model, t))
}

fn clauses(src: &Source, model: &Model) -> Result<Vec<Expr>, ParseError> {
    // First global value index of each parameter.
    let mut starts = Vec::with_capacity(model.params.len());
    let mut total = 0;
    for p in &model.params {
        starts.push(total);
        total += p.values.len();
    }
    let mut toks = Tokens::new(src);
    let (count, _) = toks.number("the number of clauses")?;
    let mut out = Vec::new();
    for c in 0..count {
        let (n, _) = toks.number(&format!("the literal count of clause {} (of {count})", c + 1))?;
        let mut lits = Vec::new();
        for _ in 0..n {
            let (at, sign, index) = toks.literal()?;
            if index >= total {
                return Err(src.error(at, format!("value index {index} out of range: the model has {total} values")));
            }
            // The owning parameter: the last one starting at or before `index`.
            let p = starts.partition_point(|&s| s <= index) - 1;
            let op = if sign { CmpOp::Eq } else { CmpOp::Ne };
            lits.push(Expr::Cmp(Operand::Param(p), op, Operand::Const((index - starts[p]).to_string())));
        }
        out.push(Expr::Or(lits));
    }
    if let Some((at, word)) = toks.next() {
        return Err(src.error(at, format!("unexpected `{word}` after the {count} declared clauses")));
    }
    Ok(out)
}

/// Whitespace-separated words with their byte offsets.
struct Tokens<'a> {
    src: &'a Source<'a>,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(src: &'a Source<'a>) -> Tokens<'a> {
        Tokens { src, pos: 0 }
    }

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let text = self.src.text;
        let rest = &text[self.pos..];
        let start = self.pos + rest.find(|c: char| !c.is_whitespace())?;
        let len = text[start..].find(char::is_whitespace).unwrap_or(text.len() - start);
        self.pos = start + len;
        Some((start, &text[start..start + len]))
    }

    fn number(&mut self, what: &str) -> Result<(usize, usize), ParseError> {
        match self.next() {
            Some((at, w)) => match w.parse::<usize>() {
                Ok(n) => Ok((n, at)),
                Err(_) => Err(self.src.error(at, format!("expected {what} (a whole number), found `{w}`"))),
            },
            None => Err(self.src.error(self.src.text.len(), format!("expected {what}, found the end of the file"))),
        }
    }

    /// `+ i`, `- i`, or the same without the space: (offset, positive, index).
    fn literal(&mut self) -> Result<(usize, bool, usize), ParseError> {
        let Some((at, w)) = self.next() else {
            return Err(self.src.error(self.src.text.len(), "expected a literal `+ index` or `- index`, found the end of the file"));
        };
        let sign = match w.as_bytes()[0] {
            b'+' => true,
            b'-' => false,
            _ => return Err(self.src.error(at, format!("expected a literal `+ index` or `- index`, found `{w}`"))),
        };
        let (index, iat) = if w.len() > 1 { (&w[1..], at + 1) } else { self.next().map(|(a, x)| (x, a)).unwrap_or(("", self.src.text.len())) };
        match index.parse::<usize>() {
            Ok(i) => Ok((at, sign, i)),
            Err(_) => Err(self.src.error(iat, format!("expected a value index after `{}`, found `{index}`", &w[..1]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn both(model: &str, constraints: &str) -> Result<(Model, usize), ParseError> {
        parse_with_constraints(model, Path::new("x_3way.model"), Some((constraints, Path::new("x.constraints"))))
    }

    fn err(model: &str, constraints: &str) -> (String, usize, usize, String) {
        let e = both(model, constraints).unwrap_err();
        (e.file.display().to_string(), e.line, e.column, e.message)
    }

    #[test]
    fn reads_model_and_clauses() {
        let (m, t) = both("3\n3\n2 3 2\n", "2\n2\n- 0 + 4\n1\n-6\n").unwrap();
        assert_eq!(t, 3);
        assert_eq!(m.name, "x");
        assert_eq!(m.sizes(), [2, 3, 2]);
        assert_eq!(m.params[1].name, "p1");
        assert_eq!(m.params[1].values, ["0", "1", "2"]);
        let lit = |p, op, v: &str| Expr::Cmp(Operand::Param(p), op, Operand::Const(v.into()));
        assert_eq!(m.exclusions, [Expr::Or(vec![lit(0, CmpOp::Ne, "0"), lit(1, CmpOp::Eq, "2")]), Expr::Or(vec![lit(2, CmpOp::Ne, "1")])]);
        assert_eq!(casa_strength("2\n5\n"), Some(2));
        assert_eq!(casa_strength("x"), None);
    }

    #[test]
    fn constraints_file_names() {
        assert_eq!(constraints_path(Path::new("d/spins_2way.model")), Path::new("d/spins.constraints"));
        assert_eq!(constraints_path(Path::new("d/spins.model")), Path::new("d/spins.constraints"));
        assert_eq!(constraints_path(Path::new("a_b_10way.model")), Path::new("a_b.constraints"));
        assert_eq!(constraints_path(Path::new("a_way.model")), Path::new("a_way.constraints"));
    }

    fn at(model: &str, constraints: &str) -> (usize, usize) {
        let (_, l, c, _) = err(model, constraints);
        (l, c)
    }

    #[test]
    fn errors_are_located() {
        let m = "2\n3\n2 3 2\n";
        assert_eq!(err("2\nx\n", ""), ("x_3way.model".into(), 2, 1, "expected the number of parameters k (a whole number), found `x`".into()));
        assert_eq!(at("2\n3\n2 3\n", ""), (4, 1));
        assert_eq!(at("2\n3\n2 0 2\n", ""), (3, 3));
        assert_eq!(at("4\n3\n2 3 2\n", ""), (1, 1));
        assert_eq!(at("2\n3\n2 3 2 7\n", ""), (3, 7));
        assert_eq!(err(m, "1\n2\n- 0 + 7\n"), ("x.constraints".into(), 3, 5, "value index 7 out of range: the model has 7 values".into()));
        assert_eq!(at(m, "1\n2\n- 0 * 1\n"), (3, 5));
        assert_eq!(at(m, "1\n2\n- 0 + x\n"), (3, 7));
        assert_eq!(at(m, "2\n2\n- 0 + 1\n"), (4, 1));
        assert_eq!(at(m, "1\n1\n- 0\n5\n"), (4, 1));
        assert_eq!(at("", ""), (1, 1));
        assert_eq!(err("1\n1\n99999999\n", "").3, "more than 1000000 values in all: not supported");
    }

    proptest! {
        #[test]
        fn never_panics(m in "[0-9 \n+x-]{0,20}", c in "[0-9 \n+x-]{0,30}") {
            let _ = both(&m, &c).map_err(|e| e.to_string());
        }
    }
}
