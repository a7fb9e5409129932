//! Combinatorial testing: input parameter models with exclusion and error constraints, IPOG-C
//! covering arrays, t-wise valid and a-wise strong invalid suites (combinatorial robustness
//! testing, Fögen & Lichter), and an independent coverage checker.

pub mod expr;
pub mod model;

pub use expr::{CmpOp, Expr, Operand, Truth};
pub use model::{ErrorConstraint, Model, ModelError, Param, SubModel};
pub mod check;
pub mod combos;
pub mod optimize;
pub mod tuples;
pub mod ipog;
pub mod solver;
pub mod suite;
pub mod technique;
pub mod export;
pub mod parse;
pub use parse::{Format, ParseError};
