//! [`apply_shared`] against the dialect's own apply: the same outcome and
//! the same plan after it, for any call on any plan, accepted or refused,
//! whether the call was cached before or not.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::llm::ToolSchema;
use crate::plan::dialect::{Dialect, InvalidUpdate, PlanCall, PlanStatus};

/// A plan of up to five items, with any status and short texts (an empty
/// one now and then, which most dialects refuse).
fn any_plan() -> impl Strategy<Value = Vec<PlanItem>> {
    let status = prop_oneof![
        Just(PlanStatus::Pending),
        Just(PlanStatus::InProgress),
        Just(PlanStatus::Completed),
        Just(PlanStatus::Failed),
        Just(PlanStatus::Cancelled),
    ];
    proptest::collection::vec(("[a-c ]{0,3}", status), 0..6).prop_map(|items| {
        items
            .into_iter()
            .enumerate()
            .map(|(k, (text, status))| PlanItem::new((k + 1).to_string(), text, status))
            .collect()
    })
}

/// A call in the dialect's shape: the update from one plan to another, one
/// the dialect refuses, or a list of any JSON under the dialect's key.
fn calls_of(
    dialect: &dyn PlanDialect,
    before: &[PlanItem],
    wanted: &[PlanItem],
    kind: usize,
    odd: &Value,
) -> Vec<PlanCall> {
    let invalid = [
        InvalidUpdate::TwoInProgress,
        InvalidUpdate::EmptyText,
        InvalidUpdate::UnknownStatus,
        InvalidUpdate::TooMany,
    ];
    let mut calls = dialect.write_update(before, wanted);
    if let Some(broken) = invalid
        .get(kind)
        .and_then(|kind| dialect.write_invalid(wanted, *kind))
    {
        calls.push(broken);
    }
    let odd_calls: Vec<PlanCall> = calls
        .iter()
        .filter_map(|call| {
            let (key, _) = call.input.as_object()?.iter().next()?;
            Some(PlanCall {
                tool: call.tool.clone(),
                input: json!({ key: [odd.clone()] }),
            })
        })
        .collect();
    calls.extend(odd_calls);
    calls
}

fn any_item_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        "[a-z]{0,3}".prop_map(Value::String),
        ("[0-9]{0,2}", "[a-z ]{0,3}", "[a-z_]{0,11}").prop_map(
            |(id, text, status)| json!({"id": id, "text": text, "content": text, "status": status})
        ),
    ]
}

proptest! {
    #[test]
    fn a_shared_call_answers_as_the_dialect_does(
        which in 0..Dialect::ALL.len(),
        before in any_plan(),
        wanted in any_plan(),
        other in any_plan(),
        kind in 0usize..6,
        odd in any_item_json(),
    ) {
        let Some(dialect) = Dialect::ALL.get(which).map(|d| d.get()) else {
            return Ok(());
        };
        prop_assume!(dialect.apply_is_pure());
        for call in calls_of(dialect, &before, &wanted, kind, &odd) {
            let input = Arc::new(call.input);
            // Shared, as a script's input is between runs.
            let script = Arc::clone(&input);
            // Each start twice: applied, then taken from the cache.
            for start in [&before, &before, &other, &before, &other] {
                let mut general = start.clone();
                let expected = dialect.apply(&mut general, &call.tool, &script);
                let mut shared = start.clone();
                let got = apply_shared(dialect, &mut shared, &call.tool, &input);
                prop_assert_eq!(got, expected);
                prop_assert_eq!(shared, general);
            }
        }
    }
}

/// Counts its applies; answers with the plan's length and a call number,
/// so a reused answer shows.
#[derive(Debug)]
struct Counting {
    pure: bool,
}

static APPLIES: AtomicUsize = AtomicUsize::new(0);

impl PlanDialect for Counting {
    fn name(&self) -> &'static str {
        if self.pure {
            "counting"
        } else {
            "counting-impure"
        }
    }
    fn tools(&self) -> Vec<ToolSchema> {
        Vec::new()
    }
    fn is_planning_tool(&self, tool: &str) -> bool {
        tool == "plan"
    }
    fn apply(&self, plan: &mut Vec<PlanItem>, _tool: &str, input: &Value) -> PlanOutcome {
        let n = APPLIES.fetch_add(1, Ordering::SeqCst);
        if input["refuse"] == json!(true) {
            return PlanOutcome::rejected(format!("Error: no {n}"));
        }
        plan.push(PlanItem::new(n.to_string(), "x", PlanStatus::Pending));
        PlanOutcome::accepted(format!("{} items", plan.len()))
    }
    fn apply_is_pure(&self) -> bool {
        self.pure
    }
    fn render(&self, plan: &[PlanItem]) -> String {
        plan.len().to_string()
    }
    fn plan_from_result(&self, _result: &str) -> Option<Vec<PlanItem>> {
        None
    }
    fn error_prefix(&self) -> &'static str {
        "Error: "
    }
    fn write_update(&self, _before: &[PlanItem], _wanted: &[PlanItem]) -> Vec<PlanCall> {
        Vec::new()
    }
    fn write_invalid(&self, _wanted: &[PlanItem], _kind: InvalidUpdate) -> Option<PlanCall> {
        None
    }
}

#[test]
fn only_a_pure_dialects_shared_call_on_the_same_plan_is_reused() {
    // One thread of its own: the cache is the thread's.
    std::thread::spawn(|| {
        let pure = Counting { pure: true };
        let input = Arc::new(json!({}));
        let script = Arc::clone(&input);
        let applies = || APPLIES.load(Ordering::SeqCst);

        let first = applies();
        let mut plan = Vec::new();
        let outcome = apply_shared(&pure, &mut plan, "plan", &input);
        let item = PlanItem::new(first.to_string(), "x", PlanStatus::Pending);
        assert_eq!(outcome, PlanOutcome::accepted("1 items"));
        let mut again = Vec::new();
        assert_eq!(apply_shared(&pure, &mut again, "plan", &input), outcome);
        assert_eq!((plan, again), (vec![item.clone()], vec![item.clone()]));
        assert_eq!(applies(), first + 1, "the second call was reused");

        // Another plan before it, another tool, another dialect, an input
        // of the same value but not shared: applied again.
        let mut other = vec![item.clone()];
        assert_eq!(
            apply_shared(&pure, &mut other, "plan", &input).content,
            "2 items"
        );
        apply_shared(&pure, &mut Vec::new(), "plan2", &input);
        apply_shared(&Counting { pure: false }, &mut Vec::new(), "plan", &input);
        apply_shared(&Counting { pure: false }, &mut Vec::new(), "plan", &input);
        apply_shared(&pure, &mut Vec::new(), "plan", &Arc::new(json!({})));
        assert_eq!(applies(), first + 6);

        // A refusal is reused and leaves the plan as it was.
        let refuse = Arc::new(json!({"refuse": true}));
        let _script = Arc::clone(&refuse);
        let mut kept = vec![item.clone()];
        let refused = apply_shared(&pure, &mut kept, "plan", &refuse);
        assert_eq!(apply_shared(&pure, &mut kept, "plan", &refuse), refused);
        assert!(!refused.accepted);
        assert_eq!(kept, [item]);
        assert_eq!(applies(), first + 7);
        drop(script);
    })
    .join()
    .unwrap();
}

#[test]
fn copilot_sql_is_never_reused_and_whole_lists_are() {
    assert!(!Dialect::CopilotSql.get().apply_is_pure());
    assert!(Dialect::S03.get().apply_is_pure());
}

/// A plan whose items may carry an active form and task fields.
fn any_rich_plan() -> impl Strategy<Value = Vec<PlanItem>> {
    (any_plan(), proptest::collection::vec(0u8..4, 6)).prop_map(|(mut plan, extras)| {
        for (item, extra) in plan.iter_mut().zip(extras) {
            if extra & 1 == 1 {
                item.active_form = Some(format!("Doing {}", item.text));
            }
            if extra & 2 == 2 {
                item.task = Some(Box::new(crate::plan::dialect::TaskFields {
                    description: item.text.repeat(2),
                    blocks: vec![item.id.clone()],
                    ..Default::default()
                }));
            }
        }
        plan
    })
}

proptest! {
    #[test]
    fn a_plan_copied_over_another_is_its_copy(mut to in any_rich_plan(), from in any_rich_plan()) {
        to.clone_from(&from);
        prop_assert_eq!(&to, &from);
        let copies: Vec<PlanItem> = from.iter().map(Clone::clone).collect();
        prop_assert_eq!(copies, from);
    }
}
