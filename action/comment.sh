#!/usr/bin/env bash
# Posts the agent-eval summary on the pull request, as one comment that
# later pushes update in place (found by the marker its body starts
# with), never a new comment per push. A pull request from a fork gets
# no write token: then nothing is posted, a notice says why, and the gate
# still runs (the job summary holds the same report). Uses the GitHub CLI
# (`gh`, on every GitHub-hosted runner); tests/action.rs runs it with a
# stand-in `gh`.
#
# Reads: COMMENT_BODY (the Markdown file), PR_NUMBER, HEAD_REPO (the pull
# request's head repository, owner/name), GITHUB_REPOSITORY, GH_TOKEN.
set -euo pipefail
marker='<!-- agent-eval summary -->'
body_file="${COMMENT_BODY:?}"
pr="${PR_NUMBER:?}"
repo="${GITHUB_REPOSITORY:?}"
if [ "${HEAD_REPO:-$repo}" != "$repo" ]; then
    echo "::notice title=agent-eval::a pull request from a fork (${HEAD_REPO}) gets no token that may comment: no comment posted; the job summary holds the report"
    exit 0
fi
comment="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agent-eval-comment.md"
{ echo "$marker"; cat "$body_file"; } >"$comment"
existing=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
    --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | awk 'NR == 1')
if [ -n "$existing" ]; then
    gh api --method PATCH "repos/$repo/issues/comments/$existing" -F "body=@$comment" >/dev/null
    echo "agent-eval: updated the pull request's comment $existing"
else
    gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$comment" >/dev/null
    echo "agent-eval: commented on pull request #$pr"
fi
