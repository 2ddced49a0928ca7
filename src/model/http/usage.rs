//! Token usage and what it costs.
//!
//! Every response of a real API reports the tokens it read and wrote; a run
//! sums them in a [`UsageMeter`] the caller keeps a handle to. A
//! [`PriceTable`] (US dollars per million tokens, per model name) turns the
//! sums into a cost; a model without a price has no cost (never a guessed
//! one: prices change and a wrong number is worse than none).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Tokens one response (or a sum of responses) used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// The price of one model, in US dollars per million tokens. Read from a
/// file (a scenario, a cassette) only when both are finite and not
/// negative, so a NaN price is an error of the file, at its line, for
/// `check` and `run` alike.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "PriceFields")]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

/// [`Price`] as written, before it is checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFields {
    input_per_mtok: f64,
    output_per_mtok: f64,
}

/// A price that is not a finite number of US dollars >= 0.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "price: input_per_mtok and output_per_mtok must be finite US dollars >= 0, got {input} and {output}"
)]
pub struct BadPrice {
    pub input: f64,
    pub output: f64,
}

impl TryFrom<PriceFields> for Price {
    type Error = BadPrice;

    fn try_from(fields: PriceFields) -> Result<Self, BadPrice> {
        let price = Price {
            input_per_mtok: fields.input_per_mtok,
            output_per_mtok: fields.output_per_mtok,
        };
        if price.is_valid() {
            Ok(price)
        } else {
            Err(BadPrice {
                input: fields.input_per_mtok,
                output: fields.output_per_mtok,
            })
        }
    }
}

impl Price {
    /// What `usage` costs at this price, in US dollars.
    pub fn cost(&self, usage: Usage) -> f64 {
        // u64 → f64 loses precision only past 2^53 tokens, far beyond any run.
        (usage.input_tokens as f64 * self.input_per_mtok
            + usage.output_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
    }

    /// Both prices finite and not negative.
    pub fn is_valid(&self) -> bool {
        [self.input_per_mtok, self.output_per_mtok]
            .iter()
            .all(|p| p.is_finite() && *p >= 0.0)
    }
}

/// Prices per model name (exact match on the name the API is asked for).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
}

impl PriceTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets (or replaces) the price of `model`.
    pub fn set(&mut self, model: impl Into<String>, price: Price) {
        self.prices.insert(model.into(), price);
    }

    pub fn get(&self, model: &str) -> Option<Price> {
        self.prices.get(model).copied()
    }

    /// Adds every price of `other`, which wins where both name a model.
    pub fn merge(&mut self, other: &PriceTable) {
        for (model, price) in &other.prices {
            self.prices.insert(model.clone(), *price);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.prices.is_empty()
    }
}

/// What one run has used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// US dollars; `None` when the model has no price.
    pub cost: Option<f64>,
    /// Responses received (each counted once, whatever its retries).
    pub responses: u64,
}

/// A run's usage, shared between the model that adds to it and the caller
/// that reads it when the run is over (the model is usually boxed away).
#[derive(Debug, Clone, Default)]
pub struct UsageMeter {
    inner: Arc<Mutex<RunUsage>>,
    /// Why the backend last failed for good (scrubbed of the key).
    error: Arc<Mutex<Option<String>>>,
}

impl UsageMeter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one response's usage and its cost (if priced).
    pub fn record(&self, usage: Usage, cost: Option<f64>) {
        let mut run = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        run.input_tokens = run.input_tokens.saturating_add(usage.input_tokens);
        run.output_tokens = run.output_tokens.saturating_add(usage.output_tokens);
        run.responses += 1;
        if let Some(cost) = cost {
            run.cost = Some(run.cost.unwrap_or(0.0) + cost);
        }
    }

    pub fn get(&self) -> RunUsage {
        *self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes why the backend failed (the loop only learns that it did).
    pub fn fail(&self, message: &str) {
        *self.error.lock().unwrap_or_else(PoisonError::into_inner) = Some(message.to_string());
    }

    /// The backend's last failure, if any.
    pub fn last_error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_is_per_million_tokens() {
        let price = Price {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
        };
        let usage = Usage {
            input_tokens: 2_000_000,
            output_tokens: 100_000,
        };
        assert!((price.cost(usage) - 7.5).abs() < 1e-9);
    }

    #[test]
    fn meter_sums_and_leaves_cost_unset_without_a_price() {
        let meter = UsageMeter::new();
        let handle = meter.clone();
        meter.record(
            Usage {
                input_tokens: 10,
                output_tokens: 2,
            },
            None,
        );
        meter.record(
            Usage {
                input_tokens: 5,
                output_tokens: 1,
            },
            None,
        );
        assert_eq!(
            handle.get(),
            RunUsage {
                input_tokens: 15,
                output_tokens: 3,
                cost: None,
                responses: 2
            }
        );
    }

    #[test]
    fn price_table_reads_from_yaml_shape() {
        let table: PriceTable = serde_json::from_value(serde_json::json!({
            "claude-x": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}
        }))
        .unwrap();
        assert_eq!(table.get("claude-x").map(|p| p.output_per_mtok), Some(15.0));
        assert_eq!(table.get("other"), None);
        let bad = serde_json::from_value::<PriceTable>(serde_json::json!({
            "m": {"input_per_mtok": 1.0, "output": 2.0}
        }));
        assert!(bad.is_err());
    }
}
