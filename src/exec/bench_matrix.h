#pragma once
// Measuring several points in one call: each point is run in turn, and a point that fails does not
// lose the ones measured before or after it (they are handed to the caller as they complete).
#include <functional>
#include <string>
#include <vector>

#include "exec/engine.h"

namespace ridge::exec {

struct BenchPoint {
  std::string label;  // "batch 4, optimized auto": names the point in progress and failures
  const graph::Model* model = nullptr;
  const std::vector<HostTensor>* inputs = nullptr;
  BenchOptions options;
};

struct BenchMatrixResult {
  std::vector<BenchResult> runs;      // in the order of the points that succeeded
  std::vector<std::string> failures;  // "LABEL: why", one per failed point
};

// `finish` completes a result (model name, batch, layer costs...) before `on_result` sees it, e.g.
// to append it to CSV files at once; `on_failure` hears of each failure as it happens. An exception
// thrown by `on_result` (a file that cannot be written) stops the matrix: it is the caller's.
BenchMatrixResult run_bench_matrix(Engine& engine, const std::vector<BenchPoint>& points,
                                   const std::function<void(size_t index, BenchResult&)>& finish,
                                   const std::function<void(size_t index, const BenchResult&)>& on_result,
                                   const std::function<void(size_t index, const std::string& why)>& on_failure);

}  // namespace ridge::exec
