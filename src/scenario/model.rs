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
    simulate: Option<SimulateParams>,
    anthropic: Option<AnthropicParams>,
    openai: Option<OpenAiParams>,
}

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawModelSpec::deserialize(d)?;
        let mut specs: Vec<ModelSpec> = Vec::new();
        specs.extend(raw.script.map(|script| Self::Script(script.into())));
        specs.extend(raw.simulate.map(Self::Simulate));
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
