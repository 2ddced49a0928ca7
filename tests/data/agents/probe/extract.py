#!/usr/bin/env python3
"""Turns one probe's request log into the test data beside this file.

extract.py LOG_DIR NAME AGENT OUT.json SCRIPT reads the last loop request of
the capture (capture.py's log: one JSON file per request), and writes its turns:
each model response's calls with the agent's answers, every text the agent
added after the answers (`added`), and that text again as `reminder` when it
is Qwen's planning reminder. Results of
tools that are not the planning tool are left out (they hold the probe's
temporary paths); the planning tool's schema as offered is kept too. A call's
input is the one the script sent (the agent's history may show it rewritten:
OpenCode wraps a string input as {"value": ...}).
"""
import json
import os
import sys

PLANNING = {"gemini": "write_todos", "qwen-code": "todo_write", "opencode": "todowrite"}
REMINDER = "The current task still has unfinished todo items:"


def last_loop_request(log_dir):
    last = None
    for name in sorted(os.listdir(log_dir)):
        with open(os.path.join(log_dir, name), encoding="utf-8") as f:
            body = json.load(f)["body"] or {}
        if body.get("tools"):
            last = body
    return last


def gemini_turns(body):
    turns = []
    for content in body["contents"]:
        for part in content["parts"]:
            if "functionCall" in part and content["role"] == "model":
                if not turns or turns[-1]["answered"]:
                    turns.append({"calls": [], "answered": False, "added": [], "reminder": None})
                call = part["functionCall"]
                turns[-1]["calls"].append({"tool": call["name"], "input": call.get("args", {})})
            elif "functionResponse" in part:
                response = part["functionResponse"]["response"]
                for call in turns[-1]["calls"]:
                    if "result" not in call and call["tool"] == part["functionResponse"]["name"]:
                        call["is_error"] = "error" in response
                        call["result"] = response.get("error", response.get("output"))
                        break
                turns[-1]["answered"] = True
            elif "text" in part and content["role"] == "user" and turns:
                turns[-1]["added"].append(part["text"])
    return turns


def chat_turns(body):
    turns = []
    by_id = {}
    for message in body["messages"]:
        if message["role"] == "assistant" and message.get("tool_calls"):
            turns.append({"calls": [], "answered": False, "added": [], "reminder": None})
            for tc in message["tool_calls"]:
                args = json.loads(tc["function"]["arguments"] or "{}")
                call = {"tool": tc["function"]["name"], "input": args}
                by_id[tc["id"]] = call
                turns[-1]["calls"].append(call)
        elif message["role"] == "tool":
            content = message["content"]
            if isinstance(content, list):
                content = "\n".join(p.get("text", "") for p in content)
            by_id[message["tool_call_id"]]["result"] = content
            turns[-1]["answered"] = True
        elif message["role"] == "user" and turns:
            content = message["content"]
            texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content]
            for text in texts:
                turns[-1]["added"].append(text)
                if REMINDER in text:
                    turns[-1]["reminder"] = text
    return turns


def script_calls(entry):
    if "tool" in entry:
        return [entry]
    return entry.get("tools", [])


def main():
    log_dir, name, agent, out, script = sys.argv[1:6]
    body = last_loop_request(log_dir)
    turns = gemini_turns(body) if "contents" in body else chat_turns(body)
    with open(script, encoding="utf-8") as f:
        entries = json.load(f)
    for turn, entry in zip(turns, entries):
        for call, sent in zip(turn["calls"], script_calls(entry)):
            call["input"] = sent.get("input", {})
    tool = PLANNING[agent]
    for turn in turns:
        del turn["answered"]
        for call in turn["calls"]:
            if call["tool"] != tool:
                call.pop("result", None)
                call.pop("is_error", None)
                call["input"] = {}
    if "contents" in body:
        declarations = [d for t in body["tools"] for d in t.get("functionDeclarations", [])]
        schema = next(d for d in declarations if d["name"] == tool)
    else:
        schema = next(t["function"] for t in body["tools"] if t["function"]["name"] == tool)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"name": name, "agent": agent, "tool": schema, "turns": turns}, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
