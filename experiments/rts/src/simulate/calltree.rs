//! The call graph (each API's list of calls) and the call trees requests follow through it.
//!
//! A request to an entry API makes every required call and the optional calls that are on; the
//! calls made recursively form its call tree. A *variant* of an entry API overrides a few optional
//! calls (a cache miss, a coupon applied, a retry or callback along a back-edge); the variant
//! without overrides is the dominant one and carries 70–90% of the entry API's traffic, the others
//! share the rest Zipf-like, as in the Alibaba trace analyses where each online service has a few
//! call-graph topologies with one far more common than the rest.

use rand::seq::SliceRandom;
use rand::Rng;
use serde::Serialize;

use super::sample::{heavy_tail, zipf_weights};
use super::topology::ApiId;

/// Calls deeper than this are not made (a guard: tiers and the loop rule already bound depth).
pub const MAX_DEPTH: u8 = 12;
/// A call tree stops growing at this many spans (a guard against fan-out compounding).
pub const MAX_SPANS: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// Made by every request.
    Required,
    /// Made or not depending on the request; `default_on` is the dominant variant's choice.
    Optional { default_on: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Unique within the system, across versions; variants refer to calls by it.
    pub id: u32,
    pub target: ApiId,
    pub kind: CallKind,
    /// A call up to a shallower service (a loop in the service graph).
    pub back_edge: bool,
}

impl Call {
    /// Whether a request with these overrides (sorted by call id) makes this call.
    fn made(&self, overrides: &[(u32, bool)]) -> bool {
        match self.kind {
            CallKind::Required => true,
            CallKind::Optional { default_on } => match overrides.binary_search_by_key(&self.id, |o| o.0) {
                Ok(i) => overrides[i].1,
                Err(_) => default_on,
            },
        }
    }
}

/// Each API's calls, in the order it makes them.
#[derive(Debug, Clone, PartialEq)]
pub struct CallGraph {
    calls: Vec<Vec<Call>>,
    next_id: u32,
}

/// One call-graph variant of an entry API: its share of the entry API's traffic and the optional
/// calls it flips, as `(call id, made)` sorted by call id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    pub weight: f64,
    pub overrides: Vec<(u32, bool)>,
}

/// One span of a call tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub api: ApiId,
    /// Index of the calling node; `None` for the root.
    pub parent: Option<u32>,
    /// 1 for the root.
    pub depth: u8,
}

/// The calls one request makes, in preorder (the order the calls start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTree {
    pub nodes: Vec<Node>,
}

impl CallTree {
    /// Levels of the tree (1 for a lone root).
    pub fn depth(&self) -> u8 {
        self.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }

    /// The distinct APIs the tree calls, sorted.
    pub fn apis(&self) -> Vec<ApiId> {
        let mut apis: Vec<ApiId> = self.nodes.iter().map(|n| n.api).collect();
        apis.sort_unstable();
        apis.dedup();
        apis
    }
}

impl CallGraph {
    pub fn new(apis: usize) -> CallGraph {
        CallGraph { calls: vec![Vec::new(); apis], next_id: 0 }
    }

    pub fn calls(&self, api: ApiId) -> &[Call] {
        &self.calls[api as usize]
    }

    /// Appends a call from `from` and returns its id.
    pub fn add(&mut self, from: ApiId, target: ApiId, kind: CallKind, back_edge: bool) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.calls[from as usize].push(Call { id, target, kind, back_edge });
        id
    }

    /// Removes the call with this id from `from`'s calls; returns it if it was there.
    pub fn remove(&mut self, from: ApiId, id: u32) -> Option<Call> {
        let calls = &mut self.calls[from as usize];
        let at = calls.iter().position(|c| c.id == id)?;
        Some(calls.remove(at))
    }

    /// The call tree of a request to `entry` with these overrides. A call to an API already on the
    /// path from the root (a loop) is made but not followed further: it shows as one more span, as
    /// a callback does. [`MAX_DEPTH`] and [`MAX_SPANS`] bound the rest.
    pub fn expand(&self, entry: ApiId, overrides: &[(u32, bool)]) -> CallTree {
        let mut nodes = Vec::new();
        let mut path = Vec::new();
        self.visit(entry, None, 1, overrides, &mut path, &mut nodes);
        CallTree { nodes }
    }

    fn visit(&self, api: ApiId, parent: Option<u32>, depth: u8, overrides: &[(u32, bool)], path: &mut Vec<ApiId>, nodes: &mut Vec<Node>) {
        if nodes.len() >= MAX_SPANS {
            return;
        }
        let me = nodes.len() as u32;
        nodes.push(Node { api, parent, depth });
        if depth >= MAX_DEPTH || path.contains(&api) {
            return;
        }
        path.push(api);
        for call in &self.calls[api as usize] {
            if call.made(overrides) {
                self.visit(call.target, Some(me), depth + 1, overrides, path, nodes);
            }
        }
        path.pop();
    }

    /// Draws the variants of `entry`: the dominant one first (no overrides), then others that
    /// each flip one to three optional calls of APIs in the dominant tree, kept only when they
    /// give a tree of their own. Their number is 2 + a heavy tail (at most 10), fewer when the
    /// dominant tree has too few optional calls; an entry API without any has just one.
    pub fn variants(&self, entry: ApiId, rng: &mut impl Rng) -> Vec<Variant> {
        let dominant = self.expand(entry, &[]);
        let mut flippable: Vec<(u32, bool)> = Vec::new();
        for api in dominant.apis() {
            for call in &self.calls[api as usize] {
                if let CallKind::Optional { default_on } = call.kind {
                    flippable.push((call.id, !default_on));
                }
            }
        }
        let wanted = 2 + heavy_tail(rng, 1.0, 8);
        let mut chosen: Vec<Vec<(u32, bool)>> = vec![Vec::new()];
        let mut trees = vec![dominant];
        for _ in 0..4 * wanted {
            if chosen.len() >= wanted || flippable.is_empty() {
                break;
            }
            let flips = (1 + usize::from(rng.random_bool(0.3)) + usize::from(rng.random_bool(0.1))).min(flippable.len());
            let mut overrides: Vec<(u32, bool)> = flippable.partial_shuffle(rng, flips).0.to_vec();
            overrides.sort_unstable();
            let tree = self.expand(entry, &overrides);
            if !trees.contains(&tree) {
                trees.push(tree);
                chosen.push(overrides);
            }
        }
        let dominant_weight = if chosen.len() == 1 { 1.0 } else { rng.random_range(0.7..0.9) };
        let tail = zipf_weights(chosen.len() - 1, 1.0);
        let tail_total: f64 = tail.iter().sum();
        chosen
            .into_iter()
            .enumerate()
            .map(|(i, overrides)| {
                let weight = if i == 0 { dominant_weight } else { (1.0 - dominant_weight) * tail[i - 1] / tail_total };
                Variant { weight, overrides }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample::{stream, Purpose};
    use super::*;

    /// 0 → 1 (required) → 2 (optional, on); 0 → 3 (optional, off); 2 → 0 (back-edge, off).
    fn graph() -> CallGraph {
        let mut g = CallGraph::new(4);
        g.add(0, 1, CallKind::Required, false);
        g.add(1, 2, CallKind::Optional { default_on: true }, false);
        g.add(0, 3, CallKind::Optional { default_on: false }, false);
        g.add(2, 0, CallKind::Optional { default_on: false }, true);
        g
    }

    #[test]
    fn expansion_follows_defaults_and_overrides_in_preorder() {
        let g = graph();
        let apis = |t: &CallTree| t.nodes.iter().map(|n| n.api).collect::<Vec<_>>();
        let dominant = g.expand(0, &[]);
        assert_eq!(apis(&dominant), [0, 1, 2]);
        assert_eq!(dominant.nodes[2], Node { api: 2, parent: Some(1), depth: 3 });
        assert_eq!(apis(&g.expand(0, &[(1, false), (2, true)])), [0, 1, 3]);
        // The back-edge to the root is one more span, not followed further.
        let looped = g.expand(0, &[(3, true)]);
        assert_eq!(apis(&looped), [0, 1, 2, 0]);
        assert_eq!(looped.depth(), 4);
        assert_eq!(looped.apis(), [0, 1, 2]);
    }

    #[test]
    fn variants_differ_and_one_dominates() {
        let g = graph();
        for seed in 0..20 {
            let vs = g.variants(0, &mut stream(seed, Purpose::Variants, 0));
            assert!(vs.len() >= 2);
            assert!(vs[0].overrides.is_empty() && vs[0].weight >= 0.7 && vs[0].weight < 0.9);
            assert!((vs.iter().map(|v| v.weight).sum::<f64>() - 1.0).abs() < 1e-9);
            let trees: Vec<_> = vs.iter().map(|v| g.expand(0, &v.overrides)).collect();
            for (i, t) in trees.iter().enumerate() {
                assert!(!trees[..i].contains(t));
            }
        }
        // Nothing optional: only the dominant variant.
        let mut plain = CallGraph::new(2);
        plain.add(0, 1, CallKind::Required, false);
        let vs = plain.variants(0, &mut stream(0, Purpose::Variants, 0));
        assert_eq!(vs, [Variant { weight: 1.0, overrides: vec![] }]);
    }

    #[test]
    fn span_guard_bounds_a_wide_tree() {
        let mut g = CallGraph::new(40);
        for from in 0..39 {
            for to in from + 1..40 {
                g.add(from, to, CallKind::Required, false);
            }
        }
        assert_eq!(g.expand(0, &[]).nodes.len(), MAX_SPANS);
        assert!(g.expand(0, &[]).depth() <= MAX_DEPTH);
    }
}
