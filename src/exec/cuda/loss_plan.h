#pragma once
// The plan of the GPU's losses (loss_cell.h), worked out on the host from the dims and the node's attributes.
#include <cstdint>
#include <vector>

#include "exec/cuda/loss_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// Scores of `score_dims` [N, C, d1 ... dk] against targets of `target_dims` [N, d1 ... dk], a weight of `weight_dims`
// [C] where there is one (empty: none); `reduction` none, sum or mean (the default), `ignore_index` where given.
// Throws ridge::Error (one line) for dims that disagree or a reduction it does not know.
LossPlan loss_plan(const graph::Node& node, const std::vector<int64_t>& score_dims,
                   const std::vector<int64_t>& target_dims, const std::vector<int64_t>& weight_dims);

}  // namespace ridge::exec::cuda
