//! The text forms of a real model: `--model PROVIDER:NAME`,
//! `--price MODEL=INPUT,OUTPUT`, and the serde checks of a scenario's
//! model parameters (a name, a temperature).

use super::provider::Provider;
use super::usage::Price;

/// Why `--model` or `--price` is not understood; each names the text as
/// given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    #[error("expected PROVIDER:NAME (anthropic:NAME or openai:NAME), got {0:?}")]
    NoProvider(String),
    #[error("unknown model provider {0:?}: expected anthropic or openai")]
    UnknownProvider(String),
    #[error("{0:?} names no model after the colon")]
    NoModelName(String),
    #[error("expected MODEL=INPUT,OUTPUT (USD per million tokens), got {0:?}")]
    BadPrice(String),
}

/// `--model PROVIDER:NAME` (`anthropic:claude-sonnet-4-5`,
/// `openai:llama3:8b`: the name is everything after the first colon).
pub fn parse_model_flag(text: &str) -> Result<(Provider, String), FlagError> {
    let (provider, name) = text
        .split_once(':')
        .ok_or_else(|| FlagError::NoProvider(text.to_string()))?;
    let provider = Provider::parse(provider.trim())
        .ok_or_else(|| FlagError::UnknownProvider(provider.to_string()))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(FlagError::NoModelName(text.to_string()));
    }
    Ok((provider, name.to_string()))
}

/// `--price MODEL=INPUT,OUTPUT` (US dollars per million input and output
/// tokens; the model name is everything before the last `=`).
pub fn parse_price_flag(text: &str) -> Result<(String, Price), FlagError> {
    let usage = || FlagError::BadPrice(text.to_string());
    let (model, prices) = text.rsplit_once('=').ok_or_else(usage)?;
    let (input, output) = prices.split_once(',').ok_or_else(usage)?;
    let number = |p: &str| p.trim().parse::<f64>().map_err(|_| usage());
    let price = Price {
        input_per_mtok: number(input)?,
        output_per_mtok: number(output)?,
    };
    if model.trim().is_empty() || !price.is_valid() {
        return Err(usage());
    }
    Ok((model.trim().to_string(), price))
}

/// Reads a `temperature:` of a model's parameters: a finite number not
/// below zero (a NaN would be sent as `null`), refused at the file's line.
pub(crate) fn temperature<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<f64>, D::Error> {
    let value: Option<f64> = serde::Deserialize::deserialize(deserializer)?;
    match value {
        Some(t) if !t.is_finite() || t < 0.0 => Err(serde::de::Error::custom(format!(
            "temperature must be a finite number >= 0, got {t}"
        ))),
        other => Ok(other),
    }
}

/// Reads a model's name: not empty.
pub(crate) fn model_name<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<String, D::Error> {
    let name: String = serde::Deserialize::deserialize(deserializer)?;
    if name.trim().is_empty() {
        return Err(serde::de::Error::custom("model: the model's name is empty"));
    }
    Ok(name)
}
