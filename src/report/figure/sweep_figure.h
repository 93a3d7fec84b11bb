#pragma once
// The sweep figure: latency (mean with min-max or std error bars), throughput or achieved FLOP/s
// against batch or input size, one line per mode / precision / convolution algorithm; measured
// lines solid, predicted ones dashed.
#include <string>

#include "report/figure/result_sources.h"

namespace ridge::report::figure {

struct SweepOptions {
  std::string x = "batch";       // batch or input
  std::string y = "latency";     // latency, throughput or flops
  std::string error = "minmax";  // error bars of measured latency: minmax or std
  std::string title;
};

// Data set "points": one row per drawn point (series, kind measured/predicted, x, y and, for
// measured latency, lo/hi of its error bar). Achieved FLOP/s = FLOPs / latency: a measured run's
// predicted_flops summed, a prediction's node FLOPs (a predict sweep point borrows the FLOPs of a
// measured run at the same batch). Throws ridge::Error when nothing can be drawn.
Figure sweep_figure(const ResultSet& results, const SweepOptions& options = {});

}  // namespace ridge::report::figure
