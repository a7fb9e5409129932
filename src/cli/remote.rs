//! Commands that talk to a running coordinator: status, watch, cancel, results.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rigor_proto::client::Clients;
use rigor_proto::{Empty, JobResult, StudyRef, StudyStatus};

use super::export::write_results;
use super::progress::{summary_line, Progress};
use super::{Connect, Format, EXIT_FAILED_JOBS};

#[derive(Args)]
pub struct StudyArgs {
    /// The study's name (`[study] name` in its file); `status` without it lists studies
    pub study: Option<String>,
    #[command(flatten)]
    pub connect: Connect,
}

#[derive(Args)]
pub struct ResultsArgs {
    /// The study's name
    pub study: String,
    #[command(flatten)]
    pub connect: Connect,
    #[arg(long, value_enum, default_value = "csv")]
    pub format: Format,
    /// Export the series (one row per point) instead of the metrics
    #[arg(long)]
    pub series: bool,
    /// Write to this file instead of standard output
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Also download every artifact into DIR/<experiment>/<subject>/<job id>/<name>, listed in DIR/artifacts.csv
    #[arg(long, value_name = "DIR")]
    pub artifacts: Option<PathBuf>,
}

fn need_study(a: &StudyArgs) -> anyhow::Result<String> {
    a.study.clone().ok_or_else(|| super::UsageError("name the study".into()).into())
}

pub fn print_status(s: &StudyStatus) {
    println!("{:<20} {:<12} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}", "experiment", "kind", "total", "done", "failed", "running", "queued", "waiting");
    for e in &s.experiments {
        println!(
            "{:<20} {:<12} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            e.experiment, e.kind, e.total, e.done, e.failed, e.running, e.queued, e.waiting
        );
    }
    println!("{}", summary_line(s));
}

/// Exit code for a finished study: failures make it 1.
pub fn exit_for(s: &StudyStatus) -> ExitCode {
    if s.experiments.iter().any(|e| e.failed > 0) {
        ExitCode::from(EXIT_FAILED_JOBS)
    } else {
        ExitCode::SUCCESS
    }
}

pub async fn status(a: StudyArgs) -> anyhow::Result<ExitCode> {
    let clients = a.connect.target().connect().await?;
    match &a.study {
        None => {
            for s in clients.studies.clone().list(Empty {}).await?.into_inner().studies {
                println!("{}\t{} jobs", s.name, s.jobs);
            }
        }
        Some(study) => {
            let s = clients.studies.clone().status(StudyRef { study: study.clone() }).await?.into_inner();
            print_status(&s);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Follows a study until it finishes, showing progress; returns the final status.
pub async fn follow(clients: &Clients, study: &str) -> anyhow::Result<StudyStatus> {
    let mut stream = clients.studies.clone().watch(StudyRef { study: study.to_string() }).await?.into_inner();
    let mut progress = Progress::new();
    let mut last = None;
    while let Some(s) = stream.message().await? {
        progress.update(&s);
        last = Some(s);
    }
    progress.finish();
    last.ok_or_else(|| anyhow::anyhow!("the coordinator closed the watch without a status"))
}

pub async fn watch(a: StudyArgs) -> anyhow::Result<ExitCode> {
    let study = need_study(&a)?;
    let clients = a.connect.target().connect().await?;
    let s = follow(&clients, &study).await?;
    print_status(&s);
    Ok(exit_for(&s))
}

pub async fn cancel(a: StudyArgs) -> anyhow::Result<ExitCode> {
    let study = need_study(&a)?;
    let clients = a.connect.target().connect().await?;
    let s = clients.studies.clone().cancel(StudyRef { study }).await?.into_inner();
    print_status(&s);
    Ok(ExitCode::SUCCESS)
}

pub async fn fetch_results(clients: &Clients, study: &str) -> anyhow::Result<Vec<JobResult>> {
    let mut stream = clients.studies.clone().results(StudyRef { study: study.to_string() }).await?.into_inner();
    let mut out = Vec::new();
    while let Some(r) = stream.message().await? {
        out.push(r);
    }
    Ok(out)
}

pub async fn results(a: ResultsArgs) -> anyhow::Result<ExitCode> {
    let clients = a.connect.target().connect().await?;
    let results = fetch_results(&clients, &a.study).await?;
    if let Some(dir) = &a.artifacts {
        let n = super::export::export_artifacts(&clients, &results, dir).await?;
        eprintln!("{n} artifacts written to {}", dir.display());
    }
    let records: Vec<_> = results.iter().map(super::export::record).collect();
    match &a.out {
        Some(path) => {
            let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
            write_results(&records, a.series, a.format, &mut f)?;
            std::io::Write::flush(&mut f)?;
        }
        None if a.format == Format::Parquet => {
            return Err(super::UsageError("--format parquet needs --out FILE".into()).into())
        }
        None => write_results(&records, a.series, a.format, &mut std::io::stdout().lock())?,
    }
    Ok(ExitCode::SUCCESS)
}
