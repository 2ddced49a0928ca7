//! Fidelity: the simulated model with the fitted parameters against
//! sessions held out from the fit, statistic by statistic — observed,
//! simulated, distance, verdict — and the simulated model's assumptions
//! the data contradict, said in words.

use super::bootstrap::quantile;
use super::fit::significant;
use super::ks::two_sample;
use super::observe::{Stats, share};
use crate::model::simulated::SimulateParams;

/// Fewer observations than this on either side and a statistic gets no
/// verdict: a two-sample test on a handful of simulated values says
/// "close" about anything (a public corpus gave 1,250 observed intervals
/// against 5 simulated ones).
pub const MIN_SAMPLE: usize = 20;

/// A statistic's verdict, about the observed data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The data do not tell the two apart (p ≥ 0.05).
    Close,
    /// The simulated model differs from the sessions (p < 0.05).
    Differs,
    /// Too few observations to tell: nothing follows, either way.
    TooFewObserved,
    /// Enough observations, too few simulated values to compare them with.
    TooFewSimulated,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Self::Close => "close",
            Self::Differs => "differs",
            Self::TooFewObserved => "too few observed",
            Self::TooFewSimulated => "too few simulated",
        }
    }

    /// No conclusion can be drawn from the row.
    pub fn too_few(self) -> bool {
        matches!(self, Self::TooFewObserved | Self::TooFewSimulated)
    }
}

/// One statistic compared.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FidelityRow {
    pub statistic: &'static str,
    /// `ks` (distributions: the values are medians, the distance is
    /// Kolmogorov–Smirnov's D) or `share` (the values are shares, the
    /// distance their absolute difference, the p-value a two-proportion
    /// z-test's).
    pub test: &'static str,
    pub observed: Option<f64>,
    pub simulated: Option<f64>,
    pub distance: Option<f64>,
    pub p_value: Option<f64>,
    pub n_observed: u64,
    pub n_simulated: u64,
    pub verdict: Verdict,
}

impl FidelityRow {
    /// The row's figures as every output shows them: observed, simulated,
    /// the two counts, the distance and p (`-` where there is none).
    pub fn figures(&self) -> [String; 6] {
        [
            shown(self, self.observed),
            shown(self, self.simulated),
            self.n_observed.to_string(),
            self.n_simulated.to_string(),
            self.distance.map_or("-".into(), |d| format!("{d:.3}")),
            self.p_value.map_or("-".into(), significant),
        ]
    }

    /// The verdict in words, with the count it rests on where too few.
    pub fn verdict_text(&self) -> String {
        match self.verdict {
            Verdict::TooFewObserved => format!("too few observed (n = {})", self.n_observed),
            Verdict::TooFewSimulated => format!("too few simulated (n = {})", self.n_simulated),
            verdict => verdict.label().to_string(),
        }
    }
}

/// Observed and simulated samples of one distribution (for the plots).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Distribution {
    pub statistic: &'static str,
    pub observed: Vec<f64>,
    pub simulated: Vec<f64>,
}

/// The rows and the distributions behind the `ks` rows.
pub fn compare(observed: &Stats, simulated: &Stats) -> (Vec<FidelityRow>, Vec<Distribution>) {
    let samples: [(&'static str, &Vec<f64>, &Vec<f64>); 5] = [
        (
            "turns between planning calls",
            &observed.turn_gaps,
            &simulated.turn_gaps,
        ),
        (
            "tokens between planning calls",
            &observed.token_gaps,
            &simulated.token_gaps,
        ),
        (
            "items completed per update",
            &observed.completed_per_update,
            &simulated.completed_per_update,
        ),
        (
            "turns before the first plan",
            &observed.first_plan_turn,
            &simulated.first_plan_turn,
        ),
        (
            "share of a session's turns that plan",
            &observed.session_planning_share,
            &simulated.session_planning_share,
        ),
    ];
    let mut rows: Vec<FidelityRow> = samples.iter().map(|(s, o, m)| ks_row(s, o, m)).collect();
    let shares = [
        (
            "share of turns that plan",
            observed.planning_turns,
            simulated.planning_turns,
        ),
        (
            "reminder compliance",
            observed.compliance,
            simulated.compliance,
        ),
        (
            "last plan left with open items",
            observed.unfinished,
            simulated.unfinished,
        ),
    ];
    rows.extend(shares.iter().map(|(s, o, m)| share_row(s, *o, *m)));
    let distributions = samples
        .iter()
        .map(|(statistic, o, m)| Distribution {
            statistic,
            observed: (*o).clone(),
            simulated: (*m).clone(),
        })
        .collect();
    (rows, distributions)
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| quantile(&sorted, 0.5))
}

fn verdict(p: Option<f64>, n_observed: usize, n_simulated: usize) -> Verdict {
    match p {
        _ if n_observed < MIN_SAMPLE => Verdict::TooFewObserved,
        _ if n_simulated < MIN_SAMPLE => Verdict::TooFewSimulated,
        Some(p) if p < 0.05 => Verdict::Differs,
        Some(_) => Verdict::Close,
        None => Verdict::TooFewSimulated,
    }
}

fn ks_row(statistic: &'static str, observed: &[f64], simulated: &[f64]) -> FidelityRow {
    let test = two_sample(observed, simulated);
    FidelityRow {
        statistic,
        test: "ks",
        observed: median(observed),
        simulated: median(simulated),
        distance: test.map(|t| t.0),
        p_value: test.map(|t| t.1),
        n_observed: observed.len() as u64,
        n_simulated: simulated.len() as u64,
        verdict: verdict(test.map(|t| t.1), observed.len(), simulated.len()),
    }
}

fn share_row(statistic: &'static str, observed: (f64, f64), simulated: (f64, f64)) -> FidelityRow {
    let p = two_proportion_p(observed, simulated);
    let (a, b) = (share(observed), share(simulated));
    FidelityRow {
        statistic,
        test: "share",
        observed: a,
        simulated: b,
        distance: a.zip(b).map(|(a, b)| (a - b).abs()),
        p_value: p,
        n_observed: observed.1 as u64,
        n_simulated: simulated.1 as u64,
        verdict: verdict(p, observed.1 as usize, simulated.1 as usize),
    }
}

/// The two-sided p-value of "same proportion" (pooled z-test).
pub fn two_proportion_p((x1, n1): (f64, f64), (x2, n2): (f64, f64)) -> Option<f64> {
    if n1 <= 0.0 || n2 <= 0.0 {
        return None;
    }
    let pooled = (x1 + x2) / (n1 + n2);
    let variance = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2);
    if variance <= 0.0 {
        return Some(if (x1 / n1 - x2 / n2).abs() < 1e-12 {
            1.0
        } else {
            0.0
        });
    }
    let z = (x1 / n1 - x2 / n2).abs() / variance.sqrt();
    Some((2.0 * (1.0 - normal_cdf(z))).clamp(0.0, 1.0))
}

/// Φ(z), by Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// The simulated model's assumptions that `observed` contradicts, in
/// words (`simulated` is the model with `params` on the same shapes).
pub fn contradictions(
    observed: &Stats,
    simulated: &Stats,
    rows: &[FidelityRow],
    params: &SimulateParams,
) -> Vec<String> {
    let mut said = Vec::new();
    said.extend(rising_hazard(observed));
    said.extend(first_plan_delay(observed, simulated, params));
    for row in rows.iter().filter(|r| r.verdict == Verdict::Differs) {
        said.push(format!(
            "{} differs: {} observed against {} simulated (p = {}).",
            capitalized(row.statistic),
            shown(row, row.observed),
            shown(row, row.simulated),
            row.p_value.map_or("-".into(), significant)
        ));
    }
    said
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| {
        first.to_uppercase().collect::<String>() + chars.as_str()
    })
}

/// A row's value as people read it: a share as a percentage, a median to
/// three significant digits.
pub fn shown(row: &FidelityRow, value: Option<f64>) -> String {
    match value {
        None => "-".into(),
        Some(v) if row.test == "share" => format!("{:.1}%", v * 100.0),
        Some(v) => three_digits(v),
    }
}

/// A number to three significant digits (whole numbers from 100 on).
pub fn three_digits(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    if value.abs() >= 100.0 {
        return format!("{value:.0}");
    }
    let digits = (2 - value.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let text = format!("{value:.digits$}");
    // 2.00 reads 2: trailing zeros of a median say nothing.
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// (plans, turns) of ordinary turns `range` turns after the last plan.
fn hazard_in(stats: &Stats, range: std::ops::RangeInclusive<f64>) -> (f64, f64) {
    stats
        .hazard
        .iter()
        .filter(|(since, _)| range.contains(since))
        .fold((0.0, 0.0), |(p, n), (_, wrote)| {
            (p + f64::from(u8::from(*wrote)), n + 1.0)
        })
}

/// The simulated model re-plans at one flat rate on ordinary turns; real
/// models may re-plan more (or less) the longer they have gone without.
fn rising_hazard(observed: &Stats) -> Option<String> {
    let early = hazard_in(observed, 1.0..=2.0);
    let late = hazard_in(observed, 6.0..=f64::INFINITY);
    let p = two_proportion_p(early, late)?;
    // A claim about the model's assumptions needs more than a verdict
    // does: 20 turns a side and p < 0.01.
    if p >= 0.01 || early.1 < 20.0 || late.1 < 20.0 {
        return None;
    }
    let (a, b) = (early.0 / early.1, late.0 / late.1);
    let direction = if b > a { "rises" } else { "falls" };
    Some(format!(
        "The chance of re-planning {direction} with the turns since the last plan: {:.0}% of ordinary turns 1–2 turns after a plan write one, {:.0}% of those 6 or more after (p = {}); the simulated model's todo_update_rate is one flat chance every ordinary turn.",
        a * 100.0,
        b * 100.0,
        significant(p)
    ))
}

/// The simulated model plans on a task's first turn with `plan_first` and
/// on each later turn before its first plan with `first_plan_hazard` (a
/// constant hazard: the first plan's turn is geometric after the first):
/// real agents may explore longer, or for a more regular time.
fn first_plan_delay(
    observed: &Stats,
    simulated: &Stats,
    params: &SimulateParams,
) -> Option<String> {
    let (o, s) = (
        median(&observed.first_plan_turn)?,
        median(&simulated.first_plan_turn)?,
    );
    let (_, p) = two_sample(&observed.first_plan_turn, &simulated.first_plan_turn)?;
    if p >= 0.05 || observed.first_plan_turn.len() < MIN_SAMPLE {
        return None;
    }
    Some(format!(
        "The first plan came after a median of {o:.0} turns, against {s:.0} simulated (p = {}): the simulated model plans on a task's first turn with plan_first = {:.2} and on each later turn before its first plan with first_plan_hazard = {:.3}, one constant chance, where the sessions' exploring is not.",
        significant(p),
        params.plan_first,
        params.first_plan_hazard.unwrap_or(params.todo_update_rate)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_are_close_and_far_ones_differ() {
        assert!(two_proportion_p((50.0, 100.0), (50.0, 100.0)).unwrap() > 0.99);
        assert!(two_proportion_p((10.0, 100.0), (90.0, 100.0)).unwrap() < 1e-6);
        assert!((normal_cdf(1.96) - 0.975).abs() < 1e-4);
    }

    #[test]
    fn verdicts_are_about_the_observed_data_and_name_their_n() {
        let few = ks_row("x", &[1.0; 7], &[1.0; 300]);
        assert_eq!(few.verdict, Verdict::TooFewObserved);
        assert_eq!(few.verdict_text(), "too few observed (n = 7)");
        let short = ks_row("x", &[1.0; 70], &[1.0; 3]);
        assert_eq!(short.verdict_text(), "too few simulated (n = 3)");
        let row = share_row("s", (30.0, 90.0), (300.0, 900.0));
        assert_eq!(row.verdict, Verdict::Close);
        assert_eq!(shown(&row, row.observed), "33.3%");
        assert_eq!(three_digits(2.0), "2");
        assert_eq!(three_digits(0.123_45), "0.123");
        assert_eq!(three_digits(1383.4), "1383");
        assert_eq!(three_digits(12.345), "12.3");
    }

    #[test]
    fn the_first_plan_and_the_per_session_share_are_compared() {
        let observed = Stats {
            first_plan_turn: (0..40).map(|i| f64::from(i % 8)).collect(),
            session_planning_share: (0..40).map(|i| f64::from(i % 5) / 10.0).collect(),
            ..Stats::default()
        };
        let mut simulated = observed.clone();
        simulated.first_plan_turn = vec![0.0; 400];
        let (rows, distributions) = compare(&observed, &simulated);
        let row = |name: &str| rows.iter().find(|r| r.statistic == name).unwrap();
        assert_eq!(row("turns before the first plan").verdict, Verdict::Differs);
        assert_eq!(
            row("share of a session's turns that plan").verdict,
            Verdict::Close
        );
        assert!(
            rows.iter()
                .any(|r| r.statistic == "last plan left with open items")
        );
        assert_eq!(distributions.len(), 5);
    }

    #[test]
    fn a_rising_hazard_is_said_in_words() {
        let mut stats = Stats::default();
        stats.hazard.extend((0..60).map(|i| (1.0, i % 20 == 0)));
        stats.hazard.extend((0..60).map(|i| (7.0, i % 2 == 0)));
        let said = rising_hazard(&stats).unwrap();
        assert!(said.contains("rises"), "{said}");
        assert!(said.contains("5%") && said.contains("50%"), "{said}");
    }
}
