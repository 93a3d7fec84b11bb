// Detection post-processing: NonMaxSuppression, greedy per batch and class, as ONNX defines it
// (boxes as corners or centers, IoU and score thresholds, a cap per class).
#include <algorithm>
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

}  // namespace

void register_detection_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("detection", {{"NonMaxSuppression", nms}});
  // clang-format on
}

}  // namespace ridge::exec::aten
