//! Evaluation: expand each scenario's matrix into runs, execute them (in
//! parallel, results in a fixed order), summarise each cell and check the
//! expectations. The engine emits [`EvalEvent`]s as it goes; reporters
//! consume the finished [`crate::results::ScenarioResult`]s.

pub mod checks;
pub mod error;
pub mod execute;
pub mod matrix;
pub mod sweep;
pub mod workspace_image;

pub use crate::scenario::cells::{Cell, cells};
pub use execute::{
    RunEnv, RunError, model_for, model_for_in, run_once, run_once_in, run_with_model,
};
pub use matrix::{
    DEFAULT_MAX_RUNS, EvalError, EvalEvent, EvalOptions, Plan, Shard, Unit, UnitOutcome, admit,
    evaluate, evaluate_plan, evaluate_scenario, plan,
};
