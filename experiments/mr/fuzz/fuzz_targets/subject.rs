//! A fixed spec with fuzzed source tests (CSV) and relations (JSON): reading, generating, writing
//! every output file and reading relations back never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_mr::{generate, render, spec::Spec, tests_csv, Mode, Options, Sut};

const SPEC: &str = "features:\n- id: F\n  parameters:\n  - {name: q, required: true}\n  - {name: g, required: false, enum: [a, b, c]}\n  - {name: s, required: false, enum: [x, y], default: x}\n  - {name: n, required: false}\n  - {name: l, required: false}\n  constraints:\n  - constraint: n requires g\n  - constraint: g = a excludes s = y\n  configuration:\n    ordering_parameters: [s]\n    conjunctive_filters: [g, n]\n    disjunctive_filters: [n]\n    disjoint_filters: [{parameter: g}]\n    complete_filters: [{parameter: g, all_value: empty}]\n    limit_parameter: l\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let spec = Spec::parse(SPEC, "f.yml").expect("fixed spec");
    let f = &spec.features[0];
    // The same bytes as relations JSON.
    for mode in [Mode::Compat, Mode::Native] {
        let sut = Sut::new(f, "F", mode).expect("fixed spec");
        let _ = render::read_json(&sut, text);
        let Ok(source) = tests_csv::parse(text, "t.csv", f) else { continue };
        let Ok(tests) = sut.tests(&source) else { continue };
        let opts = Options { max_futcs: 3, ..Options::default() };
        if let Ok(run) = generate(&sut, &tests, &opts) {
            for (_, body) in render::files(&sut, "D (F)", 1, &run.mrs, opts.max_futcs) {
                assert!(!body.is_empty() || run.mrs.is_empty());
            }
            let back = render::read_json(&sut, &render::json(&sut, &run.mrs)).expect("own JSON reads back");
            assert_eq!(back.len(), run.mrs.len());
        }
    }
});
