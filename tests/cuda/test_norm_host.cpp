// The GPU executor's InstanceNormalization, GroupNormalization and RMSNormalization without a GPU: the rows and
// channels a node normalizes (src/exec/cuda/norm_plan.h) and the arithmetic of a row (norm_cell.h, what a block of the
// kernel computes), against the ONNX project's node tests and, where it has none (GroupNormalization in both opsets'
// scale forms, RMSNormalization), the CPU executor.
#include <gtest/gtest.h>

#include <filesystem>

#include "exec/cuda/norm_plan.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;
namespace fs = std::filesystem;

std::vector<float> run_rows(const graph::Node& node, const exec::HostTensor& x, const exec::HostTensor& scale,
                            const exec::HostTensor* bias) {
  auto plan = cuda::row_norm_plan(node, x.dims, static_cast<int64_t>(scale.bytes.size() / 4));
  auto in = floats(x), s = floats(scale), b = bias ? floats(*bias) : std::vector<float>{};
  std::vector<float> y(in.size());
  for (int64_t row = 0; row < plan.rows; ++row)
    cuda::row_norm_serial(plan, in.data(), s.data(), bias ? b.data() : nullptr, y.data(), row);
  return y;
}

TEST(CudaNorm, InstanceNormalizationReproducesOnnxsNodeTests) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    auto name = entry.path().filename().string();
    if (name.rfind("test_instancenorm", 0) != 0) continue;
    analysis::Request request;
    request.model_path = (entry.path() / "model.onnx").string();
    auto data = entry.path() / "test_data_set_0";
    auto p = exec::prepare(request, data.string());
    const auto& node = p.analysis.model.graph.nodes.front();
    auto y = run_rows(node, p.inputs.at(0), p.inputs.at(1), &p.inputs.at(2));
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    EXPECT_EQ(compare_tensor(float_tensor("y", want->dims, y), *want, 1e-4, 1e-5), "") << name;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

struct NormCase {
  std::string op;
  int64_t opset;
  std::vector<int64_t> x, scale;
  int64_t groups = 0, axis = -1;
  bool bias = true;
};

TEST(CudaNorm, GroupAndRmsNormalizationAgreeWithTheCpuExecutor) {
  const std::vector<NormCase> cases{
      {"GroupNormalization", 18, {2, 6, 3, 4}, {3}, 3},        // a scale per group
      {"GroupNormalization", 21, {2, 6, 3, 4}, {6}, 3},        // a scale per channel
      {"GroupNormalization", 21, {1, 8, 5}, {8}, 2},           // 1-D spatial
      {"InstanceNormalization", 17, {2, 3, 4, 5, 2}, {3}},     // 3-D spatial
      {"RMSNormalization", 23, {2, 3, 8}, {8}, 0, -1, false},  // over the last dim
      {"RMSNormalization", 23, {2, 3, 8}, {3, 8}, 0, 1, false},
      {"SimplifiedLayerNormalization", 17, {2, 3, 8}, {8}, 0, -1, false},  // ONNX Runtime's RMSNormalization
  };
  auto& cpu = exec::load_engine();
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    ModelBuilder b(c.opset);
    std::vector<DimSpec> spec(c.x.begin(), c.x.end());
    b.input("x", spec).input("scale", std::vector<DimSpec>(c.scale.begin(), c.scale.end())).output("y");
    std::vector<std::string> inputs{"x", "scale"};
    if (c.bias) {
      b.input("bias", std::vector<DimSpec>(c.scale.begin(), c.scale.end()));
      inputs.push_back("bias");
    }
    auto& node = b.node(c.op, inputs, {"y"}, "norm");
    if (c.groups) set_int(node, "num_groups", c.groups);
    if (c.op == "RMSNormalization" || c.op == "SimplifiedLayerNormalization") set_int(node, "axis", c.axis);
    set_float(node, "epsilon", 1e-3f);
    analysis::Request request;
    request.model_path = b.save("norm");
    auto model = exec::prepare(request, "").analysis.model;
    auto values = [](std::vector<int64_t> dims, float scale, int salt) {
      int64_t n = 1;
      for (auto d : dims) n *= d;
      std::vector<float> v(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = scale * std::sin(static_cast<float>(k * 7 + salt));
      return v;
    };
    std::vector<exec::HostTensor> in{float_tensor("x", c.x, values(c.x, 2.f, 1)),
                                     float_tensor("scale", c.scale, values(c.scale, 1.f, 2))};
    if (c.bias) in.push_back(float_tensor("bias", c.scale, values(c.scale, 0.5f, 3)));
    auto p = exec::prepare_again(model, request, in);
    auto want = floats(cpu.run(p.analysis.model, p.inputs, {}).outputs.at(0));
    auto got = run_rows(p.analysis.model.graph.nodes.front(), in[0], in[1], c.bias ? &in[2] : nullptr);
    ASSERT_EQ(got.size(), want.size()) << "case " << i;
    for (size_t k = 0; k < got.size(); ++k)
      ASSERT_NEAR(got[k], want[k], 1e-4) << "case " << i << " " << c.op << " [" << k << "]";
  }
}

TEST(CudaNorm, ChannelsAndScalesThatDoNotFitAreRefusedInOneLine) {
  graph::Node node;
  node.op_type = "GroupNormalization";
  EXPECT_THROW(cuda::row_norm_plan(node, {1, 6, 4}, 6), Error);  // no num_groups
  node.op_type = "InstanceNormalization";
  EXPECT_THROW(cuda::row_norm_plan(node, {1, 6, 4}, 5), Error);
  EXPECT_THROW(cuda::row_norm_plan(node, {6, 4}, 6), Error);
  node.op_type = "RMSNormalization";
  EXPECT_THROW(cuda::row_norm_plan(node, {2, 8}, 4), Error);
  // Instance normalization of [2, 3, 5]: six rows of five, row r in channel r % 3.
  node.op_type = "InstanceNormalization";
  auto p = cuda::row_norm_plan(node, {2, 3, 5}, 3);
  EXPECT_EQ(p.rows, 6);
  EXPECT_EQ(p.cols, 5);
  EXPECT_EQ(cuda::row_norm_channel(p, 4, 3), 1);
}

}  // namespace
}  // namespace ridge::test
