//! Reading request JSON by hand, so every malformed request gets a message
//! that names the offending field (`messages.2.content.0.type: ...`), as the
//! real APIs do, instead of a generic decoding error.

use serde_json::{Map, Value};

use super::BadRequest;
use crate::plan::pyrepr::json_kind;

pub type Object = Map<String, Value>;

/// Sets `key` on a JSON object built by a writer, as `value[key] = field`
/// would, without an index that panics on a non-object: a writer's values
/// are all objects, so a non-object is left as it is.
pub fn set(value: &mut Value, key: &str, field: Value) {
    if let Some(obj) = value.as_object_mut() {
        obj.insert(key.to_string(), field);
    }
}

/// Parses a request body as a JSON object.
pub fn body_object(body: &[u8]) -> Result<Object, BadRequest> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| BadRequest::new(format!("the request body is not valid JSON: {e}")))?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(BadRequest::new(format!(
            "the request body must be a JSON object, not {}",
            json_kind(&other)
        ))),
    }
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn wrong(path: &str, wanted: &str, got: &Value) -> BadRequest {
    BadRequest::new(format!("{path}: expected {wanted}, got {}", json_kind(got)))
}

pub fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Object, BadRequest> {
    value
        .as_object()
        .ok_or_else(|| wrong(path, "an object", value))
}

/// A field that may be absent or null.
pub fn optional<'a>(obj: &'a Object, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

pub fn required<'a>(obj: &'a Object, key: &str, path: &str) -> Result<&'a Value, BadRequest> {
    optional(obj, key)
        .ok_or_else(|| BadRequest::new(format!("{}: field required", join(path, key))))
}

pub fn string<'a>(value: &'a Value, path: &str) -> Result<&'a str, BadRequest> {
    value.as_str().ok_or_else(|| wrong(path, "a string", value))
}

/// The field's path is spelled out only for an error: a request's
/// every message and block has several fields, and a path written for each
/// was a visible part of reading a long conversation.
pub fn required_str<'a>(obj: &'a Object, key: &str, path: &str) -> Result<&'a str, BadRequest> {
    let value = required(obj, key, path)?;
    value
        .as_str()
        .ok_or_else(|| wrong(&join(path, key), "a string", value))
}

pub fn optional_str<'a>(
    obj: &'a Object,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, BadRequest> {
    optional(obj, key)
        .map(|v| {
            v.as_str()
                .ok_or_else(|| wrong(&join(path, key), "a string", v))
        })
        .transpose()
}

pub fn array<'a>(value: &'a Value, path: &str) -> Result<&'a Vec<Value>, BadRequest> {
    value
        .as_array()
        .ok_or_else(|| wrong(path, "an array", value))
}

pub fn optional_array<'a>(
    obj: &'a Object,
    key: &str,
    path: &str,
) -> Result<&'a [Value], BadRequest> {
    match optional(obj, key) {
        Some(v) => v
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| wrong(&join(path, key), "an array", v)),
        None => Ok(&[]),
    }
}

pub fn optional_bool(obj: &Object, key: &str, path: &str) -> Result<bool, BadRequest> {
    match optional(obj, key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(wrong(&join(path, key), "a boolean", other)),
    }
}

/// Text given as a string or as a list of text parts (`{"type": "text",
/// "text": ...}`, `input_text`, `output_text`); parts of other types (images,
/// files) carry no text and are skipped. Parts are joined by `\n`.
pub fn text_or_parts(value: &Value, path: &str) -> Result<String, BadRequest> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Array(parts) => {
            let mut texts = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                let part_path = join(path, &i.to_string());
                let part = object(part, &part_path)?;
                let kind = required_str(part, "type", &part_path)?;
                if matches!(kind, "text" | "input_text" | "output_text") {
                    texts.push(required_str(part, "text", &part_path)?.to_string());
                }
            }
            Ok(texts.join("\n"))
        }
        other => Err(wrong(path, "a string or an array of content parts", other)),
    }
}

/// A tool call's `arguments` string as the model's input: the JSON it
/// holds, or the raw string when it is not JSON.
pub fn arguments_value(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_writes_a_field_in_place_and_leaves_a_non_object_alone() {
        let mut value = json!({"a": 1, "b": 2});
        set(&mut value, "a", json!(3));
        set(&mut value, "c", json!(4));
        assert_eq!(value.to_string(), r#"{"a":3,"b":2,"c":4}"#);
        // `value["k"] = ..` panics on an array; `set` does not.
        let mut array = json!([1]);
        set(&mut array, "k", json!(2));
        assert_eq!(array, json!([1]));
    }

    #[test]
    fn messages_name_the_field() {
        let obj = body_object(br#"{"a": {"b": 1}}"#).unwrap();
        let err = required_str(&obj, "x", "").unwrap_err();
        assert_eq!(err.message, "x: field required");
        let inner = object(&obj["a"], "a").unwrap();
        assert_eq!(
            required_str(inner, "b", "a").unwrap_err().message,
            "a.b: expected a string, got a number"
        );
        assert!(body_object(b"[1]").is_err());
        assert!(body_object(b"{").is_err());
    }

    #[test]
    fn text_parts_are_joined() {
        let parts = json!([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "input_text", "text": "b"}]);
        assert_eq!(text_or_parts(&parts, "c").unwrap(), "a\nb");
        assert!(text_or_parts(&json!(3), "c").is_err());
    }
}
