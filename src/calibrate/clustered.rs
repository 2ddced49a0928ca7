//! The fidelity check's p-values, with the observed side's sessions taken
//! in their groups.
//!
//! Held-out sessions come in groups (a project, a person: [`super::group`]).
//! Values within a group are correlated — one person's sessions share a
//! codebase and habits, one session's gaps share its task — so the usual
//! two-sample tests, which take every value as an independent draw, give
//! p-values far too small and say "differs" where the data cannot say it.
//! Here each side's sampling variability is estimated by resampling its
//! *clusters* (held-out groups; the simulated side's runs), never its
//! values:
//!
//! - distributions ([`ks_p`]): the distance is Kolmogorov–Smirnov's
//!   `D = sup |F_obs − F_sim|`. Its distribution where the two agree is
//!   that of `sup |(F*_obs − F_obs) − (F*_sim − F_sim)|` over
//!   [`RESAMPLES`] resamples, each side's clusters drawn with replacement
//!   independently (so the simulated side's own noise counts too), each
//!   side's deviation scaled by `√(G/(G−1))` for its `G` clusters (the
//!   small-sample correction of a cluster variance). The p-value is the
//!   share of resampled distances at least `D`, `(1 + k)/(1 + B)`.
//! - shares ([`share_p`]): each side's share is a ratio of sums over its
//!   clusters, its variance the cluster-robust (linearized) one
//!   `G/(G−1) Σ (x_g − r n_g)² / N²`; the difference is referred to
//!   Student's t with Welch–Satterthwaite's degrees of freedom.
//!
//! Where every cluster holds one value, both reduce to the tests that take
//! values as independent (Kolmogorov's limit; the unpooled z-test), and
//! `clustered_tests` checks that, and that on clustered data of a known
//! distribution the verdicts hold their nominal 5%. Seeded: the same
//! values and seed give the same p on every machine.

use super::bootstrap::Resampler;
use super::chi2::ln_gamma;
use super::ks::normal_cdf;

/// Resamples a distribution's p-value rests on: the smallest p it can give
/// is 1/1000, and its Monte Carlo error at p = 0.05 is about 0.007.
pub const RESAMPLES: usize = 999;

/// Fewer groups than this behind a statistic's observed values and it
/// gets no verdict. A group resample of G groups estimates the between-
/// group variance from G − 1 degrees of freedom: with 4 groups Student's
/// 5% critical value is 3.18, not 1.96, and a bootstrap of four clusters
/// has 35 distinct resamples, too coarse for a 5% tail.
pub const MIN_GROUPS: usize = 5;

/// The p-value of "the same distribution" for `observed` values in their
/// clusters against `simulated` values in theirs, from `resamples` group
/// resamples seeded by `seed` (`None` when either side has no value).
pub fn ks_p(observed: &[&[f64]], simulated: &[&[f64]], resamples: usize, seed: u64) -> Option<f64> {
    let grid = grid(observed, simulated);
    let observed = Clusters::on(&grid, observed)?;
    let simulated = Clusters::on(&grid, simulated)?;
    let distance = largest_gap(&observed.cdf, &simulated.cdf);
    let mut resampler = Resampler::new(seed);
    let (mut o_star, mut s_star) = (vec![0.0; grid.len()], vec![0.0; grid.len()]);
    let mut at_least = 0usize;
    for _ in 0..resamples {
        observed.resample(&mut resampler, &mut o_star);
        simulated.resample(&mut resampler, &mut s_star);
        let (a, b) = (observed.scale, simulated.scale);
        let resampled = o_star
            .iter()
            .zip(&observed.cdf)
            .zip(s_star.iter().zip(&simulated.cdf))
            .map(|((o, o_cdf), (s, s_cdf))| (a * (o - o_cdf) - b * (s - s_cdf)).abs())
            .fold(0.0f64, f64::max);
        // A relative tolerance: equal distances computed in another order.
        if resampled >= distance * (1.0 - 1e-9) {
            at_least += 1;
        }
    }
    Some((1.0 + at_least as f64) / (1.0 + resamples as f64))
}

/// Every value of both sides, sorted, each once.
fn grid(observed: &[&[f64]], simulated: &[&[f64]]) -> Vec<f64> {
    let mut grid: Vec<f64> = observed
        .iter()
        .chain(simulated)
        .flat_map(|c| c.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    grid.sort_by(f64::total_cmp);
    grid.dedup();
    grid
}

/// Kolmogorov–Smirnov's D of two distribution functions on one grid.
fn largest_gap(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// One side's non-empty clusters, each value as its place on the grid,
/// and the side's distribution function on the grid.
struct Clusters {
    members: Vec<Vec<usize>>,
    cdf: Vec<f64>,
    /// `√(G/(G−1))`, 1 for a single cluster.
    scale: f64,
}

impl Clusters {
    fn on(grid: &[f64], clusters: &[&[f64]]) -> Option<Self> {
        let members: Vec<Vec<usize>> = clusters
            .iter()
            .map(|c| {
                c.iter()
                    .filter(|v| v.is_finite())
                    .map(|v| grid.partition_point(|g| g.total_cmp(v).is_lt()))
                    .collect::<Vec<usize>>()
            })
            .filter(|c| !c.is_empty())
            .collect();
        if members.is_empty() {
            return None;
        }
        let g = members.len() as f64;
        let mut side = Self {
            scale: if members.len() > 1 {
                (g / (g - 1.0)).sqrt()
            } else {
                1.0
            },
            cdf: Vec::new(),
            members,
        };
        // The side's own distribution function: every cluster once.
        let mut cdf = vec![0.0; grid.len()];
        side.fill(0..side.members.len(), &mut cdf);
        side.cdf = cdf;
        Some(side)
    }

    /// `cdf` set to the distribution function of the clusters `picked`.
    fn fill(&self, picked: impl Iterator<Item = usize>, cdf: &mut [f64]) {
        cdf.fill(0.0);
        let mut total = 0usize;
        for cluster in picked.filter_map(|i| self.members.get(i)) {
            total += cluster.len();
            for &u in cluster {
                if let Some(slot) = cdf.get_mut(u) {
                    *slot += 1.0;
                }
            }
        }
        let mut running = 0.0;
        for slot in cdf.iter_mut() {
            running += *slot;
            *slot = running / total.max(1) as f64;
        }
    }

    /// `cdf` set to the distribution function of one resample of the
    /// clusters (as many as there are, with replacement).
    fn resample(&self, resampler: &mut Resampler, cdf: &mut [f64]) {
        let picks = resampler.resample(self.members.len());
        self.fill(picks.into_iter(), cdf);
    }
}

/// The two-sided p-value of "the same share" for `observed` clusters'
/// `(events, chances)` against `simulated` clusters' (`None` when either
/// side has no chance).
pub fn share_p(observed: &[(f64, f64)], simulated: &[(f64, f64)]) -> Option<f64> {
    let (r_o, v_o, g_o) = ratio_variance(observed)?;
    let (r_s, v_s, g_s) = ratio_variance(simulated)?;
    let difference = (r_o - r_s).abs();
    let variance = v_o + v_s;
    // No variance on either side (up to rounding: a standard error below
    // 1e-9 of a share is none): equal up to rounding, or not equal.
    if variance.sqrt() < 1e-9 {
        return Some(if difference < 1e-9 { 1.0 } else { 0.0 });
    }
    // Welch–Satterthwaite; a side of one cluster adds no variance.
    let part = |v: f64, g: usize| {
        if g > 1 { v * v / (g - 1) as f64 } else { 0.0 }
    };
    let denominator = part(v_o, g_o) + part(v_s, g_s);
    let df = if denominator > 0.0 {
        variance * variance / denominator
    } else {
        f64::INFINITY
    };
    Some(student_two_sided(difference / variance.sqrt(), df))
}

/// A cluster's `(events, chances)` of two shares.
pub type Paired = ((f64, f64), (f64, f64));

/// The two-sided p-value of "the same share" for two shares counted in the
/// same clusters (`((events, chances), (events, chances))` a cluster), and
/// how many clusters count either (`None` when either share has no
/// chance). The two are not independent, so the variance is that of the
/// clusters' contributions to the difference, `G/(G−1) Σ d_g²` with
/// `d_g = (x_g − r·n_g)/N − (y_g − s·m_g)/M`, referred to Student's t with
/// G − 1 degrees of freedom.
pub fn paired_share_p(clusters: &[Paired]) -> Option<(f64, usize)> {
    let used: Vec<_> = clusters
        .iter()
        .filter(|(a, b)| a.1 > 0.0 || b.1 > 0.0)
        .collect();
    let sum = |pick: fn(&Paired) -> (f64, f64)| {
        used.iter()
            .map(|c| pick(c))
            .fold((0.0, 0.0), |(x, n), c| (x + c.0, n + c.1))
    };
    let ((x, n), (y, m)) = (sum(|c| c.0), sum(|c| c.1));
    if n <= 0.0 || m <= 0.0 {
        return None;
    }
    let (r, s) = (x / n, y / m);
    let g = used.len();
    let squares: f64 = used
        .iter()
        .map(|(a, b)| ((a.0 - r * a.1) / n - (b.0 - s * b.1) / m).powi(2))
        .sum();
    let variance = if g > 1 {
        g as f64 / (g - 1) as f64 * squares
    } else {
        0.0
    };
    let difference = (r - s).abs();
    if variance.sqrt() < 1e-9 {
        return Some((if difference < 1e-9 { 1.0 } else { 0.0 }, g));
    }
    let df = g.saturating_sub(1) as f64;
    Some((student_two_sided(difference / variance.sqrt(), df), g))
}

/// The ratio of sums of non-empty clusters, its cluster-robust variance
/// and the number of clusters.
fn ratio_variance(clusters: &[(f64, f64)]) -> Option<(f64, f64, usize)> {
    let used: Vec<(f64, f64)> = clusters.iter().copied().filter(|c| c.1 > 0.0).collect();
    let (x, n) = used.iter().fold((0.0, 0.0), |(a, b), c| (a + c.0, b + c.1));
    if n <= 0.0 {
        return None;
    }
    let ratio = x / n;
    let g = used.len();
    if g < 2 {
        return Some((ratio, 0.0, g));
    }
    let squares: f64 = used.iter().map(|(x, n)| (x - ratio * n).powi(2)).sum();
    let variance = g as f64 / (g - 1) as f64 * squares / (n * n);
    Some((ratio, variance, g))
}

/// `P(|T| ≥ t)` for Student's t with `df` degrees of freedom (the normal
/// tail from a million on).
pub fn student_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    if df.is_nan() || df <= 0.0 {
        return 1.0;
    }
    if df > 1e6 {
        return (2.0 * (1.0 - normal_cdf(t.abs()))).clamp(0.0, 1.0);
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// The regularized incomplete beta `I_x(a, b)` (Numerical Recipes §6.4).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta, by Lentz's method.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let even = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-14 {
            break;
        }
    }
    h
}

#[cfg(test)]
#[path = "clustered_tests.rs"]
mod tests;
