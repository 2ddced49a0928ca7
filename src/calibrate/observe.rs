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
    /// while items are still open is stopping early — a drift, which
    /// happens only where the agent did not plan — and stays a chance:
    /// leaving it out would bias the rates up. So does a text-only turn in
    /// the middle of a part. A write that leaves every item completed is
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

/// Every turn of the session with its kind, part by part (part index, the
/// turn, its kind).
pub fn classify(session: &Session) -> Vec<(usize, &Turn, TurnKind)> {
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
            out.push((part_index, turn, kind));
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

/// The tokens a turn added to the context: the growth of the API's input
/// count where usage is recorded, else its new characters over
/// `chars_per_token`.
fn turn_tokens(previous: Option<&Turn>, turn: &Turn, chars_per_token: f64) -> f64 {
    if let (Some(prev), Some(now)) = (previous.and_then(|p| p.input_tokens), turn.input_tokens) {
        let out = previous.and_then(|p| p.output_tokens).unwrap_or(0);
        return now.saturating_sub(prev).saturating_sub(out) as f64;
    }
    turn.new_context_chars as f64 / chars_per_token.max(0.1)
}

/// The statistics of a set of sessions that the fit matches and the
/// fidelity check compares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Turns from one planning turn to the next, within a session.
    pub turn_gaps: Vec<f64>,
    /// Tokens from one planning turn to the next.
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
    /// The 0-based turn of the first plan write of each session that wrote
    /// one: the turns before the first plan.
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

    fn add(&mut self, session: &Session, chars_per_token: f64) {
        // Compliance is compared on recorded reminders only.
        let reminders_known = session.reminders == crate::transcript::Reminders::Recorded;
        let mut since_plan: Option<(f64, f64)> = None; // (turns, tokens)
        let mut previous: Option<&Turn> = None;
        let mut plan_before: Option<&Vec<ItemStatus>> = None;
        for (index, (_, turn, kind)) in classify(session).into_iter().enumerate() {
            let tokens = turn_tokens(previous, turn, chars_per_token);
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
                } else {
                    self.first_plan_turn.push(index as f64);
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
            previous = Some(turn);
        }
        let turns = session.turns().count();
        if turns > 0 {
            let planned = session.turns().filter(|t| writes(t)).count();
            self.session_planning_share
                .push(planned as f64 / turns as f64);
        }
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

/// The mean of `values` (`None` when empty).
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// A share `(num, den)` as a number (`None` when `den` is 0).
pub fn share((num, den): (f64, f64)) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}
