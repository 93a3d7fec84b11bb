#!/usr/bin/env bash
# How fast `ridge import ncu` reads a large Nsight Compute export, against the peer it replaces: a
# Python csv-module script doing the same pivot and roofline arithmetic (bench/ncu_import_speed.py).
# The export: N launches (default 20000) of the 16 metrics `ridge ncu command` asks for, in the
# details-page layout with thousands separators, written by this script (no GPU here).
# Usage: bench/ncu_import_speed.sh [RIDGE] [N]. Prints the median of 5 runs of each and the ratio.
set -euo pipefail
ridge=${1:-build/ridge}
launches=${2:-20000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
csv="$out/big.csv"
python3 - "$csv" "$launches" <<'PY'
import random, sys
path, n = sys.argv[1], int(sys.argv[2])
metrics = [("gpu__time_duration.sum", "nsecond"), ("sm__cycles_elapsed.avg", "cycle"),
           ("sm__cycles_elapsed.avg.per_second", "hz")]
metrics += [(f"sm__sass_thread_inst_executed_op_{p}{op}_pred_on.sum", "inst") for p in "dfh" for op in ("add", "mul", "fma")]
metrics += [("sm__inst_executed_pipe_tensor.sum", "inst"), ("l1tex__t_bytes.sum", "byte"), ("lts__t_bytes.sum", "byte"),
            ("dram__bytes.sum", "byte")]
random.seed(1)
with open(path, "w") as f:
    f.write('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
            '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
    for i in range(n):
        kernel = random.choice(["implicit_convolve_sgemm", "ampere_sgemm_128x64_tn", "elementwise_kernel"])
        for name, unit in metrics:
            f.write(f'"{i}","4242","python3","127.0.0.1","{kernel}","1","7","(256, 1, 1)","(1024, 1, 1)","0","8.0",'
                    f'"Command line profiler metrics","{name}","{unit}","{random.randint(1, 10**9):,}"\n')
PY
source "$(dirname "$0")/timing.sh"
echo "export: $launches launches x 16 metrics, $(du -h "$csv" | cut -f1)"
ridge_ms=$(median_ms "$ridge" import ncu --no-store -f json "$csv")
python_ms=$(median_ms python3 bench/ncu_import_speed.py "$csv")
echo "ridge import ncu -f json: $ridge_ms ms"
echo "python csv-module peer:   $python_ms ms"
echo "ratio (python / ridge):   $(python3 -c "print(f'{$python_ms / $ridge_ms:.2f}')")"
