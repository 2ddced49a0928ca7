#!/usr/bin/env bash
# Re-probes the planning tools of the pinned Gemini CLI (0.61.0), Qwen Code
# (0.24.4) and OpenCode (1.18.33) into this folder: the gemini, qwen-code and
# opencode dialects' and the qwen-code reminder's test data
# (tests/agent_dialect_probes.rs; docs/real-agents.md says how it is used).
#
# Runs each CLI headless, with a throwaway HOME, no telemetry and no network
# beyond loopback, against tests/data/wire/capture.py (a logging stand-in for
# the model APIs) once per script in scripts/, then writes probe/<script>.json
# with extract.py. Needs python3 and the CLIs from .ci/install-agents.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
wire="$here/../../wire"
bin="${AGENT_EVAL_AGENTS_DIR:-$HOME/.cache/agent-eval/agents}/node_modules/.bin"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

quiet=(DISABLE_TELEMETRY=1 NO_UPDATE_NOTIFIER=1 NO_COLOR=1)

probe() { # probe NAME AGENT
    local name="$1" agent="$2" dir="$work/$1"
    mkdir -p "$dir/log" "$dir/home" "$dir/ws"
    printf 'alpha\nbeta\ngamma\n' >"$dir/ws/a.txt"
    sed "s#WORKSPACE#$dir/ws#g" "$here/scripts/$name.json" >"$dir/script.json"
    python3 "$wire/capture.py" "$dir/log" 0 "$dir/script.json" >"$dir/server.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 50); do [ -s "$dir/server.out" ] && break; sleep 0.1; done
    local port url
    port="$(awk '{print $3}' "$dir/server.out")"
    url="http://127.0.0.1:$port"
    cd "$dir/ws"
    case "$agent" in
    gemini)
        mkdir -p "$dir/home/.gemini"
        echo '{"security":{"auth":{"selectedType":"gemini-api-key"}},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}' \
            >"$dir/home/.gemini/settings.json"
        echo "Probe." | env "${quiet[@]}" HOME="$dir/home" GEMINI_API_KEY=dummy GOOGLE_GEMINI_BASE_URL="$url" \
            GEMINI_CLI_TRUST_WORKSPACE=true timeout 120 "$bin/gemini" -m gemini-2.5-pro --approval-mode yolo \
            >"$dir/out.txt" 2>"$dir/err.txt" || true
        ;;
    qwen-code)
        mkdir -p "$dir/home/.qwen"
        echo '{"security":{"auth":{"selectedType":"openai"}},"model":{"name":"qwen3-coder-plus"},"tools":{"todoWrite":{"enabled":true},"core":["read_file","write_file","edit","run_shell_command","todo_write"]},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}' \
            >"$dir/home/.qwen/settings.json"
        echo "Probe." | env "${quiet[@]}" HOME="$dir/home" OPENAI_API_KEY=dummy OPENAI_BASE_URL="$url/v1" \
            OPENAI_MODEL=qwen3-coder-plus timeout 120 "$bin/qwen" --yolo >"$dir/out.txt" 2>"$dir/err.txt" || true
        ;;
    opencode)
        echo '{"provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"mock","options":{"baseURL":"'"$url"'/v1","apiKey":"dummy"},"models":{"mock-model":{"name":"mock-model","tool_call":true}}}},"model":"mock/mock-model","autoupdate":false,"share":"disabled","permission":{"edit":"allow","bash":"allow","webfetch":"deny"},"tools":{"glob":false,"grep":false,"skill":false,"task":false,"webfetch":false}}' \
            >"$dir/opencode.json"
        env "${quiet[@]}" HOME="$dir/home" OPENCODE_CONFIG="$dir/opencode.json" XDG_DATA_HOME="$dir/home/.local/share" \
            XDG_CONFIG_HOME="$dir/home/.config" XDG_CACHE_HOME="$dir/home/.cache" XDG_STATE_HOME="$dir/home/.local/state" \
            timeout 120 "$bin/opencode" run "Probe." </dev/null >"$dir/out.txt" 2>"$dir/err.txt" || true
        ;;
    esac
    cd "$here"
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    python3 "$here/extract.py" "$dir/log" "$name" "$agent" "$here/$name.json" "$dir/script.json"
    sed -i "s#$dir/ws#WORKSPACE#g" "$here/$name.json"
}

probe gemini gemini
probe qwen_code qwen-code
probe qwen_code_errors qwen-code
probe opencode opencode
probe opencode_errors opencode
