//! The gRPC face of the scheduler: the client API, the worker API and the artifact store.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rigor_proto::artifacts_server::Artifacts;
use rigor_proto::studies_server::Studies;
use rigor_proto::workers_server::Workers;
use rigor_proto::{
    ArtifactChunk, ArtifactRef, CompleteRequest, CompleteResponse, Empty, Hashes, HeartbeatRequest, HeartbeatResponse,
    JobResult, LeaseRequest, LeaseResponse, RegisterRequest, RegisterResponse, StudyFile, StudyList, StudyRef,
    StudyStatus, StudySummary, SubmitStudyRequest, SubmitStudyResponse, PROTOCOL_VERSION,
};
use tokio::io::AsyncReadExt;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::artifacts::is_hash;
use crate::error::CoordinatorError;
use crate::schedule::{ArtifactSource, Scheduler};

use rigor_proto::ARTIFACT_CHUNK as CHUNK;

type Stream_<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

/// Implements all three services over one scheduler.
#[derive(Clone)]
pub struct Service {
    pub scheduler: Arc<Scheduler>,
}

/// Runs blocking scheduler work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, CoordinatorError> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(f).await.map_err(|e| Status::internal(format!("task failed: {e}")))?.map_err(Status::from)
}

#[tonic::async_trait]
impl Studies for Service {
    async fn submit(&self, req: Request<SubmitStudyRequest>) -> Result<Response<SubmitStudyResponse>, Status> {
        let r = req.into_inner();
        let s = self.scheduler.clone();
        let resp = blocking(move || s.plan_and_store(&r.study_path, &r.study_toml, &r.files, r.retry_failed)).await?;
        self.scheduler.durable().await;
        Ok(Response::new(resp))
    }

    async fn status(&self, req: Request<StudyRef>) -> Result<Response<StudyStatus>, Status> {
        Ok(Response::new(self.scheduler.status(&req.into_inner().study)?))
    }

    type WatchStream = Stream_<StudyStatus>;

    async fn watch(&self, req: Request<StudyRef>) -> Result<Response<Self::WatchStream>, Status> {
        let study = req.into_inner().study;
        let first = self.scheduler.status(&study)?;
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let scheduler = self.scheduler.clone();
        tokio::spawn(async move {
            let mut last = first;
            if tx.send(Ok(last.clone())).await.is_err() {
                return;
            }
            let mut since_sent = Duration::ZERO;
            let tick = Duration::from_millis(250);
            while !last.finished {
                tokio::time::sleep(tick).await;
                since_sent += tick;
                let now = match scheduler.status(&study) {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(e.into())).await;
                        return;
                    }
                };
                // Send changes at once and a keep-alive every few seconds.
                if now != last || since_sent >= Duration::from_secs(5) {
                    if tx.send(Ok(now.clone())).await.is_err() {
                        return;
                    }
                    since_sent = Duration::ZERO;
                }
                last = now;
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn cancel(&self, req: Request<StudyRef>) -> Result<Response<StudyStatus>, Status> {
        Ok(Response::new(self.scheduler.cancel(&req.into_inner().study).await?))
    }

    async fn list(&self, _req: Request<Empty>) -> Result<Response<StudyList>, Status> {
        let studies = self
            .scheduler
            .studies()?
            .into_iter()
            .map(|s| StudySummary { name: s.name, jobs: s.jobs, submitted_unix_ms: s.submitted_unix_ms })
            .collect();
        Ok(Response::new(StudyList { studies }))
    }

    async fn get_study_file(&self, req: Request<StudyRef>) -> Result<Response<StudyFile>, Status> {
        let s = self.scheduler.study(&req.into_inner().study)?;
        Ok(Response::new(StudyFile { study: s.name, study_toml: s.study_toml, study_path: s.study_path }))
    }

    type ResultsStream = Stream_<JobResult>;

    async fn results(&self, req: Request<StudyRef>) -> Result<Response<Self::ResultsStream>, Status> {
        let study = req.into_inner().study;
        let s = self.scheduler.clone();
        let results = blocking(move || s.results(&study)).await?;
        Ok(Response::new(Box::pin(tokio_stream::iter(results.into_iter().map(Ok)))))
    }
}

#[tonic::async_trait]
impl Workers for Service {
    async fn register(&self, req: Request<RegisterRequest>) -> Result<Response<RegisterResponse>, Status> {
        let r = req.into_inner();
        if r.protocol_version != PROTOCOL_VERSION {
            return Err(CoordinatorError::ProtocolMismatch { theirs: r.protocol_version, ours: PROTOCOL_VERSION }.into());
        }
        if r.worker_id.is_empty() {
            return Err(CoordinatorError::BadRequest("worker_id is empty".into()).into());
        }
        self.scheduler.register(&r.worker_id, r.kinds);
        let ttl = self.scheduler.lease_ttl_ms();
        Ok(Response::new(RegisterResponse { lease_ttl_ms: ttl, heartbeat_interval_ms: (ttl / 3).max(50) }))
    }

    async fn lease(&self, req: Request<LeaseRequest>) -> Result<Response<LeaseResponse>, Status> {
        let r = req.into_inner();
        let jobs = self.scheduler.lease(&r.worker_id, r.max_jobs)?;
        Ok(Response::new(LeaseResponse { jobs }))
    }

    async fn heartbeat(&self, req: Request<HeartbeatRequest>) -> Result<Response<HeartbeatResponse>, Status> {
        let r = req.into_inner();
        let running: Vec<(String, u32)> = r.running.into_iter().map(|j| (j.job_id, j.attempt)).collect();
        let cancel = self.scheduler.heartbeat(&r.worker_id, &running)?;
        Ok(Response::new(HeartbeatResponse { cancel }))
    }

    async fn complete(&self, req: Request<CompleteRequest>) -> Result<Response<CompleteResponse>, Status> {
        let r = req.into_inner();
        if !r.blobs.is_empty() {
            // In place, not on a blocking thread: a thread hand-off per call costs more than the
            // in-memory database writes (larger-than-small inline artifacts are rare and ≤ 1 MiB).
            self.scheduler.put_inline_artifacts(r.blobs.into_iter().map(|b| (b.hash, b.data)).collect())?;
        }
        let accepted = self.scheduler.complete(&r.worker_id, r.reports).await?;
        Ok(Response::new(CompleteResponse { accepted }))
    }

    async fn deregister(&self, req: Request<LeaseRequest>) -> Result<Response<Empty>, Status> {
        tracing::info!(worker = %req.into_inner().worker_id, "worker left");
        Ok(Response::new(Empty {}))
    }
}

#[tonic::async_trait]
impl Artifacts for Service {
    async fn missing(&self, req: Request<Hashes>) -> Result<Response<Hashes>, Status> {
        let hashes = req.into_inner().hashes;
        if let Some(bad) = hashes.iter().find(|h| !is_hash(h)) {
            return Err(CoordinatorError::BadRequest(format!("`{bad}` is not a blake3 hex digest")).into());
        }
        let mut missing = Vec::new();
        for h in hashes {
            if !self.scheduler.has_artifact(&h)? {
                missing.push(h);
            }
        }
        Ok(Response::new(Hashes { hashes: missing }))
    }

    async fn upload(&self, req: Request<Streaming<ArtifactChunk>>) -> Result<Response<ArtifactRef>, Status> {
        let mut stream = req.into_inner();
        let mut writer = None;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            let w = match &mut writer {
                Some(w) => w,
                None => {
                    let declared = (!chunk.hash.is_empty()).then(|| chunk.hash.clone());
                    writer.insert(self.scheduler.artifacts().writer(declared).map_err(CoordinatorError::from)?)
                }
            };
            w.write(&chunk.data).map_err(CoordinatorError::from)?;
        }
        let w = match writer {
            Some(w) => w,
            None => self.scheduler.artifacts().writer(None).map_err(CoordinatorError::from)?,
        };
        let s = self.scheduler.clone();
        let (hash, size) = blocking(move || Ok(w.finish(s.artifacts())?)).await?;
        Ok(Response::new(ArtifactRef { hash, size }))
    }

    type DownloadStream = Stream_<ArtifactChunk>;

    async fn download(&self, req: Request<ArtifactRef>) -> Result<Response<Self::DownloadStream>, Status> {
        let hash = req.into_inner().hash;
        let path = match self.scheduler.artifact(&hash)? {
            ArtifactSource::File(path) => path,
            ArtifactSource::Bytes(data) => {
                let chunk = ArtifactChunk { hash, size: data.len() as u64, data };
                return Ok(Response::new(Box::pin(tokio_stream::iter([Ok(chunk)]))));
            }
        };
        let mut file = tokio::fs::File::open(&path).await.map_err(|e| Status::internal(format!("{}: {e}", path.display())))?;
        let size = file.metadata().await.map(|m| m.len()).unwrap_or(0);
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tokio::spawn(async move {
            let mut first = true;
            loop {
                let mut buf = vec![0u8; CHUNK];
                let n = match file.read(&mut buf).await {
                    Ok(n) => n,
                    Err(e) => {
                        let _ = tx.send(Err(Status::internal(e.to_string()))).await;
                        return;
                    }
                };
                if n == 0 && !first {
                    return;
                }
                buf.truncate(n);
                let chunk = ArtifactChunk { hash: hash.clone(), size: if first { size } else { 0 }, data: buf };
                first = false;
                if tx.send(Ok(chunk)).await.is_err() || n == 0 {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}
