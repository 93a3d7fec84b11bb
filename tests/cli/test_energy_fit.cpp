// `ridge calibrate --energy` through the binary: bench results with energy fitted into a device file that
// loads back and predicts with them, refusals, and the energy CSV's table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calib/energy_runs.h"
#include "hw/device_file.h"
#include "hw/energy.h"
#include "hw/roofline.h"
#include "roofline/energy.h"
#include "roofline/energy_fit.h"
#include "support/energy_fit_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace energy_fit_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;
using roofline::EnergyRun;

// ---- end to end: bench results with energy through `ridge calibrate --energy` ----

// A CPU with two modes: the fit is for "fast"; "slow" gets its coefficients scaled.
std::string device_file(const std::string& dir) {
  auto path = dir + "/cpu.yaml";
  std::ofstream(path) << R"(id: energy-cpu
name: Energy CPU
kind: cpu
clocks: {cpu: {max_mhz: 3000, min_mhz: 1000, cores: 4, source: test}}
units: [{name: simd, type: vector, clock: cpu, peak_flops: {fp32: 1.0e11}, source: test}]
memory: [{level: dram, bandwidth: 1.0e10, source: test}]
overhead: {seconds: 1.0e-6, source: test}
modes:
  - {name: fast, clocks: {cpu: 3000}, source: test}
  - {name: slow, clocks: {cpu: 1500}, source: test}
)";
  return path;
}

// W and Q of a model at a batch as predict counts them by default (unfused traffic): every node with
// work, its FLOPs and the bytes it reads and writes. Computed from the cost model, not the fit's reader.
std::pair<double, double> work_of(const std::string& model, int64_t batch) {
  auto a = analyze_file(model, {.batch = batch});
  double w = 0, q = 0;
  for (const auto& n : a.cost.nodes) {
    if (n.status == cost::NodeStatus::kUnknownOp || n.status == cost::NodeStatus::kUnresolved) continue;
    w += static_cast<double>(n.flops);
    q += static_cast<double>(n.bytes());
  }
  return {w, q};
}

struct Point {
  std::string model;
  int64_t batch;
  double mean_ms, energy_j;
};

// The energy of a run of `model` at `batch` under the known coefficients, with a latency that is
// no linear function of W and Q.
Point point(const std::string& model, int64_t batch) {
  auto [w, q] = work_of(model, batch);
  double t = std::max(w / 1e11, q / 1e10) * 1.3 + 2e-3;
  return {model, batch, t * 1e3, kFlop * w + kByte * q + kStatic * t};
}

std::string input_of(const std::string& model, int64_t batch) {
  auto a = analyze_file(model, {.batch = batch});
  return a.inputs.empty() ? "" : a.inputs[0].second;
}

// overall.csv exactly as `ridge bench --csv` writes it (report/bench_report.cpp overall_table).
std::string overall_csv(const std::vector<Point>& points, bool blank_energy_last) {
  std::string text =
      "model,algorithm,input_size,batch,mode,precision,memory_format,threads,training,optimizer,mean_ms,std_ms,min_ms,"
      "max_ms,median_ms,p99_ms,samples,throughput,power_mean_w,energy_per_inference_j,ridge_revision,timestamp\n";
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    bool blank = blank_energy_last && i + 1 == points.size();
    text += fmt::format(
        "{},auto,{},{},eager,fp32,nchw,2,0,,{:.17g},0.01,{:.17g},{:.17g},{:.17g},{:.17g},20,{:.6g},{},{},"
        "abc1234,2024-06-0{}T10:00:00Z\n",
        p.model, input_of(p.model, p.batch), p.batch, p.mean_ms, p.mean_ms * 0.99, p.mean_ms * 1.02, p.mean_ms,
        p.mean_ms * 1.01, static_cast<double>(p.batch) * 1e3 / p.mean_ms,
        blank ? "" : fmt::format("{:.17g}", p.energy_j / (p.mean_ms / 1e3)),
        blank ? "" : fmt::format("{:.17g}", p.energy_j), i + 1);
  }
  return text;
}

// `ridge bench -f json` output of one model's runs, each with its energy figures.
std::string bench_json(const std::vector<Point>& points) {
  nlohmann::ordered_json doc;
  doc["ridge_version"] = "0.1.0";
  doc["model"] = points.front().model;
  doc["environment"] = {{"cpu", "Test CPU"}, {"logical_cpus", 2},         {"threads", 2},
                        {"device", "cpu"},   {"torch_version", "1.13.0"}, {"ridge_revision", "abc1234"}};
  doc["runs"] = nlohmann::ordered_json::array();
  for (const auto& p : points) {
    doc["runs"].push_back({{"batch", p.batch},
                           {"input_size", input_of(p.model, p.batch)},
                           {"mode", "eager"},
                           {"precision", "fp32"},
                           {"memory_format", "nchw"},
                           {"conv_algo", "auto"},
                           {"training", false},
                           {"latency_ms", {{"mean", p.mean_ms}, {"std", 0.01}, {"median", p.mean_ms}}},
                           {"throughput", static_cast<double>(p.batch) * 1e3 / p.mean_ms},
                           {"samples", 20},
                           {"power_mean_w", p.energy_j / (p.mean_ms / 1e3)},
                           {"energy_per_inference_j", p.energy_j},
                           {"nodes", nlohmann::ordered_json::array()}});
  }
  return doc.dump(2);
}

TEST(EnergyFitCli, BenchResultsWithEnergyFitIntoADeviceFileThatPredictsWithThem) {
  auto dir = temp_dir() + "/energy-fit-cli";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bench");
  auto device = device_file(dir);
  auto alexnet = model_path("alexnet"), mobilenet = model_path("mobilenet_v2");
  std::vector<Point> csv_points = {point(alexnet, 1), point(alexnet, 4), point(alexnet, 16), point(alexnet, 2)};
  std::ofstream(dir + "/bench/overall.csv") << overall_csv(csv_points, true);  // the last run has no energy
  std::ofstream(dir + "/mobilenet.json") << bench_json({point(mobilenet, 1), point(mobilenet, 8)});
  auto out = dir + "/cpu-energy.yaml";
  auto r = run_ridge("calibrate --energy --device " + device + ":fast --measured " + dir + "/bench --measured " + dir +
                     "/mobilenet.json -o " + out + " -f json --no-store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_NEAR(doc["e_flop_j"].get<double>(), kFlop, kFlop * 1e-6);
  EXPECT_NEAR(doc["e_byte_j"].get<double>(), kByte, kByte * 1e-6);
  EXPECT_NEAR(doc["p_static_w"].get<double>(), kStatic, kStatic * 1e-6);
  EXPECT_LT(doc["error"]["max_rel"].get<double>(), 1e-6);
  EXPECT_LE(doc["error"]["median_rel"].get<double>(), doc["error"]["max_rel"].get<double>());
  EXPECT_NEAR(doc["r2"].get<double>(), 1, 1e-9);
  EXPECT_EQ(doc["mode"], "fast");
  EXPECT_EQ(doc["traffic"], "unfused");
  ASSERT_EQ(doc["runs"].size(), 5u);
  for (const auto& run : doc["runs"]) {
    EXPECT_NEAR(run["fitted_j"].get<double>(), run["measured_j"].get<double>(), 1e-6 * run["measured_j"].get<double>());
    EXPECT_TRUE(run.contains("flops") && run.contains("bytes") && run.contains("time_s") && run.contains("rel_error"));
  }
  // W and Q of the first run are the cost model's; T its mean latency.
  auto [w, q] = work_of(alexnet, 1);
  EXPECT_DOUBLE_EQ(doc["runs"][0]["flops"].get<double>(), w);
  EXPECT_DOUBLE_EQ(doc["runs"][0]["bytes"].get<double>(), q);
  EXPECT_DOUBLE_EQ(doc["runs"][0]["time_s"].get<double>(), csv_points[0].mean_ms / 1e3);
  // The run without energy is named, not fitted as zero.
  std::string notes = doc["notes"].dump();
  EXPECT_NE(notes.find("skipped"), std::string::npos) << notes;
  EXPECT_NE(notes.find("batch 2"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no energy_per_inference_j"), std::string::npos) << notes;

  // The device file written loads back with the coefficients, labelled measured, for mode fast.
  auto loaded = hw::load_device_file(out);
  ASSERT_EQ(loaded.energy.size(), 1u);
  const auto& e = loaded.energy[0];
  EXPECT_EQ(e.mode, "fast");
  EXPECT_EQ(e.label, hw::kMeasured);
  EXPECT_DOUBLE_EQ(e.e_flop_j.at("*"), doc["e_flop_j"].get<double>());
  EXPECT_DOUBLE_EQ(e.e_byte_j, doc["e_byte_j"].get<double>());
  EXPECT_DOUBLE_EQ(e.p_static_w, doc["p_static_w"].get<double>());
  EXPECT_NE(e.source.find("median |error|"), std::string::npos) << e.source;
  EXPECT_NE(e.source.find("mobilenet.json"), std::string::npos) << e.source;

  // A prediction on mode fast uses them (measured); mode slow gets them scaled (estimate).
  auto fast = hw::roofline_for(loaded, hw::resolve_mode(loaded, "fast"));
  ASSERT_TRUE(fast.energy.has_value());
  EXPECT_EQ(fast.energy->label, hw::kMeasured);
  auto a = analyze_file(alexnet, {.batch = 4});
  auto prediction = roofline::predict(a.cost, fast, {});
  EXPECT_TRUE(prediction.energy_predicted);
  EXPECT_EQ(prediction.energy_label, hw::kMeasured);
  auto [w4, q4] = work_of(alexnet, 4);
  EXPECT_NEAR(prediction.energy_j, e.e_flop_j.at("*") * w4 + e.e_byte_j * q4 + e.p_static_w * prediction.time_s,
              1e-9 * prediction.energy_j);
  auto slow = hw::roofline_for(loaded, hw::resolve_mode(loaded, "slow"));
  ASSERT_TRUE(slow.energy.has_value());
  EXPECT_EQ(slow.energy->label, hw::kEstimate);
  EXPECT_LT(slow.energy->e_flop("fp32"), e.e_flop_j.at("*"));
  EXPECT_DOUBLE_EQ(slow.energy->p_static_w, e.p_static_w);

  // Fitting again over the written file replaces the entry of mode fast rather than adding one.
  auto store = dir + "/energy.db";
  fs::remove(store);
  auto again = run_ridge("calibrate --energy --device " + out + ":fast --measured " + dir + "/bench --measured " + dir +
                         "/mobilenet.json -o " + dir + "/again.yaml --store " + store);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("e_flop"), std::string::npos) << again.out;
  EXPECT_EQ(hw::load_device_file(dir + "/again.yaml").energy.size(), 1u);

  // The store keeps the fit typed: its headline is the fit's, and the same fit printed as JSON elsewhere comes in
  // through `results import` with the same headline.
  auto list = nlohmann::json::parse(run_ridge("results --store " + store + " -f json").out);
  ASSERT_EQ(list["results"].size(), 1u);
  auto headline = fmt::format("5 runs, median |error| {:.1f}%, R^2 {:.4f}",
                              doc["error"]["median_rel"].get<double>() * 100, doc["r2"].get<double>());
  EXPECT_EQ(list["results"][0]["result"], headline) << list.dump();
  std::ofstream(dir + "/fit.json") << r.out;
  auto other = dir + "/energy-other.db";
  fs::remove(other);
  auto imported = run_ridge("results import " + dir + "/fit.json --store " + other);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  auto other_list = nlohmann::json::parse(run_ridge("results --store " + other + " -f json").out);
  ASSERT_EQ(other_list["results"].size(), 1u);
  EXPECT_EQ(other_list["results"][0]["command"], "calibrate");
  EXPECT_EQ(other_list["results"][0]["result"], headline);
}

TEST(EnergyFitCli, RefusesRunsOfOneModelAtOneBatchAndFilesWithoutEnergy) {
  auto dir = temp_dir() + "/energy-fit-refuse";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bench");
  auto device = device_file(dir);
  auto alexnet = model_path("alexnet");
  auto p = point(alexnet, 2);
  auto p2 = p;
  p2.mean_ms *= 1.01;
  p2.energy_j *= 1.02;
  auto p3 = p;
  p3.mean_ms *= 0.98;
  std::ofstream(dir + "/bench/overall.csv") << overall_csv({p, p2, p3}, false);
  auto r = run_ridge("calibrate --energy --device " + device + " --measured " + dir + "/bench --no-store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("e_flop_j, e_byte_j and p_static_w cannot be separated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("different batch sizes"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  // Every run without energy: nothing to fit, said in one line.
  std::ofstream(dir + "/bench/overall.csv") << overall_csv({p}, true);
  r = run_ridge("calibrate --energy --device " + device + " --measured " + dir + "/bench --no-store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no run with an energy figure"), std::string::npos) << r.err;

  // A node-times file is not an energy source.
  std::ofstream(dir + "/nodes.csv") << "node,time_s\nconv,0.001\n";
  r = run_ridge("calibrate --energy --device " + device + " --measured " + dir + "/nodes.csv --no-store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("neither an energy CSV"), std::string::npos) << r.err;

  // Energies that fall with the FLOPs: e_flop would be held at 0, which no device file may hold.
  std::string csv = "flops,bytes,time_s,energy_j\n";
  for (auto r : synthetic(0, kByte, kStatic, 8)) {
    r.energy_j -= 1e-12 * r.flops;
    csv += fmt::format("{:.17g},{:.17g},{:.17g},{:.17g}\n", r.flops, r.bytes, r.time_s, r.energy_j);
  }
  std::ofstream(dir + "/falling.csv") << csv;
  r = run_ridge("calibrate --energy --device " + device + " --measured " + dir + "/falling.csv --no-store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("the runs want e_flop_j negative"), std::string::npos) << r.err;

  // A model with --energy is refused.
  r = run_ridge("calibrate " + alexnet + " --energy --device " + device + " --measured " + dir + "/bench --no-store");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("give no MODEL"), std::string::npos) << r.err;
}

TEST(EnergyFitCli, AnEnergyCsvFitsAndTheTablePrintsTheCoefficients) {
  auto dir = temp_dir() + "/energy-fit-csv";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto device = device_file(dir);
  std::string csv = "label,flops,bytes,time_s,energy_j\n";
  for (const auto& r : synthetic(kFlop, kByte, kStatic, 6, wobble))
    csv += fmt::format("{},{:.17g},{:.17g},{:.17g},{:.17g}\n", r.label, r.flops, r.bytes, r.time_s, r.energy_j);
  std::ofstream(dir + "/meter.csv") << csv;
  auto r = run_ridge("calibrate --energy --device " + device + ":slow --measured " + dir + "/meter.csv -o " + dir +
                     "/out.yaml --no-store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"e_flop", "e_byte", "p_static", "+-", "median |error|", "R^2", "run 5", "out.yaml"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  auto loaded = hw::load_device_file(dir + "/out.yaml");
  ASSERT_EQ(loaded.energy.size(), 1u);
  EXPECT_EQ(loaded.energy[0].mode, "slow");
}

// Time and energy calibrations live in one device file: fitting energy on a device file that carries a shape-aware
// calibration keeps it, and where the copy is written elsewhere its model file is named relative to the copy.
TEST(EnergyFitCli, AnEnergyFitKeepsTheTimeCalibrationWhereverItIsWritten) {
  auto dir = temp_dir() + "/energy-fit-both";
  fs::remove_all(dir);
  fs::create_directories(dir + "/elsewhere");
  auto device = device_file(dir);
  std::ofstream(device, std::ios::app) << "calibration: {fitted_from: runs, nodes: 12, overhead_s: 0, model: "
                                          "cpu.model.json}\n";
  std::ofstream(dir + "/cpu.model.json") << "{}\n";
  std::string csv = "label,flops,bytes,time_s,energy_j\n";
  for (const auto& r : synthetic(kFlop, kByte, kStatic, 6, wobble))
    csv += fmt::format("{},{:.17g},{:.17g},{:.17g},{:.17g}\n", r.label, r.flops, r.bytes, r.time_s, r.energy_j);
  std::ofstream(dir + "/meter.csv") << csv;
  auto out = dir + "/elsewhere/both.yaml";
  auto r = run_ridge("calibrate --energy --device " + device + ":slow --measured " + dir + "/meter.csv -o " + out +
                     " --no-store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream written(out);
  std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("model: ../cpu.model.json"), std::string::npos) << text;
  auto loaded = hw::load_device_file(out);
  ASSERT_EQ(loaded.energy.size(), 1u);
  ASSERT_TRUE(loaded.calibration);
  EXPECT_EQ(loaded.calibration->nodes, 12);
  EXPECT_TRUE(fs::equivalent(loaded.calibration->model_file, dir + "/cpu.model.json"))
      << loaded.calibration->model_file;
}

}  // namespace
}  // namespace ridge::test
