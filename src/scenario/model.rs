//! The model section (`model:`): exactly one backend, with the backend's
//! own parameter types.

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::model::http::{AnthropicParams, OpenAiParams, RealModelSpec};
use crate::model::scripted::ScriptedResponse;
use crate::model::simulated::SimulateParams;

/// The model: a mock (`script`, `simulate`) or a real one over HTTP
/// (`anthropic`, `openai`).
#[derive(Debug, Clone)]
pub enum ModelSpec {
    /// Shared by every run of the scenario (a run reads it, never copies it).
    Script(std::sync::Arc<[ScriptedResponse]>),
    Simulate(SimulateParams),
    Real(RealModelSpec),
}

impl ModelSpec {
    /// Whether some response of a script carries a recorded request hash
    /// (the script is a cassette, checked for drift).
    pub fn is_cassette(&self) -> bool {
        matches!(self, Self::Script(script) if script.iter().any(|r| r.request_hash.is_some()))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModelSpec {
    script: Option<Vec<ScriptedResponse>>,
    simulate: Option<RawSimulate>,
    anthropic: Option<AnthropicParams>,
    openai: Option<OpenAiParams>,
}

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawModelSpec::deserialize(d)?;
        let mut specs: Vec<ModelSpec> = Vec::new();
        specs.extend(raw.script.map(|script| Self::Script(script.into())));
        specs.extend(raw.simulate.map(|s| Self::Simulate(s.params)));
        specs.extend(
            raw.anthropic
                .map(|p| Self::Real(RealModelSpec::Anthropic(p))),
        );
        specs.extend(raw.openai.map(|p| Self::Real(RealModelSpec::OpenAi(p))));
        match (specs.pop(), specs.is_empty()) {
            (Some(spec), true) => Ok(spec),
            _ => Err(de::Error::custom(
                "model needs exactly one of `script` (a list of responses), `simulate` (parameters), \
                 `anthropic` or `openai` (a real model: {model: NAME, ...})",
            )),
        }
    }
}

/// `simulate:` as written: the parameters, and `profile: FILE` beside them
/// (read by the loader, which knows the scenario's folder: see
/// [`simulate_section`]). Read by hand: serde's `flatten` would let an
/// unknown parameter through.
struct RawSimulate {
    params: SimulateParams,
}

impl<'de> Deserialize<'de> for RawSimulate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        match map.remove("profile") {
            None | Some(serde_json::Value::String(_)) => {}
            Some(_) => return Err(de::Error::custom("simulate.profile must be a file path")),
        }
        let params = serde_json::from_value(serde_json::Value::Object(map))
            .map_err(|e| de::Error::custom(format!("simulate: {e}")))?;
        Ok(Self { params })
    }
}

/// What a scenario's `simulate:` section names besides values: the
/// profile file as written, and the parameters written beside it (which
/// override the profile's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimulateSection {
    pub profile: Option<String>,
    pub written: Vec<String>,
}

/// Reads `model.simulate` of a scenario's text for its profile and the
/// names of the parameters written (the values are the parsed model's).
pub fn simulate_section(text: &str) -> SimulateSection {
    let value: serde_json::Value = serde_saphyr::from_str(text).unwrap_or_default();
    let Some(section) = value.pointer("/model/simulate").and_then(|v| v.as_object()) else {
        return SimulateSection::default();
    };
    SimulateSection {
        profile: section
            .get("profile")
            .and_then(|p| p.as_str())
            .map(str::to_string),
        written: section
            .keys()
            .filter(|k| *k != "profile")
            .cloned()
            .collect(),
    }
}

/// `params` under `profile`: the defaults, then the profile's values, then
/// the parameters the scenario wrote itself (`written`, taken from
/// `params`).
pub fn with_profile(
    params: &SimulateParams,
    written: &[String],
    profile: &crate::model::simulated::Profile,
) -> SimulateParams {
    let mut own = *params;
    let mut out = SimulateParams::default();
    profile.apply(&mut out);
    for name in written {
        if let (Some(value), Some(field)) = (own.field_mut(name).map(|v| *v), out.field_mut(name)) {
            *field = value;
        }
    }
    out
}
