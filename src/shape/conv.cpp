// Shape rules of convolutions: Conv, ConvTranspose, ConvInteger, QLinearConv.
#include <fmt/format.h>

#include "graph/shape.h"
#include "shape/registry.h"
#include "shape/spatial.h"

namespace ridge::shape {
namespace {

// x and w input positions differ between Conv (0, 1) and QLinearConv (0, 3).
void conv_like(InferenceContext& ctx, size_t x_index, size_t w_index, graph::DType out_type) {
  auto x = ctx.in_dims(x_index);
  auto w = ctx.in_dims(w_index);
  if (x.size() < 3) ctx.fail(fmt::format("input must have rank >= 3, has {}", x.size()));
  if (w.size() != x.size()) ctx.fail(fmt::format("weight rank {} differs from input rank {}", w.size(), x.size()));
  int64_t group = ctx.node().get_int("group", 1);
  if (group <= 0) ctx.fail("group must be positive");
  if (x[1] != graph::checked_mul(w[1], group, "channels"))
    ctx.fail(fmt::format("input has {} channels, weight expects {} x group {}", x[1], w[1], group));
  if (w[0] % group != 0) ctx.fail(fmt::format("{} output channels are not divisible by group {}", w[0], group));
  std::vector<int64_t> spatial(x.begin() + 2, x.end());
  auto kernel = ctx.node().get_ints("kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  auto window = read_window(ctx, spatial, kernel);
  std::vector<int64_t> out{x[0], w[0]};
  for (auto d : window_output(ctx, spatial, window)) out.push_back(d);
  ctx.set_output(0, out_type, out);
}

void conv(InferenceContext& ctx) {
  ctx.require_inputs(2);
  conv_like(ctx, 0, 1, ctx.in_dtype(0));
}

void conv_integer(InferenceContext& ctx) {
  ctx.require_inputs(2);
  conv_like(ctx, 0, 1, graph::DType::kInt32);
}

void qlinear_conv(InferenceContext& ctx) {
  ctx.require_inputs(8);
  conv_like(ctx, 0, 3, ctx.in_dtype(7));
}

void conv_transpose(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto x = ctx.in_dims(0);
  auto w = ctx.in_dims(1);
  if (x.size() < 3 || w.size() != x.size()) ctx.fail("input and weight must have the same rank >= 3");
  int64_t group = ctx.node().get_int("group", 1);
  if (group <= 0) ctx.fail("group must be positive");
  if (x[1] != w[0]) ctx.fail(fmt::format("input has {} channels, weight expects {}", x[1], w[0]));
  size_t n = x.size() - 2;
  auto kernel = ctx.node().get_ints("kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  auto strides = ctx.node().get_ints("strides", std::vector<int64_t>(n, 1));
  auto dilations = ctx.node().get_ints("dilations", std::vector<int64_t>(n, 1));
  auto output_padding = ctx.node().get_ints("output_padding", std::vector<int64_t>(n, 0));
  auto pads = ctx.node().get_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (kernel.size() != n || strides.size() != n || dilations.size() != n || output_padding.size() != n ||
      pads.size() != 2 * n)
    ctx.fail("window attributes do not match the number of spatial dims");
  for (size_t i = 0; i < n; ++i)
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0 || kernel[i] > (1 << 30) || strides[i] > (1 << 30) ||
        dilations[i] > (1 << 30) || std::abs(output_padding[i]) > (1 << 30) || std::abs(pads[i]) > (1 << 30) ||
        std::abs(pads[i + n]) > (1 << 30) || x[i + 2] > (int64_t{1} << 30))
      ctx.fail("window attributes out of range");
  std::vector<int64_t> out{x[0], graph::checked_mul(w[1], group, "output channels")};
  auto output_shape = ctx.node().get_ints("output_shape");
  if (!output_shape.empty() && output_shape.size() < n) ctx.fail("output_shape has too few entries");
  auto auto_pad = ctx.node().get_string("auto_pad", "NOTSET");
  for (size_t i = 0; i < n; ++i) {
    if (!output_shape.empty()) {
      out.push_back(output_shape[output_shape.size() - n + i]);
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back(x[i + 2] * strides[i]);
    } else {
      int64_t size = strides[i] * (x[i + 2] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1 -
                     (auto_pad == "VALID" ? 0 : pads[i] + pads[i + n]);
      if (size <= 0) ctx.fail("output size would not be positive");
      out.push_back(size);
    }
  }
  ctx.set_output(0, ctx.in_dtype(0), out);
}

}  // namespace

void register_conv_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("conv", {{"Conv", conv}, {"ConvInteger", conv_integer}, {"QLinearConv", qlinear_conv},
                {"ConvTranspose", conv_transpose}});
  // clang-format on
}

}  // namespace ridge::shape
