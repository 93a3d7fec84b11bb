// The GPU's generators without a GPU (src/exec/cuda/generator_cell.h): the windows against ONNX's node tests and the
// CPU executor's; the counter-based draws against splitmix64's published first output and against the statistics of
// their distributions over a million draws. What only a GPU checks: that runs and replays draw anew
// (tests/gpu/test_cuda_gpu.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "exec/cuda/generator_cell.h"
#include "exec/cuda/index_cell.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/node_tests.h"
#include "support/paths.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

TEST(CudaGenerators, WindowsReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  const std::map<std::string, cuda::Window> kinds{{"HannWindow", cuda::Window::kHann},
                                                  {"HammingWindow", cuda::Window::kHamming},
                                                  {"BlackmanWindow", cuda::Window::kBlackman}};
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_hannwindow", "test_hammingwindow", "test_blackmanwindow"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& node = p.analysis.model.graph.nodes.front();
    if (!kinds.count(node.op_type)) continue;  // an STFT with a window input
    auto size = static_cast<int64_t>(host_values(p.inputs.at(0)).at(0));
    bool periodic = node.get_int("periodic", 1) != 0;
    // onnx 1.12's expected values were computed with pi = 3.1415 (later releases use np.pi): they hold to 1e-4;
    // the CPU executor (ATen's windows) is the exact reference.
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    ASSERT_EQ(static_cast<int64_t>(want->values.size()), size) << name;
    auto exact = host_values(exec::load_engine().run(p.analysis.model, p.inputs, {}).outputs.at(0));
    for (int64_t n = 0; n < size; ++n) {
      auto got = cuda::window_value(kinds.at(node.op_type), n, size, periodic);
      EXPECT_NEAR(got, want->values[static_cast<size_t>(n)], 1e-4) << name << " [" << n << "]";
      EXPECT_NEAR(got, exact.at(static_cast<size_t>(n)), 1e-6) << name << " [" << n << "]";
    }
    ++checked[node.op_type];
  }
  EXPECT_EQ(checked["HannWindow"], 2);  // periodic and symmetric
  EXPECT_EQ(checked["HammingWindow"], 2);
  EXPECT_EQ(checked["BlackmanWindow"], 2);
}

TEST(CudaGenerators, DrawsFollowTheirDistributions) {
  // splitmix64's first output from state 0 is 0xE220A8397B1DCDAF: its top 24 bits are the draw.
  EXPECT_EQ(cuda::counter_uniform(0, 1), static_cast<float>(0xE220A8) / 16777216.f);
  constexpr int64_t kDraws = 1000000;
  double sum = 0, squares = 0, normal_sum = 0, normal_squares = 0;
  int64_t within_one = 0, below = 0, same = 0;
  for (int64_t i = 0; i < kDraws; ++i) {
    float u = cuda::counter_uniform(42, i);
    ASSERT_GE(u, 0.f);
    ASSERT_LT(u, 1.f);
    sum += u;
    squares += static_cast<double>(u) * u;
    below += u < 0.3f;  // Bernoulli(0.3)
    same += u == cuda::counter_uniform(43, i);
    float z = cuda::counter_normal(42, i);
    ASSERT_TRUE(std::isfinite(z)) << i;
    normal_sum += z;
    normal_squares += static_cast<double>(z) * z;
    within_one += std::fabs(z) < 1.f;
  }
  const double n = kDraws;
  EXPECT_NEAR(sum / n, 0.5, 0.002);
  EXPECT_NEAR(squares / n - (sum / n) * (sum / n), 1.0 / 12.0, 0.001);
  EXPECT_NEAR(below / n, 0.3, 0.002);
  EXPECT_LT(same, 10);  // another seed draws another stream
  EXPECT_NEAR(normal_sum / n, 0.0, 0.005);
  EXPECT_NEAR(normal_squares / n, 1.0, 0.01);
  EXPECT_NEAR(within_one / n, 0.6827, 0.003);
}

// Range (fp32 with a positive delta, int32 with a negative one) and EyeLike (with and without a dtype, off the main
// diagonal) against their node tests: the count and the elements as the kernels compute them, stored in the output's
// type; EyeLike's ones through OneHot's selection.
TEST(CudaGenerators, RangeAndEyeLikeReproduceOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::map<std::string, int> checked;
  for (const auto& t : node_tests({"test_range_", "test_eyelike_"})) {
    const auto& name = t.name;
    const auto& p = t.prepared;
    const auto& data = t.data;
    const auto& g = p.analysis.model.graph;
    const auto& node = g.nodes.front();
    auto want = read_expected((data / "output_0.pb").string());
    ASSERT_TRUE(want) << name;
    std::vector<double> got;
    if (node.op_type == "Range") {
      double start = host_values(p.inputs.at(0)).at(0), limit = host_values(p.inputs.at(1)).at(0);
      double delta = host_values(p.inputs.at(2)).at(0);
      auto n = cuda::range_count(start, limit, delta);
      for (int64_t i = 0; i < n; ++i) {
        double v = cuda::range_value(start, delta, i);
        got.push_back(p.inputs[0].dtype == graph::DType::kInt32 ? static_cast<double>(static_cast<int32_t>(v))
                                                                : static_cast<double>(static_cast<float>(v)));
      }
    } else {
      const auto& dims = p.inputs.at(0).dims;
      cuda::OneHotPlan plan;
      plan.outer = dims[0], plan.depth = dims[1], plan.inner = 1;
      std::vector<int64_t> selected;
      for (int64_t i = 0; i < dims[0]; ++i) selected.push_back(cuda::eye_column(i, dims[1], node.get_int("k", 0)));
      for (int64_t e = 0; e < plan.count(); ++e) got.push_back(cuda::one_hot_on(plan, e, selected.data()) ? 1.0 : 0.0);
      EXPECT_EQ(g.value(node.outputs[0]).dtype, static_cast<graph::DType>(want->dtype)) << name;
    }
    ASSERT_EQ(got.size(), want->values.size()) << name;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want->values[i]) << name << " [" << i << "]";
    ++checked[node.op_type];
  }
  EXPECT_EQ(checked["Range"], 2);
  EXPECT_EQ(checked["EyeLike"], 3);
}

}  // namespace
}  // namespace ridge::test
