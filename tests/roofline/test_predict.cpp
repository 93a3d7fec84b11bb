// Roofline prediction and calibration against hand-computed cases on a device with round numbers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hw/device_file.h"
#include "hw/roofline.h"
#include "roofline/family_calibration.h"
#include "roofline/predict.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

// 1 TFLOP/s fp32 at 1000 MHz, 100 GB/s DRAM, 10 us per op; mode "half" runs at 500 MHz.
const char* kDevice = R"(id: round
name: Round numbers
kind: gpu
clocks: {gpu: {max_mhz: 1000, min_mhz: 100, source: test}}
units: [{name: alu, type: vector, clock: gpu, peak_flops: {fp32: 1.0e12}, source: test}]
memory: [{level: dram, bandwidth: 1.0e11, source: test}]
overhead: {seconds: 1.0e-5, source: test}
modes:
  - {name: full, source: test}
  - {name: half, clocks: {gpu: 500}, source: test}
)";

std::string device_file() {
  auto path = temp_dir() + "/round.yaml";
  std::ofstream(path) << kDevice;
  return path;
}

// gemm: A[256,1024] x W[1024,1024] (compute-bound); add: two 2^20 vectors (memory-bound);
// relu: 16 elements (overhead-bound).
std::string three_node_model() {
  ModelBuilder b;
  b.input("a", {int64_t{256}, int64_t{1024}}).weight("w", {1024, 1024});
  b.input("x", {int64_t{1} << 20}).input("y", {int64_t{1} << 20}).input("s", {int64_t{16}});
  b.output("g").output("z").output("r");
  b.node("MatMul", {"a", "w"}, {"g"}, "gemm");
  b.node("Add", {"x", "y"}, {"z"}, "add");
  b.node("Relu", {"s"}, {"r"}, "relu");
  return b.save("three");
}

roofline::Prediction predict_on(const std::string& mode, const hw::Device& device) {
  auto r = analyze_file(three_node_model());
  return roofline::predict(r.cost, hw::roofline_for(device, hw::resolve_mode(device, mode)), {});
}

const roofline::NodePrediction& node(const roofline::Prediction& p, const std::string& name) {
  for (const auto& n : p.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

// The device's 10 us per op is a default (no label: an estimate): the bound is the roofline alone, and what the
// overhead would add is reported beside it, never counted (a default can exceed what the hardware does).
TEST(Predict, ComputeMemoryAndOverheadBoundNodes) {
  auto device = hw::load_device_file(device_file());
  EXPECT_EQ(device.overhead_label, hw::kEstimate);
  auto p = predict_on("full", device);
  const auto& gemm = node(p, "gemm");
  EXPECT_EQ(gemm.bound, roofline::Bound::kCompute);
  EXPECT_DOUBLE_EQ(gemm.compute_s, 2.0 * 256 * 1024 * 1024 / 1e12);
  EXPECT_DOUBLE_EQ(gemm.memory_s, (256 * 1024 + 1024 * 1024 + 256 * 1024) * 4 / 1e11);
  EXPECT_DOUBLE_EQ(gemm.time_s, 2.0 * 256 * 1024 * 1024 / 1e12);
  EXPECT_EQ(gemm.overhead_s, 0);
  const auto& add = node(p, "add");
  EXPECT_EQ(add.bound, roofline::Bound::kMemory);
  EXPECT_DOUBLE_EQ(add.time_s, 3.0 * (1 << 20) * 4 / 1e11);
  EXPECT_DOUBLE_EQ(add.attainable_flops, (1 << 20) / (3.0 * (1 << 20) * 4 / 1e11));  // intensity x bandwidth
  const auto& relu = node(p, "relu");
  EXPECT_EQ(relu.bound, roofline::Bound::kMemory);  // 128 bytes: its roofline, however small
  EXPECT_DOUBLE_EQ(relu.time_s, 16 * 8 / 1e11);
  EXPECT_DOUBLE_EQ(p.time_s, gemm.time_s + add.time_s + relu.time_s);
  EXPECT_DOUBLE_EQ(p.overhead_excluded_s, 3 * 1e-5);  // three kernels at the estimate, shown, not counted
  EXPECT_DOUBLE_EQ(p.overhead_bound_s, 0);
  EXPECT_DOUBLE_EQ(p.throughput, 1.0 / p.time_s);
  EXPECT_FALSE(p.calibrated);
}

// A measured overhead enters the bound. On a GPU a launch overlaps the kernel before it, but kernels on one stream
// start no closer than the measured launch spacing: max(roofline, overhead). On a CPU one thread dispatches, then
// computes: roofline + overhead.
TEST(Predict, AMeasuredOverheadBoundsGpuNodesAndAddsToCpuNodes) {
  const double gemm_s = 2.0 * 256 * 1024 * 1024 / 1e12, add_s = 3.0 * (1 << 20) * 4 / 1e11, relu_s = 16 * 8 / 1e11;
  std::string text = kDevice;
  text.replace(text.find("source: test}\nmodes"), 0, "label: measured, ");
  for (const char* kind : {"gpu", "cpu"}) {
    auto typed = text;
    typed.replace(typed.find("kind: gpu"), 9, std::string("kind: ") + kind);
    auto device = hw::parse_device_yaml(typed, "round.yaml");
    EXPECT_EQ(device.overhead_label, hw::kMeasured);
    auto p = predict_on("full", device);
    EXPECT_EQ(p.overhead_excluded_s, 0);
    bool gpu = std::string(kind) == "gpu";
    EXPECT_DOUBLE_EQ(node(p, "gemm").time_s, gpu ? gemm_s : gemm_s + 1e-5) << kind;
    EXPECT_DOUBLE_EQ(node(p, "add").time_s, gpu ? add_s : add_s + 1e-5) << kind;
    EXPECT_DOUBLE_EQ(node(p, "relu").time_s, gpu ? 1e-5 : relu_s + 1e-5) << kind;
    EXPECT_EQ(node(p, "relu").bound, roofline::Bound::kOverhead) << kind;
    EXPECT_EQ(node(p, "gemm").bound, roofline::Bound::kCompute) << kind;
    EXPECT_DOUBLE_EQ(p.overhead_bound_s, node(p, "relu").time_s) << kind;
  }
  // Anything but measured or estimate is refused in one line.
  auto bad = text;
  bad.replace(bad.find("label: measured"), 15, "label: guessed");
  EXPECT_THROW(hw::parse_device_yaml(bad, "round.yaml"), Error);
}

TEST(Predict, SweepAcrossModesScalesComputeOnly) {
  auto device = hw::load_device_file(device_file());
  auto full = predict_on("full", device), half = predict_on("half", device);
  EXPECT_DOUBLE_EQ(node(half, "gemm").compute_s, 2 * node(full, "gemm").compute_s);  // half the clock
  EXPECT_DOUBLE_EQ(node(half, "add").memory_s, node(full, "add").memory_s);          // DRAM clock unchanged
  auto custom = predict_on("gpu=250MHz", device);
  EXPECT_DOUBLE_EQ(node(custom, "gemm").compute_s, 4 * node(full, "gemm").compute_s);
}

TEST(Predict, UnknownOpsAreNamedNotZero) {
  ModelBuilder b;
  b.input("x", {int64_t{4}}).output("y");
  b.node("Mystery", {"x"}, {"y"}, "m");
  auto r = analyze_file(b.save("mystery"));
  auto device = hw::load_device_file(device_file());
  auto p = roofline::predict(r.cost, hw::roofline_for(device, device.modes.front()), {});
  EXPECT_EQ(p.unpredicted_ops.at("Mystery"), 1);
  EXPECT_FALSE(p.nodes.at(0).predicted);
}

TEST(Calibrate, RecoversEfficiencyAndOverheadFromMeasurements) {
  auto device = hw::load_device_file(device_file());
  auto p = predict_on("full", device);
  // Synthetic measurements: matmul at 50% of its roofline, elementwise at 25%, 20 us per op.
  auto measured_path = temp_dir() + "/measured.csv";
  {
    std::ofstream csv(measured_path);
    csv << "node,seconds\n";
    for (const char* name : {"gemm", "add", "relu"}) {
      const auto& n = node(p, name);
      double efficiency = n.family == "matmul" ? 0.5 : 0.25;
      csv << name << "," << std::max(n.compute_s, n.memory_s) / efficiency + 2e-5 << "\n";
    }
    csv << "not_a_node,1e-3\n";
  }
  auto fit = roofline::fit_calibration(p, roofline::read_node_times(measured_path), measured_path);
  EXPECT_EQ(fit.unmatched, 1);
  EXPECT_EQ(fit.calibration.nodes, 3);
  EXPECT_NEAR(fit.calibration.overhead_s, 2e-5, 1e-9);
  EXPECT_NEAR(fit.calibration.efficiency.at("matmul"), 0.5, 1e-6);
  EXPECT_NEAR(fit.calibration.efficiency.at("elementwise"), 0.25, 1e-6);
  // The calibrated device file predicts the measurements back, and says it is calibrated.
  auto calibrated_path = temp_dir() + "/round-calibrated.yaml";
  std::ofstream(calibrated_path) << roofline::calibrated_device_yaml(device_file(), fit.calibration);
  auto calibrated = hw::load_device_file(calibrated_path);
  auto again = predict_on("full", calibrated);
  EXPECT_TRUE(again.calibrated);
  for (const auto& m : roofline::read_node_times(measured_path))
    if (m.name != "not_a_node") {
      EXPECT_NEAR(node(again, m.name).time_s, m.seconds, 1e-9) << m.name;
    }
}

TEST(Calibrate, BadMeasurements) {
  auto path = temp_dir() + "/bad.csv";
  std::ofstream(path) << "node,seconds\ngemm,fast\n";
  EXPECT_THROW(roofline::read_node_times(path), Error);
  std::ofstream(path) << "layer_name,t\ngemm,1\n";
  EXPECT_THROW(roofline::read_node_times(path), Error);
  auto device = hw::load_device_file(device_file());
  std::ofstream(path) << "node,seconds\nnothing,1e-3\n";
  EXPECT_THROW(roofline::fit_calibration(predict_on("full", device), roofline::read_node_times(path), path), Error);
}

std::vector<roofline::MeasuredNode> parse(const std::string& text) {
  std::istringstream in(text);
  return roofline::parse_node_times(in, "test.csv");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// bench's nodes.csv has mean_ms and seconds: the time is in seconds whichever column is read.
TEST(Calibrate, TimeUnitsComeFromColumnNames) {
  auto bench = parse("node,op,mean_ms,seconds\nconv,Conv,2.500000,0.0025\n");
  ASSERT_EQ(bench.size(), 1u);
  EXPECT_DOUBLE_EQ(bench[0].seconds, 0.0025);
  EXPECT_DOUBLE_EQ(parse("seconds,node\n0.0025,conv\n")[0].seconds, 0.0025);
  EXPECT_DOUBLE_EQ(parse("node,mean_ms\nconv,2.5\n")[0].seconds, 0.0025);
  EXPECT_DOUBLE_EQ(parse("name,time_us\nconv,2500\n")[0].seconds, 0.0025);
  EXPECT_DOUBLE_EQ(parse("layer,median_ns\nconv,2500000\n")[0].seconds, 0.0025);
  EXPECT_DOUBLE_EQ(parse("node,ms\nconv,2.5\n")[0].seconds, 0.0025);
  // The mean is the time; a median or a max beside it is not read.
  EXPECT_DOUBLE_EQ(parse("node,max_ms,median_ms,mean_s\nconv,9,3,0.0025\n")[0].seconds, 0.0025);
}

TEST(Calibrate, AmbiguousTimeColumnsAreRefusedWithOneLine) {
  auto bare = error_of("node,time\nconv,2.5\n");
  EXPECT_NE(bare.find("'time' has no unit"), std::string::npos) << bare;
  EXPECT_EQ(bare.find('\n'), std::string::npos);
  EXPECT_NE(error_of("node,mean\nconv,2.5\n").find("'mean' has no unit"), std::string::npos);
  auto disagree = error_of("node,mean_ms,seconds\nconv,2.5,2.5\n");
  EXPECT_NE(disagree.find("disagree"), std::string::npos) << disagree;
  EXPECT_EQ(disagree.find('\n'), std::string::npos);
  EXPECT_NE(error_of("node,bytes\nconv,2.5\n").find("needs a node column"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  auto twice = error_of("node,seconds\nconv,1e-3\nconv,2e-3\n");
  EXPECT_NE(twice.find("line 3: node 'conv' was measured on line 2 already"), std::string::npos) << twice;
}

// A Flatten is a node of the model that costs nothing: its measured time matches, it is just not fitted.
TEST(Calibrate, ZeroCostNodesAreMatched) {
  ModelBuilder b;
  b.input("a", {int64_t{64}, int64_t{4}, int64_t{16}}).weight("w", {64, 32});
  b.output("g").output("h");
  b.node("Flatten", {"a"}, {"f"}, "flatten");
  b.node("MatMul", {"f", "w"}, {"m"}, "gemm");
  b.node("Relu", {"m"}, {"g"}, "relu");
  b.node("Relu", {"a"}, {"h"}, "relu2");
  auto r = analyze_file(b.save("flatten"));
  auto device = hw::load_device_file(device_file());
  auto p = roofline::predict(r.cost, hw::roofline_for(device, device.modes.front()), {});
  ASSERT_EQ(node(p, "flatten").bound, roofline::Bound::kNone);
  auto fit =
      roofline::fit_calibration(p, parse("node,seconds\nflatten,1e-6\ngemm,3e-5\nrelu,2e-5\nrelu2,3e-5\n"), "test.csv");
  EXPECT_EQ(fit.unmatched, 0);
  EXPECT_EQ(fit.without_work, 1);
  EXPECT_EQ(fit.calibration.nodes, 3);
}

// Everything of a device, as text, to compare two loads of it.
std::string describe(const hw::Device& d) {
  std::string s = fmt::format("{}|{}|{}|{}|{}\n", d.id, d.name, d.kind, d.overhead_s, d.overhead_source);
  for (const auto& [name, c] : d.clocks)
    s += fmt::format("clock {} {} {} {} {}\n", name, c.max_mhz, c.min_mhz, c.cores, c.source);
  for (const auto& u : d.units) {
    s += fmt::format("unit {} {} {} {} {} {} {}\n", u.name, static_cast<int>(u.type), u.clock, u.scales_with_cores,
                     u.key_prefix, u.source, u.label);
    for (const auto& [precision, peak] : u.peak_flops) s += fmt::format("  {} {}\n", precision, peak);
  }
  for (const auto& m : d.memory)
    s += fmt::format("memory {} {} {} {} {} {} {}\n", m.level, m.kind, m.size_bytes, m.bandwidth, m.clock, m.source,
                     m.label);
  for (const auto& m : d.modes) {
    s += fmt::format("mode {} {} {}\n", m.name, m.source, m.power_budget_w.value_or(-1));
    for (const auto& [domain, mhz] : m.clocks_mhz) s += fmt::format("  clock {} {}\n", domain, mhz);
    for (const auto& [domain, cores] : m.cores) s += fmt::format("  cores {} {}\n", domain, cores);
  }
  if (d.tdp_w) s += fmt::format("tdp {} {}\n", d.tdp_w->value, d.tdp_w->source);
  if (d.idle_w) s += fmt::format("idle {} {}\n", d.idle_w->value, d.idle_w->source);
  if (d.calibration) {
    s += fmt::format("calibration {} {} {}\n", d.calibration->fitted_from, d.calibration->nodes,
                     d.calibration->overhead_s);
    for (const auto& [family, e] : d.calibration->efficiency) s += fmt::format("  {} {}\n", family, e);
  }
  return s;
}

// The calibrated copy of a rich device file (an SoC with modes, power figures and a CPU unit)
// keeps every figure and source and loads back identically, plus the calibration; calibrating
// the copy again replaces the calibration.
TEST(Calibrate, CalibratedDeviceFileKeepsEverythingOfTheOriginal) {
  auto original_path = source_path("devices/jetson-agx-orin-64gb.yaml");
  auto original = hw::load_device_file(original_path);
  hw::Calibration c;
  c.fitted_from = "nodes \"quoted\".csv";
  c.nodes = 17;
  c.overhead_s = 1.234567890123e-5;
  c.efficiency = {{"conv", 0.61234567}, {"elementwise", 1.0 / 3}};
  auto path = temp_dir() + "/orin-calibrated.yaml";
  std::ofstream(path) << roofline::calibrated_device_yaml(original_path, c);
  auto calibrated = hw::load_device_file(path);
  ASSERT_TRUE(calibrated.calibration);
  EXPECT_EQ(calibrated.calibration->fitted_from, c.fitted_from);
  EXPECT_EQ(calibrated.calibration->nodes, 17);
  EXPECT_EQ(calibrated.calibration->overhead_s, c.overhead_s);
  EXPECT_EQ(calibrated.calibration->efficiency, c.efficiency);
  auto expected = original;
  expected.calibration = c;
  expected.file = calibrated.file = "";
  EXPECT_EQ(describe(calibrated), describe(expected));
  c.nodes = 3;
  auto again_path = temp_dir() + "/orin-calibrated-again.yaml";
  std::ofstream(again_path) << roofline::calibrated_device_yaml(path, c);
  auto again = hw::load_device_file(again_path);
  expected.calibration = c;
  again.file = "";
  EXPECT_EQ(describe(again), describe(expected));
}

// A gemm unit (the measured GEMM rate of the host) is the ceiling of matrix families; elementwise
// nodes stay at the vector peak.
TEST(Predict, GemmCeilingPricesMatrixFamilies) {
  std::string text = kDevice;
  auto units = text.find("units: [");
  text.insert(units + 8,
              "{name: blas, type: gemm, clock: gpu, label: measured, peak_flops: {fp32: 2.5e11}, "
              "source: test}, ");
  auto path = temp_dir() + "/round-gemm.yaml";
  std::ofstream(path) << text;
  auto device = hw::load_device_file(path);
  auto p = predict_on("full", device);
  const auto& gemm = node(p, "gemm");
  EXPECT_EQ(gemm.peak_key, "fp32_gemm");
  EXPECT_DOUBLE_EQ(gemm.peak_flops, 2.5e11);
  EXPECT_DOUBLE_EQ(gemm.compute_s, 2.0 * 256 * 1024 * 1024 / 2.5e11);
  EXPECT_EQ(node(p, "add").peak_key, "fp32");
  EXPECT_EQ(p.ceilings_used.at("peak_flops.fp32_gemm"), "measured");
  // Modes scale it with the clock like any unit.
  EXPECT_DOUBLE_EQ(node(predict_on("half", device), "gemm").peak_flops, 1.25e11);
}

TEST(Predict, PrecisionWithoutFigureIsRefused) {
  auto device = hw::load_device_file(device_file());
  auto r = analyze_file(three_node_model());
  roofline::PredictOptions o;
  o.precision = "fp64";
  try {
    roofline::predict(r.cost, hw::roofline_for(device, device.modes.front()), o);
    FAIL() << "fp64 on an fp32-only device was priced";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'round' has no fp64"), std::string::npos) << what;
    EXPECT_NE(what.find("it has fp32"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ridge::test
