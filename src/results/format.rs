//! How a number is shown to a person, in one place: every report (the
//! terminal, Markdown, HTML, `history`, the SVG charts) formats through
//! these functions, so a figure reads the same wherever it is read.
//!
//! - rates are percentages (`29.7%`), differences of rates percentage
//!   points (`+29.7 pts`);
//! - tokens are whole numbers with thousands separators (`11,833`);
//! - p-values are `p=0.013`, or `p<0.001` below a thousandth;
//! - ratios are `2.15×`; other figures keep at most three decimals,
//!   trailing zeros dropped (`1.5`, `0.297`).
//!
//! Rounding for storage (the JSON report's six decimals) is
//! [`super::stats::round6`]; this file only decides how a value is read.

use serde_json::Value;

use crate::metric::Metric;

/// A rate (0..1) as a percentage with `places` decimals: `29.7%`.
pub fn percent(rate: f64, places: usize) -> String {
    format!("{:.places$}%", rate * 100.0)
}

/// A difference of rates in percentage points, signed: `+29.7 pts`.
pub fn points(diff: f64) -> String {
    format!("{} pts", points_bare(diff))
}

/// As [`points`], without the unit: `+29.7` (for intervals and tables
/// whose header names the unit).
pub fn points_bare(diff: f64) -> String {
    let shown = diff * 100.0;
    // -0.0 reads as a change; a rounded zero is no change.
    if shown.abs() < 0.05 {
        return "+0.0".to_string();
    }
    format!("{shown:+.1}")
}

/// A 95% interval of a difference of rates, in points: `[+45.0, +63.7]`.
pub fn points_interval([lo, hi]: [f64; 2]) -> String {
    format!("[{}, {}]", points_bare(lo), points_bare(hi))
}

/// A whole number with thousands separators: `1,110`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A token count (a mean is rounded to the token): `11,833`.
pub fn tokens(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let sign = if x < -0.5 { "-" } else { "" };
    format!("{sign}{}", thousands(x.abs().round() as u64))
}

/// A p-value as every report prints it: `p<0.001`, else `p=0.034`.
pub fn p_text(p: f64) -> String {
    if p.is_nan() {
        "p=–".to_string()
    } else if p < 0.001 {
        "p<0.001".to_string()
    } else {
        format!("p={p:.3}")
    }
}

/// A ratio: `2.15×`.
pub fn ratio(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    format!("{}×", decimal(x))
}

/// A plain figure with at most three decimals, trailing zeros dropped:
/// `10`, `1.5`, `0.297`.
pub fn decimal(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// What an expectation measured, read in the unit of what it measures.
/// `what` is the expectation's text (`completion_rate_diff >= 0.2 (…)`,
/// `part 2: mean_turns <= 9 where …`): its first word names the metric
/// and the comparison. A value that is not a number is shown as it is.
pub fn measured(what: &str, value: &Value) -> String {
    let Some(x) = value.as_f64() else {
        return match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    };
    let key = what
        .strip_prefix("part ")
        .and_then(|rest| rest.split_once(": ").map(|(_, tail)| tail))
        .unwrap_or(what)
        .split_whitespace()
        .next()
        .unwrap_or("");
    let metric_of = |name: &str| Metric::named(name);
    if key.ends_with("_p_value") {
        return p_text(x);
    }
    if let Some(base) = key.strip_suffix("_ratio") {
        return metric_of(base).map_or_else(|| decimal(x), |_| ratio(x));
    }
    if let Some(base) = key.strip_suffix("_diff") {
        return match metric_of(base) {
            Some(m) if m.is_rate() => points(x),
            Some(m) if m.name.ends_with("_tokens") => {
                let sign = if x >= 0.0 { "+" } else { "" };
                format!("{sign}{}", tokens(x))
            }
            _ => {
                let sign = if x >= 0.0 { "+" } else { "" };
                format!("{sign}{}", decimal(x))
            }
        };
    }
    match metric_of(key) {
        Some(m) if m.is_rate() => percent(x, 1),
        Some(m) if m.name.ends_with("_tokens") => tokens(x),
        _ => decimal(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_unit_reads_one_way() {
        assert_eq!(percent(0.296_667, 1), "29.7%");
        assert_eq!(points(0.55), "+55.0 pts");
        assert_eq!(points(-0.000_01), "+0.0 pts");
        assert_eq!(points(-0.107), "-10.7 pts");
        assert_eq!(points_interval([-0.19, 0.0]), "[-19.0, +0.0]");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_110), "1,110");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(tokens(11_833.4), "11,833");
        assert_eq!(p_text(8e-6), "p<0.001");
        assert_eq!(p_text(0.0125), "p=0.013");
        assert_eq!(decimal(1.5), "1.5");
        assert_eq!(decimal(10.0), "10");
        assert_eq!(decimal(-0.0001), "0");
        assert_eq!(ratio(2.154), "2.154×");
    }

    #[test]
    fn a_measurement_is_read_in_its_metric_unit() {
        let diff = "completion_rate_diff >= 0.2 (todo=true vs todo=false)";
        assert_eq!(measured(diff, &json!(0.296_667)), "+29.7 pts");
        assert_eq!(
            measured("completion_rate <= 0.5 where todo=false", &json!(0.35)),
            "35.0%"
        );
        assert_eq!(
            measured("completion_rate_p_value <= 0.05 (a vs b)", &json!(8e-6)),
            "p<0.001"
        );
        assert_eq!(
            measured("mean_context_tokens_ratio <= 1.6 (a vs b)", &json!(1.5)),
            "1.5×"
        );
        assert_eq!(
            measured("mean_context_tokens <= 9000 where x", &json!(8123.5)),
            "8,124"
        );
        assert_eq!(
            measured("part 2: completion_rate >= 0.5 where x", &json!(0.5)),
            "50.0%"
        );
        assert_eq!(measured("steps_completed == 10", &json!(10)), "10");
        assert_eq!(measured("stop == end_turn", &json!("end_turn")), "end_turn");
        assert_eq!(measured("reminders_at == [3]", &json!([3])), "[3]");
    }
}
