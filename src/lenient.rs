//! Reading foreign JSON formats (agents' transcripts, ACP messages) into
//! serde records without letting a newer or odder writer fail a record:
//! [`Lenient`] reads a field as its type when it is one, else as absent —
//! as a hand walk of the JSON (`.get(..).and_then(Value::as_str)`) would —
//! and [`present`] tells a field that is `null` from one that is missing.
//! The records that use them never deny unknown fields. Floor 1: it knows
//! serde and nothing of the crate.

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::Value;

/// A field read as `T` when it is one, else as absent: `null`, a missing
/// field (with `#[serde(default)]`) and a value of another type all read
/// as `Lenient(None)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Self(serde_json::from_value(value).ok()))
    }
}

impl<T> Lenient<T> {
    /// The value, when it was of its type.
    pub fn as_ref(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

impl Lenient<String> {
    /// The text, when it was text.
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// For `#[serde(default, deserialize_with = "present")]`: `Some` for a
/// field that is there, even `null` (JSON-RPC's `"result": null` is an
/// answer; a missing `result` is none).
pub fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Deserialize)]
    struct Record {
        #[serde(default)]
        name: Lenient<String>,
        #[serde(default)]
        count: Lenient<u64>,
        #[serde(default, deserialize_with = "present")]
        result: Option<Value>,
    }

    #[test]
    fn a_field_of_another_type_reads_as_absent_and_null_is_told_from_missing() {
        let read = |text: &str| serde_json::from_str::<Record>(text).unwrap();
        let good = read(r#"{"name":"a","count":3,"result":null,"extra":[1]}"#);
        assert_eq!((good.name.as_str(), good.count.0), (Some("a"), Some(3)));
        assert_eq!(good.result, Some(Value::Null));
        let odd = read(r#"{"name":7,"count":-1}"#);
        assert_eq!(
            (odd.name.as_str(), odd.count.0, odd.result),
            (None, None, None)
        );
    }
}
