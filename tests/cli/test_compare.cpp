// `ridge compare` through the binary: a smoke run on a hand-written bench file of the round-numbers device of
// tests/support/compare_fixtures.h, the exit code and one line of a refused input, and a usage error. What it
// compares, prints, keeps and refuses is checked in process (tests/report/test_compare_request.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/compare_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace compare_fixtures;  // NOLINT(google-build-using-namespace)

using nlohmann::json;

TEST(CompareCli, MeasuredFileByHand) {
  auto model = four_node_model();
  auto bench = bench_file("cli-one-run", {hand_run("eager")});
  auto r = run_ridge("compare " + model + " --device " + device_file() + " --measured " + bench + " -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["totals"]["predicted_s"].get<double>(), kWhole);
  EXPECT_DOUBLE_EQ(j["totals"]["measured_s"].get<double>(), 1.5e-3);
}

TEST(CompareCli, BadInputGetsOneLine) {
  auto r = run_ridge("compare " + four_node_model() + " --device " + device_file() + " --measured " + temp_dir() +
                     "/absent.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find("absent.json': no such file or directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// --optimizer means nothing without --training: refused by the options, before anything runs.
TEST(CompareCli, AnOptimizerNeedsTraining) {
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{64}}).weight("w", {64, 64}).output("y");
  b.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  b.node("Relu", {"m"}, {"y"}, "relu");
  auto model = b.save("compare-train");
  auto refused = run_ridge("compare " + model + " --device " + device_file() + " --run --optimizer adam");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--training"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace ridge::test
