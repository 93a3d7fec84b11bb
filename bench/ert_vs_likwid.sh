#!/usr/bin/env bash
# ridge ert against likwid-bench (Debian package likwid), side by side in one run: FMA peak as a
# fraction of cores x SIMD lanes x FMA units x 2 x clock, and the bandwidth of each memory level
# for the read, write, copy and triad (likwid: load, store, copy, stream) kernels.
#   bench/ert_vs_likwid.sh   (builds build/; writes bench/out/ert.json and the likwid outputs)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
mkdir -p bench/out
threads=$(nproc)
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $threads cores"
build/ridge ert --format json > bench/out/ert.json
l1=$(getconf LEVEL1_DCACHE_SIZE); l2=$(getconf LEVEL2_CACHE_SIZE); l3=$(getconf LEVEL3_CACHE_SIZE)
# Working sets (all threads together) inside each level, as ridge ert classifies them.
declare -A size=([l1]=$((l1 / 2 * threads)) [l2]=$((l2 / 2 * threads)) [l3]=$((l3 / 2)) [dram]=$((l3 * 8)))
printf "%-6s %-6s %12s %12s %8s\n" level kernel "ridge GB/s" "likwid GB/s" ratio
for level in l1 l2 l3 dram; do
  for pair in read:load_avx write:store_avx copy:copy_avx triad:stream_avx; do
    kernel=${pair%%:*} lk=${pair##*:}
    kb=$(( ${size[$level]} / 1024 ))
    likwid=$(likwid-bench -t "$lk" -w "S0:${kb}kB:${threads}" 2>/dev/null | sed -n 's/^MByte\/s:[[:space:]]*//p')
    ridge=$(python3 -c "import json; d=json.load(open('bench/out/ert.json')); print(d['bandwidth_by_kernel'].get('$level', {}).get('$kernel', 0) / 1e6)")
    python3 -c "r=$ridge; l=${likwid:-0}; print(f'%-6s %-6s %12.1f %12.1f %8s' % ('$level', '$kernel', r / 1e3, l / 1e3, f'{r / l:.2f}' if l else 'n/a'))"
  done
done
python3 - <<'PY'
import json
d = json.load(open("bench/out/ert.json"))
for p in d["peaks"]:
    print(f"FMA {p['threads']} thread(s) at {p['clock_mhz']:.0f} MHz: fp32 {p['fp32']['max']/1e9:.1f} GFLOP/s ({100*p['fraction_fp32']:.1f}% of theoretical), "
          f"fp64 {p['fp64']['max']/1e9:.1f} GFLOP/s ({100*p['fraction_fp64']:.1f}%)")
print(f"GEMM fp32 (ATen, n={d['gemm_n']}): {d['gemm_flops']['fp32']/1e9:.1f} GFLOP/s; ert ran in {d['seconds']:.1f} s")
PY
