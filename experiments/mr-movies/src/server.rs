//! The HTTP service: `GET /search?<params>` and `GET /health`.

use std::io;
use std::net::SocketAddr;

use axum::extract::rejection::QueryRejection;
use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::mutant::Mutant;
use crate::search::{search, QueryError};

/// The routes, with the seeded fault `mutant` if any.
pub fn router(mutant: Option<Mutant>) -> Router {
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .route(
            "/search",
            get(
                move |q: Result<Query<Vec<(String, String)>>, QueryRejection>| async move {
                    let Ok(Query(params)) = q else {
                        return error(StatusCode::BAD_REQUEST, "malformed query string", None);
                    };
                    match search(&params, mutant) {
                        Ok(r) => Json(r).into_response(),
                        Err(e) => error(StatusCode::BAD_REQUEST, &e.to_string(), Some(&e)),
                    }
                },
            ),
        )
}

fn error(status: StatusCode, message: &str, e: Option<&QueryError>) -> Response {
    let body = serde_json::json!({ "error": message, "parameter": e.map(|e| e.parameter()) });
    (status, Json(body)).into_response()
}

/// Serves on `listener` until the process ends.
pub async fn serve(listener: TcpListener, mutant: Option<Mutant>) -> io::Result<()> {
    axum::serve(listener, router(mutant)).await
}

/// A server running in the background; dropping it (or [`Server::shutdown`]) stops it.
pub struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<io::Result<()>>,
}

/// Binds `addr` (e.g. `127.0.0.1:0`) and serves in a background task of the current runtime.
pub async fn start(addr: impl ToSocketAddrs, mutant: Option<Mutant>) -> io::Result<Server> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, router(mutant))
            // Resolves on send or on the sender's drop.
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    Ok(Server {
        addr,
        stop: Some(stop),
        task,
    })
}

impl Server {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`, the `{base}` of the spec's `execution.url`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, waits for open connections to finish, and returns the serve result.
    pub async fn shutdown(mut self) -> io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.map_err(io::Error::other)?
    }
}
