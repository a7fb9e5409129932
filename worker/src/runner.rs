//! The executor process: runs jobs sent by its worker over stdin/stdout, one at a time.
//!
//! Jobs run in a separate process so that a technique that panics, leaks, exhausts memory or
//! hangs costs one executor, never the worker. Panics are deliberately not caught: the process
//! dies and the worker reports the attempt as crashed, with the stderr tail as evidence.
//!
//! The executor is long-lived (it is reused across jobs), so everything set up for a job — the
//! memory limit, the scratch directory, the cancel flag — is undone before the next one.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::os::fd::FromRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use rigor_proto::{
    exec_event, exec_request, value, Empty, ExecEvent, ExecJob, ExecRequest, ExecResult, JobSpec, Metric, NamedBytes,
    Point, Series,
};
use rigor_technique::{Context, Job, Output, ParamValue, Params, Registry, TechniqueError};

use crate::wire;

/// At most one `progress` event per this interval: techniques may report on every iteration.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// Serves jobs until the worker closes stdin. Returns an error when the pipe to the worker
/// breaks or carries a malformed request; the process should then exit non-zero.
pub fn serve(registry: &Registry) -> io::Result<()> {
    let (requests, events) = take_protocol_fds()?;
    let mut out = BufWriter::new(events);
    send(&mut out, exec_event::Kind::Ready(Empty {}))?;

    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    // Stdin is read on its own thread so that a `cancel` arrives while the job runs here.
    std::thread::Builder::new().name("rigor-exec-requests".into()).spawn({
        let cancel = cancel.clone();
        move || read_requests(BufReader::new(requests), &tx, &cancel)
    })?;

    for job in rx {
        let result = run_job(registry, job?, &cancel, &mut out)?;
        send(&mut out, exec_event::Kind::Done(result))?;
    }
    Ok(())
}

/// Moves the protocol off fds 0 and 1: fd 1 then writes to stderr and fd 0 reads /dev/null, so
/// a technique's stray `println!` (or a child it spawns) cannot corrupt or steal protocol bytes.
/// The protocol fds are close-on-exec, so a technique's own subprocesses do not hold the pipes
/// open (which would hide this executor's death from the worker).
fn take_protocol_fds() -> io::Result<(File, File)> {
    // SAFETY: plain fd syscalls; the new fds are owned by the returned Files and nothing else.
    unsafe {
        let requests = libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3);
        if requests < 0 {
            return Err(io::Error::last_os_error());
        }
        let requests = File::from_raw_fd(requests);
        let events = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if events < 0 {
            return Err(io::Error::last_os_error());
        }
        let events = File::from_raw_fd(events);
        if libc::dup2(2, 1) < 0 {
            return Err(io::Error::last_os_error());
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::close(null);
        }
        Ok((requests, events))
    }
}

fn send(out: &mut impl Write, kind: exec_event::Kind) -> io::Result<()> {
    wire::write_frame(out, &ExecEvent { kind: Some(kind) }).map_err(io::Error::from)
}

/// Forwards `run` requests to the main thread and turns `cancel` into the shared flag. The flag
/// is cleared when a `run` is forwarded: the worker sends a job only after the previous `done`,
/// so a late cancel of the previous job must not cancel the next one.
fn read_requests(mut input: impl io::Read, tx: &mpsc::Sender<io::Result<ExecJob>>, cancel: &AtomicBool) {
    loop {
        match wire::read_frame::<_, ExecRequest>(&mut input) {
            Ok(Some(ExecRequest { kind: Some(exec_request::Kind::Run(job)) })) => {
                cancel.store(false, Ordering::SeqCst);
                if tx.send(Ok(job)).is_err() {
                    return;
                }
            }
            Ok(Some(ExecRequest { kind: Some(exec_request::Kind::Cancel(_)) })) => cancel.store(true, Ordering::SeqCst),
            Ok(Some(ExecRequest { kind: None })) => {} // from a newer worker: nothing we know to do
            Ok(None) => {
                // The worker is gone or done with us: nobody wants the job in progress.
                cancel.store(true, Ordering::SeqCst);
                return;
            }
            Err(e) => {
                cancel.store(true, Ordering::SeqCst);
                let _ = tx.send(Err(e.into()));
                return;
            }
        }
    }
}

/// Runs one job. The outer error is for the pipe to the worker only; everything about the job
/// itself (unknown kind, bad params, technique errors) is an `ExecResult` with `ok = false`.
fn run_job(registry: &Registry, exec: ExecJob, cancel: &AtomicBool, out: &mut impl Write) -> io::Result<ExecResult> {
    let Some(spec) = exec.spec else {
        return Ok(failure("the job has no spec".into()));
    };
    let Some(technique) = registry.get(&spec.kind) else {
        let kinds: Vec<_> = registry.kinds().collect();
        return Ok(failure(format!(
            "unknown technique kind `{}` (this executor runs: {})",
            spec.kind,
            kinds.join(", ")
        )));
    };
    let job = match to_job(&spec) {
        Ok(job) => job,
        Err(message) => return Ok(failure(message)),
    };
    let inputs: BTreeMap<String, PathBuf> =
        exec.inputs.into_iter().map(|input| (input.name, PathBuf::from(input.path))).collect();
    let scratch = if exec.scratch.is_empty() { default_scratch() } else { PathBuf::from(exec.scratch) };
    // The technique creates it through `Context::scratch` if it needs one.

    // Resets VmHWM so that the peak we read afterwards is this job's, not an earlier one's.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let cpu_start = process_cpu_ns();
    let limit = MemoryLimit::apply(spec.memory_mb);
    let mut pipe_error = None;
    let outcome = {
        // Counting from the start, a job shorter than the interval sends no progress at all: its
        // `done` says as much, and each event costs the worker a wake-up.
        let mut last_sent: Option<Instant> = Some(Instant::now());
        let mut report = |fraction: f64| {
            if pipe_error.is_some() || last_sent.is_some_and(|t| t.elapsed() < PROGRESS_INTERVAL) {
                return;
            }
            last_sent = Some(Instant::now());
            if let Err(e) = send(out, exec_event::Kind::Progress(fraction)) {
                // The worker is gone: stop the job rather than finish it for nobody.
                cancel.store(true, Ordering::SeqCst);
                pipe_error = Some(e);
            }
        };
        let mut ctx = Context::new(inputs, scratch.clone(), cancel, &mut report);
        technique.run(&job, &mut ctx)
    };
    // Lift the limit before building the result, which copies the artifacts.
    drop(limit);
    let cpu_ms = process_cpu_ns().saturating_sub(cpu_start) / 1_000_000;
    let peak_rss_kb = status_kb("VmHWM").unwrap_or(0);
    let _ = std::fs::remove_dir_all(&scratch);
    if let Some(e) = pipe_error {
        return Err(e);
    }

    let mut result = match outcome {
        Ok(output) => success(output),
        Err(TechniqueError::Cancelled) => {
            ExecResult { cancelled: true, ..failure(TechniqueError::Cancelled.to_string()) }
        }
        Err(e) => failure(e.to_string()),
    };
    result.cpu_ms = cpu_ms;
    result.peak_rss_kb = peak_rss_kb;
    Ok(result)
}

fn failure(error: String) -> ExecResult {
    ExecResult { ok: false, error, ..Default::default() }
}

/// The maps of an `Output` are ordered, so metrics, series and artifacts come out sorted by name.
fn success(output: Output) -> ExecResult {
    ExecResult {
        ok: true,
        metrics: output.metrics.into_iter().map(|(name, value)| Metric { name, value }).collect(),
        series: output
            .series
            .into_iter()
            .map(|(name, points)| Series { name, points: points.into_iter().map(|(x, y)| Point { x, y }).collect() })
            .collect(),
        artifacts: output.artifacts.into_iter().map(|(name, data)| NamedBytes { name, data }).collect(),
        log: output.log,
        ..Default::default()
    }
}

/// The technique's view of a job spec. Fails on a parameter without a value, which only a
/// broken coordinator would send.
fn to_job(spec: &JobSpec) -> Result<Job, String> {
    let mut params = Params::new();
    for param in &spec.params {
        let value = match param.value.as_ref().and_then(|v| v.kind.as_ref()) {
            Some(value::Kind::Bool(b)) => ParamValue::Bool(*b),
            Some(value::Kind::Int(i)) => ParamValue::Int(*i),
            Some(value::Kind::Float(f)) => ParamValue::Float(*f),
            Some(value::Kind::Str(s)) => ParamValue::Str(s.clone()),
            None => return Err(format!("parameter `{}` has no value", param.name)),
        };
        params.insert(param.name.clone(), value);
    }
    Ok(Job {
        id: spec.job_id.clone(),
        study: spec.study.clone(),
        experiment: spec.experiment.clone(),
        kind: spec.kind.clone(),
        subject: spec.subject.clone(),
        params,
        repetition: spec.repetition,
        seed: spec.seed,
    })
}

/// A scratch directory for a job whose worker named none.
fn default_scratch() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("rigor-scratch-{}-{n}", std::process::id()))
}

/// CPU time of the whole process (the request thread only blocks in `read`, so this is the job's).
fn process_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}

/// A `kB` field of /proc/self/status, e.g. `VmData` or `VmHWM`.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// A soft RLIMIT_DATA of `memory_mb` above what the executor already uses, for one job.
///
/// RLIMIT_DATA (unlike RLIMIT_AS) ignores reserved-but-inaccessible address space, and it makes
/// an over-allocation fail in `malloc`, so a Rust technique aborts with "memory allocation of N
/// bytes failed" on stderr, which the worker recognises as out-of-memory. Dropping the guard
/// restores the previous limit, so the next job on this executor starts unconstrained.
struct MemoryLimit {
    previous: Option<libc::rlimit>,
}

impl MemoryLimit {
    fn apply(memory_mb: u64) -> Self {
        if memory_mb == 0 {
            return MemoryLimit { previous: None };
        }
        let mut previous = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: `previous` is a valid out-pointer.
        if unsafe { libc::getrlimit(libc::RLIMIT_DATA, &mut previous) } != 0 {
            eprintln!("rigor executor: getrlimit failed, memory limit not applied: {}", io::Error::last_os_error());
            return MemoryLimit { previous: None };
        }
        let baseline = status_kb("VmData").unwrap_or(0).saturating_mul(1024);
        let wanted = baseline.saturating_add(memory_mb.saturating_mul(1 << 20)) as libc::rlim_t;
        let soft = if previous.rlim_max == libc::RLIM_INFINITY { wanted } else { wanted.min(previous.rlim_max) };
        let limit = libc::rlimit { rlim_cur: soft, rlim_max: previous.rlim_max };
        // SAFETY: `limit` is a valid rlimit.
        if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &limit) } != 0 {
            eprintln!("rigor executor: setrlimit failed, memory limit not applied: {}", io::Error::last_os_error());
            return MemoryLimit { previous: None };
        }
        MemoryLimit { previous: Some(previous) }
    }
}

impl Drop for MemoryLimit {
    fn drop(&mut self) {
        if let Some(previous) = self.previous {
            // SAFETY: restoring a limit read by getrlimit; raising the soft limit up to the
            // unchanged hard limit is always permitted.
            unsafe { libc::setrlimit(libc::RLIMIT_DATA, &previous) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_proto::{Param, Value};

    #[test]
    fn converts_params_and_rejects_a_valueless_one() {
        let param = |name: &str, kind| Param { name: name.into(), value: Some(Value { kind: Some(kind) }) };
        let spec = JobSpec {
            job_id: "j".into(),
            kind: "noop".into(),
            seed: 9,
            repetition: 2,
            params: vec![
                param("a", value::Kind::Bool(true)),
                param("b", value::Kind::Int(-3)),
                param("c", value::Kind::Float(0.5)),
                param("d", value::Kind::Str("x".into())),
            ],
            ..Default::default()
        };
        let job = to_job(&spec).unwrap();
        assert_eq!((job.seed, job.repetition, job.id.as_str()), (9, 2, "j"));
        assert_eq!(job.params["a"], ParamValue::Bool(true));
        assert_eq!(job.params["b"], ParamValue::Int(-3));
        assert_eq!(job.params["c"], ParamValue::Float(0.5));
        assert_eq!(job.params["d"], ParamValue::Str("x".into()));

        let bad = JobSpec { params: vec![Param { name: "z".into(), value: None }], ..spec };
        assert!(to_job(&bad).unwrap_err().contains("`z`"));
    }

    #[test]
    fn reads_status_fields() {
        assert!(status_kb("VmData").unwrap() > 0);
        assert!(status_kb("VmHWM").unwrap() > 0);
        assert_eq!(status_kb("NoSuchField"), None);
    }

    #[test]
    fn success_keeps_outputs_sorted_by_name() {
        let mut output = Output::default();
        output.metrics.insert("b".into(), 2.0);
        output.metrics.insert("a".into(), 1.0);
        output.series.insert("s".into(), vec![(0.0, 1.0)]);
        output.artifacts.insert("z".into(), b"zz".to_vec());
        output.artifacts.insert("y".into(), b"yy".to_vec());
        let result = success(output);
        assert!(result.ok);
        let names: Vec<_> = result.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(result.series[0].points, vec![Point { x: 0.0, y: 1.0 }]);
        let names: Vec<_> = result.artifacts.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["y", "z"]);
    }
}
