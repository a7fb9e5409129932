//! Feature constraints: `"<atom> requires <atom>"` and `"<atom> excludes <atom>"`, where an atom is
//! `param` or `param = value`.
//!
//! Two parse modes: [`ParseMode::Compat`] removes all whitespace from names and values (the MRG tool
//! strips whitespace from constraint strings; `Premium economy` becomes `Premiumeconomy`), and
//! [`ParseMode::Native`] trims names and values but keeps their inner spaces. In both modes the
//! operator must be a whitespace-separated word, so a parameter name may contain `requires`.

use thiserror::Error;

/// How names and values in a constraint string are cleaned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseMode {
    /// Remove every whitespace character from names and values (MRG compatibility).
    Compat,
    /// Trim names and values, keep inner whitespace.
    Native,
}

/// `param` (holds when present) or `param = value` (holds when present with that value).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Atom {
    pub param: String,
    pub value: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// `A requires B` ≡ ¬A ∨ B.
    Requires,
    /// `A excludes B` ≡ ¬(A ∧ B).
    Excludes,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Constraint {
    pub left: Atom,
    pub kind: ConstraintKind,
    pub right: Atom,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConstraintError {
    #[error("constraint {0:?} has no `requires` or `excludes` between two atoms")]
    MissingOperator(String),
    #[error("constraint {0:?} has more than one `requires`/`excludes`")]
    TooManyOperators(String),
    #[error("constraint {text:?}: empty parameter name in atom {atom:?}")]
    EmptyParameter { text: String, atom: String },
    #[error(
        "constraint {text:?}: empty value in atom {atom:?} (write `{param}` alone for presence)"
    )]
    EmptyValue {
        text: String,
        atom: String,
        param: String,
    },
}

impl Atom {
    /// Whether the atom holds on a test whose parameter values `get` returns (`None` = absent).
    pub fn holds<'a>(&self, get: impl Fn(&str) -> Option<&'a str>) -> bool {
        match (get(&self.param), &self.value) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(v), Some(want)) => v == want,
        }
    }

    fn parse(text: &str, atom: &str, mode: ParseMode) -> Result<Atom, ConstraintError> {
        let clean = |s: &str| match mode {
            ParseMode::Compat => s.chars().filter(|c| !c.is_whitespace()).collect::<String>(),
            ParseMode::Native => s.trim().to_string(),
        };
        let (param, value) = match atom.split_once('=') {
            Some((p, v)) => (clean(p), Some(clean(v))),
            None => (clean(atom), None),
        };
        if param.is_empty() {
            return Err(ConstraintError::EmptyParameter {
                text: text.into(),
                atom: atom.trim().into(),
            });
        }
        if value.as_deref() == Some("") {
            return Err(ConstraintError::EmptyValue {
                text: text.into(),
                atom: atom.trim().into(),
                param,
            });
        }
        Ok(Atom { param, value })
    }
}

impl std::fmt::Display for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            None => write!(f, "{}", self.param),
            Some(v) => write!(f, "{} = {}", self.param, v),
        }
    }
}

impl std::fmt::Display for Constraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.kind {
            ConstraintKind::Requires => "requires",
            ConstraintKind::Excludes => "excludes",
        };
        write!(f, "{} {} {}", self.left, op, self.right)
    }
}

impl Constraint {
    /// Parses `"<atom> requires <atom>"` or `"<atom> excludes <atom>"`.
    pub fn parse(text: &str, mode: ParseMode) -> Result<Constraint, ConstraintError> {
        // Byte offsets of whitespace-separated words equal to an operator.
        let mut ops = Vec::new();
        let mut start = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    let kind = match &text[s..i] {
                        "requires" => Some(ConstraintKind::Requires),
                        "excludes" => Some(ConstraintKind::Excludes),
                        _ => None,
                    };
                    if let Some(k) = kind {
                        ops.push((s, i, k));
                    }
                    start = None;
                }
                _ => {}
            }
        }
        let (s, e, kind) = match ops.as_slice() {
            [] => return Err(ConstraintError::MissingOperator(text.into())),
            [one] => *one,
            _ => return Err(ConstraintError::TooManyOperators(text.into())),
        };
        let (l, r) = (&text[..s], &text[e..]);
        if l.trim().is_empty() || r.trim().is_empty() {
            return Err(ConstraintError::MissingOperator(text.into()));
        }
        Ok(Constraint {
            left: Atom::parse(text, l, mode)?,
            kind,
            right: Atom::parse(text, r, mode)?,
        })
    }

    /// Whether the test satisfies the constraint; `get` returns a parameter's value, `None` = absent.
    pub fn eval<'a>(&self, get: impl Fn(&str) -> Option<&'a str>) -> bool {
        let a = self.left.holds(&get);
        let b = self.right.holds(&get);
        match self.kind {
            ConstraintKind::Requires => !a || b,
            ConstraintKind::Excludes => !(a && b),
        }
    }

    /// [`Constraint::eval`] on an ordered list of `(parameter, value)` pairs (absent = not listed).
    pub fn eval_pairs(&self, values: &[(String, String)]) -> bool {
        self.eval(|p| values.iter().find(|(k, _)| k == p).map(|(_, v)| v.as_str()))
    }

    /// Parameters the constraint mentions (left, right).
    pub fn params(&self) -> [&str; 2] {
        [&self.left.param, &self.right.param]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn atom(p: &str, v: Option<&str>) -> Atom {
        Atom {
            param: p.into(),
            value: v.map(Into::into),
        }
    }

    #[test]
    fn parses_both_forms() {
        let c =
            Constraint::parse("trip_type = Roundtrip requires return", ParseMode::Native).unwrap();
        assert_eq!(c.left, atom("trip_type", Some("Roundtrip")));
        assert_eq!(c.kind, ConstraintKind::Requires);
        assert_eq!(c.right, atom("return", None));
        let c = Constraint::parse("  a excludes\tb=x ", ParseMode::Native).unwrap();
        assert_eq!(
            (c.left, c.kind, c.right),
            (
                atom("a", None),
                ConstraintKind::Excludes,
                atom("b", Some("x"))
            )
        );
    }

    #[test]
    fn modes_differ_on_inner_whitespace() {
        let s = "cabin class = Premium economy requires adults = 2";
        let n = Constraint::parse(s, ParseMode::Native).unwrap();
        assert_eq!(n.left, atom("cabin class", Some("Premium economy")));
        let c = Constraint::parse(s, ParseMode::Compat).unwrap();
        assert_eq!(c.left, atom("cabinclass", Some("Premiumeconomy")));
        assert_eq!(c.right, atom("adults", Some("2")));
        assert_eq!(
            n.to_string(),
            "cabin class = Premium economy requires adults = 2"
        );
    }

    #[test]
    fn operator_must_be_a_word() {
        let c = Constraint::parse("requires_x requires excludesy", ParseMode::Compat).unwrap();
        assert_eq!(c.params(), ["requires_x", "excludesy"]);
        assert!(matches!(
            Constraint::parse("arequiresb", ParseMode::Native),
            Err(ConstraintError::MissingOperator(_))
        ));
    }

    #[test]
    fn rejects_malformed() {
        use ConstraintError::*;
        let p = |s| Constraint::parse(s, ParseMode::Native);
        assert!(matches!(p(""), Err(MissingOperator(_))));
        assert!(matches!(p("requires b"), Err(MissingOperator(_))));
        assert!(matches!(p("a requires"), Err(MissingOperator(_))));
        assert!(matches!(
            p("a requires b excludes c"),
            Err(TooManyOperators(_))
        ));
        assert!(matches!(p("= x requires b"), Err(EmptyParameter { .. })));
        assert!(matches!(p("a = requires b"), Err(EmptyValue { .. })));
        // Only the first `=` splits; the rest belongs to the value.
        assert_eq!(
            p("a = x=y requires b").unwrap().left,
            atom("a", Some("x=y"))
        );
    }

    #[test]
    fn evaluates_on_tests() {
        let c =
            Constraint::parse("trip_type = Roundtrip requires return", ParseMode::Native).unwrap();
        let t = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect::<Vec<_>>()
        };
        assert!(c.eval_pairs(&t(&[("trip_type", "Roundtrip"), ("return", "x")])));
        assert!(!c.eval_pairs(&t(&[("trip_type", "Roundtrip")])));
        assert!(c.eval_pairs(&t(&[("trip_type", "One-way")])));
        assert!(c.eval_pairs(&t(&[])));
        let e =
            Constraint::parse("trip_type = One-way excludes return", ParseMode::Native).unwrap();
        assert!(!e.eval_pairs(&t(&[("trip_type", "One-way"), ("return", "x")])));
        assert!(e.eval_pairs(&t(&[("trip_type", "Roundtrip"), ("return", "x")])));
    }

    proptest! {
        // Evaluation equals the boolean definitions on random assignments of two parameters.
        #[test]
        fn eval_matches_boolean_definition(
            lv in proptest::option::of(0u8..3), rv in proptest::option::of(0u8..3),
            la in proptest::option::of(0u8..3), ra in proptest::option::of(0u8..3),
            requires in any::<bool>(), same_param in any::<bool>(),
        ) {
            let rp = if same_param { "p" } else { "q" };
            let c = Constraint {
                left: Atom { param: "p".into(), value: lv.map(|v| v.to_string()) },
                kind: if requires { ConstraintKind::Requires } else { ConstraintKind::Excludes },
                right: Atom { param: rp.into(), value: rv.map(|v| v.to_string()) },
            };
            let mut test = Vec::new();
            if let Some(v) = la { test.push(("p".to_string(), v.to_string())); }
            if let Some(v) = ra { test.push(("q".to_string(), v.to_string())); }
            let val = |p: &str| test.iter().find(|(k, _)| k == p).map(|(_, v)| v.clone());
            let holds = |param: &str, want: Option<u8>| match (val(param), want) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(v), Some(w)) => v == w.to_string(),
            };
            let a = holds("p", lv);
            let b = holds(rp, rv);
            let want = if requires { !a || b } else { !(a && b) };
            prop_assert_eq!(c.eval_pairs(&test), want);
            // Display → parse round-trips.
            prop_assert_eq!(Constraint::parse(&c.to_string(), ParseMode::Native).unwrap(), c.clone());
            prop_assert_eq!(Constraint::parse(&c.to_string(), ParseMode::Compat).unwrap(), c);
        }

        #[test]
        fn parse_never_panics(s in any::<String>()) {
            let _ = Constraint::parse(&s, ParseMode::Native);
            let _ = Constraint::parse(&s, ParseMode::Compat);
        }
    }
}
