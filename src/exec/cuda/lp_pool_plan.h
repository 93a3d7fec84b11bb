#pragma once
// The plan of the GPU's LpPool and GlobalLpPool (lp_pool_cell.h), worked out on the host: the window resolved by shape
// inference's rule (shape/spatial.h: kernel_shape, strides, dilations, pads, auto_pad, ceil_mode).
#include <cstdint>
#include <vector>

#include "exec/cuda/lp_pool_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// LpPool (`global` false) or GlobalLpPool over an input of `dims` [N, C, spatial...]. Throws ridge::Error (one line)
// for fewer than 1 or more than 3 spatial dims, or a window that does not fit.
LpPoolPlan lp_pool_plan(const graph::Node& node, const std::vector<int64_t>& dims, bool global);

}  // namespace ridge::exec::cuda
