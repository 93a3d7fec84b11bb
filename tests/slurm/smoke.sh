#!/usr/bin/env bash
# Smoke test of the localhost SLURM cluster (scripts/slurm-localhost.sh): a 3-task job array whose
# tasks each write a file, and a job depending on it (afterany) that concatenates them.
# Exit 0 pass, 1 fail, 77 skip (the cluster cannot start here; the reason is printed).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../../scripts/slurm-localhost.sh
timeout_s=${RIDGE_SLURM_TEST_TIMEOUT:-120}

fail() {
  keep=1
  echo "FAIL: $*"
  echo "--- squeue"
  squeue 2>&1 | head -n 20
  local f
  for f in "$tmp"/*.out; do
    [ -e "$f" ] || continue
    echo "--- $f"
    tail -n 20 "$f"
  done
  for f in "${RIDGE_SLURM_DIR:-/tmp/ridge-slurm}"/log/slurm*.log; do
    [ -e "$f" ] || continue
    echo "--- $f (tail)"
    tail -n 30 "$f"
  done
  echo "(kept $tmp)"
  exit 1
}

started=0
keep=0
tmp=""
cleanup() {
  [ $started -eq 1 ] && "$cluster" stop
  [ $keep -eq 0 ] && [ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT

was_up=0
"$cluster" status >/dev/null 2>&1 && was_up=1
if ! reason=$("$cluster" start 2>&1); then
  echo "SKIP: ${reason:-slurm-localhost.sh start failed}"
  exit 77
fi
[ $was_up -eq 1 ] || started=1
eval "$("$cluster" env)"

tmp=$(mktemp -d /tmp/ridge-slurm-smoke.XXXXXX)
cd "$tmp" || fail "cannot enter $tmp"

# shellcheck disable=SC2016  # $SLURM_ARRAY_TASK_ID is the job's, expanded when it runs
array=$(sbatch --parsable --job-name=smoke-array --array=0-2 -o 'array-%A_%a.out' \
  --wrap 'echo "task $SLURM_ARRAY_TASK_ID" > "part-$SLURM_ARRAY_TASK_ID.txt"') ||
  fail "sbatch of the array failed: $array"
array=${array%%;*}
merge=$(sbatch --parsable --job-name=smoke-merge --dependency="afterany:$array" -o 'merge-%j.out' \
  --wrap 'cat part-0.txt part-1.txt part-2.txt > all.txt') ||
  fail "sbatch of the merge job failed: $merge"
merge=${merge%%;*}
echo "submitted array job $array and merge job $merge"

start=$SECONDS
while [ -n "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; do
  [ $((SECONDS - start)) -lt "$timeout_s" ] || fail "jobs still queued after $timeout_s s"
  sleep 0.5
done
echo "both jobs left the queue after $((SECONDS - start)) s"

expected=$(printf 'task 0\ntask 1\ntask 2')
[ -f all.txt ] || fail "the merge job wrote no all.txt"
[ "$(cat all.txt)" = "$expected" ] || fail "all.txt is '$(cat all.txt)', expected '$expected'"

# Without accounting storage plain sacct only says "Slurm accounting storage is disabled" (exit 1);
# `sacct -c` reads the jobcomp/filetxt file instead (raw job ids, one per array task).
echo "sacct -j $array: $(sacct -j "$array" --parsable2 --noheader -o JobID,State 2>&1 | tr '\n' ' ')"
comp=$(sacct -c -j "$merge" --parsable2 --noheader -o JobID,State 2>/dev/null)
echo "sacct -c -j $merge: $comp"
[ "$comp" = "$merge|COMPLETED" ] || fail "sacct -c -j $merge printed '$comp', expected '$merge|COMPLETED'"
state=$(scontrol show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z]*')
[ "$state" = JobState=COMPLETED ] || fail "scontrol show job $merge says '$state'"
echo "PASS"
