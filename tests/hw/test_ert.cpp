// ridge ert's kernels compute and touch exactly what they claim; the report flags peaks above theory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "hw/device_file.h"
#include "hw/ert/ert.h"
#include "hw/ert/kernels.h"
#include "hw/roofline.h"
#include "report/ert_codec.h"
#include "report/ert_report.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ridge::hw::ert;

std::vector<Isa> isas() {
  std::vector<Isa> all{Isa::kScalar};
  if (best_isa() == Isa::kAvx512) all.push_back(Isa::kAvx2);
  if (best_isa() != Isa::kScalar) all.push_back(best_isa());
  return all;
}

TEST(ErtKernels, FmaChecksumsAndFlopCounts) {
  for (auto isa : isas()) {
    auto run = fma_fp32(isa, 1000, -1.0f, 0.0f);  // even step count: every accumulator back at its start
    EXPECT_EQ(run.checksum, run.expected) << isa_name(isa);
    int lanes = isa == Isa::kScalar ? 1 : isa_bits(isa) / 32;
    int accumulators = isa == Isa::kAvx512 ? 16 : isa == Isa::kAvx2 ? 12 : 8;
    EXPECT_EQ(run.flops, 2.0 * lanes * accumulators * 1000) << isa_name(isa);
    auto odd = fma_fp32(isa, 999, -1.0f, 0.0f);
    EXPECT_EQ(odd.checksum, -odd.expected) << isa_name(isa);  // odd: every value negated
    auto run64 = fma_fp64(isa, 1000, -1.0, 0.0);
    EXPECT_EQ(run64.checksum, run64.expected) << isa_name(isa);
    EXPECT_EQ(run64.flops, 2.0 * (isa == Isa::kScalar ? 1 : isa_bits(isa) / 64) * accumulators * 1000);
    // A non-trivial recurrence: acc = acc * 1 + 0.5 adds 0.5 per step to every lane.
    auto grow = fma_fp64(isa, 8, 1.0, 0.5);
    int lanes64 = isa == Isa::kScalar ? 1 : isa_bits(isa) / 64;
    EXPECT_EQ(grow.checksum, grow.expected + 8 * 0.5 * lanes64 * accumulators) << isa_name(isa);
  }
}

TEST(ErtKernels, StreamingKernelsTouchExactlyTheirElements) {
  constexpr size_t n = 256, guard = 32;
  auto* raw = static_cast<double*>(std::aligned_alloc(64, (3 * (n + guard)) * sizeof(double)));
  double* a = raw;
  double* b = raw + n + guard;
  double* c = raw + 2 * (n + guard);
  for (size_t i = 0; i < n + guard; ++i) a[i] = 1.0, b[i] = 2.0, c[i] = 3.0;
  EXPECT_EQ(read_kernel(a, n, 3), 3.0 * n);
  write_kernel(a, n, 7.0, 2);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], 7.0);
  EXPECT_EQ(a[n], 1.0);  // the element after the array is untouched
  copy_kernel(b, a, n, 1);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(b[i], 7.0);
  EXPECT_EQ(b[n], 2.0);
  triad_kernel(a, b, c, n, 0.5, 1);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], 7.0 + 0.5 * 3.0);
  EXPECT_EQ(a[n], 1.0);
  std::free(raw);
}

TEST(ErtKernels, IntensityKernelAppliesEveryFma) {
  constexpr size_t n = 128;
  auto* data = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) data[i] = 1.0f;
  intensity_kernel(data, n, 3, 2.0f, 1.0f);  // x -> 2x + 1, three times: 1 -> 3 -> 7 -> 15
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(data[i], 15.0f) << i;
  std::free(data);
}

// Measured FMA instructions per cycle (a few percent below the pipe counts) -> the width.
TEST(ErtFmaWidth, DerivedFromMeasuredThroughputs) {
  auto zen5 = derive_fma_width(1.97, 1.94);  // full 512-bit datapath
  EXPECT_EQ(zen5.bits, 512);
  EXPECT_EQ(zen5.fmas_per_cycle, 2);
  EXPECT_DOUBLE_EQ(zen5.flops_per_cycle_fp32, 64);
  EXPECT_NE(zen5.description.find("2 x 512-bit"), std::string::npos) << zen5.description;
  auto zen4 = derive_fma_width(1.96, 0.98);  // 512-bit FMAs split over two 256-bit pipes
  EXPECT_DOUBLE_EQ(zen4.flops_per_cycle_fp32, 32);
  EXPECT_EQ(zen4.bits, 256);
  EXPECT_EQ(zen4.fmas_per_cycle, 2);
  auto server = derive_fma_width(1.9, 1.85);  // Xeon with two 512-bit units
  EXPECT_DOUBLE_EQ(server.flops_per_cycle_fp32, 64);
  auto client = derive_fma_width(0.99, 0.97);  // one FMA unit of either width
  EXPECT_DOUBLE_EQ(client.flops_per_cycle_fp32, 32);
  EXPECT_EQ(client.bits, 512);
  auto avx2 = derive_fma_width(1.92, 0);  // no AVX-512
  EXPECT_DOUBLE_EQ(avx2.flops_per_cycle_fp32, 32);
  EXPECT_EQ(avx2.fma512_per_cycle, 0);
  EXPECT_NE(avx2.description.find("2 x 256-bit"), std::string::npos) << avx2.description;
  auto slow = derive_fma_width(0.52, 0);  // one 256-bit FMA every other cycle
  EXPECT_DOUBLE_EQ(slow.flops_per_cycle_fp32, 8);
  EXPECT_EQ(slow.bits, 128);
  EXPECT_EQ(slow.fmas_per_cycle, 1);
}

TEST(ErtFmaWidth, AboveTheoreticalIsFlagged) {
  EXPECT_FALSE(above_theoretical(1.0, 1.0));
  EXPECT_FALSE(above_theoretical(1.019, 1.0));
  EXPECT_TRUE(above_theoretical(1.03, 1.0));
  EXPECT_TRUE(above_theoretical(2.08, 1.0));  // a halved peak: "208% of theoretical"
  EXPECT_FALSE(above_theoretical(1.0, 0));    // no stated peak: nothing to flag
}

ErtResult synthetic_result(double fp32, double theoretical_fp32) {
  ErtResult r;
  r.cpu.model = "Test CPU";
  r.cpu.cores = 2;
  r.isa = "avx512";
  r.fma = derive_fma_width(1.97, 1.94);
  r.threads = 2;
  PeakPoint p;
  p.threads = 2;
  p.clock_mhz = 3000;
  p.fp32 = sys::summarize({fp32 * 0.9, fp32});
  p.fp64 = sys::summarize({fp32 / 2});
  p.theoretical_fp32 = theoretical_fp32;
  p.theoretical_fp64 = theoretical_fp32 / 2;
  r.peaks.push_back(p);
  r.level_bandwidth = {{"l1", 1e12}, {"dram", 5e10}};
  // The two product libraries at different rates, as on an AVX-512 CPU whose BLAS runs AVX2 kernels.
  r.gemm_by_kernel = {{"ATen at::mm", sys::summarize({1e11, 1.2e11})},
                      {"oneDNN matmul", sys::summarize({1.5e11, 1.6e11})}};
  r.gemm_fp32 = r.gemm_by_kernel.at("oneDNN matmul");
  r.gemm_kernel = "oneDNN matmul";
  r.gemm_n = 1024;
  return r;
}

TEST(ErtReport, PeakAboveTheoreticalIsFlaggedInTableAndJson) {
  auto above = synthetic_result(2.08e11, 1e11);
  std::ostringstream table;
  report::print_table(table, report::ert_document(above));
  EXPECT_NE(table.str().find(std::string("208.0% (") + kAboveTheoreticalFlag + ")"), std::string::npos) << table.str();
  auto doc = report::to_json(report::ert_document(above));
  EXPECT_EQ(doc["peaks"][0]["flag"], kAboveTheoreticalFlag);
  EXPECT_DOUBLE_EQ(doc["fma_width"]["flops_per_cycle_fp32"].get<double>(), 64);
  auto fine = synthetic_result(0.95e11, 1e11);
  std::ostringstream plain;
  report::print_table(plain, report::ert_document(fine));
  EXPECT_EQ(plain.str().find(kAboveTheoreticalFlag), std::string::npos);
  EXPECT_EQ(report::to_json(report::ert_document(fine))["peaks"][0]["flag"], "");
}

// The profile is a device file whose measured GEMM rate is the matrix ceiling: the faster library's, both named.
TEST(ErtProfile, LoadsWithTheGemmRateAsMatrixCeiling) {
  auto r = synthetic_result(2e11, 2.2e11);
  r.cpu.model = "Test \"quoted\" CPU: with colon";
  auto path = temp_dir() + "/ert-profile.yaml";
  std::ofstream(path) << ert_device_yaml(r);
  auto device = hw::load_device_file(path);
  EXPECT_EQ(device.name, r.cpu.model + " (measured)");
  auto roofline = hw::roofline_for(device, device.modes.front());
  EXPECT_DOUBLE_EQ(roofline.peak_flops.at("fp32").value, 2e11);
  EXPECT_DOUBLE_EQ(roofline.peak_flops.at("fp32_gemm").value, 1.6e11);
  EXPECT_EQ(roofline.peak_flops.at("fp32_gemm").label, "measured");
  const auto& source = roofline.peak_flops.at("fp32_gemm").source;
  EXPECT_NE(source.find("oneDNN matmul, n = 1024"), std::string::npos) << source;
  EXPECT_NE(source.find("ATen at::mm 120.0, oneDNN matmul 160.0 GFLOP/s"), std::string::npos) << source;
  EXPECT_DOUBLE_EQ(roofline.bandwidth.at("dram").value, 5e10);
  EXPECT_NE(roofline.peak_flops.at("fp32").source.find("2 x 512-bit"), std::string::npos);
}

// The ert codec: a CPU measurement round-trips with every field, its JSON is the document's plus the measurement,
// and the store's headline comes from it.
TEST(ErtCodec, ACpuMeasurementRoundTripsWithEveryField) {
  auto r = synthetic_result(2e11, 2.2e11);
  r.cpu.caches = {{"l1", 48 * 1024.0}, {"l3", 32e6}};
  r.cpu.flags = {"avx2", "avx512f", "fma"};
  r.bandwidth = {{"triad", 2, 16384, sys::summarize({9e11, 1e12}), "l1"}};
  r.level_kernel_bandwidth = {{"dram", {{"copy", 4.5e10}, {"triad", 5e10}}}};
  r.intensity = {{"dram", 8, 4.0, sys::summarize({1e11})}};
  r.seconds = 27.5;
  auto encoded = report::encode_ert(r);
  auto back = std::get<ErtResult>(report::decode_ert(nlohmann::json::parse(encoded.dump()), "test"));
  EXPECT_EQ(report::encode_ert(back).dump(), encoded.dump());
  EXPECT_EQ(back.cpu.model, "Test CPU");
  EXPECT_EQ(back.cpu.caches, r.cpu.caches);
  EXPECT_EQ(back.cpu.flags, r.cpu.flags);
  EXPECT_EQ(back.fma.description, r.fma.description);
  ASSERT_EQ(back.peaks.size(), 1u);
  EXPECT_EQ(back.peaks[0].fp32.max, r.peaks[0].fp32.max);
  EXPECT_EQ(back.peaks[0].fp32.samples, 2);
  EXPECT_EQ(back.bandwidth[0].rate.median, r.bandwidth[0].rate.median);
  EXPECT_EQ(back.level_kernel_bandwidth, r.level_kernel_bandwidth);
  EXPECT_EQ(back.intensity[0].intensity, 4.0);
  EXPECT_EQ(back.gemm_n, 1024);
  EXPECT_EQ(back.gemm_kernel, "oneDNN matmul");
  ASSERT_EQ(back.gemm_by_kernel.size(), 2u);
  EXPECT_EQ(back.gemm_by_kernel.at("ATen at::mm").max, 1.2e11);
  EXPECT_EQ(back.seconds, 27.5);
  std::ostringstream table;
  report::print_table(table, report::ert_document(r));
  EXPECT_NE(table.str().find("GEMM fp32 (oneDNN matmul, n = 1024)"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("ATen at::mm 120 GFLOP/s"), std::string::npos) << table.str();
  auto printed = report::to_json(report::ert_document(r));
  encoded.erase("ert");
  EXPECT_EQ(encoded, printed);
  EXPECT_EQ(report::ert_headline(r), "fp32 200 GFLOP/s, DRAM 50.0 GB/s");
  report::TypedResult value{.kind = "ert"};
  value.ert = r;
  EXPECT_EQ(report::headline(report::decode_typed(nlohmann::json(report::encode_typed(value)), "record")),
            "fp32 200 GFLOP/s, DRAM 50.0 GB/s");
}

TEST(ErtCodec, OtherJsonIsRefusedInOneLine) {
  try {
    report::decode_ert(nlohmann::json{{"ert", {{"cpu", {{"threads", "many"}}}}}}, "x.json");
    FAIL() << "accepted";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("x.json: ert is malformed: ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_THROW(report::decode_ert(nlohmann::json{{"peaks", 1}}, "x.json"), Error);
}
}  // namespace
}  // namespace ridge::test
