"""The inspect_ai peer of benches/compare.sh: the same s03 episode in inspect_ai.

It replays a YAML episode (the same file agent-eval and s03_loop.py read)
the way an inspect_ai user would write it:

- the model is inspect's `mockllm/model` with `custom_outputs`: a function
  that answers turn k of the conversation with the YAML script's entry k
  (a ModelOutput with the entry's tool calls, as ModelOutput.for_tool_call
  builds for one call, or ModelOutput.from_content for a text turn), so
  every sample replays the script from its start whatever order inspect
  schedules samples in;
- a Task whose dataset holds one Sample per episode (N samples = N
  episodes); a setup solver gives each sample a fresh temporary workspace
  with the YAML files and the s03 system prompt, and the task's cleanup
  removes it;
- `@tool`s bash, read_file, write_file, edit_file and todo with the s03
  semantics (bash is `sh -c` through inspect's own async `subprocess`, in
  the workspace, not inspect's sandboxed bash tool, which needs docker);
- the solver is the plain agent loop in inspect's documented custom-agent
  form (`generate` with the tools, `execute_tools`, repeat until the model
  calls none), with the s03 nag reminder after `threshold` rounds without
  the todo tool;
- a scorer doing the YAML steps' file checks.

    python3 inspect_episode.py EPISODE.yaml N
        -> prints seconds per episode: wall time, then CPU time (user +
           system, the spawned shells included)

The figures are the wall time and the CPU time of the `eval()` call
divided by N. Importing
inspect_ai and a first eval of one episode (which pays the one-off costs of
inspect's lazy imports) are not counted; the setup and teardown of the timed
eval call itself (task and log setup, the log written at the end) are,
spread over the N episodes. Samples run one at a time
(max_samples=1), as agent-eval with `--jobs 1` and the plain loop do.

Logging is turned down as far as inspect allows: no display, no samples
in the log, no realtime sample buffer, and the log directory and inspect's
data folder (its trace log) are in a temporary folder deleted at the end.
What inspect still does per episode that the other two do not, and which
is part of its cost as a full framework: it records a transcript of typed
events (model calls with their inputs, tool calls, store changes, state
changes as JSON patches, scores), deep-copies the tool descriptions and
the conversation into each model call's event, validates every tool call's
arguments against the tool's JSON schema and every message with pydantic,
runs each sample in its own task group with limits and cancellation
scopes, traces subprocesses to its trace log, and builds and writes the
eval log (header, per-sample summaries, metrics). It does not count tokens
here: the scripted outputs carry a zero usage (see scripted_turn).

Needs PyYAML and inspect-ai (compare.sh installs pinned versions).
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

# The s03 pieces both peers share (system prompt, reminder text, the
# TodoManager's rules, the steps' file checks) come from the plain loop, so
# the two peers cannot drift apart.
from s03_loop import REMINDER, SYSTEM, TodoManager, check, cpu_seconds


def build_task(scenario, n):
    """The inspect Task and model for N episodes of `scenario`."""
    # Imported here so that the module's import cost is visible apart from
    # the eval call in main().
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        ModelOutput,
        ModelUsage,
        execute_tools,
        get_model,
    )
    from inspect_ai.model._model_output import ChatCompletionChoice
    from inspect_ai.scorer import Score, Target, mean, scorer
    from inspect_ai.solver import Generate, TaskState, solver
    from inspect_ai.tool import ToolCall, ToolError, tool
    from inspect_ai.util import store
    from inspect_ai.util import subprocess as inspect_subprocess

    script = scenario["model"]["script"]
    steps = [s["check"] for s in scenario["steps"] if "check" in s]
    nag = scenario.get("agent", {}).get("nag", {})
    threshold = nag.get("threshold", 3)
    append = nag.get("placement") == "append"

    def workdir():
        return Path(store().get("workdir"))

    def safe_path(p):
        root = workdir()
        path = (root / p).resolve()
        if not path.is_relative_to(root):
            raise ValueError(f"Path escapes workspace: {p}")
        return path

    @tool
    def bash():
        async def execute(command: str):
            """Run a shell command in the workspace.

            Args:
                command: The shell command to run.
            """
            if any(d in command for d in ["rm -rf /", "sudo", "shutdown", "reboot", "> /dev/"]):
                return "Error: Dangerous command blocked"
            try:
                r = await inspect_subprocess(["sh", "-c", command], cwd=workdir(), timeout=120)
            except TimeoutError:
                return "Error: Timeout (120s)"
            out = (r.stdout + r.stderr).strip()
            return out[:50000] if out else "(no output)"

        return execute

    @tool
    def read_file():
        async def execute(path: str, limit: int | None = None):
            """Read a file of the workspace.

            Args:
                path: The file's path, relative to the workspace.
                limit: Read at most this many lines.
            """
            try:
                lines = safe_path(path).read_text().splitlines()
                if limit and limit < len(lines):
                    lines = lines[:limit] + [f"... ({len(lines) - limit} more)"]
                return "\n".join(lines)[:50000]
            except Exception as e:
                return f"Error: {e}"

        return execute

    @tool
    def write_file():
        async def execute(path: str, content: str):
            """Write a file of the workspace.

            Args:
                path: The file's path, relative to the workspace.
                content: The file's new content.
            """
            try:
                fp = safe_path(path)
                fp.parent.mkdir(parents=True, exist_ok=True)
                fp.write_text(content)
                return f"Wrote {len(content)} bytes"
            except Exception as e:
                return f"Error: {e}"

        return execute

    @tool
    def edit_file():
        async def execute(path: str, old_text: str, new_text: str):
            """Replace the first occurrence of a text in a file of the workspace.

            Args:
                path: The file's path, relative to the workspace.
                old_text: The text to replace.
                new_text: The replacement.
            """
            try:
                fp = safe_path(path)
                content = fp.read_text()
                if old_text not in content:
                    return f"Error: Text not found in {path}"
                fp.write_text(content.replace(old_text, new_text, 1))
                return f"Edited {path}"
            except Exception as e:
                return f"Error: {e}"

        return execute

    @tool
    def todo():
        async def execute(items: list[dict[str, str]]):
            """Replace the whole plan.

            Args:
                items: The plan's items, each with id, text and status (pending, in_progress or completed).
            """
            # The plan lives in the sample's store (inspect's per-sample
            # state, which records every change as an event).
            manager = TodoManager()
            manager.items = store().get("todos", [])
            try:
                rendered = manager.update(items)
            except ValueError as e:
                # An error the model should see, as s03 returns it.
                raise ToolError(str(e)) from e
            store().set("todos", manager.items)
            return rendered

        return execute

    tools = [bash(), read_file(), write_file(), edit_file(), todo()]

    def scripted_turn(input, tools, tool_choice, config):
        """mockllm's custom_outputs: the script's entry for this turn."""
        turn = sum(1 for m in input if isinstance(m, ChatMessageAssistant))
        output = scripted_output(turn)
        # An output without usage makes mockllm count the input's tokens
        # with tiktoken's o200k_base, whose table is downloaded on first use
        # (no network here); the scripted model reports no usage instead,
        # which spares inspect that tokenizing per turn.
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output

    def scripted_output(turn):
        if turn >= len(script):
            return ModelOutput.from_content("mockllm/model", "(script ended)")
        entry = script[turn]
        calls = entry.get("tools") or ([entry] if "tool" in entry else [])
        if not calls:
            return ModelOutput.from_content("mockllm/model", entry.get("text", ""))
        tool_calls = [
            ToolCall(id=f"toolu_{turn + 1}_{k}", function=c["tool"], arguments=c["input"])
            for k, c in enumerate(calls, 1)
        ]
        message = ChatMessageAssistant(
            content=entry.get("text", ""), tool_calls=tool_calls,
            model="mockllm/model", source="generate",
        )
        return ModelOutput(
            model="mockllm/model",
            choices=[ChatCompletionChoice(message=message, stop_reason="tool_calls")],
        )

    model = get_model("mockllm/model", custom_outputs=scripted_turn)

    @solver
    def fresh_workspace():
        async def solve(state: TaskState, generate: Generate):
            root = Path(tempfile.mkdtemp()).resolve()
            for name, content in scenario.get("workspace", {}).get("files", {}).items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(content)
            state.store.set("workdir", str(root))
            state.messages.insert(0, ChatMessageSystem(content=SYSTEM.format(workdir=root)))
            return state

        return solve

    @solver
    def s03_loop(max_turns=50):
        async def solve(state: TaskState, generate: Generate):
            rounds_since_todo = 0
            for _ in range(max_turns):
                output = await get_model().generate(state.messages, tools)
                state.output = output
                state.messages.append(output.message)
                if not output.message.tool_calls:
                    break
                result = await execute_tools(state.messages, tools)
                state.messages.extend(result.messages)
                used_todo = any(c.function == "todo" for c in output.message.tool_calls)
                rounds_since_todo = 0 if used_todo else rounds_since_todo + 1
                if rounds_since_todo >= threshold:
                    if append or not result.messages:
                        state.messages.append(ChatMessageUser(content=REMINDER))
                    else:
                        # Tool results must follow their call directly, so
                        # a reminder placed first goes at the head of the
                        # first result (s03 puts it first in the message
                        # that carries the results).
                        first = result.messages[0]
                        first.content = f"{REMINDER}\n{first.text}"
            return state

        return solve

    @scorer(metrics=[mean()])
    def file_checks():
        async def score(state: TaskState, target: Target):
            root = Path(state.store.get("workdir"))
            done = sum(check(root, spec) for spec in steps)
            turns = sum(1 for m in state.messages if isinstance(m, ChatMessageAssistant))
            # 1 only when every step is done in exactly the script's turns.
            value = 1.0 if done == len(steps) and turns == len(script) else 0.0
            return Score(value=value, explanation=f"{done}/{len(steps)} steps, {turns} turns")

        return score

    async def remove_workspace(state):
        root = state.store.get("workdir")
        if root:
            shutil.rmtree(root, ignore_errors=True)

    task = Task(
        dataset=MemoryDataset([Sample(id=i, input=scenario["task"]) for i in range(1, n + 1)]),
        setup=fresh_workspace(),
        solver=s03_loop(),
        scorer=file_checks(),
        cleanup=remove_workspace,
    )
    return task, model


def run_eval(scenario, n, scratch):
    """Runs N episodes in one eval call; returns its wall and CPU seconds."""
    from inspect_ai import eval as inspect_eval

    task, model = build_task(scenario, n)
    start, cpu_start = time.perf_counter(), cpu_seconds()
    logs = inspect_eval(
        task,
        model=model,
        display="none",
        log_dir=os.path.join(scratch, "logs"),
        log_samples=False,
        log_realtime=False,
        log_level="error",
        max_samples=1,
        score_display=False,
    )
    elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    log = logs[0]
    if log.status != "success":
        message = log.error.message if log.error else "no error recorded"
        sys.exit(f"inspect_ai eval did not succeed: {log.status}: {message}")
    score = log.results.scores[0].metrics["mean"].value if log.results else None
    if score != 1.0:
        sys.exit(
            "inspect_ai episodes did not all complete every step in the "
            f"script's turns (mean score {score})"
        )
    return elapsed, cpu


def main():
    scenario = yaml.safe_load(Path(sys.argv[1]).read_text())
    n = int(sys.argv[2])
    scratch = tempfile.mkdtemp(prefix="inspect-peer-")
    try:
        # inspect's data folder (its per-process trace log) goes with the
        # log directory into the scratch folder, removed at the end.
        os.environ["XDG_DATA_HOME"] = os.path.join(scratch, "data")
        # A first eval of one episode pays inspect's one-off costs (modules
        # it imports lazily on its first eval, such as model providers, and
        # its first log): several seconds that would otherwise be spread
        # over the N episodes. It is reported on stderr, not counted.
        warm_up, _ = run_eval(scenario, 1, scratch)
        print(f"inspect_ai first eval of one episode: {warm_up:.3f} s", file=sys.stderr)
        wall, cpu = run_eval(scenario, n, scratch)
        print(f"{wall / n:.9f} {cpu / n:.9f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
