//! The parameters counted directly on sessions, each with its count and a
//! 95% interval from resampling sessions: `plan_first`, `todo_update_rate`,
//! `reminder_compliance`, `invalid_todo_rate`, `rewrite_stale_plan`, and
//! where the API's usage is recorded `chars_per_token` and
//! `tokens_per_turn`.
//!
//! Every estimator is a ratio of sums over sessions (`Σ events / Σ
//! chances`), one `(events, chances)` pair a session, summed per group
//! ([`super::group`]): the group is the unit of resampling.

use super::bootstrap::{ratio, ratio_interval};
use super::group::Groups;
use super::observe::{
    StopShares, TurnKind, classify_ends, completed, completes_list, rejected, writes,
};
use crate::transcript::{Reminders, Session, Turn};

/// One directly measured parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    pub name: &'static str,
    /// `None`: the sessions hold no event it could be measured on.
    pub value: Option<f64>,
    pub interval: Option<[f64; 2]>,
    /// How many chances (turns, reminders, updates...) it rests on.
    pub n: u64,
    /// Why it is unmeasured, or what it was measured on.
    pub note: String,
}

type PerSession = fn(&Session, &StopShares) -> (f64, f64);

/// The estimators, in the order reports list them, with what each counts.
const ESTIMATORS: [(&str, PerSession, &str); 9] = [
    (
        "plan_first",
        plan_first,
        "first acting turns of a task with no plan yet",
    ),
    (
        "todo_update_rate",
        todo_update_rate,
        "ordinary turns (not first, not after a reminder, not a retry)",
    ),
    (
        "reminder_compliance",
        reminder_compliance,
        "turns right after a planning reminder",
    ),
    (
        "invalid_todo_rate",
        invalid_todo_rate,
        "turns that write the plan",
    ),
    (
        "rewrite_stale_plan",
        rewrite_stale_plan,
        "first turns of a later task while an earlier plan stands",
    ),
    (
        "chars_per_token",
        chars_per_token,
        "turns whose API usage is recorded",
    ),
    (
        "tokens_per_turn",
        tokens_per_turn,
        "turns whose output tokens are recorded",
    ),
    (
        "first_plan_hazard",
        first_plan_hazard,
        "later turns of a task before its first plan (not reminded, not retries)",
    ),
    (
        "closing_update",
        closing_update,
        "tasks ending with a plan (share whose last plan is complete)",
    ),
];

/// Every ratio measure over `sessions`, its interval seeded by `seed`
/// (the session-level structure is [`super::structure`]'s), every open
/// end a whole missed chance ([`measure_with`]).
pub fn measure_all(sessions: &[Session], seed: u64) -> Vec<Measure> {
    measure_with(sessions, seed, &StopShares::default())
}

/// [`measure_all`], each open end (a last answer left with items open)
/// counted as a chance with the weight `shares` gives it.
pub fn measure_with(sessions: &[Session], seed: u64, shares: &StopShares) -> Vec<Measure> {
    let groups = Groups::of(sessions);
    ESTIMATORS
        .iter()
        .enumerate()
        .map(|(i, (name, per_session, counted))| {
            let per: Vec<(f64, f64)> = sessions.iter().map(|s| per_session(s, shares)).collect();
            // Groups, not sessions, are what resample ([`Groups`]).
            let pairs = groups.sum_pairs(&per);
            let n = chances(name, &per);
            let value = ratio(&pairs);
            let note = if value.is_some() {
                format!("counted on {counted}")
            } else if *name == "reminder_compliance"
                && sessions.iter().all(|s| s.reminders != Reminders::Recorded)
            {
                "unmeasured: the transcripts do not record reminders".to_string()
            } else {
                format!("unmeasured: no {counted}")
            };
            let resampled = value.and(ratio_interval(&pairs, seed ^ (i as u64 + 1)));
            Measure {
                name,
                value,
                interval: resampled.map(|r| at_least_wilson(name, r, &pairs)),
                n,
                note,
            }
        })
        .collect()
}

/// A rate's interval is at least the Wilson score interval of its pooled
/// events and chances: resampling sessions gives no spread at all when
/// every session agrees (12 first turns of 12 that plan read `[1, 1]`),
/// which no count of 12 can promise. The ratios of tokens are left as
/// resampled.
fn at_least_wilson(name: &str, resampled: [f64; 2], pairs: &[(f64, f64)]) -> [f64; 2] {
    if matches!(name, "chars_per_token" | "tokens_per_turn") {
        return resampled;
    }
    let events: f64 = pairs.iter().map(|p| p.0).sum();
    let chances: f64 = pairs.iter().map(|p| p.1).sum();
    if chances <= 0.0 {
        return resampled;
    }
    let (z, p) = (1.96_f64, events / chances);
    let centre = (p + z * z / (2.0 * chances)) / (1.0 + z * z / chances);
    let half = z / (1.0 + z * z / chances)
        * (p * (1.0 - p) / chances + z * z / (4.0 * chances * chances)).sqrt();
    let [low, high] = resampled;
    [
        low.min((centre - half).max(0.0)),
        high.max((centre + half).min(1.0)),
    ]
}

/// The count a measure rests on: its chances (for `chars_per_token`, the
/// sessions with usage rather than the tokens).
fn chances(name: &str, pairs: &[(f64, f64)]) -> u64 {
    match name {
        "chars_per_token" => pairs.iter().filter(|p| p.1 > 0.0).count() as u64,
        _ => pairs.iter().map(|p| p.1).sum::<f64>().round() as u64,
    }
}

/// (turns of `kind` where `event` holds, turns of `kind`), an open end
/// counted with the weight `shares` gives its kind (it never writes).
/// A rejected write answered by the close ([`failed_close`]) is no chance:
/// the model draws whether to plan before it looks at what is left, so
/// once it believes the work done a drawn update shows only when invalid
/// (a valid one is the close, or nothing); counted, those writes read
/// `todo_update_rate` about 2% high on the model's own runs.
fn share_of(
    session: &Session,
    kind: TurnKind,
    shares: &StopShares,
    event: impl Fn(&Turn) -> bool,
) -> (f64, f64) {
    let closes = session
        .parts
        .iter()
        .flat_map(|part| (0..part.turns.len()).map(|i| failed_close(&part.turns, i)));
    classify_ends(session)
        .into_iter()
        .zip(closes)
        .filter(|((_, _, k, _), close)| *k == kind && !close)
        .fold((0.0, 0.0), |(n, d), ((_, turn, _, open_end), _)| {
            let weight = if open_end { shares.of(kind) } else { 1.0 };
            (n + f64::from(u8::from(event(turn))), d + weight)
        })
}

pub fn plan_first(session: &Session, shares: &StopShares) -> (f64, f64) {
    share_of(session, TurnKind::First, shares, writes)
}

/// Ordinary turns that write the plan, of ordinary turns (each open end
/// weighted by `shares.ordinary`).
pub fn todo_update_rate(session: &Session, shares: &StopShares) -> (f64, f64) {
    share_of(session, TurnKind::Ordinary, shares, writes)
}

pub fn first_plan_hazard(session: &Session, shares: &StopShares) -> (f64, f64) {
    share_of(session, TurnKind::Exploring, shares, writes)
}

/// (tasks whose last plan has every item completed, tasks ending with a
/// plan): the simulated model's ordinary updates never complete the list,
/// so a complete one is its closing update.
pub fn closing_update(session: &Session, _: &StopShares) -> (f64, f64) {
    session
        .parts
        .iter()
        .filter_map(|part| part.turns.last()?.plan_after.as_ref())
        .filter(|plan| !plan.is_empty())
        .fold((0.0, 0.0), |(n, d), plan| {
            (
                n + f64::from(u8::from(completed(plan) == plan.len())),
                d + 1.0,
            )
        })
}

/// Counted on recorded reminders only: unmeasured (no chance counted) when
/// the session's reminders are inferred or unknown (inferred ones join by
/// [`super::reminders::with_inferred`]). Each open end weighs
/// `shares.reminded`.
pub fn reminder_compliance(session: &Session, shares: &StopShares) -> (f64, f64) {
    if session.reminders != Reminders::Recorded {
        return (0.0, 0.0);
    }
    share_of(session, TurnKind::Reminded, shares, writes)
}

/// Counted on the writes of an update the model drew while work remained:
/// the closing update is left out (it is `closing_update`'s, made when the
/// work is believed done, and never invalid), and so is a rejected write
/// answered by the close — its retry closes the list or the part ends
/// with an answer and no call. The model draws an invalid update before it
/// looks at what is left, so once it believes the task done an update it
/// draws shows only when invalid (a valid one is the close, or nothing):
/// counted, those read the rate about 20% high on the model's own runs
/// (and the closing updates, counted too, about 5% low).
pub fn invalid_todo_rate(session: &Session, _: &StopShares) -> (f64, f64) {
    session.parts.iter().fold((0.0, 0.0), |(n, d), part| {
        let turns = &part.turns;
        turns
            .iter()
            .enumerate()
            .filter(|(i, t)| writes(t) && !completes_list(t) && !failed_close(turns, *i))
            .fold((n, d), |(n, d), (_, turn)| {
                (n + f64::from(u8::from(rejected(turn))), d + 1.0)
            })
    })
}

/// Whether the write at `index` of a part's `turns` is rejected and the
/// turns after it (through further rejected writes) close the work: a
/// write that completes the list, or the part's last turn calling no tool.
fn failed_close(turns: &[Turn], index: usize) -> bool {
    let Some(turn) = turns.get(index) else {
        return false;
    };
    if !rejected(turn) {
        return false;
    }
    let last = turns.len().saturating_sub(1);
    turns
        .iter()
        .enumerate()
        .skip(index + 1)
        .find(|(_, t)| !rejected(t))
        .is_some_and(|(i, t)| {
            completes_list(t)
                || (i == last && t.planning_calls.is_empty() && t.other_tool_calls == 0)
        })
}

/// A rewrite is a plan write on the first turn of the new task whose plan
/// has no completed item (a list carried over keeps the old task's done
/// items).
pub fn rewrite_stale_plan(session: &Session, shares: &StopShares) -> (f64, f64) {
    share_of(session, TurnKind::StaleFirst, shares, |turn| {
        writes(turn)
            && turn
                .plan_after
                .as_ref()
                .is_some_and(|plan| completed(plan) == 0)
    })
}

/// (characters sent, tokens they added), over consecutive turns that both
/// record their input tokens.
pub fn chars_per_token(session: &Session, _: &StopShares) -> (f64, f64) {
    let turns: Vec<&Turn> = session.turns().collect();
    turns.windows(2).fold((0.0, 0.0), |(c, t), pair| {
        let &[before, now] = pair else {
            return (c, t);
        };
        match (before.input_tokens, now.input_tokens) {
            (Some(a), Some(b)) if now.new_context_chars > 0 => {
                let added = b
                    .saturating_sub(a)
                    .saturating_sub(before.output_tokens.unwrap_or(0));
                if added == 0 {
                    (c, t)
                } else {
                    (c + now.new_context_chars as f64, t + added as f64)
                }
            }
            _ => (c, t),
        }
    })
}

/// (output tokens, turns recording them).
pub fn tokens_per_turn(session: &Session, _: &StopShares) -> (f64, f64) {
    session
        .turns()
        .filter_map(|t| t.output_tokens)
        .fold((0.0, 0.0), |(s, n), out| (s + out as f64, n + 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, ItemStatus, Part, PlanningCall, Reminders, Session, Turn};

    fn call(accepted: bool) -> PlanningCall {
        PlanningCall {
            tool: "TodoWrite".into(),
            accepted,
            writes: true,
        }
    }

    /// A turn: plans (accepted or not), reminded, one other call.
    fn turn(plan: Option<bool>, reminded: bool, statuses: Option<Vec<ItemStatus>>) -> Turn {
        Turn {
            planning_calls: plan.map(call).into_iter().collect(),
            plan_after: statuses,
            reminder_before: reminded,
            other_tool_calls: 1,
            ..Turn::default()
        }
    }

    fn session(parts: Vec<Vec<Turn>>, reminders: Reminders) -> Session {
        Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders,
            parts: parts.into_iter().map(|turns| Part { turns }).collect(),
            id: None,
            group: String::new(),
            content_hash: String::new(),
        }
    }

    use ItemStatus::{Completed, InProgress, Pending};

    /// Part 1: plans on turn 1, then an ordinary turn without, a reminded
    /// turn that plans, a rejected update, its retry, an ordinary turn
    /// that plans, the closing answer. Part 2: starts by rewriting.
    fn known() -> Session {
        let plan = Some(vec![InProgress, Pending]);
        let closing = Turn {
            plan_after: Some(vec![Completed, Completed]),
            ..Turn::default()
        };
        session(
            vec![
                vec![
                    turn(Some(true), false, plan.clone()),
                    turn(None, false, plan.clone()),
                    turn(Some(true), true, plan.clone()),
                    turn(Some(false), false, plan.clone()),
                    turn(Some(true), false, Some(vec![Completed, InProgress])),
                    turn(Some(true), false, Some(vec![Completed, Completed])),
                    closing,
                ],
                vec![turn(Some(true), false, Some(vec![InProgress]))],
            ],
            Reminders::Recorded,
        )
    }

    #[test]
    fn each_estimator_counts_its_own_chances() {
        let s = known();
        assert_eq!(plan_first(&s, &StopShares::default()), (1.0, 1.0));
        // Ordinary: turn 2 (no), turn 4 (rejected: yes); turn 5 is the
        // retry, turn 6 completes the list (the closing update), and the
        // closing answer after the finished plan is no chance.
        assert_eq!(todo_update_rate(&s, &StopShares::default()), (1.0, 2.0));
        assert_eq!(reminder_compliance(&s, &StopShares::default()), (1.0, 1.0));
        // Six turns write the plan; one was rejected, one is the closing
        // update (never invalid in the model: not a chance).
        assert_eq!(invalid_todo_rate(&s, &StopShares::default()), (1.0, 5.0));
        assert_eq!(rewrite_stale_plan(&s, &StopShares::default()), (1.0, 1.0));
    }

    #[test]
    fn compliance_is_unmeasured_without_recorded_reminders() {
        let mut s = known();
        s.reminders = Reminders::Unknown;
        assert_eq!(reminder_compliance(&s, &StopShares::default()), (0.0, 0.0));
        let measures = measure_all(&[s], 1);
        let compliance = measures
            .iter()
            .find(|m| m.name == "reminder_compliance")
            .unwrap();
        assert_eq!(compliance.value, None);
        assert!(
            compliance.note.contains("do not record reminders"),
            "{}",
            compliance.note
        );
    }

    #[test]
    fn a_rejected_write_answered_by_the_close_is_no_chance_of_invalid() {
        let open = Some(vec![Completed, InProgress]);
        let done = Some(vec![Completed, Completed]);
        let s = session(
            vec![
                vec![
                    turn(Some(true), false, open.clone()),
                    // Rejected mid-task, retried, then the work goes on.
                    turn(Some(false), false, open.clone()),
                    turn(Some(true), false, open.clone()),
                    // Rejected once the work is done: the retry closes.
                    turn(Some(false), false, open.clone()),
                    turn(Some(true), false, done),
                ],
                // Rejected, and the part ends with an answer.
                vec![turn(Some(false), false, open.clone()), Turn::default()],
            ],
            Reminders::Recorded,
        );
        // Counted: the first three writes (one rejected). Before, the two
        // late rejections and the close counted too: 3 of 6.
        assert_eq!(invalid_todo_rate(&s, &StopShares::default()), (1.0, 3.0));
        // Nor is the late rejection an ordinary chance that planned (it
        // was, 2 of 2): only the rejection mid-task is.
        assert_eq!(todo_update_rate(&s, &StopShares::default()), (1.0, 1.0));
    }

    #[test]
    fn a_carried_over_plan_is_no_rewrite() {
        let s = session(
            vec![
                vec![turn(Some(true), false, Some(vec![Completed]))],
                vec![turn(Some(true), false, Some(vec![Completed, InProgress]))],
            ],
            Reminders::Recorded,
        );
        assert_eq!(rewrite_stale_plan(&s, &StopShares::default()), (0.0, 1.0));
    }

    #[test]
    fn usage_gives_the_context_measure() {
        let with_usage = |input, output, chars| Turn {
            input_tokens: Some(input),
            output_tokens: Some(output),
            new_context_chars: chars,
            other_tool_calls: 1,
            ..Turn::default()
        };
        // 1000 -> 1300 input tokens after 100 output: 200 tokens of new
        // context for 700 characters; then 1300 -> 1550 after 50: 200 for 500.
        let s = session(
            vec![vec![
                with_usage(1000, 100, 0),
                with_usage(1300, 50, 700),
                with_usage(1550, 30, 500),
            ]],
            Reminders::Recorded,
        );
        assert_eq!(chars_per_token(&s, &StopShares::default()), (1200.0, 400.0));
        assert_eq!(tokens_per_turn(&s, &StopShares::default()), (180.0, 3.0));
        let measures = measure_all(&[s.clone(), s], 2);
        let cpt = measures
            .iter()
            .find(|m| m.name == "chars_per_token")
            .unwrap();
        assert_eq!(cpt.value, Some(3.0));
        assert_eq!(cpt.interval, Some([3.0, 3.0]));
    }

    #[test]
    fn intervals_hold_the_value_and_shrink_with_sessions() {
        let few: Vec<Session> = (0..10).map(|_| known()).collect();
        let many: Vec<Session> = (0..10)
            .flat_map(|_| {
                let mut other = known();
                other.parts[0].turns[1] = turn(Some(true), false, None);
                [known(), other]
            })
            .collect();
        let rate = |sessions: &[Session]| {
            measure_all(sessions, 5)
                .into_iter()
                .find(|m| m.name == "todo_update_rate")
                .unwrap()
        };
        let mixed = rate(&many);
        let [low, high] = mixed.interval.unwrap();
        let value = mixed.value.unwrap();
        assert!(low <= value && value <= high);
        // Sessions of 1 in 2 and 2 in 2 ordinary turns: 0.75 pooled.
        assert!(
            low < 0.75 && 0.75 < high && high - low < 0.4,
            "{low} {high}"
        );
        // Identical sessions: resampling shows no spread, but a count of
        // 20 chances cannot pin a rate to one value: the Wilson interval
        // of 10 in 20 stands.
        let [low, high] = rate(&few).interval.unwrap();
        assert!(
            (low - 0.2993).abs() < 0.001 && (high - 0.7007).abs() < 0.001,
            "{low} {high}"
        );
    }

    #[test]
    fn groups_not_sessions_are_resampled() {
        // Ten sessions of a project that always plans, ten of one that
        // never does: two groups say little, twenty sessions would say much.
        let planner = |group: &str, plans: bool| {
            // A plan is known from the first turn on: the later turns are
            // ordinary, not exploring.
            let plan = Some(vec![InProgress, Pending]);
            let mut s = session(
                vec![vec![
                    turn(Some(true), false, plan.clone()),
                    turn(plans.then_some(true), false, plan.clone()),
                    turn(plans.then_some(true), false, plan),
                ]],
                Reminders::Recorded,
            );
            s.group = group.into();
            s
        };
        let mut sessions: Vec<Session> = (0..10).map(|_| planner("a", true)).collect();
        sessions.extend((0..10).map(|_| planner("b", false)));
        let interval = |sessions: &[Session]| {
            measure_all(sessions, 3)
                .into_iter()
                .find(|m| m.name == "todo_update_rate")
                .and_then(|m| m.interval)
                .unwrap()
        };
        let [low, high] = interval(&sessions);
        assert!(low < 0.05 && high > 0.95, "{low} {high}");
        for s in &mut sessions {
            s.group.clear();
        }
        let [low, high] = interval(&sessions);
        assert!(low > 0.25 && high < 0.75, "{low} {high}");
    }

    #[test]
    fn a_reminder_before_the_closing_answer_is_no_missed_chance() {
        let open = Some(vec![Completed, InProgress]);
        let done = Some(vec![Completed, Completed]);
        let closing = |plan: &Option<Vec<ItemStatus>>| Turn {
            reminder_before: true,
            plan_after: plan.clone(),
            ..Turn::default()
        };
        let s = session(
            vec![vec![
                turn(Some(true), false, open.clone()),
                turn(Some(true), true, open.clone()),
                turn(None, false, open.clone()),
                // The write that completes the list is the closing update,
                // not an ordinary chance.
                turn(Some(true), false, done.clone()),
                // Reminded, then the closing answer after a finished plan.
                closing(&done),
            ]],
            Reminders::Recorded,
        );
        assert_eq!(reminder_compliance(&s, &StopShares::default()), (1.0, 1.0));
        assert_eq!(todo_update_rate(&s, &StopShares::default()), (0.0, 1.0));
        // Items still open: the last answer is an open end (stopping early,
        // or the work believed done with the list not closed: no session
        // tells them apart), a whole missed chance by default.
        let mut stopped = s.clone();
        stopped.parts[0].turns[3] = turn(None, false, open.clone());
        stopped.parts[0].turns[4] = closing(&open);
        assert_eq!(
            reminder_compliance(&stopped, &StopShares::default()),
            (1.0, 2.0)
        );
        // A text-only turn mid-part stays a chance.
        let mut middle = s.clone();
        middle.parts[0].turns.insert(2, Turn::default());
        assert_eq!(
            todo_update_rate(&middle, &StopShares::default()),
            (0.0, 2.0)
        );
    }

    #[test]
    fn an_open_end_counts_with_its_share_of_early_stops() {
        let open = Some(vec![Completed, InProgress]);
        let end = |reminded| Turn {
            reminder_before: reminded,
            plan_after: open.clone(),
            ..Turn::default()
        };
        let s = session(
            vec![
                vec![
                    turn(Some(true), false, open.clone()),
                    turn(Some(true), true, open.clone()),
                    turn(None, true, open.clone()),
                    end(true),
                ],
                vec![
                    turn(None, false, open.clone()),
                    turn(None, false, open.clone()),
                    end(false),
                ],
            ],
            Reminders::Recorded,
        );
        let shares = StopShares {
            reminded: 0.25,
            ordinary: 0.0,
        };
        // Reminded: a write, a turn that acts without one, and the open
        // end at a quarter of a chance.
        assert_eq!(reminder_compliance(&s, &shares), (1.0, 2.25));
        assert_eq!(reminder_compliance(&s, &StopShares::default()), (1.0, 3.0));
        // Ordinary: the second part's later turn; its open end weighs 0.
        assert_eq!(todo_update_rate(&s, &shares), (0.0, 1.0));
        assert_eq!(todo_update_rate(&s, &StopShares::default()), (0.0, 2.0));
        let measures = measure_with(&[s.clone(), s], 4, &shares);
        let compliance = measures
            .iter()
            .find(|m| m.name == "reminder_compliance")
            .unwrap();
        assert_eq!(compliance.value, Some(2.0 / 4.5));
    }
}
