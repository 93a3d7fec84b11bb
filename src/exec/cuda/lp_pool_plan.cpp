#include "exec/cuda/lp_pool_plan.h"

#include <fmt/format.h>

#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::exec::cuda {

LpPoolPlan lp_pool_plan(const graph::Node& node, const std::vector<int64_t>& dims, bool global) {
  if (dims.size() < 3 || dims.size() > 2 + static_cast<size_t>(kLpPoolMaxSpatial))
    throw Error(fmt::format("an input of rank {}: the GPU's Lp pooling takes 1 to {} spatial dims", dims.size(),
                            kLpPoolMaxSpatial));
  std::vector<int64_t> spatial(dims.begin() + 2, dims.end());
  LpPoolPlan p;
  p.spatial = static_cast<int>(spatial.size());
  p.planes = dims[0] * dims[1];
  p.p = static_cast<float>(node.get_int("p", 2));
  std::vector<int64_t> out = spatial;
  shape::Window w;
  if (global) {
    w.kernel = spatial;
    w.strides.assign(spatial.size(), 1);
    w.dilations.assign(spatial.size(), 1);
    w.pads_begin.assign(spatial.size(), 0);
    out.assign(spatial.size(), 1);
  } else {
    w = shape::resolve_window(node, spatial, node.get_ints("kernel_shape"));
    out = shape::window_output_dims(spatial, w, node.get_int("ceil_mode", 0) != 0);
  }
  for (size_t d = 0; d < spatial.size(); ++d) {
    p.in[d] = spatial[d], p.out[d] = out[d];
    p.kernel[d] = w.kernel[d], p.stride[d] = w.strides[d], p.dilation[d] = w.dilations[d];
    p.pad[d] = w.pads_begin[d];
  }
  return p;
}

}  // namespace ridge::exec::cuda
