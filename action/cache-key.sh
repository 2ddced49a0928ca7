#!/usr/bin/env bash
# Prints the cache key of the agent-eval binary the Action installs: the
# runner's OS and architecture, the Rust toolchain, the ref the workflow
# names in `uses:` and a hash of the sources the binary is built from, as
# the action's own checkout holds them. `hashFiles` cannot see that
# checkout (it is outside the workspace), so a key built with it never
# changes and, with `@main`, the first binary would be used forever; the
# hash here moves with every commit that changes the build. Writes
# `key=...` to $GITHUB_OUTPUT (tests/action.rs runs it).
set -euo pipefail
source_dir="${GITHUB_ACTION_PATH:?}"
toolchain="${AGENT_EVAL_TOOLCHAIN:?}"
cd "$source_dir"
# macOS runners have shasum, not sha256sum.
if command -v sha256sum >/dev/null; then sha256=(sha256sum); else sha256=(shasum -a 256); fi
# Cargo.toml, Cargo.lock and src/ are what `cargo install --bin agent-eval`
# compiles; NUL-separated names survive any file name.
sources=$(find Cargo.toml Cargo.lock src -type f -print0 | LC_ALL=C sort -z |
    xargs -0 "${sha256[@]}" | "${sha256[@]}" | cut -c1-16)
ref="${GITHUB_ACTION_REF:-local}"
# A ref may hold characters a cache key should not (a branch `a/b`).
ref=$(printf '%s' "$ref" | tr -c 'A-Za-z0-9._-' '_')
echo "key=agent-eval-bin-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-rust${toolchain}-${ref}-${sources}" >>"${GITHUB_OUTPUT:?}"
