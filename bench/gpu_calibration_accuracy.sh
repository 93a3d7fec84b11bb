#!/usr/bin/env bash
# Leave-one-model-out accuracy of the GPU calibration (issue 26, section 1): for each model among the GPU bench
# runs, fit `ridge calibrate --device DEVICE --measured RUNS --exclude-model MODEL` on the others, predict the
# left-out model at every batch and mode it was measured (`ridge predict --device FIT.yaml --exec-mode eager|
# cuda-graph`), and compare with its measured median.
#   bench/gpu_calibration_accuracy.sh DEVICE RUN.json... > table.md
# e.g. bench/gpu_calibration_accuracy.sh h200 ../shared/data/gpu-h200/bench/ridge-bench-{resnet50,vgg16,
#      mobilenet_v2,densenet121,bert_base,vit_b_16}.json
# A .jsonl file is PyTorch's own timings (bench/torch_gpu_peer.py): the calibration then predicts PyTorch, from
# its fp32 and fp32-cuda-graph rows; models are models/NAME.onnx, sequence models bound with --dim seq=128.
# NCU="MODEL:BATCH=EXPORT.csv ..." adds those Nsight Compute exports of the GPU executor (calibrate --ncu) to every
# fit; a held-out model's own export is left out with it.
# Runs here, on the CPU: the runs were measured elsewhere. ridge: $RIDGE, else build/ridge.
set -euo pipefail
device=${1:?usage: bench/gpu_calibration_accuracy.sh DEVICE RUN.json...}
shift
ridge=${RIDGE:-build/ridge}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
NCU=${NCU:-} python3 - "$ridge" "$device" "$work" "$@" <<'PY'
import json, os, statistics, subprocess, sys
ridge, device, work, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
points = []  # (model, batch, mode, dims, measured_ms)
for f in files:
    if f.endswith(".jsonl"):  # PyTorch's timings: fp32 eager and CUDA graph, the configurations the fit uses
        modes = {"fp32": "eager", "fp32-cuda-graph": "cuda-graph"}
        for line in open(f):
            r = json.loads(line)
            if "median_ms" in r and r.get("config") in modes:
                # torch_gpu_peer.py runs BERT at 128 tokens and records no input size
                dims = ["--dim", "seq=128"] if r["model"] == "bert_base" else []
                points.append(("models/%s.onnx" % r["model"], r["batch"], modes[r["config"]], dims, r["median_ms"]))
        continue
    doc = json.load(open(f))
    for r in doc["runs"]:
        if r.get("precision") != "fp32" or r.get("training"):
            continue
        dims = []
        size = r.get("input_size", "")  # noqa
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
    dims = ["--dim", "seq=128"] if any(f.endswith(".jsonl") for f in files) else []
    for spec in os.environ.get("NCU", "").split():
        dims += ["--ncu", spec]
    subprocess.run([ridge, "calibrate", "--device", device, "--measured", *files, "--exclude-model", m, "-o", cal,
                    *dims, "--no-store", "-f", "json"], check=True, capture_output=True)
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
