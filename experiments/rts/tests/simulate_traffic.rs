//! The simulated traffic: exact volume, well-formed traces that follow the call graph, and
//! entry-API and variant frequencies as drawn.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use rigor_rts::record::SpanRecord;
use rigor_rts::simulate::{Profile, System};

fn spans(system: &System, v: u32, records: u64) -> Vec<SpanRecord> {
    let mut out = Vec::new();
    let stats = system.traffic(v, records, &mut |s| {
        out.push(s.clone());
        Ok(())
    }).unwrap();
    assert_eq!(stats.records, records);
    assert_eq!(out.len() as u64, records);
    out
}

/// Splits spans into traces, checking that each trace's spans are contiguous.
fn traces(spans: &[SpanRecord]) -> Vec<&[SpanRecord]> {
    let mut out: Vec<&[SpanRecord]> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut start = 0;
    for i in 1..=spans.len() {
        if i == spans.len() || spans[i].trace_id != spans[start].trace_id {
            assert!(seen.insert(spans[start].trace_id.as_str()), "trace {} is split", spans[start].trace_id);
            out.push(&spans[start..i]);
            start = i;
        }
    }
    out
}

/// A trace's shape: (service, operation, parent index) per span.
fn shape(trace: &[SpanRecord]) -> Vec<(String, String, Option<usize>)> {
    let index: BTreeMap<&str, usize> = trace.iter().enumerate().map(|(i, s)| (s.span_id.as_str(), i)).collect();
    trace
        .iter()
        .map(|s| (s.service.clone(), s.operation.clone(), s.parent_id.as_ref().map(|p| index[p.as_str()])))
        .collect()
}

/// Every variant tree of version `v` as a shape.
fn tree_shapes(system: &System, v: u32) -> Vec<Vec<(String, String, Option<usize>)>> {
    system
        .version(v)
        .unwrap()
        .trees
        .iter()
        .flatten()
        .map(|t| {
            t.nodes
                .iter()
                .map(|n| (system.service_of(n.api).name.clone(), system.apis[n.api as usize].name.clone(), n.parent.map(|p| p as usize)))
                .collect()
        })
        .collect()
}

fn check_traffic(system: &System, v: u32, records: u64) {
    let spans = spans(system, v, records);
    let known = tree_shapes(system, v);
    let traces = traces(&spans);
    for (k, trace) in traces.iter().enumerate() {
        let root = &trace[0];
        assert!(root.parent_id.is_none() && root.caller.is_none(), "root first");
        assert!(root.trace_id.len() == 32 && root.trace_id.bytes().all(|b| b.is_ascii_hexdigit()));
        let mut ids = BTreeMap::new();
        for (i, span) in trace.iter().enumerate() {
            assert!(span.span_id.len() == 16 && span.span_id != "0000000000000000");
            assert!(ids.insert(span.span_id.as_str(), i).is_none(), "span id repeated in a trace");
            if i > 0 {
                let parent = ids[span.parent_id.as_deref().expect("only the root lacks a parent")];
                assert!(parent < i);
                assert_eq!(span.caller.as_deref(), Some(trace[parent].service.as_str()));
                assert!(span.timestamp_us > trace[i - 1].timestamp_us);
            }
        }
        // Each trace is a variant's call tree; the last may be cut short to hit the volume.
        let shape = shape(trace);
        if k + 1 < traces.len() {
            assert!(known.contains(&shape), "a trace that is no variant's tree");
        } else {
            assert!(known.iter().any(|t| t.starts_with(&shape)));
        }
    }
}

#[test]
fn traffic_has_the_requested_volume_and_valid_traces() {
    let system = System::generate(&Profile::by_name("m-ticket").unwrap(), 4).unwrap();
    for v in 1..=5 {
        check_traffic(&system, v, 4_000 + u64::from(v));
    }
    let mut none = 0;
    assert_eq!(system.traffic(2, 0, &mut |_| {
        none += 1;
        Ok(())
    }).unwrap().records, 0);
    assert_eq!(none, 0);
    assert!(system.traffic(6, 10, &mut |_| Ok(())).is_err());
}

#[test]
fn traffic_is_reproducible_and_a_longer_run_extends_a_shorter_one() {
    let system = System::generate(&Profile::custom("small", 30, 0, 2, 10), 6).unwrap();
    let short = spans(&system, 2, 1_000);
    let long = spans(&system, 2, 3_000);
    let again = spans(&system, 2, 3_000);
    assert_eq!(long, again);
    // All but the cut-short last trace of the short run reappear at the start of the long one.
    let cut = short.iter().rposition(|s| s.parent_id.is_none()).unwrap();
    assert_eq!(short[..cut], long[..cut]);
    assert_ne!(spans(&system, 1, 1_000), short);
}

#[test]
fn sink_errors_stop_the_traffic() {
    let system = System::generate(&Profile::custom("small", 10, 0, 1, 0), 1).unwrap();
    let mut calls = 0;
    let err = system
        .traffic(1, 100, &mut |_| {
            calls += 1;
            if calls == 5 { Err(std::io::Error::other("disk full")) } else { Ok(()) }
        })
        .unwrap_err();
    assert_eq!(err.to_string(), "writing traces: disk full");
    assert_eq!(calls, 5);
}

#[test]
fn traffic_follows_entry_popularity_and_variant_weights() {
    let system = System::generate(&Profile::by_name("need").unwrap(), 2).unwrap();
    let spans = spans(&system, 1, 150_000);
    let traces = traces(&spans);
    let mut index = BTreeMap::new();
    for (i, s) in tree_shapes(&system, 1).into_iter().enumerate() {
        index.entry(s).or_insert(i);
    }
    let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
    for trace in &traces[..traces.len() - 1] {
        *counts.entry(index[&shape(trace)]).or_default() += 1;
    }
    let n = (traces.len() - 1) as f64;
    let mut offset = 0;
    for entry in &system.entries {
        let entry_share: f64 = (offset..offset + entry.variants.len()).map(|i| counts.get(&i).copied().unwrap_or(0)).sum::<usize>() as f64 / n;
        assert!((entry_share - entry.popularity).abs() < 0.01 + 0.1 * entry.popularity, "{entry_share} vs {}", entry.popularity);
        if entry.popularity > 0.05 && entry.variants.len() > 1 {
            let dominant = counts.get(&offset).copied().unwrap_or(0) as f64 / (entry_share * n);
            assert!((dominant - entry.variants[0].weight).abs() < 0.05, "{dominant} vs {}", entry.variants[0].weight);
        }
        offset += entry.variants.len();
    }
}

/// Throughput of the generator alone (no trace format); run with
/// `cargo test --release -p rigor-rts --test simulate_traffic -- --ignored --nocapture`.
#[test]
#[ignore]
fn traffic_throughput() {
    let system = System::generate(&Profile::by_name("joa").unwrap(), 1).unwrap();
    let records = 20_000_000;
    let mut bytes = 0usize;
    let start = std::time::Instant::now();
    system.traffic(2, records, &mut |s| {
        bytes += s.service.len() + s.span_id.len();
        Ok(())
    }).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    println!("{records} records in {seconds:.2} s: {:.2} M records/s ({bytes} bytes touched)", records as f64 / seconds / 1e6);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn traffic_of_any_small_system_is_well_formed(
        services in 1usize..50,
        tests in 0usize..40,
        versions in 1u32..4,
        back_edge_rate in 0.0f64..0.5,
        seed in any::<u64>(),
        records in 0u64..1_500,
    ) {
        let profile = Profile { back_edge_rate, ..Profile::custom("p", services, records, versions, tests) };
        let system = System::generate(&profile, seed).unwrap();
        prop_assert_eq!(system.services.len(), services);
        prop_assert_eq!(system.tests.len(), tests);
        for v in 1..=versions {
            check_traffic(&system, v, records);
        }
        for version in &system.versions {
            let v = version.number;
            let tests = system.tests(v).unwrap();
            let deps: BTreeSet<(&str, &str)> = system.dependencies(v).unwrap().into_iter().collect();
            for test in &tests {
                for (i, service) in test.path.iter().enumerate().skip(1) {
                    prop_assert!(test.path[..i].iter().any(|c| deps.contains(&(c.as_str(), service.as_str()))));
                }
            }
            if v > 1 {
                let changed = version.changed.len();
                prop_assert!(changed >= 1 && changed <= ((0.05 * services as f64).round() as usize).max(1));
            }
            for fault in &version.faults {
                for id in &fault.revealing_tests {
                    let test = tests.iter().find(|t| &t.id == id).unwrap();
                    prop_assert!(test.path.contains(&fault.service));
                }
            }
        }
    }
}
