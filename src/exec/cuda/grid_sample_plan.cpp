#include "exec/cuda/grid_sample_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/error.h"

namespace ridge::exec::cuda {

GridSamplePlan grid_sample_plan(const graph::Node& node, const std::vector<int64_t>& x_dims,
                                const std::vector<int64_t>& grid_dims) {
  if (x_dims.size() != 4)
    throw Error(fmt::format("an input of rank {}: the GPU samples 4-D inputs (N, C, H, W)", x_dims.size()));
  if (grid_dims.size() != 4 || grid_dims[0] != x_dims[0] || grid_dims[3] != 2)
    throw Error(
        fmt::format("a grid of dims {} for an input of dims {}: [N, H_out, W_out, 2] expected", grid_dims, x_dims));
  GridSamplePlan p;
  p.batch = x_dims[0], p.channels = x_dims[1], p.height = x_dims[2], p.width = x_dims[3];
  p.out_height = grid_dims[1], p.out_width = grid_dims[2];
  const auto mode = node.get_string("mode", "linear");
  if (mode == "bilinear" || mode == "linear")
    p.mode = GridMode::kLinear;
  else if (mode == "nearest")
    p.mode = GridMode::kNearest;
  else if (mode == "bicubic" || mode == "cubic")
    p.mode = GridMode::kCubic;
  else
    throw Error(fmt::format("mode '{}': GridSample interpolates linear, nearest or cubic", mode));
  const auto padding = node.get_string("padding_mode", "zeros");
  if (padding == "zeros")
    p.padding = GridPadding::kZeros;
  else if (padding == "border")
    p.padding = GridPadding::kBorder;
  else if (padding == "reflection")
    p.padding = GridPadding::kReflection;
  else
    throw Error(fmt::format("padding_mode '{}': GridSample pads zeros, border or reflection", padding));
  p.align_corners = node.get_int("align_corners", 0) != 0;
  return p;
}

}  // namespace ridge::exec::cuda
