// The device database: schema validation, datasheet figures, power-mode derivations, host
// detection, and bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "hw/device_db.h"
#include "hw/device_file.h"
#include "hw/ert/gpu_ert.h"
#include "hw/roofline.h"
#include "support/paths.h"
#include "sys/host_cpu.h"
#include "util/error.h"

namespace ridge::test {
namespace {

hw::Roofline roofline(const std::string& spec) {
  auto [id, mode] = hw::split_device_and_mode(spec);
  auto device = hw::find_device(id);
  return hw::roofline_for(device, hw::resolve_mode(device, mode));
}

double peak(const std::string& spec, const std::string& key) { return roofline(spec).peak_flops.at(key).value; }
double bandwidth(const std::string& spec, const std::string& level) { return roofline(spec).bandwidth.at(level).value; }

TEST(Devices, EveryFileValidatesAndTheRequiredOnesExist) {
  auto devices = hw::list_devices();
  std::set<std::string> ids;
  for (const auto& d : devices) {
    ids.insert(d.id);
    EXPECT_FALSE(d.modes.empty()) << d.id;
    if (d.id == "host") continue;
    EXPECT_EQ(std::filesystem::path(d.file).stem().string(), d.id);
    for (const auto& u : d.units) EXPECT_FALSE(u.source.empty()) << d.id;
    auto r = hw::roofline_for(d, d.modes.front());
    EXPECT_GT(r.bandwidth.at("dram").value, 0) << d.id;
  }
  for (const char* id : {"jetson-agx-orin-64gb", "jetson-agx-orin-32gb", "jetson-orin-nx-16gb", "jetson-orin-nano-8gb",
                         "jetson-agx-xavier", "h100-sxm", "h100-pcie", "h200", "a100-sxm-40gb", "a100-sxm-80gb",
                         "v100-sxm2", "l40s", "l4", "t4", "rtx-4090", "rtx-3090", "host"})
    EXPECT_TRUE(ids.count(id)) << id;
}

// One datasheet figure per device, copied here from the datasheet named in its file.
TEST(Devices, DatasheetFigures) {
  EXPECT_DOUBLE_EQ(peak("h100-sxm", "bf16_tensor"), 989.4e12);
  EXPECT_DOUBLE_EQ(bandwidth("h100-sxm", "dram"), 3.35e12);
  EXPECT_DOUBLE_EQ(peak("h100-pcie", "fp32"), 51.2e12);
  EXPECT_DOUBLE_EQ(bandwidth("h200", "dram"), 4.8e12);
  EXPECT_DOUBLE_EQ(peak("a100-sxm-40gb", "tf32_tensor"), 156e12);
  EXPECT_DOUBLE_EQ(bandwidth("a100-sxm-80gb", "dram"), 2.039e12);
  EXPECT_DOUBLE_EQ(peak("v100-sxm2", "fp16_tensor"), 125e12);
  EXPECT_DOUBLE_EQ(peak("l40s", "fp32"), 91.6e12);
  EXPECT_DOUBLE_EQ(bandwidth("l4", "dram"), 300e9);
  EXPECT_DOUBLE_EQ(peak("t4", "int8_tensor"), 130e12);
  EXPECT_DOUBLE_EQ(peak("rtx-4090", "fp32"), 82.6e12);
  EXPECT_DOUBLE_EQ(bandwidth("rtx-3090", "dram"), 936e9);
  EXPECT_NEAR(peak("jetson-agx-orin-64gb", "fp32"), 5.3e12, 0.05e12);  // "up to 5.3 FP32 TFLOPS"
  EXPECT_DOUBLE_EQ(bandwidth("jetson-agx-orin-32gb", "dram"), 204.8e9);
  EXPECT_DOUBLE_EQ(bandwidth("jetson-orin-nx-16gb", "dram"), 102.4e9);
  EXPECT_DOUBLE_EQ(bandwidth("jetson-orin-nano-8gb", "dram"), 68e9);
  EXPECT_DOUBLE_EQ(bandwidth("jetson-agx-xavier", "dram"), 136.5e9);
}

// What the hierarchical roofline and the ncu importer need of a Hopper file: the fp16 CUDA-core peak (the
// whitepaper's non-tensor FP16, a half2 FMA per lane: twice fp32), L1 and L2 bandwidth, and a launch overhead that
// was measured (ridge ert on an H200, ../shared/data/gpu-h200, and on an H100, bench/results), labelled so, so
// uncalibrated bounds count it.
TEST(Devices, HopperFilesCarryFp16L1L2AndAMeasuredLaunchOverhead) {
  EXPECT_DOUBLE_EQ(peak("h100-sxm", "fp16"), 133.8e12);
  EXPECT_DOUBLE_EQ(peak("h200", "fp16"), 133.8e12);
  // The PCIe card's fp16 is derived by the rule that gives the SXM5's published figure: SMs x 256 x 2 x clock,
  // rounded to four digits as the datasheets print them.
  EXPECT_NEAR(peak("h100-pcie", "fp16"), 114 * 256 * 2 * 1755e6, 1e-3 * 102.4e12);
  EXPECT_NEAR(peak("h100-sxm", "fp16"), 132 * 256 * 2 * 1980e6, 1e-3 * 133.8e12);
  EXPECT_NEAR(peak("h200", "fp16") / peak("h200", "fp32"), 2.0, 0.01);
  EXPECT_DOUBLE_EQ(bandwidth("h200", "l2"), 8.54e12);
  EXPECT_DOUBLE_EQ(bandwidth("h200", "l1"), 32.97e12);
  auto h200 = hw::find_device("h200");
  EXPECT_DOUBLE_EQ(h200.overhead_s, 3.74e-6);
  EXPECT_EQ(h200.overhead_label, "measured");
  auto h100 = hw::find_device("h100-sxm");
  EXPECT_EQ(h100.overhead_label, "measured");
  // The H100's figures are those of the `ridge ert --device cuda -f json` run the file cites, rounded.
  std::ifstream in(source_path("bench/results/gpu-h100-2026-11-26-kernels/ert.json"));
  ASSERT_TRUE(in) << "the cited ert run is missing";
  auto ert = nlohmann::json::parse(in);
  auto rounded = [](double v, int digits) {
    const double scale = std::pow(10.0, std::floor(std::log10(v)) - (digits - 1));
    return std::round(v / scale) * scale;
  };
  auto expect_cited = [&](double file, double measured, int digits) {
    EXPECT_NEAR(file, rounded(measured, digits), 1e-9 * file) << measured;
  };
  expect_cited(bandwidth("h100-sxm", "l1"), ert["bandwidth"]["l1"].get<double>(), 4);
  expect_cited(bandwidth("h100-sxm", "l2"), ert["bandwidth"]["l2"].get<double>(), 3);
  expect_cited(h100.overhead_s, ert["launch_overhead_s"].get<double>(), 3);
}

// The FP32 peak of a GPU is SMs x FP32 lanes x 2 x clock: the files' clocks must agree.
TEST(Devices, GpuClockMatchesFp32Peak) {
  struct Gpu {
    const char* id;
    int sms, lanes;
  };
  for (auto g : {Gpu{"h100-sxm", 132, 128}, Gpu{"h100-pcie", 114, 128}, Gpu{"a100-sxm-40gb", 108, 64},
                 Gpu{"v100-sxm2", 80, 64}, Gpu{"l40s", 142, 128}, Gpu{"l4", 58, 128}, Gpu{"t4", 40, 64},
                 Gpu{"rtx-4090", 128, 128}, Gpu{"rtx-3090", 82, 128}}) {
    auto r = roofline(g.id);
    double expected = g.sms * g.lanes * 2.0 * r.clocks_mhz.at("gpu") * 1e6;
    EXPECT_NEAR(r.peak_flops.at("fp32").value / expected, 1.0, 0.01) << g.id;
  }
}

// What the hierarchical roofline needs of the other GPU files, derived and labelled so: L1 (shared memory) as SMs x
// 32 banks x 4 bytes per clock x the boost clock, the rule the measured Hoppers bear out (within 1.5%); the fp16
// CUDA-core peak of compute capability 7.x, twice fp32.
TEST(Devices, OtherGpuFilesCarryATheoreticalL1AndVoltaTuringAndA100TheirFp16) {
  struct Gpu {
    const char* id;
    int sms;
  };
  auto l1_rule = [](const char* id, int sms) { return sms * 128.0 * roofline(id).clocks_mhz.at("gpu") * 1e6; };
  for (auto g : {Gpu{"a100-sxm-40gb", 108}, Gpu{"a100-sxm-80gb", 108}, Gpu{"h100-pcie", 114}, Gpu{"l4", 58},
                 Gpu{"l40s", 142}, Gpu{"rtx-3090", 82}, Gpu{"rtx-4090", 128}, Gpu{"t4", 40}, Gpu{"v100-sxm2", 80}}) {
    EXPECT_NEAR(bandwidth(g.id, "l1"), l1_rule(g.id, g.sms), 1e-3 * bandwidth(g.id, "l1")) << g.id;
    const auto device = hw::find_device(g.id);
    bool labelled = false;
    for (const auto& m : device.memory) labelled = labelled || (m.level == "l1" && m.label == "theoretical");
    EXPECT_TRUE(labelled) << g.id;
  }
  for (const char* measured : {"h100-sxm", "h200"})
    EXPECT_NEAR(bandwidth(measured, "l1") / l1_rule(measured, 132), 1.0, 0.015) << measured;
  EXPECT_DOUBLE_EQ(peak("v100-sxm2", "fp16"), 2 * peak("v100-sxm2", "fp32"));
  EXPECT_DOUBLE_EQ(peak("t4", "fp16"), 2 * peak("t4", "fp32"));
  // The A100 whitepaper's Table 1 gives its non-tensor fp16 as four times fp32 (78 against 19.5 TFLOP/s): a
  // published figure, so labelled as the datasheet's, and apart from the tensor cores' 312.
  for (const char* id : {"a100-sxm-40gb", "a100-sxm-80gb"}) {
    EXPECT_DOUBLE_EQ(peak(id, "fp16"), 4 * peak(id, "fp32")) << id;
    EXPECT_DOUBLE_EQ(peak(id, "fp16_tensor"), 312e12) << id;
    EXPECT_EQ(roofline(id).peak_flops.at("fp16").label, "datasheet") << id;
  }
  // GA10x and Ada run half2 FMA at the fp32 rate: each file's derived fp16 is what ert's per-SM table gives for
  // the file's own SM count and clock, equal to its fp32, and labelled theoretical.
  struct Part {
    const char* id;
    int sms, major, minor;
  };
  for (auto p :
       {Part{"rtx-3090", 82, 8, 6}, Part{"rtx-4090", 128, 8, 9}, Part{"l4", 58, 8, 9}, Part{"l40s", 142, 8, 9}}) {
    const double table =
        hw::ert::theoretical_fma_flops(p.sms, roofline(p.id).clocks_mhz.at("gpu"),
                                       hw::ert::fma_per_clock(hw::ert::sm_rates(p.major, p.minor), "fp16"));
    EXPECT_NEAR(peak(p.id, "fp16"), table, 1e-3 * table) << p.id;
    EXPECT_DOUBLE_EQ(peak(p.id, "fp16"), peak(p.id, "fp32")) << p.id;
    EXPECT_EQ(roofline(p.id).peak_flops.at("fp16").label, "theoretical") << p.id;
  }
  // A derived peak says so, apart from the datasheet's figures of the same units.
  for (const char* id : {"v100-sxm2", "t4", "h100-pcie"}) {
    EXPECT_EQ(roofline(id).peak_flops.at("fp16").label, "theoretical") << id;
    EXPECT_EQ(roofline(id).peak_flops.at("fp32").label, "datasheet") << id;
  }
}

TEST(PowerModes, NamedModesDeriveFromFrequencies) {
  // Jetson AGX Orin 64GB, 30W: GPU 612 MHz, 8 CPU cores at 1728 MHz, EMC 3200 MHz.
  EXPECT_DOUBLE_EQ(peak("jetson-agx-orin-64gb:30W", "fp32"), 2048 * 2 * 612e6);
  EXPECT_DOUBLE_EQ(peak("jetson-agx-orin-64gb:30W", "fp16_tensor"), 64 * 512 * 612e6);
  EXPECT_NEAR(peak("jetson-agx-orin-64gb:30W", "cpu_fp32"), 8 * 16 * 1728e6, 1);
  EXPECT_DOUBLE_EQ(bandwidth("jetson-agx-orin-64gb:30W", "dram"), 204.8e9);
  // 15W: EMC at 2133 MHz scales the LPDDR5 bandwidth.
  EXPECT_NEAR(bandwidth("jetson-agx-orin-64gb:15W", "dram"), 204.8e9 * 2133 / 3200, 1);
  EXPECT_NEAR(peak("jetson-agx-orin-64gb:15W", "cpu_fp32"), 4 * 16 * 1113.6e6, 1);
  EXPECT_DOUBLE_EQ(peak("jetson-agx-orin-64gb:15W", "fp32"), 2048 * 2 * 510e6);
  EXPECT_DOUBLE_EQ(peak("jetson-agx-orin-64gb:50W", "fp32"), 2048 * 2 * 1020e6);
  EXPECT_NEAR(peak("jetson-agx-orin-64gb:50W", "cpu_fp32"), 12 * 16 * 2201.6e6, 1);
  EXPECT_DOUBLE_EQ(peak("jetson-agx-orin-64gb:MAXN", "fp32"), 2048 * 2 * 1300e6);
  EXPECT_EQ(roofline("jetson-agx-orin-64gb:50W").power_budget_w, 50);
}

TEST(PowerModes, CustomMode) {
  const char* spec = "jetson-agx-orin-64gb:gpu=918MHz,emc=2133MHz,cpu=8x1.5GHz";
  EXPECT_DOUBLE_EQ(peak(spec, "fp32"), 2048 * 2 * 918e6);
  EXPECT_NEAR(peak(spec, "cpu_fp32"), 8 * 16 * 1.5e9, 1);
  EXPECT_NEAR(bandwidth(spec, "dram"), 204.8e9 * 2133 / 3200, 1);
  EXPECT_EQ(roofline(spec).mode, "gpu=918MHz,emc=2133MHz,cpu=8x1.5GHz");
}

TEST(PowerModes, ModesTheDeviceCannotRun) {
  EXPECT_THROW(roofline("jetson-agx-orin-64gb:60W"), Error);
  EXPECT_THROW(roofline("jetson-agx-orin-64gb:gpu=2000MHz"), Error);
  EXPECT_THROW(roofline("jetson-agx-orin-64gb:cpu=16x1GHz"), Error);
  EXPECT_THROW(roofline("jetson-agx-orin-64gb:tpu=1GHz"), Error);
  EXPECT_THROW(roofline("jetson-agx-orin-64gb:gpu=fast"), Error);
  EXPECT_THROW(roofline("no-such-device"), Error);
}

TEST(DeviceFiles, MalformedFilesAreRejectedWithTheField) {
  const std::string good = R"(id: x
name: X
kind: gpu
clocks: {gpu: {max_mhz: 1000, source: s}}
units: [{name: u, type: vector, clock: gpu, peak_flops: {fp32: 1e12}, source: s}]
memory: [{level: dram, bandwidth: 1e11, source: s}]
overhead: {seconds: 1e-6, source: s}
modes: [{name: default, source: s}]
)";
  EXPECT_NO_THROW(hw::parse_device_yaml(good, "good.yaml"));
  auto expect_error = [&](const std::string& from, const std::string& to, const std::string& message) {
    auto text = good;
    auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    try {
      hw::parse_device_yaml(text, "bad.yaml");
      ADD_FAILURE() << "accepted: " << to;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  expect_error("fp32: 1e12", "fp32: -1e12", "units[0].peak_flops.fp32 must be positive");
  expect_error("fp32: 1e12", "fp33: 1e12", "is not a known precision");
  expect_error("peak_flops: {fp32: 1e12}, source: s", "peak_flops: {fp32: 1e12}", "units[0].source is missing");
  expect_error("clock: gpu", "clock: cpu", "names no domain in clocks");
  expect_error("level: dram, bandwidth: 1e11", "level: l2, bandwidth: 1e11", "needs a dram level");
  expect_error("kind: gpu", "kind: [gpu", "not valid YAML");
  expect_error("kind: gpu", "kind: tpu", "kind must be gpu, cpu or soc");
  // Found by fuzz_device_yaml: nodes of the wrong kind used to escape as YAML exceptions.
  expect_error("{gpu: {max_mhz", "{[gpu]: {max_mhz", "device file 'bad.yaml'");
  expect_error("clock: gpu,", "clock: gpu, scales_with_cores: maybe,", "device file 'bad.yaml'");
}

TEST(Host, TheoreticalPeakFromDetectedFigures) {
  auto cpu = sys::detect_host_cpu();
  EXPECT_EQ(cpu.cores, sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GT(cpu.max_mhz, 0);
  auto r = roofline("host");
  EXPECT_DOUBLE_EQ(r.peak_flops.at("fp32").value,
                   cpu.cores * (cpu.simd_bits / 32.0) * cpu.fma_units * 2 * cpu.max_mhz * 1e6);
  EXPECT_DOUBLE_EQ(r.peak_flops.at("fp64").value, r.peak_flops.at("fp32").value / 2);
  EXPECT_EQ(r.peak_flops.at("fp32").label, "theoretical");
}

}  // namespace
}  // namespace ridge::test
