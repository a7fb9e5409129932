//! The shape of one trace: which span called which, the service dependency edges it shows, and
//! its root-to-leaf service paths (the transactions that [`crate::mine`] counts).
//!
//! Everything here works on one trace at a time, with buffers reused from trace to trace, so
//! that mining millions of traces allocates almost nothing per span. Service names are interned
//! to dense `u32` ids ([`Interner`]) because the miner's counters are indexed by them.
//!
//! Rules, in one place:
//! - **Parent**: a span's parent is the span of the same trace whose id equals its `parent_id`.
//!   When several spans share an id, the first one in the trace is the parent
//!   ([`TraceShape::duplicate_ids`] counts the others).
//! - **Orphan**: a span whose `parent_id` names no span of the trace is treated as a root
//!   ([`TraceShape::orphans`] counts them). An empty `parent_id` means a root, not an orphan.
//! - **Cycle**: spans whose parent links loop (a span that is its own ancestor) and everything
//!   below them are not reachable from any root; they are left out of edges and paths and
//!   counted in [`TraceShape::cyclic`], so a malformed trace never makes the walk loop.
//! - **Edge** (the rule): for each span whose parent is in the trace, an edge from the
//!   service of the nearest ancestor with a *different* service to the span's service. Chains of
//!   spans inside one service therefore add no self edges. The CSV log's `caller` column is not
//!   consulted: parent links decide, the same way for every format.
//! - **Path**: each root-to-leaf chain of spans, as services, with consecutive equal services
//!   collapsed into one (`gateway, gateway, order` becomes `gateway, order`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::record::SpanRecord;

/// "No span" / "no service" in the index vectors.
const NONE: u32 = u32::MAX;

/// A small, fast, non-cryptographic hasher (the Fx / rustc hash) for the hot maps keyed by
/// service names, span ids and service pairs. The inputs are trace files, not adversaries
/// choosing keys against a server, so HashDoS resistance is not worth SipHash's cost here.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Hashes a string with [`FxHasher`] (used to sort and look up span ids).
#[inline]
pub fn hash_str(s: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

/// Service names interned to dense ids `0..len()`, in order of first appearance.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    names: Vec<String>,
    ids: FastMap<Box<str>, u32>,
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(NONE - 1);
        self.names.push(name.to_string());
        self.ids.insert(name.into(), id);
        id
    }

    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The name of `id`; empty for an id this interner never gave out.
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Finds spans of one trace by id: `(hash(id), position)` pairs sorted, so a lookup is a binary
/// search plus a string comparison. Reused from trace to trace (no allocation once warm).
#[derive(Debug, Default, Clone)]
pub struct SpanIndex {
    entries: Vec<(u64, u32)>,
}

impl SpanIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Indexes `spans`; returns how many spans repeat an id already used by an earlier span.
    pub fn build(&mut self, spans: &[SpanRecord]) -> usize {
        self.entries.clear();
        self.entries.extend(
            spans
                .iter()
                .enumerate()
                .map(|(i, s)| (hash_str(&s.span_id), i as u32)),
        );
        self.entries.sort_unstable();
        let mut duplicates = 0;
        for (k, &(h, i)) in self.entries.iter().enumerate() {
            // Entries are sorted by (hash, position): a repeat has an equal earlier entry.
            let id = &spans[i as usize].span_id;
            let earlier = self.entries[..k]
                .iter()
                .rev()
                .take_while(|(h2, _)| *h2 == h);
            if earlier
                .into_iter()
                .any(|&(_, j)| spans[j as usize].span_id == *id)
            {
                duplicates += 1;
            }
        }
        duplicates
    }

    /// The position of the first span with id `id`, if any. `spans` must be what was indexed.
    pub fn find(&self, spans: &[SpanRecord], id: &str) -> Option<usize> {
        let h = hash_str(id);
        let start = self.entries.partition_point(|&(eh, _)| eh < h);
        self.entries[start..]
            .iter()
            .take_while(|&&(eh, _)| eh == h)
            .map(|&(_, i)| i as usize)
            .find(|&i| spans.get(i).is_some_and(|s| s.span_id == id))
    }
}

/// The resolved structure of one trace (see the module doc for the rules). Build it with
/// [`TraceShape::analyze`]; reuse the same value for the next trace.
#[derive(Debug, Default, Clone)]
pub struct TraceShape {
    index: SpanIndex,
    service: Vec<u32>,
    parent: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Spans reachable from a root, parents before children (depth-first pre-order).
    order: Vec<u32>,
    stack: Vec<u32>,
    /// Service of the nearest ancestor with a different service, or `NONE`.
    up: Vec<u32>,
    /// Number of leaves below each span (its root-to-leaf paths).
    leaves: Vec<u64>,
    orphans: usize,
    cyclic: usize,
    duplicate_ids: usize,
}

impl TraceShape {
    pub fn new() -> Self {
        Self::default()
    }

    /// Resolves parents, interns services and walks the trace from its roots.
    pub fn analyze(&mut self, spans: &[SpanRecord], services: &mut Interner) {
        let n = spans.len();
        debug_assert!(n < NONE as usize, "trace too large for u32 span positions");
        self.duplicate_ids = self.index.build(spans);
        self.service.clear();
        self.service
            .extend(spans.iter().map(|s| services.intern(&s.service)));
        self.orphans = 0;
        self.parent.clear();
        for s in spans {
            let parent = match s.parent_id.as_deref() {
                None | Some("") => NONE,
                Some(p) => match self.index.find(spans, p) {
                    Some(j) => j as u32,
                    None => {
                        self.orphans += 1;
                        NONE
                    }
                },
            };
            self.parent.push(parent);
        }
        self.build_children(n);
        self.walk(n);
    }

    /// Children lists in compressed form: the children of `i` are
    /// `children[child_start[i]..child_start[i + 1]]`, in span order.
    fn build_children(&mut self, n: usize) {
        self.child_start.clear();
        self.child_start.resize(n + 1, 0);
        for &p in &self.parent {
            if p != NONE {
                self.child_start[p as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.child_start[i + 1] += self.child_start[i];
        }
        self.children.clear();
        self.children.resize(self.child_start[n] as usize, 0);
        // `stack` doubles as the fill cursor per parent.
        self.stack.clear();
        self.stack.extend_from_slice(&self.child_start[..n]);
        for (i, &p) in self.parent.iter().enumerate() {
            if p != NONE {
                let slot = &mut self.stack[p as usize];
                self.children[*slot as usize] = i as u32;
                *slot += 1;
            }
        }
    }

    /// Depth-first walk from the roots; fills `order`, `up` and `leaves`. Iterative, so a very
    /// deep trace cannot overflow the call stack; spans on or below a parent cycle are never
    /// reached and end up counted in `cyclic`.
    fn walk(&mut self, n: usize) {
        self.order.clear();
        self.up.clear();
        self.up.resize(n, NONE);
        self.stack.clear();
        for root in (0..n).rev().filter(|&i| self.parent[i] == NONE) {
            self.stack.push(root as u32);
        }
        while let Some(node) = self.stack.pop() {
            self.order.push(node);
            let node = node as usize;
            let (from, to) = (
                self.child_start[node] as usize,
                self.child_start[node + 1] as usize,
            );
            for k in (from..to).rev() {
                let child = self.children[k];
                let c = child as usize;
                self.up[c] = if self.service[c] != self.service[node] {
                    self.service[node]
                } else {
                    self.up[node]
                };
                self.stack.push(child);
            }
        }
        self.cyclic = n - self.order.len();
        self.leaves.clear();
        self.leaves.resize(n, 0);
        for &node in self.order.iter().rev() {
            let node = node as usize;
            if self.leaves[node] == 0 {
                self.leaves[node] = 1;
            }
            let p = self.parent[node];
            if p != NONE {
                self.leaves[p as usize] += self.leaves[node];
            }
        }
    }

    /// Spans whose `parent_id` named no span of the trace (treated as roots).
    pub fn orphans(&self) -> usize {
        self.orphans
    }

    /// Spans on or below a cycle of parent links (left out of edges and paths).
    pub fn cyclic(&self) -> usize {
        self.cyclic
    }

    /// Spans repeating the id of an earlier span of the trace.
    pub fn duplicate_ids(&self) -> usize {
        self.duplicate_ids
    }

    /// The interned service of each span, in span order.
    pub fn services(&self) -> &[u32] {
        &self.service
    }

    /// The edges of the edge rule, one per span that has one: `(caller service, callee service)`.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.order
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| self.up[i] != NONE)
            .map(|i| (self.up[i], self.service[i]))
    }

    /// Each reachable span that starts a run of its service on the paths through it (a root, or
    /// a span whose parent has another service), with the number of root-to-leaf paths through
    /// it. Summed per service this is the service's support (see [`crate::mine`]).
    pub fn path_items(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.order
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| self.starts_run(i))
            .map(|i| (self.service[i], self.leaves[i]))
    }

    /// Each parent→child step between different services with the number of root-to-leaf paths
    /// through it: the occurrences of the two-service sub-path in the collapsed paths.
    pub fn path_pairs(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.order.iter().map(|&i| i as usize).filter_map(move |i| {
            let p = self.parent[i];
            (p != NONE && self.service[p as usize] != self.service[i])
                .then(|| (self.service[p as usize], self.service[i], self.leaves[i]))
        })
    }

    /// The number of root-to-leaf paths (transactions) of the trace.
    pub fn path_count(&self) -> u64 {
        self.order
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| self.parent[i] == NONE)
            .map(|i| self.leaves[i])
            .sum()
    }

    fn starts_run(&self, i: usize) -> bool {
        let p = self.parent[i];
        p == NONE || self.service[p as usize] != self.service[i]
    }

    /// The collapsed root-to-leaf service paths, roots in span order. Materialises every path,
    /// so it is meant for inspection and tests; the miner uses the counts above instead.
    pub fn paths(&self) -> Vec<Vec<u32>> {
        let mut paths = Vec::new();
        let mut current: Vec<u32> = Vec::new();
        // (span, length of `current` before the span was added)
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for &root in self
            .order
            .iter()
            .filter(|&&i| self.parent[i as usize] == NONE)
            .rev()
        {
            stack.push((root, 0));
        }
        while let Some((node, depth)) = stack.pop() {
            let node = node as usize;
            current.truncate(depth);
            if current.last() != Some(&self.service[node]) {
                current.push(self.service[node]);
            }
            let (from, to) = (
                self.child_start[node] as usize,
                self.child_start[node + 1] as usize,
            );
            if from == to {
                paths.push(current.clone());
            }
            let len = current.len();
            for k in (from..to).rev() {
                stack.push((self.children[k], len));
            }
        }
        paths
    }
}

/// One trace's edges and paths by service name: the readable form of [`TraceShape`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TraceSummary {
    /// One `(caller, callee)` per span with an edge, in depth-first order.
    pub edges: Vec<(String, String)>,
    pub paths: Vec<Vec<String>>,
    pub orphans: usize,
    pub cyclic: usize,
    pub duplicate_ids: usize,
}

/// Analyzes one trace by name (allocates; for inspection, tests and small inputs).
pub fn summarize(spans: &[SpanRecord]) -> TraceSummary {
    let mut services = Interner::new();
    let mut shape = TraceShape::new();
    shape.analyze(spans, &mut services);
    let name = |id: u32| services.name(id).to_string();
    TraceSummary {
        edges: shape.edges().map(|(a, b)| (name(a), name(b))).collect(),
        paths: shape
            .paths()
            .into_iter()
            .map(|p| p.into_iter().map(name).collect())
            .collect(),
        orphans: shape.orphans(),
        cyclic: shape.cyclic(),
        duplicate_ids: shape.duplicate_ids(),
    }
}

#[cfg(test)]
pub(crate) fn span(trace: &str, id: &str, parent: Option<&str>, service: &str) -> SpanRecord {
    SpanRecord {
        trace_id: trace.into(),
        span_id: id.into(),
        parent_id: parent.map(Into::into),
        service: service.into(),
        operation: String::new(),
        caller: None,
        timestamp_us: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn paths(v: &[&[&str]]) -> Vec<Vec<String>> {
        v.iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn edges_skip_same_service_chains_and_paths_collapse_them() {
        // gw(1) -> gw(2) -> a(3) -> a(4) -> b(5); gw(1) -> c(6). Child 3 arrives before its parent.
        let spans = vec![
            span("t", "3", Some("2"), "a"),
            span("t", "1", None, "gw"),
            span("t", "2", Some("1"), "gw"),
            span("t", "4", Some("3"), "a"),
            span("t", "5", Some("4"), "b"),
            span("t", "6", Some("1"), "c"),
        ];
        let s = summarize(&spans);
        assert_eq!(
            s.edges,
            pairs(&[("gw", "a"), ("gw", "a"), ("a", "b"), ("gw", "c")])
        );
        assert_eq!(s.paths, paths(&[&["gw", "a", "b"], &["gw", "c"]]));
        assert_eq!((s.orphans, s.cyclic, s.duplicate_ids), (0, 0, 0));
    }

    #[test]
    fn nearest_different_ancestor_skips_back_to_the_caller() {
        // a -> b -> b : both b spans get an edge from a; a -> b -> a is a loop back to a.
        let spans = vec![
            span("t", "1", None, "a"),
            span("t", "2", Some("1"), "b"),
            span("t", "3", Some("2"), "b"),
            span("t", "4", Some("3"), "a"),
        ];
        let s = summarize(&spans);
        assert_eq!(s.edges, pairs(&[("a", "b"), ("a", "b"), ("b", "a")]));
        assert_eq!(s.paths, paths(&[&["a", "b", "a"]]));
    }

    #[test]
    fn orphans_become_roots_and_cycles_are_counted_not_followed() {
        let spans = vec![
            span("t", "1", None, "a"),
            span("t", "2", Some("missing"), "b"),
            span("t", "3", Some("2"), "c"),
            // 4 <-> 5 is a cycle; 6 hangs below it; 7 is its own parent.
            span("t", "4", Some("5"), "d"),
            span("t", "5", Some("4"), "e"),
            span("t", "6", Some("5"), "f"),
            span("t", "7", Some("7"), "g"),
        ];
        let s = summarize(&spans);
        assert_eq!(s.orphans, 1);
        assert_eq!(s.cyclic, 4);
        assert_eq!(s.edges, pairs(&[("b", "c")]));
        assert_eq!(s.paths, paths(&[&["a"], &["b", "c"]]));
    }

    #[test]
    fn duplicate_ids_resolve_to_the_first_span() {
        let spans = vec![
            span("t", "1", None, "a"),
            span("t", "1", None, "z"),
            span("t", "2", Some("1"), "b"),
        ];
        let s = summarize(&spans);
        assert_eq!(s.duplicate_ids, 1);
        assert_eq!(s.edges, pairs(&[("a", "b")]));
        assert_eq!(s.paths, paths(&[&["a", "b"], &["z"]]));
    }

    #[test]
    fn path_counts_match_materialised_paths() {
        let spans = vec![
            span("t", "1", None, "gw"),
            span("t", "2", Some("1"), "a"),
            span("t", "3", Some("2"), "b"),
            span("t", "4", Some("2"), "c"),
            span("t", "5", Some("1"), "a"),
        ];
        let mut services = Interner::new();
        let mut shape = TraceShape::new();
        shape.analyze(&spans, &mut services);
        assert_eq!(shape.path_count(), 3);
        let mut items: FastMap<u32, u64> = FastMap::default();
        for (s, n) in shape.path_items() {
            *items.entry(s).or_default() += n;
        }
        let gw = services.get("gw").unwrap();
        let a = services.get("a").unwrap();
        assert_eq!(items[&gw], 3);
        assert_eq!(items[&a], 3);
        let ab: u64 = shape
            .path_pairs()
            .filter(|&(x, y, _)| (x, y) == (gw, a))
            .map(|(_, _, n)| n)
            .sum();
        assert_eq!(ab, 3);
    }

    #[test]
    fn deep_chain_does_not_overflow_the_stack() {
        let n = 200_000;
        let spans: Vec<_> = (0..n)
            .map(|i| {
                let parent = (i > 0).then(|| (i - 1).to_string());
                span(
                    "t",
                    &i.to_string(),
                    parent.as_deref(),
                    if i % 2 == 0 { "a" } else { "b" },
                )
            })
            .collect();
        let mut services = Interner::new();
        let mut shape = TraceShape::new();
        shape.analyze(&spans, &mut services);
        assert_eq!(shape.edges().count(), n - 1);
        assert_eq!(shape.path_count(), 1);
    }
}
