// `ridge bench` as one call (report/bench_request): each point appended to the CSV files, kept and reported as it
// completes, a power source that cannot be metered refused before anything runs, and the lines that report failures;
// the documented JSON keys and CSV files, sweeps and modes in one call, bench -> calibrate -> predict on one model,
// and power metered from a fake Jetson tree. tests/cli/test_run_bench.cpp and test_power.cpp keep what is refused
// with one line on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/request_builder.h"
#include "calib/calibrate.h"
#include "exec/bench_codec.h"
#include "report/bench_request.h"
#include "report/calibrate_command.h"
#include "report/predict_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/jetson_tree.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/saved_invocation.h"
#include "support/scoped_env.h"
#include "util/csv.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

report::BenchCommand quick_command(const std::string& model) {
  report::BenchCommand c;
  c.bench.model.model_path = model;
  c.bench.exec.threads = 1;
  c.bench.max_time_s = 0.05;
  c.bench.warmup_s = 0;
  c.bench.per_node = false;
  return c;
}

int line_count(const std::string& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(BenchRequest, EachPointIsWrittenKeptAndReportedAsItCompletes) {
  auto c = quick_command(model_path("mobilenet_v2"));
  c.bench.batches = {1, 2};
  c.csv_dir = temp_dir() + "/bench-request-csv";
  fs::remove_all(c.csv_dir);
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, int64_t>> kept;  // the document's command, the parameters' batch
  auto outcome = report::measure_bench(
      c, [&](const std::string& line) { lines.push_back(line); },
      [&](const report::Document& doc, const store::Params& params, const report::TypedResult& value) {
        EXPECT_EQ(value.kind, "bench");
        ASSERT_EQ(value.runs.size(), 1u);
        EXPECT_EQ(value.runs[0].batch, params.batch.value_or(-1));
        // Each point's CSV rows are on disk before it is kept.
        EXPECT_EQ(line_count(c.csv_dir + "/overall.csv"), static_cast<int>(kept.size()) + 2);
        kept.emplace_back(doc.command, params.batch.value_or(-1));
      });
  EXPECT_TRUE(outcome.failures.empty());
  ASSERT_EQ(outcome.runs.size(), 2u);
  EXPECT_EQ(outcome.points, 2u);
  EXPECT_EQ(kept, (std::vector<std::pair<std::string, int64_t>>{{"bench", 1}, {"bench", 2}}));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(R"(\[1/2\] batch 1, eager auto: [0-9]+\.[0-9]{3} ms)")))
      << lines[0];
  EXPECT_TRUE(std::regex_match(lines[1], std::regex(R"(\[2/2\] batch 2, eager auto: [0-9]+\.[0-9]{3} ms)")))
      << lines[1];
  EXPECT_EQ(line_count(c.csv_dir + "/overall.csv"), 3);  // a header and a row per point
  // Without a progress function or a keeper, the points are measured all the same.
  auto silent = report::measure_bench(quick_command(fusable_model()), {}, {});
  EXPECT_EQ(silent.runs.size(), 1u);
}

TEST(BenchRequest, APowerSourceThatIsAFileIsRefusedBeforeAnythingRuns) {
  auto c = quick_command(fusable_model());
  c.power = "tegrastats:run.log";
  bool kept = false;
  auto error = error_text([&] {
    report::measure_bench(
        c, {}, [&](const report::Document&, const store::Params&, const report::TypedResult&) { kept = true; });
  });
  EXPECT_EQ(error,
            "--power tegrastats:run.log: a file is no live source; integrate a recorded trace with `ridge power "
            "integrate --source tegrastats:run.log`");
  EXPECT_FALSE(kept);
}

// A model whose first input has a fixed batch: a batch sweep would measure it under other labels, so it is refused
// before anything runs.
TEST(BenchRequest, ABatchSweepOverAFixedBatchIsRefused) {
  auto c = quick_command(source_path("tests/data/training/resnet/model.onnx"));  // input 2x3x64x64
  c.bench.batches = {1, 2};
  bool kept = false;
  auto error = error_text([&] {
    report::measure_bench(
        c, {}, [&](const report::Document&, const store::Params&, const report::TypedResult&) { kept = true; });
  });
  EXPECT_NE(error.find("the model's batch is fixed at 2"), std::string::npos) << error;
  EXPECT_FALSE(kept);
}

TEST(BenchRequest, FailureLinesNameEachPointThenWhereTheOthersAre) {
  exec::BenchOutcome outcome;
  outcome.runs.resize(2);
  outcome.failures = {"batch 4, eager auto: out of memory", "batch 8, eager auto: out of memory"};
  outcome.points = 4;
  EXPECT_EQ(report::bench_failure_lines(outcome, "results/"),
            (std::vector<std::string>{"error: batch 4, eager auto: out of memory",
                                      "error: batch 8, eager auto: out of memory",
                                      "2 of 4 points failed; the 2 measured are above and in results/"}));
  EXPECT_EQ(report::bench_failure_lines(outcome, "").back(), "2 of 4 points failed; the 2 measured are above");
  outcome.runs.clear();  // nothing measured: only the errors
  EXPECT_EQ(report::bench_failure_lines(outcome, "results/"),
            (std::vector<std::string>{"error: batch 4, eager auto: out of memory",
                                      "error: batch 8, eager auto: out of memory"}));
  EXPECT_TRUE(report::bench_failure_lines({.runs = {{}}, .points = 1}, "").empty());
}

TEST(BenchRequest, ListAlgorithmsTakesNoModelAndNoOptionButFormat) {
  EXPECT_EQ(report::list_algorithms_excludes({"--list-algorithms"}), "");
  EXPECT_EQ(report::list_algorithms_excludes({"--list-algorithms", "--format", "--help"}), "");
  EXPECT_EQ(report::list_algorithms_excludes({"model", "--list-algorithms"}), "model");
  EXPECT_EQ(report::list_algorithms_excludes({"--format", "--batch", "--threads", "--list-algorithms"}), "--batch");
}

// Printed as the bench codec once every point ran, each point kept as it completed, progress on `err` with the
// command's prefix, and none of it printed in a sweep's cell (quiet).
TEST(BenchRequest, BenchAndKeepPrintsTheRunsAndKeepsEachPoint) {
  auto dir = temp_dir() + "/bench-and-keep";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto c = quick_command(model_path("mobilenet_v2"));
  c.bench.batches = {1, 2};
  std::ostringstream out, err;
  SavedInvocation saved;  // put back even where an assertion returns early
  report::invocation().quiet = false;
  EXPECT_EQ(report::bench_and_keep(c, "json", {.path = dir + "/ridge.db"}, out, err), 0);
  auto runs = exec::decode_bench(nlohmann::json::parse(out.str()), "out").runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].batch, 2);
  EXPECT_TRUE(std::regex_search(err.str(), std::regex(R"(^bench: \[1/2\] batch 1, .*\nbench: \[2/2\] batch 2, )")))
      << err.str();
  auto records = store::Store(dir + "/ridge.db", true).query({});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].command, "bench");
  std::ostringstream quiet_out, quiet_err;
  report::invocation().quiet = true;
  EXPECT_EQ(report::bench_and_keep(c, "json", {.disabled = true}, quiet_out, quiet_err), 0);
  EXPECT_EQ(quiet_out.str(), "");
  EXPECT_EQ(quiet_err.str(), "");
}

// `ridge bench DATA/model.onnx --iters 2 --warmup 0 --threads 1 --no-store -f FORMAT` (ONNX's BERT test model) in every
// format.
TEST(BenchRequest, PrintsEveryFormat) {
  SavedInvocation saved;  // put back even where an assertion returns early
  report::invocation().quiet = false;
  auto data = source_path("tests/data/executor/bert");
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = data + "/model.onnx"});
  c.bench.iters = 2;
  c.bench.warmup_s = 0;
  c.bench.exec.threads = 1;
  for (const std::string format : {"table", "csv", "json", "md"}) {
    std::ostringstream out, err;
    EXPECT_EQ(report::bench_and_keep(c, format, {.disabled = true}, out, err), 0) << format << ": " << err.str();
    EXPECT_FALSE(out.str().empty()) << format;
    if (format == "md") {
      EXPECT_EQ(out.str().rfind("# ridge bench", 0), 0u) << out.str();
      EXPECT_NE(out.str().find("| run | mean ms |"), std::string::npos) << out.str();
    }
    if (format == "csv") {
      EXPECT_EQ(out.str().rfind("model,algorithm,input_size,batch,", 0), 0u) << out.str();
    }
  }
}

std::string executor_data(const std::string& name) { return source_path("tests/data/executor/" + name); }

std::vector<std::string> lines_in(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What `ridge bench MODEL ... -f json --no-store` prints, parsed (the command's options already in `c`).
nlohmann::json bench_json(const report::BenchCommand& c) {
  SavedInvocation saved;  // put back even where an assertion returns early
  report::invocation().quiet = false;
  std::ostringstream out, err;
  EXPECT_EQ(report::bench_and_keep(c, "json", {.disabled = true}, out, err), 0) << err.str();
  return nlohmann::json::accept(out.str()) ? nlohmann::json::parse(out.str()) : nlohmann::json::object();
}

// What `ridge calibrate MODEL --device DEVICE --measured NODES -o OUTPUT -f json --no-store` prints, parsed.
nlohmann::json calibrate_json(const std::string& model, const std::string& device, const std::string& nodes,
                              const std::string& output) {
  calib::CalibrateRequest r;
  r.fit = calib::Fit::kFamily;  // a model given: its node times fit per op family
  r.device = device;
  r.output = output;
  r.measured = {nodes};
  r.model = analysis::make_request({.model = model});
  std::ostringstream out;
  report::calibrate_and_keep(r, {.device = device}, "json", {.disabled = true}, {}, out);
  return nlohmann::json::accept(out.str()) ? nlohmann::json::parse(out.str()) : nlohmann::json::object();
}

// `ridge bench DATA/googlenet/model.onnx --max-time 0.5 --warmup 0.1 -f json --threads 1 --csv DIR`, then
// `ridge calibrate` on its nodes.csv.
TEST(BenchRequest, JsonHasTheDocumentedKeysAndConsistentNodes) {
  auto csv = temp_dir() + "/bench-request-keys-csv";
  fs::remove_all(csv);
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = executor_data("googlenet") + "/model.onnx"});
  c.bench.max_time_s = 0.5;
  c.bench.warmup_s = 0.1;
  c.bench.exec.threads = 1;
  c.csv_dir = csv;
  auto doc = bench_json(c);
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
  auto overall = lines_in(csv + "/overall.csv");
  ASSERT_EQ(overall.size(), 2u);
  EXPECT_EQ(overall[0].rfind("model,algorithm,input_size,batch,", 0), 0u) << overall[0];
  EXPECT_EQ(lines_in(csv + "/layers.csv").size(), nodes.size() + 1);
  EXPECT_NO_THROW(calibrate_json(executor_data("googlenet") + "/model.onnx", "t4", csv + "/nodes.csv",
                                 temp_dir() + "/bench-request-calibrated.yaml"));
}

// bench -> calibrate -> predict on the same model: the calibrated prediction reproduces the
// measured node times (bench's nodes.csv has mean_ms: read in milliseconds, not 1000x off), every
// measured name is a node of the model (the zero-cost Flatten included), and of two runs appended
// to one file the last is used. About 5 s, as through the binary: the run is timed for up to 2 s so that its node
// times are steady enough for a 10% bound on the fit, then profiled per node.
TEST(BenchRequest, CalibrationRoundTripPredictsTheMeasuredLatency) {
  auto dir = temp_dir() + "/bench-request-roundtrip";
  fs::remove_all(dir);
  // An earlier run at another batch in the same directory: calibrate must use the last run only.
  report::BenchCommand earlier;
  earlier.bench.model = analysis::make_request({.model = model_path("alexnet"), .batch = 2});
  earlier.bench.exec.threads = 1;
  earlier.bench.max_time_s = 0.2;
  earlier.bench.warmup_s = 0;
  earlier.csv_dir = dir;
  ASSERT_EQ(bench_json(earlier)["runs"].size(), 1u);
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = model_path("alexnet")});
  c.bench.exec.threads = 1;
  c.bench.max_time_s = 2;
  c.csv_dir = dir;
  auto bench = bench_json(c);
  ASSERT_EQ(bench["runs"].size(), 1u);
  auto run = bench["runs"][0];
  double measured_ms = run["latency_ms"]["mean"].get<double>();
  // The node times calibrate reads come from the profile pass: their sum is what the fit reproduces.
  double node_sum_ms = run["profile"]["node_sum_ms"].get<double>();
  // A CPU device far faster than any host, so every fitted efficiency is below 1.
  auto device = dir + "/roundtrip-cpu.yaml";
  std::ofstream(device) << R"(id: fast-cpu
name: Fast CPU
kind: cpu
clocks: {cpu: {max_mhz: 3000, cores: 1, source: test}}
units: [{name: simd, type: vector, clock: cpu, peak_flops: {fp32: 1.0e14, fp64: 5.0e13}, source: test}]
memory: [{level: dram, bandwidth: 1.0e13, source: test}]
overhead: {seconds: 1.0e-6, source: test}
modes: [{name: default, source: test}]
)";
  auto calibrated = dir + "/roundtrip-calibrated.yaml";
  auto fit = calibrate_json(model_path("alexnet"), device, dir + "/nodes.csv", calibrated);
  EXPECT_EQ(fit["unmatched"], 0) << fit.dump();
  EXPECT_EQ(fit["without_work"], 1) << fit.dump();  // the Flatten: matched, no roofline time
  EXPECT_NE(fit["run"].get<std::string>().find("batch 1,"), std::string::npos) << fit.dump();
  EXPECT_NE(fit["notes"][0].get<std::string>().find("holds 2 runs"), std::string::npos) << fit.dump();
  analysis::ModelOptions options{.model = model_path("alexnet")};
  std::ostringstream predicted;
  report::predict_and_keep({.model = analysis::make_request(options), .device = calibrated}, "", options, "json",
                           {.disabled = true}, predicted);
  auto doc = nlohmann::json::parse(predicted.str());
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

// `ridge bench mobilenet_v2 --sweep batch=1,2 --mode both --max-time 0.3 --warmup 0 --no-per-node --threads 1`.
TEST(BenchRequest, SweepsAndModesInOneCall) {
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = model_path("mobilenet_v2")});
  exec::bind_sweeps(c.bench, {"batch=1,2"});
  c.bench.exec.mode = std::string(exec::kBothModes);
  c.bench.max_time_s = 0.3;
  c.bench.warmup_s = 0;
  c.bench.per_node = false;
  c.bench.exec.threads = 1;
  auto doc = bench_json(c);
  EXPECT_TRUE(doc["random_weights"].get<bool>());
  ASSERT_EQ(doc["runs"].size(), 4u);
  std::vector<std::pair<int, std::string>> points;
  for (const auto& run : doc["runs"]) points.emplace_back(run["batch"].get<int>(), run["mode"].get<std::string>());
  EXPECT_EQ(points,
            (std::vector<std::pair<int, std::string>>{{1, "eager"}, {1, "optimized"}, {2, "eager"}, {2, "optimized"}}));
  // Optimized mode folds the shape subgraph and the exporter's leftovers: fewer nodes run.
  EXPECT_LT(doc["runs"][1]["executed_nodes"].get<int>(), doc["runs"][0]["executed_nodes"].get<int>());
}

// `ridge bench lstm_2layer --dim seq=8 ... --power jetson --idle-time 0.2 --power-min-time 0.5 --csv DIR` on a fake
// Orin tree whose rails draw 3 + 2 = 5 W constantly (RIDGE_SYSFS_ROOT, read when the meter opens).
TEST(BenchRequest, EnergyPerInferenceIsPowerTimesLatency) {
  ScopedEnvironment sysfs("RIDGE_SYSFS_ROOT", constant_jetson_tree(temp_dir() + "/bench-request-sys"));
  auto csv = temp_dir() + "/bench-request-power-csv";
  fs::remove_all(csv);
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = model_path("lstm_2layer"), .dims = {"seq=8"}});
  c.bench.exec.threads = 1;
  c.bench.per_node = false;
  c.bench.max_time_s = 1;
  c.bench.warmup_s = 0.1;
  c.bench.power_min_time_s = 0.5;
  c.power = "jetson";
  c.idle_time_s = 0.2;
  c.csv_dir = csv;
  auto doc = bench_json(c);
  EXPECT_EQ(doc["power"]["source"], "jetson");
  EXPECT_NEAR(doc["power"]["idle_power_w"].get<double>(), 5.0, 1e-9);
  auto run = doc["runs"][0];
  EXPECT_GE(run["power"]["samples"].get<int>(), 2);
  EXPECT_NEAR(run["power_mean_w"].get<double>(), 5.0, 1e-9);
  // Energy / runs = 5 W x window / runs; the window holds the runs and a little loop overhead.
  double expected = 5.0 * run["latency_ms"]["mean"].get<double>() / 1e3;
  EXPECT_NEAR(run["energy_per_inference_j"].get<double>(), expected, 0.05 * expected);
  std::ifstream in(csv + "/overall.csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  // The two columns, by name: filled with the figures of the JSON run.
  auto names = split_csv_line(header), cells = split_csv_line(row);
  ASSERT_EQ(names.size(), cells.size()) << row;
  auto cell = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? std::string("missing") : cells[static_cast<size_t>(it - names.begin())];
  };
  ASSERT_NE(cell("power_mean_w"), "missing") << header;
  ASSERT_FALSE(cell("energy_per_inference_j").empty()) << row;
  EXPECT_NEAR(std::stod(cell("power_mean_w")), 5.0, 1e-9) << row;
  EXPECT_NEAR(std::stod(cell("energy_per_inference_j")), run["energy_per_inference_j"].get<double>(), 1e-12) << row;
}

}  // namespace
}  // namespace ridge::test
