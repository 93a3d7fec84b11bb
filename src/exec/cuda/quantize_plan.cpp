#include "exec/cuda/quantize_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/error.h"

namespace ridge::exec::cuda {

QuantType quant_type(graph::DType dtype, bool quantizing) {
  if (dtype == graph::DType::kUInt8) return QuantType::kUInt8;
  if (dtype == graph::DType::kInt8) return QuantType::kInt8;
  if (dtype == graph::DType::kInt32 && !quantizing) return QuantType::kInt32;
  throw Error(fmt::format("{} {}: the GPU's linear quantization takes uint8 and int8{}", quantizing ? "to" : "from",
                          graph::dtype_name(dtype), quantizing ? "" : " (and int32 to dequantize)"));
}

QuantizePlan quantize_plan(const graph::Node& node, const std::vector<int64_t>& x_dims,
                           const std::vector<int64_t>& scale_dims,
                           const std::optional<std::vector<int64_t>>& zero_point_dims, QuantType type) {
  if (node.get_int("block_size", 0) != 0)
    throw Error(fmt::format("block_size {}: the GPU quantizes per tensor or per channel, not in blocks",
                            node.get_int("block_size", 0)));
  QuantizePlan p;
  p.type = type;
  p.count = 1;
  for (auto d : x_dims) p.count *= d;
  int64_t scales = 1;
  for (auto d : scale_dims) scales *= d;
  if (zero_point_dims && *zero_point_dims != scale_dims)
    throw Error(fmt::format("a zero point of dims {} beside a scale of dims {}", *zero_point_dims, scale_dims));
  if (scales == 1 && scale_dims.size() <= 1) return p;  // per tensor
  if (scale_dims.size() != 1)
    throw Error(
        fmt::format("a scale of dims {}: per-tensor scales have one element, per-channel ones one dim", scale_dims));
  const auto rank = static_cast<int64_t>(x_dims.size());
  auto axis = node.get_int("axis", 1);
  if (axis < -rank || axis >= rank) throw Error(fmt::format("axis {} of an input of rank {}", axis, rank));
  if (axis < 0) axis += rank;
  if (x_dims[static_cast<size_t>(axis)] != scales)
    throw Error(fmt::format("{} scales along axis {} of size {}", scales, axis, x_dims[static_cast<size_t>(axis)]));
  p.channels = scales;
  for (auto d = static_cast<size_t>(axis) + 1; d < x_dims.size(); ++d) p.inner *= x_dims[d];
  return p;
}

}  // namespace ridge::exec::cuda
