//! Why a real model cannot be set up.

use super::provider::Provider;

/// [`ModelError::Backend`] and end the run, they never abort the others.)
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HttpModelError {
    #[error("the {provider} model needs an API key: set the environment variable {var}")]
    MissingKey {
        provider: Provider,
        var: &'static str,
    },
    #[error("{var} is not an http(s) URL: {value}")]
    BadBaseUrl { var: &'static str, value: String },
    #[error("the API key in {var} cannot be sent in an HTTP header")]
    BadKey { var: &'static str },
    #[error(
        "a spend limit needs a price for model {model}: set input_per_mtok and output_per_mtok for it"
    )]
    NoPrice { model: String },
    #[error("invalid price for model {model}: prices must be finite and >= 0")]
    BadPrice { model: String },
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
}
