#pragma once
// The modes figure: eager against optimized execution per batch size, as grouped bars of the mean
// latency with the speedup (eager / optimized) labelled over each optimized bar.
#include <string>

#include "report/figure/result_sources.h"

namespace ridge::report::figure {

struct ModesOptions {
  std::string title;
};

// Runs that differ only by mode and batch form the figure (the largest such group; others are named
// in the notes). Data sets: "points" (one bar per batch and mode: mean_ms, min/max, throughput) and
// "speedups" (one per batch measured in both modes: eager_ms, optimized_ms, speedup =
// eager_ms / optimized_ms). Throws ridge::Error when no batch was measured in both modes.
Figure modes_figure(const ResultSet& results, const ModesOptions& options = {});

}  // namespace ridge::report::figure
