//! End-to-end tests of a distributed study: a real `rigor coordinator` and real `rigor worker`
//! processes on loopback, driven through the CLI (`submit`, `watch`, `status`, `results`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::*;

/// 4 subjects x 5 cells x 10 repetitions = 200 jobs.
const BIG: &str = r#"
[study]
name = "big"
seed = 11
repetitions = 10

[[experiment]]
id = "grid"
kind = "noop"
subjects = ["s1", "s2", "s3", "s4"]
params = { work_ms = [0, 1, 2, 3, 4] }
timeout_s = 60
"#;

#[test]
fn two_workers_complete_a_200_job_study() {
    let mut c = Cluster::start(CoordOpts::default());
    let log = c.root().join("executions.log");
    c.add_worker(WorkerOpts::new("w1", 2).log(&log));
    c.add_worker(WorkerOpts::new("w2", 2).log(&log));
    let file = c.study("big.toml", BIG);

    assert_eq!(parse_submitted(&c.submit(&file)), (200, 200, 0));
    c.watch("big").ok("rigor watch big");

    let table = c.results("big");
    let ids = table.job_ids();
    assert_eq!(ids.len(), 200, "200 distinct job ids");
    assert_eq!(table.ids_with_status("ok"), ids, "every job is ok");
    // Exactly one result per job: one row per metric (inputs, value), never repeated.
    let mut rows_per_job: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in &table.rows {
        rows_per_job.entry(table.get(r, "job_id")).or_default().push(table.get(r, "metric"));
    }
    for (id, metrics) in &rows_per_job {
        let mut m = metrics.clone();
        m.sort();
        assert_eq!(m, ["inputs", "value"], "job {id}");
    }
    for r in table.per_job().values() {
        assert_eq!(table.get(r, "attempts"), "1");
        assert!(!table.get(r, "rigor_version").is_empty() && !table.get(r, "git_commit").is_empty());
    }
    let workers: BTreeSet<&str> = table.rows.iter().map(|r| table.get(r, "worker")).collect();
    assert_eq!(workers, BTreeSet::from(["w1", "w2"]), "both workers ran jobs");

    // Each job was executed exactly once.
    let counts = execution_counts(&[&log]);
    assert_eq!(counts.keys().cloned().collect::<BTreeSet<_>>(), ids);
    assert!(counts.values().all(|&n| n == 1), "a job ran twice: {counts:?}");

    // The JSON export has the same rows, with numbers as numbers.
    let json = run(&["results", "big", "--coordinator", &c.url(), "--format", "json"]).ok("rigor results --format json");
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("results JSON parses");
    let rows = v.as_array().expect("a JSON array");
    assert_eq!(rows.len(), table.rows.len());
    let json_ids: BTreeSet<&str> = rows.iter().map(|r| r["job_id"].as_str().expect("job_id string")).collect();
    assert_eq!(json_ids.len(), 200);
    for r in rows {
        assert_eq!(r["status"], "ok");
        assert!(r["value"].is_number(), "value is a number: {r}");
        assert!(r["repetition"].is_u64() && r["seed"].is_u64() && r["attempts"].is_u64(), "{r}");
    }
}

#[test]
fn a_killed_worker_loses_no_job() {
    let mut c = Cluster::start(CoordOpts { lease_ttl_ms: Some(1500), ..Default::default() });
    let (log_a, log_b) = (c.root().join("a.log"), c.root().join("b.log"));
    let a = c.add_worker(WorkerOpts::new("wa", 2).log(&log_a));
    c.add_worker(WorkerOpts::new("wb", 2).log(&log_b));
    // 3 subjects x 2 cells x 8 repetitions = 48 jobs of ~300 ms.
    let file = c.study(
        "kill.toml",
        r#"
[study]
name = "kill-worker"
seed = 5
repetitions = 8
[[experiment]]
id = "slow"
kind = "noop"
subjects = ["a", "b", "c"]
params = { work_ms = [250, 300] }
"#,
    );
    assert_eq!(parse_submitted(&c.submit(&file)).0, 48);

    // Kill worker a while it is running jobs (it logs each job as it starts one).
    wait_until(LONG, "worker a to start 4 jobs", || log_lines(&log_a).len() >= 4);
    let executors = children_of(c.workers[a].pid());
    assert!(!executors.is_empty(), "worker a runs its jobs in executor processes");
    c.workers[a].kill9();
    let started_on_a = log_lines(&log_a);
    // Its executors die with it (no orphan keeps running a job nobody will report).
    wait_until(Duration::from_secs(10), "the killed worker's executors to exit", || {
        executors.iter().all(|&p| !pid_alive(p))
    });

    c.watch("kill-worker").ok("rigor watch kill-worker");
    let table = c.results("kill-worker");
    let ids = table.job_ids();
    assert_eq!(ids.len(), 48, "48 distinct jobs");
    assert_eq!(table.ids_with_status("ok"), ids, "every job ends ok:\n{}", c.dump());
    assert_eq!(table.rows.len(), 96, "exactly one result (two metric rows) per job");

    let on_a: BTreeSet<String> = started_on_a.iter().cloned().collect();
    let on_b: BTreeSet<String> = log_lines(&log_b).into_iter().collect();
    assert_eq!(log_lines(&log_a).len(), started_on_a.len(), "the killed worker ran nothing more");
    assert_eq!(on_a.union(&on_b).cloned().collect::<BTreeSet<_>>(), ids, "every job was executed");
    // The jobs worker a held when it died were run again on b, after their leases expired; each
    // expired lease counts as an attempt.
    let rerun: BTreeSet<&String> = on_a.intersection(&on_b).collect();
    assert!(!rerun.is_empty(), "the jobs held by the killed worker were run again elsewhere");
    assert!(rerun.len() <= started_on_a.len());
    eprintln!("worker a started {} jobs before it was killed; {} of them ran again on b", started_on_a.len(), rerun.len());
    let per_job = table.per_job();
    for id in &rerun {
        let r = &per_job[*id];
        assert_eq!(table.get(r, "worker"), "wb", "job {id}");
        let attempts: u32 = table.get(r, "attempts").parse().unwrap();
        assert!(attempts >= 2, "job {id}: a lost attempt, then an ok one ({attempts} attempts)");
    }
    // Jobs a finished and reported keep a's result.
    for id in on_a.difference(&on_b) {
        assert_eq!(table.get(&per_job[id], "worker"), "wa", "job {id}");
    }
}

#[test]
fn a_killed_coordinator_resumes_without_rerunning_finished_jobs() {
    let port = free_port();
    let opts = CoordOpts { port: Some(port), lease_ttl_ms: Some(1500), ..Default::default() };
    let mut c = Cluster::start(opts.clone());
    let log = c.root().join("executions.log");
    c.add_worker(WorkerOpts::new("w1", 2).log(&log));
    c.add_worker(WorkerOpts::new("w2", 2).log(&log));
    // 2 subjects x 3 cells x 10 repetitions = 60 jobs of ~150 ms.
    let file = c.study(
        "restart.toml",
        r#"
[study]
name = "restart"
seed = 9
repetitions = 10
[[experiment]]
id = "grid"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [120, 150, 180] }
"#,
    );
    assert_eq!(parse_submitted(&c.submit(&file)).0, 60);
    wait_until(LONG, "a quarter of the jobs to finish", || status_done(&c.url(), "restart").is_some_and(|(d, _)| d >= 15));

    let before = c.results("restart");
    c.coord.proc.kill9();
    let done_before = before.ids_with_status("ok");
    assert!(done_before.len() >= 15 && done_before.len() < 60, "killed mid-study ({} done)", done_before.len());

    // Same data, same port: the workers reconnect by themselves.
    let data = c.coord.data.clone();
    c.coord = Coordinator::start(&data, c.root(), &opts);
    c.watch("restart").ok("rigor watch restart after the restart");
    for w in &mut c.workers {
        w.assert_alive();
    }

    let after = c.results("restart");
    let ids = after.job_ids();
    assert_eq!(ids.len(), 60);
    assert_eq!(after.ids_with_status("ok"), ids, "every job ends ok:\n{}", c.dump());
    assert_eq!(after.rows.len(), 120, "exactly one result (two metric rows) per job");
    let counts = execution_counts(&[&log]);
    assert_eq!(counts.keys().cloned().collect::<BTreeSet<_>>(), ids, "every job was executed");
    let rerun: Vec<_> = done_before.iter().filter(|id| counts[*id] != 1).collect();
    let twice = counts.values().filter(|&&n| n > 1).count();
    eprintln!("{} jobs were done when the coordinator was killed; {twice} jobs ran more than once overall", done_before.len());
    assert!(rerun.is_empty(), "jobs finished before the crash ran again: {rerun:?}");
    // Their results are the ones stored before the crash.
    let (b, a) = (before.per_job(), after.per_job());
    for id in &done_before {
        assert_eq!(before.get(&b[id], "finished_unix_ms"), after.get(&a[id], "finished_unix_ms"), "job {id}");
    }
    let values = |t: &Table| t.metric("value").into_iter().filter(|(id, _)| done_before.contains(id)).collect::<Vec<_>>();
    assert_eq!(values(&before), values(&after));
}

#[test]
fn resubmitting_runs_only_what_is_new() {
    let mut c = Cluster::start(CoordOpts::default());
    let log = c.root().join("executions.log");
    c.add_worker(WorkerOpts::new("w", 2).log(&log));
    let v1 = r#"
[study]
name = "again"
seed = 3
repetitions = 3
[[experiment]]
id = "grid"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [1, 2] }
"#;
    let file = c.study("again.toml", v1);
    assert_eq!(parse_submitted(&c.submit(&file)), (12, 12, 0));
    c.watch("again").ok("watch v1");
    let first = log_lines(&log);
    assert_eq!(first.len(), 12);
    assert_eq!(first.iter().collect::<BTreeSet<_>>().len(), 12);

    // The same file again: nothing new, nothing runs.
    assert_eq!(parse_submitted(&c.submit(&file)), (12, 0, 12));
    c.watch("again").ok("watch the resubmission");
    assert_eq!(log_lines(&log), first, "resubmitting a finished study ran jobs");
    assert_eq!(c.results("again").ids_with_status("ok").len(), 12);

    // One value changed (work_ms 2 -> 5): only its cells (2 subjects x 3 repetitions) run.
    let file = c.study("again.toml", &v1.replace("[1, 2]", "[1, 5]"));
    assert_eq!(parse_submitted(&c.submit(&file)), (12, 6, 6));
    c.watch("again").ok("watch v2");
    let all = log_lines(&log);
    assert_eq!(all.len(), 18, "exactly the 6 new cells ran");
    assert_eq!(&all[..12], &first[..]);
    let table = c.results("again");
    assert_eq!(table.ids_with_status("ok").len(), 12);
    let new_ids: BTreeSet<String> =
        table.per_job().into_iter().filter(|(_, r)| table.get(r, "work_ms") == "5").map(|(id, _)| id).collect();
    assert_eq!(all[12..].iter().cloned().collect::<BTreeSet<_>>(), new_ids);
    let old_ids: BTreeSet<String> =
        table.per_job().into_iter().filter(|(_, r)| table.get(r, "work_ms") == "1").map(|(id, _)| id).collect();
    assert_eq!(old_ids.len(), 6);
    assert!(old_ids.iter().all(|id| first.contains(id)), "the kept cells are the ones run the first time");
}

#[test]
fn crashes_timeouts_and_oom_fail_the_job_not_the_worker() {
    let mut c = Cluster::start(CoordOpts::default());
    let log = c.root().join("executions.log");
    let w = c.add_worker(WorkerOpts::new("survivor", 2).log(&log));
    let file = c.study(
        "failures.toml",
        r#"
[study]
name = "failures"
seed = 1
retries = 1

[[experiment]]
id = "panics"
kind = "noop"
subjects = ["a"]
params = { panic = true }

[[experiment]]
id = "slow"
kind = "noop"
subjects = ["a"]
params = { work_ms = 10000 }
timeout_s = 0.5

[[experiment]]
id = "hog"
kind = "noop"
subjects = ["a"]
params = { alloc_mb = 2048 }
memory_mb = 256

[[experiment]]
id = "fine"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = 1 }
"#,
    );
    assert_eq!(parse_submitted(&c.submit(&file)).0, 5);
    let watched = c.watch("failures");
    assert_eq!(watched.code, Some(1), "a study with failed jobs exits 1:\n{watched:?}");

    let table = c.results("failures");
    let by_exp: BTreeMap<String, Vec<String>> =
        table.per_job().into_values().map(|r| (table.get(&r, "experiment").to_string(), r)).collect();
    let expect = [("panics", "crashed"), ("slow", "timeout"), ("hog", "oom")];
    let counts = execution_counts(&[&log]);
    for (exp, word) in expect {
        let r = &by_exp[exp];
        eprintln!("{exp}: {} after {} attempts: {}", table.get(r, "status"), table.get(r, "attempts"), table.get(r, "error"));
        assert_eq!(table.get(r, "status"), word, "{exp}: {r:?}");
        assert_eq!(table.get(r, "attempts"), "2", "{exp}: retries = 1 gives 2 attempts");
        assert!(!table.get(r, "error").is_empty(), "{exp} has an error message");
        assert_eq!(counts[table.get(r, "job_id")], 2, "{exp} was executed twice");
    }
    assert!(table.get(&by_exp["panics"], "error").contains("asked to panic"), "{:?}", table.get(&by_exp["panics"], "error"));
    assert!(table.get(&by_exp["slow"], "error").contains("500 ms"), "{:?}", table.get(&by_exp["slow"], "error"));
    assert!(table.get(&by_exp["hog"], "error").contains("256"), "{:?}", table.get(&by_exp["hog"], "error"));
    let fine: Vec<_> = table.per_job().into_values().filter(|r| table.get(r, "experiment") == "fine").collect();
    assert_eq!(fine.len(), 2);
    for r in &fine {
        assert_eq!((table.get(r, "status"), table.get(r, "attempts")), ("ok", "1"));
    }

    // The worker survived all of it and still runs jobs.
    c.workers[w].assert_alive();
    let file = c.study(
        "after.toml",
        "[study]\nname = \"after\"\n[[experiment]]\nid = \"ok\"\nkind = \"noop\"\nsubjects = [\"a\", \"b\", \"c\"]\n",
    );
    c.submit(&file);
    c.watch("after").ok("watch the follow-up study");
    let after = c.results("after");
    assert_eq!(after.ids_with_status("ok").len(), 3);
    assert!(after.rows.iter().all(|r| after.get(r, "worker") == "survivor"));
    c.workers[w].assert_alive();
}

#[test]
fn subject_files_travel_with_the_job() {
    let mut c = Cluster::start(CoordOpts::default());
    let spec = "openapi: 3.0.0\ninfo: { title: shop }\n";
    write(c.root(), "spec.txt", spec);
    let file = c.study(
        "files.toml",
        r#"
[study]
name = "files"
[[experiment]]
id = "e"
kind = "noop"
subjects = [{ name = "x", files = { spec = "spec.txt" } }, "y"]
"#,
    );
    c.add_worker(WorkerOpts::new("wf", 1));
    assert_eq!(parse_submitted(&c.submit(&file)).0, 2);
    c.watch("files").ok("watch files");
    let table = c.results("files");
    let inputs = table.metric("inputs");
    let per_job = table.per_job();
    let subject_of = |id: &str| table.get(&per_job[id], "subject").to_string();
    let by_subject: BTreeMap<String, String> = inputs.iter().map(|(id, v)| (subject_of(id), v.clone())).collect();
    assert_eq!(by_subject, BTreeMap::from([("x".into(), "1".into()), ("y".into(), "0".into())]));
    // The file reached the worker through the coordinator, intact.
    let hash = blake3::hash(spec.as_bytes()).to_hex().to_string();
    let cached = c.root().join("cache-wf").join("inputs").join(&hash);
    assert_eq!(std::fs::read_to_string(&cached).expect("the worker cached the subject file"), spec);
}

/// A worker stopped with SIGTERM hands back the jobs it could not finish within `--grace-s`:
/// they run elsewhere, and the hand-back is not a failed attempt.
#[test]
fn a_gracefully_stopped_worker_hands_its_jobs_back() {
    let mut c = Cluster::start(CoordOpts::default());
    let log = c.root().join("executions.log");
    let a = c.add_worker(WorkerOpts::new("leaving", 2).log(&log));
    let file = c.study(
        "handback.toml",
        r#"
[study]
name = "handback"
retries = 0
repetitions = 2
[[experiment]]
id = "long"
kind = "noop"
subjects = ["a"]
params = { work_ms = 3000 }
"#,
    );
    assert_eq!(parse_submitted(&c.submit(&file)).0, 2);
    wait_until(LONG, "both jobs to start", || log_lines(&log).len() == 2);
    let status = c.workers[a].terminate(Duration::from_secs(20)).expect("the worker was running");
    assert!(status.success(), "SIGTERM stops the worker cleanly: {status}");

    let table = c.results("handback");
    for r in table.per_job().values() {
        let status = table.get(r, "status");
        assert!(status == "queued" || status == "running", "a handed-back job is not finished: {status} {r:?}");
    }
    c.add_worker(WorkerOpts::new("staying", 2).log(&log));
    c.watch("handback").ok("the other worker finishes the study");
    let table = c.results("handback");
    assert_eq!(table.ids_with_status("ok").len(), 2);
    for r in table.per_job().values() {
        assert_eq!(table.get(r, "worker"), "staying");
        assert_eq!(table.get(r, "attempts"), "1", "the hand-back is not an attempt: {r:?}");
    }
}
