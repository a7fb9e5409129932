//! Microsoft PICT model files.
//!
//! ```text
//! # comment
//! Type:    Primary, Logical, ~Broken
//! Size:    10, 100, 500 (3), 1000
//! Format:  quick|fast, slow
//! Copy:    <Size>, 5000
//!
//! { Type, Size, Format } @ 3
//!
//! IF [Type] = "Primary" THEN [Size] > 100 ELSE [Format] IN {"quick", "slow"};
//! [Size] <> [Copy] OR NOT ([Type] LIKE "Log*");
//! ```
//!
//! - Parameter lines `Name: v1, v2`: `~v` marks an invalid value (it becomes the error
//!   constraint `Name != "v"` named `Name=v`), `a|b` aliases keep the first name, `(n)` weights are
//!   ignored, `<Other>` copies another parameter's values.
//! - Sub-models `{A, B, C} @ 3`.
//! - Constraints (from the first line that is neither a parameter nor a sub-model to the end):
//!   `IF p THEN q [ELSE r];` or `p;`. Predicates combine terms with `NOT` > `AND` > `OR` and
//!   parentheses; terms are `[P] op value`, `[P] op [Q]` (`=`, `<>`, `<`, `<=`, `>`, `>=`),
//!   `[P] [NOT] IN {v, ...}` and `[P] [NOT] LIKE "pattern"` (`*` any text, `?` one character,
//!   expanded against P's values). Keywords are case-insensitive; values are compared exactly as
//!   written (PICT's default is case-insensitive), numerically when both sides are numbers.
//!   `IF a THEN b ELSE c` becomes the exclusion `(a => b) && (!a => c)`.

use std::path::Path;

use crate::expr::{CmpOp, Expr, Operand};
use crate::model::{ErrorConstraint, Model, ModelError, Param, SubModel};
use crate::parse::{lines, split_trimmed, ParseError, Source};

pub fn parse(text: &str, file: &Path) -> Result<Model, ParseError> {
    let src = Source::new(text, file);
    let mut model = Model { name: file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(), ..Model::default() };
    let mut names_at = Vec::new();
    let mut subs = Vec::new();
    let mut constraints_at = None;
    for (at, line) in lines(text) {
        let t = line.trim();
        let lead = line.len() - line.trim_start().len();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('{') {
            subs.push(submodel(&src, at + lead, t)?);
        } else if is_parameter_line(t) {
            names_at.push(at + lead);
            parameter(&src, at, line, &mut model)?;
        } else {
            constraints_at = Some(at);
            break;
        }
    }

    let mut subs_at = Vec::new();
    for (at, names, strength) in subs {
        let mut params = Vec::new();
        for (name_at, name) in names {
            match model.param(name) {
                Some(p) => params.push(p),
                None => return Err(src.error(name_at, format!("unknown parameter `{name}` in sub-model"))),
            }
        }
        model.submodels.push(SubModel { params, strength });
        subs_at.push(at);
    }

    if let Some(at) = constraints_at {
        let toks = tokenize(&src, at)?;
        let mut p = Parser { src: &src, toks, pos: 0, model: &model, depth: 0 };
        let mut exclusions = Vec::new();
        while p.pos < p.toks.len() {
            exclusions.push(p.constraint()?);
        }
        model.exclusions = exclusions;
    }

    let names: Vec<String> = model.params.iter().map(|p| p.name.clone()).collect();
    src.check(model, |e| match e {
        ModelError::DuplicateParameter(n) => {
            names.iter().enumerate().filter(|(_, x)| *x == n).nth(1).map_or(0, |(i, _)| names_at[i])
        }
        ModelError::NoValues(n) | ModelError::DuplicateValue { param: n, .. } => {
            names.iter().position(|x| x == n).map_or(0, |i| names_at[i])
        }
        ModelError::BadSubModel { index, .. } => subs_at.get(*index).copied().unwrap_or(0),
        _ => 0,
    })
}

/// `Name: values`, where the name has none of the characters constraints start with.
fn is_parameter_line(t: &str) -> bool {
    match t.find(':') {
        Some(i) => !t[..i].contains(['[', ']', '(', ')', '{', '}', '"', ';']),
        None => false,
    }
}

fn parameter(src: &Source, at: usize, line: &str, model: &mut Model) -> Result<(), ParseError> {
    let colon = line.find(':').unwrap_or(line.len());
    let name = line[..colon].trim();
    if name.is_empty() {
        return Err(src.error(at, "parameter name missing before `:`"));
    }
    let mut param = Param { name: name.to_string(), values: Vec::new(), invalid: Vec::new() };
    let rest = &line[colon + 1..];
    let base = at + colon + 1;
    if rest.trim().is_empty() {
        return Err(src.error(base, format!("parameter `{name}` has no values")));
    }
    for (off, raw) in split_trimmed(rest, ',') {
        let vat = base + off;
        // `<Other>` reuses the values of a parameter defined earlier.
        if let Some(other) = raw.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            let Some(o) = model.param(other.trim()) else {
                return Err(src.error(vat, format!("unknown parameter `{}` in <...>", other.trim())));
            };
            for v in model.params[o].values.clone() {
                push_value(src, vat, &mut param, v, false)?;
            }
            continue;
        }
        let (invalid, v) = match raw.strip_prefix('~') {
            Some(v) => (true, v),
            None => (false, raw),
        };
        let v = strip_weight(v);
        let v = v.split('|').next().unwrap_or("").trim();
        if v.is_empty() {
            return Err(src.error(vat, "empty value"));
        }
        push_value(src, vat, &mut param, v.to_string(), invalid)?;
    }
    let p = model.params.len();
    for &i in &param.invalid {
        let v = param.values[i].clone();
        model.errors.push(ErrorConstraint { name: format!("{name}={v}"), expr: Expr::Cmp(Operand::Param(p), CmpOp::Ne, Operand::Const(v)) });
    }
    model.params.push(param);
    Ok(())
}

fn push_value(src: &Source, at: usize, param: &mut Param, v: String, invalid: bool) -> Result<(), ParseError> {
    if param.values.contains(&v) {
        return Err(src.error(at, format!("value {v:?} is listed twice for `{}`", param.name)));
    }
    if invalid {
        param.invalid.push(param.values.len());
    }
    param.values.push(v);
    Ok(())
}

/// Drops a trailing weight `(n)`.
fn strip_weight(v: &str) -> &str {
    let t = v.trim_end();
    if let Some(open) = t.strip_suffix(')').and_then(|s| s.rfind('(')) {
        let inner = &t[open + 1..t.len() - 1];
        if !inner.trim().is_empty() && inner.trim().bytes().all(|b| b.is_ascii_digit()) {
            return &t[..open];
        }
    }
    t
}

type NamesAt<'a> = Vec<(usize, &'a str)>;

/// `{A, B, C} @ 3`: (offset, names with offsets, strength).
fn submodel<'a>(src: &Source, at: usize, t: &'a str) -> Result<(usize, NamesAt<'a>, usize), ParseError> {
    let Some(close) = t.find('}') else {
        return Err(src.error(at, "sub-model without a closing `}`"));
    };
    let names: NamesAt = split_trimmed(&t[1..close], ',').into_iter().map(|(o, n)| (at + 1 + o, n)).collect();
    if let Some((o, _)) = names.iter().find(|(_, n)| n.is_empty()) {
        return Err(src.error(*o, "empty parameter name in sub-model"));
    }
    let after = &t[close + 1..];
    let after_at = at + close + 1 + (after.len() - after.trim_start().len());
    let Some(order) = after.trim().strip_prefix('@') else {
        return Err(src.error(after_at, "expected `@ strength` after the sub-model's `}`"));
    };
    let order_at = after_at + 1 + (order.len() - order.trim_start().len());
    match order.trim().parse::<usize>() {
        Ok(n) if n >= 1 && n <= names.len() => Ok((at, names, n)),
        _ => Err(src.error(order_at, format!("strength must be a number from 1 to {} (the sub-model's size)", names.len()))),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Param(String),
    Str(String),
    Num(String),
    /// A keyword, upper-cased.
    Word(String),
    Cmp(CmpOp),
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Semi,
}

struct Token {
    tok: Tok,
    at: usize,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Param(n) => format!("`[{n}]`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Num(s) | Tok::Word(s) => format!("`{s}`"),
        Tok::Cmp(op) => format!("`{}`", op_text(*op)),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::LBrace => "`{`".into(),
        Tok::RBrace => "`}`".into(),
        Tok::Comma => "`,`".into(),
        Tok::Semi => "`;`".into(),
    }
}

fn op_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "<>",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

const KEYWORDS: [&str; 8] = ["IF", "THEN", "ELSE", "AND", "OR", "NOT", "IN", "LIKE"];

/// Tokens of the constraints section (from byte `start` to the end of the file). `#` starts a
/// comment only as a line's first non-blank character, as in PICT.
fn tokenize(src: &Source, start: usize) -> Result<Vec<Token>, ParseError> {
    let text = src.text;
    let mut out = Vec::new();
    let mut i = start;
    let mut line_blank = true;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        if c == '\n' {
            line_blank = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if c == '#' && line_blank {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        line_blank = false;
        let two = rest.get(..2).unwrap_or("");
        let (tok, len) = match c {
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '{' => (Tok::LBrace, 1),
            '}' => (Tok::RBrace, 1),
            ',' => (Tok::Comma, 1),
            ';' => (Tok::Semi, 1),
            _ if two == "<>" => (Tok::Cmp(CmpOp::Ne), 2),
            _ if two == "<=" => (Tok::Cmp(CmpOp::Le), 2),
            _ if two == ">=" => (Tok::Cmp(CmpOp::Ge), 2),
            '<' => (Tok::Cmp(CmpOp::Lt), 1),
            '>' => (Tok::Cmp(CmpOp::Gt), 1),
            '=' => (Tok::Cmp(CmpOp::Eq), 1),
            _ if two == "!=" => return Err(src.error(i, "PICT writes \"not equal\" as `<>`")),
            '[' => match rest.find([']', '\n']) {
                Some(j) if rest.as_bytes()[j] == b']' => (Tok::Param(rest[1..j].trim().to_string()), j + 1),
                _ => return Err(src.error(i, "parameter reference without a closing `]`")),
            },
            '"' => {
                let (s, len) = string(rest).ok_or_else(|| src.error(i, "unterminated string: missing closing \""))?;
                (Tok::Str(s), len)
            }
            _ if c.is_ascii_digit() || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) => {
                let n = 1 + rest[1..].find(|d: char| !(d.is_ascii_digit() || d == '.')).unwrap_or(rest.len() - 1);
                (Tok::Num(rest[..n].to_string()), n)
            }
            _ if c.is_alphabetic() => {
                let n = rest.find(|d: char| !d.is_alphanumeric()).unwrap_or(rest.len());
                let word = rest[..n].to_ascii_uppercase();
                if !KEYWORDS.contains(&word.as_str()) {
                    return Err(src.error(
                        i,
                        format!("unexpected `{}`: parameters are written [Name], string values \"in quotes\"", &rest[..n]),
                    ));
                }
                (Tok::Word(word), n)
            }
            _ => return Err(src.error(i, format!("unexpected character {c:?}"))),
        };
        out.push(Token { tok, at: i });
        i += len;
    }
    Ok(out)
}

/// A double-quoted string at the start of `s`: `\"` and `\\` are escapes, other backslashes stay
/// (Windows paths are common in PICT values).
fn string(s: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' if matches!(chars.peek(), Some((_, '"' | '\\'))) => {
                out.push(chars.next().map_or('\\', |(_, e)| e));
            }
            c => out.push(c),
        }
    }
    None
}

const MAX_DEPTH: usize = 200;

struct Parser<'a> {
    src: &'a Source<'a>,
    toks: Vec<Token>,
    pos: usize,
    model: &'a Model,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.src.text.len(), |t| t.at)
    }

    fn word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(x)) if x == w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expected(&self, what: &str) -> ParseError {
        match self.peek() {
            Some(t) => self.src.error(self.at(), format!("expected {what}, found {}", describe(t))),
            None => self.src.error(self.at(), format!("expected {what}, found the end of the file")),
        }
    }

    fn constraint(&mut self) -> Result<Expr, ParseError> {
        let e = if self.word("IF") {
            let cond = self.predicate()?;
            if !self.word("THEN") {
                return Err(self.expected("THEN"));
            }
            let then = self.predicate()?;
            let rule = Expr::Implies(Box::new(cond.clone()), Box::new(then));
            if self.word("ELSE") {
                let otherwise = self.predicate()?;
                Expr::And(vec![rule, Expr::Implies(Box::new(Expr::Not(Box::new(cond))), Box::new(otherwise))])
            } else {
                rule
            }
        } else {
            self.predicate()?
        };
        if !self.eat(&Tok::Semi) {
            return Err(self.expected("`;` ending the constraint"));
        }
        Ok(e)
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.src.error(self.at(), format!("constraint nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn predicate(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut items = vec![self.conjunction()?];
        while self.word("OR") {
            items.push(self.conjunction()?);
        }
        self.depth -= 1;
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::Or(items) })
    }

    fn conjunction(&mut self) -> Result<Expr, ParseError> {
        let mut items = vec![self.clause()?];
        while self.word("AND") {
            items.push(self.clause()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::And(items) })
    }

    fn clause(&mut self) -> Result<Expr, ParseError> {
        if self.word("NOT") {
            self.enter()?;
            let e = self.clause()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(e)));
        }
        if self.eat(&Tok::LParen) {
            let e = self.predicate()?;
            if !self.eat(&Tok::RParen) {
                return Err(self.expected("`)`"));
            }
            return Ok(e);
        }
        self.term()
    }

    fn param(&mut self) -> Result<usize, ParseError> {
        let Some(Tok::Param(name)) = self.peek() else {
            return Err(self.expected("a condition starting with [Parameter]"));
        };
        match self.model.param(name) {
            Some(p) => {
                self.pos += 1;
                Ok(p)
            }
            None => Err(self.src.error(self.at(), format!("unknown parameter `{name}`"))),
        }
    }

    fn value(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Str(s) | Tok::Num(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.expected("a value (\"string\" or number)")),
        }
    }

    fn term(&mut self) -> Result<Expr, ParseError> {
        let p = self.param()?;
        if let Some(Tok::Cmp(op)) = self.peek() {
            let op = *op;
            self.pos += 1;
            let right = if matches!(self.peek(), Some(Tok::Param(_))) { Operand::Param(self.param()?) } else { Operand::Const(self.value()?) };
            return Ok(Expr::Cmp(Operand::Param(p), op, right));
        }
        let negated = self.word("NOT");
        let e = if self.word("IN") {
            if !self.eat(&Tok::LBrace) {
                return Err(self.expected("`{` after IN"));
            }
            let mut set = vec![self.value()?];
            while self.eat(&Tok::Comma) {
                set.push(self.value()?);
            }
            if !self.eat(&Tok::RBrace) {
                return Err(self.expected("`,` or `}`"));
            }
            Expr::In(p, set)
        } else if self.word("LIKE") {
            let pattern = self.value()?;
            let matching = self.model.params[p].values.iter().filter(|v| like(&pattern, v)).cloned().collect();
            Expr::In(p, matching)
        } else {
            return Err(self.expected(if negated { "IN or LIKE after NOT" } else { "a relation (=, <>, <, <=, >, >=, IN, LIKE)" }));
        };
        Ok(if negated { Expr::Not(Box::new(e)) } else { e })
    }
}

/// PICT's wildcard match: `*` any text, `?` one character.
fn like(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Greedy match with backtracking to the last `*`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_str(s: &str) -> Result<Model, ParseError> {
        parse(s, Path::new("m.pict"))
    }

    fn err(s: &str) -> (usize, usize, String) {
        crate::parse::testgen::err(crate::parse::Format::Pict, s)
    }

    fn at(s: &str) -> (usize, usize) {
        crate::parse::testgen::at(crate::parse::Format::Pict, s)
    }

    use crate::parse::testgen::c;

    const MODEL: &str = "# a model\n\
        Type:    Primary, Logical, ~Broken\n\
        Size:    10, 100, 500 (3), 1000\n\
        Format:  quick|fast, slow\n\
        Copy:    <Size>, 5000\n\
        \n\
        { Type, Size, Format } @ 3\n\
        \n\
        if [Type] = \"Primary\" THEN [Size] > 100 ELSE [Format] in {\"quick\", \"slow\"};\n\
        # a comment between constraints\n\
        [Size] <> [Copy] OR\n  NOT [Type] LIKE \"Log*\" AND [Size] NOT IN {10};\n";

    #[test]
    fn reads_a_model() {
        let m = parse_str(MODEL).unwrap();
        assert_eq!(m.name, "m");
        assert_eq!(m.params[0].values, ["Primary", "Logical", "Broken"]);
        assert_eq!(m.params[0].invalid, [2]);
        assert_eq!(m.errors, [ErrorConstraint { name: "Type=Broken".into(), expr: c(0, CmpOp::Ne, "Broken") }]);
        assert_eq!(m.params[1].values, ["10", "100", "500", "1000"]);
        assert_eq!(m.params[2].values, ["quick", "slow"]);
        assert_eq!(m.params[3].values, ["10", "100", "500", "1000", "5000"]);
        assert_eq!(m.submodels, [SubModel { params: vec![0, 1, 2], strength: 3 }]);
        let cond = c(0, CmpOp::Eq, "Primary");
        assert_eq!(
            m.exclusions[0],
            Expr::And(vec![
                Expr::Implies(Box::new(cond.clone()), Box::new(c(1, CmpOp::Gt, "100"))),
                Expr::Implies(Box::new(Expr::Not(Box::new(cond))), Box::new(Expr::In(2, vec!["quick".into(), "slow".into()]))),
            ])
        );
        assert_eq!(
            m.exclusions[1],
            Expr::Or(vec![
                Expr::Cmp(Operand::Param(1), CmpOp::Ne, Operand::Param(3)),
                Expr::And(vec![
                    Expr::Not(Box::new(Expr::In(0, vec!["Logical".into()]))),
                    Expr::Not(Box::new(Expr::In(1, vec!["10".into()]))),
                ]),
            ])
        );
    }

    #[test]
    fn wildcards() {
        assert!(like("Log*", "Logical"));
        assert!(!like("*a?", "banana"));
        assert!(like("*an?", "banana"));
        assert!(like("*", ""));
        assert!(!like("?", ""));
        assert!(like("a*b*c", "aXbYbc"));
    }

    #[test]
    fn values_and_weights() {
        assert_eq!(strip_weight("500 (3)"), "500 ");
        assert_eq!(strip_weight("f(x)"), "f(x)");
        let m = parse_str("Path: C:\\dir, \"q\"\nB: 1\n[Path] = \"C:\\dir\";\n").unwrap();
        assert_eq!(m.params[0].values, ["C:\\dir", "\"q\""]);
        assert_eq!(m.exclusions, [c(0, CmpOp::Eq, "C:\\dir")]);
    }

    #[test]
    fn errors_are_located() {
        assert_eq!(err("A: 1, 2\nIF [B] = 1 THEN [A] = 2;\n"), (2, 4, "unknown parameter `B`".into()));
        assert_eq!(err("A: 1, 2\nIF [A] = 1 [A] = 2;\n"), (2, 12, "expected THEN, found `[A]`".into()));
        assert_eq!(err("A: 1, 2\n[A] = 1\n"), (3, 1, "expected `;` ending the constraint, found the end of the file".into()));
        assert_eq!(at("A: 1, 2\n[A] = 1;\n[A] != 2;\n"), (3, 5));
        assert_eq!(at("A: 1, 2\n[A] = \"x;\n"), (2, 7));
        assert_eq!(err("A: 1, , 2\n"), (1, 7, "empty value".into()));
        assert_eq!(err("A: 1, 2, 1\n"), (1, 10, "value \"1\" is listed twice for `A`".into()));
        assert_eq!(at("A: 1\nA: 2\n"), (2, 1));
        assert_eq!(at("A: 1\n{ A, B } @ 1\n"), (2, 6));
        assert_eq!(at("A: 1\n{ A } @ 2\n"), (2, 9));
        assert_eq!(at("A: 1\n  A = 1;\n"), (2, 3));
        assert_eq!(at("A: 1\n[A] = one;\n"), (2, 7));
        assert_eq!(at("A: 1\n[A] IN {1, };\n"), (2, 12));
        assert_eq!(at("A:\n"), (1, 3));
        assert_eq!(at(""), (1, 1));
        assert_eq!(at(&format!("A: 1\n{}[A] = 1{};\n", "(".repeat(500), ")".repeat(500))), (2, 201));
    }

    proptest! {
        #[test]
        fn never_panics(s in "(A: 1, 2\n|B: ~x, y\\|z \\(2\\)\n|\\{A, B\\} @ 2\n|IF |THEN |ELSE |\\[A\\] |\\[B\\] |= |<> |\"x\" |1 |;|\n|[a-zA-Z0-9 \\[\\]{}()<>=~|,;\"#@:\n-]{0,10}){0,10}") {
            let _ = parse_str(&s).map_err(|e| e.to_string());
        }
    }
}
