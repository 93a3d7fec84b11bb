#!/usr/bin/env python3
"""The ratio table of bench/gpu_speed.sh: ridge's GPU executor against PyTorch on the same GPU in one call.
Reads DIR/ridge-MODEL-TAG.json (`ridge bench --device cuda -f json`) and DIR/torch-peer.jsonl
(bench/torch_gpu_peer.py) and prints, per model, batch and precision, the median latency of both in eager mode
and as a CUDA graph and ridge's time as a multiple of PyTorch's (below 1: ridge is faster). PyTorch's fp32
eager figure is the better of its default and `cudnn.benchmark` runs; ridge's "benchmark" columns are
`--conv-algo benchmark` (algorithm parity with cudnn.benchmark). "eager - graph us/node" is ridge's eager median
less its CUDA-graph median, per executed node: the host's cost per node that a graph replay does not pay;
"enqueue us/node" is what ridge measured the host spending to issue an eager run, per node (issue 28: <= 10).
A second table puts ridge's `--mode optimized` runs (BatchNorms folded, convolution + bias + ReLU (+ residual)
fused, replayed as a CUDA graph) beside its plain CUDA graph and PyTorch's.
Usage: gpu_speed_table.py DIR > table.md"""
import glob
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    ridge = {}
    for path in sorted(glob.glob(os.path.join(d, "ridge-*.json"))):
        if os.path.basename(path).startswith("ridge-train-"):  # training steps: bench/gpu_train_table.py
            continue
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        # The model's own name (ridge-resnet50-optimized-fp32.json runs models/resnet50.onnx), else the file's.
        model = os.path.splitext(os.path.basename(doc.get("model", "")))[0] or \
            os.path.basename(path)[len("ridge-"):-len(".json")].rsplit("-", 1)[0]
        for run in doc.get("runs", []):
            algo = "benchmark" if run.get("conv_algo") == "benchmark" else "heuristic"
            # A channels-last run is its own precision column ("fp16-channels-last"), beside PyTorch's configuration
            # of that name.
            precision = run["precision"] + ("-channels-last" if run.get("memory_format") == "channels-last" else "")
            key = (model, run["batch"], precision, run["mode"], algo)
            ridge[key] = run
    torch, gpu = {}, ""
    peer = os.path.join(d, "torch-peer.jsonl")
    for line in open(peer) if os.path.exists(peer) else []:
        row = json.loads(line)
        gpu = row.get("gpu", gpu)
        if "median_ms" in row:
            torch[(row["model"], row["batch"], row["config"])] = row["median_ms"]

    def r(model, batch, precision, mode, algo="heuristic"):
        run = ridge.get((model, batch, precision, mode, algo))
        return run["latency_ms"]["median"] if run else None

    def fmt(x):
        return f"{x:.2f}" if x is not None else "-"

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "-"

    print(f"GPU: {gpu or 'unknown'}. Median latency, ms; ratio = ridge / PyTorch.\n")
    print("| model | batch | precision | ridge eager | PyTorch eager | ratio | ridge graph | PyTorch graph | ratio "
          "| ridge eager, benchmark algos | ratio | ridge graph, benchmark algos | ratio | eager - graph us/node "
          "| enqueue us/node |")
    print("|" + "---|" * 15)
    points = sorted({(k[0], k[1], k[2]) for k in ridge} | {(k[0], k[1], k[2].split("-")[0]) for k in torch})
    ratios = []
    for model, batch, precision in points:
        if precision not in ("fp32", "tf32", "fp16"):
            continue
        te = torch.get((model, batch, precision))
        if precision == "fp32":
            options = [t for t in (te, torch.get((model, batch, "fp32-cudnn-benchmark"))) if t]
            te = min(options) if options else None
        tg = torch.get((model, batch, precision + "-cuda-graph"))
        re_, rg = r(model, batch, precision, "eager"), r(model, batch, precision, "cuda-graph")
        be, bg = r(model, batch, precision, "eager", "benchmark"), r(model, batch, precision, "cuda-graph", "benchmark")
        run = ridge.get((model, batch, precision, "eager", "heuristic"))
        nodes = run.get("executed_nodes") if run else None
        host = (re_ - rg) * 1e3 / nodes if re_ and rg and nodes else None
        enqueue = run.get("host_enqueue_per_node_us") if run else None
        if rg and tg:
            ratios.append(rg / tg)
        print(f"| {model} | {batch} | {precision} | {fmt(re_)} | {fmt(te)} | {ratio(re_, te)} | {fmt(rg)} | {fmt(tg)} | "
              f"{ratio(rg, tg)} | {fmt(be)} | {ratio(be, te)} | {fmt(bg)} | {ratio(bg, tg)} | {fmt(host)} | "
              f"{fmt(enqueue)} |")
    if ratios:
        ratios.sort()
        print(f"\nCUDA graph, ridge / PyTorch over {len(ratios)} points: {ratios[0]:.2f}-{ratios[-1]:.2f}, "
              f"median {ratios[len(ratios) // 2]:.2f}.")
    optimized = sorted(k for k in ridge if k[3] == "optimized" and k[4] == "heuristic")
    if optimized:
        print("\nOptimized mode (replayed as a CUDA graph). Median latency, ms.\n")
        print("| model | batch | precision | ridge optimized | ridge graph | optimized / graph | PyTorch graph "
              "| ratio |")
        print("|" + "---|" * 8)
        for model, batch, precision, _, _ in optimized:
            ro, rg = r(model, batch, precision, "optimized"), r(model, batch, precision, "cuda-graph")
            tg = torch.get((model, batch, precision + "-cuda-graph"))
            print(f"| {model} | {batch} | {precision} | {fmt(ro)} | {fmt(rg)} | {ratio(ro, rg)} | {fmt(tg)} | "
                  f"{ratio(ro, tg)} |")


if __name__ == "__main__":
    main()
