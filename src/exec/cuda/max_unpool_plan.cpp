#include "exec/cuda/max_unpool_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::exec::cuda {

MaxUnpoolPlan max_unpool_plan(const graph::Node& node, const std::vector<int64_t>& x_dims,
                              const std::vector<int64_t>& y_dims) {
  if (x_dims.size() < 3 || x_dims.size() > static_cast<size_t>(MaxUnpoolPlan::kMaxRank))
    throw Error(fmt::format("X of dims {}: the GPU unpools 1 to 3 spatial dims", fmt::join(x_dims, "x")));
  auto unpooled = shape::unpooled_dims(node, x_dims);
  if (y_dims.size() != unpooled.size())
    throw Error(
        fmt::format("an output of dims {} for unpooled dims {}", fmt::join(y_dims, "x"), fmt::join(unpooled, "x")));
  MaxUnpoolPlan p;
  p.rank = static_cast<int>(x_dims.size());
  p.elements = 1, p.unpooled_count = 1, p.output_count = 1;
  for (size_t d = 0; d < x_dims.size(); ++d) {
    if (y_dims[d] < unpooled[d])
      throw Error(fmt::format("output dim {} is {}, smaller than the unpooled {}", d, y_dims[d], unpooled[d]));
    p.unpooled[d] = unpooled[d];
    p.output[d] = y_dims[d];
    p.elements *= x_dims[d];
    p.unpooled_count *= unpooled[d];
    p.output_count *= y_dims[d];
  }
  return p;
}

}  // namespace ridge::exec::cuda
