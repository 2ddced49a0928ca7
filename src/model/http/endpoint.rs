//! Where an API lives and the key to use there: the key held so it never
//! prints, the URL and key read from the environment and checked.

use std::fmt;

use reqwest::header::HeaderValue;

use super::error::HttpModelError;
use super::provider::Provider;
use super::secrets;

/// An API key. It is never printed (`Debug` shows `[redacted]`) and every
/// error text a backend returns is scrubbed of it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// `text` with every occurrence of the key replaced by `[redacted]`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.0, "[redacted]")
        }
    }

    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where an API lives and the key to use there.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub provider: Provider,
    /// No trailing slash. Anthropic: the host (`https://api.anthropic.com`);
    /// OpenAI: ending in `/v1`.
    pub base_url: String,
    pub(super) key: ApiKey,
}

impl Endpoint {
    pub fn new(provider: Provider, base_url: &str, key: ApiKey) -> Result<Self, HttpModelError> {
        let base_url = base_url.trim().trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(HttpModelError::BadBaseUrl {
                var: provider.base_url_var(),
                value: base_url,
            });
        }
        if key.0.is_empty() {
            return Err(HttpModelError::MissingKey {
                provider,
                var: provider.key_var(),
            });
        }
        if HeaderValue::from_str(key.expose()).is_err() {
            return Err(HttpModelError::BadKey {
                var: provider.key_var(),
            });
        }
        Ok(Self {
            provider,
            base_url,
            key,
        })
    }

    /// From the process environment (`ANTHROPIC_BASE_URL`/`ANTHROPIC_API_KEY`
    /// or `OPENAI_BASE_URL`/`OPENAI_API_KEY`).
    pub fn from_env(provider: Provider) -> Result<Self, HttpModelError> {
        Self::from_lookup(provider, |name| {
            secrets::taken(name).or_else(|| std::env::var(name).ok())
        })
    }

    /// From any variable lookup (tests pass a map instead of the process
    /// environment). An empty variable counts as unset.
    pub fn from_lookup(
        provider: Provider,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, HttpModelError> {
        let set = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let key = set(provider.key_var()).ok_or(HttpModelError::MissingKey {
            provider,
            var: provider.key_var(),
        })?;
        let base =
            set(provider.base_url_var()).unwrap_or_else(|| provider.default_base_url().to_string());
        Self::new(provider, &base, ApiKey::new(key.trim()))
    }

    pub fn key(&self) -> &ApiKey {
        &self.key
    }
}
