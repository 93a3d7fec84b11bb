#pragma once
// What each convolution algorithm the executor offers costs for one 2-D Conv node: FLOPs and
// workspace bytes (extra memory beyond the input, weights and output). Formulas in
// docs/cost-model.md ("Convolution algorithms"); they count what ridge's implementations do.
#include <string>
#include <vector>

#include "cost/cost.h"
#include "graph/graph.h"

namespace ridge::cost {

struct ConvAlgorithmCost {
  std::string algorithm;  // direct, gemm, fft, winograd
  bool applies = false;   // false: the executor runs this layer with auto instead
  int64_t flops = 0;
  int64_t workspace_bytes = 0;
};

// The four algorithms for a Conv node with known 2-D shapes; empty for other nodes (1-D/3-D
// convolutions, unknown shapes). Bytes use the activation dtype of `options`.
std::vector<ConvAlgorithmCost> conv_algorithm_costs(const graph::Graph& g, const graph::Node& node,
                                                    const CostOptions& options = {});

}  // namespace ridge::cost
