// The GPU's NonMaxSuppression without a GPU: nms_cell.h's boxes, IoU and candidate test applied serially, in the order
// the kernels take (a stable sort of each (batch, class)'s scores, descending; the greedy pass against the boxes kept
// so far), against ONNX's nine node tests (corners in either order, centres, identical boxes, the output cap, two
// batches and two classes) and against the CPU executor on a detector's worth of overlapping boxes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "exec/cuda/nms_cell.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

std::vector<int64_t> run_serial(const cuda::NmsPlan& p, const std::vector<float>& boxes,
                                const std::vector<float>& scores) {
  std::vector<int64_t> rows;
  const int64_t cap = std::min(std::max<int64_t>(p.max_output, 0), p.boxes);
  for (int64_t s = 0; s < p.segments(); ++s) {
    const int64_t batch = s / p.classes;
    const float* score = scores.data() + s * p.boxes;
    std::vector<int64_t> order(static_cast<size_t>(p.boxes));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score[a] > score[b]; });
    std::vector<int64_t> kept;
    for (auto j : order) {
      if (static_cast<int64_t>(kept.size()) >= cap || !cuda::nms_candidate(p, score[j])) break;
      auto candidate = cuda::nms_box(boxes.data() + (batch * p.boxes + j) * 4, p.center);
      bool suppressed = false;
      for (auto k : kept)
        suppressed = suppressed || cuda::nms_iou(candidate, cuda::nms_box(boxes.data() + (batch * p.boxes + k) * 4,
                                                                          p.center)) > p.iou_threshold;
      if (suppressed) continue;
      kept.push_back(j);
      rows.insert(rows.end(), {batch, s % p.classes, j});
    }
  }
  return rows;
}

cuda::NmsPlan plan_of(const graph::Node& node, const std::vector<exec::HostTensor>& in) {
  cuda::NmsPlan p;
  p.batches = in.at(0).dims[0], p.boxes = in.at(0).dims[1], p.classes = in.at(1).dims[1];
  auto scalar = [&](size_t i, double fallback) {
    return in.size() > i && !in[i].bytes.empty() ? host_values(in[i]).at(0) : fallback;
  };
  p.max_output = static_cast<int64_t>(scalar(2, 0));
  p.iou_threshold = static_cast<float>(scalar(3, 0));
  p.use_score = in.size() > 4 && !in[4].bytes.empty();
  p.score_threshold = static_cast<float>(scalar(4, 0));
  p.center = node.get_int("center_point_box", 0) != 0;
  return p;
}

TEST(CudaNms, TheGreedyPassReproducesOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_nonmaxsuppression"})) {
    auto plan = plan_of(t.node(), t.inputs());
    auto rows = run_serial(plan, floats(t.inputs()[0]), floats(t.inputs()[1]));
    auto want = t.expected();
    ASSERT_TRUE(want) << t.name;
    EXPECT_EQ(std::vector<double>(rows.begin(), rows.end()), want->values) << t.name;
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

TEST(CudaNms, ADetectorsBoxesComputeWhatTheCpuExecutorDoes) {
  const int64_t batches = 2, n = 300, classes = 3;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < batches * n; ++i) {  // clustered boxes, so many overlap
    float cx = 50.f * std::floor(static_cast<float>(i % 37) / 6.f) + 3.f * std::sin(0.7f * static_cast<float>(i));
    float cy = 40.f * static_cast<float>(i % 5) + 2.f * std::cos(0.3f * static_cast<float>(i));
    float w = 20.f + 5.f * std::sin(0.11f * static_cast<float>(i)),
          h = 18.f + 4.f * std::cos(0.17f * static_cast<float>(i));
    boxes.insert(boxes.end(), {cy + h / 2, cx + w / 2, cy - h / 2, cx - w / 2});  // flipped corners
  }
  for (int64_t i = 0; i < batches * classes * n; ++i)
    scores.push_back(0.5f + 0.5f * std::sin(1.37f * static_cast<float>(i) + 0.2f));
  ModelBuilder b(11);
  b.input("boxes", {batches, n, int64_t{4}}).input("scores", {batches, classes, n}).output("selected");
  b.int64_constant("max_out", {1}, {25});
  b.weight_values("iou", {1}, {0.45f}).weight_values("score", {1}, {0.3f});
  b.node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou", "score"}, {"selected"}, "nms");
  analysis::Request request;
  request.model_path = b.save("nms_detector");
  auto model = exec::prepare(request, "").analysis.model;
  std::vector<exec::HostTensor> inputs{float_tensor("boxes", {batches, n, 4}, boxes),
                                       float_tensor("scores", {batches, classes, n}, scores)};
  auto want = host_values(exec::load_engine().run(model, inputs, {}).outputs.at(0));
  cuda::NmsPlan plan;
  plan.batches = batches, plan.boxes = n, plan.classes = classes;
  plan.max_output = 25, plan.iou_threshold = 0.45f, plan.use_score = true, plan.score_threshold = 0.3f;
  auto rows = run_serial(plan, boxes, scores);
  EXPECT_GT(rows.size(), 3u * 20);  // some segments fill their cap, and suppression happens
  EXPECT_EQ(std::vector<double>(rows.begin(), rows.end()), want);
}

}  // namespace
}  // namespace ridge::test
