//! What calibration reads off a session: each turn's kind (which of the
//! simulated model's planning chances applies to it) and the statistics
//! the fit matches and the fidelity check compares — the same code for
//! observed sessions and simulated ones.

use crate::transcript::{ItemStatus, Session, Turn};

/// Which planning chance of the simulated model a turn answers to, in the
/// model's own order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnKind {
    /// The turn right after a rejected update (the model always retries).
    Recovery,
    /// The first acting turn of a part while no plan exists (`plan_first`).
    First,
    /// The first turn of a later part while an earlier part's plan stands
    /// (`rewrite_stale_plan`).
    StaleFirst,
    /// A planning reminder came right before it (`reminder_compliance`).
    Reminded,
    /// A later turn of a task while no plan exists yet, not reminded
    /// (`first_plan_hazard`: exploration before the first plan).
    Exploring,
    /// Any other turn that acts, a plan known (`todo_update_rate`).
    Ordinary,
    /// A turn that calls no tool and is either the first answer to a task
    /// (a chat, not a task) or the closing answer: the last turn of its
    /// part, after a plan whose every item is completed. No planning chance
    /// is measured on it: the work is over, so a reminder before it is no
    /// chance the agent missed (the simulated model, too, answers "All
    /// steps are complete" whatever it drew), and counting it would bias
    /// `reminder_compliance` and `todo_update_rate` down. A last answer
    /// while items are still open keeps its kind: it is an *open end*,
    /// counted as a chance with the weight [`StopShares`] gives it; a
    /// text-only turn in the middle of a part is a whole chance. A write that leaves every item completed is
    /// the closing update (`closing_update`, measured on the parts' last
    /// plans), not an update at the ordinary rate: counting it would bias
    /// `todo_update_rate` up by one update a task.
    Closing,
}

/// Whether a turn writes the plan (accepted or not).
pub fn writes(turn: &Turn) -> bool {
    turn.planning_calls.iter().any(|c| c.writes)
}

/// Whether one of a turn's plan writes was rejected.
pub fn rejected(turn: &Turn) -> bool {
    turn.planning_calls.iter().any(|c| c.writes && !c.accepted)
}

/// Whether a turn writes a plan that leaves every item completed (the
/// closing update).
pub fn completes_list(turn: &Turn) -> bool {
    writes(turn) && !rejected(turn) && finished(turn)
}

/// The plan after `turn` is known and every item of it completed.
fn finished(turn: &Turn) -> bool {
    turn.plan_after
        .as_ref()
        .is_some_and(|plan| !plan.is_empty() && completed(plan) == plan.len())
}

fn acts(turn: &Turn) -> bool {
    !turn.planning_calls.is_empty() || turn.other_tool_calls > 0
}

/// How likely a last answer left with items open (an *open end*: the
/// part's last turn, after its first, calling no tool, its plan not
/// complete) is an early stop, by the kind of chance it answers to.
///
/// The simulated model draws whether to plan before it looks at what is
/// left: once it believes every step done its answer is the same whatever
/// it drew, so such an answer is no chance at all; stopping early is a
/// drift, drawn only where it did not plan, so that answer is a chance it
/// missed. No transcript tells the two apart, so an open end counts as a
/// chance with this weight: 1 (every one a missed chance) until the
/// calibration's simulations at the fitted parameters measure it
/// ([`super::simulate::stop_shares`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopShares {
    /// Of open ends right after a reminder (`reminder_compliance`).
    pub reminded: f64,
    /// Of open ends on ordinary turns (`todo_update_rate`).
    pub ordinary: f64,
}

impl Default for StopShares {
    fn default() -> Self {
        Self {
            reminded: 1.0,
            ordinary: 1.0,
        }
    }
}

impl StopShares {
    /// The weight an open end of `kind` counts with (1 for other kinds).
    pub fn of(&self, kind: TurnKind) -> f64 {
        match kind {
            TurnKind::Reminded => self.reminded,
            TurnKind::Ordinary => self.ordinary,
            _ => 1.0,
        }
    }
}

/// Every turn of the session with its kind, part by part (part index, the
/// turn, its kind).
pub fn classify(session: &Session) -> Vec<(usize, &Turn, TurnKind)> {
    classify_ends(session)
        .into_iter()
        .map(|(part, turn, kind, _)| (part, turn, kind))
        .collect()
}

/// [`classify`], with whether each turn is an open end (see
/// [`StopShares`]).
pub fn classify_ends(session: &Session) -> Vec<(usize, &Turn, TurnKind, bool)> {
    let mut out = Vec::new();
    let mut plan_known = false;
    let mut previous_rejected = false;
    for (part_index, part) in session.parts.iter().enumerate() {
        let last = part.turns.len().saturating_sub(1);
        for (index, turn) in part.turns.iter().enumerate() {
            let kind = if previous_rejected {
                TurnKind::Recovery
            } else if !acts(turn) && (index == 0 || (index == last && finished(turn)))
                || completes_list(turn)
            {
                // A write that completes the list is the closing update,
                // reminded or not: it comes when the work is believed done.
                TurnKind::Closing
            } else if index == 0 && plan_known {
                TurnKind::StaleFirst
            } else if index == 0 {
                TurnKind::First
            } else if turn.reminder_before {
                TurnKind::Reminded
            } else if !plan_known {
                TurnKind::Exploring
            } else {
                TurnKind::Ordinary
            };
            let open_end = index > 0 && index == last && !acts(turn) && kind != TurnKind::Closing;
            out.push((part_index, turn, kind, open_end));
            previous_rejected = rejected(turn);
            plan_known |= turn.plan_after.is_some();
        }
    }
    out
}

/// Items completed in a plan.
pub fn completed(plan: &[ItemStatus]) -> usize {
    plan.iter().filter(|s| **s == ItemStatus::Completed).count()
}

/// The tokens a turn added to the context, in one unit for observed and
/// simulated sessions alike: its new characters (tool results, user text,
/// reminders) over `chars_per_token`. The API's usage is not read here —
/// the simulated runs record none, and an observed count would include
/// what a simulated turn leaves out (the model's own output, a cache's
/// accounting), so the two sides would differ by their units alone.
fn turn_tokens(turn: &Turn, chars_per_token: f64) -> f64 {
    turn.new_context_chars as f64 / chars_per_token.max(0.1)
}

/// The statistics of a set of sessions that the fit matches and the
/// fidelity check compares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Turns from one planning turn to the next, within a session.
    pub turn_gaps: Vec<f64>,
    /// Tokens from one planning turn to the next: new context characters
    /// over `chars_per_token` ([`turn_tokens`]), on both sides.
    pub token_gaps: Vec<f64>,
    /// Items newly marked completed by each accepted update of a known plan.
    pub completed_per_update: Vec<f64>,
    /// (turns that write the plan, turns).
    pub planning_turns: (f64, f64),
    /// (reminded turns that write the plan, reminded turns).
    pub compliance: (f64, f64),
    /// (parts ending with unfinished items, parts ending with a plan).
    pub unfinished: (f64, f64),
    /// Turns per plan item, one value a part that had a plan.
    pub turns_per_item: Vec<f64>,
    /// Per task (part) that starts with no plan known and writes one: the
    /// 0-based turn of the part's first plan write, the turns before the
    /// first plan. Counted per part, as the model draws it (`plan_first` on
    /// a part's first turn, `first_plan_hazard` on its later ones) and as
    /// the simulated runs (one part each) give it: counted over a whole
    /// session, a plan written on the first turn of its third task read as
    /// the turns of the two tasks before it.
    pub first_plan_turn: Vec<f64>,
    /// Per session with a turn: the share of its turns that write the plan.
    pub session_planning_share: Vec<f64>,
    /// Per ordinary turn: turns since the last plan write, and whether it
    /// wrote one (the re-planning hazard).
    pub hazard: Vec<(f64, bool)>,
}

impl Stats {
    /// The statistics of `sessions` (a reminder is only counted where the
    /// session records its reminders).
    pub fn of<'a>(sessions: impl IntoIterator<Item = &'a Session>, chars_per_token: f64) -> Self {
        let mut stats = Stats::default();
        for session in sessions {
            stats.add(session, chars_per_token);
        }
        stats
    }

    /// Adds `session`'s statistics ([`Stats::of`] is these, session by
    /// session).
    pub fn add(&mut self, session: &Session, chars_per_token: f64) {
        // Compliance is compared on recorded reminders only.
        let reminders_known = session.reminders == crate::transcript::Reminders::Recorded;
        let mut since_plan: Option<(f64, f64)> = None; // (turns, tokens)
        let mut plan_before: Option<&Vec<ItemStatus>> = None;
        for (_, turn, kind) in classify(session) {
            let tokens = turn_tokens(turn, chars_per_token);
            if let Some((turns, toks)) = since_plan.as_mut() {
                *turns += 1.0;
                *toks += tokens;
            }
            let wrote = writes(turn);
            self.planning_turns.1 += 1.0;
            if kind == TurnKind::Ordinary
                && let Some((turns, _)) = since_plan
            {
                self.hazard.push((turns, wrote));
            }
            if kind == TurnKind::Reminded && reminders_known {
                self.compliance.1 += 1.0;
                self.compliance.0 += f64::from(u8::from(wrote));
            }
            if wrote {
                self.planning_turns.0 += 1.0;
                if let Some((turns, toks)) = since_plan {
                    self.turn_gaps.push(turns);
                    self.token_gaps.push(toks);
                }
                since_plan = Some((0.0, 0.0));
                if !rejected(turn)
                    && let (Some(before), Some(after)) = (plan_before, turn.plan_after.as_ref())
                {
                    self.completed_per_update
                        .push(completed(after).saturating_sub(completed(before)) as f64);
                }
            }
            if turn.plan_after.is_some() {
                plan_before = turn.plan_after.as_ref();
            }
        }
        let turns = session.turns().count();
        if turns > 0 {
            let planned = session.turns().filter(|t| writes(t)).count();
            self.session_planning_share
                .push(planned as f64 / turns as f64);
        }
        self.first_plan_turn.extend(first_plan_turns(session));
        self.add_parts(session);
    }

    fn add_parts(&mut self, session: &Session) {
        for part in &session.parts {
            let Some(last) = part.turns.last() else {
                continue;
            };
            let longest = part
                .turns
                .iter()
                .filter_map(|t| t.plan_after.as_ref().map(Vec::len))
                .max()
                .unwrap_or(0);
            if longest > 0 {
                self.turns_per_item
                    .push(part.turns.len() as f64 / longest as f64);
            }
            if let Some(plan) = &last.plan_after
                && !plan.is_empty()
            {
                self.unfinished.1 += 1.0;
                self.unfinished.0 += f64::from(u8::from(completed(plan) < plan.len()));
            }
        }
    }
}

/// The 0-based turn, within its part, of the first plan write of each part
/// that starts with no plan known (see [`Stats::first_plan_turn`]).
pub fn first_plan_turns(session: &Session) -> Vec<f64> {
    let mut out = Vec::new();
    let mut plan_known = false;
    for part in &session.parts {
        if !plan_known && let Some(at) = part.turns.iter().position(writes) {
            out.push(at as f64);
        }
        plan_known |= part.turns.iter().any(|t| t.plan_after.is_some());
    }
    out
}

/// The mean of `values` (`None` when empty).
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// A share `(num, den)` as a number (`None` when `den` is 0).
pub fn share((num, den): (f64, f64)) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, Part, PlanningCall, Reminders};

    fn turn(plans: bool) -> Turn {
        Turn {
            planning_calls: if plans {
                vec![PlanningCall {
                    tool: "TodoWrite".into(),
                    accepted: true,
                    writes: true,
                }]
            } else {
                Vec::new()
            },
            plan_after: plans.then(|| vec![ItemStatus::InProgress, ItemStatus::Pending]),
            other_tool_calls: 1,
            ..Turn::default()
        }
    }

    #[test]
    fn the_first_plan_is_counted_within_its_task() {
        // Task 1: three turns, no plan. Task 2: plans on its first turn.
        // Task 3: a plan is known, so it has no first plan of its own.
        // Task 4 would be a second first plan only if no plan were known.
        let session = Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders: Reminders::Recorded,
            parts: vec![
                Part {
                    turns: vec![turn(false), turn(false), turn(false)],
                },
                Part {
                    turns: vec![turn(true), turn(false)],
                },
                Part {
                    turns: vec![turn(false), turn(true)],
                },
            ],
            id: None,
            group: String::new(),
            content_hash: String::new(),
        };
        // Counted over the session it read 3: the turns of the task before.
        assert_eq!(Stats::of([&session], 4.0).first_plan_turn, vec![0.0]);
        let later = Session {
            parts: vec![Part {
                turns: vec![turn(false), turn(false), turn(true)],
            }],
            ..session
        };
        assert_eq!(first_plan_turns(&later), vec![2.0]);
    }

    #[test]
    fn tokens_between_plans_are_characters_over_chars_per_token_with_or_without_usage() {
        // The same turns, once with the API's usage recorded (as a real
        // session's) and once without (as a simulated run's): the token
        // gaps must not differ by the unit.
        let with_chars = |usage: bool| {
            let mut turns = vec![turn(true), turn(false), turn(false), turn(true)];
            for (i, t) in turns.iter_mut().enumerate() {
                t.new_context_chars = 400;
                if usage {
                    t.input_tokens = Some(10_000 * (i as u64 + 1));
                    t.output_tokens = Some(50);
                }
            }
            Session {
                format: Format::ClaudeCode,
                agent_version: None,
                models: Vec::new(),
                reminders: Reminders::Recorded,
                parts: vec![Part { turns }],
                id: None,
                group: String::new(),
                content_hash: String::new(),
            }
        };
        let recorded = Stats::of([&with_chars(true)], 2.0);
        let unrecorded = Stats::of([&with_chars(false)], 2.0);
        assert_eq!(recorded.token_gaps, vec![600.0]);
        assert_eq!(recorded.token_gaps, unrecorded.token_gaps);
    }
}
