// `ridge import ncu`: the real Nsight Compute exports in tests/data/ncu/real (copied from
// ../shared/data/profiler-samples), files written from ncu's documented layouts (raw page, per-kernel summary, NVTX
// ranges) whose figures are computed by hand here, and malformed files.
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
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;
using profile::kernel_figures;
using profile::parse_metric_value;
using profile::read_ncu_export;

std::string sample(const std::string& name) { return source_path("tests/data/ncu/real/" + name); }
std::string data(const std::string& name) { return source_path("tests/data/ncu/" + name); }

std::vector<profile::KernelFigures> kernels_of(const std::string& path) {
  auto exported = read_ncu_export(path);
  std::vector<profile::KernelFigures> out;
  for (const auto& launch : exported.launches) out.push_back(kernel_figures(launch, path));
  return out;
}

double at(const profile::KernelFigures& k, const std::string& precision) {
  auto it = k.flops_by_precision.find(precision);
  if (it == k.flops_by_precision.end()) ADD_FAILURE() << precision << " not counted for " << k.name;
  return it == k.flops_by_precision.end() ? -1 : it->second;
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

TEST(NcuImport, LaunchFailureIsNamedNotZero) {
  auto exported = read_ncu_export(sample("rashwanth_RooflineAnalysis_output8_launchfailed.csv"));
  ASSERT_EQ(exported.launches.size(), 1u);
  EXPECT_TRUE(exported.launches[0].failed());
  ASSERT_FALSE(exported.messages.empty());
  EXPECT_EQ(exported.messages[0], "==ERROR== LaunchFailed");
  auto k = kernel_figures(exported.launches[0], exported.path);
  EXPECT_TRUE(k.failed);
  EXPECT_FALSE(k.time_s);
  EXPECT_FALSE(k.flops());
  auto r = run_ridge("import ncu --no-store " + sample("rashwanth_RooflineAnalysis_output8_launchfailed.csv"));
  // The export imports (it is one, and says what happened), with the failure named, not as a result.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("LaunchFailed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing was measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 launch could not be profiled"), std::string::npos) << r.out;
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

// --print-summary per-kernel: averages over the invocations; the run's totals count every launch.
TEST(NcuImport, PerKernelSummaryByHand) {
  auto exported = read_ncu_export(data("summary_per_kernel.csv"));
  EXPECT_EQ(exported.layout, profile::NcuLayout::kSummary);
  ASSERT_EQ(exported.launches.size(), 2u);
  auto k = kernel_figures(exported.launches[0], exported.path);
  EXPECT_EQ(k.invocations, 4);
  EXPECT_DOUBLE_EQ(*k.time_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(*k.dram_bytes, 1.05e6);
  EXPECT_DOUBLE_EQ(at(k, "fp32"), 131072);
  // 16 tensor instructions on CC 8.0: their FLOPs are not fixed by the count, so not counted.
  EXPECT_EQ(k.flops_by_precision.count("tensor"), 0u);
  bool tensor_named = false;
  for (const auto& line : k.not_counted) tensor_named |= line.find("tensor: 16 tensor-pipe") != std::string::npos;
  EXPECT_TRUE(tensor_named);

  auto r = run_ridge("import ncu --no-store -f json " + data("summary_per_kernel.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["layout"], "summary");
  EXPECT_DOUBLE_EQ(run["time_s"].get<double>(), 4 * 2.5e-6 + 2 * 0.02e-3);
  EXPECT_DOUBLE_EQ(run["dram_bytes"].get<double>(), 4 * 1.05e6 + 2 * 512e3);
  EXPECT_FALSE(run.contains("flops"));  // the GEMM has no instruction counters: no total, not a partial one
  EXPECT_EQ(doc["kernels"][1]["invocations"], 2);
}

TEST(NcuImport, JsonKeepsTheKernelLayoutThePlotsRead) {
  auto r = run_ridge("import ncu --no-store -f json -d v100-sxm2 " + data("raw_page.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  ASSERT_EQ(doc["kernels"].size(), 3u);
  const auto& k = doc["kernels"][0];
  EXPECT_EQ(k["name"], "void scale_kernel<float>(float *, int)");
  EXPECT_DOUBLE_EQ(k["time_s"].get<double>(), 12.5e-6);
  EXPECT_DOUBLE_EQ(k["flops"].get<double>(), 3145728);
  EXPECT_DOUBLE_EQ(k["flops_by_precision"]["fp32"].get<double>(), 3145728);
  EXPECT_DOUBLE_EQ(k["bytes"]["l1"].get<double>(), 4194300);
  EXPECT_DOUBLE_EQ(k["bytes"]["l2"].get<double>(), 8388610);
  EXPECT_DOUBLE_EQ(k["bytes"]["dram"].get<double>(), 8.39e6);
  EXPECT_DOUBLE_EQ(k["intensity"]["dram"].get<double>(), 3145728 / 8.39e6);
  EXPECT_DOUBLE_EQ(k["flops_per_s"].get<double>(), 3145728 / 12.5e-6);
  EXPECT_DOUBLE_EQ(k["bandwidth"]["dram"].get<double>(), 8.39e6 / 12.5e-6);
  // The V100's fp32 peak and DRAM bandwidth, from its device file.
  auto device = json::parse(run_ridge("devices show v100-sxm2 -f json").out);
  double fp32 = device["peak_flops"]["fp32"].get<double>(), dram = device["bandwidth"]["dram"].get<double>();
  ASSERT_GT(fp32, 0) << device.dump();
  EXPECT_EQ(k["peak_key"], "fp32");
  EXPECT_NEAR(k["of_peak_pct"].get<double>(), 100 * 3145728 / 12.5e-6 / fp32, 1e-9);
  EXPECT_NEAR(k["of_dram_bw_pct"].get<double>(), 100 * 8.39e6 / 12.5e-6 / dram, 1e-9);
  EXPECT_EQ(doc["kernels"][1]["peak_key"], "fp16_tensor");

  // The hierarchical roofline draws it: one point per level per kernel.
  auto dir = temp_dir();
  std::ofstream(dir + "/k.json") << r.out;
  auto plot =
      run_ridge("plot roofline --from " + dir + "/k.json --hierarchical -d v100-sxm2 -f json -o " + dir + "/k.vg.json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(json::parse(plot.out)["points"], 9) << plot.out;
}

// A details-page CSV of `rows`: kernel, NVTX range, and metrics (name, unit, value).
struct Launch {
  std::string kernel, nvtx;
  std::vector<std::array<std::string, 3>> metrics;
};
std::string details_csv(const std::vector<Launch>& launches, bool nvtx_column) {
  std::string out = R"x("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",)x"
                    R"x("Grid Size","Device","CC",)x";
  if (nvtx_column) out += R"x("NVTX Push/Pop Range",)x";
  out += R"x("Section Name","Metric Name","Metric Unit","Metric Value")x"
         "\n";
  for (size_t i = 0; i < launches.size(); ++i)
    for (const auto& m : launches[i].metrics) {
      out += fmt::format(R"x("{}","99","python3","localhost","{}","1","7","(256, 1, 1)","(64, 1, 1)","0","8.0",)x", i,
                         launches[i].kernel);
      if (nvtx_column) out += "\"" + launches[i].nvtx + "\",";
      out += fmt::format(R"x("Command line profiler metrics","{}","{}","{}")x", m[0], m[1], m[2]) + "\n";
    }
  return out;
}

std::vector<std::array<std::string, 3>> conv_metrics(const std::string& ffma, const std::string& dram) {
  return {{"gpu__time_duration.sum", "usecond", "10"},
          {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "0"},
          {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "0"},
          {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", ffma},
          {"dram__bytes.sum", "byte", dram}};
}

// conv1 (3 -> 4 channels, 3x3, 8x8) -> relu1 -> conv2 (4 -> 4).
std::string two_conv_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}}).weight("w1", {4, 3, 3, 3}).weight("w2", {4, 4, 3, 3});
  b.output("y");
  set_ints(b.node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"}, "relu1");
  set_ints(b.node("Conv", {"r1", "w2"}, {"y"}, "conv2"), "pads", {1, 1, 1, 1});
  return b.save("ncu-two-conv");
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
  auto r = run_ridge("import ncu --no-store -f json -m " + model + " " + dir + "/nvtx.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
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

TEST(NcuImport, MalformedFilesGetOneLine) {
  auto dir = temp_dir();
  auto check = [&](const std::string& name, const std::string& text, const std::string& expected) {
    std::ofstream(dir + "/" + name) << text;
    auto r = run_ridge("import ncu --no-store " + dir + "/" + name);
    EXPECT_EQ(r.exit_code, 1) << name;
    EXPECT_NE(r.err.find(expected), std::string::npos) << name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  check("empty.csv", "", "not an Nsight Compute CSV export");
  check("other.csv", "node,time_ms\nconv1,1.5\n", "not an Nsight Compute CSV export");
  check("perm.csv",
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n",
        "ncu wrote no results: ==ERROR== ERR_NVGPUCTRPERM");
  check("header-only.csv", details_csv({}, false), "a header but no profiled kernels");
  auto raw = details_csv({{"k", "", conv_metrics("1", "2")}}, false);
  std::ifstream in(data("raw_page.csv"));
  std::string raw_page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check("mixed.csv", raw + raw_page, "one export holds one layout");

  // A quoted line of the wrong width between the rows is skipped and said.
  std::ofstream(dir + "/odd.csv") << raw << "\"program says\", \"hello\"\n";
  auto r = run_ridge("import ncu --no-store " + dir + "/odd.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 quoted line between the rows did not have the header's columns"), std::string::npos) << r.out;
}

TEST(NcuImport, ImportedKernelsAreStored) {
  auto dir = temp_dir();
  auto store = dir + "/ncu-import.db";
  auto r = run_ridge("import ncu --store " + store + " --batch 8 " + data("raw_page.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto list = run_ridge("results --store " + store + " -f json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto results = json::parse(list.out)["results"];
  ASSERT_EQ(results.size(), 1u) << list.out;
  EXPECT_EQ(results[0]["command"], "import ncu");
  EXPECT_EQ(results[0]["batch"], 8);
  auto id = results[0]["id"].get<int64_t>();
  auto plot = run_ridge("plot roofline --store " + store + " --result " + std::to_string(id) +
                        " --hierarchical -d v100-sxm2 -f json -o " + dir + "/stored.vg.json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(json::parse(plot.out)["points"], 9) << plot.out;
}

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// `ridge calibrate MODEL --measured EXPORT`: the export's kernels, mapped to layers, are the node
// times; --repetitions divides them.
TEST(NcuImport, CalibrateFitsTheMappedKernelTimes) {
  auto model = two_conv_model();
  auto metrics = [](const std::string& time_us) {
    return std::vector<std::array<std::string, 3>>{{"gpu__time_duration.sum", "usecond", time_us}};
  };
  std::vector<Launch> launches{{"implicit_convolve_sgemm", "conv1", metrics("30")},
                               {"elementwise_kernel", "relu1", metrics("8")},
                               {"implicit_convolve_sgemm", "conv2", metrics("50")},
                               {"memcpy_kernel", "", metrics("5")}};
  auto dir = temp_dir();
  std::ofstream(dir + "/cal.csv") << details_csv(launches, true);
  auto once = run_ridge("calibrate " + model + " --device t4 --measured " + dir + "/cal.csv -o " + dir +
                        "/t4a.yaml --no-store -f json");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  auto a = json::parse(once.out);
  EXPECT_EQ(a["nodes"], 3);
  EXPECT_EQ(a["unmatched"], 0);
  bool said = false;
  for (const auto& note : a["notes"]) said |= note.get<std::string>().find("1 of 4 kernels") != std::string::npos;
  EXPECT_TRUE(said) << a["notes"].dump();
  auto twice = run_ridge("calibrate " + model + " --device t4 --measured " + dir + "/cal.csv --repetitions 2 -o " +
                         dir + "/t4b.yaml --no-store -f json");
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  auto b = json::parse(twice.out);
  // Half the time per layer: the fitted overhead halves.
  EXPECT_NEAR(b["overhead_s"].get<double>(), a["overhead_s"].get<double>() / 2, 1e-12);
  auto refused = run_ridge("calibrate " + model + " --device t4 --measured " + source_path("tests/data/ncu/README.md") +
                           " --repetitions 2 --no-store");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--repetitions applies to an Nsight Compute export"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace ridge::test

#include "profile/ncu_metrics.h"

namespace ridge::test {
namespace {

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

namespace ridge::test {
namespace {

// `ridge report` on a store holding an import: the kernels' hierarchical roofline, with the ceilings
// of the device the import named, in the roofline section.
TEST(NcuImport, TheReportDrawsStoredKernels) {
  auto dir = temp_dir() + "/ncu-report";
  std::filesystem::create_directories(dir);
  auto store = dir + "/s.db";
  ASSERT_EQ(run_ridge("import ncu --store " + store + " -d v100-sxm2 " + data("raw_page.csv")).exit_code, 0);
  auto r = run_ridge("report --store " + store + " --markdown " + dir + "/md");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/md/report.md");
  std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto title = md.find("Hierarchical roofline: result 1 (import ncu on v100-sxm2)");
  ASSERT_NE(title, std::string::npos) << md;
  EXPECT_GT(title, md.find("## 4. Roofline"));
  EXPECT_LT(title, md.find("## 5. Analysis"));
}

}  // namespace
}  // namespace ridge::test
