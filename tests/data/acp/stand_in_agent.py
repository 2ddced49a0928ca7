"""A small stand-in ACP agent for agent-eval's tests (written for them).

Speaks the Agent Client Protocol on stdin/stdout, one JSON-RPC message a
line. Its first argument picks how it behaves:

  good      answers initialize and session/new; for each prompt, asks the
            mock model (Chat Completions at $OPENAI_BASE_URL) once with the
            conversation so far, reports a plan update (one entry per prompt
            seen, the last in progress), a tool call, asks for permission,
            then ends the turn
  auth      as good, but session/new answers "Authentication required"
            until `authenticate` names `openai-api-key`
  silent    never answers initialize (reads stdin until it closes)
  garbage   answers initialize with a line that is not JSON
  unserved  asks the client for `fs/read_text_file` during the prompt
  exits     answers the handshake, then exits with status 3 on the prompt
  deaf      answers the handshake, then on the prompt asks for permission
            50,000 times without reading a single answer, and sleeps
  daemon    as silent, after starting a child that sleeps with
            $DAEMON_TOKEN on its command line, to check that nothing is
            left running
"""

import json
import os
import subprocess
import sys
import urllib.request

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def fail(request, code, message):
    send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})


def update(session, body):
    send({"jsonrpc": "2.0", "method": "session/update",
          "params": {"sessionId": session, "update": body}})


def ask_model(history):
    # With a tool offered, as an agent's loop asks (a request without
    # tools is a side request to the mock).
    tools = [{"type": "function", "function": {
        "name": "bash", "description": "Runs a command.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}]
    body = json.dumps({"model": os.environ.get("MODEL_ID", "m"),
                       "messages": history, "tools": tools}).encode()
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
        headers={"content-type": "application/json",
                 "authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")})
    with urllib.request.urlopen(request, timeout=30) as response:
        reply = json.load(response)
    return reply["choices"][0]["message"].get("content") or ""


def read_line():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def wait_for_answer():
    """Reads until the client answers our request (notifications aside)."""
    while True:
        message = read_line()
        if "method" not in message:
            return message


def prompt(request, state):
    text = request["params"]["prompt"][0]["text"]
    state["history"].append({"role": "user", "content": text})
    if MODE == "exits":
        sys.stderr.write("stand-in: crashing on the prompt\n")
        sys.exit(3)
    if MODE == "deaf":
        for n in range(50000):
            send({"jsonrpc": "2.0", "id": 1000 + n, "method": "session/request_permission",
                  "params": {"sessionId": state["session"],
                             "toolCall": {"toolCallId": "call-%d" % n, "title": "deaf"},
                             "options": [{"optionId": "allow", "name": "Yes",
                                          "kind": "allow_once"}]}})
        import time
        time.sleep(600)
    if MODE == "unserved":
        send({"jsonrpc": "2.0", "id": 100, "method": "fs/read_text_file",
              "params": {"sessionId": state["session"], "path": "/etc/hostname"}})
        sys.stderr.write("stand-in: fs answer %s\n" % json.dumps(wait_for_answer()))
        sys.exit(0)
    reply = ask_model(state["history"])
    state["history"].append({"role": "assistant", "content": reply})
    state["prompts"] += 1
    entries = [{"content": "Part %d" % (n + 1), "priority": "high" if n == 0 else "medium",
                "status": "completed"} for n in range(state["prompts"] - 1)]
    entries.append({"content": "Part %d" % state["prompts"], "priority": "low",
                    "status": "in_progress"})
    update(state["session"], {"sessionUpdate": "plan", "entries": entries})
    update(state["session"], {"sessionUpdate": "tool_call", "toolCallId": "call-%d" % state["prompts"],
                              "title": "touch part%d" % state["prompts"], "kind": "edit",
                              "status": "pending"})
    send({"jsonrpc": "2.0", "id": 200 + state["prompts"], "method": "session/request_permission",
          "params": {"sessionId": state["session"],
                     "toolCall": {"toolCallId": "call-%d" % state["prompts"],
                                  "title": "touch part%d" % state["prompts"]},
                     "options": [{"optionId": "reject", "name": "No", "kind": "reject_once"},
                                 {"optionId": "allow", "name": "Yes", "kind": "allow_once"}]}})
    granted = wait_for_answer()
    if granted.get("result", {}).get("outcome", {}).get("optionId") == "allow":
        open("part%d.txt" % state["prompts"], "w").write(reply + "\n")
    answer(request, {"stopReason": "end_turn"})


def main():
    state = {"history": [], "session": "stand-in-session", "prompts": 0, "authed": MODE != "auth"}
    if MODE == "daemon":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)",
                          os.environ.get("DAEMON_TOKEN", "")], start_new_session=True)
    while True:
        request = read_line()
        method = request.get("method")
        if MODE in ("silent", "daemon"):
            continue
        if method == "initialize":
            if MODE == "garbage":
                sys.stdout.write("Welcome to the stand-in agent!\n")
                sys.stdout.flush()
                continue
            answer(request, {"protocolVersion": 1, "agentCapabilities": {},
                             "authMethods": [
                                 {"id": "browser-login", "name": "Log in"},
                                 {"type": "env_var", "id": "openai-api-key", "name": "Key",
                                  "vars": [{"name": "OPENAI_API_KEY"}]}]})
        elif method == "authenticate":
            state["authed"] = request["params"].get("methodId") == "openai-api-key"
            answer(request, {})
        elif method == "session/new":
            if not state["authed"]:
                fail(request, -32000, "Authentication required")
            else:
                answer(request, {"sessionId": state["session"]})
        elif method == "session/prompt":
            prompt(request, state)


main()
