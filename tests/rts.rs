//! Regression test selection end to end: `rigor rts simulate|mine|impact|select|evaluate` on real
//! files written by the simulator, bad inputs, and a study of `rts.select` jobs on workers.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::*;

#[test]
fn simulate_then_select_and_evaluate_from_files() {
    let dir = tmp();
    let sim = dir.path().join("sim");
    let o = run(&["rts", "simulate", "--profile", "z-shop", "--records", "3000", "--format", "otlp", "--out", s(&sim)]).ok("simulate");
    assert!(o.stderr.contains("z-shop: 43 services, 913 tests, 4 versions"), "{}", o.stderr);
    for v in 1..=4 {
        for f in ["traces.otlp.jsonl", "changed.txt", "tests.csv", "faults.csv", "dependencies.csv"] {
            assert!(sim.join(format!("v{v}")).join(f).is_file(), "v{v}/{f}");
        }
    }
    // The same seed writes the same files.
    let again = dir.path().join("again");
    run(&["rts", "simulate", "--profile", "z-shop", "--records", "3000", "--format", "otlp", "--out", s(&again)]).ok("simulate again");
    for f in ["system.json", "v2/traces.otlp.jsonl", "v3/faults.csv"] {
        assert_eq!(std::fs::read(sim.join(f)).unwrap(), std::fs::read(again.join(f)).unwrap(), "{f}");
    }

    let traces = sim.join("v2/traces.otlp.jsonl");
    let changed = sim.join("v3/changed.txt");
    let tests = sim.join("v3/tests.csv");
    let sel = run(&["rts", "select", "--traces", s(&traces), "--changed", s(&changed), "--tests", s(&tests)]).ok("select");
    let selected: BTreeSet<&str> = sel.stdout.lines().collect();
    assert!(!selected.is_empty() && selected.len() < 913, "{} selected", selected.len());
    assert!(sel.stderr.contains("NO 913") && sel.stderr.contains(&format!("NR {}", selected.len())), "{}", sel.stderr);
    // Every test that reveals a fault of v3 runs through a changed service, so it is selected.
    let faults = std::fs::read_to_string(sim.join("v3/faults.csv")).unwrap();
    for row in faults.lines().skip(1) {
        for t in row.rsplit(',').next().unwrap().split(';').filter(|t| !t.is_empty()) {
            assert!(selected.contains(t), "revealing test {t} not selected");
        }
    }
    // Complete satisfaction selects a subset.
    let complete = run(&["rts", "select", "--traces", s(&traces), "--changed", s(&changed), "--tests", s(&tests), "--strategy", "complete"]).ok("complete");
    assert!(complete.stdout.lines().all(|t| selected.contains(t)));

    let mine = run(&["rts", "mine", "--traces", s(&traces)]).ok("mine");
    assert!(mine.stdout.starts_with("caller,callee,support,weight\n") && mine.stdout.lines().count() > 10, "{}", mine.stdout);
    assert!(mine.stderr.contains("item frequency range"), "{}", mine.stderr);
    let impact = run(&["rts", "impact", "--traces", s(&traces), "--changed", s(&changed)]).ok("impact");
    let first_changed = std::fs::read_to_string(&changed).unwrap().lines().next().unwrap().to_string();
    assert!(impact.stdout.contains(&format!("{first_changed},1")), "{}", impact.stdout);

    let eval = run(&["rts", "evaluate", s(&sim), "--version", "3"]).ok("evaluate");
    for method in ["mrts-bp", "static", "retest-all"] {
        assert!(eval.stdout.lines().any(|l| l.starts_with(method)), "{}", eval.stdout);
    }
    assert!(eval.stdout.contains("c sweep"), "{}", eval.stdout);
    let mrts = eval.stdout.lines().find(|l| l.starts_with("mrts-bp")).unwrap();
    assert!(mrts.contains(&format!(" {} ", selected.len())), "evaluate and select agree: {mrts}");
}

#[test]
fn bad_inputs_are_reported_with_their_place() {
    let dir = tmp();
    let tests = write(dir.path(), "tests.csv", "id,path,time_ms\nt1,gateway;orders,12\nt2,gateway;pay,3\n");
    // Two good spans and one malformed record: reported with its line, the rest used.
    let traces = write(
        dir.path(),
        "log.csv",
        "trace_id,span_id,parent_id,caller,callee,timestamp_us\nt,1,,,gateway,10\nt,2,1,gateway,orders,11\nt,3,1,gateway\n",
    );
    let o = run(&["rts", "select", "--traces", s(&traces), "--changed", "orders", "--tests", s(&tests)]).ok("select with a malformed record");
    assert!(o.stderr.contains("1 malformed") && o.stderr.contains("log.csv:4"), "{}", o.stderr);
    assert_eq!(o.stdout.lines().collect::<Vec<_>>(), ["t1"]);

    let e = run(&["rts", "select", "--traces", s(&dir.path().join("none.csv")), "--changed", "a", "--tests", s(&tests)]).expect_code(2, "missing traces");
    assert!(e.stderr.contains("none.csv"), "{}", e.stderr);
    let bad_tests = write(dir.path(), "bad.csv", "id,path,time_ms\nt1,a;b,soon\n");
    let e = run(&["rts", "select", "--traces", s(&traces), "--changed", "a", "--tests", s(&bad_tests)]).expect_code(2, "bad tests");
    assert!(e.stderr.contains("bad.csv:2"), "{}", e.stderr);
    let e = run(&["rts", "select", "--traces", s(&traces), "--changed", "a", "--tests", s(&tests), "--strategy", "most"]).expect_code(2, "bad strategy");
    assert!(e.stderr.contains("unknown strategy `most`"), "{}", e.stderr);
    let e = run(&["rts", "simulate", "--profile", "big", "--out", s(&dir.path().join("x"))]).expect_code(2, "bad profile");
    assert!(e.stderr.contains("unknown profile `big`"), "{}", e.stderr);
    let e = run(&["rts", "evaluate", s(dir.path()), "--version", "1"]).expect_code(2, "version 1");
    assert!(e.stderr.contains("versions start at 2"), "{}", e.stderr);
}

#[test]
fn a_selection_study_runs_on_workers_with_paired_systems() {
    let dir = tmp();
    let study = r#"[study]
name = "rts-mini"
seed = 3
repetitions = 2

[[experiment]]
id = "mrts-bp"
kind = "rts.select"
subjects = ["z-shop"]
params = { method = "mrts-bp", seeds = ["frequent", "all"], c_step = -1, records = 3000 }

[[experiment]]
id = "static"
kind = "rts.select"
subjects = ["z-shop"]
params = { method = "static" }

[[experiment]]
id = "retest-all"
kind = "rts.select"
subjects = ["z-shop"]
params = { method = "retest-all" }
"#;
    let path = write(dir.path(), "rts-mini.toml", study);
    let out = dir.path().join("out");
    run_timeout(&["run", s(&path), "--workers", "2", "--out", s(&out)], &[], Duration::from_secs(600)).ok("rigor run");
    let t = Table::parse(&std::fs::read_to_string(out.join("results.csv")).unwrap());
    assert_eq!(t.ids_with_status("ok").len(), 8);
    let values = |exp: &str, metric: &str| -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = t
            .rows
            .iter()
            .filter(|r| t.get(r, "experiment") == exp && t.get(r, "metric") == metric)
            .map(|r| (format!("{}/{}", t.get(r, "seeds"), t.get(r, "repetition")), t.get(r, "value").parse().unwrap()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    // The largest safe c is safe, and every method sees the same system in a repetition: the
    // same faults (NOF) and the same suite size.
    for (_, r) in values("mrts-bp", "recall") {
        assert_eq!(r, 1.0);
    }
    let nof = |exp: &str| -> BTreeSet<(String, u64)> {
        values(exp, "nof").into_iter().map(|(k, v)| (k.rsplit('/').next().unwrap().to_string(), v as u64)).collect()
    };
    let reference = nof("retest-all");
    assert_eq!(reference.len(), 2);
    for exp in ["mrts-bp", "static"] {
        assert_eq!(nof(exp), reference, "{exp}");
    }
    for (_, en) in values("retest-all", "en") {
        assert_eq!(en, 0.0);
    }
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("recall_by_c"), "the sweep series is reported");
}
