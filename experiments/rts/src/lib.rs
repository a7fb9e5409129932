//! Regression test selection for microservice systems from runtime traces (MRTS-BP, Chen et al.,
//! Journal of Cloud Computing 12, 2023), its baselines, and a simulator of microservice systems
//! with versions, traffic, tests and seeded faults. A pure library: no gRPC, no storage.

pub mod record;
pub mod formats;
pub mod edges;
pub mod mine;
pub mod propagate;
pub mod select;
pub mod metrics;
pub mod evaluate;
pub mod simulate;
pub mod technique;
