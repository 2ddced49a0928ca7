//! The ACP client on an agent's stdio: [`AcpTalk`] is the
//! `Conversation` the process runner (`sandbox::process`) drives — what
//! the agent writes on stdout goes to the [`AcpClient`], what the client
//! says goes to the agent's stdin, and the client's `acp:` lines go to the
//! run's log as they come.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::time::Instant;

use super::client::{AcpClient, AcpReport};
use crate::sandbox::process::Conversation;

/// The client on the agent's stdio: what it hears goes to the client,
/// what it says to stdin, and its log lines to the run's log.
pub struct AcpTalk<'a> {
    client: RefCell<AcpClient<'a>>,
    log: Option<&'a File>,
}

impl<'a> AcpTalk<'a> {
    pub fn new(client: AcpClient<'a>, log: Option<&'a File>) -> Self {
        Self {
            client: RefCell::new(client),
            log,
        }
    }

    fn flush_log(&self, client: &mut AcpClient<'a>) {
        let lines = client.take_log();
        if let Some(mut file) = self.log
            && !lines.is_empty()
        {
            // A failing log loses lines, never the run.
            let _ = file.write_all(lines.as_bytes());
        }
    }

    /// Looks at the clock; whether the conversation is over.
    pub fn finished(&self) -> bool {
        let mut client = self.client.borrow_mut();
        client.tick(Instant::now());
        self.flush_log(&mut client);
        client.finished()
    }

    /// The report, once the agent is gone (see [`AcpClient::conclude`]).
    pub fn conclude(self, exit_code: Option<i32>, timed_out: bool) -> AcpReport {
        let client = self.client.into_inner();
        let failed_before = client.finished();
        let report = client.conclude(exit_code, timed_out);
        if !failed_before && let (Some(mut file), Some(why)) = (self.log, &report.failure) {
            let _ = writeln!(file, "acp: failed: {why}");
        }
        report
    }
}

impl Conversation for AcpTalk<'_> {
    fn heard(&self, bytes: &[u8]) {
        let mut client = self.client.borrow_mut();
        client.hear(bytes);
        self.flush_log(&mut client);
    }

    fn to_say(&self, unread: usize) -> Vec<u8> {
        let mut client = self.client.borrow_mut();
        client.note_unread(unread);
        self.flush_log(&mut client);
        client.take_output().into_bytes()
    }
}
