//! Setting real models up for an evaluation: the `model: {anthropic: ...}`
//! / `model: {openai: ...}` spec, and [`RealBackends`], which resolves each
//! provider's endpoint once (so a missing key is one clear error before any
//! run) and makes one model per run.

use super::{
    AnthropicModel, AnthropicParams, Endpoint, HttpContext, HttpModelError, OpenAiModel,
    OpenAiParams, Provider, SpendBudget, UsageMeter,
};
use crate::llm::Model;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A real model as a scenario names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RealModelSpec {
    #[serde(rename = "anthropic")]
    Anthropic(AnthropicParams),
    #[serde(rename = "openai")]
    OpenAi(OpenAiParams),
}

impl RealModelSpec {
    /// `--model PROVIDER:NAME`: that model with default parameters.
    pub fn from_flag(provider: Provider, name: &str) -> Self {
        match provider {
            Provider::Anthropic => Self::Anthropic(AnthropicParams::new(name)),
            Provider::OpenAi => Self::OpenAi(OpenAiParams::new(name)),
        }
    }

    pub fn provider(&self) -> Provider {
        match self {
            Self::Anthropic(_) => Provider::Anthropic,
            Self::OpenAi(_) => Provider::OpenAi,
        }
    }

    /// The API's model name.
    pub fn model_name(&self) -> &str {
        match self {
            Self::Anthropic(p) => &p.model,
            Self::OpenAi(p) => &p.model,
        }
    }

    /// `provider:name`, as `--model` spells it.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider(), self.model_name())
    }
}

/// The real models of one evaluation: a shared [`HttpContext`] and one
/// endpoint per provider in use.
#[derive(Debug, Clone)]
pub struct RealBackends {
    context: HttpContext,
    endpoints: BTreeMap<Provider, Endpoint>,
}

/// One run's model and the handle on its usage.
pub struct RunModel {
    pub model: Box<dyn Model + Send>,
    pub usage: UsageMeter,
}

impl RealBackends {
    pub fn new(context: HttpContext) -> Self {
        Self {
            context,
            endpoints: BTreeMap::new(),
        }
    }

    /// Uses `endpoint` for its provider (tests; a caller that reads its
    /// configuration elsewhere).
    pub fn with_endpoint(mut self, endpoint: Endpoint) -> Self {
        self.endpoints.insert(endpoint.provider, endpoint);
        self
    }

    /// Reads `provider`'s endpoint from the environment unless already set:
    /// the place a missing key is reported, before any run starts.
    pub fn require(&mut self, provider: Provider) -> Result<(), HttpModelError> {
        if let std::collections::btree_map::Entry::Vacant(slot) = self.endpoints.entry(provider) {
            slot.insert(Endpoint::from_env(provider)?);
        }
        Ok(())
    }

    /// Checks that `spec` can be built (endpoint from the environment,
    /// price when a budget is set) without making a request.
    pub fn prepare(&mut self, spec: &RealModelSpec) -> Result<(), HttpModelError> {
        self.require(spec.provider())?;
        self.model(spec, 0).map(|_| ())
    }

    pub fn context(&self) -> &HttpContext {
        &self.context
    }

    /// The evaluation's spend limit, if any: ask it before starting a run.
    pub fn budget(&self) -> Option<&Arc<SpendBudget>> {
        self.context.budget.as_ref()
    }

    /// A model for one run (`seed` drives only the retry jitter).
    pub fn model(&self, spec: &RealModelSpec, seed: u64) -> Result<RunModel, HttpModelError> {
        let provider = spec.provider();
        let endpoint = match self.endpoints.get(&provider) {
            Some(endpoint) => endpoint.clone(),
            None => Endpoint::from_env(provider)?,
        };
        let context = self.context.clone();
        Ok(match spec {
            RealModelSpec::Anthropic(params) => {
                let model = AnthropicModel::new(params.clone(), endpoint, context, seed)?;
                RunModel {
                    usage: model.usage_meter(),
                    model: Box::new(model),
                }
            }
            RealModelSpec::OpenAi(params) => {
                let model = OpenAiModel::new(params.clone(), endpoint, context, seed)?;
                RunModel {
                    usage: model.usage_meter(),
                    model: Box::new(model),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::http::{ApiKey, Price};
    use serde_json::json;

    #[test]
    fn spec_reads_the_scenario_shape() {
        let spec: RealModelSpec = serde_json::from_value(json!({
            "anthropic": {"model": "claude-x", "temperature": 0.0}
        }))
        .unwrap();
        assert_eq!(spec.label(), "anthropic:claude-x");
        let RealModelSpec::Anthropic(params) = &spec else {
            panic!("not anthropic");
        };
        assert_eq!(params.max_tokens, 4096);
        let spec: RealModelSpec = serde_json::from_value(json!({
            "openai": {"model": "m", "price": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
        }))
        .unwrap();
        assert_eq!(spec.provider(), Provider::OpenAi);
        for bad in [
            json!({"openai": {"model": "m", "max_tokenz": 1}}),
            json!({"gemini": {"model": "m"}}),
            json!({"anthropic": {}}),
        ] {
            assert!(serde_json::from_value::<RealModelSpec>(bad).is_err());
        }
    }

    #[test]
    fn makes_models_from_set_endpoints_and_checks_prices() {
        let endpoint =
            Endpoint::new(Provider::OpenAi, "http://127.0.0.1:9/v1", ApiKey::new("k")).unwrap();
        let context = HttpContext::new()
            .unwrap()
            .with_budget(SpendBudget::new(1.0).unwrap());
        let mut backends = RealBackends::new(context).with_endpoint(endpoint);
        let unpriced = RealModelSpec::from_flag(Provider::OpenAi, "m");
        assert!(matches!(
            backends.prepare(&unpriced),
            Err(HttpModelError::NoPrice { .. })
        ));
        let priced = RealModelSpec::OpenAi(OpenAiParams {
            price: Some(Price {
                input_per_mtok: 1.0,
                output_per_mtok: 1.0,
            }),
            ..OpenAiParams::new("m")
        });
        assert!(backends.prepare(&priced).is_ok());
        assert!(backends.budget().is_some());
    }
}
