#!/usr/bin/env python3
"""Optimized mode's fused attention against the products it replaces, on the GPU (issue 29, section 2).

  gpu_attention.py make DIR      writes DIR/products.onnx (MatMul(Q, K^T), Softmax over the keys, MatMul with V: the
                                 exported form, which `--mode optimized` fuses in fp32) and DIR/attention.onnx (ONNX's
                                 Attention, opset 23, on the same tensors: the attention kernel in every precision);
                                 needs the onnx package
  gpu_attention.py run DIR RIDGE times both with RIDGE (`ridge bench --device cuda`) at ViT-B/16's shape (batch 32,
                                 197 tokens) and BERT-base's (batch 8, 128 tokens) and at 512 tokens (batch 8), 12
                                 heads of 64, into DIR/att-*.json
  gpu_attention.py table DIR     the table: median latency per configuration and the fused kernel's time as a
                                 multiple of the products' in the same precision (below 1: fusing pays)

The configurations: the products as a CUDA graph (cuBLAS's fp32 products and cuDNN's softmax: what optimized mode ran
before the fusion), the products in optimized mode (fp32: fused into the attention kernel; tf32 and fp16: the products
on tensor cores, unfused), and the Attention model as a CUDA graph (the attention kernel alone, in fp32 and fp16).
Q, K and V are graph inputs of [batch, 12, tokens, 64] (K^T [batch, 12, 64, tokens] for the products), so no
transpose runs on either side and the scale is 1 on both."""
import glob
import json
import os
import subprocess
import sys

HEADS, HEAD = 12, 64
POINTS = [("vit", 32, 197), ("bert", 8, 128), ("long", 8, 512)]
CONFIGS = [  # (tag, model, mode, precision)
    ("products-graph-fp32", "products", "cuda-graph", "fp32"),
    ("products-optimized-fp32", "products", "optimized", "fp32"),
    ("products-graph-tf32", "products", "cuda-graph", "tf32"),
    ("products-optimized-tf32", "products", "optimized", "tf32"),
    ("products-optimized-fp16", "products", "optimized", "fp16"),
    ("attention-graph-fp32", "attention", "cuda-graph", "fp32"),
    ("attention-graph-fp16", "attention", "cuda-graph", "fp16"),
]


def make(d):
    from onnx import TensorProto, helper, save

    def tensor(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    heads = ["N", HEADS, "S", HEAD]
    products = helper.make_graph(
        [helper.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
         helper.make_node("Softmax", ["s"], ["p"], name="softmax", axis=-1),
         helper.make_node("MatMul", ["p", "v"], ["y"], name="context")],
        "products", [tensor("q", heads), tensor("kt", ["N", HEADS, HEAD, "S"]), tensor("v", heads)],
        [tensor("y", heads)])
    attention = helper.make_graph(
        [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attention", scale=1.0)],
        "attention", [tensor("q", heads), tensor("k", heads), tensor("v", heads)], [tensor("y", heads)])
    os.makedirs(d, exist_ok=True)
    for name, graph, opset in (("products", products, 17), ("attention", attention, 23)):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="ridge-bench")
        model.ir_version = 8
        save(model, os.path.join(d, name + ".onnx"))


def run(d, ridge):
    models = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention")
    os.makedirs(d, exist_ok=True)
    for point, batch, tokens in POINTS:
        for tag, model, mode, precision in CONFIGS:
            out = os.path.join(d, f"att-{point}-{tag}.json")
            cmd = [ridge, "bench", os.path.join(models, model + ".onnx"), "--device", "cuda", "--batch", str(batch),
                   "--dim", f"S={tokens}", "--mode", mode, "--precision", precision, "--max-time", "0.3",
                   "--warmup", "0.1", "--min-runs", "10", "--no-store", "-f", "json"]
            with open(out, "w") as f:
                r = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
            if r.returncode:
                print(f"{point} {tag}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}",
                      file=sys.stderr)


def table(d):
    medians, notes = {}, {}
    for path in glob.glob(os.path.join(d, "att-*.json")):
        point, tag = os.path.basename(path)[4:-5].split("-", 1)
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        for r in doc.get("runs", []):
            medians[(point, tag)] = r["latency_ms"]["median"]
            notes[(point, tag)] = any("attention blocks" in n for n in r.get("notes", []))
    print("Median latency, ms; (fused): the run's notes say the attention was fused.\n")
    print("| shape | " + " | ".join(t for t, *_ in CONFIGS) + " | fused / products fp32 graph | fused / tf32 |")
    print("|---|" + "---|" * (len(CONFIGS) + 2))
    for point, batch, tokens in POINTS:
        cells = []
        for tag, *_ in CONFIGS:
            m = medians.get((point, tag))
            cells.append("-" if m is None else f"{m:.3f}" + (" (fused)" if notes.get((point, tag)) else ""))
        fused = medians.get((point, "products-optimized-fp32"))
        base = medians.get((point, "products-graph-fp32"))
        tf32 = medians.get((point, "products-optimized-tf32"))
        ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
        print(f"| {point}: batch {batch}, {tokens} tokens | " + " | ".join(cells) +
              f" | {ratio(fused, base)} | {ratio(fused, tf32)} |")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("make", "run", "table") or (sys.argv[1] == "run" and len(sys.argv) < 4):
        sys.exit(__doc__)
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        table(sys.argv[2])


if __name__ == "__main__":
    main()
