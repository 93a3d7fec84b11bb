#pragma once
// Figures drawn from measured and predicted results, given as documents in their JSON form (the
// output of `ridge bench|predict -f json`, or stored results decoded by report/document_codec):
// latency / throughput / FLOP/s against batch or input size, per-layer breakdowns, predicted against
// measured, convolution algorithms per layer, eager against optimized.
#include <vector>

#include "report/figure/figure.h"

namespace ridge::report::figure {

// Every figure these documents support, in the report's order; an empty list when they support none.
std::vector<Figure> result_figures(const std::vector<Json>& documents);

}  // namespace ridge::report::figure
