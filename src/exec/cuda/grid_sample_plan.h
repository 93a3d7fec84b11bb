#pragma once
// The plan of the GPU's GridSample (grid_sample_cell.h), worked out on the host from the dims and the node's
// attributes, and tested there. 4-D inputs only (opset 20's volumetric form is refused by name).
#include <cstdint>
#include <vector>

#include "exec/cuda/grid_sample_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// X of `x_dims` [N, C, H, W] sampled at a grid of `grid_dims` [N, Ho, Wo, 2]; `mode` bilinear/linear, nearest or
// bicubic/cubic (opset 16's names and 20's), `padding_mode` zeros, border or reflection, `align_corners`. Throws
// ridge::Error (one line) for other ranks, dims that disagree, or a mode or padding it does not know.
GridSamplePlan grid_sample_plan(const graph::Node& node, const std::vector<int64_t>& x_dims,
                                const std::vector<int64_t>& grid_dims);

}  // namespace ridge::exec::cuda
