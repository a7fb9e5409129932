//! Combinatorial testing end to end: `rigor ct generate` and `rigor ct check` on real model files,
//! and a study that generates suites and runs them against the insurance service's faults.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generate_then_check_a_casa_model() {
    let dir = tmp();
    let model = root().join("experiments/ct/tests/fixtures/casa/spins_2way.model");
    let suite = dir.path().join("spins.csv");
    let o = run(&["ct", "generate", s(&model), "--strength", "2", "--out", s(&suite)]).ok("rigor ct generate");
    assert!(o.stderr.contains("tests (relevant t=2)"), "{}", o.stderr);
    let text = std::fs::read_to_string(&suite).unwrap();
    let rows = text.lines().count() - 1;
    assert!(rows >= 16 && rows <= 29, "SPIN-S pairwise: {rows} tests (optimum 19, PICT 29)");
    let ok = run(&["ct", "check", s(&model), s(&suite), "--strength", "2"]).ok("rigor ct check");
    assert!(ok.stdout.contains("Relevant(2)"), "{}", ok.stdout);
    // Drop the last test: some pair goes missing and check says which.
    let fewer: String = text.lines().take(rows).map(|l| format!("{l}\n")).collect();
    let cut = write(dir.path(), "cut.csv", &fewer);
    let bad = run(&["ct", "check", s(&model), s(&cut), "--strength", "2"]);
    assert_eq!(bad.code, Some(1), "{}", bad.stdout);
    assert!(bad.stdout.contains("missing: p"), "{}", bad.stdout);
    // A model error names the file, line and column.
    let broken = write(dir.path(), "broken.toml", "[[parameter]]\nname = \"a\"\nvalues = [1, 2]\n[[exclusion]]\nwhen = \"a >= \"\n");
    let e = run(&["ct", "generate", s(&broken)]).expect_code(2, "broken model");
    assert!(e.stderr.contains("broken.toml:5:"), "{}", e.stderr);
}

#[test]
fn a_robustness_study_detects_faults_on_workers() {
    let dir = tmp();
    let model = root().join("experiments/ct-insurance/model.toml");
    let study = format!(
        r#"[study]
name = "crt-mini"
seed = 5
repetitions = 2

[[experiment]]
id = "valid"
kind = "ct.execute"
subjects = [{{ name = "insurance", files = {{ model = "{m}" }} }}]
params = {{ system = "insurance", criterion = "valid", strength = 1 }}

[[experiment]]
id = "robust"
kind = "ct.execute"
subjects = [{{ name = "insurance", files = {{ model = "{m}" }} }}]
params = {{ system = "insurance", criterion = "robust", strength = 2, robustness = 1 }}
"#,
        m = model.display()
    );
    let path = write(dir.path(), "crt-mini.toml", &study);
    let out = dir.path().join("out");
    run_timeout(&["run", s(&path), "--workers", "2", "--out", s(&out)], &[], Duration::from_secs(600)).ok("rigor run");
    let t = Table::parse(&std::fs::read_to_string(out.join("results.csv")).unwrap());
    assert_eq!(t.ids_with_status("ok").len(), 4);
    let detected = |exp: &str| -> Vec<f64> {
        t.rows
            .iter()
            .filter(|r| t.get(r, "experiment") == exp && t.get(r, "metric") == "detected")
            .map(|r| t.get(r, "value").parse().unwrap())
            .collect()
    };
    // Valid tests cannot reveal the 5 invalid-only faults; adding strong invalid tests finds all 13.
    for d in detected("valid") {
        assert!(d <= 8.0 / 13.0 + 1e-9, "valid suites detect at most 8 of 13: {d}");
    }
    let robust = detected("robust");
    assert_eq!(robust.len(), 2);
    for d in robust {
        assert!((d - 1.0).abs() < 1e-9, "robust suites detect every fault: {d}");
    }
}
