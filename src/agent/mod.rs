//! The agent: the loop and everything it calls — planning dialects, reminder
//! policies and their placement, the workspace tools, and the protocol
//! check. Built on [`crate::llm`] only.

pub mod agent_loop;
pub mod tools;

pub use agent_loop::{
    LoopOutcome, LoopSettings, REMINDER, RepeatGuard, StopKind, run_loop, run_session,
    system_prompt,
};
