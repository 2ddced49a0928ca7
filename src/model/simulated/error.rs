//! What can be wrong with the simulated model's parameters: the one error
//! type of [`super::SimulateParams::validate`]. Each message names the
//! parameter as a scenario writes it (`simulate.NAME`); the scenario and
//! profile readers put the file and line in front of it, and point at the
//! parameter [`ParamsError::param`] names.

use thiserror::Error;

/// A parameter out of its range.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum ParamsError {
    /// A probability outside [0, 1].
    #[error("simulate.{name} must be in [0, 1], got {value}")]
    NotAProbability { name: &'static str, value: f64 },
    /// The Beta's dispersion outside [0, 1).
    #[error("simulate.update_rate_dispersion must be in [0, 1), got {value}")]
    Dispersion { value: f64 },
    /// Items per update that is not a whole number from 0.
    #[error("simulate.items_per_update must be a whole number >= 0 (0: no limit), got {value}")]
    ItemsPerUpdate { value: f64 },
    /// Fewer than one turn a step (or not finite).
    #[error("simulate.turns_per_step must be a number >= 1, got {value}")]
    TurnsPerStep { value: f64 },
    /// Negative (or not finite) tokens per turn.
    #[error("simulate.tokens_per_turn must be >= 0, got {value}")]
    TokensPerTurn { value: f64 },
    /// A scale that must be a positive number.
    #[error("simulate.{name} must be a positive number, got {value}")]
    NotPositive { name: &'static str, value: f64 },
    /// A drift weight below 0 (or not finite).
    #[error("simulate.{name} must be >= 0, got {value}")]
    NegativeWeight { name: &'static str, value: f64 },
    /// Every drift weight 0: the model could not drift at all.
    #[error("simulate: at least one drift weight must be positive")]
    NoDriftWeight,
}

impl ParamsError {
    /// The parameter the message is about (`None`: several together).
    pub fn param(&self) -> Option<&'static str> {
        match self {
            Self::NotAProbability { name, .. }
            | Self::NotPositive { name, .. }
            | Self::NegativeWeight { name, .. } => Some(name),
            Self::Dispersion { .. } => Some("update_rate_dispersion"),
            Self::ItemsPerUpdate { .. } => Some("items_per_update"),
            Self::TokensPerTurn { .. } => Some("tokens_per_turn"),
            Self::TurnsPerStep { .. } => Some("turns_per_step"),
            Self::NoDriftWeight => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::SimulateParams;

    /// A change to the defaults, the message it brings and the parameter
    /// that message names.
    type Case = (fn(&mut SimulateParams), &'static str, Option<&'static str>);

    fn message(change: impl Fn(&mut SimulateParams)) -> (String, Option<&'static str>) {
        let mut params = SimulateParams::default();
        change(&mut params);
        params
            .validate()
            .err()
            .map(|e| (e.to_string(), e.param()))
            .unwrap_or_default()
    }

    /// The messages users read, pinned byte for byte as they were when
    /// `validate` returned strings.
    #[test]
    fn messages_are_the_ones_users_read() {
        let cases: [Case; 7] = [
            (
                |p| p.plan_first = 1.5,
                "simulate.plan_first must be in [0, 1], got 1.5",
                Some("plan_first"),
            ),
            (
                |p| p.update_rate_dispersion = 1.0,
                "simulate.update_rate_dispersion must be in [0, 1), got 1",
                Some("update_rate_dispersion"),
            ),
            (
                |p| p.items_per_update = 1.5,
                "simulate.items_per_update must be a whole number >= 0 (0: no limit), got 1.5",
                Some("items_per_update"),
            ),
            (
                |p| p.tokens_per_turn = -1.0,
                "simulate.tokens_per_turn must be >= 0, got -1",
                Some("tokens_per_turn"),
            ),
            (
                |p| p.sharpness = 0.0,
                "simulate.sharpness must be a positive number, got 0",
                Some("sharpness"),
            ),
            (
                |p| p.stop_weight = -0.5,
                "simulate.stop_weight must be >= 0, got -0.5",
                Some("stop_weight"),
            ),
            (
                |p| {
                    p.skip_weight = 0.0;
                    p.repeat_weight = 0.0;
                    p.improvise_weight = 0.0;
                    p.stop_weight = 0.0;
                },
                "simulate: at least one drift weight must be positive",
                None,
            ),
        ];
        for (change, text, param) in cases {
            assert_eq!(message(change), (text.to_string(), param));
        }
    }
}
