//! How long a task is, and whether a session plans at all, measured
//! directly (docs/simulated-model.md, "Structure measured on real
//! sessions"): `turns_per_step`, the turns an agent spends on a plan item,
//! and `plans_at_all`, the share of sessions that write a plan at all.
//!
//! Both shape what the fit and the fidelity check simulate: with one turn
//! a step the simulated tasks were a third as long as the sessions' and
//! their recall was spent by the second turn; and rates measured over
//! every session, most of which never plan, made each simulated session a
//! seldom planner instead of a mixture of planners and sessions that never
//! plan. Ratios of sums over sessions, with intervals from resampling
//! groups ([`super::group`]), as the other measures' are.

use super::bootstrap::{ratio, ratio_interval};
use super::estimators::Measure;
use super::group::Groups;
use super::observe::{TurnKind, classify, completed, writes};
use crate::transcript::Session;

/// (acting turns from a task's first plan write to its end, the items of
/// its last plan), summed over the session's tasks whose last plan has
/// every item completed: the turns the work of the plan's items took.
/// The closing update and the closing answer (turns of no class) are left
/// out — the simulated model spends them on no step. Only finished lists
/// count: an open list's items were not all worked on.
pub fn turns_per_step(session: &Session) -> (f64, f64) {
    let kinds = classify(session);
    let mut sum = (0.0, 0.0);
    for (index, part) in session.parts.iter().enumerate() {
        let Some(plan) = part.turns.last().and_then(|t| t.plan_after.as_ref()) else {
            continue;
        };
        if plan.is_empty() || completed(plan) < plan.len() {
            continue;
        }
        let Some(first) = part.turns.iter().position(writes) else {
            continue;
        };
        let turns = kinds
            .iter()
            .filter(|(p, _, _)| *p == index)
            .skip(first)
            .filter(|(_, _, kind)| *kind != TurnKind::Closing)
            .count();
        sum.0 += turns as f64;
        sum.1 += plan.len() as f64;
    }
    sum
}

/// (1 if the session writes a plan, 1) for a session with a turn that
/// acts; (0, 0) for one that only chats.
pub fn plans_at_all(session: &Session) -> (f64, f64) {
    let acts = session
        .turns()
        .any(|t| !t.planning_calls.is_empty() || t.other_tool_calls > 0);
    if !acts {
        return (0.0, 0.0);
    }
    (f64::from(u8::from(session.turns().any(writes))), 1.0)
}

/// Whether a session writes a plan at all.
pub fn plans(session: &Session) -> bool {
    session.turns().any(writes)
}

/// Whether more sessions never plan than the planning chances explain
/// alone: with one chance a task's first turn (`plan_first`) and one each
/// later turn (`first_plan_hazard`), a session of `t` acting turns in `k`
/// tasks never plans with chance `q = (1 − plan_first)^k (1 −
/// hazard)^(t − k)`. Shown when the sessions that never plan exceed the
/// sum of `q` by more than two standard deviations of it (a count of
/// independent sessions; the rates are measured over every session, so
/// where some never plan they read low and `q` high: the rule leans toward
/// showing nothing). `None` without the two rates. Where it is not shown,
/// `plans_at_all` is 1 and the rates stay measured over every session: a
/// session that never planned is then one whose chances all missed.
/// Returns whether it is shown, the expected count and the observed one.
pub fn never_planning_shown(
    sessions: &[Session],
    plan_first: f64,
    hazard: f64,
) -> (bool, f64, usize) {
    let (mut expected, mut variance, mut observed) = (0.0, 0.0, 0usize);
    for session in sessions {
        if plans_at_all(session).1 == 0.0 {
            continue;
        }
        let acting = session
            .turns()
            .filter(|t| !t.planning_calls.is_empty() || t.other_tool_calls > 0)
            .count() as i32;
        let tasks = (session.parts.len() as i32).min(acting);
        let q = (1.0 - plan_first).powi(tasks) * (1.0 - hazard).powi(acting - tasks);
        expected += q;
        variance += q * (1.0 - q);
        observed += usize::from(!plans(session));
    }
    (
        observed as f64 > expected + 2.0 * variance.sqrt(),
        expected,
        observed,
    )
}

/// `turns_per_step` and `plans_at_all` over `sessions`, intervals seeded
/// by `seed`.
pub fn measure(sessions: &[Session], seed: u64) -> Vec<Measure> {
    vec![
        ratio_measure(
            sessions,
            ("turns_per_step", turns_per_step, seed ^ 0x7e95),
            |n| {
                format!(
                    "counted on {n} plan items of tasks whose list was completed: the acting turns from the task's first plan write to its end, over the items"
                )
            },
            "unmeasured: no task completed its list",
        ),
        ratio_measure(
            sessions,
            ("plans_at_all", plans_at_all, seed ^ 0x9a11),
            |n| format!("counted on {n} sessions that act: the share that write a plan"),
            "unmeasured: no session acts",
        ),
    ]
}

/// One session's (events, chances) of a ratio measure.
type PerSession = fn(&Session) -> (f64, f64);

/// A ratio of sums over sessions (`per_session`'s pairs summed per group)
/// with its percentile interval over resampled groups.
fn ratio_measure(
    sessions: &[Session],
    (name, per_session, seed): (&'static str, PerSession, u64),
    counted: impl Fn(u64) -> String,
    missing: &str,
) -> Measure {
    let per: Vec<(f64, f64)> = sessions.iter().map(per_session).collect();
    let pairs = Groups::of(sessions).sum_pairs(&per);
    let n = per.iter().map(|p| p.1).sum::<f64>().round() as u64;
    // At least one turn a step: the model's range (a ratio below 1 is a
    // list ticked by an agent that worked off the transcript's record).
    let floor = |v: f64| {
        if name == "turns_per_step" {
            v.max(1.0)
        } else {
            v
        }
    };
    let value = ratio(&pairs).map(floor);
    Measure {
        name,
        value,
        interval: value.and(ratio_interval(&pairs, seed).map(|[a, b]| [floor(a), floor(b)])),
        n,
        note: if value.is_some() {
            counted(n)
        } else {
            missing.to_string()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, ItemStatus, Part, PlanningCall, Reminders, Turn};

    fn turn(plan: Option<Vec<ItemStatus>>) -> Turn {
        Turn {
            planning_calls: if plan.is_some() {
                vec![PlanningCall {
                    tool: "TodoWrite".into(),
                    accepted: true,
                    writes: true,
                }]
            } else {
                Vec::new()
            },
            plan_after: plan,
            other_tool_calls: 1,
            ..Turn::default()
        }
    }

    fn session(parts: Vec<Vec<Turn>>) -> Session {
        Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: parts.into_iter().map(|turns| Part { turns }).collect(),
            id: None,
            group: String::new(),
            content_hash: String::new(),
        }
    }

    #[test]
    fn turns_per_step_counts_the_work_after_the_first_plan_of_finished_lists() {
        use ItemStatus::{Completed as C, InProgress as I, Pending as P};
        let carry = |plan: Vec<ItemStatus>| Turn {
            plan_after: Some(plan),
            ..turn(None)
        };
        // Two turns exploring, a plan of 2 items, 3 working turns, the
        // closing update: 4 acting turns (the plan write and three) for 2.
        let finished = vec![
            turn(None),
            turn(None),
            turn(Some(vec![I, P])),
            carry(vec![I, P]),
            carry(vec![I, P]),
            carry(vec![I, P]),
            turn(Some(vec![C, C])),
        ];
        // An open list is not counted.
        let open = vec![turn(Some(vec![I, P])), carry(vec![I, P])];
        let s = session(vec![finished, open]);
        assert_eq!(turns_per_step(&s), (4.0, 2.0));
        assert_eq!(plans_at_all(&s), (1.0, 1.0));
        let never = session(vec![vec![turn(None), turn(None)]]);
        assert_eq!(plans_at_all(&never), (0.0, 1.0));
        assert_eq!(turns_per_step(&never), (0.0, 0.0));
        // One session of two never planning is what chances of 0.5 give
        // (expected 0.25 + 0.25 + 2 sd): nothing shown. Twenty long ones
        // that never plan beside one that does are far more than chances of
        // 0.5 and 0.3 give.
        let pair = [s.clone(), never.clone()];
        assert!(!never_planning_shown(&pair, 0.5, 0.3).0);
        let mut many = vec![s.clone()];
        let long = session(vec![vec![turn(None); 12]]);
        many.extend(std::iter::repeat_n(long, 20));
        let (shown, expected, observed) = never_planning_shown(&many, 0.5, 0.3);
        assert!(shown && expected < 1.0 && observed == 20, "{expected}");
        let measures = measure(&[s, never], 1);
        assert_eq!(measures[0].value, Some(2.0));
        assert_eq!(measures[1].value, Some(0.5));
        assert_eq!(measures[1].n, 2);
    }
}
