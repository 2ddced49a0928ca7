//! The layout of every JSON document agent-eval writes (serde_json's
//! pretty layout, byte for byte), and the one place a run record is laid
//! out in it.
//!
//! It sits here, below the renderers, because a run record is laid out
//! once, when it finishes: the spill file ([`super::cell_runs`]) keeps each
//! record as the JSON report prints it ([`RECORD_LEVEL`] deep), and the
//! report ([`crate::report::json`]) copies those bytes through
//! [`Spliced`] instead of parsing the record and writing it again.

use serde::Serialize;
use serde::ser::SerializeStruct;

/// How deep a run record lies in the JSON report: inside the report, its
/// `scenarios`, a scenario, its `cells`, a cell and its `results`. A
/// record laid out at this level is copied into the report as it is; at
/// another depth it is re-indented while copied.
pub const RECORD_LEVEL: usize = 6;

/// Writes `value` in the [`Pretty`] layout as it lies `level` containers
/// deep (a run record at [`RECORD_LEVEL`] is written as the report prints
/// it).
pub fn write_at_level<W: std::io::Write>(
    writer: W,
    value: &impl Serialize,
    level: usize,
) -> Result<(), serde_json::Error> {
    value.serialize(&mut serde_json::Serializer::with_formatter(
        writer,
        Pretty::at_level(level),
    ))
}

/// serde_json's pretty layout (two spaces a level, `": "` after keys),
/// byte for byte, with each line break and its indentation written at
/// once: serde_json writes the indentation a level at a time, which was
/// a visible part of writing a large report.
#[derive(Debug, Default)]
pub struct Pretty {
    level: usize,
    has_value: bool,
}

/// A line break and the indentation of up to 64 levels.
const BREAK: &[u8; 129] = &{
    let mut line = [b' '; 129];
    line[0] = b'\n';
    line
};

impl Pretty {
    /// The layout of a value that lies `level` containers deep (0: a
    /// document of its own).
    pub fn at_level(level: usize) -> Self {
        Self {
            level,
            has_value: false,
        }
    }

    fn line_break<W: ?Sized + std::io::Write>(&self, writer: &mut W) -> std::io::Result<()> {
        match BREAK.get(..1 + 2 * self.level) {
            Some(line) => writer.write_all(line),
            None => {
                writer.write_all(b"\n")?;
                (0..self.level).try_for_each(|_| writer.write_all(b"  "))
            }
        }
    }

    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line_break(writer)?;
        }
        writer.write_all(bracket)
    }

    fn item<W: ?Sized + std::io::Write>(&self, writer: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        self.line_break(writer)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    /// A value already written, compact or laid out in this layout at
    /// some depth (a spilled run record, see [`Spliced`]), is written as
    /// if it were serialized here.
    fn write_raw_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let json = fragment.as_bytes();
        match laid_out_depth(json) {
            Some(depth) => self.write_laid_out(writer, json, depth),
            None => self.write_compact(writer, json),
        }
    }
}

/// The depth a fragment was laid out at in this layout, if it was: a
/// container whose opening bracket ends its first line (compact JSON holds
/// no line break, not even in a string, where it is escaped); the closing
/// bracket's indentation says how deep.
fn laid_out_depth(json: &[u8]) -> Option<usize> {
    if json.get(1) != Some(&b'\n') {
        return None;
    }
    let last_break = memchr::memrchr(b'\n', json)?;
    let indent = json.len().checked_sub(last_break + 2)?;
    Some(indent / 2)
}

impl Pretty {
    /// Writes `json`, laid out in this layout `depth` levels deep, at this
    /// level: as it is when the depths agree (a spilled record in the
    /// report), else each line's indentation moved by the difference.
    fn write_laid_out<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        json: &[u8],
        depth: usize,
    ) -> std::io::Result<()> {
        if depth == self.level {
            return writer.write_all(json);
        }
        let indent = 2 * depth;
        let mut lines = json.split(|byte| *byte == b'\n');
        // The first line is the opening bracket; every other line is
        // indented by at least `depth` levels.
        writer.write_all(lines.next().unwrap_or_default())?;
        for line in lines {
            let spaces = line
                .iter()
                .take(indent)
                .take_while(|byte| **byte == b' ')
                .count();
            self.line_break(writer)?;
            writer.write_all(line.get(spaces..).unwrap_or_default())?;
        }
        Ok(())
    }

    /// Writes `json`, compact JSON (nothing between tokens, as
    /// `serde_json` writes it compactly), in this layout: a line break
    /// after each opening bracket and comma and before each closing one,
    /// `": "` after keys, empty containers as `[]` and `{}`, strings as
    /// they are.
    fn write_compact<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        json: &[u8],
    ) -> std::io::Result<()> {
        let mut plain = 0;
        let mut at = 0;
        while let Some(&byte) = json.get(at) {
            if byte == b'"' {
                at = string_end(json, at + 1);
                continue;
            }
            if !matches!(byte, b'{' | b'[' | b'}' | b']' | b',' | b':') {
                at += 1;
                continue;
            }
            writer.write_all(json.get(plain..at).unwrap_or_default())?;
            at += 1;
            match byte {
                b'{' | b'[' => {
                    let close = if byte == b'{' { b'}' } else { b']' };
                    if json.get(at) == Some(&close) {
                        writer.write_all(&[byte, close])?;
                        at += 1;
                    } else {
                        writer.write_all(&[byte])?;
                        self.level += 1;
                        self.line_break(writer)?;
                    }
                }
                b'}' | b']' => {
                    self.level = self.level.saturating_sub(1);
                    self.line_break(writer)?;
                    writer.write_all(&[byte])?;
                }
                b',' => {
                    writer.write_all(b",")?;
                    self.line_break(writer)?;
                }
                _ => writer.write_all(b": ")?,
            }
            plain = at;
        }
        writer.write_all(json.get(plain..).unwrap_or_default())
    }
}

/// Where the JSON string whose text starts at `at` ends: just after its
/// closing quote (or the end of `json`).
fn string_end(json: &[u8], mut at: usize) -> usize {
    while let Some(found) = json
        .get(at..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        at += found;
        if json.get(at) == Some(&b'"') {
            return at + 1;
        }
        // A backslash escapes the byte after it.
        at += 2;
    }
    json.len()
}

/// JSON text written into a document as it is, without being parsed
/// again: a run record read back from the spill file, which this process
/// wrote ([`super::cell_runs`]). In the [`Pretty`] layout it is laid out
/// as its value would be (copied as it is when it was laid out at the
/// depth it is written at); serde_json's other serializers copy it as it
/// is (`to_string` then keeps its line breaks), and `serde_json::to_value`
/// parses it.
#[derive(Debug, Clone, Copy)]
pub struct Spliced<'a>(pub &'a str);

/// The name of the one-field struct by which a
/// `serde_json::value::RawValue` hands its text to serde_json's
/// serializers (which pass it on to `Formatter::write_raw_fragment`
/// unchanged). A `RawValue` is only made by parsing its text again (about
/// 4,500 instructions a record), so a spliced record is handed over the
/// way a `RawValue` hands itself over. serde_json does not publish the
/// name: the tests below fail if it changes (the record would come out as
/// an object holding a string).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl Serialize for Spliced<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, self.0)?;
        raw.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn at_level(value: &impl Serialize, level: usize) -> String {
        let mut bytes = Vec::new();
        write_at_level(&mut bytes, value, level).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    /// A value laid out at one depth and spliced in at another is written
    /// as the value itself would be there, and reads back as the value.
    fn splices_as_its_value(value: &Value) {
        for from in [0, 1, 5, RECORD_LEVEL, 70] {
            let text = at_level(value, from);
            for to in [0, 2, RECORD_LEVEL, 9, 66] {
                assert_eq!(at_level(&Spliced(&text), to), at_level(value, to));
            }
            // serde_json takes it as a raw value (the token is its own).
            assert_eq!(serde_json::to_value(Spliced(&text)).unwrap(), *value);
        }
    }

    #[test]
    fn a_laid_out_fragment_is_written_as_its_value_at_any_depth() {
        for value in [
            json!(null),
            json!("a\nb"),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"seed": 3, "stop": "end_turn", "reminders_at": [4, 8], "cost": 0.25}),
            json!({"k": "q\"{[,:]}\\\n  ", "e": [[], {}, [{}]], "n": -1.5e-7}),
        ] {
            splices_as_its_value(&value);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_laid_out_fragment_is_written_as_its_value(
            keys in proptest::collection::vec("[a-z\"\\\\{}\\[\\],: \n]{0,6}", 0..4),
            numbers in proptest::collection::vec(proptest::num::i64::ANY, 0..4),
        ) {
            let object: serde_json::Map<String, Value> = keys
                .iter()
                .map(|k| (k.clone(), json!([k, numbers.clone(), {}])))
                .collect();
            splices_as_its_value(&json!([object, numbers]));
        }
    }
}
