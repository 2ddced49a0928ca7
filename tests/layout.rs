//! The test suite's own rules, checked on its source:
//!
//! - every file of `tests/` is built: a module of `tests/tests.rs` (the one
//!   integration-test crate) or a `[[test]]` of Cargo.toml. Automatic test
//!   discovery is off (`autotests = false`), so a file added beside the
//!   others and declared nowhere would otherwise never run.

use std::path::{Path, PathBuf};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Files of `tests/` neither declared as a module of `tests.rs` nor named
/// as a `[[test]]` path in `manifest`.
fn undeclared(tests_rs: &str, manifest: &str, files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter(|file| {
            let module = file.trim_end_matches(".rs");
            let declared = tests_rs
                .lines()
                .any(|line| line.trim() == format!("mod {module};"));
            let own_binary = manifest.contains(&format!("path = \"tests/{file}\""));
            *file != "tests.rs" && !declared && !own_binary
        })
        .cloned()
        .collect()
}

#[test]
fn every_test_file_is_a_module_of_the_one_crate() {
    let dir = tests_dir();
    let tests_rs = std::fs::read_to_string(dir.join("tests.rs")).expect("tests/tests.rs");
    let manifest = std::fs::read_to_string(dir.join("../Cargo.toml")).expect("Cargo.toml");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".rs"))
        .collect();
    files.sort();
    assert!(files.len() > 50, "found only {} files", files.len());
    let missing = undeclared(&tests_rs, &manifest, &files);
    assert!(
        missing.is_empty(),
        "test files built by nothing (add `mod NAME;` to tests/tests.rs): {missing:?}"
    );
}

#[test]
fn an_undeclared_file_is_found() {
    let files = [
        "a.rs".to_string(),
        "b.rs".to_string(),
        "tests.rs".to_string(),
    ];
    let manifest = "[[test]]\nname = \"b\"\npath = \"tests/b.rs\"\n";
    assert_eq!(
        undeclared("mod a;\n", manifest, &files),
        Vec::<String>::new()
    );
    assert_eq!(undeclared("mod ab;\n", manifest, &files), vec!["a.rs"]);
}
