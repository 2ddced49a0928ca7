//! Which agent wrote a record: the marks each format's records carry, read
//! off any JSON object as one serde record that takes every field as
//! optional and ignores the rest, so a newer writer's record with more
//! fields is told apart exactly as an older one's.
//!
//! - Codex rollouts (`rollout-*.jsonl`, every version seen): a `payload`
//!   and a `type` of the rollout's item kinds.
//! - agent-eval's run log (`--log-dir`, every version): `scenario`,
//!   `metrics` and `messages`.
//! - Claude Code transcripts (`<session>.jsonl`, 1.x and 2.x): a `type`
//!   and one of `sessionId`, `uuid`, `leafUuid` (summary lines), `message`.

use serde::Deserialize;
use serde_json::Value;

use super::Format;
use crate::lenient::{Lenient, object_record, there};

/// The `type` of every Codex rollout item kind.
const CODEX_KINDS: [&str; 7] = [
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "token_usage_record",
    "world_state",
    "compacted",
];

/// The fields that tell the formats apart; `true` where the field is
/// there, whatever it holds.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Marks {
    #[serde(default, rename = "type")]
    kind: Lenient<String>,
    #[serde(default, deserialize_with = "there")]
    payload: bool,
    #[serde(default, deserialize_with = "there")]
    scenario: bool,
    #[serde(default, deserialize_with = "there")]
    metrics: bool,
    #[serde(default, deserialize_with = "there")]
    messages: bool,
    #[serde(default, deserialize_with = "there")]
    session_id: bool,
    #[serde(default, deserialize_with = "there")]
    uuid: bool,
    #[serde(default, deserialize_with = "there")]
    leaf_uuid: bool,
    #[serde(default, deserialize_with = "there")]
    message: bool,
}

/// The format a record shows, if any.
pub fn detect(record: &Value) -> Option<Format> {
    let marks: Marks = object_record(record);
    let kind = marks.kind.as_str();
    if marks.payload {
        return kind
            .filter(|k| CODEX_KINDS.contains(k))
            .map(|_| Format::Codex);
    }
    if marks.scenario && marks.metrics && marks.messages {
        return Some(Format::RunLog);
    }
    let claude = marks.session_id || marks.uuid || marks.leaf_uuid || marks.message;
    (kind.is_some() && claude).then_some(Format::ClaudeCode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_format_by_its_marks_and_nothing_else() {
        let cases = [
            (
                json!({"type": "session_meta", "payload": null}),
                Some(Format::Codex),
            ),
            (json!({"type": "other", "payload": {}}), None),
            (json!({"payload": {}, "sessionId": "s"}), None),
            (
                json!({"scenario": 1, "metrics": null, "messages": [], "type": "x"}),
                Some(Format::RunLog),
            ),
            (json!({"scenario": 1, "metrics": {}}), None),
            (
                json!({"type": "summary", "leafUuid": "u"}),
                Some(Format::ClaudeCode),
            ),
            (
                json!({"type": "user", "message": null, "new": [1]}),
                Some(Format::ClaudeCode),
            ),
            (json!({"type": 3, "uuid": "u"}), None),
            (json!({"uuid": "u"}), None),
            (json!(["user", true]), None),
            (json!("type"), None),
        ];
        for (record, format) in cases {
            assert_eq!(detect(&record), format, "{record}");
        }
    }
}
