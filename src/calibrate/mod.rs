//! Calibration: the simulated model's parameters measured and fitted on an
//! agent's own sessions ([`crate::transcript`]), and its fidelity checked
//! on sessions held out from the fit (`agent-eval calibrate`,
//! docs/calibration.md).
//!
//! 1. The sessions are split, seeded, into a training set and a held-out
//!    set (`holdout`).
//! 2. The directly observable parameters are counted on the training set
//!    ([`estimators`]), each with its count and a 95% interval from
//!    resampling sessions ([`bootstrap`]).
//! 3. The attention parameters and the drift weights are fitted by
//!    simulated moments where the data identify them ([`fit`]): the
//!    simulated model runs through the engine on task shapes like the
//!    sessions' ([`simulate`]).
//! 4. The simulated model with the result runs on the held-out sessions'
//!    shapes and is compared with them statistic by statistic
//!    ([`fidelity`]).
//!
//! Floor 8: it reads [`crate::transcript`] sessions and runs
//! [`crate::eval`]; the command and the renderings are `app`'s.

pub mod bootstrap;
pub mod chi2;
pub mod clustered;
pub mod estimators;
pub mod fidelity;
pub mod fit;
pub mod group;
pub mod ks;
pub mod length;
pub mod observe;
pub mod policy;
pub mod reminders;
pub mod simulate;
pub mod structure;
pub mod tenfold;

use std::collections::BTreeMap;

use crate::model::simulated::SimulateParams;
use crate::model::simulated::profile::{
    FitTest, FittedOn, InferenceCheck, PROFILE_VERSION, Profile, ProfileParam, ReminderCounts,
    Source,
};
use crate::transcript::Session;
use estimators::Measure;
use fidelity::{Distribution, FidelityRow};
use fit::{Fit, FitResult, GoodnessOfFit};
use group::Groups;
use observe::{Stats, StopShares};
use simulate::Simulator;

/// How a calibration runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The share of sessions held out from the fit for the fidelity check.
    pub holdout: f64,
    /// Seeds the split, the resampling and the simulations.
    pub seed: u64,
    /// The most simulated runs a point of the fit makes: one a task shape
    /// of the training half ([`DEFAULT_SIMULATED_RUNS`]).
    pub simulated_runs: usize,
    /// Count inferred reminders in `reminder_compliance` too (where the
    /// rule can be checked on sessions that record them).
    pub infer_reminders: bool,
}

/// The most simulated runs a point of the fit makes by default: enough
/// for every task shape of a training half of a thousand sessions. Each
/// moment's standard error is widened by `sqrt(1 + observed / simulated)`
/// for the simulation's own noise ([`fit::observed_moments`]); at the 60
/// runs this used to be, against the public corpus's ~980 training tasks,
/// that was about 4 times the data's own error, and since most simulated runs
/// plan seldom the moments rested on a handful of planned tasks: the
/// objective was flat over every parameter because the simulation was
/// small, not because the sessions could not tell the parameters apart.
pub const DEFAULT_SIMULATED_RUNS: usize = 1000;

impl Default for Options {
    fn default() -> Self {
        Self {
            holdout: 0.5,
            seed: 0,
            simulated_runs: DEFAULT_SIMULATED_RUNS,
            infer_reminders: false,
        }
    }
}

/// Why a calibration could not run.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    #[error("no session to calibrate on")]
    NoSessions,
    #[error("cannot build the simulated task shapes: {0}")]
    Simulator(#[from] simulate::SimulatorError),
}

/// One parameter of the result: its profile entry and why it has that
/// source.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamRow {
    pub name: &'static str,
    pub param: ProfileParam,
    /// The simulated model's default, shown beside the value.
    pub default: f64,
    pub note: String,
}

/// Everything a calibration found.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Every parameter, in [`SimulateParams::NAMES`] order.
    pub params: Vec<ParamRow>,
    pub measures: Vec<Measure>,
    pub fits: Vec<FitResult>,
    /// The moments the fit matched: name, observed, standard error.
    pub moments: Vec<(&'static str, f64, f64)>,
    pub fidelity: Vec<FidelityRow>,
    pub distributions: Vec<Distribution>,
    pub contradictions: Vec<String>,
    /// Simulated runs of each held-out task shape the fidelity check made
    /// (rounds of [`simulate::FIDELITY_REPLICATES`]), and the statistics
    /// whose simulated sample stayed under ten times the observed one
    /// ([`tenfold`]).
    pub fidelity_runs_per_shape: u64,
    pub fidelity_short: Vec<&'static str>,
    /// The goodness-of-fit test of the fit (`None`: nothing was fitted).
    pub goodness_of_fit: Option<GoodnessOfFit>,
    /// Where the simulations' reminder policies come from.
    pub simulated_reminders: policy::ReminderSource,
    /// Sessions in the training and held-out sets.
    pub training: usize,
    pub held_out: usize,
    /// Reminded turns of the training sessions, recorded and inferred; the
    /// inference rule checked on the sessions that record reminders; and
    /// whether inferred ones were counted in `reminder_compliance`.
    pub reminders: ReminderCounts,
    pub reminder_check: Option<InferenceCheck>,
    pub reminders_inferred_used: bool,
    /// Sessions dropped as seen before (same session id or content).
    pub duplicates: usize,
    /// The groups (units of independence) of the sessions kept, and
    /// whether there were too few to resample, so each session stood alone.
    pub groups: usize,
    pub sessions_alone: bool,
    /// What it was fitted on (files and the inputs' hash are the caller's
    /// to fill).
    pub fitted_on: FittedOn,
}

impl Calibration {
    /// The profile file's content. Every row is admissible on its own
    /// ([`admissible`]); should the rows together still be refused (every
    /// drift weight measured 0), the drift weights are the assumed ones.
    pub fn profile(&self) -> Profile {
        let mut profile = Profile {
            version: PROFILE_VERSION,
            params: self
                .params
                .iter()
                .map(|row| (row.name.to_string(), row.param.clone()))
                .collect::<BTreeMap<_, _>>(),
            fitted_on: self.fitted_on.clone(),
        };
        let mut params = SimulateParams::default();
        profile.apply(&mut params);
        if params.validate().is_err() {
            let defaults = SimulateParams::default();
            for (name, param) in profile.params.iter_mut() {
                let mut default = defaults;
                if name.ends_with("_weight")
                    && let Some(value) = default.field_mut(name)
                {
                    *param = assumed_param(*value);
                }
            }
        }
        profile
    }

    /// The parameters as the simulated model takes them.
    pub fn simulate_params(&self) -> SimulateParams {
        let mut params = SimulateParams::default();
        self.profile().apply(&mut params);
        params
    }
}

/// The held-out task shapes the fidelity check simulates, each replicated
/// [`simulate::FIDELITY_REPLICATES`] times a round.
fn check_shapes_of(check_set: &[Session], params: &SimulateParams) -> Vec<simulate::Shape> {
    let mut shapes = simulate::shapes_of(check_set, usize::MAX);
    if params.plans_at_all < 1.0 {
        // Sessions that never plan are simulated too: each run draws
        // whether it plans at all, as each session did.
        shapes.extend(simulate::unplanned_shapes_of(
            check_set,
            params.turns_per_step,
        ));
    }
    simulate::replicate(&shapes, simulate::FIDELITY_REPLICATES)
}

/// The fidelity rows, their distributions and the contradictions said in
/// words: the held-out sessions against the fitted model's runs of their
/// shapes, the p-values resampling groups on one side and runs on the other.
fn held_out_fidelity(
    observed: fidelity::Side<'_>,
    simulated: &tenfold::Simulated,
    params: &SimulateParams,
    seed: u64,
) -> (
    Vec<fidelity::FidelityRow>,
    Vec<fidelity::Distribution>,
    Vec<String>,
) {
    let (rows, distributions) = fidelity::compare(
        observed,
        fidelity::Side {
            total: &simulated.stats,
            clusters: &simulated.runs,
        },
        seed ^ 0x9f0c_ba11,
    );
    let contradictions = fidelity::contradictions(observed, &rows, params);
    (rows, distributions, contradictions)
}

/// Calibrates the simulated model on `sessions` (a session seen twice
/// counted once).
pub fn calibrate(sessions: &[Session], options: &Options) -> Result<Calibration, CalibrateError> {
    if sessions.is_empty() {
        return Err(CalibrateError::NoSessions);
    }
    let (sessions, duplicates) = group::drop_duplicates(sessions.to_vec());
    let groups = Groups::of(&sessions);
    let (training, held_out) = split(&sessions, options.holdout, options.seed);
    let reminder_counts = reminders::counts(&training);
    let reminder_check = reminders::check(&sessions);
    let reminders_seen = (reminder_counts, reminder_check.as_ref());
    let (measures, _) = measured(&training, options, &StopShares::default(), reminders_seen);
    let mut params = with_measures(SimulateParams::default(), &measures);
    let chars_per_token = params.chars_per_token;
    let fit_shapes = simulate::shapes_of(&training, options.simulated_runs);
    let check_set = if held_out.is_empty() {
        &training
    } else {
        &held_out
    };
    let check_shapes = check_shapes_of(check_set, &params);
    let all_shapes: Vec<simulate::Shape> =
        fit_shapes.iter().chain(&check_shapes).copied().collect();
    let mut simulator = Simulator::new(&all_shapes, simulate::typical_turn_chars(&training))?;
    let observed_tasks = simulate::shapes_of(&training, 0).len();
    let (observed, se) = fit::observed_moments(
        &training,
        (observed_tasks, fit_shapes.len()),
        options.seed,
        chars_per_token,
    );
    let (fits, goodness_of_fit) = if fit_shapes.is_empty() {
        (Vec::new(), None)
    } else {
        let (fits, test) = Fit {
            observed,
            se,
            simulator: &mut simulator,
            shapes: &fit_shapes,
            seed: options.seed,
            chars_per_token,
        }
        .run(&mut params);
        (fits, Some(test))
    };
    // The open ends weighed at the fitted model, and the measures that
    // count them taken again with those weights (observe::StopShares).
    let ends = simulator.run_reading_ends(params, &check_shapes, options.seed ^ 0x0e9d_57a9);
    let shares = simulate::stop_shares(&ends);
    let (measures, reminders_inferred_used) = measured(&training, options, &shares, reminders_seen);
    params = with_measures(params, &measures);
    let observed_stats = Stats::of(check_set, chars_per_token);
    let simulated = tenfold::simulate(
        &mut simulator,
        params,
        &check_shapes,
        (options.seed ^ 0x5eed_f1de, chars_per_token),
        &observed_stats,
    );
    let observed_groups = fidelity::by_group(check_set, groups.sessions_alone, chars_per_token);
    let observed_side = fidelity::Side {
        total: &observed_stats,
        clusters: &observed_groups,
    };
    let (fidelity, distributions, contradictions) =
        held_out_fidelity(observed_side, &simulated, &params, options.seed);
    Ok(Calibration {
        params: param_rows(
            &measures,
            &fits,
            fit_shapes.len(),
            training.len(),
            reminders_inferred_used,
        ),
        moments: fit::MOMENTS
            .iter()
            .zip(observed.iter().zip(se.iter()))
            .map(|(name, (o, s))| (*name, *o, *s))
            .collect(),
        measures,
        fits,
        goodness_of_fit,
        fidelity,
        distributions,
        contradictions,
        fidelity_runs_per_shape: simulated
            .rounds
            .saturating_mul(simulate::FIDELITY_REPLICATES as u64),
        fidelity_short: simulated.short,
        training: training.len(),
        held_out: held_out.len(),
        simulated_reminders: policy::source_of(&sessions),
        reminders: reminder_counts,
        reminder_check,
        reminders_inferred_used,
        duplicates,
        groups: groups.count,
        sessions_alone: groups.sessions_alone,
        fitted_on: FittedOn {
            groups: groups.count as u64,
            duplicates_dropped: duplicates as u64,
            reminders: reminder_counts,
            reminder_inference: reminder_check.filter(|_| reminder_counts.inferred > 0),
            goodness_of_fit: goodness_of_fit.map(|t| FitTest {
                statistic: round(t.statistic),
                df: t.df,
                p_value: t.p_value,
                fits: !t.rejected(),
            }),
            ..fitted_on(&sessions)
        },
    })
}

/// Where some sessions never plan (`plans_at_all` below 1), the planning
/// parameters are re-measured on the sessions that do: the model draws
/// whether a run plans at all, then plans at its rates, so the rates are
/// the planners' (measured over every session they mix in the turns of
/// sessions that never plan, and read every planner as a seldom one) —
/// where the data show it: where no more sessions never plan than the
/// chances explain ([`length::never_planning_shown`]), `plans_at_all` is
/// 1 and nothing is re-measured.
/// Returns the sessions the planning parameters rest on. The selection
/// leans the rates up a little: a planner whose chances all missed reads
/// as a session that never plans.
fn planning_on_planners(
    measures: &mut [Measure],
    training: &[Session],
    seed: u64,
    shares: &StopShares,
) -> Vec<Session> {
    let share = measures
        .iter()
        .find(|m| m.name == "plans_at_all")
        .and_then(|m| m.value);
    let planners: Vec<Session> = training
        .iter()
        .filter(|s| length::plans(s))
        .cloned()
        .collect();
    if !share.is_some_and(|s| s < 1.0) || planners.is_empty() {
        return training.to_vec();
    }
    let rate = |name: &str| {
        measures
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.value)
    };
    let (Some(first), Some(hazard)) = (rate("plan_first"), rate("first_plan_hazard")) else {
        return training.to_vec();
    };
    let (shown, expected, observed) = length::never_planning_shown(training, first, hazard);
    if !shown {
        if let Some(m) = measures.iter_mut().find(|m| m.name == "plans_at_all") {
            m.note = format!(
                "{} sessions never plan, no more than the planning chances explain ({expected:.1} expected), so every session plans at all: 1",
                observed
            );
            m.value = Some(1.0);
            m.interval = None;
        }
        return training.to_vec();
    }
    let mut again = estimators::measure_with(&planners, seed, shares);
    again.extend(structure::measure(&planners, seed, shares));
    structure::adjust_update_rate(&mut again, &planners, seed, shares);
    for measure in measures.iter_mut() {
        if !SimulateParams::only_with_planning(measure.name) || measure.name == "plans_at_all" {
            continue;
        }
        if let Some(on_planners) = again.iter().find(|a| a.name == measure.name) {
            *measure = on_planners.clone();
            measure.note = format!(
                "{} (on the {} sessions that plan at all)",
                measure.note,
                planners.len()
            );
        }
    }
    planners
}

/// The measures of `training` ([`estimators`], [`structure`]), each open
/// end counted as `shares` weighs it, and whether inferred reminders were
/// counted in `reminder_compliance` (`reminders`: the training set's
/// counts and the inference rule's check).
fn measured(
    training: &[Session],
    options: &Options,
    shares: &StopShares,
    reminders: (ReminderCounts, Option<&InferenceCheck>),
) -> (Vec<Measure>, bool) {
    let seed = options.seed;
    let mut measures = estimators::measure_with(training, seed, shares);
    measures.extend(structure::measure(training, seed, shares));
    structure::adjust_update_rate(&mut measures, training, seed, shares);
    measures.extend(length::measure(training, seed));
    let planners = planning_on_planners(&mut measures, training, seed, shares);
    if *shares != StopShares::default() {
        for measure in &mut measures {
            let share = match measure.name {
                "reminder_compliance" => shares.reminded,
                "todo_update_rate" | "update_rate_dispersion" => shares.ordinary,
                _ => continue,
            };
            if measure.value.is_some() {
                measure.note.push_str(&format!(
                    "; a last answer left with items open counted as {share:.2} of a missed chance (the fitted model's share of early stops among them)"
                ));
            }
        }
    }
    let (counts, check) = reminders;
    let used = compliance_from_reminders(&mut measures, (&planners, counts, check), options);
    (measures, used)
}

/// `params` with every measured value of `measures`; should the result
/// fall outside the model's range (no measure should), `params` as given.
fn with_measures(params: SimulateParams, measures: &[Measure]) -> SimulateParams {
    let mut measured = params;
    for measure in measures {
        if let (Some(value), Some(field)) = (measure.value, measured.field_mut(measure.name)) {
            *field = value;
        }
    }
    if measured.validate().is_err() {
        return params;
    }
    measured
}

/// The training and held-out sessions, split by group (a group is never
/// on both sides): a seeded shuffle of the groups, the first `1 - holdout`
/// of them for training (at least one group).
pub fn split(sessions: &[Session], holdout: f64, seed: u64) -> (Vec<Session>, Vec<Session>) {
    let groups = Groups::of(sessions);
    let mut order: Vec<(u64, usize)> = (0..groups.count)
        .map(|g| {
            (
                crate::model::simulated::mix(seed ^ crate::model::simulated::mix(g as u64)),
                g,
            )
        })
        .collect();
    order.sort_unstable();
    let held = ((groups.count as f64) * holdout.clamp(0.0, 1.0)).floor() as usize;
    let held = held.min(groups.count.saturating_sub(1));
    let mut held_out_group = vec![false; groups.count];
    for (_, g) in order.iter().skip(groups.count - held) {
        if let Some(slot) = held_out_group.get_mut(*g) {
            *slot = true;
        }
    }
    let (mut training, mut held_out) = (Vec::new(), Vec::new());
    for (session, &g) in sessions.iter().zip(&groups.of) {
        if held_out_group.get(g).copied().unwrap_or(false) {
            held_out.push(session.clone());
        } else {
            training.push(session.clone());
        }
    }
    (training, held_out)
}

/// Every parameter's row: measured where counted, fitted where
/// identified, else assumed (the default) with the reason.
fn param_rows(
    measures: &[Measure],
    fits: &[FitResult],
    shapes: usize,
    sessions: usize,
    reminders_inferred: bool,
) -> Vec<ParamRow> {
    let defaults = SimulateParams::default();
    SimulateParams::NAMES
        .iter()
        .map(|&name| {
            let mut default = defaults;
            let mut assumed = default.field_mut(name).map_or(0.0, |v| *v);
            // An unmeasured first-plan hazard stands for the update rate,
            // as the model's unset one does: the measured rate, not 0.15.
            if name == "first_plan_hazard"
                && let Some(rate) = measures
                    .iter()
                    .find(|m| m.name == "todo_update_rate")
                    .and_then(|m| m.value)
            {
                assumed = round(rate);
            }
            let measure = measures.iter().find(|m| m.name == name);
            let fitted = fits.iter().find(|f| f.name == name);
            let (param, note) = match (measure, fitted) {
                (Some(m), _) if m.value.is_some() => (
                    ProfileParam {
                        value: round(m.value.unwrap_or(assumed)),
                        interval: m.interval.map(|[a, b]| [round(a), round(b)]),
                        n: m.n,
                        source: if reminders_inferred && name == "reminder_compliance" {
                            Source::Inferred
                        } else {
                            Source::Measured
                        },
                    },
                    m.note.clone(),
                ),
                (Some(m), _) => (assumed_param(assumed), format!("assumed: {}", m.note)),
                (None, Some(f)) if f.identified => (
                    ProfileParam {
                        value: round(f.best),
                        interval: Some(f.interval.map(round)),
                        n: sessions as u64,
                        source: Source::Fitted,
                    },
                    f.reason.clone(),
                ),
                (None, Some(f)) => (assumed_param(assumed), format!("assumed: {}", f.reason)),
                (None, None) if fits.is_empty() && shapes == 0 && is_fitted(name) => (
                    assumed_param(assumed),
                    "assumed: no task had a plan, so there is no task shape to simulate".into(),
                ),
                (None, None) => (
                    assumed_param(assumed),
                    "assumed: not fitted (repeat and improvise both only add turns: the data cannot tell them apart)".into(),
                ),
            };
            admissible(
                ParamRow {
                    name,
                    param,
                    default: assumed,
                    note,
                },
                assumed,
            )
        })
        .collect()
}

/// `row` when the profile loader accepts its value and interval (finite,
/// in order, in the simulated model's range), else the assumed value with
/// the reason: whatever the transcripts said, calibrate writes a profile
/// `run --profile` reads.
fn admissible(row: ParamRow, assumed: f64) -> ParamRow {
    let mut params = SimulateParams::default();
    if let Some(field) = params.field_mut(row.name) {
        *field = row.param.value;
    }
    let numbers_ok = std::iter::once(row.param.value)
        .chain(row.param.interval.into_iter().flatten())
        .all(f64::is_finite)
        && row.param.interval.is_none_or(|[low, high]| low <= high);
    if numbers_ok && params.validate().is_ok() {
        return row;
    }
    ParamRow {
        name: row.name,
        param: assumed_param(assumed),
        default: assumed,
        note: format!(
            "assumed: the value the sessions gave ({}) is outside the simulated model's range",
            row.param.value
        ),
    }
}

/// Sets `reminder_compliance` from the reminders: counted on inferred
/// ones too where asked and checkable (true then), else on recorded ones,
/// its note saying what was left out.
fn compliance_from_reminders(
    measures: &mut [Measure],
    (training, counts, check): (&[Session], ReminderCounts, Option<&InferenceCheck>),
    options: &Options,
) -> bool {
    let inferred = options
        .infer_reminders
        .then(|| reminders::with_inferred(training, options.seed))
        .flatten();
    let Some(measure) = measures
        .iter_mut()
        .find(|m| m.name == "reminder_compliance")
    else {
        return false;
    };
    match inferred {
        Some(inferred) => {
            *measure = inferred;
            return true;
        }
        None if measure.value.is_none() && counts.inferred > 0 => {
            measure.note = only_inferred_note(counts, check);
        }
        None if counts.inferred > 0 => {
            measure.note.push_str(&format!(
                " ({} recorded; {} inferred ones not counted)",
                counts.recorded, counts.inferred
            ));
        }
        None => {}
    }
    false
}

/// Why `reminder_compliance` is unmeasured where every reminder is
/// inferred.
fn only_inferred_note(counts: ReminderCounts, check: Option<&InferenceCheck>) -> String {
    let how = match check {
        Some(check) => format!(
            "--infer-reminders counts them ({})",
            reminders::check_words(check)
        ),
        None => "no session here records reminders, so the rule inferring them cannot be checked and they are not used".into(),
    };
    format!(
        "unmeasured: the {} reminded turns are only inferred from the version's policy, not recorded; {how}",
        counts.inferred
    )
}

fn is_fitted(name: &str) -> bool {
    fit::GRIDS.iter().any(|(n, _)| *n == name)
}

fn assumed_param(value: f64) -> ProfileParam {
    ProfileParam {
        value,
        interval: None,
        n: 0,
        source: Source::Assumed,
    }
}

/// Four significant decimals: a profile is read by people.
fn round(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

/// Counts, versions and model names of the sessions.
fn fitted_on(sessions: &[Session]) -> FittedOn {
    let mut versions: Vec<String> = sessions
        .iter()
        .filter_map(|s| s.agent_version.clone())
        .collect();
    versions.sort();
    versions.dedup();
    let mut models: Vec<String> = sessions
        .iter()
        .flat_map(|s| s.models.iter().cloned())
        .collect();
    models.sort();
    models.dedup();
    FittedOn {
        files: 0,
        sessions: sessions.len() as u64,
        parts: sessions.iter().map(|s| s.parts.len() as u64).sum(),
        turns: sessions.iter().map(|s| s.turns().count() as u64).sum(),
        agent_versions: versions,
        models,
        inputs_hash: String::new(),
        ..FittedOn::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, Part, Reminders, Turn};

    fn session(group: &str) -> Session {
        Session {
            format: Format::RunLog,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: vec![Part {
                turns: vec![Turn::default()],
            }],
            id: None,
            group: group.into(),
            content_hash: String::new(),
        }
    }

    #[test]
    fn the_held_out_split_keeps_every_group_whole() {
        let sessions: Vec<Session> = (0..40).map(|i| session(&format!("g{}", i % 8))).collect();
        for seed in 0..5 {
            let (training, held_out) = split(&sessions, 0.5, seed);
            assert_eq!(training.len() + held_out.len(), 40);
            // Half the groups (4 of 8, five sessions each) on each side.
            assert_eq!(held_out.len(), 20, "seed {seed}");
            for s in &held_out {
                assert!(training.iter().all(|t| t.group != s.group), "seed {seed}");
            }
        }
        // One group: sessions stand alone, and are split as before.
        let alone: Vec<Session> = (0..10).map(|_| session("one")).collect();
        let (training, held_out) = split(&alone, 0.5, 1);
        assert_eq!((training.len(), held_out.len()), (5, 5));
    }
}

#[cfg(test)]
mod profile_tests;
