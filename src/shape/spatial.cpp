#include "shape/spatial.h"

#include <fmt/format.h>

#include <algorithm>

#include "graph/shape.h"
#include "util/error.h"

namespace ridge::shape {

Window resolve_window(const graph::Node& node, const std::vector<int64_t>& spatial_in, std::vector<int64_t> kernel) {
  size_t n = spatial_in.size();
  Window w;
  w.kernel = std::move(kernel);
  if (w.kernel.size() != n)
    throw Error(fmt::format("kernel has {} dims, input has {} spatial dims", w.kernel.size(), n));
  w.strides = node.get_ints("strides", std::vector<int64_t>(n, 1));
  w.dilations = node.get_ints("dilations", std::vector<int64_t>(n, 1));
  auto pads = node.get_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (w.strides.size() != n || w.dilations.size() != n || pads.size() != 2 * n)
    throw Error("strides, dilations or pads do not match the number of spatial dims");
  for (size_t i = 0; i < n; ++i) {
    if (w.strides[i] <= 0 || w.dilations[i] <= 0) throw Error("strides and dilations must be positive");
    if (w.kernel[i] <= 0) throw Error("kernel dims must be positive");
    if (pads[i] < 0 || pads[i + n] < 0) throw Error("negative pads");
    constexpr int64_t kLimit = int64_t{1} << 31;  // absurd window attributes are rejected, not overflowed
    if (w.strides[i] > kLimit || w.dilations[i] > kLimit || w.kernel[i] > kLimit || pads[i] > kLimit ||
        pads[i + n] > kLimit)
      throw Error("window attribute larger than 2^31");
  }
  w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<long>(n));
  w.pads_end.assign(pads.begin() + static_cast<long>(n), pads.end());
  auto auto_pad = node.get_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // Output ceil(in / stride); the odd pad goes at the end for SAME_UPPER, at the start for SAME_LOWER.
    for (size_t i = 0; i < n; ++i) {
      int64_t out = (spatial_in[i] + w.strides[i] - 1) / w.strides[i];
      int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - spatial_in[i]);
      int64_t small = total / 2, large = total - small;
      w.pads_begin[i] = auto_pad == "SAME_UPPER" ? small : large;
      w.pads_end[i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad == "VALID") {
    std::fill(w.pads_begin.begin(), w.pads_begin.end(), 0);
    std::fill(w.pads_end.begin(), w.pads_end.end(), 0);
  } else if (auto_pad != "NOTSET") {
    throw Error("unknown auto_pad '" + auto_pad + "'");
  }
  return w;
}

std::vector<int64_t> window_output_dims(const std::vector<int64_t>& spatial_in, const Window& w, bool ceil_mode) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < spatial_in.size(); ++i) {
    int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t span = graph::checked_add(spatial_in[i], w.pads_begin[i] + w.pads_end[i], "padded size") - extent;
    if (span < 0)
      throw Error(fmt::format("window of extent {} does not fit input size {} (with pads)", extent, spatial_in[i]));
    int64_t size = (ceil_mode ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) + 1;
    // A last window that would start inside the end padding is dropped (as PyTorch and ONNX do).
    if (ceil_mode && (size - 1) * w.strides[i] >= spatial_in[i] + w.pads_begin[i]) --size;
    out.push_back(size);
  }
  return out;
}

Window read_window(const InferenceContext& ctx, const std::vector<int64_t>& spatial_in, std::vector<int64_t> kernel) {
  try {
    return resolve_window(ctx.node(), spatial_in, std::move(kernel));
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

std::vector<int64_t> window_output(const InferenceContext& ctx, const std::vector<int64_t>& spatial_in, const Window& w,
                                   bool ceil_mode) {
  try {
    return window_output_dims(spatial_in, w, ceil_mode);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

std::vector<int64_t> unpooled_dims(const graph::Node& node, const std::vector<int64_t>& x_dims) {
  if (x_dims.size() < 3) throw Error(fmt::format("X must have rank >= 3, has {}", x_dims.size()));
  const auto spatial = x_dims.size() - 2;
  auto kernel = node.get_ints("kernel_shape");
  auto strides = node.get_ints("strides", std::vector<int64_t>(spatial, 1));
  auto pads = node.get_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
    throw Error(fmt::format("kernel_shape, strides and pads must have {0}, {0} and {1} entries for X of rank {2}",
                            spatial, 2 * spatial, x_dims.size()));
  std::vector<int64_t> out{x_dims[0], x_dims[1]};
  for (size_t d = 0; d < spatial; ++d) {
    auto size = (x_dims[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[spatial + d];
    if (size < 1) throw Error(fmt::format("spatial dim {} would unpool to {}", d, size));
    out.push_back(size);
  }
  return out;
}

}  // namespace ridge::shape
