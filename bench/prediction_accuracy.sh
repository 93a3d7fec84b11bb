#!/usr/bin/env bash
# How well ridge predicts models it never timed, on this machine (issue 11, docs/benchmarks.md).
#   1. `ridge ert --quick --profile`: this machine's device file (ceilings measured here).
#   2. `ridge calibrate --sample`: the layer sample only -- no bundled model is timed for the fit.
#   3. `ridge bench` every model at batch 1 and 8, eager and optimized, 1 and 2 threads (medians).
#   4. `ridge predict` each point with the sample calibration: error = predicted / measured - 1.
#   5. A reference point benched after the sample and after each model: how far the machine itself drifted, and the
#      errors again with each prediction scaled by that drift (an estimate, printed beside the measured errors).
#   6. Leave one model out: calibrate from the other models' bench runs (`--measured DIR
#      --exclude-model M`), predict M.
#   7. Every point benched again after all the others (PASSES): on a shared VM other tenants slow a bench for minutes
#      at once, so each point is also set against the faster of its passes, printed beside the first pass's errors.
# Prints the error of every point and the distribution (median |error|, p90, share within +-10%), and, with two
# passes or more, how far each later pass lies from the first: the measurement's own repeatability, which bounds what
# any prediction can show against one pass.
#   RIDGE (default build/ridge)  OUT (default build/bench-accuracy)  MODELS  BATCHES (1 8)  THREADS (1 2)
#   MAX_TIME seconds per bench point (default 3)  SAMPLE (default --quick; "" for the full sample)
#   PASSES bench passes over every point (default 2; 1: the first only)
# Steps whose output exists are skipped, so an interrupted run resumes; delete OUT to start over.
set -euo pipefail
cd "$(dirname "$0")/.."
ridge=${RIDGE:-build/ridge}
out=${OUT:-build/bench-accuracy}
models=${MODELS:-resnet50 mobilenet_v2 vgg16 densenet121 googlenet alexnet bert_base vit_b_16 yolo_style lstm_2layer gpt2_tiny}
batches=${BATCHES:-1 8}
threads=${THREADS:-1 2}
max_time=${MAX_TIME:-3}
sample=${SAMPLE---quick}
passes=${PASSES:-2}
mkdir -p "$out/runs" "$out/pred" "$out/bench"
# Sequence models bind their length: BERT-base and GPT-2 at 128 tokens, the LSTM at 64 steps.
extra() {
  case $1 in
    bert_base | gpt2_tiny) echo "--dim seq=128" ;;
    lstm_2layer) echo "--dim seq=64" ;;
  esac
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical CPUs; ridge $($ridge --version 2>/dev/null | head -1)"
[ -f "$out/host.yaml" ] || $ridge ert --quick --profile "$out/host.yaml" >/dev/null
if [ ! -f "$out/sample-cal.yaml" ]; then
  start=$(date +%s)
  $ridge calibrate --device "$out/host.yaml" --sample $sample --threads "${threads// /,}" -o "$out/sample-cal.yaml" \
    > "$out/calibrate.txt" || true  # a layer that failed is listed; the others are fitted
  echo "layer sample + fit: $(( $(date +%s) - start )) s"
fi
grep -E "held-out|layers fitted" "$out/calibrate.txt" || true

# The machine's own drift: a reference point (the first model's first point) benched right after the sample and again
# after each model's points. On a shared VM the machine can slow down or speed up by as much as the error being
# measured; the reference says by how much at each model (docs/benchmarks.md).
first_model=${models%% *}
ref_point="$first_model-b${batches%% *}-t${threads%% *}"
mkdir -p "$out/reference"
reference() {
  [ -s "$out/reference/$1.json" ] || $ridge bench "models/$first_model.onnx" --batch "${batches%% *}" \
    $(extra "$first_model") --threads "${threads%% *}" --mode both --max-time "$max_time" -f json \
    > "$out/reference/$1.json"
}
reference 00-start
i=0
for m in $models; do
  for b in $batches; do
    for t in $threads; do
      run="$out/runs/$m-b$b-t$t.json"
      [ -s "$run" ] || $ridge bench "models/$m.onnx" --batch "$b" $(extra "$m") --threads "$t" --mode both \
        --max-time "$max_time" --csv "$out/bench" -f json > "$run"
      for mode in eager optimized; do
        p="$out/pred/sample-$m-b$b-t$t-$mode.json"
        [ -s "$p" ] || $ridge predict "models/$m.onnx" --batch "$b" $(extra "$m") --device "$out/sample-cal.yaml" \
          --exec-mode "$mode" --threads "$t" -f json > "$p"
      done
    done
  done
  i=$((i + 1))
  reference "$(printf %02d $i)-after-$m"
done

# Leave one model out: the calibration never saw a run of the model it predicts. It fits the bench runs' --csv
# directory; runs/ reused from another OUT without it leave this step out (the summary says so).
lomo_models=$models
if [ ! -f "$out/bench/overall.csv" ]; then
  echo "leave one model out: skipped, $out/bench has no overall.csv (runs/ came without the bench's --csv directory)"
  lomo_models=""
fi
for m in $lomo_models; do
  cal="$out/lomo-$m.yaml"
  [ -f "$cal" ] || $ridge calibrate --device "$out/host.yaml" --measured "$out/bench" --exclude-model "models/$m.onnx" \
    -o "$cal" > /dev/null
  for b in $batches; do
    for t in $threads; do
      for mode in eager optimized; do
        p="$out/pred/lomo-$m-b$b-t$t-$mode.json"
        [ -s "$p" ] || $ridge predict "models/$m.onnx" --batch "$b" $(extra "$m") --device "$cal" \
          --exec-mode "$mode" --threads "$t" -f json > "$p"
      done
    done
  done
done

# Later passes: every point benched again, in the same order, after everything above.
for pass in $(seq 2 "$passes"); do
  mkdir -p "$out/runs-$pass"
  for m in $models; do
    for b in $batches; do
      for t in $threads; do
        run="$out/runs-$pass/$m-b$b-t$t.json"
        [ -s "$run" ] || $ridge bench "models/$m.onnx" --batch "$b" $(extra "$m") --threads "$t" --mode both \
          --max-time "$max_time" -f json > "$run"
      done
    done
  done
done

/usr/bin/python3 - "$out" "$ref_point" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def stats(errors):
    a = sorted(abs(e) for e in errors)
    if not a: return "no points"
    p90 = a[max(0, -(-9 * len(a) // 10) - 1)]
    within = sum(e <= 0.10 for e in a) / len(a)
    return f"median |error| {100*statistics.median(a):.1f}%, p90 {100*p90:.1f}%, within +-10%: {sum(e <= 0.10 for e in a)}/{len(a)} ({100*within:.0f}%)"
def medians(directory):
    found = {}
    for path in glob.glob(f"{directory}/*.json"):
        if os.path.getsize(path) == 0: continue
        name = os.path.basename(path)[:-5]
        for run in json.load(open(path))["runs"]:
            found[(name, run["mode"])] = run["latency_ms"]["median"] / 1e3
    return found
measured = medians(f"{out}/runs")
# The faster of each point's passes: the time without other tenants' slowdowns (they only ever add time).
passes = [measured] + [medians(d) for d in sorted(glob.glob(f"{out}/runs-*"))]
fastest = {k: min(p[k] for p in passes if k in p) for k in measured}
# The reference point's median per mode after each model, against right after the sample: the machine's speed when
# that model was benched (1.10: 10% slower). Each model's points take the mean of the references before and after it.
refs = []
for path in sorted(glob.glob(f"{out}/reference/*.json")):
    if os.path.getsize(path) == 0: continue
    refs.append((os.path.basename(path)[:-5], {r["mode"]: r["latency_ms"]["median"] for r in json.load(open(path))["runs"]}))
drift = {}
if refs and refs[0][0] == "00-start":
    base = refs[0][1]
    for (_, before), (name, after) in zip(refs, refs[1:]):
        model = name.split("-after-", 1)[1]
        drift[model] = {mode: (before[mode] + after[mode]) / 2 / base[mode] for mode in base}
    last = refs[-1][1]
    print("drift of the reference point (" + sys.argv[2] + "), end against start: " +
          ", ".join(f"{mode} {100*(last[mode]/base[mode]-1):+.1f}%" for mode in base))
# The benches against themselves: a later pass set against the first, as a prediction is, so a prediction's score reads
# against how often a second measurement of the same point agrees with the first.
for i, later in enumerate(passes[1:], start=2):
    again = [later[k] / measured[k] - 1 for k in measured if k in later]
    print(f"pass {i} against pass 1 (the benches' own repeatability): {stats(again)}")
if len(passes) > 1:
    # What a predictor that knew each point's typical time (the geometric mean of its passes) would score against the
    # first pass: the noise alone puts this floor under the target.
    exact = [statistics.geometric_mean([p[k] for p in passes if k in p]) / measured[k] - 1 for k in measured]
    print(f"each point's geometric mean over its passes, against pass 1 (an exact prediction's score): {stats(exact)}")
for kind in ("sample", "lomo"):
    errors, adjusted, against_fastest = [], [], []
    print(f"\n{kind}: {'calibrated from the layer sample only' if kind == 'sample' else 'leave one model out (fitted on the other models bench runs)'}")
    print(f"{'model':13} {'batch':>5} {'thr':>3} {'mode':9} {'measured ms':>11} {'predicted ms':>12} {'error':>7} "
          f"{'fastest ms':>10} {'error':>7}")
    for path in sorted(glob.glob(f"{out}/pred/{kind}-*.json")):
        stem = os.path.basename(path)[len(kind) + 1:-5]
        point, mode = stem.rsplit("-", 1)
        if (point, mode) not in measured: continue
        doc = json.load(open(path))
        predicted = doc["totals"]["time_s"]
        m = measured[(point, mode)]
        e = predicted / m - 1
        errors.append(e)
        against_fastest.append(predicted / fastest[(point, mode)] - 1)
        model = point.rsplit("-", 2)[0]
        if model in drift and mode in drift[model]:
            adjusted.append(predicted * drift[model][mode] / m - 1)
        model, b, t = point.rsplit("-", 2)
        f = fastest[(point, mode)]
        print(f"{model:13} {b[1:]:>5} {t[1:]:>3} {mode:9} {1e3*m:11.2f} {1e3*predicted:12.2f} {100*e:+6.1f}% "
              f"{1e3*f:10.2f} {100*(predicted/f-1):+6.1f}%")
    print(f"{kind}: {stats(errors)}")
    if len(passes) > 1:
        print(f"{kind}, against the faster of each point's {len(passes)} bench passes: {stats(against_fastest)}")
    if adjusted:
        print(f"{kind}, predictions scaled by the reference's drift at each model (an estimate of the error on a "
              f"steady machine): {stats(adjusted)}")
PY
