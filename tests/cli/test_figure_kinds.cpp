// `ridge plot KIND` end to end on a tiny model: sweep, modes, breakdown and accuracy from bench and
// predict files, algorithms and modes from the store.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/render.h"
#include "report/figure/result_figures.h"
#include "report/figure/result_sources.h"
#include "report/figure/sweep_figure.h"
#include "support/figure_kinds_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace figure_kinds_fixtures;  // NOLINT(google-build-using-namespace)

using report::figure::Json;
namespace fig = report::figure;

// A tiny model with a symbolic batch: two convolutions, a relu, a flatten and a matrix product.
std::string tiny_model() {
  ModelBuilder m;
  m.input("x", {std::string("N"), int64_t{4}, int64_t{6}, int64_t{6}}).output("y");
  m.weight("w1", {4, 4, 3, 3}).weight("w2", {4, 4, 3, 3}).weight("fc", {144, 5});
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"}, "relu1");
  set_ints(m.node("Conv", {"r1", "w2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  set_int(m.node("Flatten", {"c2"}, {"f"}, "flatten"), "axis", 1);
  m.node("MatMul", {"f", "fc"}, {"y"}, "fc");
  return m.save("tiny_plot");
}

const std::string kQuick = " --max-time 0.1 --warmup 0 --min-runs 2 --threads 1";

std::string write_output(const std::string& args, const std::string& name) {
  auto r = run_ridge(args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  auto path = temp_dir() + "/" + name;
  std::ofstream(path) << r.out;
  return path;
}

void expect_plot(const std::string& args, const std::string& kind, int min_points) {
  auto r = run_ridge("plot " + args + " -f json");
  ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  auto doc = Json::parse(r.out);
  EXPECT_EQ(doc["kind"], kind) << r.out;
  EXPECT_GE(doc["points"].get<int>(), min_points) << r.out;
  EXPECT_TRUE(std::filesystem::exists(doc["output"].get<std::string>()));
}

TEST(PlotKindsCli, SweepModesBreakdownAndAccuracyFromBenchAndPredict) {
  auto model = tiny_model();
  auto dir = temp_dir();
  auto b = write_output("bench " + model + kQuick + " --no-store --sweep batch=1,2 --mode both -f json", "b.json");
  // The accuracy figure pairs a run with a prediction for the hardware that measured it: a device file named like
  // this machine's CPU (as `ridge ert --profile` names one), from what the bench file records.
  auto cpu = Json::parse(std::ifstream(b))["environment"]["cpu"].get<std::string>();
  auto host = dir + "/host.yaml";
  std::ofstream(host) << "id: host-test\nname: \"" << cpu << " (measured)\"\nkind: cpu\n"
                      << "clocks: {cpu: {max_mhz: 1000, min_mhz: 100, source: test}}\n"
                      << "units: [{name: alu, type: vector, clock: cpu, peak_flops: {fp32: 1.0e11}, source: test}]\n"
                      << "memory: [{level: dram, bandwidth: 1.0e10, source: test}]\n"
                      << "overhead: {seconds: 1.0e-6, source: test}\nmodes: [{name: base, source: test}]\n";
  auto p = write_output("predict " + model + " -d " + host + " --no-store -f json", "p.json");
  auto t4 = write_output("predict " + model + " -d t4 --no-store -f json", "t4.json");
  expect_plot("sweep --from " + b + " --from " + p + " --y flops -o " + dir + "/sweep.vg.json", "sweep", 5);
  expect_plot("modes --from " + b + " -o " + dir + "/modes.vg.json", "modes", 4);
  expect_plot("breakdown --from " + b + " --from " + p + " --top 3 -o " + dir + "/breakdown.vg.json", "breakdown", 4);
  expect_plot("accuracy --from " + b + " --from " + p + " -o " + dir + "/accuracy.svg", "accuracy", 3);
  auto batch2 =
      run_ridge("plot breakdown --from " + b + " --batch 2 --mode optimized -o " + dir + "/b2.vg.json -f json");
  ASSERT_EQ(batch2.exit_code, 0) << batch2.err;
  std::ifstream spec(dir + "/b2.vg.json");
  EXPECT_NE(Json::parse(spec)["description"].get<std::string>().find("(batch 2)"), std::string::npos);
  // Error paths: one line, exit 1. A T4's prediction is not this CPU's.
  auto other = run_ridge("plot accuracy --from " + b + " --from " + t4 + " -o " + dir + "/x.svg");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("accuracy needs a prediction for the hardware that measured"), std::string::npos)
      << other.err;
  auto wrong = run_ridge("plot accuracy --from " + b + " -o " + dir + "/x.svg");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("accuracy needs a predict and a bench result of the same model"), std::string::npos)
      << wrong.err;
  EXPECT_EQ(std::count(wrong.err.begin(), wrong.err.end(), '\n'), 1) << wrong.err;
  auto analyze = write_output("analyze " + model + " --no-store -f json", "a.json");
  auto bad = run_ridge("plot sweep --from " + analyze + " -o " + dir + "/x.svg");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(
      bad.err.find("a.json' is no ridge result: result figures read the JSON of `ridge bench` and `ridge predict`"),
      std::string::npos)
      << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  auto none = run_ridge("plot modes --store " + dir + "/missing.db -o " + dir + "/x.svg");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
}

TEST(PlotKindsCli, AlgorithmsAndModesFromTheStore) {
  auto model = tiny_model();
  auto dir = temp_dir();
  auto store = dir + "/results.db";
  auto r = run_ridge("bench " + model + kQuick + " --conv-algo auto,gemm --store " + store);
  if (r.exit_code != 0) {  // --conv-algo takes one value or all
    r = run_ridge("bench " + model + kQuick + " --conv-algo all --store " + store);
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_plot("algorithms --store " + store + " -o " + dir + "/algos.vg.json", "algorithms", 4);
  auto modes = run_ridge("bench " + model + kQuick + " --mode both --store " + store);
  ASSERT_EQ(modes.exit_code, 0) << modes.err;
  expect_plot("modes --store " + store + " --command bench -o " + dir + "/modes.vg.json", "modes", 2);
  auto none = run_ridge("plot modes --store " + store + " --model nothing-like-this -o " + dir + "/x.svg");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no stored result matches"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace ridge::test
