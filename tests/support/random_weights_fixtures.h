#pragma once
// A model whose weight file is absent (random weights) and the output exec/host_values' rule gives it: what the
// CPU and GPU engines must both compute for one seed (tests/exec/test_executor.cpp, tests/gpu/test_cuda_gpu.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "exec/host_values.h"
#include "exec/prepare.h"
#include "support/model_builder.h"
#include "support/tensor_compare.h"

namespace ridge::test::random_weights {

// y = x W: x [2, 5] generated, W [5, 3] in an absent external file.
inline exec::Prepared random_matmul(const std::string& name) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{5}}).external_weight("w", {5, 3}, "absent.bin").output("y");
  b.node("MatMul", {"x", "w"}, {"y"}, "product");
  analysis::Request request;
  request.model_path = b.save(name);
  return exec::prepare(request, "");
}

// x W for the x and W the shared rule draws from `seed` (weights first, then inputs), in double.
inline std::vector<double> expected_product(const exec::Prepared& p, uint64_t seed) {
  const auto& g = p.analysis.model.graph;
  std::mt19937_64 rng(seed);
  bool random = false;
  auto w = floats(exec::load_initializer(g, *g.find("w"), p.analysis.model.directory, rng, random));
  auto x = floats(exec::generate_input(g, *g.find("x"), rng));
  EXPECT_TRUE(random);
  std::vector<double> y(6, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k) y[i * 3 + j] += static_cast<double>(x[i * 5 + k]) * w[k * 3 + j];
  return y;
}

inline void expect_product(const std::vector<float>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << i;
}

}  // namespace ridge::test::random_weights
