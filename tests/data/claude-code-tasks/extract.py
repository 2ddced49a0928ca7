#!/usr/bin/env python3
"""Turns the requests capture.py logged for one probe into the dialect's test data.

Usage: extract.py LOG_DIR NAME OUT.json
Reads the last logged request of a run (it carries the whole conversation),
and writes OUT.json, the probe NAME as a list of calls and what Claude Code
answered: {"name", "calls": [{"tool", "input", "result", "is_error"}],
"reminders": [{"after_call", "text"}]}. `result` is the tool result text; a
ToolSearch answer made of tool references is written as
{"tool_references": [names]}. `reminders` are the mid-conversation `system`
texts that begin "The task tools haven't been used recently", with the number
of tool calls made before each (the other system texts Claude Code adds, such
as "The user hasn't heard from you in a while", are left out).
"""

import glob
import json
import sys

REMINDER = "The task tools haven't been used recently"


def main():
    log_dir, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    last = sorted(glob.glob(f"{log_dir}/*.json"))[-1]
    messages = json.load(open(last, encoding="utf-8"))["body"]["messages"]
    calls, pending, reminders = [], {}, []
    for message in messages:
        content = message["content"]
        if message["role"] == "system":
            for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
                text = block.get("text", "")
                if text.startswith(REMINDER):
                    reminders.append({"after_call": len(calls), "text": text})
            continue
        if isinstance(content, str):
            continue
        for block in content:
            if block["type"] == "tool_use":
                pending[block["id"]] = {"tool": block["name"], "input": block["input"]}
            elif block["type"] == "tool_result":
                call = pending.pop(block["tool_use_id"])
                result = block.get("content", "")
                if isinstance(result, list):
                    result = {"tool_references": [r["tool_name"] for r in result if r.get("type") == "tool_reference"]}
                call["result"] = result
                call["is_error"] = bool(block.get("is_error"))
                calls.append(call)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"name": name, "calls": calls, "reminders": reminders}, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
