//! A simulator of microservice systems with versions, user traffic, regression tests and seeded
//! faults — the stand-in for the confidential systems of the MRTS-BP paper (m-Ticket, z-Shop,
//! Need, JOA), so that selection can be studied with a known ground truth.
//!
//! The model, from the bottom up:
//! - [`profile`]: the sizes of a system (services, log records, versions, tests).
//! - [`topology`]: services in layers (gateway → business tiers → basic → storage) with APIs, and
//!   the static call graph: each API's list of calls to APIs of deeper services, with a
//!   heavy-tailed fan-out, shared popular services and optional back-edges (loops).
//! - [`calltree`]: expanding an entry API over the call graph into the call tree one request
//!   follows; a *variant* flips a few optional calls, one variant dominates each entry API.
//! - [`evolve`]: versions 2..=n change a few services (and some of their calls).
//! - [`suite`]: tests, each exercising one variant of one entry API, with execution times.
//! - [`system`]: [`System::generate`] ties these together and adds the faults with ground truth.
//! - [`traffic`]: streaming traces (one span per record) drawn from entry-API popularity.
//! - [`files`]: the output directory and the readers of its ground-truth files.
//!
//! Every random choice comes from the seed through per-purpose streams ([`sample::stream`]), so
//! the same seed gives the same system byte for byte, and the traffic volume does not change the
//! system, the tests or the faults.

pub mod calltree;
pub mod evolve;
pub mod files;
pub mod profile;
pub mod sample;
pub mod suite;
pub mod system;
pub mod topology;
pub mod traffic;

pub use calltree::{Call, CallGraph, CallKind, CallTree, Node, Variant};
pub use files::{read_changed, read_dependencies, read_faults, trace_file_name, write_dir, write_faults, SimFileError};
pub use profile::Profile;
pub use system::{EntryApi, Fault, System, Version};
pub use topology::{Api, ApiId, Layer, Service};
pub use traffic::TrafficStats;

use std::path::PathBuf;

/// Why a system could not be generated or written.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("invalid profile `{profile}`: {message}")]
    Profile { profile: String, message: String },
    #[error("no version {version}: the system has versions 1..={versions}")]
    NoVersion { version: u32, versions: u32 },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("writing traces: {0}")]
    Sink(std::io::Error),
}
