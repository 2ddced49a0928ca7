//! One transcript line parsed into a JSON tree whose memory is capped
//! ([`parse`]): the readers walk `serde_json::Value`s, and a tree costs
//! far more than its text — `{"a":0},` is 8 bytes of a line and several
//! hundred bytes of maps and vectors, so one 60 MiB line of small objects
//! would take gigabytes. The tree is built with every node charged what
//! it costs; past [`MAX_TREE_BYTES`] the line is given up as it is read
//! (the reader never sees it) and the caller skips it as too large.
//! Nesting stays capped by serde_json's recursion limit.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The most memory one line's tree may take (an estimate on the safe
/// side: a vector's spare capacity and a map's index counted).
pub const MAX_TREE_BYTES: usize = 96 << 20;

/// Why a line gave no tree.
#[derive(Debug)]
pub enum ParseError {
    /// The tree would take more than [`MAX_TREE_BYTES`].
    TooLarge,
    /// Not JSON, or nested past the recursion limit.
    Json(serde_json::Error),
}

/// `bytes` as a JSON value, within [`MAX_TREE_BYTES`].
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    let budget = Budget {
        left: Cell::new(MAX_TREE_BYTES),
        exceeded: Cell::new(false),
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = Node(&budget)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match parsed {
        _ if budget.exceeded.get() => Err(ParseError::TooLarge),
        Ok(value) => Ok(value),
        Err(e) => Err(ParseError::Json(e)),
    }
}

/// What is left to spend, and whether a charge went over.
struct Budget {
    left: Cell<usize>,
    exceeded: Cell<bool>,
}

impl Budget {
    fn charge<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.exceeded.set(true);
                Err(E::custom("a line whose JSON tree is too large"))
            }
        }
    }
}

/// A value's own slot, twice over for a vector's spare capacity.
const SLOT: usize = 2 * std::mem::size_of::<Value>();
/// A map entry: key, value, hash and index, with spare capacity.
const ENTRY: usize = 2 * (std::mem::size_of::<Value>() + std::mem::size_of::<String>() + 16);
/// A map's or a vector's fixed part (allocation headers, the index table).
const CONTAINER: usize = 64;

/// One value of the tree, built against the budget.
#[derive(Clone, Copy)]
struct Node<'a>(&'a Budget);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.0.charge(v.len())?;
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.charge(v.len())?;
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.0.charge(CONTAINER)?;
        let mut items = Vec::new();
        loop {
            self.0.charge(SLOT)?;
            match seq.next_element_seed(self)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        self.0.charge(CONTAINER)?;
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            self.0.charge(ENTRY + key.len())?;
            let value = access.next_value_seed(self)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ordinary_record_reads_as_serde_json_reads_it() {
        let text = br#"{"type":"user","n":[1,-2,3.5,null,true],"m":{"k":"v"}}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_slice::<Value>(text).unwrap()
        );
        assert!(matches!(parse(b"{\"a\":"), Err(ParseError::Json(e)) if e.is_eof()));
        assert!(matches!(parse(b"{} x"), Err(ParseError::Json(_))));
    }

    #[test]
    fn a_line_of_many_small_objects_is_given_up_not_built() {
        // 24 MiB of `{"a":0},` would be gigabytes as a tree.
        let mut line = b"[".to_vec();
        for _ in 0..3 << 20 {
            line.extend_from_slice(br#"{"a":0},"#);
        }
        line.extend_from_slice(b"0]");
        assert!(matches!(parse(&line), Err(ParseError::TooLarge)));
        // One long string costs its length: kept.
        let long = format!("{{\"text\":\"{}\"}}", "x".repeat(40 << 20));
        assert!(parse(long.as_bytes()).is_ok());
    }
}
