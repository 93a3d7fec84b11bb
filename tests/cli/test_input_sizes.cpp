// Input sizes through the binary: the default-size note, --input on bundled models, and a fixed-size
// classifier refusing another size in one line (bench's input sweep: tests/exec/test_bench.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "shape/infer.h"
#include "support/input_sizes_fixtures.h"
#include "support/model_builder.h"
#include "support/one_line_error.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace input_sizes_fixtures;  // NOLINT(google-build-using-namespace)

TEST(InputSizesCli, DefaultNoteAndInputOnBundledModels) {
  auto plain = run_ridge("analyze " + model_path("resnet50") + " --summary");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  auto all = plain.out + plain.err;
  EXPECT_NE(all.find("height=224, width=224 (default from the model file)"), std::string::npos) << all;
  EXPECT_NE(all.find("4089184256"), std::string::npos) << all;
  auto bigger = run_ridge("analyze " + model_path("resnet50") + " --input input=1x3x320x320 --format json");
  ASSERT_EQ(bigger.exit_code, 0) << bigger.err;
  auto doc = nlohmann::json::parse(bigger.out);
  EXPECT_EQ(doc["inputs"]["input"], "1x3x320x320");
  EXPECT_EQ(doc["totals"]["macs"].get<int64_t>(), 8343142400LL);
  auto sweep = run_ridge("analyze " + model_path("mobilenet_v2") + " --sweep height=160,224,320 --format csv");
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
}

TEST(InputSizesCli, FixedSizeClassifierRefusesAnotherSizeOnOneLine) {
  // AlexNet's classifier takes 256*6*6 features: at 320 the flattened features no longer fit.
  expect_one_line_error(run_ridge("analyze " + model_path("alexnet") + " --input input=1x3x320x320"),
                        "--input input=1x3x320x320: node '");
  expect_one_line_error(run_ridge("analyze " + model_path("alexnet") + " --input input=1x3x320x320"),
                        "(Gemm): inner dimensions differ: 20736 vs 9216");
  expect_one_line_error(run_ridge("analyze " + fixed_reshape_model() + " --input x=1x4x3x3"),
                        "node '/Reshape' (Reshape): cannot reshape 1x4x3x3");
}

}  // namespace
}  // namespace ridge::test
