//! The project's rule that a function reads at once, checked on its
//! source: no function under `src/` is longer than [`MAX_LINES`] lines,
//! counted from its `fn` line to the closing brace at the same indent (as
//! rustfmt lays code out). A longer function fails `cargo test` with its
//! file, line and length, so the rule lives with the code.

use crate::support;
use std::path::Path;

/// The longest a function may be, in lines.
const MAX_LINES: usize = 120;

/// A function found in a file: its name, its first line (1-based) and its
/// length in lines.
#[derive(Debug)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// The name of the function a line starts, if it starts one: `fn NAME`
/// after the indent and any of `pub`, `pub(...)`, `const`, `async`,
/// `unsafe`, `extern "C"`.
fn function_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("fn ") {
            let name_end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            return (name_end > 0).then(|| &after[..name_end]);
        }
        let word_end = rest.find(' ')?;
        let word = &rest[..word_end];
        let modifier = word == "pub"
            || word.starts_with("pub(")
            || matches!(word, "const" | "async" | "unsafe" | "extern" | "\"C\"");
        if !modifier {
            return None;
        }
        rest = rest[word_end..].trim_start();
    }
}

/// Every function with a body in `text`, measured from its `fn` line to
/// the first later line that is its indent followed by `}`. A declaration
/// without a body (ending in `;` before any `{`) is passed over.
fn functions(text: &str) -> Vec<Function> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let Some(open) = (i..lines.len()).find(|&k| {
            let l = lines[k].trim_end();
            l.contains('{') || l.ends_with(';')
        }) else {
            continue;
        };
        let opening = lines[open].trim_end();
        if !opening.contains('{') {
            continue;
        }
        let balanced = opening.matches('{').count() == opening.matches('}').count();
        let end = if balanced && opening.ends_with('}') {
            Some(open)
        } else {
            let closing = format!("{indent}}}");
            (open + 1..lines.len()).find(|&k| lines[k].trim_end() == closing)
        };
        if let Some(end) = end {
            found.push(Function {
                name: name.to_string(),
                line: i + 1,
                lines: end - i + 1,
            });
        }
    }
    found
}

#[test]
fn no_function_under_src_is_longer_than_the_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = support::rust_files(&root.join("src"));
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut too_long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for function in functions(&text) {
            if function.lines > MAX_LINES {
                too_long.push(format!(
                    "{}:{}: fn {} is {} lines",
                    file.strip_prefix(root).unwrap_or(file).display(),
                    function.line,
                    function.name,
                    function.lines
                ));
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "functions over {MAX_LINES} lines (split them into named steps):\n{}",
        too_long.join("\n")
    );
}

#[test]
fn the_measure_counts_from_fn_to_the_closing_brace_at_its_indent() {
    let text = "\
pub fn short() -> u8 { 1 }
    pub(crate) async fn nested(
        a: u8,
    ) -> u8 {
        if a > 0 {
            a
        } else {
            0
        }
    }
trait T {
    fn declared(&self);
}
let s = \"fn not_a_function\";
";
    let found = functions(text);
    let summary: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(summary, vec![("short", 1, 1), ("nested", 2, 9)]);
}
