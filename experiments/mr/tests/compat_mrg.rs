//! Compat mode writes exactly the files of the MRG tool's published runs (MET22 replication
//! package, copied into tests/fixtures/mrg): three subjects × ten runs × three files.

use std::path::PathBuf;

use rigor_mr::{generate, render, spec::Spec, tests_csv, Mode, Options, Sut};

fn dir(subject: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mrg")
        .join(subject)
}

fn check(subject: &str, feature: &str) {
    let d = dir(subject);
    let spec = Spec::from_path(d.join("spec.yml")).unwrap();
    let f = spec.feature(feature).unwrap();
    let sut = Sut::new(f, feature, Mode::Compat).unwrap();
    let source = tests_csv::read_path(d.join("testCases.csv"), f).unwrap();
    let tests = sut.tests(&source).unwrap();
    let domain = format!("{subject} ({feature})");
    let mut mismatches = Vec::new();
    for run in 1..=10usize {
        let opts = Options {
            seed: 1 + 10_000 * (run as i64 - 1),
            ..Options::default()
        };
        let r = generate(&sut, &tests, &opts).unwrap();
        let files = render::files(&sut, &domain, run, &r.mrs, opts.max_futcs);
        assert_eq!(files.len(), 3);
        for (name, got) in files {
            let want = std::fs::read_to_string(d.join("results").join(&name)).unwrap();
            if got != want {
                let line = got
                    .lines()
                    .zip(want.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.lines().count().min(want.lines().count()));
                mismatches.push(format!(
                    "{subject}/{name}: first difference at line {}: got {:?}, want {:?}",
                    line + 1,
                    got.lines().nth(line),
                    want.lines().nth(line)
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn prestashop_is_identical() {
    check("Prestashop", "ListOrders");
}

#[test]
fn skyscanner_is_identical() {
    check("SkyScanner", "searchFlights");
}

#[test]
fn steam_is_identical() {
    check("Steam", "SearchTheStore");
}
