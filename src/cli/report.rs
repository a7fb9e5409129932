//! `rigor report`, and the report at the end of `rigor run`: tables, figures and index.html from a
//! study's stored results.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use rigor_analysis::frame::JobRecord;
use rigor_analysis::report::{self, Provenance, ReportSummary};
use rigor_coordinator::CoordinatorConfig;
use rigor_proto::client::{Clients, Target};
use rigor_proto::StudyRef;

use super::export::record;
use super::remote::fetch_results;
use super::{UsageError, GIT_COMMIT, VERSION};
use crate::techniques::registry;

#[derive(Args)]
pub struct ReportArgs {
    /// The study's name
    pub study: String,
    /// Read from a running coordinator instead of a local state directory
    #[arg(long, env = "RIGOR_COORDINATOR")]
    pub coordinator: Option<String>,
    #[arg(long, env = "RIGOR_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    #[arg(long)]
    pub ca_cert: Option<PathBuf>,
    /// State directory of a `rigor run` (default: results/<study>/.rigor)
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Output directory (default: results/<study>)
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Writes the report of `study` as stored behind `clients` into `out`.
pub async fn write(clients: &Clients, study: &str, out: &Path) -> anyhow::Result<(ReportSummary, u64)> {
    let results = fetch_results(clients, study).await?;
    let records: Vec<_> = results.iter().map(record).collect();
    write_records(clients, study, &records, out).await
}

/// Writes the report from results already fetched (as `rigor run` has them).
pub async fn write_records(clients: &Clients, study: &str, records: &[JobRecord], out: &Path) -> anyhow::Result<(ReportSummary, u64)> {
    let file = clients.studies.clone().get_study_file(StudyRef { study: study.to_string() }).await?.into_inner();
    let spec = report::from_study_toml(&file.study_toml).map_err(|e| UsageError(format!("{}: {e}", file.study_path)))?;
    let unfinished = records.iter().filter(|r| matches!(r.status.as_str(), "queued" | "running" | "waiting")).count() as u64;
    let description = file
        .study_toml
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("study")?.get("description")?.as_str().map(String::from))
        .unwrap_or_default();
    let provenance = Provenance {
        study: study.to_string(),
        description,
        study_path: file.study_path,
        study_toml: file.study_toml,
        rigor_version: VERSION.into(),
        git_commit: GIT_COMMIT.into(),
        unfinished,
        generated_unix_ms: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64),
    };
    let summary = report::write_report(records, &spec, &provenance, out)?;
    Ok((summary, unfinished))
}

pub async fn report(a: ReportArgs) -> anyhow::Result<ExitCode> {
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("results").join(&a.study));
    let (summary, unfinished) = match &a.coordinator {
        Some(url) => {
            let clients = Target { url: url.clone(), token: a.token.clone(), ca_cert: a.ca_cert.clone() }.connect().await?;
            write(&clients, &a.study, &out).await?
        }
        None => {
            let data = a.data.clone().unwrap_or_else(|| PathBuf::from("results").join(&a.study).join(".rigor"));
            if !data.join("db").is_dir() {
                return Err(UsageError(format!(
                    "no study named `{}` here: {} holds no rigor state (name --data DIR, or --coordinator URL)",
                    a.study,
                    data.display()
                ))
                .into());
            }
            let coordinator = rigor_coordinator::start(CoordinatorConfig::new(data), registry()).await?;
            let clients = Target { url: format!("http://{}", coordinator.addr), ..Default::default() }.connect().await?;
            let r = write(&clients, &a.study, &out).await;
            coordinator.stop().await;
            r?
        }
    };
    if unfinished > 0 {
        eprintln!("{}: {unfinished} jobs are not finished yet; the report covers the finished ones", a.study);
    }
    eprintln!("report: {} ({} tables, {} figures)", summary.index.display(), summary.tables, summary.figures);
    Ok(ExitCode::SUCCESS)
}
