//! Connecting to a coordinator: endpoint, optional TLS and the shared token on every call.

use std::path::PathBuf;
use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::v1::{artifacts_client::ArtifactsClient, studies_client::StudiesClient, workers_client::WorkersClient};

pub use crate::MAX_MESSAGE;

/// Where the coordinator is and how to talk to it.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// `http://host:port`, or `https://...` for TLS.
    pub url: String,
    pub token: Option<String>,
    /// PEM certificate of the authority that signed the coordinator's certificate (TLS only).
    pub ca_cert: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("invalid coordinator address `{url}`: {source}")]
    Url { url: String, source: tonic::transport::Error },
    #[error("cannot read CA certificate {path}: {source}")]
    Ca { path: PathBuf, source: std::io::Error },
    #[error("token contains characters not allowed in a header")]
    Token,
    #[error("cannot reach the coordinator at {url}: {source}")]
    Connect { url: String, source: tonic::transport::Error },
}

/// Adds `authorization: Bearer <token>` to every call.
#[derive(Clone)]
pub struct Auth(Option<MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Auth {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

pub type Authed = InterceptedService<Channel, Auth>;

/// One connection with a client for each service.
#[derive(Clone)]
pub struct Clients {
    pub studies: StudiesClient<Authed>,
    pub workers: WorkersClient<Authed>,
    pub artifacts: ArtifactsClient<Authed>,
}

impl Target {
    fn endpoint(&self) -> Result<Endpoint, ConnectError> {
        let url_err = |source| ConnectError::Url { url: self.url.clone(), source };
        let mut ep = Endpoint::from_shared(self.url.clone())
            .map_err(url_err)?
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(20))
            .keep_alive_while_idle(true);
        if self.url.starts_with("https://") || self.ca_cert.is_some() {
            let mut tls = ClientTlsConfig::new();
            if let Some(path) = &self.ca_cert {
                let pem = std::fs::read(path).map_err(|source| ConnectError::Ca { path: path.clone(), source })?;
                tls = tls.ca_certificate(Certificate::from_pem(pem));
            }
            ep = ep.tls_config(tls).map_err(url_err)?;
        }
        Ok(ep)
    }

    fn auth(&self) -> Result<Auth, ConnectError> {
        let value = match &self.token {
            Some(t) => Some(format!("Bearer {t}").parse().map_err(|_| ConnectError::Token)?),
            None => None,
        };
        Ok(Auth(value))
    }

    /// Connects now, failing if the coordinator cannot be reached.
    pub async fn connect(&self) -> Result<Clients, ConnectError> {
        let channel = self
            .endpoint()?
            .connect()
            .await
            .map_err(|source| ConnectError::Connect { url: self.url.clone(), source })?;
        self.clients(channel)
    }

    /// A connection made on first use and re-made after failures: for workers that must outlive
    /// coordinator restarts.
    pub fn connect_lazy(&self) -> Result<Clients, ConnectError> {
        let channel = self.endpoint()?.connect_lazy();
        self.clients(channel)
    }

    fn clients(&self, channel: Channel) -> Result<Clients, ConnectError> {
        let auth = self.auth()?;
        Ok(Clients {
            studies: StudiesClient::with_interceptor(channel.clone(), auth.clone())
                .max_decoding_message_size(MAX_MESSAGE)
                .max_encoding_message_size(MAX_MESSAGE),
            workers: WorkersClient::with_interceptor(channel.clone(), auth.clone())
                .max_decoding_message_size(MAX_MESSAGE)
                .max_encoding_message_size(MAX_MESSAGE),
            artifacts: ArtifactsClient::with_interceptor(channel, auth)
                .max_decoding_message_size(MAX_MESSAGE)
                .max_encoding_message_size(MAX_MESSAGE),
        })
    }
}
