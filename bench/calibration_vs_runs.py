#!/usr/bin/env python3
"""A calibrated device file against measured runs it was not fitted on: for every run in each `ridge bench -f
json` file, `ridge predict MODEL --device CAL.yaml --batch B --exec-mode MODE` against the run's median, and
the summary (median |error|, points within +-10%). Sequence models (BERT) are bound at 128 tokens, as the GPU
benchmarks run them. ridge: $RIDGE, else build/ridge. Run from the checkout root.
Usage: calibration_vs_runs.py CAL.yaml RUN.json... > table.md"""
import json
import os
import statistics
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ridge = os.environ.get("RIDGE", "build/ridge")
    cal, runs = sys.argv[1], sys.argv[2:]
    errors = []
    print("| model | batch | mode | measured ms | predicted ms | error |")
    print("|---|---|---|---|---|---|")
    for path in runs:
        doc = json.load(open(path))
        model = doc["model"] if isinstance(doc["model"], str) else doc["model"].get("path")
        for run in doc["runs"]:
            cmd = [ridge, "predict", model, "--device", cal, "--batch", str(run["batch"]), "--exec-mode", run["mode"],
                   "-f", "json"]
            if "bert" in os.path.basename(model):
                cmd += ["--dim", "seq=128"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                print(f"| {model} | {run['batch']} | {run['mode']} | | {p.stderr.strip()[:100]} | |")
                continue
            predicted = json.loads(p.stdout)["totals"]["time_s"] * 1e3
            measured = run["latency_ms"]["median"]
            error = predicted / measured - 1
            errors.append(abs(error))
            print(f"| {model} | {run['batch']} | {run['mode']} | {measured:.3f} | {predicted:.3f} | {error:+.1%} |")
    if errors:
        within = sum(e <= 0.1 for e in errors)
        print(f"\nmedian |error| {statistics.median(errors):.1%}, within +-10%: {within} of {len(errors)}")


if __name__ == "__main__":
    main()
