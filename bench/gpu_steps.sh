# Sourced by the GPU benchmark scripts (bench/gpu_speed.sh, bench/gpu_checks.sh): `step SECONDS LABEL command...`
# runs a step with a time limit unless the call's budget is spent, and names what it skipped or what failed.
# The sourcing script sets `out` (its output directory), `budget` (seconds) and `start` (=$SECONDS at its start),
# and `step_log` (the name it prints before each message).
step() {
  local limit=$1 label=$2
  shift 2
  if ((SECONDS - start + 5 > budget)); then
    echo "$step_log: skipped $label (budget of ${budget}s spent)" | tee -a "$out/skipped.txt" >&2
    return
  fi
  echo "$step_log: [$((SECONDS - start))s] $label" >&2
  local t0=$SECONDS
  timeout --kill-after=5 "$limit" "$@" || echo "$step_log: $label failed or timed out (exit $?)" | tee -a "$out/failed.txt" >&2
  echo "$label: $((SECONDS - t0)) s" >>"$out/step-seconds.txt"
}
