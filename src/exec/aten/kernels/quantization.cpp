// Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer
// convolution (computed exactly in double, which holds every int32 accumulator of 8-bit values).
#include <fmt/format.h>

#include "exec/aten/kernels/kernel.h"
#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

// Scale / zero point: scalars, or 1-D along `axis` (per-channel), shaped to broadcast.
at::Tensor per_axis(const C& c, const at::Tensor& p, const at::Tensor& x) {
  if (p.dim() == 0 || p.numel() == 1) return p.reshape({});
  int64_t axis = normalize_axis(c.node.get_int("axis", 1), x.dim(), c);
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[static_cast<size_t>(axis)] = p.numel();
  return p.reshape(shape);
}

std::pair<double, double> type_range(at::ScalarType t) {
  switch (t) {
    case at::kByte:
      return {0, 255};
    case at::kChar:
      return {-128, 127};
    case at::kShort:
      return {-32768, 32767};
    case at::kInt:
      return {-2147483648.0, 2147483647.0};
    default:
      return {-INFINITY, INFINITY};
  }
}

void quantize(C& c) {
  const auto& x = c.in(0);
  // In the input's precision, as ONNX's reference computes: x / scale rounds like float32 does.
  auto compute = x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  auto scale = per_axis(c, c.in(1), x).to(compute);
  auto out_type = c.has(2) ? c.in(2).scalar_type() : at::kByte;
  auto zp = c.has(2) ? per_axis(c, c.in(2), x).to(compute) : at::zeros({}, compute);
  auto [lo, hi] = type_range(out_type);
  auto y = at::round(x.to(compute) / scale) + zp;  // round half to even
  c.set(0, y.clamp(lo, hi).to(out_type));
}

void dequantize(C& c) {
  const auto& x = c.in(0);
  auto scale = per_axis(c, c.in(1), x);
  auto zp = c.has(2) ? per_axis(c, c.in(2), x).to(at::kDouble) : at::zeros({}, at::kDouble);
  c.set(0, ((x.to(at::kDouble) - zp) * scale.to(at::kDouble)).to(scale.scalar_type()));
}

// ONNX's reference in fp32: the range stretched to include 0, a scale of (max - min) / 255 (1 / 255 where the range is
// empty), the zero point -min / scale clipped to [0, 255] and rounded half to even.
void dynamic_quantize(C& c) {
  const auto& x = c.in(0).to(at::kFloat);
  float lo = std::min(0.f, x.min().item<float>()), hi = std::max(0.f, x.max().item<float>());
  float scale = (hi == lo ? 1.f : hi - lo) / 255.f;
  float zp = std::nearbyint(std::clamp(0.f - lo / scale, 0.f, 255.f));
  auto y = (at::round(x / scale) + zp).clamp(0, 255).to(at::kByte);
  c.set(0, y);
  c.set(1, at::scalar_tensor(scale, at::kFloat));
  c.set(2, at::scalar_tensor(zp, at::kByte));
}

// The exact integer convolution of zero-point-shifted values (as doubles) with the node's strides, dilations, pads
// (auto_pad included: the window as shape inference resolves it, shape::resolve_window) and groups.
at::Tensor shifted_conv(const C& c, const at::Tensor& x, const at::Tensor& w) {
  size_t rank = static_cast<size_t>(x.dim()) - 2;
  shape::Window window;
  try {
    window = shape::resolve_window(c.node, std::vector<int64_t>(x.sizes().begin() + 2, x.sizes().end()),
                                   std::vector<int64_t>(w.sizes().begin() + 2, w.sizes().end()));
  } catch (const Error& e) {
    c.fail(e.what());
  }
  std::vector<int64_t> p;  // constant_pad_nd takes the last axis first
  for (size_t i = rank; i-- > 0;) p.insert(p.end(), {window.pads_begin[i], window.pads_end[i]});
  return at::convolution(at::constant_pad_nd(x, p, 0), w, {}, window.strides, std::vector<int64_t>(rank, 0),
                         window.dilations, false, std::vector<int64_t>(rank, 0), c.node.get_int("group", 1));
}

// A weight's zero point or scale: one value, or one per output channel ([M]), shaped to broadcast over w [M, C, k...].
at::Tensor per_output_channel(const at::Tensor& p, const at::Tensor& w) {
  if (p.numel() == 1) return p.reshape({});
  std::vector<int64_t> shape(static_cast<size_t>(w.dim()), 1);
  shape[0] = p.numel();
  return p.reshape(shape);
}

void conv_integer(C& c) {
  auto x = c.in(0).to(at::kDouble), w = c.in(1).to(at::kDouble);
  if (c.has(2)) x = x - c.in(2).to(at::kDouble);
  if (c.has(3)) w = w - per_output_channel(c.in(3), c.in(1)).to(at::kDouble);
  c.set(0, shifted_conv(c, x, w).round().to(at::kInt));
}

// Requantizes an int32-exact accumulator: round(acc * in_scale / y_scale) + y_zero_point, saturated.
at::Tensor requantize(const C& c, const at::Tensor& acc, const at::Tensor& in_scale, size_t y_scale, size_t y_zp) {
  auto scale = c.in(y_scale).to(at::kDouble);
  auto type = c.has(y_zp) ? c.in(y_zp).scalar_type() : at::kByte;
  auto zp = c.has(y_zp) ? c.in(y_zp).to(at::kDouble) : at::zeros({}, at::kDouble);
  auto [lo, hi] = type_range(type);
  return (at::round(acc * in_scale / scale) + zp).clamp(lo, hi).to(type);
}

void qlinear_conv(C& c) {
  auto x = c.in(0).to(at::kDouble) - c.in(2).to(at::kDouble);
  const auto& w_raw = c.in(3);
  auto w_scale = per_output_channel(c.in(4), w_raw).to(at::kDouble);
  auto w = w_raw.to(at::kDouble) - per_output_channel(c.in(5), w_raw).to(at::kDouble);
  auto acc = shifted_conv(c, x, w);
  std::vector<int64_t> channel(static_cast<size_t>(acc.dim()), 1);
  channel[1] = -1;
  if (c.has(8)) acc = acc + c.in(8).to(at::kDouble).view(channel);
  auto in_scale = c.in(1).to(at::kDouble) * (w_scale.numel() > 1 ? w_scale.reshape(channel) : w_scale);
  c.set(0, requantize(c, acc, in_scale, 6, 7));
}

void qlinear_matmul(C& c) {
  // a's 1-D scale and zero point are one per row ([M]; ONNX's), which broadcasting would read along K: made [M, 1].
  auto per_row = [&](size_t i) {
    auto p = c.in(i).to(at::kDouble);
    return p.dim() == 1 && c.in(0).dim() >= 2 ? p.reshape({-1, 1}) : p;
  };
  auto a = c.in(0).to(at::kDouble) - per_row(2);
  auto b = c.in(3).to(at::kDouble) - c.in(5).to(at::kDouble);
  auto acc = at::matmul(a, b);
  c.set(0, requantize(c, acc, per_row(1) * c.in(4).to(at::kDouble), 6, 7));
}

}  // namespace

void register_quantization_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("quantization", {
    {"QuantizeLinear", quantize},
    {"DequantizeLinear", dequantize},
    {"DynamicQuantizeLinear", dynamic_quantize},
    {"ConvInteger", conv_integer},
    {"QLinearConv", qlinear_conv},
    {"QLinearMatMul", qlinear_matmul},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
