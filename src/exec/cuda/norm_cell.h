#pragma once
// Normalizations over rows (InstanceNormalization, GroupNormalization, RMSNormalization) as the GPU computes them:
// each row of `cols` elements is normalized by its own statistics, then scaled and shifted per channel, the channel
// of (row, col) being (row % groups) x per_group + col / inner. The kernel (norm_kernels.cu) takes a block per row;
// row_norm_serial() does a row on the host with the same arithmetic, which is how the host-side tests check the
// channel mapping against ONNX's node tests and the CPU executor. C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

struct RowNormPlan {
  int64_t rows = 0, cols = 0;
  int64_t groups = 1, per_group = 1, inner = 1;
  bool rms = false;  // x / sqrt(mean(x^2) + epsilon): no mean subtracted
  float epsilon = 1e-5f;
};

RIDGE_HOST_DEVICE inline int64_t row_norm_channel(const RowNormPlan& p, int64_t row, int64_t col) {
  return (row % p.groups) * p.per_group + col / p.inner;
}

// y of one element from its row's mean (0 for RMS) and 1 / sqrt(variance + epsilon) (of the mean square for RMS).
RIDGE_HOST_DEVICE inline float row_norm_value(const RowNormPlan& p, float x, float mean, float inv, const float* scale,
                                              const float* bias, int64_t row, int64_t col) {
  int64_t c = row_norm_channel(p, row, col);
  return (x - mean) * inv * (scale ? scale[c] : 1.f) + (bias ? bias[c] : 0.f);
}

// Row `row` on the host, serially, as the kernel's block does it.
RIDGE_HOST_DEVICE inline void row_norm_serial(const RowNormPlan& p, const float* x, const float* scale,
                                              const float* bias, float* y, int64_t row) {
  const float* in = x + row * p.cols;
  float mean = 0.f, square = 0.f;
  if (!p.rms) {
    for (int64_t c = 0; c < p.cols; ++c) mean += in[c];
    mean /= static_cast<float>(p.cols);
  }
  for (int64_t c = 0; c < p.cols; ++c) square += (in[c] - mean) * (in[c] - mean);
  float inv = 1.f / sqrtf(square / static_cast<float>(p.cols) + p.epsilon);
  for (int64_t c = 0; c < p.cols; ++c) y[row * p.cols + c] = row_norm_value(p, in[c], mean, inv, scale, bias, row, c);
}

}  // namespace ridge::exec::cuda
