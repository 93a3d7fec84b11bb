#pragma once
// The modes figure: eager execution against the faster modes per batch size (optimized on the CPU, a CUDA
// graph's replays on a GPU), as grouped bars of the mean latency with the speedup (eager / that mode)
// labelled over each bar that is not eager.
#include <string>

#include "report/figure/result_sources.h"

namespace ridge::report::figure {

struct ModesOptions {
  std::string title;
};

// Runs that differ only by mode and batch form the figure (the largest such group; others are named
// in the notes). Data sets: "points" (one bar per batch and mode: mean_ms, min/max, throughput) and
// "speedups" (one per batch and faster mode measured with eager too: mode, eager_ms, mode_ms, speedup =
// eager_ms / mode_ms). Throws ridge::Error when no batch was measured in eager and a faster mode.
Figure modes_figure(const ResultSet& results, const ModesOptions& options = {});

}  // namespace ridge::report::figure
