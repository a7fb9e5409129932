//! `rigor coordinator` and `rigor worker`: the two long-running processes of a distributed study.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use rigor_coordinator::{CoordinatorConfig, ScheduleConfig};
use rigor_worker::agent::WorkerConfig;

use super::{Connect, UsageError, GIT_COMMIT, VERSION};
use crate::techniques::registry;

#[derive(Args)]
pub struct CoordinatorArgs {
    /// Address to listen on (loopback by default; use 0.0.0.0:PORT to accept other machines)
    #[arg(long, default_value = "127.0.0.1:7700")]
    pub listen: SocketAddr,
    /// Directory for the database and artifacts
    #[arg(long, default_value = ".rigor")]
    pub data: PathBuf,
    /// Require this token on every call
    #[arg(long, env = "RIGOR_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// TLS certificate (PEM); needs --tls-key
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM); needs --tls-cert
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// A lease not renewed for this long expires and its job is queued again
    #[arg(long, default_value_t = 15_000)]
    pub lease_ttl_ms: u64,
}

#[derive(Args, Clone)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// Jobs run at once (each in its own executor process)
    #[arg(long, default_value_t = default_slots())]
    pub slots: usize,
    /// Jobs leased ahead of free slots: more speeds up very short jobs, fewer balances the
    /// end of a study of long jobs across workers
    #[arg(long, default_value_t = 2)]
    pub prefetch: usize,
    /// This worker's name (default: host-pid)
    #[arg(long)]
    pub id: Option<String>,
    /// Directory for cached inputs and scratch space (default: a temporary directory)
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Seconds a shutdown waits for running jobs before handing them back
    #[arg(long, default_value_t = 30)]
    pub grace_s: u64,
    /// (testing) protocol version to announce
    #[arg(long, hide = true, default_value_t = rigor_proto::PROTOCOL_VERSION)]
    pub protocol_version: u32,
}

pub fn default_slots() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Completes on SIGTERM or Ctrl-C.
pub async fn termination() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("signal handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

pub async fn coordinator(a: CoordinatorArgs) -> anyhow::Result<ExitCode> {
    let mut config = CoordinatorConfig::new(a.data.clone());
    config.listen = a.listen;
    config.token = a.token;
    config.tls = a.tls_cert.zip(a.tls_key);
    config.schedule = ScheduleConfig { lease_ttl_ms: a.lease_ttl_ms, ..Default::default() };
    let running = rigor_coordinator::start(config, registry()).await?;
    // Tests and scripts read this line to learn the port.
    println!("listening on {}", running.addr);
    use std::io::Write;
    std::io::stdout().flush()?;
    termination().await;
    eprintln!("coordinator: shutting down");
    running.stop().await;
    Ok(ExitCode::SUCCESS)
}

/// The worker settings for this binary: its techniques, and itself as the executor program.
pub fn worker_config(a: &WorkerArgs, cache: PathBuf) -> anyhow::Result<WorkerConfig> {
    if a.slots == 0 {
        return Err(UsageError("--slots must be at least 1".into()).into());
    }
    let exe = std::env::current_exe()?;
    let host = rigor_worker::agent::hostname();
    Ok(WorkerConfig {
        target: a.connect.target(),
        worker_id: a.id.clone().unwrap_or_else(|| format!("{host}-{}", std::process::id())),
        slots: a.slots,
        prefetch: a.prefetch,
        kinds: registry().kinds().map(String::from).collect(),
        cache_dir: cache,
        executor: (exe, vec!["executor".into()]),
        env: Vec::new(),
        rigor_version: VERSION.into(),
        git_commit: GIT_COMMIT.into(),
        protocol_version: a.protocol_version,
        shutdown_grace: Duration::from_secs(a.grace_s),
    })
}

pub async fn worker(a: WorkerArgs) -> anyhow::Result<ExitCode> {
    let tmp;
    let cache = match &a.cache {
        Some(c) => c.clone(),
        None => {
            tmp = tempfile::Builder::new().prefix("rigor-worker-").tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let config = worker_config(&a, cache)?;
    let id = config.worker_id.clone();
    eprintln!("worker {id}: {} slots, coordinator {}", config.slots, a.connect.coordinator);
    let summary = rigor_worker::agent::run(config, termination()).await?;
    eprintln!("worker {id}: stopped after {} ok and {} failed attempts", summary.completed, summary.failed);
    Ok(ExitCode::SUCCESS)
}
