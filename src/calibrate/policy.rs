//! The reminder policy calibration simulations run under: the agent's own,
//! not agent-eval's default nag. Codex sends none; a Claude Code version
//! that does not record its reminders gets that agent's policy; where the
//! sessions record their reminder turns (recent Claude Code, agent-eval's
//! run logs) the policy is the one that reproduces the recorded turns best,
//! replayed on each session's own planning calls, and how well it does
//! (`hits` of `recorded`) is kept beside it.

use crate::plan::dialect::{Dialect, PlanItem, PlanStatus};
use crate::plan::reminder::{NagThreshold, ReminderSpec, TurnFacts};
use crate::transcript::{Format, ItemStatus, Reminders, Session};

/// Where the simulations' reminder policy comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderSource {
    /// The sessions record no reminder at all (Codex, or a run with
    /// reminders off): none is sent.
    NoneRecorded,
    /// The reminders are not recorded: the agent's own policy is assumed.
    AgentPolicy,
    /// The policy that reproduces the recorded reminder turns best:
    /// `hits` of the `recorded` reminded turns are predicted on the exact
    /// turn, `predicted` in all.
    Replayed {
        hits: u64,
        recorded: u64,
        predicted: u64,
    },
}

/// The policy a session's simulations run under: the agent's own where
/// the session does not record its reminders (Claude Code's for Claude
/// Code, none otherwise), none where it records none, else the candidate
/// policy that agrees with its recorded reminder turns best (the first
/// such in [`candidates`] order, none first).
pub fn policy_for(session: &Session) -> ReminderSpec {
    if session.reminders == Reminders::Unknown {
        return if session.format == Format::ClaudeCode {
            ReminderSpec::by_name("claude-code").unwrap_or(ReminderSpec::Off)
        } else {
            ReminderSpec::Off
        };
    }
    if !session.turns().any(|t| t.reminder_before) {
        return ReminderSpec::Off;
    }
    let mut best = (ReminderSpec::Off, replay(ReminderSpec::Off, session).0);
    for spec in candidates() {
        let agree = replay(spec, session).0;
        if agree > best.1 {
            best = (spec, agree);
        }
    }
    best.0
}

/// Where the sessions' simulation policies come from, over all of them.
pub fn source_of(sessions: &[Session]) -> ReminderSource {
    let known: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.reminders != Reminders::Unknown)
        .collect();
    if known.is_empty() {
        return ReminderSource::AgentPolicy;
    }
    let recorded = known
        .iter()
        .flat_map(|s| s.turns())
        .filter(|t| t.reminder_before)
        .count() as u64;
    if recorded == 0 {
        return ReminderSource::NoneRecorded;
    }
    let (mut hits, mut predicted) = (0, 0);
    for session in known {
        let (_, h, p) = replay(policy_for(session), session);
        hits += h;
        predicted += p;
    }
    ReminderSource::Replayed {
        hits,
        recorded,
        predicted,
    }
}

/// The policies tried: every registered one with its defaults, and the
/// s03 nag at thresholds 1 to 10.
fn candidates() -> Vec<ReminderSpec> {
    let mut all = vec![ReminderSpec::Off];
    all.extend((1..=10).map(|n| ReminderSpec::S03 {
        threshold: NagThreshold::After(n),
    }));
    all.extend(ReminderSpec::all());
    all
}

/// (turns whose reminder the policy gets right, reminded turns it
/// predicts on the exact turn, reminders it predicts) on one session,
/// replayed on its own planning calls: the loop consults the policy after
/// every turn but a part's last, and starts its count over at each new
/// user message.
fn replay(spec: ReminderSpec, session: &Session) -> (u64, u64, u64) {
    let dialect = Dialect::default().get();
    let mut totals = (0, 0, 0);
    let mut policy = spec.policy();
    let mut turn_number = 0;
    for (index, part) in session.parts.iter().enumerate() {
        if index > 0 {
            policy.user_message();
        }
        for pair in part.turns.windows(2) {
            turn_number += 1;
            let [turn, next] = pair else {
                continue;
            };
            let facts = TurnFacts {
                turn: turn_number,
                planning_calls: turn.planning_calls.len(),
                accepted_updates: turn
                    .planning_calls
                    .iter()
                    .filter(|c| c.accepted && c.writes)
                    .count(),
            };
            let plan = plan_items(turn.plan_after.as_deref().unwrap_or(&[]));
            let predicted = policy.after_turn(&facts, &plan, dialect).is_some();
            let recorded = next.reminder_before;
            totals.0 += u64::from(predicted == recorded);
            totals.1 += u64::from(predicted && recorded);
            totals.2 += u64::from(predicted);
        }
        turn_number += usize::from(!part.turns.is_empty());
    }
    totals
}

fn plan_items(statuses: &[ItemStatus]) -> Vec<PlanItem> {
    statuses
        .iter()
        .enumerate()
        .map(|(i, status)| {
            let status = match status {
                ItemStatus::Pending => PlanStatus::Pending,
                ItemStatus::InProgress => PlanStatus::InProgress,
                ItemStatus::Completed => PlanStatus::Completed,
            };
            PlanItem::new((i + 1).to_string(), format!("item {}", i + 1), status)
        })
        .collect()
}
