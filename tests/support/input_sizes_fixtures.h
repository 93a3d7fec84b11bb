#pragma once
// What the in-process tests (tests/shape/test_input_sizes.cpp) and the binary-driven tests
// (tests/cli/test_input_sizes.cpp) share.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "shape/infer.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::input_sizes_fixtures {

// x[1,4,2,2] -> Reshape to the constant [1,16] -> Gemm with K = 16.
inline std::string fixed_reshape_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{4}, int64_t{2}, int64_t{2}}).output("y");
  b.int64_constant("target", {2}, {1, 16}).weight("fc", {16, 3});
  b.node("Reshape", {"x", "target"}, {"flat"}, "/Reshape");
  b.node("Gemm", {"flat", "fc"}, {"y"}, "/fc/Gemm");
  return b.save("fixed_reshape");
}

}  // namespace ridge::test::input_sizes_fixtures
