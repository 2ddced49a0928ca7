//! Python's view of JSON values, for dialects ported from Python references.
//!
//! The Python designs turn whatever the model sent into text with `str()`
//! and test it with `or`, `.strip()` and `.lower()`; to give the same
//! messages and the same accepted lists, these helpers do what Python does
//! to the decoded JSON value: `str(5)` is `5`, `str(True)` is `True`,
//! `str(None)` is `None`, `str(1.0)` is `1.0`, `str([1, "a"])` is
//! `[1, 'a']`. Nothing here panics on any JSON value.

use serde_json::Value;
use std::fmt;

/// A JSON value's kind, for error messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The value as text, the way Python's `str()` shows the decoded JSON value.
pub fn python_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => PythonRepr(other).to_string(),
    }
}

/// Python's `repr()` of a decoded JSON value (strings quoted).
struct PythonRepr<'a>(&'a Value);

impl fmt::Display for PythonRepr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::Null => f.write_str("None"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => write!(f, "{i}"),
                (None, Some(u), _) => write!(f, "{u}"),
                (_, _, Some(x)) => f.write_str(&python_float(x)),
                _ => write!(f, "{n}"),
            },
            Value::String(s) => write_python_string(f, s),
            Value::Array(values) => {
                f.write_str("[")?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", PythonRepr(v))?;
                }
                f.write_str("]")
            }
            Value::Object(map) => {
                f.write_str("{")?;
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_python_string(f, k)?;
                    write!(f, ": {}", PythonRepr(v))?;
                }
                f.write_str("}")
            }
        }
    }
}

fn write_python_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    write!(f, "{quote}")?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c == quote => write!(f, "\\{c}")?,
            c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    write!(f, "{quote}")
}

/// Python's `repr(float)`: shortest round-trip digits, scientific notation
/// when the exponent is below -4 or at least 16.
fn python_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{x:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..16).contains(&exponent) {
        let plain = format!("{x}");
        if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        }
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    }
}

/// Python's truthiness of a decoded JSON value: `null`, `false`, `0`,
/// `0.0`, `""`, `[]` and `{}` are falsy; everything else is truthy.
pub fn python_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(values) => !values.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// Whether Python's `str.isspace()` holds for the character: Unicode white
/// space plus the ASCII separators U+001C..U+001F, which Rust's
/// `char::is_whitespace` leaves out.
pub fn python_is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument.
pub fn python_strip(s: &str) -> &str {
    s.trim_matches(python_is_space)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn str_of_every_kind() {
        assert_eq!(python_str(&json!("a b")), "a b");
        assert_eq!(python_str(&json!(null)), "None");
        assert_eq!(python_str(&json!(true)), "True");
        assert_eq!(python_str(&json!(false)), "False");
        assert_eq!(python_str(&json!(7)), "7");
        assert_eq!(python_str(&json!(-7)), "-7");
        assert_eq!(python_str(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(python_str(&json!(1.0)), "1.0");
        assert_eq!(python_str(&json!([1, "a", null])), "[1, 'a', None]");
        assert_eq!(python_str(&json!({"k": "it's"})), "{'k': \"it's\"}");
        assert_eq!(python_str(&json!(["a\nb\\"])), "['a\\nb\\\\']");
    }

    #[test]
    fn floats_like_repr() {
        assert_eq!(python_float(1e16), "1e+16");
        assert_eq!(python_float(1.5e-5), "1.5e-05");
        assert_eq!(python_float(0.0001), "0.0001");
        assert_eq!(python_float(123.25), "123.25");
        assert_eq!(python_float(-0.0), "-0.0");
    }

    #[test]
    fn truthiness() {
        for falsy in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
        ] {
            assert!(!python_truthy(&falsy), "{falsy}");
        }
        for truthy in [
            json!(true),
            json!(1),
            json!(-0.5),
            json!(" "),
            json!([0]),
            json!({"a": null}),
        ] {
            assert!(python_truthy(&truthy), "{truthy}");
        }
    }

    #[test]
    fn strip_like_python() {
        assert_eq!(python_strip("\u{1f} a b\u{3000}\n"), "a b");
        assert_eq!(python_strip("\u{200b}x"), "\u{200b}x");
        assert_eq!(python_strip(""), "");
    }
}
