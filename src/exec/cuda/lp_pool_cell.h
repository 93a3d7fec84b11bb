#pragma once
// LpPool and GlobalLpPool as the GPU computes them, one output element at a time: y = (sum over the window of
// |x|^p)^(1/p), a padded position adding 0 (ONNX's reference pads with zeros), over 1 to 3 spatial dims with strides,
// dilations and pads resolved by shape inference's one rule (shape/spatial.h). cuDNN has no Lp pooling. The plan is
// worked out on the host (lp_pool_plan.h); the kernel (lp_pool_kernels.cu) applies lp_pool_at a thread per output
// element, and the host-side tests apply it to ONNX's node tests and against the CPU executor
// (tests/cuda/test_lp_pool_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

inline constexpr int kLpPoolMaxSpatial = 3;

struct LpPoolPlan {
  int spatial = 0;     // spatial dims
  int64_t planes = 0;  // N x C
  int64_t in[kLpPoolMaxSpatial] = {}, out[kLpPoolMaxSpatial] = {};
  int64_t kernel[kLpPoolMaxSpatial] = {}, stride[kLpPoolMaxSpatial] = {}, dilation[kLpPoolMaxSpatial] = {};
  int64_t pad[kLpPoolMaxSpatial] = {};  // before each spatial dim
  float p = 2.f;
  RIDGE_HOST_DEVICE int64_t out_plane() const {
    int64_t n = 1;
    for (int d = 0; d < spatial; ++d) n *= out[d];
    return n;
  }
  RIDGE_HOST_DEVICE int64_t in_plane() const {
    int64_t n = 1;
    for (int d = 0; d < spatial; ++d) n *= in[d];
    return n;
  }
  RIDGE_HOST_DEVICE int64_t count() const { return planes * out_plane(); }
};

// |x|^p, exact for p = 1 and 2 (the usual ones).
RIDGE_HOST_DEVICE inline float lp_power(float x, float p) {
  const float a = fabsf(x);
  return p == 2.f ? a * a : (p == 1.f ? a : powf(a, p));
}

RIDGE_HOST_DEVICE inline float lp_pool_at(const LpPoolPlan& p, const float* x, int64_t e) {
  const int64_t plane = e / p.out_plane();
  int64_t rest = e % p.out_plane();
  int64_t o[kLpPoolMaxSpatial] = {};
  for (int d = p.spatial - 1; d >= 0; --d) {
    o[d] = rest % p.out[d];
    rest /= p.out[d];
  }
  const float* base = x + plane * p.in_plane();
  int64_t taps = 1;
  for (int d = 0; d < p.spatial; ++d) taps *= p.kernel[d];
  double sum = 0;
  for (int64_t t = 0; t < taps; ++t) {
    int64_t k = t, offset = 0;
    bool inside = true;
    for (int d = p.spatial - 1; d >= 0; --d) {
      const int64_t i = o[d] * p.stride[d] - p.pad[d] + (k % p.kernel[d]) * p.dilation[d];
      k /= p.kernel[d];
      inside = inside && i >= 0 && i < p.in[d];
      int64_t stride = 1;
      for (int e2 = d + 1; e2 < p.spatial; ++e2) stride *= p.in[e2];
      offset += i * stride;
    }
    if (inside) sum += lp_power(base[offset], p.p);
  }
  const float s = static_cast<float>(sum);
  return p.p == 2.f ? sqrtf(s) : (p.p == 1.f ? s : powf(s, 1.f / p.p));
}

}  // namespace ridge::exec::cuda
