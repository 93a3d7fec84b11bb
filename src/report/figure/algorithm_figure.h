#pragma once
// The algorithms figure: time per convolution layer x convolution algorithm as a heat map (one bench
// run per --conv-algo value), each layer's fastest algorithm marked, and each cell where the asked
// algorithm could not run (another ran instead: a fallback) framed and hooked.
#include <string>

#include "report/figure/result_sources.h"

namespace ridge::report::figure {

struct AlgorithmOptions {
  std::string title;
};

// Runs that differ only by conv_algo form the map (the largest such group when runs also differ by
// batch, mode, ...; the others are named in the notes). Rows: the layers that ran a convolution
// algorithm (nodes with an `algorithm`), in model order; columns: the runs' conv_algo. Data sets:
// "points" (one per cell: layer, op, conv_algo, algorithm it ran, time_s, relative = time / the
// layer's fastest, fastest, fallback), "fastest" (one per layer) and "fallbacks" (one per cell whose
// run asked for a named algorithm, not auto, heuristic or benchmark, and whose layer ran another; a
// fused epilogue, "direct+relu", is none). Throws ridge::Error with fewer than two algorithms.
Figure algorithm_figure(const ResultSet& results, const AlgorithmOptions& options = {});

}  // namespace ridge::report::figure
