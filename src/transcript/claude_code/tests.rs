use super::*;

/// The sessions of a fixture in `tests/data/transcripts/claude-code/`, and
/// the errors its reader gave, by line.
fn read(text: &str) -> (Vec<Session>, Vec<(usize, String)>) {
    crate::transcript::read_fixture(Box::new(ClaudeCodeReader::new()), text)
}

fn calls(turn: &Turn) -> Vec<(&str, bool, bool)> {
    turn.planning_calls
        .iter()
        .map(|c| (c.tool.as_str(), c.accepted, c.writes))
        .collect()
}

use ItemStatus::{Completed, InProgress, Pending};

#[test]
fn the_reminder_openings_are_claude_codes_own_words() {
    assert!(crate::plan::reminder::CLAUDE_CODE_TEXT.starts_with(TODO_REMINDER_OPENING));
    assert!(crate::plan::reminder::CLAUDE_CODE_TASKS_TEXT.starts_with(TASKS_REMINDER_OPENING));
}

#[test]
fn split_records_sidechains_meta_commands_and_recorded_reminders() {
    let (sessions, errors) = read(include_str!(
        "../../../tests/data/transcripts/claude-code/v2_split_sidechain_reminder.jsonl"
    ));
    assert_eq!(
        errors,
        [(25, "an unknown Claude Code record type".to_string())]
    );
    let [session] = &sessions[..] else {
        panic!("one session, got {}", sessions.len())
    };
    assert_eq!(session.agent_version.as_deref(), Some("2.0.14"));
    // The sidechain's haiku and the synthetic error record name no model.
    assert_eq!(session.models, ["claude-opus-4-1", "claude-sonnet-4-5"]);
    assert_eq!(session.reminders, Reminders::Recorded);
    // Commands, their output, the caveat (meta) and the interruption are
    // no user message; a message queued while the agent worked is one:
    // three parts.
    let turns: Vec<usize> = session.parts.iter().map(|p| p.turns.len()).collect();
    assert_eq!(turns, [3, 1, 1]);
    let first = &session.parts[0].turns;
    // Four records under msg_1 are one turn; the sidechain's TodoWrite is
    // not in it.
    assert_eq!(calls(&first[0]), [("TodoWrite", true, true)]);
    assert_eq!(first[0].other_tool_calls, 1);
    assert_eq!(first[0].input_tokens, Some(1010));
    assert_eq!(first[0].output_tokens, Some(120));
    assert_eq!(
        first[0].plan_after,
        Some(vec![InProgress, Pending, Pending])
    );
    // is_error: rejected, and the plan stands.
    assert_eq!(calls(&first[1]), [("TodoWrite", false, true)]);
    assert_eq!(
        first[1].plan_after,
        Some(vec![InProgress, Pending, Pending])
    );
    assert!(!first[1].reminder_before);
    // The todo_reminder attachment came right before the third response.
    assert!(first[2].reminder_before);
    assert_eq!(
        first[2].plan_after,
        Some(vec![Completed, InProgress, Pending])
    );
    assert_eq!(session.parts[1].turns[0].plan_after, first[2].plan_after);
}

#[test]
fn an_old_version_gets_the_reminders_its_policy_gives() {
    let (sessions, errors) = read(include_str!(
        "../../../tests/data/transcripts/claude-code/v1_inferred_reminder.jsonl"
    ));
    assert!(errors.is_empty(), "{errors:?}");
    let session = &sessions[0];
    assert_eq!(session.reminders, Reminders::Inferred);
    let reminded: Vec<usize> = session
        .turns()
        .enumerate()
        .filter(|(_, t)| t.reminder_before)
        .map(|(i, _)| i + 1)
        .collect();
    // TodoWrite in turn 1, then one block a turn: 10 blocks after turn 11.
    assert_eq!(reminded, [12]);
}

#[test]
fn the_oldest_versions_leave_reminders_unknown_and_todoread_is_a_read() {
    let (sessions, _) = read(include_str!(
        "../../../tests/data/transcripts/claude-code/v0_reminders_unknown.jsonl"
    ));
    let session = &sessions[0];
    assert_eq!(session.reminders, Reminders::Unknown);
    let turns: Vec<&Turn> = session.turns().collect();
    assert_eq!(calls(turns[0]), [("TodoRead", true, false)]);
    assert_eq!(turns[0].other_tool_calls, 1);
    assert_eq!(turns[0].plan_after, None);
    assert_eq!(turns[0].input_tokens, None);
}

#[test]
fn the_task_tools_are_applied_to_the_task_list() {
    let (sessions, errors) = read(include_str!(
        "../../../tests/data/transcripts/claude-code/v2_task_tools.jsonl"
    ));
    assert!(errors.is_empty(), "{errors:?}");
    let turns: Vec<&Turn> = sessions[0].turns().collect();
    assert_eq!(
        calls(turns[0]),
        [("TaskCreate", true, true), ("TaskCreate", true, true)]
    );
    assert_eq!(turns[0].plan_after, Some(vec![Pending, Pending]));
    assert_eq!(
        calls(turns[1]),
        [("TaskUpdate", true, true), ("TaskList", true, false)]
    );
    assert_eq!(turns[1].plan_after, Some(vec![InProgress, Pending]));
    // A <tool_use_error> without is_error is a rejection all the same.
    assert_eq!(calls(turns[2]), [("TaskUpdate", false, true)]);
    // The task_reminder came before turn 4; task 2 deleted there.
    assert!(turns[3].reminder_before);
    assert_eq!(turns[3].plan_after, Some(vec![Completed]));
    assert_eq!(turns.len(), 5);
}

#[test]
fn an_unknown_version_is_refused_record_by_record() {
    let (sessions, errors) = read(include_str!(
        "../../../tests/data/transcripts/claude-code/v3_unknown_version.jsonl"
    ));
    assert!(sessions.is_empty());
    assert_eq!(errors.len(), 2);
    // Named by a fixed reason, never the version the file wrote.
    assert_eq!(errors[0].1, "an unknown Claude Code version");
}

#[test]
fn versions_say_how_reminders_are_known() {
    let v = |text| Version::parse(text);
    assert_eq!(v("2.1.330"), Some(Version(2, 1, 330)));
    assert_eq!(v("1.0.3-beta"), Some(Version(1, 0, 3)));
    assert_eq!(v("2.1"), None);
    assert_eq!(reminders_for(v("2.1.330"), false), Reminders::Recorded);
    assert_eq!(reminders_for(v("1.0.40"), false), Reminders::Inferred);
    assert_eq!(reminders_for(v("0.2.93"), false), Reminders::Unknown);
    assert_eq!(reminders_for(v("0.2.93"), true), Reminders::Recorded);
    assert_eq!(reminders_for(None, false), Reminders::Unknown);
}

#[test]
fn the_inferred_count_restarts_after_the_planning_block() {
    // Responses of four blocks, a TodoWrite first in the second: after
    // it 3, then 7, then 11 blocks before the fifth response.
    let draft = |blocks, after| TurnDraft {
        blocks,
        blocks_after_plan: after,
        ..TurnDraft::default()
    };
    let mut turns = vec![
        draft(4, None),
        draft(4, Some(3)),
        draft(4, None),
        draft(4, None),
        draft(4, None),
    ];
    predict_reminders(&mut turns);
    let reminded: Vec<bool> = turns.iter().map(|t| t.turn.reminder_predicted).collect();
    assert_eq!(reminded, [false, false, false, false, true]);
}

#[test]
fn context_counts_text_and_not_image_data() {
    let content = serde_json::json!([
        {"type": "text", "text": "abc"},
        {"type": "image", "source": {"type": "base64", "data": "iVBORw0KGgo="}},
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "héllo"}]}
    ]);
    assert_eq!(text_chars(&content), 8);
}

/// A session of `outputs.len()` responses with these usage counts.
fn with_usage(inputs: &[u64], outputs: &[u64]) -> Session {
    let mut text = String::from(
        r#"{"type":"user","sessionId":"u","version":"1.0.30","message":{"role":"user","content":"go"}}"#,
    );
    for (i, (input, output)) in inputs.iter().zip(outputs).enumerate() {
        text.push('\n');
        text.push_str(&serde_json::json!({
            "type": "assistant", "sessionId": "u", "version": "1.0.30",
            "message": {"id": format!("m{i}"), "model": "claude-x",
                "usage": {"input_tokens": input, "output_tokens": output},
                "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {}}]}
        }).to_string());
        text.push('\n');
        text.push_str(&serde_json::json!({
            "type": "user", "sessionId": "u", "version": "1.0.30",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"), "content": "ok"}]}
        }).to_string());
    }
    let (mut sessions, errors) = read(&text);
    assert!(errors.is_empty(), "{errors:?}");
    sessions.remove(0)
}

#[test]
fn streaming_placeholders_and_constant_usage_are_not_usage() {
    let outputs = |s: &Session| s.turns().map(|t| t.output_tokens).collect::<Vec<_>>();
    let inputs = |s: &Session| s.turns().map(|t| t.input_tokens).collect::<Vec<_>>();
    // Old streaming records: 1 to 32 output tokens a block, never the total.
    let placeholders = with_usage(&[100, 300, 600], &[1, 12, 32]);
    assert_eq!(outputs(&placeholders), [None, None, None]);
    assert_eq!(inputs(&placeholders), [Some(100), Some(300), Some(600)]);
    // Real counts stay.
    let real = with_usage(&[100, 300, 600], &[12, 250, 80]);
    assert_eq!(outputs(&real), [Some(12), Some(250), Some(80)]);
    // A context that never grows is not the API's count.
    let constant = with_usage(&[500, 500, 500], &[90, 120, 70]);
    assert_eq!(inputs(&constant), [None, None, None]);
    assert_eq!(outputs(&constant), [Some(90), Some(120), Some(70)]);
}

/// A 2.1.100 session (it records reminders): the policy's prediction is
/// kept beside the recorded reminder, which alone says `reminder_before`.
#[test]
fn a_recording_version_keeps_the_prediction_beside_the_record() {
    let mut text = String::from(
        r#"{"type":"user","sessionId":"r","version":"2.1.100","message":{"role":"user","content":"go"}}"#,
    );
    for i in 0..14 {
        if i == 3 {
            text.push('\n');
            text.push_str(r#"{"type":"attachment","sessionId":"r","version":"2.1.100","attachment":{"type":"todo_reminder","content":[]}}"#);
        }
        text.push('\n');
        text.push_str(&serde_json::json!({
            "type": "assistant", "sessionId": "r", "version": "2.1.100",
            "message": {"id": format!("m{i}"), "model": "claude-x",
                "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {}}]}
        }).to_string());
    }
    let (sessions, errors) = read(&text);
    assert!(errors.is_empty(), "{errors:?}");
    let session = &sessions[0];
    assert_eq!(session.reminders, Reminders::Recorded);
    let recorded: Vec<usize> = (0..14)
        .filter(|&i| session.parts[0].turns[i].reminder_before)
        .collect();
    let predicted: Vec<usize> = (0..14)
        .filter(|&i| session.parts[0].turns[i].reminder_predicted)
        .collect();
    assert_eq!(recorded, [3]);
    // Ten blocks without a planning call: the rule says turn 10.
    assert_eq!(predicted, [10]);
}
