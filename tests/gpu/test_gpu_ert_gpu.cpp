// `ridge ert --device cuda` on a GPU (scripts/gpu-check.sh): the quick run finishes, every peak is
// positive and at most 102% of its theoretical figure, DRAM stays below the memory's theoretical
// bandwidth, the levels order as caches do (L1 > L2 > DRAM), and the profile reads back.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "hw/device_file.h"
#include "hw/ert/gpu_ert.h"
#include "hw/roofline.h"
#include "report/gpu_ert_report.h"
#include "report/printer.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ridge::hw::ert;

// One quick run shared by the tests of this file.
const GpuErtResult& quick_run() {
  static const GpuErtResult result = [] {
    GpuErtOptions options;
    options.quick = true;
    options.progress = [](const std::string& line) { std::fprintf(stderr, "ert: %s\n", line.c_str()); };
    return run_gpu_ert(options);
  }();
  return result;
}

std::string describe(const GpuPeak& p) {
  return p.precision + ": best " + std::to_string(p.rate.max) + ", theoretical " + std::to_string(p.theoretical) +
         (p.skipped.empty() ? "" : ", skipped: " + p.skipped);
}

TEST(GpuErtOnGpu, QuickRunFinishes) {
  const auto& r = quick_run();
  EXPECT_FALSE(r.gpu.name.empty());
  EXPECT_GT(r.gpu.sms, 0);
  EXPECT_GT(r.gpu.clock_mhz, 0);
  EXPECT_EQ(r.repetitions, 3);
  EXPECT_EQ(r.fma.size(), 3u);
  EXPECT_EQ(r.tensor.size(), 4u);
  EXPECT_GE(r.bandwidth.size(), 4u);
  EXPECT_GT(r.seconds, 0);
  EXPECT_LT(r.seconds, 120) << "the quick run is meant to take well under a minute";
  EXPECT_GT(r.launch_overhead_s.min, 0);
  EXPECT_LT(r.launch_overhead_s.min, 100e-6);
}

TEST(GpuErtOnGpu, FmaPeaksArePositiveAndWithinTheoretical) {
  const auto& r = quick_run();
  for (const auto& p : r.fma) {
    EXPECT_EQ(p.rate.samples, 3) << describe(p);
    EXPECT_GT(p.rate.max, 0) << describe(p);
    EXPECT_GT(p.clock_mhz, 0) << describe(p);
    EXPECT_LE(p.clock_mhz, 1.05 * r.gpu.clock_mhz) << describe(p);
    if (p.theoretical <= 0) continue;  // a compute capability ridge's table lacks
    EXPECT_LE(p.rate.max, kAboveTheoreticalTolerance * p.theoretical) << describe(p);
    // Many independent chains on every SM reach most of the peak; far below it the kernel is broken.
    EXPECT_GT(p.rate.max, 0.4 * p.theoretical) << describe(p);
  }
}

TEST(GpuErtOnGpu, TensorPeaksArePositiveAndWithinTheoretical) {
  const auto& r = quick_run();
  double fp32 = 0;
  for (const auto& p : r.fma)
    if (p.precision == "fp32") fp32 = p.rate.max;
  for (const auto& p : r.tensor) {
    if (!p.skipped.empty()) {
      // Only what the hardware lacks, or cuBLASLt offers no algorithm for, may be skipped.
      bool allowed = ((p.precision == "bf16" || p.precision == "tf32") && r.gpu.cc_major < 8) || p.precision == "int8";
      EXPECT_TRUE(allowed) << describe(p);
      continue;
    }
    EXPECT_GT(p.n, 0);
    EXPECT_GT(p.rate.max, 0) << describe(p);
    if (p.theoretical > 0) {
      EXPECT_LE(p.rate.max, kAboveTheoreticalTolerance * p.theoretical) << describe(p);
    }
    if (p.precision == "fp16") {
      EXPECT_GT(p.rate.max, fp32) << "tensor cores below the CUDA cores' FP32 peak";
    }
  }
}

TEST(GpuErtOnGpu, BandwidthOrdersAsTheLevels) {
  const auto& r = quick_run();
  for (const auto& p : r.bandwidth) {
    EXPECT_GT(p.rate.max, 0) << p.level << " " << p.kernel;
    if (p.theoretical > 0) {
      EXPECT_LE(p.rate.max, kAboveTheoreticalTolerance * p.theoretical) << p.level << " " << p.kernel;
    }
  }
  auto levels = best_level_bandwidth(r);
  ASSERT_TRUE(levels.count("dram") && levels.count("l2") && levels.count("l1"));
  double dram_theoretical = theoretical_dram_bandwidth(r.gpu.memory_clock_mhz, r.gpu.memory_bus_bits);
  if (dram_theoretical > 0) {
    EXPECT_LT(levels["dram"].rate, dram_theoretical);
  }
  EXPECT_GT(levels["l2"].rate, levels["dram"].rate);
  EXPECT_GT(levels["l1"].rate, levels["l2"].rate);
}

TEST(GpuErtOnGpu, NoRateAboveTheoreticalGoesUnflagged) {
  auto doc = report::to_json(report::gpu_ert_document(quick_run()));
  for (const char* table : {"fma", "tensor", "bandwidth_points"})
    for (const auto& row : doc[table]) {
      const char* best = std::string(table) == "bandwidth_points" ? "best_bytes_per_s" : "best_flop_per_s";
      const char* theoretical =
          std::string(table) == "bandwidth_points" ? "theoretical_bytes_per_s" : "theoretical_flop_per_s";
      // Rows without a theoretical figure (the L2 and L1 levels) have no member at all: const operator[]
      // on a missing key is undefined in nlohmann::json, so ask first.
      if (!row.contains(best) || !row.contains(theoretical) || row[best].is_null() || row[theoretical].is_null())
        continue;
      bool above = above_theoretical(row[best].get<double>(), row[theoretical].get<double>());
      EXPECT_EQ(row.value("flag", std::string()), std::string(above ? kAboveTheoreticalFlag : "")) << row.dump();
    }
}

TEST(GpuErtOnGpu, ProfileReadsBack) {
  const auto& r = quick_run();
  auto device = hw::parse_device_yaml(gpu_ert_device_yaml(r), "gpu-measured.yaml");
  auto roofline = hw::roofline_for(device, device.modes.front());
  // The YAML keeps 6 significant digits, as a device file a person edits should.
  double dram = best_level_bandwidth(r).at("dram").rate;
  EXPECT_NEAR(roofline.bandwidth.at("dram").value, dram, dram * 1e-5);
  EXPECT_GT(roofline.peak_flops.at("fp32").value, 0);
  EXPECT_EQ(roofline.peak_flops.at("fp32").label, "measured");
}

TEST(GpuErtOnGpu, MissingGpuIndexIsOneLine) {
  GpuErtOptions options;
  options.device = 1000;
  try {
    run_gpu_ert(options);
    FAIL() << "GPU 1000 should not exist";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("--gpu 1000"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ridge::test
