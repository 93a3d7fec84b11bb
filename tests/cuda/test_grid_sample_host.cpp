// The GPU's GridSample without a GPU: the plan (src/exec/cuda/grid_sample_plan.h) and grid_sample_at (the per-element
// arithmetic the kernel runs) against ONNX's node tests (bilinear, nearest, bicubic; zeros, border, reflection;
// align_corners), and against the CPU executor (ATen's grid_sampler) on grids reaching well outside the input in every
// mode, padding and alignment; the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "exec/cuda/grid_sample_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

std::vector<float> sampled(const cuda::GridSamplePlan& p, const std::vector<float>& x, const std::vector<float>& grid) {
  std::vector<float> y(static_cast<size_t>(p.count()));
  for (int64_t e = 0; e < p.count(); ++e) y[static_cast<size_t>(e)] = cuda::grid_sample_at(p, x.data(), grid.data(), e);
  return y;
}

TEST(CudaGridSample, ThePlanAndArithmeticReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_gridsample"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    auto plan = cuda::grid_sample_plan(node, p.inputs.at(0).dims, p.inputs.at(1).dims);
    auto got = sampled(plan, floats(p.inputs[0]), floats(p.inputs[1]));
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    ASSERT_EQ(got.size(), want->values.size()) << name;
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want->values[i], 1e-4 + 1e-4 * std::fabs(want->values[i])) << name << " [" << i << "]";
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

TEST(CudaGridSample, EveryModePaddingAndAlignmentComputesWhatTheCpuExecutorDoes) {
  const std::vector<int64_t> x_dims{2, 3, 5, 7}, grid_dims{2, 4, 6, 2};
  std::vector<float> x(2 * 3 * 5 * 7), grid(2 * 4 * 6 * 2);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.37f * static_cast<float>(i)) + 0.1f * static_cast<float>(i % 5);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = 1.9f * std::sin(0.61f * static_cast<float>(i) + 0.3f);  // to +-1.9
  int compared = 0;
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (int align : {0, 1}) {
        ModelBuilder b(16);
        b.input("x", {x_dims.begin(), x_dims.end()}).input("grid", {grid_dims.begin(), grid_dims.end()}).output("y");
        auto& node = b.node("GridSample", {"x", "grid"}, {"y"}, "sample");
        set_string(node, "mode", mode);
        set_string(node, "padding_mode", padding);
        set_int(node, "align_corners", align);
        analysis::Request request;
        request.model_path = b.save("grid_sample");
        auto model = exec::prepare(request, "").analysis.model;
        auto want = floats(exec::load_engine()
                               .run(model, {float_tensor("x", x_dims, x), float_tensor("grid", grid_dims, grid)}, {})
                               .outputs.at(0));
        auto plan = cuda::grid_sample_plan(model.graph.nodes.front(), x_dims, grid_dims);
        auto got = sampled(plan, x, grid);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i)
          EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i]))
              << mode << " " << padding << " align " << align << " [" << i << "]";
        ++compared;
      }
  EXPECT_EQ(compared, 18);
}

TEST(CudaGridSample, WhatThePlanDoesNotTakeIsRefusedInOneLine) {
  graph::Node node;
  node.op_type = "GridSample";
  EXPECT_EQ(one_line_refusal(
                [&] {
                  cuda::grid_sample_plan(node, {1, 1, 2, 3, 4}, {1, 2, 3, 4, 3});
                },
                "4-D inputs"),
            "");
  EXPECT_EQ(one_line_refusal(
                [&] {
                  cuda::grid_sample_plan(node, {1, 1, 3, 4}, {2, 2, 2, 2});
                },
                "[N, H_out, W_out, 2]"),
            "");
  graph::Attribute mode;
  mode.name = "mode";
  mode.kind = graph::Attribute::Kind::kString;
  mode.s = "lanczos";
  node.attributes.push_back(mode);
  EXPECT_EQ(one_line_refusal([&] { cuda::grid_sample_plan(node, {1, 1, 3, 4}, {1, 2, 2, 2}); }, "mode 'lanczos'"), "");
}

}  // namespace
}  // namespace ridge::test
