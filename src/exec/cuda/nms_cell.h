#pragma once
// ONNX's NonMaxSuppression as the GPU computes it: per batch item and class, the boxes in descending score order
// (ties: the lower index first, as a stable sort leaves them), those at or below score_threshold dropped, each kept
// unless its IoU with a box kept before it exceeds iou_threshold, at most max_output_boxes_per_class kept. Boxes are
// corners [y1, x1, y2, x2] in either order (center_point_box 0) or [x_center, y_center, width, height] (1). The
// kernels (nms_kernels.cu) sort with CUB and run the greedy pass a block per (batch, class), the block's threads
// comparing the candidate with the kept boxes together; the host-side tests apply these functions serially to ONNX's
// node tests and against the CPU executor (tests/cuda/test_nms_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

struct NmsBox {
  float y1 = 0, x1 = 0, y2 = 0, x2 = 0;
};

struct NmsPlan {
  int64_t batches = 0, boxes = 0, classes = 0;
  int64_t max_output = 0;  // per class; 0 keeps none (ONNX's default)
  float iou_threshold = 0.f, score_threshold = 0.f;
  bool use_score = false;  // the node has a score_threshold
  bool center = false;     // center_point_box
  RIDGE_HOST_DEVICE int64_t segments() const { return batches * classes; }
};

RIDGE_HOST_DEVICE inline NmsBox nms_box(const float* b, bool center) {
  if (center) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
  return {fminf(b[0], b[2]), fminf(b[1], b[3]), fmaxf(b[0], b[2]), fmaxf(b[1], b[3])};
}

RIDGE_HOST_DEVICE inline float nms_iou(const NmsBox& a, const NmsBox& b) {
  const float h = fmaxf(0.f, fminf(a.y2, b.y2) - fmaxf(a.y1, b.y1));
  const float w = fmaxf(0.f, fminf(a.x2, b.x2) - fmaxf(a.x1, b.x1));
  const float inter = h * w;
  const float uni = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
  return uni > 0 ? inter / uni : 0.f;
}

// Whether a candidate of this score is still considered (the pass stops at the first that is not: scores descend).
RIDGE_HOST_DEVICE inline bool nms_candidate(const NmsPlan& p, float score) {
  return !p.use_score || score > p.score_threshold;
}

}  // namespace ridge::exec::cuda
