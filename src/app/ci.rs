//! The CI engines agent-eval knows, one entry each: where an engine says
//! which parallel job this is (for `--shard auto`) and which commit and
//! branch are being built (for `--history`). Adding an engine is adding an
//! entry to [`ENGINES`]; nothing else names these variables.

use super::errors::ShardAutoError;
use crate::eval::Shard;

/// The variables of one parallel-job scheme: which job this is and how
/// many there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParallelVars {
    pub index: &'static str,
    pub total: &'static str,
    /// What the first job's index is (0 or 1).
    pub first_index: usize,
}

/// One CI engine (or job runner).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    pub name: &'static str,
    /// Where it says which parallel job this is, if it runs parallel jobs
    /// on its own.
    pub parallel: Option<ParallelVars>,
    /// The commit and the branch being built, if it says.
    pub commit: Option<&'static str>,
    pub branch: Option<&'static str>,
}

/// Every engine, in the order their variables are looked at.
pub const ENGINES: &[Engine] = &[
    Engine {
        name: "GitHub Actions",
        parallel: None,
        commit: Some("GITHUB_SHA"),
        branch: Some("GITHUB_REF_NAME"),
    },
    Engine {
        name: "GitLab CI",
        parallel: Some(ParallelVars {
            index: "CI_NODE_INDEX",
            total: "CI_NODE_TOTAL",
            first_index: 1,
        }),
        commit: Some("CI_COMMIT_SHA"),
        branch: Some("CI_COMMIT_REF_NAME"),
    },
    Engine {
        name: "CircleCI",
        parallel: Some(ParallelVars {
            index: "CIRCLE_NODE_INDEX",
            total: "CIRCLE_NODE_TOTAL",
            first_index: 0,
        }),
        commit: Some("CIRCLE_SHA1"),
        branch: Some("CIRCLE_BRANCH"),
    },
    Engine {
        name: "Buildkite",
        parallel: Some(ParallelVars {
            index: "BUILDKITE_PARALLEL_JOB",
            total: "BUILDKITE_PARALLEL_JOB_COUNT",
            first_index: 0,
        }),
        commit: Some("BUILDKITE_COMMIT"),
        branch: Some("BUILDKITE_BRANCH"),
    },
    Engine {
        name: "Kubernetes Indexed Job",
        parallel: Some(ParallelVars {
            index: "JOB_COMPLETION_INDEX",
            total: "AGENT_EVAL_SHARDS",
            first_index: 0,
        }),
        commit: None,
        branch: None,
    },
];

/// Every variable `--shard auto` reads, for messages and for tests that
/// must clear them.
pub fn parallel_variables() -> Vec<&'static str> {
    ENGINES
        .iter()
        .filter_map(|e| e.parallel)
        .flat_map(|p| [p.index, p.total])
        .collect()
}

/// `--shard auto`: the shard the parallel-job variables name (`get` reads
/// a variable; empty values count as unset). Exactly one shard must come
/// out: none set, a half-set pair, a value that is not a number, an index
/// out of range or two engines that disagree are errors naming the
/// variables.
pub fn shard_from_env(get: &dyn Fn(&str) -> Option<String>) -> Result<Shard, ShardAutoError> {
    let read = |name: &str| get(name).filter(|v| !v.trim().is_empty());
    let mut found: Vec<(Shard, &Engine)> = Vec::new();
    for engine in ENGINES {
        let Some(vars) = engine.parallel else {
            continue;
        };
        let shard = match (read(vars.index), read(vars.total)) {
            (None, None) => continue,
            (Some(index), Some(total)) => engine_shard(engine.name, vars, &index, &total)?,
            (index, _) => {
                let (set, missing) = if index.is_some() {
                    (vars.index, vars.total)
                } else {
                    (vars.total, vars.index)
                };
                return Err(ShardAutoError::HalfSet {
                    set,
                    missing,
                    engine: engine.name,
                });
            }
        };
        if let Some((other, by)) = found.first()
            && *other != shard
        {
            return Err(ShardAutoError::Disagree {
                engine: engine.name,
                shard: shard.to_string(),
                other_engine: by.name,
                other: other.to_string(),
            });
        }
        found.push((shard, engine));
    }
    found.first().map(|(shard, _)| *shard).ok_or_else(|| {
        let pairs: Vec<String> = ENGINES
            .iter()
            .filter_map(|e| {
                e.parallel
                    .map(|p| format!("{}/{} ({})", p.index, p.total, e.name))
            })
            .collect();
        ShardAutoError::NoneSet {
            looked: pairs.join(", "),
        }
    })
}

/// The shard of one engine's values.
fn engine_shard(
    engine: &'static str,
    vars: ParallelVars,
    index: &str,
    total: &str,
) -> Result<Shard, ShardAutoError> {
    let number = |name: &'static str, raw: &str| {
        raw.trim()
            .parse::<usize>()
            .map_err(|_| ShardAutoError::NotANumber {
                name,
                raw: raw.to_string(),
                engine,
            })
    };
    let (index_value, count) = (number(vars.index, index)?, number(vars.total, total)?);
    let last = (count + vars.first_index).saturating_sub(1);
    if count == 0 || index_value < vars.first_index || index_value > last {
        return Err(ShardAutoError::OutOfRange {
            index_name: vars.index,
            index: index_value,
            first: vars.first_index,
            last,
            total_name: vars.total,
            total: count,
            engine,
        });
    }
    Ok(Shard {
        index: index_value - vars.first_index + 1,
        count,
    })
}

/// The commit and branch being built, as the first engine that names a
/// commit says (`get` reads a variable), with that engine's name.
pub fn commit_from_env(
    get: &dyn Fn(&str) -> Option<String>,
) -> Option<(Option<String>, Option<String>, &'static str)> {
    let read = |name: Option<&str>| {
        name.and_then(get)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    ENGINES.iter().find_map(|engine| {
        let commit = read(engine.commit)?;
        Some((Some(commit), read(engine.branch), engine.name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn shard(pairs: &[(&str, &str)]) -> Result<String, String> {
        shard_from_env(&env(pairs))
            .map(|s| s.to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn each_engine_counts_from_its_own_first_index() {
        assert_eq!(
            shard(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "3")]).unwrap(),
            "1/3"
        );
        assert_eq!(
            shard(&[("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "3")]).unwrap(),
            "3/3"
        );
        assert_eq!(
            shard(&[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "4")]).unwrap(),
            "1/4"
        );
        assert_eq!(
            shard(&[
                ("BUILDKITE_PARALLEL_JOB", "3"),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "4")
            ])
            .unwrap(),
            "4/4"
        );
        assert_eq!(
            shard(&[("JOB_COMPLETION_INDEX", "1"), ("AGENT_EVAL_SHARDS", "2")]).unwrap(),
            "2/2"
        );
    }

    #[test]
    fn nothing_set_names_every_variable() {
        let message = shard(&[("GITHUB_SHA", "abc")]).unwrap_err();
        for name in parallel_variables() {
            assert!(message.contains(name), "{message} lacks {name}");
        }
    }

    #[test]
    fn inconsistent_values_are_refused() {
        for pairs in [
            &[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "3")][..],
            &[("CI_NODE_INDEX", "4"), ("CI_NODE_TOTAL", "3")],
            &[("CIRCLE_NODE_INDEX", "4"), ("CIRCLE_NODE_TOTAL", "4")],
            &[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "0")],
            &[
                ("BUILDKITE_PARALLEL_JOB", "one"),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "4"),
            ],
            &[
                ("BUILDKITE_PARALLEL_JOB", "-1"),
                ("BUILDKITE_PARALLEL_JOB_COUNT", "4"),
            ],
            &[("JOB_COMPLETION_INDEX", "0")],
            &[("AGENT_EVAL_SHARDS", "3")],
            &[
                ("CI_NODE_INDEX", "1"),
                ("CI_NODE_TOTAL", "2"),
                ("JOB_COMPLETION_INDEX", "1"),
                ("AGENT_EVAL_SHARDS", "2"),
            ],
        ] {
            assert!(shard(pairs).is_err(), "{pairs:?} was accepted");
        }
        // Two engines that agree are one answer.
        assert_eq!(
            shard(&[
                ("CI_NODE_INDEX", "2"),
                ("CI_NODE_TOTAL", "2"),
                ("JOB_COMPLETION_INDEX", "1"),
                ("AGENT_EVAL_SHARDS", "2"),
            ])
            .unwrap(),
            "2/2"
        );
    }

    #[test]
    fn the_commit_comes_from_the_first_engine_naming_one() {
        assert_eq!(commit_from_env(&env(&[])), None);
        assert_eq!(
            commit_from_env(&env(&[("CIRCLE_SHA1", "abc"), ("CIRCLE_BRANCH", "main")])),
            Some((Some("abc".into()), Some("main".into()), "CircleCI"))
        );
        assert_eq!(
            commit_from_env(&env(&[("CI_COMMIT_SHA", "def")])),
            Some((Some("def".into()), None, "GitLab CI"))
        );
    }
}

/// The folder the CI checked the repository out in (GitLab's
/// `CI_PROJECT_DIR`, GitHub's `GITHUB_WORKSPACE`): CI pages show paths
/// relative to it.
pub fn workspace_dir(get: &dyn Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    ["CI_PROJECT_DIR", "GITHUB_WORKSPACE"]
        .into_iter()
        .find_map(|name| get(name).filter(|v| !v.trim().is_empty()))
        .map(Into::into)
}

/// What a run inside GitHub Actions writes for the pull request and the
/// run's page, on top of what was asked: an `::error` annotation per
/// failure, and the Markdown summary appended to the job summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GithubOutputs {
    /// Print the annotations.
    pub annotations: bool,
    /// Append the Markdown summary here (`$GITHUB_STEP_SUMMARY`).
    pub step_summary: Option<std::path::PathBuf>,
    /// Annotated paths are relative to this folder (`$GITHUB_WORKSPACE`).
    pub workspace: Option<std::path::PathBuf>,
}

/// The GitHub Actions outputs `get` (a variable's value) calls for:
/// `None` outside GitHub Actions (`GITHUB_ACTIONS` is not `true`) or when
/// both are turned off by the flags.
pub fn github_outputs(
    get: &dyn Fn(&str) -> Option<String>,
    annotations: bool,
    step_summary: bool,
) -> Option<GithubOutputs> {
    let read = |name: &str| get(name).filter(|v| !v.trim().is_empty());
    if read("GITHUB_ACTIONS").as_deref() != Some("true") {
        return None;
    }
    let outputs = GithubOutputs {
        annotations,
        step_summary: read("GITHUB_STEP_SUMMARY")
            .filter(|_| step_summary)
            .map(Into::into),
        workspace: workspace_dir(get),
    };
    (outputs.annotations || outputs.step_summary.is_some()).then_some(outputs)
}

/// `--markdown` naming the job summary file itself (`--markdown
/// "$GITHUB_STEP_SUMMARY"`, as many workflows write it): replacing that
/// file would wipe what earlier steps wrote, and the automatic summary
/// would then append a second copy. So the summary is appended to it
/// once, as the step summary, and `--markdown` writes nothing of its own
/// (also under `--no-step-summary`: the file is the job's, never
/// truncated). Returns the `--markdown` path left to write and the GitHub
/// outputs.
pub fn fold_markdown_into_step_summary(
    markdown: Option<std::path::PathBuf>,
    github: Option<GithubOutputs>,
    get: &dyn Fn(&str) -> Option<String>,
) -> (Option<std::path::PathBuf>, Option<GithubOutputs>) {
    let summary_file = get("GITHUB_STEP_SUMMARY").filter(|v| !v.trim().is_empty());
    let (Some(path), Some(summary_file)) = (&markdown, summary_file) else {
        return (markdown, github);
    };
    if !super::same_file::same_file(path, std::path::Path::new(&summary_file)) {
        return (markdown, github);
    }
    let github = GithubOutputs {
        step_summary: Some(path.clone()),
        ..github.unwrap_or_else(|| GithubOutputs {
            workspace: workspace_dir(get),
            ..GithubOutputs::default()
        })
    };
    (None, Some(github))
}

#[cfg(test)]
mod github_tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn only_github_actions_turns_them_on_and_each_flag_turns_one_off() {
        assert_eq!(github_outputs(&vars(&[]), true, true), None);
        assert_eq!(
            github_outputs(&vars(&[("GITHUB_ACTIONS", "false")]), true, true),
            None
        );
        let on = vars(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", "/tmp/s.md"),
            ("GITHUB_WORKSPACE", "/w"),
        ]);
        let all = github_outputs(&on, true, true).unwrap();
        assert!(all.annotations);
        assert_eq!(
            all.step_summary.as_deref(),
            Some(std::path::Path::new("/tmp/s.md"))
        );
        assert_eq!(all.workspace.as_deref(), Some(std::path::Path::new("/w")));
        assert!(!github_outputs(&on, false, true).unwrap().annotations);
        assert_eq!(github_outputs(&on, true, false).unwrap().step_summary, None);
        assert_eq!(github_outputs(&on, false, false), None);
    }

    #[test]
    fn markdown_naming_the_step_summary_is_appended_to_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join("summary.md");
        std::fs::write(&summary, "earlier\n").unwrap();
        let summary_text = summary.to_string_lossy().into_owned();
        let get = move |name: &str| (name == "GITHUB_STEP_SUMMARY").then(|| summary_text.clone());
        // Named through another spelling of the same file, with the
        // automatic summary turned off: still appended, once.
        let other_name = dir.path().join(".").join("summary.md");
        let (markdown, github) =
            fold_markdown_into_step_summary(Some(other_name.clone()), None, &get);
        assert_eq!(markdown, None);
        let github = github.unwrap();
        assert_eq!(github.step_summary, Some(other_name));
        assert!(!github.annotations);
        // Another file is written as asked.
        let elsewhere = dir.path().join("agent-eval.md");
        let (markdown, github) =
            fold_markdown_into_step_summary(Some(elsewhere.clone()), None, &get);
        assert_eq!((markdown, github), (Some(elsewhere), None));
    }
}
