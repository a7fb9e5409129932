//! Change impact propagation: steps 2 and 3 of MRTS-BP (max-product belief propagation over the
//! SDM, giving the change impact table).
//!
//! Changed services start with impact 1, every other service with 0. Along an edge `i→j` of
//! weight `w_ij` the message is `m_ij = w_ij · p(i)`, and `p(j) = max(p(j), max_i m_ij)` until no
//! value changes. With weights in `[0, 1]` a message is never larger than its sender, so the
//! fixed point is, for every service, the largest product of weights over a path from a changed
//! service (a "most reliable path" problem) and cycles cannot raise it. Two implementations:
//! - [`max_product_exact`]: a Dijkstra-like search settling services in decreasing impact,
//!   `O(E log V)`;
//! - [`max_product_iterative`]: the plain synchronous iteration as the paper states it, kept as
//!   the reference the property tests compare the exact one against.
//!
//! [`Direction`] chooses whether impact flows along SDM edges (caller→callee, as the group's CIPC
//! paper does) or against them (callee→caller: a changed service may break its callers).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use crate::mine::Sdm;

/// Which way impact flows over an SDM edge `caller→callee` of weight `w`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// From the caller to the callee (CIPC's choice).
    #[default]
    Forward,
    /// From the callee to its callers, with the same weight `w`.
    Backward,
}

impl std::str::FromStr for Direction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "forward" => Ok(Direction::Forward),
            "backward" => Ok(Direction::Backward),
            _ => Err(format!(
                "unknown direction `{s}` (expected forward or backward)"
            )),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PropagateError {
    #[error("edge {from}->{to}: weight {weight} is outside [0, 1]")]
    Weight { from: usize, to: usize, weight: f64 },
    #[error("edge {from}->{to}: node out of range (graph has {nodes} nodes)")]
    Node {
        from: usize,
        to: usize,
        nodes: usize,
    },
}

/// A directed graph with weights in `[0, 1]`, as adjacency lists.
#[derive(Debug, Clone, Default)]
pub struct ImpactGraph {
    out: Vec<Vec<(u32, f64)>>,
}

impl ImpactGraph {
    pub fn new(nodes: usize) -> Self {
        ImpactGraph {
            out: vec![Vec::new(); nodes],
        }
    }

    /// Adds `from→to`; weights outside `[0, 1]` (or NaN) are refused because they would break
    /// both convergence and the exact search.
    pub fn add_edge(&mut self, from: usize, to: usize, weight: f64) -> Result<(), PropagateError> {
        if !(0.0..=1.0).contains(&weight) {
            return Err(PropagateError::Weight { from, to, weight });
        }
        let nodes = self.out.len();
        if from >= nodes || to >= nodes {
            return Err(PropagateError::Node { from, to, nodes });
        }
        self.out[from].push((to as u32, weight));
        Ok(())
    }

    /// The SDM's edges, oriented by `direction`.
    pub fn from_sdm(sdm: &Sdm, direction: Direction) -> Self {
        let mut g = ImpactGraph::new(sdm.services().len());
        for (i, j, w) in sdm.entries() {
            let (from, to) = match direction {
                Direction::Forward => (i, j),
                Direction::Backward => (j, i),
            };
            // SDM weights are ratios of supports with supp(i→j) ≤ supp(i): always in [0, 1].
            g.out[from].push((to as u32, w.clamp(0.0, 1.0)));
        }
        g
    }

    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }
}

/// Heap entry ordered by impact (total order on f64; impacts are never NaN here).
#[derive(PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .total_cmp(&other.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

/// The max-product fixed point by a Dijkstra-like search: the service with the largest tentative
/// impact is final (no message can exceed it, as weights are ≤ 1), so it is settled and sends its
/// messages once. Seeds out of range are ignored.
pub fn max_product_exact(graph: &ImpactGraph, seeds: &[usize]) -> Vec<f64> {
    let n = graph.len();
    let mut p = vec![0.0; n];
    let mut settled = vec![false; n];
    let mut heap = BinaryHeap::new();
    for &s in seeds.iter().filter(|&&s| s < n) {
        p[s] = 1.0;
        heap.push(Entry(1.0, s as u32));
    }
    while let Some(Entry(value, i)) = heap.pop() {
        let i = i as usize;
        if settled[i] || value < p[i] {
            continue;
        }
        settled[i] = true;
        for &(j, w) in &graph.out[i] {
            let j = j as usize;
            let m = w * value;
            if !settled[j] && m > p[j] {
                p[j] = m;
                heap.push(Entry(m, j as u32));
            }
        }
    }
    p
}

/// The paper's iteration: every round each service sends `w · p` along its edges and keeps the
/// largest message received; stops when a round changes nothing. A best path is simple, so at
/// most `n` rounds change anything; the loop is capped at `n + 1` rounds regardless.
pub fn max_product_iterative(graph: &ImpactGraph, seeds: &[usize]) -> Vec<f64> {
    let n = graph.len();
    let mut p = vec![0.0; n];
    for &s in seeds.iter().filter(|&&s| s < n) {
        p[s] = 1.0;
    }
    for _ in 0..=n {
        let mut next = p.clone();
        for (i, edges) in graph.out.iter().enumerate() {
            for &(j, w) in edges {
                let m = w * p[i];
                if m > next[j as usize] {
                    next[j as usize] = m;
                }
            }
        }
        if next == p {
            break;
        }
        p = next;
    }
    p
}

/// The change impact table: impact per service. Covers every service of the SDM plus changed
/// services the traces never showed (impact 1, nothing to propagate to).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeImpact {
    services: Vec<String>,
    impact: Vec<f64>,
    index: HashMap<String, usize>,
}

impl ChangeImpact {
    /// The impact of `service`; 0 for a service the table does not know.
    pub fn get(&self, service: &str) -> f64 {
        self.index.get(service).map_or(0.0, |&i| self.impact[i])
    }

    /// `(service, impact)` for every service in the table, in SDM order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.services
            .iter()
            .map(String::as_str)
            .zip(self.impact.iter().copied())
    }

    /// The smallest non-zero impact: the default selection threshold `p`.
    pub fn min_nonzero(&self) -> Option<f64> {
        self.impact
            .iter()
            .copied()
            .filter(|&v| v > 0.0)
            .min_by(f64::total_cmp)
    }

    /// Services with non-zero impact, largest first (ties by name).
    pub fn table(&self) -> Vec<(String, f64)> {
        let mut v: Vec<_> = self
            .iter()
            .filter(|&(_, p)| p > 0.0)
            .map(|(s, p)| (s.to_string(), p))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    }

    pub fn len(&self) -> usize {
        self.services.len()
    }

    pub fn is_empty(&self) -> bool {
        self.services.is_empty()
    }
}

/// Propagates the impact of `changed` over the SDM (exact fixed point) into a change impact table.
pub fn change_impact<S: AsRef<str>>(
    sdm: &Sdm,
    changed: &[S],
    direction: Direction,
) -> ChangeImpact {
    let graph = ImpactGraph::from_sdm(sdm, direction);
    let seeds: Vec<usize> = changed
        .iter()
        .filter_map(|c| sdm.index_of(c.as_ref()))
        .collect();
    let impact = max_product_exact(&graph, &seeds);
    let mut services = sdm.services().to_vec();
    let mut impact = impact;
    let mut index: HashMap<String, usize> = services
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), i))
        .collect();
    for c in changed {
        let c = c.as_ref();
        if !index.contains_key(c) {
            index.insert(c.to_string(), services.len());
            services.push(c.to_string());
            impact.push(1.0);
        }
    }
    ChangeImpact {
        services,
        impact,
        index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mine::{mine, tests::four_service_traces, Threshold};

    #[test]
    fn hand_computed_impacts_on_the_four_service_example() {
        // SDM: g→a 0.8, g→c 0.2, a→b 0.75, a→c 0.25 (see mine::tests).
        let sdm = mine(four_service_traces()).sdm(Threshold::Absolute(0.0));
        let cit = change_impact(&sdm, &["a"], Direction::Forward);
        assert_eq!(
            [cit.get("g"), cit.get("a"), cit.get("b"), cit.get("c")],
            [0.0, 1.0, 0.75, 0.25]
        );
        // From g: b = 0.8·0.75 = 0.6; c = max(0.2, 0.8·0.25 = 0.2) = 0.2.
        let cit = change_impact(&sdm, &["g"], Direction::Forward);
        assert_eq!(
            [cit.get("a"), cit.get("b"), cit.get("c")],
            [0.8, 0.8 * 0.75, 0.2]
        );
        // Backward from c: a = 0.25, g = max(0.2, 0.8·0.25) = 0.2.
        let cit = change_impact(&sdm, &["c"], Direction::Backward);
        assert_eq!(
            [cit.get("g"), cit.get("a"), cit.get("b"), cit.get("c")],
            [0.2, 0.25, 0.0, 1.0]
        );
        assert_eq!(cit.min_nonzero(), Some(0.2));
        assert_eq!(cit.table()[0], ("c".to_string(), 1.0));
    }

    #[test]
    fn unknown_changed_services_are_in_the_table() {
        let sdm = mine(four_service_traces()).sdm(Threshold::Absolute(0.0));
        let cit = change_impact(&sdm, &["new-service"], Direction::Forward);
        assert_eq!(cit.get("new-service"), 1.0);
        assert_eq!(cit.get("g"), 0.0);
        assert_eq!(cit.len(), 5);
    }

    #[test]
    fn cycles_converge() {
        let mut g = ImpactGraph::new(3);
        g.add_edge(0, 1, 1.0).unwrap();
        g.add_edge(1, 0, 1.0).unwrap();
        g.add_edge(1, 2, 0.5).unwrap();
        g.add_edge(2, 1, 0.9).unwrap();
        assert_eq!(max_product_iterative(&g, &[0]), vec![1.0, 1.0, 0.5]);
        assert_eq!(max_product_exact(&g, &[0]), vec![1.0, 1.0, 0.5]);
        assert!(g.add_edge(0, 1, 1.5).is_err());
        assert!(g.add_edge(0, 1, f64::NAN).is_err());
        assert!(g.add_edge(0, 7, 0.5).is_err());
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn graph() -> impl Strategy<Value = (ImpactGraph, Vec<usize>)> {
            (1usize..12)
                .prop_flat_map(|n| {
                    let weight = prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64];
                    (
                        Just(n),
                        prop::collection::vec((0..n, 0..n, weight), 0..40),
                        prop::collection::vec(0..n, 0..4),
                    )
                })
                .prop_map(|(n, edges, seeds)| {
                    let mut g = ImpactGraph::new(n);
                    for (a, b, w) in edges {
                        g.add_edge(a, b, w).unwrap();
                    }
                    (g, seeds)
                })
        }

        proptest! {
            #[test]
            fn exact_equals_iteration((g, seeds) in graph()) {
                let exact = max_product_exact(&g, &seeds);
                let iter = max_product_iterative(&g, &seeds);
                prop_assert_eq!(&exact, &iter);
                // The result is a fixed point: no message exceeds the receiver's impact.
                for (i, edges) in g.out.iter().enumerate() {
                    for &(j, w) in edges {
                        prop_assert!(w * exact[i] <= exact[j as usize]);
                    }
                }
                for &s in &seeds {
                    prop_assert_eq!(exact[s], 1.0);
                }
            }
        }
    }
}
