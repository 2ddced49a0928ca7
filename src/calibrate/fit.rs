//! The fit by simulated moments of the parameters no transcript shows
//! directly: the attention parameters (`attention_span`, `sharpness`,
//! `recall_floor`) and the drift weights (`stop_weight`, `skip_weight`).
//!
//! The moments are what drift leaves in a transcript: the share of tasks
//! that end with unfinished items, the items completed per update, the
//! turns per plan item (a drift that stops the task shortens it, now that
//! the turns a step takes are measured) and the turns between plan
//! writes. Each parameter
//! is profiled over a grid (the others at their current values), the
//! simulated model run on the sessions' task shapes at every point with the
//! same seeds, and the objective is the sum of squared standardized gaps
//! `((simulated − observed) / se)²`, `se` the observed moment's standard
//! error from resampling groups, widened for the simulation's own noise —
//! so that at the minimum it is χ²-distributed where the model is right,
//! and the whole fit is tested against it ([`GoodnessOfFit`]): where the
//! model does not fit, no parameter is identified.
//!
//! **Identification rule.** The accepted set is every grid value whose
//! objective is within 3.84 (χ²₁ at 95%) of the minimum; its ends are the
//! interval. A parameter is identified — `fitted` — when (1) the accepted
//! set spans at most half the search range (on a log scale for
//! `attention_span`) and (2) the minimum is clear: somewhere on the grid
//! the objective rises at least 7.68 (twice the threshold) above it, and
//! (3) the minimum is inside the grid: a best value at either end of the
//! search range says only that the parameter lies there or beyond, a
//! bound rather than a measurement — unless that end is the end of the
//! parameter's own range ([`NATURAL_ENDS`]: a recall floor of 0 or 1),
//! where there is no beyond. Otherwise it keeps its assumed value and says
//! why.

use super::bootstrap::Resampler;
use super::group::Groups;
use super::observe::{Stats, mean, share};
use super::simulate::Simulator;
use crate::model::simulated::SimulateParams;
use crate::transcript::Session;

/// The χ²₁ 95% threshold that bounds the accepted set.
pub const THRESHOLD: f64 = 3.84;

/// The parameters fitted, with their search grids.
pub const GRIDS: [(&str, &[f64]); 5] = [
    (
        "attention_span",
        &[
            100.0,
            180.0,
            300.0,
            420.0,
            700.0,
            1200.0,
            2000.0,
            4000.0,
            8000.0,
            16000.0,
            32000.0,
            64000.0,
            128000.0,
            256000.0,
            1_000_000.0,
            10_000_000.0,
        ],
    ),
    ("sharpness", &[1.0, 2.0, 3.0, 4.0, 6.0, 8.0]),
    ("recall_floor", &[0.0, 0.05, 0.15, 0.3, 0.5, 0.8, 0.95, 1.0]),
    ("stop_weight", &[0.02, 0.1, 0.35, 0.7, 1.4]),
    ("skip_weight", &[0.05, 0.2, 0.4, 0.8, 1.6]),
];

/// How many moments are matched.
pub const N_MOMENTS: usize = 4;

/// The ends of a search range that are the ends of the parameter's own
/// range: a best value there is the parameter at its limit (a recall floor
/// of 1: the model never loses its plan), not a bound with more beyond.
pub const NATURAL_ENDS: [(&str, f64); 2] = [("recall_floor", 0.0), ("recall_floor", 1.0)];

/// The moments matched, by name.
pub const MOMENTS: [&str; N_MOMENTS] = [
    "last plan left with open items",
    "completed per update",
    "turns per item",
    "turns between plans",
];

/// A value of each moment.
pub type Moments = [f64; N_MOMENTS];

/// The moment vector of some sessions (NaN where a moment has no data).
/// The turns a task lasts is not one: with the items fixed by the task's
/// shape it is the turns per item again, and counted twice it would
/// weigh double in an objective that takes the moments as independent
/// (on the model's own runs it narrowed `attention_span`'s interval past
/// its truth).
pub fn moments(stats: &Stats) -> Moments {
    [
        share(stats.unfinished).unwrap_or(f64::NAN),
        mean(&stats.completed_per_update).unwrap_or(f64::NAN),
        mean(&stats.turns_per_item).unwrap_or(f64::NAN),
        mean(&stats.turn_gaps).unwrap_or(f64::NAN),
    ]
}

/// One fitted parameter's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct FitResult {
    pub name: &'static str,
    /// The grid and the objective at each point.
    pub profile: Vec<(f64, f64)>,
    pub best: f64,
    pub interval: [f64; 2],
    pub identified: bool,
    /// Why it is, or is not, identified.
    pub reason: String,
}

/// What the fit needs: the observed moments and their standard errors,
/// the simulator, the task shapes and the seed.
pub struct Fit<'a> {
    pub observed: Moments,
    pub se: Moments,
    pub simulator: &'a mut Simulator,
    pub shapes: &'a [super::simulate::Shape],
    pub seed: u64,
    pub chars_per_token: f64,
}

impl Fit<'_> {
    /// The objective at `params`, and how many moments it summed (a
    /// moment with no data on either side is left out).
    fn objective(&mut self, mut params: SimulateParams) -> (f64, usize) {
        // The moments are about tasks with a plan: a run that never plans
        // adds nothing to them, so every simulated run has its chances.
        params.plans_at_all = 1.0;
        let sessions = self.simulator.run(params, self.shapes, self.seed);
        let simulated = moments(&Stats::of(&sessions, self.chars_per_token));
        simulated
            .iter()
            .zip(self.observed.iter().zip(&self.se))
            .filter(|(s, (o, _))| o.is_finite() && s.is_finite())
            .fold((0.0, 0), |(sum, used), (s, (o, se))| {
                let gap = (s - o) / se;
                (sum + gap * gap, used + 1)
            })
    }

    /// Profiles every fitted parameter in turn, starting from `params`;
    /// identified ones are set on `params` as they are found. Then tests
    /// the whole fit at the result: where it is rejected, no parameter is
    /// identified and `params` is put back as it came.
    pub fn run(&mut self, params: &mut SimulateParams) -> (Vec<FitResult>, GoodnessOfFit) {
        let start = *params;
        let mut results = Vec::new();
        for (name, grid) in GRIDS {
            let profile: Vec<(f64, f64)> = grid
                .iter()
                .map(|&value| {
                    let mut trial = *params;
                    if let Some(field) = trial.field_mut(name) {
                        *field = value;
                    }
                    (value, self.objective(trial).0)
                })
                .collect();
            let result = judge(name, profile);
            if result.identified
                && let Some(field) = params.field_mut(name)
            {
                *field = result.best;
            }
            results.push(result);
        }
        let (statistic, used) = self.objective(*params);
        let fitted = results.iter().filter(|r| r.identified).count();
        let test = GoodnessOfFit::of(statistic, used, fitted);
        if withdraw(&mut results, &test) {
            *params = start;
        }
        (results, test)
    }
}

/// Where `test` rejects the model, no parameter is identified: the Δ 3.84
/// rule only holds near a model that fits. True when it withdrew.
pub fn withdraw(results: &mut [FitResult], test: &GoodnessOfFit) -> bool {
    if !test.rejected() {
        return false;
    }
    for result in results.iter_mut() {
        result.identified = false;
        result.reason = format!("not identified: {}", test.verdict());
    }
    true
}

/// The goodness-of-fit test of the whole fit: the objective at its
/// minimum against χ² with (moments − fitted parameters) degrees of
/// freedom. It is χ²-distributed where the model is right because every
/// gap is divided by its moment's standard error — the observed one's
/// (groups resampled) widened for the simulation's own noise.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GoodnessOfFit {
    pub statistic: f64,
    pub df: u32,
    /// `None` when there are no degrees of freedom left to test with.
    pub p_value: Option<f64>,
    /// Moments the statistic sums, and parameters fitted on them.
    pub moments: usize,
    pub fitted: usize,
}

/// Below this p-value the model does not fit.
pub const REJECT_BELOW: f64 = 0.05;

impl GoodnessOfFit {
    pub fn of(statistic: f64, moments: usize, fitted: usize) -> Self {
        let df = moments.saturating_sub(fitted) as u32;
        Self {
            statistic,
            df,
            p_value: super::chi2::p_value(statistic, df),
            moments,
            fitted,
        }
    }

    /// The model does not fit the sessions (p < 0.05).
    pub fn rejected(&self) -> bool {
        self.p_value.is_some_and(|p| p < REJECT_BELOW)
    }

    /// The test's result in words.
    pub fn verdict(&self) -> String {
        let numbers = format!(
            "χ² = {:.1} on {} degree(s) of freedom",
            self.statistic, self.df
        );
        match self.p_value {
            Some(p) if p < REJECT_BELOW => format!(
                "the simulated model does not fit these sessions ({numbers}, p = {})",
                significant(p)
            ),
            Some(p) => format!(
                "the fit is not rejected ({numbers}, p = {})",
                significant(p)
            ),
            None => format!(
                "the fit cannot be tested: {} moment(s) for {} fitted parameter(s)",
                self.moments, self.fitted
            ),
        }
    }
}

/// A p-value to three significant digits (`< 1e-300` below that).
pub fn significant(p: f64) -> String {
    if p == 0.0 || p < 1e-300 {
        return "< 1e-300".into();
    }
    if p >= 0.001 {
        let digits = (2 - p.log10().floor() as i32).max(0) as usize;
        return format!("{p:.digits$}");
    }
    format!("{p:.2e}")
}

/// The identification rule applied to one parameter's objective profile.
pub fn judge(name: &'static str, profile: Vec<(f64, f64)>) -> FitResult {
    let (best, minimum) = profile
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((f64::NAN, f64::NAN));
    let scale = |v: f64| {
        if name == "attention_span" {
            v.max(1.0).ln()
        } else {
            v
        }
    };
    let [low, high] = accepted_interval(&profile, minimum + THRESHOLD, scale);
    let range = profile
        .iter()
        .map(|(v, _)| scale(*v))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let width = (scale(high) - scale(low)) / (range.1 - range.0).max(f64::EPSILON);
    let rise = profile.iter().map(|(_, f)| *f).fold(0.0, f64::max) - minimum;
    let clear = rise >= 2.0 * THRESHOLD;
    let narrow = width <= 0.5;
    let (first, last) = profile
        .iter()
        .map(|(v, _)| *v)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let at_limit = NATURAL_ENDS.contains(&(name, best));
    let inside = (best > first && best < last) || at_limit;
    let reason = match (narrow, clear) {
        _ if clear && !inside => format!(
            "not identified: the best value ({best}) is at the edge of the search range, so the data say only that it lies there or beyond"
        ),
        (true, true) => format!(
            "identified: the data accept {low:.3}–{high:.3} ({:.0}% of the search range)",
            width * 100.0
        ),
        (_, false) => format!(
            "not identified: the objective is flat (it rises only {rise:.1} over the search range, a clear minimum needs {:.2})",
            2.0 * THRESHOLD
        ),
        (false, true) => format!(
            "not identified: the data accept {low:.3}–{high:.3}, {:.0}% of the search range",
            width * 100.0
        ),
    };
    FitResult {
        name,
        profile,
        best,
        interval: [low, high],
        identified: narrow && clear && inside && best.is_finite(),
        reason,
    }
}

/// The ends of the accepted set: where the objective crosses `limit`,
/// interpolated (on `scale`) between the last accepted grid value and the
/// first rejected one on each side — the true value usually lies between
/// grid points — or the grid's end where nothing beyond is rejected.
fn accepted_interval(profile: &[(f64, f64)], limit: f64, scale: impl Fn(f64) -> f64) -> [f64; 2] {
    let accepted: Vec<usize> = profile
        .iter()
        .enumerate()
        .filter(|(_, (_, objective))| *objective <= limit)
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&last)) = (accepted.first(), accepted.last()) else {
        return [f64::NAN, f64::NAN];
    };
    let unscale = |target: f64, a: f64, b: f64| {
        // Back from the scale by bisection: the scale is increasing.
        let (mut lo, mut hi) = (a.min(b), a.max(b));
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if scale(mid) < target {
                lo = mid
            } else {
                hi = mid
            }
        }
        (lo + hi) / 2.0
    };
    // `inside` is accepted (so on the grid); where `outside` is off the
    // grid nothing beyond is rejected and the end is the grid value.
    let cross = |inside: usize, outside: Option<usize>| {
        let Some(&(vi, fi)) = profile.get(inside) else {
            return f64::NAN;
        };
        let Some(&(vo, fo)) = outside.and_then(|o| profile.get(o)) else {
            return vi;
        };
        let t = ((limit - fi) / (fo - fi)).clamp(0.0, 1.0);
        let target = scale(vi) + t * (scale(vo) - scale(vi));
        unscale(target, vi, vo)
    };
    [
        cross(first, first.checked_sub(1)),
        cross(last, last.checked_add(1)),
    ]
}

/// The observed moments and their standard errors: the standard deviation
/// of each over resamples of the groups ([`Groups`]), widened by
/// `sqrt(1 + 1/k)` for the simulation's own noise, `k` the simulated
/// sample over the observed one (`simulated` tasks against `observed`
/// task shapes): the difference of two independent means has the sum of
/// their variances. A floor keeps a moment with no spread from dominating
/// (it makes the test conservative, never too eager).
pub fn observed_moments(
    sessions: &[Session],
    (observed_tasks, simulated_tasks): (usize, usize),
    seed: u64,
    chars_per_token: f64,
) -> (Moments, Moments) {
    let observed = moments(&Stats::of(sessions, chars_per_token));
    let groups = Groups::of(sessions);
    let members = groups.members();
    let mut resampler = Resampler::new(seed);
    let draws: Vec<Moments> = (0..MOMENT_RESAMPLES)
        .map(|_| {
            let picked = resampler.resample(members.len());
            let drawn = picked
                .iter()
                .filter_map(|&g| members.get(g))
                .flatten()
                .filter_map(|&i| sessions.get(i));
            moments(&Stats::of(drawn, chars_per_token))
        })
        .collect();
    let k = simulated_tasks.max(1) as f64 / observed_tasks.max(1) as f64;
    let widen = (1.0 + 1.0 / k).sqrt();
    let floors = [0.02, 0.05, 0.05, 0.1];
    let mut se = [0.0; N_MOMENTS];
    for (j, (se, floor)) in se.iter_mut().zip(floors).enumerate() {
        let values: Vec<f64> = draws
            .iter()
            .filter_map(|d| d.get(j).copied())
            .filter(|v| v.is_finite())
            .collect();
        *se = (standard_deviation(&values) * widen).max(floor);
    }
    (observed, se)
}

/// Resamples behind the moments' standard errors.
const MOMENT_RESAMPLES: usize = 200;

fn standard_deviation(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_fit_identifies_nothing_and_says_so() {
        let sharp = vec![(0.0, 40.0), (0.15, 0.5), (0.3, 9.0), (0.8, 60.0)];
        let mut results = vec![judge("recall_floor", sharp)];
        assert!(results[0].identified);
        // 4 moments, 1 parameter: df 3; 266 is far past any doubt.
        let test = GoodnessOfFit::of(266.0, 4, 1);
        assert_eq!(test.df, 3);
        assert!(test.p_value.unwrap() < 1e-50);
        assert!(withdraw(&mut results, &test));
        assert!(!results[0].identified);
        assert!(
            results[0]
                .reason
                .contains("does not fit these sessions (χ² = 266.0 on 3"),
            "{}",
            results[0].reason
        );
        // 2.0 on 3 degrees of freedom: p = 0.572, not rejected.
        let mut results = vec![judge(
            "recall_floor",
            vec![(0.0, 40.0), (0.15, 0.5), (0.3, 9.0), (0.8, 60.0)],
        )];
        let test = GoodnessOfFit::of(2.0, 4, 1);
        assert_eq!(significant(test.p_value.unwrap()), "0.572");
        assert!(!withdraw(&mut results, &test));
        assert!(results[0].identified);
        // As many parameters as moments: nothing left to test with.
        assert_eq!(GoodnessOfFit::of(1.0, 2, 2).p_value, None);
    }

    #[test]
    fn p_values_have_three_significant_digits() {
        assert_eq!(significant(0.05), "0.0500");
        assert_eq!(significant(1.0), "1.00");
        assert_eq!(significant(0.123_456), "0.123");
        assert_eq!(significant(0.000_123_4), "1.23e-4");
        assert_eq!(significant(0.0), "< 1e-300");
    }

    #[test]
    fn a_sharp_minimum_is_identified() {
        let profile = vec![
            (0.0, 40.0),
            (0.05, 12.0),
            (0.15, 0.5),
            (0.3, 9.0),
            (0.5, 30.0),
            (0.8, 60.0),
        ];
        let fit = judge("recall_floor", profile);
        assert!(fit.identified, "{}", fit.reason);
        assert_eq!(fit.best, 0.15);
        // 0.5 + 3.84 is crossed 3.84 / 11.5 of the way from 0.15 to 0.05,
        // and 3.84 / 8.5 of the way from 0.15 to 0.3.
        let [low, high] = fit.interval;
        assert!((low - (0.15 - 0.1 * 3.84 / 11.5)).abs() < 1e-9, "{low}");
        assert!((high - (0.15 + 0.15 * 3.84 / 8.5)).abs() < 1e-9, "{high}");
    }

    #[test]
    fn a_minimum_at_the_edge_of_the_range_is_a_bound_not_a_fit() {
        let profile = vec![(100.0, 40.0), (300.0, 20.0), (1200.0, 9.0), (4000.0, 0.0)];
        let fit = judge("attention_span", profile);
        assert!(!fit.identified);
        assert!(
            fit.reason.contains("edge of the search range"),
            "{}",
            fit.reason
        );
    }

    /// A recall floor of 1 is the end of the parameter's own range, not of
    /// the search: a best value there is a value (the model never loses its
    /// plan), where a best attention span at 32000 says only "or more".
    #[test]
    fn a_minimum_at_a_natural_limit_is_a_fit() {
        let profile = vec![
            (0.0, 40.0),
            (0.3, 30.0),
            (0.8, 14.0),
            (0.95, 9.0),
            (1.0, 6.0),
        ];
        let fit = judge("recall_floor", profile.clone());
        assert!(fit.identified, "{}", fit.reason);
        assert_eq!(fit.best, 1.0);
        assert!(
            fit.interval[0] > 0.9 && fit.interval[1] == 1.0,
            "{:?}",
            fit.interval
        );
        let scaled: Vec<(f64, f64)> = profile
            .iter()
            .map(|(v, f)| (v * 32000.0 + 100.0, *f))
            .collect();
        assert!(!judge("attention_span", scaled).identified);
    }

    #[test]
    fn a_flat_objective_is_not_identified() {
        let profile = vec![(1.0, 2.0), (2.0, 1.5), (4.0, 1.0), (8.0, 2.5)];
        let fit = judge("sharpness", profile);
        assert!(!fit.identified);
        assert!(fit.reason.contains("flat"), "{}", fit.reason);
    }

    #[test]
    fn a_wide_valley_is_not_identified() {
        let profile = vec![(100.0, 1.0), (300.0, 1.5), (1200.0, 2.0), (4000.0, 20.0)];
        let fit = judge("attention_span", profile);
        assert!(!fit.identified);
        assert!(fit.reason.contains("of the search range"), "{}", fit.reason);
    }

    #[test]
    fn the_attention_grid_reaches_no_forgetting_within_any_simulated_task() {
        // The longest simulated task: MAX_STEPS steps of five turns, each
        // turn a step's largest file (8,000 characters at 2 a token) and
        // 500 tokens of the model's own. At the top of the grid, even at
        // the flattest sharpness searched, recall stays near 1 over all of
        // it; the grid used to stop at 32,000 tokens, a few turns of such
        // a task, so "never forgets" was outside the search.
        let tokens = (super::super::simulate::MAX_STEPS * 5) as f64 * (8000.0 / 2.0 + 500.0);
        let (name, spans) = GRIDS[0];
        assert_eq!(name, "attention_span");
        let top = spans.iter().copied().fold(0.0, f64::max);
        let recall = |span: f64, sharpness: f64| 1.0 / (1.0 + (tokens / span).powf(sharpness));
        assert!(recall(top, 1.0) > 0.95, "{}", recall(top, 1.0));
        assert!(recall(32_000.0, 1.0) < 0.1);
    }
}
