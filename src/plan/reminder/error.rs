//! What can be wrong with a reminder policy as a scenario or a flag spells
//! it: the one error type of [`super::ReminderSpec::from_value`] and
//! [`super::NagThreshold::parse`]. Each variant's message is the text users
//! read after the file:LINE the scenario loader puts in front of it.

use serde_json::Value;
use thiserror::Error;

/// A reminder policy, or one of its parameters, that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReminderSpecError {
    /// A nag threshold that is neither a count from 1 nor `off`.
    #[error("nag threshold must be an integer >= 1 or \"off\", got `{raw}`")]
    Threshold { raw: String },
    /// A policy name not in [`super::ReminderSpec::NAMES`].
    #[error("unknown reminder policy `{name}` (known: {known})")]
    UnknownPolicy { name: String, known: String },
    /// A map without its `policy` key.
    #[error("a reminder map needs `policy: NAME` (one of {known})")]
    MissingPolicy { known: String },
    /// Neither a name nor a map.
    #[error("reminder must be a policy name or a map with `policy`, got {got}")]
    NotNameOrMap { got: Value },
    /// A count parameter that is not an integer from 1.
    #[error("reminder parameter `{key}` must be an integer >= 1, got {got}")]
    NotACount { key: String, got: Value },
    /// A parameter the policy does not have.
    #[error("unknown parameter `{key}` for reminder policy `{policy}` (its parameters: {params})")]
    UnknownParameter {
        key: String,
        policy: &'static str,
        params: String,
    },
}

#[cfg(test)]
mod tests {
    use super::super::{NagThreshold, ReminderSpec};
    use serde_json::json;

    fn message(value: serde_json::Value) -> String {
        ReminderSpec::from_value(&value)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    /// The messages users read, pinned byte for byte as they were when
    /// these functions returned strings.
    #[test]
    fn messages_are_the_ones_users_read() {
        let known = ReminderSpec::NAMES.join(", ");
        assert_eq!(
            NagThreshold::parse("0")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
            "nag threshold must be an integer >= 1 or \"off\", got `0`"
        );
        assert_eq!(
            message(json!("nagger")),
            format!("unknown reminder policy `nagger` (known: {known})")
        );
        assert_eq!(
            message(json!({"every": 2})),
            format!("a reminder map needs `policy: NAME` (one of {known})")
        );
        assert_eq!(
            message(json!([1])),
            "reminder must be a policy name or a map with `policy`, got [1]"
        );
        assert_eq!(
            message(json!({"policy": "interval", "every": 0})),
            "reminder parameter `every` must be an integer >= 1, got 0"
        );
        assert_eq!(
            message(json!({"policy": "off", "every": 2})),
            "unknown parameter `every` for reminder policy `off` (its parameters: none)"
        );
        assert_eq!(
            message(json!({"policy": "s03", "threshold": "x"})),
            "nag threshold must be an integer >= 1 or \"off\", got `x`"
        );
    }
}
