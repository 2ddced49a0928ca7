//! The agent: the loop and everything it calls — planning dialects, reminder
//! policies and their placement, the workspace tools, and the protocol
//! check. Built on [`crate::llm`] only.

pub mod agent_loop;
pub mod dialect;
pub mod process;
pub mod protocol;
pub mod pyrepr;
pub mod reminder;
pub mod sandbox;
pub mod todo;
pub mod tools;
pub mod workspace;

pub use agent_loop::{
    LoopOutcome, LoopSettings, REMINDER, RepeatGuard, StopKind, run_loop, run_session,
    system_prompt,
};
