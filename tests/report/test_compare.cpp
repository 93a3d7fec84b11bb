// Predicted against measured (report/compare_report) on a device with round numbers and hand-written
// bench files, so every error, share and the order of the nodes is computed by hand; the document
// builder and the bench-file reader directly.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calib/model.h"
#include "calib/shape_prediction.h"
#include "hw/device_file.h"
#include "hw/roofline.h"
#include "report/compare_codec.h"
#include "report/compare_report.h"
#include "report/printer.h"
#include "roofline/predict.h"
#include "support/compare_fixtures.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace compare_fixtures;  // NOLINT(google-build-using-namespace)

using nlohmann::json;

// Measured: gemm 1 ms (predicted below), add 50 us (predicted above), relu 0, neg absent, and a
// node the model does not have; whole run 1.5 ms (median).
exec::BenchResult hand_measured() {
  exec::BenchResult m;
  m.batch = 256;
  m.mode = "eager";
  m.precision = "fp32";
  m.environment.threads = 2;
  m.latency_ms.samples = 100;
  m.latency_ms.median = 1.5;
  m.nodes = {{"relu", "Relu", 0.0}, {"add", "Add", 50e-3}, {"ghost", "Identity", 50e-3}, {"gemm", "MatMul", 1}};
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
  auto c = report::compare("four.onnx", predict_four(), hand_measured(), "hand.json");
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
  m.nodes = {{"conv1", "Conv", 1}};
  EXPECT_THROW(report::compare("four.onnx", predict_four(), m, "hand.json"), Error);
}

std::string print(const report::Document& doc, report::Format format) {
  std::ostringstream out;
  report::print(out, doc, format);
  return out.str();
}

TEST(CompareReport, DocumentInEveryFormat) {
  auto c = report::compare("four.onnx", predict_four(), hand_measured(), "hand.json");
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
  exec::BenchResult m;
  m.mode = "optimized";
  m.latency_ms.median = 0.5;
  m.nodes = {{"conv", "Conv", 0.4}, {"fc", "MatMul", 0.1}};
  auto c = report::compare("m.onnx", p, m, "opt.json");
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

TEST(CompareBenchFile, PicksTheRunBatchAndModeSelect) {
  auto path = bench_file("two-runs", {hand_run("eager"), hand_run("optimized")});
  auto loaded = report::select_bench_run(path, {std::nullopt, "optimized"});
  const auto& optimized = loaded.run;
  EXPECT_EQ(loaded.path, path);
  EXPECT_EQ(optimized.mode, "optimized");
  EXPECT_EQ(optimized.batch, 256);
  EXPECT_EQ(optimized.environment.threads, 2);
  EXPECT_EQ(optimized.latency_ms.samples, 100);
  EXPECT_DOUBLE_EQ(optimized.latency_ms.median, 1.5);
  ASSERT_EQ(optimized.nodes.size(), 4u);
  EXPECT_EQ(optimized.nodes[1].name, "add");
  EXPECT_DOUBLE_EQ(optimized.nodes[1].mean_ms, 50e-3);
  try {
    report::select_bench_run(path, {});
    FAIL() << "two runs, none chosen";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ("'" + path +
                            "' holds 2 runs that match: batch 256, eager, fp32, input 256x1024; batch 256, optimized, "
                            "fp32, input 256x1024; choose one with --batch and --exec-mode")
                               .c_str());
  }
  try {
    report::select_bench_run(path, {int64_t{8}, "eager"});
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
      report::select_bench_run(path, {});
      FAIL() << path << " was accepted";
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(expected), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  expect_error(temp_dir() + "/no-such-bench.json", "no such file or directory");
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
  expect_error(bench_file("bad-time", {run}), "runs[0].nodes[1].mean_ms is not a number");
  run = hand_run("eager");
  run["training"] = true;
  expect_error(bench_file("training", {run}),
               "has no inference run; it holds: batch 256, eager, fp32, training, input 256x1024");
}

// The compare codec: a comparison round-trips field by field, the run keeps the environment that measured it (a GPU's,
// not the reader's), and it encodes again to the same text.
TEST(CompareCodec, AComparisonRoundTripsFieldByField) {
  auto m = hand_measured();
  m.model = "four.onnx";
  m.environment.device = "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)";
  m.environment.threads = 0;
  m.environment.cpu_model = "Intel(R) Xeon(R) Platinum 8480C";
  auto c = report::compare("four.onnx", predict_four(), m, "hand.json");
  c.inputs = {{"a", "256x1024"}};
  c.notes.push_back("a note");
  auto text = report::encode_comparison(c).dump();
  auto back = report::decode_comparison(json::parse(text), "test");
  EXPECT_EQ(report::encode_comparison(back).dump(), text);
  EXPECT_EQ(back.model, "four.onnx");
  EXPECT_EQ(back.inputs, c.inputs);
  EXPECT_EQ(back.measured_source, "hand.json");
  EXPECT_EQ(back.measured.environment.device, m.environment.device);
  EXPECT_EQ(back.measured.environment.cpu_model, m.environment.cpu_model);
  EXPECT_EQ(back.measured.environment.threads, 0);
  EXPECT_EQ(back.measured.batch, 256);
  EXPECT_DOUBLE_EQ(back.measured.latency_ms.median, 1.5);
  EXPECT_EQ(back.prediction.device_id, c.prediction.device_id);
  EXPECT_DOUBLE_EQ(back.prediction.time_s, c.prediction.time_s);
  EXPECT_DOUBLE_EQ(back.predicted_s, c.predicted_s);
  EXPECT_DOUBLE_EQ(back.measured_s, c.measured_s);
  EXPECT_EQ(back.error, c.error);
  EXPECT_DOUBLE_EQ(back.abs_difference_s, c.abs_difference_s);
  EXPECT_EQ(back.compared, c.compared);
  EXPECT_EQ(back.not_measured, c.not_measured);
  EXPECT_EQ(back.not_predicted, c.not_predicted);
  ASSERT_EQ(back.nodes.size(), c.nodes.size());
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    EXPECT_EQ(back.nodes[i].name, c.nodes[i].name);
    EXPECT_EQ(back.nodes[i].match, c.nodes[i].match);
    EXPECT_EQ(back.nodes[i].predicted_s, c.nodes[i].predicted_s);
    EXPECT_EQ(back.nodes[i].measured_s, c.nodes[i].measured_s);
    EXPECT_EQ(back.nodes[i].error, c.nodes[i].error);
    EXPECT_EQ(back.nodes[i].share, c.nodes[i].share);
    EXPECT_EQ(back.nodes[i].note, c.nodes[i].note);
  }
  EXPECT_EQ(back.notes, c.notes);
  // Its JSON is what `compare -f json` prints, plus the values themselves.
  auto printed = json::parse(print(report::compare_document(c, 0), report::Format::kJson));
  auto encoded = json::parse(text);
  encoded.erase("comparison");
  EXPECT_EQ(printed, encoded);
  // Another command's JSON is refused in one line.
  EXPECT_NE(error_text([&] {
              report::decode_comparison(json{{"model", "x"}}, "x.json");
            }).find("x.json is no `ridge compare -f json` output"),
            std::string::npos);
  auto bad = json::parse(text);
  bad["nodes"][0]["status"] = "guessed";
  EXPECT_NE(error_text([&] { report::decode_comparison(bad, "x.json"); }).find("status 'guessed' is none of"),
            std::string::npos);
}

// A GPU training run's per-node profile (each node's forward and backward summed, then "(loss)" and "(optimizer
// step)") is compared per node with a prediction of a training step, the optimizer row included; an inference
// prediction never meets a training run.
TEST(CompareReport, ATrainingStepsNodesAndOptimizerRowAreComparedPerNode) {
  cost::CostOptions training;
  training.training = true;
  auto r = analyze_file(four_node_model(), {}, training);
  auto device = hw::load_device_file(device_file());
  auto roofline = hw::roofline_for(device, device.modes.front());
  auto prediction = roofline::predict(r.cost, roofline, {});
  ASSERT_TRUE(prediction.training);
  exec::BenchResult run;
  run.training = true;
  run.optimizer = "sgd";
  run.mode = "eager";
  run.latency_ms.median = 2e3 * prediction.time_s;
  for (const auto& n : prediction.nodes) run.nodes.push_back({n.name, n.op, 2e3 * n.time_s});  // twice each
  run.nodes.push_back({"(loss)", "Loss", 1e-3});
  auto c = report::compare("four.onnx", prediction, run, "train.json");
  EXPECT_EQ(c.compared, static_cast<int>(prediction.nodes.size()));
  const auto& optimizer = row(c, "(optimizer step)");
  EXPECT_EQ(optimizer.match, report::Match::kCompared);
  EXPECT_EQ(row(c, "(loss)").match, report::Match::kNotPredicted);
  for (const auto& n : c.nodes) {
    if (n.match != report::Match::kCompared || *n.measured_s <= 0) continue;
    EXPECT_NEAR(*n.error, -0.5, 1e-12) << n.name;
  }
  ASSERT_TRUE(c.error);
  EXPECT_NEAR(*c.error, -0.5, 1e-12);

  auto inference = roofline::predict(analyze_file(four_node_model()).cost, roofline, {});
  EXPECT_NE(error_text([&] { report::compare("four.onnx", inference, run, "train.json"); }).find("--training"),
            std::string::npos);
}

}  // namespace
}  // namespace ridge::test
