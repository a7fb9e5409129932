//! Loading a subject for generation: spec, feature, source tests. Shared by the command line and
//! the job adapters so both refuse the same inputs with the same words.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::spec::{Spec, SpecError};
use crate::sut::{Mode, Sut, SutError, Test};
use crate::tests_csv::{self, TestsError};
use crate::transform::Crash;

#[derive(Debug, Error)]
pub enum MrError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Tests(#[from] TestsError),
    #[error("{file}: {source}", file = .file.display())]
    Sut { file: PathBuf, source: SutError },
    #[error("{file}: no feature {want:?} (features: {have})", file = .file.display())]
    NoFeature {
        file: PathBuf,
        want: String,
        have: String,
    },
    #[error("{file}: {n} features ({have}); name one with --feature", file = .file.display())]
    WhichFeature {
        file: PathBuf,
        n: usize,
        have: String,
    },
    #[error(transparent)]
    Crash(#[from] Crash),
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where source tests come from.
#[derive(Debug, Clone, Copy)]
pub enum Tests<'a> {
    /// A `;`-separated CSV file.
    File(&'a Path),
    /// Generated from the spec: t-wise coverage of parameter values and absence (IPOG-C).
    Pairwise { strength: usize, seed: Option<u64> },
}

/// A subject ready for generation.
#[derive(Debug, Clone)]
pub struct Subject {
    pub spec: Spec,
    /// Index of the chosen feature in `spec.features`.
    pub feature: usize,
    pub sut: Sut,
    pub tests: Vec<Test>,
    /// "System (feature)", as the natural-language output names it.
    pub domain: String,
}

impl Subject {
    /// Reads `spec` and `tests`. `feature` defaults to the spec's only feature (and keeps the
    /// user's spelling when given); `name` defaults to the folder holding the spec.
    pub fn load(
        spec_path: &Path,
        tests_path: &Path,
        feature: Option<&str>,
        name: Option<&str>,
        mode: Mode,
    ) -> Result<Subject, MrError> {
        Self::load_with(spec_path, Tests::File(tests_path), feature, name, mode)
    }

    /// Like [`Subject::load`], with the source tests read from a file or generated t-wise.
    pub fn load_with(
        spec_path: &Path,
        tests: Tests,
        feature: Option<&str>,
        name: Option<&str>,
        mode: Mode,
    ) -> Result<Subject, MrError> {
        let spec = Spec::from_path(spec_path)?;
        let have = || {
            spec.features
                .iter()
                .map(|f| f.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (index, feature_name) = match feature {
            Some(want) => match spec.features.iter().position(|f| f.id.eq_ignore_ascii_case(want)) {
                Some(i) => (i, want.to_string()),
                None => {
                    return Err(MrError::NoFeature {
                        file: spec_path.into(),
                        want: want.into(),
                        have: have(),
                    })
                }
            },
            None if spec.features.len() == 1 => (0, spec.features[0].id.clone()),
            None => {
                return Err(MrError::WhichFeature {
                    file: spec_path.into(),
                    n: spec.features.len(),
                    have: have(),
                })
            }
        };
        let f = &spec.features[index];
        let sut = Sut::new(f, &feature_name, mode).map_err(|source| MrError::Sut {
            file: spec_path.into(),
            source,
        })?;
        let (source, origin) = match tests {
            Tests::File(path) => (tests_csv::read_path(path, f)?, path.to_path_buf()),
            Tests::Pairwise { strength, seed } => (
                crate::pairwise::source_tests(f, strength, seed, mode)
                    .map_err(|m| MrError::Invalid(format!("{}: {m}", spec_path.display())))?,
                spec_path.to_path_buf(),
            ),
        };
        let tests = sut.tests(&source).map_err(|source| MrError::Sut { file: origin, source })?;
        let system = match name {
            Some(n) => n.to_string(),
            None => folder_name(spec_path),
        };
        Ok(Subject {
            domain: format!("{system} ({feature_name})"),
            spec,
            feature: index,
            sut,
            tests,
        })
    }
}

fn folder_name(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "SUT".into())
}

/// The seed of run `i` (1-based) from a base seed: the original's scheme, base + 10000·(i−1).
pub fn run_seed(base: i64, run: usize) -> i64 {
    base.wrapping_add(10_000i64.wrapping_mul(run as i64 - 1))
}
