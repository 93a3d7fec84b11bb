#pragma once
// Window geometry shared by convolution and pooling: kernel, strides, dilations and pads,
// with ONNX's defaults and auto_pad rules, and the output size they give.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "shape/context.h"

namespace ridge::shape {

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
};

// The window of `node` (a convolution or pooling) over `spatial_in`, the input's spatial dims: strides,
// dilations and pads with ONNX's defaults, auto_pad SAME_UPPER / SAME_LOWER / VALID resolved to explicit
// pads. The one rule shape inference and every executor use; throws ridge::Error on invalid attributes.
Window resolve_window(const graph::Node& node, const std::vector<int64_t>& spatial_in, std::vector<int64_t> kernel);

// Output spatial sizes of `window` over `spatial_in` (ceil_mode for pooling); throws ridge::Error when a
// window does not fit.
std::vector<int64_t> window_output_dims(const std::vector<int64_t>& spatial_in, const Window& window,
                                        bool ceil_mode = false);

// resolve_window for `ctx`'s node, failing through `ctx`; `kernel` comes from the weight for convolutions or
// from kernel_shape for pooling. auto_pad SAME_* pads are resolved here so costs see the actual padding.
Window read_window(const InferenceContext& ctx, const std::vector<int64_t>& spatial_in, std::vector<int64_t> kernel);

// window_output_dims, failing through `ctx`.
std::vector<int64_t> window_output(const InferenceContext& ctx, const std::vector<int64_t>& spatial_in,
                                   const Window& window, bool ceil_mode = false);

// MaxUnpool's unpooled dims for X of `x_dims` [N, C, D...]: each spatial (D - 1) x stride + kernel - both pads, from
// the node's kernel_shape, strides and pads; the space its indices address (an output_shape only adds room after
// it). Throws ridge::Error (one line) where the attributes do not fit X's rank. One rule for shape inference and
// every executor.
std::vector<int64_t> unpooled_dims(const graph::Node& node, const std::vector<int64_t>& x_dims);

}  // namespace ridge::shape
