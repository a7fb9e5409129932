//! Invariants of generated relations on random specifications and source tests: follow-ups obey the
//! constraints and the pattern's shape, no duplicates, bounded follow-ups, deterministic runs.

use std::collections::HashSet;

use proptest::prelude::*;
use rigor_mr::{
    generate, render, spec::Spec, transform::TBD, AllValue, Mode, MrType, Options, SourceTest, Sut,
    Test,
};

#[derive(Debug, Clone)]
struct P {
    enum_size: usize,
    default: bool,
    required: bool,
    roles: [bool; 5], // ordering, conjunctive, disjunctive, disjoint, complete
    complete_all_empty: bool,
}

fn param() -> impl Strategy<Value = P> {
    (0usize..5, any::<bool>(), prop::bool::weighted(0.15), any::<[bool; 5]>(), any::<bool>()).prop_map(
        |(enum_size, default, required, roles, complete_all_empty)| P {
            enum_size,
            default,
            required,
            roles,
            complete_all_empty,
        },
    )
}

fn values(i: usize, n: usize) -> Vec<String> {
    (0..n).map(|k| format!("v{i}_{k}")).collect()
}

/// A YAML spec of params `p0..pn` plus a limit parameter `lim`, and its constraints.
fn spec_yaml(ps: &[P], constraints: &[(usize, usize, bool, bool)]) -> String {
    let mut s = String::from("features:\n- id: F\n  parameters:\n");
    for (i, p) in ps.iter().enumerate() {
        s += &format!("  - name: p{i}\n    required: {}\n", p.required);
        // Ordering and complete filters need an enum.
        let n = if p.roles[0] || p.roles[4] { p.enum_size.max(1) } else { p.enum_size };
        if n > 0 {
            s += &format!("    enum: [{}]\n", values(i, n).join(", "));
        }
        if p.default {
            let d = if n > 0 { values(i, n)[0].clone() } else { format!("d{i}") };
            s += &format!("    default: {d}\n");
        }
    }
    s += "  - name: lim\n    required: false\n  constraints:\n";
    for &(a, b, excludes, with_value) in constraints {
        let (a, b) = (a % ps.len(), b % ps.len());
        if a == b {
            continue;
        }
        let left = if with_value && ps[a].enum_size > 0 { format!("p{a} = v{a}_0") } else { format!("p{a}") };
        s += &format!("  - constraint: {left} {} p{b}\n", if excludes { "excludes" } else { "requires" });
    }
    s += "  configuration:\n    limit_parameter: lim\n";
    let role = |r: usize| -> Vec<String> {
        ps.iter().enumerate().filter(|(_, p)| p.roles[r]).map(|(i, _)| format!("p{i}")).collect()
    };
    for (key, r) in [("ordering_parameters", 0), ("conjunctive_filters", 1), ("disjunctive_filters", 2)] {
        s += &format!("    {key}: [{}]\n", role(r).join(", "));
    }
    s += "    disjoint_filters:\n";
    for (i, p) in ps.iter().enumerate() {
        if p.roles[3] && p.enum_size > 0 {
            s += &format!("    - parameter: p{i}\n");
        }
    }
    s += "    complete_filters:\n";
    for (i, p) in ps.iter().enumerate() {
        if p.roles[4] {
            let all = if p.complete_all_empty { "empty".to_string() } else { format!("v{i}_0") };
            s += &format!("    - parameter: p{i}\n      all_value: {all}\n");
        }
    }
    s
}

fn case() -> impl Strategy<Value = (Vec<P>, Vec<(usize, usize, bool, bool)>, Vec<Vec<Option<usize>>>, i64)> {
    prop::collection::vec(param(), 1..7).prop_flat_map(|ps| {
        let n = ps.len();
        (
            Just(ps),
            prop::collection::vec((0..n, 0..n, any::<bool>(), any::<bool>()), 0..3),
            // Per test, per parameter (and `lim` last): absent or a value index.
            prop::collection::vec(prop::collection::vec(prop::option::of(0usize..5), n + 1), 1..5),
            any::<i64>(),
        )
    })
}

fn source_tests(sut: &Sut, ps: &[P], cells: &[Vec<Option<usize>>]) -> Vec<Test> {
    let mut out = Vec::new();
    for (t, row) in cells.iter().enumerate() {
        let mut values = Vec::new();
        for (i, c) in row.iter().enumerate() {
            let Some(k) = c else { continue };
            if i == ps.len() {
                values.push(("lim".to_string(), "10".to_string()));
            } else {
                let en = sut.params[i].enum_values.clone().unwrap_or_default();
                let v = if en.is_empty() { format!("x{k}") } else { en[k % en.len()].clone() };
                values.push((format!("p{i}"), v));
            }
        }
        for (i, p) in ps.iter().enumerate() {
            if p.required && !values.iter().any(|(n, _)| *n == format!("p{i}")) {
                values.push((format!("p{i}"), "r".into()));
            }
        }
        let src = SourceTest { id: format!("T{t}"), values };
        // Keep only tests that satisfy the constraints, as a user's would.
        if let Ok(mut v) = sut.tests(&[src]) {
            out.append(&mut v);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn relations_are_well_formed((ps, cs, cells, seed) in case(), native in any::<bool>(), max_futcs in 1usize..5) {
        let yaml = spec_yaml(&ps, &cs);
        let spec = Spec::parse(&yaml, "gen.yml").unwrap();
        let mode = if native { Mode::Native } else { Mode::Compat };
        let sut = match Sut::new(&spec.features[0], "F", mode) {
            Ok(s) => s,
            Err(_) => return Ok(()), // e.g. native mode refusing an empty disjoint set
        };
        let tests = source_tests(&sut, &ps, &cells);
        let opts = Options { seed, max_futcs, ..Options::default() };
        let run = match generate(&sut, &tests, &opts) {
            Ok(r) => r,
            // Compat mode stops where the original crashes; native mode never does.
            Err(_) => { prop_assert!(!native); return Ok(()); }
        };
        let again = generate(&sut, &tests, &opts).unwrap();
        prop_assert_eq!(render::text(&sut, "d", &run.mrs), render::text(&sut, "d", &again.mrs));

        let back = render::read_json(&sut, &render::json(&sut, &run.mrs)).unwrap();
        prop_assert_eq!(back.len(), run.mrs.len());
        for (a, b) in back.iter().zip(&run.mrs) {
            prop_assert_eq!((&a.id, a.ty, &a.source, &a.follow_ups), (&b.id, b.ty, &b.source, &b.follow_ups));
        }

        let mut bodies = HashSet::new();
        for mr in &run.mrs {
            prop_assert!(bodies.insert(render::body(&sut, mr)), "duplicate {}", mr.id);
            prop_assert!(!mr.follow_ups.is_empty() && mr.follow_ups.len() <= max_futcs);
            for f in &mr.follow_ups {
                prop_assert!(sut.violated(f).is_none(), "{} breaks a constraint", mr.id);
            }
            let limited = sut.limit_block(&mr.source);
            if limited {
                prop_assert!(matches!(mr.ty, MrType::DisjointExtend | MrType::EquivalenceExtend), "{:?} under a limit", mr.ty);
            }
            let chain: Vec<&Test> = std::iter::once(&mr.source).chain(&mr.follow_ups).collect();
            for w in chain.windows(2) {
                let d = render::diff(&sut, w[0], w[1]);
                match mr.ty {
                    MrType::ConjunctiveContract | MrType::DisjunctiveContract | MrType::ShufflingContract => {
                        let pool = match mr.ty {
                            MrType::ConjunctiveContract => &sut.conjunctive,
                            MrType::DisjunctiveContract => &sut.disjunctive,
                            _ => &sut.ordering,
                        };
                        prop_assert!(d.added.is_empty() && d.changed.is_empty() && !d.removed.is_empty());
                        for (p, _) in &d.removed {
                            prop_assert!(pool.contains(p) && !sut.params[*p].required);
                        }
                    }
                    MrType::ConjunctiveExtend | MrType::DisjunctiveExtend => {
                        let pool = if mr.ty == MrType::ConjunctiveExtend { &sut.conjunctive } else { &sut.disjunctive };
                        prop_assert!(d.removed.is_empty() && d.changed.is_empty() && !d.added.is_empty());
                        for (p, v) in &d.added {
                            prop_assert!(pool.contains(p) && *v == TBD);
                        }
                    }
                    MrType::EquivalenceExtend => {
                        prop_assert!(d.removed.is_empty() && d.changed.is_empty() && !d.added.is_empty());
                        for (p, v) in &d.added {
                            prop_assert_eq!(sut.params[*p].default.as_deref(), Some(*v));
                        }
                    }
                    _ => prop_assert_eq!(d.distance(), 1),
                }
            }
            if mr.ty == MrType::DisjointExtend {
                let (p, _) = render::diff(&sut, &mr.source, &mr.follow_ups[0]).changed[0];
                let mut vals: Vec<&str> = chain.iter().map(|t| t.get(p).unwrap()).collect();
                let n = vals.len();
                vals.sort();
                vals.dedup();
                prop_assert_eq!(vals.len(), n, "disjoint values repeat");
            }
            if mr.ty == MrType::CompleteExtend && native {
                let f0 = &mr.follow_ups[0];
                let p = (0..sut.params.len()).find(|&p| f0.get(p) != mr.source.get(p)).unwrap();
                let all = &sut.complete.iter().find(|(q, _)| *q == p).unwrap().1;
                let mut want: Vec<String> = sut.params[p].enum_values.clone().unwrap();
                if let AllValue::Value(a) = all { want.retain(|v| v != a); }
                let got: Vec<String> = mr.follow_ups.iter().map(|f| f.get(p).unwrap().to_string()).collect();
                prop_assert_eq!(got, want, "complete partition has a missing part");
            }
        }
    }
}
