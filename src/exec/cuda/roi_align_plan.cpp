#include "exec/cuda/roi_align_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/error.h"

namespace ridge::exec::cuda {

RoiAlignPlan roi_align_plan(const graph::Node& node, int64_t opset, const std::vector<int64_t>& x_dims,
                            const std::vector<int64_t>& rois_dims, const std::vector<int64_t>& batch_dims) {
  if (x_dims.size() != 4) throw Error(fmt::format("X of dims {}: RoiAlign pools [N, C, H, W]", fmt::join(x_dims, "x")));
  if (rois_dims.size() != 2 || rois_dims[1] != 4 || batch_dims.size() != 1 || batch_dims[0] != rois_dims[0])
    throw Error(fmt::format("rois of dims {} and batch_indices of dims {}: [R, 4] and [R] expected",
                            fmt::join(rois_dims, "x"), fmt::join(batch_dims, "x")));
  RoiAlignPlan p;
  p.images = x_dims[0], p.channels = x_dims[1], p.height = x_dims[2], p.width = x_dims[3];
  p.regions = rois_dims[0];
  p.out_height = node.get_int("output_height", 1), p.out_width = node.get_int("output_width", 1);
  p.sampling_ratio = node.get_int("sampling_ratio", 0);
  if (p.out_height < 1 || p.out_width < 1 || p.sampling_ratio < 0)
    throw Error("output_height and output_width must be at least 1, sampling_ratio at least 0");
  p.spatial_scale = static_cast<float>(node.get_float("spatial_scale", 1.0));
  const auto mode = node.get_string("mode", "avg");
  if (mode != "avg" && mode != "max") throw Error(fmt::format("mode '{}': RoiAlign pools avg or max", mode));
  p.average = mode == "avg";
  const auto transform = node.get_string("coordinate_transformation_mode", "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    throw Error(fmt::format("coordinate_transformation_mode '{}': half_pixel or output_half_pixel", transform));
  p.half_pixel = opset >= 16 && transform == "half_pixel";
  return p;
}

}  // namespace ridge::exec::cuda
