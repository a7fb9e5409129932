//! The coordinator's errors and the one place where they become gRPC status codes.

use crate::artifacts::ArtifactError;
use crate::store::StoreError;
use crate::study::StudyError;

#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error("{0}")]
    Study(#[from] StudyError),
    #[error("no study named `{0}`")]
    UnknownStudy(String),
    #[error("unknown worker `{0}`: register first")]
    UnknownWorker(String),
    #[error("worker speaks protocol version {theirs}, this coordinator speaks {ours}: run the same rigor version on both")]
    ProtocolMismatch { theirs: u32, ours: u32 },
    #[error("no artifact {0}")]
    UnknownArtifact(String),
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
}

impl From<CoordinatorError> for tonic::Status {
    fn from(e: CoordinatorError) -> Self {
        use tonic::Code;
        let code = match &e {
            CoordinatorError::Study(_) | CoordinatorError::BadRequest(_) => Code::InvalidArgument,
            CoordinatorError::UnknownStudy(_) | CoordinatorError::UnknownWorker(_) | CoordinatorError::UnknownArtifact(_) => {
                Code::NotFound
            }
            CoordinatorError::ProtocolMismatch { .. } => Code::FailedPrecondition,
            CoordinatorError::Artifact(ArtifactError::HashMismatch { .. } | ArtifactError::BadHash(_)) => Code::InvalidArgument,
            CoordinatorError::Store(_) | CoordinatorError::Artifact(ArtifactError::Io { .. }) => Code::Internal,
        };
        if code == Code::Internal {
            tracing::error!(error = %e, "internal error");
        }
        tonic::Status::new(code, e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, CoordinatorError>;
