//! The simulated model: a seeded stand-in for an LLM that drifts on long
//! tasks, for any planning dialect.
//!
//! It is stateless between calls: every decision is a function of the
//! request's messages and tools, its parameters, its skills (how each step
//! of the task is done), its planning dialect (how a plan reads and how an
//! update is written) and its seed. Per turn it:
//!
//! 1. finds its **plan** (see `reading.rs`): the most recent plan in the
//!    context as its dialect shows it, else the task message, which sets
//!    every step;
//! 2. measures **tokens since the plan** (characters / `chars_per_token` of
//!    every message after the one holding the plan, plus `tokens_per_turn`
//!    for each of its own turns since) and its **recall**
//!    `floor + (1 - floor) / (1 + (tokens / attention_span)^sharpness)`:
//!    near 1 while the plan is fresh, falling steeply past the span;
//! 3. works out what it **believes is done**: plan items marked completed,
//!    steps it claimed done in its own text since the plan ("Step 3 done."),
//!    and steps whose `do` calls succeeded since the plan;
//! 4. decides whether to **update its plan** (only if a planning tool is
//!    offered): to recover after a rejected update, on its first turn
//!    (`plan_first`), after a reminder in the latest user message
//!    (`reminder_compliance`), or at random (`todo_update_rate`); an update
//!    is invalid with probability `invalid_todo_rate` (two in_progress,
//!    empty text, unknown status, too many items, as the dialect can be
//!    wrong) and then is the only call;
//! 5. with probability recall does the **next step** (first not believed
//!    done) through its `do` calls; otherwise **drifts**, picking by weight:
//!    skip ahead (claims the next step done and does a later one), repeat a
//!    finished step, improvise an unplanned look around, or stop early
//!    claiming to be done;
//! 6. when it believes every step is done, ends its turn; a step it has
//!    set out to do [`MAX_ATTEMPTS`] times without success counts as done.
//!
//! A reminder is any text of the latest user message holding one of its
//! reminder markers (`<reminder>`, `<system-reminder>`, plus what the
//! reminder policy in use writes).
//!
//! Randomness: one ChaCha8 stream per turn, seeded from (run seed, turn),
//! so a turn's choices depend on nothing but its input.

mod error;
mod params;
pub mod profile;
mod reading;
mod seed;

use rand_chacha::ChaCha8Rng;
use rand_core::Rng;
use serde_json::{Value, json};

pub use error::ParamsError;
pub use params::SimulateParams;
pub use profile::Profile;
pub use seed::{mix, name_hash, run_seed};

use super::{Model, ModelError, ToolCall};
use crate::llm::session::SessionMap;
use crate::llm::{ContentBlock, Message, ModelRequest, ModelResponse, Role, tool_use_id};
use crate::plan::dialect::{Dialect, InvalidUpdate, PlanDialect, PlanItem, PlanStatus};
pub use reading::WorkdirSpelling;
use reading::{Done, PlanSteps, ReadCache, Reader, Reading};
use seed::{below, beta, pick, rng_for_plans_at_all, rng_for_session, rng_for_turn, uniform};

/// How one step of the task is done: what the simulated model knows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub id: String,
    pub text: String,
    /// The tool calls that perform the step.
    pub actions: Vec<ToolCall>,
}

/// Its answer once it believes every step done (and makes no closing
/// update): whatever it drew about its plan that turn, this answer is the
/// same, so it is no planning chance. Every other last answer is an early
/// stop (a drift, drawn only where it did not plan): calibration tells the
/// two apart by it in its own simulations (`calibrate::simulate`).
pub const DONE_ANSWER: &str = "All steps are complete.";

/// Markers that make a text a reminder whatever the policy.
pub use crate::llm::price::REMINDER_MARKERS;

/// What the model decided to do about its plan this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drift {
    Skip,
    Repeat,
    Improvise,
    Stop,
}

/// The simulated drifting LLM.
#[derive(Debug, Clone)]
pub struct SimulatedModel {
    params: SimulateParams,
    skills: Vec<Skill>,
    seed: u64,
    /// This run's update rate: `todo_update_rate`, or with
    /// `update_rate_dispersion` a draw around it from the run's own
    /// session stream.
    update_rate: f64,
    /// Whether this run plans at all (`plans_at_all`, drawn once a run).
    plans: bool,
    dialect: &'static dyn PlanDialect,
    reminder_markers: Vec<String>,
    /// How the run's workspace path is spelled in what the model reads, so
    /// it counts `{WORKDIR}` in its place (see [`WorkdirSpelling`]).
    workdir: WorkdirSpelling,
    /// What it has read of the conversation so far (see [`ReadCache`]):
    /// only the new messages are read each turn.
    cache: ReadCache,
    /// A session's parts: each task, and where its steps start among the
    /// skills (empty: one task holding every step).
    session: Vec<(String, usize)>,
    /// Where the messages read so far fall in the session's parts (read
    /// on with the conversation, reset with `cache`; `None`: not started).
    parts_read: Option<SessionMap>,
    /// Every path a step's action names (what an improvised look around
    /// reads), gathered on the first improvised call.
    step_paths: std::sync::OnceLock<Vec<String>>,
    /// Never reads the plan back in a response that writes it (see
    /// [`SimulatedModel::reading_back_apart`]).
    read_back_apart: bool,
}

impl SimulatedModel {
    /// `seed` is the generator seed (see [`run_seed`]). The dialect is s03
    /// until [`SimulatedModel::with_dialect`] says otherwise.
    pub fn new(params: SimulateParams, skills: Vec<Skill>, seed: u64) -> Self {
        let update_rate = if params.update_rate_dispersion > 0.0 {
            beta(
                &mut rng_for_session(seed),
                params.todo_update_rate,
                params.update_rate_dispersion,
            )
        } else {
            params.todo_update_rate
        };
        // No draw at the default (1): a run draws what it drew before.
        let plans = params.plans_at_all >= 1.0
            || uniform(&mut rng_for_plans_at_all(seed)) < params.plans_at_all;
        Self {
            params,
            skills,
            seed,
            update_rate,
            plans,
            dialect: Dialect::default().get(),
            reminder_markers: REMINDER_MARKERS.iter().map(|m| m.to_string()).collect(),
            workdir: WorkdirSpelling::default(),
            cache: ReadCache::default(),
            session: Vec::new(),
            parts_read: None,
            step_paths: std::sync::OnceLock::new(),
            read_back_apart: false,
        }
    }

    /// Leaves a planning read (the dialect's
    /// [`PlanDialect::reads_plan_only`] tools: `TaskList`, `TaskGet`) out of
    /// any response that also writes the plan, and reads the plan its
    /// accepted calls set instead. For a real CLI agent: Claude Code runs
    /// `TaskUpdate` and `TaskList` of one response concurrently, so a list
    /// sent after an update could show it or not, run to run.
    pub fn reading_back_apart(mut self) -> Self {
        self.read_back_apart = true;
        self
    }

    /// Works through a session: `parts` holds each part's task and the
    /// index of its first step among the skills, in order. The model reads
    /// which part it is in from the user messages it has been sent.
    pub fn with_session(mut self, parts: Vec<(String, usize)>) -> Self {
        self.session = if parts.len() > 1 { parts } else { Vec::new() };
        self
    }

    /// Reads the request's new messages: forgets what was read when they
    /// do not extend it (see [`ReadCache::extended_by`]), places them in
    /// the session's parts, and returns the current part's steps and the
    /// index of the message that gave its task.
    fn follow(
        &mut self,
        request: &ModelRequest<'_>,
        offered: bool,
    ) -> (std::ops::Range<usize>, usize) {
        let messages = request.messages;
        if !self.cache.extended_by(messages, offered, request.unchanged) {
            self.cache = ReadCache::default();
            self.parts_read = None;
        }
        if self.session.is_empty() {
            return (0..self.skills.len(), 0);
        }
        let map = self.parts_read.get_or_insert_with(|| {
            let tasks: Vec<String> = self.session.iter().map(|(t, _)| t.clone()).collect();
            SessionMap::new(&tasks)
        });
        for message in messages.get(map.len()..).unwrap_or_default() {
            map.push(message);
        }
        let part = map.current();
        let start = self.session.get(part).map_or(0, |(_, s)| *s);
        let end = self
            .session
            .get(part + 1)
            .map_or(self.skills.len(), |(_, s)| *s);
        let at = map.starts.get(part).copied().flatten().unwrap_or(0);
        (start..end.max(start), at)
    }

    /// Reads `workdir` (as given and as the kernel resolves it) as the
    /// fixed placeholder `{WORKDIR}` when counting its context: the run's
    /// numbers then do not depend on where the workspace lives (TMPDIR,
    /// machine).
    pub fn with_workdir(mut self, workdir: &std::path::Path) -> Self {
        self.workdir = WorkdirSpelling::new(workdir);
        self
    }

    /// Plans in this dialect's shape.
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect.get();
        self
    }

    /// Takes only text holding one of `markers` for a reminder (an outside
    /// agent's own planning reminder; none: it is never reminded), not the
    /// standard tags, which such an agent also uses for other notes.
    pub fn with_only_reminder_markers(mut self, markers: &[&str]) -> Self {
        self.reminder_markers = markers
            .iter()
            .filter(|m| !m.is_empty())
            .map(|m| m.to_string())
            .collect();
        self
    }

    /// Also takes text holding `marker` for a reminder (a policy whose
    /// text has neither standard marker).
    pub fn with_reminder_marker(mut self, marker: impl Into<String>) -> Self {
        let marker = marker.into();
        if !marker.is_empty() && !self.reminder_markers.contains(&marker) {
            self.reminder_markers.push(marker);
        }
        self
    }

    fn reader(
        &self,
        offered: bool,
        (part, part_start): (std::ops::Range<usize>, usize),
    ) -> Reader<'_> {
        Reader {
            skills: &self.skills,
            dialect: self.dialect,
            offered,
            params: &self.params,
            workdir: &self.workdir,
            part,
            part_start,
        }
    }

    /// The plan it wants to write: every planned step, done ones completed
    /// and `working_on` in progress; at most as many as the dialect
    /// accepts (see [`plan_window`]).
    fn wanted_plan(
        &self,
        reading: &Reading,
        done: &Done,
        working_on: Option<usize>,
    ) -> Vec<PlanItem> {
        plan_window(&reading.plan, done, self.dialect.max_items())
            .filter_map(|i| {
                let skill = self.skills.get(i)?;
                let status = if done.contains(&i) {
                    PlanStatus::Completed
                } else if Some(i) == working_on {
                    PlanStatus::InProgress
                } else {
                    PlanStatus::Pending
                };
                let mut item = PlanItem::new(skill.id.clone(), skill.text.clone(), status);
                item.active_form = Some(format!("Working on {}", skill.text));
                Some(item)
            })
            .collect()
    }

    fn wants_update(
        &self,
        reader: &Reader<'_>,
        reading: &Reading,
        messages: &[Message],
        turn: usize,
        rng: &mut ChaCha8Rng,
    ) -> bool {
        let latest = messages.last().filter(|m| m.role == Role::User);
        let reminded = latest.is_some_and(|m| {
            m.texts()
                .any(|t| self.reminder_markers.iter().any(|r| t.contains(r.as_str())))
        });
        let chance = if !self.plans {
            0.0
        } else if reader.last_update_rejected(messages) {
            1.0
        } else if reading.first_turn_of_part && reading.stale {
            self.params.rewrite_stale_plan
        } else if turn == 1 || reading.first_turn_of_part {
            self.params.plan_first
        } else if reminded {
            self.params.reminder_compliance
        } else if !reading.planned {
            self.params.first_plan_hazard.unwrap_or(self.update_rate)
        } else {
            self.update_rate
        };
        uniform(rng) < chance
    }
}

impl Model for SimulatedModel {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let messages = request.messages;
        let offered = request
            .tools
            .iter()
            .any(|t| self.dialect.is_planning_tool(&t.name));
        let part = self.follow(request, offered);
        let mut cache = std::mem::take(&mut self.cache);
        let mut reading = self
            .reader(offered, part.clone())
            .read_with(&mut cache, messages);
        self.cache = cache;
        // The turn as `turn_of` counts it, from what was read.
        let turn = reading.own_turns + 1;
        let mut rng = rng_for_turn(self.seed, turn);
        let reader = self.reader(offered, part.clone());
        let update = offered && self.wants_update(&reader, &reading, messages, turn, &mut rng);
        // Updating a stale plan at the start of a part is rewriting it for
        // the new task: the earlier part's items are dropped.
        if update && reading.stale && reading.first_turn_of_part {
            reading.plan.keep_within(&part.0);
        }
        let mut content = Vec::new();
        let mut calls: Vec<ToolCall> = Vec::new();

        if update
            && uniform(&mut rng) < self.params.invalid_todo_rate
            && let Some(call) = self.invalid_update(&reading, &mut rng)
        {
            content.push(ContentBlock::text("Updating the plan."));
            calls.push(call);
            return Ok(respond_with(turn, content, calls));
        }

        let pending = pending_steps(&reading);
        let Some(&next) = pending.first() else {
            if let Some(closing) = self.closing_update(request, &reading, turn, offered, &mut rng) {
                return Ok(closing);
            }
            content.push(ContentBlock::text(DONE_ANSWER));
            return Ok(ModelResponse::from_blocks(content));
        };

        // Writing the plan means reading it: a turn with a valid update
        // does not drift.
        let recalled = uniform(&mut rng) < reading.recall;
        let drift = if recalled || update {
            None
        } else {
            Some(self.drift(&mut rng))
        };

        // Working a step may take turns: this one studies it instead (and
        // writes the plan first if it updates).
        if drift.is_none() && self.studies(&mut rng) {
            if update {
                self.write_update(request, &reading, Some(next), (&mut content, &mut calls));
            }
            self.study(next, &mut rng, &mut content, &mut calls);
            return Ok(respond_with(turn, content, calls));
        }

        // A false claim made while skipping, said before the work.
        let mut prefix = String::new();
        let working_on = match drift {
            None => Some(next),
            Some(Drift::Skip) => {
                let later = pending.get(1..).unwrap_or_default();
                if later.is_empty() {
                    // Nothing to skip to: it believes it is done.
                    if let Some(closing) =
                        self.closing_update(request, &reading, turn, offered, &mut rng)
                    {
                        return Ok(closing);
                    }
                    content.push(ContentBlock::text(format!(
                        "{} All steps are complete.",
                        self.claim(next)
                    )));
                    return Ok(ModelResponse::from_blocks(content));
                }
                let target = later
                    .get(below(&mut rng, later.len().min(2)))
                    .copied()
                    .unwrap_or(next);
                prefix = format!("{} ", self.claim(next));
                reading.done.insert(next);
                Some(target)
            }
            Some(Drift::Stop) => {
                if let Some(closing) =
                    self.closing_update(request, &reading, turn, offered, &mut rng)
                {
                    return Ok(closing);
                }
                content.push(ContentBlock::text("All done! The task is complete."));
                return Ok(ModelResponse::from_blocks(content));
            }
            Some(Drift::Repeat) | Some(Drift::Improvise) => None,
        };

        if update {
            self.write_update(request, &reading, working_on, (&mut content, &mut calls));
        }
        self.work(
            (working_on, drift),
            &prefix,
            &reading,
            &mut rng,
            (&mut content, &mut calls),
        );
        keep_going(&mut calls);
        Ok(respond_with(turn, content, calls))
    }
}

/// The next steps `reading` shows not done: the next one, and the two a
/// skip may go to (the plan is not walked further: it may hold thousands).
fn pending_steps(reading: &Reading) -> Vec<usize> {
    reading
        .plan
        .iter()
        .filter(|i| !reading.done.contains(i))
        .take(3)
        .collect()
}

/// Only a claimed step and no call: the turn looks around so it goes on (a
/// response without calls would end the run).
fn keep_going(calls: &mut Vec<ToolCall>) {
    if calls.is_empty() {
        calls.push(ToolCall {
            tool: "bash".into(),
            input: json!({"command": "ls"}).into(),
        });
    }
}

impl SimulatedModel {
    /// The turn's plan update: the steps it ticks (at most
    /// `items_per_update` new ones), and the steps done but left unticked
    /// said done in text, so it goes on believing them done until a later
    /// update ticks them.
    fn write_update(
        &self,
        request: &ModelRequest<'_>,
        reading: &Reading,
        working_on: Option<usize>,
        (content, calls): (&mut Vec<ContentBlock>, &mut Vec<ToolCall>),
    ) {
        let ticked = self.ticked(reading);
        if let Some(ticked) = &ticked {
            for i in reading
                .plan
                .iter()
                .filter(|i| reading.done.contains(i) && !ticked.contains(i))
            {
                content.push(ContentBlock::text(self.claim(i)));
            }
        }
        let shown = ticked.as_ref().unwrap_or(&reading.done);
        calls.extend(self.update_calls(request, reading, shown, working_on));
    }

    /// Whether a turn set to do the next step studies it instead
    /// (`turns_per_step` `k`: with chance `1 − 1/k`, so a step takes a
    /// geometric number of turns with mean `k`). No draw at 1 (the
    /// default): a run draws what it drew before.
    fn studies(&self, rng: &mut ChaCha8Rng) -> bool {
        let k = self.params.turns_per_step;
        k > 1.0 && uniform(rng) >= 1.0 / k
    }

    /// A turn spent studying step `i`: the step's first call when it has
    /// more than one (its reading part: the turn adds what the step
    /// reads), else a look around. It says nothing done and does not set
    /// out on the step (no attempt is counted).
    fn study(
        &self,
        i: usize,
        rng: &mut ChaCha8Rng,
        content: &mut Vec<ContentBlock>,
        calls: &mut Vec<ToolCall>,
    ) {
        let Some(step) = self.skills.get(i) else {
            return;
        };
        content.push(ContentBlock::text(format!(
            "Looking into step {}: {}",
            step.id, step.text
        )));
        match step.actions.first() {
            Some(first) if step.actions.len() > 1 => calls.push(first.clone()),
            _ => calls.push(self.improvised_call(rng)),
        }
    }

    /// How it says step `i` is finished (nothing for a step it does not
    /// know: every step it reads is one of its skills).
    fn claim(&self, i: usize) -> String {
        self.skills.get(i).map(claim_text).unwrap_or_default()
    }

    /// An invalid update of a random kind, in the dialect's shape; `None`
    /// when the dialect accepts that kind of mistake (a valid update is
    /// sent instead).
    fn invalid_update(&self, reading: &Reading, rng: &mut ChaCha8Rng) -> Option<ToolCall> {
        let kind = match pick(rng, &[1.0, 1.0, 1.0, 1.0]) {
            0 => InvalidUpdate::TwoInProgress,
            1 => InvalidUpdate::EmptyText,
            2 => InvalidUpdate::UnknownStatus,
            _ => InvalidUpdate::TooMany,
        };
        let call = self
            .dialect
            .write_invalid(&self.wanted_plan(reading, &reading.done, None), kind)?;
        Some(ToolCall {
            tool: call.tool,
            input: call.input.into(),
        })
    }

    /// How it drifts, picked by the parameters' weights.
    fn drift(&self, rng: &mut ChaCha8Rng) -> Drift {
        let p = &self.params;
        let weights = [
            p.skip_weight,
            p.repeat_weight,
            p.improvise_weight,
            p.stop_weight,
        ];
        match pick(rng, &weights) {
            0 => Drift::Skip,
            1 => Drift::Repeat,
            2 => Drift::Improvise,
            _ => Drift::Stop,
        }
    }

    /// The turn's work after any plan update: the step it works on (said
    /// after `prefix`, a false claim made while skipping), a finished step
    /// redone, or an improvised look around.
    fn work(
        &self,
        (working_on, drift): (Option<usize>, Option<Drift>),
        prefix: &str,
        reading: &Reading,
        rng: &mut ChaCha8Rng,
        (content, calls): (&mut Vec<ContentBlock>, &mut Vec<ToolCall>),
    ) {
        match (working_on, drift) {
            (Some(step), _) => {
                let Some(step) = self.skills.get(step) else {
                    return;
                };
                if step.actions.is_empty() {
                    // No tool does this step: performing it is saying so.
                    content.push(ContentBlock::text(format!("{prefix}{}", claim_text(step))));
                } else {
                    content.push(ContentBlock::text(format!("{prefix}{}", work_text(step))));
                    calls.extend(step.actions.iter().cloned());
                }
            }
            (None, Some(Drift::Repeat)) if !reading.done.is_empty() => {
                let done = reading.done.to_vec();
                let again = done.get(below(rng, done.len())).copied();
                let Some(step) = again.and_then(|i| self.skills.get(i)) else {
                    return;
                };
                content.push(ContentBlock::text(format!(
                    "Let me redo step {}: {}",
                    step.id, step.text
                )));
                calls.extend(step.actions.iter().cloned());
            }
            _ => {
                content.push(ContentBlock::text("Let me look around first."));
                calls.push(self.improvised_call(rng));
            }
        }
    }

    /// The calls that update the plan to what it wants (`working_on` in
    /// progress).
    fn update_calls(
        &self,
        request: &ModelRequest<'_>,
        reading: &Reading,
        done: &Done,
        working_on: Option<usize>,
    ) -> Vec<ToolCall> {
        let wanted = self.wanted_plan(reading, done, working_on);
        // A call of a tool the agent does not offer is left out: Claude
        // Code offers its Task tools either deferred behind ToolSearch or
        // directly, and only the first needs loading.
        let mut calls: Vec<ToolCall> = self
            .dialect
            .write_update(&reading.items, &wanted)
            .into_iter()
            .filter(|c| {
                self.dialect.is_planning_tool(&c.tool)
                    || request.tools.iter().any(|t| t.name == c.tool)
            })
            .map(|c| ToolCall {
                tool: c.tool,
                input: c.input.into(),
            })
            .collect();
        let writes = calls.iter().any(|c| {
            self.dialect.is_planning_tool(&c.tool) && !self.dialect.reads_plan_only(&c.tool)
        });
        if self.read_back_apart && writes {
            calls.retain(|c| !self.dialect.reads_plan_only(&c.tool));
        }
        calls
    }

    /// The steps an update shows completed: those the plan already shows,
    /// and of the others believed done the first `items_per_update` in
    /// plan order. `None` when it is 0: every step believed done (the
    /// reading's own set, not copied).
    fn ticked(&self, reading: &Reading) -> Option<Done> {
        let most = self.params.items_per_update as usize;
        if most == 0 {
            return None;
        }
        let newly = reading
            .plan
            .iter()
            .filter(|i| reading.done.contains(i) && !reading.shown_done.contains(i))
            .take(most);
        Some(Done::of(reading.shown_done.iter().copied().chain(newly)))
    }

    /// The closing update (`closing_update`): when it believes the task is
    /// done and its plan still shows open items, by chance one last
    /// planning call marking every item completed. `None`: it answers
    /// without one (no draw is made when the chance is 0).
    fn closing_update(
        &self,
        request: &ModelRequest<'_>,
        reading: &Reading,
        turn: usize,
        offered: bool,
        rng: &mut ChaCha8Rng,
    ) -> Option<ModelResponse> {
        let chance = self.params.closing_update;
        if !offered || chance <= 0.0 || !reading.planned {
            return None;
        }
        // Walked only when a closing update may be made: the plan may
        // hold thousands of steps.
        let open = reading
            .plan
            .iter()
            .any(|i| !reading.shown_done.contains(&i));
        if !open || uniform(rng) >= chance {
            return None;
        }
        let every = Done::of(reading.plan.iter());
        let calls = self.update_calls(request, reading, &every, None);
        if calls.is_empty() {
            return None;
        }
        let content = vec![ContentBlock::text(
            "All steps are complete; closing the plan.",
        )];
        Some(respond_with(turn, content, calls))
    }

    /// An unplanned, harmless action: read a file some step touches, or list
    /// the workspace.
    fn improvised_call(&self, rng: &mut ChaCha8Rng) -> ToolCall {
        let paths = self.step_paths.get_or_init(|| {
            self.skills
                .iter()
                .flat_map(|s| s.actions.iter())
                .filter_map(|a| a.input.get("path").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        });
        let look = ToolCall {
            tool: "bash".into(),
            input: json!({"command": "ls -R"}).into(),
        };
        if paths.is_empty() || rng.next_u64().is_multiple_of(3) {
            return look;
        }
        let Some(path) = paths.get(below(rng, paths.len())) else {
            return look;
        };
        ToolCall {
            tool: "read_file".into(),
            input: json!({"path": path}).into(),
        }
    }
}

/// The steps of `plan` a plan update lists: all of them, or, where the
/// dialect accepts at most `most` items and the plan holds more, the
/// `most` of them starting at the first one not `done` (as a model told
/// "Max 20 todos allowed" plans the next twenty steps, rather than sending
/// the whole list again on every turn: a conversation that grows by the
/// whole plan a turn grows with steps x turns). The steps after the window
/// are read back as still to come (`reading.rs`).
fn plan_window<'p>(
    plan: &'p PlanSteps,
    done: &'p Done,
    most: Option<usize>,
) -> impl Iterator<Item = usize> + 'p {
    let len = plan.len();
    let (start, most) = match most {
        Some(most) if len > most => {
            let first_open = plan.iter().position(|i| !done.contains(&i)).unwrap_or(len);
            (first_open.min(len - most), most)
        }
        _ => (0, len),
    };
    plan.iter().skip(start).take(most)
}

fn respond_with(
    turn: usize,
    mut content: Vec<ContentBlock>,
    calls: Vec<ToolCall>,
) -> ModelResponse {
    for (k, call) in calls.into_iter().enumerate() {
        content.push(ContentBlock::ToolUse {
            id: tool_use_id(turn, k + 1),
            name: call.tool,
            input: call.input,
        });
    }
    ModelResponse::from_blocks(content)
}

/// Attempts at a step after which the model gives up and moves on.
pub const MAX_ATTEMPTS: usize = 3;

/// How the model announces work on a step.
fn work_text(step: &Skill) -> String {
    format!("Working on step {}: {}", step.id, step.text)
}

/// How the model states that a step is finished.
fn claim_text(step: &Skill) -> String {
    format!("Step {} done.", step.id)
}
