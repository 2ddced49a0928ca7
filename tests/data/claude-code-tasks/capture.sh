#!/usr/bin/env bash
# Re-probes the real Claude Code CLI's Task tools into this folder (the
# claude-code-tasks dialect's test data; docs/dialects.md says how it is used).
#
# Runs `claude -p` (2.1.330, from .ci/install-agents.sh) headless with
# CLAUDE_CODE_ENABLE_TASKS=1 against tests/data/wire/capture.py (a logging
# stand-in for the API on loopback) once per script in scripts/ (offering
# ToolSearch, so the Task tools are deferred as by default; scripts/direct*
# name the Task tools in --tools without ToolSearch, which offers them
# directly and disables ToolSearch), then writes
#   probe/<script>.json   every call the script made and Claude Code's answer
#                         (extract.py), plus the task reminders it sent
#   schemas.json          the Task tools and ToolSearch as Claude Code offers them
# Throwaway HOME, no telemetry, no network beyond loopback. Needs python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
wire="$here/../wire"
agents_dir="${AGENT_EVAL_AGENTS_DIR:-$HOME/.cache/agent-eval/agents}"
export PATH="$agents_dir/node_modules/.bin:$PATH"
tools=Bash,Write,Read,Edit,TaskCreate,TaskUpdate,TaskList,TaskGet,ToolSearch
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$here/probe"

for script in "$here"/scripts/*.json; do
    name="$(basename "$script" .json)"
    offered="$tools"
    case "$name" in direct*) offered="${tools%,ToolSearch}" ;; esac
    dir="$work/$name"
    mkdir -p "$dir/log" "$dir/home" "$dir/ws"
    python3 "$wire/capture.py" "$dir/log" 0 "$script" >"$dir/server.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 50); do [ -s "$dir/server.out" ] && break; sleep 0.1; done
    port="$(awk '{print $3}' "$dir/server.out")"
    (cd "$dir/ws" && printf '%s\n' "Probe the task tools." | env HOME="$dir/home" \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-ant-dummy \
        CLAUDE_CODE_ENABLE_TASKS=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
        timeout 120 claude -p --tools "$offered" --allowedTools "$offered" >"$dir/out.txt" 2>"$dir/err.txt")
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    python3 "$here/extract.py" "$dir/log" "$name" "$here/probe/$name.json"
done

# The schemas, from the last request of the basics probe (after ToolSearch).
python3 - "$work/basics/log" "$here/schemas.json" <<'PY'
import glob, json, sys
last = sorted(glob.glob(f"{sys.argv[1]}/*.json"))[-1]
tools = json.load(open(last, encoding="utf-8"))["body"]["tools"]
keep = [t for t in tools if t["name"] in ("ToolSearch", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate")]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(keep, f, indent=1, ensure_ascii=False)
    f.write("\n")
PY
echo "probed into $here"
