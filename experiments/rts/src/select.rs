//! Test selection: step 4 of MRTS-BP, the two baselines, and [`run`], the whole pipeline from
//! traces to selected tests.
//!
//! A service on a test's path *counts as impacted* when its impact is `≥ p` and `> 0` (so
//! `p ≤ 0` means "any non-zero impact", never "every service"). Paths are compared as sets of
//! distinct services. A test with an empty path exercises no service and is never selected by
//! MRTS-BP or the static baseline (retest-all selects it).
//! - [`Strategy::Existent`]: at least one service of the path is impacted.
//! - [`Strategy::Complete`]: every service of the path is impacted.
//! - [`Strategy::KExistent`]`(k)`: at least `k` services are impacted, or all of them when the path
//!   has fewer than `k`; so `Complete ⊆ KExistent(k) ⊆ Existent`, and `k = 0` or `1` is `Existent`.

use std::collections::{HashMap, HashSet};

use crate::mine::{Miner, Supports, Threshold};
use crate::propagate::{change_impact, ChangeImpact, Direction};
use crate::record::{SpanRecord, TestCase};

/// How many services of a test's path must be impacted for the test to be selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    #[default]
    Existent,
    Complete,
    KExistent(usize),
}

impl Strategy {
    /// Parses the CLI's names `existent`, `complete` and `k-existent` (which takes `k`), and
    /// `2-existent`, `3-existent`, ... with k in the name (the study's bar-chart labels).
    pub fn parse(name: &str, k: usize) -> Result<Strategy, String> {
        match name {
            "existent" => Ok(Strategy::Existent),
            "complete" => Ok(Strategy::Complete),
            "k-existent" => Ok(Strategy::KExistent(k)),
            _ => match name.strip_suffix("-existent").map(str::parse::<usize>) {
                Some(Ok(k)) if k >= 1 => Ok(Strategy::KExistent(k)),
                _ => Err(format!(
                    "unknown strategy `{name}` (expected existent, complete, k-existent or N-existent such as 2-existent)"
                )),
            },
        }
    }

    /// The name [`Strategy::parse`] reads back (`k-existent` as `3-existent`).
    pub fn name(self) -> String {
        match self {
            Strategy::Existent => "existent".into(),
            Strategy::Complete => "complete".into(),
            Strategy::KExistent(k) => format!("{k}-existent"),
        }
    }

    /// The number of impacted services needed on a path of `distinct` services.
    fn needed(self, distinct: usize) -> usize {
        match self {
            Strategy::Existent => 1,
            Strategy::Complete => distinct,
            Strategy::KExistent(k) => k.clamp(1, distinct.max(1)),
        }
    }
}

/// Whether a test with this path is selected, given impacts and threshold `p`.
pub fn satisfies(path: &[String], impact: &ChangeImpact, p: f64, strategy: Strategy) -> bool {
    let distinct: HashSet<&str> = path.iter().map(String::as_str).collect();
    if distinct.is_empty() {
        return false;
    }
    let impacted = distinct
        .iter()
        .filter(|s| {
            let v = impact.get(s);
            v > 0.0 && v >= p
        })
        .count();
    impacted >= strategy.needed(distinct.len())
}

/// MRTS-BP's selection: indices of the tests satisfying `strategy` at threshold `p`, in suite
/// order. `p = None` uses the smallest non-zero impact; with no impact at all nothing is selected.
pub fn select_impacted(
    tests: &[TestCase],
    impact: &ChangeImpact,
    p: Option<f64>,
    strategy: Strategy,
) -> Vec<usize> {
    let Some(p) = p.or_else(|| impact.min_nonzero()) else {
        return Vec::new();
    };
    (0..tests.len())
        .filter(|&i| satisfies(&tests[i].path, impact, p, strategy))
        .collect()
}

/// The retest-all baseline: every test.
pub fn retest_all(tests: &[TestCase]) -> Vec<usize> {
    (0..tests.len()).collect()
}

/// The static dependency graph for the RTS-CFG stand-in: every observed service edge, unweighted.
/// An edge `caller→callee` means the caller *depends on* the callee.
#[derive(Debug, Clone, Default)]
pub struct StaticGraph {
    /// For each callee, its callers.
    callers: HashMap<String, Vec<String>>,
}

impl StaticGraph {
    /// All edges the traces showed (by the edge rule), whatever their support.
    pub fn from_supports(supports: &Supports) -> Self {
        Self::from_edges(
            supports
                .pairs()
                .into_iter()
                .filter(|(_, _, c)| c.calls > 0 || c.support > 0)
                .map(|(a, b, _)| (a, b)),
        )
    }

    pub fn from_edges<'a>(edges: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut callers: HashMap<String, Vec<String>> = HashMap::new();
        for (caller, callee) in edges {
            callers
                .entry(callee.to_string())
                .or_default()
                .push(caller.to_string());
        }
        StaticGraph { callers }
    }

    /// The changed services and every service that depends on one within `depth` caller→callee
    /// edges (`None`: transitively). Breadth-first, so each service gets its shortest distance.
    pub fn affected<S: AsRef<str>>(&self, changed: &[S], depth: Option<usize>) -> HashSet<String> {
        let mut seen: HashSet<String> = changed.iter().map(|s| s.as_ref().to_string()).collect();
        let mut frontier: Vec<String> = seen.iter().cloned().collect();
        let mut level = 0;
        while !frontier.is_empty() && depth.is_none_or(|d| level < d) {
            let mut next = Vec::new();
            for s in &frontier {
                for caller in self.callers.get(s).into_iter().flatten() {
                    if seen.insert(caller.clone()) {
                        next.push(caller.clone());
                    }
                }
            }
            frontier = next;
            level += 1;
        }
        seen
    }
}

/// The static baseline (RTS-CFG stand-in): tests whose path contains a changed service or a
/// service depending on one within `depth` edges. In a system behind one gateway the transitive
/// closure (`None`) reaches the gateway and selects every test, so the studies use depth 1
/// (direct callers: the code that calls the changed interfaces).
pub fn select_static<S: AsRef<str>>(
    tests: &[TestCase],
    graph: &StaticGraph,
    changed: &[S],
    depth: Option<usize>,
) -> Vec<usize> {
    let affected = graph.affected(changed, depth);
    (0..tests.len())
        .filter(|&i| tests[i].path.iter().any(|s| affected.contains(s)))
        .collect()
}

/// Which changed services start the propagation with impact 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Seeds {
    /// Every changed service, frequent or not: a test through a changed service is always
    /// selected by existent satisfaction, whatever `c` (safe; rigor's default).
    #[default]
    All,
    /// Only changed services that are frequent items (`supp(i) >= c`): the frequent-pattern
    /// reading of the paper, where infrequent services drop out of the mined model, so recall
    /// falls as `c` rises (its experiment 1).
    Frequent,
}

impl std::str::FromStr for Seeds {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(Seeds::All),
            "frequent" => Ok(Seeds::Frequent),
            _ => Err(format!("unknown seeds `{s}` (expected all or frequent)")),
        }
    }
}

/// The choices of an MRTS-BP run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Options {
    /// Frequent threshold `c` for the SDM.
    pub threshold: Threshold,
    pub strategy: Strategy,
    /// Impact threshold; `None` = the smallest non-zero impact.
    pub p: Option<f64>,
    pub direction: Direction,
    pub seeds: Seeds,
}

/// What an MRTS-BP run decided.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Indices into the test suite, in suite order.
    pub selected: Vec<usize>,
    /// The threshold actually used (`None` when no service was impacted).
    pub p: Option<f64>,
    pub impact: ChangeImpact,
    /// Non-zero SDM entries at the chosen `c`.
    pub sdm_entries: usize,
}

impl Selection {
    /// The selected tests' ids.
    pub fn ids<'a>(&self, tests: &'a [TestCase]) -> Vec<&'a str> {
        self.selected
            .iter()
            .filter_map(|&i| tests.get(i))
            .map(|t| t.id.as_str())
            .collect()
    }
}

/// Steps 2–3 on already mined supports: the change impact table at `options` (threshold, seeds,
/// direction), and the number of SDM entries it propagated over.
pub fn impact_of<S: AsRef<str>>(supports: &Supports, changed: &[S], options: &Options) -> (ChangeImpact, usize) {
    let sdm = supports.sdm(options.threshold);
    let c = supports.absolute(options.threshold);
    let seeds: Vec<&str> = changed
        .iter()
        .map(AsRef::as_ref)
        .filter(|s| options.seeds == Seeds::All || supports.support(s) as f64 >= c)
        .collect();
    (change_impact(&sdm, &seeds, options.direction), sdm.len())
}

/// Steps 2–4 on already mined supports.
pub fn select_from_supports<S: AsRef<str>>(
    supports: &Supports,
    changed: &[S],
    tests: &[TestCase],
    options: &Options,
) -> Selection {
    let (impact, sdm_entries) = impact_of(supports, changed, options);
    let p = options.p.or_else(|| impact.min_nonzero());
    let selected = select_impacted(tests, &impact, p, options.strategy);
    Selection {
        selected,
        p,
        impact,
        sdm_entries,
    }
}

/// The whole of MRTS-BP: mine the traces (each item one trace's spans), propagate the impact of
/// `changed`, select tests.
pub fn run<T: AsRef<[SpanRecord]>, S: AsRef<str>>(
    traces: impl IntoIterator<Item = T>,
    changed: &[S],
    tests: &[TestCase],
    options: &Options,
) -> Selection {
    let mut miner = Miner::new();
    for t in traces {
        miner.add_trace(t.as_ref());
    }
    select_from_supports(miner.supports(), changed, tests, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mine::tests::four_service_traces;

    fn test(id: &str, path: &[&str]) -> TestCase {
        TestCase {
            id: id.into(),
            path: path.iter().map(|s| s.to_string()).collect(),
            time_ms: 1.0,
        }
    }

    fn suite() -> Vec<TestCase> {
        vec![
            test("t-gab", &["g", "a", "b"]),
            test("t-gc", &["g", "c"]),
            test("t-ab", &["a", "b"]),
            test("t-g", &["g"]),
            test("t-none", &[]),
        ]
    }

    #[test]
    fn strategies_on_the_four_service_example() {
        // Forward from a: a 1, b 0.75, c 0.25, g 0.
        let tests = suite();
        let opts = Options {
            strategy: Strategy::Existent,
            ..Options::default()
        };
        let sel = run(four_service_traces(), &["a"], &tests, &opts);
        assert_eq!(sel.p, Some(0.25));
        assert_eq!(sel.ids(&tests), ["t-gab", "t-gc", "t-ab"]);
        let sel = run(
            four_service_traces(),
            &["a"],
            &tests,
            &Options {
                strategy: Strategy::Complete,
                ..opts
            },
        );
        assert_eq!(sel.ids(&tests), ["t-ab"]);
        let sel = run(
            four_service_traces(),
            &["a"],
            &tests,
            &Options {
                strategy: Strategy::KExistent(2),
                ..opts
            },
        );
        assert_eq!(sel.ids(&tests), ["t-gab", "t-ab"]);
        let sel = run(
            four_service_traces(),
            &["a"],
            &tests,
            &Options {
                p: Some(0.5),
                ..opts
            },
        );
        assert_eq!(sel.ids(&tests), ["t-gab", "t-ab"]);
        // p = 0 still needs a non-zero impact.
        let sel = run(
            four_service_traces(),
            &["a"],
            &tests,
            &Options {
                p: Some(0.0),
                ..opts
            },
        );
        assert_eq!(sel.ids(&tests), ["t-gab", "t-gc", "t-ab"]);
        // Backward from b: a 0.75, g 0.6; c 0.
        let sel = run(
            four_service_traces(),
            &["b"],
            &tests,
            &Options {
                direction: Direction::Backward,
                ..opts
            },
        );
        assert_eq!(sel.ids(&tests), ["t-gab", "t-gc", "t-ab", "t-g"]);
        // No change, nothing selected.
        let sel = run(four_service_traces(), &[] as &[&str], &tests, &opts);
        assert!(sel.selected.is_empty());
        assert_eq!(sel.p, None);
    }

    #[test]
    fn static_baseline_selects_dependents() {
        let tests = suite();
        let supports = crate::mine::mine(four_service_traces());
        let graph = StaticGraph::from_supports(&supports);
        // b is called by a, a by g: all three are affected; c is not.
        let affected = graph.affected(&["b"], None);
        assert_eq!(
            affected,
            ["a", "b", "g"].iter().map(|s| s.to_string()).collect()
        );
        // Within one edge only a, b's direct caller.
        let direct = graph.affected(&["b"], Some(1));
        assert_eq!(direct, ["a", "b"].iter().map(|s| s.to_string()).collect());
        assert_eq!(graph.affected(&["b"], Some(0)), ["b".to_string()].into());
        let ids: Vec<_> = select_static(&tests, &graph, &["b"], Some(1))
            .into_iter()
            .map(|i| tests[i].id.as_str())
            .collect();
        assert_eq!(ids, ["t-gab", "t-ab"]);
        let ids: Vec<_> = select_static(&tests, &graph, &["b"], None)
            .into_iter()
            .map(|i| tests[i].id.as_str())
            .collect();
        assert_eq!(ids, ["t-gab", "t-gc", "t-ab", "t-g"]);
        assert_eq!(retest_all(&tests).len(), 5);
    }

    #[test]
    fn frequent_seeds_drop_changed_services_below_c() {
        let tests = suite();
        let supports = crate::mine::mine(four_service_traces());
        let supp_a = supports.support("a") as f64;
        let at = |c: f64, seeds: Seeds| {
            let opts = Options { threshold: Threshold::Absolute(c), seeds, ..Options::default() };
            select_from_supports(&supports, &["a"], &tests, &opts).ids(&tests).len()
        };
        // At c = supp(a), a is still a frequent item: both readings agree.
        assert_eq!(at(supp_a, Seeds::Frequent), at(supp_a, Seeds::All));
        assert!(at(supp_a, Seeds::All) > 0);
        // Just above it, a drops out of the mined model and nothing is impacted...
        assert_eq!(at(supp_a + 0.5, Seeds::Frequent), 0);
        // ...while seeding every changed service still selects the tests through a.
        assert_eq!(at(supp_a + 0.5, Seeds::All), 2);
        assert_eq!("frequent".parse::<Seeds>(), Ok(Seeds::Frequent));
        assert!("some".parse::<Seeds>().is_err());
    }

    #[test]
    fn strategy_names_parse() {
        assert_eq!(Strategy::parse("k-existent", 3), Ok(Strategy::KExistent(3)));
        assert_eq!(Strategy::parse("4-existent", 0), Ok(Strategy::KExistent(4)));
        assert!(Strategy::parse("0-existent", 0).is_err());
        for s in [Strategy::Existent, Strategy::Complete, Strategy::KExistent(2)] {
            assert_eq!(Strategy::parse(&s.name(), 0), Ok(s));
        }
        assert!(Strategy::parse("some", 1).is_err());
    }

    mod props {
        use super::Strategy;
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn complete_within_k_existent_within_existent(
                // Random traces: span i's parent is a random earlier span (or none); services s0..s7.
                traces in prop::collection::vec(prop::collection::vec((0usize..8, any::<prop::sample::Index>(), any::<bool>()), 1..8), 1..12),
                changed in prop::collection::vec(0usize..8, 0..3),
                paths in prop::collection::vec(prop::collection::vec(0usize..8, 0..6), 0..20),
                p in prop::option::of(0.0..=1.0f64),
                k in 0usize..6,
                backward in any::<bool>(),
            ) {
                let name = |i: usize| format!("s{i}");
                let traces: Vec<Vec<SpanRecord>> = traces.iter().enumerate().map(|(t, spans)| {
                    spans.iter().enumerate().map(|(i, &(svc, parent, root))| {
                        let parent = (i > 0 && !root).then(|| parent.index(i).to_string());
                        crate::edges::span(&t.to_string(), &i.to_string(), parent.as_deref(), &name(svc))
                    }).collect()
                }).collect();
                let changed: Vec<String> = changed.into_iter().map(name).collect();
                let tests: Vec<TestCase> = paths.iter().enumerate().map(|(i, p)| TestCase {
                    id: i.to_string(), path: p.iter().map(|&s| name(s)).collect(), time_ms: 1.0,
                }).collect();
                let direction = if backward { Direction::Backward } else { Direction::Forward };
                let set = |strategy| {
                    let opts = Options { strategy, p, direction, ..Options::default() };
                    run(&traces, &changed, &tests, &opts).selected.into_iter().collect::<HashSet<_>>()
                };
                let existent = set(Strategy::Existent);
                let complete = set(Strategy::Complete);
                let kx = set(Strategy::KExistent(k));
                prop_assert!(complete.is_subset(&kx));
                prop_assert!(kx.is_subset(&existent));
                prop_assert_eq!(set(Strategy::KExistent(1)), existent);
            }
        }
    }
}
