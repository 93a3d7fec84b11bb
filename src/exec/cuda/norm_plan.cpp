#include "exec/cuda/norm_plan.h"

#include <fmt/format.h>

#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= dims[d];
  return n;
}

}  // namespace

RowNormPlan row_norm_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t scale_elements) {
  RowNormPlan p;
  p.epsilon = static_cast<float>(node.get_float("epsilon", 1e-5));
  const auto& op = node.op_type;
  if (op == "RMSNormalization" || op == "SimplifiedLayerNormalization") {  // the second: ONNX Runtime's name for it
    auto rank = static_cast<int64_t>(dims.size());
    int64_t axis = node.get_int("axis", -1);
    if (axis < -rank || axis >= rank) throw Error(fmt::format("axis {} is out of range for rank {}", axis, rank));
    if (axis < 0) axis += rank;
    p.rms = true;
    p.rows = product(dims, 0, static_cast<size_t>(axis));
    p.cols = product(dims, static_cast<size_t>(axis), dims.size());
    // A scale over the normalized dims, or one value.
    if (scale_elements != p.cols && scale_elements != 1)
      throw Error(fmt::format("a scale of {} values over rows of {}", scale_elements, p.cols));
    p.inner = scale_elements == 1 ? p.cols : 1;
    return p;
  }
  if (dims.size() < 3) throw Error(fmt::format("an input of rank {}; {} takes (N, C, spatial...)", dims.size(), op));
  const int64_t n = dims[0], channels = dims[1], spatial = product(dims, 2, dims.size());
  if (op == "InstanceNormalization") {
    if (scale_elements != channels)
      throw Error(fmt::format("a scale of {} values for {} channels", scale_elements, channels));
    p.rows = n * channels;
    p.cols = spatial;
    p.groups = channels;
    p.inner = spatial;
    return p;
  }
  if (op != "GroupNormalization") throw Error(op + " is no row normalization");
  const int64_t groups = node.get_int("num_groups", 0);
  if (groups <= 0 || channels % groups != 0) throw Error(fmt::format("{} channels in {} groups", channels, groups));
  p.rows = n * groups;
  p.cols = channels / groups * spatial;
  p.groups = groups;
  if (scale_elements == channels) {  // opset 21: one scale per channel
    p.per_group = channels / groups;
    p.inner = spatial;
  } else if (scale_elements == groups) {  // opset 18: one per group
    p.inner = p.cols;
  } else {
    throw Error(fmt::format("a scale of {} values for {} channels in {} groups", scale_elements, channels, groups));
  }
  return p;
}

}  // namespace ridge::exec::cuda
