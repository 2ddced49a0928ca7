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

/// Where a parameter's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Counted directly on the sessions (with its interval).
    Measured,
    /// Fitted by simulated moments.
    Fitted,
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
