#!/usr/bin/env bash
# End-to-end test of `ridge sweep --slurm` on the localhost SLURM cluster (scripts/slurm-localhost.sh).
#   tests/slurm/sweep_slurm.sh RIDGE_BINARY SOURCE_DIR
# A two-cell predict-only sweep (alexnet, batch 1 and 2, t4) goes to SLURM as a job array of two
# shards plus a dependent merge job; once both have left the queue the main store must hold the
# two results, ok, and `ridge status` must count nothing pending or failed. `--dry-run` must print
# the scripts and submit nothing.
# Exit 0 pass, 1 fail, 77 skip (the cluster cannot start here; the reason is printed).
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 RIDGE_BINARY SOURCE_DIR" >&2
  exit 1
fi
ridge=$1
src=$2
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../../scripts/slurm-localhost.sh
wait_s=${RIDGE_SLURM_TEST_TIMEOUT:-180}
slurm_dir=${RIDGE_SLURM_DIR:-/tmp/ridge-slurm}

started=0
keep=0
tmp=""
cleanup() {
  [ $started -eq 1 ] && "$cluster" stop
  [ $keep -eq 0 ] && [ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT

show_files() {  # the job outputs and anything else ridge left in the temp dir, then the daemon logs
  local f
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    while IFS= read -r f; do
      [ ! -s "$f" ] || grep -qI . "$f" || continue  # not binary files (the shard stores, whatever their names)
      echo "--- $f"
      tail -n 40 "$f"
    done < <(find "$tmp" -type f ! -name '*.db' ! -name '*.db-*' -size -1000k | sort)
  fi
  for f in "$slurm_dir"/log/slurmctld.log "$slurm_dir"/log/slurmd.log; do
    [ -e "$f" ] || continue
    echo "--- $f (tail)"
    tail -n 40 "$f"
  done
}

fail() {
  keep=1
  echo "FAIL: $*"
  echo "--- squeue"
  squeue 2>&1 | head -n 20
  show_files
  [ -n "$tmp" ] && echo "(kept $tmp)"
  exit 1
}

[ -x "$ridge" ] || { echo "FAIL: $ridge is not an executable"; exit 1; }
[ -f "$src/models/alexnet.onnx" ] || { echo "FAIL: no $src/models/alexnet.onnx"; exit 1; }
ridge=$(cd "$(dirname "$ridge")" && pwd)/$(basename "$ridge")
src=$(cd "$src" && pwd)

was_up=0
"$cluster" status >/dev/null 2>&1 && was_up=1
if ! reason=$("$cluster" start 2>&1); then
  echo "SKIP: ${reason:-slurm-localhost.sh start failed}"
  exit 77
fi
[ $was_up -eq 1 ] || started=1
eval "$("$cluster" env)"
unset RIDGE_STORE

tmp=$(mktemp -d /tmp/ridge-slurm-sweep.XXXXXX)
# The jobs run in the directory they were submitted from: their output files land here.
cd "$tmp" || fail "cannot enter $tmp"
cat >sweep.yaml <<EOF
name: slurm-test
models: ["$src/models/alexnet.onnx"]
batch: [1, 2]
devices: [t4]
measure: false
EOF

# 1. --dry-run prints the job scripts and submits nothing (every job slurmctld still remembers,
#    finished ones included, is the same before and after).
jobs_before=$(squeue -h -t all -o %i 2>&1 | sort)
"$ridge" sweep sweep.yaml --store "$tmp/main2.db" --slurm --parallel 2 --dry-run \
  >dry-run.stdout 2>dry-run.stderr || fail "ridge sweep --slurm --dry-run exited $?"
grep -q -- '#SBATCH --array=' dry-run.stdout ||
  fail "the --dry-run output has no '#SBATCH --array=' line"
grep -qiE -- '--dependency=|merge' dry-run.stdout ||
  fail "the --dry-run output has no '--dependency=' and no merge script"
sleep 1
jobs_after=$(squeue -h -t all -o %i 2>&1 | sort)
[ "$jobs_before" = "$jobs_after" ] ||
  fail "--dry-run submitted jobs: squeue went from '$jobs_before' to '$jobs_after'"
echo "dry run: scripts printed, nothing submitted"

# 2. The real submission.
"$ridge" sweep sweep.yaml --store "$tmp/main.db" --slurm --parallel 2 --time 00:05:00 \
  >sweep.stdout 2>sweep.stderr || fail "ridge sweep --slurm exited $?"
array=$(sed -n 's/^submitted array job \([0-9][0-9]*\).*/\1/p' sweep.stdout | head -n1)
merge=$(sed -n 's/^submitted merge job \([0-9][0-9]*\).*/\1/p' sweep.stdout | head -n1)
[ -n "$array" ] || fail "no 'submitted array job N' line on ridge's stdout"
[ -n "$merge" ] || fail "no 'submitted merge job M' line on ridge's stdout"
echo "submitted array job $array and merge job $merge"

start=$SECONDS
while [ -n "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; do
  [ $((SECONDS - start)) -lt "$wait_s" ] || fail "jobs $array and $merge still queued after $wait_s s"
  sleep 1
done
echo "both jobs left the queue after $((SECONDS - start)) s"

# How each job ended, as slurmctld saw it (it keeps finished jobs for MinJobAge, 300 s).
task_states=$(scontrol -o show job "$array" 2>/dev/null | grep -o 'JobState=[A-Z_]*')
echo "array job $array: $(echo "$task_states" | tr '\n' ' ')"
merge_state=$(scontrol -o show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*')
echo "merge job $merge: $merge_state"
if [ -n "$task_states" ] && echo "$task_states" | grep -qv '^JobState=COMPLETED$'; then
  fail "not every task of array job $array completed: $(echo "$task_states" | tr '\n' ' ')"
fi
[ -z "$merge_state" ] || [ "$merge_state" = JobState=COMPLETED ] ||
  fail "merge job $merge ended $merge_state"

# 3. The merged store holds the two cells, ok.
"$ridge" results --store "$tmp/main.db" -f json >results.json 2>results.stderr ||
  fail "ridge results exited $?"
python3 - results.json <<'EOF' || fail "ridge results --store main.db -f json is not 2 ok results"
import json, sys
doc = json.load(open(sys.argv[1]))
results = doc.get("results")
if not isinstance(results, list):
    sys.exit(f"no results list in {sorted(doc)}")
statuses = [r.get("status") for r in results]
print(f"results: {len(results)}, statuses {statuses}")
if len(results) != 2 or statuses.count("ok") != 2:
    sys.exit(f"expected 2 results with status ok, got {statuses}")
EOF

"$ridge" status sweep.yaml --store "$tmp/main.db" -f json >status.json 2>status.stderr ||
  fail "ridge status exited $?"
python3 - status.json <<'EOF' || fail "ridge status sweep.yaml --store main.db: cells not all done"
import json, sys
doc = json.load(open(sys.argv[1]))
counts = {k: doc.get(k) for k in ("done", "running", "pending", "failed")}
print("status:", counts)
for k, v in counts.items():
    if not isinstance(v, int) or isinstance(v, bool):
        sys.exit(f"'{k}' is {v!r}, expected an integer")
if counts["pending"] != 0 or counts["failed"] != 0:
    sys.exit(f"expected 0 pending and 0 failed, got {counts}")
if counts["running"] != 0 or counts["done"] != 2:
    sys.exit(f"expected 2 done and 0 running, got {counts}")
EOF
echo "PASS"
