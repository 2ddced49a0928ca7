//! The 95% intervals of calibration: sessions resampled with replacement
//! (a session's turns are not independent of each other; sessions are),
//! seeded and deterministic — the same sessions and seed give the same
//! interval on every machine.

use crate::model::simulated::mix;

/// How many resamples an interval rests on.
pub const RESAMPLES: usize = 400;

/// A deterministic stream of indices below `len` (SplitMix64 over a
/// counter: value-stable, no platform dependence).
pub struct Resampler {
    seed: u64,
    counter: u64,
}

impl Resampler {
    pub fn new(seed: u64) -> Self {
        Self { seed, counter: 0 }
    }

    /// The next index below `len` (`len` > 0).
    pub fn below(&mut self, len: usize) -> usize {
        self.counter += 1;
        (mix(self.seed ^ mix(self.counter)) % len.max(1) as u64) as usize
    }

    /// One resample of `len` indices.
    pub fn resample(&mut self, len: usize) -> Vec<usize> {
        (0..len).map(|_| self.below(len)).collect()
    }
}

/// The ratio of sums `Σ num / Σ den` over sessions, or `None` when no
/// session has any event.
pub fn ratio(per_session: &[(f64, f64)]) -> Option<f64> {
    let (num, den) = per_session
        .iter()
        .fold((0.0, 0.0), |(n, d), (a, b)| (n + a, d + b));
    (den > 0.0).then(|| num / den)
}

/// The percentile interval (2.5%, 97.5%) of `statistic` over
/// [`RESAMPLES`] resamples of the sessions.
pub fn interval<T>(
    per_session: &[T],
    seed: u64,
    statistic: impl Fn(&[&T]) -> Option<f64>,
) -> Option<[f64; 2]> {
    if per_session.is_empty() {
        return None;
    }
    let mut resampler = Resampler::new(seed);
    let mut values: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let picked: Vec<&T> = resampler
                .resample(per_session.len())
                .into_iter()
                .filter_map(|i| per_session.get(i))
                .collect();
            statistic(&picked).filter(|v| v.is_finite())
        })
        .collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some([quantile(&values, 0.025), quantile(&values, 0.975)])
}

/// The `q` quantile of sorted `values` (linear between order statistics).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let low = position.floor() as usize;
    let high = position.ceil() as usize;
    match (sorted.get(low), sorted.get(high).or(sorted.last())) {
        (Some(&a), Some(&b)) => a + (b - a) * (position - low as f64),
        _ => f64::NAN,
    }
}

/// The interval of a ratio of sums over sessions.
pub fn ratio_interval(per_session: &[(f64, f64)], seed: u64) -> Option<[f64; 2]> {
    interval(per_session, seed, |picked| {
        let pairs: Vec<(f64, f64)> = picked.iter().map(|p| **p).collect();
        ratio(&pairs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_deterministic_and_holds_the_ratio() {
        let sessions: Vec<(f64, f64)> = (0..40).map(|i| (f64::from(i % 3 == 0), 1.0)).collect();
        let a = ratio_interval(&sessions, 7).unwrap();
        let b = ratio_interval(&sessions, 7).unwrap();
        assert_eq!(a, b);
        let value = ratio(&sessions).unwrap();
        assert!(a[0] < value && value < a[1], "{a:?} around {value}");
        assert!(a[1] - a[0] < 0.4);
    }

    #[test]
    fn quantiles_interpolate() {
        assert_eq!(quantile(&[0.0, 1.0], 0.5), 0.5);
        assert_eq!(quantile(&[2.0], 0.9), 2.0);
    }
}
