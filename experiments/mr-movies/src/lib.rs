//! A reference query-based system for metamorphic testing: movie search over HTTP on the
//! vega-datasets movies (embedded), with seeded faults ([`Mutant`]) selectable at start-up.
//!
//! [`search`] is the whole query semantics as a pure function; [`router`], [`serve`] and
//! [`start`] put it behind `GET /search` and `GET /health`. `spec/movies.yml` describes the
//! service in MRG format and `spec/testCases.csv` holds source tests; README.md documents the
//! parameters and the mutants.

mod data;
mod mutant;
mod search;
mod server;

pub use data::{movies, Movie};
pub use mutant::{Mutant, UnknownMutant};
pub use search::{
    default_value, enum_values, search, Item, QueryError, Response, GENRES, NULLS, PARAMETERS,
    RATINGS, SORTS,
};
pub use server::{router, serve, start, Server};
