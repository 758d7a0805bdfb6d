#!/usr/bin/env bash
# How the corpus was collected (not run by the tests): Claude Code hook configs from snapshots of
# public repositories (brought here with the search tool's `fetch`), each recorded in SOURCES.
set -euo pipefail
out=claude-code
for d in /work/.mirror/*/repo; do
  repo=$(basename "$(dirname "$d")" | sed 's/+/\//')
  commit=$(git -C "$d" rev-parse HEAD)
  n=0
  for f in $(git -C "$d" ls-tree -r HEAD --name-only | grep -E "^settings\.json$|(^|/)\.claude/settings(\.local)?\.json$|(^|/)hooks/hooks\.json$" | grep -v "backups/" | sort); do
    [ $n -ge 3 ] && break
    text=$(git -C "$d" show "HEAD:$f")
    echo "$text" | grep -q '"hooks"' || continue
    name="$(echo "$repo" | sed 's#/#__#')__$(echo "$f" | sed 's#^\.##; s#/#_#g')"
    git -C "$d" show "HEAD:$f" > "$out/$name"
    printf '%s\thttps://github.com/%s/blob/%s/%s\n' "$out/$name" "$repo" "$commit" "$f" >> SOURCES
    n=$((n+1))
  done
done
