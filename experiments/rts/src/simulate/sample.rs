//! Random streams and the few distributions the simulator draws from (no `rand_distr`: the
//! workspace does not depend on it, and these are short).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a random stream is used for. Each purpose (and version) gets its own ChaCha stream, so
/// drawing more of one (e.g. more traffic) never shifts the draws of another (e.g. the tests).
#[derive(Debug, Clone, Copy)]
pub enum Purpose {
    Topology = 1,
    Variants = 2,
    Evolve = 3,
    Suite = 4,
    Faults = 5,
    Traffic = 6,
}

/// The stream of `purpose` for `index` (a version number, or 0) under `seed`.
pub fn stream(seed: u64, purpose: Purpose, index: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((purpose as u64) << 32) | u64::from(index));
    rng
}

/// A uniform draw in (0, 1], safe to invert or take the logarithm of.
pub fn open_unit(rng: &mut impl Rng) -> f64 {
    1.0 - rng.random::<f64>()
}

/// A heavy-tailed count ≥ 0: a discrete Pareto with `P(k ≥ m) = (m + 1)^-alpha`, capped at `cap`.
/// Smaller `alpha` gives a heavier tail (more large fan-outs).
pub fn heavy_tail(rng: &mut impl Rng, alpha: f64, cap: usize) -> usize {
    let x = open_unit(rng).powf(-1.0 / alpha).floor() - 1.0;
    if x >= cap as f64 { cap } else { x as usize }
}

/// A standard normal draw (Box–Muller).
pub fn normal(rng: &mut impl Rng) -> f64 {
    let (u, v) = (open_unit(rng), rng.random::<f64>());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Zipf weights `1 / rank^s` for ranks 1..=n.
pub fn zipf_weights(n: usize, s: f64) -> Vec<f64> {
    (1..=n).map(|r| (r as f64).powf(-s)).collect()
}

/// Draws indices in proportion to fixed weights (cumulative table, binary search).
#[derive(Debug, Clone)]
pub struct Weighted {
    cumulative: Vec<f64>,
}

impl Weighted {
    /// `None` when there is nothing to draw (no weights, or none positive).
    pub fn new(weights: &[f64]) -> Option<Weighted> {
        let mut total = 0.0;
        let cumulative: Vec<f64> = weights
            .iter()
            .map(|w| {
                total += if w.is_finite() && *w > 0.0 { *w } else { 0.0 };
                total
            })
            .collect();
        (total > 0.0).then_some(Weighted { cumulative })
    }

    pub fn sample(&self, rng: &mut impl Rng) -> usize {
        let total = *self.cumulative.last().expect("Weighted::new refuses empty tables");
        let x = rng.random::<f64>() * total;
        // The first index whose cumulative weight exceeds x; zero-weight entries are never drawn.
        self.cumulative.partition_point(|c| *c <= x).min(self.cumulative.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_of_each_other_and_reproducible() {
        let a: u64 = stream(7, Purpose::Suite, 0).random();
        assert_eq!(a, stream(7, Purpose::Suite, 0).random::<u64>());
        assert_ne!(a, stream(7, Purpose::Traffic, 0).random::<u64>());
        assert_ne!(a, stream(7, Purpose::Suite, 1).random::<u64>());
    }

    #[test]
    fn heavy_tail_is_mostly_small_with_rare_large_values() {
        let mut rng = stream(1, Purpose::Topology, 0);
        let draws: Vec<usize> = (0..10_000).map(|_| heavy_tail(&mut rng, 1.5, 20)).collect();
        let zeros = draws.iter().filter(|&&k| k == 0).count() as f64 / 1e4;
        assert!((zeros - (1.0 - 2f64.powf(-1.5))).abs() < 0.03, "{zeros}");
        assert!(draws.iter().any(|&k| k >= 8));
        assert!(draws.iter().all(|&k| k <= 20));
    }

    #[test]
    fn weighted_follows_the_weights_and_skips_zeros() {
        let w = Weighted::new(&[0.0, 3.0, 0.0, 1.0]).unwrap();
        let mut rng = stream(2, Purpose::Traffic, 0);
        let mut counts = [0usize; 4];
        for _ in 0..8_000 {
            counts[w.sample(&mut rng)] += 1;
        }
        assert_eq!((counts[0], counts[2]), (0, 0));
        assert!((counts[1] as f64 / 8_000.0 - 0.75).abs() < 0.03);
        assert!(Weighted::new(&[]).is_none() && Weighted::new(&[0.0]).is_none());
    }

    #[test]
    fn normal_has_unit_spread() {
        let mut rng = stream(3, Purpose::Suite, 0);
        let xs: Vec<f64> = (0..20_000).map(|_| normal(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.03 && (var - 1.0).abs() < 0.05, "{mean} {var}");
    }
}
