// Detection ops: NonMaxSuppression, greedy per batch and class, as ONNX defines it (boxes as corners or centers, IoU
// and score thresholds, a cap per class); RoiAlign, as ONNX's reference implementation computes it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

struct Box {
  float y1, x1, y2, x2;
};

Box corners(const float* b, bool center) {
  if (center) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

float iou(const Box& a, const Box& b) {
  float h = std::max(0.0f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  float w = std::max(0.0f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  float inter = h * w;
  float uni = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
  return uni > 0 ? inter / uni : 0;
}

void nms(C& c) {
  auto boxes = c.in(0).to(at::kFloat).contiguous(), scores = c.in(1).to(at::kFloat).contiguous();
  int64_t max_out = c.has(2) && c.in(2).numel() ? c.ints(2).at(0) : 0;
  float iou_threshold = c.has(3) && c.in(3).numel() ? c.in(3).item<float>() : 0.0f;
  bool use_score = c.has(4) && c.in(4).numel();
  float score_threshold = use_score ? c.in(4).item<float>() : 0.0f;
  bool center = c.node.get_int("center_point_box", 0) != 0;
  int64_t batches = boxes.size(0), n = boxes.size(1), classes = scores.size(1);
  std::vector<int64_t> selected;
  const float* bp = boxes.data_ptr<float>();
  const float* sp = scores.data_ptr<float>();
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t k = 0; k < classes; ++k) {
      const float* s = sp + (b * classes + k) * n;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i)
        if (!use_score || s[i] > score_threshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      std::vector<Box> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        Box box = corners(bp + (b * n + i) * 4, center);
        bool suppressed = false;
        for (const auto& other : kept) suppressed = suppressed || iou(box, other) > iou_threshold;
        if (suppressed) continue;
        kept.push_back(box);
        selected.insert(selected.end(), {b, k, i});
      }
    }
  auto out = at::tensor(selected, at::kLong).reshape({-1, 3});
  c.set(0, out);
}

// RoiAlign (opsets 10 and 16): each region [x1, y1, x2, y2] of image batch_indices[r], scaled by spatial_scale (and
// shifted by half a pixel in half_pixel mode, opset 16's default; opset 10 has no shift), is cut into output_height x
// output_width bins; each bin samples a grid of sampling_ratio^2 points (or ceil(bin size) per axis with 0) at the
// centres of its cells, each point bilinear between its four pixels (a point beyond a pixel outside the map counts 0;
// within it, clamped to the edge). avg: the samples' mean; max: the largest of every sample's four weighted pixels, as
// ONNX's reference and ONNX Runtime take it. In double, as the reference computes. Any float type. Written apart from
// the GPU's fp32 cell (exec/cuda/roi_align_cell.h) on purpose: the host-side GPU tests hold each to the other.
void roi_align(C& c) {
  auto x = c.in(0).to(at::kDouble).contiguous(), rois = c.in(1).to(at::kDouble).contiguous();
  auto batch = c.in(2).to(at::kLong).contiguous();
  if (x.dim() != 4 || rois.dim() != 2 || rois.size(1) != 4 || batch.numel() != rois.size(0))
    c.fail("RoiAlign expects X [N, C, H, W], rois [R, 4] and batch_indices [R]");
  const int64_t images = x.size(0), channels = x.size(1), height = x.size(2), width = x.size(3);
  const int64_t regions = rois.size(0);
  const int64_t out_h = c.node.get_int("output_height", 1), out_w = c.node.get_int("output_width", 1);
  const int64_t ratio = c.node.get_int("sampling_ratio", 0);
  const double scale = c.node.get_float("spatial_scale", 1.0);
  const bool average = c.node.get_string("mode", "avg") == "avg";
  const bool half_pixel =
      c.opset >= 16 && c.node.get_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  auto y = at::zeros({regions, channels, out_h, out_w}, x.options());
  const double* xp = x.data_ptr<double>();
  const double* rp = rois.data_ptr<double>();
  const int64_t* bp = batch.data_ptr<int64_t>();
  double* yp = y.data_ptr<double>();
  for (int64_t r = 0; r < regions; ++r) {
    const int64_t image = bp[r];
    if (image < 0 || image >= images)
      c.fail(fmt::format("batch_indices[{}] is {}, outside the {} images of X", r, image, images));
    const double offset = half_pixel ? 0.5 : 0.0;
    const double start_w = rp[4 * r] * scale - offset, start_h = rp[4 * r + 1] * scale - offset;
    double roi_w = rp[4 * r + 2] * scale - offset - start_w, roi_h = rp[4 * r + 3] * scale - offset - start_h;
    if (!half_pixel) roi_w = std::max(roi_w, 1.0), roi_h = std::max(roi_h, 1.0);
    const double bin_h = roi_h / static_cast<double>(out_h), bin_w = roi_w / static_cast<double>(out_w);
    const int64_t grid_h = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(roi_h / static_cast<double>(out_h)));
    const int64_t grid_w = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(roi_w / static_cast<double>(out_w)));
    const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t ch = 0; ch < channels; ++ch) {
      const double* plane = xp + (image * channels + ch) * height * width;
      for (int64_t ph = 0; ph < out_h; ++ph)
        for (int64_t pw = 0; pw < out_w; ++pw) {
          double sum = 0, largest = 0;
          bool any = false;
          for (int64_t iy = 0; iy < grid_h; ++iy)
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              double py = start_h + static_cast<double>(ph) * bin_h +
                          (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
              double px = start_w + static_cast<double>(pw) * bin_w +
                          (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
              double v[4] = {0, 0, 0, 0};
              if (!(py < -1.0 || py > static_cast<double>(height) || px < -1.0 || px > static_cast<double>(width))) {
                py = std::max(py, 0.0), px = std::max(px, 0.0);
                auto y0 = static_cast<int64_t>(py), x0 = static_cast<int64_t>(px), y1 = y0 + 1, x1 = x0 + 1;
                if (y0 >= height - 1) y0 = y1 = height - 1, py = static_cast<double>(y0);
                if (x0 >= width - 1) x0 = x1 = width - 1, px = static_cast<double>(x0);
                const double ly = py - static_cast<double>(y0), lx = px - static_cast<double>(x0);
                const double hy = 1 - ly, hx = 1 - lx;
                v[0] = hy * hx * plane[y0 * width + x0];
                v[1] = hy * lx * plane[y0 * width + x1];
                v[2] = ly * hx * plane[y1 * width + x0];
                v[3] = ly * lx * plane[y1 * width + x1];
              }
              sum += v[0] + v[1] + v[2] + v[3];
              const double top = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
              largest = any ? std::max(largest, top) : top;
              any = true;
            }
          yp[((r * channels + ch) * out_h + ph) * out_w + pw] = average ? sum / count : largest;
        }
    }
  }
  c.set(0, y.to(c.in(0).scalar_type()));
}

}  // namespace

void register_detection_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("detection", {{"NonMaxSuppression", nms}, {"RoiAlign", roi_align}});
  // clang-format on
}

}  // namespace ridge::exec::aten
