//! The system under test of a combinatorial robustness testing case study, after Fögen &
//! Lichter, "An Industrial Case Study on Fault Detection Effectiveness of Combinatorial
//! Robustness Testing": an insurance-application validation service.
//!
//! - [`model()`]: the input parameter model (32 parameters, 9^1 6^2 5^1 4^8 3^8 2^12 = 106
//!   values; 3 exclusion constraints; 31 error constraints `e01`..`e31`).
//! - [`respond`]: the service, correct or one of 13 faulty [`Version`]s ([`FAULTS`]), answering
//!   an application (one value index per parameter) with [`Response::Success`] or the error code
//!   of the first violated rule.
//! - [`evaluate`]: whether a suite detects a version's fault, and with how many failing tests.
//!
//! The model and the service are independent descriptions of the same 31 rules; tests check that
//! they agree and that every fault behaves as its class says.

mod model;
#[cfg(test)]
mod search;
mod service;

pub use model::model;
pub use service::{evaluate, respond, FaultClass, Response, Version, FAULTS, MALFORMED};

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's tables name every parameter with its values, every constraint as the model
    /// renders it, and every fault with its class.
    #[test]
    fn readme_matches_the_model_and_the_faults() {
        let readme = include_str!("../README.md");
        let m = model();
        let md = |s: String| s.replace('|', "\\|");
        for (i, p) in m.params.iter().enumerate() {
            let row = format!("| {i} | `{}`", p.name);
            let line = readme.lines().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("no row for {}", p.name));
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let values: Vec<&str> = cells[3].split(", ").map(|v| v.split(' ').next().unwrap()).collect();
            assert_eq!(values, p.values, "{}", p.name);
            assert_eq!(cells[4], p.values.len().to_string());
        }
        for x in &m.exclusions {
            assert!(readme.contains(&format!("`{}`", md(x.display(&m).to_string()))), "{}", x.display(&m));
        }
        for (k, e) in m.errors.iter().enumerate() {
            let row = format!("| E{:02} | `{}` |", k + 1, e.name);
            let line = readme.lines().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("no row for {}", e.name));
            assert!(line.ends_with(&format!("`{}` |", md(e.expr.display(&m).to_string()))), "{}", e.name);
        }
        for f in FAULTS {
            let row = format!("| `{}` | {} |", f.name(), f.class().unwrap().name());
            assert!(readme.contains(&row), "{row}");
        }
    }
}
