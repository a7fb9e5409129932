//! The worker side of job execution: a pool of long-lived executor child processes.
//!
//! Each executor (see [`crate::runner`]) runs one job at a time and is reused while it stays
//! healthy; an executor that timed out, crashed, ran out of memory or sent garbage is discarded
//! and replaced lazily. Everything the child sends is untrusted: a dying child can close its pipe
//! mid-frame, so every failure to talk to it becomes an attempt status, never a worker panic.
//!
//! Children die with the worker: `kill_on_drop` covers an orderly drop, and
//! `PR_SET_PDEATHSIG` covers a worker that is killed outright. Because the kernel sends the
//! death signal when the *thread* that forked the child exits, children are forked from one
//! dedicated thread that lives as long as the pool (tokio's blocking threads come and go).

use std::collections::BTreeSet;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rigor_proto::{exec_event, exec_request, AttemptStatus, Empty, ExecEvent, ExecJob, ExecRequest, ExecResult};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, Notify};
use tokio::task::JoinHandle;

use crate::cancel::CancelToken;
use crate::wire::{self, WireError};

/// How long a cancelled job may take to return before its executor is killed.
pub const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// How much of the end of a job's stderr is kept for error reports.
pub const STDERR_TAIL_BYTES: usize = 4096;

/// How much of the start of a job's stderr is kept too: a panic message comes before its
/// backtrace, which can be longer than the tail.
pub const STDERR_HEAD_BYTES: usize = 1024;

/// How long a fresh executor may take to say `ready`.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long to wait for a child that closed stdout to exit before killing it.
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// How long to wait for a child to die after SIGKILL (it may be stuck in the kernel for a while).
const KILL_WAIT: Duration = Duration::from_secs(10);

/// How long to wait for stderr to drain after the child exited (a grandchild may hold it open).
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// The stderr line Rust's default allocation-error handler prints before aborting.
const ALLOC_FAILURE: &str = "memory allocation of";

/// How to start executors.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// The executable, typically `std::env::current_exe()`.
    pub program: PathBuf,
    /// Its arguments, e.g. `["executor"]`.
    pub args: Vec<String>,
    /// The most executors alive at once; also the most concurrent [`ExecutorPool::run`] calls.
    pub size: usize,
    /// Where per-attempt scratch directories are made for jobs that name none.
    pub scratch_root: PathBuf,
    /// Extra environment for the executors (on top of the worker's own).
    pub env: Vec<(String, String)>,
}

/// The outcome of running one job once.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub status: AttemptStatus,
    /// What the executor returned; `None` when it never said `done` (timeout, crash, OOM).
    pub result: Option<ExecResult>,
    /// Empty when OK; otherwise a message, plus the stderr tail when the executor died.
    pub error: String,
    /// 0 while the executor lives on; its exit code, or -signal when it was killed.
    pub exit_code: i32,
    /// From sending the job to its end (executor start-up not included).
    pub wall_ms: u64,
}

impl Attempt {
    fn not_started(status: AttemptStatus, error: String) -> Self {
        Attempt { status, result: None, error, exit_code: 0, wall_ms: 0 }
    }
}

/// Why the pool could not provide an executor.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    #[error("cannot start executor `{program}`: {source}")]
    Spawn { program: PathBuf, source: io::Error },
    #[error("executor {pid} did not start: {reason}{}", tail_suffix(.stderr))]
    Startup { pid: u32, reason: String, stderr: String },
    #[error("the executor pool is shut down")]
    ShutDown,
}

/// A pool of executor processes. Share it (e.g. in an `Arc`) among the tasks running jobs.
///
/// It is bound to the tokio runtime it first spawns in, and must be used from within it.
pub struct ExecutorPool {
    config: PoolConfig,
    state: Mutex<State>,
    /// Signalled when an executor becomes idle or a slot frees up.
    available: Notify,
    spawner: Mutex<Option<Spawner>>,
}

#[derive(Default)]
struct State {
    idle: Vec<Executor>,
    /// Pids of the children that have not been reaped. A pid stays here until just before it is
    /// waited for, so it cannot have been reused while listed, and `shutdown` may signal it.
    live: BTreeSet<u32>,
    /// Slots reserved by spawns in progress.
    starting: usize,
    spawned: u64,
    /// Jobs run so far, to name scratch directories.
    jobs: u64,
    closed: bool,
}

impl ExecutorPool {
    pub fn new(mut config: PoolConfig) -> Self {
        config.size = config.size.max(1);
        ExecutorPool { config, state: Mutex::default(), available: Notify::new(), spawner: Mutex::new(None) }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// Runs one job on an executor and reports how it went. `progress` receives the fractions
    /// the technique reports (throttled by the executor). Cancelling `cancel` asks the job to
    /// stop; if it has not within [`CANCEL_GRACE`], its executor is killed.
    ///
    /// Never fails as a call: a job that cannot even start (no executor could be spawned)
    /// comes back as `Crashed`, and one submitted after [`ExecutorPool::shutdown`] as
    /// `Cancelled`. Use [`ExecutorPool::warm_up`] at start-up to detect a broken executor
    /// command before taking jobs.
    pub async fn run(&self, mut job: ExecJob, mut progress: impl FnMut(f64) + Send, cancel: &CancelToken) -> Attempt {
        let lease = match self.acquire().await {
            Ok(lease) => lease,
            Err(ExecutorError::ShutDown) => {
                return Attempt::not_started(AttemptStatus::Cancelled, ExecutorError::ShutDown.to_string())
            }
            Err(e) => return Attempt::not_started(AttemptStatus::Crashed, e.to_string()),
        };
        let (timeout_ms, memory_mb) = job.spec.as_ref().map_or((0, 0), |s| (s.timeout_ms, s.memory_mb));
        if job.scratch.is_empty() {
            let n = {
                let mut st = self.lock();
                st.jobs += 1;
                st.jobs
            };
            let dir = self.config.scratch_root.join(format!("{}-{n}", std::process::id()));
            job.scratch = dir.to_string_lossy().into_owned();
        }
        let scratch = PathBuf::from(&job.scratch);

        let attempt = self.drive(lease, job, &mut progress, cancel, timeout_ms, memory_mb).await;
        // The executor removes it itself unless it was killed or died.
        if let Err(e) = tokio::fs::remove_dir_all(&scratch).await {
            if e.kind() != io::ErrorKind::NotFound {
                tracing::warn!("cannot remove scratch directory {}: {e}", scratch.display());
            }
        }
        attempt
    }

    async fn drive(
        &self,
        mut lease: Lease<'_>,
        job: ExecJob,
        progress: &mut (impl FnMut(f64) + Send),
        cancel: &CancelToken,
        timeout_ms: u64,
        memory_mb: u64,
    ) -> Attempt {
        let ex = lease.executor();
        ex.clear_stderr();
        let started = Instant::now();
        let deadline = (timeout_ms > 0).then(|| started + Duration::from_millis(timeout_ms));
        let mut cancel_deadline: Option<Instant> = None;

        let sent = ex.send(&ExecRequest { kind: Some(exec_request::Kind::Run(job)) }).await;
        let outcome = match sent {
            Err(e) => Outcome::Unsent(e),
            Ok(()) => loop {
                tokio::select! {
                    biased;
                    event = ex.events.recv() => match event {
                        Some(Ok(ExecEvent { kind: Some(exec_event::Kind::Done(result)) })) => break Outcome::Done(result),
                        Some(Ok(ExecEvent { kind: Some(exec_event::Kind::Progress(p)) })) => {
                            if p.is_finite() {
                                progress(p.clamp(0.0, 1.0));
                            }
                        }
                        Some(Ok(_)) => {} // a stray `ready`, or an event from a newer executor
                        Some(Err(e)) => break Outcome::Broken(Some(e)),
                        None => break Outcome::Broken(None),
                    },
                    _ = sleep_until(deadline) => break Outcome::Timeout,
                    _ = sleep_until(cancel_deadline) => break Outcome::CancelIgnored,
                    _ = cancel.cancelled(), if cancel_deadline.is_none() => {
                        cancel_deadline = Some(Instant::now() + CANCEL_GRACE);
                        // If this fails the child is dying, and its stdout will say so.
                        let _ = ex.send(&ExecRequest { kind: Some(exec_request::Kind::Cancel(Empty {})) }).await;
                    }
                }
            },
        };
        let wall_ms = started.elapsed().as_millis() as u64;

        let attempt = |status, result, error, exit_code| Attempt { status, result, error, exit_code, wall_ms };
        match outcome {
            Outcome::Done(result) => {
                lease.release();
                let status = if result.ok {
                    AttemptStatus::Ok
                } else if result.cancelled {
                    AttemptStatus::Cancelled
                } else {
                    AttemptStatus::Failed
                };
                let error = if result.ok { String::new() } else { result.error.clone() };
                attempt(status, Some(result), error, 0)
            }
            Outcome::Timeout => {
                let end = lease.retire(true).await;
                let error = format!("exceeded the wall-time limit of {timeout_ms} ms{}", tail_suffix(&end.stderr));
                attempt(AttemptStatus::Timeout, None, error, end.exit_code())
            }
            Outcome::CancelIgnored => {
                let end = lease.retire(true).await;
                let error = format!(
                    "cancelled; the job did not stop within {} s and was killed{}",
                    CANCEL_GRACE.as_secs(),
                    tail_suffix(&end.stderr)
                );
                attempt(AttemptStatus::Cancelled, None, error, end.exit_code())
            }
            Outcome::Broken(_) | Outcome::Unsent(_) => {
                // A malformed stream means a confused child: kill it. A clean EOF (or a closed
                // stdin) means it is dying on its own: let it, so its exit status tells why.
                let end = lease.retire(matches!(outcome, Outcome::Broken(Some(_)))).await;
                let exit_code = end.exit_code();
                if self.lock().closed {
                    let error = "the worker is shutting down; the job's executor was stopped".to_string();
                    return attempt(AttemptStatus::Cancelled, None, error, exit_code);
                }
                let signal = end.status.and_then(|s| s.signal());
                let oom = end.alloc_failure || (signal == Some(libc::SIGKILL) && !end.killed);
                let exit = end.status.map_or_else(|| "exit status unknown".to_string(), describe_exit);
                let how = match &outcome {
                    Outcome::Broken(Some(e)) => format!("sent a malformed event ({e})"),
                    Outcome::Unsent(e) => format!("could not be sent the job ({e}); {exit}"),
                    _ => exit,
                };
                let (status, error) = if oom {
                    let limit = if memory_mb > 0 { format!("limit {memory_mb} MiB") } else { "no limit set".into() };
                    (AttemptStatus::Oom, format!("executor ran out of memory ({limit}; {how})"))
                } else {
                    (AttemptStatus::Crashed, format!("executor died before finishing the job ({how})"))
                };
                tracing::warn!(pid = end.pid, ?status, "{error}");
                attempt(status, None, format!("{error}{}", tail_suffix(&end.stderr)), exit_code)
            }
        }
    }

    /// Starts one executor (if none is idle) and checks that it says `ready`, so a broken
    /// executor command is found at start-up rather than as crashed jobs.
    pub async fn warm_up(&self) -> Result<(), ExecutorError> {
        self.acquire().await?.release();
        Ok(())
    }

    /// Pids of the executors alive now (idle or busy), in ascending order. For tests and logs.
    pub fn pids(&self) -> Vec<u32> {
        self.lock().live.iter().copied().collect()
    }

    /// How many executors this pool has started so far.
    pub fn spawned(&self) -> u64 {
        self.lock().spawned
    }

    /// Kills every executor, idle or busy, and refuses further jobs. Jobs in progress end as
    /// `Cancelled`.
    pub async fn shutdown(&self) {
        let idle = {
            let mut st = self.lock();
            st.closed = true;
            for &pid in &st.live {
                // SAFETY: plain syscall. Listed pids are unreaped children of ours (see `State::live`).
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            }
            std::mem::take(&mut st.idle)
        };
        // Ends the spawner thread: from here on, even a child forked concurrently gets its
        // parent-death signal.
        self.spawner.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.available.notify_waiters();
        for ex in idle {
            Lease { pool: self, ex: Some(ex) }.retire(true).await;
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock, but a poisoned pool should still shut down.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets a child that is about to be reaped (or dropped, which kills it).
    fn unregister(&self, pid: u32) {
        self.lock().live.remove(&pid);
        self.available.notify_waiters();
    }

    /// An idle executor, a new one if there is a free slot, or else the next one to free up.
    async fn acquire(&self) -> Result<Lease<'_>, ExecutorError> {
        loop {
            // Registered before looking, so a release between the look and the wait is not missed.
            let notified = self.available.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let (next, dead) = self.next_executor()?;
            drop(dead); // outside the lock
            match next {
                Next::Idle(ex) => return Ok(Lease { pool: self, ex: Some(ex) }),
                Next::Spawn => {
                    let _reservation = Reservation(self);
                    return self.start_executor().await;
                }
                Next::Wait => notified.await,
            }
        }
    }

    /// Decides under the lock: a healthy idle executor, a reserved slot to spawn in, or wait.
    /// Also returns the idle executors found dead, to be dropped outside the lock.
    fn next_executor(&self) -> Result<(Next, Vec<Executor>), ExecutorError> {
        let mut st = self.lock();
        if st.closed {
            return Err(ExecutorError::ShutDown);
        }
        let mut dead = Vec::new();
        while let Some(mut ex) = st.idle.pop() {
            // Reaping here, under the lock, keeps `live` exact for `shutdown`.
            match ex.child.try_wait() {
                Ok(None) => return Ok((Next::Idle(ex), dead)),
                Ok(Some(status)) => tracing::warn!(pid = ex.pid, "idle executor died ({})", describe_exit(status)),
                Err(e) => tracing::warn!(pid = ex.pid, "cannot check on idle executor: {e}"),
            }
            st.live.remove(&ex.pid);
            dead.push(ex);
        }
        if st.live.len() + st.starting < self.config.size {
            st.starting += 1;
            Ok((Next::Spawn, dead))
        } else {
            Ok((Next::Wait, dead))
        }
    }

    /// Spawns an executor in a reserved slot and waits for its `ready`.
    async fn start_executor(&self) -> Result<Lease<'_>, ExecutorError> {
        let spawn_error = |source| ExecutorError::Spawn { program: self.config.program.clone(), source };
        let mut child = self.spawn_child().await.map_err(spawn_error)?;
        let pid = child.id().ok_or_else(|| spawn_error(io::Error::other("the child exited at once")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_error(io::Error::other("the child's pipes are missing")));
        };
        {
            let mut st = self.lock();
            if st.closed {
                // Dropping `child` kills it: it was never listed, so `shutdown` did not see it.
                return Err(ExecutorError::ShutDown);
            }
            st.live.insert(pid);
            st.spawned += 1;
        }
        let tail = Arc::new(Mutex::new(Tail::default()));
        let ex = Executor {
            pid,
            child,
            stdin,
            events: read_events(stdout),
            stderr_task: Some(collect_stderr(stderr, tail.clone())),
            tail,
        };
        let mut lease = Lease { pool: self, ex: Some(ex) };
        tracing::debug!(pid, "started executor");

        let first = tokio::time::timeout(READY_TIMEOUT, lease.executor().events.recv()).await;
        let ended = matches!(first, Ok(None));
        let reason = match first {
            Ok(Some(Ok(ExecEvent { kind: Some(exec_event::Kind::Ready(_)) }))) => return Ok(lease),
            Ok(Some(Ok(other))) => format!("its first event was {other:?}, not `ready`"),
            Ok(Some(Err(e))) => format!("malformed first event: {e}"),
            Ok(None) => "it exited before saying `ready`".to_string(),
            Err(_) => format!("no `ready` within {} s", READY_TIMEOUT.as_secs()),
        };
        let end = lease.retire(!ended).await;
        if self.lock().closed {
            // `shutdown` killed it while it was starting.
            return Err(ExecutorError::ShutDown);
        }
        let reason = match end.status {
            Some(status) if !end.killed => format!("{reason} ({})", describe_exit(status)),
            _ => reason,
        };
        Err(ExecutorError::Startup { pid, reason, stderr: end.stderr })
    }

    /// Forks on the spawner thread (see the module docs), started on first use.
    async fn spawn_child(&self) -> io::Result<Child> {
        let mut cmd = Command::new(&self.config.program);
        cmd.args(&self.config.args)
            .envs(self.config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let parent = std::process::id();
        // SAFETY: the hook only makes async-signal-safe syscalls and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The worker died between fork and prctl: the signal will never come.
                if libc::getppid() as u32 != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
        let (reply, replied) = oneshot::channel();
        {
            let mut spawner = self.spawner.lock().unwrap_or_else(|e| e.into_inner());
            if spawner.is_none() {
                if self.lock().closed {
                    return Err(io::Error::other("the executor pool is shut down"));
                }
                *spawner = Some(Spawner::start()?);
            }
            let sent = spawner.as_ref().map(|s| s.requests.send(SpawnRequest { cmd, reply }));
            if !matches!(sent, Some(Ok(()))) {
                return Err(io::Error::other("the spawner thread is gone"));
            }
        }
        replied.await.map_err(|_| io::Error::other("the spawner thread is gone"))?
    }
}

/// Releases a slot reserved by `acquire` once the spawn is over (successful or not).
struct Reservation<'a>(&'a ExecutorPool);

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.starting = st.starting.saturating_sub(1);
        drop(st);
        self.0.available.notify_waiters();
    }
}

enum Next {
    Idle(Executor),
    Spawn,
    Wait,
}

enum Outcome {
    Done(ExecResult),
    /// The event stream ended (`None`) or broke before `done`.
    Broken(Option<WireError>),
    /// Writing the job to the executor failed: it died while idle.
    Unsent(WireError),
    Timeout,
    CancelIgnored,
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline.into()).await,
        None => std::future::pending().await,
    }
}

fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}{}", signal_name(signal)),
        (None, None) => status.to_string(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGTERM => " (SIGTERM)",
        _ => "",
    }
}

fn tail_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("\n--- executor stderr ---\n{stderr}")
    }
}

/// One executor child and the tasks draining its output.
struct Executor {
    pid: u32,
    child: Child,
    stdin: ChildStdin,
    /// Decoded events from stdout; closed at EOF (after an `Err` if the stream broke).
    events: mpsc::Receiver<Result<ExecEvent, WireError>>,
    tail: Arc<Mutex<Tail>>,
    stderr_task: Option<JoinHandle<()>>,
}

impl Executor {
    async fn send(&mut self, request: &ExecRequest) -> Result<(), WireError> {
        wire::write_frame_async(&mut self.stdin, request).await
    }

    fn clear_stderr(&self) {
        self.tail.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The job's stderr excerpt and whether it reported an allocation failure.
    fn stderr(&self) -> (String, bool) {
        let tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        (tail.text(), tail.alloc_failure)
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        // The child itself is killed by `kill_on_drop`; its stdout reader ends at EOF.
        if let Some(task) = self.stderr_task.take() {
            task.abort();
        }
    }
}

/// Reads events on a task of their own, so that waiting for one is cancel-safe in `select!`.
fn read_events(stdout: tokio::process::ChildStdout) -> mpsc::Receiver<Result<ExecEvent, WireError>> {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let mut stdout = tokio::io::BufReader::new(stdout);
        loop {
            match wire::read_frame_async::<_, ExecEvent>(&mut stdout).await {
                Ok(Some(event)) => {
                    if tx.send(Ok(event)).await.is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            }
        }
    });
    rx
}

/// Keeps the start and the end of a child's stderr, continuously, so that the child never
/// blocks on a full stderr pipe and a crash report has its last words.
fn collect_stderr(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Tail>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => tail.lock().unwrap_or_else(|e| e.into_inner()).push(&buf[..n]),
            }
        }
    })
}

/// A job's stderr, bounded: the first [`STDERR_HEAD_BYTES`] (where a panic or abort message
/// is, before any backtrace) and the last [`STDERR_TAIL_BYTES`] (the last words), plus
/// whether Rust's allocation-failure message went by, even if it scrolled out since.
#[derive(Default)]
struct Tail {
    head: Vec<u8>,
    ring: std::collections::VecDeque<u8>,
    total: u64,
    alloc_failure: bool,
}

impl Tail {
    fn push(&mut self, data: &[u8]) {
        if !self.alloc_failure {
            // Search across the chunk boundary too: the marker may arrive in two reads.
            let marker = ALLOC_FAILURE.as_bytes();
            let carry = self.ring.len().min(marker.len() - 1);
            let mut window: Vec<u8> = self.ring.range(self.ring.len() - carry..).copied().collect();
            window.extend_from_slice(data);
            self.alloc_failure = window.windows(marker.len()).any(|w| w == marker);
        }
        let room = STDERR_HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&data[..room.min(data.len())]);
        self.total += data.len() as u64;
        let data = &data[data.len().saturating_sub(STDERR_TAIL_BYTES)..];
        let excess = (self.ring.len() + data.len()).saturating_sub(STDERR_TAIL_BYTES);
        self.ring.drain(..excess);
        self.ring.extend(data);
    }

    fn clear(&mut self) {
        *self = Tail::default();
    }

    fn text(&self) -> String {
        let mut bytes = Vec::with_capacity(STDERR_HEAD_BYTES + STDERR_TAIL_BYTES + 64);
        let ring_len = self.ring.len() as u64;
        if self.total > ring_len {
            // The ring no longer starts at the beginning: show the head, then whatever of the
            // ring does not repeat it.
            bytes.extend_from_slice(&self.head);
            let ring_start = self.total - ring_len;
            let head_len = self.head.len() as u64;
            let gap = ring_start.saturating_sub(head_len);
            let overlap = head_len.saturating_sub(ring_start) as usize;
            if gap > 0 {
                bytes.extend_from_slice(format!("\n[... {gap} bytes omitted ...]\n").as_bytes());
            }
            bytes.extend(self.ring.iter().skip(overlap));
        } else {
            bytes.extend(self.ring.iter());
        }
        // A cut may split a UTF-8 sequence; lossy decoding turns it into a replacement char.
        String::from_utf8_lossy(&bytes).trim_end().to_string()
    }
}

/// An executor taken out of the pool for one job. Dropping it (e.g. when the `run` future is
/// dropped) forgets the executor and kills the child, so the slot is never leaked.
struct Lease<'a> {
    pool: &'a ExecutorPool,
    ex: Option<Executor>,
}

/// How a retired executor ended.
struct Retired {
    pid: u32,
    status: Option<ExitStatus>,
    /// Whether we sent the SIGKILL (as opposed to the kernel's OOM killer, say).
    killed: bool,
    stderr: String,
    /// Whether stderr carried Rust's allocation-failure message.
    alloc_failure: bool,
}

impl Retired {
    /// Exit code, or -signal when killed, as recorded in provenance.
    fn exit_code(&self) -> i32 {
        match self.status {
            Some(status) => status.code().or(status.signal().map(|s| -s)).unwrap_or(-1),
            None => -1,
        }
    }
}

impl Lease<'_> {
    fn executor(&mut self) -> &mut Executor {
        // A lease holds its executor until `release` or `retire`, which consume the lease.
        self.ex.as_mut().expect("lease without executor")
    }

    /// Returns a healthy executor to the pool (or stops it if the pool was shut down meanwhile).
    fn release(mut self) {
        let Some(ex) = self.ex.take() else { return };
        let mut st = self.pool.lock();
        if st.closed {
            st.live.remove(&ex.pid);
            drop(st);
            drop(ex); // kill_on_drop; tokio reaps it in the background
        } else {
            st.idle.push(ex);
            drop(st);
        }
        self.pool.available.notify_waiters();
    }

    /// Takes the executor out of service: optionally kills it, reaps it and collects its stderr.
    async fn retire(mut self, kill: bool) -> Retired {
        let Some(mut ex) = self.ex.take() else {
            return Retired { pid: 0, status: None, killed: false, stderr: String::new(), alloc_failure: false };
        };
        self.pool.unregister(ex.pid);
        let mut killed = false;
        if kill {
            killed = ex.child.start_kill().is_ok();
        }
        let wait = if kill { KILL_WAIT } else { EXIT_WAIT };
        let status = match tokio::time::timeout(wait, ex.child.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                killed = ex.child.start_kill().is_ok();
                tokio::time::timeout(KILL_WAIT, ex.child.wait()).await.ok().and_then(Result::ok)
            }
        };
        if let Some(task) = ex.stderr_task.take() {
            let _ = tokio::time::timeout(STDERR_DRAIN, task).await;
        }
        let (stderr, alloc_failure) = ex.stderr();
        Retired { pid: ex.pid, status, killed, stderr, alloc_failure }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(ex) = self.ex.take() {
            self.pool.unregister(ex.pid);
        }
    }
}

/// The thread that forks every executor of a pool. It exits when the pool drops its sender,
/// which makes the kernel deliver PR_SET_PDEATHSIG to any child still alive.
struct Spawner {
    requests: std::sync::mpsc::Sender<SpawnRequest>,
}

struct SpawnRequest {
    cmd: Command,
    reply: oneshot::Sender<io::Result<Child>>,
}

impl Spawner {
    fn start() -> io::Result<Self> {
        let runtime = tokio::runtime::Handle::current();
        let (requests, rx) = std::sync::mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new().name("rigor-executor-spawner".into()).spawn(move || {
            // tokio registers each child with the runtime's process driver.
            let _guard = runtime.enter();
            for mut request in rx {
                // If the requester is gone, dropping the child kills it.
                let _ = request.reply.send(request.cmd.spawn());
            }
        })?;
        Ok(Spawner { requests })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_stderr_is_kept_whole() {
        let mut tail = Tail::default();
        tail.push(b"hello ");
        tail.push(b"world\n");
        assert_eq!(tail.text(), "hello world");
        tail.clear();
        assert_eq!(tail.text(), "");
    }

    #[test]
    fn long_stderr_keeps_head_and_tail_without_repeating_bytes() {
        // Every length around the boundaries: the text is always a prefix and suffix of the input.
        for len in [STDERR_TAIL_BYTES, STDERR_TAIL_BYTES + 1, STDERR_TAIL_BYTES + STDERR_HEAD_BYTES, 20_000] {
            for chunk in [1, 7, 4096, 20_000] {
                let input: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                let mut tail = Tail::default();
                for piece in input.chunks(chunk) {
                    tail.push(piece);
                }
                let text = tail.text();
                let head = &input[..STDERR_HEAD_BYTES];
                let end = &input[len - STDERR_TAIL_BYTES..];
                assert!(text.as_bytes().starts_with(head), "len {len} chunk {chunk}");
                assert!(text.as_bytes().ends_with(end), "len {len} chunk {chunk}");
                let omitted = len.saturating_sub(STDERR_HEAD_BYTES + STDERR_TAIL_BYTES);
                if omitted > 0 {
                    assert!(text.contains(&format!("[... {omitted} bytes omitted ...]")), "len {len}");
                } else {
                    assert_eq!(text.as_bytes(), &input[..], "len {len} chunk {chunk}");
                }
            }
        }
    }

    #[test]
    fn allocation_failure_is_seen_across_reads_and_after_scrolling_out() {
        let mut tail = Tail::default();
        tail.push(&vec![b'x'; 2 * STDERR_HEAD_BYTES]);
        tail.push(b"memory alloc");
        tail.push(b"ation of 1024 bytes failed\n");
        tail.push(&vec![b'y'; 3 * STDERR_TAIL_BYTES]);
        assert!(!tail.text().contains(ALLOC_FAILURE));
        assert!(tail.alloc_failure);
        tail.clear();
        assert!(!tail.alloc_failure);
    }

    #[test]
    fn describes_exits() {
        assert_eq!(describe_exit(ExitStatus::from_raw(101 << 8)), "exit code 101");
        assert_eq!(describe_exit(ExitStatus::from_raw(libc::SIGABRT)), "killed by signal 6 (SIGABRT)");
        let retired = Retired {
            pid: 1,
            status: Some(ExitStatus::from_raw(libc::SIGKILL)),
            killed: true,
            stderr: String::new(),
            alloc_failure: false,
        };
        assert_eq!(retired.exit_code(), -9);
    }
}
