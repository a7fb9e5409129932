//! The executor pool against real child processes running the `noop` technique.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rigor_proto::{value, AttemptStatus, ExecInput, ExecJob, JobSpec, Param, Value};
use rigor_worker::{Attempt, CancelToken, ExecutorPool, PoolConfig};

const EXECUTOR: &str = env!("CARGO_BIN_EXE_rigor-test-executor");

fn pool(size: usize) -> (ExecutorPool, tempfile::TempDir) {
    let scratch = tempfile::tempdir().unwrap();
    let pool = ExecutorPool::new(PoolConfig {
        program: PathBuf::from(EXECUTOR),
        args: vec![],
        size,
        scratch_root: scratch.path().to_path_buf(),
        env: vec![("RUST_BACKTRACE".into(), "0".into())],
    });
    (pool, scratch)
}

fn int(name: &str, i: i64) -> Param {
    Param { name: name.into(), value: Some(Value { kind: Some(value::Kind::Int(i)) }) }
}

fn float(name: &str, f: f64) -> Param {
    Param { name: name.into(), value: Some(Value { kind: Some(value::Kind::Float(f)) }) }
}

fn boolean(name: &str, b: bool) -> Param {
    Param { name: name.into(), value: Some(Value { kind: Some(value::Kind::Bool(b)) }) }
}

fn job(seed: u64, params: Vec<Param>) -> ExecJob {
    ExecJob {
        spec: Some(JobSpec {
            job_id: format!("job-{seed}"),
            study: "s".into(),
            experiment: "e".into(),
            kind: "noop".into(),
            subject: "a".into(),
            params,
            seed,
            ..Default::default()
        }),
        inputs: vec![],
        scratch: String::new(),
    }
}

fn with_limits(mut job: ExecJob, timeout_ms: u64, memory_mb: u64) -> ExecJob {
    let spec = job.spec.as_mut().unwrap();
    spec.timeout_ms = timeout_ms;
    spec.memory_mb = memory_mb;
    job
}

async fn run(pool: &ExecutorPool, job: ExecJob) -> Attempt {
    pool.run(job, |_| {}, &CancelToken::new()).await
}

fn metric(attempt: &Attempt, name: &str) -> f64 {
    let result = attempt.result.as_ref().expect("a result");
    result.metrics.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no metric {name}")).value
}

#[tokio::test]
async fn ok_jobs_are_deterministic_and_reuse_one_executor() {
    let (pool, scratch) = pool(1);
    let first = run(&pool, job(7, vec![int("points", 3)])).await;
    assert_eq!(first.status, AttemptStatus::Ok, "{}", first.error);
    assert_eq!(first.exit_code, 0);
    let pids = pool.pids();
    assert_eq!(pids.len(), 1);

    let second = run(&pool, job(7, vec![int("points", 3)])).await;
    assert_eq!(second.status, AttemptStatus::Ok, "{}", second.error);
    let (a, b) = (first.result.unwrap(), second.result.unwrap());
    assert_eq!(a.metrics, b.metrics);
    assert_eq!(a.series, b.series);
    assert_eq!(a.artifacts, b.artifacts);
    assert_eq!(a.series[0].points.len(), 3);
    assert_eq!(a.artifacts[0].name, "out.txt");
    assert!(a.log.contains("noop e on a"), "{}", a.log);
    assert!(a.peak_rss_kb > 0);
    let names: Vec<_> = a.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["inputs", "value"]);

    let other = run(&pool, job(8, vec![])).await;
    assert_ne!(metric(&other, "value"), a.metrics[1].value);

    // One executor served all three jobs.
    assert_eq!(pool.pids(), pids);
    assert_eq!(pool.spawned(), 1);
    // Scratch directories do not outlive their attempts.
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    pool.shutdown().await;
    assert!(pool.pids().is_empty());
}

#[tokio::test]
async fn inputs_and_scratch_reach_the_technique() {
    let (pool, scratch) = pool(1);
    let mut j = job(1, vec![boolean("use_scratch", true)]);
    j.inputs = vec![
        ExecInput { name: "spec".into(), path: "/nonexistent/spec".into() },
        ExecInput { name: "gen/suite".into(), path: "/nonexistent/suite".into() },
    ];
    let named = scratch.path().join("mine");
    j.scratch = named.to_string_lossy().into_owned();
    let attempt = run(&pool, j).await;
    assert_eq!(attempt.status, AttemptStatus::Ok, "{}", attempt.error);
    assert_eq!(metric(&attempt, "inputs"), 2.0);
    assert!(metric(&attempt, "scratch_bytes") > 0.0, "the technique wrote into its scratch directory");
    assert!(!named.exists(), "the scratch directory is removed after the job");
}

#[tokio::test]
async fn panic_is_a_crash_with_the_message_and_the_pool_recovers() {
    let (pool, _scratch) = pool(1);
    let attempt = run(&pool, job(1, vec![boolean("panic", true)])).await;
    assert_eq!(attempt.status, AttemptStatus::Crashed, "{}", attempt.error);
    assert!(attempt.error.contains("asked to panic"), "{}", attempt.error);
    assert_eq!(attempt.exit_code, 101, "{}", attempt.error);
    assert!(attempt.result.is_none());
    assert!(pool.pids().is_empty(), "the dead executor is forgotten");

    let next = run(&pool, job(2, vec![])).await;
    assert_eq!(next.status, AttemptStatus::Ok, "{}", next.error);
    assert_eq!(pool.spawned(), 2);
}

#[tokio::test]
async fn wall_time_limit_kills_the_executor_and_the_pool_recovers() {
    let (pool, _scratch) = pool(1);
    let started = Instant::now();
    let attempt = run(&pool, with_limits(job(1, vec![int("work_ms", 5000)]), 300, 0)).await;
    assert_eq!(attempt.status, AttemptStatus::Timeout, "{}", attempt.error);
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    assert!((300..2000).contains(&attempt.wall_ms), "wall_ms = {}", attempt.wall_ms);
    assert_eq!(attempt.exit_code, -libc::SIGKILL);
    assert!(attempt.error.contains("300 ms"), "{}", attempt.error);

    let next = run(&pool, job(2, vec![])).await;
    assert_eq!(next.status, AttemptStatus::Ok, "{}", next.error);
    assert_eq!(pool.spawned(), 2);
}

#[tokio::test]
async fn memory_limit_turns_over_allocation_into_oom_and_is_lifted_afterwards() {
    let (pool, _scratch) = pool(1);
    let attempt = run(&pool, with_limits(job(1, vec![int("alloc_mb", 2048)]), 0, 256)).await;
    assert_eq!(attempt.status, AttemptStatus::Oom, "{}", attempt.error);
    assert!(attempt.error.contains("memory allocation of"), "{}", attempt.error);
    assert!(attempt.error.contains("256 MiB"), "{}", attempt.error);
    assert_eq!(attempt.exit_code, -libc::SIGABRT);

    // Within the limit: fine, and the peak RSS shows the allocation.
    let within = run(&pool, with_limits(job(2, vec![int("alloc_mb", 64)]), 0, 256)).await;
    assert_eq!(within.status, AttemptStatus::Ok, "{}", within.error);
    assert!(within.result.as_ref().unwrap().peak_rss_kb >= 64 * 1024);
    // The next job on the same executor is not constrained by the previous job's limit.
    let pid = pool.pids();
    let unlimited = run(&pool, job(3, vec![int("alloc_mb", 300)])).await;
    assert_eq!(unlimited.status, AttemptStatus::Ok, "{}", unlimited.error);
    assert_eq!(pool.pids(), pid);
}

#[tokio::test]
async fn technique_failures_and_unknown_kinds_are_failed_attempts() {
    let (pool, _scratch) = pool(1);
    let attempt = run(&pool, job(1, vec![float("fail_rate", 1.0)])).await;
    assert_eq!(attempt.status, AttemptStatus::Failed);
    assert!(attempt.error.contains("seeded failure"), "{}", attempt.error);
    assert_eq!(attempt.exit_code, 0);
    assert!(!attempt.result.unwrap().ok);

    let mut unknown = job(1, vec![]);
    unknown.spec.as_mut().unwrap().kind = "nope".into();
    let attempt = run(&pool, unknown).await;
    assert_eq!(attempt.status, AttemptStatus::Failed);
    assert!(attempt.error.contains("unknown technique kind `nope`"), "{}", attempt.error);
    assert_eq!(pool.spawned(), 1);
}

#[tokio::test]
async fn cancellation_stops_a_long_job_and_keeps_the_executor() {
    let (pool, _scratch) = pool(1);
    let cancel = CancelToken::new();
    let canceller = tokio::spawn({
        let cancel = cancel.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        }
    });
    let started = Instant::now();
    let attempt = pool.run(job(1, vec![int("work_ms", 60_000)]), |_| {}, &cancel).await;
    canceller.await.unwrap();
    assert_eq!(attempt.status, AttemptStatus::Cancelled, "{}", attempt.error);
    assert!(attempt.result.as_ref().unwrap().cancelled);
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
    assert_eq!(attempt.exit_code, 0);

    // The executor cleared the cancel flag for the next job.
    let next = run(&pool, job(2, vec![int("work_ms", 50)])).await;
    assert_eq!(next.status, AttemptStatus::Ok, "{}", next.error);
    assert_eq!(pool.spawned(), 1);
}

#[tokio::test]
async fn progress_is_reported_and_throttled() {
    let (pool, _scratch) = pool(1);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let attempt = pool
        .run(
            job(1, vec![int("work_ms", 500)]),
            {
                let seen = seen.clone();
                move |p| seen.lock().unwrap().push(p)
            },
            &CancelToken::new(),
        )
        .await;
    assert_eq!(attempt.status, AttemptStatus::Ok, "{}", attempt.error);
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 2, "{seen:?}");
    // At most one per 100 ms over 500 ms (the first one comes at once).
    assert!(seen.len() <= 7, "{seen:?}");
    assert!(seen.iter().all(|p| (0.0..=1.0).contains(p)));
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_jobs_use_separate_executors_up_to_the_pool_size() {
    let (pool, _scratch) = pool(2);
    let pool = Arc::new(pool);
    let started = Instant::now();
    let runs: Vec<_> = (0..4)
        .map(|seed| {
            let pool = pool.clone();
            tokio::spawn(async move { run(&pool, job(seed, vec![int("work_ms", 300)])).await })
        })
        .collect();
    for r in runs {
        let attempt = r.await.unwrap();
        assert_eq!(attempt.status, AttemptStatus::Ok, "{}", attempt.error);
    }
    // Four 300 ms jobs on two executors: two rounds, never more than two children.
    assert!(started.elapsed() >= Duration::from_millis(600), "{:?}", started.elapsed());
    assert_eq!(pool.spawned(), 2);
    assert_eq!(pool.pids().len(), 2);
}

#[tokio::test]
async fn shutdown_kills_busy_executors_and_refuses_new_jobs() {
    let (pool, _scratch) = pool(1);
    let pool = Arc::new(pool);
    let busy = tokio::spawn({
        let pool = pool.clone();
        async move { run(&pool, job(1, vec![int("work_ms", 60_000)])).await }
    });
    // Wait until the job is running on an executor.
    let deadline = Instant::now() + Duration::from_secs(10);
    while pool.pids().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let pid = pool.pids()[0];
    pool.shutdown().await;
    let attempt = tokio::time::timeout(Duration::from_secs(5), busy).await.unwrap().unwrap();
    assert_eq!(attempt.status, AttemptStatus::Cancelled, "{}", attempt.error);
    assert!(pool.pids().is_empty());
    // SAFETY: signal 0 only checks existence; the child has been reaped, so the pid is gone
    // (or, improbably, reused, which this check would misreport as alive).
    assert_ne!(unsafe { libc::kill(pid as i32, 0) }, 0, "executor {pid} still alive");

    let refused = run(&pool, job(2, vec![])).await;
    assert_eq!(refused.status, AttemptStatus::Cancelled);
}

#[tokio::test]
async fn a_missing_executor_program_is_reported_not_panicked() {
    let pool = ExecutorPool::new(PoolConfig {
        program: PathBuf::from("/nonexistent/rigor-executor"),
        args: vec![],
        size: 1,
        scratch_root: std::env::temp_dir(),
        env: vec![],
    });
    let err = pool.warm_up().await.unwrap_err();
    assert!(err.to_string().contains("/nonexistent/rigor-executor"), "{err}");
    let attempt = run(&pool, job(1, vec![])).await;
    assert_eq!(attempt.status, AttemptStatus::Crashed);
    assert!(pool.pids().is_empty());
}

#[tokio::test]
async fn an_executor_that_is_not_one_fails_warm_up() {
    // `true` exits at once without saying `ready`.
    let pool = ExecutorPool::new(PoolConfig {
        program: PathBuf::from("true"),
        args: vec![],
        size: 1,
        scratch_root: std::env::temp_dir(),
        env: vec![],
    });
    let err = pool.warm_up().await.unwrap_err();
    assert!(err.to_string().contains("exited before saying `ready`"), "{err}");
}

#[tokio::test]
async fn dropping_the_pool_kills_its_executors() {
    let (pool, _scratch) = pool(1);
    pool.warm_up().await.unwrap();
    let pid = pool.pids()[0];
    drop(pool);
    let deadline = Instant::now() + Duration::from_secs(5);
    // The child is killed on drop and reaped in the background by tokio.
    // SAFETY: signal 0 only checks existence.
    while unsafe { libc::kill(pid as i32, 0) } == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_ne!(unsafe { libc::kill(pid as i32, 0) }, 0, "executor {pid} outlived its pool");
}

/// A fake executor: a shell script that says `ready` (a 2-byte `ExecEvent`: field 3, empty),
/// waits for the first byte of a request, then runs `then`.
fn fake_pool(then: &str) -> ExecutorPool {
    let script = format!(r"printf '\000\000\000\002\032\000'; head -c 1 >/dev/null; {then}");
    ExecutorPool::new(PoolConfig {
        program: PathBuf::from("sh"),
        args: vec!["-c".into(), script],
        size: 1,
        scratch_root: std::env::temp_dir(),
        env: vec![],
    })
}

#[tokio::test]
async fn malformed_events_from_a_dying_executor_are_crashes_not_panics() {
    let cases = [
        // Announces 16 bytes, sends one, exits.
        (r"printf '\000\000\000\020\377'; echo bye >&2; exit 0", "ended inside a frame"),
        // Announces 4 GiB: refused without allocating, and the child is killed.
        (r"printf '\377\377\377\377'; sleep 30", "exceeds the limit"),
        // A complete frame that is not protobuf.
        (r"printf '\000\000\000\003\377\377\377'; sleep 30", "malformed message"),
    ];
    for (then, expected) in cases {
        let pool = fake_pool(then);
        let started = Instant::now();
        let attempt = run(&pool, job(1, vec![])).await;
        assert_eq!(attempt.status, AttemptStatus::Crashed, "{then}: {}", attempt.error);
        assert!(attempt.error.contains(expected), "{then}: {}", attempt.error);
        assert!(started.elapsed() < Duration::from_secs(10), "{then}: {:?}", started.elapsed());
        assert!(pool.pids().is_empty());
    }
}

#[tokio::test]
async fn a_sigkill_the_worker_did_not_send_counts_as_out_of_memory() {
    // What the kernel's OOM killer does.
    let attempt = run(&fake_pool("kill -9 $$"), job(1, vec![])).await;
    assert_eq!(attempt.status, AttemptStatus::Oom, "{}", attempt.error);
    assert_eq!(attempt.exit_code, -libc::SIGKILL);
    assert!(attempt.error.contains("SIGKILL"), "{}", attempt.error);

    // An ordinary non-zero exit is a crash.
    let attempt = run(&fake_pool("echo 'something broke' >&2; exit 3"), job(1, vec![])).await;
    assert_eq!(attempt.status, AttemptStatus::Crashed, "{}", attempt.error);
    assert_eq!(attempt.exit_code, 3);
    assert!(attempt.error.contains("exit code 3") && attempt.error.contains("something broke"), "{}", attempt.error);
}

#[tokio::test]
async fn an_executor_that_cannot_take_the_job_is_a_crash() {
    // Closes stdin before saying `ready`, so the job cannot be written, then exits 4.
    let pool = ExecutorPool::new(PoolConfig {
        program: PathBuf::from("sh"),
        args: vec!["-c".into(), r"exec 0<&-; printf '\000\000\000\002\032\000'; sleep 0.2; exit 4".into()],
        size: 1,
        scratch_root: std::env::temp_dir(),
        env: vec![],
    });
    let attempt = run(&pool, job(1, vec![])).await;
    assert_eq!(attempt.status, AttemptStatus::Crashed, "{}", attempt.error);
    assert!(attempt.error.contains("could not be sent the job"), "{}", attempt.error);
    assert_eq!(attempt.exit_code, 4, "{}", attempt.error);
}
