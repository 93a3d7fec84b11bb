// PyTorch profiler traces (profile/): a CUDA trace written by hand from the documented Kineto layout
// (every expected figure computed below from its events), real CPU traces made by torch.profiler with
// their ONNX export (tests/data/torch_trace/make_traces.py), a real CUDA trace of ResNet-18 without
// ProfilerSteps (its figures counted from the file with Python's json module), and traces written in
// the test; the model fit (profile/model_fit.h) on counts alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "onnx/model_reader.h"
#include "profile/torch_trace.h"
#include "roofline/family_calibration.h"
#include "support/paths.h"
#include "support/torch_trace_fixtures.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

using profile::FamilyCounts;
using profile::ModelFit;
using profile::TorchPasses;
using profile::TorchSummary;
using profile::TorchTrace;

const TorchSummary::Layer* find_layer(const TorchSummary& s, const std::string& name) {
  for (const auto& l : s.layers)
    if (l.layer == name) return &l;
  return nullptr;
}
const TorchSummary::Op* find_op(const TorchSummary& s, const std::string& name, const std::string& layer) {
  for (const auto& o : s.ops)
    if (o.name == name && o.layer == layer) return &o;
  return nullptr;
}
const TorchSummary::Unmapped* find_unmapped(const TorchSummary& s, const std::string& what, const std::string& name) {
  for (const auto& u : s.unmapped)
    if (u.what == what && u.name == name) return &u;
  return nullptr;
}

TEST(TorchTrace, CudaByHandLinksKernelsToOps) {
  auto trace = profile::read_torch_trace(data("cuda_by_hand.json"));
  EXPECT_EQ(trace.layout, "kineto");
  ASSERT_EQ(trace.kernels.size(), 8u);
  ASSERT_EQ(trace.steps.size(), 2u);
  EXPECT_EQ(trace.steps[0].number, 1);
  // Skipped: the process_name metadata, the ac2g flow, a Python frame, a GPU-side annotation.
  EXPECT_EQ(trace.skipped_events, 4);
  auto op_of = [&](const std::string& kernel) {
    for (const auto& k : trace.kernels)
      if (k.name == kernel) return k.op < 0 ? std::string() : trace.ops[static_cast<size_t>(k.op)].name;
    return std::string("?");
  };
  EXPECT_EQ(op_of("implicit_gemm"), "aten::conv2d");  // correlation 10 -> cudaLaunchKernel in conv2d
  EXPECT_EQ(op_of("Memcpy DtoH (Device -> Pageable)"), "aten::copy_");
  EXPECT_EQ(op_of("ext_only_kernel"), "aten::relu");  // no runtime call: by External id 9
  EXPECT_EQ(op_of("orphan_kernel"), "");              // neither: not linked
  for (const auto& k : trace.kernels) EXPECT_EQ(k.device, "cuda:0");
}

TEST(TorchTrace, CudaByHandSumsByHand) {
  auto trace = profile::read_torch_trace(data("cuda_by_hand.json"));
  auto mapping = profile::map_layers(trace, nullptr);
  EXPECT_EQ(mapping.by_annotation, 2);  // conv1 in each step
  auto s = profile::summarize(trace);
  EXPECT_EQ(s.passes, 2);
  // Top-level ranges: step 1 conv1 40 + relu 20 + copy_ 10; step 2 conv1 40 + relu 20.
  EXPECT_NEAR(s.cpu_s, 130 * kUs, 1e-12);
  // Kernels: 50 + 8 + 6 + 3 + 52 + 4 + 2 + 7.
  EXPECT_NEAR(s.kernel_s, 132 * kUs, 1e-12);

  const auto* conv1 = find_layer(s, "conv1");
  ASSERT_NE(conv1, nullptr);
  ASSERT_EQ(s.layers.size(), 1u);
  // CPU: every range inside conv1 (40 us) in each step, per step.
  EXPECT_NEAR(conv1->cpu_s, 40 * kUs, 1e-12);
  // GPU: (50 + 8 + 52) / 2 steps.
  ASSERT_TRUE(conv1->gpu_s.has_value());
  EXPECT_NEAR(*conv1->gpu_s, 55 * kUs, 1e-12);
  EXPECT_EQ(conv1->kernels, 3);

  const auto* conv2d = find_op(s, "aten::conv2d", "conv1");
  ASSERT_NE(conv2d, nullptr);
  EXPECT_EQ(conv2d->calls, 2);
  EXPECT_NEAR(conv2d->self_s, ((30 - 5 - 5) + (30 - 5)) * kUs, 1e-12);
  EXPECT_NEAR(conv2d->total_s, 60 * kUs, 1e-12);
  ASSERT_TRUE(conv2d->cuda_s.has_value());
  EXPECT_NEAR(*conv2d->cuda_s, 110 * kUs, 1e-12);
  const auto* relu = find_op(s, "aten::relu", "");
  ASSERT_NE(relu, nullptr);
  EXPECT_NEAR(*relu->cuda_s, (6 + 4 + 2) * kUs, 1e-12);
  // A runtime call shows no GPU time of its own (its kernels are its op's), never a zero.
  const auto* launch = find_op(s, "cudaLaunchKernel", "conv1");
  ASSERT_NE(launch, nullptr);
  EXPECT_FALSE(launch->cuda_s.has_value());

  ASSERT_EQ(s.windows.size(), 2u);
  EXPECT_NEAR(s.windows[0].cpu_op_s, 70 * kUs, 1e-12);
  EXPECT_NEAR(*s.windows[0].kernel_s, (50 + 8 + 6 + 3) * kUs, 1e-12);
  EXPECT_NEAR(s.windows[1].cpu_op_s, 60 * kUs, 1e-12);
  EXPECT_NEAR(*s.windows[1].kernel_s, (52 + 4 + 2 + 7) * kUs, 1e-12);

  // Nothing dropped: what is outside conv1 is listed.
  const auto* relu_kernel = find_unmapped(s, "kernel", "relu_kernel");
  ASSERT_NE(relu_kernel, nullptr);
  EXPECT_EQ(relu_kernel->calls, 2);
  EXPECT_NEAR(relu_kernel->time_s, 10 * kUs, 1e-12);
  ASSERT_NE(find_unmapped(s, "kernel", "orphan_kernel"), nullptr);
  const auto* relu_op = find_unmapped(s, "op", "aten::relu");
  ASSERT_NE(relu_op, nullptr);
  EXPECT_NEAR(relu_op->time_s, 2 * (20 - 4) * kUs, 1e-12);
  double unmapped_kernels = 0;
  for (const auto& u : s.unmapped)
    if (u.what == "kernel") unmapped_kernels += u.time_s;
  EXPECT_NEAR(unmapped_kernels + *conv1->gpu_s * 2, s.kernel_s, 1e-12);
}

TEST(TorchTrace, CudaByHandWithModelMapsModulePathAndLeavesAmbiguousUnmapped) {
  auto model = onnx::load_model(data("tiny_cnn.onnx"));
  auto trace = profile::read_torch_trace(data("cuda_by_hand.json"));
  auto mapping = profile::map_layers(trace, &model.graph);
  EXPECT_EQ(mapping.by_module_path, 2);  // "conv1" holds one node: /conv1/Conv
  // One aten::relu per step against two Relu nodes: ambiguous, so left unmapped.
  EXPECT_EQ(mapping.by_op_order, 0);
  auto s = profile::summarize(trace);
  ASSERT_EQ(s.layers.size(), 1u);
  EXPECT_EQ(s.layers[0].layer, "/conv1/Conv");
  EXPECT_NEAR(*s.layers[0].gpu_s, 55 * kUs, 1e-12);
  EXPECT_NE(find_unmapped(s, "op", "aten::relu"), nullptr);
}

TEST(TorchTrace, ModulePathOfNode) {
  EXPECT_EQ(profile::module_path_of_node("/layer1/layer1.0/conv1/Conv"), "layer1.0.conv1");
  EXPECT_EQ(profile::module_path_of_node("/features/features.3/Relu"), "features.3");
  EXPECT_EQ(profile::module_path_of_node("/fc/Gemm"), "fc");
  EXPECT_EQ(profile::module_path_of_node("/Flatten"), "");
  EXPECT_EQ(profile::module_path_of_node("Conv_0"), "");
  EXPECT_EQ(profile::module_path_of_node(""), "");
}

TEST(TorchTrace, NestingSelfAndTotalWithoutDoubleCounting) {
  // Legacy layout (a bare array): a recursive aten::add inside aten::add inside a range, and a
  // second thread whose ranges must not nest into the first's.
  auto trace = profile::parse_torch_trace(R"([
    {"name": "block", "ph": "X", "ts": 0, "dur": 100, "pid": "CPU functions", "tid": 1},
    {"name": "aten::add", "ph": "X", "ts": 10, "dur": 50, "pid": "CPU functions", "tid": 1},
    {"name": "aten::add", "ph": "X", "ts": 20, "dur": 20, "pid": "CPU functions", "tid": 1},
    {"name": "aten::empty", "ph": "X", "ts": 25, "dur": 5, "pid": "CPU functions", "tid": 1},
    {"name": "aten::mul", "ph": "X", "ts": 30, "dur": 40, "pid": "CPU functions", "tid": 2}
  ])",
                                          "inline");
  EXPECT_EQ(trace.layout, "legacy");
  profile::map_layers(trace, nullptr);
  auto s = profile::summarize(trace);
  EXPECT_EQ(s.passes, 1);
  EXPECT_NEAR(s.cpu_s, 140 * kUs, 1e-12);  // block 100 + mul 40 (other thread)
  const auto* add = find_op(s, "aten::add", "block");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->calls, 2);
  EXPECT_NEAR(add->self_s, (50 - 20 + 20 - 5) * kUs, 1e-12);
  EXPECT_NEAR(add->total_s, 50 * kUs, 1e-12);  // the inner call is inside the outer one
  EXPECT_FALSE(add->cuda_s.has_value());       // no GPU in the trace: no GPU time, not a zero
  const auto* block = find_layer(s, "block");
  ASSERT_NE(block, nullptr);
  EXPECT_NEAR(block->cpu_s, 100 * kUs, 1e-12);
  EXPECT_FALSE(block->gpu_s.has_value());
  ASSERT_NE(find_unmapped(s, "op", "aten::mul"), nullptr);
}

// Self times of everything inside the steps, each counted once: layers plus unmapped.
void expect_nothing_lost(const TorchSummary& s) {
  double layers_s = 0, unmapped_s = 0, steps_s = 0;
  for (const auto& l : s.layers) layers_s += l.cpu_s * static_cast<double>(s.passes);
  for (const auto& u : s.unmapped) unmapped_s += u.time_s;
  for (const auto& st : s.windows) steps_s += st.cpu_op_s;
  EXPECT_NEAR(layers_s + unmapped_s, steps_s, 1e-9);
}

TEST(TorchTrace, RealCpuTraceMapsEveryNodeByOpOrder) {
  auto model = onnx::load_model(data("tiny_cnn.onnx"));
  auto trace = profile::read_torch_trace(data("tiny_cnn_cpu.json"));
  EXPECT_EQ(trace.layout, "legacy");
  ASSERT_EQ(trace.steps.size(), 3u);
  EXPECT_TRUE(trace.kernels.empty());
  auto mapping = profile::map_layers(trace, &model.graph);
  EXPECT_EQ(mapping.by_op_order, 8 * 3);  // 8 nodes, 3 steps
  auto s = profile::summarize(trace);
  ASSERT_EQ(s.layers.size(), 8u);
  for (const auto& node : model.graph.nodes) {
    const auto* l = find_layer(s, node.name);
    ASSERT_NE(l, nullptr) << node.name;
    EXPECT_GT(l->cpu_s, 0) << node.name;
  }
  const auto* conv = find_op(s, "aten::conv2d", "/conv2/Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->calls, 3);
  // addmm is inside linear: the Gemm node's op, not a second candidate.
  EXPECT_NE(find_op(s, "aten::addmm", "/fc/Gemm"), nullptr);
  expect_nothing_lost(s);
}

TEST(TorchTrace, RealModulesTraceMapsByModulePath) {
  auto model = onnx::load_model(data("tiny_cnn.onnx"));
  auto trace = profile::read_torch_trace(data("tiny_cnn_modules_cpu.json"));
  auto mapping = profile::map_layers(trace, &model.graph);
  EXPECT_EQ(mapping.by_module_path, 7 * 3);  // conv1 relu1 pool1 conv2 relu2 pool2 fc
  EXPECT_EQ(mapping.by_op_order, 3);         // torch.flatten is no module: /Flatten by op type
  EXPECT_NE(std::find(mapping.ambiguous.begin(), mapping.ambiguous.end(), "forward"), mapping.ambiguous.end());
  auto s = profile::summarize(trace);
  EXPECT_EQ(s.layers.size(), 8u);
  EXPECT_NE(find_op(s, "relu1", "/relu1/Relu"), nullptr);
  expect_nothing_lost(s);
  // Without the model, the ranges are the layers.
  auto plain = profile::read_torch_trace(data("tiny_cnn_modules_cpu.json"));
  profile::map_layers(plain, nullptr);
  auto p = profile::summarize(plain);
  EXPECT_NE(find_layer(p, "conv1"), nullptr);
  EXPECT_NE(find_layer(p, "forward"), nullptr);
  EXPECT_EQ(find_layer(p, "/conv1/Conv"), nullptr);
}

// ---- passes without ProfilerSteps, and the model fit ----

// Per pass of ResNet-18 (counted from the trace): 20 conv2d, 1 linear, max_pool2d + adaptive_avg_pool2d,
// 17 relu_, 8 add_; torchvision's ResNet-18 and ResNet-50 have these nodes in their ONNX exports.
const FamilyCounts kResnet18Ops{{"conv", 40}, {"matmul", 2}, {"pooling", 4}, {"relu", 34}, {"add", 16}};
const FamilyCounts kResnet18Nodes{{"conv", 20}, {"matmul", 1}, {"pooling", 2}, {"relu", 17}, {"add", 8}};
const FamilyCounts kResnet50Nodes{{"conv", 53}, {"matmul", 1}, {"pooling", 2}, {"relu", 49}, {"add", 16}};

TEST(TorchTrace, RealCudaResnet18TraceCountsByHand) {
  auto trace = profile::read_torch_trace(data(kResnet18Trace));
  EXPECT_EQ(trace.layout, "kineto");
  EXPECT_TRUE(trace.steps.empty());          // prof.step() without a schedule records no ProfilerStep ranges
  EXPECT_EQ(trace.ops.size(), 626u + 523u);  // cpu_op + cuda_runtime
  EXPECT_EQ(trace.kernels.size(), 238u);
  // 520 + 241 flow ends and starts, 58 metadata, 2 instants, one overhead and one Trace span.
  EXPECT_EQ(trace.skipped_events, 823);
  for (const auto& k : trace.kernels) {
    EXPECT_GE(k.op, 0) << k.name;  // every kernel's correlation names its cudaLaunchKernel(ExC)
    EXPECT_EQ(k.device, "cuda:0");
    EXPECT_EQ(k.stream, 7);
  }
  // Whole trace, per family (the outermost operators): two passes of ResNet-18.
  EXPECT_EQ(profile::trace_family_counts(trace), kResnet18Ops);

  // No steps: the 69 top-level ops of a pass (names and input shapes) repeat twice.
  const auto& passes = trace.passes;
  EXPECT_EQ(passes.from, TorchPasses::From::kOpSequence);
  EXPECT_EQ(passes.count, 2);
  EXPECT_EQ(passes.sequence_repeats, 2);
  ASSERT_EQ(passes.windows.size(), 2u);
  // From the first op of each pass (ts 4789921419484.962, 4789921428629.049) to the next, and to the end
  // of the last range (the last cudaDeviceSynchronize ends at 4789921435113.164). Within 1 ns: timestamps
  // near 4.8e12 us parse to doubles 0.5 ns apart, durations ("dur") are exact.
  EXPECT_NEAR(passes.windows[0].duration_s, 9144.087 * kUs, 1e-9);
  EXPECT_NEAR(passes.windows[1].duration_s, 6484.115 * kUs, 1e-9);
  for (int p = 0; p < 2; ++p) {
    std::map<std::string, int> calls;
    for (const auto& op : trace.ops)
      if (op.pass == p && op.parent < 0) ++calls[op.name];
    EXPECT_EQ(calls["aten::conv2d"], 20) << p;
    EXPECT_EQ(calls["aten::batch_norm"], 20) << p;
    EXPECT_EQ(calls["aten::relu_"], 17) << p;
    EXPECT_EQ(calls["aten::add_"], 8) << p;
    EXPECT_EQ(calls["aten::max_pool2d"], 1) << p;
    EXPECT_EQ(calls["aten::adaptive_avg_pool2d"], 1) << p;
    EXPECT_EQ(calls["aten::flatten"], 1) << p;
    EXPECT_EQ(calls["aten::linear"], 1) << p;
    EXPECT_EQ(std::count_if(trace.kernels.begin(), trace.kernels.end(), [&](const auto& k) { return k.pass == p; }),
              119)
        << p;
  }

  profile::map_layers(trace, nullptr);
  auto s = profile::summarize(trace);
  EXPECT_EQ(s.passes, 2);
  EXPECT_EQ(s.passes_from, TorchPasses::From::kOpSequence);
  EXPECT_EQ(s.outside_passes, 0);
  EXPECT_NEAR(s.kernel_s, 1411.238 * kUs, 1e-10);
  EXPECT_NEAR(s.cpu_s, 12436.184 * kUs, 1e-9);  // 138 top-level ops and 3 cudaDeviceSynchronize
  ASSERT_EQ(s.windows.size(), 2u);
  EXPECT_NEAR(*s.windows[0].kernel_s, 706.723 * kUs, 1e-10);
  EXPECT_NEAR(*s.windows[1].kernel_s, 704.515 * kUs, 1e-10);
  EXPECT_NEAR(s.windows[0].cpu_op_s, 7469.362 * kUs, 1e-9);
  EXPECT_NEAR(s.windows[1].cpu_op_s, 4966.822 * kUs, 1e-9);
  ASSERT_TRUE(s.kernel_per_pass_s.has_value());
  EXPECT_NEAR(*s.kernel_per_pass_s, 705.619 * kUs, 1e-10);
  EXPECT_NEAR(s.cpu_per_pass_s, 6218.092 * kUs, 1e-9);
  // GPU time per launching op (kernels under each outermost op), all passes.
  const auto* conv = find_op(s, "aten::conv2d", "");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->calls, 40);
  EXPECT_NEAR(*conv->cuda_s, 1041.761 * kUs, 1e-10);
  EXPECT_NEAR(*find_op(s, "aten::batch_norm", "")->cuda_s, 180.037 * kUs, 1e-10);
  EXPECT_NEAR(*find_op(s, "aten::add_", "")->cuda_s, 35.296 * kUs, 1e-10);
}

TEST(TorchTrace, RealCudaResnet18TraceDoesNotFitResnet50) {
  auto model = onnx::load_model(source_path("models/resnet50.onnx"));
  EXPECT_EQ(profile::model_family_counts(model.graph), kResnet50Nodes);
  auto trace = profile::read_torch_trace(data(kResnet18Trace));
  auto mapping = profile::map_layers(trace, &model.graph);
  ASSERT_TRUE(mapping.fit.has_value());
  EXPECT_EQ(mapping.fit->verdict, ModelFit::Verdict::kMismatch);
  EXPECT_EQ(mapping.fit->reason, "40 convolutions against 53 Conv nodes (not a whole multiple)");
  // Its 16 aten::add_ against ResNet-50's 16 Add nodes: equal counts, but no longer paired by order.
  EXPECT_EQ(mapping.by_op_order, 0);
  EXPECT_EQ(mapping.by_node_name + mapping.by_module_path, 0);
  // The passes stay the op sequence's: the model's counts say nothing about a trace they do not fit.
  EXPECT_EQ(trace.passes.count, 2);
  EXPECT_EQ(trace.passes.from, TorchPasses::From::kOpSequence);
  auto s = profile::summarize(trace);
  EXPECT_TRUE(s.layers.empty());
  const auto* adds = find_unmapped(s, "op", "aten::add_");
  ASSERT_NE(adds, nullptr);
  EXPECT_EQ(adds->calls, 16);
}

TEST(TorchTrace, RealCudaResnet18TraceMapsOntoResnet18PerPass) {
  auto model = onnx::load_model(resnet18_model());
  EXPECT_EQ(profile::model_family_counts(model.graph), kResnet18Nodes);
  auto trace = profile::read_torch_trace(data(kResnet18Trace));
  auto mapping = profile::map_layers(trace, &model.graph);
  ASSERT_TRUE(mapping.fit.has_value());
  ASSERT_TRUE(mapping.fit->fits()) << mapping.fit->reason;
  EXPECT_EQ(mapping.fit->passes, 2);
  EXPECT_EQ(trace.passes.count, 2);
  EXPECT_EQ(trace.passes.from, TorchPasses::From::kOpSequence);  // the sequence found it; the model agrees
  // Per pass: 20 Conv, 17 Relu, 8 Add, MaxPool, GlobalAveragePool, Flatten, Gemm (batch_norm: no node).
  EXPECT_EQ(mapping.by_op_order, 2 * 49);
  auto s = profile::summarize(trace);
  const auto* pool = find_layer(s, "/maxpool/MaxPool");
  ASSERT_NE(pool, nullptr);
  EXPECT_NEAR(*pool->gpu_s, (27.936 + 27.968) / 2 * kUs, 1e-10);  // max_pool_forward_nchw, mean per pass
  const auto* fc = find_layer(s, "/fc/Gemm");
  ASSERT_NE(fc, nullptr);
  EXPECT_NEAR(*fc->gpu_s, (6.912 + 6.848) / 2 * kUs, 1e-10);  // gemmSN_TN_kernel
  ASSERT_NE(find_layer(s, "/layer4/layer4.0/downsample/downsample.0/Conv"), nullptr);
  // Nothing lost: the layers' kernels (per pass, times 2) and the unmapped ones (batch_norm's) add up.
  double layers_gpu = 0, unmapped_gpu = 0;
  for (const auto& l : s.layers) layers_gpu += *l.gpu_s * 2;
  for (const auto& u : s.unmapped)
    if (u.what == "kernel") unmapped_gpu += u.time_s;
  EXPECT_NEAR(unmapped_gpu, 180.037 * kUs, 1e-10);
  EXPECT_NEAR(layers_gpu + unmapped_gpu, 1411.238 * kUs, 1e-10);
}

TEST(TorchTrace, ModelFitComparesFamilyCounts) {
  auto fits = profile::fit_model(kResnet18Ops, kResnet18Nodes);
  EXPECT_EQ(fits.verdict, ModelFit::Verdict::kFits);
  EXPECT_EQ(fits.passes, 2);
  EXPECT_EQ(profile::describe_families(fits),
            "40 convolutions against 20 Conv nodes, 2 matrix multiplies against 1 Gemm/MatMul node, 4 pooling ops "
            "against 2 pooling nodes, 34 ReLUs against 17 Relu nodes, 16 adds against 8 Add nodes");

  auto other = profile::fit_model(kResnet18Ops, kResnet50Nodes);
  EXPECT_EQ(other.verdict, ModelFit::Verdict::kMismatch);
  EXPECT_EQ(other.passes, 0);
  EXPECT_EQ(other.reason, "40 convolutions against 53 Conv nodes (not a whole multiple)");

  // Whole multiples, but not the same one.
  auto ops = kResnet18Ops;
  ops["add"] = 8;
  EXPECT_EQ(profile::fit_model(ops, kResnet18Nodes).reason,
            "8 adds against 8 Add nodes (1 pass, but 2 by the convolutions)");
  // A family on one side only.
  EXPECT_EQ(profile::fit_model({{"conv", 2}}, {{"conv", 2}, {"matmul", 1}}).reason,
            "no matrix multiply against 1 Gemm/MatMul node");
  EXPECT_EQ(profile::fit_model({{"conv", 2}, {"add", 8}}, {{"conv", 1}}).reason, "8 adds against no Add node");
  // Adds with a constant input may be ops of their own or parts of another: a range.
  EXPECT_TRUE(
      profile::fit_model({{"matmul", 4}, {"add", 6}}, {{"matmul", 2}, {"add", 2}, {"add_with_constant", 2}}).fits());
  EXPECT_TRUE(
      profile::fit_model({{"matmul", 4}, {"add", 4}}, {{"matmul", 2}, {"add", 2}, {"add_with_constant", 2}}).fits());
  EXPECT_EQ(
      profile::fit_model({{"matmul", 4}, {"add", 10}}, {{"matmul", 2}, {"add", 2}, {"add_with_constant", 2}}).reason,
      "10 adds against 2 to 4 Add nodes (2 passes by the matrix multiplies, and 10 is not 2 times 2 to 4)");
  EXPECT_TRUE(profile::fit_model({{"matmul", 2}}, {{"matmul", 1}, {"add_with_constant", 1}}).fits());
  // Nothing to compare, or only a range that leaves k open: no verdict.
  EXPECT_EQ(profile::fit_model({}, {}).verdict, ModelFit::Verdict::kUnknown);
  EXPECT_EQ(profile::fit_model({{"add", 6}}, {{"add", 1}, {"add_with_constant", 2}}).verdict,
            ModelFit::Verdict::kUnknown);
  EXPECT_EQ(profile::fit_model({{"add", 7}}, {{"add", 2}, {"add_with_constant", 1}}).verdict,
            ModelFit::Verdict::kMismatch);
}

TEST(TorchTrace, ModelFamilyCountsLeaveShapeArithmeticOut) {
  ModelBuilder b;
  b.input("x", {2, 4});
  b.weight("bias", {4});
  b.node("Add", {"x", "x"}, {"sum"}, "add_activations");   // add
  b.node("Add", {"sum", "bias"}, {"biased"}, "add_bias");  // add_with_constant
  b.node("Shape", {"biased"}, {"shape"}, "shape");         // shape arithmetic from here:
  b.int64_constant("one", {1}, {1});
  b.node("Add", {"shape", "one"}, {"shape_plus_one"}, "add_shape");  // not counted
  b.node("Relu", {"biased"}, {"y"}, "relu");
  b.output("y");
  b.output("shape_plus_one");
  auto model = onnx::load_model(b.save("fit_counts"));
  EXPECT_EQ(profile::model_family_counts(model.graph),
            (FamilyCounts{{"add", 1}, {"add_with_constant", 1}, {"relu", 1}}));
}

// A Kineto trace of `copies` passes, each the ops named in `pass` one after another (10 us apart), with
// `dims` as every op's Input Dims.
std::string sequence_trace(const std::vector<std::string>& pass, int copies,
                           const std::vector<std::string>& dims = {}) {
  nlohmann::json events = nlohmann::json::array();
  int ts = 0;
  for (int c = 0; c < copies; ++c)
    for (size_t i = 0; i < pass.size(); ++i, ts += 10) {
      nlohmann::json e{{"ph", "X"}, {"cat", "cpu_op"}, {"name", pass[i]}, {"pid", 1},
                       {"tid", 1},  {"ts", ts},        {"dur", 5}};
      if (!dims.empty()) e["args"] = {{"Input Dims", nlohmann::json::parse(dims[i % dims.size()])}};
      events.push_back(e);
    }
  return nlohmann::json{{"traceEvents", events}}.dump();
}

TEST(TorchTrace, PassesFromARepeatedOpSequence) {
  auto three = profile::parse_torch_trace(sequence_trace({"aten::conv2d", "aten::relu", "aten::linear"}, 3), "three");
  EXPECT_EQ(three.passes.count, 3);
  EXPECT_EQ(three.passes.from, TorchPasses::From::kOpSequence);
  ASSERT_EQ(three.passes.windows.size(), 3u);
  EXPECT_NEAR(three.passes.windows[1].start_s, 30 * kUs, 1e-12);
  EXPECT_EQ(three.ops[4].pass, 1);

  // An extra op at the end: not copies of one sequence, so one pass (the whole trace).
  auto uneven = sequence_trace({"aten::conv2d", "aten::relu"}, 2);
  auto doc = nlohmann::json::parse(uneven);
  doc["traceEvents"].push_back(
      {{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::copy_"}, {"pid", 1}, {"tid", 1}, {"ts", 100}, {"dur", 5}});
  auto one = profile::parse_torch_trace(doc.dump(), "uneven");
  EXPECT_EQ(one.passes.count, 1);
  EXPECT_EQ(one.passes.from, TorchPasses::From::kNone);
  EXPECT_TRUE(one.passes.windows.empty());
  profile::map_layers(one, nullptr);
  EXPECT_EQ(profile::summarize(one).passes, 1);

  // The same names with other input shapes are other layers, not another pass.
  auto two_layers = sequence_trace({"aten::conv2d", "aten::relu", "aten::conv2d", "aten::relu"}, 1,
                                   {"[[8,3,32,32]]", "[[8,16,30,30]]", "[[8,16,30,30]]", "[[8,32,28,28]]"});
  EXPECT_EQ(profile::parse_torch_trace(two_layers, "two layers").passes.count, 1);
  auto names_only = sequence_trace({"aten::conv2d", "aten::relu", "aten::conv2d", "aten::relu"}, 1);
  EXPECT_EQ(profile::parse_torch_trace(names_only, "names only").passes.count, 2);
}

TEST(TorchTrace, ModelOpCountsDecidePassesOfARepeatedBlock) {
  // One pass of a model made of the same block twice looks like two passes; its op counts say one.
  ModelBuilder b;
  b.input("x", {1, 1, 4, 4});
  b.weight("w", {1, 1, 1, 1});
  b.node("Conv", {"x", "w"}, {"c1"}, "/conv1/Conv");
  b.node("Relu", {"c1"}, {"r1"}, "/relu1/Relu");
  b.node("Conv", {"r1", "w"}, {"c2"}, "/conv2/Conv");
  b.node("Relu", {"c2"}, {"y"}, "/relu2/Relu");
  b.output("y");
  auto model = onnx::load_model(b.save("repeated_block"));
  auto trace = profile::parse_torch_trace(sequence_trace({"aten::conv2d", "aten::relu"}, 2), "block");
  EXPECT_EQ(trace.passes.count, 2);  // without the model: the sequence repeats
  auto mapping = profile::map_layers(trace, &model.graph);
  ASSERT_TRUE(mapping.fit->fits());
  EXPECT_EQ(trace.passes.count, 1);
  EXPECT_EQ(trace.passes.from, TorchPasses::From::kModel);
  EXPECT_EQ(mapping.by_op_order, 4);
  auto s = profile::summarize(trace);
  EXPECT_EQ(s.passes, 1);
  ASSERT_NE(find_layer(s, "/conv2/Conv"), nullptr);
  EXPECT_NEAR(find_layer(s, "/conv2/Conv")->cpu_s, 5 * kUs, 1e-12);

  // Four copies of the block are two passes of the model: windows from the sequence, counts from the model.
  auto four = profile::parse_torch_trace(sequence_trace({"aten::conv2d", "aten::relu"}, 4), "four");
  auto m4 = profile::map_layers(four, &model.graph);
  EXPECT_EQ(four.passes.count, 2);
  EXPECT_EQ(four.passes.sequence_repeats, 4);
  EXPECT_EQ(four.passes.windows.size(), 2u);
  EXPECT_EQ(m4.by_op_order, 8);
}

TEST(TorchTrace, ProfilerStepsStillDecidePasses) {
  auto cuda = profile::read_torch_trace(data("cuda_by_hand.json"));
  EXPECT_EQ(cuda.passes.from, TorchPasses::From::kSteps);
  EXPECT_EQ(cuda.passes.count, 2);
  auto model = onnx::load_model(data("tiny_cnn.onnx"));
  auto cpu = profile::read_torch_trace(data("tiny_cnn_cpu.json"));
  auto mapping = profile::map_layers(cpu, &model.graph);
  ASSERT_TRUE(mapping.fit->fits()) << mapping.fit->reason;
  EXPECT_EQ(mapping.fit->passes, 3);  // 6 conv2d in the 3 steps against 2 Conv nodes, ...
  EXPECT_EQ(cpu.passes.from, TorchPasses::From::kSteps);
  EXPECT_EQ(cpu.passes.count, 3);
  auto s = profile::summarize(cpu);
  EXPECT_EQ(s.passes, 3);
  EXPECT_EQ(s.windows.size(), 3u);
  // The hand-written trace is not a whole pass of tiny_cnn (no pooling, no linear): no order mapping.
  auto partial = profile::map_layers(cuda, &model.graph);
  EXPECT_EQ(partial.fit->verdict, ModelFit::Verdict::kMismatch);
  EXPECT_EQ(partial.fit->reason, "no matrix multiply against 1 Gemm/MatMul node");
}

// Events without a time, a document that is no object and a ProfilerStep without a number are refused, not read as
// empty traces.
TEST(TorchTrace, MalformedEventsAreRefused) {
  EXPECT_THROW(profile::parse_torch_trace("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"aten::add\"}]}", "x"), Error);
  EXPECT_THROW(profile::parse_torch_trace("[1, 2]", "x"), Error);
  EXPECT_THROW(profile::parse_torch_trace("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"ProfilerStep#x\", \"ts\": 1, "
                                          "\"dur\": 1}]}",
                                          "x"),
               Error);
}

}  // namespace
}  // namespace ridge::test
