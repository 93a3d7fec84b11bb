// `ridge compare`: predicted against measured on a device with round numbers and hand-written bench
// files, so every error, share and the order of the nodes is computed by hand; the document builder
// directly; bad input refused with one line; one end-to-end run on the executor.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calib/model.h"
#include "calib/predict.h"
#include "hw/device_file.h"
#include "hw/roofline.h"
#include "report/compare_report.h"
#include "report/printer.h"
#include "roofline/predict.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;

// 1 TFLOP/s fp32, 100 GB/s DRAM, 10 us per op.
const char* kDevice = R"(id: round
name: Round numbers
kind: gpu
clocks: {gpu: {max_mhz: 1000, min_mhz: 100, source: test}}
units: [{name: alu, type: vector, clock: gpu, peak_flops: {fp32: 1.0e12}, source: test}]
memory: [{level: dram, bandwidth: 1.0e11, source: test}]
overhead: {seconds: 1.0e-5, source: test}
modes:
  - {name: full, source: test}
)";

std::string device_file() {
  auto path = temp_dir() + "/compare-round.yaml";
  std::ofstream(path) << kDevice;
  return path;
}

// gemm: A[256,1024] x W[1024,1024] (compute-bound); add: two 2^20 vectors (memory-bound);
// relu and neg: 16 elements each (overhead-bound).
std::string four_node_model() {
  ModelBuilder b;
  b.input("a", {int64_t{256}, int64_t{1024}}).weight("w", {1024, 1024});
  b.input("x", {int64_t{1} << 20}).input("y", {int64_t{1} << 20}).input("s", {int64_t{16}});
  b.output("g").output("z").output("r").output("n");
  b.node("MatMul", {"a", "w"}, {"g"}, "gemm");
  b.node("Add", {"x", "y"}, {"z"}, "add");
  b.node("Relu", {"s"}, {"r"}, "relu");
  b.node("Neg", {"s"}, {"n"}, "neg");
  return b.save("compare-four");
}

// The roofline predictions of the four nodes (see tests/test_predict.cpp for the same by hand).
constexpr double kGemmRoofline = 2.0 * 256 * 1024 * 1024 / 1e12;  // compute-bound
constexpr double kAddRoofline = 3.0 * (1 << 20) * 4 / 1e11;       // memory-bound
constexpr double kTinyRoofline = 16 * 8 / 1e11;                   // relu, neg: 128 bytes
constexpr double kGemm = kGemmRoofline + 1e-5, kAdd = kAddRoofline + 1e-5, kTiny = kTinyRoofline + 1e-5;
constexpr double kWhole = kGemm + kAdd + 2 * kTiny;

// Measured: gemm 1 ms (predicted below), add 50 us (predicted above), relu 0, neg absent, and a
// node the model does not have; whole run 1.5 ms (median).
report::MeasuredRun hand_measured() {
  report::MeasuredRun m;
  m.source = "hand.json";
  m.batch = 256;
  m.threads = 2;
  m.samples = 100;
  m.latency_s = 1.5e-3;
  m.nodes = {{"relu", "Relu", 0.0}, {"add", "Add", 50e-6}, {"ghost", "Identity", 50e-6}, {"gemm", "MatMul", 1e-3}};
  return m;
}

roofline::Prediction predict_four() {
  auto r = analyze_file(four_node_model());
  auto device = hw::load_device_file(device_file());
  return roofline::predict(r.cost, hw::roofline_for(device, device.modes.front()), {});
}

const report::NodeComparison& row(const report::Comparison& c, const std::string& name) {
  for (const auto& n : c.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no row " + name);
}

TEST(CompareReport, ErrorsSharesAndOrderByHand) {
  auto c = report::compare("four.onnx", predict_four(), hand_measured());
  // |difference|: gemm 453 us (predicted below), add 86 us (above), relu 10 us (measured 0).
  const double gemm_diff = kGemm - 1e-3, add_diff = kAdd - 50e-6, relu_diff = kTiny;
  const double total = -gemm_diff + add_diff + relu_diff;
  ASSERT_EQ(c.nodes.size(), 5u);
  // Largest |predicted - measured| first, whatever its sign; then the one-sided nodes, longest first.
  std::vector<std::string> order;
  for (const auto& n : c.nodes) order.push_back(n.name);
  EXPECT_EQ(order, (std::vector<std::string>{"gemm", "add", "relu", "ghost", "neg"}));

  const auto& gemm = row(c, "gemm");
  EXPECT_EQ(gemm.match, report::Match::kCompared);
  EXPECT_EQ(gemm.bound, "compute");
  EXPECT_DOUBLE_EQ(*gemm.predicted_s, kGemm);
  EXPECT_DOUBLE_EQ(*gemm.measured_s, 1e-3);
  EXPECT_DOUBLE_EQ(*gemm.difference_s, gemm_diff);
  EXPECT_NEAR(*gemm.error, kGemm / 1e-3 - 1, 1e-12);  // -45.3%
  EXPECT_NEAR(*gemm.error, -0.453129088, 1e-9);
  EXPECT_NEAR(*gemm.share, -gemm_diff / total, 1e-12);
  EXPECT_DOUBLE_EQ(*gemm.roofline_s, kGemmRoofline);
  EXPECT_NEAR(*gemm.ceiling_fraction, 0.536870912, 1e-9);  // 537 us of roofline in 1 ms

  const auto& add = row(c, "add");
  EXPECT_EQ(add.bound, "memory");
  EXPECT_NEAR(*add.error, kAdd / 50e-6 - 1, 1e-12);  // +171.7%
  EXPECT_NEAR(*add.error, 1.7165824, 1e-9);
  EXPECT_NEAR(*add.share, add_diff / total, 1e-12);
  EXPECT_NEAR(*add.ceiling_fraction, kAddRoofline / 50e-6, 1e-12);  // faster than its roofline: > 1

  // Measured 0: a difference and a share, but no relative error and no achieved fraction.
  const auto& relu = row(c, "relu");
  EXPECT_EQ(relu.match, report::Match::kCompared);
  EXPECT_EQ(relu.bound, "overhead");
  EXPECT_DOUBLE_EQ(*relu.difference_s, kTiny);
  EXPECT_FALSE(relu.error.has_value());
  EXPECT_FALSE(relu.ceiling_fraction.has_value());
  EXPECT_NEAR(*relu.share, relu_diff / total, 1e-12);
  EXPECT_NEAR(*gemm.share + *add.share + *relu.share, 1.0, 1e-12);

  const auto& ghost = row(c, "ghost");
  EXPECT_EQ(ghost.match, report::Match::kNotPredicted);
  EXPECT_DOUBLE_EQ(*ghost.measured_s, 50e-6);
  EXPECT_FALSE(ghost.predicted_s || ghost.error || ghost.share);
  const auto& neg = row(c, "neg");
  EXPECT_EQ(neg.match, report::Match::kNotMeasured);
  EXPECT_DOUBLE_EQ(*neg.predicted_s, kTiny);
  EXPECT_FALSE(neg.measured_s || neg.error || neg.share);

  // Whole model: every node's prediction against the run's median.
  EXPECT_DOUBLE_EQ(c.predicted_s, kWhole);
  EXPECT_DOUBLE_EQ(c.measured_s, 1.5e-3);
  EXPECT_NEAR(*c.error, kWhole / 1.5e-3 - 1, 1e-12);
  EXPECT_NEAR(c.predicted_nodes_s, kGemm + kAdd + kTiny, 1e-15);
  EXPECT_NEAR(c.measured_nodes_s, 1.05e-3, 1e-15);
  EXPECT_NEAR(c.abs_difference_s, total, 1e-15);
  EXPECT_EQ(c.compared, 3);
  EXPECT_EQ(c.not_measured, 1);
  EXPECT_EQ(c.not_predicted, 1);
  EXPECT_DOUBLE_EQ(c.not_measured_s, kTiny);
  EXPECT_DOUBLE_EQ(c.not_predicted_s, 50e-6);
}

TEST(CompareReport, AnotherModelsRunIsRefused) {
  auto m = hand_measured();
  m.nodes = {{"conv1", "Conv", 1e-3}};
  EXPECT_THROW(report::compare("four.onnx", predict_four(), m), Error);
}

std::string print(const report::Document& doc, report::Format format) {
  std::ostringstream out;
  report::print(out, doc, format);
  return out.str();
}

TEST(CompareReport, DocumentInEveryFormat) {
  auto c = report::compare("four.onnx", predict_four(), hand_measured());
  c.inputs = {{"a", "256x1024"}};
  auto doc = report::compare_document(c, 2);

  auto j = json::parse(print(doc, report::Format::kJson));
  EXPECT_EQ(j["model"], "four.onnx");
  EXPECT_EQ(j["device"]["id"], "round");
  EXPECT_FALSE(j["calibrated"].get<bool>());
  EXPECT_EQ(j["measured"]["source"], "hand.json");
  EXPECT_EQ(j["measured"]["threads"], 2);
  EXPECT_DOUBLE_EQ(j["totals"]["predicted_s"].get<double>(), kWhole);
  EXPECT_DOUBLE_EQ(j["totals"]["measured_s"].get<double>(), 1.5e-3);
  EXPECT_NEAR(j["totals"]["error"].get<double>(), kWhole / 1.5e-3 - 1, 1e-12);
  EXPECT_EQ(j["totals"]["compared_nodes"], 3);
  ASSERT_EQ(j["nodes"].size(), 5u);  // every node, not only the top 2 people see
  const auto& first = j["nodes"][0];
  EXPECT_EQ(first["name"], "gemm");
  EXPECT_EQ(first["status"], "compared");
  EXPECT_EQ(first["bound"], "compute");
  EXPECT_NEAR(first["error"].get<double>(), -0.453129088, 1e-9);
  EXPECT_NEAR(first["ceiling_fraction"].get<double>(), 0.536870912, 1e-9);
  // Measured 0: the error is absent, never 0 or inf.
  EXPECT_EQ(j["nodes"][2]["name"], "relu");
  EXPECT_FALSE(j["nodes"][2].contains("error"));
  EXPECT_EQ(j["nodes"][3]["status"], "not predicted");
  EXPECT_EQ(j["nodes"][4]["status"], "not measured");
  EXPECT_FALSE(j["nodes"][4].contains("measured_s"));

  // CSV: the whole model first, then every node; an empty cell where there is no value.
  std::istringstream csv(print(doc, report::Format::kCsv));
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "name,op,status,bound,predicted_s,measured_s,difference_s,error,share,roofline_s,ceiling_fraction,"
            "fused_into,note");
  EXPECT_EQ(lines[1].rfind("(whole model),,whole model,,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("gemm,MatMul,compared,compute,", 0), 0u) << lines[2];
  // relu, measured 0: no error (column 8), no achieved fraction (column 11); a share (column 9).
  std::vector<std::string> relu;
  std::istringstream cells(lines[4]);
  for (std::string cell; std::getline(cells, cell, ',');) relu.push_back(cell);
  ASSERT_GE(relu.size(), 11u) << lines[4];
  EXPECT_EQ(relu[0], "relu");
  EXPECT_EQ(relu[5], "0");
  EXPECT_EQ(relu[7], "");
  EXPECT_NE(relu[8], "");
  EXPECT_EQ(relu[10], "");

  // People: the whole model and the calibration in the header, the top nodes, the one-sided nodes.
  auto text = print(doc, report::Format::kTable);
  EXPECT_NE(
      text.find("device: Round numbers (round), mode full; precision fp32; uncalibrated: times are roofline bounds"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("whole model: predicted 702.7 us vs measured 1.500 ms (median): error -53.2%"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(2 of 3 compared)"), std::string::npos) << text;
  EXPECT_NE(text.find("... 1 more compared nodes"), std::string::npos) << text;
  EXPECT_NE(text.find("-45.3%"), std::string::npos) << text;  // gemm's error
  EXPECT_NE(text.find("171.7%"), std::string::npos) << text;  // add's error
  EXPECT_NE(text.find("53.7%"), std::string::npos) << text;   // gemm's fraction of its ceiling
  EXPECT_EQ(text.find("relu "), std::string::npos) << text;   // below the top 2
  EXPECT_NE(text.find("not a node of the predicted model"), std::string::npos) << text;
  EXPECT_NE(text.find("not in the measured run"), std::string::npos) << text;
  auto md = print(doc, report::Format::kMarkdown);
  EXPECT_NE(md.find("| gemm"), std::string::npos) << md;
}

// A shape-aware calibration in optimized mode: fused nodes are counted in their layer, whose
// ceiling is the group's; the header names the calibration and its held-out error.
TEST(CompareReport, FusedNodesAndCalibrationHeader) {
  roofline::Prediction p;
  p.device_id = "cpu";
  p.device_name = "A CPU";
  p.precision = "fp32";
  p.calibrated = true;
  p.calibration_model = "cpu-cal.json";
  p.exec_mode = "optimized";
  p.threads = 2;
  p.validation = roofline::ValidationError{40, 0.12, 0.30, 0.5};
  auto node = [](std::string name, double time_s, double roofline_s, roofline::Bound bound, std::string into) {
    roofline::NodePrediction n;
    n.name = std::move(name);
    n.op = "Op";
    n.time_s = time_s;
    n.roofline_s = roofline_s;
    n.bound = bound;
    n.fused_into = std::move(into);
    return n;
  };
  p.nodes = {node("conv", 3e-4, 1e-4, roofline::Bound::kCompute, ""),
             node("relu", 0, 2e-5, roofline::Bound::kMemory, "conv"),
             node("shape", 0, 0, roofline::Bound::kNone, "(removed: folded or no-op)"),
             node("fc", 1e-4, 5e-5, roofline::Bound::kMemory, "")};
  p.time_s = 4.1e-4;  // with 10 us of framework time
  p.framework_overhead_s = 1e-5;
  report::MeasuredRun m;
  m.source = "opt.json";
  m.mode = "optimized";
  m.latency_s = 5e-4;
  m.nodes = {{"conv", "Conv", 4e-4}, {"fc", "MatMul", 1e-4}};
  auto c = report::compare("m.onnx", p, m);
  EXPECT_EQ(c.compared, 2);
  EXPECT_EQ(c.fused, 2);
  EXPECT_EQ(c.not_measured, 0);
  const auto& conv = row(c, "conv");
  EXPECT_DOUBLE_EQ(*conv.roofline_s, 1.2e-4);  // its own and the fused Relu's
  EXPECT_NEAR(*conv.ceiling_fraction, 0.3, 1e-12);
  EXPECT_NEAR(*conv.error, -0.25, 1e-12);
  EXPECT_NEAR(*conv.share, 1.0, 1e-12);  // fc is exact
  EXPECT_DOUBLE_EQ(*row(c, "fc").error, 0.0);
  EXPECT_EQ(row(c, "relu").match, report::Match::kFused);
  EXPECT_EQ(row(c, "relu").fused_into, "conv");
  EXPECT_EQ(row(c, "shape").match, report::Match::kRemoved);
  EXPECT_NEAR(*c.error, 4.1e-4 / 5e-4 - 1, 1e-12);
  auto text = print(report::compare_document(c, 0), report::Format::kTable);
  EXPECT_NE(text.find("calibrated estimate for optimized mode, 2 threads (cpu-cal.json; held-out error: median "
                      "12.0%, p90 30.0%,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 nodes run inside the layer before them"), std::string::npos) << text;
  EXPECT_EQ(text.find("not compared"), std::string::npos) << text;  // nothing one-sided
  auto j = json::parse(print(report::compare_document(c, 0), report::Format::kJson));
  EXPECT_EQ(j["calibration"]["model"], "cpu-cal.json");
  EXPECT_EQ(j["nodes"][2]["status"], "fused");
  EXPECT_EQ(j["nodes"][2]["fused_into"], "conv");
  EXPECT_EQ(j["totals"]["fused_nodes"], 2);
}

// A bench file of `runs` (each a JSON object), as `ridge bench -f json` writes it.
std::string bench_file(const std::string& stem, const std::vector<json>& runs, int threads = 2) {
  json doc{{"model", "four.onnx"}, {"environment", {{"threads", threads}, {"logical_cpus", 2}}}, {"runs", runs}};
  auto path = temp_dir() + "/" + stem + ".json";
  std::ofstream(path) << doc.dump(2);
  return path;
}

json hand_run(const std::string& mode) {
  return {{"batch", 256},
          {"input_size", "256x1024"},
          {"mode", mode},
          {"precision", "fp32"},
          {"conv_algo", "auto"},
          {"training", false},
          {"samples", 100},
          {"latency_ms", {{"mean", 1.6}, {"median", 1.5}}},
          {"nodes",
           {{{"name", "gemm"}, {"op", "MatMul"}, {"mean_ms", 1.0}},
            {{"name", "add"}, {"op", "Add"}, {"mean_ms", 0.05}},
            {{"name", "relu"}, {"op", "Relu"}, {"mean_ms", 0.0}},
            {{"name", "ghost"}, {"op", "Identity"}, {"mean_ms", 0.05}}}}};
}

TEST(CompareBenchFile, PicksTheRunBatchAndModeSelect) {
  auto path = bench_file("two-runs", {hand_run("eager"), hand_run("optimized")});
  auto optimized = report::read_bench_json(path, {std::nullopt, "optimized"});
  EXPECT_EQ(optimized.mode, "optimized");
  EXPECT_EQ(optimized.batch, 256);
  EXPECT_EQ(optimized.threads, 2);
  EXPECT_EQ(optimized.samples, 100);
  EXPECT_DOUBLE_EQ(optimized.latency_s, 1.5e-3);  // the median, in seconds
  ASSERT_EQ(optimized.nodes.size(), 4u);
  EXPECT_EQ(optimized.nodes[1].name, "add");
  EXPECT_DOUBLE_EQ(optimized.nodes[1].seconds, 50e-6);
  try {
    report::read_bench_json(path, {});
    FAIL() << "two runs, none chosen";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("'" + path +
                            "' holds 2 runs that match: batch 256, eager, fp32, input 256x1024; batch 256, optimized, "
                            "fp32, input 256x1024; choose one with --batch and --exec-mode")
                               .c_str());
  }
  try {
    report::read_bench_json(path, {int64_t{8}, "eager"});
    FAIL() << "no run at batch 8";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no inference run with batch 8, eager mode; it holds: batch 256, eager"),
              std::string::npos)
        << e.what();
  }
}

TEST(CompareBenchFile, BadFilesGetOneLine) {
  auto expect_error = [](const std::string& path, const std::string& expected) {
    try {
      report::read_bench_json(path, {});
      FAIL() << path << " was accepted";
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(expected), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  expect_error(temp_dir() + "/no-such-bench.json", "cannot read");
  auto malformed = temp_dir() + "/malformed.json";
  std::ofstream(malformed) << "{\"runs\": [\n{\"batch\": 1,";
  expect_error(malformed, "is not valid JSON: parse error at line 2");
  // A number beyond a double's range is nlohmann's out_of_range, not a parse error (found by fuzzing).
  auto huge = temp_dir() + "/huge-number.json";
  std::ofstream(huge) << R"({"runs": [{"batch": 0.04644784874E63139}]})";
  expect_error(huge, "is not valid JSON: number overflow");
  auto no_runs = temp_dir() + "/no-runs.json";
  std::ofstream(no_runs) << R"({"model": "x.onnx"})";
  expect_error(no_runs, "it has no runs[]");
  auto run = hand_run("eager");
  run["nodes"] = json::array();
  expect_error(bench_file("no-nodes", {run}), "has no per-node times");
  run = hand_run("eager");
  run["nodes"][1]["mean_ms"] = "fast";
  expect_error(bench_file("bad-time", {run}), "runs[0].nodes[1].mean_ms: missing or not a number");
  run = hand_run("eager");
  run["training"] = true;
  expect_error(bench_file("training", {run}),
               "has no inference run; it holds: batch 256, eager, fp32, input "
               "256x1024 (training)");
}

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
  expect_one_line_error(run_ridge(base + " --measured " + temp_dir() + "/absent.json"), "cannot read");
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

}  // namespace
}  // namespace ridge::test
