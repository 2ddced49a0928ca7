//! `run`'s real-model options: `--model`, `--max-concurrency`, `--max-cost`,
//! `--price` and `--record`, and setting the real backends up before any run
//! (a missing key or price is a usage error, exit 2, naming what to set).

use std::path::PathBuf;

use super::errors::RealModelError;
use crate::eval::RunEnv;
use crate::model::http::estimate::{DEFAULT_BUDGET_USD, family_price};
use crate::model::http::{
    HttpContext, Price, PriceTable, RealBackends, RealModelSpec, SpendBudget, SpendEstimate,
    parse_model_flag, parse_price_flag,
};
use crate::scenario::{ModelSpec, Scenario};

/// The command-line options for real models.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RealModelArgs {
    /// Drive every scenario with a real model: anthropic:NAME or openai:NAME
    /// (key and base URL from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL or
    /// OPENAI_API_KEY / OPENAI_BASE_URL).
    #[arg(long, value_name = "PROVIDER:NAME", value_parser = parse_model_arg)]
    pub model: Option<RealModelSpec>,
    /// At most N requests to real models in flight at once, over all runs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_concurrency: Option<u32>,
    /// Refuse to start when the cost estimate is above this many US
    /// dollars, and start no new run once real models have cost it (runs
    /// under way finish). Without it, an estimate above $5 is refused.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_cost: Option<f64>,
    /// Start real-model runs whatever their estimated cost (a --max-cost
    /// still stops new runs once it is spent).
    #[arg(long)]
    pub yes: bool,
    /// A model's price in US dollars per million input and output tokens
    /// (repeatable; wins over the scenario's `price`).
    #[arg(long = "price", value_name = "MODEL=IN,OUT", value_parser = parse_price_flag)]
    pub prices: Vec<(String, crate::model::http::Price)>,
    /// Write each real-model run as a cassette (a scripted scenario with
    /// request hashes) into DIR.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
}

fn parse_model_arg(text: &str) -> Result<RealModelSpec, crate::model::http::FlagError> {
    parse_model_flag(text).map(|(provider, name)| RealModelSpec::from_flag(provider, &name))
}

fn parse_usd(text: &str) -> Result<f64, RealModelError> {
    match text.trim().parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd >= 0.0 => Ok(usd),
        _ => Err(RealModelError::NotAnAmount {
            raw: text.to_string(),
        }),
    }
}

impl RealModelArgs {
    /// Puts `--model` into every scenario (its scripted or simulated model
    /// is replaced): `--list` and the estimate see the real model too.
    pub fn use_model(&self, scenarios: &mut [Scenario]) {
        if let Some(spec) = &self.model {
            for scenario in scenarios.iter_mut() {
                scenario.model = ModelSpec::Real(spec.clone());
            }
        }
    }

    /// The price of `spec` as given: `--price`, then the scenario's.
    fn given_price(&self, spec: &RealModelSpec) -> Option<Price> {
        let flag = self
            .prices
            .iter()
            .rev()
            .find(|(model, _)| model == spec.model_name());
        flag.map(|(_, price)| *price).or(match spec {
            RealModelSpec::Anthropic(p) => p.price,
            RealModelSpec::OpenAi(p) => p.price,
        })
    }

    /// The estimated use of the real models of `scenarios`, each run
    /// `runs_of(scenario)` times; empty when none uses a real model.
    pub fn estimate(
        &self,
        scenarios: &[Scenario],
        runs_of: impl Fn(&Scenario) -> usize,
    ) -> SpendEstimate {
        let mut estimate = SpendEstimate::default();
        for scenario in scenarios {
            if let ModelSpec::Real(spec) = &scenario.model {
                estimate.add(
                    spec,
                    runs_of(scenario) as u64,
                    scenario.agent.max_turns as u64,
                    self.given_price(spec),
                );
            }
        }
        estimate
    }

    /// Refuses an estimate above `--max-cost`, or above the default budget
    /// when neither `--max-cost` nor `--yes` is given.
    pub fn check_estimate(&self, estimate: &SpendEstimate) -> Result<(), RealModelError> {
        if self.yes || estimate.is_empty() {
            return Ok(());
        }
        let cost = estimate.cost;
        match self.max_cost {
            Some(limit) if cost > limit => Err(RealModelError::AboveMaxCost { cost, limit }),
            None if cost > DEFAULT_BUDGET_USD => Err(RealModelError::AboveDefaultBudget {
                cost,
                budget: DEFAULT_BUDGET_USD,
            }),
            _ => Ok(()),
        }
    }

    /// Sets up what the real models of `scenarios` need (after
    /// [`Self::use_model`]): endpoints (keys), prices, limits. An error
    /// names the variable or option to set.
    pub fn prepare(&self, scenarios: &[Scenario]) -> Result<RunEnv, RealModelError> {
        let real: Vec<(&Scenario, &RealModelSpec)> = scenarios
            .iter()
            .filter_map(|s| match &s.model {
                ModelSpec::Real(spec) => Some((s, spec)),
                _ => None,
            })
            .collect();
        if real.is_empty() {
            if self.record.is_some() {
                return Err(RealModelError::NothingToRecord);
            }
            return Ok(RunEnv::default());
        }
        let mut prices = PriceTable::new();
        if self.max_cost.is_some() {
            // A budget counts a model with no given price at its family's
            // list price, the one the estimate used.
            for (_, spec) in &real {
                if self.given_price(spec).is_none()
                    && let Some(price) = family_price(spec.model_name())
                {
                    prices.set(spec.model_name(), price);
                }
            }
        }
        for (model, price) in &self.prices {
            prices.set(model.clone(), *price);
        }
        let mut context = HttpContext::new()?.with_prices(prices);
        if let Some(n) = self.max_concurrency {
            context = context.with_max_concurrency(n as usize);
        }
        if let Some(usd) = self.max_cost {
            context = context.with_budget(SpendBudget::new(usd)?);
        }
        let mut backends = RealBackends::new(context);
        for (scenario, spec) in real {
            backends
                .prepare(spec)
                .map_err(|source| RealModelError::Backend {
                    file: scenario.file.clone(),
                    source,
                })?;
        }
        Ok(RunEnv {
            real: Some(backends),
            record: self.record.clone(),
            keep_transcripts: None,
        })
    }
}

/// How many planned runs never started because the spend limit was
/// reached; `None` without a limit.
pub fn runs_not_started(env: &RunEnv, planned: usize, ran: usize) -> Option<String> {
    let budget = env.real.as_ref()?.budget()?;
    (ran < planned).then(|| {
        format!(
            "spend limit reached: ${:.4} of ${:.4} spent; {} of {planned} runs were not started",
            budget.spent(),
            budget.limit(),
            planned - ran
        )
    })
}

/// A warning for the runs a real model failed in, naming the first.
pub fn model_failures(results: &[crate::results::ScenarioResult]) -> Option<String> {
    let cells = || {
        results
            .iter()
            .flat_map(|r| r.cells.iter().map(move |c| (r, c)))
    };
    let failed: u64 = cells().map(|(_, c)| c.results.totals().model_errors).sum();
    let (name, (seed, message)) = cells().find_map(|(r, c)| {
        c.results
            .totals()
            .first_model_error
            .as_ref()
            .map(|first| (r.name.as_str(), first))
    })?;
    Some(format!(
        "warning: {failed} run(s) stopped because the model failed; the first ({name}, seed {seed}): {message}"
    ))
}

/// What real models used over the whole evaluation, when any ran.
pub fn usage_summary(results: &[crate::results::ScenarioResult]) -> Option<String> {
    let cells = || results.iter().flat_map(|r| r.cells.iter());
    let input: Option<u64> = cells().filter_map(|c| c.input_tokens).reduce(|a, b| a + b);
    let output: u64 = cells().filter_map(|c| c.output_tokens).sum();
    let cost: Option<f64> = cells().filter_map(|c| c.cost).reduce(|a, b| a + b);
    let input = input?;
    let cost = cost.map_or_else(|| "no price set".to_string(), |usd| format!("${usd:.4}"));
    Some(format!(
        "real models: {input} input tokens, {output} output tokens, {cost}"
    ))
}
