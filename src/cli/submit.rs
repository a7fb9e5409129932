//! `rigor submit`, and the submission steps `rigor run` shares: read and validate the study file,
//! upload its subject files as content-addressed artifacts, submit.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use rigor_coordinator::study::{self, locate_file_reference, Study};
use rigor_proto::client::Clients;
use rigor_proto::{ArtifactChunk, Hashes, SubjectFile, SubmitStudyRequest, SubmitStudyResponse};

use super::{Connect, UsageError};
use crate::techniques::registry;

#[derive(Args)]
pub struct SubmitArgs {
    /// The study file (TOML)
    pub study: PathBuf,
    #[command(flatten)]
    pub connect: Connect,
    /// Queue failed jobs again (cancelled ones always are)
    #[arg(long)]
    pub retry_failed: bool,
    /// Only validate the file and count its jobs
    #[arg(long)]
    pub dry_run: bool,
}

/// A study file read and validated on this machine, with its subject files located.
pub struct Prepared {
    pub text: String,
    pub display: String,
    pub study: Study,
    /// (path as written, path on disk)
    pub files: Vec<(String, PathBuf)>,
}

/// Reads and validates a study file; every problem is a [`UsageError`] or a located study error.
pub fn prepare(path: &Path) -> anyhow::Result<Prepared> {
    let display = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| UsageError(format!("{display}: cannot read the study file: {e}")))?;
    let study = study::parse(&display, &text, &registry())?;
    // The [report] section is the analysis crate's; check it now rather than after the study ran.
    rigor_analysis::report::from_study_toml(&text).map_err(|e| UsageError(format!("{display}: {e}")))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    for rel in study.subject_files() {
        let on_disk = base.join(&rel);
        if !on_disk.is_file() {
            return Err(locate_file_reference(&display, &text, &rel).into());
        }
        files.push((rel.to_string_lossy().into_owned(), on_disk));
    }
    Ok(Prepared { text, display, study, files })
}

/// Uploads the subject files the coordinator lacks, then submits the study.
pub async fn send(clients: &Clients, p: &Prepared, retry_failed: bool) -> anyhow::Result<SubmitStudyResponse> {
    let mut subject_files = Vec::new();
    for (rel, path) in &p.files {
        let (hash, size) = hash_file(path)?;
        subject_files.push(SubjectFile { path: rel.clone(), hash, size });
    }
    let hashes = subject_files.iter().map(|f| f.hash.clone()).collect();
    let missing = clients.artifacts.clone().missing(Hashes { hashes }).await?.into_inner().hashes;
    for f in subject_files.iter().filter(|f| missing.contains(&f.hash)) {
        let path = &p.files.iter().find(|(rel, _)| *rel == f.path).expect("listed above").1;
        upload_file(clients, path, &f.hash).await.with_context(|| format!("uploading {}", path.display()))?;
    }
    let req = SubmitStudyRequest {
        study_toml: p.text.clone(),
        study_path: p.display.clone(),
        files: subject_files,
        retry_failed,
    };
    Ok(clients.studies.clone().submit(req).await?.into_inner())
}

fn hash_file(path: &Path) -> anyhow::Result<(String, u64)> {
    let mut hasher = blake3::Hasher::new();
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let size = std::io::copy(&mut std::io::BufReader::new(file), &mut hasher)?;
    Ok((hasher.finalize().to_hex().to_string(), size))
}

/// Streams a file in 1 MiB chunks, so gigabyte traces never sit in memory whole.
async fn upload_file(clients: &Clients, path: &Path, hash: &str) -> anyhow::Result<()> {
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::open(path).await?;
    let size = file.metadata().await?.len();
    let (tx, rx) = tokio::sync::mpsc::channel::<ArtifactChunk>(4);
    let hash = hash.to_string();
    let reader = tokio::spawn(async move {
        let mut first = true;
        loop {
            let mut buf = vec![0u8; rigor_proto::ARTIFACT_CHUNK];
            let n = file.read(&mut buf).await?;
            if n == 0 && !first {
                return Ok::<_, std::io::Error>(());
            }
            buf.truncate(n);
            let chunk = ArtifactChunk { hash: if first { hash.clone() } else { String::new() }, size, data: buf };
            first = false;
            if tx.send(chunk).await.is_err() || n == 0 {
                return Ok(());
            }
        }
    });
    clients.artifacts.clone().upload(tokio_stream::wrappers::ReceiverStream::new(rx)).await?;
    reader.await??;
    Ok(())
}

pub async fn submit(a: SubmitArgs) -> anyhow::Result<ExitCode> {
    let p = prepare(&a.study)?;
    if a.dry_run {
        println!("{}: valid; {} experiments, {} jobs", p.display, p.study.experiments.len(), p.study.job_count());
        return Ok(ExitCode::SUCCESS);
    }
    let clients = a.connect.target().connect().await?;
    let r = send(&clients, &p, a.retry_failed).await?;
    println!("submitted {}: {} jobs ({} new, {} already stored)", r.study, r.jobs_total, r.jobs_new, r.jobs_reused);
    Ok(ExitCode::SUCCESS)
}
