//! Metamorphic relation generation for query-based systems (MRG; Segura et al., "Automated Generation
//! of Metamorphic Relations for Query-Based Systems", MET 2022).
//!
//! Inputs are the MRG formats: the specification ([`spec`]) and the source tests ([`tests_csv`]).
//! [`sut`] resolves a feature for generation, [`transform`] holds the nine input transformations,
//! [`generate`] the random generator and [`render`] the output files. Seeded runs use an exact port
//! of `java.util.Random` ([`javarandom`]), so compat mode writes the files the Java tool writes.

pub mod constraint;
pub mod execute;
pub mod generate;
pub mod http;
pub mod input;
pub mod pairwise;
pub mod javarandom;
pub mod render;
pub mod spec;
pub mod technique;
pub mod sut;
pub mod synthetic;
pub mod tests_csv;
pub mod transform;

pub use constraint::{Atom, Constraint, ConstraintError, ConstraintKind, ParseMode};
pub use generate::{generate, Mr, Options, Run};
pub use input::{run_seed, MrError, Subject, Tests};
pub use javarandom::JavaRandom;
pub use spec::{
    AllValue, CompleteFilter, Configuration, ConstraintDecl, DisjointFilter, Execution, Feature,
    Parameter, Spec, SpecError,
};
pub use sut::{Mode, Sut, SutError, Test};
pub use tests_csv::{SourceTest, TestsError};
pub use technique::{Launcher, MrExecute, MrGenerate, Running};
pub use transform::{Crash, MrType, Relation};
