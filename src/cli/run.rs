//! `rigor run`: a whole study on this machine. The coordinator runs in-process on an ephemeral
//! loopback port with its state in `<out>/.rigor`, a worker with N slots runs jobs in executor
//! processes, and at the end the results are exported to `<out>`. Running again resumes: every
//! finished job is reused.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use rigor_coordinator::CoordinatorConfig;
use rigor_proto::client::Target;

use super::export::{export_artifacts, record, write_result_files};
use super::remote::{exit_for, fetch_results, follow, print_status};
use super::serve::{default_slots, termination, worker_config, WorkerArgs};
use super::{submit, Connect};
use crate::techniques::registry;

#[derive(Args)]
pub struct RunArgs {
    /// The study file (TOML)
    pub study: PathBuf,
    /// Jobs run at once on this machine
    #[arg(long, default_value_t = default_slots())]
    pub workers: usize,
    /// Output directory (default: results/<study name>)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Queue failed jobs of an earlier run again
    #[arg(long)]
    pub retry_failed: bool,
}

pub async fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    if a.workers == 0 {
        return Err(super::UsageError("--workers must be at least 1".into()).into());
    }
    let prepared = submit::prepare(&a.study)?;
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("results").join(&prepared.study.name));
    let state = out.join(".rigor");
    std::fs::create_dir_all(&state)?;
    let started = Instant::now();

    let coordinator = rigor_coordinator::start(CoordinatorConfig::new(state.clone()), registry()).await?;
    let url = format!("http://{}", coordinator.addr);
    let target = Target { url: url.clone(), token: None, ca_cert: None };
    let clients = target.connect().await?;
    let submitted = submit::send(&clients, &prepared, a.retry_failed).await?;
    eprintln!(
        "{}: {} jobs ({} new, {} reused from {}), {} slots",
        submitted.study,
        submitted.jobs_total,
        submitted.jobs_new,
        submitted.jobs_reused,
        state.display(),
        a.workers
    );

    let worker_args = WorkerArgs {
        connect: Connect { coordinator: url, token: None, ca_cert: None },
        slots: a.workers,
        prefetch: 2,
        id: Some(format!("local-{}", std::process::id())),
        cache: Some(state.join("worker")),
        grace_s: 5,
        protocol_version: rigor_proto::PROTOCOL_VERSION,
    };
    let config = worker_config(&worker_args, state.join("worker"))?;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let worker = tokio::spawn(rigor_worker::agent::run(config, async {
        let _ = stop_rx.await;
    }));

    let status = tokio::select! {
        s = follow(&clients, &submitted.study) => Some(s?),
        _ = termination() => None,
    };
    let _ = stop_tx.send(());
    if let Ok(Err(e)) = worker.await {
        eprintln!("worker: {e}");
    }
    let Some(status) = status else {
        coordinator.stop().await;
        eprintln!("interrupted: finished jobs are stored in {}; run the same command to resume", state.display());
        return Ok(ExitCode::from(130));
    };

    let results = fetch_results(&clients, &submitted.study).await?;
    let records: Vec<_> = results.iter().map(record).collect();
    write_result_files(&records, &out)?;
    export_artifacts(&clients, &results, &out.join("artifacts")).await?;
    let report = super::report::write_records(&clients, &submitted.study, &records, &out).await;
    coordinator.stop().await;
    print_status(&status);
    let (summary, _) = report?;
    eprintln!("report: {}", summary.index.display());
    eprintln!("results in {} ({:.1} s)", out.display(), started.elapsed().as_secs_f64());
    Ok(exit_for(&status))
}
