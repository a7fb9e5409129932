//! Metamorphic relation generation for query-based systems (MRG; Segura et al., "Automated Generation
//! of Metamorphic Relations for Query-Based Systems", MET 2022).
//!
//! This crate is the start of a port of the MRG tool: the input specification ([`spec`]), the source
//! tests ([`tests_csv`]), the feature constraints ([`constraint`]) and an exact port of
//! `java.util.Random` ([`javarandom`]) so that seeded runs can reproduce the Java tool. Generation
//! itself and the `rigor_technique::Technique` implementation are not written yet.

pub mod constraint;
pub mod javarandom;
pub mod spec;
pub mod tests_csv;

pub use constraint::{Atom, Constraint, ConstraintError, ConstraintKind, ParseMode};
pub use javarandom::JavaRandom;
pub use spec::{
    AllValue, CompleteFilter, Configuration, ConstraintDecl, DisjointFilter, Feature, Parameter,
    Spec, SpecError,
};
pub use tests_csv::{SourceTest, TestsError};
