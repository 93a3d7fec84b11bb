#!/usr/bin/env python3
"""The training table of bench/gpu_checks.sh (issue 30): ridge's GPU training step against PyTorch's on the same GPU
in one call. Reads DIR/ridge-train-MODEL.json (`ridge bench models/MODEL_train.onnx --device cuda --training -f
json`) and DIR/torch-train.jsonl (bench/torch_gpu_train_peer.py) and prints, per model, batch and precision, the
median step time of both (ridge eager and as a CUDA graph, PyTorch eager) and ridge's as a multiple of PyTorch's
(below 1: ridge is faster), ridge's fp16 rows (mixed precision) against PyTorch's AMP step (channels-last rows,
fp16-nhwc, against AMP in torch.channels_last), and each side's peak
device memory; then where ridge's eager step goes (its per-node profile: the nodes' forwards and backwards summed
apart, the loss and the optimizer update), with the backward as a multiple of the forward.
Usage: gpu_train_table.py DIR > training.md"""
import glob
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    ridge = {}
    for path in sorted(glob.glob(os.path.join(d, "ridge-train-*.json"))):
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        model = os.path.basename(path)[len("ridge-train-"):-len(".json")].split("-")[0]  # "resnet50-tf32"
        for run in doc.get("runs", []):
            precision = run["precision"] + ("-nhwc" if run.get("memory_format") == "channels-last" else "")
            ridge[(model, run["batch"], precision, run.get("mode", "eager"))] = run
    torch, device = {}, ""
    peer = os.path.join(d, "torch-train.jsonl")
    for line in open(peer) if os.path.exists(peer) else []:
        row = json.loads(line)
        device = row.get("device", device)
        if "median_ms" in row:
            torch[(row["model"], row["batch"], row["config"])] = row

    def fmt(x):
        return f"{x:.2f}" if x is not None else "-"

    print(f"GPU: {device or 'unknown'}. Median time per training step, ms; ratio = ridge / PyTorch.\n")
    print("| model | batch | precision | ridge eager | ridge graph | PyTorch | ratio eager | ratio graph | PyTorch AMP "
          "| ridge peak MB | PyTorch peak MB |")
    print("|" + "---|" * 11)
    # PyTorch's configuration for each of ridge's precisions.
    peer_config = {"fp16": "amp", "fp16-nhwc": "amp-channels-last"}
    ridge_precision = {v: k for k, v in peer_config.items()}
    points = sorted({k[:3] for k in ridge} | {(k[0], k[1], ridge_precision.get(k[2], k[2])) for k in torch})

    def median(run):
        return run["latency_ms"]["median"] if run else None

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "-"

    for model, batch, precision in points:
        eager = ridge.get((model, batch, precision, "eager"))
        graph = ridge.get((model, batch, precision, "cuda-graph"))
        peer = torch.get((model, batch, peer_config.get(precision, precision)))
        amp = torch.get((model, batch, "amp"))
        p = peer["median_ms"] if peer else None
        r_mb = (eager or graph or {}).get("device_memory", {}).get("peak_bytes")
        p_mb = peer.get("peak_memory_bytes") if peer else None
        print(f"| {model} | {batch} | {precision} | {fmt(median(eager))} | {fmt(median(graph))} | {fmt(p)} "
              f"| {ratio(median(eager), p)} | {ratio(median(graph), p)} | {fmt(amp['median_ms'] if amp else None)} "
              f"| {fmt(r_mb / 1e6 if r_mb else None)} | {fmt(p_mb / 1e6 if p_mb else None)} |")

    # Where ridge's step goes: its eager profile's rows (a training run's nodes carry forward_ms and backward_ms).
    print("\nridge's eager step from its per-node profile (mean ms per step; the profile's own pass, so its sum "
          "differs from the timed runs' median a little):\n")
    print("| model | batch | precision | forward | backward | backward / forward | loss | optimizer | profiled step |")
    print("|" + "---|" * 9)
    for (model, batch, precision, mode), run in sorted(ridge.items()):
        nodes = run.get("nodes", [])
        if mode != "eager" or not any("forward_ms" in n for n in nodes):
            continue
        forward = sum(n.get("forward_ms", 0) for n in nodes)
        backward = sum(n.get("backward_ms", 0) for n in nodes)
        row = {n["name"]: n["mean_ms"] for n in nodes if "forward_ms" not in n}
        step = run.get("profile", {}).get("profiled_run_ms")
        print(f"| {model} | {batch} | {precision} | {fmt(forward)} | {fmt(backward)} | {ratio(backward, forward)} "
              f"| {fmt(row.get('(loss)'))} | {fmt(row.get('(optimizer step)'))} | {fmt(step)} |")


if __name__ == "__main__":
    main()
