//! `calibrate --by model`: one calibration per model family, each written
//! as its own profile (`--out DIR` holds `DIR/<family>.yaml`), and a table
//! of planning behaviour by family.
//!
//! A family is a model name without its date stamp (`claude-sonnet-4-5`
//! for `claude-sonnet-4-5-20250929`) or its local tag (`qwen3` for
//! `qwen3:8b`). A session belongs to the family of the first model it
//! names. A family is calibrated only when it holds at least
//! `--min-sessions` sessions (default [`MIN_SESSIONS`]): below that, half
//! of them held out leaves too few for the fidelity check, and its
//! intervals are too wide to say anything; families below it are listed
//! with their counts and left out.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::calibrate::{self, Calibration, Options};
use crate::transcript::Session;

/// The fewest sessions a family needs to be calibrated on its own.
pub const MIN_SESSIONS: usize = 50;

/// The parameters the by-model table shows, in its column order.
pub const TABLE_PARAMS: [&str; 4] = [
    "plan_first",
    "todo_update_rate",
    "reminder_compliance",
    "invalid_todo_rate",
];

/// A model name's family: lowercase, without a trailing `-YYYYMMDD` date
/// stamp or a `:tag`.
pub fn family(model: &str) -> String {
    let name = model
        .split(':')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    match name.rsplit_once('-') {
        Some((stem, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => {
            stem.to_string()
        }
        _ => name,
    }
}

/// Sessions grouped by family (a session without a model name goes to
/// `unknown`), in name order.
pub fn by_family(sessions: Vec<Session>) -> BTreeMap<String, Vec<Session>> {
    let mut families: BTreeMap<String, Vec<Session>> = BTreeMap::new();
    for session in sessions {
        let name = session
            .models
            .first()
            .map(|m| family(m))
            .unwrap_or_else(|| "unknown".to_string());
        families.entry(name).or_default().push(session);
    }
    families
}

/// One family's outcome.
pub struct FamilyResult {
    pub family: String,
    pub sessions: usize,
    /// The calibration, when the family had enough sessions.
    pub calibration: Option<Calibration>,
    /// Where its profile was written.
    pub profile: Option<PathBuf>,
}

/// Calibrates every family with at least `min_sessions` sessions.
pub fn calibrate_families(
    families: BTreeMap<String, Vec<Session>>,
    options: &Options,
    min_sessions: usize,
) -> Result<Vec<FamilyResult>, calibrate::CalibrateError> {
    let mut results = Vec::with_capacity(families.len());
    for (family, sessions) in families {
        let calibration = if sessions.len() >= min_sessions && family != "unknown" {
            Some(calibrate::calibrate(&sessions, options)?)
        } else {
            None
        };
        results.push(FamilyResult {
            family,
            sessions: sessions.len(),
            calibration,
            profile: None,
        });
    }
    Ok(results)
}

/// A family's profile file in `dir`: its name with anything but letters,
/// digits, `.`, `-` and `_` replaced by `_`.
pub fn profile_path(dir: &Path, family: &str) -> PathBuf {
    let name: String = family
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    dir.join(format!("{name}.yaml"))
}

/// The terminal table: a row a family, the measured values with their
/// intervals, then the families left out for too few sessions.
pub fn table(results: &[FamilyResult], min_sessions: usize) -> String {
    let mut text = String::new();
    let _ = write!(text, "{:<28} {:>8}", "model family", "sessions");
    for name in TABLE_PARAMS {
        let _ = write!(text, "  {name:>26}");
    }
    text.push('\n');
    for r in results {
        let Some(calibration) = &r.calibration else {
            continue;
        };
        let _ = write!(text, "{:<28} {:>8}", r.family, r.sessions);
        for name in TABLE_PARAMS {
            let _ = write!(text, "  {:>26}", cell(calibration, name));
        }
        text.push('\n');
    }
    let left: Vec<String> = results
        .iter()
        .filter(|r| r.calibration.is_none())
        .map(|r| format!("{} ({})", r.family, r.sessions))
        .collect();
    if !left.is_empty() {
        let _ = writeln!(
            text,
            "left out, fewer than {min_sessions} sessions: {}",
            left.join(", ")
        );
    }
    text
}

/// `0.039 [0.027, 0.051]`, or `– (n = 0)` where nothing was counted.
fn cell(calibration: &Calibration, name: &str) -> String {
    let Some(row) = calibration.params.iter().find(|r| r.name == name) else {
        return "–".into();
    };
    match (row.param.n, row.param.interval) {
        (0, _) => "– (n = 0)".into(),
        (_, Some([lo, hi])) => format!("{:.3} [{lo:.3}, {hi:.3}]", row.param.value),
        (_, None) => format!("{:.3}", row.param.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_drops_date_stamps_and_tags_only() {
        assert_eq!(family("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
        assert_eq!(family("claude-opus-4-6"), "claude-opus-4-6");
        assert_eq!(family("gpt-5.1-codex-max"), "gpt-5.1-codex-max");
        assert_eq!(family("qwen3:8b"), "qwen3");
        assert_eq!(family("GLM-4.7"), "glm-4.7");
        // Not a date: kept.
        assert_eq!(family("model-1234567"), "model-1234567");
    }

    #[test]
    fn profile_names_stay_in_their_folder() {
        let dir = Path::new("out");
        assert_eq!(profile_path(dir, "../x/y"), Path::new("out/.._x_y.yaml"));
        assert_eq!(profile_path(dir, "glm-4.7"), Path::new("out/glm-4.7.yaml"));
    }
}
