// The GPU's RoiAlign without a GPU: the plan (src/exec/cuda/roi_align_plan.h) and roi_align_at (the per-element
// arithmetic the kernel runs, in fp32) against ONNX's node tests (half_pixel and output_half_pixel), and against the
// CPU executor (an implementation of its own, in double) on regions inside, across and outside the map, tiny and
// inverted ones, in avg and max, with a fixed and an adaptive sampling grid, at opsets 10 and 16; a batch index outside
// X; the refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/cuda/roi_align_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

std::vector<float> pooled(const cuda::RoiAlignPlan& p, const std::vector<float>& x, const std::vector<float>& rois,
                          const std::vector<int64_t>& batch) {
  std::vector<float> y(static_cast<size_t>(p.count()));
  for (int64_t e = 0; e < p.count(); ++e)
    y[static_cast<size_t>(e)] = cuda::roi_align_at(p, x.data(), rois.data(), batch.data(), e);
  return y;
}

TEST(CudaRoiAlign, ThePlanAndArithmeticReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_roialign"})) {
    const auto& in = t.inputs();
    auto plan = cuda::roi_align_plan(t.node(), t.prepared.analysis.model.default_opset(), in.at(0).dims, in.at(1).dims,
                                     in.at(2).dims);
    auto got = pooled(plan, floats(in[0]), floats(in[1]), int64s(in[2]));
    auto want = t.expected();
    ASSERT_TRUE(want) << t.name;
    ASSERT_EQ(got.size(), want->values.size()) << t.name;
    for (size_t i = 0; i < got.size(); ++i)
      // The tests' expected values are written to 4 decimals.
      EXPECT_NEAR(got[i], want->values[i], 1e-4 + 1e-4 * std::fabs(want->values[i])) << t.name << " [" << i << "]";
    ++checked;
  }
  EXPECT_EQ(checked, 2);  // aligned (half_pixel) and not (output_half_pixel)
}

// A RoiAlign model at `opset` (its coordinate_transformation_mode set where given) over X [2, 3, 9, 11].
std::string roi_align_model(int64_t opset, const char* mode, int64_t ratio, const char* transform) {
  ModelBuilder b(opset);
  b.input("x", {int64_t{2}, int64_t{3}, int64_t{9}, int64_t{11}})
      .input("rois", {int64_t{6}, int64_t{4}})
      .input("batch", {int64_t{6}}, ::onnx::TensorProto::INT64)
      .output("y");
  auto& node = b.node("RoiAlign", {"x", "rois", "batch"}, {"y"}, "pool");
  set_int(node, "output_height", 3);
  set_int(node, "output_width", 2);
  set_int(node, "sampling_ratio", ratio);
  set_float(node, "spatial_scale", 0.5f);
  set_string(node, "mode", mode);
  if (transform) set_string(node, "coordinate_transformation_mode", transform);
  return b.save("roi_align");
}

TEST(CudaRoiAlign, EveryModeGridAndShiftComputesWhatTheCpuExecutorDoes) {
  const std::vector<int64_t> x_dims{2, 3, 9, 11};
  std::vector<float> x(2 * 3 * 9 * 11);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) - 0.2f;  // negatives for max
  // Regions at spatial_scale 0.5 (the map is 11 x 9): inside, across the right and bottom edges, wholly outside, a
  // tiny one, an inverted one, one larger than the map.
  const std::vector<float> rois{2, 2, 12,   10,   14, 6,  26, 20, 30, 30, 40, 40,
                                5, 5, 5.5f, 5.2f, 10, 10, 4,  6,  -4, -3, 25, 21};
  const std::vector<int64_t> batch{0, 1, 0, 1, 1, 0};
  int compared = 0;
  struct Opset {
    int64_t opset;
    const char* transform;
  };
  for (auto [opset, transform] : {Opset{10, nullptr}, Opset{16, nullptr}, Opset{16, "output_half_pixel"}})
    for (const char* mode : {"avg", "max"})
      for (int64_t ratio : {0, 2}) {
        SCOPED_TRACE(::testing::Message() << "opset " << opset << " " << (transform ? transform : "(default)") << " "
                                          << mode << " ratio " << ratio);
        analysis::Request request;
        request.model_path = roi_align_model(opset, mode, ratio, transform);
        auto model = exec::prepare(request, "").analysis.model;
        auto want = floats(exec::load_engine()
                               .run(model,
                                    {float_tensor("x", x_dims, x), float_tensor("rois", {6, 4}, rois),
                                     int64_tensor("batch", {6}, batch)},
                                    {})
                               .outputs.at(0));
        auto plan = cuda::roi_align_plan(model.graph.nodes.front(), opset, x_dims, {6, 4}, {6});
        EXPECT_EQ(plan.half_pixel, opset >= 16 && !transform);
        auto got = pooled(plan, x, rois, batch);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << i;
        ++compared;
      }
  EXPECT_EQ(compared, 12);
}

// A batch index outside X: the CPU executor refuses it in one line; the GPU's cell gives NaN for that region, not a
// plausible number, and its kernel counts it for the node to refuse after its first run (index_check.h).
TEST(CudaRoiAlign, ABatchIndexOutsideXIsRefusedOrNaN) {
  analysis::Request request;
  request.model_path = roi_align_model(16, "avg", 2, nullptr);
  auto model = exec::prepare(request, "").analysis.model;
  std::vector<float> x(2 * 3 * 9 * 11, 1.f), rois(6 * 4, 1.f);
  const std::vector<int64_t> batch{0, 1, 2, 0, 0, 0};
  EXPECT_EQ(one_line_refusal(
                [&] {
                  exec::load_engine().run(model,
                                          {float_tensor("x", {2, 3, 9, 11}, x), float_tensor("rois", {6, 4}, rois),
                                           int64_tensor("batch", {6}, batch)},
                                          {});
                },
                "batch_indices[2] is 2, outside the 2 images of X"),
            "");
  auto plan = cuda::roi_align_plan(model.graph.nodes.front(), 16, {2, 3, 9, 11}, {6, 4}, {6});
  auto got = pooled(plan, x, rois, batch);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(std::isnan(got[i]), i / (3 * 3 * 2) == 2) << i;
}

TEST(CudaRoiAlign, WhatThePlanDoesNotTakeIsRefusedInOneLine) {
  graph::Node node;
  node.op_type = "RoiAlign";
  EXPECT_EQ(one_line_refusal([&] { cuda::roi_align_plan(node, 16, {1, 2, 3}, {1, 4}, {1}); }, "[N, C, H, W]"), "");
  EXPECT_EQ(one_line_refusal([&] { cuda::roi_align_plan(node, 16, {1, 2, 3, 4}, {2, 4}, {3}); }, "[R, 4] and [R]"), "");
  graph::Attribute mode;
  mode.name = "mode";
  mode.kind = graph::Attribute::Kind::kString;
  mode.s = "median";
  node.attributes.push_back(mode);
  EXPECT_EQ(one_line_refusal([&] { cuda::roi_align_plan(node, 16, {1, 2, 3, 4}, {2, 4}, {2}); }, "mode 'median'"), "");
}

}  // namespace
}  // namespace ridge::test
