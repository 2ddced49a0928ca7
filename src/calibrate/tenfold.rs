//! The fidelity check's simulated sample, ten times the observed one in
//! every statistic, not only in runs.
//!
//! Ten runs of each held-out task shape give ten times the observed
//! sessions, but not ten times every statistic: a simulated model that
//! plans seldom or stops early gives fewer gaps between planning calls a
//! run than the sessions did, and a verdict would then rest on the
//! simulation's small sample, not the data's. So the shapes are run again,
//! a round at a time with fresh seeds, until every statistic's simulated
//! sample is at least [`TIMES_OBSERVED`] times its observed one — or no
//! round adds to a statistic still short (the model cannot give it), or
//! [`MAX_ROUNDS`] bounds the time. [`Simulated::short`] names what stayed
//! short, and the output says so. The first round's seeds are the ones a
//! single round always used, so a check one round satisfies reads as before.

use super::fidelity::{self, FidelityRow};
use super::observe::Stats;
use super::simulate::{Shape, Simulator};
use crate::model::simulated::SimulateParams;

/// Every statistic's simulated sample is at least this many times its
/// observed one, where the model can give it.
pub const TIMES_OBSERVED: u64 = 10;

/// The most rounds of the held-out shapes: 40 rounds of ten runs a shape
/// is 400 simulated runs an observed task, a few seconds on a thousand
/// sessions.
pub const MAX_ROUNDS: u64 = 40;

/// The simulated side of the fidelity check.
#[derive(Debug, Clone, Default)]
pub struct Simulated {
    pub stats: Stats,
    /// Rounds of the held-out shapes run.
    pub rounds: u64,
    /// The statistics whose simulated sample stayed under
    /// [`TIMES_OBSERVED`] times the observed one.
    pub short: Vec<&'static str>,
}

/// The held-out `shapes` run under `params` in rounds (seeds from `seed`
/// on, `shapes.len()` a round) until every statistic's simulated sample
/// is ten times `observed`'s, as the module says.
pub fn simulate(
    simulator: &mut Simulator,
    params: SimulateParams,
    shapes: &[Shape],
    (seed, chars_per_token): (u64, f64),
    observed: &Stats,
) -> Simulated {
    let mut stats = Stats::default();
    let stride = shapes.len() as u64;
    let mut rounds: u64 = 0;
    let mut short = short_rows(observed, &stats);
    while !shapes.is_empty() {
        let round_seed = seed.wrapping_add(rounds.wrapping_mul(stride));
        for session in simulator.run(params, shapes, round_seed) {
            stats.add(&session, chars_per_token);
        }
        rounds += 1;
        let now = short_rows(observed, &stats);
        // A round that added nothing to any statistic still short: the
        // model does not give it, and more rounds would only spend time.
        let grew = now.iter().any(|row| {
            short
                .iter()
                .find(|before| before.statistic == row.statistic)
                .is_none_or(|before| before.n_simulated < row.n_simulated)
        });
        short = now;
        if short.is_empty() || rounds >= MAX_ROUNDS || (rounds > 1 && !grew) {
            break;
        }
    }
    Simulated {
        stats,
        rounds,
        short: short.iter().map(|row| row.statistic).collect(),
    }
}

/// The fidelity rows whose simulated sample is under ten times the
/// observed one (rows with nothing observed are never short).
fn short_rows(observed: &Stats, simulated: &Stats) -> Vec<FidelityRow> {
    let (rows, _) = fidelity::compare(observed, simulated);
    rows.into_iter()
        .filter(|row| row.n_simulated < TIMES_OBSERVED.saturating_mul(row.n_observed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::simulate::replicate;
    use crate::plan::reminder::ReminderSpec;

    const SHAPE: Shape = (5, ReminderSpec::Off);

    fn planner() -> SimulateParams {
        SimulateParams {
            attention_span: 4000.0,
            ..SimulateParams::default()
        }
    }

    /// Observed: twenty runs of the shape for each one the check holds,
    /// so one round of ten runs a shape gives half the observed sample;
    /// the rounds go on until every statistic has ten times its observed.
    #[test]
    fn rounds_go_on_until_every_statistic_is_ten_times_observed() {
        let mut simulator = Simulator::new(&[SHAPE], 300).unwrap();
        let sessions = simulator.run(planner(), &replicate(&[SHAPE], 20), 7);
        let observed = Stats::of(&sessions, 4.0);
        let shapes = replicate(&[SHAPE], 10);
        let simulated = simulate(&mut simulator, planner(), &shapes, (99, 4.0), &observed);
        assert!(simulated.short.is_empty(), "{:?}", simulated.short);
        assert!(
            simulated.rounds > 1 && simulated.rounds < MAX_ROUNDS,
            "{}",
            simulated.rounds
        );
        let (rows, _) = fidelity::compare(&observed, &simulated.stats);
        for row in rows.iter().filter(|r| r.n_observed > 0) {
            assert!(
                row.n_simulated >= 10 * row.n_observed,
                "{}: {} against {}",
                row.statistic,
                row.n_simulated,
                row.n_observed
            );
        }
        // One round alone falls short: the rounds were needed.
        let (one, _) = fidelity::compare(
            &observed,
            &Stats::of(&simulator.run(planner(), &shapes, 99), 4.0),
        );
        assert!(one.iter().any(|r| r.n_simulated < 10 * r.n_observed));
    }

    /// A model that never plans gives no gap however long it runs: the
    /// rounds stop once one adds nothing to what is short, and the gaps are
    /// named short.
    #[test]
    fn a_statistic_the_model_never_gives_stops_the_rounds_and_is_named() {
        let mut simulator = Simulator::new(&[SHAPE], 300).unwrap();
        let sessions = simulator.run(planner(), &replicate(&[SHAPE], 5), 7);
        let observed = Stats::of(&sessions, 4.0);
        let never = SimulateParams {
            plan_first: 0.0,
            first_plan_hazard: Some(0.0),
            todo_update_rate: 0.0,
            reminder_compliance: 0.0,
            ..planner()
        };
        let shapes = replicate(&[SHAPE], 10);
        let simulated = simulate(&mut simulator, never, &shapes, (99, 4.0), &observed);
        // Five rounds give the per-session shares their ten times; the
        // gaps, still none, stop the rounds there, not at the bound.
        assert_eq!(simulated.rounds, 5);
        assert!(simulated.stats.turn_gaps.is_empty());
        assert!(
            simulated.short.contains(&"turns between planning calls"),
            "{:?}",
            simulated.short
        );
    }
}
