//! Constraint expressions over parameters, evaluated on full or partial tests.
//!
//! Values are the parameters' value strings; a comparison between two values is numeric when both
//! parse as numbers, textual otherwise. On a partial test an expression is [`Truth::Unknown`] when
//! its value depends on an unassigned parameter, which is what constraint handling needs to
//! prune early without being wrong.

use std::cmp::Ordering;

use crate::model::Model;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A parameter by index.
    Param(usize),
    /// A constant value as written.
    Const(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Bool(bool),
    Cmp(Operand, CmpOp, Operand),
    /// `param in {v1, v2, ...}`
    In(usize, Vec<String>),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    /// `a => b`
    Implies(Box<Expr>, Box<Expr>),
}

/// Kleene three-valued truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Truth {
    False,
    Unknown,
    True,
}

impl Truth {
    fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }

    fn from(b: bool) -> Truth {
        if b {
            Truth::True
        } else {
            Truth::False
        }
    }
}

/// Compares two values: numerically when both are numbers, else as text.
pub fn compare(a: &str, b: &str) -> Ordering {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        _ => a.cmp(b),
    }
}

fn holds(op: CmpOp, o: Ordering) -> bool {
    match op {
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
    }
}

fn value<'a>(model: &'a Model, test: &[Option<usize>], o: &'a Operand) -> Option<&'a str> {
    match o {
        Operand::Param(p) => test[*p].map(|v| model.params[*p].values[v].as_str()),
        Operand::Const(c) => Some(c.as_str()),
    }
}

impl Expr {
    /// Evaluates on a test given as value indices (`None` = unassigned).
    pub fn eval(&self, model: &Model, test: &[Option<usize>]) -> Truth {
        match self {
            Expr::Bool(b) => Truth::from(*b),
            Expr::Cmp(a, op, b) => match (value(model, test, a), value(model, test, b)) {
                (Some(x), Some(y)) => Truth::from(holds(*op, compare(x, y))),
                _ => Truth::Unknown,
            },
            Expr::In(p, set) => match test[*p] {
                Some(v) => {
                    let x = &model.params[*p].values[v];
                    Truth::from(set.iter().any(|s| compare(x, s) == Ordering::Equal))
                }
                None => Truth::Unknown,
            },
            Expr::Not(e) => e.eval(model, test).not(),
            Expr::And(es) => {
                let mut out = Truth::True;
                for e in es {
                    match e.eval(model, test) {
                        Truth::False => return Truth::False,
                        Truth::Unknown => out = Truth::Unknown,
                        Truth::True => {}
                    }
                }
                out
            }
            Expr::Or(es) => {
                let mut out = Truth::False;
                for e in es {
                    match e.eval(model, test) {
                        Truth::True => return Truth::True,
                        Truth::Unknown => out = Truth::Unknown,
                        Truth::False => {}
                    }
                }
                out
            }
            Expr::Implies(a, b) => match (a.eval(model, test), b.eval(model, test)) {
                (Truth::False, _) | (_, Truth::True) => Truth::True,
                (Truth::True, Truth::False) => Truth::False,
                _ => Truth::Unknown,
            },
        }
    }

    /// The parameters the expression mentions, sorted, without repeats.
    pub fn params(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn collect(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Bool(_) => {}
            Expr::Cmp(a, _, b) => {
                for o in [a, b] {
                    if let Operand::Param(p) = o {
                        out.push(*p);
                    }
                }
            }
            Expr::In(p, _) => out.push(*p),
            Expr::Not(e) => e.collect(out),
            Expr::And(es) | Expr::Or(es) => es.iter().for_each(|e| e.collect(out)),
            Expr::Implies(a, b) => {
                a.collect(out);
                b.collect(out);
            }
        }
    }

    /// Renders in the native syntax (the parser's printer), parameter names taken from `model`.
    pub fn display(&self, model: &Model) -> String {
        crate::parse::expr::to_native(self, model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Param;

    fn model() -> Model {
        let p = |n: &str, vs: &[&str]| Param { name: n.into(), values: vs.iter().map(|s| s.to_string()).collect(), invalid: vec![] };
        Model { name: "m".into(), params: vec![p("age", &["9", "18", "70"]), p("kind", &["a", "b"])], ..Model::default() }
    }

    #[test]
    fn three_valued_evaluation() {
        let m = model();
        let adult = Expr::Cmp(Operand::Param(0), CmpOp::Ge, Operand::Const("18".into()));
        let is_b = Expr::In(1, vec!["b".into()]);
        let rule = Expr::Implies(Box::new(is_b.clone()), Box::new(adult.clone()));
        assert_eq!(adult.eval(&m, &[Some(0), None]), Truth::False, "9 >= 18 numerically (not as text)");
        assert_eq!(adult.eval(&m, &[Some(1), None]), Truth::True);
        assert_eq!(rule.eval(&m, &[None, Some(0)]), Truth::True, "antecedent false decides");
        assert_eq!(rule.eval(&m, &[None, Some(1)]), Truth::Unknown);
        assert_eq!(rule.eval(&m, &[Some(0), Some(1)]), Truth::False);
        let either = Expr::Or(vec![adult.clone(), is_b.clone()]);
        assert_eq!(either.eval(&m, &[Some(0), None]), Truth::Unknown);
        assert_eq!(Expr::And(vec![adult, is_b]).eval(&m, &[Some(0), None]), Truth::False);
        assert_eq!(rule.params(), vec![0, 1]);
    }
}
