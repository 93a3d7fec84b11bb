#pragma once
// The plan of the GPU's RoiAlign (roi_align_cell.h), worked out on the host from the dims, the opset and the node's
// attributes, and tested there.
#include <cstdint>
#include <vector>

#include "exec/cuda/roi_align_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// X of `x_dims` [N, C, H, W], rois [R, 4], batch_indices [R]; opset 16's coordinate_transformation_mode (half_pixel by
// default; before opset 16 none: output_half_pixel), mode avg or max. Throws ridge::Error (one line) for other ranks,
// dims that disagree, or a mode it does not know.
RoiAlignPlan roi_align_plan(const graph::Node& node, int64_t opset, const std::vector<int64_t>& x_dims,
                            const std::vector<int64_t>& rois_dims, const std::vector<int64_t>& batch_dims);

}  // namespace ridge::exec::cuda
