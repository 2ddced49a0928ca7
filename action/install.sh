#!/usr/bin/env bash
# Installs agent-eval for the GitHub Action from the action's own checkout (the
# repository at the ref the workflow names in `uses:`), into AGENT_EVAL_ROOT, which
# the action caches keyed by that ref and the sources (action/cache-key.sh); a
# cached binary is used as it is. The toolchain is RUSTUP_TOOLCHAIN. Puts its
# bin folder on the job's PATH.
set -euo pipefail
root="${AGENT_EVAL_ROOT:?}"
source_dir="${GITHUB_ACTION_PATH:?}"
if [ ! -x "$root/bin/agent-eval" ]; then
    cargo install --locked --path "$source_dir" --root "$root" --bin agent-eval
fi
echo "$root/bin" >>"${GITHUB_PATH:?}"
"$root/bin/agent-eval" --version
