//! The statistics behind the report, chosen to be honest at small n and
//! deterministic (no clock, no thread timing: the bootstrap has a fixed seed).
//!
//! - mean of per-run completion with a Student-t 95% interval, clipped to
//!   [0, 1];
//! - proportions (full completion) with the Wilson 95% interval;
//! - pass^k as tau-bench defines it: C(c, k) / C(n, k) for c successes in
//!   n runs, the unbiased chance that k runs drawn without replacement all
//!   succeed;
//! - paired comparisons: the mean per-seed difference with a paired
//!   bootstrap percentile interval, an exact two-sided sign test on the
//!   per-seed differences, and an exact McNemar test on full completion.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (table
/// up to 30, a Cornish-Fisher expansion beyond, accurate to 1e-4 there).
pub fn t975(df: usize) -> f64 {
    if df == 0 {
        return f64::INFINITY;
    }
    if let Some(t) = T975.get(df - 1) {
        return *t;
    }
    let z = Z95;
    let n = df as f64;
    z + (z.powi(3) + z) / (4.0 * n)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        + (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / (384.0 * n.powi(3))
}

/// Mean with a t-based 95% interval, clipped to [lo, hi]. With one value the
/// interval is that value (a scripted run has no variance to estimate).
pub fn mean_ci95(values: &[f64], lo: f64, hi: f64) -> (f64, [f64; 2]) {
    let m = mean(values);
    let n = values.len();
    if n < 2 {
        return (m, [m, m]);
    }
    let var = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t975(n - 1) * (var / n as f64).sqrt();
    (m, [(m - half).max(lo), (m + half).min(hi)])
}

/// The Wilson 95% interval of `successes` out of `n`.
pub fn wilson_ci95(successes: usize, n: usize) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let n = n as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// pass^k = C(c, k) / C(n, k); `None` when k > n or k = 0.
pub fn pass_hat_k(successes: usize, n: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    let mut ratio = 1.0;
    for i in 0..k {
        if successes < i + 1 {
            return Some(0.0);
        }
        ratio *= (successes - i) as f64 / (n - i) as f64;
    }
    Some(ratio)
}

/// ln C(n, k).
fn ln_choose(n: u64, k: u64) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// ln n!, exact summation for small n, Stirling's series beyond.
fn ln_factorial(n: u64) -> f64 {
    if n < 256 {
        return (2..=n).map(|i| (i as f64).ln()).sum();
    }
    let x = n as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x.powi(3))
}

/// Exact two-sided binomial test of `k` successes in `n` against p = 1/2:
/// twice the smaller tail, capped at 1. `n = 0` gives 1.
pub fn binomial_two_sided(k: u64, n: u64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let tail_to = k.min(n - k);
    let ln_half_n = n as f64 * 0.5f64.ln();
    let tail: f64 = (0..=tail_to)
        .map(|i| (ln_choose(n, i) + ln_half_n).exp())
        .sum();
    (2.0 * tail).min(1.0)
}

/// A paired comparison of a against b on per-seed values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairedComparison {
    pub pairs: usize,
    /// Mean of a - b over pairs.
    pub mean_diff: f64,
    pub diff_ci95: [f64; 2],
    /// Pairs where a > b, and where a < b.
    pub a_better: usize,
    pub b_better: usize,
    /// Exact sign test p-value (two-sided).
    pub p_value: f64,
}

/// Bootstrap resamples for the paired interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// Compares paired values (a_i, b_i).
pub fn paired(pairs: &[(f64, f64)]) -> PairedComparison {
    let diffs: Vec<f64> = pairs.iter().map(|(a, b)| a - b).collect();
    paired_diffs(&diffs)
}

/// As [`paired`], from each pair's difference `a - b`.
pub fn paired_diffs(diffs: &[f64]) -> PairedComparison {
    let a_better = diffs.iter().filter(|d| **d > 0.0).count();
    let b_better = diffs.iter().filter(|d| **d < 0.0).count();
    PairedComparison {
        pairs: diffs.len(),
        mean_diff: mean(diffs),
        diff_ci95: bootstrap_mean_ci95(diffs),
        a_better,
        b_better,
        p_value: binomial_two_sided(a_better as u64, (a_better + b_better) as u64),
    }
}

/// Beyond this many values the bootstrap's cost (resamples × values)
/// buys nothing: the mean's interval is the normal one to three decimals.
pub const BOOTSTRAP_MAX_VALUES: usize = 10_000;

/// Percentile bootstrap interval of the mean, with a fixed seed; the
/// normal interval (mean ± z·sd/√n) beyond [`BOOTSTRAP_MAX_VALUES`]
/// values, so that 100,000 paired seeds cost milliseconds, not minutes.
pub fn bootstrap_mean_ci95(values: &[f64]) -> [f64; 2] {
    let n = values.len();
    if n == 0 {
        return [0.0, 0.0];
    }
    if let [only] = values {
        return [*only, *only];
    }
    if n > BOOTSTRAP_MAX_VALUES {
        let m = mean(values);
        let variance = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = Z95 * (variance / n as f64).sqrt();
        return [m - half, m + half];
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0x005e_ed0f_b007);
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            let total: f64 = (0..n)
                .filter_map(|_| values.get((rng.next_u64() % n as u64) as usize))
                .sum();
            total / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    // The place is at most BOOTSTRAP_RESAMPLES - 1: always one of the means.
    let at = |q: f64| {
        let place =
            ((q * (BOOTSTRAP_RESAMPLES - 1) as f64).round() as usize).min(BOOTSTRAP_RESAMPLES - 1);
        means.get(place).copied().unwrap_or_default()
    };
    [at(0.025), at(0.975)]
}

/// Exact McNemar test on paired booleans: the discordant pairs and p.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct McNemar {
    /// Pairs where only a succeeded, and where only b did.
    pub only_a: usize,
    pub only_b: usize,
    pub p_value: f64,
}

pub fn mcnemar(pairs: &[(bool, bool)]) -> McNemar {
    let only_a = pairs.iter().filter(|(a, b)| *a && !*b).count();
    let only_b = pairs.iter().filter(|(a, b)| !*a && *b).count();
    mcnemar_counts(only_a, only_b)
}

/// As [`mcnemar`], from the counts of pairs where only `a` and only `b`
/// is true.
pub fn mcnemar_counts(only_a: usize, only_b: usize) -> McNemar {
    McNemar {
        only_a,
        only_b,
        p_value: binomial_two_sided(only_a as u64, (only_a + only_b) as u64),
    }
}

/// Rounds to 6 decimals so reports read well and stay byte-stable.
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn t_quantiles() {
        assert!(close(t975(1), 12.706));
        assert!(close(t975(30), 2.042));
        assert!(close(t975(60), 2.000));
        assert!(close(t975(120), 1.980));
    }

    #[test]
    fn many_values_take_the_normal_interval() {
        let values: Vec<f64> = (0..20_000).map(|i| f64::from(i % 2)).collect();
        let [lo, hi] = bootstrap_mean_ci95(&values);
        let half = Z95 * (0.25 * 20_000.0 / 19_999.0 / 20_000.0f64).sqrt();
        assert!((lo - (0.5 - half)).abs() < 1e-12 && (hi - (0.5 + half)).abs() < 1e-12);
    }

    #[test]
    fn intervals() {
        let (m, ci) = mean_ci95(&[0.5, 0.5, 0.5], 0.0, 1.0);
        assert_eq!((m, ci), (0.5, [0.5, 0.5]));
        let (m, ci) = mean_ci95(&[0.0, 1.0], 0.0, 1.0);
        assert_eq!(m, 0.5);
        assert_eq!(ci, [0.0, 1.0]);
        let w = wilson_ci95(5, 10);
        assert!(close(w[0], 0.2366) && close(w[1], 0.7634), "{w:?}");
        assert_eq!(wilson_ci95(0, 10)[0], 0.0);
    }

    #[test]
    fn pass_hat_k_is_tau_bench() {
        assert_eq!(pass_hat_k(3, 4, 1), Some(0.75));
        assert_eq!(pass_hat_k(3, 4, 2), Some(0.5));
        assert_eq!(pass_hat_k(1, 4, 2), Some(0.0));
        assert_eq!(pass_hat_k(4, 4, 4), Some(1.0));
        assert_eq!(pass_hat_k(4, 4, 5), None);
    }

    #[test]
    fn exact_binomial() {
        assert!(close(binomial_two_sided(0, 5), 0.0625));
        assert!(close(binomial_two_sided(2, 4), 1.0));
        assert!(close(binomial_two_sided(1, 10), 0.02148));
        // Large n uses Stirling; still a valid probability.
        let p = binomial_two_sided(600, 1000);
        assert!(p > 0.0 && p < 1e-9, "{p}");
    }

    #[test]
    fn paired_and_mcnemar() {
        let pairs = [(1.0, 0.5), (1.0, 0.5), (0.5, 0.5), (1.0, 0.0)];
        let c = paired(&pairs);
        assert_eq!((c.pairs, c.a_better, c.b_better), (4, 3, 0));
        assert!(close(c.mean_diff, 0.5));
        assert!(c.diff_ci95[0] <= c.mean_diff && c.mean_diff <= c.diff_ci95[1]);
        assert!(close(c.p_value, 0.25));
        let m = mcnemar(&[(true, false), (true, false), (true, true), (false, true)]);
        assert_eq!((m.only_a, m.only_b), (2, 1));
        assert!(close(m.p_value, 1.0));
    }
}
