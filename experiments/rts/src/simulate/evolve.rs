//! Versions: each version v ≥ 2 changes a few services of version v − 1.
//!
//! A version changes 1–5% of the services (uniform share per version, at least one service), drawn
//! uniformly. A changed service's code may also change who it calls: with probability 0.3 one of
//! its APIs gains a call to a deeper service (required, or optional and on by default, so the
//! dominant variants that pass through it change), and with probability 0.15 one of its APIs drops
//! a forward call. Nothing else changes: unchanged services keep their calls, so tests that avoid
//! changed services keep their paths.

use rand::seq::SliceRandom;
use rand::Rng;
use serde::Serialize;

use super::calltree::{CallGraph, CallKind};
use super::sample::{stream, Purpose};
use super::topology::{ApiId, Topology, MAX_TIER};

const CHANGED_SHARE: std::ops::Range<f64> = 0.01..0.05;
const ADD_CALL_CHANCE: f64 = 0.3;
const DROP_CALL_CHANCE: f64 = 0.15;

/// A change to the call graph made by a changed service.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "edit")]
pub enum Edit {
    Added { from: ApiId, to: ApiId, call: u32 },
    Dropped { from: ApiId, to: ApiId, call: u32 },
}

/// What one version changes relative to the one before.
#[derive(Debug, Clone)]
pub struct Evolution {
    /// Changed services, sorted by index.
    pub changed: Vec<u32>,
    pub edits: Vec<Edit>,
    /// The call graph after the edits.
    pub graph: CallGraph,
}

/// Versions 2..=versions, each from the one before, starting at `first` (version 1's graph).
pub fn evolve(topology: &Topology, first: &CallGraph, versions: u32, seed: u64) -> Vec<Evolution> {
    let mut graph = first.clone();
    (2..=versions)
        .map(|v| {
            let evolution = next_version(topology, &graph, &mut stream(seed, Purpose::Evolve, v));
            graph = evolution.graph.clone();
            evolution
        })
        .collect()
}

fn next_version(topology: &Topology, previous: &CallGraph, rng: &mut impl Rng) -> Evolution {
    let n = topology.services.len();
    let share = rng.random_range(CHANGED_SHARE);
    let count = ((share * n as f64).round() as usize).clamp(1, n);
    let mut all: Vec<u32> = (0..n as u32).collect();
    let mut changed = all.partial_shuffle(rng, count).0.to_vec();
    changed.sort_unstable();

    let mut graph = previous.clone();
    let mut edits = Vec::new();
    for &s in &changed {
        let service = &topology.services[s as usize];
        let apis: Vec<ApiId> = service.apis.clone().collect();
        if service.tier < MAX_TIER && rng.random_bool(ADD_CALL_CHANCE) {
            let from = apis[rng.random_range(0..apis.len())];
            let target = topology.pick_callee(rng, service.tier);
            if let Some(to) = target.filter(|t| !graph.calls(from).iter().any(|c| c.target == *t)) {
                let kind = if rng.random_bool(0.5) { CallKind::Required } else { CallKind::Optional { default_on: true } };
                let call = graph.add(from, to, kind, false);
                edits.push(Edit::Added { from, to, call });
            }
        }
        if rng.random_bool(DROP_CALL_CHANCE) {
            let forward: Vec<(ApiId, u32, ApiId)> = apis
                .iter()
                .flat_map(|&a| graph.calls(a).iter().filter(|c| !c.back_edge).map(move |c| (a, c.id, c.target)))
                .collect();
            if !forward.is_empty() {
                let (from, call, to) = forward[rng.random_range(0..forward.len())];
                graph.remove(from, call);
                edits.push(Edit::Dropped { from, to, call });
            }
        }
    }
    Evolution { changed, edits, graph }
}

#[cfg(test)]
mod tests {
    use super::super::profile::Profile;
    use super::*;

    #[test]
    fn versions_change_a_few_services_and_only_their_calls() {
        let mut topology = Topology::generate(&Profile::custom("t", 200, 0, 1, 0), &mut stream(4, Purpose::Topology, 0));
        let first = topology.call_graph(0.04, &mut stream(4, Purpose::Topology, 1));
        let versions = evolve(&topology, &first, 12, 4);
        assert_eq!(versions.len(), 11);
        let mut previous = &first;
        let mut edited = 0;
        for evolution in &versions {
            assert!((2..=10).contains(&evolution.changed.len()), "{}", evolution.changed.len());
            for api in 0..topology.apis.len() as ApiId {
                let owner = topology.apis[api as usize].service;
                if !evolution.changed.contains(&owner) {
                    assert_eq!(evolution.graph.calls(api), previous.calls(api));
                }
            }
            edited += evolution.edits.len();
            previous = &evolution.graph;
        }
        assert!(edited > 0);
        // One service: it is the one that changes.
        let mut tiny = Topology::generate(&Profile::custom("t", 1, 0, 1, 0), &mut stream(0, Purpose::Topology, 0));
        let g = tiny.call_graph(0.0, &mut stream(0, Purpose::Topology, 1));
        assert_eq!(evolve(&tiny, &g, 2, 0)[0].changed, [0]);
    }
}
