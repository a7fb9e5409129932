//! The techniques this binary is built with: the one place that lists them, and the shipped
//! systems under test that techniques may start.

use std::sync::Arc;

use rigor_ct::technique::{CtExecute, CtSuite, System};
use rigor_mr::{Launcher, MrExecute, MrGenerate, Running};
use rigor_mr_movies::Mutant;
use rigor_technique::{Noop, Registry};

pub fn registry() -> Registry {
    Registry::new()
        .with(Noop)
        .with(MrGenerate)
        .with(MrExecute::new(Some(Arc::new(Shipped))))
        .with(CtSuite)
        .with(CtExecute::new(vec![("insurance", Arc::new(Insurance))]))
        .with(rigor_rts::technique::RtsSelect)
}

/// The CRT case study's insurance-application service (rigor-ct-insurance) and its 13 faults.
pub struct Insurance;

impl System for Insurance {
    fn faults(&self) -> Vec<&'static str> {
        rigor_ct_insurance::FAULTS.iter().map(|f| f.name()).collect()
    }

    fn responses(&self, version: &str, suite: &[Vec<usize>]) -> Result<Vec<String>, String> {
        use rigor_ct_insurance::{respond, Response, Version, FAULTS};
        let v = match version {
            "correct" => Version::Correct,
            name => FAULTS.into_iter().find(|f| f.name() == name).ok_or_else(|| format!("insurance has no version `{name}`"))?,
        };
        Ok(suite
            .iter()
            .map(|t| match respond(v, t) {
                Response::Success => "SUCCESS".into(),
                Response::Error(code) => code.into(),
            })
            .collect())
    }
}

/// Starts the shipped query-based systems (today: `movies`, rigor-mr-movies).
pub struct Shipped;

/// `none` is the original; anything else names a seeded fault.
pub fn movies_mutant(name: &str) -> Result<Option<Mutant>, String> {
    match name {
        "none" => Ok(None),
        m => m.parse::<Mutant>().map(Some).map_err(|_| {
            let known: Vec<&str> = Mutant::ALL.iter().map(|m| m.name()).collect();
            format!("unknown mutant `{m}` of movies (none, {})", known.join(", "))
        }),
    }
}

impl Launcher for Shipped {
    fn check(&self, system: &str, mutant: &str) -> Result<(), String> {
        if system != "movies" {
            return Err(format!("unknown system `{system}` (shipped: movies; or `url` with base_url)"));
        }
        movies_mutant(mutant).map(|_| ())
    }

    fn launch(&self, system: &str, mutant: &str) -> Result<Box<dyn Running>, String> {
        self.check(system, mutant)?;
        let mutant = movies_mutant(mutant)?;
        Ok(Box::new(MoviesServer::start(mutant).map_err(|e| format!("starting movies: {e}"))?))
    }
}

/// The movies service on 127.0.0.1 (an ephemeral port) in a thread of its own with its own
/// runtime (executors run jobs without one); stopped and joined on drop.
pub struct MoviesServer {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MoviesServer {
    pub fn start(mutant: Option<Mutant>) -> std::io::Result<MoviesServer> {
        Self::start_on("127.0.0.1:0".into(), mutant)
    }

    pub fn start_on(addr: String, mutant: Option<Mutant>) -> std::io::Result<MoviesServer> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return drop(ready_tx.send(Err(e))),
            };
            rt.block_on(async move {
                match rigor_mr_movies::start(addr.as_str(), mutant).await {
                    Ok(server) => {
                        let _ = ready_tx.send(Ok(server.base_url()));
                        let _ = stop_rx.await;
                        let _ = server.shutdown().await;
                    }
                    Err(e) => drop(ready_tx.send(Err(e))),
                }
            });
        });
        let url = ready_rx.recv().map_err(std::io::Error::other)??;
        Ok(MoviesServer { url, stop: Some(stop_tx), thread: Some(thread) })
    }
}

impl Running for MoviesServer {
    fn base_url(&self) -> String {
        self.url.clone()
    }
}

impl Drop for MoviesServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
