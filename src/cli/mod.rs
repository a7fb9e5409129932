//! Command-line definitions and dispatch. Each subcommand lives in its own module.

mod ct;
mod export;
mod mr;
mod progress;
mod remote;
mod report;
mod rts;
mod rts_bench;
mod run;
mod serve;
mod submit;
mod bench;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rigor_proto::client::Target;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const GIT_COMMIT: &str = env!("RIGOR_GIT_COMMIT");

/// Exit code of a study that finished with failed jobs.
pub const EXIT_FAILED_JOBS: u8 = 1;
/// Exit code of a usage or validation error (bad study file, unknown study, bad flag).
pub const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(
    name = "rigor",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("RIGOR_GIT_COMMIT"), ")"),
    about = "Run empirical software-testing studies: plan, distribute, store, report",
    long_about = "Run empirical software-testing studies: a study file (TOML) names experiments, subjects, \
parameter grids and repetitions; rigor expands it into jobs with deterministic seeds, runs them on \
workers, keeps every result, and turns them into tables, figures and an HTML report.\n\n\
On one machine: `rigor run STUDY`. On many: `rigor coordinator` on one host, `rigor worker` on each \
of the others, then `rigor submit` / `watch` / `results` from anywhere.\n\n\
Exit codes: 0 ok, 1 the study finished with failed jobs (or an operation failed), 2 usage or validation error.",
    after_help = "Examples:\n  rigor run experiments/studies/quickstart.toml\n  rigor coordinator --listen 0.0.0.0:7700 --token s3cret\n  rigor worker --coordinator http://host:7700 --slots 8 --token s3cret\n  rigor results quickstart --coordinator http://host:7700 --format csv > results.csv"
)]
pub struct Cli {
    /// Log more (-v: info, -vv: debug); RUST_LOG overrides
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run a study on this machine: coordinator in-process plus local workers, then results and report
    #[command(after_help = "Examples:\n  rigor run experiments/studies/quickstart.toml\n  rigor run my-study.toml --workers 8 --out results/my-study\n\n\
Results go to DIR (default results/<study>/): index.html (the report), tables/, plots/, \
results.csv|json|parquet, series.csv and artifacts/ (listed in artifacts/artifacts.csv), with the study's state kept in DIR/.rigor so that running again resumes and reuses every finished job.")]
    Run(run::RunArgs),
    /// Serve studies to workers over gRPC, keeping all state in a sled database
    #[command(after_help = "Examples:\n  rigor coordinator --data /var/lib/rigor\n  rigor coordinator --listen 0.0.0.0:7700 --token s3cret --tls-cert cert.pem --tls-key key.pem\n\n\
It prints `listening on ADDR` once ready. Restarting it on the same --data resumes every study.")]
    Coordinator(serve::CoordinatorArgs),
    /// Lease jobs from a coordinator and run them in executor processes
    #[command(after_help = "Examples:\n  rigor worker --coordinator http://127.0.0.1:7700 --slots 4\n\n\
SIGTERM or Ctrl-C stops leasing, lets running jobs finish (up to --grace-s) and hands back the rest.")]
    Worker(serve::WorkerArgs),
    /// Validate a study file and submit it (idempotent: finished jobs are reused)
    #[command(after_help = "Examples:\n  rigor submit study.toml --coordinator http://host:7700\n  rigor submit study.toml --dry-run   # validate and count jobs only")]
    Submit(submit::SubmitArgs),
    /// Show a study's progress per experiment (or list studies when none is named)
    #[command(after_help = "Examples:\n  rigor status --coordinator http://host:7700           # list studies\n  rigor status quickstart --coordinator http://host:7700")]
    Status(remote::StudyArgs),
    /// Follow a study's progress until it finishes
    #[command(after_help = "Examples:\n  rigor watch quickstart --coordinator http://host:7700\n\nExits 0 when every job succeeded, 1 when some failed.")]
    Watch(remote::StudyArgs),
    /// Cancel a study's unfinished jobs (submit it again to resume)
    #[command(after_help = "Examples:\n  rigor cancel quickstart --coordinator http://host:7700\n  rigor submit quickstart.toml --coordinator http://host:7700   # resume later\n\nRunning jobs are told to stop at their workers' next heartbeat; finished ones are kept.")]
    Cancel(remote::StudyArgs),
    /// Export a study's results: one row per job and metric
    #[command(after_help = "Examples:\n  rigor results quickstart --format csv > results.csv\n  rigor results quickstart --series --format csv\n\n\
Columns: study, experiment, kind, subject, one per parameter, repetition, seed, job_id, status, \
attempts, metric, value, error, then provenance (worker, host, cpu_model, wall_ms, cpu_ms, peak_rss_kb, \
started_unix_ms, finished_unix_ms, rigor_version, git_commit, technique_version).")]
    Results(remote::ResultsArgs),
    /// Write a study's report: tables (LaTeX, Markdown, CSV), figures (SVG, PNG) and index.html
    #[command(after_help = "Examples:\n  rigor report quickstart                        # from results/quickstart/.rigor\n  rigor report quickstart --coordinator http://host:7700 --out paper/\n\n\
What to report comes from the study file's [report] section (see README); without one, every metric gets a \
summary table, a box plot and (with several experiments) a comparison table with A12 and Holm-adjusted p-values, \
and every series a curve. A study still running is reported as far as it is finished.")]
    Report(report::ReportArgs),
    /// Statistics without a study (Mann-Whitney U, Vargha-Delaney A12)
    #[command(subcommand)]
    Stats(stats::StatsCommand),
    /// Combinatorial testing: covering arrays (IPOG-C) and robustness suites; check suites
    #[command(subcommand)]
    Ct(ct::CtCommand),
    /// Metamorphic relations for query-based systems (MRG): generate, execute
    #[command(subcommand)]
    Mr(mr::MrCommand),
    /// Regression test selection for microservices from traces (MRTS-BP): simulate, mine, impact, select, evaluate
    #[command(subcommand)]
    Rts(rts::RtsCommand),
    /// Measure rigor itself
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// (internal) Run jobs sent by a worker over stdin/stdout
    #[command(hide = true)]
    Executor,
}

/// How to reach a coordinator.
#[derive(Args, Clone)]
pub struct Connect {
    /// Coordinator URL (https:// for TLS)
    #[arg(long, env = "RIGOR_COORDINATOR", default_value = "http://127.0.0.1:7700")]
    pub coordinator: String,
    /// Shared token the coordinator requires
    #[arg(long, env = "RIGOR_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// CA certificate (PEM) that signed the coordinator's TLS certificate
    #[arg(long)]
    pub ca_cert: Option<PathBuf>,
}

impl Connect {
    pub fn target(&self) -> Target {
        Target { url: self.coordinator.clone(), token: self.token.clone(), ca_cert: self.ca_cert.clone() }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
    Parquet,
}

pub fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

/// A usage or validation problem: exits with [`EXIT_USAGE`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Maps an error to the documented exit codes.
pub fn exit_code_of(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<UsageError>().is_some() || e.downcast_ref::<rigor_coordinator::study::StudyError>().is_some() {
        return EXIT_USAGE;
    }
    if let Some(s) = e.downcast_ref::<tonic::Status>() {
        if matches!(s.code(), tonic::Code::InvalidArgument | tonic::Code::NotFound) {
            return EXIT_USAGE;
        }
    }
    1
}

/// One line for the user: a gRPC status reads as its message (the coordinator's words), with the
/// code only where the message alone would be unclear.
pub fn describe(e: &anyhow::Error) -> String {
    match e.downcast_ref::<tonic::Status>() {
        Some(s) => match s.code() {
            tonic::Code::InvalidArgument | tonic::Code::NotFound | tonic::Code::FailedPrecondition => s.message().to_string(),
            tonic::Code::Unauthenticated => format!("unauthenticated: {}", s.message()),
            tonic::Code::Unavailable => format!("coordinator unavailable: {}", s.message()),
            code => format!("{}: {}", code.description(), s.message()),
        },
        None => format!("{e:#}"),
    }
}

pub async fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(a) => run::run(a).await,
        Command::Coordinator(a) => serve::coordinator(a).await,
        Command::Worker(a) => serve::worker(a).await,
        Command::Submit(a) => submit::submit(a).await,
        Command::Status(a) => remote::status(a).await,
        Command::Watch(a) => remote::watch(a).await,
        Command::Cancel(a) => remote::cancel(a).await,
        Command::Results(a) => remote::results(a).await,
        Command::Report(a) => report::report(a).await,
        Command::Stats(c) => stats::stats(c),
        Command::Mr(c) => mr::mr(c).await,
        Command::Ct(c) => tokio::task::spawn_blocking(move || ct::ct(c)).await?,
        Command::Rts(c) => tokio::task::spawn_blocking(move || rts::rts(c)).await?,
        Command::Bench(b) => bench::bench(b).await,
        Command::Executor => unreachable!("handled before the runtime starts"),
    }
}
