#!/usr/bin/env python3
"""The peer of `ridge bench --device cuda` in bench/gpu_speed.sh: PyTorch on the same GPU, the same models as
ridge's bundled files (torchvision CNNs and ViT with random weights, BatchNorm folded with torch.fx as the ONNX
exporter folds it; BERT from tools/ridge_reference_models.py), timed with CUDA events: warm-up, then the
median of >= 30 runs. One JSON line per model, batch and configuration (`ridge calibrate --device GPU --measured
OUT.jsonl` fits a prediction of PyTorch from the fp32 lines: docs/calibration.md):
  fp32 (TF32 off, cuDNN's default algorithm choice), fp32-cudnn-benchmark, fp32-cuda-graph,
  tf32, tf32-cuda-graph, fp16 (model.half()), fp16-cuda-graph, fp16-channels-last-cuda-graph (model.half() in
  torch.channels_last, 4-D inputs too).
Usage: torch_gpu_peer.py OUT.jsonl MODEL:BATCH[,BATCH...] ...
PEER_CONFIGS=fp32,fp32-cuda-graph (comma-separated) measures only those configurations."""
import copy
import json
import os
import statistics
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import ridge_reference_models as ref  # noqa: E402

CONFIGS = ["fp32", "fp32-cudnn-benchmark", "fp32-cuda-graph", "tf32", "tf32-cuda-graph", "fp16", "fp16-cuda-graph",
           "fp16-channels-last-cuda-graph"]


def build(name, batch):
    torch.manual_seed(0)
    if name == "bert_base":
        model = ref.BertEncoder().eval()
        return model, (torch.randint(0, 30522, (batch, 128)), torch.ones(batch, 128, dtype=torch.long)), True
    model = getattr(torchvision.models, name)(weights=None).eval()
    folded = True
    if any(isinstance(m, torch.nn.BatchNorm2d) for m in model.modules()):
        from torch.fx.experimental.optimization import fuse
        try:
            model = fuse(model)
        except Exception:  # noqa: BLE001 - a model fx cannot trace stays unfused; its rows say so
            folded = False
    return model, (torch.randn(batch, 3, 224, 224),), folded


def time_it(fn, min_runs=30, seconds=0.4):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    samples = []
    start = time.perf_counter()
    while len(samples) < min_runs or (time.perf_counter() - start < seconds and len(samples) < 2000):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b))
    return statistics.median(samples), statistics.mean(samples), len(samples)


def measure(model, inputs, config):
    torch.backends.cudnn.benchmark = config == "fp32-cudnn-benchmark"
    tf32 = config.startswith("tf32")
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    m, x = model, inputs
    if config.startswith("fp16"):
        m = copy.deepcopy(model).half()
        x = tuple(t.half() if t.is_floating_point() else t for t in inputs)
    if "channels-last" in config:
        m = m.to(memory_format=torch.channels_last)
        x = tuple(t.to(memory_format=torch.channels_last) if t.dim() == 4 else t for t in x)
    with torch.no_grad():
        if config.endswith("cuda-graph"):
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    m(*x)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                m(*x)
            return time_it(g.replay)
        return time_it(lambda: m(*x))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    configs = CONFIGS
    if os.environ.get("PEER_CONFIGS"):
        configs = os.environ["PEER_CONFIGS"].split(",")
        unknown = [c for c in configs if c not in CONFIGS]
        if unknown:
            sys.exit(f"torch_gpu_peer: unknown configuration(s) {', '.join(unknown)}; known: {', '.join(CONFIGS)}")
    out = open(sys.argv[1], "a")
    for spec in sys.argv[2:]:
        name, batches = spec.split(":")
        for batch in [int(b) for b in batches.split(",")]:
            model, inputs, folded = build(name, batch)
            model = model.cuda()
            inputs = tuple(t.cuda() for t in inputs)
            for config in configs:
                try:
                    median, mean, n = measure(model, inputs, config)
                    row = {"model": name, "batch": batch, "config": config, "median_ms": median, "mean_ms": mean,
                           "runs": n, "bn_folded": folded}
                except Exception as e:  # noqa: BLE001 - the row names what failed; the others still run
                    row = {"model": name, "batch": batch, "config": config, "error": str(e)[:300]}
                # The first input's shape, as `ridge bench` records it: `ridge calibrate --measured` binds the
                # model with it (a sequence length included).
                row["input_size"] = "x".join(str(d) for d in inputs[0].shape)
                row["torch"] = torch.__version__
                row["cudnn"] = torch.backends.cudnn.version()
                row["gpu"] = torch.cuda.get_device_name()
                print(json.dumps(row), flush=True)
                out.write(json.dumps(row) + "\n")
                out.flush()
            del model
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
