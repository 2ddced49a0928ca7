#!/usr/bin/env bash
# Re-probes which tools claude offers with CLAUDE_CODE_ENABLE_TASKS=1 in print
# mode, into probe/offered_tools.json: three runs of `claude -p` against
# tests/data/wire/capture.py (loopback only), with the default tool set, with
# the Task tools and ToolSearch named in --tools, and with the Task tools named
# without ToolSearch; for each, the first request's tools and the tools its
# system text says are deferred behind ToolSearch.
# The CLI comes from .ci/install-agents.sh. Needs python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
capture="$here/../wire/capture.py"
agents_dir="${AGENT_EVAL_AGENTS_DIR:-$HOME/.cache/agent-eval/agents}"
claude="$agents_dir/node_modules/.bin/claude"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

probe() { # NAME [claude args...]
    local name=$1; shift
    local dir="$work/$name"
    mkdir -p "$dir/log" "$dir/home" "$dir/ws"
    python3 "$capture" "$dir/log" 0 >"$dir/server.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 50); do [ -s "$dir/server.out" ] && break; sleep 0.1; done
    local port
    port="$(awk '{print $3}' "$dir/server.out")"
    (cd "$dir/ws" && echo "Say hi." | env HOME="$dir/home" \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-ant-dummy \
        CLAUDE_CODE_ENABLE_TASKS=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
        timeout 120 "$claude" -p "$@" >"$dir/out.txt" 2>"$dir/err.txt") || true
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

tasks=TaskCreate,TaskUpdate,TaskList,TaskGet
probe default
probe named --tools "Bash,Write,Read,Edit,$tasks,ToolSearch"
probe direct --tools "Bash,Write,Read,Edit,$tasks"

version="$("$claude" --version | awk '{print $1}')"
python3 - "$work" "$version" "$tasks" >"$here/probe/offered_tools.json" <<'PY'
import json, re, sys
work, version, tasks = sys.argv[1:]
args = {"default": [], "named": ["--tools", f"Bash,Write,Read,Edit,{tasks},ToolSearch"],
        "direct": ["--tools", f"Bash,Write,Read,Edit,{tasks}"]}
out = {"claude": version, "env": {"CLAUDE_CODE_ENABLE_TASKS": "1"}, "task": "Say hi.", "runs": []}
for name in ["default", "named", "direct"]:
    body = json.load(open(f"{work}/{name}/log/001.json"))["body"]
    text = json.dumps(body.get("messages", []))
    found = re.search(r"The following deferred tools are now available via ToolSearch.*?:\\n((?:[A-Za-z]+\\n)+)", text)
    deferred = found.group(1).split("\\n")[:-1] if found else []
    tools = [{"name": t["name"], **({"defer_loading": True} if t.get("defer_loading") else {})}
             for t in body["tools"]]
    out["runs"].append({"name": name, "claude_args": ["-p"] + args[name], "tools": tools,
                        "deferred_via_tool_search": deferred})
print(json.dumps(out, indent=1), end="")
PY
echo "wrote $here/probe/offered_tools.json"
