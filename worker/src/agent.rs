//! The worker's conversation with the coordinator: register, lease into free slots, heartbeat,
//! fetch inputs, run in the executor pool, send results (with retries), and shut down gracefully.
//!
//! The worker outlives coordinator restarts: calls that fail are retried with back-off, a
//! coordinator that no longer knows the worker gets a new registration, and finished results
//! stay queued until the coordinator has acknowledged them, so no finished work is lost.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rigor_proto::client::{Clients, Target};
use rigor_proto::{
    ArtifactChunk, AttemptReport, AttemptStatus, CompleteRequest, ExecInput, ExecJob, Hashes, HeartbeatRequest,
    InputRef, JobOutput, LeaseRequest, LeasedJob, Provenance, RegisterRequest, RunningJob,
};
use tokio::sync::{mpsc, Notify};
use tonic::Code;

use crate::{Attempt, CancelToken, ExecutorPool, PoolConfig};

/// Artifacts up to this size travel inline with the result; larger ones are uploaded first.
const INLINE_ARTIFACT: usize = 1 << 20;
use rigor_proto::ARTIFACT_CHUNK as CHUNK;

#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub target: Target,
    pub worker_id: String,
    pub slots: usize,
    /// Jobs leased ahead of free slots, so a slot that frees up starts its next job without
    /// waiting for a lease call. More helps short jobs; fewer balances the end of a study.
    pub prefetch: usize,
    /// Technique kinds this binary can run.
    pub kinds: Vec<String>,
    /// Holds downloaded inputs (by hash) and scratch directories.
    pub cache_dir: PathBuf,
    /// The executor command: program and arguments.
    pub executor: (PathBuf, Vec<String>),
    pub env: Vec<(String, String)>,
    pub rigor_version: String,
    pub git_commit: String,
    /// Sent at registration; differs from [`PROTOCOL_VERSION`] only in tests of the refusal.
    pub protocol_version: u32,
    /// How long a graceful shutdown waits for running jobs before handing them back.
    pub shutdown_grace: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Connect(#[from] rigor_proto::client::ConnectError),
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
    #[error("cannot prepare {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// What a worker did, for its exit message.
#[derive(Debug, Default, Clone)]
pub struct WorkerSummary {
    pub completed: u64,
    pub failed: u64,
}

struct Running {
    attempt: u32,
    progress: f64,
    cancel: CancelToken,
}

struct Shared {
    clients: Clients,
    config: WorkerConfig,
    pool: ExecutorPool,
    running: Mutex<HashMap<String, Running>>,
    slot_freed: Notify,
    host: String,
    cpu_model: String,
}

fn is_fatal(code: Code) -> bool {
    matches!(code, Code::FailedPrecondition | Code::Unauthenticated | Code::PermissionDenied | Code::InvalidArgument)
}

/// Runs a worker until `shutdown` completes (then drains gracefully) or the coordinator refuses it.
pub async fn run(config: WorkerConfig, shutdown: impl std::future::Future<Output = ()>) -> Result<WorkerSummary, WorkerError> {
    let clients = config.target.connect_lazy()?;
    for dir in [config.cache_dir.join("inputs"), config.cache_dir.join("scratch")] {
        std::fs::create_dir_all(&dir).map_err(|source| WorkerError::Io { path: dir.clone(), source })?;
    }
    let pool = ExecutorPool::new(PoolConfig {
        program: config.executor.0.clone(),
        args: config.executor.1.clone(),
        size: config.slots,
        scratch_root: config.cache_dir.join("scratch"),
        env: config.env.clone(),
    });
    let shared = Arc::new(Shared {
        clients,
        pool,
        running: Mutex::new(HashMap::new()),
        slot_freed: Notify::new(),
        host: hostname(),
        cpu_model: cpu_model(),
        config,
    });
    let heartbeat_every = register(&shared).await?;

    let (done_tx, done_rx) = mpsc::unbounded_channel::<(AttemptReport, Vec<ArtifactChunk>)>();
    let summary = Arc::new(Mutex::new(WorkerSummary::default()));
    let sender = tokio::spawn(send_results(shared.clone(), done_rx, summary.clone()));
    let beats = tokio::spawn(heartbeats(shared.clone(), heartbeat_every));

    tokio::pin!(shutdown);
    let mut idle = Duration::from_millis(20);
    loop {
        let capacity = shared.config.slots + shared.config.prefetch;
        let held = shared.running.lock().expect("lock").len();
        let free = capacity.saturating_sub(held);
        // Lease at once when an executor would idle; otherwise wait until a batch of
        // `prefetch` can be leased, so short jobs do not cost one call each.
        let want = free > 0 && (held < shared.config.slots || free >= shared.config.prefetch.max(1));
        if want {
            let req = LeaseRequest { worker_id: shared.config.worker_id.clone(), max_jobs: free as u32 };
            match shared.clients.workers.clone().lease(req).await {
                Ok(resp) => {
                    let jobs = resp.into_inner().jobs;
                    if !jobs.is_empty() {
                        idle = Duration::from_millis(20);
                        for job in jobs {
                            start_job(&shared, job, done_tx.clone());
                        }
                        continue;
                    }
                }
                Err(s) if s.code() == Code::NotFound => {
                    register(&shared).await?;
                    continue;
                }
                Err(s) if is_fatal(s.code()) => return Err(WorkerError::Refused(s.message().to_string())),
                Err(s) => tracing::warn!(error = %s.message(), "leasing failed; retrying"),
            }
        }
        // Wait for a slot to free up, or poll again after a back-off while the queue is empty.
        tokio::select! {
            _ = &mut shutdown => break,
            _ = shared.slot_freed.notified(), if !want => {}
            _ = tokio::time::sleep(idle), if want => idle = (idle * 2).min(Duration::from_millis(500)),
        }
    }

    // Graceful: no new leases; let running jobs finish within the grace period, then cancel them
    // (their leases lapse and the coordinator queues them elsewhere).
    tracing::info!("shutting down: waiting for running jobs");
    let deadline = Instant::now() + shared.config.shutdown_grace;
    while !shared.running.lock().expect("lock").is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for r in shared.running.lock().expect("lock").values() {
        r.cancel.cancel();
    }
    while !shared.running.lock().expect("lock").is_empty() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    beats.abort();
    drop(done_tx);
    let _ = tokio::time::timeout(Duration::from_secs(30), sender).await;
    let _ = shared
        .clients
        .workers
        .clone()
        .deregister(LeaseRequest { worker_id: shared.config.worker_id.clone(), max_jobs: 0 })
        .await;
    shared.pool.shutdown().await;
    let s = summary.lock().expect("lock").clone();
    Ok(s)
}

/// Registers until the coordinator answers; returns the heartbeat interval it asks for.
async fn register(shared: &Shared) -> Result<Duration, WorkerError> {
    let c = &shared.config;
    let req = RegisterRequest {
        protocol_version: c.protocol_version,
        worker_id: c.worker_id.clone(),
        host: shared.host.clone(),
        kinds: c.kinds.clone(),
        slots: c.slots as u32,
        rigor_version: c.rigor_version.clone(),
    };
    let mut backoff = Duration::from_millis(100);
    loop {
        match shared.clients.workers.clone().register(req.clone()).await {
            Ok(r) => {
                let r = r.into_inner();
                tracing::info!(worker = %c.worker_id, "registered");
                return Ok(Duration::from_millis(r.heartbeat_interval_ms.max(20)));
            }
            Err(s) if is_fatal(s.code()) => return Err(WorkerError::Refused(s.message().to_string())),
            Err(s) => {
                tracing::warn!(error = %s.message(), "coordinator unavailable; retrying registration");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
        }
    }
}

fn start_job(shared: &Arc<Shared>, job: LeasedJob, done: mpsc::UnboundedSender<(AttemptReport, Vec<ArtifactChunk>)>) {
    let spec = job.spec.clone().unwrap_or_default();
    let cancel = CancelToken::new();
    shared
        .running
        .lock()
        .expect("lock")
        .insert(spec.job_id.clone(), Running { attempt: job.attempt, progress: 0.0, cancel: cancel.clone() });
    let shared = shared.clone();
    tokio::spawn(async move {
        let id = spec.job_id.clone();
        let (report, blobs) = execute(&shared, job, cancel).await;
        let _ = done.send((report, blobs));
        shared.running.lock().expect("lock").remove(&id);
        shared.slot_freed.notify_one();
    });
}

fn unix_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Runs one leased job: inputs, executor, outputs. Never fails: problems become the attempt's status.
async fn execute(shared: &Arc<Shared>, job: LeasedJob, cancel: CancelToken) -> (AttemptReport, Vec<ArtifactChunk>) {
    let spec = job.spec.unwrap_or_default();
    let started = unix_ms();
    let mut provenance = Provenance {
        rigor_version: shared.config.rigor_version.clone(),
        git_commit: shared.config.git_commit.clone(),
        technique_version: spec.technique_version.clone(),
        worker_id: shared.config.worker_id.clone(),
        host: shared.host.clone(),
        cpu_model: shared.cpu_model.clone(),
        started_unix_ms: started,
        attempt: job.attempt,
        ..Default::default()
    };
    let mut report = AttemptReport { job_id: spec.job_id.clone(), attempt: job.attempt, ..Default::default() };
    let inputs = match fetch_inputs(shared, &spec.inputs).await {
        Ok(i) => i,
        Err(e) => {
            report.status = AttemptStatus::Failed as i32;
            report.error = format!("fetching inputs: {e}");
            provenance.finished_unix_ms = unix_ms();
            report.provenance = Some(provenance);
            return (report, Vec::new());
        }
    };
    let scratch = shared.config.cache_dir.join("scratch").join(format!("{}-{}", spec.job_id, job.attempt));
    let exec = ExecJob { spec: Some(spec.clone()), inputs, scratch: scratch.to_string_lossy().into_owned() };
    let progress_shared = shared.clone();
    let progress_id = spec.job_id.clone();
    let attempt: Attempt = shared
        .pool
        .run(
            exec,
            move |p| {
                if let Some(r) = progress_shared.running.lock().expect("lock").get_mut(&progress_id) {
                    r.progress = p;
                }
            },
            &cancel,
        )
        .await;
    provenance.finished_unix_ms = unix_ms();
    provenance.wall_ms = attempt.wall_ms;
    provenance.exit_code = attempt.exit_code;
    report.status = attempt.status as i32;
    report.error = attempt.error.clone();
    let mut blobs = Vec::new();
    if let Some(result) = attempt.result {
        provenance.cpu_ms = result.cpu_ms;
        provenance.peak_rss_kb = result.peak_rss_kb;
        if attempt.status == AttemptStatus::Ok {
            let mut artifacts = Vec::new();
            for a in result.artifacts {
                let hash = blake3::hash(&a.data).to_hex().to_string();
                artifacts.push(InputRef { name: a.name, hash: hash.clone(), size: a.data.len() as u64 });
                if a.data.len() <= INLINE_ARTIFACT {
                    blobs.push(ArtifactChunk { hash, size: a.data.len() as u64, data: a.data });
                } else if let Err(e) = upload(shared, &hash, a.data).await {
                    report.status = AttemptStatus::Failed as i32;
                    report.error = format!("uploading artifact: {e}");
                }
            }
            if report.status == AttemptStatus::Ok as i32 {
                report.output = Some(JobOutput {
                    metrics: result.metrics,
                    series: result.series,
                    artifacts,
                    log: result.log,
                });
            }
        }
    }
    report.provenance = Some(provenance);
    (report, blobs)
}

/// Downloads (or finds in the cache) every input; returns name → local path.
async fn fetch_inputs(shared: &Shared, inputs: &[InputRef]) -> Result<Vec<ExecInput>, String> {
    let mut out = Vec::new();
    for input in inputs {
        if !input.hash.bytes().all(|b| b.is_ascii_hexdigit()) || input.hash.len() != 64 {
            return Err(format!("input {} has a malformed hash", input.name));
        }
        let path = shared.config.cache_dir.join("inputs").join(&input.hash);
        if !path.is_file() {
            download(shared, &input.hash, &path).await?;
        }
        out.push(ExecInput { name: input.name.clone(), path: path.to_string_lossy().into_owned() });
    }
    Ok(out)
}

async fn download(shared: &Shared, hash: &str, dest: &Path) -> Result<(), String> {
    use tokio::io::AsyncWriteExt;
    let req = rigor_proto::ArtifactRef { hash: hash.to_string(), size: 0 };
    let mut stream = shared.clients.artifacts.clone().download(req).await.map_err(|s| s.message().to_string())?.into_inner();
    let tmp = dest.with_extension(format!("part-{}", std::process::id() as u64 * 1_000_003 + unix_ms() as u64));
    let mut file = tokio::fs::File::create(&tmp).await.map_err(|e| e.to_string())?;
    let mut hasher = blake3::Hasher::new();
    while let Some(chunk) = stream.message().await.map_err(|s| s.message().to_string())? {
        hasher.update(&chunk.data);
        file.write_all(&chunk.data).await.map_err(|e| e.to_string())?;
    }
    file.flush().await.map_err(|e| e.to_string())?;
    if hasher.finalize().to_hex().as_str() != hash {
        let _ = tokio::fs::remove_file(&tmp).await;
        return Err(format!("artifact {hash} arrived corrupted"));
    }
    tokio::fs::rename(&tmp, dest).await.map_err(|e| e.to_string())
}

async fn upload(shared: &Shared, hash: &str, data: Vec<u8>) -> Result<(), String> {
    let missing = shared
        .clients
        .artifacts
        .clone()
        .missing(Hashes { hashes: vec![hash.to_string()] })
        .await
        .map_err(|s| s.message().to_string())?
        .into_inner();
    if missing.hashes.is_empty() {
        return Ok(());
    }
    let size = data.len() as u64;
    let chunks: Vec<ArtifactChunk> = data
        .chunks(CHUNK)
        .enumerate()
        .map(|(i, c)| ArtifactChunk { hash: if i == 0 { hash.to_string() } else { String::new() }, size, data: c.to_vec() })
        .collect();
    shared.clients.artifacts.clone().upload(tokio_stream::iter(chunks)).await.map_err(|s| s.message().to_string())?;
    Ok(())
}

/// Sends finished attempts in batches, keeping them until the coordinator acknowledges them.
async fn send_results(
    shared: Arc<Shared>,
    mut rx: mpsc::UnboundedReceiver<(AttemptReport, Vec<ArtifactChunk>)>,
    summary: Arc<Mutex<WorkerSummary>>,
) {
    let mut backoff = Duration::from_millis(50);
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        let (reports, blobs): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        let req = CompleteRequest {
            worker_id: shared.config.worker_id.clone(),
            reports,
            blobs: blobs.into_iter().flatten().collect(),
        };
        loop {
            match shared.clients.workers.clone().complete(req.clone()).await {
                Ok(resp) => {
                    let mut s = summary.lock().expect("lock");
                    for r in &req.reports {
                        if r.status == AttemptStatus::Ok as i32 {
                            s.completed += 1;
                        } else {
                            s.failed += 1;
                        }
                    }
                    let refused = resp.into_inner().accepted.iter().filter(|a| !**a).count();
                    if refused > 0 {
                        tracing::debug!(refused, "results not needed: the jobs were finished elsewhere or cancelled");
                    }
                    backoff = Duration::from_millis(50);
                    break;
                }
                Err(s) if s.code() == Code::NotFound => {
                    if register(&shared).await.is_err() {
                        return;
                    }
                }
                Err(s) => {
                    tracing::warn!(error = %s.message(), "sending results failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
            }
        }
    }
}

/// Renews leases and applies the coordinator's cancellations.
async fn heartbeats(shared: Arc<Shared>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        let running: Vec<RunningJob> = shared
            .running
            .lock()
            .expect("lock")
            .iter()
            .map(|(id, r)| RunningJob { job_id: id.clone(), attempt: r.attempt, progress: r.progress })
            .collect();
        let req = HeartbeatRequest { worker_id: shared.config.worker_id.clone(), running };
        match shared.clients.workers.clone().heartbeat(req).await {
            Ok(resp) => {
                let running = shared.running.lock().expect("lock");
                for id in resp.into_inner().cancel {
                    if let Some(r) = running.get(&id) {
                        tracing::info!(job = %id, "cancelled by the coordinator");
                        r.cancel.cancel();
                    }
                }
            }
            Err(s) if s.code() == Code::NotFound => {
                let _ = register(&shared).await;
            }
            Err(s) => tracing::warn!(error = %s.message(), "heartbeat failed"),
        }
    }
}

/// This machine's host name (`unknown` if it cannot be read).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it on success.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split(':').nth(1)).map(|m| m.trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}
