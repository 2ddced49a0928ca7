use super::*;

fn read(text: &str) -> (Vec<Session>, Vec<(usize, String)>) {
    crate::transcript::read_fixture(Box::new(CodexReader::new()), text)
}

fn accepted(turn: &Turn) -> Vec<bool> {
    turn.planning_calls.iter().map(|c| c.accepted).collect()
}

use ItemStatus::{Completed, InProgress, Pending};

#[test]
fn a_0_169_rollout_reads_turns_plans_rejections_usage_and_parts() {
    let (sessions, errors) = read(include_str!(
        "../../../tests/data/transcripts/codex/rollout_0169.jsonl"
    ));
    assert!(errors.is_empty(), "{errors:?}");
    let session = &sessions[0];
    assert_eq!(session.agent_version.as_deref(), Some("0.169.0"));
    assert_eq!(session.models, ["gpt-5.5"]);
    assert_eq!(session.reminders, Reminders::Recorded);
    let turns: Vec<usize> = session.parts.iter().map(|p| p.turns.len()).collect();
    assert_eq!(turns, [4, 2]);
    let first = &session.parts[0].turns;
    // Reasoning, a message and three calls of one response: one turn.
    assert_eq!(accepted(&first[0]), [true]);
    assert_eq!(first[0].other_tool_calls, 2);
    assert_eq!(first[0].plan_after, Some(vec![InProgress, Pending]));
    assert_eq!(
        (first[0].input_tokens, first[0].output_tokens),
        (Some(1200), Some(80))
    );
    // "failed to parse function arguments": rejected, the plan stands.
    assert_eq!(accepted(&first[1]), [false]);
    assert_eq!(first[1].plan_after, Some(vec![InProgress, Pending]));
    assert_eq!(first[2].plan_after, Some(vec![Completed, Completed]));
    assert_eq!(first[3].input_tokens, Some(1700));
    assert_eq!(session.parts[1].turns[0].other_tool_calls, 1);
}

#[test]
fn an_older_rollout_closes_turns_on_token_counts_and_reads_success() {
    let (sessions, errors) = read(include_str!(
        "../../../tests/data/transcripts/codex/rollout_older.jsonl"
    ));
    assert_eq!(errors, [(17, "an unknown Codex record type".to_string())]);
    let session = &sessions[0];
    assert_eq!(session.models, ["gpt-5-codex"]);
    let turns: Vec<&Turn> = session.turns().collect();
    assert_eq!(turns.len(), 3);
    assert_eq!(accepted(turns[0]), [true]);
    assert_eq!(turns[0].input_tokens, Some(900));
    // `success: false` is a rejection.
    assert_eq!(accepted(turns[1]), [false]);
    assert_eq!(turns[2].plan_after, Some(vec![InProgress]));
}

#[test]
fn without_usage_records_a_new_output_after_a_tool_output_is_a_new_turn() {
    let lines = [
        r#"{"type":"event_msg","payload":{"type":"user_message","message":"go"}}"#,
        r#"{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[]}","call_id":"a"}}"#,
        r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"b"}}"#,
        r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"Plan updated"}}"#,
        r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"b","output":"ok"}}"#,
        r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}"#,
    ];
    let (sessions, _) = read(&lines.join("\n"));
    let turns: Vec<&Turn> = sessions[0].turns().collect();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0].planning_calls.len(), 1);
    assert_eq!(turns[0].other_tool_calls, 1);
    assert_eq!(turns[0].plan_after, Some(vec![]));
}

#[test]
fn an_unknown_major_version_is_refused() {
    let (_, errors) = read(r#"{"type":"session_meta","payload":{"cli_version":"1.2.0"}}"#);
    assert_eq!(errors.len(), 1);
}

#[test]
fn the_rejection_text_is_the_codex_dialects() {
    let dialect = crate::plan::dialect::Dialect::Codex.get();
    assert!(dialect.error_prefix().starts_with(REJECTED_OPENING));
}
