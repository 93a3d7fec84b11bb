#!/usr/bin/env python3
"""Predicted energy savings of `ridge tune` against MAXN for the bundled models (docs/benchmarks.md).

Usage: bench/tune_savings.py [RIDGE] [DEVICE]   (defaults: build/ridge, jetson-agx-orin-64gb)
Prints the markdown table of docs/benchmarks.md "Power-mode tuning": per model, MAXN's predicted time
and energy, the least-energy mode with its saving and latency change, the best named mode, and the
least-energy mode within +10% of MAXN's latency.
"""
import glob
import json
import os
import subprocess
import sys

ridge = sys.argv[1] if len(sys.argv) > 1 else "build/ridge"
device = sys.argv[2] if len(sys.argv) > 2 else "jetson-agx-orin-64gb"
SEQUENCE_MODELS = {"bert_base", "gpt2_tiny", "lstm_2layer"}


def tune(model, extra):
    name = os.path.splitext(os.path.basename(model))[0]
    args = [ridge, "tune", model, "--device", device, "--objective", "energy", "-f", "json", "--no-store"] + extra
    if name in SEQUENCE_MODELS:
        args += ["--dim", "seq=128"]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


print("| model | MAXN (predicted) | least-energy mode | energy saved | latency change | best named mode: saved / "
      "latency | least energy within +10% latency | saved | latency |")
print("|---|---|---|---|---|---|---|---|---|")
for model in sorted(glob.glob("models/*.onnx")):
    name = os.path.splitext(os.path.basename(model))[0]
    free = tune(model, [])
    maxn = next(m for m in free["modes"] if m["name"] == "MAXN")
    best = next(m for m in free["modes"] if m["name"] == free["best"]["name"])
    named = min((m for m in free["modes"] if m["named"]), key=lambda m: m["energy_j"])
    bounded = tune(model, ["--latency-max", f"{maxn['time_s'] * 1.1e3:.6f}"])
    near = next(m for m in bounded["modes"] if m["name"] == bounded["best"]["name"])
    print(f"| {name} | {maxn['time_s'] * 1e3:.3g} ms, {maxn['energy_j']:.3g} J | `{best['name']}` | "
          f"{best['energy_saved_pct']:.1f}% | {best['latency_change_pct']:+.1f}% | {named['name']}: "
          f"{named['energy_saved_pct']:.1f}% / {named['latency_change_pct']:+.1f}% | `{near['name']}` | "
          f"{near['energy_saved_pct']:.1f}% | {near['latency_change_pct']:+.1f}% |")
