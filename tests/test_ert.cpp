// ridge ert's kernels compute and touch exactly what they claim; `ridge ert --quick` runs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <vector>

#include "hw/ert/kernels.h"
#include "support/paths.h"

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

TEST(ErtCli, QuickRunProducesTheDocumentedKeys) {
  auto r = run_ridge("ert --quick --threads 1 --format json --profile " + temp_dir() + "/host-ert.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["threads"], 1);
  // Rates depend on the machine's load (ctest runs tests in parallel), so only their presence is
  // checked here; the FLOP and byte accounting is checked exactly in ErtKernels.*.
  for (const char* key : {"fp32", "fp64"}) {
    EXPECT_GT(doc["peak_flops"][key].get<double>(), 0) << key;
    EXPECT_GT(doc["theoretical"][key].get<double>(), 0) << key;
  }
  for (const char* level : {"l1", "l2", "dram"}) EXPECT_GT(doc["bandwidth"][level].get<double>(), 0) << level;
  EXPECT_GT(doc["gemm_flops"]["fp32"].get<double>(), 0);
  // The profile is a device file: predictions can use it.
  auto predict =
      run_ridge("predict " + model_path("alexnet") + " --device " + temp_dir() + "/host-ert.yaml --format json");
  EXPECT_EQ(predict.exit_code, 0) << predict.err;
  EXPECT_NE(predict.out.find("\"measured\""), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
