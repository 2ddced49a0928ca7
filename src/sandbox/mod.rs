//! Floor 2: where runs act.
//!
//! [`workspace`]: a run's files (held in memory until a process needs a
//! folder, then on disk), with [`workspace::path`] resolving requested paths inside
//! it; [`process`]: contained child processes (process group, timeout,
//! capped output, cancellation); [`landlock`]: the Landlock rules applied
//! between fork and exec; [`command`]: `sh -c` in a workspace, the runner
//! of the `bash` tool and of `command:` checks, with [`outcome`] holding
//! its settings and results; [`read_only`] and [`contained`]:
//! which commands only read, or write only what they are given, and
//! depend on nothing but the files; [`reuse`]: the cache of their effects;
//! [`secrets`]: which environment variables are credentials, kept from
//! every process started; [`reaper`]: the init agent-eval puts above
//! itself when it is process 1. Built on
//! [`crate::cancel`] only.

pub mod command;
pub mod contained;
pub mod landlock;
pub mod outcome;
pub mod process;
pub mod read_only;
pub mod reaper;
pub mod reuse;
pub mod secrets;
mod shell_words;
pub mod workspace;
