//! Whether a cell's runs agree on what exact expectations measure (turns,
//! stop, reminders_at, ...): the cell's first run, and which of those
//! measures some later run differs in. Noted as runs are added, so an exact
//! expectation that holds on every run, or fails on the first one, is
//! decided without reading the spilled records back (reading a million
//! records back is most of what checking `turns: 11` would cost).

use super::record::RunResult;
use crate::scenario::ExactExpectation;

/// A cell's first run and the exact measures its runs do not agree on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExactTally {
    first: Option<RunResult>,
    /// One bit per measure (see [`bit`]): some run differs from the first.
    varied: u16,
}

impl ExactTally {
    /// Adds one run (runs are added in the order they are listed).
    pub fn add(&mut self, run: &RunResult) {
        match &self.first {
            None => self.first = Some(run.clone()),
            Some(first) => self.varied |= differences(first, run),
        }
    }

    /// The first run, if any was added.
    pub fn first(&self) -> Option<&RunResult> {
        self.first.as_ref()
    }

    /// Whether every run added measures what the first run measures for
    /// `exact` (false when none was added).
    pub fn uniform(&self, exact: &ExactExpectation) -> bool {
        self.first.is_some() && self.varied & bit(exact) == 0
    }
}

/// The measure's bit.
fn bit(exact: &ExactExpectation) -> u16 {
    let place = match exact {
        ExactExpectation::RemindersAt(_) => 0,
        ExactExpectation::StepsCompleted(_) => 1,
        ExactExpectation::RejectedTodoUpdates(_) => 2,
        ExactExpectation::TodoCalls(_) => 3,
        ExactExpectation::UnknownToolCalls(_) => 4,
        ExactExpectation::UnexpectedUserMessages(_) => 5,
        ExactExpectation::Stop(_) => 6,
        ExactExpectation::Turns(_) => 7,
        ExactExpectation::ProtocolViolations(_) => 8,
        ExactExpectation::DriftTurns(_) => 9,
    };
    1 << place
}

/// The bits of the measures `a` and `b` differ in (the same fields
/// `verdict::exact_measure` reads, at the places [`bit`] gives them).
fn differences(a: &RunResult, b: &RunResult) -> u16 {
    let checks = [
        a.reminders_at != b.reminders_at,
        a.steps_completed != b.steps_completed,
        a.rejected_todo_updates != b.rejected_todo_updates,
        a.todo_calls != b.todo_calls,
        a.unknown_tool_calls != b.unknown_tool_calls,
        a.unexpected_user_messages != b.unexpected_user_messages,
        a.stop != b.stop,
        a.turns != b.turns,
        a.protocol_violations != b.protocol_violations,
        a.drift_turns != b.drift_turns,
    ];
    checks
        .iter()
        .enumerate()
        .fold(0, |bits, (place, &differs)| {
            bits | (u16::from(differs) << place)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::StopKind;

    fn run(seed: u64, turns: usize, stop: StopKind) -> RunResult {
        RunResult {
            turns,
            stop,
            steps_completed: 3,
            steps_total: 3,
            reminders_at: vec![2],
            todo_calls: 1,
            ..RunResult::zeroed(seed)
        }
    }

    #[test]
    fn notes_the_measures_that_vary_and_no_others() {
        let mut tally = ExactTally::default();
        assert!(!tally.uniform(&ExactExpectation::Turns(11)));
        tally.add(&run(0, 11, StopKind::EndTurn));
        tally.add(&run(1, 11, StopKind::MaxTurns));
        tally.add(&run(2, 11, StopKind::EndTurn));
        assert!(tally.uniform(&ExactExpectation::Turns(5)));
        assert!(tally.uniform(&ExactExpectation::RemindersAt(vec![])));
        assert!(!tally.uniform(&ExactExpectation::Stop(StopKind::EndTurn)));
        assert_eq!(tally.first().map(|r| r.seed), Some(0));
    }
}
