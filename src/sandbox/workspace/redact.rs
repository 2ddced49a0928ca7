//! Workspace paths out of what a person reads.
//!
//! Each run's workspace is a fresh folder `<temp>/agent-eval-XXXXXX` with a
//! random name, and its path reaches the conversation: the s03 file tools
//! answer Python's `[Errno 2] No such file or directory: '<path>'`, and an
//! outside agent tells its model the folder it works in. Logs, the HTML
//! report and replays would then differ from run to run and from machine
//! to machine. Renderers pass their text through [`workspace_paths`],
//! which writes every such folder as [`PLACEHOLDER`]; the model itself saw
//! the real path, and the figures never depended on it.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// What a run's workspace folder is written as.
pub const PLACEHOLDER: &str = "<workspace>";

/// Length of the random part of a workspace's name.
const SUFFIX_LEN: usize = 6;

/// The prefixes a workspace path starts with: the temp folder as set and
/// its canonical form (workspaces are made in the canonical one, but a
/// symlinked temp folder may appear as given), each with `/agent-eval-`.
static PREFIXES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let raw = std::env::temp_dir();
    let canonical = raw.canonicalize().unwrap_or_else(|_| raw.clone());
    prefixes_for(&[canonical, raw])
});

fn prefixes_for(bases: &[PathBuf]) -> Vec<String> {
    let mut prefixes: Vec<String> = Vec::new();
    for base in bases {
        let prefix = format!(
            "{}/agent-eval-",
            base.display().to_string().trim_end_matches('/')
        );
        if !prefixes.contains(&prefix) {
            prefixes.push(prefix);
        }
    }
    // The longest first, so a base inside another is replaced whole.
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    prefixes
}

/// `text` with every workspace folder of this process's temp folder
/// written as [`PLACEHOLDER`]; borrowed when there is none.
pub fn workspace_paths(text: &str) -> Cow<'_, str> {
    replace_under(text, &PREFIXES)
}

/// `text` with the workspace folders under `base` replaced (for tests and
/// callers that know their temp folder).
pub fn workspace_paths_under<'a>(text: &'a str, base: &Path) -> Cow<'a, str> {
    replace_under(text, &prefixes_for(&[base.to_path_buf()]))
}

fn replace_under<'a>(text: &'a str, prefixes: &[String]) -> Cow<'a, str> {
    if !prefixes.iter().any(|p| text.contains(p.as_str())) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Whether the text so far ends inside a path (`/var/tmp/...` is not a
    // path under `/tmp`).
    let mut in_path = false;
    'scan: while !rest.is_empty() {
        for prefix in prefixes.iter().filter(|_| !in_path) {
            if let Some(after) = rest.strip_prefix(prefix.as_str())
                && let Some(name_len) = random_name_len(after)
            {
                out.push_str(PLACEHOLDER);
                rest = &after[name_len..];
                continue 'scan;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
            in_path = c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-');
        }
        rest = chars.as_str();
    }
    Cow::Owned(out)
}

/// The length of a workspace's random name at the start of `after`: six
/// ASCII letters or digits, not followed by another one.
fn random_name_len(after: &str) -> Option<usize> {
    let bytes = after.as_bytes();
    let is_name = |b: &u8| b.is_ascii_alphanumeric();
    let whole = bytes
        .get(..SUFFIX_LEN)
        .is_some_and(|head| head.iter().all(is_name));
    let ends = bytes.get(SUFFIX_LEN).is_none_or(|b| !is_name(b));
    (whole && ends).then_some(SUFFIX_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn under_tmp(text: &str) -> String {
        workspace_paths_under(text, Path::new("/tmp")).into_owned()
    }

    #[test]
    fn a_workspace_folder_becomes_the_placeholder() {
        assert_eq!(
            under_tmp(
                "Error: [Errno 2] No such file or directory: '/tmp/agent-eval-qp5WsP/pipeline.sh'"
            ),
            "Error: [Errno 2] No such file or directory: '<workspace>/pipeline.sh'"
        );
        assert_eq!(under_tmp("cd /tmp/agent-eval-AB12cd"), "cd <workspace>");
        assert_eq!(
            under_tmp("/tmp/agent-eval-aaaaaa and /tmp/agent-eval-bbbbbb/x"),
            "<workspace> and <workspace>/x"
        );
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        for text in [
            "no path here",
            "/tmp/agent-eval-short",
            "/tmp/agent-eval-toolong1",
            "/var/tmp/agent-eval-abcdef",
            "/tmp/agent-eval-dummy-key",
            "é /tmp/agent-eval-",
        ] {
            let out = workspace_paths_under(text, Path::new("/tmp"));
            assert!(matches!(out, Cow::Borrowed(_)) || out == text, "{text}");
            assert_eq!(out, text);
        }
    }

    #[test]
    fn a_nested_temp_folder_is_replaced_whole() {
        let prefixes = prefixes_for(&[PathBuf::from("/tmp"), PathBuf::from("/tmp/x/")]);
        let out = replace_under("at /tmp/x/agent-eval-abcdef/f", &prefixes);
        assert_eq!(out, "at <workspace>/f");
    }

    #[test]
    fn this_process_s_workspaces_are_found() {
        let image = crate::sandbox::workspace::WorkspaceImage::empty();
        let workspace = crate::sandbox::workspace::Workspace::create(&image).unwrap();
        let text = format!("in {}/a.txt", workspace.root().display());
        assert_eq!(workspace_paths(&text), "in <workspace>/a.txt");
    }
}
