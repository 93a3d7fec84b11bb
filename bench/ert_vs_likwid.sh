#!/usr/bin/env bash
# ridge ert against likwid-bench (Debian package likwid), side by side in one run: the FMA peak
# as a fraction of cores x SIMD lanes x FMA units x 2 x clock, and bandwidth at the same working
# sets for the read/write/copy/triad kernels (likwid: load_avx, store_avx, copy_avx, stream_avx;
# DRAM-sized: store_mem_avx, copy_mem_avx, stream_mem_avx, which use non-temporal stores as
# ridge does there). All threads of the machine.
#   bench/ert_vs_likwid.sh   (builds build/; writes bench/out/ert.json and bench/out/ert.csv)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
mkdir -p bench/out
threads=$(nproc)
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $threads cores; $(likwid-bench -h 2>&1 | head -1 || true)"
build/ridge ert --format json --csv bench/out/ert.csv > bench/out/ert.json
# For each level and kernel: every working set ridge ert measured in that level (at all threads)
# is run with likwid-bench too, and the best of each side is compared.
printf "%-6s %-6s %10s %12s %12s %7s\n" level kernel "points" "ridge GB/s" "likwid GB/s" ratio
for level in l1 l2 l3 dram; do
  for pair in read:load_avx write:store_avx copy:copy_avx triad:stream_avx; do
    kernel=${pair%%:*} lk=${pair##*:}
    [ "$level" = dram ] && [ "$kernel" != read ] && lk=${lk/_avx/_mem_avx}
    best_ridge=0 best_likwid=0 points=0
    while IFS=, read -r ws rate; do
      points=$((points + 1))
      mbs=$(likwid-bench -t "$lk" -w "S0:$(( ${ws%.*} * threads / 1024 ))kB:${threads}" 2>/dev/null | sed -n 's/^MByte\/s:[[:space:]]*//p')
      best_ridge=$(python3 -c "print(max($best_ridge, $rate / 1e9))")
      best_likwid=$(python3 -c "print(max($best_likwid, ${mbs:-0} / 1e3))")
    done < <(awk -F, -v k="$kernel" -v t="$threads" -v l="$level" '$1=="bandwidth" && $2==k && $3==t && $5==l {print $4 "," $9}' bench/out/ert.csv)
    python3 -c "r=$best_ridge; l=$best_likwid; print('%-6s %-6s %10d %12.1f %12.1f %7s' % ('$level', '$kernel', $points, r, l, f'{r / l:.2f}' if l else 'n/a'))"
  done
done
python3 - <<'PY'
import json
d = json.load(open("bench/out/ert.json"))
for p in d["peaks"]:
    print(f"FMA {p['threads']} thread(s) at {p['clock_mhz']:.0f} MHz: fp32 {p['fp32']['max']/1e9:.1f} GFLOP/s ({100*p['fraction_fp32']:.1f}% of theoretical), "
          f"fp64 {p['fp64']['max']/1e9:.1f} GFLOP/s ({100*p['fraction_fp64']:.1f}%)")
print(f"GEMM fp32 (ATen, n={d['gemm_n']}): {d['gemm_flops']['fp32']/1e9:.1f} GFLOP/s; ridge ert ran in {d['seconds']:.1f} s")
PY
