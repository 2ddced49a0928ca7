//! What each counted metric counts on one run (reminders, todo calls,
//! tokens...), and a cell's running sums of them. Below [`super::cell_runs`],
//! which keeps the sums as runs arrive, and [`super::metric_values`],
//! which turns them into the table's values.

use super::record::RunResult;
use crate::metric::{METRICS, PerRun};

/// What `what` counts on one run, for the metrics a cell keeps only as a
/// sum; `None` for those read from the run's row. A new count is one arm
/// here (and its field on the record).
pub fn count(what: PerRun, run: &RunResult) -> Option<u64> {
    let n = match what {
        PerRun::Completion
        | PerRun::FullCompletion
        | PerRun::StepsCompleted
        | PerRun::PlanningShare => return None,
        PerRun::Reminders => run.reminders_at.len(),
        PerRun::RejectedTodoUpdates => run.rejected_todo_updates,
        PerRun::TodoCalls => run.todo_calls,
        PerRun::Turns => run.turns,
        PerRun::ProtocolViolations => run.protocol_violations,
        PerRun::UnknownToolCalls => run.unknown_tool_calls,
        PerRun::UnexpectedUserMessages => run.unexpected_user_messages,
        PerRun::PlanningTurns => run.planning_turns,
        PerRun::RemindersAfterPlanning => run.reminders_after_planning,
        PerRun::ContextTokens => return Some(run.context_tokens),
        PerRun::PlanningTokens => return Some(run.planning_tokens),
    };
    Some(u64::try_from(n).unwrap_or(u64::MAX))
}

/// Adds one run's counts to a cell's sums (`sums` holds one place per
/// table entry; see [`super::cell_runs::RunTotals::counts`]).
pub fn add_counts(sums: &mut Vec<u64>, run: &RunResult) {
    sums.resize(METRICS.len(), 0);
    for (sum, metric) in sums.iter_mut().zip(METRICS) {
        if let Some(n) = count(metric.per_run, run) {
            *sum = sum.saturating_add(n);
        }
    }
}
