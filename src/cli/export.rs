//! The long results table: one row per job and metric (a row with empty metric for a job with
//! none), as CSV or JSON; and the series table: one row per point.

use std::collections::BTreeSet;
use std::io::Write;

use rigor_coordinator::plan::from_wire;
use rigor_proto::{AttemptStatus, JobResult, JobState};

use super::Format;

const FIXED: [&str; 4] = ["study", "experiment", "kind", "subject"];
const MIDDLE: [&str; 8] = ["repetition", "seed", "job_id", "status", "attempts", "metric", "value", "error"];
/// Columns that describe where and when a job ran, not what it computed.
pub const PROVENANCE: [&str; 11] = [
    "worker", "host", "cpu_model", "wall_ms", "cpu_ms", "peak_rss_kb", "started_unix_ms", "finished_unix_ms",
    "rigor_version", "git_commit", "technique_version",
];

/// The parameter names of all jobs, sorted; each becomes a column.
fn param_columns(results: &[JobResult]) -> Vec<String> {
    let names: BTreeSet<String> =
        results.iter().flat_map(|r| r.spec.iter().flat_map(|s| s.params.iter().map(|p| p.name.clone()))).collect();
    names
        .into_iter()
        .map(|n| if FIXED.contains(&n.as_str()) || MIDDLE.contains(&n.as_str()) || PROVENANCE.contains(&n.as_str()) { format!("param_{n}") } else { n })
        .collect()
}

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

/// Every row of the long table as (column, value) strings, in column order.
pub fn rows(results: &[JobResult]) -> (Vec<String>, Vec<Vec<String>>) {
    let params = param_columns(results);
    let raw_params: Vec<String> = {
        let names: BTreeSet<String> =
            results.iter().flat_map(|r| r.spec.iter().flat_map(|s| s.params.iter().map(|p| p.name.clone()))).collect();
        names.into_iter().collect()
    };
    let mut header: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
    header.extend(params.iter().cloned());
    header.extend(MIDDLE.iter().map(|s| s.to_string()));
    header.extend(PROVENANCE.iter().map(|s| s.to_string()));
    let mut out = Vec::new();
    for r in results {
        let spec = r.spec.clone().unwrap_or_default();
        let last = r.last.clone().unwrap_or_default();
        let prov = last.provenance.clone().unwrap_or_default();
        let mut lead = vec![spec.study.clone(), spec.experiment.clone(), spec.kind.clone(), spec.subject.clone()];
        for name in &raw_params {
            let v = spec.params.iter().find(|p| &p.name == name).and_then(|p| p.value.as_ref()).map(|v| from_wire(v).to_string());
            lead.push(v.unwrap_or_default());
        }
        let status = status_word(r);
        let tail = vec![
            prov.worker_id,
            prov.host,
            prov.cpu_model,
            prov.wall_ms.to_string(),
            prov.cpu_ms.to_string(),
            prov.peak_rss_kb.to_string(),
            prov.started_unix_ms.to_string(),
            prov.finished_unix_ms.to_string(),
            prov.rigor_version,
            prov.git_commit,
            if prov.technique_version.is_empty() { spec.technique_version.clone() } else { prov.technique_version },
        ];
        let metrics = last.output.as_ref().map(|o| o.metrics.clone()).unwrap_or_default();
        let error = if status == "ok" { String::new() } else { last.error.clone() };
        let mut push = |metric: String, value: String| {
            let mut row = lead.clone();
            row.extend([
                spec.repetition.to_string(),
                spec.seed.to_string(),
                spec.job_id.clone(),
                status.clone(),
                r.attempts.to_string(),
                metric,
                value,
                error.clone(),
            ]);
            row.extend(tail.iter().cloned());
            out.push(row);
        };
        if metrics.is_empty() {
            push(String::new(), String::new());
        }
        for m in metrics {
            push(m.name, format_value(m.value));
        }
    }
    (header, out)
}

/// Shortest text that reads back as the same f64 (so exports compare exactly).
pub fn format_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else {
        format!("{v}")
    }
}

/// The series table: one row per point.
pub fn series_rows(results: &[JobResult]) -> (Vec<String>, Vec<Vec<String>>) {
    let header = ["study", "experiment", "kind", "subject", "params", "repetition", "seed", "job_id", "series", "x", "y"];
    let mut out = Vec::new();
    for r in results {
        let spec = r.spec.clone().unwrap_or_default();
        let params: Vec<String> =
            spec.params.iter().map(|p| format!("{}={}", p.name, p.value.as_ref().map(|v| from_wire(v).to_string()).unwrap_or_default())).collect();
        for s in r.last.as_ref().and_then(|l| l.output.as_ref()).map(|o| o.series.clone()).unwrap_or_default() {
            for p in s.points {
                out.push(vec![
                    spec.study.clone(),
                    spec.experiment.clone(),
                    spec.kind.clone(),
                    spec.subject.clone(),
                    params.join(";"),
                    spec.repetition.to_string(),
                    spec.seed.to_string(),
                    spec.job_id.clone(),
                    s.name.clone(),
                    format_value(p.x),
                    format_value(p.y),
                ]);
            }
        }
    }
    (header.iter().map(|s| s.to_string()).collect(), out)
}

/// Writes a table as CSV, or as a JSON array of objects with numbers where the column is numeric.
pub fn write_table(w: &mut dyn Write, format: Format, header: &[String], rows: &[Vec<String>]) -> anyhow::Result<()> {
    match format {
        Format::Csv => {
            let mut csv = csv::Writer::from_writer(w);
            csv.write_record(header)?;
            for r in rows {
                csv.write_record(r)?;
            }
            csv.flush()?;
        }
        Format::Json => {
            let objects: Vec<serde_json::Map<String, serde_json::Value>> = rows
                .iter()
                .map(|r| {
                    header
                        .iter()
                        .zip(r)
                        .map(|(k, v)| {
                            let numeric = matches!(k.as_str(), "value" | "x" | "y" | "repetition" | "seed" | "attempts")
                                || k.ends_with("_ms")
                                || k == "peak_rss_kb";
                            let value = if !numeric {
                                serde_json::Value::String(v.clone())
                            } else if let Ok(i) = v.parse::<u64>() {
                                serde_json::Value::from(i)
                            } else if let Some(n) = v.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                                serde_json::Value::Number(n)
                            } else if v.is_empty() {
                                serde_json::Value::Null
                            } else {
                                // NaN and infinities have no JSON number; keep their text.
                                serde_json::Value::String(v.clone())
                            };
                            (k.clone(), value)
                        })
                        .collect()
                })
                .collect();
            serde_json::to_writer_pretty(&mut *w, &objects)?;
            writeln!(w)?;
        }
    }
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
