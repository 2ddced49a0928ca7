//! Value-stable randomness for the simulated model: the run seed of a
//! (scenario, seed index) pair, one ChaCha8 stream per turn, and the draws
//! made from it.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// A fixed, platform-independent hash of a scenario name (FNV-1a, 64 bit).
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64's finalizer: a fixed bijective mix.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator seed of run `seed` of a scenario. The cell's settings are
/// deliberately left out: cells that differ in one setting then share their
/// random streams seed for seed, which sharpens paired comparisons.
pub fn run_seed(scenario_name: &str, seed: u64) -> u64 {
    mix(name_hash(scenario_name) ^ mix(seed))
}

/// The stream of turn `turn` of a run seeded with `seed`.
pub(super) fn rng_for_turn(seed: u64, turn: usize) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&(turn as u64).to_le_bytes());
    key[16..24].copy_from_slice(b"s03-sim1");
    ChaCha8Rng::from_seed(key)
}

/// A uniform number in [0, 1) from 53 random bits.
pub(super) fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// An index below `len` (which must not be 0).
pub(super) fn below(rng: &mut ChaCha8Rng, len: usize) -> usize {
    (rng.next_u64() % len as u64) as usize
}

/// An index drawn with the given (non-negative, not all zero) weights.
pub(super) fn pick(rng: &mut ChaCha8Rng, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = uniform(rng) * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.len().saturating_sub(1)
}

/// The stream of a run's session-level draws (its update rate): apart from
/// every turn's stream, so drawing it changes no turn's choices.
pub(super) fn rng_for_session(seed: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[16..24].copy_from_slice(b"s03-sess");
    ChaCha8Rng::from_seed(key)
}

/// The stream of a run's draw of whether it plans at all: apart from the
/// update rate's, so drawing it changes no other draw.
pub(super) fn rng_for_plans_at_all(seed: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[16..24].copy_from_slice(b"s03-plan");
    ChaCha8Rng::from_seed(key)
}

/// A draw from Beta(mean `mean`, intra-class correlation `dispersion`):
/// shape parameters `a = mean · (1/d − 1)`, `b = (1 − mean) · (1/d − 1)`,
/// so the variance is `d · mean · (1 − mean)`. A degenerate case (no
/// dispersion, a mean of 0 or 1) is the mean itself.
pub(super) fn beta(rng: &mut ChaCha8Rng, mean: f64, dispersion: f64) -> f64 {
    if dispersion <= 0.0 || mean <= 0.0 || mean >= 1.0 || dispersion >= 1.0 {
        return mean;
    }
    let total = 1.0 / dispersion - 1.0;
    let x = gamma(rng, mean * total);
    let y = gamma(rng, (1.0 - mean) * total);
    if x + y > 0.0 { x / (x + y) } else { mean }
}

/// A Gamma(`shape`, 1) draw (Marsaglia and Tsang; a shape below 1 boosted
/// by `U^(1/shape)`).
fn gamma(rng: &mut ChaCha8Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let boost = uniform(rng).max(f64::MIN_POSITIVE).powf(1.0 / shape);
        return gamma(rng, shape + 1.0) * boost;
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let z = normal(rng);
        let v = (1.0 + c * z).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = uniform(rng).max(f64::MIN_POSITIVE);
        if u.ln() < 0.5 * z * z + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u = uniform(rng).max(f64::MIN_POSITIVE);
    let v = uniform(rng);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The draws have the mean and variance the parameters promise.
    #[test]
    fn beta_draws_have_the_promised_mean_and_variance() {
        let mut rng = rng_for_session(7);
        let (mean, dispersion) = (0.2, 0.3);
        let draws: Vec<f64> = (0..20_000)
            .map(|_| beta(&mut rng, mean, dispersion))
            .collect();
        let m = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - m).powi(2)).sum::<f64>() / draws.len() as f64;
        assert!((m - mean).abs() < 0.01, "{m}");
        let want = dispersion * mean * (1.0 - mean);
        assert!((var - want).abs() < 0.1 * want, "{var} vs {want}");
        assert_eq!(beta(&mut rng, 0.3, 0.0), 0.3);
    }
}
