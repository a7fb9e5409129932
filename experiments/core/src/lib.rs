//! The one contract between rigor's orchestration and its techniques.
//!
//! A technique is a plain library: it declares its kind and version, checks the parameters of an
//! experiment at plan time, and runs one job given a [`Context`]. It knows nothing of gRPC, sled or
//! processes; the worker calls [`Technique::run`] inside an executor process and ships the
//! [`Output`] back to the coordinator.

mod noop;
mod params;
mod registry;

pub use noop::Noop;
pub use params::{check as check_params, ParamSpec, ParamType, ParamValue, Params};
pub use registry::Registry;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::SeedableRng;

/// The random generator every technique draws from, seeded by the job's seed only.
pub type JobRng = rand_chacha::ChaCha8Rng;

/// A generator seeded from `seed`: the only source of randomness a technique should use.
pub fn rng(seed: u64) -> JobRng {
    JobRng::seed_from_u64(seed)
}

/// A subject as an experiment names it: a name and, optionally, files by role (`spec`, `tests`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubjectDecl {
    pub name: String,
    /// Role → path as written in the study file (relative to the study file).
    pub files: BTreeMap<String, PathBuf>,
}

/// One job as the technique sees it.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: String,
    pub study: String,
    pub experiment: String,
    pub kind: String,
    pub subject: String,
    pub params: Params,
    pub repetition: u32,
    pub seed: u64,
}

/// Typed reads of a job's parameters with the technique's default when absent (validation has
/// already checked names and types).
impl Job {
    pub fn str(&self, name: &str) -> Option<&str> {
        self.params.get(name).and_then(|v| v.as_str())
    }

    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.params.get(name).and_then(|v| v.as_i64()).unwrap_or(default)
    }

    pub fn float(&self, name: &str, default: f64) -> f64 {
        self.params.get(name).and_then(|v| v.as_f64()).unwrap_or(default)
    }

    pub fn flag(&self, name: &str, default: bool) -> bool {
        self.params.get(name).and_then(|v| v.as_bool()).unwrap_or(default)
    }
}

/// What a running job may use besides its spec.
pub struct Context<'a> {
    /// Input files by name: subject files by role, other jobs' artifacts as `experiment/artifact`.
    pub inputs: BTreeMap<String, PathBuf>,
    /// Where this attempt's private directory goes; created on first use of
    /// [`Context::scratch`] (most jobs never need one) and removed afterwards.
    scratch: PathBuf,
    cancel: &'a AtomicBool,
    progress: &'a mut dyn FnMut(f64),
}

impl<'a> Context<'a> {
    pub fn new(
        inputs: BTreeMap<String, PathBuf>,
        scratch: PathBuf,
        cancel: &'a AtomicBool,
        progress: &'a mut dyn FnMut(f64),
    ) -> Self {
        Context { inputs, scratch, cancel, progress }
    }

    /// A directory private to this attempt, created on first call and removed after the job.
    pub fn scratch(&self) -> Result<&std::path::Path, TechniqueError> {
        std::fs::create_dir_all(&self.scratch)
            .map_err(|source| TechniqueError::Io { path: self.scratch.clone(), source })?;
        Ok(&self.scratch)
    }

    /// True once the job should stop (study cancelled, or the worker is shutting down).
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Reports progress as a fraction in [0, 1]; cheap enough to call often.
    pub fn progress(&mut self, fraction: f64) {
        (self.progress)(fraction.clamp(0.0, 1.0))
    }

    /// The path of a named input, or an error naming what is missing.
    pub fn input(&self, name: &str) -> Result<&PathBuf, TechniqueError> {
        self.inputs.get(name).ok_or_else(|| TechniqueError::MissingInput(name.to_string()))
    }
}

/// What a job produces. Maps are ordered so that equal outputs serialise identically.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    pub metrics: BTreeMap<String, f64>,
    /// Named series of (x, y) points, e.g. coverage at each 5% of the budget.
    pub series: BTreeMap<String, Vec<(f64, f64)>>,
    /// Named artifacts; stored content-addressed by the coordinator.
    pub artifacts: BTreeMap<String, Vec<u8>>,
    pub log: String,
}

/// A parameter or subject that a technique cannot accept, found at plan time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ValidationError {
    /// The offending field, as a path within the experiment (`params.work_ms`, `subjects`).
    pub field: String,
    pub message: String,
}

impl ValidationError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ValidationError { field: field.into(), message: message.into() }
    }
}

/// Why a job did not produce an output.
#[derive(Debug, thiserror::Error)]
pub enum TechniqueError {
    #[error("input `{0}` is missing")]
    MissingInput(String),
    #[error("cancelled")]
    Cancelled,
    #[error("i/o error on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Failed(String),
}

impl TechniqueError {
    /// A failure described by any error or message.
    pub fn failed(e: impl std::fmt::Display) -> Self {
        TechniqueError::Failed(e.to_string())
    }
}

/// A testing technique that rigor can run as jobs.
pub trait Technique: Send + Sync {
    /// The job kind, e.g. `noop`, `ct.suite`, `rest.run`.
    fn kind(&self) -> &'static str;

    /// Part of every job id: bump it whenever results could change, so stored results are not reused.
    fn version(&self) -> &'static str;

    /// One line for `--help` and error messages.
    fn summary(&self) -> &'static str;

    /// The parameters the technique accepts; the default [`Technique::validate`] checks against them.
    fn params(&self) -> Vec<ParamSpec>;

    /// Checks one cell of the grid at plan time. The default checks names, types and required
    /// parameters against [`Technique::params`]; techniques add their own checks on top.
    fn validate(&self, _subject: &SubjectDecl, params: &Params) -> Result<(), ValidationError> {
        params::check(&self.params(), params)
    }

    /// Runs one job. Must take every random choice from `rng(job.seed)`.
    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError>;
}
