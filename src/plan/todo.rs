//! The `TodoManager` of the s03 design: a validated, rendered plan.
//!
//! The model sends the whole list on every call; a call is either accepted
//! (the list is replaced and rendered back) or rejected with a message and
//! no change at all. Validation order and every message are fixed (see
//! docs/loop.md), and so is the render, because the simulated model reads
//! its plan back from exactly this text.
//!
//! Values are turned into text the way the Python reference does (`str()`):
//! `5` → `5`, `true` → `True`, `null` → `None`, `1.0` → `1.0`. Model input is
//! untrusted: nothing here panics on any JSON value.

use serde_json::Value;
use std::borrow::Cow;

pub use super::pyrepr::{json_kind, python_str};

/// The most items one list may hold.
pub const MAX_TODOS: usize = 20;

/// A todo item's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    /// Parses an already lower-cased status word.
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }

    /// Parses a status word the way the reference does, after `.lower()`.
    pub fn parse_any_case(word: &str) -> Option<Self> {
        // An ASCII word lower-cases byte by byte: compare it without
        // making a lower-cased copy.
        // The three words differ in length: the length picks the one to
        // compare with.
        if word.is_ascii() {
            let status = match word.len() {
                7 => Self::Pending,
                11 => Self::InProgress,
                9 => Self::Completed,
                _ => return None,
            };
            status.as_str().eq_ignore_ascii_case(word).then_some(status)
        } else {
            Self::parse(&word.to_lowercase())
        }
    }

    /// The status word as the model writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }

    /// The three-character marker used in the render.
    pub fn marker(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[>]",
            Self::Completed => "[x]",
        }
    }

    /// The inverse of [`TodoStatus::marker`].
    pub fn from_marker(marker: &str) -> Option<Self> {
        match marker {
            "[ ]" => Some(Self::Pending),
            "[>]" => Some(Self::InProgress),
            "[x]" => Some(Self::Completed),
            _ => None,
        }
    }
}

/// One accepted todo item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoItem {
    pub id: String,
    pub text: String,
    pub status: TodoStatus,
}

/// Why an update was rejected. The `Display` text is what the model sees
/// after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TodoError {
    #[error("Max 20 todos allowed")]
    TooMany,
    #[error("Item {id}: text required")]
    TextRequired { id: String },
    #[error("Item {id}: invalid status '{status}'")]
    InvalidStatus { id: String, status: String },
    #[error("Only one task can be in_progress at a time")]
    SeveralInProgress,
    #[error("items must be an array of todo objects, got {found}")]
    ItemsNotArray { found: &'static str },
    #[error("items is required: an array of {{id, text, status}} objects")]
    ItemsMissing,
    #[error("Item {index}: must be an object with id, text and status, got {found}")]
    ItemNotObject { index: usize, found: &'static str },
    #[error("todo input must be an object with an items array, got {found}")]
    InputNotObject { found: &'static str },
    #[error("unknown field `{field}` in todo input, expected `items`")]
    UnknownField { field: String },
}

/// Holds the current plan. Usable on its own, outside any loop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TodoManager {
    items: Vec<TodoItem>,
}

impl TodoManager {
    pub fn new() -> Self {
        Self::default()
    }

    /// The accepted items, in order.
    pub fn items(&self) -> &[TodoItem] {
        &self.items
    }

    /// The accepted items, taken.
    pub fn into_items(self) -> Vec<TodoItem> {
        self.items
    }

    /// Handles the `todo` tool's whole input (`{"items": [...]}`).
    pub fn handle_input(&mut self, input: &Value) -> Result<String, TodoError> {
        self.update(items_of(input)?)
    }

    /// Like [`TodoManager::handle_input`], with a choice of what an unknown
    /// status does (the java-port dialect turns it into `pending`).
    pub fn handle_input_with(
        &mut self,
        input: &Value,
        unknown_status: UnknownStatus,
    ) -> Result<String, TodoError> {
        self.items = parse_input(input, unknown_status)?;
        Ok(self.render())
    }

    /// Validates `items` (a JSON array) and, when every rule holds, replaces
    /// the list and returns the render. On error nothing changes.
    pub fn update(&mut self, items: &Value) -> Result<String, TodoError> {
        let items = items.as_array().ok_or(TodoError::ItemsNotArray {
            found: json_kind(items),
        })?;
        self.items = validate(items)?;
        Ok(self.render())
    }

    /// The render of the s03 todo tool (docs/loop.md).
    pub fn render(&self) -> String {
        render_items(&self.items)
    }
}

/// What an unknown status word does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownStatus {
    /// The reference: `Item <id>: invalid status '<status>'`.
    Reject,
    /// The Java port: the item silently becomes `pending`.
    Pending,
}

/// The `items` of a whole `todo` input: an object whose one field is
/// `items` (checked here; the items themselves are the caller's).
fn items_of(input: &Value) -> Result<&Value, TodoError> {
    let object = input.as_object().ok_or(TodoError::InputNotObject {
        found: json_kind(input),
    })?;
    if let Some(field) = object.keys().find(|k| k.as_str() != "items") {
        return Err(TodoError::UnknownField {
            field: field.clone(),
        });
    }
    let items = object.get("items").ok_or(TodoError::ItemsMissing)?;
    Ok(items)
}

/// The items of a whole `todo` input (`{"items": [...]}`), validated,
/// without touching any state.
pub fn parse_input(
    input: &Value,
    unknown_status: UnknownStatus,
) -> Result<Vec<TodoItem>, TodoError> {
    let items = items_of(input)?;
    let items = items.as_array().ok_or(TodoError::ItemsNotArray {
        found: json_kind(items),
    })?;
    validate_with(items, unknown_status)
}

/// Validates a list in the reference's order without touching any state.
pub fn validate(items: &[Value]) -> Result<Vec<TodoItem>, TodoError> {
    validate_with(items, UnknownStatus::Reject)
}

/// [`validate`] with a choice of what an unknown status does.
pub fn validate_with(
    items: &[Value],
    unknown_status: UnknownStatus,
) -> Result<Vec<TodoItem>, TodoError> {
    if items.len() > MAX_TODOS {
        return Err(TodoError::TooMany);
    }
    let mut validated = Vec::with_capacity(items.len());
    let mut in_progress = 0usize;
    for (index, item) in items.iter().enumerate() {
        let fields = item.as_object().ok_or(TodoError::ItemNotObject {
            index,
            found: json_kind(item),
        })?;
        let [id, text, status] = item_fields(fields);
        let text = python_text(text);
        let text = super::pyrepr::python_strip(&text).to_string();
        let status_word = status.map_or(Cow::Borrowed("pending"), |v| python_text(Some(v)));
        let id = id
            .map(python_str)
            .unwrap_or_else(|| (index + 1).to_string());
        if text.is_empty() {
            return Err(TodoError::TextRequired { id });
        }
        let status = match (TodoStatus::parse_any_case(&status_word), unknown_status) {
            (Some(status), _) => status,
            (None, UnknownStatus::Pending) => TodoStatus::Pending,
            (None, UnknownStatus::Reject) => {
                return Err(TodoError::InvalidStatus {
                    id,
                    status: status_word.to_lowercase(),
                });
            }
        };
        if status == TodoStatus::InProgress {
            in_progress += 1;
        }
        validated.push(TodoItem { id, text, status });
    }
    if in_progress > 1 {
        return Err(TodoError::SeveralInProgress);
    }
    Ok(validated)
}

/// An item's `id`, `text` and `status`, in one pass over its fields (an
/// item has few; three hashed lookups an item were a visible part of an
/// episode).
fn item_fields(fields: &serde_json::Map<String, Value>) -> [Option<&Value>; 3] {
    let mut found = [None; 3];
    for (key, value) in fields {
        let slot = match key.as_str() {
            "id" => 0,
            "text" => 1,
            "status" => 2,
            _ => continue,
        };
        if let Some(place) = found.get_mut(slot) {
            *place = Some(value);
        }
    }
    found
}

/// Python's `str()` of an optional field (`""` when absent), borrowed when
/// it is a string: most fields are, and a copy of each was a visible part
/// of an episode.
fn python_text(value: Option<&Value>) -> Cow<'_, str> {
    match value {
        Some(Value::String(s)) => Cow::Borrowed(s),
        Some(other) => Cow::Owned(python_str(other)),
        None => Cow::Borrowed(""),
    }
}

/// Renders items: one line each, a blank line, then the counter.
pub fn render_items(items: &[TodoItem]) -> String {
    if items.is_empty() {
        return "No todos.".to_string();
    }
    // Sized once: the lines, then the counter (its two figures at most
    // twenty digits each).
    let lines: usize = items.iter().map(|i| i.id.len() + i.text.len() + 8).sum();
    let mut out = String::with_capacity(lines + 56);
    for item in items {
        out.push_str(item.status.marker());
        out.push_str(" #");
        out.push_str(&item.id);
        out.push_str(": ");
        out.push_str(&item.text);
        out.push('\n');
    }
    let done = items
        .iter()
        .filter(|item| item.status == TodoStatus::Completed)
        .count();
    let mut figure = itoa::Buffer::new();
    out.push_str("\n(");
    out.push_str(figure.format(done));
    out.push('/');
    out.push_str(figure.format(items.len()));
    out.push_str(" completed)");
    out
}

/// Parses a render back into items: the inverse of [`render_items`] for
/// items whose id and text hold no line break. Returns `None` for text that
/// is not a render. The simulated model uses this to read its plan.
pub fn parse_render(text: &str) -> Option<Vec<TodoItem>> {
    if text == "No todos." {
        return Some(Vec::new());
    }
    let (body, counter) = text.rsplit_once("\n\n")?;
    let counter = counter.strip_prefix('(')?.strip_suffix(" completed)")?;
    let (done, total) = counter.split_once('/')?;
    let (done, total): (usize, usize) = (done.parse().ok()?, total.parse().ok()?);
    let mut items = Vec::new();
    for line in body.split('\n') {
        let status = TodoStatus::from_marker(line.get(..3)?)?;
        let rest = line.get(3..)?.strip_prefix(" #")?;
        let (id, text) = rest.split_once(": ")?;
        items.push(TodoItem {
            id: id.to_string(),
            text: text.to_string(),
            status,
        });
    }
    let completed = items
        .iter()
        .filter(|i| i.status == TodoStatus::Completed)
        .count();
    (items.len() == total && completed == done).then_some(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(manager: &mut TodoManager, items: Value) -> Result<String, String> {
        manager.update(&items).map_err(|e| e.to_string())
    }

    #[test]
    fn renders_markers_and_counter() {
        let mut m = TodoManager::new();
        let out = update(
            &mut m,
            json!([
                {"id": "1", "text": "Read hello.py", "status": "completed"},
                {"id": "2", "text": "Add type hints", "status": "in_progress"},
                {"id": "3", "text": "Add docstrings", "status": "pending"},
            ]),
        );
        assert_eq!(
            out.as_deref(),
            Ok(
                "[x] #1: Read hello.py\n[>] #2: Add type hints\n[ ] #3: Add docstrings\n\n(1/3 completed)"
            )
        );
    }

    #[test]
    fn empty_list_renders_no_todos() {
        let mut m = TodoManager::new();
        assert_eq!(update(&mut m, json!([])).as_deref(), Ok("No todos."));
        assert_eq!(m.render(), "No todos.");
    }

    #[test]
    fn defaults_follow_the_reference() {
        let mut m = TodoManager::new();
        let out = update(
            &mut m,
            json!([{"text": "  a  "}, {"text": "b", "status": "COMPLETED"}]),
        );
        assert_eq!(
            out.as_deref(),
            Ok("[ ] #1: a\n[x] #2: b\n\n(1/2 completed)")
        );
    }

    proptest::proptest! {
        /// The word's length picks the status it is compared with: the
        /// same answer as lower-casing it and parsing, for any word
        /// (the three words in any case, near misses, anything).
        #[test]
        fn status_words_parse_as_lower_cased(
            word in proptest::prop_oneof![
                "(?i)(pending|in_progress|completed)",
                "(?i)[a-z_]{7,11}",
                ".*",
            ]
        ) {
            proptest::prop_assert_eq!(
                TodoStatus::parse_any_case(&word),
                TodoStatus::parse(&word.to_lowercase())
            );
        }
    }

    /// Status words compare as the reference's `.lower()` makes them:
    /// ASCII words without a copy, others lower-cased first.
    #[test]
    fn status_words_in_any_case() {
        for word in ["pending", "PENDING", "In_Progress", "completeD"] {
            assert_eq!(
                TodoStatus::parse_any_case(word),
                TodoStatus::parse(&word.to_lowercase()),
                "{word}"
            );
            assert!(TodoStatus::parse_any_case(word).is_some());
        }
        for word in ["pendíng", "İn_progress", "done", "", "pending "] {
            assert_eq!(TodoStatus::parse_any_case(word), None, "{word}");
        }
        let mut m = TodoManager::new();
        assert_eq!(
            update(&mut m, json!([{"text": "a", "status": "DONE"}])),
            Err("Item 1: invalid status 'done'".to_string())
        );
    }

    #[test]
    fn values_become_text_like_python_str() {
        let mut m = TodoManager::new();
        let out = update(
            &mut m,
            json!([{"id": 7, "text": 1.0}, {"id": true, "text": null}, {"id": null, "text": [1, "a"]}]),
        );
        assert_eq!(
            out.as_deref(),
            Ok("[ ] #7: 1.0\n[ ] #True: None\n[ ] #None: [1, 'a']\n\n(0/3 completed)")
        );
    }

    #[test]
    fn every_rejection_message() {
        let mut m = TodoManager::new();
        let many: Vec<Value> = (0..21).map(|i| json!({"text": format!("t{i}")})).collect();
        assert_eq!(
            update(&mut m, Value::Array(many)),
            Err("Max 20 todos allowed".into())
        );
        assert_eq!(
            update(&mut m, json!([{"id": "a", "text": "   "}])),
            Err("Item a: text required".into())
        );
        assert_eq!(
            update(&mut m, json!([{"text": "x", "status": "Done"}])),
            Err("Item 1: invalid status 'done'".into())
        );
        assert_eq!(
            update(
                &mut m,
                json!([{"text": "x", "status": "in_progress"}, {"text": "y", "status": "in_progress"}])
            ),
            Err("Only one task can be in_progress at a time".into())
        );
        // Per item, text is checked before status; items are checked in order.
        assert_eq!(
            update(
                &mut m,
                json!([{"text": "x", "status": "bad"}, {"text": ""}])
            ),
            Err("Item 1: invalid status 'bad'".into())
        );
        assert!(m.items().is_empty());
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        let mut m = TodoManager::new();
        for input in [
            json!(null),
            json!("items"),
            json!({}),
            json!({"items": "x"}),
            json!({"items": [1]}),
            json!({"items": [], "extra": 1}),
        ] {
            assert!(m.handle_input(&input).is_err(), "{input}");
        }
        assert_eq!(
            m.handle_input(&json!({"items": [1]}))
                .unwrap_err()
                .to_string(),
            "Item 0: must be an object with id, text and status, got a number"
        );
    }

    #[test]
    fn rejection_keeps_the_previous_list() {
        let mut m = TodoManager::new();
        update(&mut m, json!([{"text": "keep"}])).unwrap();
        let before = m.clone();
        update(&mut m, json!([{"text": ""}])).unwrap_err();
        assert_eq!(m, before);
    }

    #[test]
    fn render_parses_back() {
        let mut m = TodoManager::new();
        let out = update(
            &mut m,
            json!([{"id": "x", "text": "a: b", "status": "in_progress"}, {"text": "c"}]),
        )
        .unwrap();
        assert_eq!(parse_render(&out).as_deref(), Some(m.items()));
        assert_eq!(parse_render("No todos."), Some(vec![]));
        assert_eq!(parse_render("Wrote 3 bytes"), None);
    }
}
