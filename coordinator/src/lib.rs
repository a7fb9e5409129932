//! rigor's coordinator. Modules follow the data flow: a study file is parsed ([`study`]) and
//! expanded into jobs ([`plan`]), stored ([`store`], [`artifacts`]), leased to workers and retried
//! ([`schedule`]), all behind the gRPC service ([`service`]) that [`server`] starts.

pub mod artifacts;
pub mod clock;
pub mod error;
pub mod plan;
pub mod schedule;
pub mod server;
pub mod service;
pub mod store;
pub mod study;

pub use error::CoordinatorError;
pub use schedule::{ScheduleConfig, Scheduler};
pub use server::{start, start_with_clock, CoordinatorConfig, Running};
