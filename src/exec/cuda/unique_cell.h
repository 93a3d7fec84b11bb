#pragma once
// ONNX's Unique without an axis as the GPU computes it, a step at a time: the flattened input's keys (its values, -0
// made +0 so that the two zeros, one value, sort as one) sorted stably with each element's position (CUB's radix sort
// of (key, position) pairs), a run starting wherever a key differs from the one before it (a NaN is a value of its
// own), the runs numbered by a scan of the starts; then, per element, its run's value (the input's at the run's first
// position, which is the smallest, the sort being stable), first position and start, and its inverse index; per run,
// its count. Unsorted (`sorted` 0) the runs are then put in the order of their
// first positions. The kernels (select_kernels.cu) apply these functions a thread per element or run; the host-side
// tests apply them serially to ONNX's node tests and against the CPU executor (tests/cuda/test_unique_host.cpp).
// C++17 for nvcc.
#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// The key element v sorts by: -0 as +0 (radix order would put -0 first and split the zeros' positions).
template <class T>
RIDGE_HOST_DEVICE inline T unique_key(T v) {
  return v == T(0) ? T(0) : v;
}

// 1 where element i of the sorted keys starts a run, else 0 (summed by a scan into each element's run number + 1).
template <class T>
RIDGE_HOST_DEVICE inline int64_t unique_starts_run(const T* sorted, int64_t i) {
  return i == 0 || !(sorted[i] == sorted[i - 1]) ? 1 : 0;
}

// Element i of the sorted keys (at `positions[i]` in the input x; `run_end[i]`: the scan of the starts, its run's
// number + 1): a run's first element writes the run's value, first position and start; every element its inverse index.
template <class T>
RIDGE_HOST_DEVICE inline void unique_scatter(int64_t i, const T* x, const int64_t* positions, const int64_t* run_end,
                                             T* values, int64_t* first, int64_t* start, int64_t* inverse) {
  const int64_t run = run_end[i] - 1;
  if (i == 0 || run_end[i] != run_end[i - 1]) {
    values[run] = x[positions[i]];
    first[run] = positions[i];
    start[run] = i;
  }
  inverse[positions[i]] = run;
}

// How many of the n elements run `run` (of `runs`) holds.
RIDGE_HOST_DEVICE inline int64_t unique_count(int64_t run, int64_t runs, int64_t n, const int64_t* start) {
  return (run + 1 < runs ? start[run + 1] : n) - start[run];
}

// Unsorted output j is run `order[j]` (the runs sorted by their first positions): its value and count, and the run's
// rank j, which maps the inverse indices.
template <class T>
RIDGE_HOST_DEVICE inline void unique_reorder(int64_t j, const int64_t* order, const T* values, const int64_t* counts,
                                             T* out_values, int64_t* out_counts, int64_t* rank) {
  const int64_t run = order[j];
  out_values[j] = values[run];
  out_counts[j] = counts[run];
  rank[run] = j;
}

}  // namespace ridge::exec::cuda
