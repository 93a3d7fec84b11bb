#!/usr/bin/env python3
"""The peer of `ridge import ncu`: what a roofline notebook does with an ncu details-page CSV, with
Python's csv module (NERSC's scripts use pandas; Debian 12's python3-pandas is not needed here).
Finds the header, pivots metric rows into launches, converts thousands separators, and computes
per launch time, FLOPs per precision (add + mul + 2 fma) and intensity at L1, L2 and DRAM.
Usage: ncu_import_speed.py FILE.csv  (prints the kernel count and the total FLOPs)."""
import csv
import sys


def main(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    launches = {}
    for row in csv.DictReader(lines[start:]):
        if not row.get("Metric Name"):
            continue
        key = (row["ID"], row["Process ID"])
        value = row["Metric Value"].replace(",", "")
        launches.setdefault(key, {"name": row["Kernel Name"]})[row["Metric Name"]] = (
            float(value) if value not in ("", "nan", "n/a") else None)
    total = 0.0
    for m in launches.values():
        flops = 0.0
        for p in "dfh":
            a, mul, fma = (m.get(f"sm__sass_thread_inst_executed_op_{p}{op}_pred_on.sum") for op in ("add", "mul", "fma"))
            if None not in (a, mul, fma):
                flops += a + mul + 2 * fma
        time_s = m.get("gpu__time_duration.sum", 0) * 1e-9
        m["intensity"] = {lvl: flops / m[k] for lvl, k in (("l1", "l1tex__t_bytes.sum"), ("l2", "lts__t_bytes.sum"),
                                                            ("dram", "dram__bytes.sum")) if m.get(k)}
        m["flops_per_s"] = flops / time_s if time_s else None
        total += flops
    print(len(launches), total)


if __name__ == "__main__":
    main(sys.argv[1])
