#!/bin/sh
# Peak resident memory of a long outside-agent session on the wire.
#
#   benches/wire_memory.sh [TURNS...]     (default: 1000 3000)
#   BIN=target/debug/agent-eval benches/wire_memory.sh 500   (another build)
#
# A stand-in client (Python, plain HTTP, the Anthropic Messages API) sends
# its whole conversation with every request, as Claude Code and Codex do,
# with a 40 KB system prompt and 20 tools of about 2 KB each, and runs
# every bash call the model makes (`echo`); agent-eval runs it with
# `--agent` on a scripted scenario of TURNS bash calls. The wire's record
# keeps each message, system prompt and tool list once, so the peak grows
# with the turns, not with the turns squared (it kept every request whole:
# 2,000 requests of a conversation hold 4 million messages as sent).
# Prints GNU time's "Maximum resident set size" (of agent-eval or the
# client, whichever is larger: agent-eval's) and the wall time. Builds the
# `dist` binary first unless BIN is given.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
    cargo build --profile dist --quiet --bin agent-eval
fi
bin=${BIN:-target/dist/agent-eval}
[ $# -gt 0 ] || set -- 1000 3000
mkdir -p target
work=$(mktemp -d -p target)
trap 'rm -rf "$work"' EXIT
cat >"$work/client.py" <<'EOF'
import json, os, sys, urllib.request
url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
system = "You are a careful coding agent. Follow the rules below. " * 700
tools = [{"name": "bash", "description": "Runs a shell command. " * 90,
          "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]
tools += [{"name": "tool_%d" % k, "description": "A tool this run never calls. " * 70,
           "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}
          for k in range(19)]
messages = [{"role": "user", "content": sys.stdin.read().strip()}]
while True:
    body = json.dumps({"model": "m", "max_tokens": 1024, "system": system,
                       "tools": tools, "messages": messages}).encode()
    request = urllib.request.Request(url, body, {"content-type": "application/json"})
    reply = json.load(urllib.request.urlopen(request, timeout=60))
    messages.append({"role": "assistant", "content": reply["content"]})
    calls = [b for b in reply["content"] if b["type"] == "tool_use"]
    if reply["stop_reason"] != "tool_use" or not calls:
        break
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": c["id"],
         "content": "ran: " + c["input"].get("command", "")} for c in calls]})
EOF
# A scripted scenario of $1 bash calls, written to $2.
scenario() {
    awk -v n="$1" -v client="$PWD/$work/client.py" 'BEGIN {
        print "name: long-wire-session"; print "task: Run the commands."
        print "steps:"; print "  - text: Run them"
        print "agent:"; print "  todo: false"; print "  max_turns: 10000"
        printf "  command: python3 %s\n", client; print "  task_via: stdin"
        print "  timeout_s: 3600"
        print "model:"; print "  script:"
        for (i = 0; i < n; i++) printf "    - {tool: bash, input: {command: \"echo %d\"}}\n", i
        print "    - text: Done."
    }' >"$2"
}
printf '%7s %9s  %s\n' turns "peak MiB" wall
for n in "$@"; do
    scenario "$n" "$work/session.yaml"
    /usr/bin/time -v "$bin" run "$work/session.yaml" --quiet --json /dev/null \
        >"$work/out" 2>"$work/time" || cat "$work/out" "$work/time" >&2
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
    printf '%7s %9s  %s\n' "$n" "$(echo "$rss" | awk '{printf "%.1f", $1/1024}')" "$wall"
done
