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
