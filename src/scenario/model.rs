//! The model section (`model:`): exactly one backend, with the backend's
//! own parameter types.

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::model::scripted::ScriptedResponse;
use crate::model::simulated::SimulateParams;

/// The mock LLM: exactly one of `script` / `simulate`.
#[derive(Debug, Clone)]
pub enum ModelSpec {
    Script(Vec<ScriptedResponse>),
    Simulate(SimulateParams),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModelSpec {
    script: Option<Vec<ScriptedResponse>>,
    simulate: Option<SimulateParams>,
}

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match RawModelSpec::deserialize(d)? {
            RawModelSpec {
                script: Some(script),
                simulate: None,
            } => Ok(Self::Script(script)),
            RawModelSpec {
                script: None,
                simulate: Some(params),
            } => Ok(Self::Simulate(params)),
            _ => Err(de::Error::custom(
                "model needs exactly one of `script` (a list of responses) or `simulate` (parameters)",
            )),
        }
    }
}
