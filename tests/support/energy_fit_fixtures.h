#pragma once
// What the in-process tests (tests/roofline/test_energy_fit.cpp, tests/report/test_calibrate_command.cpp) and the
// binary-driven tests (tests/cli/test_energy_fit.cpp) share: synthetic runs, and bench results with energy written as
// `ridge bench` writes them for a CPU device file with two modes.
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
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::energy_fit_fixtures {

namespace fs = std::filesystem;
using roofline::EnergyRun;

inline constexpr double kFlop = 2e-11, kByte = 1.5e-10, kStatic = 6.0;  // J/FLOP, J/B, W

// Runs of varied intensity: W from 1e8 to 3e10 FLOP, Q from 1e6 to 4e9 B, T neither a function of W
// nor of Q alone. `noise(i)` scales run i's energy.
inline std::vector<EnergyRun> synthetic(double e_flop, double e_byte, double p_static, int count,
                                        double (*noise)(int) = nullptr) {
  std::vector<EnergyRun> runs;
  for (int i = 0; i < count; ++i) {
    EnergyRun r;
    r.label = fmt::format("run {}", i);
    r.source = "test";
    r.flops = 1e8 * (1 + (i * 37) % 300);
    r.bytes = 1e6 * (1 + (i * 53) % 4000);
    r.time_s = std::max(r.flops / 1e12, r.bytes / 1e11) + 2e-3 * (1 + (i * 7) % 5);
    r.energy_j = (e_flop * r.flops + e_byte * r.bytes + p_static * r.time_s) * (noise ? noise(i) : 1.0);
    runs.push_back(r);
  }
  return runs;
}

// +-3% of deterministic, zero-mean-ish noise.
inline double wobble(int i) { return 1 + 0.03 * std::sin(1.7 * i + 0.3); }

// A CPU with two modes: the fit is for "fast"; "slow" gets its coefficients scaled.
inline std::string device_file(const std::string& dir) {
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
inline std::pair<double, double> work_of(const std::string& model, int64_t batch) {
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
inline Point point(const std::string& model, int64_t batch) {
  auto [w, q] = work_of(model, batch);
  double t = std::max(w / 1e11, q / 1e10) * 1.3 + 2e-3;
  return {model, batch, t * 1e3, kFlop * w + kByte * q + kStatic * t};
}

inline std::string input_of(const std::string& model, int64_t batch) {
  auto a = analyze_file(model, {.batch = batch});
  return a.inputs.empty() ? "" : a.inputs[0].second;
}

// overall.csv exactly as `ridge bench --csv` writes it (report/bench_report.cpp overall_table).
inline std::string overall_csv(const std::vector<Point>& points, bool blank_energy_last) {
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
inline std::string bench_json(const std::vector<Point>& points) {
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

}  // namespace ridge::test::energy_fit_fixtures
