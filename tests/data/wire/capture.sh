#!/usr/bin/env bash
# Re-captures what the real Claude Code and Codex CLIs send, into this folder.
#
# Runs each CLI headless against capture.py (a logging stand-in for the APIs, on
# loopback) with a script from scripts/, then keeps a sanitized copy of one request:
#   claude_code_request.json           last request of scripts/claude_code.json (tool results,
#                                      a rejected TodoWrite, a mid-conversation system message)
#   claude_code_reminder_request.json  the request carrying Claude Code's TodoWrite reminder
#   codex_responses_request.json       last request of scripts/codex.json (function and
#                                      custom tool calls with their outputs)
# The CLIs come from .ci/install-agents.sh. Needs python3; no network beyond loopback.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agents_dir="${AGENT_EVAL_AGENTS_DIR:-$HOME/.cache/agent-eval/agents}"
export PATH="$agents_dir/node_modules/.bin:$PATH"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# start_server NAME SCRIPT: starts capture.py for a run folder, sets $port.
start_server() {
    local dir="$work/$1"
    mkdir -p "$dir/log" "$dir/home" "$dir/codexhome" "$dir/ws"
    python3 "$here/capture.py" "$dir/log" 0 "$2" >"$dir/server.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 50); do [ -s "$dir/server.out" ] && break; sleep 0.1; done
    port="$(awk '{print $3}' "$dir/server.out")"
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

run_claude() { # NAME SCRIPT TASK
    start_server "$1" "$2"
    local dir="$work/$1"
    (cd "$dir/ws" && printf '%s\n' "$3" | env HOME="$dir/home" \
        ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-ant-dummy \
        CLAUDE_CODE_ENABLE_TASKS=0 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
        timeout 120 claude -p --tools Bash,Write,Read,Edit,TodoWrite \
        --allowedTools Bash,Write,Read,Edit,TodoWrite >"$dir/out.txt" 2>"$dir/err.txt")
    stop_server
}

run_codex() { # NAME SCRIPT TASK
    start_server "$1" "$2"
    local dir="$work/$1"
    cat >"$dir/codexhome/config.toml" <<TOML
model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

[tools.update_plan]
enabled = true
TOML
    (cd "$dir/ws" && env HOME="$dir/home" CODEX_HOME="$dir/codexhome" OPENAI_API_KEY=sk-dummy \
        timeout 120 codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
        "$3" </dev/null >"$dir/out.txt" 2>"$dir/err.txt")
    stop_server
}

last_request() { ls "$work/$1/log"/*.json | sort | tail -n 1; }

run_claude claude "$here/scripts/claude_code.json" "Create hello.txt, then change hello to hi."
python3 "$here/sanitize.py" "$(last_request claude)" "$here/claude_code_request.json" "$work/claude"

run_claude reminder "$here/scripts/claude_code_reminder.json" "Count to fourteen in count.txt."
reminder_file="$(grep -l "TodoWrite tool hasn't been used recently" "$work/reminder/log"/*.json | sort | head -n 1)"
python3 "$here/sanitize.py" "$reminder_file" "$here/claude_code_reminder_request.json" "$work/reminder"

run_codex codex "$here/scripts/codex.json" "Create hello.txt, then change hello to hi."
python3 "$here/sanitize.py" "$(last_request codex)" "$here/codex_responses_request.json" "$work/codex"

echo "captured into $here"
