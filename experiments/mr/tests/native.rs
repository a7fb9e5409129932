//! Native mode fixes what the original gets wrong: clear errors instead of crashes, spaces in
//! constraint values, complete partitions never missing a part.

use std::io::Write;

use rigor_mr::{generate, spec::Spec, tests_csv, Mode, MrError, MrType, Options, Subject, Sut};

fn load(spec: &str, tests: &str, mode: Mode) -> Result<Subject, MrError> {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("Shop").join("spec.yml");
    std::fs::create_dir_all(s.parent().unwrap()).unwrap();
    std::fs::File::create(&s).unwrap().write_all(spec.as_bytes()).unwrap();
    let t = dir.path().join("tests.csv");
    std::fs::write(&t, tests).unwrap();
    Subject::load(&s, &t, None, None, mode)
}

const BASE: &str = "features:\n- id: Find\n  parameters:\n  - {name: q, required: true}\n  - {name: cabin, required: false, enum: [Economy, Premium economy, Business]}\n  - {name: bags, required: false}\n";

#[test]
fn errors_name_file_test_and_constraint() {
    let cases: [(&str, &str, &str); 5] = [
        // missing `required`
        ("features:\n- id: F\n  parameters:\n  - {name: q}\n", "test_id;q\nT1;x\n", "parameter \"q\" has no `required"),
        // ordering parameter without enum
        (&format!("{BASE}  configuration: {{ordering_parameters: [bags]}}\n"), "test_id;q\nT1;x\n", "ordering parameter \"bags\" has no `enum`"),
        // unknown CSV column
        (BASE, "test_id;q;zzz\nT1;x;1\n", "column 3 (\"zzz\") is not a parameter"),
        // a source test violating a constraint
        (&format!("{BASE}  constraints:\n  - constraint: cabin = Premium economy requires bags\n"), "test_id;q;cabin\nT1;x;Economy\nT2;y;Premium economy\n", "source test T2 violates constraint `cabin = Premium economy requires bags`"),
        // complete filter without all_value
        (&format!("{BASE}  configuration:\n    complete_filters: [{{parameter: cabin}}]\n"), "test_id;q\nT1;x\n", "missing `all_value`"),
    ];
    for (spec, tests, want) in cases {
        let e = load(spec, tests, Mode::Native).unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} lacks {want:?}");
        assert!(e.contains(".yml") || e.contains(".csv"), "{e:?} names no file");
    }
}

#[test]
fn constraint_values_with_spaces_work_natively_only() {
    let spec = format!("{BASE}  constraints:\n  - constraint: cabin = Premium economy requires bags\n  configuration:\n    conjunctive_filters: [bags]\n");
    let tests = "test_id;q;cabin;bags\nT1;x;Premium economy;2\n";
    // Native: the constraint binds, so removing `bags` from T1 is never proposed.
    let s = load(&spec, tests, Mode::Native).unwrap();
    let run = generate(&s.sut, &s.tests, &Options::default()).unwrap();
    assert_eq!(run.count(MrType::ConjunctiveContract), 0);
    // Compat: the original compares against `Premiumeconomy`, the constraint never binds.
    let s = load(&spec, tests, Mode::Compat).unwrap();
    let run = generate(&s.sut, &s.tests, &Options::default()).unwrap();
    assert_eq!(run.count(MrType::ConjunctiveContract), 1);
}

#[test]
fn complete_partition_with_an_invalid_part_is_dropped_whole_natively() {
    let spec = format!(
        "{BASE}  constraints:\n  - constraint: cabin = Business requires bags\n  configuration:\n    complete_filters: [{{parameter: cabin, all_value: empty}}]\n"
    );
    let tests = "test_id;q\nT1;x\n";
    let s = load(&spec, tests, Mode::Compat).unwrap();
    let run = generate(&s.sut, &s.tests, &Options::default()).unwrap();
    assert_eq!(run.count(MrType::CompleteExtend), 1);
    assert_eq!(run.mrs[0].follow_ups.len(), 2, "the original keeps a union relation without Business");
    let s = load(&spec, tests, Mode::Native).unwrap();
    let run = generate(&s.sut, &s.tests, &Options::default()).unwrap();
    assert_eq!(run.count(MrType::CompleteExtend), 0);
}

#[test]
fn empty_pools_crash_compat_and_are_skipped_natively() {
    // The only disjoint value is the test's own: the original calls nextInt(0).
    let spec = format!("{BASE}  configuration:\n    disjoint_filters: [{{parameter: cabin, values: [Business]}}]\n");
    let tests = "test_id;q;cabin\nT1;x;Business\n";
    let s = load(&spec, tests, Mode::Compat).unwrap();
    let e = generate(&s.sut, &s.tests, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("nextInt(0)"), "{e}");
    let s = load(&spec, tests, Mode::Native).unwrap();
    assert!(generate(&s.sut, &s.tests, &Options::default()).unwrap().mrs.is_empty());
}

#[test]
fn unordered_duplicates_merge_relations_differing_in_follow_up_order() {
    // Two conjunctive filters, many tries: chains removing {a} then {b} and {b} then {a} are
    // different relations by their text and the same ones when order is ignored.
    let spec = "features:\n- id: F\n  parameters:\n  - {name: q, required: true}\n  - {name: a, required: false}\n  - {name: b, required: false}\n  configuration:\n    conjunctive_filters: [a, b]\n";
    let d = tempfile::tempdir().unwrap();
    let f = &Spec::parse(spec, "s.yml").unwrap().features[0];
    std::fs::write(d.path().join("t.csv"), "test_id;q;a;b\nT1;x;1;2\n").unwrap();
    let sut = Sut::new(f, "F", Mode::Native).unwrap();
    let tests = sut.tests(&tests_csv::read_path(d.path().join("t.csv"), f).unwrap()).unwrap();
    let opts = |u| Options { search_strength: 20, unordered_duplicates: u, ..Options::default() };
    let ordered = generate(&sut, &tests, &opts(false)).unwrap().count(MrType::ConjunctiveContract);
    let unordered = generate(&sut, &tests, &opts(true)).unwrap().count(MrType::ConjunctiveContract);
    assert!(unordered < ordered, "{unordered} !< {ordered}");
}
