#!/usr/bin/env bash
# The README's test command (.ci/run) twice, as CI meets it: each time from a fresh clone of this checkout's
# HEAD at a new path, both sharing one compiler cache that starts empty. The first run compiles everything;
# the second should take nearly all of it from the cache (docs/building.md). Prints each run's wall time and
# what it took from the cache, then `ccache -s` (docs/benchmarks.md, "Builds and the test suite").
#   bench/ci_twice.sh [WORKDIR]     WORKDIR: where the clones, logs and cache go (default: a new temporary
#                                   directory); it needs about 8 GB. The cache is kept there for reuse.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
export CCACHE_DIR="$work/ccache"
rm -rf "$CCACHE_DIR" "$work"/clone-1 "$work"/clone-2
mkdir -p "$CCACHE_DIR"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); $(date -u +%F)"
echo "revision: $(git -C "$repo" rev-parse --short HEAD); cache: $CCACHE_DIR (empty)"
for run in 1 2; do
  clone="$work/clone-$run"
  git clone -q "$repo" "$clone"
  echo "== run $run: $clone/.ci/run (log: $work/run-$run.log)"
  start=$(date +%s)
  if ! (cd "$clone" && ./.ci/run) >"$work/run-$run.log" 2>&1; then
    tail -n 30 "$work/run-$run.log"
    echo "ci_twice: run $run failed after $(($(date +%s) - start)) s; log: $work/run-$run.log" >&2
    exit 1
  fi
  seconds=$(($(date +%s) - start))
  printf 'run %s: %d s (%d min %02d s); %s\n' "$run" "$seconds" $((seconds / 60)) $((seconds % 60)) \
    "$(grep '^ccache: ' "$work/run-$run.log" | tail -n 1)"
  grep '^== ' "$work/run-$run.log" | sed 's/^/  /'  # test.sh's steps, each with the second it began
  rm -rf "$clone"                                     # its build trees (several GB) are not needed again
done
ccache -s
