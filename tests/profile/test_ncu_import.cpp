// Nsight Compute imports (profile/): the real exports in tests/data/ncu/real (copied from
// ../shared/data/profiler-samples), files written from ncu's documented layouts whose figures are
// computed by hand here, and profile::import_ncu mapping them to a model's layers and checking its batch.
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
#include "profile/ncu_import.h"
#include "profile/ncu_kernel.h"
#include "profile/ncu_metrics.h"
#include "profile/tensor_ops.h"
#include "report/ncu_import_codec.h"
#include "report/ncu_report.h"
#include "report/printer.h"
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
  EXPECT_EQ(map.passes, 2);  // two kernels per convolution and product layer
  EXPECT_TRUE(map.misfit.empty());

  // Three convolution kernels for two layers: which one is extra cannot be told; none is mapped.
  std::vector<profile::KernelFigures> odd{k("implicit_convolve_sgemm"), k("winograd_fwd"),
                                          k("implicit_convolve_sgemm")};
  map = profile::map_kernels_to_layers(odd, layers);
  for (const auto& a : map.of_kernel) EXPECT_TRUE(a.layer.empty());
  ASSERT_EQ(map.notes.size(), 1u);
  EXPECT_NE(map.notes[0].find("3 conv kernels against 2 layers"), std::string::npos) << map.notes[0];
  EXPECT_NE(map.notes[0].find("another model"), std::string::npos) << map.notes[0];
  EXPECT_FALSE(map.misfit.empty());
  EXPECT_EQ(map.passes, 0);

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

// --- Tensor-core work from the ops counters (profile/tensor_ops.h) ---

TEST(TensorOps, CounterNamesAreReadFieldByField) {
  auto total = profile::parse_tensor_ops_counter("sm__ops_path_tensor_src_fp16.sum");
  ASSERT_TRUE(total);
  EXPECT_EQ(total->source, "fp16");
  EXPECT_TRUE(total->instruction.empty() && total->destination.empty() && total->sparsity.empty());
  auto leaf = profile::parse_tensor_ops_counter("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_on");
  ASSERT_TRUE(leaf);
  EXPECT_EQ(leaf->instruction, "hmma");
  EXPECT_EQ(leaf->source, "fp16");
  EXPECT_EQ(leaf->destination, "fp32");
  EXPECT_EQ(leaf->sparsity, "on");
  auto bf16 = profile::parse_tensor_ops_counter("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->source, "bf16");
  EXPECT_EQ(bf16->destination, "fp32");
  for (const char* other : {"sm__inst_executed_pipe_tensor.sum", "sm__ops_path_tensor_src_fp16_sparsity_maybe",
                            "sm__ops_path_tensor_op_hmma", "sm__ops_path_tensor_src_.sum", "dram__bytes.sum"})
    EXPECT_FALSE(profile::parse_tensor_ops_counter(other)) << other;
}

std::map<std::string, profile::MetricValue> ops_metrics(const std::vector<std::pair<std::string, double>>& values) {
  std::map<std::string, profile::MetricValue> m;
  for (const auto& [name, value] : values) m[name] = profile::MetricValue{value, "", true};
  return m;
}

// The totals count every instruction and sparsity once; the 2:4-sparse leaves inside a total are labelled, the
// rest of it dense. Numbers by hand: fp16 1000 ops, of which 100 (hmma, fp32 acc.) + 50 (hgmma) sparse.
TEST(TensorOps, ATotalCountsEachOperationOnceAndItsSparsePartIsLabelled) {
  auto work = profile::tensor_work(ops_metrics({{"sm__ops_path_tensor_src_fp16.sum", 1000},
                                                {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_on.sum", 0},
                                                {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_on.sum", 100},
                                                {"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_on.sum", 50},
                                                {"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum", 850},
                                                {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 64},
                                                {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", 0},
                                                {"sm__ops_path_tensor_src_fp8.sum", 0},
                                                {"sm__ops_path_tensor_src_int8.sum", 0},
                                                {"sm__ops_path_tensor_src_fp64.sum", 0}}),
                                   "9.0");
  ASSERT_TRUE(work.has_counters);
  EXPECT_DOUBLE_EQ(work.ops.at("fp16_tensor"), 850);
  EXPECT_DOUBLE_EQ(work.ops.at("fp16_tensor_sparse"), 150);
  // bf16: the total alone; its sparse part is not split out (no leaves), so it stays in the dense key whole.
  EXPECT_DOUBLE_EQ(work.ops.at("bf16_tensor"), 64);
  EXPECT_EQ(work.ops.count("bf16_tensor_sparse"), 0u);
  EXPECT_DOUBLE_EQ(work.ops.at("tf32_tensor"), 0);
  EXPECT_TRUE(work.not_counted.empty()) << work.not_counted.front();
}

// Per-instruction leaves without the total: summed, never with each other twice, and what they leave out is named.
TEST(TensorOps, LeavesWithoutTheTotalAreSummedAndTheirGapsNamed) {
  auto work =
      profile::tensor_work(ops_metrics({{"sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum", 700},
                                        {"sm__ops_path_tensor_op_hgmma_src_fp16.sum", 720},
                                        {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum", 30}}),
                           "9.0");
  // hgmma's own total (720) wins over its dense leaf (700); hmma fp32-accumulator dense (30) adds to it.
  EXPECT_DOUBLE_EQ(work.ops.at("fp16_tensor"), 750);
  ASSERT_FALSE(work.not_counted.empty());
  EXPECT_EQ(work.not_counted[0],
            "fp16_tensor: no ops counter for hmma (sm__ops_path_tensor_src_fp16.sum counts them all)");
  // The sources the export has no counter for at all are named too, one line each.
  EXPECT_NE(std::find(work.not_counted.begin(), work.not_counted.end(),
                      "fp8_tensor: no ops counter in the export (sm__ops_path_tensor_src_fp8.sum)"),
            work.not_counted.end());
  // On a CC without a table only a total is known to be complete.
  auto elsewhere =
      profile::tensor_work(ops_metrics({{"sm__ops_path_tensor_op_hmma_src_fp16_sparsity_off.sum", 8}}), "8.0");
  EXPECT_DOUBLE_EQ(elsewhere.ops.at("fp16_tensor"), 8);
  ASSERT_EQ(elsewhere.not_counted.size(), 1u);
  EXPECT_NE(elsewhere.not_counted[0].find("may not cover every instruction on CC 8.0"), std::string::npos);
  EXPECT_FALSE(profile::tensor_work(ops_metrics({{"dram__bytes.sum", 1}}), "9.0").has_counters);
}

// What `ridge ncu command|run` ask a Hopper GPU for: the totals of every source and the sparse leaves, so that
// tensor_work needs nothing else to count them all.
TEST(TensorOps, TheHopperMetricSetCountsEverySourceCompletely) {
  std::vector<std::pair<std::string, double>> values;
  for (const auto& m : profile::ncu_cc_metrics("9.0")) values.emplace_back(m.name, 0);
  auto work = profile::tensor_work(ops_metrics(values), "9.0");
  EXPECT_TRUE(work.not_counted.empty()) << work.not_counted.front();
  for (const char* key : {"fp16_tensor", "bf16_tensor", "tf32_tensor", "fp8_tensor", "int8_tensor", "fp64_tensor"})
    EXPECT_EQ(work.ops.count(key), 1u) << key;
  EXPECT_TRUE(profile::ncu_cc_metrics("8.6").empty());
  EXPECT_NE(profile::ncu_roofline_metric_list("9.0").find(",sm__ops_path_tensor_src_fp16.sum"), std::string::npos);
  EXPECT_EQ(profile::ncu_roofline_metric_list("").find("sm__ops_path"), std::string::npos);
}

// The real H200 export of three 4096^3 products (tests/data/ncu/h200/SOURCES.md): each is 2 x 4096^3 FLOPs on
// the tensor cores, in its own source precision, which becomes the kernel's main precision.
TEST(NcuImportH200, EachGemmIsTwoTimes4096CubedTensorFlopsInItsPrecision) {
  auto kernels = h200("details-gemm-4096-fp16-bf16-tf32-tensor-counters.csv");
  ASSERT_EQ(kernels.size(), 9u);
  const double product = 2.0 * 4096 * 4096 * 4096;
  ASSERT_EQ(product, 137438953472.0);
  struct Gemm {
    size_t index;
    const char* key;
    double cuda_core_fp32;  // fadd + fmul + 2 ffma of the export: the tf32 kernel's epilogue
  };
  for (auto [index, key, fp32] :
       {Gemm{2, "fp16_tensor", 0}, Gemm{5, "bf16_tensor", 0}, Gemm{8, "tf32_tensor", 33706496}}) {
    const auto& k = kernels[index];
    EXPECT_DOUBLE_EQ(at(k, key), product) << k.name;
    EXPECT_DOUBLE_EQ(at(k, "fp32"), fp32) << k.name;
    EXPECT_DOUBLE_EQ(*k.flops(), product + fp32) << k.name;
    EXPECT_EQ(report::peak_key_of(k), key);
  }
  EXPECT_EQ(kernels[2].name.rfind("nvjet_sm90_hsh", 0), 0u);
  EXPECT_EQ(kernels[8].name.rfind("sm90_xmma_gemm_f32f32_tf32f32", 0), 0u);
  // The random-number kernels issue HFMA2.MMA (tensor pipe, fp16 FMA counter: 8,921,088 = 32 x 278,784) and do
  // neither fp16 nor tensor-core work; kernel 6's 8,921,089 FMAs are under 32 x 278,785 (a part-active warp).
  for (size_t i : {0u, 1u, 3u, 4u, 6u, 7u}) {
    EXPECT_DOUBLE_EQ(at(kernels[i], "fp16_tensor"), 0) << i;
    EXPECT_DOUBLE_EQ(at(kernels[i], "fp16"), 0) << i;
    EXPECT_EQ(report::peak_key_of(kernels[i]), "fp32") << i;
  }
  // The export asked for the dense (sparsity_off) leaves only: what they cannot see is named, per precision.
  EXPECT_NE(std::find(kernels[2].not_counted.begin(), kernels[2].not_counted.end(),
                      "fp16_tensor: no ops counter for hgmma (2:4-sparse), hmma (sm__ops_path_tensor_src_fp16.sum "
                      "counts them all)"),
            kernels[2].not_counted.end());
}

// HFMA2.MMA in fp32 code is neither fp16 nor tensor work (ridge's own executor on the H200, no ops counters):
// the fp16 FMA counts that are exactly 32x the tensor-pipe instructions are not counted, so no fp32 kernel is
// classed fp16 (before: 16 were, and the export summed 112 M fp16 FLOPs).
TEST(NcuImportH200, Hfma2MmaIsNeitherFp16NorTensorWork) {
  auto kernels = h200("details-ridge-cuda-executor-resnet50-b1-fp32.csv");
  ASSERT_EQ(kernels.size(), 175u);
  double fp16 = 0, fp32 = 0;
  for (const auto& k : kernels) {
    fp16 += at(k, "fp16");
    fp32 += at(k, "fp32");
    EXPECT_NE(report::peak_key_of(k), "fp16") << k.name;
  }
  // Summed by hand from the export: no hadd or hmul anywhere, and every fp16 FMA an HFMA2.MMA (122 kernels exactly
  // 32x their tensor-pipe instructions, 2 fewer: an average pooling and a GEMV); fadd + fmul + 2 ffma.
  EXPECT_DOUBLE_EQ(fp16, 0);
  EXPECT_DOUBLE_EQ(fp32, 9213680824.0);
  // The document: one note line per reason, never one per kernel.
  profile::NcuImport import;
  profile::NcuRun run;
  run.label = run.path = "ridge-executor.csv";
  run.kernels = kernels;
  run.layers = profile::map_kernels_to_layers(run.kernels, {});
  import.runs.push_back(run);
  auto doc = report::ncu_import_document(import);
  int hfma2_exact = 0, tensor_lines = 0;
  for (const auto& note : doc.notes) {
    if (note.find("exactly 32x the tensor-pipe instructions") != std::string::npos) {
      ++hfma2_exact;
      EXPECT_EQ(note.rfind("FLOPs, 122 kernels: ", 0), 0u) << note;
    }
    if (note.find("tensor:") != std::string::npos) ++tensor_lines;
  }
  EXPECT_EQ(hfma2_exact, 1);
  // The two part-active kernels' other tensor-pipe instructions: not counted, named once for both.
  EXPECT_EQ(tensor_lines, 1);
  EXPECT_NE(
      std::find_if(doc.notes.begin(), doc.notes.end(),
                   [](const std::string& n) { return n.rfind("FLOPs not counted, 2 kernels: tensor: ", 0) == 0; }),
      doc.notes.end());
}

// profile::import_ncu, as `ridge import ncu -f json` prints it (its codec).
json json_of(const profile::NcuImportRequest& request) {
  return json::parse(report::encode_ncu_import(profile::import_ncu(request)).dump());
}

// The one-line error of an import refused.
std::string error_of(const profile::NcuImportRequest& request) {
  try {
    profile::import_ncu(request);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the import was not refused";
  return "";
}

TEST(NcuImport, NvtxRangesMapKernelsToLayersAndCompareWithTheAnalysis) {
  auto model = two_conv_model();
  auto analysis = analyze_file(model);
  double conv1 = static_cast<double>(node_named(analysis, "conv1").flops);
  double conv1_bytes = static_cast<double>(node_named(analysis, "conv1").bytes());
  // Two kernels in conv1's range (a transpose and the convolution), one in relu1's, one in a range
  // naming no layer; conv1 inside "conv10" must not match.
  std::vector<Launch> launches{
      {"nchwToNhwcKernel", "forward/conv1", conv_metrics("0", "3072")},
      {"implicit_convolve_sgemm", "forward/conv1", conv_metrics("6912", "1024")},
      {"elementwise_kernel", "forward/relu1", conv_metrics("0", "2048")},
      {"implicit_convolve_sgemm", "forward/conv10", conv_metrics("9216", "512")},
  };
  auto dir = temp_dir();
  std::ofstream(dir + "/nvtx.csv") << details_csv(launches, true);
  auto doc = json_of({.files = {dir + "/nvtx.csv"}, .model = model});
  EXPECT_EQ(doc["kernels"][0]["layer"], "conv1");
  EXPECT_EQ(doc["kernels"][0]["mapped_by"], "nvtx");
  EXPECT_EQ(doc["kernels"][1]["layer"], "conv1");
  EXPECT_EQ(doc["kernels"][2]["layer"], "relu1");
  EXPECT_FALSE(doc["kernels"][3].contains("layer"));
  ASSERT_EQ(doc["unmapped"].size(), 1u);
  const json* row = nullptr;
  for (const auto& l : doc["layers"])
    if (l["layer"] == "conv1") row = &l;
  ASSERT_NE(row, nullptr) << doc["layers"].dump();
  EXPECT_EQ((*row)["kernels"], 2);
  EXPECT_DOUBLE_EQ((*row)["flops_measured"].get<double>(), 2 * 6912);
  EXPECT_DOUBLE_EQ((*row)["flops_ridge"].get<double>(), conv1);
  EXPECT_DOUBLE_EQ((*row)["flops_ratio"].get<double>(), 2 * 6912 / conv1);
  EXPECT_DOUBLE_EQ((*row)["dram_bytes_measured"].get<double>(), 3072 + 1024);
  EXPECT_DOUBLE_EQ((*row)["bytes_ratio"].get<double>(), 4096 / conv1_bytes);
  EXPECT_DOUBLE_EQ((*row)["time_s"].get<double>(), 20e-6);
  // The whole-model row counts every kernel, mapped or not.
  const auto& whole = doc["layers"].back();
  EXPECT_EQ(whole["kernels"], 4);
  EXPECT_DOUBLE_EQ(whole["flops_measured"].get<double>(), 2 * (6912 + 9216));
  EXPECT_DOUBLE_EQ(whole["flops_ridge"].get<double>(), static_cast<double>(analysis.cost.totals.flops));
}

// The real H200 export of one pass at batch 1 (tests/data/ncu/h200): imported with another batch or pass count, it
// is refused in one line; with its own, its passes and how they were found are in the run's row.
TEST(NcuImport, AnExportOfAnotherBatchOrPassCountIsRefused) {
  auto file = source_path("tests/data/ncu/h200/details-resnet50-b1-fp32-nvtx.csv");
  auto model = source_path("models/resnet50.onnx");
  auto doc = json_of({.files = {file}, .model = model});
  EXPECT_EQ(doc["runs"][0]["passes"], 1);
  EXPECT_EQ(doc["runs"][0]["passes_from"], "NVTX ranges: each of 105 layers ran once");
  auto batch = error_of({.files = {file}, .model = model, .batch = 32});
  EXPECT_EQ(std::count(batch.begin(), batch.end(), '\n'), 0) << batch;
  EXPECT_NE(batch.find("at batch 32"), std::string::npos) << batch;
  EXPECT_NE(batch.find("about 1 (give it with --batch)"), std::string::npos) << batch;
  auto passes = error_of({.files = {file}, .model = model, .repetitions = 2});
  EXPECT_NE(passes.find("--repetitions 2 contradicts the export, which holds 1 pass"), std::string::npos) << passes;
}

}  // namespace
}  // namespace ridge::test
