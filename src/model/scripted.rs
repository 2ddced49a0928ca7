//! The scripted model of SPEC 2.1: exact replay.
//!
//! Responses are used in order, one per call. A response with calls has
//! stop reason `tool_use` and content = the text block (if any) then the
//! `tool_use` blocks, with ids `toolu_<turn>_<k>`. Asking past the end is a
//! [`ModelError::ScriptExhausted`]. Every request can be recorded, so tests
//! can check what the loop sent.

use super::{Model, ModelError, turn_of};
use crate::llm::{ContentBlock, Message, ModelRequest, ModelResponse, tool_use_id};
use crate::scenario::ScriptedResponse;

/// What the loop sent on one call.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub system: String,
    pub messages: Vec<Message>,
    pub tool_names: Vec<String>,
}

/// Replays a script.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    script: Vec<ScriptedResponse>,
    next: usize,
    record: bool,
    requests: Vec<RecordedRequest>,
}

impl ScriptedModel {
    pub fn new(script: Vec<ScriptedResponse>) -> Self {
        Self {
            script,
            next: 0,
            record: false,
            requests: Vec::new(),
        }
    }

    /// Keeps a copy of every request (off by default: it costs a copy of
    /// the conversation per turn).
    pub fn recording(mut self) -> Self {
        self.record = true;
        self
    }

    pub fn requests(&self) -> &[RecordedRequest] {
        &self.requests
    }

    /// Responses not yet used.
    pub fn remaining(&self) -> usize {
        self.script.len() - self.next
    }
}

impl Model for ScriptedModel {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        if self.record {
            self.requests.push(RecordedRequest {
                system: request.system.to_string(),
                messages: request.messages.to_vec(),
                tool_names: request.tools.iter().map(|t| t.name.to_string()).collect(),
            });
        }
        let turn = turn_of(request);
        let entry = self
            .script
            .get(self.next)
            .ok_or(ModelError::ScriptExhausted {
                turn,
                responses: self.script.len(),
            })?;
        self.next += 1;
        let mut content = Vec::with_capacity(entry.calls.len() + 1);
        if let Some(text) = &entry.text {
            content.push(ContentBlock::text(text.clone()));
        }
        for (k, call) in entry.calls.iter().enumerate() {
            content.push(ContentBlock::ToolUse {
                id: tool_use_id(turn, k + 1),
                name: call.tool.clone(),
                input: call.input.clone(),
            });
        }
        Ok(ModelResponse::from_blocks(content))
    }
}
