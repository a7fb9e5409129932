//! Metamorphic relations end to end: `rigor mr generate` writes MRG's published files, `rigor mr
//! execute` runs relations against a real `rigor mr serve` process, and a study runs generation and
//! execution as jobs on real workers.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mrg(subject: &str, file: &str) -> PathBuf {
    root().join("experiments/mr/tests/fixtures/mrg").join(subject).join(file)
}

fn movies(file: &str) -> PathBuf {
    root().join("experiments/mr-movies/spec").join(file)
}

#[test]
fn generate_command_writes_the_published_files() {
    let dir = tmp();
    let out = dir.path().join("SkyScanner");
    let o = run(&[
        "mr", "generate", "--spec", s(&mrg("SkyScanner", "spec.yml")), "--tests", s(&mrg("SkyScanner", "testCases.csv")),
        "--compat", "mrg", "--runs", "10", "--out", s(&out),
    ])
    .ok("rigor mr generate");
    assert!(o.stdout.contains("SkyScanner (searchFlights)"), "{}", o.stdout);
    assert!(o.stdout.contains("mean"), "{}", o.stdout);
    for run in 1..=10 {
        for f in [format!("MRs-random-{run}.csv"), format!("MRs-random-extended-{run}.csv"), format!("MRs-random-{run}.txt")] {
            let got = std::fs::read(out.join(&f)).unwrap();
            let want = std::fs::read(mrg("SkyScanner", "results").join(&f)).unwrap();
            assert!(got == want, "{f} differs from the published file");
        }
    }
    // Native mode adds JSON; a bad feature name is a usage error naming the choices.
    let native = dir.path().join("native");
    run(&["mr", "generate", "--spec", s(&mrg("Steam", "spec.yml")), "--tests", s(&mrg("Steam", "testCases.csv")), "--out", s(&native)])
        .ok("native generate");
    assert!(native.join("MRs-random-1.json").exists());
    // Source tests generated pairwise from the spec instead of a CSV.
    let pw = dir.path().join("pairwise");
    let o = run(&["mr", "generate", "--spec", s(&movies("movies.yml")), "--pairwise", "2", "--out", s(&pw)]).ok("generate --pairwise");
    let n: usize = o.stdout.split(": ").nth(1).and_then(|r| r.split(' ').next()).and_then(|x| x.parse().ok()).unwrap();
    assert!(n >= 13 * 13, "pairs of genre x or_genre need at least 169 tests, got {n}:\n{}", o.stdout);
    assert!(pw.join("MRs-random-1.csv").exists());
    let bad = run(&[
        "mr", "generate", "--spec", s(&mrg("Steam", "spec.yml")), "--tests", s(&mrg("Steam", "testCases.csv")), "--feature", "nope", "--out", s(&native),
    ])
    .expect_code(2, "unknown feature");
    assert!(bad.stderr.contains("no feature \"nope\"") && bad.stderr.contains("SearchTheStore"), "{}", bad.stderr);
}

#[test]
fn execute_command_against_a_served_system() {
    let dir = tmp();
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut cmd = rigor();
    cmd.args(["mr", "serve", "--listen", &addr, "--mutant", "genre-substring"]);
    let _server = Proc::spawn("serve", cmd, dir.path().join("serve.err"), Stdio::null());
    wait_until(LONG, "the server answers", || std::net::TcpStream::connect(&addr).is_ok());
    let verdicts = dir.path().join("verdicts.json");
    let o = run(&[
        "mr", "execute", "--spec", s(&movies("movies.yml")), "--tests", s(&movies("testCases.csv")),
        "--url", &format!("http://{addr}"), "--out", s(&verdicts),
    ])
    .ok("rigor mr execute --url");
    let line = o.stdout.lines().find(|l| l.starts_with("DISJOINT_EXTEND")).expect("a row per pattern");
    let violated: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(violated > 0, "genre-substring breaks genre disjointness:\n{}", o.stdout);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&verdicts).unwrap()).unwrap();
    assert!(v.as_array().unwrap().iter().any(|x| x["verdict"] == "violated"));

    // The original, started by the command itself: nothing is violated.
    let o = run(&["mr", "execute", "--spec", s(&movies("movies.yml")), "--tests", s(&movies("testCases.csv")), "--system", "movies"])
        .ok("rigor mr execute --system movies");
    let all = o.stdout.lines().find(|l| l.starts_with("all")).unwrap();
    assert_eq!(all.split_whitespace().nth(2), Some("0"), "{}", o.stdout);

    // An unreachable system is an error that names it, not a silent pass.
    let dead = format!("http://127.0.0.1:{}", free_port());
    let o = run(&["mr", "execute", "--spec", s(&movies("movies.yml")), "--tests", s(&movies("testCases.csv")), "--url", &dead]);
    assert_ne!(o.code, Some(0));
    assert!(o.stderr.contains("every query failed") && o.stderr.contains("127.0.0.1"), "{}", o.stderr);
}

#[test]
fn a_study_generates_and_executes_on_workers() {
    let dir = tmp();
    let subject = |name: &str, spec: &Path, tests: &Path| {
        format!("{{ name = \"{name}\", files = {{ spec = \"{}\", tests = \"{}\" }} }}", spec.display(), tests.display())
    };
    let study = format!(
        r#"[study]
name = "mrg-mini"
seed = 3
repetitions = 2

[[experiment]]
id = "table2"
kind = "mr.generate"
subjects = [{sky}]
params = {{ compat = "mrg", seed_scheme = "mrg" }}

[[experiment]]
id = "gen"
kind = "mr.generate"
subjects = [{movies}]

[[experiment]]
id = "exec"
kind = "mr.execute"
subjects = [{movies}]
params = {{ system = "movies", mutant = ["none", "or-genre-as-and", "genre-substring"] }}
needs = "gen"
"#,
        sky = subject("SkyScanner", &mrg("SkyScanner", "spec.yml"), &mrg("SkyScanner", "testCases.csv")),
        movies = subject("Movies", &movies("movies.yml"), &movies("testCases.csv")),
    );
    let path = write(dir.path(), "mrg-mini.toml", &study);
    let out = dir.path().join("out");
    run_timeout(&["run", s(&path), "--workers", "2", "--out", s(&out)], &[], Duration::from_secs(600)).ok("rigor run");
    let t = Table::parse(&std::fs::read_to_string(out.join("results.csv")).unwrap());
    assert_eq!(t.ids_with_status("ok").len(), 2 + 2 + 6, "every job succeeded");
    // Generation with MRG's seeds gives the published runs 1 and 2 (as many relations as rows).
    let published: Vec<usize> = (1..=2)
        .map(|r| std::fs::read_to_string(mrg("SkyScanner", "results").join(format!("MRs-random-{r}.csv"))).unwrap().lines().count() - 1)
        .collect();
    let mut got: Vec<(String, String)> = t
        .rows
        .iter()
        .filter(|r| t.get(r, "experiment") == "table2" && t.get(r, "metric") == "mrs")
        .map(|r| (t.get(r, "repetition").to_string(), t.get(r, "value").to_string()))
        .collect();
    got.sort();
    assert_eq!(got, vec![("0".into(), format!("{}.0", published[0])), ("1".into(), format!("{}.0", published[1]))]);
    // Execution: the original violates nothing; both faults are killed in every repetition.
    let killed: Vec<_> = t.rows.iter().filter(|r| t.get(r, "experiment") == "exec" && t.get(r, "metric") == "killed").collect();
    assert_eq!(killed.len(), 6, "3 mutants x 2 repetitions");
    for r in killed {
        let mutant = t.get(r, "mutant");
        let want = if mutant == "none" { "0.0" } else { "1.0" };
        assert_eq!(t.get(r, "value"), want, "killed for mutant {mutant}");
    }
    assert!(std::fs::read_to_string(out.join("artifacts/artifacts.csv")).unwrap().contains("verdicts.json"));
}
