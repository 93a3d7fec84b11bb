#!/usr/bin/env python3
"""Does a product run slower inside a model because its weights come from DRAM, not from the last-level cache where
the layer sample leaves them? (issue 26, section 4: BERT's and ViT's products run ~13% slower in a model than alone.)

For each product x[M,K] @ w[K,N] (the shapes of BERT-base and ViT-B/16 at batch 1), one process times, interleaved
per iteration so the machine's drift falls on all three alike:
  hot       the same w every run (what the layer sample measures: w stays in the 32 MiB L3)
  rotating  a different copy of w each run, from enough copies to exceed 96 MB (what a model sees: weights cold,
            activations hot)
  flushed   the same w after 64 MiB were written (everything cold: weights, activations, packing buffers)
and prints the medians and their ratios to hot. Debian's PyTorch (1.13, MKL/oneDNN), the libraries ridge's CPU
executor links.
Usage: weights_cold.py [THREADS] [REPS]"""
import sys
import time

import torch


def median_ms(samples):
    return sorted(samples)[len(samples) // 2] * 1e3


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    torch.set_num_threads(threads)
    flush = torch.empty(16 * 1024 * 1024)  # 64 MiB of fp32
    print(f"{threads} threads, median of {reps} interleaved runs each; ratio to hot")
    print("| M x K x N | weights MB | hot ms | rotating ms | rotating / hot | flushed ms | flushed / hot |")
    print("|---|---|---|---|---|---|---|")
    for m, k, n in [(128, 768, 768), (128, 768, 3072), (128, 3072, 768), (197, 768, 768), (197, 768, 3072),
                    (197, 3072, 768)]:
        x = torch.randn(m, k)
        w = torch.randn(k, n)
        copies = [torch.randn(k, n) for _ in range(int(96e6 / (k * n * 4)) + 2)]
        for _ in range(5):
            x @ w
        hot, rotating, flushed = [], [], []
        for i in range(reps):
            t = time.perf_counter()
            x @ w
            hot.append(time.perf_counter() - t)
            c = copies[i % len(copies)]
            t = time.perf_counter()
            x @ c
            rotating.append(time.perf_counter() - t)
            flush.fill_(1.0)
            t = time.perf_counter()
            x @ w
            flushed.append(time.perf_counter() - t)
        h, r, f = median_ms(hot), median_ms(rotating), median_ms(flushed)
        print(f"| {m} x {k} x {n} | {k * n * 4 / 1e6:.1f} | {h:.3f} | {r:.3f} | {r / h:.2f} | {f:.3f} | {f / h:.2f} |")


if __name__ == "__main__":
    main()
