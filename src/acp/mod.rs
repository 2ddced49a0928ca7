//! The Agent Client Protocol, client side: agent-eval as the editor of an
//! outside agent that speaks ACP on its stdio (`task_via: acp`). Floor 4,
//! beside [`crate::wire`]: the wire is the protocol agent-eval serves to
//! an agent's model requests, this the one it speaks to the agent itself.
//! It knows the planning statuses (`plan`) and the process runner's
//! conversation seam (`sandbox`), nothing above; `eval::execute` starts
//! the agent and hands it an [`AcpTalk`].
//!
//! - [`records`]: the messages read, as serde records (the protocol's
//!   documentation, versions named);
//! - [`messages`]: the requests sent, and a line read into a response,
//!   request or notification;
//! - [`lines`]: stdout cut into lines, each byte searched once;
//! - [`client`]: the conversation, sans I/O (fed bytes and the clock);
//! - [`talk`]: the client on the agent's stdio and the run's log;
//! - [`failure`]: why a conversation failed, typed;
//! - [`plan`]: the plans an agent reported, as a run keeps them.

pub mod client;
pub mod failure;
pub mod lines;
pub mod messages;
pub mod plan;
pub mod records;
pub mod talk;

pub use client::{AcpClient, AcpReport, HANDSHAKE_TIMEOUT, PLANS_KEPT, UNREAD_CAP};
pub use failure::{AcpFailure, Ending, LineError, PlanError};
pub use plan::{AgentPlan, AgentPlanEntry};
pub use talk::AcpTalk;
