//! The techniques this binary is built with: the one place that lists them.

use rigor_technique::{Noop, Registry};

pub fn registry() -> Registry {
    Registry::new().with(Noop)
}
