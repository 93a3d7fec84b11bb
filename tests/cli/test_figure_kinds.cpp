// `ridge plot KIND` through the binary: a bench document printed by one ridge process drawn by another into an SVG,
// its summary as JSON, and a bad input as one line and exit 1. What each kind draws from real runs is tested in
// process (tests/report/test_result_plot.cpp, test_figure_kinds.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/paths.h"

namespace ridge::test {
namespace {

using Json = nlohmann::json;

TEST(PlotKindsCli, ABenchPrintedByOneProcessIsDrawnByAnother) {
  auto dir = temp_dir();
  auto bench = run_ridge("bench " + model_path("mobilenet_v2") +
                         " --max-time 0.1 --warmup 0 --min-runs 2 --threads 1 --no-store --sweep batch=1,2 -f json");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  auto b = dir + "/plot-kinds-cli.json";
  std::ofstream(b) << bench.out;
  auto plot = run_ridge("plot sweep --from " + b + " --y throughput -o " + dir + "/plot-kinds-cli.svg -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto doc = Json::parse(plot.out);
  EXPECT_EQ(doc["kind"], "sweep");
  EXPECT_EQ(doc["points"], 2);  // batch 1 and 2, eager
  std::ifstream svg(doc["output"].get<std::string>());
  ASSERT_TRUE(svg) << plot.out;
  std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  // A bench alone cannot draw accuracy: one line, exit 1.
  auto wrong = run_ridge("plot accuracy --from " + b + " -o " + dir + "/x.svg");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("accuracy needs a predict and a bench result of the same model"), std::string::npos)
      << wrong.err;
  EXPECT_EQ(std::count(wrong.err.begin(), wrong.err.end(), '\n'), 1) << wrong.err;
}

}  // namespace
}  // namespace ridge::test
