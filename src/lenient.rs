//! Reading foreign JSON formats (agents' transcripts, ACP messages) into
//! serde records without letting a newer or odder writer fail a record:
//! [`Lenient`] reads a field as its type when it is one, else as absent —
//! as a hand walk of the JSON (`.get(..).and_then(Value::as_str)`) would —
//! [`present`] tells a field that is `null` from one that is missing,
//! [`there`] only whether a field is there, and [`object_record`] and
//! [`ObjectField`] read a record only out of an object.
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

/// For `#[serde(default, deserialize_with = "there")]` on a `bool`: `true`
/// for a field that is there, whatever it holds (even `null`), read
/// without copying it.
pub fn there<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// A JSON object read as the record `T`, or `T::default()` for anything
/// else: a value that is no object (serde would read an array's items as
/// a struct's fields in order), or one that `T` cannot take.
pub fn object_record<'a, T: Deserialize<'a> + Default>(value: &'a Value) -> T {
    if value.is_object() {
        T::deserialize(value).unwrap_or_default()
    } else {
        T::default()
    }
}

/// A field that holds a record: `there` whenever the field is (even
/// `null`), `record` its object read as `T` ([`object_record`]: the
/// default for anything else).
#[derive(Debug, Default)]
pub struct ObjectField<T> {
    pub there: bool,
    pub record: T,
}

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for ObjectField<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Self {
            there: true,
            record: object_record(&value),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Record {
        #[serde(default)]
        name: Lenient<String>,
        #[serde(default)]
        count: Lenient<u64>,
        #[serde(default, deserialize_with = "present")]
        result: Option<Value>,
        #[serde(default, deserialize_with = "there")]
        flag: bool,
    }

    impl Default for Record {
        fn default() -> Self {
            Self {
                name: Lenient(Some("default".into())),
                count: Lenient::default(),
                result: None,
                flag: false,
            }
        }
    }

    #[test]
    fn there_is_presence_and_only_an_object_is_a_record() {
        let flag = |value: Value| object_record::<Record>(&value).flag;
        assert!(flag(serde_json::json!({"flag": null})));
        assert!(flag(serde_json::json!({"flag": [1, 2]})));
        assert!(!flag(serde_json::json!({"other": 1})));
        // An array's items would fill the fields in order; it is no record.
        let from_array = object_record::<Record>(&serde_json::json!(["x", 1, null, true]));
        assert_eq!(from_array.name.as_str(), Some("default"));
        assert!(!from_array.flag);
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
