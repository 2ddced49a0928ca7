//! Server-sent events as the APIs send them: an optional `event:` line
//! (Anthropic and Responses name every event; Chat Completions does not)
//! and one `data:` line of JSON.

use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use std::convert::Infallible;

/// One event to send.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub event: Option<&'static str>,
    pub data: String,
}

impl SseEvent {
    pub fn named(event: &'static str, data: &serde_json::Value) -> Self {
        Self {
            event: Some(event),
            data: data.to_string(),
        }
    }

    pub fn data(data: impl Into<String>) -> Self {
        Self {
            event: None,
            data: data.into(),
        }
    }
}

/// The events as a streaming response.
pub fn into_response(events: Vec<SseEvent>) -> Response {
    let events = events.into_iter().map(|e| {
        let event = Event::default().data(e.data);
        Ok::<_, Infallible>(match e.event {
            Some(name) => event.event(name),
            None => event,
        })
    });
    Sse::new(stream::iter(events)).into_response()
}

/// Characters per streamed delta, in every API's stream.
pub const DELTA_CHARS: usize = 48;

/// Splits a string into pieces of at most `size` characters (at least one
/// piece), as the APIs stream long texts and arguments in deltas.
pub fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, _) in text.char_indices() {
        if count == size {
            pieces.push(&text[start..i]);
            start = i;
            count = 0;
        }
        count += 1;
    }
    pieces.push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_split_on_characters() {
        assert_eq!(chunks("héllo", 2), ["hé", "ll", "o"]);
        assert_eq!(chunks("", 3), [""]);
        assert_eq!(chunks("abc", 3), ["abc"]);
    }
}
