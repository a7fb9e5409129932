//! The three shipped MRG subjects (tests/fixtures/mrg, copied from the MET22 replication package)
//! parse, and their source tests are checked against the constraints of their specification.

use std::path::PathBuf;

use rigor_mr::{spec::Spec, tests_csv, AllValue, ParseMode};

fn dir(subject: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mrg")
        .join(subject)
}

/// (subject, feature id, parameters, constraints, source tests)
/// 14 Prestashop `status` cells in lower case (`canceled`, `delivered`, `refunded`; the enum has
/// `Canceled`, `Delivered`, `Refunded`) and Steam Test-16 `specialOffers=showAll` (enum has only
/// `showOnlySpecialOffers`).
const EXPECTED_OUTSIDE: usize = 15;

const SUBJECTS: [(&str, &str, usize, usize, usize); 3] = [
    ("Prestashop", "ListOrders", 11, 0, 18),
    ("SkyScanner", "searchFlights", 14, 15, 12),
    ("Steam", "SearchTheStore", 14, 0, 17),
];

#[test]
fn fixture_specs_and_tests_parse() {
    for (subject, id, n_params, n_constraints, n_tests) in SUBJECTS {
        let spec = Spec::from_path(dir(subject).join("spec.yml")).unwrap();
        assert_eq!(spec.features.len(), 1, "{subject}");
        let f = spec.feature(&id.to_uppercase()).unwrap();
        assert_eq!(f.id, id);
        assert_eq!(f.parameters.len(), n_params, "{subject}");
        assert_eq!(f.constraints.len(), n_constraints, "{subject}");
        let tests = tests_csv::read_path(dir(subject).join("testCases.csv"), f).unwrap();
        assert_eq!(tests.len(), n_tests, "{subject}");
        assert_eq!(tests[0].id, "Test-01");
        assert_eq!(tests.last().unwrap().id, format!("Test-{n_tests:02}"));
    }
}

#[test]
fn fixture_details_are_read_as_written() {
    let p = Spec::from_path(dir("Prestashop").join("spec.yml")).unwrap();
    let f = &p.features[0];
    // `yes`/`no` stay strings (no YAML 1.1 booleans).
    assert_eq!(
        f.parameter("new_client")
            .unwrap()
            .enum_values
            .as_deref()
            .unwrap(),
        ["yes", "no"]
    );
    assert_eq!(
        f.parameter("order").unwrap().default.as_deref(),
        Some("id descending")
    );
    assert_eq!(f.parameters[0].name, "id");
    assert_eq!(f.parameters[10].name, "order");
    let c = &f.configuration;
    assert_eq!(c.ordering_parameters, ["order"]);
    assert_eq!(c.conjunctive_filters.len(), 9);
    assert_eq!(c.disjoint_filters.len(), 2);
    assert_eq!(c.disjoint_filters[1].parameter, "status");
    assert_eq!(c.disjoint_filters[1].values.len(), 13);
    assert!(c
        .complete_filters
        .iter()
        .all(|c| c.all_value == AllValue::Empty));

    let s = Spec::from_path(dir("SkyScanner").join("spec.yml")).unwrap();
    let f = &s.features[0];
    assert_eq!(
        f.configuration.disjunctive_filters,
        ["from_nearby_airports", "to_nearby_airports"]
    );
    assert_eq!(
        f.configuration.conjunctive_filters,
        ["non_stop_flights_only"]
    );
    assert_eq!(f.parameter("adults").unwrap().default.as_deref(), Some("1"));
    assert!(f.parameter("trip_type").unwrap().is_required());
    assert_eq!(
        f.constraints[0].native.to_string(),
        "trip_type = Roundtrip requires return"
    );
    assert_eq!(f.constraints[0].compat, f.constraints[0].native);

    let st = Spec::from_path(dir("Steam").join("spec.yml")).unwrap();
    let f = &st.features[0];
    assert_eq!(
        f.parameter("tag").unwrap().enum_values.as_ref().unwrap()[11],
        "2d"
    );
    assert_eq!(f.configuration.conjunctive_filters.len(), 13);
    assert_eq!(f.configuration.disjoint_filters[0].values.len(), 9);
}

/// Every source test satisfies its specification's constraints, in both parse modes. (Only SkyScanner
/// has constraints; all of its twelve tests satisfy all fifteen.)
#[test]
fn fixture_tests_satisfy_constraints() {
    let mut violations = Vec::new();
    for (subject, ..) in SUBJECTS {
        let spec = Spec::from_path(dir(subject).join("spec.yml")).unwrap();
        let f = &spec.features[0];
        let tests = tests_csv::read_path(dir(subject).join("testCases.csv"), f).unwrap();
        for t in &tests {
            for c in &f.constraints {
                for (mode, parsed) in [
                    (ParseMode::Compat, &c.compat),
                    (ParseMode::Native, &c.native),
                ] {
                    if !parsed.eval(|p| t.get(p)) {
                        violations.push(format!(
                            "{subject} {} violates {:?} ({mode:?})",
                            t.id, c.text
                        ));
                    }
                }
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

/// Not a constraint, but worth knowing: source-test values outside the parameter's `enum`
/// (compared exactly). Listed here so that a later change to matching rules is noticed.
#[test]
fn fixture_values_outside_enums_are_known() {
    let mut outside = Vec::new();
    for (subject, ..) in SUBJECTS {
        let spec = Spec::from_path(dir(subject).join("spec.yml")).unwrap();
        let f = &spec.features[0];
        for t in tests_csv::read_path(dir(subject).join("testCases.csv"), f).unwrap() {
            for (p, v) in &t.values {
                if let Some(e) = &f.parameter(p).unwrap().enum_values {
                    if !e.contains(v) {
                        outside.push(format!("{subject}/{}/{p}={v}", t.id));
                    }
                }
            }
        }
    }
    println!("{outside:#?}");
    assert_eq!(outside.len(), EXPECTED_OUTSIDE, "{outside:#?}");
}
