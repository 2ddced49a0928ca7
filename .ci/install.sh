#!/usr/bin/env bash
# What the tests need beyond the Rust toolchain, installed from the package
# registries, pinned, idempotent (fast when already there):
# - chromium: tests/html_report.rs opens the HTML report in a real browser;
# - the anthropic, openai and google-genai Python SDKs: tests/wire_sdk.rs
#   drives the mock server with them, streaming and not;
# - PyYAML: benches/compare.sh's plain Python peer loop;
# - the Claude Code and Codex CLIs: tests/real_agents.rs runs them headless
#   against the mock server (.ci/install-agents.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# - curl: tests/containment.rs and tests/wire_external.rs use it as a
#   stand-in agent that speaks HTTP.
if ! command -v chromium >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium curl >/dev/null
fi

python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    'anthropic==2.12.0' 'openai==3.54.0' 'google-genai==3.6.1' 'pyyaml==6.0.2'

if [ -f .ci/install-agents.sh ]; then
    bash .ci/install-agents.sh
fi
