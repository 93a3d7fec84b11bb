// Roofline prediction and calibration against hand-computed cases on a device with round numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "hw/device_file.h"
#include "hw/roofline.h"
#include "roofline/calibrate.h"
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

TEST(Predict, ComputeMemoryAndOverheadBoundNodes) {
  auto device = hw::load_device_file(device_file());
  auto p = predict_on("full", device);
  const auto& gemm = node(p, "gemm");
  EXPECT_EQ(gemm.bound, roofline::Bound::kCompute);
  EXPECT_DOUBLE_EQ(gemm.compute_s, 2.0 * 256 * 1024 * 1024 / 1e12);
  EXPECT_DOUBLE_EQ(gemm.memory_s, (256 * 1024 + 1024 * 1024 + 256 * 1024) * 4 / 1e11);
  EXPECT_DOUBLE_EQ(gemm.time_s, 2.0 * 256 * 1024 * 1024 / 1e12 + 1e-5);
  const auto& add = node(p, "add");
  EXPECT_EQ(add.bound, roofline::Bound::kMemory);
  EXPECT_DOUBLE_EQ(add.time_s, 3.0 * (1 << 20) * 4 / 1e11 + 1e-5);
  EXPECT_DOUBLE_EQ(add.attainable_flops, (1 << 20) / (3.0 * (1 << 20) * 4 / 1e11));  // intensity x bandwidth
  const auto& relu = node(p, "relu");
  EXPECT_EQ(relu.bound, roofline::Bound::kOverhead);
  EXPECT_DOUBLE_EQ(relu.time_s, 16 * 8 / 1e11 + 1e-5);
  EXPECT_DOUBLE_EQ(p.time_s, gemm.time_s + add.time_s + relu.time_s);
  EXPECT_DOUBLE_EQ(p.throughput, 1.0 / p.time_s);
  EXPECT_FALSE(p.calibrated);
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

TEST(PredictCli, JsonKeysAndModeSweep) {
  auto r = run_ridge("predict " + model_path("resnet50") + " --device t4 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"time_s\""), std::string::npos);
  EXPECT_NE(r.out.find("\"bound\""), std::string::npos);
  auto sweep = run_ridge("predict " + model_path("resnet50") +
                         " --device jetson-agx-orin-64gb --modes all --sweep batch=1,4 --format csv");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_EQ(std::count(sweep.out.begin(), sweep.out.end(), '\n'), 1 + 4 * 2);
  auto bad = run_ridge("predict " + model_path("resnet50") + " --device host");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("no DRAM bandwidth"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ridge::test
