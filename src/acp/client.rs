//! agent-eval as the Agent Client Protocol client of an outside agent
//! (`task_via: acp`): the agent runs as any outside agent does (see
//! `eval::execute::agent_process`: its own process group or PID
//! namespace, the mock model on its API endpoint), and agent-eval talks to it over its
//! stdin and stdout, one JSON-RPC message a line ([`super::messages`]).
//!
//! The conversation: `initialize` (no file system, no terminal offered);
//! `session/new` in the workspace with no MCP server — and, when the agent
//! answers that it needs authentication, `authenticate` with the first of
//! its methods whose environment variables the agent has (codex-acp's
//! `openai-api-key`, whose `OPENAI_API_KEY` is the mock's dummy), then
//! `session/new` again; then one `session/prompt` per part of the scenario
//! (one for a plain task), each sent once the one before was answered, so
//! every ACP agent runs multi-message sessions. Permission requests are
//! granted (the option that allows always, else once), as the presets
//! grant their tools. `session/update` notifications are read as they
//! come: each `plan` (the whole list) becomes one of the run's
//! [`AgentPlan`]s, stamped with the model responses served so far; plans
//! and tool calls are written to the run's log (`acp: ...` lines).
//!
//! Bounded: `initialize`, `authenticate` and `session/new` must each be
//! answered within [`HANDSHAKE_TIMEOUT`] (or the agent's timeout when
//! shorter), each prompt within the agent's timeout. An agent that writes
//! a line that is not JSON-RPC, never answers, makes a request agent-eval
//! does not serve (answered `-32601` first), answers one of ours with an
//! error, or exits before its last prompt is answered, fails: the reason
//! ends its run, and its process tree is killed as any outside agent's.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::failure::{AcpFailure, Ending};
use super::lines::Lines;
use super::messages::{
    self as msg, AUTH_REQUIRED, Incoming, RpcError, Update, initialize_params, prompt_params,
    session_new_params,
};
use super::plan::AgentPlan;
use super::records::{InitializeResult, PermissionRequest, PromptResult, SessionNewResult};

/// How long each step of the handshake may take (an agent on Node.js
/// starts in a few seconds).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest line read from the agent: a longer one is garbage.
pub const LINE_CAP: usize = 16 << 20;
/// Bytes of answers that may wait for an agent that does not read its
/// stdin; past them the conversation fails (and the agent is ended).
pub const UNREAD_CAP: usize = 1 << 20;
/// Plan updates kept: the first ones, and always the latest in the last
/// place; the others are counted (`plans_dropped`).
pub const PLANS_KEPT: usize = 1000;

/// What one request of ours waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaiting {
    Initialize,
    Authenticate,
    SessionNew,
    /// The prompt of this part (0-based).
    Prompt(usize),
}

impl Awaiting {
    fn method(self) -> &'static str {
        match self {
            Self::Initialize => "initialize",
            Self::Authenticate => "authenticate",
            Self::SessionNew => "session/new",
            Self::Prompt(_) => "session/prompt",
        }
    }
}

/// What the conversation gave, read once the agent is gone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AcpReport {
    /// The plans the agent reported, in order: the first
    /// [`PLANS_KEPT`] − 1 and the latest.
    pub plans: Vec<AgentPlan>,
    /// Plan updates not kept (between the first ones and the latest).
    pub plans_dropped: usize,
    /// Each answered prompt's `stopReason`, in order.
    pub stop_reasons: Vec<String>,
    /// `session/update`s of a kind agent-eval does not know (counted,
    /// never quoted).
    pub unknown_updates: usize,
    /// Why the conversation failed, if it did.
    pub failure: Option<AcpFailure>,
}

/// The client's state (sans I/O: fed the agent's bytes and the clock, it
/// says what to write back).
pub struct AcpClient<'a> {
    parts: Vec<String>,
    cwd: String,
    /// Names of the variables set in the agent's environment.
    env_names: BTreeSet<String>,
    /// Model responses served so far (stamps each plan).
    turns: Box<dyn Fn() -> usize + 'a>,
    next_id: u64,
    awaiting: Option<(u64, Awaiting)>,
    deadline: Instant,
    prompt_timeout: Duration,
    handshake_timeout: Duration,
    /// `initialize`'s result (its `authMethods`).
    initialized: InitializeResult,
    auth_tried: usize,
    session_id: String,
    lines: Lines,
    out: String,
    log: String,
    report: AcpReport,
    done: bool,
}

impl<'a> AcpClient<'a> {
    /// A client that will send `parts` (at least one) in `cwd`, each prompt
    /// bounded by `timeout`; it starts by saying `initialize`.
    pub fn new(
        parts: Vec<String>,
        cwd: String,
        env_names: BTreeSet<String>,
        timeout: Duration,
        turns: Box<dyn Fn() -> usize + 'a>,
    ) -> Self {
        let handshake_timeout = HANDSHAKE_TIMEOUT.min(timeout);
        let mut client = Self {
            parts,
            cwd,
            env_names,
            turns,
            next_id: 0,
            awaiting: None,
            deadline: Instant::now(),
            prompt_timeout: timeout,
            handshake_timeout,
            initialized: InitializeResult::default(),
            auth_tried: 0,
            session_id: String::new(),
            lines: Lines::default(),
            out: String::new(),
            log: String::new(),
            report: AcpReport::default(),
            done: false,
        };
        client.send(Awaiting::Initialize, initialize_params());
        client
    }

    fn send(&mut self, what: Awaiting, params: Value) {
        self.next_id += 1;
        self.out
            .push_str(&msg::request(self.next_id, what.method(), params));
        self.awaiting = Some((self.next_id, what));
        let bound = match what {
            Awaiting::Prompt(_) => self.prompt_timeout,
            _ => self.handshake_timeout,
        };
        self.deadline = Instant::now() + bound;
    }

    /// Whether the conversation is over: every prompt answered, or failed.
    pub fn finished(&self) -> bool {
        self.done || self.report.failure.is_some()
    }

    fn fail(&mut self, why: AcpFailure) {
        if self.report.failure.is_none() {
            self.log.push_str(&format!("acp: failed: {why}\n"));
            self.report.failure = Some(why);
        }
    }

    /// Looks at the clock: a request unanswered past its bound fails.
    pub fn tick(&mut self, now: Instant) {
        if self.finished() || now < self.deadline {
            return;
        }
        if let Some((_, what)) = self.awaiting {
            let bound = match what {
                Awaiting::Prompt(_) => self.prompt_timeout,
                _ => self.handshake_timeout,
            };
            let part = match what {
                Awaiting::Prompt(part) => Some(part),
                _ => None,
            };
            self.fail(AcpFailure::NeverAnswered {
                method: what.method(),
                part,
                bound,
            });
        }
    }

    /// Bytes the agent wrote on stdout: each whole line is handled (see
    /// [`Lines`]: each byte is searched once), none once the conversation
    /// is over.
    pub fn hear(&mut self, bytes: &[u8]) {
        let mut lines = std::mem::take(&mut self.lines);
        let pushed = lines.push(bytes, LINE_CAP, |line| {
            if self.finished() {
                return;
            }
            let line = String::from_utf8_lossy(line);
            if !line.trim().is_empty() {
                self.handle_line(&line);
            }
        });
        self.lines = lines;
        if pushed.is_err() {
            self.fail(AcpFailure::LineTooLong { cap: LINE_CAP });
        }
    }

    /// Bytes of the agent's stdout searched for a newline so far.
    pub fn bytes_searched(&self) -> u64 {
        self.lines.searched()
    }

    /// Notes how many bytes said to the agent it has not read yet: past
    /// [`UNREAD_CAP`] the conversation fails rather than queue more.
    pub fn note_unread(&mut self, unread: usize) {
        let queued = unread + self.out.len();
        if queued > UNREAD_CAP && !self.finished() {
            self.out.clear();
            self.fail(AcpFailure::StdinUnread {
                queued,
                cap: UNREAD_CAP,
            });
        }
    }

    fn handle_line(&mut self, line: &str) {
        match msg::parse_line(line) {
            Err(why) => self.fail(AcpFailure::Garbage(why)),
            Ok(Incoming::Response { id, result }) => self.on_response(id, result),
            Ok(Incoming::Request { id, method, params }) => self.on_request(&id, method, &params),
            Ok(Incoming::Notification { method, params }) => {
                if method == "session/update" {
                    self.on_update(&params);
                }
            }
        }
    }

    fn on_response(&mut self, id: u64, result: Result<Value, RpcError>) {
        let Some((_, what)) = self.awaiting.filter(|(expected, _)| *expected == id) else {
            self.fail(AcpFailure::NotWaiting { id });
            return;
        };
        self.awaiting = None;
        match (what, result) {
            (Awaiting::Initialize, Ok(result)) => {
                // Lenient records: any object reads, another value reads as
                // one offering no authentication.
                self.initialized = InitializeResult::deserialize(&result).unwrap_or_default();
                self.send(Awaiting::SessionNew, session_new_params(&self.cwd));
            }
            (Awaiting::SessionNew, Ok(result)) => self.on_session(&result),
            (Awaiting::SessionNew, Err(error)) if error.code == AUTH_REQUIRED => {
                self.authenticate(&error)
            }
            (Awaiting::Authenticate, Ok(_)) => {
                self.send(Awaiting::SessionNew, session_new_params(&self.cwd));
            }
            (Awaiting::Authenticate, Err(error)) => self.authenticate(&error),
            (Awaiting::Prompt(part), Ok(result)) => self.on_prompt_answered(part, &result),
            (what, Err(error)) => self.fail(AcpFailure::ErrorAnswer {
                method: what.method(),
                code: error.code,
                message: error.message,
            }),
        }
    }

    /// Tries the next usable authentication method, or fails with why the
    /// agent asked for one.
    fn authenticate(&mut self, error: &RpcError) {
        let names = &self.env_names;
        let usable = msg::usable_auth_methods(&self.initialized, &|v| names.contains(v));
        match usable.get(self.auth_tried).cloned() {
            Some(method) => {
                self.auth_tried += 1;
                self.log
                    .push_str(&format!("acp: authenticate with `{method}`\n"));
                self.send(
                    Awaiting::Authenticate,
                    serde_json::json!({"methodId": method}),
                );
            }
            None => self.fail(AcpFailure::NoUsableAuthentication {
                message: error.message.clone(),
            }),
        }
    }

    fn on_session(&mut self, result: &Value) {
        let record = SessionNewResult::deserialize(result).unwrap_or_default();
        let Some(session) = record.session_id.0 else {
            self.fail(AcpFailure::NoSessionId {
                result: msg::shown(&result.to_string()),
            });
            return;
        };
        self.log.push_str(&format!("acp: session {session}\n"));
        self.session_id = session;
        self.prompt(0);
    }

    fn prompt(&mut self, part: usize) {
        let text = self.parts.get(part).cloned().unwrap_or_default();
        let params = prompt_params(&self.session_id, &text);
        self.send(Awaiting::Prompt(part), params);
    }

    fn on_prompt_answered(&mut self, part: usize, result: &Value) {
        let record = PromptResult::deserialize(result).unwrap_or_default();
        let reason = record.stop_reason.0.unwrap_or_else(|| "?".to_string());
        self.log.push_str(&format!(
            "acp: prompt {} answered: stopReason {reason}\n",
            part + 1
        ));
        self.report.stop_reasons.push(reason);
        if part + 1 < self.parts.len() {
            self.prompt(part + 1);
        } else {
            self.done = true;
        }
    }

    fn on_request(&mut self, id: &Value, method: String, params: &Value) {
        if method != "session/request_permission" {
            self.out.push_str(&msg::method_not_found(id, &method));
            return self.fail(AcpFailure::NotServed { method });
        }
        let request = PermissionRequest::deserialize(params).unwrap_or_default();
        let Some(answer) = msg::permission_granted(id, &request) else {
            return self.fail(AcpFailure::NoAllowingOption);
        };
        let title = request
            .tool_call
            .as_ref()
            .and_then(|call| call.title.as_ref())
            .map_or("?", String::as_str);
        self.log
            .push_str(&format!("acp: permission granted: {title}\n"));
        self.out.push_str(&answer);
    }

    fn on_update(&mut self, params: &Value) {
        match msg::read_update(params) {
            Ok(Update::Plan(entries)) => {
                let turn = (self.turns)();
                let shown: Vec<String> = entries
                    .iter()
                    .map(|e| format!("[{}] {}", e.status.as_str(), e.content))
                    .collect();
                self.log.push_str(&format!(
                    "acp: plan after turn {turn}: {}\n",
                    shown.join("; ")
                ));
                self.keep_plan(AgentPlan { turn, entries });
            }
            Ok(Update::ToolCall { id, title, status }) => {
                self.log
                    .push_str(&format!("acp: tool_call {id} {status} {title}\n"));
            }
            Ok(Update::Dropped) => {}
            Ok(Update::Unknown) => self.report.unknown_updates += 1,
            Err(why) => self.log.push_str(&format!("acp: plan not read: {why}\n")),
        }
    }

    /// Keeps `plan`: past [`PLANS_KEPT`] it takes the last place, and the
    /// plan it replaces is counted as dropped.
    fn keep_plan(&mut self, plan: AgentPlan) {
        let plans = &mut self.report.plans;
        if plans.len() < PLANS_KEPT {
            plans.push(plan);
        } else if let Some(last) = plans.last_mut() {
            *last = plan;
            self.report.plans_dropped += 1;
        }
    }

    /// Takes what is to be written to the agent's stdin.
    pub fn take_output(&mut self) -> String {
        std::mem::take(&mut self.out)
    }

    /// Takes the log lines written since.
    pub fn take_log(&mut self) -> String {
        std::mem::take(&mut self.log)
    }

    /// The report, once the agent is gone: an agent that left a request
    /// of ours unanswered failed (past its bound: it never answered;
    /// else it exited, or the run's timeout ended it, first).
    pub fn conclude(mut self, exit_code: Option<i32>, timed_out: bool) -> AcpReport {
        self.tick(Instant::now());
        if !self.finished() {
            let waiting = self.awaiting.map_or("?", |(_, what)| what.method());
            let ending = match exit_code {
                _ if timed_out => Ending::TimedOut,
                Some(code) => Ending::Exited(code),
                None => Ending::Signalled,
            };
            self.fail(AcpFailure::Ended { ending, waiting });
        }
        if self.report.plans_dropped > 0 {
            self.log.push_str(&format!(
                "acp: {} plan updates not kept (kept the first {} and the latest)\n",
                self.report.plans_dropped,
                PLANS_KEPT - 1
            ));
        }
        if self.report.unknown_updates > 0 {
            self.log.push_str(&format!(
                "acp: {} session updates of a kind agent-eval does not know (skipped)\n",
                self.report.unknown_updates
            ));
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(parts: &[&str]) -> AcpClient<'static> {
        AcpClient::new(
            parts.iter().map(|p| p.to_string()).collect(),
            "/work".into(),
            ["OPENAI_API_KEY".to_string()].into(),
            Duration::from_secs(30),
            Box::new(|| 4),
        )
    }

    /// The requests `client` wrote since last asked, as JSON.
    fn said(client: &mut AcpClient<'_>) -> Vec<Value> {
        client
            .take_output()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn hear(client: &mut AcpClient<'_>, message: Value) {
        client.hear(format!("{message}\n").as_bytes());
    }

    #[test]
    fn each_part_is_prompted_once_the_one_before_is_answered() {
        let mut c = client(&["one", "two"]);
        assert_eq!(said(&mut c)[0]["method"], "initialize");
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        );
        let new = said(&mut c);
        assert_eq!(new[0]["method"], "session/new");
        assert_eq!(new[0]["params"]["cwd"], "/work");
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "S"}}),
        );
        let first = said(&mut c);
        assert_eq!(first[0]["params"]["prompt"][0]["text"], "one");
        assert_eq!(first[0]["params"]["sessionId"], "S");
        // A plan in between, stamped with the turns served.
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "S", "update": {"sessionUpdate": "plan", "entries": [
                {"content": "a", "priority": "high", "status": "pending"}]}}}),
        );
        assert!(
            said(&mut c).is_empty(),
            "nothing until the prompt is answered"
        );
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}),
        );
        assert_eq!(said(&mut c)[0]["params"]["prompt"][0]["text"], "two");
        assert!(!c.finished());
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 4, "result": {"stopReason": "end_turn"}}),
        );
        assert!(c.finished());
        let report = c.conclude(Some(143), false);
        assert_eq!(report.failure, None);
        assert_eq!(report.stop_reasons, ["end_turn", "end_turn"]);
        assert_eq!(report.plans.len(), 1);
        assert_eq!(report.plans[0].turn, 4);
    }

    #[test]
    fn a_request_not_served_is_answered_minus_32601_and_fails_the_run() {
        let mut c = client(&["one"]);
        said(&mut c);
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": "q", "method": "terminal/create", "params": {}}),
        );
        let answer = said(&mut c);
        assert_eq!(answer[0]["id"], "q");
        assert_eq!(answer[0]["error"]["code"], -32601);
        assert!(c.finished());
        let report = c.conclude(None, false);
        assert_eq!(
            report.failure,
            Some(AcpFailure::NotServed {
                method: "terminal/create".into()
            })
        );
    }

    #[test]
    fn authentication_is_asked_with_the_method_whose_key_is_set() {
        let mut c = client(&["one"]);
        said(&mut c);
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"authMethods": [
            {"id": "login", "name": "Login"},
            {"id": "openai-api-key", "vars": [{"name": "OPENAI_API_KEY"}]}]}}),
        );
        said(&mut c);
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Authentication required"}}),
        );
        let auth = said(&mut c);
        assert_eq!(auth[0]["method"], "authenticate");
        assert_eq!(auth[0]["params"]["methodId"], "openai-api-key");
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": null}),
        );
        assert_eq!(said(&mut c)[0]["method"], "session/new");
        // Asked again: no method left.
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32000, "message": "Authentication required"}}),
        );
        assert!(c.finished());
    }

    #[test]
    fn a_request_unanswered_past_its_bound_fails() {
        let mut c = client(&["one"]);
        c.tick(Instant::now() + Duration::from_secs(31));
        let report = c.conclude(None, false);
        assert_eq!(
            report.failure.map(|f| f.to_string()).as_deref(),
            Some("it never answered `initialize` within 30 s")
        );
    }

    #[test]
    fn an_exit_before_the_last_answer_fails() {
        let mut c = client(&["one"]);
        said(&mut c);
        let report = c.conclude(Some(1), false);
        assert_eq!(
            report.failure.map(|f| f.to_string()).as_deref(),
            Some("it exited with status 1 while agent-eval waited for its answer to `initialize`")
        );
    }

    /// A client past its handshake, prompting its one part.
    fn prompting() -> AcpClient<'static> {
        let mut c = client(&["one"]);
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        );
        hear(
            &mut c,
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "S"}}),
        );
        said(&mut c);
        c
    }

    fn plan_line(n: usize) -> String {
        let update = serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "S", "update": {"sessionUpdate": "plan", "entries": [
                {"content": format!("step {n}"), "priority": "high", "status": "pending"}]}}});
        format!("{update}\n")
    }

    #[test]
    fn plan_updates_kept_are_bounded_and_the_latest_is_kept() {
        let mut c = prompting();
        let total = PLANS_KEPT + 5000;
        for n in 0..total {
            c.hear(plan_line(n).as_bytes());
        }
        c.take_log();
        let report = c.conclude(Some(0), false);
        assert_eq!(report.plans.len(), PLANS_KEPT);
        assert_eq!(report.plans_dropped, total - PLANS_KEPT);
        let content = |k: usize| report.plans[k].entries[0].content.clone();
        assert_eq!(content(0), "step 0");
        assert_eq!(content(PLANS_KEPT - 1), format!("step {}", total - 1));
    }

    #[test]
    fn lines_split_across_chunks_and_many_in_one_are_each_handled_once() {
        let mut c = prompting();
        let text: String = (0..50).map(plan_line).collect();
        // One byte at a time, then all at once.
        for byte in text.as_bytes() {
            c.hear(std::slice::from_ref(byte));
        }
        c.hear(text.as_bytes());
        let report = c.conclude(Some(0), false);
        assert_eq!(report.plans.len(), 100);
        assert_eq!(report.plans[49].entries[0].content, "step 49");
        assert_eq!(report.plans[50].entries[0].content, "step 0");
    }

    #[test]
    fn an_agent_that_never_reads_its_stdin_fails_with_a_clear_message() {
        let mut c = prompting();
        c.note_unread(UNREAD_CAP);
        assert!(!c.finished());
        c.note_unread(UNREAD_CAP + 1);
        assert!(c.finished());
        assert!(c.take_output().is_empty());
        let report = c.conclude(None, false);
        assert_eq!(
            report.failure.map(|f| f.to_string()).as_deref(),
            Some(
                "it does not read its stdin: 1048577 bytes of answers wait unread (at most 1048576)"
            )
        );
    }

    #[test]
    fn a_plan_split_across_many_chunks_is_read_once_and_searched_once() {
        let mut c = prompting();
        let before = c.bytes_searched();
        // A plan line of ~200 KiB, heard 3 bytes at a time.
        let update = serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "S", "update": {"sessionUpdate": "plan", "entries": [
                {"content": "y".repeat(200 << 10), "priority": "low", "status": "pending"}]}}});
        let line = format!("{update}\n");
        for chunk in line.as_bytes().chunks(3) {
            c.hear(chunk);
        }
        assert_eq!(c.bytes_searched() - before, line.len() as u64);
        let report = c.conclude(Some(0), false);
        assert_eq!(report.plans.len(), 1);
        assert_eq!(report.plans[0].entries[0].content.len(), 200 << 10);
    }
}
