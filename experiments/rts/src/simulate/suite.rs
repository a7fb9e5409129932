//! The regression test suite: each test sends one request to one entry API with parameters that
//! make it take one call-graph variant, so its path is that variant's call tree.
//!
//! Every entry API gets a test (while tests last, most popular first); the other tests go to entry
//! APIs in proportion to the square root of their popularity (suites are less skewed than
//! traffic). A test takes the dominant variant with probability 0.55, otherwise one of the others
//! uniformly. Execution times are log-normal: median 120 ms + 15 ms per span of the test's tree in
//! version 1, σ = 0.6 — so bigger requests take longer, with a long tail. The suite is planned
//! once: a test keeps its id, entry API, variant and time in every version, and its path changes
//! only where the version changed the calls along it.

use rand::Rng;

use super::calltree::CallTree;
use super::sample::{normal, Weighted};

const DOMINANT_SHARE: f64 = 0.55;
const MEDIAN_BASE_MS: f64 = 120.0;
const MEDIAN_PER_SPAN_MS: f64 = 15.0;
const SIGMA: f64 = 0.6;

/// One planned test.
#[derive(Debug, Clone, PartialEq)]
pub struct TestSpec {
    pub id: String,
    /// Index into the system's entry APIs.
    pub entry: u32,
    /// Index into that entry API's variants.
    pub variant: u32,
    pub time_ms: f64,
}

/// Plans `count` tests over entry APIs with these popularities, where `trees[e][v]` is version
/// 1's tree of variant `v` of entry API `e`. Ids are `t` + a zero-padded number, in order of entry
/// API and variant.
pub fn plan(popularity: &[f64], trees: &[Vec<CallTree>], count: usize, rng: &mut impl Rng) -> Vec<TestSpec> {
    let mut by_popularity: Vec<usize> = (0..popularity.len()).collect();
    by_popularity.sort_by(|&a, &b| popularity[b].total_cmp(&popularity[a]).then(a.cmp(&b)));
    let roots: Vec<f64> = popularity.iter().map(|p| p.sqrt()).collect();
    let Some(weighted) = Weighted::new(&roots) else {
        return Vec::new();
    };
    let mut picks: Vec<(u32, u32, f64)> = (0..count)
        .map(|i| {
            let entry = by_popularity.get(i).copied().unwrap_or_else(|| weighted.sample(rng));
            let variants = trees[entry].len();
            let variant = if variants > 1 && !rng.random_bool(DOMINANT_SHARE) { rng.random_range(1..variants) } else { 0 };
            let spans = trees[entry][variant].nodes.len() as f64;
            let median = MEDIAN_BASE_MS + MEDIAN_PER_SPAN_MS * spans;
            let time_ms = (median * (SIGMA * normal(rng)).exp() * 10.0).round() / 10.0;
            (entry as u32, variant as u32, time_ms)
        })
        .collect();
    picks.sort_by_key(|&(entry, variant, _)| (entry, variant));
    let width = count.to_string().len();
    picks
        .into_iter()
        .enumerate()
        .map(|(i, (entry, variant, time_ms))| TestSpec { id: format!("t{:0width$}", i + 1), entry, variant, time_ms })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::calltree::Node;
    use super::super::sample::{stream, Purpose};
    use super::*;

    fn tree(spans: usize) -> CallTree {
        CallTree { nodes: (0..spans).map(|i| Node { api: i as u32, parent: i.checked_sub(1).map(|p| p as u32), depth: i as u8 + 1 }).collect() }
    }

    #[test]
    fn every_entry_gets_a_test_and_ids_are_ordered() {
        let trees = vec![vec![tree(3), tree(4)], vec![tree(10)], vec![tree(2), tree(2), tree(5)]];
        let specs = plan(&[0.2, 0.7, 0.1], &trees, 300, &mut stream(1, Purpose::Suite, 0));
        assert_eq!(specs.len(), 300);
        assert_eq!((specs[0].id.as_str(), specs[299].id.as_str()), ("t001", "t300"));
        for e in 0..3 {
            assert!(specs.iter().any(|s| s.entry == e));
        }
        assert!(specs.windows(2).all(|w| (w[0].entry, w[0].variant) <= (w[1].entry, w[1].variant)));
        let dominant = specs.iter().filter(|s| s.variant == 0 && s.entry != 1).count() as f64;
        let others = specs.iter().filter(|s| s.entry != 1).count() as f64;
        assert!((dominant / others - DOMINANT_SHARE).abs() < 0.15);
        assert!(specs.iter().all(|s| s.time_ms > 0.0 && s.time_ms.is_finite()));
        // Bigger trees take longer (median over many draws).
        let mean = |e: u32| {
            let ts: Vec<f64> = specs.iter().filter(|s| s.entry == e).map(|s| s.time_ms.ln()).collect();
            ts.iter().sum::<f64>() / ts.len() as f64
        };
        assert!(mean(1) > mean(0));
    }

    #[test]
    fn fewer_tests_than_entries_go_to_the_most_popular() {
        let trees = vec![vec![tree(1)]; 4];
        let specs = plan(&[0.1, 0.4, 0.3, 0.2], &trees, 2, &mut stream(1, Purpose::Suite, 0));
        assert_eq!(specs.iter().map(|s| s.entry).collect::<Vec<_>>(), [1, 2]);
        assert!(plan(&[], &[], 5, &mut stream(1, Purpose::Suite, 0)).is_empty());
    }
}
