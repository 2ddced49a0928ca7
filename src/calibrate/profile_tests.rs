//! Whatever sessions calibration is given — absurd usage (`u64::MAX`
//! tokens), no plan, every reminder ignored — the profile it writes is one
//! the profile loader (`run --profile`, `simulate: {profile}`) accepts.

use proptest::prelude::*;

use super::{Options, calibrate};
use crate::model::simulated::profile::Profile;
use crate::transcript::{Format, ItemStatus, Part, PlanningCall, Reminders, Session, Turn};

fn status() -> impl Strategy<Value = ItemStatus> {
    prop_oneof![
        Just(ItemStatus::Pending),
        Just(ItemStatus::InProgress),
        Just(ItemStatus::Completed)
    ]
}

/// Token counts as a forged file may hold them: small, huge, the extremes.
fn tokens() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        Just(None),
        Just(Some(0)),
        Just(Some(u64::MAX)),
        (0u64..5_000).prop_map(Some),
        any::<u64>().prop_map(Some),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        prop::collection::vec((any::<bool>(), any::<bool>()), 0..3),
        prop::option::of(prop::collection::vec(status(), 0..5)),
        any::<bool>(),
        tokens(),
        tokens(),
        prop_oneof![Just(0u64), Just(u64::MAX), 0u64..100_000],
        0u32..4,
    )
        .prop_map(
            |(calls, plan_after, reminder_before, input, output, chars, other)| Turn {
                planning_calls: calls
                    .into_iter()
                    .map(|(accepted, writes)| PlanningCall {
                        tool: "TodoWrite".into(),
                        accepted,
                        writes,
                    })
                    .collect(),
                plan_after,
                reminder_before,
                reminder_predicted: false,
                input_tokens: input,
                output_tokens: output,
                new_context_chars: chars,
                other_tool_calls: other,
            },
        )
}

fn session() -> impl Strategy<Value = Session> {
    prop::collection::vec(prop::collection::vec(turn(), 1..6), 1..3).prop_map(|parts| Session {
        format: Format::ClaudeCode,
        agent_version: Some("2.1.0".into()),
        models: vec!["m".into()],
        reminders: Reminders::Recorded,
        parts: parts.into_iter().map(|turns| Part { turns }).collect(),
        id: None,
        group: String::new(),
        content_hash: String::new(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_profile_calibrate_writes_is_one_the_loader_accepts(
        sessions in prop::collection::vec(session(), 1..4),
        seed in any::<u64>(),
    ) {
        let options = Options { holdout: 0.5, seed, simulated_runs: 1, ..Options::default() };
        let result = calibrate(&sessions, &options).expect("sessions given");
        let yaml = result.profile().to_yaml();
        let read = Profile::parse(std::path::Path::new("p.yaml"), &yaml);
        prop_assert!(read.is_ok(), "{:?}\n{yaml}", read.err());
    }
}
