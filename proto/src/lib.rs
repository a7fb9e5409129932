//! rigor's protocol, `rigor.v1`: generated gRPC types and services (compiled with protox, so no
//! `protoc` is needed), and how clients connect.

pub mod client;

/// Largest message either side sends or accepts (job outputs carry series and inline artifacts).
pub const MAX_MESSAGE: usize = 256 << 20;

/// Chunk size of artifact uploads and downloads: large files never sit in one message.
pub const ARTIFACT_CHUNK: usize = 1 << 20;

/// Bumped on any change a peer of another version could misread; workers send it when they register.
pub const PROTOCOL_VERSION: u32 = 1;

#[allow(clippy::all, missing_docs)]
pub mod v1 {
    tonic::include_proto!("rigor.v1");
}

pub use v1::*;
