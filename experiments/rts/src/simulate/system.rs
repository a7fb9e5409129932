//! A whole simulated system: services, call graphs per version, entry APIs with their variants,
//! the test suite and the seeded faults with their ground truth.
//!
//! Faults: in each version v ≥ 2 every changed service is faulty with probability 0.5, and at
//! least one service some test reaches is faulty when there is one. A faulty service gets one
//! fault (two with probability 0.25) in distinct APIs that tests exercise — like mutants no test
//! can reach, faults outside the suite's reach say nothing about selection — falling back to any
//! of its APIs when the suite reaches none. A test reveals a fault when its call tree in that
//! version calls the faulty API of the faulty service.

use std::collections::BTreeSet;

use rand::seq::SliceRandom;
use rand::Rng;

use super::calltree::{CallGraph, CallTree, Variant};
use super::evolve::{evolve, Edit};
use super::profile::Profile;
use super::sample::{stream, zipf_weights, Purpose};
use super::suite::{plan, TestSpec};
use super::topology::{Api, ApiId, Service, Topology};
use super::SimError;
use crate::record::TestCase;

const FAULTY_CHANCE: f64 = 0.5;
const SECOND_FAULT_CHANCE: f64 = 0.25;
/// Zipf exponent of entry-API popularity: a few entry APIs get most of the traffic.
const ENTRY_ZIPF: f64 = 1.0;

/// An API users call from outside (an API of a gateway service).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryApi {
    pub api: ApiId,
    /// Share of all requests (the shares sum to 1).
    pub popularity: f64,
    /// The dominant variant first.
    pub variants: Vec<Variant>,
}

/// A seeded fault and the tests that reveal it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub id: String,
    pub service: String,
    pub api: String,
    pub revealing_tests: Vec<String>,
}

/// What the requests of one variant exercise in one version.
#[derive(Debug, Clone)]
struct Exercise {
    /// Services in the order they are first called.
    path: Vec<u32>,
    /// APIs called, sorted.
    apis: Vec<ApiId>,
}

/// One version of the system.
#[derive(Debug, Clone)]
pub struct Version {
    pub number: u32,
    /// Services changed since the previous version (none in version 1), sorted by index.
    pub changed: Vec<u32>,
    pub edits: Vec<Edit>,
    pub graph: CallGraph,
    /// `trees[e][v]`: the call tree of variant `v` of entry API `e` in this version.
    pub trees: Vec<Vec<CallTree>>,
    pub faults: Vec<Fault>,
    exercises: Vec<Vec<Exercise>>,
}

#[derive(Debug, Clone)]
pub struct System {
    pub profile: Profile,
    pub seed: u64,
    pub services: Vec<Service>,
    pub apis: Vec<Api>,
    pub entries: Vec<EntryApi>,
    /// The test suite, the same tests in every version.
    pub tests: Vec<TestSpec>,
    /// Versions 1..=n at indices 0..n.
    pub versions: Vec<Version>,
}

impl System {
    /// Generates the system of `profile` for `seed`; the same inputs give the same system.
    pub fn generate(profile: &Profile, seed: u64) -> Result<System, SimError> {
        profile.validate()?;
        let mut rng = stream(seed, Purpose::Topology, 0);
        let mut topology = Topology::generate(profile, &mut rng);
        let first = topology.call_graph(profile.back_edge_rate, &mut rng);

        let mut rng = stream(seed, Purpose::Variants, 0);
        let entry_apis: Vec<ApiId> =
            topology.services.iter().filter(|s| s.tier == 0).flat_map(|s| s.apis.clone()).collect();
        let mut ranks: Vec<usize> = (0..entry_apis.len()).collect();
        ranks.shuffle(&mut rng);
        let weights = zipf_weights(entry_apis.len(), ENTRY_ZIPF);
        let total: f64 = weights.iter().sum();
        let entries: Vec<EntryApi> = entry_apis
            .iter()
            .zip(&ranks)
            .map(|(&api, &rank)| EntryApi { api, popularity: weights[rank] / total, variants: first.variants(api, &mut rng) })
            .collect();

        let evolutions = evolve(&topology, &first, profile.versions, seed);
        let mut versions = vec![Version::new(1, Vec::new(), Vec::new(), first, &entries, &topology.apis)];
        for (number, evolution) in (2..).zip(evolutions) {
            versions.push(Version::new(number, evolution.changed, evolution.edits, evolution.graph, &entries, &topology.apis));
        }

        let popularity: Vec<f64> = entries.iter().map(|e| e.popularity).collect();
        let tests = plan(&popularity, &versions[0].trees, profile.tests, &mut stream(seed, Purpose::Suite, 0));
        let mut system =
            System { profile: profile.clone(), seed, services: topology.services, apis: topology.apis, entries, tests, versions };
        for v in 1..system.versions.len() {
            let faults = system.seed_faults(v, &mut stream(seed, Purpose::Faults, v as u32 + 1));
            system.versions[v].faults = faults;
        }
        Ok(system)
    }

    /// Version `v` (1-based).
    pub fn version(&self, v: u32) -> Result<&Version, SimError> {
        let versions = self.versions.len() as u32;
        v.checked_sub(1).and_then(|i| self.versions.get(i as usize)).ok_or(SimError::NoVersion { version: v, versions })
    }

    pub fn service_of(&self, api: ApiId) -> &Service {
        &self.services[self.apis[api as usize].service as usize]
    }

    /// The test suite as run on version `v`: paths are the services in the order first called.
    pub fn tests(&self, v: u32) -> Result<Vec<TestCase>, SimError> {
        let version = self.version(v)?;
        Ok(self
            .tests
            .iter()
            .map(|t| TestCase {
                id: t.id.clone(),
                path: version.exercise(t).path.iter().map(|&s| self.services[s as usize].name.clone()).collect(),
                time_ms: t.time_ms,
            })
            .collect())
    }

    /// Ground truth: the APIs each test (in suite order) calls in version `v`, sorted.
    pub fn test_apis(&self, v: u32) -> Result<Vec<&[ApiId]>, SimError> {
        let version = self.version(v)?;
        Ok(self.tests.iter().map(|t| version.exercise(t).apis.as_slice()).collect())
    }

    /// Names of the services changed in version `v`.
    pub fn changed_services(&self, v: u32) -> Result<Vec<&str>, SimError> {
        Ok(self.version(v)?.changed.iter().map(|&s| self.services[s as usize].name.as_str()).collect())
    }

    /// The static service dependency graph of version `v`: `(caller, callee)` for every possible
    /// call (required, optional and back-edges), sorted by name.
    pub fn dependencies(&self, v: u32) -> Result<Vec<(&str, &str)>, SimError> {
        let version = self.version(v)?;
        let edges: BTreeSet<(&str, &str)> = (0..self.apis.len() as ApiId)
            .flat_map(|a| {
                let caller = self.service_of(a).name.as_str();
                version.graph.calls(a).iter().map(move |c| (caller, c.target))
            })
            .map(|(caller, target)| (caller, self.service_of(target).name.as_str()))
            .collect();
        Ok(edges.into_iter().collect())
    }

    /// Draws the faults of the version at index `v` (≥ 1) and their revealing tests.
    fn seed_faults(&self, v: usize, rng: &mut impl Rng) -> Vec<Fault> {
        let version = &self.versions[v];
        let reached: BTreeSet<ApiId> = self.tests.iter().flat_map(|t| version.exercise(t).apis.iter().copied()).collect();
        let testable = |s: u32| self.services[s as usize].apis.clone().any(|a| reached.contains(&a));
        let mut faulty: Vec<u32> = version.changed.iter().copied().filter(|_| rng.random_bool(FAULTY_CHANCE)).collect();
        let candidates: Vec<u32> = version.changed.iter().copied().filter(|&s| testable(s)).collect();
        if !candidates.is_empty() && !faulty.iter().any(|&s| testable(s)) {
            faulty.push(candidates[rng.random_range(0..candidates.len())]);
            faulty.sort_unstable();
        }
        let mut faults = Vec::new();
        for s in faulty {
            let service = &self.services[s as usize];
            let mut apis: Vec<ApiId> = service.apis.clone().filter(|a| reached.contains(a)).collect();
            if apis.is_empty() {
                apis = service.apis.clone().collect();
            }
            let count = (1 + usize::from(rng.random_bool(SECOND_FAULT_CHANCE))).min(apis.len());
            let mut chosen = apis.partial_shuffle(rng, count).0.to_vec();
            chosen.sort_unstable();
            for api in chosen {
                let revealing_tests = self
                    .tests
                    .iter()
                    .filter(|t| version.exercise(t).apis.binary_search(&api).is_ok())
                    .map(|t| t.id.clone())
                    .collect();
                faults.push(Fault {
                    id: format!("v{}-f{}", version.number, faults.len() + 1),
                    service: service.name.clone(),
                    api: self.apis[api as usize].name.clone(),
                    revealing_tests,
                });
            }
        }
        faults
    }
}

impl Version {
    fn new(number: u32, changed: Vec<u32>, edits: Vec<Edit>, graph: CallGraph, entries: &[EntryApi], apis: &[Api]) -> Version {
        let trees: Vec<Vec<CallTree>> =
            entries.iter().map(|e| e.variants.iter().map(|v| graph.expand(e.api, &v.overrides)).collect()).collect();
        let exercises = trees
            .iter()
            .map(|variants| {
                variants
                    .iter()
                    .map(|tree| {
                        let mut path = Vec::new();
                        for node in &tree.nodes {
                            let s = apis[node.api as usize].service;
                            if !path.contains(&s) {
                                path.push(s);
                            }
                        }
                        Exercise { path, apis: tree.apis() }
                    })
                    .collect()
            })
            .collect();
        Version { number, changed, edits, graph, trees, faults: Vec::new(), exercises }
    }

    fn exercise(&self, test: &TestSpec) -> &Exercise {
        &self.exercises[test.entry as usize][test.variant as usize]
    }

    /// The call tree a test follows in this version.
    pub fn test_tree(&self, test: &TestSpec) -> &CallTree {
        &self.trees[test.entry as usize][test.variant as usize]
    }
}
