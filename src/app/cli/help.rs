//! The examples and exit statuses shown under each command's `--help`.

pub(super) const RUN_EXAMPLES: &str = "Examples:
  agent-eval run                                  every scenario under scenarios/
  agent-eval run scenarios/ --filter refactor,smoke --filter '!slow'
  agent-eval run --list                           what would run, without running
  agent-eval run --steps --seeds 200 --jobs 4
  agent-eval run --json report.json --html report.html --log-dir logs/
  agent-eval run --fail-fast -q
  agent-eval run scenarios/simulated/api_migration.yaml --agent claude-code   the real CLI (preset)

Exit status: 0 every expectation held; 1 an expectation failed (or a
baseline regressed); 2 bad input; 3 no scenario found; 130 interrupted.";

pub(super) const REPLAY_EXAMPLES: &str = "Examples:
  agent-eval replay scenarios/ten_step_refactor.yaml --seed 7
  agent-eval replay scenarios/ten_step_refactor.yaml --seed 7 --dialect codex --threshold 3
  agent-eval replay scenarios/ten_step_refactor.yaml --set placement=append --format json";

pub(super) const SWEEP_EXAMPLES: &str = "Examples:
  agent-eval sweep scenarios/ten_step_refactor.yaml --thresholds 1,2,3,5,8,off --svg sweep.svg
  agent-eval sweep scenarios/ten_step_refactor.yaml --axis dialect --seeds 100 --min-effect 0.05
  agent-eval sweep scenarios/ten_step_refactor.yaml --axis simulate.attention_span --values 4,8,16 -q";

pub(super) const MERGE_EXAMPLES: &str = "Example:
  agent-eval run --shard 1/2 --json a.json && agent-eval run --shard 2/2 --json b.json
  agent-eval merge a.json b.json --json full.json --junit junit.xml";

pub(super) const HISTORY_EXAMPLES: &str = "Examples:
  agent-eval run scenarios/ --history eval-history.db     record a run (repeat on each commit)
  agent-eval history eval-history.db --last 20            each cell over the last 20 runs
  agent-eval history eval-history.db --scenario refactor --branch main --html trend.html";

pub(super) const DIFF_EXAMPLES: &str = "Example:
  agent-eval diff old.json new.json --tolerance 0.02 --filter refactor";

pub(super) const SERVE_EXAMPLES: &str = "Example:
  agent-eval serve scenarios/ten_step_refactor.yaml --seed 3 --listen 127.0.0.1:8080";

pub(super) const CHECK_EXAMPLES: &str = "Examples:
  agent-eval check
  agent-eval check scenarios/my_scenario.yaml

Exit status: 0 every scenario is valid; 2 a scenario is invalid or cannot be
finished by its own steps; 3 no scenario found.";

pub(super) const CALIBRATE_EXAMPLES: &str = "Examples:
  agent-eval run scenarios/ --log-dir logs/ && agent-eval calibrate logs/ --out my-agent.yaml
  agent-eval calibrate ~/.claude/projects --model 'sonnet' --out profile.yaml --html calibration.html
  agent-eval run --profile my-agent.yaml        every simulated scenario under the profile

Exit status: 0 calibrated; 2 bad input or no session could be read.";
