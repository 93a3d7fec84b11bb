// The GPU's Det without a GPU (src/exec/cuda/det_cell.h): det_of against ONNX's node tests, against the CPU executor
// (ATen's LU) on a batch of matrices up to 12 x 12, singular and permutation matrices among them, and by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/cuda/det_cell.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/node_tests.h"
#include "support/tensor_compare.h"

namespace ridge::test {
namespace {

namespace cuda = exec::cuda;

std::vector<double> dets(const std::vector<float>& a, int64_t matrices, int64_t m) {
  std::vector<double> out, work(static_cast<size_t>(m * m));
  for (int64_t i = 0; i < matrices; ++i) out.push_back(cuda::det_of(a.data() + i * m * m, m, work.data()));
  return out;
}

TEST(CudaDet, TheEliminationReproducesOnnxsNodeTests) {
  if (!node_testdata_installed()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0;
  for (const auto& t : node_tests({"test_det_"})) {
    const auto& a = t.inputs().at(0);
    const int64_t m = a.dims.back();
    auto got = dets(floats(a), static_cast<int64_t>(floats(a).size()) / (m * m), m);
    auto want = t.expected();
    ASSERT_TRUE(want) << t.name;
    ASSERT_EQ(got.size(), want->values.size()) << t.name;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want->values[i], 1e-5) << t.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(CudaDet, ABatchComputesWhatTheCpuExecutorDoes) {
  for (int64_t m : {1, 2, 3, 5, 12}) {
    const int64_t batch = 6;
    std::vector<float> a(static_cast<size_t>(batch * m * m));
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.91f * static_cast<float>(i) + static_cast<float>(m));
    if (m > 1)
      for (int64_t k = 0; k < m; ++k)
        a[static_cast<size_t>(m * m + m + k)] = a[static_cast<size_t>(m * m + k)];  // singular
    ModelBuilder b(11);
    b.input("a", {batch, m, m}).output("y");
    b.node("Det", {"a"}, {"y"}, "det");
    analysis::Request request;
    request.model_path = b.save("det");
    auto model = exec::prepare(request, "").analysis.model;
    auto want = host_values(exec::load_engine().run(model, {float_tensor("a", {batch, m, m}, a)}, {}).outputs.at(0));
    auto got = dets(a, batch, m);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "m " << m << " matrix " << i;
    if (m > 1) {
      EXPECT_NEAR(got[1], 0.0, 1e-5) << m;
    }
  }
  // By hand: a row swap flips the sign; [[0, 1], [1, 0]] has determinant -1; [[2, 0], [0, 3]] has 6.
  const std::vector<float> swap{0, 1, 1, 0}, diagonal{2, 0, 0, 3};
  double work[4];
  EXPECT_DOUBLE_EQ(cuda::det_of(swap.data(), 2, work), -1.0);
  EXPECT_DOUBLE_EQ(cuda::det_of(diagonal.data(), 2, work), 6.0);
}

}  // namespace
}  // namespace ridge::test
