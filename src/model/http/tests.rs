//! Setting up real models: keys, base URLs, prices, and the flags.

use super::*;

/// A variable lookup over `pairs` (the last pair of a name wins).
fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        pairs
            .iter()
            .rev()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
    }
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

/// The texts users see for each error of this module, byte for byte: a
/// typed error must say what the string it replaced said.
#[test]
fn every_error_says_what_it_always_said() {
    let said = |e: &dyn std::fmt::Display| e.to_string();
    let cases: [(String, &str); 14] = [
        (
            said(&parse_model_flag("claude-x").unwrap_err()),
            r#"expected PROVIDER:NAME (anthropic:NAME or openai:NAME), got "claude-x""#,
        ),
        (
            said(&parse_model_flag("gemini:x").unwrap_err()),
            r#"unknown model provider "gemini": expected anthropic or openai"#,
        ),
        (
            said(&parse_model_flag("openai: ").unwrap_err()),
            r#""openai: " names no model after the colon"#,
        ),
        (
            said(&parse_price_flag("m=1").unwrap_err()),
            r#"expected MODEL=INPUT,OUTPUT (USD per million tokens), got "m=1""#,
        ),
        (
            said(&BadPrice {
                input: -1.0,
                output: 0.5,
            }),
            "price: input_per_mtok and output_per_mtok must be finite US dollars >= 0, got -1 and 0.5",
        ),
        (said(&api_model::ReplyError::NoContent), "no `content` list"),
        (
            said(&api_model::ReplyError::TextWithoutText),
            "a text block without `text`",
        ),
        (
            said(&api_model::ReplyError::ToolUseWithout("id")),
            "a tool_use block without `id`",
        ),
        (
            said(&api_model::ReplyError::NoMessage),
            "no `choices[0].message`",
        ),
        (
            said(&api_model::ReplyError::ContentNotTextOrList),
            "`content` is neither text nor a list",
        ),
        (
            said(&api_model::ReplyError::ToolCallsNotList),
            "`tool_calls` is not a list",
        ),
        (
            said(&api_model::ReplyError::CallWithoutFunction),
            "a tool call without `function`",
        ),
        (
            said(&api_model::ReplyError::CallWithoutName),
            "a tool call without a function name",
        ),
        (
            said(&api_model::ReplyError::CallWithoutId),
            "a tool call without `id`",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

/// A price in a scenario file is refused with the same words as before.
#[test]
fn a_bad_price_in_a_file_says_what_it_always_said() {
    let error = serde_json::from_str::<Price>(r#"{"input_per_mtok": -1, "output_per_mtok": 2}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(
            "price: input_per_mtok and output_per_mtok must be finite US dollars >= 0, got -1 and 2"
        ),
        "{error}"
    );
}
