#!/usr/bin/env bash
# Leave-one-model-out accuracy of the GPU calibration (issue 26, section 1): for each model among the GPU bench
# runs, fit `ridge calibrate --device DEVICE --measured RUNS --exclude-model MODEL` on the others, predict the
# left-out model at every batch and mode it was measured (`ridge predict --device FIT.yaml --exec-mode eager|
# cuda-graph`), and compare with its measured median.
#   bench/gpu_calibration_accuracy.sh DEVICE RUN.json... > table.md
# e.g. bench/gpu_calibration_accuracy.sh h200 ../shared/data/gpu-h200/bench/ridge-bench-{resnet50,vgg16,
#      mobilenet_v2,densenet121,bert_base,vit_b_16}.json
# Runs here, on the CPU: the runs were measured elsewhere. ridge: $RIDGE, else build/ridge.
set -euo pipefail
device=${1:?usage: bench/gpu_calibration_accuracy.sh DEVICE RUN.json...}
shift
ridge=${RIDGE:-build/ridge}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$ridge" "$device" "$work" "$@" <<'PY'
import json, statistics, subprocess, sys
ridge, device, work, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
points = []  # (model, batch, mode, dims, measured_ms)
for f in files:
    doc = json.load(open(f))
    for r in doc["runs"]:
        if r.get("precision") != "fp32" or r.get("training"):
            continue
        dims = []
        size = r.get("input_size", "")
        if "x" in size and not size.endswith("224"):  # a sequence model: bind its length as the run did
            dims = ["--dim", "seq=" + size.split("x")[-1]]
        points.append((doc["model"], r["batch"], r["mode"], dims, r["latency_ms"]["median"]))
models = sorted({p[0] for p in points})
print(f"Leave-one-model-out on {device}: each model predicted by a calibration fitted on the other "
      f"{len(models) - 1}.\n")
print("| model | batch | mode | measured ms | predicted ms | error |\n|---|---|---|---|---|---|")
errors = []
for m in models:
    cal = f"{work}/cal.yaml"
    subprocess.run([ridge, "calibrate", "--device", device, "--measured", *files, "--exclude-model", m, "-o", cal,
                    "--no-store", "-f", "json"], check=True, capture_output=True)
    for model, batch, mode, dims, measured in points:
        if model != m:
            continue
        out = subprocess.run([ridge, "predict", model, "--device", cal, "--exec-mode", mode, "--batch", str(batch),
                              *dims, "--no-store", "-f", "json"], check=True, capture_output=True, text=True).stdout
        predicted = json.loads(out)["totals"]["time_s"] * 1e3
        e = predicted / measured - 1
        errors.append(e)
        print(f"| {model} | {batch} | {mode} | {measured:.3f} | {predicted:.3f} | {100 * e:+.1f}% |")
a = sorted(abs(e) for e in errors)
print(f"\n{len(a)} points: median |error| {100 * statistics.median(a):.1f}%, "
      f"{sum(x <= 0.10 for x in a)} of {len(a)} within +-10% ({100 * sum(x <= 0.10 for x in a) / len(a):.0f}%), "
      f"worst {100 * a[-1]:.1f}%.")
PY
