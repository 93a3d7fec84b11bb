// Whether an Nsight Compute export belongs with the model, batch and passes it is imported with, and how its
// kernels find their layers (profile/nvtx_ranges, profile/layer_map, profile/export_fit): checked on the real
// H200 exports in tests/data/ncu/h200 (SOURCES.md), with figures counted by hand from the files.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profile/export_fit.h"
#include "profile/layer_map.h"
#include "profile/nvtx_ranges.h"
#include "report/document.h"
#include "report/ncu_report.h"
#include "report/printer.h"
#include "support/model_builder.h"
#include "support/ncu_import_fixtures.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace ncu_import_fixtures;  // NOLINT(google-build-using-namespace)

constexpr const char* kPushPop = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";

std::vector<profile::ModelLayer> layers_of(const std::string& model, int64_t batch = 1) {
  shape::Bindings bindings;
  bindings.batch = batch;
  return profile::model_layers(analyze_file(source_path("models/" + model), bindings).cost);
}

size_t mapped(const profile::LayerMap& map) {
  return std::count_if(map.of_kernel.begin(), map.of_kernel.end(), [](const auto& a) { return !a.layer.empty(); });
}

bool has_note(const profile::LayerMap& map, const std::string& text) {
  return std::any_of(map.notes.begin(), map.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

TEST(NvtxRanges, TheCellOfNcu2025GivesTheRangeNamesOutermostFirst) {
  // A cell as the H200 export holds it (tests/data/ncu/h200/details-resnet50-b1-fp32-nvtx.csv, after CSV unquoting).
  auto names =
      profile::nvtx_range_names(kPushPop, R"(3486  "<default domain>:resnet50_batch1:none:none:none:none:none:none"  )"
                                          R"("<default domain>:/conv1/Conv:none:none:none:none:none:none" )");
  EXPECT_EQ(names, (std::vector<std::string>{"resnet50_batch1", "/conv1/Conv"}));
  // Fields are counted from both ends: a ':' inside the name stays in it.
  EXPECT_EQ(profile::nvtx_range_names(kPushPop, R"(7 "<default domain>:step:3:none:none:none:none:none:none")"),
            (std::vector<std::string>{"step:3"}));
  // A range pushed with a message only carries its name in Msg.
  EXPECT_EQ(profile::nvtx_range_names(kPushPop, R"(7 "dom:none:none:none:none:none:ASCII:layer1")"),
            (std::vector<std::string>{"layer1"}));
  // An older export's plain text is one name; an empty cell none.
  EXPECT_EQ(profile::nvtx_range_names("NVTX Push/Pop Range", "forward/conv1"),
            (std::vector<std::string>{"forward/conv1"}));
  EXPECT_TRUE(profile::nvtx_range_names(kPushPop, "  ").empty());
}

TEST(NcuFitH200, LayerNamesComeFromTheRangesNotTheirRawText) {
  auto kernels = h200("details-resnet50-b1-fp32-nvtx.csv");
  ASSERT_EQ(kernels.size(), 174u);
  EXPECT_EQ(kernels[0].nvtx_ranges, (std::vector<std::string>{"resnet50_batch1", "/conv1/Conv"}));
  EXPECT_EQ(kernels[0].nvtx, "resnet50_batch1 > /conv1/Conv");
  // Without a model, a kernel's layer is its innermost range.
  auto map = profile::map_kernels_to_layers(kernels, {});
  EXPECT_EQ(map.of_kernel[0].layer, "/conv1/Conv");
  for (const auto& a : map.of_kernel) EXPECT_EQ(a.layer.find(":none"), std::string::npos) << a.layer;
}

TEST(NcuFitH200, PyTorchsNvtxExportMapsEveryKernelAndOnePass) {
  auto kernels = h200("details-resnet50-b1-fp32-nvtx.csv");
  auto map = profile::map_kernels_to_layers(kernels, layers_of("resnet50.onnx"));
  // 158 kernels in ranges named like the layers; the 16 residual adds (no module: only the pass's range) by order
  // onto the 16 Add nodes.
  size_t nvtx = 0, order = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    nvtx += map.of_kernel[i].method == "nvtx";
    if (map.of_kernel[i].method == "order") {
      ++order;
      EXPECT_NE(kernels[i].name.find("CUDAFunctor_add"), std::string::npos) << kernels[i].name;
      EXPECT_NE(map.of_kernel[i].layer.find("/Add"), std::string::npos) << map.of_kernel[i].layer;
    }
  }
  EXPECT_EQ(nvtx, 158u);
  EXPECT_EQ(order, 16u);
  EXPECT_EQ(map.passes, 1);
  EXPECT_EQ(map.passes_from, "NVTX ranges: each of 105 layers ran once");
  EXPECT_TRUE(map.misfit.empty()) << map.misfit;
}

TEST(NcuFitH200, RidgesOwnExecutorMapsItsReluAddAndBiasKernelsByOrder) {
  auto kernels = h200("details-ridge-cuda-executor-resnet50-b1-fp32.csv");
  ASSERT_EQ(kernels.size(), 175u);
  auto map = profile::map_kernels_to_layers(kernels, layers_of("resnet50.onnx"));
  // Launch order, read from the export: conv, cuDNN's bias add (op_generic_tensor_kernel), ReLU, max pool, ...
  EXPECT_EQ(profile::kernel_family(kernels[1].name), "conv");  // its "reducedDivisorArray" argument is no reduction
  EXPECT_EQ(map.of_kernel[0].layer, "/conv1/Conv");
  EXPECT_EQ(map.of_kernel[1].layer, "/conv1/Conv");
  EXPECT_EQ(map.of_kernel[2].layer, "/relu/Relu");
  EXPECT_EQ(map.of_kernel[3].layer, "/maxpool/MaxPool");
  EXPECT_EQ(map.of_kernel[12].layer, "/layer1/layer1.0/downsample/downsample.0/Conv");
  EXPECT_EQ(map.of_kernel[13].layer, "/layer1/layer1.0/downsample/downsample.0/Conv");
  EXPECT_EQ(map.of_kernel[14].layer, "/layer1/layer1.0/Add");
  EXPECT_EQ(map.of_kernel[174].layer, "/fc/Gemm");
  // Only the copy of the Gemm's bias (a strided copy before the product) stays unmapped, and is named.
  EXPECT_EQ(mapped(map), 174u);
  EXPECT_NE(kernels[173].name.find("strided_copy_kernel"), std::string::npos);
  EXPECT_TRUE(map.of_kernel[173].layer.empty());
  EXPECT_TRUE(has_note(map, "1 kernel without an NVTX range and of no op family"));
  EXPECT_EQ(map.passes, 1);
  EXPECT_TRUE(map.misfit.empty()) << map.misfit;
}

// `ridge profile models/resnet50.onnx --device cuda --batch 8` on an H100 (bench/results, after the elementwise
// kernels became flat, row and walk variants): every kernel ridge launches shows its op family, so a figure
// groups it and a run without NVTX maps it by order.
TEST(NcuFitH100, RidgesKernelVariantsShowTheirFamily) {
  auto kernels = kernels_of(source_path("bench/results/gpu-h100-2026-11-26-kernels/profile-resnet50-ncu.csv"));
  ASSERT_EQ(kernels.size(), 176u);
  int flat = 0;
  for (const auto& k : kernels) {
    if (k.name.find("ridge::") == std::string::npos || k.name.find("strided_copy") != std::string::npos) continue;
    EXPECT_FALSE(profile::kernel_family(k.name).empty()) << k.name;
    if (k.name.find("binary_flat_kernel") != std::string::npos) {
      ++flat;
      EXPECT_EQ(profile::kernel_family(k.name), "elementwise");
    }
  }
  EXPECT_EQ(flat, 16);  // ResNet-50's residual Adds
  auto map = profile::map_kernels_to_layers(kernels, layers_of("resnet50.onnx", 8));
  EXPECT_EQ(mapped(map), 176u);
}

// The same model and command on an H100 after the executor learned to name each node's NVTX range: every
// kernel, the cuDNN bias adds and the Gemm's bias copy included, is placed by its range, not by order.
TEST(NcuFitH100, RidgesOwnExecutorNamesEveryKernelsLayerWithNvtx) {
  auto kernels = h100("details-ridge-cuda-executor-resnet50-b1-fp32-nvtx.csv");
  ASSERT_EQ(kernels.size(), 175u);
  auto layers = layers_of("resnet50.onnx");
  auto map = profile::map_kernels_to_layers(kernels, layers);
  EXPECT_EQ(mapped(map), 175u);
  for (size_t i = 0; i < kernels.size(); ++i) {
    ASSERT_FALSE(kernels[i].nvtx_ranges.empty()) << i;
    EXPECT_EQ(map.of_kernel[i].layer, kernels[i].nvtx_ranges.back()) << i;
  }
  // Read from the file: kernel 1 is cuDNN's bias add inside the first convolution's range, kernel 173 the copy
  // of the classifier's bias inside the Gemm's (by order it stayed unmapped).
  EXPECT_NE(kernels[1].name.find("op_generic_tensor_kernel"), std::string::npos);
  EXPECT_EQ(map.of_kernel[1].layer, "/conv1/Conv");
  EXPECT_NE(kernels[173].name.find("strided_copy_kernel"), std::string::npos);
  EXPECT_EQ(map.of_kernel[173].layer, "/fc/Gemm");
  EXPECT_EQ(map.passes, 1);
  EXPECT_EQ(map.passes_from, "NVTX ranges: each of 121 layers ran once");
  EXPECT_TRUE(map.misfit.empty()) << map.misfit;
}

TEST(NcuFitH200, TwoPassesInOneFileGivePerPassFigures) {
  auto layers = layers_of("resnet50.onnx");
  for (const char* file : {"details-ridge-cuda-executor-resnet50-b1-fp32.csv", "details-resnet50-b1-fp32-nvtx.csv"}) {
    auto one = h200(file);
    auto two = one;
    two.insert(two.end(), one.begin(), one.end());
    auto map = profile::map_kernels_to_layers(two, layers);
    EXPECT_EQ(map.passes, 2) << file << ": " << map.passes_from;
    EXPECT_EQ(mapped(map), 2 * mapped(profile::map_kernels_to_layers(one, layers))) << file;
    for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(map.of_kernel[i].layer, map.of_kernel[i + one.size()].layer);
    // Each layer's time per pass is what one pass alone gives.
    auto per_pass = profile::layer_seconds(two, map, map.passes);
    auto single = profile::layer_seconds(one, profile::map_kernels_to_layers(one, layers));
    ASSERT_EQ(per_pass.size(), single.size());
    for (size_t i = 0; i < single.size(); ++i) EXPECT_NEAR(per_pass[i].second, single[i].second, 1e-15);
    EXPECT_EQ(profile::passes_to_use(map, 0, file), 2);
    EXPECT_EQ(profile::passes_to_use(map, 2, file), 2);
    EXPECT_THROW(profile::passes_to_use(map, 1, file), Error);
  }
}

TEST(NcuFitH200, AnExportOfAnotherModelIsDetected) {
  auto executor = h200("details-ridge-cuda-executor-resnet50-b1-fp32.csv");
  auto nvtx = h200("details-resnet50-b1-fp32-nvtx.csv");
  // By order: ResNet-50's 53 convolution kernels against ResNet-152's 155 layers: nothing placed by order.
  auto map = profile::map_kernels_to_layers(executor, layers_of("resnet152.onnx"));
  EXPECT_NE(map.misfit.find("53 conv kernels against 155 layers"), std::string::npos) << map.misfit;
  EXPECT_EQ(mapped(map), 0u);
  // By NVTX: ResNet-152 has every layer name ResNet-50's ranges carry, but two thirds of its convolutions ran nothing.
  map = profile::map_kernels_to_layers(nvtx, layers_of("resnet152.onnx"));
  EXPECT_NE(map.misfit.find("102 of the model's 155 conv layers ran no kernel"), std::string::npos) << map.misfit;
  // VGG-16 has none of the names.
  map = profile::map_kernels_to_layers(nvtx, layers_of("vgg16.onnx"));
  EXPECT_NE(map.misfit.find("no NVTX range names a layer of the model"), std::string::npos) << map.misfit;
  EXPECT_EQ(mapped(map), 0u);
}

TEST(NcuFitH200, AnExportOfAnotherBatchIsDetected) {
  auto kernels = h200("details-resnet50-b1-fp32-nvtx.csv");
  auto at1 = layers_of("resnet50.onnx", 1);
  auto map = profile::map_kernels_to_layers(kernels, at1);
  auto work = profile::work_ratio(kernels, map, at1, 1);
  // The convolution kernels execute 1.00-1.31x the FLOPs the layers need (tests/data/ncu/h200/SOURCES.md): in range.
  ASSERT_TRUE(work.ratio());
  EXPECT_GT(work.layers, 50u);
  EXPECT_GT(*work.ratio(), 1.0);
  EXPECT_LT(*work.ratio(), 1.3);
  EXPECT_FALSE(profile::batch_mismatch(work, 1, "resnet50.onnx"));
  // The same kernels against the analysis at batch 32: 1/32 of the FLOPs, and the batch they show is 1.
  auto at32 = layers_of("resnet50.onnx", 32);
  auto wrong = profile::work_ratio(kernels, profile::map_kernels_to_layers(kernels, at32), at32, 1);
  EXPECT_NEAR(*wrong.ratio(), *work.ratio() / 32, 1e-9);
  auto why = profile::batch_mismatch(wrong, 32, "resnet50.onnx");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("about 1 "), std::string::npos) << *why;
}

TEST(NcuFitH200, TheThreeLayoutsOfOneProgramAgree) {
  // Kernel time summed by hand from each file (ns): details 2,429,632 over 174 kernels in the pass's range; raw
  // 2,433,312 over 175 (its own run, with the random-number kernel before the range); summary 34 rows standing
  // for 175 launches, 2,435,040.11 (average x invocations).
  auto total = [](const std::vector<profile::KernelFigures>& kernels, int64_t& launches) {
    double seconds = 0;
    launches = 0;
    for (const auto& k : kernels) {
      seconds += *k.time_s * static_cast<double>(k.invocations);
      launches += k.invocations;
    }
    return seconds;
  };
  int64_t launches = 0;
  EXPECT_NEAR(total(h200("details-resnet50-b1-fp32-nvtx.csv"), launches), 2429632e-9, 1e-12);
  EXPECT_EQ(launches, 174);
  auto raw = h200("raw-resnet50-b1-fp32-nvtx.csv");
  EXPECT_NEAR(total(raw, launches), 2433312e-9, 1e-12);
  EXPECT_EQ(launches, 175);
  EXPECT_TRUE(raw[0].nvtx_ranges.empty());
  EXPECT_EQ(raw[1].nvtx_ranges, (std::vector<std::string>{"resnet50_batch1", "/conv1/Conv"}));
  auto summary = h200("summary-per-kernel-resnet50-b1-fp32.csv");
  ASSERT_EQ(summary.size(), 34u);
  EXPECT_NEAR(total(summary, launches), 2435040.11e-9, 1e-12);
  EXPECT_EQ(launches, 175);
  // The raw page maps like the details page; a summary keeps no launch order: it gives the passes, maps nothing.
  auto layers = layers_of("resnet50.onnx");
  auto raw_map = profile::map_kernels_to_layers(raw, layers);
  EXPECT_EQ(mapped(raw_map), 174u);
  auto summary_map = profile::map_kernels_to_layers(summary, layers);
  EXPECT_EQ(mapped(summary_map), 0u);
  EXPECT_EQ(summary_map.passes, 1);
  EXPECT_TRUE(has_note(summary_map, "a per-kernel summary keeps no launch order"));
}

TEST(NcuFit, UnusableCountersAreNamedAndFeedNoFigure) {
  auto csv =
      details_csv({{"k0", "", {{"gpu__time_duration.sum", "usecond", "10"}, {"dram__bytes.sum", "byte", "-512"}}},
                   {"k1", "", {{"gpu__time_duration.sum", "usecond", "inf"}, {"dram__bytes.sum", "byte", "64"}}},
                   {"k2", "", {{"gpu__time_duration.sum", "furlong", "3"}, {"dram__bytes.sum", "byte", "64"}}}},
                  false);
  auto exported = profile::parse_ncu_export(csv, "bad.csv");
  ASSERT_EQ(exported.launches.size(), 3u);
  auto k0 = kernel_figures(exported.launches[0], "bad.csv");
  auto k1 = kernel_figures(exported.launches[1], "bad.csv");
  auto k2 = kernel_figures(exported.launches[2], "bad.csv");
  EXPECT_FALSE(k0.dram_bytes);
  EXPECT_DOUBLE_EQ(*k0.time_s, 10e-6);
  EXPECT_EQ(k0.bad_values, (std::vector<std::string>{"dram__bytes.sum: negative (-512)"}));
  EXPECT_FALSE(k1.time_s);
  EXPECT_EQ(k1.bad_values, (std::vector<std::string>{"gpu__time_duration.sum: infinite"}));
  EXPECT_FALSE(k2.time_s);
  EXPECT_EQ(k2.bad_values, (std::vector<std::string>{"gpu__time_duration.sum: unit 'furlong' unknown"}));
  profile::NcuImport import;
  profile::NcuRun run;
  run.label = run.path = "bad.csv";
  run.kernels = {k0, k1, k2};
  run.layers = profile::map_kernels_to_layers(run.kernels, {});
  import.runs.push_back(run);
  auto doc = report::ncu_import_document(import);
  int named = 0;
  for (const auto& note : doc.notes) named += note.rfind("counter not used, 1 kernel: ", 0) == 0;
  EXPECT_EQ(named, 3);
}

TEST(NcuFit, ANameThatIsNotUtf8ReachesTheJsonOutput) {
  report::Document doc;
  doc.field("files", "files", "caf\xe9.csv", std::string("caf\xe9.csv"));
  std::ostringstream out;
  EXPECT_NO_THROW(report::print_json(out, doc));
  auto parsed = nlohmann::json::parse(out.str());
  EXPECT_EQ(parsed["files"], "caf\xEF\xBF\xBD.csv");  // U+FFFD where the byte was
}

}  // namespace
}  // namespace ridge::test
