#!/usr/bin/env python3
"""Per-layer GPU kernel times of ridge and PyTorch side by side, from two Nsight Compute details-page CSVs
(`ncu --nvtx --metrics gpu__time_duration.sum --csv --page details --print-units base`), made by
bench/gpu_speed.sh: ridge's executor names each node's NVTX range as the ONNX node, bench/torch_gpu_nvtx.py
names PyTorch's modules as the exporter scopes them. Kernels join by scope: a range's last component is dropped
when it is an op (/layer1/layer1.0/conv1/Conv -> /layer1/layer1.0/conv1), so a PyTorch module that runs many
ops (self_attention) lines up with the ONNX nodes exported from it. ridge's kernels outside every node's range
(weight set-up) are left out, PyTorch's inside the model's range but no module's get a row of their own; each kernel is timed alone under ncu, so the sums are device time without launch gaps.
Usage: gpu_profile_side_by_side.py RIDGE.csv TORCH.csv [TITLE] > side-by-side.md"""
import collections
import csv
import re
import sys

RANGE = re.compile(r'"(?:<default domain>:)?([^"]*?):none:none:none:none:none:none"')
UNIT_NS = {"ns": 1.0, "nsecond": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}
CLASSES = [("convolution", r"conv|fprop|dgrad|wgrad|winograd|fft|implicit"),
           ("matrix product", r"gemm|cutlass|cublas|xmma|sgemm|hgemm"),
           ("softmax", r"softmax"), ("normalization", r"norm"), ("pooling", r"pool"),
           ("copy / layout", r"copy|transpose|permute|concat|cat_|gather|slice|expand|index"),
           ("elementwise", r"elementwise|unary|binary|add|mul|relu|clamp|gelu|erf|tensor_kernel|where|div")]


def kernels(path):
    """(ID, kernel name, [ranges outer..inner], time ns) per kernel of one export."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = csv.reader(lines[start:])
    header = next(rows)
    col = {h: i for i, h in enumerate(header)}
    nvtx = next((i for i, h in enumerate(header) if h.startswith("thread Domain")), None)
    out = {}
    for r in rows:
        if len(r) != len(header) or r[col["Metric Name"]] != "gpu__time_duration.sum":
            continue
        ranges = RANGE.findall(r[nvtx]) if nvtx is not None else []
        value = float(r[col["Metric Value"]].replace(",", "")) * UNIT_NS.get(r[col["Metric Unit"]], 1.0)
        out[r[col["ID"]]] = (r[col["Kernel Name"]], ranges, value)
    return list(out.values())


def scope(name):
    parts = name.split("/")
    return "/".join(parts[:-1]) if len(parts) > 2 and parts[-1][:1].isupper() else name


def kind(kernel):
    low = kernel.lower()
    return next((label for label, pattern in CLASSES if re.search(pattern, low)), "other")


def collect(path, inside=None):
    by_scope, by_class = collections.defaultdict(lambda: [0.0, 0]), collections.defaultdict(lambda: [0.0, 0])
    total, count = 0.0, 0
    for name, ranges, ns in kernels(path):
        if inside is not None:
            if not any(r.startswith(inside) for r in ranges):
                continue
            # torch.fx's folding flattens the modules' own code into the top module, so a residual add
            # runs inside the model's range but no module's: it is kept, under its own row.
            ranges = [r for r in ranges if not r.startswith(inside)] or ["(in the model, no module)"]
        if not ranges:
            continue
        key = scope(ranges[-1])
        by_scope[key][0] += ns
        by_scope[key][1] += 1
        by_class[kind(name)][0] += ns
        by_class[kind(name)][1] += 1
        total += ns
        count += 1
    return by_scope, by_class, total, count


def ratio(a, b):
    return f"{a / b:.2f}" if b > 0 and a > 0 else "-"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    title = sys.argv[3] if len(sys.argv) > 3 else "ridge against PyTorch"
    ridge = collect(sys.argv[1])
    torch = collect(sys.argv[2], inside=next((r for _, rs, _ in kernels(sys.argv[2]) for r in rs if "_batch" in r), None))
    print(f"### {title}\n")
    print(f"Kernel time under ncu (each kernel alone): ridge {ridge[2] / 1e6:.3f} ms in {ridge[3]} kernels, "
          f"PyTorch {torch[2] / 1e6:.3f} ms in {torch[3]} kernels, ratio {ratio(ridge[2], torch[2])}.\n")
    print("| kernel class | ridge ms | kernels | PyTorch ms | kernels | ratio |\n|---|---|---|---|---|---|")
    for label in sorted(set(ridge[1]) | set(torch[1]), key=lambda k: -(ridge[1][k][0] + torch[1][k][0])):
        a, b = ridge[1][label], torch[1][label]
        print(f"| {label} | {a[0] / 1e6:.3f} | {a[1]} | {b[0] / 1e6:.3f} | {b[1]} | {ratio(a[0], b[0])} |")
    print("\nLayers (scopes) where the two differ most, ridge minus PyTorch:\n")
    print("| scope | ridge us | kernels | PyTorch us | kernels | ratio |\n|---|---|---|---|---|---|")
    scopes = set(ridge[0]) | set(torch[0])
    diff = sorted(scopes, key=lambda s: -abs(ridge[0][s][0] - torch[0][s][0]))
    for s in diff[:30]:
        a, b = ridge[0][s], torch[0][s]
        print(f"| `{s}` | {a[0] / 1e3:.1f} | {a[1]} | {b[0] / 1e3:.1f} | {b[1]} | {ratio(a[0], b[0])} |")
    only_ridge = sum(ridge[0][s][0] for s in scopes if s not in torch[0])
    only_torch = sum(torch[0][s][0] for s in scopes if s not in ridge[0])
    print(f"\nScopes only one side names: ridge {only_ridge / 1e6:.3f} ms, PyTorch {only_torch / 1e6:.3f} ms.")


if __name__ == "__main__":
    main()
