#pragma once
// Figures drawn from measured and predicted results (bench runs and predictions as their codecs decode them):
// latency / throughput / FLOP/s against batch or input size, per-layer breakdowns, predicted against
// measured, convolution algorithms per layer, eager against optimized.
#include <vector>

#include "report/figure/figure.h"
#include "report/figure/result_sources.h"

namespace ridge::report::figure {

// Every figure these results support, in the report's order; an empty list when they support none.
std::vector<Figure> result_figures(const ResultSet& results);
// The same of JSON files: those that are no bench or predict output are passed over.
std::vector<Figure> result_figures(const std::vector<Json>& documents);

}  // namespace ridge::report::figure
