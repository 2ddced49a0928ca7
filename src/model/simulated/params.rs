//! The simulated model's parameters (`model.simulate`) and their ranges.

use serde::{Deserialize, Serialize};

use super::error::ParamsError;

/// The simulated model's parameters; every one has a default, documented
/// in the README.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulateParams {
    /// Tokens since the plan at which recall is halfway between 1 and the
    /// floor.
    pub attention_span: f64,
    /// How sharply recall falls around the attention span (the exponent of
    /// the Hill curve `1 / (1 + (tokens / span)^sharpness)`).
    pub sharpness: f64,
    /// Recall never falls below this; 1.0 turns drift off.
    pub recall_floor: f64,
    /// Characters per token when measuring the context.
    pub chars_per_token: f64,
    /// Tokens each of its own turns adds beyond the text it shows: its
    /// reasoning and the message framing. Keeps attention falling with the
    /// number of turns even when tool output is tiny.
    pub tokens_per_turn: f64,
    /// Chance of writing the plan with the planning tool on the first turn.
    pub plan_first: f64,
    /// Chance of updating the plan on an ordinary turn.
    pub todo_update_rate: f64,
    /// Chance of updating the plan when the latest user message holds a
    /// reminder.
    pub reminder_compliance: f64,
    /// Chance that a plan update is invalid.
    pub invalid_todo_rate: f64,
    /// In a session: chance of rewriting the plan for the new task on the
    /// first turn of a later part while the latest plan is an earlier
    /// part's. Otherwise it keeps the stale plan: the old list stays the
    /// one it follows (its unfinished items first, the new task's steps
    /// after them), recall counted from where that list was last seen, and
    /// its next update carries the old items along.
    pub rewrite_stale_plan: f64,
    /// Drift weights: skip ahead, repeat a finished step, improvise, stop.
    pub skip_weight: f64,
    pub repeat_weight: f64,
    pub improvise_weight: f64,
    pub stop_weight: f64,
    /// Chance, on each turn after the first of a task while no plan exists
    /// yet, of writing the first plan (exploration before planning).
    /// Unset (the default): the session's update rate, as on any ordinary
    /// turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_plan_hazard: Option<f64>,
    /// How much sessions differ in their update rate: each session draws
    /// its rate from a Beta distribution with mean `todo_update_rate` and
    /// this intra-session correlation (variance `d · m · (1 − m)`); 0 (the
    /// default): one rate for every session.
    pub update_rate_dispersion: f64,
    /// Chance that, when it believes the task is done, it makes one last
    /// planning call marking every item completed before it answers; 0
    /// (the default): it answers with the list as it stands.
    pub closing_update: f64,
    /// The most items one update newly marks completed (it ticks the
    /// earliest ones; the others wait for the next update); 0 (the
    /// default): every step it believes done.
    pub items_per_update: f64,
    /// The mean turns it spends on a step it recalls: on a turn set to do
    /// the next step (and not writing the plan) it first studies it — reads
    /// what the step reads, says nothing done — with chance `1 − 1/k`, so
    /// a step takes a geometric number of turns with mean `k`. 1 (the
    /// default): every such turn does the step.
    pub turns_per_step: f64,
    /// The chance that a run (a session) plans at all: it is drawn once a
    /// run, from a stream of its own; a run that does not never writes a
    /// plan. 1 (the default): every run has its planning chances.
    pub plans_at_all: f64,
}

impl Default for SimulateParams {
    fn default() -> Self {
        Self {
            attention_span: 420.0,
            sharpness: 4.0,
            recall_floor: 0.05,
            chars_per_token: 4.0,
            tokens_per_turn: 50.0,
            plan_first: 0.9,
            todo_update_rate: 0.15,
            reminder_compliance: 0.9,
            invalid_todo_rate: 0.05,
            rewrite_stale_plan: 0.5,
            skip_weight: 0.4,
            repeat_weight: 0.1,
            improvise_weight: 0.15,
            stop_weight: 0.35,
            first_plan_hazard: None,
            update_rate_dispersion: 0.0,
            closing_update: 0.0,
            items_per_update: 0.0,
            turns_per_step: 1.0,
            plans_at_all: 1.0,
        }
    }
}

impl SimulateParams {
    /// Every parameter's name, in declaration order (the names a matrix
    /// axis `simulate.<name>` may vary).
    pub const NAMES: [&'static str; 20] = [
        "attention_span",
        "sharpness",
        "recall_floor",
        "chars_per_token",
        "tokens_per_turn",
        "plan_first",
        "todo_update_rate",
        "reminder_compliance",
        "invalid_todo_rate",
        "rewrite_stale_plan",
        "skip_weight",
        "repeat_weight",
        "improvise_weight",
        "stop_weight",
        "first_plan_hazard",
        "update_rate_dispersion",
        "closing_update",
        "items_per_update",
        "turns_per_step",
        "plans_at_all",
    ];

    /// Whether the parameter called `name` only matters when a planning
    /// tool is offered (it says when or how the model plans): with `todo`
    /// false a matrix runs its values once.
    pub fn only_with_planning(name: &str) -> bool {
        matches!(
            name,
            "plan_first"
                | "todo_update_rate"
                | "reminder_compliance"
                | "invalid_todo_rate"
                | "rewrite_stale_plan"
                | "first_plan_hazard"
                | "update_rate_dispersion"
                | "closing_update"
                | "items_per_update"
                | "plans_at_all"
        )
    }

    /// The parameter called `name`, for reading and setting it by name.
    /// An unset `first_plan_hazard` reads (and is set to) the update rate
    /// it stands for.
    pub fn field_mut(&mut self, name: &str) -> Option<&mut f64> {
        Some(match name {
            "attention_span" => &mut self.attention_span,
            "sharpness" => &mut self.sharpness,
            "recall_floor" => &mut self.recall_floor,
            "chars_per_token" => &mut self.chars_per_token,
            "tokens_per_turn" => &mut self.tokens_per_turn,
            "plan_first" => &mut self.plan_first,
            "todo_update_rate" => &mut self.todo_update_rate,
            "reminder_compliance" => &mut self.reminder_compliance,
            "invalid_todo_rate" => &mut self.invalid_todo_rate,
            "rewrite_stale_plan" => &mut self.rewrite_stale_plan,
            "skip_weight" => &mut self.skip_weight,
            "repeat_weight" => &mut self.repeat_weight,
            "improvise_weight" => &mut self.improvise_weight,
            "stop_weight" => &mut self.stop_weight,
            "first_plan_hazard" => self.first_plan_hazard.get_or_insert(self.todo_update_rate),
            "update_rate_dispersion" => &mut self.update_rate_dispersion,
            "closing_update" => &mut self.closing_update,
            "items_per_update" => &mut self.items_per_update,
            "turns_per_step" => &mut self.turns_per_step,
            "plans_at_all" => &mut self.plans_at_all,
            _ => return None,
        })
    }

    /// Checks ranges; the message names the parameter.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let probabilities = [
            ("recall_floor", self.recall_floor),
            ("plan_first", self.plan_first),
            ("todo_update_rate", self.todo_update_rate),
            ("reminder_compliance", self.reminder_compliance),
            ("invalid_todo_rate", self.invalid_todo_rate),
            ("rewrite_stale_plan", self.rewrite_stale_plan),
            ("closing_update", self.closing_update),
            ("plans_at_all", self.plans_at_all),
            (
                "first_plan_hazard",
                self.first_plan_hazard.unwrap_or(self.todo_update_rate),
            ),
        ];
        for (name, p) in probabilities {
            if !(0.0..=1.0).contains(&p) {
                return Err(ParamsError::NotAProbability { name, value: p });
            }
        }
        self.validate_structure()?;
        if !(self.tokens_per_turn.is_finite() && self.tokens_per_turn >= 0.0) {
            return Err(ParamsError::TokensPerTurn {
                value: self.tokens_per_turn,
            });
        }
        for (name, v) in [
            ("attention_span", self.attention_span),
            ("chars_per_token", self.chars_per_token),
            ("sharpness", self.sharpness),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ParamsError::NotPositive { name, value: v });
            }
        }
        let weights = [
            ("skip_weight", self.skip_weight),
            ("repeat_weight", self.repeat_weight),
            ("improvise_weight", self.improvise_weight),
            ("stop_weight", self.stop_weight),
        ];
        for (name, w) in weights {
            if !(w.is_finite() && w >= 0.0) {
                return Err(ParamsError::NegativeWeight { name, value: w });
            }
        }
        if weights.iter().map(|(_, w)| w).sum::<f64>() <= 0.0 {
            return Err(ParamsError::NoDriftWeight);
        }
        Ok(())
    }

    /// The ranges of the session-level pieces: a dispersion below 1 (at 1
    /// the Beta degenerates), a whole number of items per update, at least
    /// one turn a step.
    fn validate_structure(&self) -> Result<(), ParamsError> {
        let d = self.update_rate_dispersion;
        if !(0.0..1.0).contains(&d) {
            return Err(ParamsError::Dispersion { value: d });
        }
        let k = self.items_per_update;
        if !(k.is_finite() && k >= 0.0 && k.fract() == 0.0) {
            return Err(ParamsError::ItemsPerUpdate { value: k });
        }
        let t = self.turns_per_step;
        if !(t.is_finite() && t >= 1.0) {
            return Err(ParamsError::TurnsPerStep { value: t });
        }
        Ok(())
    }
}
