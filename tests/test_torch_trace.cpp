// PyTorch profiler traces (profile/): a CUDA trace written by hand from the documented Kineto layout
// (every expected figure computed below from its events), real CPU traces made by torch.profiler with
// their ONNX export (tests/data/torch_trace/make_traces.py), and traces written in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "onnx/model_reader.h"
#include "profile/torch_trace.h"
#include "roofline/calibrate.h"
#include "support/paths.h"
#include "support/torch_trace_fixtures.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

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
  EXPECT_EQ(s.iterations, 2);
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

  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_NEAR(s.steps[0].cpu_op_s, 70 * kUs, 1e-12);
  EXPECT_NEAR(*s.steps[0].kernel_s, (50 + 8 + 6 + 3) * kUs, 1e-12);
  EXPECT_NEAR(s.steps[1].cpu_op_s, 60 * kUs, 1e-12);
  EXPECT_NEAR(*s.steps[1].kernel_s, (52 + 4 + 2 + 7) * kUs, 1e-12);

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
  EXPECT_EQ(s.iterations, 1);
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
  for (const auto& l : s.layers) layers_s += l.cpu_s * static_cast<double>(s.iterations);
  for (const auto& u : s.unmapped) unmapped_s += u.time_s;
  for (const auto& st : s.steps) steps_s += st.cpu_op_s;
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

}  // namespace
}  // namespace ridge::test
