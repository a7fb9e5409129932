//! Running relations against a live query-based system: instantiate each relation into concrete
//! queries (`<TBD>` filled from the parameter's enum, its value pool, or its default), send them,
//! and check the output relation.
//!
//! Verdicts: a relation *holds*, is *violated* (a fault revealed), *cannot be instantiated* (a
//! `<TBD>` with nothing to fill it), or is *inconclusive* (the system refused a query with a 4xx,
//! or could not be reached / answered garbage: an error, kept apart from violations).

use std::collections::{BTreeMap, HashMap, HashSet};

use rand::seq::IndexedRandom;
use rand::Rng;
use serde::Serialize;

use crate::generate::Mr;
use crate::sut::{ParamId, Sut};
use crate::transform::{MrType, Relation, TBD};

/// Concrete queries of one relation: the source first, then the follow-ups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    pub queries: Vec<Vec<(String, String)>>,
}

/// A `<TBD>` parameter with no enum, no value pool and no default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfillable(pub String);

/// Fills `<TBD>`: one value per parameter and relation, so a parameter added early in a chain
/// keeps its value in later follow-ups.
pub fn instantiate(sut: &Sut, mr: &Mr, rng: &mut impl Rng) -> Result<Instance, Unfillable> {
    let mut chosen: HashMap<ParamId, String> = HashMap::new();
    let mut fill = |p: ParamId, rng: &mut dyn rand::RngCore| -> Result<String, Unfillable> {
        if let Some(v) = chosen.get(&p) {
            return Ok(v.clone());
        }
        let param = &sut.params[p];
        let pool: &[String] = match &param.enum_values {
            Some(e) if !e.is_empty() => e,
            _ => &param.pool,
        };
        let v = match pool.choose(rng) {
            Some(v) => v.clone(),
            None => param.default.clone().ok_or_else(|| Unfillable(param.name.clone()))?,
        };
        chosen.insert(p, v.clone());
        Ok(v)
    };
    let mut queries = Vec::with_capacity(mr.follow_ups.len() + 1);
    for t in std::iter::once(&mr.source).chain(&mr.follow_ups) {
        let mut q = Vec::with_capacity(t.params.len());
        for (p, v) in &t.params {
            let v = if v == TBD { fill(*p, rng)? } else { v.clone() };
            q.push((sut.name(*p).to_string(), v));
        }
        queries.push(q);
    }
    Ok(Instance { queries })
}

/// Why a query gave no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryFailure {
    /// The system refused the query (HTTP 4xx): the relation says nothing.
    Refused(String),
    /// Unreachable, 5xx, or a response without the declared items.
    Error(String),
}

/// Something that answers queries with the ids of the result items, in order.
pub trait System {
    fn query(&mut self, params: &[(String, String)]) -> Result<Vec<String>, QueryFailure>;
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    Violated { detail: String },
    Unfillable { parameter: String },
    Refused { detail: String },
    Error { detail: String },
}

/// Whether the outputs (source first) satisfy the relation of `ty`. Chain patterns compare each
/// follow-up with the test before it (which implies the relation to the source).
pub fn check(ty: MrType, outputs: &[Vec<String>]) -> Result<(), String> {
    let pairs: Vec<(usize, usize)> = if ty.chains() {
        (1..outputs.len()).map(|i| (i - 1, i)).collect()
    } else {
        (1..outputs.len()).map(|i| (0, i)).collect()
    };
    let missing = |a: &[String], b: &[String]| -> Vec<String> {
        let b = set(b);
        a.iter().filter(|x| !b.contains(x.as_str())).take(3).cloned().collect()
    };
    match ty.relation() {
        Relation::Superset | Relation::Subset => {
            for (a, b) in pairs {
                // Superset: follow-up b ⊇ a; subset: b ⊆ a.
                let lost = match ty.relation() {
                    Relation::Superset => missing(&outputs[a], &outputs[b]),
                    _ => missing(&outputs[b], &outputs[a]),
                };
                if !lost.is_empty() {
                    let what = if ty.relation() == Relation::Superset { "lacks" } else { "adds" };
                    return Err(format!("output {b} {what} items of output {a}, e.g. {lost:?}"));
                }
            }
        }
        Relation::SameItems => {
            for (a, b) in pairs {
                if sorted(&outputs[a]) != sorted(&outputs[b]) {
                    return Err(format!(
                        "outputs {a} and {b} differ as multisets ({} vs {} items)",
                        outputs[a].len(),
                        outputs[b].len()
                    ));
                }
            }
        }
        Relation::Equal => {
            for (a, b) in pairs {
                if outputs[a] != outputs[b] {
                    let at = outputs[a].iter().zip(&outputs[b]).position(|(x, y)| x != y);
                    return Err(match at {
                        Some(i) => format!("outputs {a} and {b} differ at position {i}"),
                        None => format!(
                            "outputs {a} and {b} differ in length ({} vs {})",
                            outputs[a].len(),
                            outputs[b].len()
                        ),
                    });
                }
            }
        }
        Relation::Disjoint => {
            let sets: Vec<HashSet<&str>> = outputs.iter().map(|o| set(o)).collect();
            for i in 0..sets.len() {
                for j in i + 1..sets.len() {
                    if let Some(x) = sets[i].intersection(&sets[j]).next() {
                        return Err(format!("outputs {i} and {j} share item {x:?}"));
                    }
                }
            }
        }
        Relation::UnionEqualsSource => {
            let source = set(&outputs[0]);
            let union: HashSet<&str> = outputs[1..].iter().flat_map(|o| o.iter().map(String::as_str)).collect();
            if let Some(x) = source.difference(&union).next() {
                return Err(format!("source item {x:?} is in no follow-up output"));
            }
            if let Some(x) = union.difference(&source).next() {
                return Err(format!("follow-up item {x:?} is not in the source output"));
            }
        }
    }
    Ok(())
}

fn set(o: &[String]) -> HashSet<&str> {
    o.iter().map(String::as_str).collect()
}

fn sorted(o: &[String]) -> Vec<&str> {
    let mut v: Vec<&str> = o.iter().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// Answers repeated queries from memory: many relations share their source query.
pub struct Cached<S> {
    inner: S,
    seen: HashMap<Vec<(String, String)>, Result<Vec<String>, QueryFailure>>,
    pub sent: usize,
}

impl<S: System> Cached<S> {
    pub fn new(inner: S) -> Self {
        Cached { inner, seen: HashMap::new(), sent: 0 }
    }
}

impl<S: System> System for Cached<S> {
    fn query(&mut self, params: &[(String, String)]) -> Result<Vec<String>, QueryFailure> {
        if let Some(r) = self.seen.get(params) {
            return r.clone();
        }
        self.sent += 1;
        let r = self.inner.query(params);
        self.seen.insert(params.to_vec(), r.clone());
        r
    }
}

/// The verdict of one relation.
pub fn run_one(sut: &Sut, mr: &Mr, system: &mut dyn System, rng: &mut impl Rng) -> Verdict {
    let inst = match instantiate(sut, mr, rng) {
        Ok(i) => i,
        Err(Unfillable(p)) => return Verdict::Unfillable { parameter: p },
    };
    let mut outputs = Vec::with_capacity(inst.queries.len());
    for q in &inst.queries {
        match system.query(q) {
            Ok(ids) => outputs.push(ids),
            Err(QueryFailure::Refused(d)) => return Verdict::Refused { detail: d },
            Err(QueryFailure::Error(d)) => return Verdict::Error { detail: d },
        }
    }
    match check(mr.ty, &outputs) {
        Ok(()) => Verdict::Holds,
        Err(detail) => Verdict::Violated { detail },
    }
}

/// Verdict counts, overall and per pattern.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub total: usize,
    pub holds: usize,
    pub violated: usize,
    pub unfillable: usize,
    pub refused: usize,
    pub errors: usize,
    pub per_type: BTreeMap<&'static str, TypeTally>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct TypeTally {
    pub total: usize,
    pub violated: usize,
}

impl Tally {
    pub fn add(&mut self, ty: MrType, v: &Verdict) {
        self.total += 1;
        let t = self.per_type.entry(ty.name()).or_default();
        t.total += 1;
        match v {
            Verdict::Holds => self.holds += 1,
            Verdict::Violated { .. } => {
                self.violated += 1;
                t.violated += 1;
            }
            Verdict::Unfillable { .. } => self.unfillable += 1,
            Verdict::Refused { .. } => self.refused += 1,
            Verdict::Error { .. } => self.errors += 1,
        }
    }
}

/// Source test of a relation as a [`Test`] id plus the verdict, for reports.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub id: String,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub source: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// Runs every relation; `progress` gets the fraction done.
pub fn run_all(
    sut: &Sut,
    mrs: &[Mr],
    system: &mut dyn System,
    rng: &mut impl Rng,
    mut progress: impl FnMut(f64) -> bool,
) -> (Tally, Vec<Outcome>) {
    let mut tally = Tally::default();
    let mut outcomes = Vec::with_capacity(mrs.len());
    for (i, mr) in mrs.iter().enumerate() {
        let v = run_one(sut, mr, system, rng);
        tally.add(mr.ty, &v);
        outcomes.push(Outcome {
            id: mr.id.clone(),
            ty: mr.ty.name(),
            source: mr.source.id.clone(),
            verdict: v,
        });
        if !progress((i + 1) as f64 / mrs.len() as f64) {
            break;
        }
    }
    (tally, outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;
    use crate::sut::{Mode, Test};

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn outs(v: &[&[&str]]) -> Vec<Vec<String>> {
        v.iter().map(|o| ids(o)).collect()
    }

    #[test]
    fn relations_hold_and_break_as_defined() {
        use MrType::*;
        // Chains compare each follow-up with the one before.
        assert!(check(ConjunctiveContract, &outs(&[&["a"], &["a", "b"], &["a", "b", "c"]])).is_ok());
        assert!(check(ConjunctiveContract, &outs(&[&["a"], &["a", "b"], &["a"]])).is_err());
        assert!(check(ConjunctiveExtend, &outs(&[&["a", "b"], &["b"], &[]])).is_ok());
        assert!(check(ConjunctiveExtend, &outs(&[&["a", "b"], &["b", "c"]])).is_err());
        assert!(check(DisjunctiveExtend, &outs(&[&["a"], &["a", "z"]])).is_ok());
        assert!(check(DisjunctiveContract, &outs(&[&["a"], &["a", "z"]])).is_err());
        // Same items, any order; multiplicity counts.
        assert!(check(ShufflingExtend, &outs(&[&["a", "b"], &["b", "a"], &["a", "b"]])).is_ok());
        assert!(check(ShufflingContract, &outs(&[&["a", "b"], &["a"]])).is_err());
        assert!(check(ShufflingContract, &outs(&[&["a", "a"], &["a"]])).is_err());
        // Disjoint: every pair, follow-ups included.
        assert!(check(DisjointExtend, &outs(&[&["a"], &["b"], &["c"]])).is_ok());
        assert!(check(DisjointExtend, &outs(&[&["a"], &["b"], &["b"]])).is_err());
        // Union of follow-ups equals the source.
        assert!(check(CompleteExtend, &outs(&[&["a", "b", "c"], &["a"], &["c", "b"]])).is_ok());
        assert!(check(CompleteExtend, &outs(&[&["a", "b", "c"], &["a"], &["b"]])).is_err());
        assert!(check(CompleteExtend, &outs(&[&["a"], &["a"], &["x"]])).is_err());
        // Equal: same items in the same order.
        assert!(check(EquivalenceExtend, &outs(&[&["a", "b"], &["a", "b"]])).is_ok());
        assert!(check(EquivalenceExtend, &outs(&[&["a", "b"], &["b", "a"]])).is_err());
        assert!(check(EquivalenceExtend, &outs(&[&["a", "b"], &["a"]])).is_err());
    }

    const SPEC: &str = "features:\n- id: F\n  parameters:\n  - {name: q, required: true}\n  - {name: g, required: false, enum: [x, y]}\n  - {name: p, required: false, values: ['5', '9']}\n  - {name: n, required: false}\n  - {name: d, required: false, default: '3'}\n  configuration:\n    conjunctive_filters: [g, p, n, d]\n";

    fn sut() -> Sut {
        Sut::new(&Spec::parse(SPEC, "s.yml").unwrap().features[0], "F", Mode::Native).unwrap()
    }

    fn mr(sut: &Sut, follow: &[&[(&str, &str)]]) -> Mr {
        let t = |ps: &[(&str, &str)]| Test {
            id: "T".into(),
            params: ps.iter().map(|(k, v)| (sut.param(k).unwrap(), v.to_string())).collect(),
        };
        Mr { id: "MR0".into(), ty: MrType::ConjunctiveExtend, source: t(&[("q", "a")]), follow_ups: follow.iter().map(|f| t(f)).collect() }
    }

    #[test]
    fn tbd_is_filled_once_per_parameter_from_enum_pool_or_default() {
        let sut = sut();
        let m = mr(&sut, &[&[("q", "a"), ("g", TBD)], &[("q", "a"), ("g", TBD), ("p", TBD), ("d", TBD)]]);
        let mut rng = rigor_technique::rng(7);
        let inst = instantiate(&sut, &m, &mut rng).unwrap();
        let get = |q: &Vec<(String, String)>, k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(get(&inst.queries[1], "g"), get(&inst.queries[2], "g"), "chained value kept");
        assert!(["x", "y"].contains(&get(&inst.queries[1], "g").unwrap().as_str()));
        assert!(["5", "9"].contains(&get(&inst.queries[2], "p").unwrap().as_str()));
        assert_eq!(get(&inst.queries[2], "d").as_deref(), Some("3"));
        let bad = mr(&sut, &[&[("q", "a"), ("n", TBD)]]);
        assert_eq!(instantiate(&sut, &bad, &mut rng), Err(Unfillable("n".into())));
    }

    struct Fake(Vec<Result<Vec<String>, QueryFailure>>, usize);

    impl System for Fake {
        fn query(&mut self, _: &[(String, String)]) -> Result<Vec<String>, QueryFailure> {
            self.1 += 1;
            self.0[(self.1 - 1) % self.0.len()].clone()
        }
    }

    #[test]
    fn verdicts_and_cache() {
        let sut = sut();
        let m = mr(&sut, &[&[("q", "a"), ("g", "x")]]);
        let mut rng = rigor_technique::rng(1);
        let mut ok = Fake(vec![Ok(ids(&["1", "2"])), Ok(ids(&["2"]))], 0);
        assert_eq!(run_one(&sut, &m, &mut ok, &mut rng), Verdict::Holds);
        let mut bad = Fake(vec![Ok(ids(&["1"])), Ok(ids(&["1", "9"]))], 0);
        assert!(matches!(run_one(&sut, &m, &mut bad, &mut rng), Verdict::Violated { .. }));
        let mut refused = Fake(vec![Err(QueryFailure::Refused("400".into()))], 0);
        assert!(matches!(run_one(&sut, &m, &mut refused, &mut rng), Verdict::Refused { .. }));
        // The source query is shared by both relations: sent once.
        let mut cached = Cached::new(Fake(vec![Ok(ids(&["1"]))], 0));
        let m2 = mr(&sut, &[&[("q", "a"), ("g", "y")]]);
        let (tally, _) = run_all(&sut, &[m.clone(), m2], &mut cached, &mut rng, |_| true);
        assert_eq!((tally.total, tally.holds, cached.sent), (2, 2, 3));
    }
}
