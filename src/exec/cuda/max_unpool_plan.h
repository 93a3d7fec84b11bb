#pragma once
// The plan of the GPU's MaxUnpool (max_unpool_cell.h), worked out on the host from the node's attributes and the dims
// (shape::unpooled_dims, the rule shape inference and the CPU executor use), and tested there.
#include <cstdint>
#include <vector>

#include "exec/cuda/max_unpool_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// X of `x_dims` (rank 3 to 5) unpooled into Y of `y_dims` (at least the unpooled dims). Throws ridge::Error (one line)
// for other ranks, or dims that disagree with the node's attributes.
MaxUnpoolPlan max_unpool_plan(const graph::Node& node, const std::vector<int64_t>& x_dims,
                              const std::vector<int64_t>& y_dims);

}  // namespace ridge::exec::cuda
