// The GPU's MaxUnpool without a GPU: the plan (src/exec/cuda/max_unpool_plan.h) and max_unpool_target (where the
// kernel writes each element) against ONNX's two node tests (with and without output_shape), and against the CPU
// executor on a 3-D case whose output_shape adds room after the unpooled block; an index outside it; the refusals.
#include <gtest/gtest.h>

#include "exec/cuda/max_unpool_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

// The kernel's work serially: Y zeroed, each element written where its index says.
std::vector<float> unpooled(const cuda::MaxUnpoolPlan& p, const std::vector<float>& x,
                            const std::vector<int64_t>& indices, int& bad) {
  std::vector<float> y(static_cast<size_t>(p.output_count), 0.f);
  bad = 0;
  for (int64_t i = 0; i < p.elements; ++i) {
    auto at = cuda::max_unpool_target(p, indices[static_cast<size_t>(i)]);
    if (at >= 0)
      y[static_cast<size_t>(at)] = x[static_cast<size_t>(i)];
    else
      ++bad;
  }
  return y;
}

TEST(CudaMaxUnpool, ThePlanAndTargetsReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_maxunpool"})) {
    const auto& g = t.prepared.analysis.model.graph;
    auto y_dims = graph::known_dims(g.value(g.outputs.at(0)).shape);
    auto plan = cuda::max_unpool_plan(t.node(), t.inputs().at(0).dims, y_dims);
    int bad = 0;
    auto got = unpooled(plan, floats(t.inputs()[0]), int64s(t.inputs()[1]), bad);
    EXPECT_EQ(bad, 0) << t.name;
    auto want = t.expected();
    ASSERT_TRUE(want) << t.name;
    ASSERT_EQ(got.size(), want->values.size()) << t.name;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want->values[i]) << t.name << " [" << i << "]";
    ++checked;
  }
  EXPECT_EQ(checked, 2);  // with and without output_shape
}

TEST(CudaMaxUnpool, ALargerOutputShapeKeepsEachIndexsCoordinatesAsTheCpuExecutorDoes) {
  // X [1, 2, 3, 2, 2] unpooled by a 2x2x2 kernel at stride 2: [1, 2, 6, 4, 4]; output_shape [1, 2, 7, 5, 6].
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{2}, int64_t{2}})
      .input("i", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{2}, int64_t{2}}, ::onnx::TensorProto::INT64)
      .int64_constant("shape", {5}, {1, 2, 7, 5, 6})
      .output("y");
  auto& node = b.node("MaxUnpool", {"x", "i", "shape"}, {"y"}, "unpool");
  set_ints(node, "kernel_shape", {2, 2, 2});
  set_ints(node, "strides", {2, 2, 2});
  analysis::Request request;
  request.model_path = b.save("max_unpool");
  auto model = exec::prepare(request, "").analysis.model;
  std::vector<float> x(24);
  std::vector<int64_t> indices(24);
  for (size_t k = 0; k < 24; ++k) {
    x[k] = 0.5f * static_cast<float>(k) - 3.f;
    indices[k] = static_cast<int64_t>((k * 37 + 11) % 192);  // distinct places among the 2 x 6 x 4 x 4 unpooled
  }
  auto it = int64_tensor("i", {1, 2, 3, 2, 2}, indices);
  auto want = floats(exec::load_engine().run(model, {float_tensor("x", {1, 2, 3, 2, 2}, x), it}, {}).outputs.at(0));
  auto plan = cuda::max_unpool_plan(model.graph.nodes.front(), {1, 2, 3, 2, 2}, {1, 2, 7, 5, 6});
  EXPECT_EQ(plan.unpooled_count, 192);
  EXPECT_EQ(plan.output_count, 420);
  int bad = 0;
  auto got = unpooled(plan, x, indices, bad);
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(got, want);
  // An index past the unpooled elements: the CPU executor refuses it, the kernel counts it (and skips its write).
  indices[5] = 192;
  it = int64_tensor("i", {1, 2, 3, 2, 2}, indices);
  EXPECT_EQ(one_line_refusal(
                [&] {
                  exec::load_engine().run(model, {float_tensor("x", {1, 2, 3, 2, 2}, x), it}, {});
                },
                "outside [0, 192)"),
            "");
  unpooled(plan, x, indices, bad);
  EXPECT_EQ(bad, 1);
}

TEST(CudaMaxUnpool, WhatThePlanDoesNotTakeIsRefusedInOneLine) {
  graph::Node node;
  node.op_type = "MaxUnpool";
  graph::Attribute kernel;
  kernel.name = "kernel_shape";
  kernel.kind = graph::Attribute::Kind::kInts;
  kernel.ints = {2, 2};
  node.attributes.push_back(kernel);
  EXPECT_EQ(one_line_refusal(
                [&] {
                  cuda::max_unpool_plan(node, {1, 1, 2, 2, 2, 2}, {1, 1, 4, 4, 4, 4});
                },
                "1 to 3 spatial dims"),
            "");
  EXPECT_EQ(one_line_refusal([&] { cuda::max_unpool_plan(node, {1, 1, 2, 2}, {1, 1, 2, 4}); }, "smaller than"), "");
  EXPECT_EQ(one_line_refusal([&] { cuda::max_unpool_plan(node, {1, 1, 2}, {1, 1, 4}); }, "kernel_shape"), "");
}

}  // namespace
}  // namespace ridge::test
