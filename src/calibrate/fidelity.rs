//! Fidelity: the simulated model with the fitted parameters against
//! sessions held out from the fit, statistic by statistic — observed,
//! simulated, distance, verdict — and the simulated model's assumptions
//! the data contradict, said in words.
//!
//! The held-out sessions come in groups (projects, people), and values
//! within a group are not independent draws: every p-value here resamples
//! groups ([`super::clustered`]), and a statistic whose observed values
//! come from fewer than [`MIN_GROUPS`] groups gets no verdict.

use std::collections::BTreeMap;

use super::bootstrap::quantile;
use super::clustered::{self, ks_p, share_p};
use super::fit::significant;
use super::ks::two_sample;
use super::observe::{Stats, share};
use crate::model::simulated::{SimulateParams, mix};
use crate::transcript::Session;

pub use super::clustered::MIN_GROUPS;

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
    /// Enough observations, but from fewer than [`MIN_GROUPS`] groups:
    /// their variability between groups cannot be told, so neither can a
    /// difference.
    TooFewGroups,
    /// Enough observations, too few simulated values to compare them with.
    TooFewSimulated,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Self::Close => "close",
            Self::Differs => "differs",
            Self::TooFewObserved => "too few observed",
            Self::TooFewGroups => "too few groups",
            Self::TooFewSimulated => "too few simulated",
        }
    }

    /// No conclusion can be drawn from the row.
    pub fn too_few(self) -> bool {
        matches!(
            self,
            Self::TooFewObserved | Self::TooFewGroups | Self::TooFewSimulated
        )
    }
}

/// One statistic compared.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FidelityRow {
    pub statistic: &'static str,
    /// `ks` (distributions: the values are medians, the distance is
    /// Kolmogorov–Smirnov's D, the p-value a group bootstrap's) or `share`
    /// (the values are shares, the distance their absolute difference, the
    /// p-value from the groups' variance: [`super::clustered`]).
    pub test: &'static str,
    pub observed: Option<f64>,
    pub simulated: Option<f64>,
    pub distance: Option<f64>,
    pub p_value: Option<f64>,
    pub n_observed: u64,
    /// The held-out groups the observed values come from (each session
    /// its own group where the sessions have no groups).
    pub n_groups: u64,
    pub n_simulated: u64,
    pub verdict: Verdict,
}

impl FidelityRow {
    /// The row's figures as every output shows them: observed, simulated,
    /// the observed count and its groups, the simulated count, the
    /// distance and p (`-` where there is none).
    pub fn figures(&self) -> [String; 7] {
        [
            shown(self, self.observed),
            shown(self, self.simulated),
            self.n_observed.to_string(),
            self.n_groups.to_string(),
            self.n_simulated.to_string(),
            self.distance.map_or("-".into(), |d| format!("{d:.3}")),
            self.p_value.map_or("-".into(), p_shown),
        ]
    }

    /// The verdict in words, with the count it rests on where too few.
    pub fn verdict_text(&self) -> String {
        match self.verdict {
            Verdict::TooFewObserved => format!("too few observed (n = {})", self.n_observed),
            Verdict::TooFewGroups => format!("too few groups (n = {})", self.n_groups),
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

/// One side of the comparison: its statistics over all its sessions and
/// cluster by cluster — the held-out groups ([`by_group`]), the simulated
/// runs — which are what the p-values resample.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub total: &'a Stats,
    pub clusters: &'a [Stats],
}

/// The values of one distribution compared.
type Values = fn(&Stats) -> &[f64];
/// The `(events, chances)` of one share compared.
type Pair = fn(&Stats) -> (f64, f64);

/// The distributions compared, with where each is read.
const DISTRIBUTIONS: [(&str, Values); 5] = [
    ("turns between planning calls", |s| &s.turn_gaps),
    ("tokens between planning calls", |s| &s.token_gaps),
    ("items completed per update", |s| &s.completed_per_update),
    (FIRST_PLAN, |s| &s.first_plan_turn),
    ("share of a session's turns that plan", |s| {
        &s.session_planning_share
    }),
];

const FIRST_PLAN: &str = "turns before the first plan";

/// The shares compared.
const SHARES: [(&str, Pair); 3] = [
    ("share of turns that plan", |s| s.planning_turns),
    ("reminder compliance", |s| s.compliance),
    ("last plan left with open items", |s| s.unfinished),
];

/// The rows, their p-values from group resamples seeded by `seed`, and
/// the distributions behind the `ks` rows.
pub fn compare(
    observed: Side<'_>,
    simulated: Side<'_>,
    seed: u64,
) -> (Vec<FidelityRow>, Vec<Distribution>) {
    let seeds = (0u64..).map(|i| mix(seed ^ mix(i)));
    let mut rows: Vec<FidelityRow> = DISTRIBUTIONS
        .iter()
        .zip(seeds.clone())
        .map(|((statistic, values), seed)| ks_row(statistic, *values, (observed, simulated), seed))
        .collect();
    rows.extend(
        SHARES
            .iter()
            .map(|(statistic, pair)| share_row(statistic, *pair, observed, simulated)),
    );
    let distributions = DISTRIBUTIONS
        .iter()
        .map(|(statistic, values)| Distribution {
            statistic,
            observed: values(observed.total).to_vec(),
            simulated: values(simulated.total).to_vec(),
        })
        .collect();
    (rows, distributions)
}

/// Every statistic with its observed and simulated counts (what
/// [`super::tenfold`] needs, without the tests).
pub fn counts(observed: &Stats, simulated: &Stats) -> Vec<(&'static str, u64, u64)> {
    let distributions = DISTRIBUTIONS.iter().map(|(statistic, values)| {
        let n = |s| values(s).len() as u64;
        (*statistic, n(observed), n(simulated))
    });
    let shares = SHARES.iter().map(|(statistic, pair)| {
        let n = |s| pair(s).1 as u64;
        (*statistic, n(observed), n(simulated))
    });
    distributions.chain(shares).collect()
}

/// The statistics of `sessions` group by group, in order of first
/// appearance (each session its own group where `sessions_alone`).
pub fn by_group(sessions: &[Session], sessions_alone: bool, chars_per_token: f64) -> Vec<Stats> {
    if sessions_alone {
        return sessions
            .iter()
            .map(|s| Stats::of([s], chars_per_token))
            .collect();
    }
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut groups: Vec<Stats> = Vec::new();
    for session in sessions {
        let next = index.len();
        let at = *index.entry(session.group.as_str()).or_insert(next);
        if at == groups.len() {
            groups.push(Stats::default());
        }
        if let Some(stats) = groups.get_mut(at) {
            stats.add(session, chars_per_token);
        }
    }
    groups
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| quantile(&sorted, 0.5))
}

/// The verdict where the counts allow one (`None`: p is not needed).
fn too_few(n_observed: u64, n_groups: u64, n_simulated: u64) -> Option<Verdict> {
    let min = MIN_SAMPLE as u64;
    if n_observed < min {
        Some(Verdict::TooFewObserved)
    } else if n_groups < MIN_GROUPS as u64 {
        Some(Verdict::TooFewGroups)
    } else if n_simulated < min {
        Some(Verdict::TooFewSimulated)
    } else {
        None
    }
}

fn verdict(p: Option<f64>) -> Verdict {
    match p {
        Some(p) if p < 0.05 => Verdict::Differs,
        Some(_) => Verdict::Close,
        None => Verdict::TooFewSimulated,
    }
}

fn ks_row(
    statistic: &'static str,
    values: Values,
    (observed, simulated): (Side<'_>, Side<'_>),
    seed: u64,
) -> FidelityRow {
    let (o, m) = (values(observed.total), values(simulated.total));
    let (o_clusters, m_clusters) = (
        cluster_values(observed, values),
        cluster_values(simulated, values),
    );
    let n_groups = o_clusters.iter().filter(|c| !c.is_empty()).count() as u64;
    let (n_observed, n_simulated) = (o.len() as u64, m.len() as u64);
    let unjudged = too_few(n_observed, n_groups, n_simulated);
    // No p where no verdict: a p-value beside "too few" would read as one.
    let p = unjudged
        .is_none()
        .then(|| ks_p(&o_clusters, &m_clusters, clustered::RESAMPLES, seed))
        .flatten();
    FidelityRow {
        statistic,
        test: "ks",
        observed: median(o),
        simulated: median(m),
        distance: two_sample(o, m).map(|t| t.0),
        p_value: p,
        n_observed,
        n_groups,
        n_simulated,
        verdict: unjudged.unwrap_or_else(|| verdict(p)),
    }
}

fn cluster_values(side: Side<'_>, values: Values) -> Vec<&[f64]> {
    side.clusters.iter().map(values).collect()
}

fn share_row(
    statistic: &'static str,
    pair: Pair,
    observed: Side<'_>,
    simulated: Side<'_>,
) -> FidelityRow {
    let (o, m) = (pair(observed.total), pair(simulated.total));
    let clusters = |side: Side<'_>| -> Vec<(f64, f64)> { side.clusters.iter().map(pair).collect() };
    let (o_clusters, m_clusters) = (clusters(observed), clusters(simulated));
    let n_groups = o_clusters.iter().filter(|c| c.1 > 0.0).count() as u64;
    let (n_observed, n_simulated) = (o.1 as u64, m.1 as u64);
    let unjudged = too_few(n_observed, n_groups, n_simulated);
    let p = unjudged
        .is_none()
        .then(|| share_p(&o_clusters, &m_clusters))
        .flatten();
    let (a, b) = (share(o), share(m));
    FidelityRow {
        statistic,
        test: "share",
        observed: a,
        simulated: b,
        distance: a.zip(b).map(|(a, b)| (a - b).abs()),
        p_value: p,
        n_observed,
        n_groups,
        n_simulated,
        verdict: unjudged.unwrap_or_else(|| verdict(p)),
    }
}

/// The simulated model's assumptions that `observed` contradicts, in
/// words (`rows` compare it with the model under `params`).
pub fn contradictions(
    observed: Side<'_>,
    rows: &[FidelityRow],
    params: &SimulateParams,
) -> Vec<String> {
    let mut said = Vec::new();
    said.extend(rising_hazard(observed));
    said.extend(first_plan_delay(rows, params));
    for row in rows.iter().filter(|r| r.verdict == Verdict::Differs) {
        said.push(format!(
            "{} differs: {} observed against {} simulated ({}).",
            capitalized(row.statistic),
            shown(row, row.observed),
            shown(row, row.simulated),
            row.p_value.map_or("p -".into(), p_clause)
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

/// A p-value as the table shows it: at the group bootstrap's floor (no
/// resample as far apart as the data: p ≤ 1/(resamples + 1)) it reads
/// `≤ 0.001`, not as the exact value it is not.
pub fn p_shown(p: f64) -> String {
    let floor = 1.0 / (clustered::RESAMPLES as f64 + 1.0);
    if p <= floor * (1.0 + 1e-9) {
        format!("≤ {}", three_digits(floor))
    } else {
        significant(p)
    }
}

/// A p-value in a sentence: `p = 0.042`, or `p ≤ 0.001` at the floor.
fn p_clause(p: f64) -> String {
    let shown = p_shown(p);
    if shown.starts_with('≤') {
        format!("p {shown}")
    } else {
        format!("p = {shown}")
    }
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
/// The two shares come from the same groups, so p is the paired
/// cluster-robust one ([`clustered::paired_share_p`]).
fn rising_hazard(observed: Side<'_>) -> Option<String> {
    let early = hazard_in(observed.total, 1.0..=2.0);
    let late = hazard_in(observed.total, 6.0..=f64::INFINITY);
    let per_group: Vec<clustered::Paired> = observed
        .clusters
        .iter()
        .map(|g| (hazard_in(g, 1.0..=2.0), hazard_in(g, 6.0..=f64::INFINITY)))
        .collect();
    let (p, groups) = clustered::paired_share_p(&per_group)?;
    // A claim about the model's assumptions needs more than a verdict
    // does: 20 turns a side and p < 0.01, from enough groups.
    if p >= 0.01 || early.1 < 20.0 || late.1 < 20.0 || groups < MIN_GROUPS {
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
/// real agents may explore longer, or for a more regular time. Said where
/// the row's verdict (groups resampled) is that the two differ.
fn first_plan_delay(rows: &[FidelityRow], params: &SimulateParams) -> Option<String> {
    let row = rows
        .iter()
        .find(|r| r.statistic == FIRST_PLAN && r.verdict == Verdict::Differs)?;
    let (o, s, p) = (row.observed?, row.simulated?, row.p_value?);
    Some(format!(
        "The first plan came after a median of {o:.0} turns, against {s:.0} simulated ({}): the simulated model plans on a task's first turn with plan_first = {:.2} and on each later turn before its first plan with first_plan_hazard = {:.3}, one constant chance, where the sessions' exploring is not.",
        p_clause(p),
        params.plan_first,
        params.first_plan_hazard.unwrap_or(params.todo_update_rate)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::ks::two_proportion_p;

    /// `stats` dealt into `groups` clusters: values in turn, shares in
    /// equal parts.
    fn dealt(stats: &Stats, groups: usize) -> Vec<Stats> {
        let deal = |values: &[f64], g: usize| -> Vec<f64> {
            values.iter().skip(g).step_by(groups).copied().collect()
        };
        let part = |(x, n): (f64, f64)| (x / groups as f64, n / groups as f64);
        (0..groups)
            .map(|g| Stats {
                turn_gaps: deal(&stats.turn_gaps, g),
                token_gaps: deal(&stats.token_gaps, g),
                completed_per_update: deal(&stats.completed_per_update, g),
                first_plan_turn: deal(&stats.first_plan_turn, g),
                session_planning_share: deal(&stats.session_planning_share, g),
                planning_turns: part(stats.planning_turns),
                compliance: part(stats.compliance),
                unfinished: part(stats.unfinished),
                ..Stats::default()
            })
            .collect()
    }

    /// The rows of `observed` in `groups` groups against `simulated`, each
    /// of its values a run of its own.
    fn rows_of(observed: &Stats, groups: usize, simulated: &Stats) -> Vec<FidelityRow> {
        let (o, m) = (dealt(observed, groups), dealt(simulated, 1000));
        let side = |total, clusters| Side { total, clusters };
        compare(side(observed, &o), side(simulated, &m), 7).0
    }

    fn gaps(values: Vec<f64>) -> Stats {
        Stats {
            turn_gaps: values,
            ..Stats::default()
        }
    }

    #[test]
    fn verdicts_are_about_the_observed_data_and_name_their_n() {
        let row = |o: Vec<f64>, groups, m: Vec<f64>| rows_of(&gaps(o), groups, &gaps(m)).remove(0);
        let few = row(vec![1.0; 7], 7, vec![1.0; 300]);
        assert_eq!(few.verdict, Verdict::TooFewObserved);
        assert_eq!(few.verdict_text(), "too few observed (n = 7)");
        assert_eq!(few.p_value, None);
        let grouped = row(vec![1.0; 70], 4, vec![1.0; 300]);
        assert_eq!(grouped.verdict_text(), "too few groups (n = 4)");
        assert!(grouped.verdict.too_few());
        let short = row(vec![1.0; 70], 10, vec![1.0; 3]);
        assert_eq!(short.verdict_text(), "too few simulated (n = 3)");
        assert_eq!(short.figures()[3], "10");
        let shares = Stats {
            planning_turns: (30.0, 90.0),
            ..Stats::default()
        };
        let simulated = Stats {
            planning_turns: (300.0, 900.0),
            ..Stats::default()
        };
        let rows = rows_of(&shares, 10, &simulated);
        let row = rows
            .iter()
            .find(|r| r.statistic == "share of turns that plan")
            .unwrap();
        assert_eq!(row.verdict, Verdict::Close);
        assert_eq!(row.n_groups, 10);
        assert_eq!(shown(row, row.observed), "33.3%");
        assert_eq!(three_digits(2.0), "2");
        assert_eq!(three_digits(0.123_45), "0.123");
        assert_eq!(three_digits(1383.4), "1383");
        assert_eq!(three_digits(12.345), "12.3");
        // The bootstrap's floor is no exact value.
        assert_eq!(p_shown(0.001), "≤ 0.001");
        assert_eq!(p_clause(0.001), "p ≤ 0.001");
        assert_eq!(p_clause(0.042), "p = 0.0420");
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
        let rows = rows_of(&observed, 10, &simulated);
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
        let groups = dealt(&observed, 10);
        let side = Side {
            total: &observed,
            clusters: &groups,
        };
        let said = contradictions(side, &rows, &SimulateParams::default());
        assert!(
            said.iter().any(|s| s.starts_with("The first plan came")),
            "{said:?}"
        );
    }

    /// Forty values in two groups, one group all 0 and one all 5: taken
    /// one by one they differ from a simulated 50/50 mix of 0 and 6 at
    /// p < 1e-6, but two groups cannot tell a difference from the groups'
    /// own variability, so no verdict.
    #[test]
    fn groups_not_values_decide_the_verdict() {
        let observed = gaps([vec![0.0; 20], vec![5.0; 20]].concat());
        let clusters = [gaps(vec![0.0; 20]), gaps(vec![5.0; 20])];
        let simulated = gaps((0..400).map(|i| f64::from(i % 2 * 6)).collect());
        let (_, iid) = two_sample(&observed.turn_gaps, &simulated.turn_gaps).unwrap();
        assert!(iid < 1e-6, "{iid}");
        let alone = dealt(&simulated, 400);
        let side = |total, clusters| Side { total, clusters };
        let (rows, _) = compare(side(&observed, &clusters), side(&simulated, &alone), 3);
        assert_eq!(rows[0].verdict, Verdict::TooFewGroups);
        assert_eq!(rows[0].n_groups, 2);
    }

    #[test]
    fn sessions_are_grouped_by_their_label_or_alone() {
        use crate::transcript::{Format, Part, Reminders, Turn};
        let session = |group: &str| Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: vec![Part {
                turns: vec![Turn::default(); 2],
            }],
            id: None,
            group: group.into(),
            content_hash: String::new(),
        };
        let sessions = [session("b"), session("a"), session("b")];
        let groups = by_group(&sessions, false, 4.0);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].planning_turns.1, 4.0);
        assert_eq!(groups[1].planning_turns.1, 2.0);
        assert_eq!(by_group(&sessions, true, 4.0).len(), 3);
    }

    #[test]
    fn a_rising_hazard_is_said_in_words() {
        let mut stats = Stats::default();
        stats.hazard.extend((0..60).map(|i| (1.0, i % 20 == 0)));
        stats.hazard.extend((0..60).map(|i| (7.0, i % 2 == 0)));
        let groups = |n: usize| -> Vec<Stats> {
            (0..n)
                .map(|g| Stats {
                    hazard: stats.hazard.iter().skip(g).step_by(n).copied().collect(),
                    ..Stats::default()
                })
                .collect()
        };
        let seven = groups(7);
        let said = rising_hazard(Side {
            total: &stats,
            clusters: &seven,
        })
        .unwrap();
        assert!(said.contains("rises"), "{said}");
        assert!(said.contains("5%") && said.contains("50%"), "{said}");
        // The same turns from two groups: taken one by one they differ
        // (p < 1e-6), but two groups cannot say so.
        assert!(two_proportion_p((3.0, 60.0), (30.0, 60.0)).unwrap() < 1e-6);
        let two = groups(2);
        let side = Side {
            total: &stats,
            clusters: &two,
        };
        assert_eq!(rising_hazard(side), None);
    }
}
