//! The sizes of a simulated system. The four named profiles are the paper's subject systems
//! (Chen et al. 2023, Table 2); custom profiles let tests and studies use tiny or odd systems.

use serde::Serialize;

use super::SimError;

/// How big a system is and how much it logs. Everything else (fan-out, variants, changes, faults)
/// follows the simulator's fixed distributions, documented in the modules that draw them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub name: String,
    pub services: usize,
    /// Log records (spans) of traffic generated per version.
    pub log_records: u64,
    /// Versions 1..=versions; version 1 is the baseline without changes.
    pub versions: u32,
    pub tests: usize,
    /// Share of business and basic APIs that get an optional callback to the service of one of
    /// their business callers (a loop, e.g. order → payment → order); 0 gives an acyclic service
    /// graph.
    pub back_edge_rate: f64,
}

/// Largest sizes accepted, far above the paper's systems; they keep a typo from exhausting memory.
const MAX_SERVICES: usize = 100_000;
const MAX_TESTS: usize = 10_000_000;
const MAX_VERSIONS: u32 = 1_000;
const DEFAULT_BACK_EDGE_RATE: f64 = 0.04;

impl Profile {
    /// The names [`Profile::by_name`] knows.
    pub const NAMES: [&'static str; 4] = ["m-ticket", "z-shop", "need", "joa"];

    /// A profile with the default back-edge rate.
    pub fn custom(name: &str, services: usize, log_records: u64, versions: u32, tests: usize) -> Profile {
        Profile { name: name.to_string(), services, log_records, versions, tests, back_edge_rate: DEFAULT_BACK_EDGE_RATE }
    }

    /// One of the paper's systems: `m-ticket`, `z-shop`, `need` or `joa` (case-insensitive).
    pub fn by_name(name: &str) -> Option<Profile> {
        let p = match name.to_ascii_lowercase().as_str() {
            "m-ticket" => Profile::custom("m-ticket", 61, 40_000, 5, 1_182),
            "z-shop" => Profile::custom("z-shop", 43, 20_000, 4, 913),
            "need" => Profile::custom("need", 169, 2_000_000, 4, 847),
            "joa" => Profile::custom("joa", 605, 50_000_000, 9, 13_356),
            _ => return None,
        };
        Some(p)
    }

    /// Checks the sizes before anything is generated.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |message: String| Err(SimError::Profile { profile: self.name.clone(), message });
        if self.services == 0 {
            return bad("a system needs at least 1 service".into());
        }
        if self.services > MAX_SERVICES {
            return bad(format!("{} services is more than the {MAX_SERVICES} supported", self.services));
        }
        if self.versions == 0 {
            return bad("a system needs at least 1 version".into());
        }
        if self.versions > MAX_VERSIONS {
            return bad(format!("{} versions is more than the {MAX_VERSIONS} supported", self.versions));
        }
        if self.tests > MAX_TESTS {
            return bad(format!("{} tests is more than the {MAX_TESTS} supported", self.tests));
        }
        if !(0.0..=1.0).contains(&self.back_edge_rate) {
            return bad(format!("back_edge_rate {} must be within 0..=1", self.back_edge_rate));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_profiles_have_the_papers_sizes() {
        let sizes: Vec<_> = Profile::NAMES
            .iter()
            .map(|n| {
                let p = Profile::by_name(n).unwrap();
                (p.services, p.log_records, p.versions, p.tests)
            })
            .collect();
        assert_eq!(
            sizes,
            [(61, 40_000, 5, 1_182), (43, 20_000, 4, 913), (169, 2_000_000, 4, 847), (605, 50_000_000, 9, 13_356)]
        );
        assert_eq!(Profile::by_name("JOA").unwrap().name, "joa");
        assert!(Profile::by_name("train-ticket").is_none());
    }

    #[test]
    fn bad_sizes_are_errors() {
        let mut p = Profile::custom("tiny", 0, 10, 2, 3);
        assert_eq!(p.validate().unwrap_err().to_string(), "invalid profile `tiny`: a system needs at least 1 service");
        p.services = 3;
        p.versions = 0;
        assert!(p.validate().is_err());
        p.versions = 1;
        p.back_edge_rate = f64::NAN;
        assert!(p.validate().is_err());
        p.back_edge_rate = 0.0;
        assert!(p.validate().is_ok());
    }
}
