//! The nine input transformations (metamorphic relation patterns of MRG).
//!
//! Each one picks candidates from the source test (parameters to remove, add or re-value), shuffles
//! them with the transformation's own `java.util.Random` and builds follow-up tests; follow-ups
//! that break a constraint are dropped. Random draws follow the original exactly, so compat mode
//! reproduces its output.

use std::fmt;

use thiserror::Error;

use crate::javarandom::JavaRandom;
use crate::spec::AllValue;
use crate::sut::{Mode, ParamId, Sut, Test};

/// Placeholder value of a filter added by an extend transformation; filled in at execution.
pub const TBD: &str = "<TBD>";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MrType {
    ConjunctiveContract,
    ConjunctiveExtend,
    DisjunctiveContract,
    DisjunctiveExtend,
    ShufflingContract,
    ShufflingExtend,
    DisjointExtend,
    CompleteExtend,
    EquivalenceExtend,
}

/// What the follow-up outputs must satisfy with respect to the source output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// Every follow-up output ⊇ source output.
    Superset,
    /// Every follow-up output ⊆ source output.
    Subset,
    /// Same items, any order.
    SameItems,
    /// Source and follow-up outputs pairwise disjoint.
    Disjoint,
    /// Union of follow-up outputs = source output (as sets).
    UnionEqualsSource,
    /// Identical output, same order.
    Equal,
}

impl MrType {
    /// In the order the generator tries them.
    pub const ALL: [MrType; 9] = [
        MrType::ConjunctiveContract,
        MrType::ConjunctiveExtend,
        MrType::DisjunctiveContract,
        MrType::DisjunctiveExtend,
        MrType::ShufflingContract,
        MrType::ShufflingExtend,
        MrType::DisjointExtend,
        MrType::CompleteExtend,
        MrType::EquivalenceExtend,
    ];

    /// The original's enum name (`CONJUNCTIVE_CONTRACT`, ...).
    pub fn name(self) -> &'static str {
        match self {
            MrType::ConjunctiveContract => "CONJUNCTIVE_CONTRACT",
            MrType::ConjunctiveExtend => "CONJUNCTIVE_EXTEND",
            MrType::DisjunctiveContract => "DISJUNCTIVE_CONTRACT",
            MrType::DisjunctiveExtend => "DISJUNCTIVE_EXTEND",
            MrType::ShufflingContract => "SHUFFLING_CONTRACT",
            MrType::ShufflingExtend => "SHUFFLING_EXTEND",
            MrType::DisjointExtend => "DISJOINT_EXTEND",
            MrType::CompleteExtend => "COMPLETE_EXTEND",
            MrType::EquivalenceExtend => "EQUIVALENCE_EXTEND",
        }
    }

    /// `conjunctive_contract`, ...: metric names.
    pub fn snake(self) -> String {
        self.name().to_ascii_lowercase()
    }

    pub fn from_name(s: &str) -> Option<MrType> {
        MrType::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(s))
    }

    pub fn relation(self) -> Relation {
        match self {
            MrType::ConjunctiveContract | MrType::DisjunctiveExtend => Relation::Superset,
            MrType::ConjunctiveExtend | MrType::DisjunctiveContract => Relation::Subset,
            MrType::ShufflingContract | MrType::ShufflingExtend => Relation::SameItems,
            MrType::DisjointExtend => Relation::Disjoint,
            MrType::CompleteExtend => Relation::UnionEqualsSource,
            MrType::EquivalenceExtend => Relation::Equal,
        }
    }

    /// Chain types re-apply the transformation to their last follow-up.
    pub fn chains(self) -> bool {
        matches!(
            self,
            MrType::ConjunctiveContract
                | MrType::ConjunctiveExtend
                | MrType::DisjunctiveContract
                | MrType::DisjunctiveExtend
                | MrType::EquivalenceExtend
        )
    }

    /// How many parameters the pattern is about: tries per source test = this × search strength.
    pub fn relevant(self, sut: &Sut) -> usize {
        match self {
            MrType::ConjunctiveContract | MrType::ConjunctiveExtend => sut.conjunctive.len(),
            MrType::DisjunctiveContract | MrType::DisjunctiveExtend => sut.disjunctive.len(),
            MrType::ShufflingContract | MrType::ShufflingExtend => sut.ordering.len(),
            MrType::DisjointExtend => sut.disjoint.len(),
            MrType::CompleteExtend => sut.complete.len(),
            MrType::EquivalenceExtend => sut.with_default.len(),
        }
    }
}

impl fmt::Display for MrType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Relation::Superset => "superset",
            Relation::Subset => "subset",
            Relation::SameItems => "same-items",
            Relation::Disjoint => "disjoint",
            Relation::UnionEqualsSource => "union-equals-source",
            Relation::Equal => "equal",
        })
    }
}

/// Where the original tool would stop with an exception; compat mode reports it instead.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{ty} on test {test}: parameter {param:?} has no value left to use (the MRG tool crashes here: nextInt(0))")]
pub struct Crash {
    pub ty: MrType,
    pub test: String,
    pub param: String,
}

/// A parameter the transformation may act on, and the values it may take.
struct Candidate {
    param: ParamId,
    values: Vec<String>,
}

/// One transformation bound to a type, a specification and its own random generator.
pub struct Transformation<'a> {
    pub ty: MrType,
    sut: &'a Sut,
    rng: JavaRandom,
    max_futcs: usize,
}

impl<'a> Transformation<'a> {
    pub fn new(ty: MrType, sut: &'a Sut, seed: i64, max_futcs: usize) -> Self {
        Transformation {
            ty,
            sut,
            rng: JavaRandom::new(seed),
            max_futcs,
        }
    }

    /// Valid follow-ups of `t`, `None` when the transformation does not apply or none is valid.
    pub fn transform(&mut self, t: &Test) -> Result<Option<Vec<Test>>, Crash> {
        let mut cands = self.candidates(t);
        if self.sut.mode == Mode::Native {
            // An empty pool means nothing to do, not a crash.
            let value_based = matches!(
                self.ty,
                MrType::ShufflingExtend | MrType::DisjointExtend | MrType::CompleteExtend
            );
            if value_based {
                cands.retain(|c| !c.values.is_empty());
            }
        }
        if cands.is_empty() {
            return Ok(None);
        }
        let follow_ups = self.apply(t, cands)?;
        let all = follow_ups.len();
        let valid: Vec<Test> = follow_ups
            .into_iter()
            .filter(|f| self.sut.violated(f).is_none())
            .collect();
        // A union relation with a missing part is wrong; the original keeps it.
        let partial_union = self.ty == MrType::CompleteExtend && valid.len() < all;
        if valid.is_empty() || (partial_union && self.sut.mode == Mode::Native) {
            return Ok(None);
        }
        Ok(Some(valid))
    }

    fn candidates(&self, t: &Test) -> Vec<Candidate> {
        let sut = self.sut;
        let blocked = sut.limit_block(t);
        let names = |ps: &[ParamId], keep: &dyn Fn(ParamId) -> bool, value: Option<&str>| {
            ps.iter()
                .copied()
                .filter(|&p| keep(p))
                .map(|p| Candidate {
                    param: p,
                    values: value.map(|v| vec![v.to_string()]).unwrap_or_default(),
                })
                .collect::<Vec<_>>()
        };
        let present_optional = |p: ParamId| t.has(p) && !sut.params[p].required;
        let absent = |p: ParamId| !t.has(p);
        match self.ty {
            _ if blocked
                && !matches!(self.ty, MrType::DisjointExtend | MrType::EquivalenceExtend) =>
            {
                Vec::new()
            }
            MrType::ConjunctiveContract => names(&sut.conjunctive, &present_optional, None),
            MrType::ConjunctiveExtend => names(&sut.conjunctive, &absent, Some(TBD)),
            MrType::DisjunctiveContract => names(&sut.disjunctive, &present_optional, None),
            MrType::DisjunctiveExtend => names(&sut.disjunctive, &absent, Some(TBD)),
            MrType::ShufflingContract => names(&sut.ordering, &present_optional, None),
            MrType::ShufflingExtend => sut
                .ordering
                .iter()
                .map(|&p| Candidate {
                    param: p,
                    values: others(sut.params[p].enum_values.as_deref().unwrap_or(&[]), t.get(p)),
                })
                .collect(),
            MrType::DisjointExtend => sut
                .disjoint
                .iter()
                .filter(|(p, vals)| t.get(*p).is_some_and(|v| vals.iter().any(|x| x == v)))
                .map(|(p, vals)| Candidate {
                    param: *p,
                    values: others(vals, t.get(*p)),
                })
                .collect(),
            MrType::CompleteExtend => sut
                .complete
                .iter()
                .filter_map(|(p, all)| {
                    let en = sut.params[*p].enum_values.as_deref().unwrap_or(&[]);
                    let values = match (t.get(*p), all) {
                        (Some(v), AllValue::Value(a)) if v == a => others(en, Some(v)),
                        (None, AllValue::Empty) => en.to_vec(),
                        _ => return None,
                    };
                    // One follow-up per value: the original counts the all-value too.
                    let size = match sut.mode {
                        Mode::Compat => en.len(),
                        Mode::Native => values.len(),
                    };
                    (size <= self.max_futcs).then_some(Candidate { param: *p, values })
                })
                .collect(),
            MrType::EquivalenceExtend => sut
                .with_default
                .iter()
                .copied()
                .filter(|&p| absent(p))
                .map(|p| Candidate {
                    param: p,
                    values: vec![sut.params[p].default.clone().unwrap_or_default()],
                })
                .collect(),
        }
    }

    fn apply(&mut self, t: &Test, mut cands: Vec<Candidate>) -> Result<Vec<Test>, Crash> {
        self.rng.shuffle(&mut cands);
        let mut follow_up = t.clone();
        match self.ty {
            MrType::ConjunctiveContract
            | MrType::DisjunctiveContract
            | MrType::ShufflingContract => {
                let n = self.rng.next_int_bounded(cands.len() as i32) as usize;
                for c in &cands[..=n] {
                    follow_up.remove(c.param);
                }
                Ok(vec![follow_up])
            }
            MrType::ConjunctiveExtend | MrType::DisjunctiveExtend | MrType::EquivalenceExtend => {
                let n = self.rng.next_int_bounded(cands.len() as i32) as usize;
                for c in &cands[..=n] {
                    follow_up.params.push((c.param, c.values[0].clone()));
                }
                Ok(vec![follow_up])
            }
            MrType::ShufflingExtend | MrType::DisjointExtend | MrType::CompleteExtend => {
                let c = &cands[0];
                if c.values.is_empty() {
                    return Err(Crash {
                        ty: self.ty,
                        test: t.id.clone(),
                        param: self.sut.name(c.param).to_string(),
                    });
                }
                let count = if self.ty == MrType::CompleteExtend {
                    c.values.len()
                } else {
                    let bound = c.values.len().min(self.max_futcs) as i32;
                    self.rng.next_int_bounded(bound) as usize + 1
                };
                Ok(c.values[..count]
                    .iter()
                    .map(|v| {
                        let mut f = t.clone();
                        f.set(c.param, v);
                        f
                    })
                    .collect())
            }
        }
    }
}

/// `values` without every occurrence of `current` (Java `removeAll`).
fn others(values: &[String], current: Option<&str>) -> Vec<String> {
    values
        .iter()
        .filter(|v| Some(v.as_str()) != current)
        .cloned()
        .collect()
}
