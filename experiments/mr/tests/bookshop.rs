//! The bookshop example of issue 4: run 1 (seed 1) of the original MRG tool gives 16 relations
//! (CC 2, CE 3, DC 1, DE 1, SC 1, SE 2, DP 3, CP 1, IE 2; follow-ups min 1, max 3, mean 1.625).

use std::path::PathBuf;

use rigor_mr::{generate, spec::Spec, tests_csv, Mode, MrType, Options, Sut};

#[test]
fn run_one_matches_the_original() {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bookshop");
    let spec = Spec::from_path(d.join("spec.yml")).unwrap();
    let f = &spec.features[0];
    let sut = Sut::new(f, &f.id, Mode::Compat).unwrap();
    let tests = sut
        .tests(&tests_csv::read_path(d.join("testCases.csv"), f).unwrap())
        .unwrap();
    let run = generate(&sut, &tests, &Options::default()).unwrap();
    let counts: Vec<usize> = MrType::ALL.iter().map(|&t| run.count(t)).collect();
    assert_eq!(counts, [2, 3, 1, 1, 1, 2, 3, 1, 2]);
    assert_eq!(run.mrs.len(), 16);
    let (min, max, mean) = run.follow_up_stats().unwrap();
    assert_eq!((min, max), (1, 3));
    assert!((mean - 1.625).abs() < 1e-12, "mean {mean}");
}
