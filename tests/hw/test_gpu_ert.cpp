// `ridge ert --device cuda`'s model without a GPU: the theoretical figures and the run's sizes against
// hand-computed values and datasheets, the report's columns, the profile read back by ridge's own
// device parser. tests/gpu/test_gpu_ert_gpu.cpp measures on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hw/device_file.h"
#include "hw/ert/gpu_ert.h"
#include "hw/roofline.h"
#include "report/ert_codec.h"
#include "report/gpu_ert_report.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ridge::hw::ert;

constexpr double kMiB = 1024.0 * 1024.0;

TEST(GpuErtModel, FmaPeaksOfKnownGpus) {
  // H100 SXM: 132 SMs x 128 FP32 lanes x 2 FLOPs x 1.98 GHz = 66.9 TFLOP/s (datasheet: 66.9).
  const auto* hopper = sm_rates(9, 0);
  ASSERT_NE(hopper, nullptr);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(132, 1980, fma_per_clock(hopper, "fp32")), 132.0 * 128 * 2 * 1980e6);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(132, 1980, fma_per_clock(hopper, "fp32")), 66.90816e12);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(132, 1980, fma_per_clock(hopper, "fp64")), 33.45408e12);  // datasheet 33.5
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(132, 1980, fma_per_clock(hopper, "fp16")), 133.81632e12);
  // A100: 108 SMs at 1410 MHz; datasheet 19.5 (fp32), 9.7 (fp64), 78 (fp16 without tensor cores).
  const auto* ampere = sm_rates(8, 0);
  ASSERT_NE(ampere, nullptr);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(108, 1410, fma_per_clock(ampere, "fp32")), 19.49184e12);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(108, 1410, fma_per_clock(ampere, "fp64")), 9.74592e12);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(108, 1410, fma_per_clock(ampere, "fp16")), 77.96736e12);
  // T4 (Turing): 40 SMs x 64 x 2 x 1590 MHz = 8.14 TFLOP/s (datasheet 8.1); fp64 at 1/32 of it.
  const auto* turing = sm_rates(7, 5);
  ASSERT_NE(turing, nullptr);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(40, 1590, fma_per_clock(turing, "fp32")), 8.1408e12);
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(40, 1590, fma_per_clock(turing, "fp64")), 0.2544e12);
  // GA10x and AD10x: non-tensor FP16 at the FP32 rate (RTX 4090: 82.6 TFLOP/s either way).
  for (auto [major, minor] : {std::pair{8, 6}, std::pair{8, 9}}) {
    const auto* rates = sm_rates(major, minor);
    ASSERT_NE(rates, nullptr);
    EXPECT_EQ(fma_per_clock(rates, "fp16"), fma_per_clock(rates, "fp32"));
  }
  EXPECT_DOUBLE_EQ(theoretical_fma_flops(128, 2520, fma_per_clock(sm_rates(8, 9), "fp32")), 82.57536e12);
  EXPECT_EQ(fma_per_clock(hopper, "int8"), 0);  // no such FMA kernel
}

// The bundled device files' cuda-cores figures (datasheets) agree with the table within 1%.
TEST(GpuErtModel, TableAgreesWithBundledDatasheets) {
  struct Case {
    const char* file;
    int sms, major, minor;
  };
  for (const auto& c : {Case{"h100-sxm", 132, 9, 0}, Case{"a100-sxm-80gb", 108, 8, 0}, Case{"t4", 40, 7, 5},
                        Case{"l4", 58, 8, 9}, Case{"rtx-3090", 82, 8, 6}, Case{"jetson-agx-orin-64gb", 16, 8, 7}}) {
    auto device = hw::load_device_file(source_path(std::string("devices/") + c.file + ".yaml"));
    double mhz = device.clocks.at("gpu").max_mhz;
    const auto* rates = sm_rates(c.major, c.minor);
    ASSERT_NE(rates, nullptr) << c.file;
    for (const auto& unit : device.units) {
      if (unit.name != "cuda-cores") continue;
      for (const auto& [precision, datasheet] : unit.peak_flops) {
        double ours = theoretical_fma_flops(c.sms, mhz, fma_per_clock(rates, precision));
        EXPECT_NEAR(ours / datasheet, 1.0, 0.01) << c.file << " " << precision;
      }
    }
  }
}

TEST(GpuErtModel, TensorPeaksOfKnownGpus) {
  // Dense datasheet figures at the clock each part's datasheet uses.
  EXPECT_DOUBLE_EQ(theoretical_tensor_flops(132, 1830, tensor_flops_per_clock(sm_rates(9, 0), "fp16")),
                   132 * 1830e6 * 4096);  // H100 SXM: 989.4 TFLOP/s
  EXPECT_NEAR(theoretical_tensor_flops(132, 1830, tensor_flops_per_clock(sm_rates(9, 0), "fp16")), 989.4e12, 0.1e12);
  const auto* a100 = sm_rates(8, 0);
  EXPECT_NEAR(theoretical_tensor_flops(108, 1410, tensor_flops_per_clock(a100, "fp16")), 312e12, 0.2e12);
  EXPECT_NEAR(theoretical_tensor_flops(108, 1410, tensor_flops_per_clock(a100, "bf16")), 312e12, 0.2e12);
  EXPECT_NEAR(theoretical_tensor_flops(108, 1410, tensor_flops_per_clock(a100, "tf32")), 156e12, 0.1e12);
  EXPECT_NEAR(theoretical_tensor_flops(108, 1410, tensor_flops_per_clock(a100, "int8")), 624e12, 0.3e12);
  const auto* t4 = sm_rates(7, 5);
  EXPECT_NEAR(theoretical_tensor_flops(40, 1590, tensor_flops_per_clock(t4, "fp16")), 65e12, 0.2e12);
  EXPECT_NEAR(theoretical_tensor_flops(40, 1590, tensor_flops_per_clock(t4, "int8")), 130e12, 0.3e12);
  EXPECT_EQ(tensor_flops_per_clock(t4, "bf16"), 0);  // Turing has no bf16 or tf32 tensor cores
  EXPECT_EQ(tensor_flops_per_clock(t4, "tf32"), 0);
  EXPECT_NEAR(theoretical_tensor_flops(58, 2040, tensor_flops_per_clock(sm_rates(8, 9), "fp16")), 121e12, 0.3e12);
}

TEST(GpuErtModel, UnknownComputeCapabilityHasNoTheoreticalFigure) {
  EXPECT_EQ(sm_rates(12, 0), nullptr);
  EXPECT_EQ(sm_rates(7, 0), nullptr);  // Volta: CUDA 13 does not build for it
  EXPECT_EQ(fma_per_clock(nullptr, "fp32"), 0);
  EXPECT_EQ(tensor_flops_per_clock(nullptr, "fp16"), 0);
  EXPECT_EQ(theoretical_fma_flops(170, 2400, fma_per_clock(sm_rates(12, 0), "fp32")), 0);
}

TEST(GpuErtModel, BandwidthFormulas) {
  // H100 SXM: HBM3 at 2619 MHz on a 5120-bit bus, two transfers per clock: 3.35 TB/s (datasheet 3.35).
  EXPECT_DOUBLE_EQ(theoretical_dram_bandwidth(2619, 5120), 2619e6 * 2 * 640);
  EXPECT_NEAR(theoretical_dram_bandwidth(2619, 5120), 3.35e12, 0.01e12);
  EXPECT_NEAR(theoretical_dram_bandwidth(1593, 5120), 2.039e12, 0.001e12);  // A100 80GB
  EXPECT_NEAR(theoretical_dram_bandwidth(5001, 256), 320e9, 0.1e9);         // T4 (GDDR6)
  EXPECT_NEAR(theoretical_dram_bandwidth(9751, 384), 936e9, 0.1e9);         // RTX 3090 (GDDR6X)
  EXPECT_EQ(theoretical_dram_bandwidth(0, 0), 0);                           // not reported
  // Shared memory: 32 banks x 4 bytes per clock per SM.
  EXPECT_DOUBLE_EQ(theoretical_shared_bandwidth(132, 1980), 132 * 128 * 1980e6);
  EXPECT_DOUBLE_EQ(per_second(3e9, 1.5), 2e9);
  EXPECT_EQ(per_second(1, 0), 0);
  EXPECT_EQ(per_second(1, -1), 0);
}

TEST(GpuErtModel, WorkingSetsPerLevel) {
  auto h100 = plan_working_sets(50 * kMiB, 79.0 * kGiB);
  EXPECT_EQ(h100.l1, 16384);
  EXPECT_EQ(h100.shared, 16384);
  ASSERT_EQ(h100.l2.size(), 3u);
  EXPECT_EQ(h100.l2[0], 6.25 * kMiB);
  EXPECT_EQ(h100.l2[1], 12.5 * kMiB);
  EXPECT_EQ(h100.l2[2], 25 * kMiB);
  EXPECT_EQ(h100.dram, kGiB);  // 1 GiB >= 8 x 50 MiB
  EXPECT_TRUE(h100.dram_limited_by.empty());
  auto small = plan_working_sets(4 * kMiB, 1.0 * kGiB);  // a Jetson with 1 GiB free
  EXPECT_EQ(small.dram, 256 * kMiB);                     // a quarter of free memory
  auto big_l2 = plan_working_sets(128 * kMiB, 2.0 * kGiB);
  EXPECT_EQ(big_l2.dram, kGiB);  // 8 x L2, which half the free memory allows
  EXPECT_TRUE(big_l2.dram_limited_by.empty());
  auto starved = plan_working_sets(64 * kMiB, 512 * kMiB);
  EXPECT_EQ(starved.dram, 256 * kMiB);  // half the free memory, below 8 x L2: said so
  EXPECT_FALSE(starved.dram_limited_by.empty());
  EXPECT_TRUE(plan_working_sets(0, kGiB).l2.empty());
}

TEST(GpuErtModel, GemmSize) {
  EXPECT_EQ(gemm_size(false, 79.0 * kGiB), 8192);
  EXPECT_EQ(gemm_size(true, 79.0 * kGiB), 4096);
  EXPECT_EQ(gemm_size(false, 1.0 * kGiB), 4096);  // 3 x 8192^2 x 4 B = 768 MiB > half of 1 GiB
  EXPECT_EQ(gemm_size(false, 100 * kMiB), 1024);  // the floor
  EXPECT_DOUBLE_EQ(gemm_flops(8192), 2.0 * 8192 * 8192 * 8192);
}

sys::Summary stats(std::vector<double> samples) { return sys::summarize(std::move(samples)); }

// An H100 SXM as the module would report it, with plausible measurements.
GpuErtResult synthetic_result(double fp32 = 61.2e12) {
  GpuErtResult r;
  r.gpu.index = 0;
  r.gpu.name = "NVIDIA H100 80GB HBM3";
  r.gpu.cc_major = 9;
  r.gpu.cc_minor = 0;
  r.gpu.sms = 132;
  r.gpu.clock_mhz = 1980;
  r.gpu.memory_clock_mhz = 2619;
  r.gpu.memory_bus_bits = 5120;
  r.gpu.memory_bytes = 85e9;
  r.gpu.free_bytes = 84e9;
  r.gpu.l2_bytes = 50 * kMiB;
  r.gpu.shared_per_sm_bytes = 233472;
  r.gpu.max_threads_per_sm = 2048;
  r.gpu.versions = "CUDA runtime 13.0, driver 13.0, cuBLASLt 13.0.2";
  r.quick = true;
  r.repetitions = 3;
  const auto* rates = sm_rates(9, 0);
  auto fma = [&](const char* precision, double best) {
    GpuPeak p;
    p.precision = precision;
    p.rate = stats({best * 0.97, best * 0.99, best});
    p.theoretical = theoretical_fma_flops(132, 1980, fma_per_clock(rates, precision));
    p.clock_mhz = 1755;
    p.method = "synthetic";
    return p;
  };
  r.fma = {fma("fp64", 30.1e12), fma("fp32", fp32), fma("fp16", 118e12)};
  auto tensor = [&](const char* precision, double best) {
    GpuPeak p;
    p.precision = precision;
    p.n = 4096;
    p.theoretical = theoretical_tensor_flops(132, 1980, tensor_flops_per_clock(rates, precision));
    if (best > 0)
      p.rate = stats({best * 0.98, best});
    else
      p.skipped = "cuBLASLt has no algorithm for it on this GPU (none found)";
    return p;
  };
  r.tensor = {tensor("fp16", 702e12), tensor("bf16", 698e12), tensor("tf32", 371e12), tensor("int8", 0)};
  auto point = [](const char* level, const char* kernel, double bytes, double best, double theoretical) {
    return GpuBandwidthPoint{level, kernel, bytes, sys::summarize({best * 0.95, best}), theoretical};
  };
  double shared = theoretical_shared_bandwidth(132, 1980), dram = theoretical_dram_bandwidth(2619, 5120);
  r.bandwidth = {point("l1", "l1-read", 16384, 19.5e12, shared), point("l1", "shared-read", 16384, 31.7e12, shared),
                 point("l2", "read", 6.25 * kMiB, 7.5e12, 0),    point("l2", "read", 25 * kMiB, 9.25e12, 0),
                 point("l2", "copy", 25 * kMiB, 8.1e12, 0),      point("dram", "read", kGiB, 3.02e12, dram),
                 point("dram", "copy", kGiB, 2.91e12, dram)};
  r.launch_overhead_s = stats({2.25e-6, 2.5e-6, 2.4e-6});
  r.seconds = 9.5;
  return r;
}

TEST(GpuErtModel, BestPointOfEachLevel) {
  auto levels = best_level_bandwidth(synthetic_result());
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_DOUBLE_EQ(levels.at("l1").rate, 31.7e12);
  EXPECT_EQ(levels.at("l1").kernel, "shared-read");
  EXPECT_DOUBLE_EQ(levels.at("l2").rate, 9.25e12);
  EXPECT_DOUBLE_EQ(levels.at("l2").bytes, 25 * kMiB);
  EXPECT_DOUBLE_EQ(levels.at("dram").rate, 3.02e12);
  EXPECT_EQ(levels.at("dram").kernel, "read");
}

std::vector<std::string> column_keys(const report::Table& t) {
  std::vector<std::string> keys;
  for (const auto& c : t.columns) keys.push_back(c.key);
  return keys;
}

TEST(GpuErtReport, ColumnsCarryTheirUnits) {
  auto doc = report::gpu_ert_document(synthetic_result());
  ASSERT_NE(doc.find("fma"), nullptr);
  EXPECT_EQ(column_keys(*doc.find("fma")),
            (std::vector<std::string>{"precision", "clock_mhz", "best_flop_per_s", "median_flop_per_s",
                                      "min_flop_per_s", "theoretical_flop_per_s", "of_theoretical",
                                      "fraction_of_theoretical", "flag", "method"}));
  ASSERT_NE(doc.find("tensor"), nullptr);
  EXPECT_EQ(column_keys(*doc.find("tensor")),
            (std::vector<std::string>{"precision", "n", "best_flop_per_s", "median_flop_per_s", "min_flop_per_s",
                                      "theoretical_flop_per_s", "of_theoretical", "fraction_of_theoretical", "flag",
                                      "skipped", "method"}));
  ASSERT_NE(doc.find("bandwidth_points"), nullptr);
  EXPECT_EQ(column_keys(*doc.find("bandwidth_points")),
            (std::vector<std::string>{"level", "kernel", "working_set_bytes", "best_bytes_per_s", "median_bytes_per_s",
                                      "min_bytes_per_s", "theoretical_bytes_per_s", "of_theoretical",
                                      "fraction_of_theoretical", "flag"}));
  std::ostringstream out;
  report::print_csv(out, doc);
  const std::string csv = out.str();
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "kind,name,level,bytes,n,unit,min,median,max,theoretical,flag");
  // 3 FMA + 3 measured tensor + 7 bandwidth points + the launch overhead.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 + 3 + 7 + 1) << csv;
  EXPECT_NE(csv.find("tensor,fp16,,,4096,FLOP/s,"), std::string::npos) << csv;
}

TEST(GpuErtReport, JsonFiguresUnderCeilingKeys) {
  auto r = synthetic_result();
  auto doc = report::to_json(report::gpu_ert_document(r));
  EXPECT_EQ(doc["gpu"]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(doc["gpu"]["compute_capability"], "9.0");
  EXPECT_EQ(doc["gpu"]["sms"], 132);
  EXPECT_DOUBLE_EQ(doc["peak_flops"]["fp32"].get<double>(), 61.2e12);
  EXPECT_DOUBLE_EQ(doc["peak_flops"]["fp16_tensor"].get<double>(), 702e12);
  EXPECT_FALSE(doc["peak_flops"].contains("int8_tensor"));  // skipped: no figure
  EXPECT_DOUBLE_EQ(doc["theoretical_flops"]["fp32"].get<double>(), 66.90816e12);
  EXPECT_DOUBLE_EQ(doc["theoretical_flops"]["fp16_tensor"].get<double>(), 132 * 1980e6 * 4096);
  EXPECT_DOUBLE_EQ(doc["bandwidth"]["dram"].get<double>(), 3.02e12);
  EXPECT_DOUBLE_EQ(doc["bandwidth"]["l1"].get<double>(), 31.7e12);
  EXPECT_DOUBLE_EQ(doc["theoretical_bandwidth"]["dram"].get<double>(), 2619e6 * 2 * 640);
  EXPECT_FALSE(doc["theoretical_bandwidth"].contains("l2"));  // not derivable from the properties
  EXPECT_DOUBLE_EQ(doc["fma"][1]["fraction_of_theoretical"].get<double>(), 61.2e12 / 66.90816e12);
  EXPECT_DOUBLE_EQ(doc["fma"][1]["clock_mhz"].get<double>(), 1755);
  EXPECT_EQ(doc["fma"][1]["flag"], "");
  EXPECT_NE(doc["tensor"][3]["skipped"].get<std::string>().find("no algorithm"), std::string::npos);
  EXPECT_TRUE(doc["tensor"][3]["best_flop_per_s"].is_null());
  EXPECT_TRUE(doc["bandwidth_points"][2]["theoretical_bytes_per_s"].is_null());
  EXPECT_DOUBLE_EQ(doc["launch_overhead_s"].get<double>(), 2.25e-6);
}

TEST(GpuErtReport, AboveTheoreticalIsFlagged) {
  auto above = synthetic_result(70e12);  // 104.6% of 66.9 TFLOP/s: a wrong table row, not fast hardware
  std::ostringstream table;
  report::print_table(table, report::gpu_ert_document(above));
  EXPECT_NE(table.str().find(std::string("104.6% (") + kAboveTheoreticalFlag + ")"), std::string::npos) << table.str();
  auto doc = report::to_json(report::gpu_ert_document(above));
  EXPECT_EQ(doc["fma"][1]["flag"], kAboveTheoreticalFlag);
  std::ostringstream csv;
  report::print_csv(csv, report::gpu_ert_document(above));
  EXPECT_NE(csv.str().find(kAboveTheoreticalFlag), std::string::npos);
  std::ostringstream fine;
  report::print_table(fine, report::gpu_ert_document(synthetic_result()));
  EXPECT_EQ(fine.str().find(kAboveTheoreticalFlag), std::string::npos) << fine.str();
  EXPECT_NE(fine.str().find("91.5%"), std::string::npos) << fine.str();  // 61.2 of 66.9
  EXPECT_NE(fine.str().find("skipped: cuBLASLt has no algorithm"), std::string::npos) << fine.str();
  // Every format prints.
  for (auto format : {report::Format::kCsv, report::Format::kJson, report::Format::kMarkdown}) {
    std::ostringstream out;
    report::print(out, report::gpu_ert_document(synthetic_result()), format);
    EXPECT_FALSE(out.str().empty());
  }
}

TEST(GpuErtReport, UnknownComputeCapabilityIsNamed) {
  auto r = synthetic_result();
  r.gpu.cc_major = 12;
  for (auto& p : r.fma) p.theoretical = 0;
  for (auto& p : r.tensor) p.theoretical = 0;
  auto doc = report::gpu_ert_document(r);
  bool named = false;
  for (const auto& note : doc.notes) named = named || note.find("12.0 is not in ridge's table") != std::string::npos;
  EXPECT_TRUE(named);
  auto json = report::to_json(doc);
  EXPECT_TRUE(json["fma"][1]["theoretical_flop_per_s"].is_null());
  EXPECT_TRUE(json["fma"][1]["fraction_of_theoretical"].is_null());
}

// A real H100 run (bench/results): fp16 FMA at half its theoretical rate carries the note that says why; the
// synthetic result's fp16 at 88% does not.
TEST(GpuErtReport, HalfRateFp16OnHopperIsExplained) {
  auto has_note = [](const report::Document& doc) {
    for (const auto& note : doc.notes)
      if (note.find("HFMA2.MMA") != std::string::npos) return true;
    return false;
  };
  std::ifstream in(source_path("bench/results/gpu-h100-2026-11-26-kernels/ert.json"));
  ASSERT_TRUE(in);
  auto real = std::get<GpuErtResult>(report::decode_ert(nlohmann::json::parse(in), "ert.json"));
  ASSERT_EQ(real.fma.size(), 3u);
  EXPECT_NEAR(real.fma[2].rate.max / real.fma[2].theoretical, 0.5, 0.01);
  EXPECT_TRUE(has_note(report::gpu_ert_document(real)));
  EXPECT_FALSE(has_note(report::gpu_ert_document(synthetic_result())));
}

// The profile is a device file ridge reads back with the same figures.
TEST(GpuErtProfile, DeviceParserReadsTheSameFigures) {
  auto r = synthetic_result();
  auto path = temp_dir() + "/gpu-profile.yaml";
  std::ofstream(path) << gpu_ert_device_yaml(r);
  auto device = hw::load_device_file(path);
  EXPECT_EQ(device.name, "NVIDIA H100 80GB HBM3 (measured)");
  EXPECT_EQ(device.kind, "gpu");
  EXPECT_DOUBLE_EQ(device.clocks.at("gpu").max_mhz, 1755);  // the clock measured under load
  ASSERT_EQ(device.units.size(), 2u);
  const auto& cores = device.units[0];
  EXPECT_EQ(cores.name, "cuda-cores");
  EXPECT_EQ(cores.type, hw::UnitType::kVector);
  EXPECT_EQ(cores.label, "measured");
  EXPECT_DOUBLE_EQ(cores.peak_flops.at("fp64"), 30.1e12);
  EXPECT_DOUBLE_EQ(cores.peak_flops.at("fp32"), 61.2e12);
  EXPECT_DOUBLE_EQ(cores.peak_flops.at("fp16"), 118e12);
  const auto& tensor = device.units[1];
  EXPECT_EQ(tensor.type, hw::UnitType::kMatrix);
  EXPECT_EQ(tensor.label, "measured");
  EXPECT_DOUBLE_EQ(tensor.peak_flops.at("fp16"), 702e12);
  EXPECT_DOUBLE_EQ(tensor.peak_flops.at("bf16"), 698e12);
  EXPECT_DOUBLE_EQ(tensor.peak_flops.at("tf32"), 371e12);
  EXPECT_FALSE(tensor.peak_flops.count("int8"));  // skipped: never written as a figure
  EXPECT_NE(tensor.source.find("cuBLASLt"), std::string::npos);
  ASSERT_EQ(device.memory.size(), 3u);
  for (const auto& m : device.memory) EXPECT_EQ(m.label, "measured") << m.level;
  EXPECT_EQ(device.memory[0].level, "dram");
  EXPECT_DOUBLE_EQ(device.memory[0].bandwidth, 3.02e12);
  EXPECT_DOUBLE_EQ(device.memory[0].size_bytes, 85e9);
  EXPECT_EQ(device.memory[1].level, "l2");
  EXPECT_DOUBLE_EQ(device.memory[1].bandwidth, 9.25e12);
  EXPECT_DOUBLE_EQ(device.memory[1].size_bytes, 50 * kMiB);
  EXPECT_EQ(device.memory[2].level, "l1");
  EXPECT_DOUBLE_EQ(device.memory[2].bandwidth, 31.7e12);
  EXPECT_NE(device.memory[2].source.find("shared-read"), std::string::npos);
  EXPECT_DOUBLE_EQ(device.overhead_s, 2.25e-6);
  EXPECT_EQ(device.overhead_label, hw::kMeasured);  // timed: it may enter a lower bound
  // And the roofline built from it prices with those figures.
  auto roofline = hw::roofline_for(device, device.modes.front());
  EXPECT_DOUBLE_EQ(roofline.peak_flops.at("fp32").value, 61.2e12);
  EXPECT_EQ(roofline.peak_flops.at("fp32").label, "measured");
  EXPECT_DOUBLE_EQ(roofline.peak_flops.at("fp16_tensor").value, 702e12);
  EXPECT_DOUBLE_EQ(roofline.bandwidth.at("dram").value, 3.02e12);
  EXPECT_DOUBLE_EQ(roofline.bandwidth.at("l2").value, 9.25e12);
}

TEST(GpuErtProfile, WithoutTensorFiguresOrClockProbe) {
  auto r = synthetic_result();
  for (auto& p : r.tensor) p.skipped = "bf16 and tf32 tensor cores need compute capability 8.0 or later";
  for (auto& p : r.fma) p.clock_mhz = 0;
  r.launch_overhead_s = {};
  auto device = hw::parse_device_yaml(gpu_ert_device_yaml(r), "gpu.yaml");
  ASSERT_EQ(device.units.size(), 1u);                       // no tensor unit rather than an empty one
  EXPECT_DOUBLE_EQ(device.clocks.at("gpu").max_mhz, 1980);  // the device's peak clock, said so
  EXPECT_NE(device.clocks.at("gpu").source.find("not measured"), std::string::npos);
  EXPECT_DOUBLE_EQ(device.overhead_s, 5e-6);        // ridge's default, with its source
  EXPECT_EQ(device.overhead_label, hw::kEstimate);  // a default stays out of lower bounds
  auto no_dram = synthetic_result();
  no_dram.bandwidth.resize(5);  // the DRAM points missing: a device file needs them
  EXPECT_THROW(gpu_ert_device_yaml(no_dram), Error);
}

// The ert codec: a GPU measurement round-trips with every field (the GPU's properties, skipped tensor peaks, every
// bandwidth point) and keeps its own GPU, not the reader's.
TEST(ErtCodec, AGpuMeasurementRoundTripsWithEveryField) {
  auto r = synthetic_result();
  auto encoded = report::encode_ert(r);
  auto back = std::get<GpuErtResult>(report::decode_ert(nlohmann::json::parse(encoded.dump()), "test"));
  EXPECT_EQ(report::encode_ert(back).dump(), encoded.dump());
  EXPECT_EQ(back.gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back.gpu.sms, 132);
  EXPECT_EQ(back.gpu.versions, r.gpu.versions);
  ASSERT_EQ(back.tensor.size(), 4u);
  EXPECT_EQ(back.tensor[3].skipped, r.tensor[3].skipped);
  EXPECT_EQ(back.tensor[0].rate.max, 702e12);
  ASSERT_EQ(back.bandwidth.size(), r.bandwidth.size());
  EXPECT_EQ(back.bandwidth[5].rate.max, 3.02e12);
  EXPECT_EQ(back.launch_overhead_s.median, r.launch_overhead_s.median);
  auto printed = report::to_json(report::gpu_ert_document(r));
  encoded.erase("ert");
  EXPECT_EQ(encoded, printed);
  EXPECT_EQ(report::ert_headline(r), "fp32 61.2 TFLOP/s, DRAM 3.02 TB/s");
}
}  // namespace
}  // namespace ridge::test
