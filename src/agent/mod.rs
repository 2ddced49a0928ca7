//! The s03 agent loop and everything it calls: messages, the TodoManager,
//! the workspace tools, the nag reminder and the protocol check.

pub mod agent_loop;
pub mod dialect;
pub mod protocol;
pub mod todo;
pub mod tools;
pub mod workspace;

pub use agent_loop::{LoopOutcome, LoopSettings, REMINDER, StopKind, run_loop, system_prompt};
