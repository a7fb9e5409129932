//! From the coordinator's results to analysis records and exported tables: the long table (one
//! row per job and metric) and the series table (one row per point), as CSV, JSON or Parquet.

use std::io::Write;

use rigor_analysis::frame::{self, JobRecord, Provenance, TableFormat};
use rigor_coordinator::plan::from_wire;
use rigor_proto::{AttemptStatus, JobResult, JobState};

use super::Format;

/// The status of a job as one word: its state, or for a failed job its last attempt's status.
pub fn status_word(r: &JobResult) -> String {
    let state = JobState::try_from(r.state).unwrap_or(JobState::Unspecified);
    match state {
        JobState::Done => "ok".into(),
        JobState::Failed => {
            let s = r.last.as_ref().map(|l| AttemptStatus::try_from(l.status).unwrap_or(AttemptStatus::Unspecified));
            match s {
                Some(AttemptStatus::Timeout) => "timeout".into(),
                Some(AttemptStatus::Oom) => "oom".into(),
                Some(AttemptStatus::Crashed) => "crashed".into(),
                Some(AttemptStatus::Lost) => "lost".into(),
                _ => "failed".into(),
            }
        }
        other => other.as_str_name().trim_start_matches("JOB_STATE_").to_lowercase(),
    }
}

/// Converts the wire form of a job's result into the analysis record.
pub fn record(r: &JobResult) -> JobRecord {
    let spec = r.spec.clone().unwrap_or_default();
    let last = r.last.clone().unwrap_or_default();
    let prov = last.provenance.unwrap_or_default();
    let status = status_word(r);
    let output = last.output.unwrap_or_default();
    JobRecord {
        params: spec.params.iter().map(|p| (p.name.clone(), p.value.as_ref().map(from_wire).unwrap_or(rigor_technique::ParamValue::Str(String::new())))).collect(),
        error: if status == "ok" { String::new() } else { last.error },
        status,
        attempts: r.attempts,
        metrics: output.metrics.into_iter().map(|m| (m.name, m.value)).collect(),
        series: output.series.into_iter().map(|s| (s.name, s.points.into_iter().map(|p| (p.x, p.y)).collect())).collect(),
        provenance: Provenance {
            worker: prov.worker_id,
            host: prov.host,
            cpu_model: prov.cpu_model,
            wall_ms: prov.wall_ms,
            cpu_ms: prov.cpu_ms,
            peak_rss_kb: prov.peak_rss_kb,
            started_unix_ms: prov.started_unix_ms,
            finished_unix_ms: prov.finished_unix_ms,
            rigor_version: prov.rigor_version,
            git_commit: prov.git_commit,
            technique_version: if prov.technique_version.is_empty() { spec.technique_version.clone() } else { prov.technique_version },
        },
        study: spec.study,
        experiment: spec.experiment,
        kind: spec.kind,
        subject: spec.subject,
        repetition: spec.repetition,
        seed: spec.seed,
        job_id: spec.job_id,
    }
}

pub fn table_format(f: Format) -> TableFormat {
    match f {
        Format::Csv => TableFormat::Csv,
        Format::Json => TableFormat::Json,
        Format::Parquet => TableFormat::Parquet,
    }
}

/// Writes the long table (or the series table) of `records` in `format`.
pub fn write_results(records: &[JobRecord], series: bool, format: Format, w: &mut dyn Write) -> anyhow::Result<()> {
    let mut df = if series { frame::series_frame(records)? } else { frame::results_frame(records)? };
    frame::write_frame(&mut df, table_format(format), w)?;
    Ok(())
}

/// Writes `results.csv`, `results.json`, `results.parquet` and `series.csv` into `dir`.
pub fn write_result_files(records: &[JobRecord], dir: &std::path::Path) -> anyhow::Result<()> {
    let mut results = frame::results_frame(records)?;
    frame::write_frame_file(&mut results, TableFormat::Csv, &dir.join("results.csv"))?;
    frame::write_frame_file(&mut results, TableFormat::Json, &dir.join("results.json"))?;
    frame::write_frame_file(&mut results, TableFormat::Parquet, &dir.join("results.parquet"))?;
    let mut series = frame::series_frame(records)?;
    frame::write_frame_file(&mut series, TableFormat::Csv, &dir.join("series.csv"))?;
    Ok(())
}

/// Keeps a name usable as one path component.
fn path_safe(s: &str) -> String {
    let t: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || "._-=".contains(c) { c } else { '_' }).collect();
    if t.is_empty() || t == "." || t == ".." { "_".into() } else { t }
}

/// Downloads every artifact of the finished jobs into `dir/<experiment>/<subject>/<job id>/<name>`
/// and writes `dir/artifacts.csv` listing them. Returns how many were written.
pub async fn export_artifacts(clients: &rigor_proto::client::Clients, results: &[JobResult], dir: &std::path::Path) -> anyhow::Result<usize> {
    let mut manifest = csv::Writer::from_path({
        std::fs::create_dir_all(dir)?;
        dir.join("artifacts.csv")
    })?;
    manifest.write_record(["experiment", "subject", "repetition", "job_id", "name", "hash", "size", "path"])?;
    let mut written = 0;
    for r in results.iter().filter(|r| r.state == JobState::Done as i32) {
        let spec = r.spec.clone().unwrap_or_default();
        let artifacts = r.last.as_ref().and_then(|l| l.output.as_ref()).map(|o| o.artifacts.clone()).unwrap_or_default();
        for a in artifacts {
            let rel: std::path::PathBuf =
                [path_safe(&spec.experiment), path_safe(&spec.subject), spec.job_id.clone(), path_safe(&a.name)].iter().collect();
            let path = dir.join(&rel);
            std::fs::create_dir_all(path.parent().expect("has a parent"))?;
            let mut stream = clients.artifacts.clone().download(rigor_proto::ArtifactRef { hash: a.hash.clone(), size: 0 }).await?.into_inner();
            let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
            while let Some(chunk) = stream.message().await? {
                file.write_all(&chunk.data)?;
            }
            file.flush()?;
            manifest.write_record([
                spec.experiment.as_str(),
                spec.subject.as_str(),
                &spec.repetition.to_string(),
                spec.job_id.as_str(),
                a.name.as_str(),
                a.hash.as_str(),
                &a.size.to_string(),
                &rel.to_string_lossy(),
            ])?;
            written += 1;
        }
    }
    manifest.flush()?;
    Ok(written)
}
