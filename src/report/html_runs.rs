//! The transcripts of the HTML report, stored once and compactly: every
//! string (a task, a tool's output, a plan item, a settings label) goes
//! into one table and is referred to by its index, so the text that
//! thousands of runs share is written once. The page's small inline
//! script (`html_runs.js`) builds a transcript from this data only when a
//! person opens it, and filters the list of runs by cell, outcome and
//! seed.
//!
//! The data is a JSON document inside `<script type="application/json">`
//! (never executed); every `<` in it is written `\u003c`, so no text of a
//! run can close the element.
//!
//! A run is an array: `[scenario, cell, seed, steps done, steps total,
//! stop, reminders at, replay, messages, plans]`, where scenario is the
//! index of the scenario in the report, and cell, stop and replay index
//! the string table. A message is `[role, content]` (role 0 user, 1
//! assistant), its content a string index (typed text) or a list of
//! blocks: `[0, text]`, `[1, tool name, input as indented JSON]`, `[2,
//! result, tool name]` or `[3, block type]`. A plan is `[turn, [[status,
//! id, text], ...], message]`: the index of the message the page shows it
//! after (`place_plans`).

use std::collections::HashMap;

use serde_json::{Value, json};

/// The runs' transcripts with their shared string table.
#[derive(Debug, Default)]
pub struct Transcripts {
    strings: Vec<String>,
    index: HashMap<String, usize>,
    /// Each run as its compact JSON text (far smaller than a parsed
    /// document), and the index of its scenario.
    runs: Vec<(usize, String)>,
    scenarios: Vec<String>,
}

impl Transcripts {
    /// The transcripts of `runs` (logged run records, as `--log-dir`
    /// writes them).
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut store = Self::default();
        for run in runs {
            store.push(run);
        }
        store
    }

    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// How many transcripts belong to `scenario`.
    pub fn count_of(&self, scenario: &str) -> usize {
        let Some(at) = self.scenarios.iter().position(|s| s == scenario) else {
            return 0;
        };
        self.runs.iter().filter(|(s, _)| *s == at).count()
    }

    /// The index of `scenario` in the data (the page's sections refer to it).
    pub fn scenario_index(&self, scenario: &str) -> Option<usize> {
        self.scenarios.iter().position(|s| s == scenario)
    }

    fn intern(&mut self, text: &str) -> usize {
        if let Some(&at) = self.index.get(text) {
            return at;
        }
        self.strings.push(text.to_string());
        self.index.insert(text.to_string(), self.strings.len() - 1);
        self.strings.len() - 1
    }

    /// Adds one logged run.
    pub fn push(&mut self, run: &Value) {
        let scenario = str_of(run, "scenario").to_string();
        let scenario = match self.scenarios.iter().position(|s| *s == scenario) {
            Some(at) => at,
            None => {
                self.scenarios.push(scenario);
                self.scenarios.len() - 1
            }
        };
        let metrics = run.get("metrics").unwrap_or(&Value::Null);
        let cell = self.intern(&settings_text(run.get("settings")));
        let stop = self.intern(str_of(metrics, "stop"));
        let replay = self.intern(str_of(run, "replay"));
        let messages = self.messages(run);
        let mut plans = self.plans(run);
        place_plans(&messages, &mut plans);
        let compact = json!([
            scenario,
            cell,
            run.get("seed").cloned().unwrap_or(Value::Null),
            metrics.get("steps_completed").cloned().unwrap_or(json!(0)),
            metrics.get("steps_total").cloned().unwrap_or(json!(0)),
            stop,
            metrics.get("reminders_at").cloned().unwrap_or(json!([])),
            replay,
            messages,
            plans,
        ]);
        self.runs.push((scenario, compact.to_string()));
    }

    fn messages(&mut self, run: &Value) -> Value {
        let mut names: HashMap<String, usize> = HashMap::new();
        let list = run
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut out = Vec::with_capacity(list.len());
        for message in list {
            let role = u8::from(str_of(message, "role") == "assistant");
            let content = match message.get("content") {
                Some(Value::String(text)) => json!(self.intern(text)),
                Some(Value::Array(blocks)) => Value::Array(
                    blocks
                        .iter()
                        .map(|block| self.block(block, &mut names))
                        .collect(),
                ),
                _ => continue,
            };
            out.push(json!([role, content]));
        }
        Value::Array(out)
    }

    fn block(&mut self, block: &Value, names: &mut HashMap<String, usize>) -> Value {
        match str_of(block, "type") {
            "text" => json!([0, self.intern(str_of(block, "text"))]),
            "tool_use" => {
                let name = self.intern(str_of(block, "name"));
                names.insert(str_of(block, "id").to_string(), name);
                let input = block
                    .get("input")
                    .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
                    .unwrap_or_default();
                json!([1, name, self.intern(&input)])
            }
            "tool_result" => {
                let content = match block.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let name = match names.get(str_of(block, "tool_use_id")) {
                    Some(&name) => name,
                    None => self.intern("?"),
                };
                json!([2, self.intern(&content), name])
            }
            other => json!([3, self.intern(other)]),
        }
    }

    fn plans(&mut self, run: &Value) -> Value {
        let list = run
            .get("plans")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut out = Vec::with_capacity(list.len());
        for plan in list {
            let items = plan
                .get("items")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let items: Vec<Value> = items
                .iter()
                .map(|item| {
                    json!([
                        self.intern(str_of(item, "status")),
                        self.intern(str_of(item, "id")),
                        self.intern(str_of(item, "text")),
                    ])
                })
                .collect();
            out.push(json!([
                plan.get("turn").cloned().unwrap_or(json!(0)),
                items
            ]));
        }
        Value::Array(out)
    }

    /// The data as the page embeds it: compact JSON with every `<`
    /// escaped, so it can sit inside a `<script>` element.
    pub fn embedded(&self) -> String {
        let strings = Value::from(self.strings.clone()).to_string();
        let size = strings.len() + self.runs.iter().map(|(_, r)| r.len() + 1).sum::<usize>();
        let mut document = String::with_capacity(size + 32);
        document.push_str("{\"strings\":");
        document.push_str(&strings);
        document.push_str(",\"runs\":[");
        for (i, (_, run)) in self.runs.iter().enumerate() {
            if i > 0 {
                document.push(',');
            }
            document.push_str(run);
        }
        document.push_str("]}");
        document.replace('<', "\\u003c")
    }
}

/// Adds to each plan (`[turn, items]`) the index of the message the page
/// shows it after: the last message of its turn that holds blocks — the
/// results that answered the turn's calls, or the answer itself when the
/// turn was answered in plain text, beside which an ACP agent reports its
/// plan — with turns counted as the page counts them (each assistant
/// message of blocks opens one). The last message when its turn has none.
fn place_plans(messages: &Value, plans: &mut Value) {
    let messages = messages.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut turn = 0;
    let mut last_of_turn = std::collections::BTreeMap::new();
    for (at, message) in messages.iter().enumerate() {
        if message.get(1).is_some_and(Value::is_number) {
            continue;
        }
        if message.get(0).and_then(Value::as_u64) == Some(1) {
            turn += 1;
        }
        last_of_turn.insert(turn, at);
    }
    let last = messages.len().saturating_sub(1);
    for plan in plans.as_array_mut().into_iter().flatten() {
        let turn = plan.get(0).and_then(Value::as_u64).unwrap_or(0);
        let at = last_of_turn.get(&turn).copied().unwrap_or(last);
        if let Some(fields) = plan.as_array_mut() {
            fields.push(json!(at));
        }
    }
}

/// The settings of a cell as `axis=value` pairs (`default` for none).
pub(super) fn settings_text(settings: Option<&Value>) -> String {
    match settings.and_then(Value::as_object) {
        Some(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| format!("{k}={}", value_text(v)))
            .collect::<Vec<_>>()
            .join(" "),
        _ => "default".to_string(),
    }
}

/// A value as text: a string without its quotes.
pub(super) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(seed: u64) -> Value {
        json!({
            "scenario": "demo", "seed": seed, "settings": {"todo": true},
            "replay": "agent-eval replay demo.yaml --seed 1",
            "metrics": {"steps_completed": 1, "steps_total": 2, "stop": "end_turn", "reminders_at": [1]},
            "plans": [{"turn": 1, "items": [{"id": "1", "text": "Read", "status": "in_progress"}]}],
            "messages": [
                {"role": "user", "content": "Do </script><b>it</b>"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}]}
            ]
        })
    }

    /// A plan is shown after the results that answered its turn's calls,
    /// or after the turn's answer when it was plain text (an ACP agent's
    /// plan beside its answer), never after the next part's task.
    #[test]
    fn plans_are_placed_after_the_last_message_of_their_turn() {
        let mut acp = run(1);
        acp["messages"] = json!([
            {"role": "user", "content": "Part 1"},
            {"role": "assistant", "content": [{"type": "text", "text": "Done with part 1."}]},
            {"role": "user", "content": "Part 2"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "All done."}]}
        ]);
        acp["plans"] = json!([
            {"turn": 1, "items": [{"id": "1", "text": "Read", "status": "completed"}]},
            {"turn": 2, "items": [{"id": "2", "text": "Write", "status": "in_progress"}]},
            {"turn": 3, "items": [{"id": "2", "text": "Write", "status": "completed"}]},
            {"turn": 9, "items": []}
        ]);
        let data: Value = serde_json::from_str(&Transcripts::of([&acp]).embedded()).unwrap();
        let places: Vec<u64> = data["runs"][0][9]
            .as_array()
            .unwrap()
            .iter()
            .map(|plan| plan[2].as_u64().unwrap())
            .collect();
        assert_eq!(places, [1, 4, 5, 5]);
        let placed = Transcripts::of([&run(1)]).embedded();
        let data: Value = serde_json::from_str(&placed).unwrap();
        assert_eq!(data["runs"][0][9][0][2], 2, "after the tool results");
    }

    #[test]
    fn shared_text_is_stored_once_and_results_carry_their_tool() {
        let runs = [run(1), run(2)];
        let store = Transcripts::of(&runs);
        assert_eq!(store.len(), 2);
        assert_eq!(store.count_of("demo"), 2);
        let data = store.embedded();
        assert_eq!(data.matches("a.txt").count(), 1, "{data}");
        assert!(!data.contains('<'), "no `<` can close the script element");
        let parsed: Value = serde_json::from_str(&data).unwrap();
        let strings = parsed["strings"].as_array().unwrap();
        let text = |i: &Value| strings[i.as_u64().unwrap() as usize].as_str().unwrap();
        let first = &parsed["runs"][0];
        assert_eq!(text(&first[8][0][1]), "Do </script><b>it</b>");
        let call = &first[8][1][1][0];
        assert_eq!(text(&call[1]), "bash");
        assert_eq!(
            text(&call[2]),
            "{\n  \"command\": \"ls\"\n}",
            "inputs keep their indentation"
        );
        let result = &first[8][2][1][0];
        assert_eq!((text(&result[1]), text(&result[2])), ("a.txt", "bash"));
    }
}
