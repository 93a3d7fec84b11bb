// `ridge run` and `ridge bench` through the real binary: the documented JSON keys and CSV files, sweeps and
// modes bound from the command line, and bad input refused with one line before anything runs. What the entry
// points compute is checked in process (tests/exec/test_run_model.cpp, test_bench.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exec/test_data.h"
#include "support/model_builder.h"
#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& name) { return source_path("tests/data/executor/" + name); }

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(RunCli, WeightlessModelsRunWithRandomWeightsAndSaySo) {
  auto r = run_ridge("run " + model_path("gpt2_tiny") + " --dim seq=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1x8x1000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("random weights"), std::string::npos) << r.out;
}

TEST(BenchCli, JsonHasTheDocumentedKeysAndConsistentNodes) {
  auto csv = temp_dir() + "/bench_csv";
  auto r = run_ridge("bench " + data("googlenet") +
                     "/model.onnx --max-time 0.5 --warmup 0.1 -f json --threads 1 --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"cpu", "logical_cpus", "threads", "torch_version", "ridge_revision"})
    EXPECT_TRUE(doc["environment"].contains(key)) << key;
  EXPECT_EQ(doc["environment"]["threads"], 1);
  EXPECT_FALSE(doc["random_weights"].get<bool>());
  ASSERT_EQ(doc["runs"].size(), 1u);
  const auto& run = doc["runs"][0];
  const auto& l = run["latency_ms"];
  for (const char* key : {"mean", "median", "p99", "std", "min", "max", "p90"}) EXPECT_TRUE(l.contains(key)) << key;
  EXPECT_LE(l["min"].get<double>(), l["median"].get<double>());
  EXPECT_LE(l["median"].get<double>(), l["p99"].get<double>());
  EXPECT_LE(l["p99"].get<double>(), l["max"].get<double>());
  EXPECT_GE(run["samples"].get<int>(), 2);
  EXPECT_NEAR(run["throughput"].get<double>(), 2 * 1000.0 / l["mean"].get<double>(), 1e-6);  // batch 2
  const auto& nodes = run["nodes"];
  EXPECT_EQ(nodes.size(), run["executed_nodes"].get<size_t>());
  double percent = 0;
  for (const auto& n : nodes) percent += n["percent"].get<double>();
  EXPECT_NEAR(percent, 100, 1e-6);
  // CSV files: one overall row, one layer row per node, and node times `ridge calibrate` reads.
  auto overall = lines_of(csv + "/overall.csv");
  ASSERT_EQ(overall.size(), 2u);
  EXPECT_EQ(overall[0].rfind("model,algorithm,input_size,batch,", 0), 0u) << overall[0];
  EXPECT_EQ(lines_of(csv + "/layers.csv").size(), nodes.size() + 1);
  auto calibrate = run_ridge("calibrate " + data("googlenet") + "/model.onnx --device t4 --measured " + csv +
                             "/nodes.csv -o " + temp_dir() + "/calibrated.yaml");
  EXPECT_EQ(calibrate.exit_code, 0) << calibrate.err;
}

// bench -> calibrate -> predict on the same model: the calibrated prediction reproduces the
// measured node times (bench's nodes.csv has mean_ms: read in milliseconds, not 1000x off), every
// measured name is a node of the model (the zero-cost Flatten included), and of two runs appended
// to one file the last is used.
TEST(BenchCli, CalibrationRoundTripPredictsTheMeasuredLatency) {
  auto dir = temp_dir() + "/roundtrip";
  fs::remove_all(dir);
  // An earlier run at another batch in the same directory: calibrate must use the last run only.
  auto earlier = run_ridge("bench " + model_path("alexnet") +
                           " --batch 2 --threads 1 --max-time 0.2 --warmup 0 -f json " + "--csv " + dir);
  ASSERT_EQ(earlier.exit_code, 0) << earlier.err;
  auto bench = run_ridge("bench " + model_path("alexnet") + " --threads 1 --max-time 2 -f json --csv " + dir);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  auto run = nlohmann::json::parse(bench.out)["runs"][0];
  double measured_ms = run["latency_ms"]["mean"].get<double>();
  // The node times calibrate reads come from the profile pass: their sum is what the fit reproduces.
  double node_sum_ms = run["profile"]["node_sum_ms"].get<double>();
  // A CPU device far faster than any host, so every fitted efficiency is below 1.
  auto device = temp_dir() + "/roundtrip-cpu.yaml";
  std::ofstream(device) << R"(id: fast-cpu
name: Fast CPU
kind: cpu
clocks: {cpu: {max_mhz: 3000, cores: 1, source: test}}
units: [{name: simd, type: vector, clock: cpu, peak_flops: {fp32: 1.0e14, fp64: 5.0e13}, source: test}]
memory: [{level: dram, bandwidth: 1.0e13, source: test}]
overhead: {seconds: 1.0e-6, source: test}
modes: [{name: default, source: test}]
)";
  auto calibrated = temp_dir() + "/roundtrip-calibrated.yaml";
  auto calibrate = run_ridge("calibrate " + model_path("alexnet") + " --device " + device + " --measured " + dir +
                             "/nodes.csv -o " + calibrated + " -f json");
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.err;
  auto fit = nlohmann::json::parse(calibrate.out);
  EXPECT_EQ(fit["unmatched"], 0) << calibrate.out;
  EXPECT_EQ(fit["without_work"], 1) << calibrate.out;  // the Flatten: matched, no roofline time
  EXPECT_NE(fit["run"].get<std::string>().find("batch 1,"), std::string::npos) << calibrate.out;
  EXPECT_NE(fit["notes"][0].get<std::string>().find("holds 2 runs"), std::string::npos) << calibrate.out;
  auto predict = run_ridge("predict " + model_path("alexnet") + " --device " + calibrated + " -f json");
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  auto doc = nlohmann::json::parse(predict.out);
  EXPECT_TRUE(doc["calibrated"].get<bool>());
  const auto& totals = doc["totals"].is_array() ? doc["totals"][0] : doc["totals"];
  double predicted_ms = totals["time_s"].get<double>() * 1e3;
  // Least squares with a per-op overhead (one kernel per node: an intercept) reproduces the sum of the
  // times it was fitted on; a unit read 1000x off would miss by orders of magnitude.
  EXPECT_NEAR(predicted_ms, node_sum_ms, 0.10 * node_sum_ms)
      << "predicted " << predicted_ms << " ms, measured node sum " << node_sum_ms << " ms";
  // And the whole run's latency, measured apart (other tests share the machine: a loose bound).
  EXPECT_GT(predicted_ms, measured_ms / 3) << "measured " << measured_ms << " ms";
  EXPECT_LT(predicted_ms, measured_ms * 3) << "measured " << measured_ms << " ms";
}

TEST(BenchCli, SweepsAndModesInOneCall) {
  auto r = run_ridge("bench " + model_path("mobilenet_v2") +
                     " --sweep batch=1,2 --mode both --max-time 0.3 --warmup 0 --no-per-node -f json --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc["random_weights"].get<bool>());
  ASSERT_EQ(doc["runs"].size(), 4u);
  std::vector<std::pair<int, std::string>> points;
  for (const auto& run : doc["runs"]) points.emplace_back(run["batch"].get<int>(), run["mode"].get<std::string>());
  EXPECT_EQ(points,
            (std::vector<std::pair<int, std::string>>{{1, "eager"}, {1, "optimized"}, {2, "eager"}, {2, "optimized"}}));
  // Optimized mode folds the shape subgraph and the exporter's leftovers: fewer nodes run.
  EXPECT_LT(doc["runs"][1]["executed_nodes"].get<int>(), doc["runs"][0]["executed_nodes"].get<int>());
}

TEST(ExecBadInput, UnknownOpIsNamedBeforeAnythingRuns) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{4}}).output("y");
  auto& node = b.node("FancyOp", {"x"}, {"y"}, "fancy");
  node.set_domain("com.example");
  auto* opset = b.proto().add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  expect_one_line_error(run_ridge("run " + b.save("unknown_op")),
                        "the executor cannot run these ops: com.example.FancyOp x1");
  expect_one_line_error(run_ridge("bench " + b.save("unknown_op_bench")), "com.example.FancyOp x1");
}

TEST(ExecBadInput, BatchThatDoesNotFitIsRefusedWithTheEstimate) {
  auto r = run_ridge("run " + model_path("vgg16") + " --batch 1000000");
  expect_one_line_error(r, "needs about");
  EXPECT_NE(r.err.find("peak activations"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
}

TEST(ExecBadInput, InputsOfTheWrongTypeOrShape) {
  // A float tensor where BERT's token ids (int64) are expected.
  auto wrong_type = temp_dir() + "/wrong_type";
  fs::create_directories(wrong_type);
  fs::copy_file(data("bert") + "/test_data_set_0/input_1.pb", wrong_type + "/input_1.pb",
                fs::copy_options::overwrite_existing);
  exec::HostTensor f;
  f.dtype = graph::DType::kFloat32;
  f.dims = {2, 12};
  f.bytes.assign(2 * 12 * 4, 0);
  exec::write_tensor_file(wrong_type + "/input_0.pb", f);
  expect_one_line_error(run_ridge("run " + data("bert") + "/model.onnx --inputs " + wrong_type),
                        "input 'input_ids' must be int64");
  // A 1x3x64x64 image where the exported model fixed 2x3x64x64.
  auto wrong_shape = temp_dir() + "/wrong_shape";
  fs::create_directories(wrong_shape);
  f.dims = {1, 3, 64, 64};
  f.bytes.assign(3 * 64 * 64 * 4, 0);
  exec::write_tensor_file(wrong_shape + "/input_0.pb", f);
  expect_one_line_error(run_ridge("run " + data("vgg") + "/model.onnx --inputs " + wrong_shape), "input");
  expect_one_line_error(run_ridge("run " + data("vgg") + "/model.onnx --inputs /nonexistent"), "is not a directory");
}

}  // namespace
}  // namespace ridge::test
