//! End-to-end tests of the command line: validation, authentication and protocol refusal,
//! determinism across worker counts, and the one-process `rigor run`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::*;

const VALID: &str = r#"[study]
name = "valid"
seed = 4
repetitions = 2

[[experiment]]
id = "grid"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [1, 2] }
"#;

#[test]
fn invalid_study_files_are_refused_with_their_location_and_nothing_is_stored() {
    let c = Cluster::start(CoordOpts::default());
    let url = c.url();
    // (file name, text, expected line, expected field or "" when the problem is syntax)
    let cases: [(&str, String, usize, &str); 5] = [
        ("syntax.toml", VALID.replace("seed = 4", "seed = = 4"), 3, ""),
        ("kind.toml", VALID.replace("kind = \"noop\"", "kind = \"nope\""), 8, "experiment[0].kind"),
        ("type.toml", VALID.replace("work_ms = [1, 2]", "work_ms = [1, \"slow\"]"), 10, "experiment[0].params.work_ms"),
        ("unknown-field.toml", VALID.replace("subjects =", "timeout_s = 5\nsubject ="), 10, ""),
        (
            "missing-file.toml",
            VALID.replace("subjects = [\"a\", \"b\"]", "subjects = [{ name = \"x\", files = { spec = \"missing.yml\" } }]"),
            9,
            "subjects.files",
        ),
    ];
    for (name, text, line, field) in &cases {
        let path = c.study(name, text);
        let out = run(&["submit", s(&path), "--coordinator", &url]).expect_code(2, &format!("rigor submit {name}"));
        let located = format!("{}:{line}:", path.display());
        assert!(out.stderr.contains(&located), "{name}: the message names {located}:\n{}", out.stderr);
        assert!(out.stderr.contains(field), "{name}: the message names the field `{field}`:\n{}", out.stderr);
        assert!(out.stdout.is_empty(), "{name}: nothing submitted:\n{}", out.stdout);
        // Nothing is stored.
        let listed = run(&["status", "--coordinator", &url]).ok("rigor status");
        assert_eq!(listed.stdout.trim(), "", "{name}: a study was stored");
        // `rigor run` refuses it too, before creating anything.
        let out_dir = c.root().join(format!("run-{name}"));
        run(&["run", s(&path), "--workers", "1", "--out", s(&out_dir)]).expect_code(2, &format!("rigor run {name}"));
        assert!(!out_dir.exists(), "{name}: rigor run created its output directory");
    }
    // Specific messages.
    let kind = run(&["submit", s(&c.root().join("kind.toml")), "--coordinator", &url]);
    assert!(kind.stderr.contains("unknown kind `nope`"), "{}", kind.stderr);
    let missing = run(&["submit", s(&c.root().join("missing-file.toml")), "--coordinator", &url]);
    assert!(missing.stderr.contains("missing.yml"), "{}", missing.stderr);
    let unknown = run(&["submit", s(&c.root().join("unknown-field.toml")), "--coordinator", &url]);
    assert!(unknown.stderr.contains("unknown field `subject`"), "{}", unknown.stderr);

    // A study file that does not exist is a usage error too.
    run(&["submit", s(&c.root().join("nope.toml")), "--coordinator", &url]).expect_code(2, "submit of a missing file");

    // Control: a valid study is stored and listed.
    let good = c.study("valid.toml", VALID);
    assert_eq!(parse_submitted(&c.submit(&good)), (8, 8, 0));
    let listed = run(&["status", "--coordinator", &url]).ok("rigor status");
    assert_eq!(listed.stdout.trim(), "valid\t8 jobs");
    // Unknown study names are usage errors.
    run(&["status", "nope", "--coordinator", &url]).expect_code(2, "status of an unknown study");
}

#[test]
fn wrong_token_and_wrong_protocol_are_refused() {
    let mut c = Cluster::start(CoordOpts { token: Some("A-secret".into()), ..Default::default() });
    let url = c.url();
    let wrong = run(&["status", "--coordinator", &url, "--token", "B-guess"]);
    assert!(wrong.code.is_some_and(|c| c != 0), "a wrong token fails: {wrong:?}");
    assert!(wrong.stderr.contains("wrong token") || wrong.stderr.contains("nauthenticated"), "{}", wrong.stderr);
    let none = run(&["status", "--coordinator", &url]);
    assert!(none.code.is_some_and(|c| c != 0), "no token fails: {none:?}");
    assert!(none.stderr.contains("token"), "{}", none.stderr);
    run(&["status", "--coordinator", &url, "--token", "A-secret"]).ok("the right token works");
    // The token also comes from the environment.
    let mut cmd = rigor();
    let env = cmd.args(["status", "--coordinator", &url]).env("RIGOR_TOKEN", "A-secret").output().unwrap();
    assert!(env.status.success(), "RIGOR_TOKEN works: {}", String::from_utf8_lossy(&env.stderr));

    // A worker with the wrong token is refused and exits.
    let mut opts = WorkerOpts::new("badtoken", 1);
    opts.token = Some("B-guess".into());
    let w = c.add_worker(opts);
    let status = c.workers[w].wait_exit(Duration::from_secs(30));
    assert!(!status.success(), "the worker with a wrong token exits non-zero");
    let err = c.workers[w].stderr();
    assert!(err.contains("refused") && err.contains("wrong token"), "{err}");

    // A worker speaking another protocol version is refused and exits.
    let mut opts = WorkerOpts::new("old", 1);
    opts.token = Some("A-secret".into());
    opts.extra = vec!["--protocol-version".into(), "999".into()];
    let w = c.add_worker(opts);
    let status = c.workers[w].wait_exit(Duration::from_secs(30));
    assert!(!status.success(), "the worker with protocol 999 exits non-zero");
    let err = c.workers[w].stderr();
    assert!(err.contains("protocol") && err.contains("999"), "{err}");

    // The right token and protocol work end to end.
    let mut opts = WorkerOpts::new("good", 1);
    opts.token = Some("A-secret".into());
    let w = c.add_worker(opts);
    let file = c.study("t.toml", VALID);
    let out = run(&["submit", s(&file), "--coordinator", &url, "--token", "A-secret"]).ok("submit with token");
    assert_eq!(parse_submitted(&out.stdout).0, 8);
    run(&["watch", "valid", "--coordinator", &url, "--token", "A-secret"]).ok("watch with token");
    assert_eq!(c.results("valid").ids_with_status("ok").len(), 8);
    c.workers[w].assert_alive();
}

/// A study exercising metrics, series, seeded failures and retries, and dependencies.
const DETERMINISTIC: &str = r#"
[study]
name = "determinism"
seed = 2024
repetitions = 3
retries = 1

[[experiment]]
id = "gen"
kind = "noop"
subjects = ["a", "b", "c"]
params = { work_ms = [0, 3], points = [4, 9] }

[[experiment]]
id = "flaky"
kind = "noop"
subjects = ["a", "b"]
params = { fail_rate = [0.0, 0.5], points = 3 }

[[experiment]]
id = "after"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [0] }
needs = "gen"
"#;

/// Exported artifacts: path under `<out>/artifacts` -> bytes (the manifest included).
fn artifacts(out: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).expect("artifacts dir").flatten() {
            if e.path().is_dir() {
                walk(root, &e.path(), out);
            } else {
                let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out_map = BTreeMap::new();
    walk(&out.join("artifacts"), &out.join("artifacts"), &mut out_map);
    out_map
}

#[test]
fn one_worker_and_four_workers_give_identical_results() {
    let dir = tmp();
    let study = write(dir.path(), "det.toml", DETERMINISTIC);
    let mut outs = Vec::new();
    for workers in ["1", "4"] {
        let out_dir = dir.path().join(format!("out-{workers}"));
        let r = run(&["run", s(&study), "--workers", workers, "--out", s(&out_dir)]);
        // fail_rate 0.5 fails some jobs, identically: exit 1 in both runs.
        let r = r.expect_code(1, &format!("rigor run --workers {workers}"));
        assert!(r.stdout.contains("determinism:"), "{}", r.stdout);
        outs.push(out_dir);
    }
    let read = |d: &Path, f: &str| Table::parse(&std::fs::read_to_string(d.join(f)).unwrap());
    let (r1, r4) = (read(&outs[0], "results.csv"), read(&outs[1], "results.csv"));
    assert_eq!(r1.header, r4.header);
    let jobs = 3 * 2 * 2 * 3 + 2 * 2 * 3 + 2 * 3;
    assert_eq!(r1.job_ids().len(), jobs);
    let failed = r1.ids_with_status("failed");
    assert!(!failed.is_empty() && failed.len() < 12, "fail_rate 0.5 fails some flaky jobs: {}", failed.len());
    // Seeded failures repeat on retry: those jobs used both attempts.
    for id in &failed {
        assert_eq!(r1.get(&r1.per_job()[id], "attempts"), "2");
    }
    let workers4: std::collections::BTreeSet<&str> = r4.rows.iter().map(|r| r4.get(r, "worker")).collect();
    assert_eq!(workers4.len(), 1, "rigor run has one worker with N slots");

    let mut drop: Vec<&str> = vec!["error"];
    drop.extend(["worker", "host", "cpu_model", "wall_ms", "cpu_ms", "peak_rss_kb", "started_unix_ms", "finished_unix_ms"]);
    drop.extend(["rigor_version", "git_commit", "technique_version"]);
    let (c1, c4) = (r1.canonical_without(&drop), r4.canonical_without(&drop));
    assert_eq!(c1.len(), c4.len());
    for (a, b) in c1.iter().zip(&c4) {
        assert_eq!(a, b, "results differ between 1 and 4 workers");
    }
    let (s1, s4) = (read(&outs[0], "series.csv"), read(&outs[1], "series.csv"));
    assert!(!s1.rows.is_empty());
    assert_eq!(s1.canonical_without(&[]), s4.canonical_without(&[]), "series differ between 1 and 4 workers");
    // Artifacts: the exported trees hold the same files (every out.txt, byte for byte, plus the manifest).
    let (a1, a4) = (artifacts(&outs[0]), artifacts(&outs[1]));
    let ok_jobs = jobs - failed.len();
    assert_eq!(a1.len(), ok_jobs + 1, "one out.txt per ok job, and artifacts.csv");
    assert!(a1.keys().filter(|k| k.ends_with("/out.txt")).count() == ok_jobs);
    assert_eq!(a1, a4, "artifacts differ between 1 and 4 workers");
    // Dependent jobs received the artifact of the job they need.
    let inputs = r1.metric("inputs");
    let per_job = r1.per_job();
    for (id, v) in &inputs {
        let want = if r1.get(&per_job[id], "experiment") == "after" { "2" } else { "0" };
        assert_eq!(v, want, "inputs of {id}");
    }
}

#[test]
fn quickstart_runs_in_one_process() {
    let dir = tmp();
    let study = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/studies/quickstart.toml");
    let out = dir.path().join("quickstart");
    run(&["run", s(&study), "--out", s(&out)]).ok("rigor run quickstart");
    for f in [
        "results.csv",
        "results.json",
        "results.parquet",
        "series.csv",
        "artifacts/artifacts.csv",
        "index.html",
        "tables/comparison-value.tex",
        "tables/wide.md",
        "plots/heatmap-value.png",
        "plots/sweep-value-work_ms.svg",
    ] {
        let meta = std::fs::metadata(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(meta.len() > 0, "{f} is empty");
    }
    // Parquet files open and close with the magic bytes `PAR1`.
    let parquet = std::fs::read(out.join("results.parquet")).unwrap();
    assert!(parquet.starts_with(b"PAR1") && parquet.ends_with(b"PAR1"), "results.parquet is not Parquet");
    let results = Table::parse(&std::fs::read_to_string(out.join("results.csv")).unwrap());
    assert_eq!(results.job_ids().len(), 25);
    assert_eq!(results.ids_with_status("ok").len(), 25);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(results.rows.len()));
    let series = Table::parse(&std::fs::read_to_string(out.join("series.csv")).unwrap());
    assert!(series.rows.len() >= 20 * 20, "noop-grid jobs have 20 points each");

    // Running again resumes: every job is reused, nothing is new.
    let again = run(&["run", s(&study), "--out", s(&out)]).ok("rigor run quickstart again");
    assert!(again.stderr.contains("25 jobs (0 new, 25 reused"), "{}", again.stderr);
}
