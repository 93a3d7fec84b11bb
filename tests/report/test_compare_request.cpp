// `ridge compare` as one call (report/compare_request): ResNet-50 on the H200 against ridge's own run of it on an
// H200 (tests/data/bench/h200, CUDA graph at batch 32), a training step measured now and read back, and the inputs
// it refuses, in process. Also what `ridge compare` prints for a hand-written bench file on the round-numbers device
// of tests/support/compare_fixtures.h, a calibrated device, runs measured now, and the comparison kept and imported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "exec/bench_codec.h"
#include "report/compare_codec.h"
#include "report/compare_request.h"
#include "report/predict_request.h"
#include "report/result_import.h"
#include "report/result_record.h"
#include "report/results_report.h"
#include "store/store.h"
#include "support/compare_fixtures.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

report::CompareRequest h200_request(int64_t batch) {
  report::CompareRequest r;
  r.model.model_path = model_path("resnet50");
  r.model.bindings.batch = batch;
  r.model_name = "models/resnet50.onnx";
  r.device = "h200";
  r.choices.exec_mode = "cuda-graph";
  r.measured = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  return r;
}

TEST(CompareRequest, ComparesTheRunTheBatchAndModeSelect) {
  auto c = report::compare_model(h200_request(32));
  // The run's median, read from the file (latency_ms.median of the batch-32 CUDA-graph run).
  EXPECT_NEAR(c.measured_s, 13.948847770690918e-3, 1e-12);
  EXPECT_EQ(c.measured.batch, 32);
  EXPECT_EQ(c.measured.mode, "cuda-graph");
  EXPECT_EQ(c.model, "models/resnet50.onnx");
  EXPECT_GT(c.predicted_s, 0);
  // Every one of the run's 122 timed nodes is a node of the model: compared, never dropped as unknown.
  int compared = 0, not_predicted = 0;
  for (const auto& n : c.nodes) {
    compared += n.match == report::Match::kCompared;
    not_predicted += n.match == report::Match::kNotPredicted;
  }
  EXPECT_EQ(compared, 122);
  EXPECT_EQ(not_predicted, 0);
  ASSERT_FALSE(c.inputs.empty());
  EXPECT_EQ(c.inputs.front().second, "32x3x224x224");
}

TEST(CompareRequest, RefusesWhatDoesNotBelongTogether) {
  auto both = h200_request(32);
  both.run = true;
  EXPECT_NE(error_text([&] { report::compare_model(both); }).find("not both"), std::string::npos);
  auto neither = h200_request(32);
  neither.measured.clear();
  EXPECT_NE(error_text([&] { report::compare_model(neither); }).find("give the measurements"), std::string::npos);
  // The file holds batches 1 and 32 only.
  EXPECT_NE(error_text([&] { report::compare_model(h200_request(8)); }).find("batch"), std::string::npos);
  // The run was measured in fp32.
  auto fp16 = h200_request(32);
  fp16.choices.precision = "fp16";
  EXPECT_NE(error_text([&] { report::compare_model(fp16); }).find("contradicts"), std::string::npos);
  // The detected host has no measured bandwidth to predict with.
  auto host = h200_request(32);
  host.device = "host";
  EXPECT_NE(error_text([&] { report::compare_model(host); }).find("ridge ert --profile"), std::string::npos);
}

// A CPU training step measured now is compared per node (its profile: each node's forward and backward) against a
// prediction of a training step, the optimizer update included; a prediction of an inference never matches it, nor
// one of another optimizer; a run without per-node times is compared whole.
TEST(CompareRequest, ATrainingStepIsComparedWithAPredictionOfOne) {
  report::CompareRequest r;
  r.model.model_path = source_path("tests/data/training/resnet/model.onnx");
  r.model.options.training = true;
  r.model_name = "resnet";
  r.device = "h200";
  r.run = true;
  r.max_time_s = 5;
  auto c = report::compare_model(r);
  EXPECT_TRUE(c.measured.training);
  EXPECT_EQ(c.measured.optimizer, "sgd");
  EXPECT_TRUE(c.prediction.training);
  // Every node the prediction has was measured, the optimizer row included; the loss and the gradients'
  // accumulation are the run's own rows.
  EXPECT_EQ(c.not_measured, 0);
  std::set<std::string> not_predicted, compared;
  for (const auto& n : c.nodes) {
    if (n.match == report::Match::kNotPredicted) not_predicted.insert(n.name);
    if (n.match == report::Match::kCompared) compared.insert(n.name);
  }
  EXPECT_EQ(not_predicted, (std::set<std::string>{"(loss)", "(gradient accumulation)"}));
  EXPECT_TRUE(compared.count("(optimizer step)"));
  EXPECT_GT(c.compared, 20);
  ASSERT_GT(c.measured_s, 0);
  EXPECT_EQ(c.measured_s, c.measured.latency_ms.median * 1e-3);
  ASSERT_TRUE(c.error);
  EXPECT_DOUBLE_EQ(*c.error, c.predicted_s / c.measured_s - 1);
  // Its codec keeps it: the nodes, a training step on both sides.
  auto decoded = report::decode_comparison(nlohmann::json::parse(report::encode_comparison(c).dump()), "test");
  EXPECT_EQ(decoded.nodes.size(), c.nodes.size());
  EXPECT_TRUE(decoded.measured.training);
  EXPECT_TRUE(decoded.prediction.training);
  EXPECT_EQ(decoded.measured_s, c.measured_s);
  EXPECT_EQ(report::encode_comparison(decoded).dump(), report::encode_comparison(c).dump());

  // The same run read back from a bench file.
  auto path = temp_dir() + "/training-run.json";
  std::ofstream(path) << exec::encode_bench({c.measured}).dump();
  auto from_file = r;
  from_file.run = false;
  from_file.measured = path;
  auto again = report::compare_model(from_file);
  EXPECT_EQ(again.measured_s, c.measured_s);
  EXPECT_TRUE(again.prediction.training);
  // A comparison keeps the run without its nodes (they are its rows), so the file holds a step timed whole, as
  // one measured with --no-per-node: it is compared whole, and the notes say so.
  EXPECT_TRUE(again.nodes.empty());
  EXPECT_EQ(again.compared, 0);
  bool says_whole = false;
  for (const auto& note : again.notes)
    says_whole = says_whole || note.find("the whole step is compared") != std::string::npos;
  EXPECT_TRUE(says_whole);
  auto inference = from_file;
  inference.model.options.training = false;
  EXPECT_NE(error_text([&] { report::compare_model(inference); }).find("has no inference run"), std::string::npos);
  auto adam = from_file;
  adam.model.options.optimizer = cost::Optimizer::kAdam;
  EXPECT_NE(error_text([&] { report::compare_model(adam); }).find("no training run with adam"), std::string::npos);
}

// Printed (-f json: the codec's, which reads back) and kept with the parameters given, its headline the two latencies.
TEST(CompareRequest, PrintedAsItsCodecAndKept) {
  auto dir = std::filesystem::path(temp_dir()) / "compare-request-kept";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  std::ostringstream out;
  report::compare_and_keep(h200_request(32), 5, "json", {.path = path}, {.model = "models/resnet50.onnx", .batch = 32},
                           out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_comparison(printed)) << out.str().substr(0, 200);
  auto c = report::decode_comparison(printed, "out");
  EXPECT_NEAR(c.measured_s, 13.948847770690918e-3, 1e-12);
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "compare");
  EXPECT_EQ(records[0].params.model, "models/resnet50.onnx");
  EXPECT_EQ(records[0].params.batch, 32);
  EXPECT_NE(records[0].summary.find(" vs 13.949 ms measured ("), std::string::npos) << records[0].summary;
}

using namespace compare_fixtures;  // NOLINT(google-build-using-namespace)
using nlohmann::json;

// The request `ridge compare MODEL --device DEVICE [--measured FILE] [--exec-mode, --threads as `choices`]` makes.
report::CompareRequest compare_request(const analysis::ModelOptions& model, const std::string& device,
                                       const std::string& measured, const calib::PredictionChoices& choices = {}) {
  return {.model = analysis::make_request(model),
          .model_name = model.model,
          .device = device,
          .choices = choices,
          .measured = measured};
}

// What `ridge compare ... --no-store -f FORMAT` prints (the default --top 20).
std::string compare_text(const report::CompareRequest& request, const std::string& format) {
  std::ostringstream out;
  report::compare_and_keep(request, 20, format, {.disabled = true}, {}, out);
  return out.str();
}

json compare_json(const report::CompareRequest& request) { return json::parse(compare_text(request, "json")); }

// The one line a refused comparison gives ("accepted" when it was not refused); it prints nothing before.
std::string compare_error(const report::CompareRequest& request) {
  std::ostringstream out;
  auto error = error_text([&] { report::compare_and_keep(request, 20, "table", {.disabled = true}, {}, out); });
  EXPECT_TRUE(out.str().empty()) << out.str();
  return error;
}

void expect_one_line_naming(const std::string& error, const std::string& expected) {
  EXPECT_NE(error, "accepted") << expected;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "more than one line: " << error;
  EXPECT_NE(error.find(expected), std::string::npos) << error;
}

TEST(CompareRequest, MeasuredFileByHand) {
  auto model = four_node_model();
  auto bench = bench_file("cli-one-run", {hand_run("eager")});
  auto request = compare_request({.model = model}, device_file(), bench);
  auto j = compare_json(request);
  EXPECT_DOUBLE_EQ(j["totals"]["predicted_s"].get<double>(), kWhole);
  EXPECT_DOUBLE_EQ(j["totals"]["measured_s"].get<double>(), 1.5e-3);
  EXPECT_EQ(j["inputs"]["a"], "256x1024");
  EXPECT_EQ(j["measured"]["mode"], "eager");
  std::vector<std::string> order;
  for (const auto& n : j["nodes"]) order.push_back(n["name"]);
  EXPECT_EQ(order, (std::vector<std::string>{"gemm", "add", "relu", "ghost", "neg"}));
  EXPECT_NEAR(j["nodes"][1]["error"].get<double>(), 1.7165824, 1e-9);
  EXPECT_NEAR(j["nodes"][0]["share"].get<double>(), (1e-3 - kGemm) / ((1e-3 - kGemm) + (kAdd - 50e-6) + kTiny), 1e-12);

  auto table = compare_text(request, "table");
  EXPECT_NE(table.find("whole model: predicted 702.7 us vs measured 1.500 ms (median): error -53.2%"),
            std::string::npos)
      << table;
  auto csv = compare_text(request, "csv");
  EXPECT_NE(csv.find("\n(whole model),,whole model,,"), std::string::npos) << csv;
}

TEST(CompareRequest, BadInputGetsOneLine) {
  auto model = four_node_model();
  auto with = [&](const std::string& measured, const calib::PredictionChoices& choices = {}, int64_t batch = 0) {
    return compare_request({.model = model, .batch = batch}, device_file(), measured, choices);
  };
  expect_one_line_naming(compare_error(with(temp_dir() + "/absent.json")), "absent.json': no such file or directory");
  auto malformed = temp_dir() + "/cli-malformed.json";
  std::ofstream(malformed) << "not json";
  expect_one_line_naming(compare_error(with(malformed)), "is not valid JSON");
  auto bench = bench_file("cli-eager", {hand_run("eager")});
  expect_one_line_naming(compare_error(with(bench, {.exec_mode = "optimized"})),
                         "has no inference run with optimized mode; it holds: batch 256, eager");
  expect_one_line_naming(compare_error(with(bench, {}, 4)), "has no inference run with batch 4");
  expect_one_line_naming(compare_error(with(bench, {.threads = 4})),
                         "--threads 4 contradicts '" + bench + "', measured with 2 threads");
  auto both = with(bench);
  both.run = true;
  expect_one_line_naming(compare_error(both), "give --measured FILE or --run, not both");
  expect_one_line_naming(compare_error(with("")), "give the measurements: --measured");
  // The run's shapes must be the model's.
  expect_one_line_naming(compare_error(compare_request({.model = model_path("alexnet")}, "t4", bench)),
                         "measured input size 256x1024, the model is bound to input=256x3x224x224");
  // Another model's run: no node in common.
  auto run = hand_run("eager");
  run.erase("input_size");
  expect_one_line_naming(
      compare_error(compare_request({.model = model_path("alexnet")}, "t4", bench_file("cli-other", {run}))),
      "none of the 4 measured nodes is a node of");
}

// A device with a shape-aware calibration: the measured file's mode and threads decide what the
// calibration predicts (the same as `ridge predict --exec-mode --threads`), and nodes optimized
// mode fuses are counted in their layer, whose ceiling is the group's.
TEST(CompareRequest, CalibratedDeviceFollowsTheRunsModeAndThreads) {
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
  auto ceilings = calib::ceilings_of(device, hw::roofline_for(device, hw::resolve_mode(device, "")));
  std::vector<calib::Sample> samples;
  for (const char* mode : {"eager", "optimized"}) {
    auto plan =
        std::string(mode) == "optimized" ? calib::plan_fusion(g, r.cost, r.model.directory) : calib::no_fusion(g);
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
  auto request = compare_request({.model = model}, calibrated, bench);
  auto j = compare_json(request);
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

  // `ridge predict MODEL --device CALIBRATED [--exec-mode, --threads as `choices`] -f json`.
  auto predict = [&](const calib::PredictionChoices& choices) {
    analysis::ModelOptions options{.model = model};
    std::ostringstream out;
    report::predict_and_keep({.model = analysis::make_request(options), .device = calibrated, .choices = choices}, "",
                             options, "json", {.disabled = true}, out);
    return json::parse(out.str());
  };
  // A CPU calibration predicts no GPU's CUDA-graph replay: refused in one line.
  auto graph = error_text([&] { predict({.exec_mode = "cuda-graph"}); });
  EXPECT_NE(graph.find("covers the CPU executor's eager and optimized modes"), std::string::npos) << graph;

  // The same prediction as `ridge predict` for that mode and thread count.
  auto p = predict({.exec_mode = "optimized", .threads = 1});
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
  auto table = compare_text(request, "table");
  EXPECT_NE(table.find("calibrated estimate for optimized mode, 1 thread (" + temp_dir() + "/compare-cpu-model.json;"),
            std::string::npos)
      << table;
}

// Measured now on the executor, a model small enough to take a fraction of a second.
TEST(CompareRequest, RunMeasuresNowAndCompares) {
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{64}}).weight("w", {64, 64}).output("y");
  b.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  b.node("Relu", {"m"}, {"y"}, "relu");
  auto model = b.save("compare-tiny");
  // `--run --threads 1 --max-time 0.2`
  auto request = compare_request({.model = model}, device_file(), "", {.threads = 1});
  request.run = true;
  request.max_time_s = 0.2;
  std::string progress;
  request.progress = [&](const std::string& line) { progress += line + "\n"; };
  auto j = compare_json(request);
  EXPECT_NE(progress.find("compare: measuring"), std::string::npos) << progress;
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
// backward) and the optimizer update; the loss and the gradients' accumulation are the run's own rows (--optimizer
// without --training: a usage error of the binary, tests/cli/test_compare.cpp).
TEST(CompareRequest, ATrainingStepIsComparedPerNode) {
  ModelBuilder b;
  b.input("x", {int64_t{4}, int64_t{64}}).weight("w", {64, 64}).output("y");
  b.node("MatMul", {"x", "w"}, {"m"}, "matmul");
  b.node("Relu", {"m"}, {"y"}, "relu");
  auto model = b.save("compare-train");
  // `--run --training --optimizer adam --threads 1`
  auto request =
      compare_request({.model = model, .training = true, .optimizer = "adam"}, device_file(), "", {.threads = 1});
  request.run = true;
  auto j = compare_json(request);
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
}

// A real bench run of ResNet-50 on the H200 (tests/data/bench/h200/SOURCES.md) compared with the model it measured,
// and with two others: ResNet-152 shares every one of its node names but has three times the layers; VGG-16 shares
// almost none. Both are refused in one line naming the op counts that differ.
TEST(CompareRequest, ABenchRunOfAnotherModelIsRefused) {
  auto run = source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json");
  auto of = [&](const std::string& model) {
    return compare_request({.model = source_path(model), .batch = 32}, "h200", run);
  };
  EXPECT_EQ(compare_json(of("models/resnet50.onnx"))["totals"]["compared_nodes"], 122);
  auto deeper = compare_error(of("models/resnet152.onnx"));
  EXPECT_NE(deeper, "accepted");
  EXPECT_EQ(std::count(deeper.begin(), deeper.end(), '\n'), 0) << deeper;
  EXPECT_NE(deeper.find("238 of its 360 nodes were not measured (Add 16 against 50, Conv 53 against 155"),
            std::string::npos)
      << deeper;
  EXPECT_NE(deeper.find("a run of another model ('models/resnet50.onnx')?"), std::string::npos) << deeper;
  auto other = compare_error(of("models/vgg16.onnx"));
  EXPECT_NE(other.find("121 of them not nodes of"), std::string::npos) << other;
}

// The real H200 run of ResNet-50 replayed as a CUDA graph (tests/data/bench/h200/ridge-bench-resnet50.json holds
// eager and cuda-graph runs at batch 1 and 32): --exec-mode cuda-graph selects it; the whole model is compared with
// the replays' median, and a note says where the node times come from.
TEST(CompareRequest, ACudaGraphRunIsSelectedAndItsNodeTimesExplained) {
  auto run = source_path("tests/data/bench/h200/ridge-bench-resnet50.json");
  analysis::ModelOptions resnet{.model = source_path("models/resnet50.onnx"), .batch = 1};
  auto j = compare_json(compare_request(resnet, "h200", run, {.exec_mode = "cuda-graph"}));
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
  auto both = compare_error(compare_request(resnet, "h200", run));
  EXPECT_NE(both, "accepted");
  EXPECT_NE(both.find("batch 1, cuda-graph"), std::string::npos) << both;
}

// A comparison is stored typed (its headline from the value), and the same comparison printed as JSON elsewhere
// comes in through `results import` as the same value.
TEST(CompareRequest, StoredTypedAndImportedAsTheSameValue) {
  auto model = four_node_model();
  auto bench = bench_file("cli-typed", {hand_run("eager")});
  auto dir = temp_dir();
  auto store = dir + "/compare.db";
  analysis::ModelOptions options{.model = model};
  auto request = compare_request(options, device_file(), bench);
  std::ostringstream printed;
  report::compare_and_keep(request, 20, "table", {.path = store}, report::prediction_params(options, device_file(), {}),
                           printed);
  auto listed = [](const std::string& path) {
    std::ostringstream out;
    report::print_results({.store_path = path, .format = "json"}, out);
    return json::parse(out.str());
  };
  auto list = listed(store);
  ASSERT_EQ(list["results"].size(), 1u);
  EXPECT_EQ(list["results"][0]["command"], "compare");
  EXPECT_EQ(list["results"][0]["result"], "702.7 us vs 1.500 ms measured (-53.2%)");
  auto file = dir + "/compare.json";
  std::ofstream(file) << compare_text(request, "json");
  auto other = dir + "/other.db";
  std::string lines;
  report::import_into_store({file}, other, [&](const std::string& line) { lines += line + "\n"; });
  EXPECT_NE(lines.find("1 result, 1 added, 0 already in"), std::string::npos) << lines;
  auto other_list = listed(other);
  ASSERT_EQ(other_list["results"].size(), 1u);
  EXPECT_EQ(other_list["results"][0]["command"], "compare");
  EXPECT_EQ(other_list["results"][0]["result"], list["results"][0]["result"]);
}

}  // namespace
}  // namespace ridge::test
