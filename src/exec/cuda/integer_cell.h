#pragma once
// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv as the GPU computes them, one output element at a time:
// the exact sum of zero-point-shifted 8-bit products (a padded position adds 0: it holds the zero point), then, for
// the QLinear forms, the bias and the requantization round(acc * (a_scale * b_scale) / y_scale) + y_zero_point in
// double, rounded half to even and saturated, as the CPU executor computes them. cuBLAS's and cuDNN's int8 paths
// take no zero points, no per-row scales and no uint8 mixed with int8, so these are ridge's direct kernels (CUDA
// cores, not int8 tensor cores; docs/gpu.md says so). The plans are worked out on the host (integer_plan.h); the
// kernels (integer_kernels.cu) apply the cells a thread per output element, and the host-side tests apply them to
// ONNX's node tests and against the CPU executor (tests/cuda/test_integer_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

inline constexpr int kIntegerMaxBatch = 4;    // batch dims of a product
inline constexpr int kIntegerMaxSpatial = 3;  // spatial dims of a convolution

// Element i of an 8-bit tensor: int8 where `is_signed`, else uint8.
RIDGE_HOST_DEVICE inline int32_t load8(const void* p, bool is_signed, int64_t i) {
  return is_signed ? static_cast<int32_t>(static_cast<const int8_t*>(p)[i])
                   : static_cast<int32_t>(static_cast<const uint8_t*>(p)[i]);
}

// Where a zero point or a scale is read for an output element: its element strides per output batch dim, along the
// output's rows and along its columns (0 where it does not vary: per tensor is all 0).
struct ParamIndex {
  int64_t batch[kIntegerMaxBatch] = {};
  int64_t row = 0, column = 0;
};

// The tensors a cell reads. Zero points are of their operand's 8-bit type; scales fp32; a missing zero point is 0.
struct IntegerOperands {
  const void* a = nullptr;  // MatMul's A, Conv's x
  const void* b = nullptr;  // MatMul's B, Conv's w
  const void* a_zero = nullptr;
  const void* b_zero = nullptr;
  const float* a_scale = nullptr;  // the QLinear forms
  const float* b_scale = nullptr;
  const float* y_scale = nullptr;
  const void* y_zero = nullptr;
  const int32_t* bias = nullptr;  // QLinearConv's B, per output channel
};

struct IntegerMatMulPlan {
  int batch_rank = 0;
  int64_t batch[kIntegerMaxBatch] = {};                                    // the output's batch dims
  int64_t a_batch[kIntegerMaxBatch] = {}, b_batch[kIntegerMaxBatch] = {};  // matrix strides, 0 where broadcast
  int64_t m = 0, k = 0, n = 0;
  bool a_signed = false, b_signed = false, a_zero_signed = false, b_zero_signed = false, y_signed = false;
  bool quantized = false;  // QLinearMatMul: scales, y's zero point, an 8-bit output
  ParamIndex a_zero, b_zero, a_scale, b_scale;
  RIDGE_HOST_DEVICE int64_t batches() const {
    int64_t c = 1;
    for (int d = 0; d < batch_rank; ++d) c *= batch[d];
    return c;
  }
  RIDGE_HOST_DEVICE int64_t count() const { return batches() * m * n; }
};

struct IntegerConvPlan {
  int spatial = 0;
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  int64_t in[kIntegerMaxSpatial] = {}, out[kIntegerMaxSpatial] = {}, kernel[kIntegerMaxSpatial] = {};
  int64_t stride[kIntegerMaxSpatial] = {}, dilation[kIntegerMaxSpatial] = {};
  int64_t pad[kIntegerMaxSpatial] = {};  // before each spatial dim
  bool x_signed = false, w_signed = false, x_zero_signed = false, w_zero_signed = false, y_signed = false;
  bool quantized = false;  // QLinearConv
  bool w_zero_per_channel = false, w_scale_per_channel = false;
  RIDGE_HOST_DEVICE int64_t out_plane() const {
    int64_t c = 1;
    for (int d = 0; d < spatial; ++d) c *= out[d];
    return c;
  }
  RIDGE_HOST_DEVICE int64_t in_plane() const {
    int64_t c = 1;
    for (int d = 0; d < spatial; ++d) c *= in[d];
    return c;
  }
  RIDGE_HOST_DEVICE int64_t taps() const {
    int64_t c = 1;
    for (int d = 0; d < spatial; ++d) c *= kernel[d];
    return c;
  }
  RIDGE_HOST_DEVICE int64_t count() const { return batch * out_channels * out_plane(); }
};

RIDGE_HOST_DEVICE inline int64_t param_offset(const ParamIndex& p, const int64_t* batch_index, int batch_rank,
                                              int64_t row, int64_t column) {
  int64_t o = row * p.row + column * p.column;
  for (int d = 0; d < batch_rank; ++d) o += batch_index[d] * p.batch[d];
  return o;
}

// round(acc * in_scale / y_scale) + y_zero, half to even (rint in the default rounding mode), saturated to 8 bits.
RIDGE_HOST_DEVICE inline int32_t requantized(double acc, double in_scale, double y_scale, int32_t y_zero,
                                             bool y_signed) {
  const double v = rint(acc * in_scale / y_scale) + y_zero;
  const double lo = y_signed ? -128.0 : 0.0, hi = y_signed ? 127.0 : 255.0;
  return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

// Output element e of a MatMulInteger (the int32 sum) or a QLinearMatMul (the requantized 8-bit value, as int32).
RIDGE_HOST_DEVICE inline int32_t integer_matmul_at(const IntegerMatMulPlan& p, const IntegerOperands& o, int64_t e) {
  const int64_t column = e % p.n, row = (e / p.n) % p.m;
  int64_t rest = e / (p.n * p.m), index[kIntegerMaxBatch] = {}, a_base = 0, b_base = 0;
  for (int d = p.batch_rank - 1; d >= 0; --d) {
    index[d] = rest % p.batch[d];
    rest /= p.batch[d];
    a_base += index[d] * p.a_batch[d];
    b_base += index[d] * p.b_batch[d];
  }
  const int32_t a_zero =
      o.a_zero ? load8(o.a_zero, p.a_zero_signed, param_offset(p.a_zero, index, p.batch_rank, row, column)) : 0;
  const int32_t b_zero =
      o.b_zero ? load8(o.b_zero, p.b_zero_signed, param_offset(p.b_zero, index, p.batch_rank, row, column)) : 0;
  int64_t acc = 0;
  for (int64_t k = 0; k < p.k; ++k)
    acc += static_cast<int64_t>(load8(o.a, p.a_signed, a_base + row * p.k + k) - a_zero) *
           (load8(o.b, p.b_signed, b_base + k * p.n + column) - b_zero);
  if (!p.quantized) return static_cast<int32_t>(acc);
  const double in_scale = static_cast<double>(o.a_scale[param_offset(p.a_scale, index, p.batch_rank, row, column)]) *
                          static_cast<double>(o.b_scale[param_offset(p.b_scale, index, p.batch_rank, row, column)]);
  return requantized(static_cast<double>(acc), in_scale, *o.y_scale, o.y_zero ? load8(o.y_zero, p.y_signed, 0) : 0,
                     p.y_signed);
}

// Output element e of a ConvInteger (the int32 sum) or a QLinearConv (bias added, requantized; as int32).
RIDGE_HOST_DEVICE inline int32_t integer_conv_at(const IntegerConvPlan& p, const IntegerOperands& o, int64_t e) {
  const int64_t plane = p.out_plane();
  int64_t rest = e % plane;
  const int64_t channel = (e / plane) % p.out_channels, image = e / (plane * p.out_channels);
  int64_t at[kIntegerMaxSpatial] = {};
  for (int d = p.spatial - 1; d >= 0; --d) {
    at[d] = rest % p.out[d];
    rest /= p.out[d];
  }
  const int64_t group_in = p.in_channels / p.groups, group_out = p.out_channels / p.groups;
  const int64_t first_in = (channel / group_out) * group_in, taps = p.taps();
  const int32_t x_zero = o.a_zero ? load8(o.a_zero, p.x_zero_signed, 0) : 0;
  const int32_t w_zero = o.b_zero ? load8(o.b_zero, p.w_zero_signed, p.w_zero_per_channel ? channel : 0) : 0;
  int64_t acc = 0;
  for (int64_t c = 0; c < group_in; ++c) {
    const int64_t x_base = (image * p.in_channels + first_in + c) * p.in_plane();
    const int64_t w_base = (channel * group_in + c) * taps;
    for (int64_t t = 0; t < taps; ++t) {
      int64_t k = t, offset = 0, stride = 1;
      bool inside = true;
      for (int d = p.spatial - 1; d >= 0; --d) {
        const int64_t i = at[d] * p.stride[d] - p.pad[d] + (k % p.kernel[d]) * p.dilation[d];
        k /= p.kernel[d];
        inside = inside && i >= 0 && i < p.in[d];
        offset += i * stride;
        stride *= p.in[d];
      }
      if (inside)
        acc += static_cast<int64_t>(load8(o.a, p.x_signed, x_base + offset) - x_zero) *
               (load8(o.b, p.w_signed, w_base + t) - w_zero);
    }
  }
  if (!p.quantized) return static_cast<int32_t>(acc);
  double sum = static_cast<double>(acc);
  if (o.bias) sum += o.bias[channel];
  const double in_scale =
      static_cast<double>(*o.a_scale) * static_cast<double>(o.b_scale[p.w_scale_per_channel ? channel : 0]);
  return requantized(sum, in_scale, *o.y_scale, o.y_zero ? load8(o.y_zero, p.y_signed, 0) : 0, p.y_signed);
}

}  // namespace ridge::exec::cuda
