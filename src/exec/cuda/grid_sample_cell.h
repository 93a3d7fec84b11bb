#pragma once
// ONNX's GridSample over 4-D inputs as the GPU computes it, one output element at a time, with PyTorch's semantics
// (grid_sampler_2d, which ONNX's reference follows): a grid point's normalized (x, y) in [-1, 1] unnormalized to the
// input's pixels (align_corners: -1 and 1 are the corner pixels' centres, else their outer edges), then bilinear (four
// taps), nearest (round half to even) or bicubic (sixteen taps, A = -0.75) interpolation, taps outside the input zero
// (`zeros`) or moved inside by clipping (`border`) or reflection (`reflection`; for bicubic, per tap). The plan is
// worked out on the host (grid_sample_plan.h); the kernel (grid_sample_kernels.cu) applies grid_sample_at a thread per
// output element, and the host-side tests apply it to ONNX's node tests and against the CPU executor
// (tests/cuda/test_grid_sample_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

enum class GridMode : int { kLinear, kNearest, kCubic };
enum class GridPadding : int { kZeros, kBorder, kReflection };

struct GridSamplePlan {
  int64_t batch = 0, channels = 0, height = 0, width = 0;  // X [N, C, H, W]
  int64_t out_height = 0, out_width = 0;                   // grid [N, Ho, Wo, 2], Y [N, C, Ho, Wo]
  GridMode mode = GridMode::kLinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
  RIDGE_HOST_DEVICE int64_t count() const { return batch * channels * out_height * out_width; }
};

RIDGE_HOST_DEVICE inline float grid_unnormalize(float coord, int64_t size, bool align) {
  return align ? (coord + 1.f) / 2.f * static_cast<float>(size - 1)
               : ((coord + 1.f) * static_cast<float>(size) - 1.f) / 2.f;
}

RIDGE_HOST_DEVICE inline float grid_clip(float coord, int64_t size) {
  return fminf(static_cast<float>(size - 1), fmaxf(coord, 0.f));
}

// Reflected into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates).
RIDGE_HOST_DEVICE inline float grid_reflect(float coord, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0.f;
  const float low = static_cast<float>(twice_low) / 2.f, span = static_cast<float>(twice_high - twice_low) / 2.f;
  coord = fabsf(coord - low);
  const float extra = fmodf(coord, span);
  const int64_t flips = static_cast<int64_t>(floorf(coord / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

// A coordinate moved inside by the padding mode (zeros leaves it).
RIDGE_HOST_DEVICE inline float grid_pad(float coord, int64_t size, GridPadding padding, bool align) {
  if (padding == GridPadding::kBorder) return grid_clip(coord, size);
  if (padding == GridPadding::kReflection) {
    coord = align ? grid_reflect(coord, 0, 2 * (size - 1)) : grid_reflect(coord, -1, 2 * size - 1);
    return grid_clip(coord, size);
  }
  return coord;
}

// Pixel (x, y) of one channel's plane, 0 outside it.
RIDGE_HOST_DEVICE inline float grid_pixel(const float* plane, int64_t x, int64_t y, int64_t w, int64_t h) {
  return x >= 0 && x < w && y >= 0 && y < h ? plane[y * w + x] : 0.f;
}

// Bicubic's tap moved by the padding, then read (PyTorch's get_value_bounded).
RIDGE_HOST_DEVICE inline float grid_tap(const float* plane, float x, float y, const GridSamplePlan& p) {
  const float px = grid_pad(x, p.width, p.padding, p.align_corners);
  const float py = grid_pad(y, p.height, p.padding, p.align_corners);
  return grid_pixel(plane, static_cast<int64_t>(px), static_cast<int64_t>(py), p.width, p.height);
}

// The cubic convolution's weights (A = -0.75) for a tap at distance x: within one pixel, and between one and two.
RIDGE_HOST_DEVICE inline float grid_cubic_near(float x) {
  const float a = -0.75f;
  return ((a + 2.f) * x - (a + 3.f)) * x * x + 1.f;
}
RIDGE_HOST_DEVICE inline float grid_cubic_far(float x) {
  const float a = -0.75f;
  return ((a * x - 5.f * a) * x + 8.f * a) * x - 4.f * a;
}

// The four taps' weights for a point t in [0, 1) past the second tap.
RIDGE_HOST_DEVICE inline void grid_cubic_weights(float t, float w[4]) {
  w[0] = grid_cubic_far(t + 1.f);
  w[1] = grid_cubic_near(t);
  w[2] = grid_cubic_near(1.f - t);
  w[3] = grid_cubic_far(2.f - t);
}

// Output element e (row-major over [N, C, Ho, Wo]) from X and the grid (both dense, fp32).
RIDGE_HOST_DEVICE inline float grid_sample_at(const GridSamplePlan& p, const float* x, const float* grid, int64_t e) {
  const int64_t wo = e % p.out_width, ho = (e / p.out_width) % p.out_height;
  const int64_t c = (e / (p.out_width * p.out_height)) % p.channels, n = e / (p.out_width * p.out_height * p.channels);
  const float* g = grid + ((n * p.out_height + ho) * p.out_width + wo) * 2;
  const float* plane = x + (n * p.channels + c) * p.height * p.width;
  float ix = grid_unnormalize(g[0], p.width, p.align_corners);
  float iy = grid_unnormalize(g[1], p.height, p.align_corners);
  if (p.mode == GridMode::kCubic) {
    const float x0 = floorf(ix), y0 = floorf(iy);
    float wx[4], wy[4];
    grid_cubic_weights(ix - x0, wx);
    grid_cubic_weights(iy - y0, wy);
    float sum = 0.f;
    for (int i = 0; i < 4; ++i) {
      float row = 0.f;
      for (int j = 0; j < 4; ++j) row += wx[j] * grid_tap(plane, x0 - 1.f + j, y0 - 1.f + i, p);
      sum += wy[i] * row;
    }
    return sum;
  }
  ix = grid_pad(ix, p.width, p.padding, p.align_corners);
  iy = grid_pad(iy, p.height, p.padding, p.align_corners);
  if (p.mode == GridMode::kNearest)
    return grid_pixel(plane, static_cast<int64_t>(rintf(ix)), static_cast<int64_t>(rintf(iy)), p.width, p.height);
  const float x0 = floorf(ix), y0 = floorf(iy);
  const float tx = ix - x0, ty = iy - y0;
  const auto xi = static_cast<int64_t>(x0), yi = static_cast<int64_t>(y0);
  return grid_pixel(plane, xi, yi, p.width, p.height) * (1.f - tx) * (1.f - ty) +
         grid_pixel(plane, xi + 1, yi, p.width, p.height) * tx * (1.f - ty) +
         grid_pixel(plane, xi, yi + 1, p.width, p.height) * (1.f - tx) * ty +
         grid_pixel(plane, xi + 1, yi + 1, p.width, p.height) * tx * ty;
}

}  // namespace ridge::exec::cuda
