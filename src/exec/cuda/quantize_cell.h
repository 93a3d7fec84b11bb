#pragma once
// Linear quantization as the GPU computes it, one element at a time: QuantizeLinear's
// y = saturate(round(x / scale) + zero_point) (round half to even, x / scale in fp32, as ONNX's reference divides in
// the input's fp32), DequantizeLinear's y = (x - zero_point) * scale (the integer difference exact, the product rounded
// once), per tensor or per channel along an axis, and DynamicQuantizeLinear's scale and zero point from a tensor's
// range (ONNX's reference in fp32: the range stretched to include 0, 255 steps, a zero point clipped to [0, 255] and
// rounded). The plan is worked out on the host (quantize_plan.h); the kernels (quantize_kernels.cu) apply these
// functions a thread per element, and the host-side tests apply them to the ONNX project's node tests
// (tests/cuda/test_quantize_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// The integer side of a quantization: what QuantizeLinear writes and DequantizeLinear reads.
enum class QuantType : int { kUInt8, kInt8, kInt32 };

struct QuantizePlan {
  int64_t count = 0;     // elements
  int64_t channels = 1;  // scale (and zero-point) elements: 1 per tensor, else the axis's size
  int64_t inner = 1;     // elements per step along the axis
  QuantType type = QuantType::kUInt8;
};

// The scale and zero point element i reads.
RIDGE_HOST_DEVICE inline int64_t quant_channel(const QuantizePlan& p, int64_t i) {
  return p.channels == 1 ? 0 : (i / p.inner) % p.channels;
}

// The range a quantized value saturates to.
RIDGE_HOST_DEVICE inline void quant_range(QuantType t, float& lo, float& hi) {
  if (t == QuantType::kUInt8) {
    lo = 0.f, hi = 255.f;
  } else if (t == QuantType::kInt8) {
    lo = -128.f, hi = 127.f;
  } else {  // int32's limits as floats: 2^31 saturates to 2^31 - 1 on the conversion below
    lo = -2147483648.f, hi = 2147483647.f;
  }
}

RIDGE_HOST_DEVICE inline int32_t quantize_value(float x, float scale, int32_t zero_point, QuantType t) {
  float lo = 0.f, hi = 0.f;
  quant_range(t, lo, hi);
  const float q = rintf(x / scale) + static_cast<float>(zero_point);  // rint: half to even in the default mode
  if (!(q > lo)) return static_cast<int32_t>(lo);  // NaN saturates low, as numpy's clip-then-cast gives 0 for uint8
  if (q >= hi) return t == QuantType::kInt32 ? 2147483647 : static_cast<int32_t>(hi);
  return static_cast<int32_t>(q);
}

RIDGE_HOST_DEVICE inline float dequantize_value(int32_t q, int32_t zero_point, float scale) {
  const int64_t shifted = static_cast<int64_t>(q) - zero_point;  // exact for every int32 pair
  return static_cast<float>(static_cast<double>(shifted) * static_cast<double>(scale));
}

struct DynamicQuant {
  float scale = 1.f;
  int32_t zero_point = 0;
};

// DynamicQuantizeLinear's scale and zero point (uint8) from the smallest and largest element of its input.
RIDGE_HOST_DEVICE inline DynamicQuant dynamic_quant(float smallest, float largest) {
  const float lo = fminf(0.f, smallest), hi = fmaxf(0.f, largest);
  DynamicQuant d;
  d.scale = (hi == lo ? 1.f : hi - lo) / 255.f;
  const float zero = fminf(fmaxf(0.f - lo / d.scale, 0.f), 255.f);
  d.zero_point = static_cast<int32_t>(rintf(zero));
  return d;
}

}  // namespace ridge::exec::cuda
