//! Random generation of metamorphic relations (MRG's `RandomMRGenerator`).
//!
//! For every source test (in file order) and every pattern (in [`MrType::ALL`] order), the
//! generator makes `search_strength × relevant parameters` tries. Each try draws one `nextLong()`
//! from the run's generator to seed that try's transformation, whether or not it applies, so the
//! sequence of draws, and so the output, matches the original.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::javarandom::JavaRandom;
use crate::render;
use crate::sut::{Mode, Sut, Test};
use crate::transform::{Crash, MrType, Transformation};

#[derive(Debug, Clone)]
pub struct Options {
    pub seed: i64,
    pub search_strength: usize,
    /// Most follow-up tests per relation (≥ 1).
    pub max_futcs: usize,
    /// Most relations of one pattern per source test (`None`: no limit).
    pub max_per_test: Option<usize>,
    /// Native mode: relations that differ only in the order of their follow-ups are duplicates.
    pub unordered_duplicates: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 1,
            search_strength: 1,
            max_futcs: 6,
            max_per_test: None,
            unordered_duplicates: false,
        }
    }
}

/// One metamorphic relation: a source test, its follow-ups, and the relation their outputs obey.
#[derive(Debug, Clone)]
pub struct Mr {
    pub id: String,
    pub ty: MrType,
    pub source: Test,
    pub follow_ups: Vec<Test>,
}

/// One run's relations (in output order) and what it took.
#[derive(Debug, Clone)]
pub struct Run {
    pub seed: i64,
    pub mrs: Vec<Mr>,
    pub tries: usize,
    pub elapsed: Duration,
}

impl Run {
    pub fn count(&self, ty: MrType) -> usize {
        self.mrs.iter().filter(|m| m.ty == ty).count()
    }

    /// (min, max, mean) follow-ups per relation; `None` without relations.
    pub fn follow_up_stats(&self) -> Option<(usize, usize, f64)> {
        let sizes = self.mrs.iter().map(|m| m.follow_ups.len());
        let min = sizes.clone().min()?;
        let max = sizes.clone().max()?;
        let mean = sizes.sum::<usize>() as f64 / self.mrs.len() as f64;
        Some((min, max, mean))
    }
}

/// Generates one run. The relations come back shuffled with the run's generator, as the original
/// writes them.
pub fn generate(sut: &Sut, tests: &[Test], opts: &Options) -> Result<Run, Crash> {
    let start = Instant::now();
    let mut rng = JavaRandom::new(opts.seed);
    let mut mrs: Vec<Mr> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut tries = 0;
    for stc in tests {
        for ty in MrType::ALL {
            let mut accepted = 0;
            for _ in 0..ty.relevant(sut) * opts.search_strength {
                tries += 1;
                let mut tr = Transformation::new(ty, sut, rng.next_long(), opts.max_futcs);
                if let Some(follow_ups) = relation(&mut tr, stc, opts.max_futcs)? {
                    let mr = Mr {
                        id: String::new(),
                        ty,
                        source: stc.clone(),
                        follow_ups,
                    };
                    let key = match (sut.mode, opts.unordered_duplicates) {
                        (Mode::Native, true) => render::unordered_key(sut, &mr),
                        _ => render::body(sut, &mr),
                    };
                    if seen.insert(key) {
                        mrs.push(Mr {
                            id: format!("MR{}", mrs.len()),
                            ..mr
                        });
                        accepted += 1;
                    }
                }
                if opts.max_per_test == Some(accepted) {
                    break;
                }
            }
        }
    }
    rng.shuffle(&mut mrs);
    Ok(Run {
        seed: opts.seed,
        mrs,
        tries,
        elapsed: start.elapsed(),
    })
}

/// The follow-ups of one try: chain types re-apply the transformation to the last follow-up until
/// it gives nothing or `max_futcs` is reached.
fn relation(
    tr: &mut Transformation,
    stc: &Test,
    max_futcs: usize,
) -> Result<Option<Vec<Test>>, Crash> {
    let Some(mut follow_ups) = tr.transform(stc)? else {
        return Ok(None);
    };
    if tr.ty.chains() {
        while follow_ups.len() < max_futcs {
            let last = follow_ups.last().expect("non-empty");
            match tr.transform(last)? {
                Some(next) => follow_ups.extend(next.into_iter().take(1)),
                None => break,
            }
        }
    }
    Ok(Some(follow_ups))
}
