#!/usr/bin/env bash
# A fully connected layer (MatMul by a constant [K, N] weight) across row counts, on the CPU executor, against
# PyTorch's own product (torch.matmul, MKL) on the same machine in the same run (docs/benchmarks.md, "Fully
# connected layers by row count"). Row counts that are a multiple of a small number times a large prime (ViT-B/16:
# batch x 197 tokens) are the ones oneDNN's blocking used to run at half speed.
#   RIDGE (default build/ridge)  OUT (default build/bench-linear-rows)  ROWS  K (768)  N (3072)  THREADS (2)
#   MAX_TIME seconds per ridge point (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
ridge=${RIDGE:-build/ridge}
out=${OUT:-build/bench-linear-rows}
rows=${ROWS:-65 128 197 394 616 1000 1024 1208 1536 1576 1584 1592 2048 3152}
k=${K:-768}
n=${N:-3072}
threads=${THREADS:-2}
max_time=${MAX_TIME:-1}
mkdir -p "$out"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical CPUs; ridge $($ridge --version 2>/dev/null | head -1); $threads threads; K=$k N=$n"
/usr/bin/python3 - "$out" "$k" "$n" $rows <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out, k, n, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), [int(r) for r in sys.argv[4:]]
for r in rows:
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((k, n), dtype=np.float32), "W")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [r, k])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "linear", [x], [y], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{out}/rows{r}.onnx")
PY

printf "%6s %12s %12s %14s %14s %8s\n" rows "ridge ms" "torch ms" "ridge GFLOP/s" "torch GFLOP/s" ratio
for r in $rows; do
  ridge_ms=$($ridge bench "$out/rows$r.onnx" --threads "$threads" --max-time "$max_time" --no-store -f json 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["latency_ms"]["median"])')
  torch_ms=$(/usr/bin/python3 - "$r" "$k" "$n" "$threads" <<'PY'
import statistics, sys, time
import torch
r, k, n, threads = (int(a) for a in sys.argv[1:])
torch.set_num_threads(threads)
x, w = torch.randn(r, k), torch.randn(k, n)
with torch.no_grad():
    for _ in range(3):
        x @ w
    times = []
    for _ in range(15):
        t = time.perf_counter()
        x @ w
        times.append(time.perf_counter() - t)
print(1e3 * statistics.median(times))
PY
)
  /usr/bin/python3 -c "
r, k, n, a, b = $r, $k, $n, $ridge_ms, $torch_ms
f = 2 * r * k * n
print(f'{r:6d} {a:12.3f} {b:12.3f} {f / a / 1e6:14.0f} {f / b / 1e6:14.0f} {a / b:8.2f}')"
done
