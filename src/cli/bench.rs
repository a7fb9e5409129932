//! `rigor bench`: figures about rigor itself, measured end to end with real processes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Instant;

use clap::{Args, Subcommand};
use rigor_proto::client::Target;

use super::remote::follow;
use super::submit;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Scheduler throughput (noop jobs, coordinator + worker processes) and million-job planning
    #[command(after_help = "Examples:\n  rigor bench scheduler\n  rigor bench scheduler --jobs 50000 --plan-jobs 0 --prefetch 4\n\nThe last line is `jobs/s: <figure>`: noop jobs submitted, leased, run in executors, completed and durably stored per second. Build with --release for meaningful figures.")]
    Scheduler(SchedulerArgs),
}

#[derive(Args)]
pub struct SchedulerArgs {
    /// Noop jobs in the throughput run
    #[arg(long, default_value_t = 20_000)]
    pub jobs: u64,
    /// Worker processes
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Slots per worker
    #[arg(long, default_value_t = 8)]
    pub slots: usize,
    /// Jobs each worker leases ahead of its free slots
    #[arg(long, default_value_t = 2)]
    pub prefetch: usize,
    /// Jobs in the planning run (0 skips it)
    #[arg(long, default_value_t = 1_000_000)]
    pub plan_jobs: u64,
}

/// Kills a child process when dropped, so a failed bench leaves nothing behind.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_coordinator(data: &Path) -> anyhow::Result<(Guard, String)> {
    let exe = std::env::current_exe()?;
    let mut child = Command::new(exe)
        .args(["coordinator", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let addr = line.trim().strip_prefix("listening on ").ok_or_else(|| anyhow::anyhow!("coordinator said `{line}`"))?;
    Ok((guard, format!("http://{addr}")))
}

/// A noop study of about `jobs` jobs: subjects × repetitions.
fn write_study(dir: &Path, name: &str, jobs: u64) -> anyhow::Result<std::path::PathBuf> {
    let subjects = 100u64.min(jobs.max(1));
    let reps = jobs.div_ceil(subjects);
    let list: Vec<String> = (0..subjects).map(|i| format!("\"s{i}\"")).collect();
    let text = format!(
        "[study]\nname = \"{name}\"\nseed = 1\nrepetitions = {reps}\n\n[[experiment]]\nid = \"noop\"\nkind = \"noop\"\nsubjects = [{}]\nparams = {{ work_ms = [0], points = [0] }}\n",
        list.join(", ")
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text)?;
    Ok(path)
}

fn peak_rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

pub async fn bench(cmd: BenchCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCommand::Scheduler(a) => scheduler(a).await,
    }
}

async fn scheduler(a: SchedulerArgs) -> anyhow::Result<ExitCode> {
    let dir = tempfile::Builder::new().prefix("rigor-bench-").tempdir()?;
    let exe = std::env::current_exe()?;

    if a.plan_jobs > 0 {
        let (coordinator, url) = start_coordinator(&dir.path().join("plan"))?;
        let study = write_study(dir.path(), "plan", a.plan_jobs)?;
        let prepared = submit::prepare(&study)?;
        let clients = Target { url, ..Default::default() }.connect().await?;
        let t = Instant::now();
        let r = submit::send(&clients, &prepared, false).await?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "plan: {} jobs planned and stored in {:.1} s ({:.0} jobs/s); coordinator peak RSS {:.0} MiB",
            r.jobs_total,
            secs,
            r.jobs_total as f64 / secs,
            peak_rss_mib(coordinator.0.id())
        );
    }

    let (coordinator, url) = start_coordinator(&dir.path().join("run"))?;
    let mut workers = Vec::new();
    for i in 0..a.workers {
        let child = Command::new(&exe)
            .args(["worker", "--coordinator", &url, "--slots", &a.slots.to_string(), "--id", &format!("bench-{i}")])
            .args(["--prefetch", &a.prefetch.to_string()])
            .arg("--cache")
            .arg(dir.path().join(format!("w{i}")))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()?;
        workers.push(Guard(child));
    }
    let study = write_study(dir.path(), "throughput", a.jobs)?;
    let prepared = submit::prepare(&study)?;
    let clients = Target { url, ..Default::default() }.connect().await?;
    // Let the workers register and start their executors before the clock starts.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let t = Instant::now();
    let r = submit::send(&clients, &prepared, false).await?;
    let status = follow(&clients, &r.study).await?;
    let secs = t.elapsed().as_secs_f64();
    let done: u64 = status.experiments.iter().map(|e| e.done).sum();
    println!(
        "throughput: {done} noop jobs on {} workers x {} slots (prefetch {}) in {:.2} s; coordinator peak RSS {:.0} MiB",
        a.workers,
        a.slots,
        a.prefetch,
        secs,
        peak_rss_mib(coordinator.0.id())
    );
    println!("jobs/s: {:.0}", done as f64 / secs);
    drop(workers);
    Ok(ExitCode::SUCCESS)
}
