#!/usr/bin/env bash
# Installs the real CLI agents the tests drive against agent-eval's mock model:
# pinned versions of Claude Code, Codex (and its ACP adapter), Gemini CLI, Qwen Code,
# OpenCode and the GitHub Copilot CLI, from the npm registry, into one folder
# outside the repository (AGENT_EVAL_AGENTS_DIR, default ~/.cache/agent-eval/agents).
#
# Idempotent: when every pinned version already answers, it returns at once.
# Needs node and npm; no network beyond the npm registry. Prints the folder of the binaries.
set -euo pipefail

CLAUDE_CODE_VERSION="2.1.330"
CODEX_VERSION="0.169.0"
GEMINI_CLI_VERSION="0.61.0"
QWEN_CODE_VERSION="0.24.4"
OPENCODE_VERSION="1.18.33"
COPILOT_VERSION="1.0.102"
CODEX_ACP_VERSION="0.16.0"

dir="${AGENT_EVAL_AGENTS_DIR:-${HOME}/.cache/agent-eval/agents}"
bin="$dir/node_modules/.bin"

# installed NAME VERSION: does the binary answer with the pinned version?
installed() {
    [ -x "$bin/$1" ] || return 1
    local out
    # HOME/CODEX_HOME in a throwaway folder: `--version` must not touch the user's state.
    out="$(cd "$dir" && HOME="$dir/.version-home" CODEX_HOME="$dir/.version-home" \
        timeout 60 "$bin/$1" --version 2>/dev/null)" || return 1
    case "$out" in *"$2"*) return 0 ;; *) return 1 ;; esac
}

# Every pinned CLI as BINARY:VERSION (codex-acp is checked by its package, it has no --version).
PAIRS="claude:$CLAUDE_CODE_VERSION codex:$CODEX_VERSION gemini:$GEMINI_CLI_VERSION qwen:$QWEN_CODE_VERSION opencode:$OPENCODE_VERSION copilot:$COPILOT_VERSION"

all_installed() {
    local pair
    for pair in $PAIRS; do installed "${pair%%:*}" "${pair#*:}" || return 1; done
    grep -q "\"version\": \"$CODEX_ACP_VERSION\"" \
        "$dir/node_modules/@zed-industries/codex-acp/package.json" 2>/dev/null
}

if all_installed; then
    echo "real agents already installed in $bin ($PAIRS codex-acp:$CODEX_ACP_VERSION)"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install-agents: npm not found; install node and npm to run the real-agent tests" >&2
    exit 1
fi

mkdir -p "$dir/.version-home"
cat >"$dir/package.json" <<JSON
{
  "name": "agent-eval-real-agents",
  "private": true,
  "description": "Pinned CLI agents for agent-eval's real-agent tests (written by .ci/install-agents.sh)",
  "dependencies": {
    "@anthropic-ai/claude-code": "$CLAUDE_CODE_VERSION",
    "@openai/codex": "$CODEX_VERSION",
    "@google/gemini-cli": "$GEMINI_CLI_VERSION",
    "@qwen-code/qwen-code": "$QWEN_CODE_VERSION",
    "opencode-ai": "$OPENCODE_VERSION",
    "@github/copilot": "$COPILOT_VERSION",
    "@zed-industries/codex-acp": "$CODEX_ACP_VERSION"
  }
}
JSON

# --engine-strict=false: Claude Code declares node >= 22 but ships a native binary that
# does not need node at all; Codex's launcher runs on node >= 16; Qwen Code declares
# node >= 22 and runs on the machine's node 20 (docs/real-agents.md says what was checked).
(cd "$dir" && npm install --no-audit --no-fund --no-update-notifier --engine-strict=false \
    --loglevel=error)

# Claude Code puts its native binary in place in a postinstall script; npm versions that
# hold back install scripts leave a stub, so run it here when needed.
if ! installed claude "$CLAUDE_CODE_VERSION" && [ -f "$dir/node_modules/@anthropic-ai/claude-code/install.cjs" ]; then
    (cd "$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs)
fi

for pair in $PAIRS; do
    if ! installed "${pair%%:*}" "${pair#*:}"; then
        echo "install-agents: ${pair%%:*} ${pair#*:} did not install correctly in $bin" >&2
        exit 1
    fi
done
if ! all_installed; then
    echo "install-agents: @zed-industries/codex-acp $CODEX_ACP_VERSION did not install in $dir" >&2
    exit 1
fi
echo "real agents installed in $bin ($PAIRS codex-acp:$CODEX_ACP_VERSION)"
