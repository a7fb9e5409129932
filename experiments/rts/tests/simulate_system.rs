//! The generated systems: sizes, shapes of the call graphs, tests and fault ground truth.

use std::collections::BTreeSet;

use rigor_rts::simulate::{Profile, SimError, System};

fn small(seed: u64) -> System {
    System::generate(&Profile::custom("small", 40, 500, 4, 120), seed).unwrap()
}

#[test]
fn the_papers_profiles_have_their_sizes() {
    for name in Profile::NAMES {
        let profile = Profile::by_name(name).unwrap();
        let system = System::generate(&profile, 11).unwrap();
        assert_eq!(system.services.len(), profile.services, "{name}");
        assert_eq!(system.versions.len(), profile.versions as usize, "{name}");
        assert_eq!(system.tests.len(), profile.tests, "{name}");
        for v in 1..=profile.versions {
            assert_eq!(system.tests(v).unwrap().len(), profile.tests);
        }
        assert!(matches!(system.version(profile.versions + 1), Err(SimError::NoVersion { .. })));
        assert!(system.version(0).is_err());
    }
}

#[test]
fn an_empty_system_is_an_error_not_a_panic() {
    let err = System::generate(&Profile::custom("empty", 0, 100, 3, 10), 1).unwrap_err();
    assert_eq!(err.to_string(), "invalid profile `empty`: a system needs at least 1 service");
    assert!(System::generate(&Profile::custom("no-versions", 5, 100, 0, 10), 1).is_err());
}

#[test]
fn degenerate_but_valid_profiles_work() {
    for services in 1..6 {
        let system = System::generate(&Profile::custom("tiny", services, 50, 3, 4), 5).unwrap();
        assert_eq!(system.services.len(), services);
        let mut records = 0;
        system.traffic(3, 50, &mut |_| {
            records += 1;
            Ok(())
        }).unwrap();
        assert_eq!(records, 50);
    }
    let no_tests = System::generate(&Profile::custom("untested", 30, 10, 3, 0), 5).unwrap();
    assert!(no_tests.tests(2).unwrap().is_empty());
    for v in &no_tests.versions {
        assert!(v.faults.iter().all(|f| f.revealing_tests.is_empty()));
    }
}

#[test]
fn call_trees_are_mostly_two_to_five_deep() {
    let (mut in_range, mut deep, mut total) = (0, 0, 0);
    for seed in 0..6 {
        let profile = Profile::by_name(["m-ticket", "need", "joa"][seed as usize % 3]).unwrap();
        let system = System::generate(&profile, seed).unwrap();
        for tree in system.versions[0].trees.iter().flatten() {
            total += 1;
            in_range += usize::from((2..=5).contains(&tree.depth()));
            deep += usize::from(tree.depth() > 6);
        }
    }
    let share = in_range as f64 / total as f64;
    assert!(share >= 0.8, "{share:.2} of {total} trees 2-5 deep");
    assert!((deep as f64) < 0.04 * total as f64, "{deep} of {total} trees deeper than 6");
}

#[test]
fn each_entry_api_has_one_dominant_variant() {
    let system = System::generate(&Profile::by_name("joa").unwrap(), 3).unwrap();
    let several = system.entries.iter().filter(|e| e.variants.len() > 1).count();
    assert!(several * 2 > system.entries.len(), "only {several} entry APIs with variants");
    let total: f64 = system.entries.iter().map(|e| e.popularity).sum();
    assert!((total - 1.0).abs() < 1e-9);
    for entry in &system.entries {
        let weights: Vec<f64> = entry.variants.iter().map(|v| v.weight).collect();
        assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        if weights.len() > 1 {
            assert!((0.7..0.9).contains(&weights[0]), "{weights:?}");
        }
        assert!(weights[1..].iter().all(|w| *w < weights[0]));
    }
    // Popularity is heavy-tailed: the top tenth of entry APIs gets far more than a tenth.
    let mut popularity: Vec<f64> = system.entries.iter().map(|e| e.popularity).collect();
    popularity.sort_by(|a, b| b.total_cmp(a));
    let top: f64 = popularity[..popularity.len() / 10].iter().sum();
    assert!(top > 0.4, "top tenth gets {top:.2}");
}

#[test]
fn graphs_have_loops_and_fan_out_is_heavy_tailed() {
    let system = System::generate(&Profile::by_name("joa").unwrap(), 8).unwrap();
    let graph = &system.versions[0].graph;
    let fan_out: Vec<usize> = (0..system.apis.len() as u32).map(|a| graph.calls(a).len()).collect();
    let back = (0..system.apis.len() as u32).flat_map(|a| graph.calls(a)).filter(|c| c.back_edge).count();
    assert!(back > 0);
    let mean = fan_out.iter().sum::<usize>() as f64 / fan_out.len() as f64;
    let max = *fan_out.iter().max().unwrap();
    assert!(max as f64 > 4.0 * mean, "max fan-out {max}, mean {mean:.2}");
    // Some variant follows a back-edge, repeating a service already on its path.
    let looped = system.versions[0].trees.iter().flatten().any(|t| {
        t.nodes.iter().any(|n| {
            let mut ancestor = n.parent;
            while let Some(p) = ancestor {
                let p = &t.nodes[p as usize];
                if system.apis[p.api as usize].service == system.apis[n.api as usize].service {
                    return true;
                }
                ancestor = p.parent;
            }
            false
        })
    });
    assert!(looped);
}

#[test]
fn test_paths_are_paths_of_the_call_graph() {
    for seed in 0..4 {
        let system = small(seed);
        for version in &system.versions {
            let v = version.number;
            let deps: BTreeSet<(&str, &str)> = system.dependencies(v).unwrap().into_iter().collect();
            let entry_services: BTreeSet<&str> = system.entries.iter().map(|e| system.service_of(e.api).name.as_str()).collect();
            for (spec, test) in system.tests.iter().zip(system.tests(v).unwrap()) {
                assert_eq!(spec.id, test.id);
                assert!(entry_services.contains(test.path[0].as_str()));
                for (i, service) in test.path.iter().enumerate().skip(1) {
                    assert!(
                        test.path[..i].iter().any(|caller| deps.contains(&(caller.as_str(), service.as_str()))),
                        "v{v} {}: nothing before {service} calls it",
                        test.id
                    );
                }
                // The test's tree uses only calls of this version's graph.
                let tree = version.test_tree(spec);
                assert_eq!(tree.nodes[0].api, system.entries[spec.entry as usize].api);
                for node in &tree.nodes[1..] {
                    let parent = tree.nodes[node.parent.unwrap() as usize].api;
                    assert!(version.graph.calls(parent).iter().any(|c| c.target == node.api));
                }
            }
        }
    }
}

#[test]
fn test_ids_and_times_are_stable_across_versions() {
    let system = small(2);
    let first = system.tests(1).unwrap();
    let ids: BTreeSet<&str> = first.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), first.len());
    for v in 2..=4 {
        for (a, b) in first.iter().zip(system.tests(v).unwrap()) {
            assert_eq!((&a.id, a.time_ms), (&b.id, b.time_ms));
        }
    }
    // Tests avoiding the changed services (and so any edited call) keep their path.
    for v in 2..=4 {
        let changed = system.changed_services(v).unwrap();
        for (before, after) in system.tests(v - 1).unwrap().iter().zip(system.tests(v).unwrap()) {
            if !before.path.iter().chain(&after.path).any(|s| changed.contains(&s.as_str())) {
                assert_eq!(before.path, after.path);
            }
        }
    }
}

#[test]
fn versions_change_a_few_services_and_faults_sit_in_them() {
    let system = System::generate(&Profile::by_name("joa").unwrap(), 5).unwrap();
    assert!(system.versions[0].changed.is_empty() && system.versions[0].faults.is_empty());
    for version in &system.versions[1..] {
        let changed = system.changed_services(version.number).unwrap();
        assert!((6..=31).contains(&changed.len()), "{} changed", changed.len());
        assert!(!version.faults.is_empty());
        assert!(version.faults.iter().any(|f| !f.revealing_tests.is_empty()));
        for fault in &version.faults {
            assert!(changed.contains(&fault.service.as_str()));
        }
    }
}

#[test]
fn faults_are_revealed_exactly_by_the_tests_that_call_the_faulty_api() {
    for seed in 0..6 {
        let system = small(seed);
        for version in &system.versions[1..] {
            let v = version.number;
            let tests = system.tests(v).unwrap();
            let apis = system.test_apis(v).unwrap();
            assert!(!version.faults.is_empty(), "seed {seed} v{v} without faults");
            for fault in &version.faults {
                let expected: Vec<&str> = tests
                    .iter()
                    .zip(&apis)
                    .filter(|(_, apis)| {
                        apis.iter().any(|&a| system.service_of(a).name == fault.service && system.apis[a as usize].name == fault.api)
                    })
                    .map(|(t, _)| t.id.as_str())
                    .collect();
                assert_eq!(fault.revealing_tests, expected, "{}", fault.id);
                for id in &fault.revealing_tests {
                    let test = tests.iter().find(|t| &t.id == id).unwrap();
                    assert!(test.path.contains(&fault.service));
                }
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_system() {
    let (a, b, c) = (small(9), small(9), small(10));
    for v in 1..=4 {
        assert_eq!(a.tests(v).unwrap(), b.tests(v).unwrap());
        assert_eq!(a.version(v).unwrap().faults, b.version(v).unwrap().faults);
        assert_eq!(a.version(v).unwrap().trees, b.version(v).unwrap().trees);
    }
    assert_ne!(a.tests(1).unwrap(), c.tests(1).unwrap());
}
