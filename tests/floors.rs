//! The crate's floors, checked on its source: each top-level module may
//! import (`crate::NAME`) only modules on floors below its own, so the rules
//! of docs/architecture.md live with the code and a forbidden import fails
//! `cargo test` with the file and line; a few imports the order allows
//! are forbidden as well ([`NEVER`]). Test modules (`#[cfg(test)] mod`)
//! are left out; `main.rs` and `lib.rs` are the top.

use crate::support;
use std::path::Path;

/// Each top-level module's floor (docs/architecture.md). A new top-level
/// module must be given one here.
const FLOORS: &[(&str, u8)] = &[
    ("llm", 1),
    ("metric", 1),
    ("cancel", 1),
    ("input", 1),
    ("lenient", 1),
    ("plan", 2),
    ("sandbox", 2),
    ("agent", 3),
    ("model", 3),
    ("wire", 4),
    ("acp", 4),
    ("transcript", 4),
    ("scenario", 5),
    ("scaffold", 5),
    ("results", 6),
    ("eval", 7),
    ("calibrate", 8),
    ("report", 9),
    ("app", 10),
];

/// Imports that the floor order allows but docs/architecture.md forbids:
/// (importer, imported). The renderers read results, never the engine; the
/// scenario format knows nothing of the wire.
const NEVER: &[(&str, &str)] = &[("report", "eval"), ("scenario", "wire")];

fn floor_of(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

/// `text` with comments, string and char literals blanked (line breaks
/// kept, so line numbers stay right).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                    continue;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if chars[i] == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for c in chars.iter().skip(i).take(step) {
                    out.push(blank(*c));
                }
                i += step;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `code` with the bodies of `#[cfg(test)] mod NAME { ... }` blanked.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|a| a + from) {
        let after = out[at + 12..].trim_start();
        let is_module = after.starts_with("mod ") || after.starts_with("pub(crate) mod ");
        let Some(open) = out[at..].find('{').map(|o| o + at) else {
            break;
        };
        if !is_module {
            from = at + 12;
            continue;
        }
        let mut depth = 0;
        let mut end = out.len();
        for (offset, c) in out[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = open + offset + 1;
                break;
            }
        }
        // As many bytes as were blanked (a character of several bytes
        // becomes as many spaces), so the offsets after it stay right.
        let blanked: String = out[at..end]
            .chars()
            .map(|c| {
                if c == '\n' {
                    "\n".to_string()
                } else {
                    " ".repeat(c.len_utf8())
                }
            })
            .collect();
        out.replace_range(at..end, &blanked);
        from = end;
    }
    out
}

/// Every `crate::NAME` in `code` with its line.
fn crate_references(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (index, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            let name: String = rest[at + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                found.push((index + 1, name));
            }
            rest = &rest[at + 7..];
        }
    }
    found
}

#[test]
fn every_module_imports_only_floors_below_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = support::rust_files(&src);
    let mut broken = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src/");
        let top = relative.components().next().expect("a first component");
        let module = top
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "main" || module == "lib" {
            continue;
        }
        let Some(floor) = floor_of(&module) else {
            broken.push(format!(
                "src/{}: module `{module}` has no floor in tests/floors.rs",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (line, name) in crate_references(&without_test_modules(&code_only(&text))) {
            if name == module {
                continue;
            }
            match floor_of(&name) {
                Some(_) if NEVER.contains(&(module.as_str(), name.as_str())) => {
                    broken.push(format!(
                        "src/{}:{line}: `{module}` never imports `{name}`",
                        relative.display()
                    ))
                }
                Some(other) if other < floor => {}
                Some(other) => broken.push(format!(
                    "src/{}:{line}: `{module}` (floor {floor}) imports `{name}` (floor {other})",
                    relative.display()
                )),
                None => {}
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports across the floors:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_checker_sees_an_upward_import_and_ignores_comments_strings_and_tests() {
    let code = "use crate::eval::x; // crate::app\nlet s = \"crate::report\";\n#[cfg(test)]\nmod tests {\n    use crate::app::y;\n}\n";
    let references = crate_references(&without_test_modules(&code_only(code)));
    assert_eq!(references, vec![(1, "eval".to_string())]);
}
