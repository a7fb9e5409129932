//! Starting the coordinator: database, artifact store, scheduler, background lease expiry, and
//! the gRPC server with optional token and TLS.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rigor_proto::artifacts_server::ArtifactsServer;
use rigor_proto::studies_server::StudiesServer;
use rigor_proto::workers_server::WorkersServer;
use rigor_technique::Registry;
use tokio::task::JoinHandle;
use tonic::service::InterceptorLayer;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Status};

use crate::artifacts::ArtifactStore;
use crate::clock::{Clock, SystemClock};
use crate::schedule::{ScheduleConfig, Scheduler};
use crate::service::Service;
use crate::store::SledStore;

use rigor_proto::MAX_MESSAGE;

#[derive(Debug, Clone)]
pub struct CoordinatorConfig {
    /// Holds `db/` (sled) and `artifacts/` (content-addressed files).
    pub data_dir: PathBuf,
    pub listen: SocketAddr,
    /// When set, every call must carry `authorization: Bearer <token>`.
    pub token: Option<String>,
    /// PEM certificate and key: serve over TLS.
    pub tls: Option<(PathBuf, PathBuf)>,
    pub schedule: ScheduleConfig,
}

impl CoordinatorConfig {
    pub fn new(data_dir: PathBuf) -> Self {
        CoordinatorConfig {
            data_dir,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: None,
            tls: None,
            schedule: ScheduleConfig::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Coordinator(#[from] crate::error::CoordinatorError),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("cannot read TLS file {path}: {source}")]
    Tls { path: PathBuf, source: std::io::Error },
    #[error("TLS configuration: {0}")]
    TlsConfig(tonic::transport::Error),
}

/// A running coordinator.
pub struct Running {
    pub addr: SocketAddr,
    pub scheduler: Arc<Scheduler>,
    pub server: JoinHandle<Result<(), tonic::transport::Error>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Running {
    /// Stops accepting calls and waits for the server to finish.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = self.server.await;
    }
}

/// Checks the shared token on every call.
fn check_token(token: Option<String>) -> impl Fn(Request<()>) -> Result<Request<()>, Status> + Clone {
    move |req: Request<()>| {
        let Some(expected) = &token else { return Ok(req) };
        let given = req.metadata().get("authorization").and_then(|v| v.to_str().ok());
        match given.and_then(|v| v.strip_prefix("Bearer ")) {
            Some(t) if constant_time_eq(t.as_bytes(), expected.as_bytes()) => Ok(req),
            Some(_) => Err(Status::unauthenticated("wrong token")),
            None => Err(Status::unauthenticated("this coordinator requires a token (--token or RIGOR_TOKEN)")),
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Opens the state in `config.data_dir`, binds, and serves until [`Running::stop`].
pub async fn start(config: CoordinatorConfig, registry: Registry) -> Result<Running, ServeError> {
    start_with_clock(config, registry, Arc::new(SystemClock)).await
}

pub async fn start_with_clock(
    config: CoordinatorConfig,
    registry: Registry,
    clock: Arc<dyn Clock>,
) -> Result<Running, ServeError> {
    let db_dir = config.data_dir.join("db");
    let (store, artifacts) = tokio::task::spawn_blocking(move || {
        let store = SledStore::open(&db_dir).map_err(crate::error::CoordinatorError::from)?;
        let artifacts = ArtifactStore::open(&config.data_dir.join("artifacts")).map_err(crate::error::CoordinatorError::from)?;
        Ok::<_, ServeError>((store, artifacts))
    })
    .await
    .expect("opening the store does not panic")?;
    let sched_config = config.schedule.clone();
    let scheduler = tokio::task::spawn_blocking(move || {
        Scheduler::open(Arc::new(store), Arc::new(artifacts), registry, clock, sched_config)
    })
    .await
    .expect("loading the scheduler does not panic")?;
    let scheduler = Arc::new(scheduler);

    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| ServeError::Bind { addr: config.listen, source })?;
    let addr = listener.local_addr().map_err(|source| ServeError::Bind { addr: config.listen, source })?;

    let mut builder = Server::builder();
    if let Some((cert, key)) = &config.tls {
        let read = |p: &PathBuf| std::fs::read(p).map_err(|source| ServeError::Tls { path: p.clone(), source });
        let identity = Identity::from_pem(read(cert)?, read(key)?);
        builder = builder.tls_config(ServerTlsConfig::new().identity(identity)).map_err(ServeError::TlsConfig)?;
    }
    let service = Service { scheduler: scheduler.clone() };
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let router = builder
        .layer(InterceptorLayer::new(check_token(config.token.clone())))
        .add_service(StudiesServer::new(service.clone()).max_decoding_message_size(MAX_MESSAGE).max_encoding_message_size(MAX_MESSAGE))
        .add_service(WorkersServer::new(service.clone()).max_decoding_message_size(MAX_MESSAGE).max_encoding_message_size(MAX_MESSAGE))
        .add_service(ArtifactsServer::new(service).max_decoding_message_size(MAX_MESSAGE).max_encoding_message_size(MAX_MESSAGE));

    // Lease expiry runs on its own ticker: a worker that stops talking frees its jobs even when
    // no other call arrives.
    let ticker = scheduler.clone();
    let tick = Duration::from_millis((config.schedule.lease_ttl_ms / 10).clamp(20, 1000));
    let expiry = tokio::spawn(async move {
        loop {
            tokio::time::sleep(tick).await;
            let s = ticker.clone();
            match tokio::task::spawn_blocking(move || s.expire_leases()).await {
                Ok(Ok(n)) if n > 0 => tracing::warn!(expired = n, "leases expired"),
                Ok(Err(e)) => tracing::error!(error = %e, "expiring leases failed"),
                _ => {}
            }
        }
    });
    // Without TCP_NODELAY, Nagle's algorithm meets delayed ACKs and every small call waits ~40 ms.
    let incoming = tokio_stream::StreamExt::map(tokio_stream::wrappers::TcpListenerStream::new(listener), |s| {
        s.and_then(|s| {
            s.set_nodelay(true)?;
            Ok(s)
        })
    });
    let server = tokio::spawn(async move {
        let r = router
            .serve_with_incoming_shutdown(incoming, async {
                let _ = rx.await;
            })
            .await;
        expiry.abort();
        r
    });
    tracing::info!(%addr, "coordinator listening");
    Ok(Running { addr, scheduler, server, shutdown: Some(tx) })
}
