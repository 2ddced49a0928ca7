#!/usr/bin/env python3
"""The plain Python s03 loop, for comparison with agent-eval.

Runs the scripted episode of a scenario file (default:
benches/data/file_tools_episode.yaml) N times the way the s03 reference
does: a fresh temporary folder per episode, the workspace files written to
it, the TodoWrite loop with the file tools and the nag reminder, then the
file checks. Prints the mean CPU and wall time per episode in microseconds.
Needs PyYAML.
"""
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml


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
        lines = []
        for item in self.items:
            marker = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}[item["status"]]
            lines.append(f"{marker} #{item['id']}: {item['text']}")
        done = sum(1 for t in self.items if t["status"] == "completed")
        lines.append(f"\n({done}/{len(self.items)} completed)")
        return "\n".join(lines)


def episode(scenario):
    with tempfile.TemporaryDirectory(prefix="agent-eval-") as tmp:
        workdir = Path(tmp).resolve()

        def safe_path(p):
            path = (workdir / p).resolve()
            if not path.is_relative_to(workdir):
                raise ValueError(f"Path escapes workspace: {p}")
            return path

        def run_read(path, limit=None):
            try:
                lines = safe_path(path).read_text().splitlines()
                if limit and limit < len(lines):
                    lines = lines[:limit] + [f"... ({len(lines) - limit} more)"]
                return "\n".join(lines)[:50000]
            except Exception as e:
                return f"Error: {e}"

        def run_write(path, content):
            try:
                fp = safe_path(path)
                fp.parent.mkdir(parents=True, exist_ok=True)
                fp.write_text(content)
                return f"Wrote {len(content)} bytes"
            except Exception as e:
                return f"Error: {e}"

        def run_edit(path, old_text, new_text):
            try:
                fp = safe_path(path)
                content = fp.read_text()
                if old_text not in content:
                    return f"Error: Text not found in {path}"
                fp.write_text(content.replace(old_text, new_text, 1))
                return f"Edited {path}"
            except Exception as e:
                return f"Error: {e}"

        todo = TodoManager()
        handlers = {
            "read_file": lambda **kw: run_read(kw["path"], kw.get("limit")),
            "write_file": lambda **kw: run_write(kw["path"], kw["content"]),
            "edit_file": lambda **kw: run_edit(kw["path"], kw["old_text"], kw["new_text"]),
            "todo": lambda **kw: todo.update(kw["items"]),
        }
        for path, content in (scenario.get("workspace") or {}).get("files", {}).items():
            run_write(path, content)
        system = f"You are a coding agent at {workdir}.\n..."
        messages = [{"role": "user", "content": scenario["task"]}]
        script = iter(scenario["model"]["script"])
        rounds_since_todo = 0
        turn = 0
        while True:
            response = next(script, None)
            if response is None:
                break
            turn += 1
            calls = response.get("tools") or ([response] if "tool" in response else [])
            content = ([{"type": "text", "text": response["text"]}] if response.get("text") else [])
            content += [
                {"type": "tool_use", "id": f"toolu_{turn}_{k + 1}", "name": c["tool"], "input": c.get("input", {})}
                for k, c in enumerate(calls)
            ]
            messages.append({"role": "assistant", "content": content})
            json.dumps([system, messages])  # what a client would serialize
            if not calls:
                break
            results, used_todo = [], False
            for block in content:
                if block["type"] != "tool_use":
                    continue
                handler = handlers.get(block["name"])
                try:
                    output = handler(**block["input"]) if handler else f"Unknown tool: {block['name']}"
                except Exception as e:
                    output = f"Error: {e}"
                results.append({"type": "tool_result", "tool_use_id": block["id"], "content": str(output)})
                if block["name"] == "todo":
                    used_todo = True
            rounds_since_todo = 0 if used_todo else rounds_since_todo + 1
            if rounds_since_todo >= 3:
                results.insert(0, {"type": "text", "text": "<reminder>Update your todos.</reminder>"})
            messages.append({"role": "user", "content": results})
        completed = 0
        for step in scenario.get("steps", []):
            check = step.get("check")
            if not check:
                continue
            try:
                text = safe_path(check["file"]).read_bytes().decode("utf-8", "replace")
            except Exception:
                continue
            if "contains" in check and check["contains"] in text:
                completed += 1
            elif "equals" in check and text == check["equals"]:
                completed += 1
        return turn, completed


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "benches/data/file_tools_episode.yaml"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    scenario = yaml.safe_load(Path(path).read_text())
    turns, completed = episode(scenario)
    assert (turns, completed) == (11, 4), (turns, completed)
    for _ in range(runs // 10):
        episode(scenario)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(runs):
        episode(scenario)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"python plain loop: cpu {cpu / runs * 1e6:.1f} us/episode, wall {wall / runs * 1e6:.1f} us/episode")


if __name__ == "__main__":
    main()
