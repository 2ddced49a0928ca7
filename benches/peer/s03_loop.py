"""The peer of benches/compare.sh: a plain Python s03 agent loop.

It is what an agent builder would write by hand to test the s03 design: the
reference loop (tools bash, read_file, write_file, edit_file, todo; a
TodoManager; the nag reminder), a scripted mock client, a fresh temporary
workspace per episode, and the steps' file checks at the end. It does the
same work as one agent-eval episode of the same scenario, so the two can be
timed side by side.

    python3 s03_loop.py EPISODE.yaml N
        -> prints seconds per episode: wall time, then CPU time (user +
           system, the spawned shells included)

Needs PyYAML (compare.sh installs a pinned version).
"""

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

SYSTEM = (
    "You are a coding agent at {workdir}.\n"
    "Use the todo tool to plan multi-step tasks. Mark in_progress before starting, completed when done.\n"
    "Prefer tools over prose."
)
REMINDER = "<reminder>Update your todos.</reminder>"


class TodoManager:
    def __init__(self):
        self.items = []

    def update(self, items):
        if len(items) > 20:
            raise ValueError("Max 20 todos allowed")
        validated, in_progress = [], 0
        for i, item in enumerate(items):
            text = str(item.get("text", "")).strip()
            status = str(item.get("status", "pending")).lower()
            item_id = str(item.get("id", str(i + 1)))
            if not text:
                raise ValueError(f"Item {item_id}: text required")
            if status not in ("pending", "in_progress", "completed"):
                raise ValueError(f"Item {item_id}: invalid status '{status}'")
            if status == "in_progress":
                in_progress += 1
            validated.append({"id": item_id, "text": text, "status": status})
        if in_progress > 1:
            raise ValueError("Only one task can be in_progress at a time")
        self.items = validated
        return self.render()

    def render(self):
        if not self.items:
            return "No todos."
        marks = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
        lines = [f"{marks[i['status']]} #{i['id']}: {i['text']}" for i in self.items]
        done = sum(1 for i in self.items if i["status"] == "completed")
        lines.append(f"\n({done}/{len(self.items)} completed)")
        return "\n".join(lines)


class Tools:
    def __init__(self, workdir):
        self.workdir = workdir
        self.todo = TodoManager()

    def safe_path(self, p):
        path = (self.workdir / p).resolve()
        if not path.is_relative_to(self.workdir):
            raise ValueError(f"Path escapes workspace: {p}")
        return path

    def bash(self, command):
        if any(d in command for d in ["rm -rf /", "sudo", "shutdown", "reboot", "> /dev/"]):
            return "Error: Dangerous command blocked"
        try:
            r = subprocess.run(command, shell=True, cwd=self.workdir,
                               capture_output=True, text=True, timeout=120)
            out = (r.stdout + r.stderr).strip()
            return out[:50000] if out else "(no output)"
        except subprocess.TimeoutExpired:
            return "Error: Timeout (120s)"

    def read_file(self, path, limit=None):
        try:
            lines = self.safe_path(path).read_text().splitlines()
            if limit and limit < len(lines):
                lines = lines[:limit] + [f"... ({len(lines) - limit} more)"]
            return "\n".join(lines)[:50000]
        except Exception as e:
            return f"Error: {e}"

    def write_file(self, path, content):
        try:
            fp = self.safe_path(path)
            fp.parent.mkdir(parents=True, exist_ok=True)
            fp.write_text(content)
            return f"Wrote {len(content)} bytes"
        except Exception as e:
            return f"Error: {e}"

    def edit_file(self, path, old_text, new_text):
        try:
            fp = self.safe_path(path)
            content = fp.read_text()
            if old_text not in content:
                return f"Error: Text not found in {path}"
            fp.write_text(content.replace(old_text, new_text, 1))
            return f"Edited {path}"
        except Exception as e:
            return f"Error: {e}"

    def call(self, name, args):
        if name == "todo":
            return self.todo.update(args["items"])
        return getattr(self, name)(**args)


class ScriptedClient:
    """Replays the scenario's script, one response per request."""

    def __init__(self, script):
        self.script = script
        self.turn = 0

    def create(self, system, messages, tools):
        self.turn += 1
        entry = self.script[self.turn - 1]
        content = []
        if entry.get("text"):
            content.append({"type": "text", "text": entry["text"]})
        calls = entry.get("tools") or ([entry] if "tool" in entry else [])
        for k, call in enumerate(calls, 1):
            content.append({"type": "tool_use", "id": f"toolu_{self.turn}_{k}",
                            "name": call["tool"], "input": call["input"]})
        return content, ("tool_use" if calls else "end_turn")


TOOLS = [{"name": n} for n in ("bash", "read_file", "write_file", "edit_file", "todo")]


def agent_loop(client, tools, task, threshold=3, append=False, max_turns=50):
    messages = [{"role": "user", "content": task}]
    system = SYSTEM.format(workdir=tools.workdir)
    rounds_since_todo = 0
    for _ in range(max_turns):
        content, stop = client.create(system, messages, TOOLS)
        messages.append({"role": "assistant", "content": content})
        if stop != "tool_use":
            return messages
        results, used_todo = [], False
        for block in content:
            if block["type"] != "tool_use":
                continue
            try:
                output = tools.call(block["name"], block["input"])
            except Exception as e:
                output = f"Error: {e}"
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": str(output)})
            used_todo = used_todo or block["name"] == "todo"
        rounds_since_todo = 0 if used_todo else rounds_since_todo + 1
        if rounds_since_todo >= threshold:
            reminder = {"type": "text", "text": REMINDER}
            results.insert(len(results) if append else 0, reminder)
        messages.append({"role": "user", "content": results})
    return messages


def check(workdir, spec):
    path = workdir / spec["file"]
    if "exists" in spec:
        return path.exists() == spec["exists"]
    if not path.is_file():
        return False
    text = path.read_text()
    if "contains" in spec:
        return spec["contains"] in text
    if "not_contains" in spec:
        return spec["not_contains"] not in text
    return text == spec["equals"]


def episode(scenario):
    workdir = Path(tempfile.mkdtemp()).resolve()
    try:
        for name, content in scenario.get("workspace", {}).get("files", {}).items():
            (workdir / name).parent.mkdir(parents=True, exist_ok=True)
            (workdir / name).write_text(content)
        nag = scenario.get("agent", {}).get("nag", {})
        messages = agent_loop(ScriptedClient(scenario["model"]["script"]), Tools(workdir),
                              scenario["task"], nag.get("threshold", 3),
                              nag.get("placement") == "append")
        json.dumps(messages)  # what a harness keeps of the transcript
        return sum(check(workdir, s["check"]) for s in scenario["steps"] if "check" in s)
    finally:
        shutil.rmtree(workdir)


def cpu_seconds():
    """CPU time (user + system) of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main():
    scenario = yaml.safe_load(Path(sys.argv[1]).read_text())
    n = int(sys.argv[2])
    expected = sum(1 for s in scenario["steps"] if "check" in s)
    start, cpu_start = time.perf_counter(), cpu_seconds()
    for _ in range(n):
        done = episode(scenario)
        assert done == expected, f"peer completed {done}/{expected} steps"
    wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    print(f"{wall / n:.9f} {cpu / n:.9f}")


if __name__ == "__main__":
    main()
