#!/usr/bin/env python3
"""Writes a GPT-2-medium-sized ONNX model (24 layers, width 1024, 16 heads, vocab 50257) with its
~1.5 GB of random fp32 weights inside the file, for the analysis speed benchmark.

Usage: bench/make_gpt2_medium.py OUT.onnx   (needs Debian's python3-torch; takes a few minutes)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import ridge_reference_models as ref  # noqa: E402


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = ref.Gpt2(vocab=50257, width=1024, layers=24, heads=16, max_positions=1024).eval()
    ids = torch.randint(0, 50257, (1, 512))
    torch.onnx.export(model, (ids,), out, opset_version=17, input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})
    print(f"{out}: {os.path.getsize(out) / 1e9:.2f} GB, "
          f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters")


if __name__ == "__main__":
    main()
