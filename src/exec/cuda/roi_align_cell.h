#pragma once
// ONNX's RoiAlign as the GPU computes it, one output element at a time: region r of image batch[r], [x1, y1, x2, y2]
// scaled by spatial_scale (less half a pixel in half_pixel mode, opset 16's default; opset 10 has no shift and makes a
// region at least 1 x 1), cut into out_height x out_width bins; a bin samples a grid of sampling_ratio^2 points (or
// ceil(bin size) per axis with 0) at the centres of its cells, each bilinear between its four pixels (a point beyond a
// pixel outside the map counts 0; within it, clamped to the edge); avg takes the samples' mean, max the largest of
// every sample's four weighted pixels (ONNX's reference and ONNX Runtime). fp32. A batch index outside X gives NaN
// for its region here; the kernel also counts it, and the node refuses it after its first run. The plan is worked out
// on the host (roi_align_plan.h); the kernel (roi_align_kernels.cu) applies roi_align_at a thread per output element,
// and the host-side tests apply it to ONNX's node tests and against the CPU executor
// (tests/cuda/test_roi_align_host.cpp).
// C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

struct RoiAlignPlan {
  int64_t images = 0, channels = 0, height = 0, width = 0;  // X [N, C, H, W]
  int64_t regions = 0, out_height = 1, out_width = 1;       // Y [R, C, out_height, out_width]
  int64_t sampling_ratio = 0;                               // 0: adaptive
  float spatial_scale = 1.f;
  bool average = true, half_pixel = true;
  RIDGE_HOST_DEVICE int64_t count() const { return regions * channels * out_height * out_width; }
};

// Y's element e (in [R, C, out_height, out_width] order).
RIDGE_HOST_DEVICE inline float roi_align_at(const RoiAlignPlan& p, const float* x, const float* rois,
                                            const int64_t* batch, int64_t e) {
  const int64_t pw = e % p.out_width, ph = (e / p.out_width) % p.out_height;
  const int64_t c = (e / (p.out_width * p.out_height)) % p.channels, r = e / (p.out_width * p.out_height * p.channels);
  const int64_t image = batch[r];
  if (image < 0 || image >= p.images) return NAN;
  const float offset = p.half_pixel ? 0.5f : 0.f;
  const float* roi = rois + 4 * r;
  const float start_w = roi[0] * p.spatial_scale - offset, start_h = roi[1] * p.spatial_scale - offset;
  float roi_w = roi[2] * p.spatial_scale - offset - start_w, roi_h = roi[3] * p.spatial_scale - offset - start_h;
  if (!p.half_pixel) roi_w = fmaxf(roi_w, 1.f), roi_h = fmaxf(roi_h, 1.f);
  const float bin_h = roi_h / static_cast<float>(p.out_height), bin_w = roi_w / static_cast<float>(p.out_width);
  const int64_t grid_h = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(ceilf(bin_h));
  const int64_t grid_w = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(ceilf(bin_w));
  const float* plane = x + (image * p.channels + c) * p.height * p.width;
  const float h = static_cast<float>(p.height), w = static_cast<float>(p.width);
  float sum = 0.f, largest = 0.f;
  bool any = false;
  for (int64_t iy = 0; iy < grid_h; ++iy)
    for (int64_t ix = 0; ix < grid_w; ++ix) {
      float py = start_h + static_cast<float>(ph) * bin_h +
                 (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h);
      float px = start_w + static_cast<float>(pw) * bin_w +
                 (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w);
      float v0 = 0.f, v1 = 0.f, v2 = 0.f, v3 = 0.f;
      if (!(py < -1.f || py > h || px < -1.f || px > w)) {
        py = fmaxf(py, 0.f), px = fmaxf(px, 0.f);
        int64_t y0 = static_cast<int64_t>(py), x0 = static_cast<int64_t>(px), y1 = y0 + 1, x1 = x0 + 1;
        if (y0 >= p.height - 1) y0 = y1 = p.height - 1, py = static_cast<float>(y0);
        if (x0 >= p.width - 1) x0 = x1 = p.width - 1, px = static_cast<float>(x0);
        const float ly = py - static_cast<float>(y0), lx = px - static_cast<float>(x0), hy = 1.f - ly, hx = 1.f - lx;
        v0 = hy * hx * plane[y0 * p.width + x0];
        v1 = hy * lx * plane[y0 * p.width + x1];
        v2 = ly * hx * plane[y1 * p.width + x0];
        v3 = ly * lx * plane[y1 * p.width + x1];
      }
      sum += v0 + v1 + v2 + v3;
      const float top = fmaxf(fmaxf(v0, v1), fmaxf(v2, v3));
      largest = any ? fmaxf(largest, top) : top;
      any = true;
    }
  if (!p.average) return largest;
  const int64_t samples = grid_h * grid_w;
  return sum / static_cast<float>(samples > 1 ? samples : 1);
}

}  // namespace ridge::exec::cuda
