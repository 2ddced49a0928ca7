//! A run record written as the JSON report prints it
//! ([`super::json_layout::RECORD_LEVEL`] deep), field by field: what the
//! spill file keeps ([`super::cell_runs`]) and the report copies.
//!
//! The same bytes as serde's derived serialization of [`RunResult`] in the
//! report's layout (tested against it for any record), written for a
//! fraction of its cost: serde_json writes each key through its string
//! escaper and the layout a piece at a time, which made writing a record
//! about 5% of a short episode. Each key here, with its line break, comma
//! and indentation, is one constant. Lists and nested records, and
//! strings, go through serde as before.

use serde::Serialize;

use super::json_layout::{RECORD_LEVEL, write_at_level};
use super::record::RunResult;

/// The line break, indentation (a level deeper than the record), quoted
/// key and `": "` of a field after the first.
macro_rules! key {
    ($name:literal) => {
        concat!(",\n              \"", $name, "\": ").as_bytes()
    };
}

/// The record's opening bracket and its first key.
const OPEN: &[u8] = b"{\n              \"seed\": ";

/// The line break and indentation of the record's closing bracket.
const CLOSE: &[u8] = b"\n            }";

/// Writes `record` as [`write_at_level`] writes it at
/// [`RECORD_LEVEL`].
pub fn write_record(out: &mut Vec<u8>, record: &RunResult) -> Result<(), serde_json::Error> {
    // Every field, by name: a field added to the record is a compile
    // error here until it is written too.
    let RunResult {
        seed,
        turns,
        stop,
        steps_completed,
        steps_total,
        reminders_at,
        rejected_todo_updates,
        todo_calls,
        protocol_violations,
        unknown_tool_calls,
        context_tokens,
        planning_tokens,
        planning_turns,
        reminders_after_planning,
        input_tokens,
        output_tokens,
        cost,
        drift_turns,
        model_error,
        step_checks,
        parts,
        unexpected_user_messages,
        agent_plans,
    } = record;
    out.extend_from_slice(OPEN);
    scalar(out, seed)?;
    field(out, key!("turns"), turns)?;
    field(out, key!("stop"), stop)?;
    field(out, key!("steps_completed"), steps_completed)?;
    field(out, key!("steps_total"), steps_total)?;
    nested(out, key!("reminders_at"), reminders_at)?;
    field(out, key!("rejected_todo_updates"), rejected_todo_updates)?;
    field(out, key!("todo_calls"), todo_calls)?;
    field(out, key!("protocol_violations"), protocol_violations)?;
    field(out, key!("unknown_tool_calls"), unknown_tool_calls)?;
    field(out, key!("context_tokens"), context_tokens)?;
    field(out, key!("planning_tokens"), planning_tokens)?;
    field(out, key!("planning_turns"), planning_turns)?;
    field(
        out,
        key!("reminders_after_planning"),
        reminders_after_planning,
    )?;
    // The fields serde skips when they are empty, skipped here alike.
    if let Some(tokens) = input_tokens {
        field(out, key!("input_tokens"), tokens)?;
    }
    if let Some(tokens) = output_tokens {
        field(out, key!("output_tokens"), tokens)?;
    }
    if let Some(usd) = cost {
        field(out, key!("cost"), usd)?;
    }
    if !drift_turns.is_empty() {
        nested(out, key!("drift_turns"), drift_turns)?;
    }
    if let Some(message) = model_error {
        field(out, key!("model_error"), message)?;
    }
    if !step_checks.is_empty() {
        field(out, key!("step_checks"), step_checks)?;
    }
    if !parts.is_empty() {
        nested(out, key!("parts"), parts)?;
    }
    field(
        out,
        key!("unexpected_user_messages"),
        unexpected_user_messages,
    )?;
    if !agent_plans.is_empty() {
        nested(out, key!("agent_plans"), agent_plans)?;
    }
    out.extend_from_slice(CLOSE);
    Ok(())
}

/// A number, a string or a unit variant: the same bytes in any layout.
fn scalar(out: &mut Vec<u8>, value: &impl Serialize) -> Result<(), serde_json::Error> {
    serde_json::to_writer(out, value)
}

fn field(out: &mut Vec<u8>, key: &[u8], value: &impl Serialize) -> Result<(), serde_json::Error> {
    out.extend_from_slice(key);
    scalar(out, value)
}

/// A list or a nested record, laid out a level deeper than the record.
fn nested(out: &mut Vec<u8>, key: &[u8], value: &impl Serialize) -> Result<(), serde_json::Error> {
    out.extend_from_slice(key);
    write_at_level(out, value, RECORD_LEVEL + 1)
}

// The constants are the layout at `RECORD_LEVEL`: the record's closing
// bracket at its level, its keys a level deeper.
const _: () = assert!(CLOSE.len() == 2 + 2 * RECORD_LEVEL);
const _: () = assert!(OPEN.len() == 2 + 2 * (RECORD_LEVEL + 1) + "\"seed\": ".len());

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::StopKind;
    use crate::plan::dialect::PlanStatus;
    use crate::results::record::{AgentPlan, AgentPlanEntry, PartMetrics};
    use proptest::prelude::*;

    fn by_serde(record: &RunResult) -> String {
        let mut bytes = Vec::new();
        write_at_level(&mut bytes, record, RECORD_LEVEL).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    fn by_hand(record: &RunResult) -> String {
        let mut bytes = Vec::new();
        write_record(&mut bytes, record).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_bare_and_a_full_record_are_written_as_serde_writes_them() {
        let bare = RunResult::zeroed(0);
        let full = RunResult {
            turns: 9,
            stop: StopKind::ModelError,
            reminders_at: vec![1, 20],
            input_tokens: Some(5),
            output_tokens: Some(u64::MAX),
            cost: Some(0.1 + 0.2),
            drift_turns: vec![3],
            model_error: Some("\"quoted\"\n\u{1}ü".into()),
            step_checks: "10".into(),
            parts: vec![
                PartMetrics::default(),
                PartMetrics {
                    reminders_at: vec![2],
                    never_sent: true,
                    ..PartMetrics::default()
                },
            ],
            agent_plans: vec![AgentPlan {
                turn: 2,
                entries: vec![AgentPlanEntry {
                    content: "a \\ b".into(),
                    priority: "high".into(),
                    status: PlanStatus::InProgress,
                }],
            }],
            ..RunResult::zeroed(u64::MAX)
        };
        for record in [bare, full] {
            assert_eq!(by_hand(&record), by_serde(&record));
        }
    }

    fn any_part() -> impl Strategy<Value = PartMetrics> {
        (
            any::<[u8; 4]>(),
            prop::collection::vec(0usize..1_000, 0..3),
            any::<bool>(),
        )
            .prop_map(|(n, reminders_at, never_sent)| PartMetrics {
                steps_total: n[0].into(),
                steps_completed: n[1].into(),
                turns: n[2].into(),
                todo_calls: n[3].into(),
                reminders_at,
                never_sent,
            })
    }

    fn any_plan() -> impl Strategy<Value = AgentPlan> {
        (
            0usize..50,
            prop::collection::vec((".{0,8}", ".{0,4}"), 0..3),
        )
            .prop_map(|(turn, entries)| AgentPlan {
                turn,
                entries: entries
                    .into_iter()
                    .map(|(content, priority)| AgentPlanEntry {
                        content,
                        priority,
                        status: PlanStatus::Pending,
                    })
                    .collect(),
            })
    }

    proptest! {
        #[test]
        fn any_record_is_written_as_serde_writes_it(
            counts in any::<[u64; 12]>(),
            reminders_at in prop::collection::vec(any::<usize>(), 0..4),
            drift_turns in prop::collection::vec(0usize..100, 0..3),
            tokens in (any::<Option<u64>>(), any::<Option<u64>>()),
            cost in any::<Option<f64>>(),
            model_error in proptest::option::of(".{0,12}"),
            step_checks in "[01]{0,5}",
            parts in prop::collection::vec(any_part(), 0..3),
            agent_plans in prop::collection::vec(any_plan(), 0..2),
        ) {
            let n = |i: usize| counts[i] as usize;
            let record = RunResult {
                seed: counts[0],
                turns: n(1),
                steps_completed: n(2),
                steps_total: n(3),
                reminders_at,
                rejected_todo_updates: n(4),
                todo_calls: n(5),
                protocol_violations: n(6),
                unknown_tool_calls: n(7),
                context_tokens: counts[8],
                planning_tokens: counts[9],
                planning_turns: n(10),
                reminders_after_planning: n(11),
                input_tokens: tokens.0,
                output_tokens: tokens.1,
                cost,
                drift_turns,
                model_error,
                step_checks,
                parts,
                unexpected_user_messages: n(2) / 3,
                agent_plans,
                ..RunResult::zeroed(0)
            };
            prop_assert_eq!(by_hand(&record), by_serde(&record));
        }
    }
}
