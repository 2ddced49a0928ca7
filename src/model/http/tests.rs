//! Setting up real models: keys, base URLs, prices, and the flags.

use super::*;
use std::collections::BTreeMap;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn missing_key_names_the_variable() {
    let err = Endpoint::from_lookup(Provider::Anthropic, env(&[])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the anthropic model needs an API key: set the environment variable ANTHROPIC_API_KEY"
    );
    let err =
        Endpoint::from_lookup(Provider::OpenAi, env(&[("OPENAI_API_KEY", "  ")])).unwrap_err();
    assert!(err.to_string().contains("OPENAI_API_KEY"));
}

#[test]
fn base_urls_default_and_lose_trailing_slashes() {
    let e = Endpoint::from_lookup(Provider::Anthropic, env(&[("ANTHROPIC_API_KEY", "k")])).unwrap();
    assert_eq!(e.base_url, "https://api.anthropic.com");
    let e = Endpoint::from_lookup(
        Provider::OpenAi,
        env(&[
            ("OPENAI_API_KEY", "k"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/"),
        ]),
    )
    .unwrap();
    assert_eq!(e.base_url, "http://127.0.0.1:8080/v1");
    let err = Endpoint::from_lookup(
        Provider::OpenAi,
        env(&[("OPENAI_API_KEY", "k"), ("OPENAI_BASE_URL", "localhost:1")]),
    )
    .unwrap_err();
    assert!(matches!(err, HttpModelError::BadBaseUrl { .. }));
}

#[test]
fn keys_never_print() {
    let e = Endpoint::from_lookup(
        Provider::Anthropic,
        env(&[("ANTHROPIC_API_KEY", "sk-secret-123")]),
    )
    .unwrap();
    assert!(!format!("{e:?}").contains("sk-secret-123"));
    assert_eq!(
        e.key().redact("bad key sk-secret-123!"),
        "bad key [redacted]!"
    );
    let err = Endpoint::from_lookup(
        Provider::Anthropic,
        env(&[("ANTHROPIC_API_KEY", "bad\nkey")]),
    )
    .unwrap_err();
    assert!(!err.to_string().contains("bad\nkey"));
}

#[test]
fn budget_without_price_is_refused() {
    let context = HttpContext::new()
        .unwrap()
        .with_budget(SpendBudget::new(1.0).unwrap());
    assert_eq!(
        context.price_for("m", None),
        Err(HttpModelError::NoPrice { model: "m".into() })
    );
    let mut prices = PriceTable::new();
    prices.set(
        "m",
        Price {
            input_per_mtok: f64::NAN,
            output_per_mtok: 1.0,
        },
    );
    let context = context.with_prices(prices);
    assert!(matches!(
        context.price_for("m", None),
        Err(HttpModelError::BadPrice { .. })
    ));
    let own = Price {
        input_per_mtok: 1.0,
        output_per_mtok: 2.0,
    };
    assert_eq!(context.price_for("other", Some(own)), Ok(Some(own)));
    let table_wins = context.price_for("m", Some(own));
    assert!(matches!(table_wins, Err(HttpModelError::BadPrice { .. })));
}

#[test]
fn model_and_price_flags() {
    assert_eq!(
        parse_model_flag("openai:llama3:8b"),
        Ok((Provider::OpenAi, "llama3:8b".to_string()))
    );
    assert_eq!(
        parse_model_flag("anthropic:claude-x"),
        Ok((Provider::Anthropic, "claude-x".to_string()))
    );
    for bad in ["claude-x", "gemini:x", "anthropic:", ""] {
        assert!(parse_model_flag(bad).is_err(), "{bad}");
    }
    assert_eq!(
        parse_price_flag("llama3:8b=0.5,1.5"),
        Ok((
            "llama3:8b".to_string(),
            Price {
                input_per_mtok: 0.5,
                output_per_mtok: 1.5
            }
        ))
    );
    for bad in ["m=1", "m=a,b", "=1,2", "m=-1,2", "m=1,inf", "m"] {
        assert!(parse_price_flag(bad).is_err(), "{bad}");
    }
}
