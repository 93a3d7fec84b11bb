#pragma once
// Window geometry shared by convolution and pooling: kernel, strides, dilations and pads,
// with ONNX's defaults and auto_pad rules, and the output size they give.
#include <cstdint>
#include <string>
#include <vector>

#include "shape/context.h"

namespace ridge::shape {

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
};

// Reads the window attributes of `ctx`'s node for `spatial_in` (the input's spatial dims);
// `kernel` comes from the weight for convolutions or from kernel_shape for pooling.
// auto_pad SAME_* pads are resolved here so costs see the actual padding.
Window read_window(const InferenceContext& ctx, const std::vector<int64_t>& spatial_in, std::vector<int64_t> kernel);

// Output spatial sizes of a convolution/pooling window; ceil_mode for pooling.
std::vector<int64_t> window_output(const InferenceContext& ctx, const std::vector<int64_t>& spatial_in,
                                   const Window& window, bool ceil_mode = false);

}  // namespace ridge::shape
