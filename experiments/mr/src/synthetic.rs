//! A synthetic subject the size of MRG's largest (32 parameters: 27 conjunctive filters, 2 disjoint,
//! 7 complete, 1 ordering; 20 source tests), for benchmarks. Fixed: no randomness, so every run
//! and every machine measures the same input.

use std::fmt::Write as _;

/// Enum values of parameter `name`: `name_v0..`.
fn values(name: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{name}_v{i}")).collect()
}

/// Parameters: `c01..c27` conjunctive (every third with an enum of 4), `k1..k4` complete-only
/// categories (enums of 3..6), `sort` (enum of 5, the ordering parameter). Disjoint: c03, c06.
/// Complete: c09, c12, c15 (all value `empty`) and k1..k4 (k1, k2 `empty`; k3, k4 an `all` value).
pub fn spec_yaml() -> String {
    let mut s = String::from("# Synthetic 32-parameter subject (rigor_mr::synthetic).\nfeatures:\n-  id: Synthetic\n   parameters:\n");
    for i in 1..=27 {
        let name = format!("c{i:02}");
        let _ = writeln!(s, "   -  name: {name}\n      type: string\n      required: false");
        if i % 3 == 0 {
            let _ = writeln!(s, "      enum: [{}]", values(&name, 4).join(", "));
        }
    }
    for (i, n) in [(1, 3), (2, 4), (3, 5), (4, 6)] {
        let name = format!("k{i}");
        let mut v = values(&name, n);
        if i >= 3 {
            v.push(format!("{name}_all"));
        }
        let _ = writeln!(s, "   -  name: {name}\n      type: string\n      required: false\n      enum: [{}]", v.join(", "));
    }
    let _ = writeln!(s, "   -  name: sort\n      type: string\n      required: false\n      enum: [{}]", values("sort", 5).join(", "));
    s.push_str("   constraints:\n   - constraint: c01 requires c02\n   - constraint: c03 = c03_v0 excludes c04\n");
    s.push_str("   configuration:\n      ordering_parameters: [sort]\n      conjunctive_filters:\n");
    for i in 1..=27 {
        let _ = writeln!(s, "      - c{i:02}");
    }
    s.push_str("      disjoint_filters:\n      - parameter: c03\n      - parameter: c06\n      complete_filters:\n");
    for p in ["c09", "c12", "c15", "k1", "k2"] {
        let _ = writeln!(s, "      - parameter: {p}\n        all_value: empty");
    }
    for p in ["k3", "k4"] {
        let _ = writeln!(s, "      - parameter: {p}\n        all_value: {p}_all");
    }
    s
}

/// 20 source tests: test t sets a rotating window of about a third of the parameters.
pub fn tests_csv() -> String {
    let mut names: Vec<String> = (1..=27).map(|i| format!("c{i:02}")).collect();
    names.extend(["k1", "k2", "k3", "k4", "sort"].map(String::from));
    let mut s = format!("test_id;{}\n", names.join(";"));
    for t in 0..20usize {
        let mut row = vec![format!("T{:02}", t + 1)];
        for (i, n) in names.iter().enumerate() {
            let on = (i + t) % 3 == 0 || (i * 7 + t) % 11 == 0;
            let cell = match (on, n.as_str()) {
                (false, _) => String::new(),
                // c01 requires c02: set both or neither; c04 never with c03 = c03_v0.
                (true, "c01") if (1 + t) % 3 != 0 && (7 + t) % 11 != 0 => String::new(),
                (true, "k3") | (true, "k4") if t % 2 == 0 => format!("{n}_all"),
                (true, n) if n.starts_with('k') || n == "sort" || (n.starts_with('c') && n[1..].parse::<usize>().unwrap() % 3 == 0) => {
                    format!("{n}_v{}", (t + 1) % 3)
                }
                (true, n) => format!("{n}-{t}"),
            };
            row.push(cell);
        }
        s.push_str(&row.join(";"));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;
    use crate::sut::{Mode, Sut};
    use crate::{generate, tests_csv, MrType, Options};

    #[test]
    fn synthetic_subject_has_the_announced_shape_and_about_a_thousand_relations() {
        let spec = Spec::parse(&spec_yaml(), "synthetic.yml").unwrap();
        let f = &spec.features[0];
        let sut = Sut::new(f, "Synthetic", Mode::Compat).unwrap();
        assert_eq!(sut.params.len(), 32);
        assert_eq!((sut.conjunctive.len(), sut.disjoint.len(), sut.complete.len(), sut.ordering.len()), (27, 2, 7, 1));
        let tests = sut.tests(&tests_csv::parse(&tests_csv(), "t.csv", f).unwrap()).unwrap();
        assert_eq!(tests.len(), 20);
        let run = generate(&sut, &tests, &Options::default()).unwrap();
        assert!((800..=1400).contains(&run.mrs.len()), "{} relations", run.mrs.len());
        for ty in [MrType::ConjunctiveContract, MrType::ConjunctiveExtend, MrType::DisjointExtend, MrType::CompleteExtend, MrType::ShufflingExtend] {
            assert!(run.count(ty) > 0, "no {ty}");
        }
    }
}
