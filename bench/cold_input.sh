#!/usr/bin/env bash
# Does an elementwise layer's time depend on what ran before it? (issue 26, section 4; docs/benchmarks.md, "The
# benches' own repeatability, and a layer's input read cold".) The same ReLU of ROWS x N elements after two products
# that write the same [ROWS, N] output: one over K inputs per row (large: its operands stream through the last-level
# cache and evict the start of its own output), one over K_SMALL (its operands fit, so its output is still cached when
# the ReLU reads it). Both models are benched PASSES times, alternating, so the machine's drift falls on both alike,
# and the ReLU's median node time is printed per pass.
#   RIDGE (default build/ridge)  OUT (default build/bench-cold-input)  ROWS (1024)  N (768)  K (3072)  K_SMALL (64)
#   THREADS (2)  PASSES (3)  MAX_TIME seconds per bench (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
ridge=${RIDGE:-build/ridge}
out=${OUT:-build/bench-cold-input}
rows=${ROWS:-1024}
n=${N:-768}
k=${K:-3072}
k_small=${K_SMALL:-64}
threads=${THREADS:-2}
passes=${PASSES:-3}
max_time=${MAX_TIME:-1}
mkdir -p "$out"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical CPUs; ridge $($ridge --version 2>/dev/null | head -1); $threads threads"
/usr/bin/python3 - "$out" "$rows" "$n" "$k" "$k_small" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out, rows, n, k, k_small = sys.argv[1], *map(int, sys.argv[2:6])
for name, depth in (("large", k), ("small", k_small)):
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((depth, n), dtype=np.float32) * 0.05, "W")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, depth])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["h"], name="product"),
                           helper.make_node("Relu", ["h"], ["y"], name="relu")], f"relu-after-{name}", [x], [y], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{out}/relu-after-{name}.onnx")
PY
for pass in $(seq "$passes"); do
  for name in large small; do
    $ridge bench "$out/relu-after-$name.onnx" --threads "$threads" --max-time "$max_time" --no-store -f json \
      > "$out/$name-$pass.json" 2> "$out/$name-$pass.log"  # progress and errors kept beside the result
  done
done
/usr/bin/python3 - "$out" "$passes" "$rows" "$n" "$k" "$k_small" <<'PY'
import json, sys
out, passes, rows, n, k, k_small = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:7])
def node_us(path, name):
    run = json.load(open(path))["runs"][0]
    node = next(x for x in run["nodes"] if x["name"] == name)
    return 1e6 * (node["median_ms"] if node.get("median_ms", -1) >= 0 else node["mean_ms"]) / 1e3
def moved_mb(depth):  # the product's operands and output, fp32
    return 4 * (rows * depth + depth * n + rows * n) / 1e6
print(f"ReLU of {rows} x {n} = {rows * n} elements; median node time per pass (us)")
print(f"| after | product moves MB | " + " | ".join(f"pass {p}" for p in range(1, passes + 1)) + " | product us |")
print("|---|---|" + "---|" * passes + "---|")
for name, depth in (("large", k), ("small", k_small)):
    relu = [node_us(f"{out}/{name}-{p}.json", "relu") for p in range(1, passes + 1)]
    product = node_us(f"{out}/{name}-1.json", "product")
    print(f"| {rows} x {depth} x {n} | {moved_mb(depth):.1f} | " + " | ".join(f"{t:.1f}" for t in relu) +
          f" | {product:.0f} |")
PY
