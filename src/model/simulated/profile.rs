//! A calibration profile: the simulated model's parameters as measured or
//! fitted on an agent's own transcripts (`agent-eval calibrate` writes it;
//! `model: {simulate: {profile: FILE}}`, `run --profile` and
//! `sweep --profile` read it).
//!
//! Numbers only: a profile carries no text, path or code of the transcripts
//! it was fitted on, so it can be shared. Its hash (of the file's bytes)
//! is what reports name, so a figure can be traced to the sessions behind
//! it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::SimulateParams;

/// Where a parameter's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Counted directly on the sessions (with its interval).
    Measured,
    /// Fitted by simulated moments.
    Fitted,
    /// Counted on events some of which a rule inferred rather than the
    /// transcripts recorded (reminders of Claude Code versions that do not
    /// write them down); the fit's `reminder_inference` says how well that
    /// rule matched the versions that do.
    Inferred,
    /// Not identified by the data: the simulated model's default, kept.
    Assumed,
}

/// One parameter of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileParam {
    pub value: f64,
    /// 95% interval (sessions resampled), when measured or fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
    /// How many events the value rests on (turns, reminders, updates...).
    #[serde(default)]
    pub n: u64,
    pub source: Source,
}

/// What a profile was fitted on: counts, versions and model names, and a
/// hash of the inputs — never their text or paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FittedOn {
    pub files: u64,
    pub sessions: u64,
    pub parts: u64,
    pub turns: u64,
    #[serde(default)]
    pub agent_versions: Vec<String>,
    #[serde(default)]
    pub models: Vec<String>,
    /// SHA-256 (hex) over the input files' contents, in sorted order.
    pub inputs_hash: String,
    /// The groups (projects: the units of independence) of the sessions,
    /// and the sessions left out as read twice.
    #[serde(default)]
    pub groups: u64,
    #[serde(default)]
    pub duplicates_dropped: u64,
    /// Reminded turns behind `reminder_compliance`, recorded and inferred.
    #[serde(default)]
    pub reminders: ReminderCounts,
    /// How the rule inferring reminders matched the sessions that record
    /// them (where it was used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder_inference: Option<InferenceCheck>,
    /// The fit's goodness-of-fit test (where anything was fitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goodness_of_fit: Option<FitTest>,
}

/// Reminded turns counted, by how the transcript knows of the reminder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReminderCounts {
    pub recorded: u64,
    pub inferred: u64,
}

/// A reminder-inference rule checked on sessions that record reminders:
/// the share of recorded reminders whose exact turn it predicts, and its
/// predicted count over the recorded one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InferenceCheck {
    pub sessions: u64,
    pub recorded: u64,
    pub predicted: u64,
    pub hit_rate: Option<f64>,
    pub count_ratio: Option<f64>,
}

/// A goodness-of-fit test: the statistic, its χ² degrees of freedom and
/// p-value (none without degrees of freedom), and whether the model fits
/// (p ≥ 0.05).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitTest {
    pub statistic: f64,
    pub df: u32,
    pub p_value: Option<f64>,
    pub fits: bool,
}

/// A calibration profile as written to YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The profile format's version (1).
    pub version: u32,
    /// Every parameter by its `SimulateParams` name.
    pub params: BTreeMap<String, ProfileParam>,
    pub fitted_on: FittedOn,
}

/// The largest profile file read (a profile is a few dozen lines).
pub const MAX_PROFILE_BYTES: u64 = 1 << 20;

/// The profile format version this build reads and writes.
pub const PROFILE_VERSION: u32 = 1;

/// A profile that could not be read: the file, the line and column where
/// there is one, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), position.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct ProfileError {
    pub file: std::path::PathBuf,
    pub position: Option<(u64, u64)>,
    pub message: String,
}

/// A profile read from a file, with what reports name it by.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedProfile {
    pub profile: Profile,
    /// The file's name (no folder: a report never carries a local path).
    pub name: String,
    /// SHA-256 (hex) of the file's bytes.
    pub hash: String,
}

/// What a report names a profile by: its file name and hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRef {
    pub file: String,
    pub sha256: String,
}

impl ProfileRef {
    /// Whether runs under `a` and `b` ran under the same parameters: the
    /// same profile content (by its SHA-256, whatever the file is called),
    /// or both under the defaults (`None`).
    pub fn same_parameters(a: Option<&ProfileRef>, b: Option<&ProfileRef>) -> bool {
        a.map(|p| &p.sha256) == b.map(|p| &p.sha256)
    }
}

impl LoadedProfile {
    /// What reports name it by.
    pub fn reference(&self) -> ProfileRef {
        ProfileRef {
            file: self.name.clone(),
            sha256: self.hash.clone(),
        }
    }

    /// The first 12 hex digits of the hash, as the terminal shows it.
    pub fn short_hash(&self) -> &str {
        self.hash.get(..12).unwrap_or(&self.hash)
    }
}

impl Profile {
    /// The profile as YAML text (what `calibrate --out` writes).
    pub fn to_yaml(&self) -> String {
        let header = "# agent-eval calibration profile: the simulated model's parameters \
                      measured or fitted on transcripts (numbers only).\n";
        // Plain data always serializes.
        let body = serde_saphyr::to_string(self).unwrap_or_default();
        format!("{header}{body}")
    }

    /// Parses and validates profile text read from `file`.
    pub fn parse(file: &std::path::Path, text: &str) -> Result<Profile, ProfileError> {
        let error = |position, message: String| ProfileError {
            file: file.to_path_buf(),
            position,
            message,
        };
        let profile: Profile = serde_saphyr::from_str(text).map_err(|e| {
            let position = e
                .location()
                .filter(|l| l.line() > 0)
                .map(|l| (l.line(), l.column()));
            // Fixed words and the position, never the parser's message: it
            // quotes the file (`unknown field `…``), and a profile path
            // may name a file that is no profile at all.
            error(
                position,
                "not a calibration profile (see docs/calibration.md for its fields)".into(),
            )
        })?;
        profile
            .validate()
            .map_err(|(key, message)| error(line_of_key(text, key.as_deref()), message))?;
        Ok(profile)
    }

    /// Reads, validates and hashes a profile file.
    pub fn read(file: &std::path::Path) -> Result<LoadedProfile, ProfileError> {
        use std::io::Read;
        let error = |message: String| ProfileError {
            file: file.to_path_buf(),
            position: None,
            message,
        };
        let handle =
            crate::input::open_regular(file).map_err(|e| error(format!("cannot read: {e}")))?;
        let mut bytes = Vec::new();
        handle
            .take(MAX_PROFILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| error(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_PROFILE_BYTES {
            return Err(error(format!("larger than {MAX_PROFILE_BYTES} bytes")));
        }
        let text = String::from_utf8(bytes).map_err(|_| error("not UTF-8 text".into()))?;
        let profile = Profile::parse(file, &text)?;
        Ok(LoadedProfile {
            profile,
            name: file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            hash: hash_hex(text.as_bytes()),
        })
    }

    /// Checks the version, the names, the numbers and that the values make
    /// valid parameters; the error names the parameter (its key, to find
    /// its line).
    fn validate(&self) -> Result<(), (Option<String>, String)> {
        if self.version != PROFILE_VERSION {
            return Err((
                Some("version".into()),
                format!(
                    "profile version {} is not supported (this build reads {PROFILE_VERSION})",
                    self.version
                ),
            ));
        }
        for (name, param) in &self.params {
            let at = Some(name.clone());
            if !SimulateParams::NAMES.contains(&name.as_str()) {
                return Err((
                    at,
                    format!(
                        "an unknown parameter (known: {})",
                        SimulateParams::NAMES.join(", ")
                    ),
                ));
            }
            let numbers = std::iter::once(param.value).chain(param.interval.into_iter().flatten());
            if numbers.clone().any(|v| !v.is_finite()) {
                return Err((at, format!("{name}: every number must be finite")));
            }
            if let Some([low, high]) = param.interval
                && low > high
            {
                return Err((at, format!("{name}: interval [{low}, {high}] is reversed")));
            }
        }
        let mut params = SimulateParams::default();
        self.apply(&mut params);
        params.validate().map_err(|e| {
            let name = e.param().map(str::to_string);
            (name, format!("profile: {e}"))
        })
    }

    /// Sets every parameter the profile gives on `params`.
    pub fn apply(&self, params: &mut SimulateParams) {
        for (name, param) in &self.params {
            if let Some(field) = params.field_mut(name) {
                *field = param.value;
            }
        }
    }
}

/// SHA-256 of `bytes` in hex.
pub fn hash_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The (line, column) of the first line whose key is `key` (`key:` after
/// any indentation), for errors found after parsing.
fn line_of_key(text: &str, key: Option<&str>) -> Option<(u64, u64)> {
    let key = key?;
    text.lines().enumerate().find_map(|(i, line)| {
        let trimmed = line.trim_start();
        trimmed
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
            .then(|| (i as u64 + 1, (line.len() - trimmed.len()) as u64 + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn sample() -> Profile {
        let mut params = BTreeMap::new();
        params.insert(
            "plan_first".to_string(),
            ProfileParam {
                value: 0.3,
                interval: Some([0.2, 0.4]),
                n: 40,
                source: Source::Measured,
            },
        );
        Profile {
            version: 1,
            params,
            fitted_on: FittedOn::default(),
        }
    }

    #[test]
    fn a_profile_reads_back_what_it_wrote() {
        let profile = sample();
        let text = profile.to_yaml();
        assert_eq!(Profile::parse(Path::new("p.yaml"), &text).unwrap(), profile);
    }

    #[test]
    fn a_bad_value_is_named_at_its_line() {
        let text = sample().to_yaml().replace("value: 0.3", "value: 1.7");
        let error = Profile::parse(Path::new("p.yaml"), &text).unwrap_err();
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("plan_first:"))
            .unwrap() as u64
            + 1;
        assert_eq!(error.position.map(|p| p.0), Some(line), "{error}");
        assert!(error.message.contains("plan_first"), "{error}");
    }

    /// A profile written before the structural parameters existed still
    /// loads and leaves them at their defaults; one that gives them sets
    /// them (an unset `first_plan_hazard` becomes a set one).
    #[test]
    fn structural_parameters_are_optional_and_applied() {
        let old = Profile::parse(Path::new("p.yaml"), &sample().to_yaml()).unwrap();
        let mut params = SimulateParams::default();
        old.apply(&mut params);
        assert_eq!(params.first_plan_hazard, None);
        assert_eq!(params.closing_update, 0.0);
        let text = sample().to_yaml().replace(
            "params:\n",
            "params:\n  first_plan_hazard: {value: 0.1, source: measured}\n  closing_update: {value: 0.6, source: measured}\n",
        );
        let new = Profile::parse(Path::new("p.yaml"), &text).unwrap();
        new.apply(&mut params);
        assert_eq!(params.first_plan_hazard, Some(0.1));
        assert_eq!(params.closing_update, 0.6);
        let bad = text.replace("value: 0.6", "value: 1.6");
        let error = Profile::parse(Path::new("p.yaml"), &bad).unwrap_err();
        assert!(error.message.contains("closing_update"), "{error}");
    }

    #[test]
    fn unknown_names_and_fields_are_refused() {
        let text = sample().to_yaml().replace("plan_first:", "plan_fist:");
        assert!(
            Profile::parse(Path::new("p.yaml"), &text)
                .unwrap_err()
                .message
                .contains("unknown parameter")
        );
        let text = sample()
            .to_yaml()
            .replace("source: measured", "source: measured\n    text: secret");
        let error = Profile::parse(Path::new("p.yaml"), &text).unwrap_err();
        assert!(error.position.is_some(), "{error}");
        assert!(!error.to_string().contains("text"), "{error}");
        let text = sample().to_yaml().replace("plan_first:", "secret_key:");
        let error = Profile::parse(Path::new("p.yaml"), &text).unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
    }
}
