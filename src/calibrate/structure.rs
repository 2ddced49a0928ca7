//! The session-level structure of the simulated model measured directly
//! (docs/simulated-model.md, "Structure measured on real sessions"): how
//! much sessions differ in their update rate (`update_rate_dispersion`)
//! and how many items an update ticks (`items_per_update`). Their
//! statistics are not ratios of sums, so each is computed on the sessions
//! as a whole and its interval from resampling groups whole
//! ([`grouped_interval`]), as the ratio measures' ([`super::estimators`])
//! are.

use super::bootstrap::{interval, quantile};
use super::estimators::{Measure, todo_update_rate};
use super::group::Groups;
use super::observe::StopShares;
use super::observe::{completed, rejected, writes};
use crate::transcript::{ItemStatus, Session};

/// The share of ticking updates allowed above a limit for the limit to
/// explain them (`items_per_update`). Without a limit an update ticks
/// every step finished since the last one, so the ticks spread like the
/// turns between updates: on the model's own runs at an update rate of
/// 0.25 about half tick more than their median, and only an agent that
/// updates after nearly every step keeps under a fifth (where a limit of
/// one changes nothing). Real sessions that tick one item an update and
/// now and then catch up on two (a public corpus: 89% one, 11% more) are
/// read as the limit they mostly keep; 5%, the bar before, read them as
/// no limit at all.
pub const OVER_LIMIT: f64 = 0.2;

/// The percentile interval of `statistic` over `per_session` (one value a
/// session of `sessions`, in order), the sessions' groups resampled whole:
/// sessions of one project are not independent ([`Groups`]).
fn grouped_interval<T>(
    sessions: &[Session],
    per_session: &[T],
    seed: u64,
    statistic: impl Fn(&[&T]) -> Option<f64>,
) -> Option<[f64; 2]> {
    let grouped: Vec<Vec<&T>> = Groups::of(sessions)
        .members()
        .iter()
        .map(|members| members.iter().filter_map(|&i| per_session.get(i)).collect())
        .collect();
    interval(&grouped, seed, |picked: &[&Vec<&T>]| {
        let flat: Vec<&T> = picked.iter().flat_map(|g| g.iter().copied()).collect();
        statistic(&flat)
    })
}

/// Session pairs `(events, chances)` of `todo_update_rate`, those with no
/// chance left out (as [`dispersion`] and [`mean_rate`] take them).
fn with_chances<'a>(pairs: &[&'a (f64, f64)]) -> Vec<&'a (f64, f64)> {
    pairs.iter().copied().filter(|p| p.1 > 0.0).collect()
}

/// The structure measures over `sessions`, intervals seeded by `seed`,
/// each open end weighted by `shares` (as
/// [`super::estimators::measure_with`] counts it).
pub fn measure(sessions: &[Session], seed: u64, shares: &StopShares) -> Vec<Measure> {
    vec![
        dispersion_measure(sessions, seed, shares),
        items_measure(sessions, seed),
    ]
}

/// Each session's `(planning turns, ordinary turns)`, open ends weighted
/// by `shares`.
fn update_pairs(sessions: &[Session], shares: &StopShares) -> Vec<(f64, f64)> {
    sessions
        .iter()
        .map(|s| todo_update_rate(s, shares))
        .collect()
}

/// `todo_update_rate` re-measured where sessions differ: the mean of the
/// Beta is the mean of the sessions' own rates, and a ratio of sums
/// weights each session by its ordinary turns, which depend on its rate
/// (a session that plans seldom is reminded more, so fewer of its turns
/// are ordinary), biasing it toward the frequent planners. The weights
/// `n / (1 + (n − 1) d)` are the ratio of sums' at `d` = 0 (then the
/// measure is left as it is) and equal weights as `d` grows.
pub fn adjust_update_rate(
    measures: &mut [Measure],
    sessions: &[Session],
    seed: u64,
    shares: &StopShares,
) {
    let all = update_pairs(sessions, shares);
    let pairs: Vec<(f64, f64)> = all.iter().copied().filter(|p| p.1 > 0.0).collect();
    let refs: Vec<&(f64, f64)> = pairs.iter().collect();
    if !dispersion(&refs).is_some_and(|d| d > 0.0) {
        return;
    }
    let Some(rate) = measures.iter_mut().find(|m| m.name == "todo_update_rate") else {
        return;
    };
    rate.value = mean_rate(&refs);
    rate.interval = rate
        .value
        .and(grouped_interval(sessions, &all, seed ^ 0x4a7e, |p| {
            mean_rate(&with_chances(p))
        }));
    rate.note = "the mean of the sessions' own rates on ordinary turns (sessions differ: see update_rate_dispersion)".into();
}

/// The sessions' rates averaged with weights `n / (1 + (n − 1) d)`.
fn mean_rate(pairs: &[&(f64, f64)]) -> Option<f64> {
    let d = dispersion(pairs)?;
    let (sum, weights) = pairs.iter().fold((0.0, 0.0), |(s, w), (x, n)| {
        let weight = n / (1.0 + (n - 1.0) * d);
        (s + weight * x / n, w + weight)
    });
    (weights > 0.0).then(|| sum / weights)
}

fn dispersion_measure(sessions: &[Session], seed: u64, shares: &StopShares) -> Measure {
    let all = update_pairs(sessions, shares);
    let pairs: Vec<(f64, f64)> = all.iter().copied().filter(|p| p.1 > 0.0).collect();
    let value = dispersion(&pairs.iter().collect::<Vec<_>>());
    Measure {
        name: "update_rate_dispersion",
        value,
        interval: value.and(grouped_interval(sessions, &all, seed ^ 0xd15, |p| {
            dispersion(&with_chances(p))
        })),
        n: pairs.len() as u64,
        note: match value {
            Some(_) => {
                "counted on the per-session shares of ordinary turns that plan (sessions)".into()
            }
            None => "unmeasured: fewer than two sessions with ordinary turns".into(),
        },
    }
}

/// The intra-session correlation of planning on ordinary turns, by the
/// method of moments for clustered binary data: `(MSB − MSW) / (MSB +
/// (n₀ − 1) MSW)`, MSB and MSW the between- and within-session mean
/// squares, `n₀` the sessions' effective size; it is the `d` of a Beta
/// with variance `d · m · (1 − m)`. Clamped to [0, 0.95] (the model's
/// range is [0, 1)). `None` below two sessions.
pub fn dispersion(pairs: &[&(f64, f64)]) -> Option<f64> {
    let k = pairs.len() as f64;
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    if k < 2.0 || total <= k {
        return None;
    }
    let mean = pairs.iter().map(|p| p.0).sum::<f64>() / total;
    let between = pairs
        .iter()
        .map(|(x, n)| n * (x / n - mean).powi(2))
        .sum::<f64>()
        / (k - 1.0);
    let within = pairs.iter().map(|(x, n)| x * (1.0 - x / n)).sum::<f64>() / (total - k);
    let size = (total - pairs.iter().map(|p| p.1 * p.1).sum::<f64>() / total) / (k - 1.0);
    let denominator = between + (size - 1.0) * within;
    if denominator <= 0.0 {
        return Some(0.0);
    }
    Some(((between - within) / denominator).clamp(0.0, 0.95))
}

fn items_measure(sessions: &[Session], seed: u64) -> Measure {
    let per_session: Vec<Vec<f64>> = sessions.iter().map(ticks).collect();
    let refs: Vec<&Vec<f64>> = per_session.iter().collect();
    let value = items_per_update(&refs);
    let n = per_session.iter().map(Vec::len).sum::<usize>() as u64;
    let over = median_and_over(&refs).map_or(0.0, |(_, over)| over * 100.0);
    Measure {
        name: "items_per_update",
        value,
        interval: value.and(grouped_interval(
            sessions,
            &per_session,
            seed ^ 0x171,
            items_per_update,
        )),
        n,
        note: match value {
            Some(0.0) => format!(
                "counted on {n} updates that tick an item and leave the list open: {over:.0}% tick over their median (more than {:.0}%), so no limit",
                OVER_LIMIT * 100.0
            ),
            Some(_) => format!(
                "counted on {n} updates that tick an item and leave the list open: their median, {over:.0}% ticking more (at most {:.0}%)",
                OVER_LIMIT * 100.0
            ),
            None => "unmeasured: no update ticked an item".into(),
        },
    }
}

/// The ticks' median (rounded) and the share of ticks above it; `None`
/// without a tick.
fn median_and_over(per_session: &[&Vec<f64>]) -> Option<(f64, f64)> {
    let mut all: Vec<f64> = per_session.iter().flat_map(|s| s.iter().copied()).collect();
    if all.is_empty() {
        return None;
    }
    all.sort_by(f64::total_cmp);
    let median = quantile(&all, 0.5).round();
    let over = all.iter().filter(|&&t| t > median).count() as f64 / all.len() as f64;
    Some((median, over))
}

/// The limit the ticks show: their median when at most [`OVER_LIMIT`] of
/// them exceed it, else 0 (no limit). `None` without a tick.
pub fn items_per_update(per_session: &[&Vec<f64>]) -> Option<f64> {
    let (median, over) = median_and_over(per_session)?;
    Some(if over <= OVER_LIMIT { median } else { 0.0 })
}

/// Items newly completed by each accepted update of a known plan that
/// ticks at least one and leaves the list open (a list-completing update
/// is the closing one, measured apart).
pub fn ticks(session: &Session) -> Vec<f64> {
    let mut out = Vec::new();
    let mut before: Option<&Vec<ItemStatus>> = None;
    for turn in session.turns() {
        if writes(turn)
            && !rejected(turn)
            && let (Some(b), Some(after)) = (before, turn.plan_after.as_ref())
        {
            let newly = completed(after).saturating_sub(completed(b));
            if newly > 0 && completed(after) < after.len() {
                out.push(newly as f64);
            }
        }
        if turn.plan_after.is_some() {
            before = turn.plan_after.as_ref();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shared_rate_has_no_dispersion_and_split_rates_have_much() {
        let shared: Vec<(f64, f64)> = (0..40)
            .map(|i| (f64::from(i % 2 == 0) + 2.0, 10.0))
            .collect();
        let d = dispersion(&shared.iter().collect::<Vec<_>>()).unwrap();
        assert!(d < 0.02, "{d}");
        // Half the sessions never plan, half always: every bit of the
        // variance is between sessions.
        let split: Vec<(f64, f64)> = (0..40)
            .map(|i| (f64::from(i % 2 == 0) * 10.0, 10.0))
            .collect();
        let d = dispersion(&split.iter().collect::<Vec<_>>()).unwrap();
        assert!(d > 0.9, "{d}");
        assert_eq!(dispersion(&[&(1.0, 5.0)]), None);
    }

    /// Synthetic beta-binomial sessions with a known dispersion: rates
    /// drawn from Beta(1, 3) (mean 0.25, `d` = 1 / (1 + 3 + 1) = 0.2; the
    /// least of three uniforms), 1 to 9 chances a session, 400 sessions a
    /// data set. Over 300 data sets the estimate's mean is within 3% of the
    /// truth (its standard error there is under 1%): the method of moments
    /// has no bias to speak of at these sizes, unequal ones included.
    #[test]
    fn dispersion_is_unbiased_on_beta_binomial_sessions_of_unequal_sizes() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{Rng, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(33);
        let mut uniform = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let data_sets = 300;
        let mut estimates = Vec::new();
        for _ in 0..data_sets {
            let pairs: Vec<(f64, f64)> = (0..400)
                .map(|_| {
                    let rate = uniform().min(uniform()).min(uniform());
                    let chances = 1 + (uniform() * 9.0) as u32;
                    let events = (0..chances).filter(|_| uniform() < rate).count();
                    (events as f64, f64::from(chances))
                })
                .collect();
            estimates.push(dispersion(&pairs.iter().collect::<Vec<_>>()).unwrap());
        }
        let mean = estimates.iter().sum::<f64>() / f64::from(data_sets);
        let sd = (estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>()
            / f64::from(data_sets - 1))
        .sqrt();
        let standard_error = sd / f64::from(data_sets).sqrt();
        assert!(standard_error < 0.01 * 0.2, "{standard_error}");
        assert!(
            (mean - 0.2).abs() <= 0.03 * 0.2,
            "{mean} ± {standard_error}"
        );
    }

    #[test]
    fn a_limit_is_read_only_where_the_ticks_keep_to_it() {
        let ones = [vec![1.0; 30], vec![1.0, 1.0]];
        assert_eq!(
            items_per_update(&ones.iter().collect::<Vec<_>>()),
            Some(1.0)
        );
        let spread = [vec![1.0, 2.0, 3.0, 2.0, 4.0, 1.0]];
        assert_eq!(
            items_per_update(&spread.iter().collect::<Vec<_>>()),
            Some(0.0)
        );
        // One item an update with a catch-up now and then (89% one, as a
        // public corpus shows): the limit of one they mostly keep.
        let mostly_one = [
            std::iter::repeat_n(1.0, 89).collect::<Vec<_>>(),
            vec![2.0; 8],
            vec![3.0, 4.0, 5.0],
        ];
        assert_eq!(
            items_per_update(&mostly_one.iter().collect::<Vec<_>>()),
            Some(1.0)
        );
        // No limit at an update every few steps: the ticks follow the
        // steps between updates (geometric, a quarter a turn), and more
        // than a fifth tick over their median.
        let geometric: Vec<f64> = (0..200)
            .map(|i| {
                let u = (f64::from(i) + 0.5) / 200.0;
                ((1.0 - u).ln() / 0.75_f64.ln()).floor() + 1.0
            })
            .collect();
        assert_eq!(items_per_update(&[&geometric]), Some(0.0));
        assert_eq!(items_per_update(&[&Vec::new()]), None);
    }
}
