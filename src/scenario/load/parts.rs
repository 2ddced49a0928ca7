//! The conversation's parts and their steps: `task` + `steps` is one
//! part, `session:` one per entry; steps are numbered across the whole
//! list and an id written twice is refused at the second one.

use std::collections::BTreeMap;
use std::path::Path;

use serde_saphyr::Spanned;

use super::error::LoadError;
use super::position::{position_of, top_level_key};
use crate::scenario::step::{RawStep, Step};
use crate::scenario::{Part, RawPart};

/// One part as written: its task and its steps.
pub(super) type RawPartSteps = (String, Vec<Spanned<RawStep>>);

/// The conversation's parts and every step: `task` + `steps` make one
/// part; `session:` one part per entry, its steps following the previous
/// part's. A step id written twice (in one part or across parts) is an
/// error at the second one; a step without an id is numbered by its place
/// in the whole list, and may collide too.
pub(super) fn parts_and_steps(
    file: &Path,
    text: &str,
    task: Option<String>,
    steps: Option<Vec<Spanned<RawStep>>>,
    session: Option<Spanned<Vec<Spanned<RawPart>>>>,
) -> Result<(Vec<Part>, Vec<Step>), LoadError> {
    let raw_parts = raw_parts(file, text, task, steps, session)?;
    number_steps(file, raw_parts)
}

/// Each part's task and steps as written: `task` + `steps` is one part,
/// `session:` one per entry; refuses both or neither, `steps` beside
/// `session`, an empty session and a part with an empty task.
pub(super) fn raw_parts(
    file: &Path,
    text: &str,
    task: Option<String>,
    steps: Option<Vec<Spanned<RawStep>>>,
    session: Option<Spanned<Vec<Spanned<RawPart>>>>,
) -> Result<Vec<RawPartSteps>, LoadError> {
    let session_at = || top_level_key(text, "session");
    let raw_parts: Vec<RawPartSteps> = match (task, session) {
        (Some(_), Some(_)) => {
            return Err(LoadError::new(
                file,
                session_at(),
                "`task` and `session` are both set: a scenario is one task (`task` + `steps`) or a session of parts (`session`, each part its own `task` and `steps`)",
            ));
        }
        (None, None) => {
            return Err(LoadError::new(
                file,
                Some((1, 1)),
                "missing field `task` (or `session`, for several user messages)",
            ));
        }
        (Some(task), None) => vec![(task, steps.unwrap_or_default())],
        (None, Some(session)) => {
            if steps.is_some() {
                return Err(LoadError::new(
                    file,
                    top_level_key(text, "steps"),
                    "`steps` beside `session`: in a session each part lists its own steps",
                ));
            }
            if session.value.is_empty() {
                return Err(LoadError::new(
                    file,
                    session_at().or_else(|| position_of(&session)),
                    "session: needs at least one part (`- task: ...`)",
                ));
            }
            let mut parts = Vec::with_capacity(session.value.len());
            for (k, part) in session.value.into_iter().enumerate() {
                // A line REPL stops at an empty line: an empty part would
                // end an outside agent's session early.
                if crate::llm::session::one_line(&part.value.task).is_empty() {
                    return Err(LoadError::new(
                        file,
                        position_of(&part),
                        format!("session: part {} has an empty task", k + 1),
                    ));
                }
                parts.push((part.value.task, part.value.steps));
            }
            parts
        }
    };
    Ok(raw_parts)
}

/// The parts with their steps numbered across the whole list: a step id
/// written twice is an error at the second one.
pub(super) fn number_steps(
    file: &Path,
    raw_parts: Vec<RawPartSteps>,
) -> Result<(Vec<Part>, Vec<Step>), LoadError> {
    let mut parts = Vec::with_capacity(raw_parts.len());
    let mut all: Vec<Step> = Vec::new();
    // id -> (part, step within the part), 1-based, for the message.
    let mut ids: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let several = raw_parts.len() > 1;
    for (p, (task, steps)) in raw_parts.into_iter().enumerate() {
        let start = all.len();
        for (k, spanned) in steps.into_iter().enumerate() {
            let at = position_of(&spanned);
            let step = spanned.value;
            let (id, id_at) = match step.id {
                Some(id) => {
                    let id_at = position_of(&id);
                    (id.value.0, id_at)
                }
                None => ((all.len() + 1).to_string(), at),
            };
            if let Some((first_part, first_step)) = ids.insert(id.clone(), (p + 1, k + 1)) {
                let message = if several {
                    format!(
                        "session: step id `{id}` is used twice (by part {first_part} step {first_step} and part {} step {}); ids name steps across the whole session",
                        p + 1,
                        k + 1
                    )
                } else {
                    format!(
                        "steps: id `{id}` is used twice (by steps {first_step} and {})",
                        k + 1
                    )
                };
                return Err(LoadError::new(file, id_at, message));
            }
            all.push(Step {
                id,
                text: step.text,
                check: step.check,
                actions: step.actions,
                position: at,
            });
        }
        parts.push(Part {
            task,
            steps: start..all.len(),
        });
    }
    Ok((parts, all))
}
