//! The README's figures, made from the shipped scenarios so they cannot
//! drift: each table of README.md between `<!-- figures: NAME -->` and
//! `<!-- end -->` is rendered here from a run of the scenario it shows, at
//! the scenario's own seed counts.
//!
//! `cargo run --release --example figures` rewrites those blocks of
//! README.md in place (`-- --check` only compares, exit 1 on a
//! difference), and `tests/readme_figures.rs` fails when the README and the
//! runs disagree. Not a command of the binary: a maintainer's tool, kept in
//! the library so the example and the test render the same text. What can
//! stop it is a [`FigureError`] (`app/errors.rs`).

use std::path::{Path, PathBuf};

use super::errors::FigureError;
use crate::eval::{EvalOptions, evaluate_scenario};
use crate::metric::{COMPLETION_RATE, FULL_COMPLETION_RATE, MEAN_CONTEXT_TOKENS, MEAN_REMINDERS};
use crate::results::{CellSummary, ScenarioResult};

/// A figures block: its name in the README's mark, and its text.
pub struct Block {
    pub name: &'static str,
    pub text: String,
}

/// Runs the shipped scenarios under `root` (the repository) and renders
/// every figures block, in the README's order.
pub fn render_all(root: &Path) -> Result<Vec<Block>, FigureError> {
    let run = |file: &str| -> Result<ScenarioResult, FigureError> {
        let path = root.join("scenarios").join(file);
        let scenario = crate::scenario::load(&path)?;
        evaluate(&scenario, path)
    };
    let ten_step = run("ten_step_refactor.yaml")?;
    let dialects = run("dialects.yaml")?;
    let policies = run("reminder_policies.yaml")?;
    let price = run("price_of_planning.yaml")?;
    let sessions = run("sessions/seed002.yaml")?;
    let profiled = run_profiled(
        root,
        "ten_step_refactor.yaml",
        "profiles/public-sessions.yaml",
    )?;
    Ok(vec![
        Block {
            name: "ten-step",
            text: ten_step_table(&ten_step)?,
        },
        Block {
            name: "dialects",
            text: format!(
                "{}\n{}",
                dialects_table(&dialects)?,
                policies_table(&policies)?
            ),
        },
        Block {
            name: "price",
            text: price_table(&price)?,
        },
        Block {
            name: "sessions",
            text: sessions_table(&sessions)?,
        },
        Block {
            name: "public-profile",
            text: profile_table(&ten_step, &profiled)?,
        },
        Block {
            name: "by-model",
            text: by_model_table(&root.join("profiles/by-model"))?,
        },
    ])
}

/// The planning parameters the by-model table shows, with their column
/// headings.
const BY_MODEL_COLUMNS: [(&str, &str); 8] = [
    ("plans_at_all", "sessions that plan at all"),
    ("turns_per_step", "turns an item"),
    ("plan_first", "plans on a task's first turn"),
    ("first_plan_hazard", "first plan, per later turn"),
    ("todo_update_rate", "updates, per ordinary turn"),
    ("closing_update", "closes the list"),
    ("items_per_update", "items ticked per update"),
    ("reminder_compliance", "follows a recorded reminder"),
];

/// Planning behaviour by model family, read from the profiles in `dir`
/// (`calibrate --by model`, one `<family>.yaml` each), in name order:
/// each value with its 95% interval, and the count it rests on where it
/// is the reminders (few are recorded).
fn by_model_table(dir: &Path) -> Result<String, FigureError> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| FigureError::ReadDir {
            dir: dir.into(),
            source,
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut text = String::from("| model family | sessions |");
    for (_, heading) in BY_MODEL_COLUMNS {
        text.push_str(&format!(" {heading} |"));
    }
    text.push_str("\n|---|---:|");
    text.push_str(&"---|".repeat(BY_MODEL_COLUMNS.len()));
    text.push('\n');
    for file in files {
        let loaded = crate::model::simulated::Profile::read(&file)?;
        let family = file
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        text.push_str(&format!(
            "| {family} | {} |",
            loaded.profile.fitted_on.sessions
        ));
        for (name, _) in BY_MODEL_COLUMNS {
            text.push_str(&format!(" {} |", by_model_cell(&loaded.profile, name)));
        }
        text.push('\n');
    }
    Ok(text)
}

/// One parameter of a family's profile: value and interval where measured,
/// `–` where assumed (no data), `n` for the reminders.
fn by_model_cell(profile: &crate::model::simulated::Profile, name: &str) -> String {
    use crate::model::simulated::profile::Source;
    let Some(param) = profile.params.get(name) else {
        return "–".into();
    };
    if param.source == Source::Assumed {
        return "–".into();
    }
    if name == "items_per_update" {
        return if param.value > 0.0 {
            format!("at most {:.0}", param.value)
        } else {
            "no limit".into()
        };
    }
    let interval = param.interval.map_or(String::new(), |[low, high]| {
        format!(" ({low:.3}–{high:.3})")
    });
    let count = if name == "reminder_compliance" {
        format!(", n = {}", param.n)
    } else {
        String::new()
    };
    format!("{:.3}{interval}{count}", param.value)
}

/// The shipped scenario `file` run under the calibration profile
/// `profile` (both under `root`), as `run --profile` runs it.
fn run_profiled(root: &Path, file: &str, profile: &str) -> Result<ScenarioResult, FigureError> {
    let path = root.join("scenarios").join(file);
    let mut scenario = crate::scenario::load(&path)?;
    let loaded = crate::model::simulated::Profile::read(&root.join(profile))?;
    scenario.use_profile(&loaded);
    evaluate(&scenario, path)
}

/// The scenario loaded from `file` run at its own seed counts.
fn evaluate(
    scenario: &crate::scenario::Scenario,
    file: PathBuf,
) -> Result<ScenarioResult, FigureError> {
    evaluate_scenario(scenario, &EvalOptions::default(), &|_| {})
        .map_err(|source| FigureError::Run { file, source })
}

/// The ten-step story under the defaults beside the same cells under the
/// profile fitted on public sessions.
fn profile_table(
    defaults: &ScenarioResult,
    profiled: &ScenarioResult,
) -> Result<String, FigureError> {
    let mut text = String::from(
        "| todo tool | nag | completion, defaults | completion, public profile | full, defaults | full, public profile | reminders / run, public profile |\n|---|---|---|---|---|---|---|\n",
    );
    let rows = [
        ("yes", "1", "todo=true nag=1"),
        ("yes", "3", "todo=true nag=3"),
        ("yes", "off", "todo=true nag=off"),
        ("no", "–", "todo=false"),
    ];
    for (todo, nag, settings) in rows {
        let (d, p) = (cell(defaults, settings)?, cell(profiled, settings)?);
        text.push_str(&format!(
            "| {todo} | {nag} | {} | {} | {} | {} | {:.1} |\n",
            percent(d.value(COMPLETION_RATE)),
            percent(p.value(COMPLETION_RATE)),
            percent(d.value(FULL_COMPLETION_RATE)),
            percent(p.value(FULL_COMPLETION_RATE)),
            p.value(MEAN_REMINDERS)
        ));
    }
    Ok(text)
}

/// `readme` with the text of each block put between its marks. Every
/// block must have its marks, and every mark a block.
pub fn splice(readme: &str, blocks: &[Block]) -> Result<String, FigureError> {
    const END: &str = "<!-- end -->";
    let mut out = String::with_capacity(readme.len());
    let mut rest = readme;
    let mut seen = Vec::new();
    while let Some(at) = rest.find("<!-- figures: ") {
        let line_end = rest[at..]
            .find('\n')
            .map(|i| at + i + 1)
            .ok_or(FigureError::MarkEndsFile)?;
        let name = rest[at + "<!-- figures: ".len()..line_end]
            .trim()
            .trim_end_matches("-->")
            .trim();
        let block = blocks
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| FigureError::UnknownMark { name: name.into() })?;
        let end = rest[line_end..]
            .find(END)
            .map(|i| line_end + i)
            .ok_or_else(|| FigureError::NoEnd { name: name.into() })?;
        out.push_str(&rest[..line_end]);
        out.push_str(&block.text);
        rest = &rest[end..];
        seen.push(name.to_string());
    }
    out.push_str(rest);
    for block in blocks {
        if !seen.iter().any(|s| s == block.name) {
            return Err(FigureError::NoMark { name: block.name });
        }
    }
    Ok(out)
}

/// The cell whose settings are exactly `wanted` (`axis=value` words in
/// the order the tables print them, e.g. `todo=true nag=3`).
fn cell<'a>(result: &'a ScenarioResult, wanted: &str) -> Result<&'a CellSummary, FigureError> {
    result
        .cells
        .iter()
        .find(|c| c.settings.to_string() == wanted)
        .ok_or_else(|| FigureError::NoCell {
            file: result.file.clone(),
            wanted: wanted.into(),
        })
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// `2,661`: whole tokens with thousands separators.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn ten_step_table(result: &ScenarioResult) -> Result<String, FigureError> {
    let mut text = String::from(
        "| todo tool | nag | completion | full completion | reminders / run |\n|---|---|---|---|---|\n",
    );
    let rows = [
        ("yes", "1", "todo=true nag=1"),
        ("yes", "2", "todo=true nag=2"),
        ("yes", "3", "todo=true nag=3"),
        ("yes", "5", "todo=true nag=5"),
        ("yes", "off", "todo=true nag=off"),
        ("no", "–", "todo=false"),
    ];
    for (todo, nag, settings) in rows {
        let c = cell(result, settings)?;
        text.push_str(&format!(
            "| {todo} | {nag} | {} | {} | {:.1} |\n",
            percent(c.value(COMPLETION_RATE)),
            percent(c.value(FULL_COMPLETION_RATE)),
            c.value(MEAN_REMINDERS)
        ));
    }
    Ok(text)
}

fn dialects_table(result: &ScenarioResult) -> Result<String, FigureError> {
    let mut text = String::from(
        "| dialect | reminder | completion [95% CI] | full | reminders / run | planning calls / run |\n|---|---|---|---|---|---|\n",
    );
    let designs = [
        ("s03", "s03"),
        ("s03-guarded", "s03"),
        ("planning-state", "planning-state"),
        ("java-port", "s03"),
        ("create-update", "s03"),
        ("claude-code", "claude-code"),
        ("claude-code-tasks", "claude-code"),
        ("codex", "off"),
        ("gemini", "off"),
    ];
    let mut row = |dialect: &str, reminder: &str, c: &CellSummary| {
        let [lo, hi] = c.interval(COMPLETION_RATE);
        text.push_str(&format!(
            "| {dialect} | {reminder} | {} [{:.0}, {:.0}] | {} | {:.2} | {:.1} |\n",
            percent(c.value(COMPLETION_RATE)),
            lo * 100.0,
            hi * 100.0,
            percent(c.value(FULL_COMPLETION_RATE)),
            c.value(MEAN_REMINDERS),
            c.value("mean_todo_calls")
        ));
    };
    for (dialect, reminder) in designs {
        let settings = format!("todo=true dialect={dialect} reminder={reminder}");
        row(dialect, reminder, cell(result, &settings)?);
    }
    row("– (no planning tool)", "–", cell(result, "todo=false")?);
    Ok(text)
}

fn policies_table(result: &ScenarioResult) -> Result<String, FigureError> {
    let mut text = String::from(
        "| reminder (under s03) | completion | full | reminders / run |\n|---|---|---|---|\n",
    );
    let policies = [
        "s03",
        "planning-state",
        "claude-code",
        "interval",
        "every-turn",
        "off",
    ];
    let rows = policies
        .iter()
        .map(|p| (*p, format!("todo=true reminder={p}")))
        .chain([("no planning tool", "todo=false".to_string())]);
    for (label, settings) in rows {
        let c = cell(result, &settings)?;
        text.push_str(&format!(
            "| {label} | {} | {} | {:.2} |\n",
            percent(c.value(COMPLETION_RATE)),
            percent(c.value(FULL_COMPLETION_RATE)),
            c.value(MEAN_REMINDERS)
        ));
    }
    Ok(text)
}

fn price_table(result: &ScenarioResult) -> Result<String, FigureError> {
    let mut text = String::from(
        "| todo tool | nag | completion | full | reminders / run | tokens / run | planning share | points per 1k extra tokens |\n|---|---|---|---|---|---|---|---|\n",
    );
    // Cheapest first; each step is priced against the row before it.
    let rows = [
        ("no", "–", "todo=false", ""),
        ("yes", "off", "todo=true nag=off", "no todo tool"),
        ("yes", "8", "todo=true nag=8", "off"),
        ("yes", "5", "todo=true nag=5", "8"),
        ("yes", "3", "todo=true nag=3", "5"),
        ("yes", "2", "todo=true nag=2", "3"),
        ("yes", "1", "todo=true nag=1", "2"),
    ];
    let mut previous: Option<&CellSummary> = None;
    for (todo, nag, settings, against) in rows {
        let c = cell(result, settings)?;
        let (completion, tokens) = (c.value(COMPLETION_RATE), c.value(MEAN_CONTEXT_TOKENS));
        let rate = previous.map_or("–".to_string(), |p| {
            let points = (completion - p.value(COMPLETION_RATE)) * 100.0;
            let extra = (tokens - p.value(MEAN_CONTEXT_TOKENS)) / 1000.0;
            format!("{:.1} (vs {against})", points / extra)
        });
        text.push_str(&format!(
            "| {todo} | {nag} | {:.1}% | {} | {:.2} | {} | {} | {rate} |\n",
            completion * 100.0,
            percent(c.value(FULL_COMPLETION_RATE)),
            c.value(MEAN_REMINDERS),
            thousands(tokens),
            percent(c.value("planning_share")),
        ));
        previous = Some(c);
    }
    Ok(text)
}

/// Part `part` (1-based) of a cell's runs: mean completion and the share
/// of runs that completed every step of it.
fn part_rates(c: &CellSummary, part: usize) -> Result<(f64, f64), FigureError> {
    let (mut completion, mut full, mut runs) = (0.0, 0.0, 0.0);
    for record in c.results.records() {
        let run = record?;
        let view = crate::results::parts::part_view(&run, part);
        if view.steps_total > 0 {
            completion += view.steps_completed as f64 / view.steps_total as f64;
        }
        if view.steps_completed == view.steps_total {
            full += 1.0;
        }
        runs += 1.0;
    }
    if runs == 0.0 {
        return Err(FigureError::NoRuns {
            settings: c.settings.to_string(),
        });
    }
    Ok((completion / runs, full / runs))
}

fn sessions_table(result: &ScenarioResult) -> Result<String, FigureError> {
    let mut text = String::from(
        "| cell | part 1 completion | part 2 completion | part 2 full |\n|---|---:|---:|---:|\n",
    );
    let rows = [
        (
            "todo, part 1's plan kept (`rewrite_stale_plan` 0)",
            "todo=true nag=3 rewrite_stale_plan=0",
        ),
        (
            "todo, rewritten half the time (0.5, the default)",
            "todo=true nag=3 rewrite_stale_plan=0.5",
        ),
        (
            "todo, rewritten for the new task (1)",
            "todo=true nag=3 rewrite_stale_plan=1",
        ),
        ("no todo tool", "todo=false"),
    ];
    for (label, settings) in rows {
        let c = cell(result, settings)?;
        let (first, _) = part_rates(c, 1)?;
        let (second, second_full) = part_rates(c, 2)?;
        text.push_str(&format!(
            "| {label} | {} | {} | {} |\n",
            percent(first),
            percent(second),
            percent(second_full)
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(2661.4), "2,661");
        assert_eq!(thousands(16386.0), "16,386");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(1234567.0), "1,234,567");
    }

    /// The messages a maintainer reads, pinned byte for byte as they were
    /// when these functions returned strings.
    #[test]
    fn messages_are_pinned() {
        let blocks = |name: &'static str| {
            [Block {
                name,
                text: String::new(),
            }]
        };
        fn text<E: ToString>(r: Result<String, E>) -> Result<String, String> {
            r.map_err(|e| e.to_string())
        }
        let cases = [
            (
                text(splice("a <!-- figures: x -->", &blocks("x"))),
                "a figures mark ends the file",
            ),
            (
                text(splice("<!-- figures: x -->\n", &blocks("y"))),
                "README.md: no figures are made for the mark `x`",
            ),
            (
                text(splice("<!-- figures: x -->\n", &blocks("x"))),
                "README.md: the figures mark `x` has no <!-- end -->",
            ),
            (
                text(splice("none\n", &blocks("x"))),
                "README.md: no `<!-- figures: x -->` mark",
            ),
            (
                text(by_model_table(Path::new("/nonexistent-figures"))),
                "/nonexistent-figures: No such file or directory (os error 2)",
            ),
            (
                text(render_all(Path::new("/nonexistent-figures")).map(|_| String::new())),
                "/nonexistent-figures/scenarios/ten_step_refactor.yaml: cannot read: No such file or directory (os error 2)",
            ),
        ];
        for (got, message) in cases {
            assert_eq!(got, Err(message.to_string()));
        }
    }

    #[test]
    fn splice_replaces_between_the_marks_and_names_a_missing_one() {
        let readme = "a\n<!-- figures: x -->\nold\n<!-- end -->\nb\n";
        let blocks = [Block {
            name: "x",
            text: "new\n".into(),
        }];
        assert_eq!(
            splice(readme, &blocks).unwrap(),
            "a\n<!-- figures: x -->\nnew\n<!-- end -->\nb\n"
        );
        let other = [Block {
            name: "y",
            text: String::new(),
        }];
        assert!(
            splice(readme, &other)
                .unwrap_err()
                .to_string()
                .contains("`x`")
        );
        assert!(
            splice("no marks\n", &blocks)
                .unwrap_err()
                .to_string()
                .contains("figures: x")
        );
    }
}
