// Nsight Compute imports (profile/): the real exports in tests/data/ncu/real (copied from
// ../shared/data/profiler-samples), files written from ncu's documented layouts whose figures are
// computed by hand here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run.h"
#include "profile/layer_map.h"
#include "profile/metric_value.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "profile/ncu_metrics.h"
#include "support/model_builder.h"
#include "support/ncu_import_fixtures.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ncu_import_fixtures;  // NOLINT(google-build-using-namespace)

using nlohmann::json;
using profile::kernel_figures;
using profile::parse_metric_value;
using profile::read_ncu_export;

std::vector<profile::KernelFigures> kernels_of(const std::string& path) {
  auto exported = read_ncu_export(path);
  std::vector<profile::KernelFigures> out;
  for (const auto& launch : exported.launches) out.push_back(kernel_figures(launch, path));
  return out;
}

TEST(NcuMetricValue, UnitsConvertToBaseUnits) {
  EXPECT_DOUBLE_EQ(*parse_metric_value("1,048,576", "byte").value, 1048576);
  EXPECT_DOUBLE_EQ(*parse_metric_value("1.5", "Kbyte").value, 1500);  // ncu's prefixes are SI
  EXPECT_DOUBLE_EQ(*parse_metric_value("2", "Mbyte").value, 2e6);
  EXPECT_DOUBLE_EQ(*parse_metric_value("2", "Kibyte").value, 2048);
  EXPECT_DOUBLE_EQ(*parse_metric_value("3", "usecond").value, 3e-6);
  EXPECT_DOUBLE_EQ(*parse_metric_value("7", "msecond").value, 7e-3);
  EXPECT_DOUBLE_EQ(*parse_metric_value("10,195,552", "ns").value, 10195552e-9);
  EXPECT_DOUBLE_EQ(*parse_metric_value("1.59", "cycle/nsecond").value, 1.59e9);
  EXPECT_EQ(parse_metric_value("1.59", "cycle/nsecond").base_unit, "hertz");
  EXPECT_DOUBLE_EQ(*parse_metric_value("1,619,726,202.90", "hz").value, 1619726202.90);
  EXPECT_DOUBLE_EQ(*parse_metric_value("10", "Mhz").value, 1e7);
  EXPECT_DOUBLE_EQ(*parse_metric_value("5", "Gbyte/second").value, 5e9);
  EXPECT_DOUBLE_EQ(*parse_metric_value("2", "Kinst").value, 2000);
  EXPECT_FALSE(parse_metric_value("nan", "byte").value);
  EXPECT_FALSE(parse_metric_value("n/a", "").value);
  EXPECT_FALSE(parse_metric_value("(128, 1, 1)", "").value);
  auto odd = parse_metric_value("4", "furlong");
  EXPECT_FALSE(odd.unit_known);
  EXPECT_DOUBLE_EQ(*odd.value, 4);
}

// The NERSC GPP kernel on a CC 8.9 GPU, time from elapsed cycles at the measured clock.
TEST(NcuImport, NerscRooflineExportByHand) {
  auto kernels = kernels_of(sample("rashwanth_RooflineAnalysis_output.csv"));
  ASSERT_EQ(kernels.size(), 1u);
  const auto& k = kernels[0];
  EXPECT_EQ(k.name, "sigma_gpp_gpu_29");
  EXPECT_EQ(k.cc, "8.9");
  EXPECT_DOUBLE_EQ(*k.time_s, 36873068823.0 / 1619726202.90);
  EXPECT_EQ(k.time_source, "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second");
  // dadd + dmul + 2 dfma; fadd + fmul + 2 ffma; no half instruction; no tensor instruction.
  EXPECT_DOUBLE_EQ(at(k, "fp64"), 122305685313.0 + 371957323851.0 + 2 * 734774600586.0);
  EXPECT_DOUBLE_EQ(at(k, "fp32"), 2 * 24541362358.0);
  EXPECT_DOUBLE_EQ(at(k, "fp16"), 0);
  EXPECT_DOUBLE_EQ(at(k, "tensor"), 0);
  EXPECT_TRUE(k.not_counted.empty());
  EXPECT_DOUBLE_EQ(*k.flops(), 122305685313.0 + 371957323851.0 + 2 * 734774600586.0 + 2 * 24541362358.0);
  EXPECT_DOUBLE_EQ(*k.l1_bytes, 455104804320.0);
  EXPECT_DOUBLE_EQ(*k.l2_bytes, 225714841568.0);
  EXPECT_DOUBLE_EQ(*k.dram_bytes, 134957158144.0);
}

// The same program's earlier run: ncu's and the program's lines come before the header.
TEST(NcuImport, OutputBeforeTheHeaderIsSkipped) {
  auto exported = read_ncu_export(sample("rashwanth_RooflineAnalysis_output_f65a625_with_preamble.csv"));
  ASSERT_EQ(exported.launches.size(), 1u);
  auto k = kernel_figures(exported.launches[0], exported.path);
  EXPECT_EQ(k.name, "sigma_gpp_gpu_31");
  EXPECT_DOUBLE_EQ(at(k, "fp64"), 280886167962.0 + 864630050101.0 + 2 * 1541986690884.0);
  EXPECT_DOUBLE_EQ(*k.dram_bytes, 528014094848.0);
  EXPECT_DOUBLE_EQ(*k.time_s, 80919089043.0 / 1619895602.07);
}

// Windows export (BOM, CRLF), ncu 2026.2 on CC 12.0: DRAM bytes as read + write, time in "ns", and
// no instruction counters: every precision is named as not counted, none is zero.
TEST(NcuImport, WindowsExportWithoutFlopCounters) {
  auto saxpy = kernels_of(sample("Olajide-Badejo_GPU-Roofline-Profiler_saxpy.csv"));
  ASSERT_EQ(saxpy.size(), 1u);
  EXPECT_EQ(saxpy[0].name, "unnamed>::saxpy_kernel(float, const float *, float *, int)");
  EXPECT_DOUBLE_EQ(*saxpy[0].dram_bytes, 134221568.0 + 43631104.0);
  EXPECT_DOUBLE_EQ(*saxpy[0].time_s, 292928e-9);
  EXPECT_FALSE(saxpy[0].flops());
  EXPECT_EQ(saxpy[0].not_counted.size(), 4u);
  EXPECT_FALSE(saxpy[0].l1_bytes);  // sector counts of global loads are not L1 traffic
  auto gemm = kernels_of(sample("Olajide-Badejo_GPU-Roofline-Profiler_gemm_tiled.csv"));
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_DOUBLE_EQ(*gemm[0].dram_bytes, 53261312.0 + 3377920.0);
  EXPECT_DOUBLE_EQ(*gemm[0].time_s, 10195552e-9);
  EXPECT_EQ(gemm[0].block, "(32, 32, 1)");
}

// Raw page: one row per launch, units in the second header row (Mbyte, usecond, Kbyte,
// cycle/nsecond), program output and ==PROF== lines between the rows, one kernel launched twice.
TEST(NcuImport, RawPageByHand) {
  auto exported = read_ncu_export(data("raw_page.csv"));
  EXPECT_EQ(exported.layout, profile::NcuLayout::kRaw);
  EXPECT_EQ(exported.skipped_rows, 0u);
  ASSERT_EQ(exported.launches.size(), 3u);
  std::vector<profile::KernelFigures> k;
  for (const auto& l : exported.launches) k.push_back(kernel_figures(l, exported.path));
  EXPECT_EQ(k[0].id, 0);
  EXPECT_EQ(k[2].id, 2);
  EXPECT_EQ(k[0].name, k[2].name);
  EXPECT_DOUBLE_EQ(*k[0].dram_bytes, 8.39e6);
  EXPECT_DOUBLE_EQ(*k[0].l1_bytes, 4194300);
  EXPECT_DOUBLE_EQ(*k[0].l2_bytes, 8388610);
  EXPECT_DOUBLE_EQ(*k[0].time_s, 12.5e-6);
  EXPECT_DOUBLE_EQ(*k[0].sm_clock_hz, 1.38e9);
  EXPECT_DOUBLE_EQ(at(k[0], "fp32"), 1048576 + 2 * 1048576);  // fmul + 2 ffma
  EXPECT_DOUBLE_EQ(*k[0].flops(), 3145728);
  // Volta (CC 7.0): 512 FLOPs per tensor-pipe instruction.
  EXPECT_DOUBLE_EQ(at(k[1], "tensor"), 2048.0 * 512);
  EXPECT_DOUBLE_EQ(*k[1].time_s, 40e-6);
  EXPECT_DOUBLE_EQ(at(k[2], "fp64"), 10 + 30 + 2 * 20);
  EXPECT_DOUBLE_EQ(*k[2].flops(), 3145728 + 80);
  EXPECT_DOUBLE_EQ(*k[2].time_s, 12.75e-6);
}

TEST(NcuImport, KernelsWithoutRangesMapByFamilyAndOrderOnlyWhereUnambiguous) {
  std::vector<profile::ModelLayer> layers{
      {"conv1", "Conv", "conv"}, {"relu1", "Relu", "elementwise"}, {"conv2", "Conv", "conv"}, {"fc", "Gemm", "matmul"}};
  auto k = [](const std::string& name) {
    profile::KernelFigures f;
    f.name = name;
    return f;
  };
  // Two passes of the model: four convolution kernels in order, two GEMMs; ReLU kernels have no family.
  std::vector<profile::KernelFigures> two_passes{
      k("implicit_convolve_sgemm"), k("relu_kernel"), k("sm80_xmma_fprop_implicit_gemm"), k("ampere_sgemm_64x64_tn"),
      k("implicit_convolve_sgemm"), k("relu_kernel"), k("sm80_xmma_fprop_implicit_gemm"), k("ampere_sgemm_64x64_tn")};
  auto map = profile::map_kernels_to_layers(two_passes, layers);
  EXPECT_EQ(map.of_kernel[0].layer, "conv1");
  EXPECT_EQ(map.of_kernel[0].method, "order");
  EXPECT_EQ(map.of_kernel[2].layer, "conv2");
  EXPECT_EQ(map.of_kernel[3].layer, "fc");
  EXPECT_EQ(map.of_kernel[4].layer, "conv1");
  EXPECT_EQ(map.of_kernel[6].layer, "conv2");
  EXPECT_TRUE(map.of_kernel[1].layer.empty());
  ASSERT_EQ(map.notes.size(), 1u);
  EXPECT_NE(map.notes[0].find("2 kernels without an NVTX range"), std::string::npos) << map.notes[0];

  // Three convolution kernels for two layers: which one is extra cannot be told; none is mapped.
  std::vector<profile::KernelFigures> odd{k("implicit_convolve_sgemm"), k("winograd_fwd"),
                                          k("implicit_convolve_sgemm")};
  map = profile::map_kernels_to_layers(odd, layers);
  for (const auto& a : map.of_kernel) EXPECT_TRUE(a.layer.empty());
  ASSERT_EQ(map.notes.size(), 1u);
  EXPECT_NE(map.notes[0].find("3 conv kernels without NVTX ranges against 2 conv layers"), std::string::npos)
      << map.notes[0];

  // ncu --print-nvtx-rename kernel: the kernel carries its range's name, a layer's.
  map = profile::map_kernels_to_layers({k("relu1")}, layers);
  EXPECT_EQ(map.of_kernel[0].layer, "relu1");
  EXPECT_EQ(map.of_kernel[0].method, "nvtx");
}

// What `ridge ncu command` asks ncu for is exactly what the import turns into figures: an export of
// the table's metrics (each 1, in base units, on Volta) gives every figure and names nothing missing.
TEST(NcuImport, TheCommandsMetricSetGivesEveryFigure) {
  std::vector<std::array<std::string, 3>> metrics;
  for (const auto& m : profile::ncu_roofline_metrics()) metrics.push_back({m.name, "", "1"});
  auto csv = details_csv({{"k", "", metrics}}, false);
  for (auto pos = csv.find("\"8.0\""); pos != std::string::npos; pos = csv.find("\"8.0\"", pos))
    csv.replace(pos, 5, "\"7.0\"");
  auto exported = profile::parse_ncu_export(csv, "set.csv");
  ASSERT_EQ(exported.launches.size(), 1u);
  auto k = kernel_figures(exported.launches[0], "set.csv");
  EXPECT_TRUE(k.not_counted.empty()) << k.not_counted.front();
  EXPECT_DOUBLE_EQ(*k.time_s, 1);  // gpu__time_duration.sum, preferred to cycles / clock (also 1)
  EXPECT_DOUBLE_EQ(at(k, "fp64"), 4);
  EXPECT_DOUBLE_EQ(at(k, "fp32"), 4);
  EXPECT_DOUBLE_EQ(at(k, "fp16"), 4);
  EXPECT_DOUBLE_EQ(at(k, "tensor"), 512);
  EXPECT_TRUE(k.l1_bytes && k.l2_bytes && k.dram_bytes);
}

}  // namespace
}  // namespace ridge::test
