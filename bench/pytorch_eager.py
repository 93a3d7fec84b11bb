#!/usr/bin/env python3
"""Times PyTorch eager inference (Debian's python3-torch) the way `ridge bench` times ridge: warm-up,
then runs for a fixed time budget; prints one JSON line with mean and median in ms.
Usage: bench/pytorch_eager.py MODEL BATCH THREADS SECONDS [--fold-bn]
MODEL: resnet50 | mobilenet_v2 | bert_base (sequence length 128). --fold-bn folds BatchNorm into
the convolutions first (torch.fx), as the ONNX exporter does for the file ridge runs.
"""
import json
import os
import statistics
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import ridge_reference_models as ref  # noqa: E402


def main():
    name, batch, threads, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    if name == "bert_base":
        model = ref.BertEncoder().eval()
        inputs = (torch.randint(0, 30522, (batch, 128)), torch.ones(batch, 128, dtype=torch.long))
    else:
        model = getattr(torchvision.models, name)().eval()
        inputs = (torch.randn(batch, 3, 224, 224),)
    if "--fold-bn" in sys.argv:
        from torch.fx.experimental.optimization import fuse
        model = fuse(model)
    with torch.no_grad():
        start = time.perf_counter()
        runs = 0
        while runs < 2 or time.perf_counter() - start < 0.5:
            model(*inputs)
            runs += 1
        samples = []
        start = time.perf_counter()
        while len(samples) < 3 or time.perf_counter() - start < seconds:
            t = time.perf_counter()
            model(*inputs)
            samples.append((time.perf_counter() - t) * 1e3)
    print(json.dumps({"mean": statistics.mean(samples), "median": statistics.median(samples), "samples": len(samples),
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
