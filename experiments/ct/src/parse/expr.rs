//! The constraint expression syntax of the native format. ACTS constraints are read by the same
//! parser in a dialect where a single `=` compares too, `TRUE`/`FALSE` may be in any case,
//! operands may be parenthesized (`(p1) = ("a")`, as CTWedge writes them) and a boolean
//! parameter alone means `p = true`; arithmetic is refused with a clear error.
//!
//! ```text
//! expr     := or ('=>' expr)?                     right-associative, lowest precedence
//! or       := and ('||' and)*
//! and      := unary ('&&' unary)*
//! unary    := '!' unary | '(' expr ')' | atom
//! atom     := 'true' | 'false'
//!           | operand ('==' | '!=' | '<' | '<=' | '>' | '>=') operand
//!           | name 'in' '{' [constant (',' constant)*] '}'
//! operand  := name | constant
//! name     := identifier | `back-quoted name`      (a parameter; unknown names are errors)
//! constant := number | "string"                   (strings escape \" and \\)
//! ```
//!
//! Identifiers start with a letter or `_` and go on with letters, digits, `_`, `.` and `-`; names
//! that are not identifiers (spaces, or the words `true`, `false`, `in`) are written in back quotes
//! (escape \` and \\). Next to a comparison operator, `true` and `false` are the constants
//! `"true"` and `"false"`, so boolean parameters read naturally: `debug == true`.
//!
//! [`Expr::display`] writes this syntax and this parser reads it back to an equal expression, up to
//! [`normalize`] (an `And`/`Or` of zero or one operand prints as `true`/`false` or the operand).

use std::fmt;

use crate::expr::{CmpOp, Expr, Operand};
use crate::model::Model;

/// An expression syntax error at a byte offset within the expression text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ExprError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Native,
    /// ACTS: a single `=` compares too.
    Acts,
}

/// Parses a native-syntax expression over `model`'s parameter names.
pub fn parse_expr(text: &str, model: &Model) -> Result<Expr, ExprError> {
    parse_dialect(text, model, Dialect::Native)
}

pub(crate) fn parse_dialect(text: &str, model: &Model, dialect: Dialect) -> Result<Expr, ExprError> {
    let toks = lex(text, dialect)?;
    let mut p = Parser { toks, pos: 0, model, dialect, depth: 0, end: text.len() };
    let e = p.expr()?;
    match p.toks.get(p.pos) {
        None => Ok(e),
        Some(t) => Err(p.error_at(t.at, format!("unexpected {} after a complete condition", describe(&t.tok)))),
    }
}

/// Nesting beyond this is refused rather than risking the stack on hostile input.
const MAX_DEPTH: usize = 200;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Not,
    Implies,
    And,
    Or,
    /// A single `=` (equality in ACTS only).
    Assign,
    Cmp(CmpOp),
    Ident(String),
    /// A back-quoted name: never a keyword.
    Quoted(String),
    Str(String),
    Num(String),
}

struct Token {
    tok: Tok,
    at: usize,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::LBrace => "`{`".into(),
        Tok::RBrace => "`}`".into(),
        Tok::Comma => "`,`".into(),
        Tok::Not => "`!`".into(),
        Tok::Implies => "`=>`".into(),
        Tok::And => "`&&`".into(),
        Tok::Or => "`||`".into(),
        Tok::Assign => "`=`".into(),
        Tok::Cmp(op) => format!("`{}`", op_text(*op)),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Quoted(s) => format!("`{s}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Num(s) => format!("`{s}`"),
    }
}

fn op_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Length in bytes of the number at the start of `s` (0 if none):
/// `[+-]? digits ('.' digits)? ([eE] [+-]? digits)?`.
fn scan_number(s: &str) -> usize {
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i > start)
    };
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let (j, any) = digits(i);
    if !any {
        return 0;
    }
    i = j;
    if b.get(i) == Some(&b'.') {
        if let (j, true) = digits(i + 1) {
            i = j;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let k = i + 1 + usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        if let (j, true) = digits(k) {
            i = j;
        }
    }
    i
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Whether `name` can be written bare (otherwise it needs back quotes).
pub fn is_plain_name(name: &str) -> bool {
    let mut cs = name.chars();
    matches!(cs.next(), Some(c) if is_ident_start(c)) && cs.all(is_ident_char) && !matches!(name, "true" | "false" | "in")
}

/// Whether constant `v` can be written as a bare number and read back as the same text.
pub fn is_plain_number(v: &str) -> bool {
    !v.is_empty() && scan_number(v) == v.len()
}

fn lex(text: &str, dialect: Dialect) -> Result<Vec<Token>, ExprError> {
    let err = |at: usize, m: String| ExprError { offset: at, message: m };
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let two = rest.get(..2).unwrap_or("");
        let (tok, len) = match c {
            _ if c.is_whitespace() => {
                i += c.len_utf8();
                continue;
            }
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '{' => (Tok::LBrace, 1),
            '}' => (Tok::RBrace, 1),
            ',' => (Tok::Comma, 1),
            _ if two == "&&" => (Tok::And, 2),
            _ if two == "||" => (Tok::Or, 2),
            _ if two == "=>" => (Tok::Implies, 2),
            _ if two == "==" => (Tok::Cmp(CmpOp::Eq), 2),
            _ if two == "!=" => (Tok::Cmp(CmpOp::Ne), 2),
            _ if two == "<=" => (Tok::Cmp(CmpOp::Le), 2),
            _ if two == ">=" => (Tok::Cmp(CmpOp::Ge), 2),
            '!' => (Tok::Not, 1),
            '<' => (Tok::Cmp(CmpOp::Lt), 1),
            '>' => (Tok::Cmp(CmpOp::Gt), 1),
            '=' => (Tok::Assign, 1),
            '"' | '`' => {
                let (s, len) = quoted(rest, c).map_err(|(off, m)| err(i + off, m))?;
                (if c == '"' { Tok::Str(s) } else { Tok::Quoted(s) }, len)
            }
            _ if scan_number(rest) > 0 => {
                let n = scan_number(rest);
                (Tok::Num(rest[..n].to_string()), n)
            }
            _ if is_ident_start(c) => {
                let n = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
                (Tok::Ident(rest[..n].to_string()), n)
            }
            '&' | '|' => return Err(err(i, format!("`{c}` alone is not an operator; use `{c}{c}`"))),
            '+' | '-' | '*' | '/' | '%' if dialect == Dialect::Acts => {
                return Err(err(i, format!("arithmetic (`{c}`) is not supported in constraints")))
            }
            _ => return Err(err(i, format!("unexpected character {c:?}"))),
        };
        out.push(Token { tok, at: i });
        i += len;
    }
    Ok(out)
}

/// Reads a `q`-quoted text at the start of `s` (escapes `\q` and `\\`); gives the text and the
/// length consumed, or an error offset within `s`.
fn quoted(s: &str, q: char) -> Result<(String, usize), (usize, String)> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        if c == q {
            return Ok((out, i + 1));
        }
        if c == '\\' {
            match chars.next() {
                Some((_, e)) if e == q || e == '\\' => out.push(e),
                Some((j, e)) => return Err((j - 1, format!("unknown escape `\\{e}`; only \\{q} and \\\\ are allowed"))),
                None => break,
            }
        } else {
            out.push(c);
        }
    }
    let what = if q == '"' { "string" } else { "quoted name" };
    Err((0, format!("unterminated {what}: missing closing {q}")))
}

enum Side {
    Param(usize),
    Const(String),
    Bool(bool),
}

struct Parser<'a> {
    toks: Vec<Token>,
    pos: usize,
    model: &'a Model,
    dialect: Dialect,
    depth: usize,
    end: usize,
}

impl Parser<'_> {
    fn error_at(&self, at: usize, message: String) -> ExprError {
        ExprError { offset: at, message }
    }

    /// Error at the current token (or the end of the text).
    fn error_here(&self, expected: &str) -> ExprError {
        match self.toks.get(self.pos) {
            Some(t) => self.error_at(t.at, format!("expected {expected}, found {}", describe(&t.tok))),
            None => self.error_at(self.end, format!("expected {expected}, found the end of the expression")),
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.toks.get(self.pos).map_or(self.end, |t| t.at);
            return Err(self.error_at(at, format!("expression nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        self.enter()?;
        let left = self.or()?;
        let out = if self.eat(&Tok::Implies) { Expr::Implies(Box::new(left), Box::new(self.expr()?)) } else { left };
        self.depth -= 1;
        Ok(out)
    }

    fn or(&mut self) -> Result<Expr, ExprError> {
        let mut items = vec![self.and()?];
        while self.eat(&Tok::Or) {
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::Or(items) })
    }

    fn and(&mut self) -> Result<Expr, ExprError> {
        let mut items = vec![self.unary()?];
        while self.eat(&Tok::And) {
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::And(items) })
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.eat(&Tok::Not) {
            self.enter()?;
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(e)));
        }
        let operand_next = self.paren_operand(self.pos).is_some_and(|end| matches!(self.toks.get(end).map(|t| &t.tok), Some(Tok::Cmp(_) | Tok::Assign)));
        if !operand_next && self.eat(&Tok::LParen) {
            let e = self.expr()?;
            if !self.eat(&Tok::RParen) {
                return Err(self.error_here("`)`"));
            }
            return Ok(e);
        }
        self.atom()
    }

    /// `true`/`false` (any case in ACTS, which writes `TRUE`).
    fn boolean(&self, s: &str) -> Option<bool> {
        match self.dialect {
            Dialect::Native => ["false", "true"].iter().position(|b| *b == s),
            Dialect::Acts => ["false", "true"].iter().position(|b| b.eq_ignore_ascii_case(s)),
        }
        .map(|i| i == 1)
    }

    /// ACTS tools write operands in parentheses, `(p1) = ("a")`: the position after such an
    /// operand starting at `pos` (with at least one parenthesis), if there is one.
    fn paren_operand(&self, pos: usize) -> Option<usize> {
        if self.dialect != Dialect::Acts {
            return None;
        }
        let tok = |i: usize| self.toks.get(i).map(|t| &t.tok);
        let open = (pos..).take(MAX_DEPTH).take_while(|&i| tok(i) == Some(&Tok::LParen)).count();
        let operand = matches!(tok(pos + open), Some(Tok::Ident(_) | Tok::Quoted(_) | Tok::Str(_) | Tok::Num(_)));
        let close = (pos + open + 1..).take(open).take_while(|&i| tok(i) == Some(&Tok::RParen)).count();
        (open > 0 && operand && close == open).then_some(pos + 2 * open + 1)
    }

    fn side(&mut self) -> Result<Side, ExprError> {
        if let Some(end) = self.paren_operand(self.pos) {
            let open = (end - self.pos - 1) / 2;
            self.pos += open;
            let side = self.side()?;
            self.pos = end;
            return Ok(side);
        }
        let Some(t) = self.toks.get(self.pos) else {
            return Err(self.error_here("a condition"));
        };
        let side = match &t.tok {
            Tok::Ident(s) if self.boolean(s).is_some() => Side::Bool(self.boolean(s) == Some(true)),
            Tok::Ident(name) | Tok::Quoted(name) => match self.model.param(name) {
                Some(p) => Side::Param(p),
                None => return Err(self.error_at(t.at, self.unknown(name))),
            },
            Tok::Str(s) | Tok::Num(s) => Side::Const(s.clone()),
            _ => return Err(self.error_here("a condition")),
        };
        self.pos += 1;
        Ok(side)
    }

    fn unknown(&self, name: &str) -> String {
        let is_value = self.model.params.iter().any(|p| p.values.iter().any(|v| v == name));
        if is_value {
            format!("unknown parameter `{name}` (to compare with the value, quote it: \"{name}\")")
        } else {
            format!("unknown parameter `{name}`")
        }
    }

    fn atom(&mut self) -> Result<Expr, ExprError> {
        let left = self.side()?;
        let op = match self.peek() {
            Some(Tok::Cmp(op)) => Some(*op),
            Some(Tok::Assign) if self.dialect == Dialect::Acts => Some(CmpOp::Eq),
            Some(Tok::Assign) => {
                let at = self.toks[self.pos].at;
                return Err(self.error_at(at, "use `==` to compare (a single `=` is not an operator)".into()));
            }
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            let right = self.side()?;
            return Ok(Expr::Cmp(operand(left), op, operand(right)));
        }
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "in") {
            let Side::Param(p) = left else {
                let at = self.toks[self.pos].at;
                return Err(self.error_at(at, "`in` needs a parameter on its left".into()));
            };
            self.pos += 1;
            return Ok(Expr::In(p, self.set()?));
        }
        match left {
            Side::Bool(b) => Ok(Expr::Bool(b)),
            // ACTS: a boolean parameter alone means `p = true`.
            Side::Param(p) if self.dialect == Dialect::Acts && is_boolean(&self.model.params[p].values) => {
                Ok(Expr::Cmp(Operand::Param(p), CmpOp::Eq, Operand::Const("true".into())))
            }
            _ => Err(self.error_here("a comparison (==, !=, <, <=, >, >=) or `in`")),
        }
    }

    fn set(&mut self) -> Result<Vec<String>, ExprError> {
        if !self.eat(&Tok::LBrace) {
            return Err(self.error_here("`{` after `in`"));
        }
        let mut out = Vec::new();
        if self.eat(&Tok::RBrace) {
            return Ok(out);
        }
        loop {
            match self.peek() {
                Some(Tok::Str(s) | Tok::Num(s)) => out.push(s.clone()),
                Some(Tok::Ident(s)) if self.boolean(s).is_some() => out.push((self.boolean(s) == Some(true)).to_string()),
                _ => return Err(self.error_here("a constant (number or \"string\")")),
            }
            self.pos += 1;
            if self.eat(&Tok::RBrace) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.error_here("`,` or `}`"));
            }
        }
    }
}

fn is_boolean(values: &[String]) -> bool {
    !values.is_empty() && values.iter().all(|v| v == "true" || v == "false")
}

fn operand(s: Side) -> Operand {
    match s {
        Side::Param(p) => Operand::Param(p),
        Side::Const(c) => Operand::Const(c),
        Side::Bool(b) => Operand::Const(b.to_string()),
    }
}

/// Collapses `And`/`Or` of zero or one operand (which print the same as `true`/`false` or the
/// operand), recursively.
pub fn normalize(e: &Expr) -> Expr {
    let list = |es: &[Expr], empty: bool, make: fn(Vec<Expr>) -> Expr| {
        let mut es: Vec<Expr> = es.iter().map(normalize).collect();
        match es.len() {
            0 => Expr::Bool(empty),
            1 => es.remove(0),
            _ => make(es),
        }
    };
    match e {
        Expr::Bool(_) | Expr::Cmp(..) | Expr::In(..) => e.clone(),
        Expr::Not(x) => Expr::Not(Box::new(normalize(x))),
        Expr::And(es) => list(es, true, Expr::And),
        Expr::Or(es) => list(es, false, Expr::Or),
        Expr::Implies(a, b) => Expr::Implies(Box::new(normalize(a)), Box::new(normalize(b))),
    }
}

/// Writes `e` in the native syntax with as few parentheses as round-tripping allows, numbers bare
/// and odd names back-quoted. Reads back (with [`parse_expr`]) as `normalize(e)`.
pub fn to_native(e: &Expr, model: &Model) -> String {
    let mut out = String::new();
    write_expr(&normalize(e), model, &mut out);
    out
}

/// Binding strength of an (already normalized) expression's top operator.
fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::Implies(..) => 1,
        Expr::Or(_) => 2,
        Expr::And(_) => 3,
        Expr::Not(_) => 4,
        _ => 5,
    }
}

fn write_expr(e: &Expr, m: &Model, out: &mut String) {
    // Parenthesize a child binding no tighter than `min` (so nested And/Or keep their grouping).
    let child = |x: &Expr, min: u8, out: &mut String| {
        if precedence(x) <= min {
            out.push('(');
            write_expr(x, m, out);
            out.push(')');
        } else {
            write_expr(x, m, out);
        }
    };
    match e {
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Cmp(a, op, b) => {
            write_operand(a, m, out);
            out.push(' ');
            out.push_str(op_text(*op));
            out.push(' ');
            write_operand(b, m, out);
        }
        Expr::In(p, set) => {
            write_name(*p, m, out);
            out.push_str(" in {");
            for (i, v) in set.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_const(v, out);
            }
            out.push('}');
        }
        Expr::Not(x) => {
            out.push('!');
            child(x, 3, out);
        }
        Expr::And(es) | Expr::Or(es) => {
            let (sep, min) = if matches!(e, Expr::And(_)) { (" && ", 3) } else { (" || ", 2) };
            for (i, x) in es.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                child(x, min, out);
            }
        }
        Expr::Implies(a, b) => {
            child(a, 1, out);
            out.push_str(" => ");
            child(b, 0, out);
        }
    }
}

fn write_operand(o: &Operand, m: &Model, out: &mut String) {
    match o {
        Operand::Param(p) => write_name(*p, m, out),
        Operand::Const(c) => write_const(c, out),
    }
}

fn write_name(p: usize, m: &Model, out: &mut String) {
    let name = m.params.get(p).map_or("?", |p| p.name.as_str());
    if is_plain_name(name) {
        out.push_str(name);
    } else {
        out.push('`');
        out.push_str(&name.replace('\\', "\\\\").replace('`', "\\`"));
        out.push('`');
    }
}

fn write_const(v: &str, out: &mut String) {
    if is_plain_number(v) {
        out.push_str(v);
    } else {
        out.push('"');
        out.push_str(&v.replace('\\', "\\\\").replace('"', "\\\""));
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::testgen;
    use proptest::prelude::*;

    fn model() -> Model {
        testgen::model(&[("age", &["17", "18", "70"]), ("product", &["basic", "premium"]), ("my param", &["x"]), ("debug", &["true", "false"])])
    }

    fn ok(s: &str) -> Expr {
        parse_expr(s, &model()).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> (usize, String) {
        let e = parse_expr(s, &model()).unwrap_err();
        (e.offset, e.message)
    }

    fn c(p: usize, op: CmpOp, v: &str) -> Expr {
        Expr::Cmp(Operand::Param(p), op, Operand::Const(v.into()))
    }

    #[test]
    fn precedence_and_associativity() {
        let a = c(0, CmpOp::Lt, "70");
        let b = c(1, CmpOp::Eq, "basic");
        assert_eq!(ok(r#"product == "basic" => age < 70"#), Expr::Implies(Box::new(b.clone()), Box::new(a.clone())));
        assert_eq!(ok("age < 70 || age < 70 && age < 70"), Expr::Or(vec![a.clone(), Expr::And(vec![a.clone(), a.clone()])]));
        assert_eq!(
            ok("true => false => true"),
            Expr::Implies(Box::new(Expr::Bool(true)), Box::new(Expr::Implies(Box::new(Expr::Bool(false)), Box::new(Expr::Bool(true)))))
        );
        assert_eq!(ok("!!(age < 70)"), Expr::Not(Box::new(Expr::Not(Box::new(a.clone())))));
        assert_eq!(ok("(age < 70 && age < 70) && age < 70"), Expr::And(vec![Expr::And(vec![a.clone(), a.clone()]), a]));
    }

    #[test]
    fn atoms() {
        assert_eq!(ok(r#"product in {"basic", 3, true}"#), Expr::In(1, vec!["basic".into(), "3".into(), "true".into()]));
        assert_eq!(ok("product in {}"), Expr::In(1, vec![]));
        assert_eq!(ok("debug == true"), c(3, CmpOp::Eq, "true"));
        assert_eq!(ok("`my param` != \"a\\\"b\\\\\""), c(2, CmpOp::Ne, "a\"b\\"));
        assert_eq!(ok("age >= -1.5e3"), c(0, CmpOp::Ge, "-1.5e3"));
        assert_eq!(ok("age<=product"), Expr::Cmp(Operand::Param(0), CmpOp::Le, Operand::Param(1)));
        assert_eq!(ok("  false "), Expr::Bool(false));
        let acts = |s: &str| parse_dialect(s, &model(), Dialect::Acts).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(acts("age = 3 => product != \"basic\""), Expr::Implies(Box::new(c(0, CmpOp::Eq, "3")), Box::new(c(1, CmpOp::Ne, "basic"))));
        // CTWedge's ACTS output: parenthesized operands, bare booleans, TRUE.
        assert_eq!(
            acts("(((age)!=((3)))||(debug))||((debug)!=(TRUE))"),
            Expr::Or(vec![Expr::Or(vec![c(0, CmpOp::Ne, "3"), c(3, CmpOp::Eq, "true")]), c(3, CmpOp::Ne, "true")])
        );
        assert_eq!(acts("(debug) && ((age < 3))"), Expr::And(vec![c(3, CmpOp::Eq, "true"), c(0, CmpOp::Lt, "3")]));
        assert!(parse_expr("debug", &model()).is_err(), "bare booleans are ACTS only");
        assert!(parse_expr("(age) == 3", &model()).is_err(), "parenthesized operands are ACTS only");
    }

    #[test]
    fn errors_are_located() {
        assert_eq!(err("agee < 3"), (0, "unknown parameter `agee`".into()));
        assert_eq!(err("product == basic").0, 11);
        assert!(err("product == basic").1.contains("quote it"));
        assert_eq!(err("age = 3"), (4, "use `==` to compare (a single `=` is not an operator)".into()));
        assert_eq!(err("age < 3 &"), (8, "`&` alone is not an operator; use `&&`".into()));
        assert_eq!(err("(age < 3"), (8, "expected `)`, found the end of the expression".into()));
        assert_eq!(err("age < \"x"), (6, "unterminated string: missing closing \"".into()));
        assert_eq!(err("age"), (3, "expected a comparison (==, !=, <, <=, >, >=) or `in`, found the end of the expression".into()));
        assert_eq!(err("age < 3 age"), (8, "unexpected `age` after a complete condition".into()));
        assert_eq!(err("\"a\\n\" == age").0, 2);
        assert_eq!(err("3 in {1}").0, 2);
        assert_eq!(err("age in {1,}").0, 10);
        assert_eq!(err("age < 3 @").0, 8);
        assert_eq!(err("").0, 0);
        let deep = format!("{}true{}", "(".repeat(1000), ")".repeat(1000));
        assert!(err(&deep).1.contains("nested deeper"));
        assert!(err(&"!".repeat(100_000)).1.contains("nested deeper"));
        let e = parse_dialect("age + 1 > 3", &model(), Dialect::Acts).unwrap_err();
        assert_eq!(e.offset, 4);
    }

    #[test]
    fn printer_is_minimal_and_readable() {
        let m = model();
        let e = ok(r#"product == "basic" => age < 70 && (debug == true || `my param` in {"x", 2})"#);
        assert_eq!(to_native(&e, &m), r#"product == "basic" => age < 70 && (debug == "true" || `my param` in {"x", 2})"#);
        assert_eq!(to_native(&ok("(true => false) => !(true && false)"), &m), "(true => false) => !(true && false)");
    }

    proptest! {
        #[test]
        fn display_reads_back((m, e) in testgen::model_and_expr()) {
            let text = e.display(&m).to_string();
            let back = parse_expr(&text, &m).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
            prop_assert_eq!(back, normalize(&e), "{}", text);
        }

        #[test]
        fn native_printer_reads_back((m, e) in testgen::model_and_expr()) {
            let text = to_native(&e, &m);
            let back = parse_expr(&text, &m).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
            prop_assert_eq!(back, normalize(&e), "{}", text);
        }

        #[test]
        fn never_panics(s in "[a-z0-9 ()!=<>&|{}\",`\\\\.-]{0,40}") {
            let _ = parse_expr(&s, &model());
            let _ = parse_dialect(&s, &model(), Dialect::Acts);
        }
    }
}
