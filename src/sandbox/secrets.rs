//! Which environment variables hold credentials: the one rule that keeps
//! them from every process agent-eval starts.
//!
//! The binary clears every variable this rule names from its own
//! environment (and from the `/proc/<pid>/environ` copy of it) before any
//! thread starts (`crate::model::http::secrets::take_from_environment`),
//! so `bash` calls, `command:` checks and outside agents, which start from
//! that environment, never see one; an outside agent's environment is
//! filtered by the same rule again when it is built
//! (`crate::eval::execute`), for library users who never cleared theirs.
//! docs/security.md lists the rule in words; [`is_credential`] is it.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

/// Whole names that are credentials whatever the rule below says.
const NAMES: [&str; 9] = [
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CODEX_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GH_TOKEN",
    "GITHUB_TOKEN",
];

/// Name prefixes whose every variable is a credential or a cloud account's
/// setting (`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_PROFILE`...).
const PREFIXES: [&str; 3] = ["AWS_", "AZURE_", "GOOGLE_APPLICATION_CREDENTIALS"];

/// Name endings of a credential (`NPM_TOKEN`, `HF_TOKEN`,
/// `COPILOT_GITHUB_TOKEN`, `DEEPSEEK_API_KEY`...).
const SUFFIXES: [&str; 8] = [
    "_API_KEY",
    "_APIKEY",
    "_TOKEN",
    "_ACCESS_KEY",
    "_PRIVATE_KEY",
    "_PASSWORD",
    "_PASSWD",
    "_CREDENTIALS",
];

/// Words that make any name a credential wherever they appear.
const WORDS: [&str; 2] = ["SECRET", "TOKEN_"];

/// Whether the variable `name` is credential-like (compared without case):
/// one of the names above, a name starting with `AWS_` or `AZURE_`, ending
/// in `_API_KEY`, `_APIKEY`, `_TOKEN`, `_ACCESS_KEY`, `_PRIVATE_KEY`,
/// `_PASSWORD`, `_PASSWD` or `_CREDENTIALS`, holding `SECRET` or `TOKEN_`
/// anywhere, or exactly `API_KEY`, `TOKEN` or `PASSWORD`.
pub fn is_credential(name: &OsStr) -> bool {
    let upper = name.as_bytes().to_ascii_uppercase();
    let upper = String::from_utf8_lossy(&upper);
    let name = upper.as_ref();
    NAMES.contains(&name)
        || matches!(name, "API_KEY" | "APIKEY" | "TOKEN" | "PASSWORD")
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || SUFFIXES.iter().any(|s| name.ends_with(s))
        || WORDS.iter().any(|w| name.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_credential_the_issue_names_is_one() {
        for name in [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CODEX_API_KEY",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "OPENAI_API_KEY",
            "COPILOT_GITHUB_TOKEN",
            "GH_TOKEN",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_PROFILE",
            "MY_CLIENT_SECRET",
            "secret_sauce",
            "HF_TOKEN",
            "npm_token",
            "DB_PASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AZURE_OPENAI_API_KEY",
            "TOKEN_FOR_CI",
        ] {
            assert!(is_credential(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn ordinary_settings_are_not() {
        for name in [
            "PATH",
            "HOME",
            "ANTHROPIC_BASE_URL",
            "OPENAI_BASE_URL",
            "NO_PROXY",
            "LANG",
            "TOKENIZERS_PARALLELISM",
            "MODEL_ID",
            "AGENT_EVAL_RUN_MARK",
            "KEYBOARD",
            "CI",
        ] {
            assert!(!is_credential(OsStr::new(name)), "{name}");
        }
    }
}
