//! Parsers never panic, whatever the input, and their errors point inside the text.

use std::path::Path;

use proptest::prelude::*;
use rigor_ct::export::read_csv;
use rigor_ct::parse::{casa, parse, Format};
use rigor_ct::{Model, Param};

fn check_location(text: &str, e: &rigor_ct::ParseError) {
    let lines = text.split('\n').count();
    assert!(e.line >= 1 && e.line <= lines, "line {} of {lines}: {e}", e.line);
    assert!(e.column >= 1, "{e}");
    let _ = e.to_string();
}

fn all_formats(text: &str) {
    for format in [Format::Native, Format::Pict, Format::Acts, Format::Casa] {
        if let Err(e) = parse(text, Path::new("fuzz"), format) {
            check_location(text, &e);
        }
    }
    if let Err(e) = casa::parse_with_constraints("2\n3\n2 2 3\n", Path::new("m.model"), Some((text, Path::new("m.constraints")))) {
        check_location(text, &e);
    }
    let model = Model {
        name: "m".into(),
        params: vec![Param { name: "a".into(), values: vec!["1".into(), "x y".into()], invalid: vec![] }],
        ..Model::default()
    };
    if let Err(e) = read_csv(&model, text) {
        check_location(text, &e);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_text(s in any::<String>()) {
        all_formats(&s);
    }

    #[test]
    fn syntax_soup(s in "([\\[\\]{}()<>=!&|~@*,;:\"'`#\n\r\t +-]|[a-z]{1,3}|[0-9]{1,2}|IF |THEN |AND |NOT |in |true|parameter|values|when|name){0,40}") {
        all_formats(&s);
    }
}

/// Models written as native text read back equal (expressions normalized).
fn assert_native_round_trip(m: &Model) {
    let text = rigor_ct::parse::write_native(m);
    let back = parse(&text, Path::new("fuzz.toml"), Format::Native).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let norm = |m: &Model| {
        let mut m = m.clone();
        m.exclusions = m.exclusions.iter().map(rigor_ct::parse::expr::normalize).collect();
        for e in &mut m.errors {
            e.expr = rigor_ct::parse::expr::normalize(&e.expr);
        }
        m
    };
    assert_eq!(back, norm(m), "{text}");
}

fn pict_model() -> impl Strategy<Value = String> {
    let name = "[A-Za-z][A-Za-z _.-]{0,5}";
    let value = "~?[a-z0-9.\\\\-][a-z0-9 .\\\\-]{0,3}( \\(2\\))?";
    let params = proptest::collection::vec((name, proptest::collection::vec(value, 1..4)), 1..4);
    params.prop_flat_map(|ps| {
        let names: Vec<String> = ps.iter().map(|(n, _)| n.trim().to_string()).collect();
        let term = (proptest::sample::select(names.clone()), prop_oneof![Just("="), Just("<>"), Just(">="), Just("IN"), Just("LIKE")], "[a-z0-9]{1,3}\\*?")
            .prop_map(|(n, op, v)| match op {
                "IN" => format!("[{n}] IN {{\"{v}\", 1}}"),
                "LIKE" => format!("NOT [{n}] LIKE \"{v}\""),
                _ => format!("[{n}] {op} \"{v}\""),
            });
        let constraint = proptest::collection::vec(term, 1..4).prop_map(|ts| match ts.len() {
            1 => format!("{};", ts[0]),
            2 => format!("IF {} THEN {};", ts[0], ts[1]),
            _ => format!("IF {} OR ({}) THEN {} ELSE {};", ts[0], ts[1], ts[2], ts[0]),
        });
        (Just(ps), proptest::collection::vec(constraint, 0..3))
    })
    .prop_map(|(ps, cs)| {
        let mut text = String::new();
        for (n, vs) in ps {
            text += &format!("{n}: {}\n", vs.join(", "));
        }
        text + "\n" + &cs.join("\n") + "\n"
    })
}

proptest! {
    #[test]
    fn pict_models_round_trip_through_native(text in pict_model()) {
        if let Ok(m) = parse(&text, Path::new("fuzz.pict"), Format::Pict) {
            assert_native_round_trip(&m);
        }
    }

    #[test]
    fn casa_models_round_trip_through_native(sizes in proptest::collection::vec(1usize..4, 2..6), lits in proptest::collection::vec(proptest::collection::vec((any::<bool>(), 0usize..8), 1..4), 0..4)) {
        let model = format!("2\n{}\n{}\n", sizes.len(), sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" "));
        let clauses: Vec<String> = lits.iter().map(|c| format!("{}\n{}", c.len(), c.iter().map(|(s, i)| format!("{} {i}", if *s { '+' } else { '-' })).collect::<Vec<_>>().join(" "))).collect();
        let constraints = format!("{}\n{}\n", lits.len(), clauses.join("\n"));
        if let Ok((m, _)) = casa::parse_with_constraints(&model, Path::new("f.model"), Some((&constraints, Path::new("f.constraints")))) {
            assert_native_round_trip(&m);
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for open in ["[", "{a=", "[{a="] {
        let text = format!("a = {}", open.repeat(100_000));
        for f in [Format::Native, Format::Pict, Format::Acts, Format::Casa] {
            assert!(parse(&text, Path::new("deep"), f).is_err());
        }
    }
    let when = format!("[[parameter]]\nname = 'a'\nvalues = [1]\n[[exclusion]]\nwhen = '{}a == 1'\n", "!(".repeat(50_000));
    assert!(parse(&when, Path::new("deep"), Format::Native).is_err());
    let acts = format!("[Parameter]\na (int) : 1\n[Constraint]\n{}a = 1\n", "(".repeat(100_000));
    assert!(parse(&acts, Path::new("deep"), Format::Acts).is_err());
    let pict = format!("a: 1\n{}[a] = 1;\n", "NOT ".repeat(100_000));
    assert!(parse(&pict, Path::new("deep"), Format::Pict).is_err());
}

#[test]
fn toml_errors_are_one_line() {
    for text in ["a = \n", "[[parameter]]\nname = 'a'\nvalues = [1, 2\n", "x = 1\nx = 2\n", "[[parameter]]\nname = 3\nvalues = [1]\n"] {
        let e = parse(text, Path::new("m.toml"), Format::Native).unwrap_err();
        assert!(!e.message.contains('\n'), "{e}");
        check_location(text, &e);
    }
}
