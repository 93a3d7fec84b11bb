#pragma once
// Which rows, channels and epsilon an InstanceNormalization, GroupNormalization or RMSNormalization node normalizes
// (norm_cell.h), worked out on the host and tested there.
#include <cstdint>
#include <vector>

#include "exec/cuda/norm_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// The plan for `node` over an input of `dims` with a scale of `scale_elements` values. Throws ridge::Error in one line
// where they do not fit together (channels not a multiple of the groups, a scale of another size).
RowNormPlan row_norm_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t scale_elements);

}  // namespace ridge::exec::cuda
