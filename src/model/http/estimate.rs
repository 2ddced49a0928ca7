//! What real-model runs will cost, estimated before any of them starts.
//!
//! `run` shows this estimate (requests, tokens, US dollars) before it sends
//! a single request, and refuses a run above a budget unless told to go on:
//! the answer to "how much will this cost?" must come before the bill.
//!
//! It is an estimate, and a deliberately high one:
//! - every run is counted at its scenario's `max_turns` (a run that finishes
//!   earlier costs less), one request a turn;
//! - each request is counted at [`INPUT_TOKENS_PER_TURN`] input and
//!   [`OUTPUT_TOKENS_PER_TURN`] output tokens (the system prompt, the tool
//!   schemas and a conversation that grows with every turn, averaged over a
//!   run);
//! - the price is the one given (`--price`, then the scenario's `price`),
//!   else the list price of the model's family in [`FAMILY_PRICES`], the one
//!   place agent-eval writes prices down. A model of no known family is
//!   shown as tokens only.

use std::collections::BTreeSet;

use super::{Price, RealModelSpec};

/// Input tokens counted for each request of the estimate.
pub const INPUT_TOKENS_PER_TURN: u64 = 4_000;

/// Output tokens counted for each request of the estimate.
pub const OUTPUT_TOKENS_PER_TURN: u64 = 300;

/// The budget above which `run` asks for `--max-cost` or `--yes`, in US
/// dollars.
pub const DEFAULT_BUDGET_USD: f64 = 5.0;

/// List prices per model family, in US dollars per million input and
/// output tokens: `(prefix of the API's model name, input, output)`. The
/// longest matching prefix wins. These are estimates (providers change
/// their prices); `--price MODEL=IN,OUT` overrides them.
pub const FAMILY_PRICES: &[(&str, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-6", 5.0, 25.0),
    ("claude-opus", 15.0, 75.0),
    ("claude-3-opus", 15.0, 75.0),
    ("claude-sonnet", 3.0, 15.0),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-haiku", 1.0, 5.0),
    ("claude-3-5-haiku", 0.8, 4.0),
    ("claude-3-haiku", 0.25, 1.25),
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.4),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4.1-nano", 0.1, 0.4),
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("o3", 2.0, 8.0),
    ("o3-mini", 1.1, 4.4),
    ("o4-mini", 1.1, 4.4),
];

/// The list price of `model`'s family, if it belongs to a known one.
pub fn family_price(model: &str) -> Option<Price> {
    FAMILY_PRICES
        .iter()
        .filter(|(prefix, _, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _, _)| prefix.len())
        .map(|&(_, input_per_mtok, output_per_mtok)| Price {
            input_per_mtok,
            output_per_mtok,
        })
}

/// The estimated use of an evaluation's real models.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpendEstimate {
    pub runs: u64,
    /// At most this many requests: every run at its `max_turns`.
    pub requests: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The estimated cost of the priced models, in US dollars.
    pub cost: f64,
    /// The models (`provider:name`) with no price: tokens only.
    pub unpriced: BTreeSet<String>,
}

impl SpendEstimate {
    /// Adds `runs` runs of `spec` of at most `max_turns` turns each, at
    /// `price` (given), else its family's list price.
    pub fn add(&mut self, spec: &RealModelSpec, runs: u64, max_turns: u64, price: Option<Price>) {
        let requests = runs.saturating_mul(max_turns);
        let usage = super::Usage {
            input_tokens: requests.saturating_mul(INPUT_TOKENS_PER_TURN),
            output_tokens: requests.saturating_mul(OUTPUT_TOKENS_PER_TURN),
        };
        self.runs = self.runs.saturating_add(runs);
        self.requests = self.requests.saturating_add(requests);
        self.input_tokens = self.input_tokens.saturating_add(usage.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(usage.output_tokens);
        match price.or_else(|| family_price(spec.model_name())) {
            Some(price) => self.cost += price.cost(usage),
            None => {
                self.unpriced.insert(spec.label());
            }
        }
    }

    /// Whether any run was counted.
    pub fn is_empty(&self) -> bool {
        self.runs == 0
    }

    /// One line: `real models: N runs, at most R requests, ~I input and ~O
    /// output tokens, estimated $C`.
    pub fn line(&self) -> String {
        let cost = if self.unpriced.is_empty() {
            format!("estimated ${:.2}", self.cost)
        } else {
            let names: Vec<&str> = self.unpriced.iter().map(String::as_str).collect();
            format!(
                "estimated ${:.2} plus {} (no known price: tokens only; --price MODEL=IN,OUT sets one)",
                self.cost,
                names.join(", ")
            )
        };
        format!(
            "real models: {} run{}, at most {} requests, ~{} input and ~{} output tokens, {cost} \
             (an estimate: every run at its max_turns, {INPUT_TOKENS_PER_TURN} input and \
             {OUTPUT_TOKENS_PER_TURN} output tokens a turn)",
            grouped(self.runs),
            if self.runs == 1 { "" } else { "s" },
            grouped(self.requests),
            grouped(self.input_tokens),
            grouped(self.output_tokens),
        )
    }
}

/// `n` with a comma between thousands: `908,016,000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::http::AnthropicParams;

    #[test]
    fn the_longest_family_prefix_wins() {
        assert_eq!(
            family_price("gpt-4o-mini-2024").unwrap().input_per_mtok,
            0.15
        );
        assert_eq!(family_price("gpt-4o").unwrap().input_per_mtok, 2.5);
        assert_eq!(
            family_price("claude-opus-4-5").unwrap().output_per_mtok,
            25.0
        );
        assert_eq!(
            family_price("claude-opus-4-1").unwrap().output_per_mtok,
            75.0
        );
        assert_eq!(family_price("llama3.1:8b"), None);
    }

    #[test]
    fn runs_turns_and_price_multiply_and_unknown_models_are_tokens_only() {
        let sonnet = RealModelSpec::Anthropic(AnthropicParams::new("claude-sonnet-4-5"));
        let local = RealModelSpec::Anthropic(AnthropicParams::new("local"));
        let mut estimate = SpendEstimate::default();
        estimate.add(&sonnet, 10, 50, None);
        estimate.add(&local, 1, 10, None);
        assert_eq!(estimate.requests, 510);
        assert_eq!(estimate.input_tokens, 510 * INPUT_TOKENS_PER_TURN);
        // 500 requests × (4000 × $3 + 300 × $15) / 10⁶
        assert!((estimate.cost - 8.25).abs() < 1e-9, "{}", estimate.cost);
        let line = estimate.line();
        assert!(
            line.contains("estimated $8.25 plus anthropic:local"),
            "{line}"
        );
        assert!(line.contains("~2,040,000 input"), "{line}");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        let given = Price {
            input_per_mtok: 0.0,
            output_per_mtok: 0.0,
        };
        let mut free = SpendEstimate::default();
        free.add(&sonnet, 10, 50, Some(given));
        assert_eq!(free.cost, 0.0);
    }
}
