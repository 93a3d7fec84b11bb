#!/usr/bin/env bash
# One LSTM or GRU layer on the CPU executor against PyTorch's own (torch.nn.LSTM / nn.GRU, fused) on the same
# machine in the same run (docs/benchmarks.md, "Recurrent layers"): a step's product with the recurrent weight R at
# batch 1, 2 and 8 and 256 or 512 hidden.
#   RIDGE (default build/ridge)  OUT (default build/bench-recurrent)  THREADS (1)  MAX_TIME seconds per point (1)
#   CONFIGS: "OP:STEPS:BATCH:INPUT:HIDDEN ..."
set -euo pipefail
cd "$(dirname "$0")/.."
ridge=${RIDGE:-build/ridge}
out=${OUT:-build/bench-recurrent}
threads=${THREADS:-1}
max_time=${MAX_TIME:-1}
configs=${CONFIGS:-LSTM:64:1:64:256 LSTM:64:2:128:256 LSTM:64:8:128:256 LSTM:16:1:128:512 LSTM:32:8:128:512 GRU:64:2:128:256}
mkdir -p "$out"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical CPUs; ridge $($ridge --version 2>/dev/null | head -1); $threads thread(s)"
printf "%-26s %10s %10s %8s\n" "layer (op:steps:batch:in:hidden)" "ridge ms" "torch ms" ratio
for config in $configs; do
  IFS=: read -r op steps batch input hidden <<< "$config"
  file="$out/$op-$steps-$batch-$input-$hidden.onnx"
  /usr/bin/python3 - "$file" "$op" "$steps" "$batch" "$input" "$hidden" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
path, op = sys.argv[1], sys.argv[2]
steps, batch, inputs, hidden = (int(a) for a in sys.argv[3:])
gates = 4 if op == "LSTM" else 3
rng = np.random.default_rng(0)
weights = [numpy_helper.from_array(0.1 * rng.standard_normal(s, dtype=np.float32), n)
           for n, s in (("W", (1, gates * hidden, inputs)), ("R", (1, gates * hidden, hidden)), ("B", (1, 2 * gates * hidden)))]
node = helper.make_node(op, ["x", "W", "R", "B"], ["y"], hidden_size=hidden)
graph = helper.make_graph([node], "recurrent", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, batch, inputs])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], weights)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
PY
  ridge_ms=$($ridge bench "$file" --threads "$threads" --max-time "$max_time" --no-store -f json 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["latency_ms"]["median"])')
  torch_ms=$(/usr/bin/python3 - "$op" "$steps" "$batch" "$input" "$hidden" "$threads" <<'PY'
import statistics, sys, time
import torch
op = sys.argv[1]
steps, batch, inputs, hidden, threads = (int(a) for a in sys.argv[2:])
torch.set_num_threads(threads)
layer = (torch.nn.LSTM if op == "LSTM" else torch.nn.GRU)(inputs, hidden).eval()
x = torch.randn(steps, batch, inputs)
with torch.no_grad():
    for _ in range(3):
        layer(x)
    times = []
    for _ in range(20):
        t = time.perf_counter()
        layer(x)
        times.append(time.perf_counter() - t)
print(1e3 * statistics.median(times))
PY
)
  /usr/bin/python3 -c "print(f'{\"$config\":26s} {$ridge_ms:10.3f} {$torch_ms:10.3f} {$ridge_ms / $torch_ms:8.2f}')"
done
