// The GPU's LpPool and GlobalLpPool without a GPU: the plan (src/exec/cuda/lp_pool_plan.h, the window by shape
// inference's rule) and lp_pool_at, against the CPU executor (the installed node tests predate LpPool's) over 1 to 3
// spatial dims, p of 1, 2 and 3, strides, explicit and SAME pads, ceil_mode; dilations by hand; the refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/cuda/lp_pool_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

struct PoolCase {
  std::string label;
  std::vector<int64_t> dims;
  bool global = false;
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t p = 2;
  std::string auto_pad;
  bool ceil = false;
  int64_t opset = 18;
};

TEST(CudaLpPool, EveryWindowComputesWhatTheCpuExecutorDoes) {
  const std::vector<PoolCase> cases{
      {"2-D 3x3 stride 2 pads 1", {2, 3, 9, 8}, false, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"2-D asymmetric pads, p 1", {1, 2, 7, 7}, false, {2, 3}, {1, 2}, {0, 1, 1, 0}, {}, 1},
      {"2-D SAME_UPPER", {1, 1, 6, 5}, false, {3, 2}, {2, 2}, {}, {}, 2, "SAME_UPPER"},
      {"2-D ceil_mode", {1, 2, 8, 8}, false, {3, 3}, {2, 2}, {}, {}, 2, "", true},
      {"1-D", {2, 3, 11}, false, {4}, {3}, {1, 2}},
      {"3-D", {1, 2, 5, 6, 4}, false, {2, 3, 2}, {1, 2, 2}, {0, 1, 0, 1, 0, 1}},
      {"opset 11 (no dilations)", {1, 2, 6, 6}, false, {2, 2}, {2, 2}, {}, {}, 2, "", false, 11},
      {"global 2-D", {2, 3, 5, 4}, true},
      {"global 3-D, p 1", {1, 2, 3, 4, 5}, true, {}, {}, {}, {}, 1},
  };
  for (const auto& c : cases) {
    ModelBuilder b(c.opset);
    b.input("x", {c.dims.begin(), c.dims.end()}).output("y");
    auto& node = b.node(c.global ? "GlobalLpPool" : "LpPool", {"x"}, {"y"}, "pool");
    set_int(node, "p", c.p);
    if (!c.global) set_ints(node, "kernel_shape", c.kernel);
    if (!c.strides.empty()) set_ints(node, "strides", c.strides);
    if (!c.pads.empty()) set_ints(node, "pads", c.pads);
    if (!c.dilations.empty()) set_ints(node, "dilations", c.dilations);
    if (!c.auto_pad.empty()) set_string(node, "auto_pad", c.auto_pad);
    if (c.ceil) set_int(node, "ceil_mode", 1);
    analysis::Request request;
    request.model_path = b.save("lp_pool");
    auto model = exec::prepare(request, "").analysis.model;
    int64_t n = 1;
    for (auto d : c.dims) n *= d;
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = std::sin(0.43f * static_cast<float>(i)) * 2.f - 0.3f;
    auto want = exec::load_engine().run(model, {float_tensor("x", c.dims, x)}, {}).outputs.at(0);
    auto plan = cuda::lp_pool_plan(model.graph.nodes.front(), c.dims, c.global);
    ASSERT_EQ(plan.count(), static_cast<int64_t>(floats(want).size())) << c.label;
    std::vector<int64_t> dims{c.dims[0], c.dims[1]};
    for (int d = 0; d < plan.spatial; ++d) dims.push_back(plan.out[d]);
    EXPECT_EQ(dims, want.dims) << c.label;
    auto expected = floats(want);
    for (int64_t e = 0; e < plan.count(); ++e)
      EXPECT_NEAR(cuda::lp_pool_at(plan, x.data(), e), expected[static_cast<size_t>(e)],
                  1e-5 + 1e-5 * std::fabs(expected[static_cast<size_t>(e)]))
          << c.label << " [" << e << "]";
  }
}

// Dilations (opset 18), which the CPU executor refuses: one output element by hand. A 2 x 2 window of dilation 2 at
// output (1, 2) of a 5 x 6 plane reads rows 1 and 3, columns 2 and 4 (stride 1, no pads), p = 3.
TEST(CudaLpPool, ADilatedWindowReadsEveryOtherElement) {
  ModelBuilder b(18);
  b.input("x", {int64_t{1}, int64_t{1}, int64_t{5}, int64_t{6}}).output("y");
  auto& node = b.node("LpPool", {"x"}, {"y"}, "pool");
  set_ints(node, "kernel_shape", {2, 2});
  set_ints(node, "dilations", {2, 2});
  set_int(node, "p", 3);
  analysis::Request request;
  request.model_path = b.save("lp_pool_dilated");
  auto model = exec::prepare(request, "").analysis.model;
  auto plan = cuda::lp_pool_plan(model.graph.nodes.front(), {1, 1, 5, 6}, false);
  EXPECT_EQ(plan.out[0], 3);
  EXPECT_EQ(plan.out[1], 4);
  std::vector<float> x(30);
  for (int i = 0; i < 30; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 7) - 3.f;
  auto at = [&](int r, int c) { return std::fabs(x[static_cast<size_t>(r * 6 + c)]); };
  double sum = std::pow(at(1, 2), 3) + std::pow(at(1, 4), 3) + std::pow(at(3, 2), 3) + std::pow(at(3, 4), 3);
  EXPECT_NEAR(cuda::lp_pool_at(plan, x.data(), 1 * 4 + 2), std::cbrt(sum), 1e-5);
  // The CPU executor refuses what it would compute undilated.
  EXPECT_EQ(one_line_refusal(
                [&] {
                  exec::load_engine().run(model, {float_tensor("x", {1, 1, 5, 6}, x)}, {});
                },
                "dilated Lp pooling is not supported on the CPU"),
            "");
}

TEST(CudaLpPool, WhatThePlanDoesNotTakeIsRefusedInOneLine) {
  graph::Node node;
  node.op_type = "GlobalLpPool";
  EXPECT_EQ(one_line_refusal([&] { cuda::lp_pool_plan(node, {1, 2}, true); }, "1 to 3 spatial dims"), "");
  EXPECT_EQ(one_line_refusal([&] { cuda::lp_pool_plan(node, {1, 1, 2, 2, 2, 2}, true); }, "1 to 3 spatial dims"), "");
}

}  // namespace
}  // namespace ridge::test
