//! The fidelity p-values' coverage on data with a known truth: clustered
//! samples drawn from a known distribution, against a large sample of the
//! same distribution (a verdict of "differs" is then wrong) and of another
//! one (then right). The tests that take values as independent say
//! "differs" far more often than 5% on such data; the group-resampled ones
//! hold 5%, and still see a real difference.

use super::*;
use crate::calibrate::ks::{two_proportion_p, two_sample};
use crate::model::simulated::mix;

/// Replicates of each coverage test.
const REPLICATES: u64 = 200;

/// Fewer resamples than the check's, for speed in a debug build: only the
/// Monte Carlo error of each p grows (about 0.02 at p = 0.05), which
/// averages out over the replicates.
const TEST_RESAMPLES: usize = 99;

/// Seeded uniform and normal draws (SplitMix64, Box–Muller).
struct Draws(u64);

impl Draws {
    fn uniform(&mut self) -> f64 {
        self.0 += 1;
        ((mix(self.0 ^ 0x9e37_79b9) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    fn bernoulli(&mut self, p: f64) -> f64 {
        f64::from(u8::from(self.uniform() < p))
    }
}

/// `groups` groups of `size` values, each `N(0, 1)` in all: a group mean
/// `N(0, ½)` plus a value's own `N(0, ½)` (half the variance between
/// groups), shifted by `shift`.
fn clustered_normal(draws: &mut Draws, groups: usize, size: usize, shift: f64) -> Vec<Vec<f64>> {
    let half = 0.5f64.sqrt();
    (0..groups)
        .map(|_| {
            let mean = half * draws.normal();
            (0..size)
                .map(|_| shift + mean + half * draws.normal())
                .collect()
        })
        .collect()
}

/// `n` independent values of `N(0, 1)`, each its own cluster.
fn singletons(draws: &mut Draws, n: usize) -> Vec<Vec<f64>> {
    (0..n).map(|_| vec![draws.normal()]).collect()
}

fn slices(clusters: &[Vec<f64>]) -> Vec<&[f64]> {
    clusters.iter().map(Vec::as_slice).collect()
}

fn flat(clusters: &[Vec<f64>]) -> Vec<f64> {
    clusters.iter().flatten().copied().collect()
}

/// Out of [`REPLICATES`] at a true 5%, the count of "differs" lies in
/// 3..=18 with probability above 99% (binomial 200, 0.05: mean 10, sd 3.1).
fn within_nominal(count: u64) -> bool {
    (3..=18).contains(&count)
}

#[test]
fn student_t_tails_are_the_tables() {
    assert!((student_two_sided(2.228, 10.0) - 0.05).abs() < 5e-4);
    assert!((student_two_sided(12.706, 1.0) - 0.05).abs() < 5e-4);
    assert!((student_two_sided(1.96, 1e7) - 0.05).abs() < 5e-4);
    assert!((student_two_sided(2.045, 29.0) - 0.05).abs() < 5e-4);
    assert_eq!(student_two_sided(0.0, 5.0), 1.0);
}

/// Every group one value: the group-resampled KS p is Kolmogorov's.
#[test]
fn one_value_a_group_gives_the_independent_ks_p() {
    let mut draws = Draws(11);
    let mut worst: f64 = 0.0;
    for shift in [0.0, 0.1, 0.2, 0.3, 0.4] {
        let observed = singletons(&mut draws, 200);
        let simulated: Vec<Vec<f64>> = singletons(&mut draws, 1000)
            .into_iter()
            .map(|v| vec![v[0] + shift])
            .collect();
        let (_, iid) = two_sample(&flat(&observed), &flat(&simulated)).unwrap();
        let grouped = ks_p(&slices(&observed), &slices(&simulated), 499, 5).unwrap();
        worst = worst.max((iid - grouped).abs());
    }
    assert!(worst < 0.06, "largest difference {worst}");
}

/// Every group one value: the share's p is the two-proportion z-test's.
#[test]
fn one_value_a_group_gives_the_independent_share_p() {
    for (k, expected) in [(150.0, 0.3), (170.0, 0.3), (195.0, 0.3)] {
        let observed: Vec<(f64, f64)> = (0..500).map(|i| (f64::from(i < k as i32), 1.0)).collect();
        let simulated: Vec<(f64, f64)> = (0..5000)
            .map(|i| (f64::from(f64::from(i) < expected * 5000.0), 1.0))
            .collect();
        let iid = two_proportion_p((k, 500.0), (expected * 5000.0, 5000.0)).unwrap();
        let grouped = share_p(&observed, &simulated).unwrap();
        assert!((iid - grouped).abs() < 0.01, "{k}: {iid} against {grouped}");
    }
}

/// Twenty groups of eight values of one known distribution against 400
/// of the same: the independent KS says "differs" in far more than 5% of
/// replicates, the group-resampled one in about 5%; shifted by 0.8 sd the
/// group-resampled one still sees it.
#[test]
fn ks_verdicts_hold_five_percent_on_clustered_data() {
    let (mut iid_differs, mut grouped_differs) = (0, 0);
    for replicate in 0..REPLICATES {
        let mut draws = Draws(1_000 * replicate);
        let observed = clustered_normal(&mut draws, 20, 8, 0.0);
        let simulated = singletons(&mut draws, 400);
        let (_, iid) = two_sample(&flat(&observed), &flat(&simulated)).unwrap();
        let grouped = ks_p(
            &slices(&observed),
            &slices(&simulated),
            TEST_RESAMPLES,
            replicate,
        );
        iid_differs += u64::from(iid < 0.05);
        grouped_differs += u64::from(grouped.unwrap() < 0.05);
    }
    assert!(iid_differs > REPLICATES / 5, "independent: {iid_differs}");
    assert!(
        within_nominal(grouped_differs),
        "grouped: {grouped_differs}"
    );
    let mut seen = 0;
    for replicate in 0..50 {
        let mut draws = Draws(7_000 + 1_000 * replicate);
        let observed = clustered_normal(&mut draws, 20, 8, 0.8);
        let simulated = singletons(&mut draws, 400);
        let grouped = ks_p(
            &slices(&observed),
            &slices(&simulated),
            TEST_RESAMPLES,
            replicate,
        );
        seen += u64::from(grouped.unwrap() < 0.05);
    }
    assert!(seen >= 40, "a shift of 0.8 sd seen in {seen} of 50");
}

/// Groups whose own share is 5% or 55% (a share of 30% in all), of 5 to
/// 20 chances each, against 2,000 independent chances at 30%.
fn clustered_shares(draws: &mut Draws, groups: usize) -> Vec<(f64, f64)> {
    (0..groups)
        .map(|_| {
            let own = if draws.uniform() < 0.5 { 0.05 } else { 0.55 };
            let chances = 5 + (draws.uniform() * 16.0) as usize;
            let events: f64 = (0..chances).map(|_| draws.bernoulli(own)).sum();
            (events, chances as f64)
        })
        .collect()
}

fn independent_shares(draws: &mut Draws, n: usize, share: f64) -> Vec<(f64, f64)> {
    (0..n).map(|_| (draws.bernoulli(share), 1.0)).collect()
}

fn sum(pairs: &[(f64, f64)]) -> (f64, f64) {
    pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), p| (a + p.0, b + p.1))
}

#[test]
fn share_verdicts_hold_five_percent_on_clustered_data() {
    let (mut iid_differs, mut grouped_differs) = (0, 0);
    for replicate in 0..REPLICATES {
        let mut draws = Draws(3_000_000 + 1_000 * replicate);
        let observed = clustered_shares(&mut draws, 20);
        let simulated = independent_shares(&mut draws, 2000, 0.3);
        let iid = two_proportion_p(sum(&observed), sum(&simulated)).unwrap();
        let grouped = share_p(&observed, &simulated).unwrap();
        iid_differs += u64::from(iid < 0.05);
        grouped_differs += u64::from(grouped < 0.05);
    }
    assert!(iid_differs > REPLICATES / 5, "independent: {iid_differs}");
    assert!(
        within_nominal(grouped_differs),
        "grouped: {grouped_differs}"
    );
    let mut seen = 0;
    for replicate in 0..50 {
        let mut draws = Draws(9_000_000 + 1_000 * replicate);
        let observed = clustered_shares(&mut draws, 20);
        let simulated = independent_shares(&mut draws, 2000, 0.55);
        seen += u64::from(share_p(&observed, &simulated).unwrap() < 0.05);
    }
    assert!(seen >= 40, "30% against 55% seen in {seen} of 50");
}

#[test]
fn the_p_value_is_seeded() {
    let mut draws = Draws(5);
    let observed = clustered_normal(&mut draws, 10, 5, 0.0);
    let simulated = singletons(&mut draws, 300);
    let a = ks_p(&slices(&observed), &slices(&simulated), 99, 3);
    assert_eq!(a, ks_p(&slices(&observed), &slices(&simulated), 99, 3));
    assert_eq!(ks_p(&[], &slices(&simulated), 99, 3), None);
}

/// Every group one chance of one share or the other: the paired p is the
/// two-proportion z-test's; the same chances in four groups that each hold
/// their own share of both are one thing seen four times, not 800.
#[test]
fn the_paired_share_p_is_the_z_test_on_independent_chances() {
    let mut clusters: Vec<((f64, f64), (f64, f64))> = Vec::new();
    clusters.extend((0..400).map(|i| ((f64::from(i < 100), 1.0), (0.0, 0.0))));
    clusters.extend((0..400).map(|i| ((0.0, 0.0), (f64::from(i < 130), 1.0))));
    let (p, groups) = paired_share_p(&clusters).unwrap();
    let iid = two_proportion_p((100.0, 400.0), (130.0, 400.0)).unwrap();
    assert_eq!(groups, 800);
    assert!((p - iid).abs() < 0.005, "{p} against {iid}");
    let four: Vec<_> = [(10.0, 40.0), (40.0, 10.0), (30.0, 20.0), (20.0, 60.0)]
        .iter()
        .map(|&(a, b)| ((a, 100.0), (b, 100.0)))
        .collect();
    let (p, _) = paired_share_p(&four).unwrap();
    let iid = two_proportion_p((100.0, 400.0), (130.0, 400.0)).unwrap();
    assert!(iid < 0.05 && p > 0.3, "{p} against {iid}");
}
