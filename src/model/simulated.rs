//! The simulated model of SPEC section 4: a seeded stand-in for an LLM
//! that drifts on long tasks.
//!
//! It is stateless between calls: every decision is a function of the
//! request's messages and tools, its parameters, the scenario's steps (its
//! "skills": how each step is done) and its seed. Per turn it:
//!
//! 1. finds its **plan**: the most recent rendered todo list in a tool
//!    result (parsed with [`crate::agent::todo::parse_render`]), else the
//!    task message, which sets every step;
//! 2. measures **tokens since the plan** (characters / `chars_per_token` of
//!    every message after the one holding the plan, plus `tokens_per_turn`
//!    for each of its own turns since) and its **recall**
//!    `floor + (1 - floor) / (1 + (tokens / attention_span)^sharpness)`:
//!    near 1 while the plan is fresh, falling steeply past the span;
//! 3. works out what it **believes is done**: plan items marked completed,
//!    steps it claimed done in its own text since the plan ("Step 3 done."),
//!    and steps whose `do` calls succeeded since the plan;
//! 4. decides whether to **update its todo list** (only if the tool is
//!    offered): to recover after a rejected update, on its first turn
//!    (`plan_first`), after a reminder in the latest user message
//!    (`reminder_compliance`), or at random (`todo_update_rate`); an update
//!    is invalid with probability `invalid_todo_rate` (two in_progress,
//!    empty text, unknown status, too many items) and then is the only call;
//! 5. with probability recall does the **next step** (first not believed
//!    done) through its `do` calls; otherwise **drifts**, picking by weight:
//!    skip ahead (claims the next step done and does a later one), repeat a
//!    finished step, improvise an unplanned look around, or stop early
//!    claiming to be done;
//! 6. when it believes every step is done, ends its turn; a step it has
//!    set out to do [`MAX_ATTEMPTS`] times without success counts as done.
//!
//! Randomness: one ChaCha8 stream per turn, seeded from (run seed, turn),
//! so a turn's choices depend on nothing but its input.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeSet;

use super::{Model, ModelError, turn_of};
use crate::agent::todo::{TodoStatus, parse_render};
use crate::llm::{Content, ContentBlock, Message, ModelRequest, ModelResponse, Role, tool_use_id};
use crate::scenario::{Step, ToolCall};

/// The simulated model's parameters (`model.simulate`); every one has a
/// default, documented in the README.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulateParams {
    /// Tokens since the plan at which recall is halfway between 1 and the
    /// floor.
    pub attention_span: f64,
    /// How sharply recall falls around the attention span (the exponent of
    /// the Hill curve `1 / (1 + (tokens / span)^sharpness)`).
    pub sharpness: f64,
    /// Recall never falls below this; 1.0 turns drift off.
    pub recall_floor: f64,
    /// Characters per token when measuring the context.
    pub chars_per_token: f64,
    /// Tokens each of its own turns adds beyond the text it shows: its
    /// reasoning and the message framing. Keeps attention falling with the
    /// number of turns even when tool output is tiny.
    pub tokens_per_turn: f64,
    /// Chance of writing the plan with the todo tool on the first turn.
    pub plan_first: f64,
    /// Chance of updating the todo list on an ordinary turn.
    pub todo_update_rate: f64,
    /// Chance of updating the todo list when the latest user message holds
    /// a reminder.
    pub reminder_compliance: f64,
    /// Chance that a todo update is invalid.
    pub invalid_todo_rate: f64,
    /// Drift weights: skip ahead, repeat a finished step, improvise, stop.
    pub skip_weight: f64,
    pub repeat_weight: f64,
    pub improvise_weight: f64,
    pub stop_weight: f64,
}

impl Default for SimulateParams {
    fn default() -> Self {
        Self {
            attention_span: 420.0,
            sharpness: 4.0,
            recall_floor: 0.05,
            chars_per_token: 4.0,
            tokens_per_turn: 50.0,
            plan_first: 0.9,
            todo_update_rate: 0.15,
            reminder_compliance: 0.9,
            invalid_todo_rate: 0.05,
            skip_weight: 0.4,
            repeat_weight: 0.1,
            improvise_weight: 0.15,
            stop_weight: 0.35,
        }
    }
}

impl SimulateParams {
    /// Checks ranges; the message names the parameter.
    pub fn validate(&self) -> Result<(), String> {
        let probabilities = [
            ("recall_floor", self.recall_floor),
            ("plan_first", self.plan_first),
            ("todo_update_rate", self.todo_update_rate),
            ("reminder_compliance", self.reminder_compliance),
            ("invalid_todo_rate", self.invalid_todo_rate),
        ];
        for (name, p) in probabilities {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("simulate.{name} must be in [0, 1], got {p}"));
            }
        }
        if !(self.tokens_per_turn.is_finite() && self.tokens_per_turn >= 0.0) {
            return Err(format!(
                "simulate.tokens_per_turn must be >= 0, got {}",
                self.tokens_per_turn
            ));
        }
        for (name, v) in [
            ("attention_span", self.attention_span),
            ("chars_per_token", self.chars_per_token),
            ("sharpness", self.sharpness),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!(
                    "simulate.{name} must be a positive number, got {v}"
                ));
            }
        }
        let weights = [
            ("skip_weight", self.skip_weight),
            ("repeat_weight", self.repeat_weight),
            ("improvise_weight", self.improvise_weight),
            ("stop_weight", self.stop_weight),
        ];
        for (name, w) in weights {
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!("simulate.{name} must be >= 0, got {w}"));
            }
        }
        if weights.iter().map(|(_, w)| w).sum::<f64>() <= 0.0 {
            return Err("simulate: at least one drift weight must be positive".into());
        }
        Ok(())
    }
}

/// A fixed, platform-independent hash of a scenario name (FNV-1a, 64 bit).
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64's finalizer: a fixed bijective mix.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator seed of run `seed` of a scenario. The cell's settings are
/// deliberately left out: cells that differ in one setting then share their
/// random streams seed for seed, which sharpens paired comparisons.
pub fn run_seed(scenario_name: &str, seed: u64) -> u64 {
    mix(name_hash(scenario_name) ^ mix(seed))
}

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
    steps: Vec<Step>,
    seed: u64,
}

/// The model's reading of the context.
struct Reading {
    /// Index into `steps` for each step the plan holds, in plan order.
    plan: Vec<usize>,
    /// Steps believed done.
    done: BTreeSet<usize>,
    recall: f64,
}

impl SimulatedModel {
    /// `seed` is the generator seed (see [`run_seed`]).
    pub fn new(params: SimulateParams, steps: Vec<Step>, seed: u64) -> Self {
        Self {
            params,
            steps,
            seed,
        }
    }

    fn rng_for_turn(&self, turn: usize) -> ChaCha8Rng {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&self.seed.to_le_bytes());
        key[8..16].copy_from_slice(&(turn as u64).to_le_bytes());
        key[16..24].copy_from_slice(b"s03-sim1");
        ChaCha8Rng::from_seed(key)
    }

    fn read(&self, messages: &[Message]) -> Reading {
        let (plan_at, plan) = self.find_plan(messages);
        let after = messages.get(plan_at + 1..).unwrap_or(&[]);
        let chars: usize = after.iter().map(message_chars).sum();
        let own_turns = after.iter().filter(|m| m.role == Role::Assistant).count();
        let tokens = chars as f64 / self.params.chars_per_token
            + own_turns as f64 * self.params.tokens_per_turn;
        let floor = self.params.recall_floor;
        let recall = floor
            + (1.0 - floor)
                / (1.0 + (tokens / self.params.attention_span).powf(self.params.sharpness));

        let mut done: BTreeSet<usize> = plan
            .iter()
            .filter(|(_, status)| *status == TodoStatus::Completed)
            .map(|(i, _)| *i)
            .collect();
        // The plan's own message is included: the calls made alongside the
        // todo update that produced it were made after it was decided.
        let since = messages.get(plan_at.saturating_sub(1)..).unwrap_or(&[]);
        done.extend(self.claimed_done(since));
        done.extend(self.performed(since));
        done.extend(self.given_up(messages));
        Reading {
            plan: plan.into_iter().map(|(i, _)| i).collect(),
            done,
            recall,
        }
    }

    /// The latest rendered todo list (message index, items mapped to steps),
    /// else the task message (index 0) with every step to do.
    fn find_plan(&self, messages: &[Message]) -> (usize, Vec<(usize, TodoStatus)>) {
        for (index, message) in messages.iter().enumerate().rev() {
            if message.role != Role::User {
                continue;
            }
            for block in message.content_blocks().iter().rev() {
                let ContentBlock::ToolResult { content, .. } = block else {
                    continue;
                };
                let Some(items) = parse_render(content) else {
                    continue;
                };
                let plan: Vec<(usize, TodoStatus)> = items
                    .iter()
                    .filter_map(|item| {
                        self.steps
                            .iter()
                            .position(|s| s.id == item.id && s.text == item.text)
                            .map(|i| (i, item.status))
                    })
                    .collect();
                // A list that names none of the task's steps is not its plan.
                if !plan.is_empty() {
                    return (index, plan);
                }
            }
        }
        // No list: the plan is the task as given, every step still to do
        // (what was done since is read from the conversation).
        (
            0,
            (0..self.steps.len())
                .map(|i| (i, TodoStatus::Pending))
                .collect(),
        )
    }

    /// Steps the model said were done in its own text.
    fn claimed_done(&self, messages: &[Message]) -> Vec<usize> {
        let mut claimed = Vec::new();
        for message in messages.iter().filter(|m| m.role == Role::Assistant) {
            for text in message.texts() {
                for (i, step) in self.steps.iter().enumerate() {
                    if text.contains(&claim_text(step)) {
                        claimed.push(i);
                    }
                }
            }
        }
        claimed
    }

    /// Steps it has set out to do [`MAX_ATTEMPTS`] times without success:
    /// like a real model, it stops retrying and takes them as done.
    fn given_up(&self, messages: &[Message]) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&i| {
                let opening = work_text(&self.steps[i]);
                let attempts = messages
                    .iter()
                    .filter(|m| m.role == Role::Assistant)
                    .flat_map(Message::texts)
                    .filter(|t| t.contains(&opening))
                    .count();
                attempts >= MAX_ATTEMPTS
            })
            .collect()
    }

    /// Steps whose every `do` call was made, and answered without an error.
    fn performed(&self, messages: &[Message]) -> Vec<usize> {
        let mut succeeded: Vec<(&str, &Value)> = Vec::new();
        for pair in messages.windows(2) {
            let [asked, answered] = pair else { continue };
            if asked.role != Role::Assistant {
                continue;
            }
            for block in asked.content_blocks() {
                let ContentBlock::ToolUse { id, name, input } = block else {
                    continue;
                };
                let ok = answered.content_blocks().iter().any(|b| {
                    matches!(b, ContentBlock::ToolResult { tool_use_id, content }
                        if tool_use_id == id && !content.starts_with("Error") && !content.starts_with("Unknown tool"))
                });
                if ok {
                    succeeded.push((name.as_str(), input));
                }
            }
        }
        (0..self.steps.len())
            .filter(|&i| {
                let actions = &self.steps[i].actions;
                !actions.is_empty()
                    && actions.iter().all(|a| {
                        succeeded
                            .iter()
                            .any(|(n, inp)| *n == a.tool && **inp == a.input)
                    })
            })
            .collect()
    }

    fn todo_items(&self, reading: &Reading, working_on: Option<usize>) -> Vec<Value> {
        reading
            .plan
            .iter()
            .map(|&i| {
                let status = if reading.done.contains(&i) {
                    TodoStatus::Completed
                } else if Some(i) == working_on {
                    TodoStatus::InProgress
                } else {
                    TodoStatus::Pending
                };
                json!({"id": self.steps[i].id, "text": self.steps[i].text, "status": status.as_str()})
            })
            .collect()
    }

    fn invalid_items(&self, reading: &Reading, rng: &mut ChaCha8Rng) -> Vec<Value> {
        let mut items = self.todo_items(reading, None);
        match pick(rng, &[1.0, 1.0, 1.0, 1.0]) {
            0 => {
                for item in items.iter_mut().take(2) {
                    item["status"] = json!("in_progress");
                }
                if items.len() < 2 {
                    items.push(
                        json!({"id": "extra", "text": "Double-check", "status": "in_progress"}),
                    );
                    items[0]["status"] = json!("in_progress");
                }
            }
            1 => match items.first_mut() {
                Some(item) => item["text"] = json!(""),
                None => items.push(json!({"id": "1", "text": "", "status": "pending"})),
            },
            2 => match items.first_mut() {
                Some(item) => item["status"] = json!("done"),
                None => items.push(json!({"id": "1", "text": "Start", "status": "done"})),
            },
            _ => {
                let extra = 21usize.saturating_sub(items.len());
                for k in 0..extra {
                    items.push(json!({"id": format!("sub{}", k + 1), "text": format!("Sub-task {}", k + 1), "status": "pending"}));
                }
            }
        }
        items
    }

    fn wants_todo_update(&self, messages: &[Message], turn: usize, rng: &mut ChaCha8Rng) -> bool {
        let latest = messages.last().filter(|m| m.role == Role::User);
        let last_todo_failed = messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .zip(latest)
            .is_some_and(|(asked, answered)| last_todo_rejected(asked, answered));
        let reminded = latest.is_some_and(|m| m.texts().any(|t| t.contains("<reminder>")));
        let chance = if last_todo_failed {
            1.0
        } else if turn == 1 {
            self.params.plan_first
        } else if reminded {
            self.params.reminder_compliance
        } else {
            self.params.todo_update_rate
        };
        uniform(rng) < chance
    }
}

impl Model for SimulatedModel {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let turn = turn_of(request);
        let mut rng = self.rng_for_turn(turn);
        let messages = request.messages;
        let mut reading = self.read(messages);
        let todo_offered = request.tools.iter().any(|t| t.name == "todo");
        let update = todo_offered && self.wants_todo_update(messages, turn, &mut rng);
        let mut content = Vec::new();
        let mut calls: Vec<ToolCall> = Vec::new();

        if update && uniform(&mut rng) < self.params.invalid_todo_rate {
            content.push(ContentBlock::text("Updating the plan."));
            calls.push(ToolCall {
                tool: "todo".into(),
                input: json!({"items": self.invalid_items(&reading, &mut rng)}),
            });
            return Ok(respond_with(turn, content, calls));
        }

        let pending: Vec<usize> = reading
            .plan
            .iter()
            .copied()
            .filter(|i| !reading.done.contains(i))
            .collect();
        let Some(&next) = pending.first() else {
            content.push(ContentBlock::text("All steps are complete."));
            return Ok(ModelResponse::from_blocks(content));
        };

        // Writing the todo list means reading the plan: a turn with a valid
        // update does not drift.
        let recalled = uniform(&mut rng) < reading.recall;
        let drift = if recalled || update {
            None
        } else {
            let p = &self.params;
            let weights = [
                p.skip_weight,
                p.repeat_weight,
                p.improvise_weight,
                p.stop_weight,
            ];
            Some(match pick(&mut rng, &weights) {
                0 => Drift::Skip,
                1 => Drift::Repeat,
                2 => Drift::Improvise,
                _ => Drift::Stop,
            })
        };

        // A false claim made while skipping, said before the work.
        let mut prefix = String::new();
        let working_on = match drift {
            None => Some(next),
            Some(Drift::Skip) => {
                let later = &pending[1..];
                if later.is_empty() {
                    // Nothing to skip to: it believes it is done.
                    content.push(ContentBlock::text(format!(
                        "{} All steps are complete.",
                        claim_text(&self.steps[next])
                    )));
                    return Ok(ModelResponse::from_blocks(content));
                }
                let target = later[(rng.next_u64() % later.len().min(2) as u64) as usize];
                prefix = format!("{} ", claim_text(&self.steps[next]));
                reading.done.insert(next);
                Some(target)
            }
            Some(Drift::Stop) => {
                content.push(ContentBlock::text("All done! The task is complete."));
                return Ok(ModelResponse::from_blocks(content));
            }
            Some(Drift::Repeat) | Some(Drift::Improvise) => None,
        };

        if update {
            calls.push(ToolCall {
                tool: "todo".into(),
                input: json!({"items": self.todo_items(&reading, working_on)}),
            });
        }
        match (working_on, drift) {
            (Some(step), _) => {
                let step = &self.steps[step];
                if step.actions.is_empty() {
                    // No tool does this step: performing it is saying so.
                    content.push(ContentBlock::text(format!("{prefix}{}", claim_text(step))));
                } else {
                    content.push(ContentBlock::text(format!("{prefix}{}", work_text(step))));
                    calls.extend(step.actions.iter().cloned());
                }
            }
            (None, Some(Drift::Repeat)) if !reading.done.is_empty() => {
                let done: Vec<usize> = reading.done.iter().copied().collect();
                let again = done[(rng.next_u64() % done.len() as u64) as usize];
                let step = &self.steps[again];
                content.push(ContentBlock::text(format!(
                    "Let me redo step {}: {}",
                    step.id, step.text
                )));
                calls.extend(step.actions.iter().cloned());
            }
            _ => {
                content.push(ContentBlock::text("Let me look around first."));
                calls.push(self.improvised_call(&mut rng));
            }
        }
        if calls.is_empty() {
            // Only a claimed step and no call: look around so the turn goes
            // on (a response without calls would end the run).
            calls.push(ToolCall {
                tool: "bash".into(),
                input: json!({"command": "ls"}),
            });
        }
        Ok(respond_with(turn, content, calls))
    }
}

impl SimulatedModel {
    /// An unplanned, harmless action: read a file some step touches, or list
    /// the workspace.
    fn improvised_call(&self, rng: &mut ChaCha8Rng) -> ToolCall {
        let paths: Vec<&str> = self
            .steps
            .iter()
            .flat_map(|s| s.actions.iter())
            .filter_map(|a| a.input.get("path").and_then(Value::as_str))
            .collect();
        if paths.is_empty() || rng.next_u64().is_multiple_of(3) {
            return ToolCall {
                tool: "bash".into(),
                input: json!({"command": "ls -R"}),
            };
        }
        let path = paths[(rng.next_u64() % paths.len() as u64) as usize];
        ToolCall {
            tool: "read_file".into(),
            input: json!({"path": path}),
        }
    }
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
fn work_text(step: &Step) -> String {
    format!("Working on step {}: {}", step.id, step.text)
}

/// How the model states that a step is finished.
fn claim_text(step: &Step) -> String {
    format!("Step {} done.", step.id)
}

fn last_todo_rejected(asked: &Message, answered: &Message) -> bool {
    asked.content_blocks().iter().any(|b| {
        let ContentBlock::ToolUse { id, name, .. } = b else {
            return false;
        };
        name == "todo"
            && answered.content_blocks().iter().any(|r| {
                matches!(r, ContentBlock::ToolResult { tool_use_id, content }
                    if tool_use_id == id && content.starts_with("Error"))
            })
    })
}

/// Characters the model reads in a message.
fn message_chars(message: &Message) -> usize {
    match &message.content {
        Content::Text(text) => text.chars().count(),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => text.chars().count(),
                ContentBlock::ToolResult { content, .. } => content.chars().count(),
                ContentBlock::ToolUse { name, input, .. } => {
                    name.len() + input.to_string().chars().count()
                }
            })
            .sum(),
    }
}

/// A uniform number in [0, 1) from 53 random bits.
fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// An index drawn with the given (non-negative, not all zero) weights.
fn pick(rng: &mut ChaCha8Rng, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = uniform(rng) * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.len().saturating_sub(1)
}
