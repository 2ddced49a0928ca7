//! What every real model of one evaluation shares: the HTTP client (with
//! same-origin redirects only), retries, the request timeout, the
//! concurrency limit, the spend budget and the price table.

use std::sync::Arc;
use std::time::Duration;

use reqwest::blocking::Client;

use super::error::HttpModelError;
use super::limits::{ConcurrencyLimit, SpendBudget};
use super::retry::RetryPolicy;
use super::usage::{Price, PriceTable};

/// What every real model of one evaluation shares.
#[derive(Debug, Clone)]
pub struct HttpContext {
    pub(super) client: Client,
    pub retry: RetryPolicy,
    /// The longest one request may take, body included.
    pub request_timeout: Duration,
    pub limit: Option<Arc<ConcurrencyLimit>>,
    pub budget: Option<Arc<SpendBudget>>,
    pub prices: Arc<PriceTable>,
}

impl HttpContext {
    /// Default retries, a 10-minute request timeout, no limits, no prices.
    pub fn new() -> Result<Self, HttpModelError> {
        let client = Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .redirect(same_origin_redirects())
            .build()
            .map_err(|e| HttpModelError::Client(e.to_string()))?;
        Ok(Self {
            client,
            retry: RetryPolicy::default(),
            request_timeout: Duration::from_secs(600),
            limit: None,
            budget: None,
            prices: Arc::new(PriceTable::new()),
        })
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// At most `max` requests in flight across every model of this context.
    pub fn with_max_concurrency(mut self, max: usize) -> Self {
        self.limit = Some(ConcurrencyLimit::new(max));
        self
    }

    pub fn with_budget(mut self, budget: Arc<SpendBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    pub fn with_prices(mut self, prices: PriceTable) -> Self {
        self.prices = Arc::new(prices);
        self
    }

    /// The price of `model` (the table's, else its own), checked; an error when a budget is set and the
    /// model has no price (a limit that cannot be counted is no limit).
    pub(super) fn price_for(
        &self,
        model: &str,
        own_price: Option<Price>,
    ) -> Result<Option<Price>, HttpModelError> {
        let price = self.prices.get(model).or(own_price);
        if let Some(price) = price
            && !price.is_valid()
        {
            return Err(HttpModelError::BadPrice {
                model: model.to_string(),
            });
        }
        if price.is_none() && self.budget.is_some() {
            return Err(HttpModelError::NoPrice {
                model: model.to_string(),
            });
        }
        Ok(price)
    }
}

/// Redirects are followed only within the base URL's origin (scheme, host
/// and port): the key headers (`x-api-key`, `Authorization`) go with every
/// request this client makes, and reqwest strips only `Authorization` when
/// a redirect changes host, so a redirect elsewhere is an error instead.
pub(super) fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let origin = |url: &reqwest::Url| url.origin();
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| origin(first) == origin(attempt.url()));
        if !same {
            attempt.error("redirect to another origin refused (it would carry the API key)")
        } else if attempt.previous().len() >= 10 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}
