//! The shipped CASA benchmarks load with their published profiles; `read` finds formats from file
//! names; models survive conversion to the native format.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rigor_ct::parse::{self, casa, expr::normalize, read, write_native, Format};
use rigor_ct::{CmpOp, Expr, Model, Operand};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/casa").join(name)
}

/// `2^13 4^5`-style profile of counts.
fn profile(items: impl IntoIterator<Item = usize>) -> String {
    let mut counts = BTreeMap::new();
    for n in items {
        *counts.entry(n).or_insert(0) += 1;
    }
    counts.iter().map(|(n, c)| format!("{n}^{c}")).collect::<Vec<_>>().join(" ")
}

fn clause_arity(e: &Expr) -> usize {
    match e {
        Expr::Or(lits) => lits.len(),
        other => panic!("not a clause: {other:?}"),
    }
}

#[test]
fn casa_benchmarks_have_the_published_profiles() {
    let expected = [
        ("spins", "2^13 4^5", "2^13"),
        ("spinv", "2^42 3^2 4^11", "2^47 3^2"),
        ("gcc", "2^189 3^10", "2^37 3^3"),
        ("apache", "2^158 3^8 4^4 5^1 6^1", "2^3 3^1 4^2 5^1"),
        ("bugzilla", "2^49 3^1 4^2", "2^4 3^1"),
    ];
    for (name, params, clauses) in expected {
        let path = fixture(&format!("{name}_2way.model"));
        let (m, t) = casa::read_with_strength(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t, 2, "{name}");
        assert_eq!(m.name, name);
        assert_eq!(profile(m.sizes()), params, "{name} parameters");
        assert_eq!(profile(m.exclusions.iter().map(clause_arity)), clauses, "{name} clauses");
        assert_eq!(read(&path, None).unwrap(), m, "read() loads the constraints too");
        assert_eq!(read(&path, Some(Format::Casa)).unwrap(), m);
    }
}

#[test]
fn casa_literals_name_parameter_and_value() {
    // SPIN-S: sizes 2 (x13) then 4 (x5); clause 1 is `- 1 - 3`, the last `- 7 - 8`, and
    // `- 1 - 27` involves value 27 = parameter 13's second value (26 values before it).
    let (m, _) = casa::read_with_strength(&fixture("spins_2way.model")).unwrap();
    let ne = |p, v: &str| Expr::Cmp(Operand::Param(p), CmpOp::Ne, Operand::Const(v.into()));
    assert_eq!(m.exclusions[0], Expr::Or(vec![ne(0, "1"), ne(1, "1")]));
    assert_eq!(m.exclusions[2], Expr::Or(vec![ne(0, "1"), ne(13, "1")]));
    assert_eq!(m.exclusions[12], Expr::Or(vec![ne(3, "1"), ne(4, "0")]));
}

#[test]
fn casa_without_constraints_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lonely_3way.model");
    std::fs::write(&path, "3\n4\n2 2 2 3\n").unwrap();
    let (m, t) = casa::read_with_strength(&path).unwrap();
    assert_eq!((t, m.exclusions.len(), m.name.as_str()), (3, 0, "lonely"));
    // A bad constraints file is reported under its own name.
    std::fs::write(dir.path().join("lonely.constraints"), "1\n1\n+ 99\n").unwrap();
    let e = read(&path, None).unwrap_err();
    assert_eq!((e.file.file_name().unwrap().to_str().unwrap(), e.line, e.column), ("lonely.constraints", 3, 1));
}

fn with_normalized_exclusions(mut m: Model) -> Model {
    m.exclusions = m.exclusions.iter().map(normalize).collect();
    m
}

#[test]
fn casa_models_convert_to_native() {
    for name in ["spins", "apache"] {
        let (m, _) = casa::read_with_strength(&fixture(&format!("{name}_2way.model"))).unwrap();
        let text = write_native(&m);
        let back = parse::parse(&text, Path::new("x.toml"), Format::Native).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, with_normalized_exclusions(m));
    }
}

#[test]
fn read_guesses_formats_and_reports_files() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("shop.toml", "[[parameter]]\nname = 'a'\nvalues = [1, 2]\n[[parameter]]\nname = 'b'\nvalues = ['x', 'y']\n[[exclusion]]\nwhen = 'a == 1 => b != \"x\"'\n"),
        ("shop.pict", "a: 1, 2\nb: x, y\nIF [a] = 1 THEN [b] <> \"x\";\n"),
        ("shop.txt", "a: 1, 2\nb: x, y\nIF [a] = 1 THEN [b] <> \"x\";\n"),
        ("shop.acts", "[System]\nName: shop\n[Parameter]\na (int) : 1, 2\nb (enum) : x, y\n[Constraint]\na = 1 => b != \"x\"\n"),
    ];
    let mut models = Vec::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let m = read(&path, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        models.push(m);
    }
    // The same model whatever the format.
    for m in &models[1..] {
        assert_eq!(m, &models[0]);
    }
    // An explicit format wins over the extension.
    let odd = dir.path().join("model.conf");
    std::fs::write(&odd, files[1].1).unwrap();
    assert!(read(&odd, None).is_err());
    assert_eq!(read(&odd, Some(Format::Pict)).unwrap().params.len(), 2);
    // Errors carry the path.
    let bad = dir.path().join("bad.pict");
    std::fs::write(&bad, "a: 1\n[b] = 1;\n").unwrap();
    let e = read(&bad, None).unwrap_err();
    assert_eq!(e.to_string(), format!("{}:2:1: unknown parameter `b`", bad.display()));
    // Not UTF-8.
    let bin = dir.path().join("bin.toml");
    std::fs::write(&bin, b"name = 'a'\n\xff").unwrap();
    let e = read(&bin, None).unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
}

#[test]
fn pict_and_acts_models_convert_to_native() {
    let pict = "Type: Primary, Logical, ~Broken\nSize: 10, 100, 500\n{ Type, Size } @ 2\n\
                IF [Type] = \"Primary\" THEN [Size] > 10 ELSE [Size] IN {10, 100};\n";
    let acts = "[Parameter]\nmode (enum) : fast, slow\nn (int) : 1, 2, 3\non (boolean) : true, false\n\
                [Relation]\nR : (mode, n, 2)\n[Constraint]\n(on) => n >= 2\n[Test Set]\nmode,n\nfast,*\n";
    for (text, format) in [(pict, Format::Pict), (acts, Format::Acts)] {
        let m = parse::parse(text, Path::new("m"), format).unwrap();
        let native = write_native(&m);
        let back = parse::parse(&native, Path::new("m.toml"), Format::Native).unwrap_or_else(|e| panic!("{e}\n{native}"));
        assert_eq!(back, m, "{native}");
    }
}
