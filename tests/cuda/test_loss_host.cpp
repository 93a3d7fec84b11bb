// The GPU's losses without a GPU: the plan (src/exec/cuda/loss_plan.h) and nll_term (loss_cell.h), applied serially
// with the reductions the kernels make, against every NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss node test
// of the ONNX project (weights, ignore_index among the targets, none, sum and mean, up to five spatial dims, the
// log-probabilities output); the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "exec/cuda/loss_plan.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

TEST(CudaLoss, ThePlanAndTermsReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_nllloss_", "test_sce_"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& g = p.analysis.model.graph;
    const auto& node = g.nodes.front();
    const auto& scores = p.inputs.at(0);
    if (scores.dtype != graph::DType::kFloat32) continue;  // the fp64 ones: the GPU's losses are fp32
    std::vector<int64_t> target;
    for (double t : host_values(p.inputs.at(1))) target.push_back(static_cast<int64_t>(t));
    std::vector<float> weight = p.inputs.size() > 2 ? floats(p.inputs[2]) : std::vector<float>{};
    auto plan = cuda::loss_plan(node, scores.dims, p.inputs[1].dims,
                                weight.empty() ? std::vector<int64_t>{} : p.inputs[2].dims);
    auto log_prob = floats(scores);
    if (node.op_type == "SoftmaxCrossEntropyLoss") {  // over the classes, as cuDNN's channel mode
      for (int64_t n = 0; n < plan.batch; ++n)
        for (int64_t d = 0; d < plan.inner; ++d) {
          auto at = [&](int64_t c) -> float& {
            return log_prob[static_cast<size_t>((n * plan.classes + c) * plan.inner + d)];
          };
          double largest = -INFINITY, sum = 0;
          for (int64_t c = 0; c < plan.classes; ++c) largest = std::max(largest, static_cast<double>(at(c)));
          for (int64_t c = 0; c < plan.classes; ++c) sum += std::exp(at(c) - largest);
          for (int64_t c = 0; c < plan.classes; ++c) at(c) = static_cast<float>(at(c) - largest - std::log(sum));
        }
    }
    std::vector<float> terms;
    double sum = 0, weights = 0;
    for (int64_t s = 0; s < plan.samples(); ++s) {
      float w = 0;
      bool bad = false;
      terms.push_back(
          cuda::nll_term(plan, log_prob.data(), target.data(), weight.empty() ? nullptr : weight.data(), s, &w, &bad));
      ASSERT_FALSE(bad) << name << " sample " << s;
      sum += terms.back();
      weights += w;
    }
    auto y =
        plan.reduction == cuda::LossReduction::kNone
            ? float_tensor("y", p.inputs[1].dims, terms)
            : float_tensor("y", {},
                           {static_cast<float>(plan.reduction == cuda::LossReduction::kMean ? sum / weights : sum)});
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    EXPECT_EQ(compare_tensor(y, *want, 1e-5, 1e-6), "") << name;
    if (g.outputs.size() > 1) {  // the log-probabilities
      auto want_log = read_expected((data / "output_1.pb").string());
      ASSERT_TRUE(want_log) << name;
      EXPECT_EQ(compare_tensor(float_tensor("log_prob", scores.dims, log_prob), *want_log, 1e-5, 1e-6), "") << name;
    }
    ++checked[node.op_type];
  }
  EXPECT_EQ(checked["NegativeLogLikelihoodLoss"], 18);
  EXPECT_EQ(checked["SoftmaxCrossEntropyLoss"], 34);
}

TEST(CudaLoss, TargetsOutsideTheClassesAreFlaggedAndDimsChecked) {
  graph::Node node;
  node.op_type = "NegativeLogLikelihoodLoss";
  auto plan = cuda::loss_plan(node, {2, 3}, {2}, {});
  std::vector<float> log_prob{-1, -2, -3, -4, -5, -6};
  std::vector<int64_t> target{1, 3};
  float w = 0;
  bool bad = false;
  EXPECT_FLOAT_EQ(cuda::nll_term(plan, log_prob.data(), target.data(), nullptr, 0, &w, &bad), 2.f);
  EXPECT_FALSE(bad);
  EXPECT_FLOAT_EQ(w, 1.f);
  cuda::nll_term(plan, log_prob.data(), target.data(), nullptr, 1, &w, &bad);
  EXPECT_TRUE(bad);
  EXPECT_EQ(one_line_refusal([&] { cuda::loss_plan(node, {2, 3, 4}, {2, 3}, {}); }, "[2, 4] expected"), "");
  EXPECT_EQ(one_line_refusal(
                [&] {
                  cuda::loss_plan(node, {2, 3}, {2}, {4});
                },
                "a weight of dims [4] for 3 classes"),
            "");
  EXPECT_EQ(one_line_refusal([&] { cuda::loss_plan(node, {3}, {3}, {}); }, "[N, C, d1, ...]"), "");
}

}  // namespace
}  // namespace ridge::test
