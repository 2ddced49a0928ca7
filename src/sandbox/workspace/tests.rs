//! The in-memory workspace must answer exactly as the disk one, and both
//! exactly as the harness answered before either existed (resolve the path,
//! then plain `std::fs` calls): the reference implementation below.

use super::path::resolve_in_workspace;
use super::*;
use std::fs;

/// The old behaviour: `fs` on the resolved path.
mod reference {
    use super::*;

    fn os(e: io::Error, p: &Path) -> String {
        error::os_error(&e, p).to_string()
    }

    pub fn read(root: &Path, requested: &str) -> Result<Vec<u8>, String> {
        let path = resolve_in_workspace(root, requested).map_err(|e| e.to_string())?;
        fs::read(&path).map_err(|e| os(e, &path))
    }

    pub fn write(root: &Path, requested: &str, data: &[u8], parents: bool) -> Result<(), String> {
        let path = resolve_in_workspace(root, requested).map_err(|e| e.to_string())?;
        if parents && let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| os(e, parent))?;
        }
        fs::write(&path, data).map_err(|e| os(e, &path))
    }

    pub fn exists(root: &Path, requested: &str) -> bool {
        resolve_in_workspace(root, requested).is_ok_and(|p| p.exists())
    }
}

enum Op {
    Read(&'static str),
    Write(&'static str, &'static str),
    Edit(&'static str, &'static str),
    Exists(&'static str),
}

const OPS: &[Op] = &[
    Op::Read("missing.txt"),
    Op::Read(""),
    Op::Read("."),
    Op::Write("a.txt", "hello"),
    Op::Read("a.txt"),
    Op::Read("./a.txt/"),
    Op::Read("a.txt/x"),
    Op::Write("a.txt/x", "no"),
    Op::Write("a.txt", "again"),
    Op::Write("d/e/f.txt", "deep"),
    Op::Read("d"),
    Op::Read("d/e/../e/f.txt"),
    Op::Write("d", "dir"),
    Op::Write("d/e", "dir"),
    Op::Write("", "root"),
    Op::Write("nope/../g.txt", "lexical"),
    Op::Read("g.txt"),
    Op::Read("../x"),
    Op::Write("/etc/x", "no"),
    Op::Read("a\0b"),
    Op::Write("a\0b", "x"),
    Op::Write("q\0r/s", "x"),
    Op::Write("x/a\0b", "x"),
    Op::Edit("d/e/f.txt", "edited"),
    Op::Edit("missing/f", "x"),
    Op::Exists("d"),
    Op::Exists("d/e/f.txt"),
    Op::Exists("zz"),
    Op::Exists("../"),
    Op::Read(
        "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
    ),
    Op::Write("é/ü.txt", "ünïcode"),
    Op::Read("é/ü.txt"),
];

fn outcome(ws: &Workspace, root: &Path, op: &Op) -> String {
    let text = match op {
        Op::Read(p) => format!("{:?}", ws.read(p).map_err(|e| e.to_string())),
        Op::Write(p, c) => format!(
            "{:?}",
            ws.write(p, c.as_bytes(), true).map_err(|e| e.to_string())
        ),
        Op::Edit(p, c) => format!(
            "{:?}",
            ws.write(p, c.as_bytes(), false).map_err(|e| e.to_string())
        ),
        Op::Exists(p) => format!("{:?}", ws.exists(p)),
    };
    text.replace(&root.display().to_string(), "WS")
}

fn reference_outcome(root: &Path, op: &Op) -> String {
    let text = match op {
        Op::Read(p) => format!("{:?}", reference::read(root, p)),
        Op::Write(p, c) => format!("{:?}", reference::write(root, p, c.as_bytes(), true)),
        Op::Edit(p, c) => {
            // edit_file reads first; only an existing file is written.
            match reference::read(root, p) {
                Ok(_) => format!("{:?}", reference::write(root, p, c.as_bytes(), false)),
                Err(e) => format!("{:?}", Err::<(), String>(e)),
            }
        }
        Op::Exists(p) => format!("{:?}", reference::exists(root, p)),
    };
    text.replace(&root.display().to_string(), "WS")
}

fn listing(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if entry.file_type().unwrap().is_dir() {
                out.push((rel, "<dir>".into()));
                pending.push(path);
            } else {
                out.push((
                    rel,
                    String::from_utf8_lossy(&fs::read(&path).unwrap()).into(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn memory_disk_and_the_old_harness_agree() {
    let image = WorkspaceImage::build(None, [("seed.txt", "s")]).unwrap();
    let memory = Workspace::create(&image).unwrap();
    assert!(memory.in_memory());
    let disk_ws = Workspace::create(&image).unwrap();
    disk_ws.materialize().unwrap();
    assert!(!disk_ws.in_memory());
    let old = Workspace::create(&image).unwrap();
    old.materialize().unwrap();
    for (i, op) in OPS.iter().enumerate() {
        let expected = reference_outcome(old.root(), op);
        assert_eq!(
            outcome(&memory, memory.root(), op),
            expected,
            "op {i} in memory"
        );
        assert_eq!(
            outcome(&disk_ws, disk_ws.root(), op),
            expected,
            "op {i} on disk"
        );
    }
    memory.materialize().unwrap();
    assert_eq!(listing(memory.root()), listing(old.root()));
    assert_eq!(listing(disk_ws.root()), listing(old.root()));
}

#[test]
fn the_folder_exists_empty_until_needed_and_goes_away() {
    let image = WorkspaceImage::build(None, [("a/b.txt", "x")]).unwrap();
    let ws = Workspace::create(&image).unwrap();
    let root = ws.root().to_path_buf();
    assert!(root.is_dir());
    assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
    ws.materialize().unwrap();
    assert_eq!(fs::read_to_string(root.join("a/b.txt")).unwrap(), "x");
    drop(ws);
    assert!(!root.exists());
}

#[test]
fn runs_share_the_image_and_do_not_see_each_other() {
    let image = WorkspaceImage::build(None, [("f", "base")]).unwrap();
    let one = Workspace::create(&image).unwrap();
    let two = Workspace::create(&image).unwrap();
    one.write("f", b"changed", true).unwrap();
    assert_eq!(one.read("f").unwrap(), b"changed");
    assert_eq!(two.read("f").unwrap(), b"base");
}

#[test]
fn fixture_symlinks_go_to_disk_at_once() {
    let fixture = tempfile::tempdir().unwrap();
    fs::create_dir(fixture.path().join("sub")).unwrap();
    fs::write(fixture.path().join("sub/f"), "in").unwrap();
    std::os::unix::fs::symlink("sub", fixture.path().join("link")).unwrap();
    let image = WorkspaceImage::build(Some(fixture.path()), [("link/g", "via link")]).unwrap();
    assert!(!image.in_memory());
    let ws = Workspace::create(&image).unwrap();
    assert!(!ws.in_memory());
    assert_eq!(ws.read("sub/g").unwrap(), b"via link");
    assert_eq!(ws.read("link/f").unwrap(), b"in");
    // A symlink leading out makes a `files:` entry through it an error.
    std::os::unix::fs::symlink("/tmp", fixture.path().join("out")).unwrap();
    let err = WorkspaceImage::build(Some(fixture.path()), [("out/x", "x")]).unwrap_err();
    assert_eq!(err.file_key(), Some("out/x"));
    assert!(err.to_string().contains("Path escapes workspace"), "{err}");
}

#[test]
fn a_deferred_workspace_makes_its_folder_only_for_a_process() {
    let image = WorkspaceImage::build(None, [("a/b.txt", "x")]).unwrap();
    let ws = Workspace::create_deferred(&image).unwrap();
    let root = ws.root().to_path_buf();
    assert!(!root.exists());
    assert!(root.starts_with(std::env::temp_dir().canonicalize().unwrap()));
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name.len(), "agent-eval-".len() + 6, "{name}");
    ws.write("c.txt", b"y", true).unwrap();
    assert_eq!(ws.read("a/b.txt").unwrap(), b"x");
    assert!(!ws.exists("../x"));
    assert_eq!(ws.folder().unwrap(), root);
    assert_eq!(fs::read_to_string(root.join("c.txt")).unwrap(), "y");
    drop(ws);
    assert!(!root.exists());
    // Never made, nothing to remove, nothing left.
    let ws = Workspace::create_deferred(&image).unwrap();
    let root = ws.root().to_path_buf();
    drop(ws);
    assert!(!root.exists());
}

#[test]
fn workspace_names_are_six_letters_or_digits_and_differ() {
    let names: std::collections::BTreeSet<String> =
        (0..200).map(|_| random_suffix().unwrap()).collect();
    // 62^6 names: 200 draws all differ but for a chance below one in a
    // million; a generator stuck on one word would give one name.
    assert!(names.len() >= 199, "{names:?}");
    for name in &names {
        assert_eq!(name.len(), 6, "{name}");
        assert!(name.bytes().all(|b| b.is_ascii_alphanumeric()), "{name}");
    }
}

#[test]
fn a_workspace_is_named_as_join_names_it() {
    for base in ["/tmp", "/", "/a/b", "rel", "/t/", ""] {
        assert_eq!(
            named_in(PathBuf::from(base), "AbC123"),
            Path::new(base).join("agent-eval-AbC123"),
            "{base}"
        );
    }
}

proptest::proptest! {
    /// Split as bytes, a path is plain exactly when split as characters
    /// it is (no empty, `.` or `..` component).
    #[test]
    fn plain_paths_split_as_bytes_as_characters(requested in "[a./é]{0,8}") {
        let by_chars = !requested.is_empty()
            && requested
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..");
        proptest::prop_assert_eq!(is_plain_relative(&requested), by_chars);
    }
}
