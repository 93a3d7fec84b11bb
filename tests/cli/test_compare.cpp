// `ridge compare` through the binary: a hand-written bench file on the round-numbers device of
// tests/support/compare_fixtures.h, bad input refused with one line, and one end-to-end run on the executor.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "calib/model.h"
#include "calib/shape_prediction.h"
#include "hw/device_file.h"
#include "hw/roofline.h"
#include "report/compare_report.h"
#include "report/printer.h"
#include "roofline/predict.h"
#include "support/compare_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace compare_fixtures;  // NOLINT(google-build-using-namespace)

using nlohmann::json;

void expect_one_line_error(const CommandResult& r, const std::string& expected) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CompareCli, MeasuredFileByHand) {
  auto model = four_node_model();
  auto bench = bench_file("cli-one-run", {hand_run("eager")});
  auto r = run_ridge("compare " + model + " --device " + device_file() + " --measured " + bench + " -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["totals"]["predicted_s"].get<double>(), kWhole);
  EXPECT_DOUBLE_EQ(j["totals"]["measured_s"].get<double>(), 1.5e-3);
  EXPECT_EQ(j["inputs"]["a"], "256x1024");
  EXPECT_EQ(j["measured"]["mode"], "eager");
  std::vector<std::string> order;
  for (const auto& n : j["nodes"]) order.push_back(n["name"]);
  EXPECT_EQ(order, (std::vector<std::string>{"gemm", "add", "relu", "ghost", "neg"}));
  EXPECT_NEAR(j["nodes"][1]["error"].get<double>(), 1.7165824, 1e-9);
  EXPECT_NEAR(j["nodes"][0]["share"].get<double>(), (1e-3 - kGemm) / ((1e-3 - kGemm) + (kAdd - 50e-6) + kTiny), 1e-12);

  auto table = run_ridge("compare " + model + " --device " + device_file() + " --measured " + bench);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("whole model: predicted 702.7 us vs measured 1.500 ms (median): error -53.2%"),
            std::string::npos)
      << table.out;
  auto csv = run_ridge("compare " + model + " --device " + device_file() + " --measured " + bench + " -f csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("\n(whole model),,whole model,,"), std::string::npos) << csv.out;
}

TEST(CompareCli, BadInputGetsOneLine) {
  auto model = four_node_model();
  auto base = "compare " + model + " --device " + device_file();
  expect_one_line_error(run_ridge(base + " --measured " + temp_dir() + "/absent.json"),
                        "absent.json': no such file or directory");
  auto malformed = temp_dir() + "/cli-malformed.json";
  std::ofstream(malformed) << "not json";
  expect_one_line_error(run_ridge(base + " --measured " + malformed), "is not valid JSON");
  auto bench = bench_file("cli-eager", {hand_run("eager")});
  expect_one_line_error(run_ridge(base + " --measured " + bench + " --exec-mode optimized"),
                        "has no inference run with optimized mode; it holds: batch 256, eager");
  expect_one_line_error(run_ridge(base + " --measured " + bench + " --batch 4"), "has no inference run with batch 4");
  expect_one_line_error(run_ridge(base + " --measured " + bench + " --threads 4"),
                        "--threads 4 contradicts '" + bench + "', measured with 2 threads");
  expect_one_line_error(run_ridge(base + " --measured " + bench + " --run"), "give --measured FILE or --run, not both");
  expect_one_line_error(run_ridge(base), "give the measurements: --measured");
  // The run's shapes must be the model's.
  expect_one_line_error(run_ridge("compare " + model_path("alexnet") + " --device t4 --measured " + bench),
                        "measured input size 256x1024, the model is bound to input=256x3x224x224");
  // Another model's run: no node in common.
  auto run = hand_run("eager");
  run.erase("input_size");
  expect_one_line_error(
      run_ridge("compare " + model_path("alexnet") + " --device t4 --measured " + bench_file("cli-other", {run})),
      "none of the 4 measured nodes is a node of");
}

// A device with a shape-aware calibration: the measured file's mode and threads decide what the
// calibration predicts (the same as `ridge predict --exec-mode --threads`), and nodes optimized
// mode fuses are counted in their layer, whose ceiling is the group's.
TEST(CompareCli, CalibratedDeviceFollowsTheRunsModeAndThreads) {
  auto model = fusable_model();
  auto device_path = temp_dir() + "/compare-cpu.yaml";
  const std::string device_yaml = R"(id: round-cpu
name: Round CPU
kind: cpu
clocks: {cpu: {max_mhz: 1000, min_mhz: 100, source: test}}
units: [{name: alu, type: vector, clock: cpu, peak_flops: {fp32: 1.0e11}, source: test}]
memory: [{level: dram, bandwidth: 1.0e10, source: test}]
overhead: {seconds: 1.0e-6, source: test}
modes: [{name: base, source: test}]
)";
  std::ofstream(device_path) << device_yaml;
  // Every layer of either mode at 3x its floor, views at 2 us, on one thread.
  auto r = analyze_file(model);
  const auto& g = r.model.graph;
  auto device = hw::load_device_file(device_path);
  auto ceilings = calib::ceilings_of(hw::roofline_for(device, hw::resolve_mode(device, "")));
  std::vector<calib::Sample> samples;
  for (const char* mode : {"eager", "optimized"}) {
    auto plan = std::string(mode) == "optimized" ? calib::plan_fusion(g, r.cost) : calib::no_fusion(g);
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (plan.leader[n] != static_cast<int>(n)) continue;
      calib::Sample s;
      s.mode = mode;
      s.features = calib::layer_features(g, r.cost, plan, static_cast<int>(n), 1);
      s.measured_s = s.features.kind == calib::Kind::kView ? 2e-6 : 3 * calib::floor_s(s.features, ceilings);
      samples.push_back(s);
    }
  }
  calib::ShapeModel::fit(samples, {}, ceilings).save(temp_dir() + "/compare-cpu-model.json");
  auto calibrated = temp_dir() + "/compare-cpu-calibrated.yaml";
  std::ofstream(calibrated)
      << device_yaml << "calibration: {model: compare-cpu-model.json, fitted_from: test, nodes: 11, overhead_s: 0}\n";

  json run{{"batch", 1},
           {"input_size", "1x8x6x6"},
           {"mode", "optimized"},
           {"samples", 20},
           {"latency_ms", {{"median", 0.05}}},
           {"nodes",
            {{{"name", "conv"}, {"op", "Conv"}, {"mean_ms", 0.03}},
             {{"name", "flatten"}, {"op", "Flatten"}, {"mean_ms", 0.002}},
             {{"name", "fc"}, {"op", "MatMul"}, {"mean_ms", 0.01}}}}};
  auto bench = bench_file("cli-optimized", {run}, 1);
  auto result = run_ridge("compare " + model + " --device " + calibrated + " --measured " + bench + " -f json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto j = json::parse(result.out);
  EXPECT_EQ(j["calibration"]["exec_mode"], "optimized");
  EXPECT_EQ(j["calibration"]["threads"], 1);
  EXPECT_EQ(j["totals"]["compared_nodes"], 3);
  EXPECT_EQ(j["totals"]["fused_nodes"], 5);  // bn, residual, relu, fc_bias fused; shape removed
  EXPECT_EQ(j["totals"]["not_measured_nodes"], 0);
  std::map<std::string, json> nodes;
  for (const auto& n : j["nodes"]) nodes[n["name"]] = n;
  EXPECT_EQ(nodes["relu"]["status"], "fused");
  EXPECT_EQ(nodes["relu"]["fused_into"], "conv");
  EXPECT_EQ(nodes["shape"]["status"], "removed");

  // A CPU calibration predicts no GPU's CUDA-graph replay: refused in one line.
  auto graph = run_ridge("predict " + model + " --device " + calibrated + " --exec-mode cuda-graph");
  EXPECT_NE(graph.exit_code, 0);
  EXPECT_NE(graph.err.find("covers the CPU executor's eager and optimized modes"), std::string::npos) << graph.err;

  // The same prediction as `ridge predict` for that mode and thread count.
  auto predict =
      run_ridge("predict " + model + " --device " + calibrated + " --exec-mode optimized --threads 1 -f json");
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  auto p = json::parse(predict.out);
  std::map<std::string, json> predicted;
  for (const auto& n : p["nodes"]) predicted[n["name"]] = n;
  EXPECT_DOUBLE_EQ(j["totals"]["predicted_s"].get<double>(), p["totals"]["time_s"].get<double>());
  double conv_s = predicted["conv"]["time_s"].get<double>();
  EXPECT_DOUBLE_EQ(nodes["conv"]["predicted_s"].get<double>(), conv_s);
  EXPECT_NEAR(nodes["conv"]["error"].get<double>(), conv_s / 30e-6 - 1, 1e-12);
  double group_roofline_s = 0;
  for (const char* name : {"conv", "bn", "residual", "relu"})
    group_roofline_s += predicted[name]["roofline_s"].get<double>();
  EXPECT_NEAR(nodes["conv"]["roofline_s"].get<double>(), group_roofline_s, 1e-18);
  EXPECT_NEAR(nodes["conv"]["ceiling_fraction"].get<double>(), group_roofline_s / 30e-6, 1e-12);
  auto table = run_ridge("compare " + model + " --device " + calibrated + " --measured " + bench);
  EXPECT_NE(
      table.out.find("calibrated estimate for optimized mode, 1 thread (" + temp_dir() + "/compare-cpu-model.json;"),
      std::string::npos)
      << table.out;
}

// Measured now on the executor, a model small enough to take a fraction of a second.
TEST(CompareCli, RunMeasuresNowAndCompares) {
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{64}}).weight("w", {64, 64}).output("y");
  b.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  b.node("Relu", {"m"}, {"y"}, "relu");
  auto model = b.save("compare-tiny");
  auto r = run_ridge("compare " + model + " --device " + device_file() + " --run --threads 1 --max-time 0.2 -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("compare: measuring"), std::string::npos) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["measured"]["source"], "measured now");
  EXPECT_EQ(j["measured"]["threads"], 1);
  EXPECT_EQ(j["measured"]["mode"], "eager");
  EXPECT_EQ(j["totals"]["compared_nodes"], 2);
  EXPECT_EQ(j["totals"]["not_measured_nodes"], 0);
  EXPECT_EQ(j["totals"]["not_predicted_nodes"], 0);
  double measured = j["totals"]["measured_s"].get<double>();
  EXPECT_GT(measured, 0);
  EXPECT_LT(measured, 0.1);
  // matmul: 2*4*64*64 FLOPs at 1 TFLOP/s; (4*64 + 64*64 + 4*64)*4 bytes at 100 GB/s; + 10 us.
  double matmul_predicted = std::max(2.0 * 4 * 64 * 64 / 1e12, (4 * 64 + 64 * 64 + 4 * 64) * 4 / 1e11) + 1e-5;
  double sum_abs = 0;
  for (const auto& n : j["nodes"]) {
    EXPECT_EQ(n["status"], "compared");
    double p = n["predicted_s"].get<double>(), m = n["measured_s"].get<double>();
    EXPECT_GT(m, 0) << n.dump();
    EXPECT_NEAR(n["error"].get<double>(), p / m - 1, 1e-12);
    if (n["name"] == "matmul") {
      EXPECT_NEAR(p, matmul_predicted, 1e-15);
    }
    sum_abs += std::abs(p - m);
  }
  EXPECT_NEAR(j["totals"]["abs_difference_s"].get<double>(), sum_abs, 1e-15);
  EXPECT_NEAR(j["nodes"][0]["share"].get<double>() + j["nodes"][1]["share"].get<double>(), 1.0, 1e-12);
}

// A training step measured now is compared per node with a prediction of one: the two nodes (each one's forward and
// backward) and the optimizer update; the loss and the gradients' accumulation are the run's own rows. --optimizer
// means nothing without --training.
TEST(CompareCli, ATrainingStepIsComparedPerNode) {
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{64}}).weight("w", {64, 64}).output("y");
  b.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  b.node("Relu", {"m"}, {"y"}, "relu");
  auto model = b.save("compare-train");
  auto r = run_ridge("compare " + model + " --device " + device_file() +
                     " --run --training --optimizer adam --threads 1 -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["measured"]["training"], true) << j["measured"].dump();
  EXPECT_EQ(j["measured"]["optimizer"], "adam");
  EXPECT_EQ(j["training"], true);  // the prediction is of a training step
  EXPECT_EQ(j["totals"]["compared_nodes"], 3);
  EXPECT_EQ(j["totals"]["not_predicted_nodes"], 2);
  std::set<std::string> compared, not_predicted;
  for (const auto& n : j["nodes"])
    (n["status"] == "compared" ? compared : not_predicted).insert(n["name"].get<std::string>());
  EXPECT_EQ(compared, (std::set<std::string>{"matmul", "relu", "(optimizer step)"}));
  EXPECT_EQ(not_predicted, (std::set<std::string>{"(loss)", "(gradient accumulation)"}));
  EXPECT_GT(j["totals"]["measured_s"].get<double>(), 0);
  auto refused = run_ridge("compare " + model + " --device " + device_file() + " --run --optimizer adam");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--training"), std::string::npos) << refused.err;
}

// A real bench run of ResNet-50 on the H200 (tests/data/bench/h200/SOURCES.md) compared with the model it measured,
// and with two others: ResNet-152 shares every one of its node names but has three times the layers; VGG-16 shares
// almost none. Both are refused in one line naming the op counts that differ.
TEST(CompareCli, ABenchRunOfAnotherModelIsRefused) {
  auto run = source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json");
  auto same = run_ridge("compare " + source_path("models/resnet50.onnx") + " --device h200 --batch 32 --measured " +
                        run + " --no-store -f json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(json::parse(same.out)["totals"]["compared_nodes"], 122);
  auto deeper = run_ridge("compare " + source_path("models/resnet152.onnx") + " --device h200 --batch 32 --measured " +
                          run + " --no-store");
  EXPECT_NE(deeper.exit_code, 0);
  EXPECT_EQ(std::count(deeper.err.begin(), deeper.err.end(), '\n'), 1) << deeper.err;
  EXPECT_NE(deeper.err.find("238 of its 360 nodes were not measured (Add 16 against 50, Conv 53 against 155"),
            std::string::npos)
      << deeper.err;
  EXPECT_NE(deeper.err.find("a run of another model ('models/resnet50.onnx')?"), std::string::npos) << deeper.err;
  auto other = run_ridge("compare " + source_path("models/vgg16.onnx") + " --device h200 --batch 32 --measured " + run +
                         " --no-store");
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.err.find("121 of them not nodes of"), std::string::npos) << other.err;
}

// The real H200 run of ResNet-50 replayed as a CUDA graph (tests/data/bench/h200/ridge-bench-resnet50.json holds
// eager and cuda-graph runs at batch 1 and 32): --exec-mode cuda-graph selects it; the whole model is compared with
// the replays' median, and a note says where the node times come from.
TEST(CompareCli, ACudaGraphRunIsSelectedAndItsNodeTimesExplained) {
  auto run = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  auto r = run_ridge("compare " + source_path("models/resnet50.onnx") +
                     " --device h200 --batch 1 --exec-mode "
                     "cuda-graph --measured " +
                     run + " --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  auto file = json::parse(std::ifstream(run));
  const json* graph = nullptr;
  for (const auto& x : file["runs"])
    if (x["mode"] == "cuda-graph" && x["batch"] == 1) graph = &x;
  ASSERT_NE(graph, nullptr);
  EXPECT_DOUBLE_EQ(j["totals"]["measured_s"].get<double>(), (*graph)["latency_ms"]["median"].get<double>() * 1e-3);
  bool said = false;
  for (const auto& n : j["notes"]) said |= n.get<std::string>().find("replayed a CUDA graph") != std::string::npos;
  EXPECT_TRUE(said) << j["notes"].dump();
  // Without --exec-mode the file's two batch-1 runs are named, and the choice asked for.
  auto both = run_ridge("compare " + source_path("models/resnet50.onnx") + " --device h200 --batch 1 --measured " +
                        run + " --no-store");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.err.find("batch 1, cuda-graph"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// A comparison is stored typed (its headline from the value), and the same comparison printed as JSON elsewhere
// comes in through `results import` as the same value.
TEST(CompareCli, StoredTypedAndImportedAsTheSameValue) {
  using namespace compare_fixtures;  // NOLINT(google-build-using-namespace)
  auto model = four_node_model();
  auto bench = bench_file("cli-typed", {hand_run("eager")});
  auto dir = temp_dir();
  auto store = dir + "/compare.db";
  auto base = "compare " + model + " --device " + device_file() + " --measured " + bench;
  auto r = run_ridge(base + " --store " + store);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto list = nlohmann::json::parse(run_ridge("results --store " + store + " -f json").out);
  ASSERT_EQ(list["results"].size(), 1u);
  EXPECT_EQ(list["results"][0]["command"], "compare");
  EXPECT_EQ(list["results"][0]["result"], "702.7 us vs 1.500 ms measured (-53.2%)");
  auto file = dir + "/compare.json";
  std::ofstream(file) << run_ridge(base + " -f json --no-store").out;
  auto other = dir + "/other.db";
  auto imported = run_ridge("results import " + file + " --store " + other);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("1 result, 1 added, 0 already in"), std::string::npos) << imported.out;
  auto other_list = nlohmann::json::parse(run_ridge("results --store " + other + " -f json").out);
  ASSERT_EQ(other_list["results"].size(), 1u);
  EXPECT_EQ(other_list["results"][0]["command"], "compare");
  EXPECT_EQ(other_list["results"][0]["result"], list["results"][0]["result"]);
}

}  // namespace
}  // namespace ridge::test
