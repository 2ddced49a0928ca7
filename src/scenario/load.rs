//! Reading scenario files: discovery, parsing with position-carrying
//! errors, and the checks that need the file system (the fixture folder).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde_saphyr::Spanned;
use sha2::{Digest, Sha256};

use super::agent_command::TaskVia;
use super::axes::{Axis, AxisValue};
use super::model::ModelSpec;
use super::step::{RawStep, Step};
use super::{
    AgentSettings, ExactExpectation, Expectation, Part, RawPart, RawScenario, Scenario,
    WorkspaceSpec,
};

/// Scenario files larger than this are refused before parsing.
pub const MAX_SCENARIO_BYTES: u64 = 8 << 20;

/// A scenario that could not be read or is invalid. Displays as
/// `FILE:LINE:COLUMN: message` when a position is known, else `FILE: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.headline())]
pub struct LoadError {
    pub file: PathBuf,
    /// 1-based line and column.
    pub position: Option<(u64, u64)>,
    pub message: String,
}

impl LoadError {
    /// An error of `file` at `position` (1-based line and column), if known.
    pub fn new(file: &Path, position: Option<(u64, u64)>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            position,
            message: message.into(),
        }
    }

    fn headline(&self) -> String {
        match self.position {
            Some((line, column)) => {
                format!("{}:{line}:{column}: {}", self.file.display(), self.message)
            }
            None => format!("{}: {}", self.file.display(), self.message),
        }
    }
}

/// Expands files and folders into scenario files: a file is taken as it
/// is; a folder gives every `*.yaml` / `*.yml` below it, in sorted path order.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut files = Vec::new();
    for path in paths {
        let meta = fs::metadata(path)
            .map_err(|e| LoadError::new(path, None, format!("cannot read: {e}")))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)?;
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let entries = fs::read_dir(dir)
        .map_err(|e| LoadError::new(dir, None, format!("cannot read folder: {e}")))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| LoadError::new(dir, None, format!("cannot read folder: {e}")))?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .map_err(|e| LoadError::new(&path, None, format!("cannot read: {e}")))?;
        if file_type.is_dir() {
            walk(&path, found)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            found.push(path);
        }
    }
    Ok(())
}

/// Loads every scenario the paths name (files, or folders via [`discover`]),
/// and returns them with the errors of the rest: a bad file costs only
/// itself. A file named twice — `x.yaml` and `./x.yaml`, or through its
/// folder and by name — is loaded once (files are told apart by their
/// canonical path); a scenario whose name another file already uses is an
/// error (reports, baselines and shards key on it).
/// Stops early, with what it has, when a process-wide cancellation is
/// requested ([`crate::cancel::requested`]): callers check it after.
pub fn load_all(paths: &[PathBuf]) -> (Vec<Scenario>, Vec<LoadError>) {
    let mut scenarios: Vec<Scenario> = Vec::new();
    let mut errors = Vec::new();
    let mut seen_files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for path in paths {
        let files = match discover(std::slice::from_ref(path)) {
            Ok(files) => files,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        for file in files {
            // Ctrl-C / SIGTERM while loading thousands of files: stop here;
            // the caller sees the request and reports the interruption.
            if crate::cancel::requested() {
                return (scenarios, errors);
            }
            let identity = fs::canonicalize(&file).unwrap_or_else(|_| tidy(&file));
            if !seen_files.insert(identity) {
                continue;
            }
            match load(&tidy(&file)) {
                Ok(s) => match names.get(&s.name).and_then(|&i| scenarios.get(i)) {
                    Some(other) => errors.push(LoadError::new(
                        &s.file,
                        None,
                        format!(
                            "scenario name `{}` is already used by {}",
                            s.name,
                            other.file.display()
                        ),
                    )),
                    None => {
                        names.insert(s.name.clone(), scenarios.len());
                        scenarios.push(s);
                    }
                },
                Err(e) => errors.push(e),
            }
        }
    }
    (scenarios, errors)
}

/// The path without its `.` components (`./a/./b.yaml` is `a/b.yaml`), so
/// reports name a file the same however it was given.
fn tidy(path: &Path) -> PathBuf {
    let tidied: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if tidied.as_os_str().is_empty() {
        path.to_path_buf()
    } else {
        tidied
    }
}

/// Reads and validates one scenario file.
pub fn load(file: &Path) -> Result<Scenario, LoadError> {
    let handle = crate::input::open_regular(file)
        .map_err(|e| LoadError::new(file, None, format!("cannot read: {e}")))?;
    let mut bytes = Vec::new();
    handle
        .take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| LoadError::new(file, None, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(LoadError::new(
            file,
            None,
            format!("file is larger than {MAX_SCENARIO_BYTES} bytes"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e
            .as_bytes()
            .get(..e.utf8_error().valid_up_to())
            .unwrap_or_default();
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        let line = valid.matches('\n').count() as u64 + 1;
        let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
        LoadError::new(file, Some((line, column)), format!("not UTF-8 text: {e}"))
    })?;
    load_str(file, &text)
}

/// Validates scenario text as if read from `file` (which names it in errors
/// and anchors the fixture path). The checks run in the order written here,
/// so a file with several faults is refused at the same one every time.
pub fn load_str(file: &Path, text: &str) -> Result<Scenario, LoadError> {
    let raw = parse_raw(file, text)?;
    let mut workspace = raw.workspace;
    resolve_fixture(file, &mut workspace)?;
    build_workspace_image(file, text, &workspace)?;
    let session = raw.session.is_some();
    let (parts, steps) = parts_and_steps(file, text, raw.task, raw.steps, raw.session)?;
    let mut agent = raw.agent.validate().map_err(|(position, message)| {
        // A conflict between keys of `agent:` is shown at `agent:`.
        let position = position.or_else(|| top_level_key(text, "agent"));
        LoadError::new(file, position, message)
    })?;
    if let Some((_, at)) = agent.awaiting_command.as_mut() {
        *at = top_level_key(text, "agent");
    }
    if session {
        check_session_agent(file, text, &agent)?;
    }
    let model_at = position_of(&raw.model);
    let mut model = raw.model.value;
    let (profile, simulate_written) = resolve_profile(file, text, &mut model, model_at)?;
    let (runs, runs_at) = match raw.runs {
        Some(spanned) => {
            let at = top_level_key(text, "runs").or_else(|| position_of(&spanned));
            (spanned.value, at)
        }
        None => (super::RunsSpec::default(), None),
    };
    check_simulate_axes(file, text, &runs, runs_at, &model)?;
    if let ModelSpec::Simulate(params) = &model {
        check_simulated_model(file, text, params, model_at, &steps)?;
    }
    let name = raw.name.unwrap_or_else(|| {
        file.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".to_string())
    });
    let mut expect = raw.expect;
    check_expected_parts(file, text, &expect, parts.len())?;
    // A cassette is checked for drift whether or not it says so.
    if model.is_cassette()
        && !expect
            .iter()
            .any(|e| matches!(e, Expectation::Exact(ExactExpectation::DriftTurns(_))))
    {
        expect.push(Expectation::Exact(ExactExpectation::DriftTurns(Vec::new())));
    }
    Ok(Scenario {
        name,
        description: raw.description,
        file: file.to_path_buf(),
        task: parts.first().map(|p| p.task.clone()).unwrap_or_default(),
        workspace,
        steps,
        parts,
        session,
        session_position: session.then(|| top_level_key(text, "session")).flatten(),
        agent,
        model,
        runs,
        expect,
        runs_position: runs_at.or(Some((1, 1))),
        sha256: sha256_hex(text.as_bytes()),
        profile,
        simulate_written,
    })
}

/// A simulated model's `profile: FILE` (relative to the scenario's folder)
/// read and applied under the parameters the file wrote; returns what
/// reports name the profile by and the names written.
fn resolve_profile(
    file: &Path,
    text: &str,
    model: &mut ModelSpec,
    model_at: Option<(u64, u64)>,
) -> Result<
    (
        Option<crate::model::simulated::profile::ProfileRef>,
        Vec<String>,
    ),
    LoadError,
> {
    let ModelSpec::Simulate(params) = model else {
        return Ok((None, Vec::new()));
    };
    let section = super::simulate_section(text);
    let Some(written) = &section.profile else {
        return Ok((None, section.written));
    };
    let path = file.parent().unwrap_or(Path::new("")).join(written);
    // A profile stays in the scenario's repository, as a fixture does.
    let outside = if Path::new(written).is_absolute() {
        Some("must be a path relative to the scenario file".to_string())
    } else {
        crate::sandbox::workspace::fixture_outside_repository(file, &path)
    };
    if let Some(problem) = outside {
        return Err(LoadError::new(
            file,
            model_at,
            format!("model.simulate.profile {problem}"),
        ));
    }
    let loaded = crate::model::simulated::Profile::read(&path)
        .map_err(|e| LoadError::new(file, model_at, format!("model.simulate.profile: {e}")))?;
    *params = super::with_profile(params, &section.written, &loaded.profile);
    Ok((Some(loaded.reference()), section.written))
}

/// The YAML parsed into the file's raw shape; a syntax or schema error is
/// reported at its line and column with the first line of its message.
fn parse_raw(file: &Path, text: &str) -> Result<RawScenario, LoadError> {
    serde_saphyr::from_str_with_options(text, parse_options()).map_err(|e| {
        let position = e
            .location()
            .filter(|l| l.line() > 0)
            .map(|l| (l.line(), l.column()));
        LoadError::new(file, position, first_line(&e.without_snippet().to_string()))
    })
}

/// Resolves `workspace.fixture` against the scenario file's folder and
/// refuses one that is absolute, missing, outside the repository or too big.
fn resolve_fixture(file: &Path, workspace: &mut WorkspaceSpec) -> Result<(), LoadError> {
    let Some(fixture) = workspace.fixture.as_mut() else {
        return Ok(());
    };
    let at = Some((fixture.referenced.line(), fixture.referenced.column()));
    let base = file.parent().unwrap_or(Path::new("."));
    let resolved = base.join(&fixture.value);
    let problem = if fixture.value.is_absolute() {
        Some("must be a path relative to the scenario file".to_string())
    } else if !resolved.is_dir() {
        Some(format!(
            "is not a folder (looked for {})",
            resolved.display()
        ))
    } else {
        crate::sandbox::workspace::fixture_outside_repository(file, &resolved)
            .or_else(|| fixture_too_big(&resolved))
    };
    if let Some(problem) = problem {
        return Err(LoadError::new(
            file,
            at,
            format!("fixture `{}` {problem}", fixture.value.display()),
        ));
    }
    fixture.value = resolved;
    Ok(())
}

/// Reads the fixture and writes the files once, now: what cannot be
/// prepared is an error of this file, not of a run.
fn build_workspace_image(
    file: &Path,
    text: &str,
    workspace: &WorkspaceSpec,
) -> Result<(), LoadError> {
    let image = crate::sandbox::workspace::WorkspaceImage::build(
        workspace.fixture.as_ref().map(|f| f.value.as_path()),
        workspace
            .files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str())),
    )
    .map_err(|e| {
        let at = match e.file_key() {
            Some(key) => crate::sandbox::workspace::locate_key(text, key),
            None => workspace
                .fixture
                .as_ref()
                .map(|f| (f.referenced.line(), f.referenced.column())),
        };
        LoadError::new(file, at, e.to_string())
    })?;
    let _ = workspace.image.set(std::sync::Arc::new(image));
    Ok(())
}

/// A session is sent to an outside agent one part a message: refuses a
/// `task_via` that cannot carry several.
fn check_session_agent(file: &Path, text: &str, agent: &AgentSettings) -> Result<(), LoadError> {
    let waiting = agent.awaiting_command.as_ref().map(|(a, _)| a);
    if let Some(external) = agent.external.as_ref().or(waiting)
        && !(external.task_via == TaskVia::Stdin || external.task_via.carries_sessions())
    {
        return Err(LoadError::new(
            file,
            top_level_key(text, "agent").and_then(|from| key_after(text, "task_via", from)),
            "agent.task_via: a session is sent to an outside agent one part a message (`task_via: lines`, the default for a session, or `stream-json`)",
        ));
    }
    Ok(())
}

/// Every value of a `runs:` axis that varies a simulated-model parameter
/// must give valid parameters, and such an axis needs a simulated model.
fn check_simulate_axes(
    file: &Path,
    text: &str,
    runs: &super::RunsSpec,
    runs_at: Option<(u64, u64)>,
    model: &ModelSpec,
) -> Result<(), LoadError> {
    let simulate_axes = runs
        .axes
        .iter()
        .filter(|(axis, _)| matches!(axis, Axis::Simulate(_)));
    for (axis, values) in simulate_axes {
        let axis_at = runs_at.and_then(|from| key_after(text, &axis.name(), from));
        let ModelSpec::Simulate(base) = model else {
            return Err(LoadError::new(
                file,
                axis_at.or(runs_at),
                format!(
                    "runs.{axis} varies a simulated-model parameter, but the model is scripted"
                ),
            ));
        };
        for value in values {
            let mut params = *base;
            if let (Axis::Simulate(i), AxisValue::Number(x)) = (axis, value)
                && let Some(name) = crate::model::simulated::SimulateParams::NAMES.get(*i)
                && let Some(field) = params.field_mut(name)
            {
                *field = *x;
            }
            params.validate().map_err(|message| {
                LoadError::new(file, axis_at.or(runs_at), format!("runs: {message}"))
            })?;
        }
    }
    Ok(())
}

/// A simulated model's parameters must be valid, and it needs steps with
/// `do` calls to perform.
fn check_simulated_model(
    file: &Path,
    text: &str,
    params: &crate::model::simulated::SimulateParams,
    model_at: Option<(u64, u64)>,
    steps: &[Step],
) -> Result<(), LoadError> {
    params.validate().map_err(|message| {
        // Point at the parameter the message names, when it is written.
        let at = message
            .param()
            .and_then(|name| model_at.and_then(|from| key_after(text, name, from)));
        LoadError::new(file, at.or(model_at), format!("model: {message}"))
    })?;
    if steps.iter().all(|s| s.actions.is_empty()) {
        return Err(LoadError::new(
            file,
            model_at,
            "model.simulate needs steps with `do` calls: they are how the simulated model performs a step",
        ));
    }
    Ok(())
}

/// A `part:` expectation must name a part the scenario has.
fn check_expected_parts(
    file: &Path,
    text: &str,
    expect: &[Expectation],
    part_count: usize,
) -> Result<(), LoadError> {
    for expectation in expect {
        if let Expectation::Part { part, .. } = expectation
            && *part > part_count
        {
            let at = top_level_key(text, "expect").and_then(|from| key_after(text, "part", from));
            return Err(LoadError::new(
                file,
                at,
                format!("expect: part {part}, but the scenario has {part_count} part(s)"),
            ));
        }
    }
    Ok(())
}

/// One part as written: its task and its steps.
type RawPartSteps = (String, Vec<Spanned<RawStep>>);

/// The conversation's parts and every step: `task` + `steps` make one
/// part; `session:` one part per entry, its steps following the previous
/// part's. A step id written twice (in one part or across parts) is an
/// error at the second one; a step without an id is numbered by its place
/// in the whole list, and may collide too.
fn parts_and_steps(
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
fn raw_parts(
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
fn number_steps(
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

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// Where a spanned value was written (1-based line and column), when known.
fn position_of<T>(spanned: &Spanned<T>) -> Option<(u64, u64)> {
    let at = spanned.referenced;
    (at.line() > 0).then(|| (at.line(), at.column()))
}

/// The position of `key:` written at the top level of the document (at the
/// start of a line, in block style).
fn top_level_key(text: &str, key: &str) -> Option<(u64, u64)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let rest = line
            .strip_prefix(key)
            .or_else(|| line.strip_prefix(&format!("\"{key}\"")))
            .or_else(|| line.strip_prefix(&format!("'{key}'")))?;
        rest.trim_start()
            .starts_with(':')
            .then_some((i as u64 + 1, 1))
    })
}

/// The first place at or after `from` where `key` is written as a mapping
/// key (`key:`, quoted or not, at the start of a line or after `{` or `,`).
/// Validation after parsing uses it to point at the value it refuses.
fn key_after(text: &str, key: &str, from: (u64, u64)) -> Option<(u64, u64)> {
    let first_line = from.0.saturating_sub(1) as usize;
    text.lines()
        .enumerate()
        .skip(first_line)
        .find_map(|(i, line)| {
            let skip_chars = if i == first_line {
                from.1.saturating_sub(1) as usize
            } else {
                0
            };
            let chars: Vec<char> = line.chars().collect();
            let key_chars: Vec<char> = key.chars().collect();
            (skip_chars..chars.len()).find_map(|start| {
                let before_ok = start == 0
                    || chars.get(start - 1).is_some_and(|c| {
                        c.is_whitespace() || matches!(c, '{' | ',' | '"' | '\'' | '-')
                    });
                let rest = chars.get(start..)?;
                let after = rest.strip_prefix(key_chars.as_slice())?;
                let after: String = after.iter().collect();
                let after = after.trim_start_matches(['"', '\'']).trim_start();
                (before_ok && after.starts_with(':')).then_some((i as u64 + 1, start as u64 + 1))
            })
        })
}

/// The most entries and bytes a fixture may hold: it is copied into every
/// run's workspace, so a typo like `fixture: ../..` must not copy a disk.
pub const MAX_FIXTURE_ENTRIES: usize = 10_000;
pub const MAX_FIXTURE_BYTES: u64 = 64 << 20;

/// Walks a fixture (not following symlinks) and says why it is too big.
fn fixture_too_big(root: &Path) -> Option<String> {
    let mut entries = 0usize;
    let mut bytes = 0u64;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(listing) = fs::read_dir(&dir) else {
            return Some(format!("cannot be read ({})", dir.display()));
        };
        for entry in listing.flatten() {
            entries += 1;
            if entries > MAX_FIXTURE_ENTRIES {
                return Some(format!(
                    "holds more than {MAX_FIXTURE_ENTRIES} files and folders"
                ));
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(entry.path()),
                Ok(kind) if kind.is_file() => {
                    bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
                    if bytes > MAX_FIXTURE_BYTES {
                        return Some(format!("holds more than {MAX_FIXTURE_BYTES} bytes"));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Parsing options. Budgets: a scenario is small, so the caps are far below
/// saphyr's defaults; an alias bomb stops at the node cap, long before it
/// could use real memory or time.
fn parse_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = 100_000;
    budget.max_aliases = 10_000;
    budget.max_total_scalar_bytes = MAX_SCENARIO_BYTES as usize;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // YAML 1.2 core booleans only: `n`, `no`, `off`, `yes`, `on` stay text
    // (a todo item `{text: n}` means the letter, not false).
    options.strict_booleans = true;
    options
}

/// The message's first line, without the ` at line L, column C` suffix
/// saphyr adds (the position is already in front).
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("invalid scenario").trim();
    let without_position = line
        .rfind(" at line ")
        .filter(|&at| {
            line[at + " at line ".len()..]
                .split(", column ")
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map_or(line, |at| &line[..at]);
    without_position.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{
        Axis, AxisValue, CellSelector, Expectation, ModelSpec, NagThreshold, Placement,
        ReminderSpec,
    };

    fn load(text: &str) -> Result<Scenario, LoadError> {
        load_str(Path::new("dir/my_scenario.yaml"), text)
    }

    #[test]
    fn defaults_fill_what_is_left_out() {
        let s = load(
            "task: t\nsteps:\n  - text: a\n  - {id: x, text: b}\nmodel:\n  script: [{text: hi}]\n",
        )
        .unwrap();
        assert_eq!(s.name, "my_scenario");
        assert_eq!(
            s.steps.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["1", "x"]
        );
        assert_eq!(s.steps_total(), 0);
        assert!(s.agent.todo);
        assert_eq!(s.agent.nag_threshold(), Some(NagThreshold::After(3)));
        assert_eq!(s.agent.placement, Placement::Prepend);
        assert_eq!(s.agent.max_turns, 50);
        assert!(matches!(s.model, ModelSpec::Script(ref r) if r.len() == 1));
    }

    #[test]
    fn off_may_be_written_bare_or_quoted() {
        for off in ["off", "\"off\""] {
            let s = load(&format!(
                "task: t\nagent: {{nag: {{threshold: {off}}}}}\nmodel:\n  script: [{{text: hi}}]\n"
            ))
            .unwrap();
            assert_eq!(s.agent.nag_threshold(), Some(NagThreshold::Off));
        }
        assert!(
            load("task: t\nagent: {nag: {threshold: true}}\nmodel:\n  script: [{text: hi}]\n")
                .is_err()
        );
    }

    #[test]
    fn expectations_round_trip_through_json() {
        let s = load(
            "task: t\nmodel:\n  script: [{text: hi}]\nexpect:\n  - reminders_at: [4, 5]\n  - stop: max_turns\n  - where: {todo: true, nag_threshold: off}\n    completion_rate: {at_least: 0.8}\n  - compare: {a: {todo: true}, b: {todo: false}}\n    full_completion_rate_p_value: {at_most: 0.05}\n",
        )
        .unwrap();
        assert_eq!(s.expect.len(), 4);
        let json = serde_json::to_string(&s.expect).unwrap();
        let back: Vec<Expectation> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s.expect);
        let Expectation::Bound { selector, .. } = &s.expect[2] else {
            panic!("a bound expected");
        };
        assert_eq!(
            selector,
            &CellSelector::new(vec![
                (Axis::Todo, AxisValue::Bool(true)),
                (Axis::NagThreshold, AxisValue::Threshold(NagThreshold::Off)),
            ])
        );
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = load("task: t\nmodel:\n  script: [{text: hi}]\nsteps:\n  - text: a\n    chek: {file: x, exists: true}\n").unwrap_err();
        assert_eq!(e.file, Path::new("dir/my_scenario.yaml"));
        assert_eq!(e.position, Some((6, 5)));
        assert!(
            e.to_string()
                .starts_with("dir/my_scenario.yaml:6:5: unknown field `chek`"),
            "{e}"
        );
    }

    #[test]
    fn errors_found_after_parsing_keep_their_line() {
        let at = |text: &str| load(text).unwrap_err().position.map(|p| p.0);
        let simulated =
            "task: t\nsteps:\n  - text: a\n    do: [{tool: bash, input: {command: ls}}]\n";
        // A duplicate id: the second one.
        assert_eq!(
            at(
                "task: t\nsteps:\n  - {id: x, text: a}\n  - text: b\n  - {id: x, text: c}\nmodel:\n  script: [{text: hi}]\n"
            ),
            Some(5)
        );
        // An implicit id colliding with a written one: the step without one.
        assert_eq!(
            at(
                "task: t\nsteps:\n  - {id: '2', text: a}\n  - text: b\nmodel:\n  script: [{text: hi}]\n"
            ),
            Some(4)
        );
        // A simulate parameter out of range: its own line.
        assert_eq!(
            at(&format!(
                "{simulated}model:\n  simulate:\n    sharpness: 2\n    recall_floor: 3\n"
            )),
            Some(8)
        );
        // A runs value out of range: its axis.
        assert_eq!(
            at(&format!(
                "{simulated}model:\n  simulate: {{}}\nruns:\n  todo: [true]\n  simulate.recall_floor: [0.5, 2]\n"
            )),
            Some(9)
        );
        // A scripted model with a simulate axis, and a simulated one without `do`.
        assert_eq!(
            at("task: t\nmodel:\n  script: [{text: hi}]\nruns:\n  simulate.attention_span: [1]\n"),
            Some(5)
        );
        assert_eq!(
            at("task: t\nsteps:\n  - text: a\nmodel:\n  simulate: {}\n"),
            Some(5)
        );
        // A seed listed twice.
        assert_eq!(
            at("task: t\nmodel:\n  script: [{text: hi}]\nruns:\n  seeds: [1, 2, 1]\n"),
            Some(5)
        );
    }

    #[test]
    fn a_file_named_twice_is_loaded_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.yaml");
        std::fs::write(&file, "task: t\nmodel:\n  script: [{text: hi}]\n").unwrap();
        let dotted = dir.path().join(".").join("x.yaml");
        let (scenarios, errors) = load_all(&[file.clone(), dotted, dir.path().to_path_buf()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(scenarios.len(), 1);
        assert_eq!(scenarios[0].file, file);
        assert_eq!(tidy(Path::new("./a/./b.yaml")), Path::new("a/b.yaml"));
        assert_eq!(
            scenarios[0].sha256,
            sha256_hex(b"task: t\nmodel:\n  script: [{text: hi}]\n")
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn reminder_policies_by_name_or_map() {
        let with = |agent: &str| {
            load(&format!(
                "task: t\nagent: {agent}\nmodel:\n  script: [{{text: hi}}]\n"
            ))
        };
        let s = with("{reminder: interval}").unwrap();
        assert_eq!(s.agent.reminder, ReminderSpec::Interval { every: 6 });
        let s = with("{reminder: {policy: claude-code, turns_between: 4}, nag: {placement: fold}}")
            .unwrap();
        assert_eq!(
            s.agent.reminder,
            ReminderSpec::ClaudeCode {
                turns_since_write: 10,
                turns_between: 4
            }
        );
        assert_eq!(s.agent.placement, Placement::Fold);
        for bad in [
            "{reminder: nope}",
            "{reminder: {policy: interval, threshold: 3}}",
            "{reminder: {every: 3}}",
            "{reminder: {policy: interval, every: 0}}",
        ] {
            assert!(with(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_reminder_and_a_nag_threshold_are_two_thresholds() {
        let e = load(
            "task: t\nagent:\n  nag: {threshold: 2}\n  reminder: off\nmodel:\n  script: [{text: hi}]\n",
        )
        .unwrap_err();
        assert_eq!(e.position.map(|p| p.0), Some(4), "{e}");
        assert!(
            e.message.contains("agent.reminder and agent.nag.threshold"),
            "{e}"
        );
        // The placement alone is no conflict.
        load("task: t\nagent:\n  nag: {placement: append}\n  reminder: off\nmodel:\n  script: [{text: hi}]\n").unwrap();
    }

    #[test]
    fn runs_vary_any_axis() {
        let s = load(
            "task: t\nsteps:\n  - {text: a, do: [{tool: bash, input: {command: ls}}]}\nmodel:\n  simulate: {}\nruns:\n  dialect: [s03]\n  reminder: [off, {policy: interval, every: 2}]\n  placement: [fold]\n  simulate.attention_span: [100, 200]\n",
        )
        .unwrap();
        let names: Vec<String> = s.runs.axes.iter().map(|(a, _)| a.name()).collect();
        assert_eq!(
            names,
            [
                "dialect",
                "reminder",
                "placement",
                "simulate.attention_span"
            ]
        );
        for bad in [
            "runs:\n  simulate.nope: [1]\n",
            "runs:\n  bogus: [1]\n",
            "runs:\n  simulate.recall_floor: [2]\n",
            "runs:\n  dialect: []\n",
        ] {
            let text = format!(
                "task: t\nsteps:\n  - {{text: a, do: [{{tool: bash, input: {{command: ls}}}}]}}\nmodel:\n  simulate: {{}}\n{bad}"
            );
            assert!(load(&text).is_err(), "{bad}");
        }
        let scripted = load(
            "task: t\nmodel:\n  script: [{text: hi}]\nruns:\n  simulate.attention_span: [1]\n",
        );
        assert!(scripted.is_err());
    }

    /// `agent.env` is checked as `execve` will see it, with its line: a
    /// name holding `=` would silently set another variable, a NUL would
    /// fail every run, and the run mark is the harness's.
    #[test]
    fn agent_env_names_and_values_are_checked_at_load() {
        let with_env = |agent: &str, env: &str| {
            load(&format!(
                "task: t\nagent:\n  {agent}\n  env:\n    {env}\nmodel:\n  script: [{{text: hi}}]\n"
            ))
        };
        for agent in ["command: 'true'", "preset: codex"] {
            for (env, says) in [
                ("\"A=B\": x", "is not a variable name"),
                ("\"\": x", "is not a variable name"),
                ("A: \"x\\0y\"", "holds a NUL byte"),
                ("AGENT_EVAL_RUN_MARK: x", "may not set AGENT_EVAL_RUN_MARK"),
            ] {
                let err = with_env(agent, env).unwrap_err().to_string();
                assert!(err.contains("my_scenario.yaml:5:"), "{env}: {err}");
                assert!(err.contains(says), "{env}: {err}");
            }
            with_env(agent, "HOME: ./home").unwrap();
        }
    }
}
