//! Reminders recorded and inferred, kept apart.
//!
//! Recent Claude Code versions and agent-eval's run logs record every
//! planning reminder; Codex sends none, so records all of them. Older
//! Claude Code versions record none, and their reminders can only be
//! inferred from the version's known policy. `reminder_compliance` is
//! measured on recorded reminders. Inferred ones join it only when asked
//! (`calibrate --infer-reminders`) and only where the rule can be checked
//! on sessions of the same corpus that record reminders ([`check`]: the
//! share of recorded reminders whose exact turn the rule predicts, and its
//! predicted count over the recorded one); the result's source is then
//! `inferred`, never `measured`, with the check beside it.

use super::bootstrap::{ratio, ratio_interval};
use super::estimators::Measure;
use super::group::Groups;
use super::observe::{TurnKind, classify, writes};
use crate::model::simulated::profile::{InferenceCheck, ReminderCounts};
use crate::transcript::{Format, Reminders, Session};

/// The reminded turns (the chances of `reminder_compliance`), by how the
/// transcripts know of the reminder.
pub fn counts(sessions: &[Session]) -> ReminderCounts {
    let mut counts = ReminderCounts::default();
    for session in sessions {
        let reminded = classify(session)
            .into_iter()
            .filter(|(_, _, kind)| *kind == TurnKind::Reminded)
            .count() as u64;
        match session.reminders {
            Reminders::Recorded => counts.recorded += reminded,
            Reminders::Inferred => counts.inferred += reminded,
            Reminders::Unknown => {}
        }
    }
    counts
}

/// The inference rule against the Claude Code sessions that record
/// reminders (`None` when no such session has a recorded reminder).
pub fn check(sessions: &[Session]) -> Option<InferenceCheck> {
    let recording: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.format == Format::ClaudeCode && s.reminders == Reminders::Recorded)
        .collect();
    let (mut recorded, mut predicted, mut hits) = (0u64, 0u64, 0u64);
    for turn in recording.iter().flat_map(|s| s.turns()) {
        recorded += u64::from(turn.reminder_before);
        predicted += u64::from(turn.reminder_predicted);
        hits += u64::from(turn.reminder_before && turn.reminder_predicted);
    }
    (recorded > 0).then(|| InferenceCheck {
        sessions: recording.len() as u64,
        recorded,
        predicted,
        hit_rate: Some(hits as f64 / recorded as f64),
        count_ratio: Some(predicted as f64 / recorded as f64),
    })
}

/// The check in words.
pub fn check_words(check: &InferenceCheck) -> String {
    format!(
        "on {} session(s) that record reminders, the rule puts {:.0}% of the {} recorded reminders on their exact turn and predicts {:.2}× as many",
        check.sessions,
        check.hit_rate.unwrap_or(0.0) * 100.0,
        check.recorded,
        check.count_ratio.unwrap_or(0.0)
    )
}

/// (reminded turns that write the plan, reminded turns) of a session whose
/// reminders are recorded or inferred.
fn compliance_pair(session: &Session) -> (f64, f64) {
    if session.reminders == Reminders::Unknown {
        return (0.0, 0.0);
    }
    classify(session)
        .into_iter()
        .filter(|(_, _, kind)| *kind == TurnKind::Reminded)
        .fold((0.0, 0.0), |(n, d), (_, turn, _)| {
            (n + f64::from(u8::from(writes(turn))), d + 1.0)
        })
}

/// `reminder_compliance` counted on recorded and inferred reminders, as
/// `measure` says it (its interval from resampling groups); `None` when
/// nothing is inferred or the rule cannot be checked.
pub fn with_inferred(sessions: &[Session], seed: u64) -> Option<Measure> {
    let counts = counts(sessions);
    let check = check(sessions)?;
    if counts.inferred == 0 {
        return None;
    }
    let groups = Groups::of(sessions);
    let per: Vec<(f64, f64)> = sessions.iter().map(compliance_pair).collect();
    let pairs = groups.sum_pairs(&per);
    let value = ratio(&pairs)?;
    Some(Measure {
        name: "reminder_compliance",
        value: Some(value),
        interval: ratio_interval(&pairs, seed ^ 3),
        n: counts.recorded + counts.inferred,
        note: format!(
            "inferred: counted on {} recorded and {} inferred reminded turns; {}",
            counts.recorded,
            counts.inferred,
            check_words(&check)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Part, PlanningCall, Turn};

    fn turn(plans: bool, reminded: bool, predicted: bool) -> Turn {
        Turn {
            planning_calls: plans
                .then(|| PlanningCall {
                    tool: "TodoWrite".into(),
                    accepted: true,
                    writes: true,
                })
                .into_iter()
                .collect(),
            reminder_before: reminded,
            reminder_predicted: predicted,
            other_tool_calls: 1,
            ..Turn::default()
        }
    }

    fn session(reminders: Reminders, turns: Vec<Turn>) -> Session {
        Session {
            format: Format::ClaudeCode,
            agent_version: None,
            models: Vec::new(),
            reminders,
            parts: vec![Part { turns }],
            id: None,
            group: String::new(),
            content_hash: String::new(),
        }
    }

    #[test]
    fn the_rule_is_checked_on_recorded_reminders_and_counted_apart() {
        // Recorded: reminders on turns 2 and 4; the rule says 2, 5 and 6.
        let recorded = session(
            Reminders::Recorded,
            vec![
                turn(true, false, false),
                turn(false, true, true),
                turn(false, false, false),
                turn(true, true, false),
                turn(false, false, true),
                turn(false, false, true),
                turn(false, false, false),
            ],
        );
        // Inferred: three reminded turns, one complied with.
        let inferred = session(
            Reminders::Inferred,
            vec![
                turn(true, false, false),
                turn(false, true, true),
                turn(true, true, true),
                turn(false, true, true),
                turn(false, false, false),
            ],
        );
        let sessions = [recorded, inferred];
        let counts = counts(&sessions);
        assert_eq!((counts.recorded, counts.inferred), (2, 3));
        let check = check(&sessions).unwrap();
        assert_eq!((check.recorded, check.predicted), (2, 3));
        assert_eq!(check.hit_rate, Some(0.5));
        assert_eq!(check.count_ratio, Some(1.5));
        let measure = with_inferred(&sessions, 1).unwrap();
        // 1 of 2 recorded, 1 of 3 inferred.
        assert_eq!(measure.value, Some(0.4));
        assert_eq!(measure.n, 5);
        assert!(
            measure.note.contains("50% of the 2 recorded"),
            "{}",
            measure.note
        );
        // Without a session that records reminders, nothing is inferred.
        assert_eq!(with_inferred(&sessions[1..], 1), None);
    }
}
