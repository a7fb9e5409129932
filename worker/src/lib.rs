//! rigor's worker: leases jobs from the coordinator and runs them out of process.
//!
//! Jobs run in a pool of long-lived executor child processes ([`executor`]), each running
//! [`runner::serve`] and talking to the worker over a framed pipe protocol ([`wire`]), so that
//! a technique that panics, hangs or exhausts memory costs one executor, never the worker.

pub mod agent;
pub mod cancel;
pub mod executor;
pub mod runner;
pub mod wire;

pub use cancel::CancelToken;
pub use executor::{Attempt, ExecutorError, ExecutorPool, PoolConfig};
