//! Evaluation: expand each scenario's matrix into runs, execute them (in
//! parallel, results in a fixed order), summarise each cell and check the
//! expectations. The engine emits [`EvalEvent`]s as it goes; reporters
//! consume the finished [`ScenarioResult`]s.

pub mod cells;
pub mod checks;
pub mod compare;
pub mod expect;
pub mod external;
pub mod matrix;
pub mod metrics;
pub mod part_cells;
pub mod parts;
pub mod run;
pub mod runs;
pub mod stats;
pub mod summary;
pub mod sweep;
pub mod workspace;

pub use cells::{Cell, cells};
pub use expect::ExpectationOutcome;
pub use matrix::{
    DEFAULT_MAX_RUNS, EvalError, EvalEvent, EvalOptions, Plan, Shard, Unit, UnitOutcome, admit,
    evaluate, evaluate_plan, evaluate_scenario, plan,
};
pub use parts::{PartMetrics, SessionFigures, session_figures};
pub use run::{
    RunEnv, RunError, RunMetrics, RunRecord, model_for, model_for_in, run_once, run_once_in,
    run_with_model,
};
pub use runs::{RunRow, Runs};
pub use summary::{CellSummary, ScenarioResult};
