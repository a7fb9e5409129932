//! End to end with rigor-ct's suite generator: the model is usable as is, t-wise valid suites
//! never reveal the invalid-only faults, and a robust suite (2-wise valid + 1-wise strong
//! invalid) reveals all 13.

use rigor_ct::ipog::Variant;
use rigor_ct::suite::{generate, Goal};
use rigor_ct_insurance::{evaluate, model, respond, FaultClass, Response, Version, FAULTS};

#[test]
fn valid_suites_miss_exactly_what_needs_invalid_inputs() {
    let m = model();
    let suite = generate(&m, Goal::Valid(2), Variant::default()).unwrap();
    assert!(suite.iter().all(|t| respond(Version::Correct, t) == Response::Success));
    for f in FAULTS {
        let (detected, _) = evaluate(f, &suite);
        if f.class() == Some(FaultClass::InvalidOnly) {
            assert!(!detected, "{}", f.name());
        }
    }
}

#[test]
fn a_robust_suite_detects_every_fault() {
    let m = model();
    let suite = generate(&m, Goal::Robust { t: 2, a: 1 }, Variant::default()).unwrap();
    for f in FAULTS {
        let (detected, failing) = evaluate(f, &suite);
        assert!(detected && failing > 0, "{}", f.name());
    }
    assert_eq!(evaluate(Version::Correct, &suite), (false, 0));
}
